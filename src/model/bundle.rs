//! The bundle: the envelopes of one task commit as JSON Lines, stored as that commit's git note,
//! and the rule by which two copies of one commit's bundle become one ([`merge`]).

use crate::model::digest::sha256_hex;
use crate::model::dsse::Envelope;

/// The notes reference that holds every bundle.
pub const NOTES_REF: &str = "refs/notes/speccoder";

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

/// One statement of a bundle, as a conflict names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementName {
    /// The statement's `predicateType` (`?` when the payload is not a statement).
    pub predicate_type: String,
    /// sha256 of the payload: the digest a summary names the line by.
    pub sha256: String,
}

impl std::fmt::Display for StatementName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} sha256:{}", self.predicate_type, self.sha256)
    }
}

/// Why two copies of one commit's bundle cannot become one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeConflict {
    /// The copies hold different statements: the task was attested twice, differently.
    #[error(
        "the two notes hold different statements (only here: {}; only there: {})",
        list(.ours_only),
        list(.theirs_only)
    )]
    Statements {
        /// Statements only in our copy.
        ours_only: Vec<StatementName>,
        /// Statements only in theirs.
        theirs_only: Vec<StatementName>,
    },
    /// A line of one copy is not an envelope, so it cannot be joined with anything.
    #[error("line {line} of {side} copy is not a DSSE envelope ({reason})")]
    Unreadable {
        /// `our` or `their`.
        side: &'static str,
        /// 1-based line number.
        line: usize,
        /// Why.
        reason: String,
    },
    /// One statement carries two different values of the same envelope field (two Sigstore
    /// bundles, or an unknown field set differently), which one envelope cannot hold.
    #[error("the envelopes of {statement} disagree on their `{field}` field")]
    Field {
        /// The statement.
        statement: StatementName,
        /// The envelope field.
        field: String,
    },
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
    let predicate_type = serde_json::from_slice::<serde_json::Value>(&envelope.payload)
        .ok()
        .and_then(|v| v.get("predicateType").and_then(|t| t.as_str()).map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned());
    StatementName { predicate_type, sha256: sha256_hex(&envelope.payload) }
}

/// Joins two copies of one commit's bundle (ours, and theirs from another clone) into one.
///
/// Both must hold the same statements: an envelope is the same line when its payload type and
/// payload bytes are. Each line becomes one envelope carrying the union of both copies'
/// signatures (a signature present in both is kept once), so a line signed later in one clone
/// replaces its unsigned copy in the other. The result keeps our order of lines; identical copies
/// come back unchanged.
///
/// # Errors
/// [`MergeConflict`] when the copies hold different statements, a line is not an envelope, or
/// one line's envelopes disagree on a field that cannot hold both values. Nothing is guessed.
pub fn merge(ours: &[u8], theirs: &[u8]) -> Result<Vec<u8>, MergeConflict> {
    if ours == theirs {
        return Ok(ours.to_vec());
    }
    let read = |side: &'static str, bundle: &[u8]| -> Result<Vec<(Vec<u8>, Envelope)>, MergeConflict> {
        split(bundle)
            .into_iter()
            .enumerate()
            .map(|(i, raw)| match Envelope::parse(raw) {
                Ok(envelope) => Ok((raw.to_vec(), envelope)),
                Err(e) => Err(MergeConflict::Unreadable { side, line: i + 1, reason: e.to_string() }),
            })
            .collect()
    };
    let mut ours = read("our", ours)?;
    let mut theirs: Vec<Envelope> = read("their", theirs)?.into_iter().map(|(_, e)| e).collect();
    let key = |e: &Envelope| (e.payload_type.clone(), e.payload.clone());
    let mut ours_keys: Vec<_> = ours.iter().map(|(_, e)| key(e)).collect();
    let mut theirs_keys: Vec<_> = theirs.iter().map(key).collect();
    ours_keys.sort();
    theirs_keys.sort();
    if ours_keys != theirs_keys {
        let only = |a: &mut dyn Iterator<Item = &Envelope>, b: &[(String, Vec<u8>)]| -> Vec<StatementName> {
            a.filter(|e| !b.contains(&key(e))).map(statement_name).collect()
        };
        return Err(MergeConflict::Statements {
            ours_only: only(&mut ours.iter().map(|(_, e)| e), &theirs_keys),
            theirs_only: only(&mut theirs.iter(), &ours_keys),
        });
    }
    let mut lines = Vec::with_capacity(ours.len());
    for (raw, mut line) in ours.drain(..) {
        // Each of theirs is joined with one of ours, so a statement listed twice stays twice.
        let Some(at) = theirs.iter().position(|t| key(t) == key(&line)) else {
            lines.push(raw);
            continue;
        };
        let before = line.clone();
        join_envelope(&mut line, theirs.swap_remove(at))?;
        // A line that gained nothing keeps its bytes exactly.
        lines.push(if line == before { raw } else { line.to_line() });
    }
    Ok(join(&lines))
}

/// Adds `other`'s signatures and fields to `line` (the same statement).
fn join_envelope(line: &mut Envelope, other: Envelope) -> Result<(), MergeConflict> {
    let conflict = |field: &str, line: &Envelope| MergeConflict::Field {
        statement: statement_name(line),
        field: field.to_owned(),
    };
    for sig in other.signatures {
        if !line.signatures.contains(&sig) {
            line.signatures.push(sig);
        }
    }
    match (&line.sigstore, other.sigstore) {
        (_, None) => {}
        (None, Some(bundle)) => line.sigstore = Some(bundle),
        (Some(ours), Some(theirs)) if *ours == theirs => {}
        (Some(_), Some(_)) => return Err(conflict("sigstore", line)),
    }
    for (name, value) in other.extra {
        match line.extra.get(&name) {
            None => {
                line.extra.insert(name, value);
            }
            Some(ours) if *ours == value => {}
            Some(_) => return Err(conflict(&name, line)),
        }
    }
    Ok(())
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
    use crate::model::dsse::Signature;

    fn statement(n: u32) -> Vec<u8> {
        format!(r#"{{"_type":"https://in-toto.io/Statement/v1","predicateType":"https://example.com/p{n}"}}"#)
            .into_bytes()
    }

    fn envelope(n: u32, sigs: &[&str]) -> Envelope {
        let mut e = Envelope::unsigned(statement(n));
        for s in sigs {
            e.signatures.push(Signature { keyid: format!("key-{s}"), sig: s.as_bytes().to_vec() });
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
        let mut theirs = Envelope::parse(&raw[..raw.len() - 1]).unwrap().to_line();
        theirs.push(b'\n');
        assert_eq!(merge(&raw, &theirs).unwrap(), raw, "a line that gains nothing keeps its bytes");
    }

    #[test]
    fn different_statements_are_a_conflict_naming_them() {
        let ours = bundle(&[envelope(1, &[]), envelope(2, &[])]);
        let theirs = bundle(&[envelope(1, &["a"]), envelope(3, &[])]);
        match merge(&ours, &theirs) {
            Err(MergeConflict::Statements { ours_only, theirs_only }) => {
                assert_eq!(ours_only.len(), 1);
                assert_eq!(ours_only[0].predicate_type, "https://example.com/p2");
                assert_eq!(ours_only[0].sha256, sha256_hex(statement(2)));
                assert_eq!(theirs_only[0].predicate_type, "https://example.com/p3");
            }
            other => panic!("{other:?}"),
        }
        let fewer = bundle(&[envelope(1, &[])]);
        assert!(matches!(merge(&ours, &fewer), Err(MergeConflict::Statements { .. })));
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
    fn two_different_sigstore_bundles_on_one_line_are_a_conflict() {
        let mut a = envelope(1, &["x"]);
        a.sigstore = Some(serde_json::json!({"bundle": 1}));
        let mut b = envelope(1, &["y"]);
        b.sigstore = Some(serde_json::json!({"bundle": 2}));
        assert!(matches!(
            merge(&bundle(&[a.clone()]), &bundle(&[b])),
            Err(MergeConflict::Field { field, .. }) if field == "sigstore"
        ));
        let unsigned = envelope(1, &[]);
        assert_eq!(lines(&merge(&bundle(&[unsigned]), &bundle(&[a.clone()])).unwrap()), [a]);
    }
}
