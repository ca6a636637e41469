//! The producer wing: from a finished task (or a person's decision) to a task commit with
//! trailers and a signed bundle in its git note, and ([`export`]) from a range the verifier found
//! holding to a pack with a signed verification summary. It stands on the model, the spec
//! formats, the repository adapter and the signers, and never on the verifier.

pub mod approve;
pub mod bug;
pub mod carry;
pub mod config;
pub mod decide;
pub mod evidence;
pub mod export;
pub mod held_out;
pub mod hooks;
pub mod message;
pub mod note_join;
pub mod pipeline;
pub mod provenance;
pub mod rejoin;
pub mod remote_signatures;
pub mod same_change;
#[cfg(feature = "sigstore")]
pub mod service_url;
pub mod sign_later;
pub mod signing;
pub mod statements;
pub mod sync;
pub mod target;
pub mod tick;

mod bounded;

use gix::ObjectId;
use serde::Serialize;

use crate::exit::{Class, ExitClass};
use crate::git::{GitError, Repo};
use crate::model::shown::in_line;

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
    /// The branch it is on (full ref name), when one moved (`null` for `attest sign`); a name
    /// that does not pass the clean check is given as what it holds.
    #[serde(serialize_with = "in_line")]
    pub branch: Option<String>,
    /// `<unit>/<task>`.
    #[serde(serialize_with = "in_line")]
    pub target: String,
    /// The verdict.
    #[serde(serialize_with = "in_line")]
    pub verdict: String,
    /// The lines of the note, in order.
    pub lines: Vec<LineReport>,
    /// Who signed (`ssh ed25519 SHA256:...`), when the lines were signed.
    #[serde(serialize_with = "in_line")]
    pub signer: Option<String>,
    /// Why the lines are unsigned, and how to sign them.
    #[serde(serialize_with = "in_line")]
    pub unsigned_reason: Option<String>,
    /// What was left out of the statements (the red excerpt when not clean).
    #[serde(serialize_with = "in_line")]
    pub withheld: Vec<String>,
    /// Things the user should know that did not stop the command.
    #[serde(serialize_with = "in_line")]
    pub warnings: Vec<String>,
    /// Where the note is.
    #[serde(serialize_with = "in_line")]
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

/// A revision as a user gave it and the commit it names: `HEAD (<id>)`, or the id alone when the
/// revision was that id.
pub(crate) fn rev_named(rev: &str, commit: &gix::ObjectId) -> String {
    let hex = commit.to_string();
    if rev == hex { hex } else { format!("{rev} ({hex})") }
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

/// The note of a commit could not be written; nothing else was changed by the failed write.
#[derive(Debug, thiserror::Error)]
#[error("the note of {commit} could not be written: {source}")]
pub struct NoteNotWritten {
    /// The commit without a note.
    pub commit: String,
    /// Why: its exit code is the one the same error has on its own (a held lock is repository
    /// state, not an internal error).
    pub source: GitError,
}

impl ExitClass for NoteNotWritten {
    fn class(&self) -> Class {
        self.source.class()
    }
}

/// A note holds lines its task commit's own checks refuse: `attest sign` and `attest approve`
/// sign nothing then.
#[derive(Debug, thiserror::Error)]
#[error(
    "the note of {commit} holds lines its task commit's own checks refuse; nothing was signed \
     (a line that is not about this commit's task, tree, task line, story or policy, or that its \
     summary does not name, must never be signed with your key):\n{findings}"
)]
pub struct Disagreement {
    /// The task commit.
    pub commit: String,
    /// Each finding on a line of its own, indented ([`listed`]).
    pub findings: String,
}

impl ExitClass for Disagreement {
    fn class(&self) -> Class {
        Class::DoesNotHold
    }
}

/// The current time as RFC 3339 UTC with whole seconds (`2026-11-30T10:00:00Z`).
#[must_use]
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    let fmt = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    now.format(&fmt).unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_owned())
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
    fn a_revision_given_as_its_commit_id_is_named_once() {
        let id = gix::ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        assert_eq!(super::rev_named(&id.to_string(), &id), id.to_string());
        assert_eq!(super::rev_named("HEAD", &id), format!("HEAD ({id})"));
    }

    #[test]
    fn a_note_left_unwritten_by_a_held_lock_exits_as_repository_state_like_the_lock_itself() {
        let locked =
            || GitError::RefLocked { name: NOTES_REF.to_owned(), lock: "refs/notes/speccoder.lock".into() };
        let note = NoteNotWritten { commit: "0".repeat(40), source: locked() };
        assert_eq!(note.exit_code(), crate::exit::GIT_PRECONDITION);
        assert_eq!(note.exit_code(), locked().exit_code());
        assert!(note.to_string().ends_with("remove refs/notes/speccoder.lock"), "{note}");
    }
}
