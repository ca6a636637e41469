//! `speccoder attest fetch` and `speccoder attest push`: the evidence travels with the branch.
//!
//! Fetch brings the remote's notes (`refs/notes/speccoder`) and `refs/speccoder/*` (skips,
//! published held-out sets) into remote-tracking references (`refs/notes/remotes/<remote>/speccoder`
//! and `refs/speccoder-remotes/<remote>/*`, a namespace no branch refspec prunes), then merges them
//! into ours: notes by the bundle rule ([`crate::model::bundle::merge`]), the other references by
//! a three-way decision against what was merged last time. Those arrive first in a staging
//! namespace (`refs/speccoder-fetching/<remote>/*`), and each remote-tracking copy moves to the
//! fetched value only once its merge is written: a fetch stopped anywhere is safe to run again.
//! Push sends the branch, the notes and `refs/speccoder/*` in one atomic push; when the remote's
//! evidence moved meanwhile it fetches, merges and tries again, a bounded number of times, and
//! never forces.

use std::collections::{BTreeMap, BTreeSet};

use gix::ObjectId;
use serde::Serialize;

use crate::attest::note_join::NoteJoiner;
use crate::check::trust::{SignatureTrust, TrustError, TrustFiles};
use crate::exit;
use crate::git::{
    CasUpdate, Direction, GitError, Head, MergeNotesError, NotesMerged, PushDefault, PushStatus, RefMerged,
    Repo,
};
use crate::model::bundle::NOTES_REF;

/// The prefix of the references fetch and push carry besides the notes.
pub const SPECCODER_REFS: &str = "refs/speccoder/";

/// How often a push that found the remote's evidence moved fetches, merges and tries again.
pub const PUSH_TRIES: usize = 5;

/// The remote-tracking copy of our notes reference for `remote`.
#[must_use]
pub fn tracking_notes_ref(remote: &str) -> String {
    format!("refs/notes/remotes/{remote}/{}", NOTES_REF.trim_start_matches("refs/notes/"))
}

/// The prefix of the remote-tracking copies of `refs/speccoder/*` for `remote`: each holds the
/// value of the remote's reference that was last merged into ours (or pushed), the base of the
/// next fetch's three-way decision.
#[must_use]
pub fn tracking_prefix(remote: &str) -> String {
    format!("refs/speccoder-remotes/{remote}/")
}

/// The prefix where `attest fetch` has git write `remote`'s `refs/speccoder/*` before merging
/// them: a reference stays here only until its merge is written (or, in a conflict, until the
/// next fetch), so that the remote-tracking copies never run ahead of the merge.
#[must_use]
pub fn staging_prefix(remote: &str) -> String {
    format!("refs/speccoder-fetching/{remote}/")
}

/// Why fetching or pushing the evidence stopped.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The repository or git failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// This clone's trust, which joined notes are checked against, cannot be read.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// Push needs a checked-out branch.
    #[error("HEAD is not on a branch ({0}); check out the branch whose evidence you want to push")]
    NotOnBranch(String),
    /// Notes of the same commits differ and cannot be joined; our notes did not change.
    #[error(
        "the notes of {} commit(s) differ here and on {remote} and cannot be joined, so {NOTES_REF} was not changed:\n{}\nEach was attested twice, differently. Compare `git notes --ref={NOTES_REF} show <commit>` with `git notes --ref={tracking} show <commit>`, remove the copy you do not want with `git notes --ref={NOTES_REF} remove <commit>` (keeping theirs) or keep yours and ask its author to remove theirs, then run `speccoder attest fetch {remote}` again",
        .conflicts.len(),
        .conflicts.iter().map(|(c, why)| format!("  {c}: {why}")).collect::<Vec<_>>().join("\n")
    )]
    NotesConflict {
        /// The remote.
        remote: String,
        /// Its remote-tracking notes reference.
        tracking: String,
        /// Each commit with why its notes cannot be joined.
        conflicts: Vec<(String, String)>,
    },
    /// The remote refused the branch itself: merging evidence cannot help.
    #[error(
        "{remote} refused {pushed} ({reason}): the remote's branch has commits this one does not (or this one was rewritten); bring them in (`git pull --rebase {remote} {remote_branch}`, then `speccoder attest carry`) or, after a rebase of your own branch, `git push --force-with-lease {remote} {pushed}` yourself; then run `speccoder attest push` again. Nothing was pushed",
        pushed = refspec(.branch, .remote_branch)
    )]
    BranchRejected {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// The remote's branch it was pushed to (short name).
        remote_branch: String,
        /// git's reason.
        reason: String,
    },
    /// `push.default` is `simple` (git's default) and the branch's upstream has another name:
    /// `git push` would refuse it too.
    #[error(
        "{branch} tracks {upstream} on {remote}, a branch of another name, and push.default ({setting}) pushes a branch only to its own name: `git push` refuses it, and so does this; nothing was pushed. To push to {upstream} (as `git push {remote} HEAD:{upstream}` does), run `git config push.default upstream`; to push to a branch named {branch} instead, run `git push --set-upstream {remote} {branch}`; then run `speccoder attest push` again"
    )]
    UpstreamNameDiffers {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// Its upstream branch on the remote (short name).
        upstream: String,
        /// `simple`, or `unset, so simple`.
        setting: String,
    },
    /// `push.default` is `upstream` (or `tracking`) and the branch has no upstream on the remote.
    #[error(
        "push.default is upstream and {branch} has no upstream branch on {remote}: `git push` refuses it, and so does this; nothing was pushed. Set one with `git push --set-upstream {remote} {branch}` (or `git branch --set-upstream-to {remote}/<branch>`), then run `speccoder attest push` again"
    )]
    NoUpstream {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
    },
    /// `push.default` is `nothing`: git pushes no branch it is not told to.
    #[error(
        "push.default is nothing, so `git push` pushes no branch unless told which, and neither does this; nothing was pushed. Choose where branches go with `git config push.default simple` (the same name) or `upstream`, then run `speccoder attest push` again"
    )]
    PushDefaultNothing,
    /// The remote refused references for a reason a merge does not fix (a hook declined them).
    #[error("{remote} refused {}; nothing was pushed", .refs.join(", "))]
    Rejected {
        /// The remote.
        remote: String,
        /// Each refused reference with git's reason.
        refs: Vec<String>,
    },
    /// References of `refs/speccoder/*` that differ here and on the remote and cannot be joined.
    #[error(
        "{} differ here and on {remote} and cannot be joined; nothing was pushed:\n{}",
        .conflicts.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "),
        .conflicts.iter().map(|c| format!("  {}: {}\n  {}", c.name, c.reason, c.advice(remote))).collect::<Vec<_>>().join("\n")
    )]
    RefsConflict {
        /// The remote.
        remote: String,
        /// Each reference that cannot be joined.
        conflicts: Vec<RefConflict>,
    },
    /// The remote's evidence kept moving.
    #[error(
        "the evidence on {remote} kept moving: {PUSH_TRIES} pushes were each overtaken by another writer's; run `speccoder attest push` again when they are done"
    )]
    Contention {
        /// The remote.
        remote: String,
    },
}

impl SyncError {
    /// The exit code for this failure.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            SyncError::Git(GitError::UnknownRemote { .. }) => exit::USAGE,
            SyncError::Git(GitError::BadConfig { .. }) => exit::CONFIG,
            // git's fetch or push failing is the remote's state (unreachable, refusing).
            SyncError::Git(GitError::GitCommand { .. }) => exit::GIT_PRECONDITION,
            SyncError::Git(e) => super::git_exit_code(e),
            SyncError::Trust(TrustError::Git(e)) => super::git_exit_code(e),
            SyncError::Trust(_) => exit::CONFIG,
            _ => exit::GIT_PRECONDITION,
        }
    }
}

/// One reference of `refs/speccoder/*` that both sides changed differently since the last fetch.
#[derive(Debug, Clone)]
pub struct RefConflict {
    /// Our reference.
    pub name: String,
    /// Why the two cannot be joined.
    pub reason: String,
    /// The remote's value (`None`: deleted there).
    pub theirs: Option<String>,
}

impl RefConflict {
    /// How to keep one of the two, as commands that work as given: the fetch that follows
    /// compares against what was fetched before the conflict, so a side taken as it is merges.
    #[must_use]
    pub fn advice(&self, remote: &str) -> String {
        let name = &self.name;
        let theirs = match &self.theirs {
            Some(id) => format!("keep theirs with `git update-ref {name} {id}`"),
            None => format!("keep theirs (deleted) with `git update-ref -d {name}`"),
        };
        format!(
            "{theirs}, or keep yours by deleting theirs on the remote with `git push {remote} --delete {name}`; then run `speccoder attest fetch {remote}` and `speccoder attest push {remote}`"
        )
    }
}

/// One reference of `refs/speccoder/*` after a fetch.
#[derive(Debug, Clone, Serialize)]
pub struct RefRow {
    /// Our reference.
    pub name: String,
    /// What happened to it.
    #[serde(flatten)]
    pub merged: RefMerged,
}

/// What `speccoder attest fetch` did.
#[derive(Debug, Clone, Serialize)]
pub struct FetchReport {
    /// The remote.
    pub remote: String,
    /// Our notes: `None` when the remote has none.
    pub notes: Option<NotesMerged>,
    /// The remote-tracking notes reference.
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
                RefMerged::Conflict { reason, theirs, .. } => Some(RefConflict {
                    name: row.name.clone(),
                    reason: reason.clone(),
                    theirs: theirs.clone(),
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
                    self.remote, row.name
                ),
                RefMerged::Took { to } => format!("now {}", short(to)),
                RefMerged::Replaced { from, to } => format!(
                    "now {}, replaced: the remote's does not descend from the one here, {from} (replaced by force, or deleted and made again). To keep the one here: `git update-ref {} {from}`; the next fetch reports the two as a conflict and how to settle it",
                    short(to),
                    row.name
                ),
                RefMerged::Deleted => "deleted (deleted on the remote)".to_owned(),
                RefMerged::AheadOfTheirs => "ahead of the remote's".to_owned(),
                RefMerged::Merged { commit } => format!("merged in {}", short(commit)),
                RefMerged::Conflict { ours, theirs, reason } => format!(
                    "CONFLICT, left as it was: {reason} (here {}, there {})",
                    ours.as_deref().map_or("deleted", short),
                    theirs.as_deref().map_or("deleted", short)
                ),
            };
            writeln!(f, "  {}: {what}", row.name)?;
        }
        for conflict in self.ref_conflicts() {
            writeln!(f, "  to resolve {}: {}", conflict.name, conflict.advice(&self.remote))?;
        }
        Ok(())
    }
}

fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

/// The remote named, or the default one for the current branch in `direction`.
fn remote_for(repo: &Repo, remote: Option<&str>, direction: Direction) -> Result<String, SyncError> {
    let branch = match repo.head()? {
        Head::Branch { name, .. } => Some(name),
        _ => None,
    };
    Ok(match remote {
        Some(name) => repo.require_remote(name)?,
        None => repo.default_remote(branch.as_deref(), direction)?,
    })
}

/// Fetches the evidence of `remote` (default: the current branch's upstream remote, else
/// `origin`) and merges it into ours (see the module documentation). Running it again changes
/// nothing.
///
/// # Errors
/// The remote cannot be reached, or notes of one commit cannot be joined ([`SyncError::NotesConflict`],
/// our notes unchanged).
pub fn fetch(repo: &Repo, remote: Option<&str>, trust: &TrustFiles) -> Result<FetchReport, SyncError> {
    let remote = remote_for(repo, remote, Direction::Fetch)?;
    let tracking_notes = tracking_notes_ref(&remote);
    let prefix = tracking_prefix(&remote);
    let staging = staging_prefix(&remote);
    let on_remote = repo.ls_remote(&remote, &[NOTES_REF], &[SPECCODER_REFS])?;
    let mut refspecs = Vec::new();
    let remote_has_notes = on_remote.iter().any(|(name, _)| name == NOTES_REF);
    if remote_has_notes {
        // Notes merge by the bundle rule, which needs no base: their copy may move at once.
        refspecs.push(format!("+{NOTES_REF}:{tracking_notes}"));
    }
    // The other references are decided against the value fetched last time, so git writes the
    // remote's values into the staging namespace (pruned there, so it mirrors the remote) and
    // the remote-tracking copy of each moves only once its merge is written below: a fetch
    // stopped anywhere before (killed, no identity, a notes conflict, a stale lock) leaves the
    // base as it was, and running it again decides from the same three values.
    refspecs.push(format!("+{SPECCODER_REFS}*:{staging}*"));
    // In a partial clone, the notes' blobs come along (a verifier cannot fetch them one by one).
    repo.fetch_refspecs(&remote, &refspecs, repo.promisor_remote().is_some())?;

    let notes =
        if remote_has_notes { Some(merge_notes(repo, &remote, &tracking_notes, trust)?) } else { None };

    let suffixes = |prefix: &str| -> Result<BTreeMap<String, ObjectId>, GitError> {
        Ok(repo
            .refs_with_prefix(prefix)?
            .into_iter()
            .map(|(name, id)| (name[prefix.len()..].to_owned(), id))
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
        // value the advice names, reachable. Merged: the base moves to what was merged, and the
        // staged copy has served.
        if !matches!(merged, RefMerged::Conflict { .. }) {
            set_tracking(repo, &tracking, theirs, &format!("speccoder attest fetch: {local} merged"))?;
            set_tracking(repo, &format!("{staging}{suffix}"), None, "speccoder attest fetch: merged")?;
        }
        refs.push(RefRow { name: local, merged });
    }
    let conflicts = refs.iter().filter(|r| matches!(r.merged, RefMerged::Conflict { .. })).count();
    Ok(FetchReport { remote, notes, tracking_notes, refs, conflicts })
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
    let trust = match (repo.ref_target(NOTES_REF)?, repo.head()?) {
        (None, _) => SignatureTrust::default(),
        (Some(_), Head::Branch { commit, .. } | Head::Detached(commit)) => {
            SignatureTrust::load(repo, trust, repo.commit_tree(commit)?, &|_| false)?
        }
        (Some(_), Head::Unborn(_)) => SignatureTrust::load(repo, trust, repo.empty_tree_id(), &|_| false)?,
    };
    let joiner = NoteJoiner::new(repo, &trust, time::OffsetDateTime::now_utc());
    repo.merge_notes(NOTES_REF, tracking, &message, |annotated, ours, theirs| {
        joiner.join(annotated, ours, theirs)
    })
    .map_err(|e| match e {
        MergeNotesError::Git(e) => SyncError::Git(e),
        MergeNotesError::Conflicts(list) => SyncError::NotesConflict {
            remote: remote.to_owned(),
            tracking: tracking.to_owned(),
            conflicts: list.into_iter().map(|(c, why)| (c.to_string(), why.to_string())).collect(),
        },
    })
}

/// One reference as a push reported it.
#[derive(Debug, Clone, Serialize)]
pub struct PushRow {
    /// The remote's reference.
    pub name: String,
    /// What happened.
    pub status: PushStatus,
    /// git's summary and reason.
    pub detail: String,
}

/// What `speccoder attest push` did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Serialize)]
pub struct PushReport {
    /// The remote.
    pub remote: String,
    /// The branch pushed (full name) and where it went on the remote.
    pub branch: String,
    /// The remote's branch.
    pub remote_branch: String,
    /// Only shown, nothing sent.
    pub dry_run: bool,
    /// How many pushes it took (each after the first followed a fetch and merge).
    pub attempts: usize,
    /// The fetches made between attempts.
    pub fetches: Vec<FetchReport>,
    /// Every reference of the last push.
    pub refs: Vec<PushRow>,
}

impl std::fmt::Display for PushReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.dry_run { "would push" } else { "pushed" };
        writeln!(f, "attest push to {} ({verb} {} as {})", self.remote, self.branch, self.remote_branch)?;
        for fetch in &self.fetches {
            writeln!(f, "  the remote's evidence had moved; fetched and merged it:")?;
            for line in fetch.to_string().lines().skip(1) {
                writeln!(f, "  {line}")?;
            }
        }
        for row in &self.refs {
            writeln!(f, "  {:<10} {} {}", row.status.as_str(), row.name, row.detail)?;
        }
        if self.dry_run && self.refs.iter().any(|r| r.status == PushStatus::Rejected) {
            writeln!(
                f,
                "  (a real push would fetch and merge the remote's evidence first, then push again)"
            )?;
        }
        Ok(())
    }
}

/// Pushes the current branch, our notes and `refs/speccoder/*` to `remote` (default: the branch's
/// push remote as git chooses it: `branch.<name>.pushRemote`, `remote.pushDefault`, its upstream
/// remote, else `origin`) in one atomic push (see the module documentation).
///
/// # Errors
/// Not on a branch, the branch refused, a refusal a merge does not fix, a notes conflict, or
/// [`SyncError::Contention`] after [`PUSH_TRIES`] attempts.
pub fn push(
    repo: &Repo,
    remote: Option<&str>,
    dry_run: bool,
    trust: &TrustFiles,
) -> Result<PushReport, SyncError> {
    let branch = match repo.head()? {
        Head::Branch { name, .. } => name,
        Head::Detached(id) => return Err(SyncError::NotOnBranch(format!("detached at {id}"))),
        Head::Unborn(name) => return Err(SyncError::NotOnBranch(format!("{name} has no commits yet"))),
    };
    let remote = remote_for(repo, remote, Direction::Push)?;
    let remote_branch = push_destination(repo, &branch, &remote)?;
    let mut fetches = Vec::new();
    for attempt in 1..=PUSH_TRIES {
        let mut refspecs = vec![format!("{branch}:{remote_branch}")];
        let mut sent: Vec<(String, ObjectId)> = Vec::new();
        if let Some(notes) = repo.ref_target(NOTES_REF)? {
            sent.push((NOTES_REF.to_owned(), notes));
        }
        sent.extend(repo.refs_with_prefix(SPECCODER_REFS)?);
        refspecs.extend(sent.iter().map(|(name, _)| format!("{name}:{name}")));
        let out = repo.push_atomic(&remote, &refspecs, dry_run)?;
        let rows = out
            .refs
            .iter()
            .map(|r| PushRow {
                name: r.dst.clone(),
                status: r.status,
                detail: match &r.reason {
                    Some(reason) => format!("{} ({reason})", r.summary),
                    None => r.summary.clone(),
                },
            })
            .collect();
        let report = |refs, fetches| PushReport {
            remote: remote.clone(),
            branch: branch.clone(),
            remote_branch: remote_branch.clone(),
            dry_run,
            attempts: attempt,
            fetches,
            refs,
        };
        if out.ok {
            if !dry_run {
                remember_pushed(repo, &remote, &sent)?;
            }
            return Ok(report(rows, fetches));
        }
        // With --atomic every reference is refused when one is; the others say why.
        let refused: Vec<&crate::git::PushedRef> = out
            .refs
            .iter()
            .filter(|r| r.status == PushStatus::Rejected && r.reason.as_deref() != Some("atomic push failed"))
            .collect();
        let evidence = |r: &crate::git::PushedRef| r.src == NOTES_REF || r.src.starts_with(SPECCODER_REFS);
        let behind = |r: &crate::git::PushedRef| {
            matches!(r.reason.as_deref(), Some("fetch first" | "non-fast-forward"))
        };
        if let Some(b) = refused.iter().find(|r| r.src == branch && behind(r)) {
            return Err(SyncError::BranchRejected {
                remote,
                branch: short_branch(&branch).to_owned(),
                remote_branch: short_branch(&remote_branch).to_owned(),
                reason: b.reason.clone().unwrap_or_else(|| b.summary.clone()),
            });
        }
        // The remote's evidence moved (or another push held its references at that instant):
        // fetch, merge and push again. Anything else is for the user to look at.
        let retry = |r: &&crate::git::PushedRef| (evidence(r) && behind(r)) || overtaken(r);
        if refused.is_empty() || !refused.iter().all(retry) {
            let mut refs: Vec<String> = refused
                .iter()
                .map(|r| format!("{} ({})", r.dst, r.reason.as_deref().unwrap_or(&r.summary)))
                .collect();
            if refs.is_empty() {
                refs.push(format!("the push ({})", out.stderr));
            }
            return Err(SyncError::Rejected { remote, refs });
        }
        if dry_run {
            return Ok(report(rows, fetches));
        }
        let fetched = fetch(repo, Some(&remote), trust)?;
        if fetched.conflicts > 0 {
            return Err(SyncError::RefsConflict { remote, conflicts: fetched.ref_conflicts() });
        }
        fetches.push(fetched);
    }
    Err(SyncError::Contention { remote })
}

/// Where the branch `branch` (full name) goes on `remote`, as `git push` without a refspec
/// sends it by `push.default`: to the same name (`current`, `matching`; `simple`, git's
/// default, unless the branch's upstream on that remote has another name, which it refuses),
/// or to its upstream branch on that remote (`upstream`, which refuses a branch without one).
/// Without an upstream, `simple` pushes to the same name.
fn push_destination(repo: &Repo, branch: &str, remote: &str) -> Result<String, SyncError> {
    let upstream = match repo.branch_upstream(branch) {
        Some((upstream_remote, Some(merge))) if upstream_remote == remote => Some(merge),
        _ => None,
    };
    let setting = repo.push_default()?;
    let named = |name: &str| short_branch(name).to_owned();
    match setting {
        PushDefault::Nothing => Err(SyncError::PushDefaultNothing),
        PushDefault::Current | PushDefault::Matching => Ok(branch.to_owned()),
        PushDefault::Upstream => {
            upstream.ok_or_else(|| SyncError::NoUpstream { remote: remote.to_owned(), branch: named(branch) })
        }
        PushDefault::Simple => match upstream {
            Some(upstream) if upstream != branch => Err(SyncError::UpstreamNameDiffers {
                remote: remote.to_owned(),
                branch: named(branch),
                upstream: named(&upstream),
                setting: if repo.config_string("push.default").is_some() {
                    "simple".to_owned()
                } else {
                    "unset, so simple".to_owned()
                },
            }),
            _ => Ok(branch.to_owned()),
        },
    }
}

/// A branch's short name (`refs/heads/` dropped; any other reference as it is).
fn short_branch(name: &str) -> &str {
    name.strip_prefix("refs/heads/").unwrap_or(name)
}

/// The refspec that pushes `branch` to `remote_branch` (short names): the name alone when they
/// are the same.
fn refspec(branch: &str, remote_branch: &str) -> String {
    if branch == remote_branch { branch.to_owned() } else { format!("{branch}:{remote_branch}") }
}

/// Whether the remote refused a reference because another push was updating it at that instant
/// (its lock was held, or its value changed between the advertisement and the update).
fn overtaken(r: &crate::git::PushedRef) -> bool {
    r.summary.contains("remote rejected")
        && r.reason.as_deref().is_some_and(|reason| {
            ["lock", "incorrect old value", "atomic transaction failed", "failed to update ref"]
                .iter()
                .any(|w| reason.contains(w))
        })
}

/// After a push, the remote holds what we sent: the remote-tracking copies say so, so that the
/// next fetch compares against it.
fn remember_pushed(repo: &Repo, remote: &str, sent: &[(String, ObjectId)]) -> Result<(), GitError> {
    for (name, id) in sent {
        let tracking = if name == NOTES_REF {
            tracking_notes_ref(remote)
        } else {
            format!("{}{}", tracking_prefix(remote), &name[SPECCODER_REFS.len()..])
        };
        set_tracking(repo, &tracking, Some(*id), &format!("speccoder attest push to {remote}"))?;
    }
    Ok(())
}

/// Points the remote-tracking (or staged) reference `tracking` at `value` (`None`: deletes it),
/// by compare-and-swap, with `reflog` as its reflog entry.
fn set_tracking(repo: &Repo, tracking: &str, value: Option<ObjectId>, reflog: &str) -> Result<(), GitError> {
    repo.update_ref_retrying(tracking, |current| {
        Ok::<_, GitError>(match value {
            _ if current == value => CasUpdate::Keep(()),
            Some(new) => CasUpdate::Move { new, reflog: reflog.to_owned(), then: () },
            None => CasUpdate::Delete { then: () },
        })
    })
}
