//! Reading a note back: every line a DSSE envelope holding an in-toto Statement v1 about the
//! task commit, typed by its predicate. The payload bytes are checked and parsed as they are;
//! nothing is re-encoded before it is checked.

use crate::check::outcome::{CommitOutcome, Finding};
use crate::git::{ObjectId, Repo};
use crate::model::bundle;
use crate::model::digest::sha256_hex;
use crate::model::dsse::{Envelope, EnvelopeError, PAYLOAD_TYPE};
use crate::model::predicate::{self, TaskVerificationV0, Verdict};
use serde_json::value::RawValue;

use crate::model::statement::{STATEMENT_TYPE, Statement, Subject};
use crate::model::summary::{self, VerificationSummary};
use crate::model::test_result::{self, TestResult};

/// A line's statement, typed.
#[derive(Debug, Clone)]
pub enum Body {
    /// A test-result line.
    TestResult(TestResult),
    /// The task-verification line.
    TaskVerification(Box<TaskVerificationV0>),
    /// The verification summary.
    Summary(VerificationSummary),
}

/// One readable line of a bundle.
#[derive(Debug, Clone)]
pub struct ReadLine {
    /// 1-based line number in the note.
    pub number: usize,
    /// The envelope.
    pub envelope: Envelope,
    /// The sha256 of the payload bytes (lowercase hex): how a summary names the line.
    pub payload_sha256: String,
    /// The statement's subjects, as written.
    pub subject: Vec<Subject>,
    /// The typed statement.
    pub body: Body,
}

impl ReadLine {
    /// How a summary names this line: `test-result/<phase>` or `task-verification`.
    #[must_use]
    pub fn input_name(&self) -> Option<String> {
        match &self.body {
            Body::TestResult(t) => {
                t.phase().map(|p| format!("{}{}", summary::INPUT_TEST_RESULT_PREFIX, p.as_str()))
            }
            Body::TaskVerification(_) => Some(summary::INPUT_TASK_VERIFICATION.to_owned()),
            Body::Summary(_) => None,
        }
    }

    /// How the producer names this line among a note's statements: its
    /// [`input_name`](Self::input_name), or `summary`.
    #[must_use]
    pub fn bundle_name(&self) -> String {
        self.input_name().unwrap_or_else(|| "summary".to_owned())
    }
}

/// The position in `lines` of the line whose signature covers the whole note, where approvals go:
/// the one summary of a tick (it names every other line by digest), or, in a note without a
/// summary, the task-verification line at `task_verification` (a decision's only line). `None`
/// for a note of several summaries, which no one signature covers.
#[must_use]
pub fn covering_line(lines: &[ReadLine], task_verification: Option<usize>) -> Option<usize> {
    let mut summaries = lines.iter().enumerate().filter(|(_, l)| matches!(l.body, Body::Summary(_)));
    match (summaries.next(), summaries.next()) {
        (Some((i, _)), None) => Some(i),
        (None, _) => task_verification,
        (Some(_), Some(_)) => None,
    }
}

/// How many lines of one note that cannot be read are reported one by one. A note is hostile
/// input of any size (millions of junk lines pack to a few KiB), so after this many the rest is
/// not read and one `lines_not_read` finding says how many lines that leaves: memory, time and
/// output then grow with this number, not with the note.
pub const UNREADABLE_LINES_REPORTED: usize = 20;

/// How many lines of one note are read at most. A tick writes six at most (one per phase, its
/// task-verification line and its summary); without a bound, a note of one tick's lines repeated
/// many times over would be read, checked and reported line by line, whatever its size.
pub const LINES_READ: usize = 64;

/// Whether `lines`, the note of `annotated`, are a copy git made of another commit's note
/// (`notes.rewriteRef` after a rebase or amend): there are lines, and every subject of every one
/// names a commit other than `annotated`. Such a note is no evidence for `annotated`; `attest
/// carry` replaces it with one that is.
#[must_use]
pub fn copied_from_another_commit(lines: &[ReadLine], annotated: ObjectId) -> bool {
    let hex = annotated.to_string();
    !lines.is_empty()
        && lines.iter().all(|l| l.subject.iter().all(|s| s.git_commit().is_some_and(|c| c != hex)))
}

/// The task the note `blob` on `annotated` is evidence for (its task-verification line's
/// `<unit>/<task>`; a skip's excepted), when `annotated` is no longer in the repository: a
/// rewrite left it behind and git removed it since, while the note stayed. `None` while the
/// commit is there, or when the note names no task.
#[must_use]
pub fn task_of_gone_commit(repo: &Repo, annotated: ObjectId, blob: ObjectId) -> Option<String> {
    if !repo.commit(annotated).is_err_and(|e| e.missing_object().is_some()) {
        return None;
    }
    let note = repo.blob_within(blob, bundle::MAX_NOTE_BYTES).ok()?.ok()?;
    read_lines(&note, &mut Vec::new()).into_iter().find_map(|line| match line.body {
        Body::TaskVerification(p) if p.verdict != Verdict::Skipped.as_str() => {
            Some(format!("{}/{}", p.unit.feature, p.task.id))
        }
        _ => None,
    })
}

/// Reads the lines of `note` ([`read_line`]), pushing a finding for each line that cannot be
/// read. It stops after [`UNREADABLE_LINES_REPORTED`] such lines, or after [`LINES_READ`] lines,
/// with one `lines_not_read` finding (`malformed`) naming how many lines were left unread.
pub fn read_lines(note: &[u8], findings: &mut Vec<Finding>) -> Vec<ReadLine> {
    let mut lines = Vec::new();
    let mut unreadable = 0usize;
    let mut raw_lines = bundle::lines(note).enumerate();
    while let Some((i, raw)) = raw_lines.next() {
        if i == LINES_READ {
            let why =
                format!("a tick writes at most 6 lines, and no more than {LINES_READ} of one note are read");
            findings.push(not_read(i, 1 + raw_lines.count(), &why));
            break;
        }
        match read_line(i + 1, raw) {
            Ok(line) => lines.push(line),
            Err(f) => {
                findings.push(f);
                unreadable += 1;
            }
        }
        if unreadable == UNREADABLE_LINES_REPORTED {
            let rest = raw_lines.count();
            if rest > 0 {
                let why =
                    format!("the note had {UNREADABLE_LINES_REPORTED} lines that cannot be read by then");
                findings.push(not_read(i + 1, rest, &why));
            }
            break;
        }
    }
    lines
}

/// The `lines_not_read` finding: `rest` lines after line `last_read` were left unread, `why`.
fn not_read(last_read: usize, rest: usize, why: &str) -> Finding {
    Finding::new(
        CommitOutcome::Malformed,
        "lines_not_read",
        format!(
            "{rest} more lines after line {last_read} were not read: {why}; replace the note with the one the tick wrote, or attest the task again"
        ),
    )
    .at_line(last_read + 1)
}

/// Reads one line, or says why it is not a line we can read.
///
/// # Errors
/// A `malformed` finding (not an envelope, wrong payload type, not a Statement v1, a predicate we
/// cannot read or do not support).
pub fn read_line(number: usize, raw: &[u8]) -> Result<ReadLine, Finding> {
    let bad = |code: &'static str, msg: String| {
        Err(Finding::new(CommitOutcome::Malformed, code, msg).at_line(number))
    };
    if raw.is_empty() {
        return bad("blank_line", "a blank line in the note; every line must be an envelope".into());
    }
    let envelope = match Envelope::parse(raw) {
        Ok(e) => e,
        Err(e @ EnvelopeError::TooManySignatures(_)) => return bad("too_many_signatures", e.to_string()),
        Err(e @ EnvelopeError::TooLarge { .. }) => return bad("too_large", e.to_string()),
        Err(e) => return bad("not_an_envelope", format!("not a DSSE envelope: {e}")),
    };
    if envelope.payload_type != PAYLOAD_TYPE {
        return Err(Finding::new(
            CommitOutcome::Malformed,
            "wrong_payload_type",
            "the envelope's payloadType is not in-toto's",
        )
        .at_line(number)
        .expected_found(PAYLOAD_TYPE, envelope.payload_type.clone()));
    }
    let statement: Statement<&RawValue> = match serde_json::from_slice(&envelope.payload) {
        Ok(s) => s,
        Err(e) => return bad("not_a_statement", format!("the payload is not an in-toto statement: {e}")),
    };
    if statement.type_ != STATEMENT_TYPE {
        return Err(Finding::new(
            CommitOutcome::Malformed,
            "wrong_statement_type",
            "the payload is not an in-toto Statement v1",
        )
        .at_line(number)
        .expected_found(STATEMENT_TYPE, statement.type_));
    }
    let subject = statement.subject;
    let ptype = statement.predicate_type.as_str();
    let body = match ptype {
        test_result::TYPE => serde_json::from_str(statement.predicate.get()).map(Body::TestResult),
        predicate::TYPE => {
            serde_json::from_str(statement.predicate.get()).map(|p| Body::TaskVerification(Box::new(p)))
        }
        summary::TYPE => serde_json::from_str(statement.predicate.get()).map(Body::Summary),
        other if other.starts_with(predicate::TYPE_FAMILY) => {
            return bad(
                "unsupported_predicate_version",
                format!("predicate {other} not supported by this verifier"),
            );
        }
        other => {
            return bad(
                "unknown_predicate_type",
                format!("a predicate type this verifier does not know: {other}"),
            );
        }
    };
    match body {
        Ok(body) => {
            let payload_sha256 = sha256_hex(&envelope.payload);
            Ok(ReadLine { number, envelope, payload_sha256, subject, body })
        }
        Err(e) => bad(BAD_PREDICATE, format!("the {ptype} predicate does not read: {e}")),
    }
}

/// The finding of a line whose statement is of a predicate type this verifier reads, but whose
/// predicate does not read as that type.
pub const BAD_PREDICATE: &str = "bad_predicate";

/// Whether `f` is [`read_line`]'s finding of a task-verification line whose predicate does not
/// read: the line is there, so the note does not lack it.
#[must_use]
pub fn is_unread_task_verification(f: &Finding) -> bool {
    f.code == BAD_PREDICATE && f.message.starts_with(&format!("the {} predicate ", predicate::TYPE))
}
