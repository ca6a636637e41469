//! Reading a note back: every line a DSSE envelope holding an in-toto Statement v1 about the
//! task commit, typed by its predicate. The payload bytes are checked and parsed as they are;
//! nothing is re-encoded before it is checked.

use crate::check::outcome::{CommitOutcome, Finding};
use crate::git::{ObjectId, Repo};
use crate::model::bundle;
use crate::model::clean::shown_if_clean;
use crate::model::digest::sha256_hex;
use crate::model::dsse::{Envelope, EnvelopeError, PAYLOAD_TYPE};
use crate::model::predicate::{self, TaskVerificationV0, Verdict};
use crate::model::shown::SHOWN_MAX;
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

/// A note that is several notes of ours joined line by line: what `git notes merge -s union` or
/// `-s cat_sort_uniq` makes of two notes of one commit, and what a rebase makes of the notes it
/// copies onto a squash or fixup (`notes.rewriteRef`, under git's default
/// `notes.rewriteMode=concatenate`).
///
/// The rule ([`joined_note`]): a note of ours holds one task-verification line and at most one
/// summary; a note holding more than one of either, every line of which is about a task at a
/// commit that one of its task-verification lines is about, is such a join. Each note joined is
/// consistent on its own; the join is not, and no rule of agreement says why. So the verifier
/// and `attest carry` say what it is, and how to keep the annotated commit's own note: `attest
/// rejoin`, which joins the copies of each of its statements as `attest fetch` joins two clones'
/// copies of a line, so that no signature that verifies is lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinedNote {
    /// How many notes were joined: the larger count of its task-verification and summary lines.
    pub notes: usize,
    /// Each commit the lines are about (its `gitCommit` as written), in note order, with the
    /// numbers of its lines.
    pub commits: Vec<(String, Vec<usize>)>,
    /// The annotated commit's own statements, in the order each first appears: for each, the
    /// numbers of the lines that are copies of it (the same payload). Empty when no line is about
    /// the annotated commit.
    pub statements: Vec<Vec<usize>>,
    /// Whether a statement is listed more than once: the same statements, signed differently,
    /// side by side (a line-based merge of two signings of one note).
    pub repeated: bool,
    /// Each kind of statement (`summary`, `task-verification`, `test-result/<phase>`) of which
    /// the annotated commit's own statements hold more than one, with the lines of their copies:
    /// two notes of it that differ (its task attested twice, differently, or a statement put
    /// beside its own), which no join of copies makes one. Empty when none.
    pub differ: Vec<(String, Vec<usize>)>,
}

/// The note `lines` (of the commit `annotated`) when it is several notes of ours joined line by
/// line ([`JoinedNote`]); `None` otherwise.
#[must_use]
pub fn joined_note(lines: &[ReadLine], annotated: ObjectId) -> Option<JoinedNote> {
    joined_distinct_note(lines, annotated, false)
}

/// [`joined_note`] of a note read one line of each bytes ([`read_distinct_lines`]); `repeated`:
/// it repeated lines byte for byte, which no note of ours does, so that it is at least two notes
/// joined even when its distinct lines are one note's.
#[must_use]
pub fn joined_distinct_note(lines: &[ReadLine], annotated: ObjectId, repeated: bool) -> Option<JoinedNote> {
    let tvs: Vec<&ReadLine> = lines.iter().filter(|l| matches!(l.body, Body::TaskVerification(_))).collect();
    let summaries = lines.iter().filter(|l| matches!(l.body, Body::Summary(_))).count();
    let notes = tvs.len().max(summaries).max(if repeated { 2 } else { 0 });
    if notes < 2 {
        return None;
    }
    let subjects: Vec<(&str, &str)> = tvs.iter().filter_map(|l| about(l)).collect();
    if !lines.iter().all(|l| about(l).is_some_and(|a| subjects.contains(&a))) {
        return None;
    }
    let mut commits: Vec<(String, Vec<usize>)> = Vec::new();
    for line in lines {
        let commit = about(line).map_or("", |(_, c)| c);
        match commits.iter_mut().find(|(c, _)| c == commit) {
            Some((_, numbers)) => numbers.push(line.number),
            None => commits.push((commit.to_owned(), vec![line.number])),
        }
    }
    let hex = annotated.to_string();
    let mut own: Vec<&ReadLine> = Vec::new();
    let mut statements: Vec<Vec<usize>> = Vec::new();
    for line in lines.iter().filter(|l| about(l).is_some_and(|(_, c)| c == hex)) {
        match own.iter().position(|first| first.payload_sha256 == line.payload_sha256) {
            Some(at) => statements[at].push(line.number),
            None => {
                own.push(line);
                statements.push(vec![line.number]);
            }
        }
    }
    let differ = differing(&own, &statements);
    Some(JoinedNote { notes, commits, statements, repeated: repeated || has_repeats(lines), differ })
}

/// Of `own`, a note's distinct statements (the lines of each statement's copies in
/// `statements`), each kind of which there is more than one, with the lines of their copies
/// ([`JoinedNote::differ`]).
fn differing(own: &[&ReadLine], statements: &[Vec<usize>]) -> Vec<(String, Vec<usize>)> {
    let mut kinds: Vec<(String, Vec<usize>, usize)> = Vec::new();
    for (line, copies) in own.iter().zip(statements) {
        // A test result whose phase does not read is no kind a note holds once.
        let Some(kind) =
            line.input_name().or_else(|| matches!(line.body, Body::Summary(_)).then(|| "summary".to_owned()))
        else {
            continue;
        };
        match kinds.iter_mut().find(|(k, ..)| *k == kind) {
            Some((_, numbers, count)) => {
                numbers.extend(copies);
                *count += 1;
            }
            None => kinds.push((kind, copies.clone(), 1)),
        }
    }
    kinds
        .into_iter()
        .filter(|(.., count)| *count > 1)
        .map(|(kind, mut numbers, _)| {
            numbers.sort_unstable();
            (kind, numbers)
        })
        .collect()
}

/// The task and commit a line is about: its one subject's name and `gitCommit`.
fn about(line: &ReadLine) -> Option<(&str, &str)> {
    match line.subject.as_slice() {
        [s] => Some((s.name.as_str(), s.git_commit()?)),
        _ => None,
    }
}

/// Whether a statement (its payload) is listed more than once in `lines`.
fn has_repeats(lines: &[ReadLine]) -> bool {
    lines.iter().enumerate().any(|(i, l)| lines[..i].iter().any(|e| e.payload_sha256 == l.payload_sha256))
}

/// Where in the documentation a note git joined line by line is described.
pub const JOINED_NOTES_DOC: &str = "docs/team.md, \"Notes git joined line by line\"";

impl JoinedNote {
    /// What the join is, for a message about the note of `annotated`: how many notes, which lines
    /// are about which commit, whether statements repeat, and how git makes such a note.
    #[must_use]
    pub fn described(&self, annotated: ObjectId) -> String {
        let hex = annotated.to_string();
        let parts: Vec<String> = self
            .commits
            .iter()
            .map(|(commit, numbers)| {
                let which =
                    if *commit == hex { "this commit".to_owned() } else { shown_if_clean(commit, 64) };
                format!("{} about {which}", numbered(numbers))
            })
            .collect();
        let repeated = if self.repeated { ", a statement listed more than once" } else { "" };
        format!(
            "{} notes joined line by line ({}{repeated}): git joins notes so in `git notes merge -s union` or `-s cat_sort_uniq`, and when a rebase copies notes onto a squash or fixup (notes.rewriteRef set, notes.rewriteMode=concatenate, git's default); see {JOINED_NOTES_DOC}",
            self.notes,
            parts.join(", ")
        )
    }

    /// The command that rewrites the note of `annotated` in `notes_ref` to its own note, the
    /// copies of each of its statements joined (`speccoder attest rejoin`), or `None` when no line
    /// is its own or its own lines are two notes that differ ([`Self::differ`]).
    #[must_use]
    pub fn rejoin_command(&self, notes_ref: &str, annotated: ObjectId) -> Option<String> {
        if self.statements.is_empty() || !self.differ.is_empty() {
            return None;
        }
        Some(bundle::rejoin_command(notes_ref, &annotated.to_string()))
    }

    /// The finding of the verifier (and the reason of `attest carry`) about the joined note of
    /// `annotated`: what it is, and how to keep the commit's own note, or, without one, to give it
    /// one again.
    #[must_use]
    pub fn finding(&self, annotated: ObjectId) -> Finding {
        Finding::new(CommitOutcome::Malformed, JOINED_NOTES, format!("the note is {}", self.said(annotated)))
    }

    /// What the joined note of `annotated` is and what to do, to follow "the note … is".
    #[must_use]
    pub fn said(&self, annotated: ObjectId) -> String {
        format!("{}; {}", self.described(annotated), self.remedy(bundle::NOTES_REF, annotated))
    }

    /// What to do about the joined note of `annotated` in `notes_ref`: keep its own note, its
    /// copies joined ([`Self::rejoin_command`]); or, when its own lines are two notes that differ,
    /// keep one by hand or attest again; or, when none is its own, remove it and carry or attest
    /// again.
    #[must_use]
    pub fn remedy(&self, notes_ref: &str, annotated: ObjectId) -> String {
        let remove = format!("git notes --ref={notes_ref} remove {annotated}");
        if let Some(command) = self.rejoin_command(notes_ref, annotated) {
            return format!(
                "keep this commit's own note, each of its statements once with every signature of its copies that verifies, joined as attest fetch joins two clones' notes: `{command}`"
            );
        }
        if !self.differ.is_empty() {
            let kinds: Vec<String> = self
                .differ
                .iter()
                .map(|(kind, numbers)| format!("{kind} at {}", numbered(numbers)))
                .collect();
            return format!(
                "this commit's own lines hold different statements of one kind ({}), different notes of it (its task attested more than once, differently, or a statement put beside its own), which no join makes one: keep the one you mean by hand (`git notes --ref={notes_ref} edit {annotated}`), or remove the note (`{remove}`) and attest the task again",
                kinds.join("; ")
            );
        }
        format!(
            "none of them is this commit's own note: remove it (`{remove}`), then run `speccoder attest carry` to re-issue the evidence of the commit it was rewritten from, or attest the task again"
        )
    }
}

/// The finding code of a note that is several notes joined line by line ([`JoinedNote`]).
pub const JOINED_NOTES: &str = "joined_notes";

/// `numbers` (ascending) as runs of consecutive numbers.
fn ranges(numbers: &[usize]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => runs.push((n, n)),
        }
    }
    runs
}

/// Line numbers for a person: `line 3`, `lines 1-5`, `lines 1, 3, 5`.
fn numbered(numbers: &[usize]) -> String {
    let runs: Vec<String> = ranges(numbers)
        .into_iter()
        .map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
        .collect();
    if numbers.len() == 1 { format!("line {}", runs[0]) } else { format!("lines {}", runs.join(", ")) }
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
    read_numbered(bundle::lines(note).enumerate().map(|(i, raw)| (i + 1, raw)), findings)
}

/// [`read_lines`], each line that repeats an earlier one byte for byte passed over (read once, by
/// its first number), and how many lines (not blank) were so passed over: a note git joined of
/// many copies of one note reads as that note's lines (`attest rejoin`).
pub fn read_distinct_lines(note: &[u8], findings: &mut Vec<Finding>) -> (Vec<ReadLine>, usize) {
    let mut seen = std::collections::HashSet::new();
    let mut repeated = 0;
    let distinct = bundle::lines(note).enumerate().filter_map(|(i, raw)| {
        if seen.insert(raw) {
            return Some((i + 1, raw));
        }
        repeated += usize::from(!raw.is_empty());
        None
    });
    let lines = read_numbered(distinct, findings);
    (lines, repeated)
}

/// [`read_lines`] over `raw_lines`, each with its number in the note.
fn read_numbered<'a>(
    mut raw_lines: impl Iterator<Item = (usize, &'a [u8])>,
    findings: &mut Vec<Finding>,
) -> Vec<ReadLine> {
    let mut lines = Vec::new();
    let (mut read, mut unreadable, mut last) = (0usize, 0usize, 0usize);
    while let Some((number, raw)) = raw_lines.next() {
        if read == LINES_READ {
            let why =
                format!("a tick writes at most 6 lines, and no more than {LINES_READ} of one note are read");
            findings.push(not_read(last, 1 + raw_lines.count(), &why));
            break;
        }
        (read, last) = (read + 1, number);
        match read_line(number, raw) {
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
                findings.push(not_read(number, rest, &why));
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
        return bad(BLANK_LINE, BLANK_LINE_SAID.into());
    }
    let envelope = match Envelope::parse(raw) {
        Ok(e) => e,
        Err(e @ EnvelopeError::TooManySignatures(_)) => return bad("too_many_signatures", e.to_string()),
        Err(e @ EnvelopeError::TooLarge { .. }) => return bad("too_large", said(&e)),
        Err(e @ EnvelopeError::SigstoreMemberTwice { .. }) => {
            return bad("malformed_sigstore_bundle", said(&e));
        }
        Err(e) => return bad("not_an_envelope", format!("not a DSSE envelope: {}", said(&e))),
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
        Err(e) => {
            return bad("not_a_statement", format!("the payload is not an in-toto statement: {}", said(&e)));
        }
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
                format!("predicate {} not supported by this verifier", shown_if_clean(other, SHOWN_MAX)),
            );
        }
        other => {
            return bad(
                "unknown_predicate_type",
                format!("a predicate type this verifier does not know: {}", shown_if_clean(other, SHOWN_MAX)),
            );
        }
    };
    match body {
        Ok(body) => {
            let payload_sha256 = sha256_hex(&envelope.payload);
            Ok(ReadLine { number, envelope, payload_sha256, subject, body })
        }
        Err(e) => bad(BAD_PREDICATE, format!("the {ptype} predicate does not read: {}", said(&e))),
    }
}

/// What a reader of the note said of a line it could not read, as a finding quotes it. Its words
/// repeat what it stumbled on (serde's `unknown variant `…``, `invalid type: string "…"`, a
/// field's name), which is the note's to write: the whole message is quoted only when it passes
/// the clean check, else what it holds is named.
fn said(e: &dyn std::fmt::Display) -> String {
    shown_if_clean(&e.to_string(), SHOWN_MAX)
}

/// The finding code of an empty line in a note.
pub const BLANK_LINE: &str = "blank_line";

/// What [`read_line`] says of an empty line, where it knows neither the commit nor the notes
/// reference ([`blank_lines_told`] adds what to do).
const BLANK_LINE_SAID: &str = "a blank line in the note; every line must be an envelope";

/// Each `blank_line` finding of `findings`, about the note of `annotated` in `notes_ref`, with
/// what to do: the command that removes the note's blank lines and keeps every other line as it
/// is (git's own `git notes add` drops a note's leading and trailing blank lines, and joins
/// doubled ones, but keeps one between two lines).
pub fn blank_lines_told(findings: &mut [Finding], notes_ref: &str, annotated: ObjectId) {
    for f in findings.iter_mut().filter(|f| f.code == BLANK_LINE && f.message == BLANK_LINE_SAID) {
        f.message = format!(
            "{BLANK_LINE_SAID}: remove the note's blank lines, keeping its other lines as they are: `git notes --ref={notes_ref} show {annotated} | sed '/^$/d' | git notes --ref={notes_ref} add -f -F - {annotated}`"
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dsse::Signature;
    use serde_json::{Value, json};

    const OWN: &str = "1111111111111111111111111111111111111111";
    const OLD: &str = "2222222222222222222222222222222222222222";

    /// Line `number` of a note: a statement of `kind` (`tv`, `summary`, `green`) about `u/T1` at
    /// `commit`, signed (with a signature nothing checks here) or not.
    fn line(number: usize, commit: &str, kind: &str, signed: bool) -> ReadLine {
        let (predicate_type, predicate): (&str, Value) = match kind {
            "tv" => (
                predicate::TYPE,
                serde_json::from_str(include_str!("../../fixtures/seed/tick.json")).unwrap(),
            ),
            "summary" => (
                summary::TYPE,
                json!({"verifier": {"id": "v"}, "timeVerified": "t", "resourceUri": "git:c",
                       "policy": {"uri": "u", "digest": {"sha256": "ef"}}, "inputAttestations": [],
                       "verificationResult": "PASSED", "verifiedLevels": []}),
            ),
            _ => (
                test_result::TYPE,
                json!({"result": "PASSED", "configuration": [{"name": "speccoder:phase/green", "digest": {"sha256": "aa"}}]}),
            ),
        };
        let statement = json!({"_type": STATEMENT_TYPE, "subject": [{"name": "u/T1", "digest": {"gitCommit": commit}}],
                               "predicateType": predicate_type, "predicate": predicate});
        let mut envelope = Envelope::unsigned(serde_json::to_vec(&statement).unwrap());
        if signed {
            envelope.signatures.push(Signature { keyid: "k".into(), sig: b"s".to_vec() });
        }
        read_line(number, &envelope.to_line()).unwrap()
    }

    fn own() -> ObjectId {
        OWN.parse().unwrap()
    }

    #[test]
    fn a_note_of_one_task_verification_and_one_summary_is_no_join_nor_is_one_about_a_commit_none_names() {
        let one = [line(1, OWN, "green", true), line(2, OWN, "tv", true), line(3, OWN, "summary", true)];
        assert_eq!(joined_note(&one, own()), None);
        let stray = [
            line(1, OWN, "tv", true),
            line(2, OLD, "tv", true),
            line(3, "3".repeat(40).as_str(), "green", true),
        ];
        assert_eq!(joined_note(&stray, own()), None, "a line about a commit no task verification is about");
    }

    #[test]
    fn a_note_concatenated_with_a_copy_of_another_commit_s_keeps_its_own_lines() {
        // As `git notes merge -s union` joins them: ours, a blank line, then the copy.
        let lines = [
            line(1, OWN, "green", true),
            line(2, OWN, "tv", true),
            line(3, OWN, "summary", true),
            line(5, OLD, "green", true),
            line(6, OLD, "tv", true),
            line(7, OLD, "summary", true),
        ];
        let joined = joined_note(&lines, own()).unwrap();
        assert_eq!(joined.notes, 2);
        assert_eq!(joined.commits, vec![(OWN.to_owned(), vec![1, 2, 3]), (OLD.to_owned(), vec![5, 6, 7])]);
        assert_eq!(joined.statements, vec![vec![1], vec![2], vec![3]]);
        assert!(!joined.repeated && joined.differ.is_empty());
        let said = joined.finding(own()).message;
        assert!(
            said.starts_with(
                "the note is 2 notes joined line by line (lines 1-3 about this commit, lines 5-7 about 2222"
            ),
            "{said}"
        );
        assert!(said.ends_with(&format!("`speccoder attest rejoin {OWN}`")), "{said}");
    }

    #[test]
    fn a_note_and_its_signed_copy_sorted_together_are_each_statement_s_copies() {
        // As `git notes merge -s cat_sort_uniq` leaves them: each line of both, sorted.
        let lines = [
            line(1, OWN, "green", false),
            line(2, OWN, "green", true),
            line(3, OWN, "summary", true),
            line(4, OWN, "summary", false),
            line(5, OWN, "tv", false),
            line(6, OWN, "tv", true),
        ];
        let joined = joined_note(&lines, own()).unwrap();
        assert_eq!((joined.notes, joined.repeated, joined.differ.is_empty()), (2, true, true));
        assert_eq!(
            joined.statements,
            vec![vec![1, 2], vec![3, 4], vec![5, 6]],
            "copies of one payload together"
        );
        let command = joined.rejoin_command("refs/notes/x", own()).unwrap();
        assert_eq!(command, format!("speccoder attest rejoin {OWN} --ref refs/notes/x"));
        assert!(
            joined
                .described(own())
                .contains("(lines 1-6 about this commit, a statement listed more than once)")
        );
    }

    #[test]
    fn a_join_of_other_commits_notes_alone_says_to_remove_it_and_carry() {
        let lines = [line(1, OLD, "tv", true), line(2, "4".repeat(40).as_str(), "tv", true)];
        let joined = joined_note(&lines, own()).unwrap();
        assert!(joined.statements.is_empty() && joined.rejoin_command(bundle::NOTES_REF, own()).is_none());
        let said = joined.finding(own()).message;
        assert!(said.contains(&format!("`git notes --ref={} remove {OWN}`", bundle::NOTES_REF)), "{said}");
        assert!(said.contains("speccoder attest carry"), "{said}");
    }

    #[test]
    fn own_lines_that_are_two_different_notes_are_told_so_and_no_rejoin_is_advised() {
        let mut other_tv = line(4, OWN, "tv", true);
        other_tv.payload_sha256 = "another attestation".into();
        let lines =
            [line(1, OWN, "green", true), line(2, OWN, "tv", true), line(3, OWN, "summary", true), other_tv];
        let joined = joined_note(&lines, own()).unwrap();
        assert_eq!(joined.differ, [("task-verification".to_owned(), vec![2, 4])]);
        assert!(joined.rejoin_command(bundle::NOTES_REF, own()).is_none());
        let said = joined.finding(own()).message;
        assert!(said.contains("its task attested more than once, differently"), "{said}");
        assert!(said.contains(&format!("`git notes --ref={} edit {OWN}`", bundle::NOTES_REF)), "{said}");
    }

    #[test]
    fn two_different_statements_of_one_phase_are_two_notes_of_it_and_no_rejoin_is_advised() {
        // A union merge of the commit's note with a copy whose green test result is another,
        // signed by anyone: not one note's copies, whatever its task verification and summary.
        let mut other_green = line(5, OWN, "green", true);
        other_green.payload_sha256 = "another green".into();
        let lines = [
            line(1, OWN, "green", true),
            line(2, OWN, "tv", true),
            line(3, OWN, "summary", true),
            other_green,
            line(6, OWN, "tv", false),
            line(7, OWN, "summary", false),
        ];
        let joined = joined_note(&lines, own()).unwrap();
        assert_eq!(joined.differ, [("test-result/green".to_owned(), vec![1, 5])]);
        assert_eq!(joined.rejoin_command(bundle::NOTES_REF, own()), None);
        let said = joined.finding(own()).message;
        assert!(
            said.contains("different statements of one kind (test-result/green at lines 1, 5)"),
            "{said}"
        );
    }

    #[test]
    fn a_note_of_many_copies_of_the_same_lines_reads_each_line_once_by_its_first_number() {
        let one = [line(1, OWN, "green", true), line(2, OWN, "tv", true), line(3, OWN, "summary", true)];
        let copy: Vec<u8> = bundle::join(&one.iter().map(|l| l.envelope.to_line()).collect::<Vec<_>>());
        let mut note = Vec::new();
        for _ in 0..LINES_READ {
            note.extend_from_slice(&copy);
            note.push(b'\n');
        }
        let mut findings = Vec::new();
        assert_eq!(read_lines(&note, &mut findings).len(), LINES_READ - LINES_READ / 4);
        assert_eq!(findings.last().unwrap().code, "lines_not_read", "{findings:?}");
        let mut findings = Vec::new();
        let (lines, repeated) = read_distinct_lines(&note, &mut findings);
        assert_eq!(lines.iter().map(|l| l.number).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(repeated, 3 * (LINES_READ - 1), "blank lines are no repeats");
        let blank: Vec<Option<usize>> = findings.iter().map(|f| f.line).collect();
        assert_eq!(blank, [Some(4)], "the first blank line, once: {findings:?}");
        // Its distinct lines are one note's; its repeats make it a join all the same.
        assert_eq!(joined_note(&lines, own()), None);
        let joined = joined_distinct_note(&lines, own(), true).unwrap();
        assert_eq!((joined.notes, joined.repeated), (2, true));
        assert_eq!(joined.statements, [vec![1], vec![2], vec![3]]);
        assert!(joined.rejoin_command(bundle::NOTES_REF, own()).is_some());
    }

    /// The finding of a line of `statement` (a JSON statement, unsigned).
    fn unread(statement: &Value) -> Finding {
        let line = Envelope::unsigned(serde_json::to_vec(statement).unwrap()).to_line();
        read_line(1, &line).unwrap_err()
    }

    #[test]
    fn a_value_of_a_line_that_does_not_read_is_quoted_only_when_clean() {
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        let statement = |predicate_type: &str, predicate: Value, subject: Value| json!({"_type": STATEMENT_TYPE, "subject": [subject], "predicateType": predicate_type, "predicate": predicate});
        let subject = json!({"name": "u/T1", "digest": {"gitCommit": OWN}});
        let green = |result: &str| json!({"result": result, "configuration": [{"name": "speccoder:phase/green", "digest": {"sha256": "aa"}}]});
        let tick: Value = serde_json::from_str(include_str!("../../fixtures/seed/tick.json")).unwrap();
        let with_red = |kind: &str| {
            let mut p = tick.clone();
            p["red"] = json!({"kind": kind});
            p
        };
        let newer = format!("{}v9", predicate::TYPE_FAMILY);
        let cases = |value: &str| {
            [
                statement(test_result::TYPE, green(value), subject.clone()),
                statement(predicate::TYPE, with_red(value), subject.clone()),
                statement(value, green("PASSED"), subject.clone()),
                statement(&format!("{newer}{value}"), green("PASSED"), subject.clone()),
                statement(test_result::TYPE, green("PASSED"), json!(value)),
                statement(test_result::TYPE, json!(value), subject.clone()),
            ]
        };
        for hostile in cases(token) {
            let f = unread(&hostile);
            assert!(!f.message.contains("R8x2Kq9LmZ4vT7nB3cW6"), "{}", f.message);
            assert!(f.message.contains("(a value not shown, as it holds a GitHub token)"), "{}", f.message);
        }
        let not_an_envelope = read_line(1, format!("{token:?}").as_bytes()).unwrap_err();
        assert_eq!(not_an_envelope.code, "not_an_envelope");
        assert!(!not_an_envelope.message.contains("R8x2Kq9LmZ4vT7nB3cW6"), "{}", not_an_envelope.message);
        for clean in cases("GREEN") {
            let f = unread(&clean);
            assert!(f.message.contains("GREEN"), "a clean value is still shown: {}", f.message);
        }
    }

    #[test]
    fn a_blank_line_is_told_with_the_command_that_removes_the_note_s_blank_lines() {
        let mut findings = Vec::new();
        let lines = read_lines(b"\n\n{}\n", &mut findings);
        assert!(lines.is_empty());
        let blank: Vec<&Finding> = findings.iter().filter(|f| f.code == BLANK_LINE).collect();
        assert_eq!(blank.len(), 2, "{findings:?}");
        blank_lines_told(&mut findings, "refs/notes/x", own());
        let told = &findings[0].message;
        assert!(told.starts_with("a blank line in the note; every line must be an envelope: "), "{told}");
        assert!(
            told.ends_with(&format!(
                "`git notes --ref=refs/notes/x show {OWN} | sed '/^$/d' | git notes --ref=refs/notes/x add -f -F - {OWN}`"
            )),
            "{told}"
        );
        assert_eq!(findings[0].line, Some(1));
    }
}
