//! The bundle: the envelopes of one task commit as JSON Lines, stored as that commit's git note,
//! and the rule by which two copies of one commit's bundle become one ([`merge`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::value::RawValue;

use crate::model::digest::sha256_hex;
use crate::model::dsse::{Envelope, MAX_LINE_BYTES, MAX_SIGNATURES, Signature, add_to_line};
use crate::model::shown::{Quoted, shell_word};

/// The notes reference that holds every bundle.
pub const NOTES_REF: &str = "refs/notes/speccoder";

/// The remote-tracking copy of [`NOTES_REF`] for `remote`, where `attest fetch` keeps the notes
/// it fetched from it (and `attest push` the notes it pushed) before they are merged into ours.
#[must_use]
pub fn tracking_notes_ref(remote: &str) -> String {
    format!("refs/notes/remotes/{remote}/{}", NOTES_REF.trim_start_matches("refs/notes/"))
}

/// Joins envelope lines into a bundle: each line followed by `\n`, nothing else.
#[must_use]
pub fn join<L: AsRef<[u8]>>(lines: &[L]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.as_ref().len() + 1).sum());
    for line in lines {
        out.extend_from_slice(line.as_ref());
        out.push(b'\n');
    }
    out
}

/// Splits a bundle into its lines. A final line without `\n` counts; an empty line is kept (as
/// an empty slice) so that a reader can report it instead of silently skipping it, except for the
/// single empty remainder after the last `\n`.
#[must_use]
pub fn split(bundle: &[u8]) -> Vec<&[u8]> {
    lines(bundle).collect()
}

/// The lines of a bundle as [`split`] gives them, one at a time: a reader that stops early
/// holds no list of every line of a large note.
pub fn lines(bundle: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = bundle.strip_suffix(b"\n").unwrap_or(bundle);
    (!body.is_empty()).then(|| body.split(|b| *b == b'\n')).into_iter().flatten()
}

/// The largest note read: a tick's lines ([`crate::model::dsse::MAX_LINE_BYTES`] each) with room
/// to spare. A note blob larger than this is refused from its size alone, never read.
pub const MAX_NOTE_BYTES: u64 = 2 << 20;

/// `speccoder attest rejoin <commit>`, with `--ref` when the notes are not in [`NOTES_REF`].
#[must_use]
pub fn rejoin_command(notes_ref: &str, commit: &str) -> String {
    let other =
        if notes_ref == NOTES_REF { String::new() } else { format!(" --ref {}", shell_word(notes_ref)) };
    format!("speccoder attest rejoin {}{other}", shell_word(commit))
}

/// The commands that keep one of each line of the note of `commit` in `notes_ref`, in their order:
/// a line repeated is the same bytes, so nothing is lost. What a note git joined over and over
/// (`git notes merge -s union` again and again) needs before `attest rejoin` reads it.
#[must_use]
pub fn one_of_each_line(notes_ref: &str, commit: &str) -> String {
    let (notes_ref, commit) = (shell_word(notes_ref), shell_word(commit));
    format!(
        "git notes --ref={notes_ref} show {commit} | awk '!seen[$0]++' | git notes --ref={notes_ref} add -f -F - {commit}"
    )
}

/// What a message advises for the note of `commit` in `notes_ref`, larger than [`MAX_NOTE_BYTES`]
/// and so not read: keep it, since removing it would lose its evidence; when it is copies of one
/// note git joined over and over, keep one of each of its lines ([`one_of_each_line`]) and rejoin
/// it ([`rejoin_command`]), which keeps each statement once with every signature; and how to see
/// what it holds. For `attest verify` and every writer that meets such a note alike.
#[must_use]
pub fn keep_too_large_note(notes_ref: &str, commit: &str) -> String {
    format!(
        "keep it, as removing it would lose the evidence it holds: when it is copies of one note git joined over and over (`git notes merge -s union` again and again), keep one of each of its lines (a repeat is the same bytes: nothing is lost) with `{}`, then run `{}`, which keeps each statement once with the signatures of its copies; to see what it holds, run `git notes --ref={} show {} | head -c 4096`",
        one_of_each_line(notes_ref, commit),
        rejoin_command(notes_ref, commit),
        shell_word(notes_ref),
        shell_word(commit),
    )
}

/// A note that would be larger than [`MAX_NOTE_BYTES`], or hold a line longer than
/// [`MAX_LINE_BYTES`]: no reader would take it, so it is not written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the note would be {size} bytes (its longest line {longest}), more than a reader takes ({MAX_NOTE_BYTES} bytes, {MAX_LINE_BYTES} a line): {}",
    .cause.as_deref().unwrap_or("what its statements hold is too large to be kept as a note")
)]
pub struct NoteTooLarge {
    /// The note's size.
    pub size: usize,
    /// Its longest line.
    pub longest: usize,
    /// What makes it large, and what to do, when the writer can tell ([`NoteTooLarge::because`]).
    pub cause: Option<String>,
}

impl NoteTooLarge {
    /// The same, saying what makes the note large and what to do about it.
    #[must_use]
    pub fn because(self, cause: String) -> NoteTooLarge {
        NoteTooLarge { cause: Some(cause), ..self }
    }
}

/// [`join`], refusing a note no reader would take ([`NoteTooLarge`]).
///
/// # Errors
/// [`NoteTooLarge`].
pub fn join_within_caps<L: AsRef<[u8]>>(lines: &[L]) -> Result<Vec<u8>, NoteTooLarge> {
    let note = join(lines);
    let longest = lines.iter().map(|l| l.as_ref().len()).max().unwrap_or(0);
    if note.len() as u64 > MAX_NOTE_BYTES || longest > MAX_LINE_BYTES {
        return Err(NoteTooLarge { size: note.len(), longest, cause: None });
    }
    Ok(note)
}

/// One statement of a bundle, as a conflict names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementName {
    /// The statement's `predicateType` as a message may quote it ([`Quoted`]: escaped, cut), `?`
    /// when the payload is not a statement.
    pub predicate_type: Quoted,
    /// sha256 of the payload: the digest a summary names the line by.
    pub sha256: String,
}

impl std::fmt::Display for StatementName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} sha256:{}", self.predicate_type, self.sha256)
    }
}

/// Why two copies of one commit's bundle cannot become one. Every text from either copy is
/// [`Quoted`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeConflict {
    /// The copies hold different statements: the task was attested twice, differently, or a copy
    /// lists a statement more often than the other.
    #[error(
        "the two notes hold different statements ({})",
        differences(&[
            ("only here", .ours_only),
            ("only there", .theirs_only),
            ("listed more often here", .ours_repeated),
            ("listed more often there", .theirs_repeated),
        ])
    )]
    Statements {
        /// Statements only in our copy.
        ours_only: Vec<StatementName>,
        /// Statements only in theirs.
        theirs_only: Vec<StatementName>,
        /// Statements both copies hold, ours more often (one name per extra copy).
        ours_repeated: Vec<StatementName>,
        /// Statements both copies hold, theirs more often (one name per extra copy).
        theirs_repeated: Vec<StatementName>,
    },
    /// Their copy no longer has the note ours has: a descendant of our notes removed it.
    #[error("their notes no longer hold this note (here: {})", list(.ours))]
    Removed {
        /// The statements of our note.
        ours: Vec<StatementName>,
    },
    /// A line of one copy is not an envelope, so it cannot be joined with anything.
    #[error("line {line} of {side} copy is not a DSSE envelope ({reason})")]
    Unreadable {
        /// `our` or `their`.
        side: &'static str,
        /// 1-based line number.
        line: usize,
        /// Why.
        reason: Quoted,
    },
    /// One statement's two envelopes differ in a field other than `signatures` (`payloadType`,
    /// `sigstore`, an unknown field, the payload's encoding): they are not the same envelope.
    #[error("the envelopes of {statement} differ in their `{field}` field")]
    Field {
        /// The statement.
        statement: StatementName,
        /// The envelope field.
        field: Quoted,
    },
    /// A signature of their copy cannot join ours.
    #[error("a signature their copy adds to {statement} cannot be added: {reason}")]
    Signature {
        /// The statement.
        statement: StatementName,
        /// Why.
        reason: Quoted,
    },
    /// Their copy adds more signatures than one envelope may carry.
    #[error(
        "their copy adds {theirs} signature(s) to {statement}, which carries {ours}: more than the {MAX_SIGNATURES} an envelope may carry"
    )]
    TooManySignatures {
        /// The statement.
        statement: StatementName,
        /// Our signatures.
        ours: usize,
        /// Theirs we do not have.
        theirs: usize,
    },
    /// The joined note would be larger than a reader takes.
    #[error(transparent)]
    TooLarge(#[from] NoteTooLarge),
}

/// The non-empty `(what, names)` of a [`MergeConflict::Statements`], joined for a person.
fn differences(parts: &[(&str, &Vec<StatementName>)]) -> String {
    let shown: Vec<String> = parts
        .iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(what, names)| format!("{what}: {}", list(names)))
        .collect();
    shown.join("; ")
}

fn list(names: &[StatementName]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    names.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The name of the statement an envelope carries.
#[must_use]
pub fn statement_name(envelope: &Envelope) -> StatementName {
    #[derive(serde::Deserialize)]
    struct Typed<'a> {
        #[serde(rename = "predicateType", borrow)]
        predicate_type: Option<std::borrow::Cow<'a, str>>,
    }
    let predicate_type = serde_json::from_slice::<Typed<'_>>(&envelope.payload)
        .ok()
        .and_then(|t| t.predicate_type)
        .map_or_else(|| Quoted::from("?"), |t| Quoted::from(t.as_ref()));
    StatementName { predicate_type, sha256: sha256_hex(&envelope.payload) }
}

/// What a join needs to know of a signature that only the other copy carries: it is checked by
/// someone who can check it (the model holds no keys and does no cryptography).
pub trait SignatureCheck {
    /// The key that made `sig`, as far as the signature itself tells it (an SSH signature's
    /// embedded key, an OpenPGP signature's issuer), without trust; `None` when it tells none.
    fn key(&self, sig: &Signature) -> Option<String>;

    /// Why a signature cannot join, as a sentence fragment.
    type Refusal: std::fmt::Display;

    /// `sig`, when it is well formed, verifies over `pae` and is by no key the caller's trust
    /// revokes: the key that made it, and whether the caller's trust accepts it; otherwise why
    /// not.
    ///
    /// # Errors
    /// Why the signature cannot join: malformed, not verifying, of a kind that cannot be checked,
    /// by a revoked key.
    fn verify(&self, pae: &[u8], sig: &Signature) -> Result<Verified, Self::Refusal>;
}

/// A signature another copy of a line adds that verifies over the line ([`SignatureCheck::verify`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The key that made it, as [`SignatureCheck::key`] names it.
    pub key: String,
    /// Whether the caller's trust accepts it: such signatures take a line's free places first.
    pub trusted: bool,
}

/// Joins two copies of one commit's bundle (ours, and theirs from another clone) into one.
///
/// Both must hold the same statements (an envelope is the same line when its payload bytes are),
/// and two copies of a line are joined only when they are the same envelope apart from
/// `signatures`: every other field (`payloadType` among them), known or not, byte for byte.
/// Each line keeps our signatures, in our order, and gains each of theirs that `check` finds
/// well formed and verifying over the line, by a key none of the line's signatures is by and that
/// the caller's trust does not revoke (a signature present in both is kept once), while the line
/// stays within [`MAX_SIGNATURES`]. So a line signed later in one clone replaces its unsigned copy
/// in the other, and nothing their copy adds can make a line of ours read or verify differently.
/// The result keeps our order of lines; a line that gains nothing keeps its bytes, one that gains
/// keeps every byte but the signature objects inserted, each as their copy writes it
/// ([`add_to_line`]), and identical copies come back unchanged.
///
/// # Errors
/// [`MergeConflict`] when the copies hold different statements, a line is not an envelope, the
/// envelopes of one line differ beyond their signatures, a signature of theirs cannot be added
/// (or would take the line past [`MAX_SIGNATURES`]), or the result would be larger than a reader
/// takes. Nothing is guessed.
pub fn merge<'a>(
    ours: &'a [u8],
    theirs: &'a [u8],
    check: &impl SignatureCheck,
) -> Result<Vec<u8>, MergeConflict> {
    if ours == theirs {
        return Ok(ours.to_vec());
    }
    let read = |side: &'static str, bundle: &'a [u8]| -> Result<Vec<LineCopy<'a>>, MergeConflict> {
        split(bundle)
            .into_iter()
            .enumerate()
            .map(|(i, raw)| {
                LineCopy::read(raw).map_err(|e| MergeConflict::Unreadable {
                    side,
                    line: i + 1,
                    reason: Quoted::from(e.to_string()),
                })
            })
            .collect()
    };
    let ours = read("our", ours)?;
    let mut theirs = read("their", theirs)?;
    // The statements (payloads) each copy holds and the other does not, as multisets: a statement
    // listed twice in one copy and once in the other is one only there. Copies of one statement
    // that differ in `payloadType`, or any other field, are a field conflict of the join.
    let mut unmatched: Vec<&Envelope> = theirs.iter().map(|t| &t.envelope).collect();
    let (mut ours_only, mut ours_repeated) = (Vec::new(), Vec::new());
    for e in ours.iter().map(|o| &o.envelope) {
        match unmatched.iter().position(|t| t.payload == e.payload) {
            Some(at) => {
                unmatched.swap_remove(at);
            }
            None if theirs.iter().any(|t| t.envelope.payload == e.payload) => {
                ours_repeated.push(statement_name(e))
            }
            None => ours_only.push(statement_name(e)),
        }
    }
    if !ours_only.is_empty() || !ours_repeated.is_empty() || !unmatched.is_empty() {
        let (repeated, only): (Vec<&Envelope>, Vec<&Envelope>) =
            unmatched.into_iter().partition(|t| ours.iter().any(|o| o.envelope.payload == t.payload));
        return Err(MergeConflict::Statements {
            ours_only,
            theirs_only: only.into_iter().map(statement_name).collect(),
            ours_repeated,
            theirs_repeated: repeated.into_iter().map(statement_name).collect(),
        });
    }
    let mut lines = Vec::with_capacity(ours.len());
    for line in ours {
        // Each of theirs is joined with one of ours, so a statement listed twice stays twice; a
        // copy of the same payload type first, so that only copies no such pairing joins differ.
        let ours = &line.envelope;
        let same = |t: &LineCopy<'_>| {
            t.envelope.payload_type == ours.payload_type && t.envelope.payload == ours.payload
        };
        let Some(at) = theirs
            .iter()
            .position(same)
            .or_else(|| theirs.iter().position(|t| t.envelope.payload == ours.payload))
        else {
            lines.push(line.raw.to_vec());
            continue;
        };
        let their_line = theirs.swap_remove(at);
        if line.raw == their_line.raw {
            lines.push(line.raw.to_vec());
            continue;
        }
        if let Some(field) = differing_field(line.raw, their_line.raw) {
            let statement = statement_name(&line.envelope);
            return Err(MergeConflict::Field { statement, field: Quoted::from(field) });
        }
        lines.push(join_signatures(&line, vec![(0, their_line)], check, None)?.0);
    }
    Ok(join_within_caps(&lines)?)
}

/// One copy of a line: its text, the envelope it reads as, and the text of each of its signature
/// objects ([`Envelope::parse_with_signature_texts`]).
struct LineCopy<'a> {
    raw: &'a [u8],
    envelope: Envelope,
    signatures: Vec<&'a str>,
}

impl<'a> LineCopy<'a> {
    fn read(raw: &'a [u8]) -> Result<Self, crate::model::dsse::EnvelopeError> {
        let (envelope, signatures) = Envelope::parse_with_signature_texts(raw)?;
        Ok(LineCopy { raw, envelope, signatures })
    }
}

/// Other copies of a line joined into one of them ([`join_copies`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopiesJoined {
    /// The line: the first copy's bytes when the others add nothing.
    pub line: Vec<u8>,
    /// How many signatures the other copies added.
    pub added: usize,
    /// What of the other copies was left out, and why, in the order found.
    pub left_out: Vec<NotJoined>,
}

/// What of another copy of a line a join left out ([`join_copies`]), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotJoined {
    /// The copy: its position among the other copies given.
    pub copy: usize,
    /// Which part of it.
    pub part: LeftPart,
    /// Why (from the copy's own text: quoted).
    pub reason: Quoted,
}

/// What of another copy a join left out ([`NotJoined`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeftPart {
    /// The copy whole: it cannot be joined, so none of its signatures was.
    Copy,
    /// One of its signatures.
    Signature {
        /// The key that made it, as the signature tells it ([`SignatureCheck::key`]).
        key: Option<String>,
        /// Whether the caller's trust accepts it.
        trusted: bool,
    },
}

/// `others`, further copies of the line `first` (the same statement), joined into it as [`merge`]
/// joins two clones' copies of a line (each signature checked by `check`, and added when it
/// verifies over the line by a key none of the line's signatures is by and the caller's trust
/// does not revoke), except that what cannot join is left out, saying what and why, and the rest
/// still joins: a signature that cannot, or a copy whose signed content (`payloadType`, the
/// payload, a Sigstore bundle) differs. Fields no signature covers (an envelope's unknown
/// members, the payload's base64 alphabet) neither stop a copy from joining nor come with it: the
/// line keeps `first`'s. Signatures the caller's trust accepts take the line's free places (up to
/// [`MAX_SIGNATURES`]) before the others, whichever copy carries them. So `attest rejoin` repairs
/// a note git joined line by line: its copies are one note's, side by side, not another clone's
/// word on it, and one broken signature or relayed field beside them must not keep the good ones
/// out.
///
/// # Errors
/// [`MergeConflict::Unreadable`]: `first` is not an envelope.
pub fn join_copies(
    first: &[u8],
    others: &[&[u8]],
    check: &impl SignatureCheck,
) -> Result<CopiesJoined, MergeConflict> {
    let line = LineCopy::read(first).map_err(|e| MergeConflict::Unreadable {
        side: "our",
        line: 1,
        reason: Quoted::from(e.to_string()),
    })?;
    let mut left_out = Vec::new();
    let mut copies = Vec::new();
    for (copy, raw) in others.iter().copied().enumerate() {
        let conflict = match LineCopy::read(raw) {
            Err(e) => {
                MergeConflict::Unreadable { side: "their", line: 1, reason: Quoted::from(e.to_string()) }
            }
            Ok(theirs) if theirs.envelope.payload != line.envelope.payload => MergeConflict::Statements {
                ours_only: vec![statement_name(&line.envelope)],
                theirs_only: vec![statement_name(&theirs.envelope)],
                ours_repeated: Vec::new(),
                theirs_repeated: Vec::new(),
            },
            Ok(theirs) => match differing_signed_field(&line.envelope, &theirs.envelope) {
                Some(field) => MergeConflict::Field {
                    statement: statement_name(&line.envelope),
                    field: Quoted::from(field),
                },
                None => {
                    copies.push((copy, theirs));
                    continue;
                }
            },
        };
        left_out.push(NotJoined { copy, part: LeftPart::Copy, reason: Quoted::from(conflict.to_string()) });
    }
    let (line, added) = join_signatures(&line, copies, check, Some(&mut left_out))?;
    Ok(CopiesJoined { line, added, left_out })
}

/// A signature of another copy that verifies over the line, to be added, with its object's text
/// as that copy writes it.
struct Candidate<'a> {
    copy: usize,
    sig: Signature,
    text: &'a str,
    key: String,
    trusted: bool,
}

/// Our copy of a line joined with the signatures of `copies` (each with its position among the
/// copies given), and how many they added: our line's text with each added signature object as
/// its copy writes it ([`add_to_line`]). Those the caller's trust accepts take the free places
/// first; the others what is left. With `left_out`, each signature that cannot join is left out
/// and said there; without, it refuses the join ([`merge`]: nothing is guessed).
fn join_signatures<'a>(
    ours: &LineCopy<'_>,
    copies: Vec<(usize, LineCopy<'a>)>,
    check: &impl SignatureCheck,
    mut left_out: Option<&mut Vec<NotJoined>>,
) -> Result<(Vec<u8>, usize), MergeConflict> {
    let line = &ours.envelope;
    let pae = line.pae();
    let mut keys: Vec<String> = line.signatures.iter().filter_map(|s| check.key(s)).collect();
    let mut found: Vec<Candidate<'a>> = Vec::new();
    for (copy, theirs) in copies {
        for (sig, text) in theirs.envelope.signatures.into_iter().zip(theirs.signatures) {
            if line.signatures.contains(&sig) || found.iter().any(|c| c.sig == sig) {
                continue;
            }
            let joins = match check.verify(&pae, &sig) {
                Ok(v) if keys.contains(&v.key) => {
                    let why = format!("the line carries a signature by {} already", v.key);
                    Err((Some(v.key), v.trusted, why))
                }
                Ok(v) => Ok(v),
                Err(why) => Err((check.key(&sig), false, why.to_string())),
            };
            match (joins, left_out.as_deref_mut()) {
                (Ok(Verified { key, trusted }), _) => {
                    keys.push(key.clone());
                    found.push(Candidate { copy, sig, text, key, trusted });
                }
                (Err((key, trusted, why)), Some(out)) => {
                    out.push(NotJoined {
                        copy,
                        part: LeftPart::Signature { key, trusted },
                        reason: Quoted::from(why),
                    });
                }
                (Err((_, _, why)), None) => {
                    let statement = statement_name(line);
                    return Err(MergeConflict::Signature { statement, reason: Quoted::from(why) });
                }
            }
        }
    }
    let room = MAX_SIGNATURES.saturating_sub(line.signatures.len());
    if found.len() > room {
        let Some(out) = left_out else {
            let (statement, ours, theirs) = (statement_name(line), line.signatures.len(), found.len());
            return Err(MergeConflict::TooManySignatures { statement, ours, theirs });
        };
        let (kept, past) = within_room(found, room);
        out.extend(past.into_iter().map(|c| NotJoined {
            copy: c.copy,
            part: LeftPart::Signature { key: Some(c.key), trusted: c.trusted },
            reason: Quoted::from(format!(
                "past the {MAX_SIGNATURES} signatures an envelope may carry{}",
                if c.trusted { "" } else { ", whose free places went first to those your trust accepts" }
            )),
        }));
        found = kept;
    }
    if found.is_empty() {
        return Ok((ours.raw.to_vec(), 0));
    }
    let texts: Vec<&str> = found.iter().map(|c| c.text).collect();
    // Never refused in practice: our line reads, each text is a signature object their line
    // reads, and the count is within the cap.
    let joined = add_to_line(ours.raw, &texts, None).map_err(|e| MergeConflict::Unreadable {
        side: "our",
        line: 1,
        reason: Quoted::from(e.to_string()),
    })?;
    Ok((joined, texts.len()))
}

/// Of `found` (in the order found), the `room` that join, those the caller's trust accepts first,
/// each part still in the order found; and the rest.
fn within_room(found: Vec<Candidate<'_>>, room: usize) -> (Vec<Candidate<'_>>, Vec<Candidate<'_>>) {
    let trusted = found.iter().filter(|c| c.trusted).count();
    let (mut trusted_room, mut other_room) = (room.min(trusted), room.saturating_sub(trusted));
    found.into_iter().partition(|c| {
        let left = if c.trusted { &mut trusted_room } else { &mut other_room };
        let joins = *left > 0;
        *left = left.saturating_sub(1);
        joins
    })
}

/// The first field of `theirs` whose value differs from `ours` among those a signature covers or
/// is (`payloadType`, whose PAE every signature signs, and the Sigstore bundle, which is a
/// signature); `None` when they differ in nothing else but fields no signature covers. Both carry
/// the same payload.
fn differing_signed_field(ours: &Envelope, theirs: &Envelope) -> Option<&'static str> {
    if ours.payload_type != theirs.payload_type {
        return Some("payloadType");
    }
    (ours.sigstore != theirs.sigstore).then_some("sigstore")
}

/// The first field (by name) in which two envelope lines differ, `signatures` aside, comparing
/// each field's JSON text byte for byte; `None` when they differ in `signatures` only. Both lines
/// read as envelopes already (so each is one JSON object, no field twice).
fn differing_field(a: &[u8], b: &[u8]) -> Option<String> {
    type Fields<'a> = BTreeMap<String, &'a RawValue>;
    let (Ok(a), Ok(b)) = (serde_json::from_slice::<Fields<'_>>(a), serde_json::from_slice::<Fields<'_>>(b))
    else {
        return Some("?".to_owned());
    };
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|name| *name != "signatures")
        .find(|name| a.get(*name).map(|v| v.get()) != b.get(*name).map(|v| v.get()))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_then_split_gives_the_lines_back() {
        let lines = [&b"{\"a\":1}"[..], b"{\"b\":2}"];
        let bundle = join(&lines);
        assert_eq!(bundle, b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(split(&bundle), lines);
    }

    #[test]
    fn blank_lines_are_kept_for_the_reader_to_report() {
        assert_eq!(split(b"a\n\nb"), [&b"a"[..], b"", b"b"]);
        assert!(split(b"").is_empty());
        assert!(split(b"\n").is_empty());
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;
    use crate::model::dsse::{RawJson, Signature};

    fn statement(n: u32) -> Vec<u8> {
        format!(r#"{{"_type":"https://in-toto.io/Statement/v1","predicateType":"https://example.com/p{n}"}}"#)
            .into_bytes()
    }

    /// A signature `good:<key>` verifies, made by `<key>`; `trusted:<key>` too, by a key the
    /// caller's trust accepts; `revoked:<key>` is by a key it revokes; anything else does not
    /// verify.
    struct Check;

    impl SignatureCheck for Check {
        fn key(&self, sig: &Signature) -> Option<String> {
            let text = std::str::from_utf8(&sig.sig).ok()?;
            let (_, key) = text.split_once(':')?;
            ["good:", "trusted:", "revoked:"].iter().any(|p| text.starts_with(p)).then(|| key.to_owned())
        }

        type Refusal = &'static str;

        fn verify(&self, _pae: &[u8], sig: &Signature) -> Result<Verified, &'static str> {
            if sig.sig.starts_with(b"revoked:") {
                return Err("the key is revoked");
            }
            let key = self.key(sig).ok_or("it does not verify")?;
            Ok(Verified { key, trusted: sig.sig.starts_with(b"trusted:") })
        }
    }

    fn merge(ours: &[u8], theirs: &[u8]) -> Result<Vec<u8>, MergeConflict> {
        super::merge(ours, theirs, &Check)
    }

    fn envelope(n: u32, sigs: &[&str]) -> Envelope {
        let mut e = Envelope::unsigned(statement(n));
        for s in sigs {
            // `<key>` verifies by an untrusted key; `trusted:<key>`, `revoked:<key>` as [`Check`] says.
            let sig = if s.contains(':') { (*s).to_owned() } else { format!("good:{s}") };
            e.signatures.push(Signature { keyid: format!("key-{s}"), sig: sig.into_bytes() });
        }
        e
    }

    fn bundle(envs: &[Envelope]) -> Vec<u8> {
        join(&envs.iter().map(Envelope::to_line).collect::<Vec<_>>())
    }

    fn lines(b: &[u8]) -> Vec<Envelope> {
        split(b).into_iter().map(|l| Envelope::parse(l).unwrap()).collect()
    }

    #[test]
    fn a_line_signed_later_replaces_its_unsigned_copy() {
        let unsigned = bundle(&[envelope(1, &[]), envelope(2, &[])]);
        let signed = bundle(&[envelope(1, &["a"]), envelope(2, &["a"])]);
        for (ours, theirs) in [(&unsigned, &signed), (&signed, &unsigned)] {
            let merged = merge(ours, theirs).unwrap();
            assert_eq!(merged, signed, "one envelope per payload, with the signature");
        }
    }

    #[test]
    fn signatures_of_both_copies_are_joined_and_each_kept_once() {
        let ours = bundle(&[envelope(1, &["a"]), envelope(2, &["a"])]);
        let theirs = bundle(&[envelope(2, &["b", "a"]), envelope(1, &["a"])]);
        let merged = lines(&merge(&ours, &theirs).unwrap());
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].payload, statement(1), "our order of lines");
        assert_eq!(merged[0].signatures, envelope(1, &["a"]).signatures);
        assert_eq!(merged[1].signatures, envelope(2, &["a", "b"]).signatures);
    }

    #[test]
    fn identical_copies_come_back_byte_for_byte() {
        // Not canonical (URL-safe base64, keys out of order): kept as it is.
        let raw = b"{\"signatures\":[],\"payloadType\":\"t\",\"payload\":\"e30\"}\n".to_vec();
        assert_eq!(merge(&raw, &raw).unwrap(), raw);
    }

    #[test]
    fn a_join_keeps_every_byte_of_our_line_and_adds_their_signature_as_they_wrote_it() {
        use base64::Engine as _;
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        let line = |sigs: &str| {
            format!(
                r#"{{"payloadType":"t", "payload":"{}","signatures":[{sigs}],"x":true}}"#,
                b64(&statement(1))
            )
        };
        let a = format!(r#"{{"sig":"{}","note":1,"keyid":"key-a"}}"#, b64(b"good:a"));
        let b = format!(r#"{{"keyid":"key-b","cert":"c","sig":"{}"}}"#, b64(b"good:b"));
        // Their copy of Ada's signature is written otherwise: the same signature, kept once.
        let a_again = envelope(1, &["a"]).signatures[0].json();
        let (ours, theirs) = (line(&a), line(&format!("{b},{a_again}")));
        let joined = line(&format!("{a},{b}")).into_bytes();
        assert_eq!(
            merge(format!("{ours}\n").as_bytes(), format!("{theirs}\n").as_bytes()).unwrap(),
            [joined.clone(), b"\n".to_vec()].concat()
        );
        let copy = super::join_copies(ours.as_bytes(), &[theirs.as_bytes()], &Check).unwrap();
        assert_eq!((copy.line, copy.added), (joined, 1));
    }

    #[test]
    fn different_statements_are_a_conflict_naming_them() {
        let ours = bundle(&[envelope(1, &[]), envelope(2, &[])]);
        let theirs = bundle(&[envelope(1, &["a"]), envelope(3, &[])]);
        match merge(&ours, &theirs) {
            Err(MergeConflict::Statements { ours_only, theirs_only, .. }) => {
                assert_eq!(ours_only.len(), 1);
                assert_eq!(ours_only[0].predicate_type.to_string(), "https://example.com/p2");
                assert_eq!(ours_only[0].sha256, sha256_hex(statement(2)));
                assert_eq!(theirs_only[0].predicate_type.to_string(), "https://example.com/p3");
            }
            other => panic!("{other:?}"),
        }
        let fewer = bundle(&[envelope(1, &[])]);
        assert!(matches!(merge(&ours, &fewer), Err(MergeConflict::Statements { .. })));
        let twice = bundle(&[envelope(1, &[]), envelope(2, &[]), envelope(2, &[])]);
        let conflict = merge(&ours, &twice).unwrap_err();
        let MergeConflict::Statements { ours_only, theirs_only, ours_repeated, theirs_repeated } = &conflict
        else {
            panic!("{conflict:?}")
        };
        assert!(ours_only.is_empty() && theirs_only.is_empty() && ours_repeated.is_empty());
        assert_eq!(theirs_repeated[0].sha256, sha256_hex(statement(2)), "the repeated one");
        let message = conflict.to_string();
        assert!(message.contains("(listed more often there: https://example.com/p2 sha256:"), "{message}");
        assert!(!message.contains("only"), "{message}");
    }

    #[test]
    fn copies_whose_payload_type_alone_differs_are_a_field_conflict_naming_it() {
        let ours = bundle(&[envelope(1, &["a"]), envelope(2, &[])]);
        let mut retyped = envelope(1, &["a"]);
        retyped.payload_type = "application/vnd.in-toto+json; x".into();
        let theirs = bundle(&[retyped, envelope(2, &[])]);
        for (a, b) in [(&ours, &theirs), (&theirs, &ours)] {
            match merge(a, b) {
                Err(MergeConflict::Field { statement: named, field }) => {
                    assert_eq!(field.to_string(), "payloadType");
                    assert_eq!(named.sha256, sha256_hex(statement(1)));
                }
                other => panic!("{other:?}"),
            }
        }
        // A statement listed under both types in each copy is joined type with type, as before.
        let mut both = envelope(1, &[]);
        both.payload_type = "application/vnd.in-toto+json; x".into();
        let ours = bundle(&[envelope(1, &[]), both.clone()]);
        let theirs = bundle(&[both, envelope(1, &[])]);
        assert_eq!(merge(&ours, &theirs).unwrap(), ours);
    }

    #[test]
    fn a_line_that_is_no_envelope_is_a_conflict_not_a_guess() {
        let ours = bundle(&[envelope(1, &[])]);
        match merge(&ours, b"not json\n") {
            Err(MergeConflict::Unreadable { side: "their", line: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn copies_that_differ_in_any_field_but_signatures_are_a_conflict() {
        let ours = bundle(&[envelope(1, &["x"])]);
        let mut keyless = envelope(1, &["x"]);
        keyless.sigstore = RawJson::from_value(&serde_json::json!({"bundle": 1})).ok();
        let mut other_field = envelope(1, &["x", "y"]);
        other_field.extra.insert("note".into(), RawJson::from_value(&serde_json::json!("hi")).unwrap());
        for theirs in [keyless, other_field] {
            let theirs = bundle(&[theirs]);
            let field = match merge(&ours, &theirs) {
                Err(MergeConflict::Field { field, .. }) => field.to_string(),
                other => panic!("{other:?}"),
            };
            assert!(field == "sigstore" || field == "note", "{field}");
            assert!(merge(&theirs, &ours).is_err(), "either way");
        }
        // The same value written otherwise is another field, byte for byte.
        let escaped = String::from_utf8(ours.clone()).unwrap().replacen("application/", "application\\/", 1);
        assert!(matches!(merge(&ours, escaped.as_bytes()), Err(MergeConflict::Field { .. })));
    }

    #[test]
    fn a_signature_that_does_not_verify_or_repeats_a_key_is_a_conflict() {
        let ours = bundle(&[envelope(1, &["a"])]);
        let mut bad = envelope(1, &["a"]);
        bad.signatures.push(Signature { keyid: "k".into(), sig: b"junk".to_vec() });
        assert!(matches!(merge(&ours, &bundle(&[bad])), Err(MergeConflict::Signature { .. })));
        let mut again = envelope(1, &["a"]);
        again.signatures[0].keyid = "another hint".into();
        assert!(matches!(merge(&ours, &bundle(&[again])), Err(MergeConflict::Signature { .. })));
    }

    #[test]
    fn a_join_never_goes_over_the_signature_cap() {
        let keys: Vec<String> = (0..MAX_SIGNATURES).map(|i| format!("k{i}")).collect();
        let ours = bundle(&[envelope(1, &keys[..10].iter().map(String::as_str).collect::<Vec<_>>())]);
        let theirs = bundle(&[envelope(1, &keys.iter().map(String::as_str).collect::<Vec<_>>())]);
        assert_eq!(lines(&merge(&ours, &theirs).unwrap())[0].signatures.len(), MAX_SIGNATURES);
        let others: Vec<String> = (0..12).map(|i| format!("other{i}")).collect();
        let mut more = envelope(1, &keys[..4].iter().map(String::as_str).collect::<Vec<_>>());
        more.signatures
            .extend(envelope(1, &others.iter().map(String::as_str).collect::<Vec<_>>()).signatures);
        assert!(matches!(
            merge(&ours, &bundle(&[more])),
            Err(MergeConflict::TooManySignatures { ours: 10, theirs: 12, .. })
        ));
    }

    /// `others` joined into `first` ([`join_copies`]).
    fn join_copies(first: &[u8], others: &[&Envelope]) -> CopiesJoined {
        let lines: Vec<Vec<u8>> = others.iter().map(|e| e.to_line()).collect();
        let others: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
        super::join_copies(first, &others, &Check).unwrap()
    }

    fn signature(copy: usize, key: &str, trusted: bool, reason: &str) -> NotJoined {
        let part = LeftPart::Signature { key: Some(key.to_owned()), trusted };
        NotJoined { copy, part, reason: Quoted::from(reason) }
    }

    #[test]
    fn a_copy_joined_into_another_leaves_out_each_signature_that_cannot_join_and_joins_the_rest() {
        let ours = envelope(1, &["a"]).to_line();
        let mut theirs = envelope(1, &["a", "b"]);
        theirs.signatures.insert(0, Signature { keyid: "k".into(), sig: b"junk".to_vec() });
        let joined = join_copies(&ours, &[&theirs]);
        assert_eq!(Envelope::parse(&joined.line).unwrap().signatures, envelope(1, &["a", "b"]).signatures);
        assert_eq!(joined.added, 1);
        let junk = NotJoined {
            copy: 0,
            part: LeftPart::Signature { key: None, trusted: false },
            reason: Quoted::from("it does not verify"),
        };
        assert_eq!(joined.left_out, [junk]);
        // Where a fetch refuses the copy whole.
        assert!(matches!(
            merge(&bundle(&[envelope(1, &["a"])]), &bundle(&[theirs])),
            Err(MergeConflict::Signature { .. })
        ));
        let nothing = join_copies(&ours, &[&envelope(1, &[])]);
        assert_eq!((nothing.line, nothing.added), (ours.clone(), 0), "our bytes, as they were");
        let other = join_copies(&ours, &[&envelope(2, &["b"])]);
        assert_eq!((other.line, other.added), (ours, 0));
        assert_eq!(other.left_out.len(), 1);
        assert_eq!(other.left_out[0].part, LeftPart::Copy, "another statement: none of its signatures");
        assert!(other.left_out[0].reason.to_string().starts_with("the two notes hold different statements"));
    }

    #[test]
    fn a_copy_joined_into_another_stops_at_the_signature_cap_and_names_each_left_out() {
        let keys: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
        let ours = envelope(1, &keys.iter().map(String::as_str).collect::<Vec<_>>()).to_line();
        let others: Vec<String> = (0..12).map(|i| format!("other{i}")).collect();
        let theirs: Vec<&str> = keys[..4].iter().chain(&others).map(String::as_str).collect();
        let joined = join_copies(&ours, &[&envelope(1, &theirs)]);
        assert_eq!(Envelope::parse(&joined.line).unwrap().signatures.len(), MAX_SIGNATURES);
        assert_eq!(joined.added, MAX_SIGNATURES - 10);
        let past = "past the 16 signatures an envelope may carry, whose free places went first to those your trust accepts";
        let expected: Vec<NotJoined> = others[6..].iter().map(|k| signature(0, k, false, past)).collect();
        assert_eq!(joined.left_out, expected);
    }

    #[test]
    fn signatures_the_trust_accepts_take_the_free_places_first_whichever_copy_carries_them() {
        // Ada's line, an attacker's copy with 15 more signatures by keys nobody trusts, and
        // Carol's copy with her trusted approval, after it.
        let ours = envelope(1, &["trusted:ada"]);
        let eves: Vec<String> = (0..15).map(|i| format!("eve{i}")).collect();
        let attacker: Vec<&str> =
            std::iter::once("trusted:ada").chain(eves.iter().map(String::as_str)).collect();
        let carol = envelope(1, &["trusted:ada", "trusted:carol"]);
        let joined = join_copies(&ours.to_line(), &[&envelope(1, &attacker), &carol]);
        let signatures = Envelope::parse(&joined.line).unwrap().signatures;
        assert_eq!(signatures.len(), MAX_SIGNATURES);
        assert!(signatures.iter().any(|s| s.sig == b"trusted:carol"), "Carol's approval joined");
        // The rest in the order found: the attacker's first 14, then Carol's.
        assert_eq!(signatures[14].sig, b"good:eve13");
        assert_eq!(signatures[15].sig, b"trusted:carol");
        let past = "past the 16 signatures an envelope may carry, whose free places went first to those your trust accepts";
        assert_eq!(joined.left_out, [signature(0, "eve14", false, past)]);
        // Trusted ones past the cap are named as such.
        let full: Vec<String> = (0..16).map(|i| format!("trusted:k{i}")).collect();
        let full = envelope(1, &full.iter().map(String::as_str).collect::<Vec<_>>()).to_line();
        let joined = join_copies(&full, &[&envelope(1, &["trusted:carol"])]);
        let past = "past the 16 signatures an envelope may carry";
        assert_eq!(joined.left_out, [signature(0, "carol", true, past)]);
        // A fetch refuses what a line cannot carry, whatever the trust: nothing is guessed.
        let fifteen: Vec<String> = (0..15).map(|i| format!("u{i}")).collect();
        let many = envelope(1, &fifteen.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(matches!(
            merge(&bundle(&[envelope(1, &["trusted:ada", "x"])]), &bundle(&[many])),
            Err(MergeConflict::TooManySignatures { ours: 2, theirs: 15, .. })
        ));
    }

    #[test]
    fn a_signature_by_a_key_the_trust_revokes_is_left_out_by_a_rejoin_and_refused_by_a_fetch() {
        let ours = envelope(1, &["trusted:ada"]);
        let theirs = envelope(1, &["trusted:ada", "revoked:eve", "bob"]);
        let joined = join_copies(&ours.to_line(), &[&theirs]);
        assert_eq!(
            Envelope::parse(&joined.line).unwrap().signatures,
            envelope(1, &["trusted:ada", "bob"]).signatures
        );
        assert_eq!(joined.left_out, [signature(0, "eve", false, "the key is revoked")]);
        match merge(&bundle(&[ours]), &bundle(&[theirs])) {
            Err(MergeConflict::Signature { reason, .. }) => {
                assert_eq!(reason.to_string(), "the key is revoked")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn copies_that_differ_only_in_fields_no_signature_covers_join_and_keep_the_first_s_fields() {
        let plain = envelope(1, &["trusted:ada", "trusted:carol"]);
        let mut relayed = envelope(1, &["trusted:ada", "trusted:bob"]);
        relayed.extra.insert("x".into(), RawJson::from_value(&serde_json::json!(1)).unwrap());
        let joined = join_copies(&plain.to_line(), &[&relayed]);
        assert!(joined.left_out.is_empty(), "{:?}", joined.left_out);
        let line = Envelope::parse(&joined.line).unwrap();
        assert_eq!(line.signatures, envelope(1, &["trusted:ada", "trusted:carol", "trusted:bob"]).signatures);
        assert!(line.extra.is_empty(), "no field of the relayed copy comes with its signatures");
        let joined = join_copies(&relayed.to_line(), &[&plain]);
        assert!(
            Envelope::parse(&joined.line).unwrap().extra.contains_key("x"),
            "the first copy's own fields"
        );
        // A fetch still joins only copies alike in every field.
        assert!(matches!(
            merge(&bundle(std::slice::from_ref(&plain)), &bundle(&[relayed])),
            Err(MergeConflict::Field { .. })
        ));
        // What a signature covers, or is, still keeps a copy out whole.
        let mut retyped = envelope(1, &["trusted:bob"]);
        retyped.payload_type = "text/plain".into();
        let mut keyless = envelope(1, &["trusted:bob"]);
        keyless.sigstore = RawJson::from_value(&serde_json::json!({"bundle": 1})).ok();
        let joined = join_copies(&plain.to_line(), &[&retyped, &keyless]);
        assert_eq!(joined.added, 0);
        let fields: Vec<(usize, &LeftPart, String)> =
            joined.left_out.iter().map(|n| (n.copy, &n.part, n.reason.to_string())).collect();
        assert_eq!(fields.len(), 2);
        assert!(
            fields[0].2.ends_with("differ in their `payloadType` field") && fields[0].1 == &LeftPart::Copy
        );
        assert!(fields[1].2.ends_with("differ in their `sigstore` field") && fields[1].0 == 1);
    }

    #[test]
    fn a_copy_whose_sigstore_bundle_names_a_member_twice_is_never_joined() {
        let mut keyless = envelope(1, &["trusted:bob"]);
        keyless.sigstore = RawJson::from_value(&serde_json::json!({"mediaType": "m"})).ok();
        let sound = keyless.to_line();
        let text = String::from_utf8(sound.clone()).unwrap();
        let twice = text.replace(r#"{"mediaType":"m"}"#, r#"{"mediaType":"x","mediaType":"m"}"#);
        assert_ne!(text, twice);
        // `attest fetch`: the copies do not join, whichever side's bundle says two things.
        let signed = {
            let mut more = keyless.clone();
            more.signatures.push(envelope(1, &["trusted:eve"]).signatures[0].clone());
            more.to_line()
        };
        for (ours, theirs) in [(twice.as_bytes(), signed.as_slice()), (signed.as_slice(), twice.as_bytes())] {
            match merge(ours, theirs) {
                Err(MergeConflict::Unreadable { reason, .. }) => {
                    assert!(reason.to_string().contains("the member `mediaType` is named twice"), "{reason}");
                }
                other => panic!("{other:?}"),
            }
        }
        // `attest rejoin`: such a copy is left out, and one kept as the line is refused.
        let joined = join_copies(&sound, &[&Envelope::parse(&signed).unwrap()]);
        assert_eq!(joined.added, 1);
        let left = super::join_copies(&sound, &[twice.as_bytes()], &Check).unwrap();
        assert_eq!((left.added, left.left_out.len()), (0, 1), "{left:?}");
        assert!(left.left_out[0].reason.to_string().contains("named twice"), "{left:?}");
        assert!(matches!(
            super::join_copies(twice.as_bytes(), &[&sound], &Check),
            Err(MergeConflict::Unreadable { .. })
        ));
    }

    #[test]
    fn a_predicate_type_with_a_newline_is_named_escaped() {
        let payload = br#"{"predicateType":"x\n::warning::y"}"#.to_vec();
        let name = statement_name(&Envelope::unsigned(payload));
        assert_eq!(name.predicate_type.to_string(), "x\\n::warning::y");
    }
}
