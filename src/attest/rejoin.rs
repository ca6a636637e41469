//! `speccoder attest rejoin REV`: the repair of a note git joined line by line ([`JoinedNote`]:
//! `git notes merge -s union` or `-s cat_sort_uniq`, a rebase under
//! `notes.rewriteMode=concatenate`). It keeps the commit's own note: each of its statements once,
//! the copy that holds best under its user's trust ([`signatures::standing`], never the one that
//! merely carries most signatures; of equals, one without fields no signature covers, then the
//! one with fewest signatures) joined with every other copy as `attest fetch` joins two clones'
//! copies of a line ([`bundle::join_copies`], each signature checked by [`RemoteSignatures`]:
//! those the trust accepts take the free places first), a signature that does not verify over
//! the line, or whose key the trust revokes, left out and said; lines about other commits (a copy
//! git made on a rewrite) are dropped, and a line repeated byte for byte is read once. A line
//! that holds under the trust on its own is never made to fail by what is joined to it. Nothing
//! is signed; the note is written through the notes reference's compare-and-swap, and the joined
//! note stays in its history.

use serde::Serialize;
use time::OffsetDateTime;

use crate::attest::remote_signatures::RemoteSignatures;
use crate::attest::{NoteNotWritten, commit_object_sha256, listed};
use crate::check::line::{
    BLANK_LINE, JoinedNote, ReadLine, joined_distinct_note, read_distinct_lines, read_lines,
};
use crate::check::signatures::{self, Standing};
use crate::check::trust::{SignatureTime, SignatureTrust, TrustError, TrustFiles};
use crate::exit::{Class, ExitClass};
use crate::git::{GitError, ObjectId, Repo, UpdateNoteError};
use crate::model::bundle::{self, LeftPart, MAX_NOTE_BYTES, NoteTooLarge};
use crate::model::dsse::Envelope;
use crate::model::shown::{in_line, one_line};

/// The largest note `attest rejoin` reads: four notes' worth. A note git joined line by line is
/// several notes, each up to [`MAX_NOTE_BYTES`] (a union of two clones' notes is at most twice
/// one); the rejoined note is one, within it.
pub const REJOIN_READS: u64 = 4 * MAX_NOTE_BYTES;

/// What `attest rejoin` was asked to do.
#[derive(Debug, Clone)]
pub struct RejoinRequest {
    /// The commit whose note to repair.
    pub rev: String,
    /// The notes reference the note is in (`refs/notes/speccoder`, or a copy of a remote's).
    pub notes_ref: String,
    /// The user's trust, by which the copies are judged.
    pub trust: TrustFiles,
    /// When SSH keys must have been trusted.
    pub signature_time: SignatureTime,
}

/// Why `attest rejoin` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum RejoinError {
    /// The revision is unknown, or the repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The user's trust cannot be loaded.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// The user trusts no signer, so no copy can be told from another.
    #[error(
        "rejoin keeps, of the copies of each statement, the one that holds under your trust, and you trust no signer: nothing was written. {} then run `speccoder attest rejoin` again",
        crate::check::trust::CONFIGURE_TRUST
    )]
    NoTrust,
    /// The commit has no note.
    #[error("{} has no note in {notes_ref}; nothing to rejoin", crate::attest::rev_named(.rev, .commit))]
    NoNote {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
        /// The notes reference.
        notes_ref: String,
    },
    /// The note is larger than a rejoin reads: it was not read.
    #[error(
        "the note of {commit} in {notes_ref} is {size} bytes, more than the {REJOIN_READS} (four notes' worth) rejoin reads, so it was not read and nothing was written: when it is copies of one note joined over and over, keep one of each of its lines (a repeat is the same bytes: nothing is lost) with `{}`, then run `{}` again",
        bundle::one_of_each_line(.notes_ref, &.commit.to_string()),
        bundle::rejoin_command(.notes_ref, &.commit.to_string())
    )]
    TooLargeToRead {
        /// The commit.
        commit: ObjectId,
        /// The notes reference.
        notes_ref: String,
        /// The note's size, from its object's header.
        size: u64,
    },
    /// Lines of the note cannot be read: a rejoin would drop them.
    #[error(
        "the note of {commit} holds lines that cannot be read, which a rejoin would drop; nothing was written: remove them by hand (`git notes --ref={notes_ref} edit {commit}`) if they are not evidence, then rejoin again:\n{findings}"
    )]
    Unreadable {
        /// The commit.
        commit: ObjectId,
        /// The notes reference.
        notes_ref: String,
        /// Each finding on a line of its own, indented.
        findings: String,
    },
    /// The note is joined, but not of copies of one note of the commit.
    #[error("the note of {commit} is {said}; nothing was written")]
    NotOneNote {
        /// The commit.
        commit: ObjectId,
        /// What it is and what to do ([`JoinedNote::described`], [`JoinedNote::remedy`]).
        said: String,
    },
    /// The rejoined note would be larger than a reader takes.
    #[error("{0}; nothing was written")]
    NoteTooLarge(#[from] NoteTooLarge),
    /// The note could not be written.
    #[error(transparent)]
    Note(#[from] NoteNotWritten),
}

impl ExitClass for RejoinError {
    fn class(&self) -> Class {
        match self {
            RejoinError::Git(e) => e.class(),
            RejoinError::Trust(e) => e.class(),
            RejoinError::Note(e) => e.class(),
            RejoinError::NoTrust | RejoinError::NoteTooLarge(_) => Class::Config,
            RejoinError::TooLargeToRead { .. }
            | RejoinError::Unreadable { .. }
            | RejoinError::NotOneNote { .. } => Class::DoesNotHold,
            RejoinError::NoNote { .. } => Class::GitPrecondition,
        }
    }
}

/// One statement of the rejoined note.
#[derive(Debug, Clone, Serialize)]
pub struct RejoinedLine {
    /// Its line in the rejoined note (1-based).
    pub line: usize,
    /// The lines of the joined note that were copies of it.
    pub copies: Vec<usize>,
    /// The copy kept first, the one that holds best under the trust.
    pub kept: usize,
    /// The signatures it carries now.
    pub signatures: usize,
    /// How many of them the other copies added.
    pub added: usize,
}

/// What of a copy was not joined.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    /// The copy's line in the joined note.
    pub line: usize,
    /// What of it: one of its signatures, the copy whole (none of its signatures joined), or
    /// every signature joined to the kept copy at `line` (they would make it fail).
    pub what: LeftOutPart,
    /// The key that made the signature left out, as it tells it (`null` when it tells none, or
    /// for more than one signature).
    #[serde(serialize_with = "in_line")]
    pub key: Option<String>,
    /// Whether your trust accepts that signature.
    pub trusted: bool,
    /// Why (a signature's own text: quoted).
    #[serde(serialize_with = "in_line")]
    pub reason: String,
}

/// What of a copy [`LeftOut`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeftOutPart {
    /// One signature.
    Signature,
    /// The copy whole.
    Copy,
    /// Every signature the other copies would have added to the kept one.
    Joined,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (line, reason) = (self.line, one_line(&self.reason));
        match self.what {
            LeftOutPart::Signature => {
                let by = self.key.as_deref().map(|k| format!(" by {}", one_line(k))).unwrap_or_default();
                let trusted = if self.trusted { ", which your trust accepts" } else { "" };
                write!(f, "a signature of line {line}{by}{trusted}: {reason}")
            }
            LeftOutPart::Copy => write!(f, "line {line} whole, none of its signatures: {reason}"),
            LeftOutPart::Joined => {
                write!(f, "every signature the other copies would add to line {line}: {reason}")
            }
        }
    }
}

/// What `attest rejoin` did.
#[derive(Debug, Clone, Serialize)]
pub struct RejoinReport {
    /// `attest rejoin`.
    pub command: &'static str,
    /// The commit.
    pub commit: String,
    /// Where the note is.
    #[serde(serialize_with = "in_line")]
    pub notes_ref: String,
    /// The note was not joined line by line: nothing changed.
    pub unchanged: bool,
    /// Each statement of the rejoined note.
    pub lines: Vec<RejoinedLine>,
    /// The lines dropped: about another commit.
    pub dropped: Vec<usize>,
    /// How many lines repeated an earlier line byte for byte (read once, by its first number).
    pub repeated: usize,
    /// What of the copies was not joined (a signature, a copy whole), and why.
    pub left_out: Vec<LeftOut>,
    /// What still keeps the rejoined note from holding under the trust, each at its line.
    #[serde(serialize_with = "in_line")]
    pub unheld: Vec<String>,
}

impl std::fmt::Display for RejoinReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short = self.commit.get(..12).unwrap_or(&self.commit);
        if self.unchanged {
            return writeln!(
                f,
                "attest rejoin {short}: the note in {} is not several notes joined line by line; nothing changed",
                self.notes_ref
            );
        }
        writeln!(
            f,
            "attest rejoin {short}: one note of {} statements in {}",
            self.lines.len(),
            self.notes_ref
        )?;
        for l in &self.lines {
            let copies = l.copies.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
            writeln!(
                f,
                "  line {}: of lines {copies}, line {} kept; {} signature(s), {} joined from the other copies",
                l.line, l.kept, l.signatures, l.added
            )?;
        }
        if !self.dropped.is_empty() {
            let dropped = self.dropped.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
            writeln!(f, "  dropped: lines {dropped} (about another commit)")?;
        }
        if self.repeated > 0 {
            writeln!(
                f,
                "  repeated: {} line(s), each the same bytes as an earlier one, read once",
                self.repeated
            )?;
        }
        for l in &self.left_out {
            writeln!(f, "  left out: {l}")?;
        }
        for why in &self.unheld {
            writeln!(f, "  warning: the note does not hold under your trust yet: {}", one_line(why))?;
        }
        writeln!(
            f,
            "  the joined note stays in the history of {}; `speccoder attest push` shares this one",
            self.notes_ref
        )
    }
}

/// Rejoins the note of `req.rev` (see the module documentation).
///
/// # Errors
/// Unknown revision (2), no trust or an unusable trust file (13), no note (14), a note larger than
/// [`REJOIN_READS`], with lines that cannot be read, or that is not copies of one note of the
/// commit (26), a rejoined note larger than a reader takes (13), or a note that cannot be written.
pub fn rejoin(repo: &Repo, req: &RejoinRequest) -> Result<RejoinReport, RejoinError> {
    let commit = repo.rev_parse_peeled(&req.rev)?;
    let info = repo.commit(commit)?;
    // The commit whose note is repaired must not provide the trust it is judged by, nor a
    // revision that builds on it.
    let builds_on = |c| c == commit || repo.is_ancestor(commit, c).unwrap_or(true);
    let trust = SignatureTrust::load(repo, &req.trust, info.tree, &builds_on)?;
    if trust.is_empty() {
        return Err(RejoinError::NoTrust);
    }
    let at = req.signature_time.at(info.committer.seconds);
    let judge = Judge {
        trust: &trust,
        at,
        commit_sha256: commit_object_sha256(repo, commit)?,
        check: RemoteSignatures { trust: &trust, now: OffsetDateTime::now_utc(), at },
    };
    let notes_ref = req.notes_ref.as_str();
    let mut done = None;
    repo.update_note_within(
        notes_ref,
        commit,
        REJOIN_READS,
        |current| -> Result<Option<Vec<u8>>, RejoinError> {
            let current = current.ok_or_else(|| RejoinError::NoNote {
                rev: req.rev.clone(),
                commit,
                notes_ref: notes_ref.to_owned(),
            })?;
            let rejoined = judge.rejoined(notes_ref, commit, current)?;
            let written = rejoined.note.clone().unwrap_or_else(|| current.to_vec());
            done = Some(rejoined);
            Ok(Some(written))
        },
    )
    .map_err(|e| match e {
        UpdateNoteError::Compute(inner) => inner,
        UpdateNoteError::Read(GitError::NoteTooLarge { size, .. }) => {
            RejoinError::TooLargeToRead { commit, notes_ref: notes_ref.to_owned(), size }
        }
        UpdateNoteError::Read(source) | UpdateNoteError::Git(source) => {
            NoteNotWritten { commit: commit.to_string(), source }.into()
        }
    })?;
    let done = done.unwrap_or_default();
    let unheld = done.note.as_deref().map(|note| judge.unheld(note)).unwrap_or_default();
    Ok(RejoinReport {
        command: "attest rejoin",
        commit: commit.to_string(),
        notes_ref: notes_ref.to_owned(),
        unchanged: done.note.is_none(),
        lines: done.lines,
        dropped: done.dropped,
        repeated: done.repeated,
        left_out: done.left_out,
        unheld,
    })
}

/// A note rejoined ([`Judge::rejoined`]).
#[derive(Debug, Default)]
struct Rejoined {
    /// The rejoined note; `None` when the note was not joined line by line.
    note: Option<Vec<u8>>,
    lines: Vec<RejoinedLine>,
    dropped: Vec<usize>,
    repeated: usize,
    left_out: Vec<LeftOut>,
}

/// What the copies of a line are judged and joined by.
struct Judge<'t> {
    trust: &'t SignatureTrust,
    at: OffsetDateTime,
    commit_sha256: String,
    check: RemoteSignatures<'t>,
}

impl Judge<'_> {
    /// How well `env` holds under the trust.
    fn standing(&self, env: &Envelope) -> Standing {
        signatures::standing(env, self.trust, self.at, &self.commit_sha256)
    }

    /// The note of `annotated` (in `notes_ref`) rejoined: each of its own statements once, its
    /// best copy joined with the others.
    fn rejoined(&self, notes_ref: &str, annotated: ObjectId, note: &[u8]) -> Result<Rejoined, RejoinError> {
        let mut findings = Vec::new();
        let (lines, repeated) = read_distinct_lines(note, &mut findings);
        let Some(joined) = joined_distinct_note(&lines, annotated, repeated > 0) else {
            return Ok(Rejoined::default());
        };
        findings.retain(|f| f.code != BLANK_LINE);
        if !findings.is_empty() {
            let (commit, notes_ref) = (annotated, notes_ref.to_owned());
            return Err(RejoinError::Unreadable { commit, notes_ref, findings: listed(&findings) });
        }
        if joined.rejoin_command(notes_ref, annotated).is_none() {
            let said = format!("{}; {}", joined.described(annotated), joined.remedy(notes_ref, annotated));
            return Err(RejoinError::NotOneNote { commit: annotated, said });
        }
        let raw = bundle::split(note);
        let mut rejoined = Rejoined { dropped: dropped(&joined, annotated), repeated, ..Rejoined::default() };
        let mut out: Vec<Vec<u8>> = Vec::with_capacity(joined.statements.len());
        for copies in &joined.statements {
            let (line, mut row) = self.joined_copies(copies, &lines, &raw, &mut rejoined.left_out);
            row.line = out.len() + 1;
            out.push(line);
            rejoined.lines.push(row);
        }
        rejoined.note = Some(bundle::join_within_caps(&out)?);
        Ok(rejoined)
    }

    /// The copies of one statement (their line numbers in `lines`, read from `raw`) as one line:
    /// the copy kept ([`Judge::kept`]), every other joined to it; what is left out said in
    /// `left_out`. What is joined never makes a line that held on its own fail.
    fn joined_copies(
        &self,
        copies: &[usize],
        lines: &[ReadLine],
        raw: &[&[u8]],
        left_out: &mut Vec<LeftOut>,
    ) -> (Vec<u8>, RejoinedLine) {
        let (kept, standing) = self.kept(copies, lines);
        let others: Vec<usize> = copies.iter().copied().filter(|n| *n != kept).collect();
        let other_lines: Vec<&[u8]> = others.iter().map(|n| raw[n - 1]).collect();
        let (mut line, mut added, mut said) =
            match bundle::join_copies(raw[kept - 1], &other_lines, &self.check) {
                Ok(joined) => {
                    let said = joined.left_out.into_iter().map(|n| left_out_of(others[n.copy], n)).collect();
                    (joined.line, joined.added, said)
                }
                // The kept copy was read as an envelope: never so.
                Err(e) => (raw[kept - 1].to_vec(), 0, vec![whole(kept, LeftOutPart::Joined, e.to_string())]),
            };
        let fails_now = || !Envelope::parse(&line).is_ok_and(|e| self.standing(&e).holds());
        if added > 0 && standing.is_some_and(Standing::holds) && fails_now() {
            let why = format!(
                "line {kept} holds under your trust on its own, and joined to it they would make it fail: none was joined"
            );
            said = vec![whole(kept, LeftOutPart::Joined, why)];
            line = raw[kept - 1].to_vec();
            added = 0;
        }
        left_out.extend(said);
        let signatures = Envelope::parse(&line).map_or(0, |e| e.signatures.len());
        (line, RejoinedLine { line: 0, copies: copies.to_vec(), kept, signatures, added })
    }

    /// Of the copies of one statement, the one kept, and how it holds: the one that holds best
    /// under the trust; of equals, one without fields no signature covers (which a relay may have
    /// added), then the one with fewest signatures (anyone can add one), then the first.
    fn kept(&self, copies: &[usize], lines: &[ReadLine]) -> (usize, Option<Standing>) {
        let judged = |n: usize| {
            let envelope = lines.iter().find(|l| l.number == n).map(|l| &l.envelope);
            let standing = envelope.map(|e| self.standing(e));
            let plain = envelope.is_some_and(|e| e.extra.is_empty());
            let fewest = std::cmp::Reverse(envelope.map_or(usize::MAX, |e| e.signatures.len()));
            (standing, plain, fewest)
        };
        let mut best = (copies[0], judged(copies[0]));
        for &n in &copies[1..] {
            let this = judged(n);
            if this > best.1 {
                best = (n, this);
            }
        }
        (best.0, best.1.0)
    }

    /// What keeps `note` from holding under the trust, as `attest verify` checks its lines'
    /// signatures.
    fn unheld(&self, note: &[u8]) -> Vec<String> {
        let lines = read_lines(note, &mut Vec::new());
        signatures::unheld(&lines, self.trust, self.at, &self.commit_sha256)
            .into_iter()
            .map(|f| match f.line {
                Some(n) => format!("line {n}: {} ({})", f.message, f.code),
                None => format!("{} ({})", f.message, f.code),
            })
            .collect()
    }
}

/// The lines of `joined` about a commit other than `annotated`.
fn dropped(joined: &JoinedNote, annotated: ObjectId) -> Vec<usize> {
    let hex = annotated.to_string();
    let mut numbers: Vec<usize> =
        joined.commits.iter().filter(|(c, _)| *c != hex).flat_map(|(_, n)| n.iter().copied()).collect();
    numbers.sort_unstable();
    numbers
}

/// What a join left out of the copy at line `line` ([`bundle::NotJoined`]).
fn left_out_of(line: usize, n: bundle::NotJoined) -> LeftOut {
    match n.part {
        LeftPart::Copy => whole(line, LeftOutPart::Copy, n.reason.to_string()),
        LeftPart::Signature { key, trusted } => {
            LeftOut { line, what: LeftOutPart::Signature, key, trusted, reason: n.reason.to_string() }
        }
    }
}

/// More than one signature of line `line` left out, `what`, and why.
fn whole(line: usize, what: LeftOutPart, reason: String) -> LeftOut {
    LeftOut { line, what, key: None, trusted: false, reason }
}
