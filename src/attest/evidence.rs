//! Reading the evidence file and the red output it points at: both are hostile input, so sizes
//! are bounded, the shape is checked field by field, and every error names the file and field.
//! An error quotes a value of the evidence (a field's name, serde's word on a value, a task, a
//! path) only when it passes the clean check ([`unless_leaking`]): a refused file is checked no
//! further, and its values would reach a terminal and a CI log.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::input::{self, InputError};
use crate::model::clean;
use crate::model::evidence::{Evidence, EvidenceRuleError, HeldOutRun, RedRun, SuiteRun};
use crate::model::unique_members::UniqueMembers;

/// The largest evidence file we read.
pub const EVIDENCE_MAX_BYTES: u64 = 8 * 1024 * 1024;
/// The most JSON objects and arrays an evidence file may hold: a parsed one takes about 2 KB, so
/// 8 MiB of `{}` would take over a gigabyte.
pub const EVIDENCE_MAX_CONTAINERS: usize = 65_536;
/// The largest red output we read (its digest covers all of it).
pub const RED_OUTPUT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Why the evidence cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum EvidenceError {
    /// The file cannot be read (missing, a symbolic link, not a regular file, too large).
    #[error("the evidence file: {0}")]
    Read(InputError),
    /// The file does not match the evidence schema.
    #[error("the evidence file {path} does not match schema/evidence.schema.json at `{field}`: {message}")]
    Schema {
        /// The file.
        path: PathBuf,
        /// The JSON path of the offending field (`phases[1].result`), `.` for the top.
        field: String,
        /// What is wrong there.
        message: String,
    },
    /// A rule beyond the schema is broken.
    #[error("the evidence file {path}: {rule}")]
    Rule {
        /// The file.
        path: PathBuf,
        /// The rule.
        rule: EvidenceRuleError,
    },
    /// The evidence is about another task.
    #[error("the evidence file {path} is for task `{found}`, not `{expected}`")]
    OtherTask {
        /// The file.
        path: PathBuf,
        /// The task asked for.
        expected: String,
        /// The task in the file.
        found: String,
    },
    /// The red output named by the evidence cannot be read, at a path that is not clean.
    #[error(
        "the red phase's output (`phases[].output` in {evidence}) cannot be read at the path the evidence names, which is not shown as it holds {what}; it must be a regular file inside the evidence file's directory, named by a relative path (no absolute path, no `..`)"
    )]
    RedOutputUnshown {
        /// The evidence file that names it.
        evidence: PathBuf,
        /// What the clean check found in the path (`an absolute local path`).
        what: &'static str,
    },
    /// The red output named by the evidence cannot be read.
    #[error(
        "the red phase's output (`phases[].output` in {evidence}): {source}; it must be a regular file inside the evidence file's directory, named relative to it"
    )]
    RedOutput {
        /// The evidence file that names it.
        evidence: PathBuf,
        /// Why.
        source: InputError,
    },
    /// A number that JSON can write but the evidence cannot hold exactly.
    #[error(
        "the evidence file {path} has at `{field}` a whole number written with a fraction or an exponent (`11.0`, `1e3`), or one beyond the range of a 64-bit integer: JSON readers take it for an approximate float; write a count in digits alone, at most 18446744073709551615"
    )]
    Number {
        /// The file.
        path: PathBuf,
        /// Where (`mutation.caught`).
        field: String,
    },
    /// More objects and arrays than any evidence holds, counted before the file is parsed.
    #[error(
        "the evidence file {path} holds more than {EVIDENCE_MAX_CONTAINERS} JSON objects and arrays; a test runner's evidence holds a few hundred, and each takes memory to read"
    )]
    TooManyValues {
        /// The file.
        path: PathBuf,
    },
}

impl crate::exit::ExitClass for EvidenceError {
    /// The evidence file is the user's input.
    fn class(&self) -> crate::exit::Class {
        match self {
            EvidenceError::Read(_)
            | EvidenceError::Schema { .. }
            | EvidenceError::Rule { .. }
            | EvidenceError::OtherTask { .. }
            | EvidenceError::RedOutput { .. }
            | EvidenceError::RedOutputUnshown { .. }
            | EvidenceError::Number { .. }
            | EvidenceError::TooManyValues { .. } => crate::exit::Class::Config,
        }
    }
}

/// Evidence read and checked, with the red output's bytes when the red phase names one.
#[derive(Debug)]
pub struct LoadedEvidence {
    /// The evidence.
    pub evidence: Evidence,
    /// The captured red output.
    pub red_output: Option<Vec<u8>>,
}

/// Reads and checks the evidence file for `task` (`<unit>/<task>`).
///
/// # Errors
/// Any [`EvidenceError`]: unreadable, too large, not the schema (naming the field), a broken
/// rule, another task, a red output that cannot be read.
pub fn load(path: &Path, task: &str) -> Result<LoadedEvidence, EvidenceError> {
    let bytes = input::read_regular(path, EVIDENCE_MAX_BYTES).map_err(EvidenceError::Read)?;
    if containers(&bytes) > EVIDENCE_MAX_CONTAINERS {
        return Err(EvidenceError::TooManyValues { path: path.to_owned() });
    }
    if let Some(field) = inexact_number(&bytes) {
        return Err(EvidenceError::Number { path: path.to_owned(), field });
    }
    let evidence = parse(&bytes).map_err(|(field, message)| EvidenceError::Schema {
        path: path.to_owned(),
        field: unless_leaking(field),
        message: unless_leaking(message),
    })?;
    evidence.check_rules().map_err(|rule| EvidenceError::Rule { path: path.to_owned(), rule })?;
    if evidence.task != task {
        return Err(EvidenceError::OtherTask {
            path: path.to_owned(),
            expected: task.to_owned(),
            found: unless_leaking(evidence.task.clone()),
        });
    }
    let red_output = match evidence.red().and_then(|r| r.output.as_deref()) {
        None => None,
        Some(rel) => {
            let base = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let bytes =
                input::read_regular_within(base, Path::new(rel), RED_OUTPUT_MAX_BYTES).map_err(|source| {
                    match clean::check_str(rel) {
                        Ok(()) => EvidenceError::RedOutput { evidence: path.to_owned(), source },
                        Err(leak) => {
                            EvidenceError::RedOutputUnshown { evidence: path.to_owned(), what: leak.what }
                        }
                    }
                })?;
            Some(bytes)
        }
    };
    Ok(LoadedEvidence { evidence, red_output })
}

/// `text` from the evidence (or serde's word on it) as an error may quote it: whole when it passes
/// the clean check; otherwise not shown, saying what it holds and keeping what serde expected
/// there (`expected one of ...`, which comes from the schema, never from the file).
fn unless_leaking(text: String) -> String {
    let Err(leak) = clean::check_str(&text) else {
        return text;
    };
    let expected =
        text.rfind(", expected ").map(|at| &text[at + 2..]).filter(|e| clean::check_str(e).is_ok());
    let notice = clean::not_shown(&leak);
    expected.map_or_else(|| notice.clone(), |expected| format!("{notice}; {expected}"))
}

/// How many objects and arrays the JSON text `bytes` opens (`{` and `[` outside its strings),
/// counted without parsing it: the bound on what parsing it holds. Invalid JSON is counted as far
/// as it goes; the parser names what is wrong with it.
fn containers(bytes: &[u8]) -> usize {
    let (mut count, mut in_string, mut escaped) = (0, false, false);
    for &b in bytes {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
            (false, _, b'{' | b'[') => count += 1,
            _ => {}
        }
    }
    count
}

/// The path of the first number in the evidence JSON that no 64-bit integer holds and that has
/// no fraction: an integer written beyond the range, which JSON readers would silently turn into
/// an approximate float. Shares and other fractions (`0.82`) are left alone.
fn inexact_number(bytes: &[u8]) -> Option<String> {
    fn walk(value: &Value, path: &mut Vec<String>) -> Option<String> {
        match value {
            Value::Number(n) if n.is_f64() => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                (f.fract() == 0.0 || !f.is_finite())
                    .then(|| if path.is_empty() { ".".into() } else { path.join(".") })
            }
            Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
                let last = path.pop().unwrap_or_default();
                path.push(format!("{last}[{i}]"));
                let found = walk(item, path);
                path.pop();
                path.push(last);
                found
            }),
            Value::Object(map) => map.iter().find_map(|(key, item)| {
                path.push(key.clone());
                let found = walk(item, path);
                path.pop();
                found
            }),
            _ => None,
        }
    }
    let value: Value = serde_json::from_slice(bytes).ok()?;
    walk(&value, &mut Vec::new())
}

/// Parses evidence JSON, reporting the path of the first offending field.
///
/// # Errors
/// `(field path, message)`.
pub fn parse(bytes: &[u8]) -> Result<Evidence, (String, String)> {
    // JSON has no byte order mark (RFC 8259 §8.1); a file saved with one is named as such.
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err((
            ".".to_owned(),
            "the file starts with a UTF-8 byte order mark, which JSON does not allow: save it without one"
                .to_owned(),
        ));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize::<_, UniqueMembers>(&mut *de)
        .map_err(|e| (e.path().to_string(), e.into_inner().to_string()))?;
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let evidence = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let refined = phase_index(e.path()).and_then(|index| inside_phase(bytes, index));
        refined.unwrap_or_else(|| (e.path().to_string(), e.into_inner().to_string()))
    })?;
    // One JSON text is one value (RFC 8259 §2): only whitespace may follow the object, so a file
    // with a second object or other text after it is refused rather than read in part.
    de.end().map_err(|e| {
        (
            ".".to_owned(),
            format!(
                "there is text after the evidence object at line {} column {}: an evidence file holds exactly one JSON object; remove what follows it",
                e.line(),
                e.column()
            ),
        )
    })?;
    Ok(evidence)
}

/// `i` when an error's path is exactly `phases[i]`.
fn phase_index(path: &serde_path_to_error::Path) -> Option<usize> {
    use serde_path_to_error::Segment;
    match path.iter().collect::<Vec<_>>().as_slice() {
        [Segment::Map { key }, Segment::Seq { index }] if key == "phases" => Some(*index),
        _ => None,
    }
}

/// A phase is read through its `phase` tag, which hides the path inside the phase from the error;
/// reading the phase again as its own variant names the offending field (`phases[1].result`).
fn inside_phase(bytes: &[u8], index: usize) -> Option<(String, String)> {
    fn check<T: serde::de::DeserializeOwned>(
        phase: Value,
    ) -> Option<serde_path_to_error::Error<serde_json::Error>> {
        serde_path_to_error::deserialize::<_, T>(phase).err()
    }
    let value: Value = serde_json::from_slice(bytes).ok()?;
    let mut phase = value.get("phases")?.get(index)?.as_object()?.clone();
    let tag = phase.remove("phase")?;
    let phase = Value::Object(phase);
    let e = match tag.as_str()? {
        "baseline" | "green" => check::<SuiteRun>(phase),
        // The suite's fields are flattened into the red run, which hides their path: read them
        // as a suite first, then the red run's own.
        "red" => {
            let mut suite = phase.clone();
            if let Some(fields) = suite.as_object_mut() {
                fields.remove("output");
                fields.remove("kind");
            }
            check::<SuiteRun>(suite).or_else(|| check::<RedRun>(phase))
        }
        "held_out" => check::<HeldOutRun>(phase),
        _ => None,
    }?;
    let inner = e.path().to_string();
    let field = if inner == "." { format!("phases[{index}]") } else { format!("phases[{index}].{inner}") };
    Some((field, e.into_inner().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_and_arrays_are_counted_outside_strings_and_too_many_are_refused_before_parsing() {
        assert_eq!(containers(br#"{"a":[1,{"b":"{[\\\"{"}],"c":"]"}"#), 3);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("evidence.json");
        let many = vec!["{}"; EVIDENCE_MAX_CONTAINERS].join(",");
        std::fs::write(&path, format!(r#"{{"task":"001-x/T001","decisions":[{many}]}}"#)).unwrap();
        let err = load(&path, "001-x/T001").err().unwrap();
        assert!(matches!(err, EvidenceError::TooManyValues { .. }), "{err}");
    }

    #[test]
    fn an_integer_beyond_64_bits_is_named_and_a_share_is_not() {
        let found = inexact_number(br#"{"mutation":{"caught":1180591620717411303424,"missed":1}}"#);
        assert_eq!(found.as_deref(), Some("mutation.caught"));
        let found = inexact_number(br#"{"phases":[{"x":1},{"passed":[1, 2e30]}]}"#);
        assert_eq!(found.as_deref(), Some("phases[1].passed[1]"));
        let fine = br#"{"strength":{"visible":{"share":0.82}},"mutation":{"caught":18446744073709551615,"missed":-3}}"#;
        assert_eq!(inexact_number(fine), None);
    }

    #[test]
    fn a_whole_number_written_with_a_fraction_is_refused_as_written_never_as_out_of_range() {
        assert_eq!(inexact_number(br#"{"mutation":{"caught":11.0}}"#).as_deref(), Some("mutation.caught"));
        let err = EvidenceError::Number { path: "e.json".into(), field: "mutation.caught".into() };
        assert!(
            err.to_string().contains("a whole number written with a fraction or an exponent (`11.0`"),
            "{err}"
        );
    }

    #[test]
    fn a_refused_value_that_would_leak_is_never_quoted_and_a_clean_one_is() {
        let token = "ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8";
        let (_, message) =
            parse(format!(r#"{{"task":"u/T1","verdict":"{token}","phases":[]}}"#).as_bytes()).unwrap_err();
        let quoted = unless_leaking(message);
        assert!(!quoted.contains("sMehGAkWvj"), "{quoted}");
        assert!(quoted.contains("a GitHub token") && quoted.contains("expected `verified`"), "{quoted}");
        assert_eq!(unless_leaking("unknown variant `GREEN`".into()), "unknown variant `GREEN`");
        let dir = tempfile::tempdir().unwrap();
        let evidence = std::fs::read_to_string("fixtures/evidence/verified.json").unwrap();
        for (from, to) in
            [("\"001-bookmark-tags/T005\"", format!("\"{token}\"")), ("\"red.log\"", format!("\"{token}\""))]
        {
            let path = dir.path().join("evidence.json");
            std::fs::write(&path, evidence.replacen(from, &to, 1)).unwrap();
            let err = load(&path, "001-bookmark-tags/T005").unwrap_err().to_string();
            assert!(!err.contains("sMehGAkWvj") && err.contains("a GitHub token"), "{err}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_named_not_taken_for_a_bad_first_character() {
        let (field, message) = parse(b"\xEF\xBB\xBF{\"task\":\"u/T1\"}").unwrap_err();
        assert_eq!(field, ".");
        assert!(message.contains("byte order mark"), "{message}");
    }

    #[test]
    fn a_member_named_twice_anywhere_is_refused_where_it_is() {
        let verified = std::fs::read("fixtures/evidence/verified.json").unwrap();
        assert!(parse(&verified).is_ok());
        let text = String::from_utf8(verified).unwrap();
        let twice =
            text.replacen("\"state\": \"clean\"", "\"state\": \"suspected\", \"state\": \"clean\"", 1);
        assert_ne!(twice, text, "the fixture records a monitor state");
        let (field, message) = parse(twice.as_bytes()).unwrap_err();
        assert_eq!(field, "monitor");
        assert!(message.starts_with("the member `state` is named twice"), "{message}");
    }

    #[test]
    fn a_schema_error_names_the_offending_field() {
        let (field, message) = parse(
            br#"{"task":"u/T1","verdict":"verified","phases":[{"phase":"green","result":"GREEN","configuration":"x"}]}"#,
        )
        .unwrap_err();
        assert_eq!(field, "phases[0].result");
        assert!(message.contains("GREEN"), "{message}");
        let (field, _) = parse(br#"{"task":"u/T1","verdict":"verified","phases":[],"extra":1}"#).unwrap_err();
        assert_eq!(field, "extra");
        let (field, message) = parse(
            br#"{"task":"u/T1","verdict":"verified","phases":[{"phase":"green","result":"PASSED","configuration":"x"},{"phase":"held_out","result":"PASSED","manifest":"m","passed":"3","total":3}]}"#,
        )
        .unwrap_err();
        assert_eq!(field, "phases[1].passed");
        assert!(message.contains("invalid type"), "{message}");
        let (field, message) = parse(
            br#"{"task":"u/T1","verdict":"verified","phases":[{"phase":"red","result":"FAILED","configuration":"x","kind":"assertion","outptu":"r.log"}]}"#,
        )
        .unwrap_err();
        assert!(field.starts_with("phases[0]"), "{field}");
        assert!(message.contains("outptu"), "{message}");
        let (field, message) = parse(
            br#"{"task":"u/T1","verdict":"verified","phases":[{"phase":"red","result":"RED","configuration":"x","kind":"assertion"}]}"#,
        )
        .unwrap_err();
        assert_eq!(field, "phases[0].result");
        assert!(message.contains("RED"), "{message}");
        let (field, message) = parse(
            br#"{"task":"u/T1","verdict":"verified","phases":[{"phase":"red","result":"FAILED","configuration":"x","kind":"flaky"}]}"#,
        )
        .unwrap_err();
        assert_eq!(field, "phases[0].kind");
        assert!(message.contains("flaky"), "{message}");
        let (field, message) =
            parse(br#"{"task":"u/T1","verdict":"verified","phases":[{"phase":"blue"}]}"#).unwrap_err();
        assert_eq!(field, "phases[0].phase");
        assert!(message.contains("blue"), "{message}");
    }

    /// How the evidence rules and the evidence schema judge a case.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Held {
        /// Both accept it.
        Accepted,
        /// Both refuse it.
        Refused,
        /// The rules refuse it by a comparison of two fields, which JSON Schema cannot make and
        /// the schema's description names.
        BeyondSchema,
    }

    /// The recorded fixture (phases 0 baseline, 1 red, 2 green), edited by `edit`.
    fn recorded(edit: impl FnOnce(&mut Value)) -> Value {
        let mut file: Value =
            serde_json::from_str(include_str!("../../fixtures/evidence/verified.json")).unwrap();
        edit(&mut file);
        file
    }

    /// Adds a held-out run of `passed` out of `total` tests.
    fn held_out(file: &mut Value, result: &str, passed: u64, total: u64) {
        let manifest = format!("sha256:{}", "a".repeat(64));
        let run = json!({ "phase": "held_out", "result": result, "manifest": manifest, "passed": passed, "total": total });
        phases(file).push(run);
    }

    /// Adds a held-out run of every test passed, naming `manifest`.
    fn manifest(file: &mut Value, manifest: String) {
        held_out(file, "PASSED", 3, 3);
        phases(file)[3]["manifest"] = json!(manifest);
    }

    fn phases(file: &mut Value) -> &mut Vec<Value> {
        file["phases"].as_array_mut().unwrap()
    }

    fn result(file: &mut Value, i: usize, result: &str) {
        file["phases"][i]["result"] = json!(result);
    }

    /// Phase `i` with `result`, listing a failed test.
    fn listing_a_failure(file: &mut Value, i: usize, outcome: &str) {
        result(file, i, outcome);
        file["phases"][i]["failed"] = json!(["tests/tags.rs"]);
    }

    fn without(file: &mut Value, phase: &str) {
        phases(file).retain(|p| p["phase"] != phase);
    }

    fn without_member(file: &mut Value, member: &str) {
        file.as_object_mut().unwrap().remove(member);
    }

    fn twice(file: &mut Value, i: usize) {
        let run = phases(file)[i].clone();
        phases(file).push(run);
    }

    fn reason() -> Value {
        json!({ "code": "already_passing", "detail": "the tests passed before the change" })
    }

    /// A case: its name, the edit that makes it, how it is held.
    type Case = (&'static str, fn(&mut Value), Held);

    /// Each evidence file the rules and the schema are held to, as an edit of the recorded fixture
    /// (a `verified` tick) or of it made `regression_only` with a reason. The evidence check
    /// (`parse`, `check_rules`) and `schema/evidence.schema.json` both judge this one list, so
    /// neither can accept what the other refuses.
    fn evidence_cases() -> Vec<(String, Value, Held)> {
        use Held::{Accepted, BeyondSchema, Refused};
        let verified: [Case; 23] = [
            ("as recorded", |_| {}, Accepted),
            ("with a held-out run of every test passed", |f| held_out(f, "PASSED", 3, 3), Accepted),
            ("without a regression member", |f| without_member(f, "regression"), Accepted),
            ("with the phases in another order", |f| phases(f).reverse(), Accepted),
            ("with a baseline that failed", |f| listing_a_failure(f, 0, "FAILED"), Accepted),
            ("with a regression", |f| f["regression"] = reason(), Refused),
            (
                "whose acceptance row says regression_only",
                |f| f["acceptance"][0]["result"] = json!("regression_only"),
                Accepted,
            ),
            ("without red", |f| without(f, "red"), Refused),
            ("without green", |f| without(f, "green"), Refused),
            ("of no phase", |f| f["phases"] = json!([]), Refused),
            ("with green twice", |f| twice(f, 2), Refused),
            ("with baseline twice", |f| twice(f, 0), Refused),
            ("whose green failed", |f| result(f, 2, "FAILED"), Refused),
            ("whose green warned", |f| result(f, 2, "WARNED"), Refused),
            ("whose red passed", |f| result(f, 1, "PASSED"), Refused),
            (
                "whose red names no output",
                |f| _ = phases(f)[1].as_object_mut().unwrap().remove("output"),
                Refused,
            ),
            ("whose red output is null", |f| phases(f)[1]["output"] = Value::Null, Refused),
            ("whose green passed listing a failed test", |f| listing_a_failure(f, 2, "PASSED"), Refused),
            ("whose held-out run failed", |f| held_out(f, "FAILED", 3, 3), Refused),
            ("whose held-out set holds no test", |f| held_out(f, "PASSED", 0, 0), Refused),
            ("whose held-out run passed more tests than ran", |f| held_out(f, "PASSED", 1, 0), Refused),
            ("whose held-out run passed short of its total", |f| held_out(f, "PASSED", 2, 3), BeyondSchema),
            ("whose held-out run counts one test twice", |f| held_out(f, "PASSED", 4, 3), BeyondSchema),
        ];
        let regression_only: [Case; 20] = [
            ("with its reason", |_| {}, Accepted),
            (
                "whose acceptance row says verified",
                |f| f["acceptance"][0]["result"] = json!("verified"),
                Refused,
            ),
            ("without red", |f| without(f, "red"), Accepted),
            ("of no phase", |f| f["phases"] = json!([]), Accepted),
            ("whose green failed", |f| result(f, 2, "FAILED"), Accepted),
            ("whose green warned listing a failed test", |f| listing_a_failure(f, 2, "WARNED"), Accepted),
            ("whose held-out set holds no test", |f| held_out(f, "PASSED", 0, 0), Accepted),
            ("whose held-out run failed", |f| held_out(f, "FAILED", 1, 3), Accepted),
            ("with regression null", |f| f["regression"] = Value::Null, Refused),
            ("without regression", |f| without_member(f, "regression"), Refused),
            ("with red twice", |f| twice(f, 1), Refused),
            ("with held_out twice", |f| (0..2).for_each(|_| held_out(f, "PASSED", 3, 3)), Refused),
            ("whose red warned", |f| result(f, 1, "WARNED"), Refused),
            (
                "whose red names no output",
                |f| _ = phases(f)[1].as_object_mut().unwrap().remove("output"),
                Refused,
            ),
            ("whose baseline passed listing a failed test", |f| listing_a_failure(f, 0, "PASSED"), Refused),
            ("with a held-out manifest without `sha256:`", |f| manifest(f, "a".repeat(64)), Refused),
            (
                "with a held-out manifest in upper case",
                |f| manifest(f, format!("sha256:{}", "A".repeat(64))),
                Refused,
            ),
            ("with a held-out manifest too short", |f| manifest(f, "sha256:00".into()), Refused),
            (
                "with a held-out manifest and a line after it",
                |f| manifest(f, format!("sha256:{}\n", "a".repeat(64))),
                Refused,
            ),
            ("whose held-out run counts one test twice", |f| held_out(f, "FAILED", 4, 3), BeyondSchema),
        ];
        let verified =
            verified.map(|(case, edit, held)| (format!("a verified tick {case}"), recorded(edit), held));
        let regression_only = regression_only.map(|(case, edit, held)| {
            let edit = |f: &mut Value| {
                f["verdict"] = json!("regression_only");
                f["regression"] = reason();
                f["acceptance"][0]["result"] = json!("regression_only");
                edit(f);
            };
            (format!("a regression-only tick {case}"), recorded(edit), held)
        });
        verified.into_iter().chain(regression_only).collect()
    }

    #[test]
    fn an_unknown_member_of_regression_or_collection_is_named_and_the_schema_refuses_it_too() {
        let schema = crate::schema::validator("evidence.schema.json");
        for (file, field, member) in [
            (
                recorded(|f| {
                    f["verdict"] = json!("regression_only");
                    f["regression"] = json!({"code": "already_passing", "detail": "d", "only_on": "linux"});
                }),
                "regression.only_on",
                "only_on",
            ),
            (
                recorded(|f| {
                    f["collection"] = json!({"files": [{"path": "t.rs", "collected": true, "n": 1}]})
                }),
                "collection.files[0].n",
                "`n`",
            ),
        ] {
            let (at, message) = parse(file.to_string().as_bytes()).unwrap_err();
            assert_eq!(at, field, "{message}");
            assert!(message.contains(member), "{message}");
            assert!(!schema.is_valid(&file), "{file}");
        }
    }

    #[test]
    fn the_evidence_schema_accepts_exactly_the_evidence_the_rules_accept_but_the_comparisons_it_names() {
        let schema = crate::schema::validator("evidence.schema.json");
        for (case, file, held) in evidence_cases() {
            // Every case has the file's shape: what refuses it is a rule across its fields.
            let evidence = parse(file.to_string().as_bytes()).unwrap_or_else(|e| panic!("{case}: {e:?}"));
            let rules = evidence.check_rules().is_ok();
            assert_eq!(rules, held == Held::Accepted, "the evidence rules, {case}");
            assert_eq!(schema.is_valid(&file), held != Held::Refused, "the evidence schema, {case}");
        }
        let file = crate::schema::all().into_iter().find(|f| f.name == "evidence.schema.json").unwrap();
        let description = serde_json::from_str::<Value>(&file.text).unwrap()["description"].to_string();
        assert!(description.contains("`held_out.passed` at most `held_out.total`"), "{description}");
    }

    #[test]
    fn a_red_run_that_did_not_fail_is_named_by_its_result_as_the_evidence_writes_it() {
        let file = recorded(|f| result(f, 1, "PASSED"));
        let err = parse(file.to_string().as_bytes()).unwrap().check_rules().unwrap_err().to_string();
        assert!(err.starts_with("the red phase has result PASSED:"), "{err}");
    }
}
