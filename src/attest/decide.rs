//! `speccoder accept` and `speccoder skip`: a person decides a task instead of the tests.
//!
//! - accept ticks the task on the current branch with `Verdict: attested`, `Accepted-By:` and
//!   `Reason:`; its note is one signed task-verification line with `decider` and no test evidence.
//! - skip does not tick: it records `Verdict: skipped`, `Skipped-By:` and `Reason:` on a commit of
//!   HEAD's tree that no branch holds, referenced by `refs/speccoder/skipped/<unit>/<task>`
//!   ([`crate::model::refs`]), with the same one-line decision note. `--undo` deletes that ref,
//!   and the published speccoder's spelling of it, by compare-and-swap.
//!
//! Like the pipeline, each command reads and checks everything first and writes last; the
//! decider's name is what they said (or git's `user.name`), asserted and never proven.

use serde::Serialize;

use crate::attest::config::{self, ConfigError, read_policy};
use crate::attest::message::{self, MessageFields, keys};
use crate::attest::pipeline::{AttestError, completed_report, new_note, sign_all};
use crate::attest::provenance;
use crate::attest::signing::{self, Moment, SignerError, SignerRequest};
use crate::attest::statements::{self, BuildError, Context, Line};
use crate::attest::sync;
use crate::attest::target::{BadTarget, split_target};
use crate::attest::tick::{self, Opened, TickError};
use crate::attest::{LineReport, NoteNotWritten, now_rfc3339};
use crate::check::trailers;
use crate::exit::{Class, ExitClass};
use crate::git::{
    GitError, Head, ObjectId, Repo, UpdateNoteError, delete_ref_command, trailers::sanitize_value,
};
use crate::model::bundle::NOTES_REF;
use crate::model::clean::unless_leaking;
use crate::model::dsse::Envelope;
use crate::model::predicate::{Decider, Verdict};
use crate::model::refs;
use crate::model::shown::{OneLine, in_line, shell_word};
use crate::spec::{self, TaskFacts, TaskId};

/// The longest decider name recorded: a name, or a name and an e-mail address, never a text.
pub const MAX_BY_CHARS: usize = 200;

/// The longest reason accepted, in characters.
pub const MAX_REASON_CHARS: usize = 2000;

/// What `speccoder accept` or `speccoder skip` was asked to do.
#[derive(Debug, Clone)]
pub struct DecisionRequest {
    /// `<unit>/<task>`.
    pub target: String,
    /// Why (`--reason`).
    pub reason: String,
    /// Who (`--by`); git's `user.name` when absent.
    pub by: Option<String>,
    /// `--signer`, `--key`, `--sigstore-*`.
    pub signing: SignerRequest,
}

/// What a decision wrote, for people (Display) and machines (`--json`).
#[derive(Debug, Clone, Serialize)]
pub struct DecisionReport {
    /// `accept` or `skip`.
    pub command: &'static str,
    /// `<unit>/<task>`.
    #[serde(serialize_with = "in_line")]
    pub target: String,
    /// `attested` or `skipped`.
    pub verdict: &'static str,
    /// The decision's commit.
    pub commit: String,
    /// The reference that now points at it: the branch (accept) or the skip ref (skip); a name
    /// that does not pass the clean check is given as what it holds.
    #[serde(serialize_with = "in_line")]
    pub reference: String,
    /// Who decided and why, as they asserted it (not proven).
    #[serde(serialize_with = "decider_in_line")]
    pub decider: Decider,
    /// The note's one line.
    pub lines: Vec<LineReport>,
    /// Who signed, when the line was signed.
    #[serde(serialize_with = "in_line")]
    pub signer: Option<String>,
    /// Why the line is unsigned, and how to sign it.
    #[serde(serialize_with = "in_line")]
    pub unsigned_reason: Option<String>,
    /// Where the note is.
    #[serde(serialize_with = "in_line")]
    pub notes_ref: String,
    /// Things the user should know that did not stop the command.
    #[serde(serialize_with = "in_line")]
    pub warnings: Vec<String>,
}

/// The decider as the report shows it: `{by, reason}`, each quoted as [`in_line`] quotes it.
fn decider_in_line<S: serde::Serializer>(decider: &Decider, serializer: S) -> Result<S::Ok, S::Error> {
    /// The decider's two fields, quoted.
    #[derive(Serialize)]
    struct Quoted<'a> {
        /// Who.
        by: OneLine<'a, str>,
        /// Why.
        reason: OneLine<'a, str>,
    }
    Quoted { by: OneLine(&decider.by), reason: OneLine(&decider.reason) }.serialize(serializer)
}

impl std::fmt::Display for DecisionReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short = self.commit.get(..12).unwrap_or(&self.commit);
        let reference = self.reference.strip_prefix("refs/heads/").unwrap_or(&self.reference);
        writeln!(f, "{} {} at {reference}: {short} ({})", self.command, self.target, self.verdict)?;
        writeln!(f, "  decided by {} (asserted, not proven): {}", self.decider.by, self.decider.reason)?;
        for l in &self.lines {
            let signed = if l.signed { "" } else { "  (unsigned)" };
            writeln!(f, "  note in {}: {} sha256:{}{signed}", self.notes_ref, l.name, l.sha256)?;
        }
        if let Some(s) = &self.signer {
            writeln!(f, "  signer: {s}")?;
        }
        if let Some(r) = &self.unsigned_reason {
            writeln!(f, "  unsigned: {r}")?;
        }
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        Ok(())
    }
}

/// What `speccoder skip --undo` removed.
#[derive(Debug, Clone, Serialize)]
pub struct UndoReport {
    /// Always `skip --undo`.
    pub command: &'static str,
    /// `<unit>/<task>`.
    #[serde(serialize_with = "in_line")]
    pub target: String,
    /// Each spelling of the skip's ref that was deleted: ours, then the published speccoder's.
    pub deleted: Vec<DeletedSkip>,
    /// Each remote that still holds the skip, as last fetched or pushed: undo deletes it here only.
    pub on_remotes: Vec<SkipOnRemote>,
}

/// A skip a remote still holds after `skip --undo` deleted it here.
#[derive(Debug, Clone, Serialize)]
pub struct SkipOnRemote {
    /// The remote.
    #[serde(serialize_with = "in_line")]
    pub remote: String,
    /// The skip ref there.
    #[serde(serialize_with = "in_line")]
    pub reference: String,
    /// Its remote-tracking copy here, which says the remote held it.
    #[serde(serialize_with = "in_line")]
    pub tracking: String,
    /// The command that deletes it there.
    #[serde(serialize_with = "in_line")]
    pub delete: String,
}

/// One skip ref `skip --undo` deleted.
#[derive(Debug, Clone, Serialize)]
pub struct DeletedSkip {
    /// The skip ref.
    #[serde(serialize_with = "in_line")]
    pub reference: String,
    /// The skip commit it pointed at.
    pub removed: String,
}

impl std::fmt::Display for UndoReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for DeletedSkip { reference, removed } in &self.deleted {
            let short = removed.get(..12).unwrap_or(removed);
            writeln!(f, "skip --undo {}: deleted {reference} (was {short})", self.target)?;
        }
        for on in &self.on_remotes {
            writeln!(
                f,
                "  {} still holds {} as last fetched or pushed ({}), so a check of it there still lists the skip: delete it there with `{}`",
                on.remote, on.reference, on.tracking, on.delete
            )?;
        }
        Ok(())
    }
}

/// Why a decision was not recorded. Nothing is written in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    /// A failure shared with `speccoder attest`: target, unit, task, repository, key, policy.
    #[error(transparent)]
    Attest(#[from] AttestError),
    /// The decision's note could not be written.
    #[error(transparent)]
    Note(#[from] NoteNotWritten),
    /// The skip reference cannot be written: the unit or task escapes too long.
    #[error(transparent)]
    RefName(#[from] refs::ComponentTooLong),
    /// `--reason` is empty (or only whitespace).
    #[error("--reason is empty; say in a few words why {0} is decided without tests")]
    EmptyReason(String),
    /// `--reason` is too long.
    #[error(
        "--reason is longer than {MAX_REASON_CHARS} characters; keep it to a sentence or two and link to details"
    )]
    LongReason,
    /// `--by` is given but empty (or only whitespace and control characters).
    #[error("--by is empty; pass the decider's name, or leave --by out to record git's user.name")]
    EmptyBy,
    /// The decider's name is too long for a name, counted as the trailer carries it.
    #[error(
        "{} is {chars} characters as the commit's trailer carries it (runs of blanks as one space, a bidirectional control or zero-width character written as its escape, `\\u{{202e}}`), more than the {MAX_BY_CHARS} a name may have; {}",
        .from.what(),
        .from.remedy()
    )]
    LongBy {
        /// Where the name came from.
        from: ByFrom,
        /// Its length as the trailer carries it, in characters.
        chars: usize,
    },
    /// Neither `--by` nor git's `user.name` gives a name.
    #[error("no name to record as the decider: pass --by NAME or set `git config user.name`")]
    NoDecider,
    /// No `--by`, and git's `user.name` is set but holds nothing a trailer can show.
    #[error(
        "{} holds no name that can be shown (it is empty, or only blanks and control characters): set one with `git config user.name NAME`, or pass --by NAME",
        ByFrom::UserName.what()
    )]
    BlankUserName,
    /// A bug task is closed by evidence, not by a decision.
    #[error("{0} is a bug task; close a bug with `speccoder attest {word} --evidence FILE`", word = shell_word(.0))]
    BugTask(String),
    /// `accept` found the task ticked by an interrupted run of another kind (`attest`), finished
    /// that run's work tree and index, and recorded nothing of its own.
    #[error(
        "{target} was ticked already by {commit} (Verdict: {verdict}), whose run stopped before updating the work tree; that tick is now finished (the index and work tree show it), and no acceptance was recorded, as the task is ticked"
    )]
    TickedByAnotherRun {
        /// `<unit>/<task>`.
        target: String,
        /// The task commit at HEAD.
        commit: String,
        /// Its `Verdict:` trailer.
        verdict: String,
    },
    /// Skipping a task that is ticked.
    #[error(
        "{target} is ticked in {path} at HEAD; only an open task can be skipped (untick it in a new commit first)"
    )]
    SkipTicked {
        /// `<unit>/<task>`.
        target: String,
        /// The task list.
        path: String,
    },
    /// A skip exists already.
    #[error(
        "{target} is skipped already ({reference} points at {commit}); run `speccoder skip {target_w} --undo` first to record it anew",
        target_w = shell_word(&.target.to_string())
    )]
    AlreadySkipped {
        /// `<unit>/<task>`.
        target: String,
        /// The skip ref.
        reference: String,
        /// Where it points.
        commit: String,
    },
    /// Another reference is in the way of the skip ref's name (one named by a leading part of it,
    /// or one below it), as `attest fetch` names a `name_taken` conflict.
    #[error(
        "{reference} cannot be made to record the skip of {target}: {}; if nothing needs it, remove it with `{}` and skip again",
        Repo::name_taken(by),
        delete_ref_command(by)
    )]
    NameTaken {
        /// `<unit>/<task>`.
        target: String,
        /// The skip ref.
        reference: String,
        /// The reference in its way.
        by: String,
    },
    /// The skip ref's name holds the published speccoder's skip of another task, which spells it
    /// alike (its record's `Spec-Task:` names that task).
    #[error(
        "{reference}, the name of the skip of {target}, holds the published speccoder's skip of {other} (its commit's `Spec-Task:` names it; the published speccoder keeps the unit's name as it is, this one escapes it); undo that skip first (`speccoder skip {other_w} --undo`) or rename one of the two units, and skip again",
        other_w = shell_word(other)
    )]
    NameHeldByOther {
        /// `<unit>/<task>`.
        target: String,
        /// The skip ref.
        reference: String,
        /// The task whose skip it holds, `<unit>/<task>`.
        other: String,
    },
    /// `--undo` of a skip of a task of an archived OpenSpec change, archived once or more and
    /// active nowhere: the skip is part of what the closed change recorded, as `skip` records
    /// nothing on it.
    #[error(
        "{target} belongs to the OpenSpec change archived at {dirs}, which is closed, and its skip is part of what the change recorded; nothing was deleted: to undo the skip, move the change back first (`git mv {dir_w} {moved_w}`), commit that, and run again",
        dirs = .dirs.join(" and at "),
        dir_w = shell_word(.dirs.last().map_or("", String::as_str)),
        moved_w = shell_word(&format!("openspec/changes/{}", .id))
    )]
    UndoArchived {
        /// `<unit>/<task>`.
        target: String,
        /// The archived change's directories, in name order (the latest archived last, the one
        /// to move back); never empty.
        dirs: Vec<String>,
        /// The change id.
        id: String,
    },
    /// `--undo` without a skip.
    #[error("{target} has no skip to undo: {reference} does not exist")]
    NoSkip {
        /// `<unit>/<task>`.
        target: String,
        /// The skip ref looked for.
        reference: String,
    },
}

/// Where the decider's name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByFrom {
    /// `--by`.
    Flag,
    /// git's `user.name`, the default of `--by`.
    UserName,
}

impl ByFrom {
    /// The name's source, as a message names it.
    fn what(self) -> &'static str {
        match self {
            ByFrom::Flag => "--by",
            ByFrom::UserName => "git's user.name (the decider's name when --by is not given)",
        }
    }

    /// What to do about a name too long.
    fn remedy(self) -> &'static str {
        match self {
            ByFrom::Flag => "pass a name, not a text",
            ByFrom::UserName => "shorten it (`git config user.name NAME`) or pass --by NAME",
        }
    }
}

impl ExitClass for DecideError {
    fn class(&self) -> Class {
        match self {
            DecideError::Attest(e) => e.class(),
            DecideError::Note(e) => e.class(),
            DecideError::EmptyReason(_)
            | DecideError::LongReason
            | DecideError::EmptyBy
            | DecideError::LongBy { from: ByFrom::Flag, .. }
            | DecideError::BugTask(_) => Class::Usage,
            DecideError::NoDecider
            | DecideError::BlankUserName
            | DecideError::LongBy { from: ByFrom::UserName, .. }
            | DecideError::RefName(_) => Class::Config,
            DecideError::SkipTicked { .. }
            | DecideError::TickedByAnotherRun { .. }
            | DecideError::AlreadySkipped { .. }
            | DecideError::NameTaken { .. }
            | DecideError::NameHeldByOther { .. }
            | DecideError::UndoArchived { .. }
            | DecideError::NoSkip { .. } => Class::GitPrecondition,
        }
    }
}

/// The failures a decision shares with `speccoder attest`, as the pipeline's.
macro_rules! shared_with_attest {
    ($($from:ty),*) => {$(
        impl From<$from> for DecideError {
            fn from(e: $from) -> Self {
                DecideError::Attest(e.into())
            }
        }
    )*};
}

shared_with_attest!(
    GitError,
    spec::SpecError,
    BuildError,
    crate::git::trailers::TrailerError,
    BadTarget,
    TickError,
    ConfigError,
    SignerError,
    crate::model::bundle::NoteTooLarge
);

/// Ticks the task on the current branch on a person's word (`Verdict: attested`).
///
/// # Errors
/// Any [`DecideError`]; the branch moves only after everything was checked and built.
pub fn accept(repo: &Repo, req: &DecisionRequest) -> Result<DecisionReport, DecideError> {
    let (unit, task_id) = listed_target(&req.target)?;
    let decider = decider(repo, req)?;
    let begun = tick::begin(repo)?;
    let format = ensure_enabled(repo, begun.head)?;
    config::ensure_unit_format(format, &repo.tree(begun.staged), unit)?;
    let (pending, facts) = match begun.open_task(&req.target, unit, task_id)? {
        Opened::Pending(pending, facts) => (*pending, *facts),
        Opened::Completed { commit, branch } => {
            let done = completed_report(repo, "accept", &req.target, commit, branch)?;
            if done.verdict != Verdict::Attested.as_str() {
                return Err(DecideError::TickedByAnotherRun {
                    target: req.target.clone(),
                    commit: done.commit,
                    verdict: done.verdict,
                });
            }
            let info = repo.commit(commit)?;
            let recorded = crate::git::trailers::parse(&info.message);
            let value = |key: &str| {
                recorded.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.clone())
            };
            return Ok(DecisionReport {
                command: "accept",
                target: req.target.clone(),
                verdict: Verdict::Attested.as_str(),
                commit: done.commit,
                reference: done.branch.unwrap_or_default(),
                decider: Decider {
                    by: value(keys::ACCEPTED_BY).unwrap_or_default(),
                    reason: value(keys::REASON).unwrap_or_default(),
                },
                lines: done.lines,
                signer: None,
                unsigned_reason: None,
                notes_ref: NOTES_REF.to_owned(),
                warnings: done.warnings,
            });
        }
    };
    let (commit, msg, lines) =
        decision_commit(repo, pending.head, pending.tree, &facts, Verdict::Attested, &decider)?;
    let chosen = signing::resolve(repo, &req.signing, Moment::Tick)?;
    let (envelopes, signer, unsigned_reason) = sign_all(&lines, &chosen)?;
    let note = new_note(&envelopes, &lines, &facts, None)?;
    let branch = pending.branch.clone();
    pending.publish(commit, &msg, &note)?;
    Ok(report(
        "accept",
        req,
        Verdict::Attested,
        commit,
        branch,
        decider,
        &lines,
        &envelopes,
        signer,
        unsigned_reason,
    ))
}

/// Refuses a decision in a project that turned attestation off (`[attest] enabled = false`);
/// otherwise the format the project names (`[spec] format`).
fn ensure_enabled(repo: &Repo, head: ObjectId) -> Result<Option<spec::Format>, DecideError> {
    let (_, policy) = read_policy(repo, head)?;
    Ok(config::ensure_enabled(policy.as_ref())?.format)
}

/// Records a skip of an open task on a commit of HEAD's tree outside the branch, referenced by
/// `refs/speccoder/skipped/<unit>/<task>`.
///
/// # Errors
/// Any [`DecideError`]; the skip ref is created last, by compare-and-swap (it must not exist).
pub fn skip(repo: &Repo, req: &DecisionRequest) -> Result<DecisionReport, DecideError> {
    let (unit, task_id) = listed_target(&req.target)?;
    let decider = decider(repo, req)?;
    // Held to the end, as every writer holds it: a tick of this task cannot land meanwhile.
    let index = repo.lock_index()?;
    let head = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => commit,
        Head::Unborn(name) => return Err(TickError::Unborn(name.to_string()).into()),
    };
    repo.check_notes_ref(NOTES_REF)?;
    let format = ensure_enabled(repo, head)?;
    let tree = repo.commit_tree(head)?;
    tick::refuse_uncommitted_archive(repo, &index, &req.target, unit, None)?;
    config::ensure_unit_format(format, &repo.tree(tree), unit)?;
    let facts = tick::read_task_in(repo, tree, unit, task_id, tick::Tree::Head)?;
    tick::refuse_archived(&req.target, &facts)?;
    if facts.ticked {
        return Err(DecideError::SkipTicked { target: req.target.clone(), path: facts.tasks_path });
    }
    let reference = refs::checked_skipped_ref(&facts.unit, &facts.id)?;
    // The published speccoder's spelling of the same skip counts as one too.
    if let Some((name, existing)) = existing_skips(repo, &facts.unit, &facts.id)?.into_iter().next() {
        return Err(DecideError::AlreadySkipped {
            target: req.target.clone(),
            reference: name,
            commit: existing.to_string(),
        });
    }
    if repo.ref_target(&reference)?.is_some() {
        // Not this task's skip: the published speccoder's of another task it shares a name with.
        let other = match refs::skip_of(&reference, &facts.unit, |_| true) {
            refs::SkipOf::Shared { other, .. } => other,
            _ => String::new(),
        };
        return Err(DecideError::NameHeldByOther { target: req.target.clone(), reference, other });
    }
    if let Some(by) = repo.name_taken_by(&reference)? {
        return Err(DecideError::NameTaken { target: req.target.clone(), reference, by });
    }

    let (commit, _msg, lines) = decision_commit(repo, head, tree, &facts, Verdict::Skipped, &decider)?;
    let chosen = signing::resolve(repo, &req.signing, Moment::Tick)?;
    let (envelopes, signer, unsigned_reason) = sign_all(&lines, &chosen)?;

    // The note first: until the ref exists, the skip commit and its note are invisible.
    let note = new_note(&envelopes, &lines, &facts, None)?;
    repo.update_note(NOTES_REF, commit, |_| Ok::<_, std::convert::Infallible>(Some(note.clone()))).map_err(
        |e| match e {
            UpdateNoteError::Read(source) | UpdateNoteError::Git(source) => {
                NoteNotWritten { commit: commit.to_string(), source }
            }
            UpdateNoteError::Compute(never) => match never {},
        },
    )?;
    match repo.update_ref_cas(&reference, None, commit, &format!("skip: {}", req.target)) {
        Ok(()) => {}
        Err(GitError::RefMoved { found: Some(found), .. }) => {
            return Err(DecideError::AlreadySkipped {
                target: req.target.clone(),
                reference,
                commit: found.to_string(),
            });
        }
        Err(e) => return Err(e.into()),
    }
    Ok(report(
        "skip",
        req,
        Verdict::Skipped,
        commit,
        reference,
        decider,
        &lines,
        &envelopes,
        signer,
        unsigned_reason,
    ))
}

/// Deletes the skip of `target` under every spelling that names it (ours, and the published
/// speccoder's: the unit as it is, an OpenSpec `1.2` unescaped), by compare-and-swap in one
/// transaction: a skip stays in force while either spelling names it. The skip of a task of an
/// OpenSpec change archived at HEAD is refused, as `skip` refuses one ([`refuse_archived_undo`]);
/// one whose unit HEAD has nowhere is deleted.
///
/// # Errors
/// A bad target or unit name, [`DecideError::NoSkip`], [`DecideError::UndoArchived`], or a skip
/// ref that moved meanwhile.
pub fn undo_skip(repo: &Repo, target: &str) -> Result<UndoReport, DecideError> {
    let (unit, task_id) = split_target(target)?;
    spec::check_unit_name(unit)?;
    let ours = refs::checked_skipped_ref(unit, task_id)?;
    let found = existing_skips(repo, unit, task_id)?;
    if found.is_empty() {
        return Err(DecideError::NoSkip { target: target.to_owned(), reference: ours });
    }
    refuse_archived_undo(repo, target, unit)?;
    repo.delete_refs_cas(&found)?;
    let spellings: Vec<String> =
        std::iter::once(ours).chain(refs::published_skipped_ref(unit, task_id)).collect();
    let deleted = found
        .into_iter()
        .map(|(reference, commit)| DeletedSkip { reference, removed: commit.to_string() })
        .collect();
    let on_remotes = on_remotes(repo, &spellings)?;
    Ok(UndoReport { command: "skip --undo", target: target.to_owned(), deleted, on_remotes })
}

/// Refuses to undo a skip of `target`, of `unit`, when HEAD holds `unit` as an archived OpenSpec
/// change, archived once or more and active nowhere: the change is closed, and its skips are part
/// of what it recorded. A unit HEAD has nowhere (removed, renamed), or an unborn branch, leaves
/// the skip to be undone.
fn refuse_archived_undo(repo: &Repo, target: &str, unit: &str) -> Result<(), DecideError> {
    let head = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => commit,
        Head::Unborn(_) => return Ok(()),
    };
    let tree = repo.tree(repo.commit_tree(head)?);
    let dirs = match spec::locate_unit(&tree, unit) {
        Ok(loc) if loc.is_archived() => vec![loc.dir],
        // Archived more than once: which copy is the change's is ambiguous, but each is closed.
        Err(spec::SpecError::AmbiguousArchive { .. }) => spec::archived_copies(&tree, unit)?,
        Err(e) if e.is_repository_failure() => return Err(e.into()),
        _ => return Ok(()),
    };
    if dirs.is_empty() {
        return Ok(());
    }
    Err(DecideError::UndoArchived { target: target.to_owned(), dirs, id: unit.to_owned() })
}

/// The skip refs of `task` of `unit` that exist, ours first, then the published speccoder's
/// ([`refs::published_skipped_ref`]: the unit as it is, the task with only `%` and `:` escaped),
/// each with its commit. A name that is also the other spelling of another task's skip
/// ([`refs::SkipOf::Shared`]) is that task's when its commit's `Spec-Task:` names that one, and
/// then not listed ([`trailers::skip_ref_of`]).
fn existing_skips(repo: &Repo, unit: &str, task: &str) -> Result<Vec<(String, ObjectId)>, GitError> {
    let spellings =
        std::iter::once(refs::skipped_ref(unit, task)).chain(refs::published_skipped_ref(unit, task));
    let mut found = Vec::new();
    for name in spellings {
        let Some(commit) = repo.ref_target(&name)? else { continue };
        if let refs::SkipOf::Task(_) = trailers::skip_ref_of(repo, (&name, commit), unit, |_| true) {
            found.push((name, commit));
        }
    }
    Ok(found)
}

/// Each remote that held a skip ref of `spellings` when last fetched from or pushed to, with the
/// `git push <remote> --delete <ref>` that deletes it there.
fn on_remotes(repo: &Repo, spellings: &[String]) -> Result<Vec<SkipOnRemote>, GitError> {
    let mut out = Vec::new();
    for reference in spellings {
        for (remote, tracking) in sync::remotes_holding(repo, reference)? {
            let delete = format!("git push {} --delete {}", shell_word(&remote), shell_word(reference));
            out.push(SkipOnRemote { remote, reference: reference.clone(), tracking, delete });
        }
    }
    Ok(out)
}

/// `<unit>/<task>` of a listed task; a bug task is refused.
fn listed_target(target: &str) -> Result<(&str, &str), DecideError> {
    let (unit, task_id) = split_target(target)?;
    if let TaskId::Bug(_) = TaskId::parse(task_id)? {
        return Err(DecideError::BugTask(target.to_owned()));
    }
    Ok((unit, task_id))
}

/// The decider: the reason and name sanitised exactly as the trailers will carry them.
fn decider(repo: &Repo, req: &DecisionRequest) -> Result<Decider, DecideError> {
    let reason = sanitize_value(&req.reason);
    if reason.is_empty() {
        return Err(DecideError::EmptyReason(req.target.clone()));
    }
    if reason.chars().count() > MAX_REASON_CHARS {
        return Err(DecideError::LongReason);
    }
    let (by, from) = match &req.by {
        Some(given) => (sanitize_value(given), ByFrom::Flag),
        None => {
            let name = repo.config_string("user.name")?.ok_or(DecideError::NoDecider)?;
            (sanitize_value(&name), ByFrom::UserName)
        }
    };
    if by.is_empty() {
        return Err(if from == ByFrom::Flag { DecideError::EmptyBy } else { DecideError::BlankUserName });
    }
    let chars = by.chars().count();
    if chars > MAX_BY_CHARS {
        return Err(DecideError::LongBy { from, chars });
    }
    Ok(Decider { by, reason })
}

/// Writes the decision's commit object (nothing references it yet) and builds its one line.
fn decision_commit(
    repo: &Repo,
    parent: ObjectId,
    tree: ObjectId,
    facts: &TaskFacts,
    verdict: Verdict,
    decider: &Decider,
) -> Result<(ObjectId, String, Vec<Line>), DecideError> {
    let by_key = if verdict == Verdict::Attested { keys::ACCEPTED_BY } else { keys::SKIPPED_BY };
    let fields = MessageFields {
        unit: facts.unit.clone(),
        task: facts.id.clone(),
        title: facts.title.clone(),
        verdict: verdict.as_str().to_owned(),
        trailers: vec![(by_key, decider.by.clone()), (keys::REASON, decider.reason.clone())],
    };
    let template = if verdict == Verdict::Skipped { message::SKIP_TEMPLATE } else { message::TEMPLATE };
    let msg = message::render_with(template, &fields)?;
    provenance::check_message(&fields, &msg, facts).map_err(BuildError::from)?;
    let (policy_sha256, _) = read_policy(repo, parent)?;
    let commit = tick::write_task_commit(repo, parent, tree, &msg)?;
    let (commit_hex, tree_hex, time) = (commit.to_string(), tree.to_string(), now_rfc3339());
    let commit_sha256 = crate::attest::commit_object_sha256(repo, commit)?;
    let ctx = Context {
        task: facts,
        commit: &commit_hex,
        commit_sha256: &commit_sha256,
        tree: &tree_hex,
        policy_sha256: &policy_sha256,
        time: &time,
    };
    let lines = statements::decision(&ctx, verdict, decider.clone())?;
    Ok((commit, msg, lines))
}

#[allow(clippy::too_many_arguments)]
fn report(
    command: &'static str,
    req: &DecisionRequest,
    verdict: Verdict,
    commit: ObjectId,
    reference: String,
    decider: Decider,
    lines: &[Line],
    envelopes: &[Envelope],
    signer: Option<String>,
    unsigned_reason: Option<signing::Unsigned>,
) -> DecisionReport {
    DecisionReport {
        command,
        target: req.target.clone(),
        verdict: verdict.as_str(),
        commit: commit.to_string(),
        reference: unless_leaking(reference),
        decider,
        lines: LineReport::rows(lines, envelopes),
        signer,
        unsigned_reason: unsigned_reason.map(|reason| reason.to_string()),
        notes_ref: NOTES_REF.to_owned(),
        warnings: Vec::new(),
    }
}
