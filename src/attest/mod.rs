//! The producer wing: from a finished task (or a person's decision) to a task commit with
//! trailers and a signed bundle in its git note, and ([`export`]) from a range the verifier found
//! holding to a pack with a signed verification summary. It stands on the model, the spec
//! formats, the repository adapter and the signers, and never on the verifier.

pub mod approve;
pub mod bug;
pub mod carry;
pub mod decide;
pub mod evidence;
pub mod export;
pub mod held_out;
pub mod hooks;
pub mod message;
pub mod note_join;
pub mod pipeline;
pub mod provenance;
pub mod remote_signatures;
pub mod same_change;
pub mod sign_later;
pub mod signing;
pub mod statements;
pub mod sync;
pub(crate) mod tick;

mod bounded;

use gix::ObjectId;
use serde::Serialize;

use crate::exit;
use crate::git::{GitError, Repo};
use crate::model::policy::{self, PolicyError};

pub use crate::model::policy::CONFIG_FILE;

/// One line written, as the report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LineReport {
    /// `test-result/<phase>`, `task-verification`, `summary`.
    pub name: String,
    /// sha256 of the statement bytes.
    pub sha256: String,
    /// Whether the line carries a signature.
    pub signed: bool,
}

impl LineReport {
    /// The report rows of `lines` as written in `envelopes` (same order).
    #[must_use]
    pub fn rows(lines: &[statements::Line], envelopes: &[crate::model::dsse::Envelope]) -> Vec<LineReport> {
        lines
            .iter()
            .zip(envelopes)
            .map(|(l, e)| LineReport {
                name: l.name.clone(),
                sha256: l.digest(),
                signed: !e.signatures.is_empty(),
            })
            .collect()
    }
}

/// What a producer command did, for people (Display) and machines (`--json`).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `attest`, `attest sign`.
    pub command: &'static str,
    /// The task commit.
    pub commit: String,
    /// The branch it is on (full ref name), when one moved (`null` for `attest sign`).
    pub branch: Option<String>,
    /// `<unit>/<task>`.
    pub target: String,
    /// The verdict.
    pub verdict: String,
    /// The lines of the note, in order.
    pub lines: Vec<LineReport>,
    /// Who signed (`ssh ed25519 SHA256:...`), when the lines were signed.
    pub signer: Option<String>,
    /// Why the lines are unsigned, and how to sign them.
    pub unsigned_reason: Option<String>,
    /// What was left out of the statements (the red excerpt when not clean).
    pub withheld: Vec<String>,
    /// Things the user should know that did not stop the command.
    pub warnings: Vec<String>,
    /// Where the note is.
    pub notes_ref: String,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short = self.commit.get(..12).unwrap_or(&self.commit);
        let on = match &self.branch {
            Some(branch) => format!(" on {}", branch.strip_prefix("refs/heads/").unwrap_or(branch)),
            None => String::new(),
        };
        writeln!(f, "{} {}{on}: {} ({})", self.command, self.target, short, self.verdict)?;
        let signed = self.lines.iter().filter(|l| l.signed).count();
        writeln!(f, "  note {} in {}: {} lines, {} signed", short, self.notes_ref, self.lines.len(), signed)?;
        for l in &self.lines {
            writeln!(
                f,
                "    {:<22} sha256:{}{}",
                l.name,
                l.sha256,
                if l.signed { "" } else { "  (unsigned)" }
            )?;
        }
        if let Some(s) = &self.signer {
            writeln!(f, "  signer: {s}")?;
        }
        if let Some(r) = &self.unsigned_reason {
            writeln!(f, "  unsigned: {r}")?;
        }
        for w in &self.withheld {
            writeln!(f, "  withheld: {w}")?;
        }
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        Ok(())
    }
}

/// Each finding on a line of its own, indented, in note order: how a refusal lists them.
pub(crate) fn listed(findings: &[crate::check::outcome::Finding]) -> String {
    use std::fmt::Write as _;
    let mut sorted: Vec<_> = findings.iter().collect();
    sorted.sort_by_key(|f| f.line);
    let mut out = String::new();
    for f in sorted {
        let _ = writeln!(out, "  {f}");
    }
    out.trim_end().to_owned()
}

/// Why a producer command stopped.
#[derive(Debug, thiserror::Error)]
pub enum AttestError {
    /// `<unit>/<task>` is not of that shape.
    #[error("`{0}` is not <unit>/<task> (for example 001-bookmark-tags/T005)")]
    Target(String),
    /// The evidence file is unusable.
    #[error(transparent)]
    Evidence(#[from] evidence::EvidenceError),
    /// The spec could not be read, or the task not found.
    #[error(transparent)]
    Spec(#[from] crate::spec::SpecError),
    /// The task is ticked already at HEAD.
    #[error(
        "{target} is already ticked in {path} at HEAD; nothing to attest (to re-attest, untick it in a new commit first)"
    )]
    AlreadyTicked {
        /// `<unit>/<task>`.
        target: String,
        /// The tasks file.
        path: String,
    },
    /// The index holds a tick that HEAD does not: someone ticked the box by hand and staged it.
    #[error(
        "{target} is ticked in the staged {path} but not at HEAD; a tick is made by `speccoder attest`: untick its box in your file, `git add {path}`, and run again"
    )]
    TickedOnlyInIndex {
        /// `<unit>/<task>`.
        target: String,
        /// The tasks file.
        path: String,
    },
    /// An interrupted tick cannot be completed because its task list was edited since.
    #[error(
        "{target} was ticked by {commit}, but that run stopped before updating the work tree, and {path} was edited since, so it is left as it is. To keep your edit with the tick, tick the task's box in your file and `git add {path}` (`git diff HEAD -- {path}` then shows only your edit); `git checkout HEAD -- {path}` would drop your edit for the ticked file instead"
    )]
    InterruptedTickEdited {
        /// `<unit>/<task>`.
        target: String,
        /// The task commit at HEAD.
        commit: String,
        /// The tasks file.
        path: String,
    },
    /// The tick is published and staged, but tasks.md was edited in the work tree while the
    /// command ran: the edit was kept in place of the ticked file.
    #[error(
        "{target} is ticked by the task commit {commit}, with its note, and the index holds the ticked {path}; but {path} was changed in the work tree while speccoder ran (after it had read the file), so it was not overwritten: the work tree keeps your edit, without the tick. `git diff {path}` shows your edit and the tick taken back: tick the task's box again in your file (then `git diff HEAD -- {path}` shows only your edit) and stage it as usual; `git checkout -- {path}` would drop your edit for the ticked file instead"
    )]
    EditedDuringTick {
        /// `<unit>/<task>`.
        target: String,
        /// The task commit, at HEAD.
        commit: String,
        /// The tasks file.
        path: String,
    },
    /// A temporary file a stopped writer left beside a task list is staged.
    #[error(
        "{paths}: a temporary file a stopped speccoder run left beside a task list is staged, and a task commit would hold it; nothing was written: remove it (`git rm -f -- {paths}`) and run again"
    )]
    LeftoverStaged {
        /// The staged paths, space-separated.
        paths: String,
    },
    /// The task commit would untick tasks that HEAD ticks: the index lags behind HEAD.
    #[error(
        "the task commit would untick {tasks}, which HEAD ticks: the index holds an older {paths} (left by a speccoder run stopped after it moved the branch, or an untick staged by hand); nothing was written: tick {tasks} again in {paths} and stage it, which keeps any change of yours there (a stopped speccoder run that left the index as it was is finished by running it again; `git checkout HEAD -- {paths}` brings the index up to HEAD but drops your staged and unstaged changes to that file), or commit the untick on its own first"
    )]
    WouldUntick {
        /// The `<unit>/<task>` targets, comma-separated.
        tasks: String,
        /// Their task lists, space-separated.
        paths: String,
    },
    /// Git is in the middle of another operation in this work tree.
    #[error(
        "a {what} is in progress in this work tree, and a task commit made now would take its half-done changes and leave it open; nothing was written: {finish}, then run again"
    )]
    InProgress {
        /// `merge`, `cherry-pick`, `revert`, `rebase`, `git am`, `bisect`.
        what: &'static str,
        /// How to finish or abort it.
        finish: &'static str,
    },
    /// The project turned attestation off.
    #[error(
        "{CONFIG_FILE} at HEAD says `[attest] enabled = false`: this project records no attestations, and nothing was written"
    )]
    Disabled,
    /// The bug was closed already and its triad has not changed since.
    #[error(
        "{target} was closed already by {commit} and its bug home has not changed since (as staged); nothing to attest (edit assessment.md, fix.md or test.md and stage the edit to reopen it)"
    )]
    AlreadyClosed {
        /// `<unit>/bug:<slug>`.
        target: String,
        /// The closing commit.
        commit: String,
    },
    /// The evidence's `bug` field cannot carry a bug task's anchor.
    #[error("the evidence's `bug` field must be a JSON object (or absent) for a bug task; found {0}")]
    BugEvidence(String),
    /// The task's OpenSpec change is archived: it is closed, and its tasks are not ticked.
    #[error(
        "{target} belongs to the OpenSpec change archived at {dir}, which is closed; nothing was written: to work on the change again, move it back (`git mv {dir} openspec/changes/{id}`) and commit that first"
    )]
    Archived {
        /// `<unit>/<task>`.
        target: String,
        /// The archived change's directory.
        dir: String,
        /// The change id.
        id: String,
    },
    /// tasks.md is outside the sparse checkout: the work tree does not hold it to be ticked.
    #[error(
        "{path} is outside this sparse checkout, so the work tree cannot show its tick; nothing was written: add it to the checkout (`git sparse-checkout add {add}`), then run again"
    )]
    OutsideSparseCheckout {
        /// The tasks file.
        path: String,
        /// What `git sparse-checkout add` takes to bring it in: the unit's directory in cone
        /// mode; in non-cone mode the directory and the file as patterns of their own, so that
        /// they win over a pattern that excludes the file.
        add: String,
    },
    /// tasks.md is marked skip-worktree (`git update-index --skip-worktree`) where no sparse
    /// checkout is configured: the work tree does not show changes to it.
    #[error(
        "{path} is marked skip-worktree in the index, though no sparse checkout is configured, so the work tree cannot show its tick; nothing was written: clear the mark (`git update-index --no-skip-worktree {path}{restore}`), then run again"
    )]
    SkipWorktree {
        /// The tasks file.
        path: String,
        /// Empty, or the command that brings the file back when the work tree lacks it.
        restore: String,
    },
    /// The unit is in the work tree but not in the index: a new unit not yet `git add`ed (or only
    /// with `git add -N`), which `attest` and `accept` cannot read, since they commit what is
    /// staged.
    #[error(
        "unit `{unit}` is in the work tree ({path}) but not committed or staged, so there is no task list to tick; nothing was written: stage it (`git add {dir}`), then run again"
    )]
    UnitNotStaged {
        /// The unit.
        unit: String,
        /// Its task list in the work tree, or its directory when it has none.
        path: String,
        /// Its directory.
        dir: String,
    },
    /// The unit is in the work tree but not in HEAD's commit, where a skip is recorded.
    #[error(
        "unit `{unit}` is in the work tree ({path}) but not committed, and a skip is recorded on HEAD's commit; nothing was written: commit it (`git add {dir}`, then `git commit`), then run again"
    )]
    UnitNotCommitted {
        /// The unit.
        unit: String,
        /// Its task list in the work tree, or its directory when it has none.
        path: String,
        /// Its directory.
        dir: String,
    },
    /// tasks.md has changes that are not staged.
    #[error("{0} has unstaged changes; stage them (`git add {0}`) or stash them, then run again")]
    UnstagedTasks(String),
    /// tasks.md in the work tree cannot be compared with the index: it is not a regular file
    /// that can be read.
    #[error(
        "{path} in the work tree cannot be compared with the staged one: {reason}; nothing was written: make it the regular, readable file you mean to keep (`git checkout -- {path}` restores the staged one), then run again"
    )]
    UnreadableTasks {
        /// The tasks file.
        path: String,
        /// What is there instead ([`crate::input::InputError::reason`]: `it is a FIFO, not a regular
        /// file`, `it is a symbolic link, or lies behind one`, the system's error).
        reason: String,
    },
    /// HEAD is detached.
    #[error("HEAD is detached at {0}; check out a branch so the task commit has a home")]
    Detached(String),
    /// The branch has no commit yet.
    #[error("the branch {0} has no commits yet; commit the project first")]
    Unborn(String),
    /// speccoder.toml, as committed at HEAD (the task commit's parent), is broken. The
    /// [`PolicyError`] names the file.
    #[error("at HEAD (the task commit's parent), {0}")]
    Policy(#[from] PolicyError),
    /// The repository failed us.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A statement could not be built.
    #[error(transparent)]
    Build(#[from] crate::attest::statements::BuildError),
    /// `commit.gpgsign` is set, and git's own signing key cannot sign the task commit.
    #[error(
        "commit.gpgsign is set, so the task commit is signed as git signs commits, with git's own signing key (gpg.format = {format}, user.signingKey), not with the key the note's lines are signed with; {why}. Nothing was written: {fix}, or turn commit signing off for this repository (`git config commit.gpgsign false`); then run the same command again"
    )]
    CommitSigning {
        /// `gpg.format` (`openpgp` when unset).
        format: String,
        /// Why git's key cannot sign.
        why: String,
        /// How to configure one that can.
        fix: String,
    },
    /// The configured key is broken.
    #[error("signing key: {0}")]
    Sign(#[from] crate::sign::SignError),
    /// A note could not be written; nothing else was changed by the failed write.
    #[error("the note of {commit} could not be written: {source}")]
    Note {
        /// The commit without a note.
        commit: String,
        /// Why: its exit code is the one the same error has on its own (a held lock is
        /// repository state, not an internal error).
        source: GitError,
    },
    /// The work tree or index could not be updated after the commit and note were written.
    #[error(
        "the task commit and its note were written, but {path} in the work tree and index could not be updated ({source}); run the same command again to finish, or `git checkout HEAD -- {path}`"
    )]
    WorktreeAfterCommit {
        /// The tasks file.
        path: String,
        /// Why.
        source: GitError,
    },
    /// The commit message would not carry its trailers intact.
    #[error("cannot write the commit message: {0}")]
    Message(#[from] crate::git::trailers::TrailerError),
    /// `--signer` or `[attest] signer` names no usable backend.
    #[error("{0}")]
    BadSigner(String),
    /// Another I/O failure.
    #[error("{0}")]
    Io(String),
    /// Nothing to sign or no note where one was expected.
    #[error("{0}")]
    Nothing(String),
    /// `attest carry`: the trust the old evidence is checked against cannot be loaded.
    #[error("{0}")]
    Trust(#[from] crate::check::trust::TrustError),
    /// The note would be larger than a reader takes.
    #[error(transparent)]
    NoteTooLarge(#[from] crate::model::bundle::NoteTooLarge),
    /// `attest carry`: no trust is configured, so no evidence can be checked before it is
    /// re-signed.
    #[error(
        "carry re-signs evidence with your key, so it first checks the old evidence's signatures against your own trust, and you trust no signer: nothing was carried. Configure the trust `attest verify` reads: git's gpg.ssh.allowedSignersFile (`git config gpg.ssh.allowedSignersFile ~/.ssh/allowed_signers`, a file of `<principal> <public key>` lines), or pass --allowed-signers FILE (--openpgp-certs FILE for OpenPGP evidence); then run `speccoder attest carry` again"
    )]
    NoTrust,
    /// `attest approve`: the approver trusts no signer, so nothing can be checked before approval.
    #[error(
        "approve signs a tick only after its note's signatures verify against your own trust, and you trust no signer: nothing was approved. Configure the trust `attest verify` reads: git's gpg.ssh.allowedSignersFile, or pass --allowed-signers FILE (--allowed-signers-rev REV:PATH, --openpgp-certs FILE, --certificate-identity and --certificate-oidc-issuer for keyless evidence); then run `speccoder attest approve` again"
    )]
    ApproveNoTrust,
    /// `attest approve`: a line's signature does not hold against the approver's trust.
    #[error(
        "the note of {commit} does not hold against your trust, and nobody approves what they cannot verify; nothing was approved:\n{findings}"
    )]
    Unapprovable {
        /// The task commit.
        commit: String,
        /// Each finding on a line of its own, indented.
        findings: String,
    },
    /// `attest sign`: lines of the note do not agree with the task commit they annotate.
    #[error(
        "the note of {commit} holds lines its task commit's own checks refuse; nothing was signed \
         (a line that is not about this commit's task, tree, task line, story or policy, or that its \
         summary does not name, must never be signed with your key):\n{findings}"
    )]
    Disagrees {
        /// The task commit.
        commit: String,
        /// Each finding on a line of its own, indented.
        findings: String,
    },
}

impl AttestError {
    /// The exit code for this failure.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        use crate::spec::SpecError as S;
        match self {
            AttestError::Target(_) => exit::USAGE,
            AttestError::Spec(
                S::UnknownUnit { .. }
                | S::UnknownTask { .. }
                | S::BadUnitName { .. }
                | S::BadTaskId { .. }
                | S::BadBugSlug { .. },
            ) => exit::USAGE,
            AttestError::Evidence(_)
            | AttestError::Spec(_)
            | AttestError::Policy(_)
            | AttestError::Sign(_)
            | AttestError::CommitSigning { .. }
            | AttestError::BugEvidence(_)
            | AttestError::BadSigner(_)
            | AttestError::NoTrust
            | AttestError::NoteTooLarge(_)
            | AttestError::ApproveNoTrust
            | AttestError::Disabled => exit::CONFIG,
            AttestError::Trust(crate::check::trust::TrustError::Git(e)) => git_exit_code(e),
            AttestError::Trust(_) => exit::CONFIG,
            AttestError::Build(crate::attest::statements::BuildError::Leak(_)) => exit::CONFIG,
            AttestError::AlreadyTicked { .. }
            | AttestError::TickedOnlyInIndex { .. }
            | AttestError::InterruptedTickEdited { .. }
            | AttestError::EditedDuringTick { .. }
            | AttestError::WouldUntick { .. }
            | AttestError::LeftoverStaged { .. }
            | AttestError::InProgress { .. }
            | AttestError::AlreadyClosed { .. }
            | AttestError::UnstagedTasks(_)
            | AttestError::OutsideSparseCheckout { .. }
            | AttestError::SkipWorktree { .. }
            | AttestError::UnitNotStaged { .. }
            | AttestError::UnitNotCommitted { .. }
            | AttestError::Archived { .. }
            | AttestError::UnreadableTasks { .. }
            | AttestError::Detached(_)
            | AttestError::Unborn(_)
            | AttestError::Nothing(_) => exit::GIT_PRECONDITION,
            AttestError::Disagrees { .. } | AttestError::Unapprovable { .. } => exit::DOES_NOT_HOLD,
            AttestError::Git(e)
            | AttestError::Note { source: e, .. }
            | AttestError::WorktreeAfterCommit { source: e, .. } => git_exit_code(e),
            _ => exit::INTERNAL,
        }
    }
}

/// The exit code of a git failure: repository state the user can change (a held lock, a moved
/// or unusable reference, no work tree), a missing identity, or else an internal error.
pub(crate) fn git_exit_code(e: &GitError) -> u8 {
    match e {
        GitError::Discover { .. }
        | GitError::Open { .. }
        | GitError::DubiousOwnership { .. }
        | GitError::RefStorage { .. }
        | GitError::GitDirWithoutWorkTree { .. }
        | GitError::SharedRepository { .. }
        | GitError::RefPermission { .. }
        | GitError::NoWorkTree { .. }
        | GitError::UnknownRevision { .. }
        | GitError::AmbiguousRevision { .. }
        | GitError::RefMoved { .. }
        | GitError::RefLocked { .. }
        | GitError::IndexLocked { .. }
        | GitError::Contention { .. }
        | GitError::NotesRefUnusable { .. }
        | GitError::AmbiguousNote { .. }
        | GitError::NotesTreeHostile { .. }
        | GitError::NotesTreeTooLarge { .. }
        | GitError::NoteTooLarge { .. }
        | GitError::Unmerged { .. } => exit::GIT_PRECONDITION,
        GitError::IdentityMissing { .. }
        | GitError::EmptyIdentityName { .. }
        | GitError::BadDate { .. }
        | GitError::Convert { .. }
        | GitError::UnsupportedEncoding { .. } => exit::CONFIG,
        _ => exit::INTERNAL,
    }
}

/// The current time as RFC 3339 UTC with whole seconds (`2026-11-30T10:00:00Z`).
#[must_use]
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    let fmt = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    now.format(&fmt).unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_owned())
}

/// The policy hash and the parsed configuration of `speccoder.toml` in `commit`'s tree.
///
/// # Errors
/// An unreadable tree, or a file that is not TOML.
pub fn read_policy(repo: &Repo, commit: ObjectId) -> Result<(String, Option<toml::Table>), AttestError> {
    let tree = repo.commit_tree(commit)?;
    let text = crate::check::policy::config_file(repo, tree)?.map(|(_, text)| text);
    let table = text.as_deref().map(policy::parse_table).transpose()?;
    let hash = policy::JudgeConfig::of_table(table.as_ref().unwrap_or(&toml::Table::new())).sha256();
    Ok((hash, table))
}

/// The sha256 of the commit object `commit` as git hashes objects (`commit <len>\0` and its raw
/// bytes): the subject's `sha256` digest.
///
/// # Errors
/// The commit cannot be read.
pub fn commit_object_sha256(repo: &Repo, commit: ObjectId) -> Result<String, GitError> {
    Ok(crate::model::digest::git_object_sha256("commit", &repo.read_kind(commit, gix::object::Kind::Commit)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::bundle::NOTES_REF;

    #[test]
    fn a_note_left_unwritten_by_a_held_lock_exits_as_repository_state_like_the_lock_itself() {
        let locked =
            || GitError::RefLocked { name: NOTES_REF.to_owned(), lock: "refs/notes/speccoder.lock".into() };
        let note = AttestError::Note { commit: "0".repeat(40), source: locked() };
        assert_eq!(note.exit_code(), exit::GIT_PRECONDITION);
        assert_eq!(note.exit_code(), AttestError::Git(locked()).exit_code());
        assert!(note.to_string().ends_with("remove refs/notes/speccoder.lock"), "{note}");
    }

    #[test]
    fn a_work_tree_left_unwritten_after_the_commit_exits_as_the_cause_does() {
        let path = "specs/001-x/tasks.md".to_owned();
        let convert = GitError::Convert {
            path: path.clone(),
            conversion: crate::git::Conversion::ToWorktree,
            reason: "the smudge filter failed".into(),
        };
        let after = AttestError::WorktreeAfterCommit { path: path.clone(), source: convert };
        assert_eq!(after.exit_code(), exit::CONFIG, "a conversion the configuration breaks");
        let locked = GitError::IndexLocked { path: ".git/index".into(), others: Vec::new() };
        let after = AttestError::WorktreeAfterCommit { path, source: locked };
        assert_eq!(after.exit_code(), exit::GIT_PRECONDITION);
    }
}
