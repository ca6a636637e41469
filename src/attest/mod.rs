//! The producer wing: from a finished task (or a person's decision) to a task commit with
//! trailers and a signed bundle in its git note. It stands on the model, the spec formats, the
//! repository adapter and the signers, and never on the verifier.

pub mod bug;
pub mod decide;
pub mod evidence;
pub mod held_out;
pub mod message;
pub mod pipeline;
pub mod provenance;
pub mod sign_later;
pub mod signing;
pub mod statements;

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
    /// The branch it is on (full ref name), when one moved.
    pub branch: String,
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
        let branch = self.branch.strip_prefix("refs/heads/").unwrap_or(&self.branch);
        let on = if branch.is_empty() { String::new() } else { format!(" on {branch}") };
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
    /// The task is ticked already.
    #[error(
        "{target} is already ticked in {path}; nothing to attest (to re-attest, untick it in a new commit first)"
    )]
    AlreadyTicked {
        /// `<unit>/<task>`.
        target: String,
        /// The tasks file.
        path: String,
    },
    /// The bug was closed already and its triad has not changed since.
    #[error(
        "{target} was closed already by {commit} and its bug home has not changed since; nothing to attest (edit assessment.md, fix.md or test.md to reopen it)"
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
    /// tasks.md has changes that are not staged.
    #[error("{0} has unstaged changes; stage them (`git add {0}`) or stash them, then run again")]
    UnstagedTasks(String),
    /// HEAD is detached.
    #[error("HEAD is detached at {0}; check out a branch so the task commit has a home")]
    Detached(String),
    /// The branch has no commit yet.
    #[error("the branch {0} has no commits yet; commit the project first")]
    Unborn(String),
    /// speccoder.toml is broken.
    #[error("{CONFIG_FILE} at the parent commit: {0}")]
    Policy(#[from] PolicyError),
    /// The repository failed us.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A statement could not be built.
    #[error(transparent)]
    Build(#[from] crate::attest::statements::BuildError),
    /// The configured key is broken.
    #[error("signing key: {0}")]
    Sign(#[from] crate::sign::SignError),
    /// The note could not be written after the commit was made.
    #[error(
        "the task commit {commit} was made, but its note could not be written ({message}); the verifier will report it as `missing`: run `speccoder attest sign {commit}` is not enough, re-run attest after `git reset --soft HEAD~1`"
    )]
    Note {
        /// The commit without a note.
        commit: String,
        /// Why.
        message: String,
    },
    /// The work tree or index could not be updated after the commit and note were written.
    #[error(
        "the task commit and its note were written, but {path} in the work tree/index could not be updated ({source}); run `git checkout HEAD -- {path}`"
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
            | AttestError::BugEvidence(_)
            | AttestError::BadSigner(_) => exit::CONFIG,
            AttestError::Build(crate::attest::statements::BuildError::Leak(_)) => exit::CONFIG,
            AttestError::AlreadyTicked { .. }
            | AttestError::AlreadyClosed { .. }
            | AttestError::UnstagedTasks(_)
            | AttestError::Detached(_)
            | AttestError::Unborn(_)
            | AttestError::Nothing(_) => exit::GIT_PRECONDITION,
            AttestError::Git(
                GitError::Discover { .. }
                | GitError::NoWorkTree { .. }
                | GitError::UnknownRevision { .. }
                | GitError::RefMoved { .. }
                | GitError::RefLocked { .. }
                | GitError::IndexLocked { .. }
                | GitError::Unmerged { .. },
            ) => exit::GIT_PRECONDITION,
            AttestError::Git(
                GitError::IdentityMissing { .. }
                | GitError::EmptyIdentityName { .. }
                | GitError::BadDate { .. },
            ) => exit::CONFIG,
            _ => exit::INTERNAL,
        }
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
    let text = match repo.tree(tree).file(CONFIG_FILE)? {
        Some(bytes) => Some(
            String::from_utf8(bytes).map_err(|_| PolicyError(format!("{CONFIG_FILE} is not valid UTF-8")))?,
        ),
        None => None,
    };
    let hash = policy::policy_sha256(text.as_deref())?;
    let table = match &text {
        Some(t) => Some(t.parse::<toml::Table>().map_err(|e| PolicyError(e.to_string()))?),
        None => None,
    };
    Ok((hash, table))
}

/// Reads the file `path` when it holds at most `max` bytes; `Ok(None)` when it is longer.
///
/// The file's size only sizes the buffer (it may change while read); the bound is enforced on
/// what is read. Sized, a small file is read in one call instead of a probe and doubling reads.
pub(crate) fn read_bounded(path: &std::path::Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)?;
    let hint = file.metadata().map_or(0, |m| m.len()).min(max).saturating_add(1);
    let mut buf = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= max).then_some(buf))
}

#[cfg(test)]
mod tests {
    use super::read_bounded;

    #[test]
    fn a_file_of_at_most_the_bound_is_read_whole_and_a_longer_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        for (len, max, whole) in
            [(0, 0, true), (5, 5, true), (6, 5, false), (70_000, 70_000, true), (70_001, 70_000, false)]
        {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&file, &bytes).unwrap();
            let read = read_bounded(&file, max).unwrap();
            assert_eq!(read, whole.then_some(bytes), "{len} bytes against a bound of {max}");
        }
        assert!(read_bounded(&dir.path().join("missing"), 10).is_err());
    }
}
