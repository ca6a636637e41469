//! The bundle: the envelopes of one task commit as JSON Lines, stored as that commit's git note,
//! and the rule by which two copies of one commit's bundle become one ([`merge`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::value::RawValue;

use crate::model::digest::sha256_hex;
use crate::model::dsse::{Envelope, MAX_LINE_BYTES, MAX_SIGNATURES, Signature, add_to_line};
use crate::model::shown::Quoted;

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

    /// The key that made `sig`, when `sig` is well formed and verifies over `pae`; otherwise why
    /// not.
    ///
    /// # Errors
    /// Why the signature cannot join: malformed, not verifying, of a kind that cannot be checked.
    fn verify(&self, pae: &[u8], sig: &Signature) -> Result<String, Self::Refusal>;
}

/// Joins two copies of one commit's bundle (ours, and theirs from another clone) into one.
///
/// Both must hold the same statements (an envelope is the same line when its payload bytes are),
/// and two copies of a line are joined only when they are the same envelope apart from
/// `signatures`: every other field (`payloadType` among them), known or not, byte for byte.
/// Each line keeps our signatures, in our order, and gains each of theirs that `check` finds
/// well formed and verifying over the line, by a key none of the line's signatures is by (a
/// signature present in both is kept once), while the line stays within [`MAX_SIGNATURES`]. So a line signed later
/// in one clone replaces its unsigned copy in the other, and nothing their copy adds can make a
/// line of ours read or verify differently. The result keeps our order of lines; a line that
/// gains nothing keeps its bytes, one that gains keeps every byte but the signature objects
/// inserted, each as their copy writes it ([`add_to_line`]), and identical copies come back
/// unchanged.
///
/// # Errors
/// [`MergeConflict`] when the copies hold different statements, a line is not an envelope, the
/// envelopes of one line differ beyond their signatures, a signature of theirs cannot be added,
/// or the result would be larger than a reader takes. Nothing is guessed.
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
        lines.push(join_signatures(line, their_line, check, None)?.0);
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

/// A second copy of a line joined into the first ([`join_copy`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyJoined {
    /// The line: the first copy's bytes when the second adds nothing.
    pub line: Vec<u8>,
    /// How many signatures the second copy added.
    pub added: usize,
    /// Why each signature of the second copy that the first does not carry was left out.
    pub left_out: Vec<Quoted>,
}

/// `theirs`, a second copy of the line `ours` (the same statement), joined into it as [`merge`]
/// joins two clones' copies of a line (the same envelope apart from `signatures`, each signature
/// of theirs checked by `check` and added when it verifies over the line by a key none of the
/// line's signatures is by, up to [`MAX_SIGNATURES`]), except that a signature of theirs that
/// cannot join is left out, saying why, and the others still join. So `attest rejoin` repairs a
/// note git joined line by line: its copies are one note's, side by side, not another clone's
/// word on it, and one broken signature beside them must not keep the good ones out.
///
/// # Errors
/// [`MergeConflict`]: a copy is not an envelope, the two are not the same statement, or they
/// differ in a field other than `signatures`.
pub fn join_copy(
    ours: &[u8],
    theirs: &[u8],
    check: &impl SignatureCheck,
) -> Result<CopyJoined, MergeConflict> {
    let read = |side: &'static str, raw| {
        LineCopy::read(raw).map_err(|e| MergeConflict::Unreadable {
            side,
            line: 1,
            reason: Quoted::from(e.to_string()),
        })
    };
    let (line, their_line) = (read("our", ours)?, read("their", theirs)?);
    if line.envelope.payload != their_line.envelope.payload {
        return Err(MergeConflict::Statements {
            ours_only: vec![statement_name(&line.envelope)],
            theirs_only: vec![statement_name(&their_line.envelope)],
            ours_repeated: Vec::new(),
            theirs_repeated: Vec::new(),
        });
    }
    let mut left_out = Vec::new();
    let (line, added) = join_signatures(line, their_line, check, Some(&mut left_out))?;
    Ok(CopyJoined { line, added, left_out })
}

/// Our copy of a line joined with theirs, and how many signatures theirs added: our line's text
/// with each added signature object as their copy writes it ([`add_to_line`]). With `left_out`,
/// each signature of theirs that cannot join is left out and said there; without, it refuses the
/// join ([`merge`]: nothing is guessed).
fn join_signatures(
    ours: LineCopy<'_>,
    theirs: LineCopy<'_>,
    check: &impl SignatureCheck,
    mut left_out: Option<&mut Vec<Quoted>>,
) -> Result<(Vec<u8>, usize), MergeConflict> {
    if ours.raw == theirs.raw {
        return Ok((ours.raw.to_vec(), 0));
    }
    let line = &ours.envelope;
    let statement = || statement_name(line);
    if let Some(field) = differing_field(ours.raw, theirs.raw) {
        return Err(MergeConflict::Field { statement: statement(), field: Quoted::from(field) });
    }
    let pae = line.pae();
    let mut keys: Vec<String> = line.signatures.iter().filter_map(|s| check.key(s)).collect();
    let mut added: Vec<(&Signature, &str)> = Vec::new();
    for (sig, text) in theirs.envelope.signatures.iter().zip(&theirs.signatures) {
        if line.signatures.contains(sig) || added.iter().any(|(a, _)| *a == sig) {
            continue;
        }
        let joins = match check.verify(&pae, sig) {
            Ok(signer) if keys.contains(&signer) => {
                Err(format!("the line carries a signature by {signer} already"))
            }
            Ok(signer) => Ok(signer),
            Err(why) => Err(why.to_string()),
        };
        match (joins, left_out.as_deref_mut()) {
            (Ok(signer), _) => {
                keys.push(signer);
                added.push((sig, text));
            }
            (Err(reason), Some(out)) => out.push(Quoted::from(reason)),
            (Err(reason), None) => {
                return Err(MergeConflict::Signature {
                    statement: statement(),
                    reason: Quoted::from(reason),
                });
            }
        }
    }
    let room = MAX_SIGNATURES.saturating_sub(line.signatures.len());
    if added.len() > room {
        let Some(out) = left_out else {
            return Err(MergeConflict::TooManySignatures {
                statement: statement(),
                ours: line.signatures.len(),
                theirs: added.len(),
            });
        };
        out.push(Quoted::from(format!(
            "{} signature(s) past the {MAX_SIGNATURES} an envelope may carry",
            added.len() - room
        )));
        added.truncate(room);
    }
    let texts: Vec<&str> = added.iter().map(|(_, text)| *text).collect();
    // Never refused in practice: our line reads, each text is a signature object their line
    // reads, and the count is within the cap.
    let joined = add_to_line(ours.raw, &texts, None).map_err(|e| MergeConflict::Unreadable {
        side: "our",
        line: 1,
        reason: Quoted::from(e.to_string()),
    })?;
    Ok((joined, texts.len()))
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

    /// A signature `good:<key>` verifies, made by `<key>`; anything else does not.
    struct Check;

    impl SignatureCheck for Check {
        fn key(&self, sig: &Signature) -> Option<String> {
            std::str::from_utf8(&sig.sig).ok()?.strip_prefix("good:").map(str::to_owned)
        }

        type Refusal = &'static str;

        fn verify(&self, _pae: &[u8], sig: &Signature) -> Result<String, &'static str> {
            self.key(sig).ok_or("it does not verify")
        }
    }

    fn merge(ours: &[u8], theirs: &[u8]) -> Result<Vec<u8>, MergeConflict> {
        super::merge(ours, theirs, &Check)
    }

    fn envelope(n: u32, sigs: &[&str]) -> Envelope {
        let mut e = Envelope::unsigned(statement(n));
        for s in sigs {
            e.signatures.push(Signature { keyid: format!("key-{s}"), sig: format!("good:{s}").into_bytes() });
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
        let copy = join_copy(ours.as_bytes(), theirs.as_bytes(), &Check).unwrap();
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

    #[test]
    fn a_copy_joined_into_another_leaves_out_each_signature_that_cannot_join_and_joins_the_rest() {
        let ours = envelope(1, &["a"]).to_line();
        let mut theirs = envelope(1, &["a", "b"]);
        theirs.signatures.insert(0, Signature { keyid: "k".into(), sig: b"junk".to_vec() });
        let joined = join_copy(&ours, &theirs.to_line(), &Check).unwrap();
        assert_eq!(Envelope::parse(&joined.line).unwrap().signatures, envelope(1, &["a", "b"]).signatures);
        assert_eq!(joined.added, 1);
        assert_eq!(joined.left_out.len(), 1, "{:?}", joined.left_out);
        assert_eq!(joined.left_out[0].to_string(), "it does not verify");
        // Where a fetch refuses the copy whole.
        assert!(matches!(
            merge(&bundle(&[envelope(1, &["a"])]), &bundle(&[theirs])),
            Err(MergeConflict::Signature { .. })
        ));
        let nothing = join_copy(&ours, &envelope(1, &[]).to_line(), &Check).unwrap();
        assert_eq!((nothing.line, nothing.added), (ours.clone(), 0), "our bytes, as they were");
        assert!(matches!(
            join_copy(&ours, &envelope(2, &["b"]).to_line(), &Check),
            Err(MergeConflict::Statements { .. })
        ));
    }

    #[test]
    fn a_copy_joined_into_another_stops_at_the_signature_cap_and_says_so() {
        let keys: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
        let ours = envelope(1, &keys.iter().map(String::as_str).collect::<Vec<_>>()).to_line();
        let others: Vec<String> = (0..12).map(|i| format!("other{i}")).collect();
        let theirs: Vec<&str> = keys[..4].iter().chain(&others).map(String::as_str).collect();
        let joined = join_copy(&ours, &envelope(1, &theirs).to_line(), &Check).unwrap();
        assert_eq!(Envelope::parse(&joined.line).unwrap().signatures.len(), MAX_SIGNATURES);
        assert_eq!(joined.added, MAX_SIGNATURES - 10);
        assert!(
            joined.left_out[0].to_string().starts_with("6 signature(s) past the 16"),
            "{:?}",
            joined.left_out
        );
    }

    #[test]
    fn a_predicate_type_with_a_newline_is_named_escaped() {
        let payload = br#"{"predicateType":"x\n::warning::y"}"#.to_vec();
        let name = statement_name(&Envelope::unsigned(payload));
        assert_eq!(name.predicate_type.to_string(), "x\\n::warning::y");
    }
}
