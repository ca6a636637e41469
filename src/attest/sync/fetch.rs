//! `speccoder attest fetch`: the remote's evidence into remote-tracking references, merged into
//! ours (see [`super`]).

use std::collections::{BTreeMap, BTreeSet};

use gix::ObjectId;
use serde::Serialize;

use super::{
    REPAIR_REF, RefConflict, SPECCODER_REFS, SyncError, remote_for, set_tracking, short, staging_prefix,
    tracking_prefix,
};
use crate::attest::note_join::NoteJoiner;
use crate::check::trust::{SignatureTrust, TrustFiles};
use crate::exit;
use crate::git::{
    Direction, FetchLock, GitError, MergeNotesError, NotesMerged, RefMerged, RemoteRef, Repo, Unjoinable,
    set_ref_command,
};
use crate::model::bundle::{NOTES_REF, tracking_notes_ref};
use crate::model::shown::{in_line, one_line, shell_word};

/// One reference of `refs/speccoder/*` after a fetch.
#[derive(Debug, Clone, Serialize)]
pub struct RefRow {
    /// Our reference.
    #[serde(serialize_with = "in_line")]
    pub name: String,
    /// What happened to it.
    #[serde(flatten)]
    pub merged: RefMerged,
}

/// What `speccoder attest fetch` did.
#[derive(Debug, Clone, Serialize)]
pub struct FetchReport {
    /// The remote.
    #[serde(serialize_with = "in_line")]
    pub remote: String,
    /// Our notes: `None` when the remote has none.
    pub notes: Option<NotesMerged>,
    /// The remote-tracking notes reference.
    #[serde(serialize_with = "in_line")]
    pub tracking_notes: String,
    /// Every reference of `refs/speccoder/*` the remote has or had.
    pub refs: Vec<RefRow>,
    /// How many references could not be joined (left as they were).
    pub conflicts: usize,
}

impl FetchReport {
    /// Every reference that could not be joined, with the remote's value.
    #[must_use]
    pub fn ref_conflicts(&self) -> Vec<RefConflict> {
        self.refs
            .iter()
            .filter_map(|row| match &row.merged {
                RefMerged::Conflict { reason, ours, theirs, kind } => Some(RefConflict {
                    name: row.name.clone(),
                    reason: reason.clone(),
                    ours: ours.clone(),
                    theirs: theirs.clone(),
                    kind: kind.clone(),
                }),
                _ => None,
            })
            .collect()
    }

    /// 0, or 14 when a reference could not be joined.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        if self.conflicts == 0 { exit::OK } else { exit::GIT_PRECONDITION }
    }
}

impl std::fmt::Display for FetchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "attest fetch from {}", self.remote)?;
        let notes = match &self.notes {
            None => "the remote has no notes".to_owned(),
            Some(NotesMerged::UpToDate) => "up to date".to_owned(),
            Some(NotesMerged::FastForward { to }) => format!("fast-forward to {}", short(&to.to_string())),
            Some(NotesMerged::Merged { commit, added, joined }) => format!(
                "merged in {} ({added} note(s) added, {joined} joined envelope by envelope)",
                short(&commit.to_string())
            ),
        };
        writeln!(f, "  {NOTES_REF}: {notes}")?;
        for row in &self.refs {
            let what = match &row.merged {
                RefMerged::UpToDate => "up to date".to_owned(),
                RefMerged::KeptOurs => "kept ours (push sends it)".to_owned(),
                RefMerged::DeletedHereOnly => format!(
                    "deleted here only; the remote keeps it, since push never deletes (`git push {} --delete {}` removes it there)",
                    shell_word(&self.remote),
                    shell_word(&row.name)
                ),
                RefMerged::Took { to } => format!("now {}", short(to)),
                RefMerged::Replaced { from, to } => format!(
                    "now {}, replaced: the remote's does not descend from the one here, {from} (replaced by force, or deleted and made again). To keep the one here: `{}`; the next fetch reports the two as a conflict and how to settle it",
                    short(to),
                    set_ref_command(&row.name, from)
                ),
                RefMerged::Deleted => "deleted (deleted on the remote)".to_owned(),
                RefMerged::AheadOfTheirs => "ahead of the remote's".to_owned(),
                RefMerged::Merged { commit } => format!("merged in {}", short(commit)),
                RefMerged::Conflict { ours, theirs, reason, .. } => format!(
                    "CONFLICT, left as it was: {reason} (here {}, there {})",
                    ours.as_deref().map_or("deleted", short),
                    theirs.as_deref().map_or("deleted", short)
                ),
            };
            writeln!(f, "  {}: {what}", row.name)?;
        }
        for conflict in self.ref_conflicts() {
            writeln!(f, "  to resolve {}: {}", conflict.named(), conflict.advice(&self.remote))?;
        }
        Ok(())
    }
}

/// Fetches the evidence of `remote` (default: the current branch's upstream remote, else
/// `origin`) and merges it into ours (see the module documentation). Running it again changes
/// nothing.
///
/// # Errors
/// The remote cannot be reached, another fetch or push of the repository holds the fetch lock
/// ([`GitError::FetchLocked`], nothing changed), or notes of one commit cannot be joined
/// ([`SyncError::NotesConflict`], our notes unchanged).
pub fn fetch(repo: &Repo, remote: Option<&str>, trust: &TrustFiles) -> Result<FetchReport, SyncError> {
    let remote = remote_for(repo, remote, Direction::Fetch)?;
    let held = repo.lock_fetch()?;
    fetch_holding(repo, &remote, trust, &held)
}

/// [`fetch`] from `remote` (a configured remote's name) while `_held` keeps every other fetch and
/// push of the repository out: each stages the remote's references in the one staging namespace
/// and moves the remote-tracking copies, so another's half-done work would read as deletions on
/// the remote.
pub(super) fn fetch_holding(
    repo: &Repo,
    remote: &str,
    trust: &TrustFiles,
    _held: &FetchLock,
) -> Result<FetchReport, SyncError> {
    // Ours must be able to take the remote's notes before anything is fetched.
    repo.check_notes_ref(NOTES_REF)?;
    let remote = remote.to_owned();
    let tracking_notes = tracking_notes_ref(&remote);
    let on_remote = repo.ls_remote(&remote, &[NOTES_REF], &[SPECCODER_REFS])?;
    // In a partial clone, the notes' blobs come along (a verifier cannot fetch them one by one).
    let complete = repo.promisor_remote().is_some();
    // The notes first, by a fetch of their own, so that no other reference of the remote (one
    // whose name this clone cannot keep) keeps them from being merged.
    let notes = match on_remote.iter().find(|r| r.name == NOTES_REF) {
        None => None,
        Some(RemoteRef { symbolic: Some(target), .. }) => {
            return Err(notes_link(&remote, &tracking_notes, target));
        }
        Some(_) => {
            // Notes merge by the bundle rule, which needs no base: their copy may move at once.
            let refspec = format!("+{NOTES_REF}:{tracking_notes}");
            repo.fetch_refspecs(&remote, &[refspec], complete)?;
            Some(merge_notes(repo, &remote, &tracking_notes, trust)?)
        }
    };
    let mut refs = held_back(repo, &remote, &on_remote)?;
    refs.extend(merge_refs(repo, &remote, &refs, complete)?);
    refs.sort_by(|a, b| a.name.cmp(&b.name));
    let conflicts = refs.iter().filter(|r| matches!(r.merged, RefMerged::Conflict { .. })).count();
    Ok(FetchReport { remote, notes, tracking_notes, refs, conflicts })
}

/// The remote's references under `refs/speccoder/` that are not fetched, each a conflict of its
/// own: a symbolic reference, whose value is that of the reference it names (a branch), which a
/// push to it would move; and a name this clone cannot keep ([`Repo::cannot_keep`], in any of the
/// three places a fetch writes it), which would stop git's fetch of every other.
fn held_back(repo: &Repo, remote: &str, on_remote: &[RemoteRef]) -> Result<Vec<RefRow>, GitError> {
    let mut rows = Vec::new();
    for r in on_remote {
        let Some(suffix) = r.name.strip_prefix(SPECCODER_REFS) else { continue };
        let places = [SPECCODER_REFS.to_owned(), tracking_prefix(remote), staging_prefix(remote)];
        let (reason, kind) = if let Some(target) = &r.symbolic {
            let reason =
                format!("the remote's is a symbolic reference to {}: it was not fetched", one_line(target));
            (reason, Unjoinable::SymbolicThere { target: target.clone() })
        } else if let Some(why) =
            places.iter().find_map(|place| repo.cannot_keep(&format!("{place}{suffix}")))
        {
            (format!("its name cannot be kept here, as {why}: it was not fetched"), Unjoinable::NameUnusable)
        } else {
            continue;
        };
        // Ours is read only under a name this clone can keep.
        let ours = match kind {
            Unjoinable::NameUnusable => None,
            _ => repo.ref_target(&r.name)?.map(|id| id.to_string()),
        };
        let theirs = Some(r.id.to_string());
        rows.push(RefRow {
            name: r.name.clone(),
            merged: RefMerged::Conflict { ours, theirs, reason, kind },
        });
    }
    Ok(rows)
}

/// Fetches the remote's references under `refs/speccoder/` but those `held_back` and merges each
/// into ours, against the value fetched last time.
fn merge_refs(
    repo: &Repo,
    remote: &str,
    held_back: &[RefRow],
    complete: bool,
) -> Result<Vec<RefRow>, SyncError> {
    let prefix = tracking_prefix(remote);
    let staging = staging_prefix(remote);
    // The other references are decided against the value fetched last time, so git writes the
    // remote's values into the staging namespace (pruned there, so it mirrors the remote) and
    // the remote-tracking copy of each moves only once its merge is written below: a fetch
    // stopped anywhere before (killed, no identity, a stale lock) leaves the base as it was, and
    // running it again decides from the same three values.
    let mut refspecs = vec![format!("+{SPECCODER_REFS}*:{staging}*")];
    refspecs.extend(held_back.iter().map(|row| format!("^{}", row.name)));
    repo.fetch_refspecs(remote, &refspecs, complete)?;

    let skipped: BTreeSet<&str> =
        held_back.iter().filter_map(|row| row.name.strip_prefix(SPECCODER_REFS)).collect();
    let suffixes = |prefix: &str| -> Result<BTreeMap<String, ObjectId>, GitError> {
        Ok(repo
            .refs_with_prefix(prefix)?
            .into_iter()
            .map(|(name, id)| (name[prefix.len()..].to_owned(), id))
            .filter(|(suffix, _)| !skipped.contains(suffix.as_str()))
            .collect())
    };
    let before = suffixes(&prefix)?;
    let fetched = suffixes(&staging)?;
    let names: BTreeSet<&String> = before.keys().chain(fetched.keys()).collect();
    let mut refs = Vec::new();
    for suffix in names {
        let local = format!("{SPECCODER_REFS}{suffix}");
        let tracking = format!("{prefix}{suffix}");
        // Published held-out sets only ever add directories named by their manifest digest, so
        // the reference is append-only: two publishers' histories join, and a remote copy that
        // lost sets (replaced by force, or deleted) never takes ours back. A skip is one
        // person's decision, replaced as a whole, and two differ.
        let append_only = suffix.starts_with("held-out/");
        let message = format!("Merge {tracking} into {local}\n\nJoined by speccoder attest fetch.\n");
        let theirs = fetched.get(suffix).copied();
        let merged =
            repo.merge_fetched_ref(&local, before.get(suffix).copied(), theirs, append_only, &message)?;
        // Not merged (a conflict): the remote-tracking copy stays at what was fetched last time,
        // so that the next fetch decides from the same three values and reports the conflict
        // again (and push does not take theirs for merged); the staged copy keeps theirs, whose
        // value the advice names, reachable. Merged: the base moves to what was merged. The
        // staged copy stays, as git's copy of the remote's: the next fetch writes only the
        // references that changed there, and a reference left as it was is written by no one.
        if !matches!(merged, RefMerged::Conflict { .. }) {
            set_tracking(repo, &tracking, theirs, &format!("speccoder attest fetch: {local} merged"))?;
        }
        refs.push(RefRow { name: local, merged });
    }
    Ok(refs)
}

/// The remote's notes reference is a symbolic reference to `target`: its value is that
/// reference's history (a branch's, most likely), never fetched as notes, and a push through it
/// would move `target`.
fn notes_link(remote: &str, tracking: &str, target: &str) -> SyncError {
    let (target, remote_w) = (one_line(target), shell_word(remote));
    SyncError::RemoteNotesDamaged {
        remote: remote.to_owned(),
        tracking: tracking.to_owned(),
        what: format!(
            "their {NOTES_REF} is a symbolic reference to {target}, whose history is no notes (and which a push to {NOTES_REF} would move), so it was not fetched"
        ),
        repair: format!(
            "Only whoever keeps {remote} can remove the link alone: ask them to run `git symbolic-ref --delete {NOTES_REF}` in its repository (a push that deletes it, `git push {remote_w} --delete {NOTES_REF}`, deletes {target} too); then run `speccoder attest push {remote_w}`, which puts this clone's notes there."
        ),
    }
}

/// Merges the fetched notes into ours, note by note ([`NoteJoiner`]), checking against `trust`.
fn merge_notes(
    repo: &Repo,
    remote: &str,
    tracking: &str,
    trust: &TrustFiles,
) -> Result<NotesMerged, SyncError> {
    let message = format!(
        "Merge notes from {tracking} into {NOTES_REF}\n\nJoined by speccoder attest fetch: one envelope per statement, with the signatures of both.\n"
    );
    // Joins are checked against this clone's trust; a clone without notes joins nothing.
    let trust = match repo.ref_target(NOTES_REF)? {
        None => SignatureTrust::default(),
        Some(_) => SignatureTrust::load_outside_head(repo, trust)?,
    };
    let joiner = NoteJoiner::new(repo, &trust, time::OffsetDateTime::now_utc());
    // A conflict keeps the blob of ours when their notes no longer hold the note: the advice
    // puts that blob back there.
    repo.merge_notes(NOTES_REF, tracking, &message, |annotated, ours, theirs| {
        joiner.join(annotated, ours, theirs).map_err(|why| (why, theirs.is_none().then_some(ours)))
    })
    .map_err(|e| match e {
        MergeNotesError::Git(e) => remote_notes_damaged(repo, remote, tracking, e),
        MergeNotesError::Conflicts(list) => SyncError::NotesConflict {
            remote: remote.to_owned(),
            tracking: tracking.to_owned(),
            removed: list
                .iter()
                .filter_map(|(c, (_, ours))| ours.map(|blob| (c.to_string(), blob.to_string())))
                .collect(),
            advised: list
                .iter()
                .filter(|(c, (why, _))| why.advice(*c, remote, REPAIR_REF).is_some())
                .map(|(c, _)| c.to_string())
                .collect(),
            conflicts: list
                .into_iter()
                .map(|(c, (why, _))| match why.advice(c, remote, REPAIR_REF) {
                    Some(advice) => (c.to_string(), format!("{why}; {advice}")),
                    None => (c.to_string(), why.to_string()),
                })
                .collect(),
        },
    })
}

/// `error`, or, when it is about the remote's notes as fetched into `tracking` (not ours), the
/// remote's notes named as damaged with how to repair them there: the fetch's `+` refspec brings
/// them back as they are, so repairing `tracking` would not help.
fn remote_notes_damaged(repo: &Repo, remote: &str, tracking: &str, error: GitError) -> SyncError {
    let theirs = format!("their {NOTES_REF}");
    // The remote's name, as one shell word in the commands below.
    let remote_w = shell_word(remote);
    let (what, repair) = match &error {
        GitError::AmbiguousNote { notes_ref, annotated } if notes_ref == tracking => {
            let keep = match repo
                .notes(NOTES_REF)
                .ok()
                .and_then(|ours| ours.into_iter().find(|(a, _)| a == annotated))
            {
                Some((_, blob)) => format!(
                    "the note this clone holds, `git notes --ref={REPAIR_REF} add -C {blob} {annotated}`"
                ),
                None => {
                    format!("the one to keep, `git notes --ref={REPAIR_REF} add -C <its blob> {annotated}`")
                }
            };
            (
                format!(
                    "{theirs} holds two notes for {annotated} (under two names in its tree, which git shows joined)"
                ),
                format!(
                    "To repair them: `git fetch {remote_w} +{NOTES_REF}:{REPAIR_REF}`, `git notes --ref={REPAIR_REF} remove {annotated}` (it removes both), put back {keep}, then `git push {remote_w} {REPAIR_REF}:{NOTES_REF}` and run `speccoder attest fetch {remote_w}` again"
                ),
            )
        }
        GitError::NotesRefUnusable { name, target, reason, .. } if name == tracking => (
            format!("{theirs} points at {target}, and {reason}"),
            format!(
                "To put this clone's notes there in its place (they hold every note merged from {remote} so far): `git push --force-with-lease={NOTES_REF}:{} {remote_w} {NOTES_REF}`, then run `speccoder attest fetch {remote_w}` again",
                shell_word(target)
            ),
        ),
        GitError::NotesTreeHostile { notes_ref, reason } if notes_ref == tracking => (
            format!("the notes tree of {theirs} cannot be read ({reason})"),
            "Ask whoever keeps it to write it again.".to_owned(),
        ),
        GitError::NotANotesCommit { notes_ref, commit, entry } if notes_ref == tracking => (
            format!(
                "{theirs} points at {commit}, whose tree holds {entry}, neither a note nor a fan-out directory: it is no notes commit (a branch's, most likely, or the value of a symbolic reference to a branch)"
            ),
            format!(
                "Ask whoever keeps {remote} to point it back at a notes commit; if it is a symbolic reference, to remove the link alone in its repository (`git symbolic-ref --delete {NOTES_REF}`; a push that deletes it deletes the branch it names too). Then run `speccoder attest fetch {remote_w}` again."
            ),
        ),
        GitError::NotesTreeTooLarge { notes_ref, limit } if notes_ref == tracking => (
            format!("the notes tree of {theirs} has more than {limit} entries"),
            "Ask whoever keeps it to write it again.".to_owned(),
        ),
        _ => return SyncError::Git(error),
    };
    SyncError::RemoteNotesDamaged { remote: remote.to_owned(), tracking: tracking.to_owned(), what, repair }
}
