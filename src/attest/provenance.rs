//! Where each string of a statement or a commit message comes from, so that a value that fails
//! the clean check is reported with the file (and field) to change: the evidence file, the task
//! list, the spec, the bug home, the command line, or git's configuration.
//!
//! The mapping follows how [`crate::attest::statements`] and the producer commands fill each
//! field; its tests hold it to them field by field.

use std::borrow::Borrow;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::attest::message::{MessageFields, keys};
use crate::model::bundle::{self, NOTES_REF, NoteTooLarge};
use crate::model::clean::{self, LeakAt};
use crate::model::dsse::Envelope;
use crate::model::evidence::Evidence;
use crate::model::shown::json_field;
use crate::spec::{Format, TaskFacts};

/// The evidence fields a task-verification predicate carries as recorded, under the same name.
const CARRIED: &[&str] = &[
    "integrity",
    "monitor",
    "mutation",
    "strength",
    "sandbox",
    "executor",
    "model",
    "decisions",
    "instructions",
    "regression",
    "collection",
    "context",
    "dependencies",
    "bug",
];

/// A value that would leak: which statement (or the commit message), where in it, what, and
/// where the value came from.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "{} would leak {leak}; it comes from {origin}: change it there and run again (nothing was written)",
    what_of(line)
)]
pub struct LeakError {
    /// The bundle's name of the statement (`task-verification`), or `commit message`.
    pub line: String,
    /// What and where: a JSON pointer into the statement, or the message's part (`/title`, `/Run`).
    pub leak: LeakAt,
    /// Where the value came from.
    pub origin: Origin,
}

impl LeakError {
    /// The same error, naming `path` as the evidence file when the value came from it.
    #[must_use]
    pub fn in_evidence_file(self, path: &Path) -> LeakError {
        LeakError { origin: self.origin.in_evidence_file(path), ..self }
    }
}

/// `the task-verification statement`, `the commit message`.
fn what_of(line: &str) -> String {
    if line == MESSAGE { "the commit message".to_owned() } else { format!("the {line} statement") }
}

/// How a [`LeakError`] names the commit message.
pub const MESSAGE: &str = "commit message";

/// Checks every part of a commit message that came from outside (the title, each trailer), then
/// the rendered message `msg` as a whole.
///
/// # Errors
/// The first leak, naming the part and its origin.
pub fn check_message(fields: &MessageFields, msg: &str, task: &TaskFacts) -> Result<(), Box<LeakError>> {
    let target = format!("{}/{}", fields.unit, fields.task);
    let parts = [(keys::SPEC_TASK, target.as_str()), ("title", fields.title.as_str())]
        .into_iter()
        .chain(fields.trailers.iter().map(|(key, value)| (*key, value.as_str())));
    for (part, value) in parts {
        if let Err(leak) = clean::check_str(value) {
            return Err(Box::new(LeakError {
                line: MESSAGE.to_owned(),
                leak: LeakAt { pointer: format!("/{part}"), leak },
                origin: of_message_part(part, task),
            }));
        }
    }
    clean::check_str(msg).map_err(|leak| {
        Box::new(LeakError {
            line: MESSAGE.to_owned(),
            leak: LeakAt { pointer: String::new(), leak },
            origin: Origin::Speccoder,
        })
    })
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A field of the evidence file (`executor.agent`, `phases[2].passed[1]`).
    Evidence {
        /// The field, as the evidence file spells it.
        field: String,
        /// The evidence file, once the caller has named it.
        file: Option<PathBuf>,
    },
    /// A file of the project, project-relative (`specs/001-x/tasks.md`).
    File(String),
    /// The unit's directory name.
    UnitDir(String),
    /// `<unit>/<task>` as given on the command line.
    Target,
    /// A command-line option (`--reason`).
    Option(&'static str),
    /// The decider: `--by`, or git's `user.name` without it.
    Decider,
    /// A git configuration value (`remote.origin.url`).
    GitConfig(&'static str),
    /// The note of a task commit, whose evidence `speccoder attest carry` re-issues (or, for a
    /// note too large, `attest sign` signs).
    Note(String),
    /// A value speccoder computes; a leak here is a bug to report.
    Speccoder,
}

impl Origin {
    fn evidence(field: impl Into<String>) -> Origin {
        Origin::Evidence { field: field.into(), file: None }
    }

    /// The same origin, naming `path` as the evidence file when it is one.
    #[must_use]
    pub fn in_evidence_file(self, path: &Path) -> Origin {
        match self {
            Origin::Evidence { field, .. } => Origin::Evidence { field, file: Some(path.to_owned()) },
            other => other,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Evidence { field, file: Some(file) } => {
                write!(f, "`{field}` in the evidence file {}", file.display())
            }
            Origin::Evidence { field, file: None } => write!(f, "`{field}` in the evidence file"),
            Origin::File(path) => write!(f, "{path}"),
            Origin::UnitDir(dir) => write!(f, "the unit's directory name {dir}"),
            Origin::Target => write!(
                f,
                "the <unit>/<task> given on the command line (a unit is named by its directory: rename it)"
            ),
            Origin::Option(option) => write!(f, "the command line's {option}"),
            Origin::Decider => write!(f, "--by (or git's user.name without it)"),
            Origin::GitConfig(key) => write!(f, "git's configuration {key}"),
            Origin::Note(commit) => write!(f, "the note of {commit}, which carry re-issues"),
            Origin::Speccoder => write!(f, "speccoder itself (please report this)"),
        }
    }
}

/// The origin of the string at `pointer` (a JSON pointer, optionally followed by ` (key)`) in
/// the statement that the bundle names `line` (`test-result/<phase>`, `task-verification`,
/// `summary`), built for `task` from `evidence` (absent for a decision).
#[must_use]
pub fn of_statement(line: &str, pointer: &str, task: &TaskFacts, evidence: Option<&Evidence>) -> Origin {
    let pointer = pointer.strip_suffix(" (key)").unwrap_or(pointer);
    let parts: Vec<String> =
        pointer.split('/').skip(1).map(|p| p.replace("~1", "/").replace("~0", "~")).collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    match parts.as_slice() {
        ["subject", ..] => Origin::Target,
        ["predicate", rest @ ..] => {
            if let Some(phase) = line.strip_prefix("test-result/") {
                of_test_result(phase, rest, evidence)
            } else if line == "summary" {
                match rest {
                    ["resourceUri"] => Origin::GitConfig("remote.origin.url"),
                    _ => Origin::Speccoder,
                }
            } else {
                of_task_verification(rest, task)
            }
        }
        _ => Origin::Speccoder,
    }
}

/// The origin of a part of a commit message: `title`, or a trailer key ([`keys`]).
#[must_use]
pub fn of_message_part(part: &str, task: &TaskFacts) -> Origin {
    match part {
        "title" => title_file(task),
        keys::SPEC_TASK => Origin::Target,
        keys::REGRESSION_ONLY => Origin::evidence("regression"),
        keys::HELD_OUT => Origin::evidence("phases[].manifest"),
        keys::RUN => Origin::evidence("run"),
        keys::ACCEPTED_BY | keys::SKIPPED_BY => Origin::Decider,
        keys::REASON => Origin::Option("--reason"),
        _ => Origin::Speccoder,
    }
}

/// The part of a note that makes it large, with where it came from: in its longest line, the
/// signatures when they take more of the line than its statement does; else the value of the
/// statement that holds more than half of it, and within that the value that holds more than
/// half of it, as deep as one does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LargestPart {
    /// The bundle's name of the statement whose line it is in (`task-verification`).
    pub line: String,
    /// Which part of that line.
    pub part: Part,
    /// About how many bytes of the note it takes, as the line writes it (a value's JSON as the
    /// payload's base64 carries it).
    pub bytes: usize,
}

/// Which part of a line a [`LargestPart`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// A value of the line's statement.
    Value {
        /// Where in it: a JSON pointer (`/predicate/task/title`; empty for the statement as a
        /// whole).
        pointer: String,
        /// Where the value came from.
        origin: Origin,
    },
    /// The line's signatures, a Sigstore bundle counted as one.
    Signatures {
        /// How many.
        count: usize,
    },
}

impl fmt::Display for LargestPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (line, bytes) = (&self.line, self.bytes);
        let (pointer, origin) = match &self.part {
            Part::Value { pointer, origin } => (pointer, origin),
            Part::Signatures { count } => {
                return write!(
                    f,
                    "its largest part, about {bytes} bytes, is the signatures the {line} line carries ({count}): find who wrote them (`git log -p {NOTES_REF}`), or record the task again"
                );
            }
        };
        let what = match pointer.as_str() {
            "" | "/predicate" => format!("the {line} statement as a whole"),
            "/predicate/task/title" => {
                format!("the task's title (the {} field of the {line} statement)", json_field(pointer))
            }
            _ => format!("the {} field of the {line} statement", json_field(pointer)),
        };
        match origin {
            Origin::Speccoder => write!(
                f,
                "its largest part, about {bytes} bytes, is {what}, built from several sources (the evidence, the task's line, the spec): make what they give it smaller and run again"
            ),
            Origin::Note(commit) => write!(
                f,
                "its largest part, about {bytes} bytes, is {what}, as the note of {commit} holds it, where it cannot be made smaller: record the task again with less there (`speccoder attest`, or `accept` or `skip` for a decision)"
            ),
            origin => write!(
                f,
                "its largest part, about {bytes} bytes, is {what}, which comes from {origin}: make that smaller and run again"
            ),
        }
    }
}

/// The [`LargestPart`] of the note of `lines` (each the bundle's name of a statement and its
/// envelope), the origin of a value at a pointer in a line's statement told by `origin` (called
/// once); `None` when there are none.
pub fn largest_part<S: AsRef<str>, E: Borrow<Envelope>>(
    lines: impl IntoIterator<Item = (S, E)>,
    origin: impl FnOnce(&str, &str) -> Origin,
) -> Option<LargestPart> {
    let (line, envelope, length) = lines
        .into_iter()
        .map(|(name, e)| {
            let length = e.borrow().to_line().len();
            (name, e, length)
        })
        .max_by_key(|(_, _, len)| *len)?;
    let (line, envelope) = (line.as_ref(), envelope.borrow());
    let payload = envelope.payload.len().div_ceil(3) * 4;
    let rest = length.saturating_sub(payload);
    if rest > payload {
        let count = envelope.signatures.len() + usize::from(envelope.sigstore.is_some());
        return Some(LargestPart { line: line.to_owned(), part: Part::Signatures { count }, bytes: rest });
    }
    let statement: serde_json::Value = serde_json::from_slice(&envelope.payload).ok()?;
    let (pointer, size) = dominant(&statement);
    let origin = origin(line, &pointer);
    let part = Part::Value { pointer, origin };
    Some(LargestPart { line: line.to_owned(), part, bytes: size.div_ceil(3) * 4 })
}

/// `too_large`, saying what makes it so and what to do: the [`largest_part`] of its `lines`.
#[must_use]
pub fn naming_largest_part<S: AsRef<str>, E: Borrow<Envelope>>(
    too_large: NoteTooLarge,
    lines: impl IntoIterator<Item = (S, E)>,
    origin: impl FnOnce(&str, &str) -> Origin,
) -> NoteTooLarge {
    match largest_part(lines, origin) {
        Some(part) => too_large.because(part.to_string()),
        None => too_large,
    }
}

/// The note of `lines` (each an envelope's line), within the caps a reader takes
/// ([`bundle::join_within_caps`]), for a writer that writes again what the note of `commit`
/// holds: `attest sign` and `attest approve`, which add signatures to its lines, and `attest
/// carry`, which re-issues its statements. A note too large names its largest part among `named`
/// (each line's bundle name and envelope, taken only then), as that note holds it, where it
/// cannot be made smaller: the task is to be recorded again.
///
/// # Errors
/// [`NoteTooLarge`]; nothing is to be written.
pub fn rewritten_note<L: AsRef<[u8]>, S: AsRef<str>, E: Borrow<Envelope>>(
    lines: &[L],
    commit: &str,
    named: impl IntoIterator<Item = (S, E)>,
) -> Result<Vec<u8>, NoteTooLarge> {
    bundle::join_within_caps(lines)
        .map_err(|too_large| naming_largest_part(too_large, named, |_, _| Origin::Note(commit.to_owned())))
}

/// The JSON pointer of the deepest value of `value` each of whose enclosing values it holds more
/// than half of (counted as JSON), and its size.
fn dominant(value: &serde_json::Value) -> (String, usize) {
    use serde_json::Value;
    let weight = |v: &Value| serde_json::to_vec(v).map_or(0, |bytes| bytes.len());
    let (mut pointer, mut at, mut size) = (String::new(), value, weight(value));
    loop {
        let children: Vec<(String, &Value)> = match at {
            Value::Object(members) => {
                members.iter().map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v)).collect()
            }
            Value::Array(items) => items.iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect(),
            _ => break,
        };
        let Some((key, child, held)) =
            children.into_iter().map(|(k, v)| (k, v, weight(v))).max_by_key(|(_, _, held)| *held)
        else {
            break;
        };
        if held * 2 <= size {
            break;
        }
        pointer = format!("{pointer}/{key}");
        (at, size) = (child, held);
    }
    (pointer, size)
}

fn of_test_result(phase: &str, rest: &[&str], evidence: Option<&Evidence>) -> Origin {
    let field = match rest.first() {
        Some(&"passedTests") => "passed",
        Some(&"failedTests") => "failed",
        Some(&"warnedTests") => "warned",
        _ => return Origin::Speccoder,
    };
    let index = evidence
        .and_then(|e| e.phases.iter().position(|p| p.phase().as_str() == phase))
        .map_or_else(|| "[]".to_owned(), |i| format!("[{i}]"));
    Origin::evidence(format!("phases{index}.{field}{}", dotted(&rest[1..])))
}

fn of_task_verification(rest: &[&str], task: &TaskFacts) -> Origin {
    match rest {
        ["unit", ..] => Origin::UnitDir(task.unit_dir.clone()),
        ["task", "title", ..] => title_file(task),
        ["task", ..] | ["spec", "section", ..] => Origin::File(task.tasks_path.clone()),
        ["trace", row, rest @ ..] => {
            let row: usize = row.parse().unwrap_or(usize::MAX);
            let requirements = task.requirements.len();
            match (row.checked_sub(requirements), rest.first().copied()) {
                (None, Some("requirement")) => Origin::File(spec_file(task)),
                (Some(_), Some("requirement")) if task.section.is_some() => {
                    Origin::File(task.tasks_path.clone())
                }
                (Some(j), Some("requirement")) => Origin::evidence(format!("acceptance[{j}].scenario")),
                (Some(j), Some(field @ ("scenario" | "test" | "result"))) => {
                    Origin::evidence(format!("acceptance[{j}].{field}"))
                }
                _ => Origin::Speccoder,
            }
        }
        ["run", ..] => Origin::evidence("run"),
        ["bug", "home"] | ["bug", "triad_sha256"] => Origin::File(task.tasks_path.clone()),
        ["decider", "by", ..] => Origin::Decider,
        ["decider", "reason", ..] => Origin::Option("--reason"),
        [field, rest @ ..] if CARRIED.contains(field) => Origin::evidence(format!("{field}{}", dotted(rest))),
        _ => Origin::Speccoder,
    }
}

/// The file a task's title is read from: the task list, or a bug's `assessment.md`.
fn title_file(task: &TaskFacts) -> Origin {
    if task.is_trailer_only() {
        Origin::File(format!("{}/assessment.md", task.tasks_path))
    } else {
        Origin::File(task.tasks_path.clone())
    }
}

/// The spec file that defines a task's requirements.
fn spec_file(task: &TaskFacts) -> String {
    match task.format {
        Format::SpecKit => format!("{}/spec.md", task.unit_dir),
        Format::OpenSpec => format!("a delta spec under {}/specs/", task.unit_dir),
    }
}

/// JSON pointer segments as an evidence field path: `.name` for a member, `[i]` for an item.
fn dotted(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| if p.parse::<usize>().is_ok() { format!("[{p}]") } else { format!(".{p}") })
        .collect()
}

#[cfg(test)]
mod tests {
    //! The provenance of each leaking field, held to how `statements` and the producers fill it.

    use serde_json::{Value, json};

    use super::*;
    use crate::attest::message::MessageFields;
    use crate::attest::statements::{self, BuildError, Context};
    use crate::spec::MemTree;

    const TASKS: &str = "specs/001-bookmark-tags/tasks.md";
    const SPEC: &str = "specs/001-bookmark-tags/spec.md";

    /// T005 of the Spec Kit fixture, its tasks.md changed by `edit`.
    fn task(edit: impl Fn(&str) -> String) -> TaskFacts {
        let tree = MemTree::from_files([
            (TASKS, edit(include_str!("../../fixtures/speckit/specs/001-bookmark-tags/tasks.md"))),
            (SPEC, include_str!("../../fixtures/speckit/specs/001-bookmark-tags/spec.md").to_owned()),
        ])
        .unwrap();
        crate::spec::read_task(&tree, "001-bookmark-tags", "T005").unwrap()
    }

    fn evidence(edit: impl FnOnce(&mut Value)) -> Evidence {
        let mut value: Value =
            serde_json::from_str(include_str!("../../fixtures/evidence/verified.json")).unwrap();
        edit(&mut value);
        serde_json::from_value(value).unwrap()
    }

    /// The leak `statements::tick` reports for `evidence` of `task`.
    fn leak_of(task: &TaskFacts, evidence: &Evidence) -> LeakError {
        let ctx = Context {
            task,
            commit: &"a".repeat(40),
            commit_sha256: &"d".repeat(64),
            tree: &"b".repeat(40),
            policy_sha256: &"c".repeat(64),
            time: "2026-12-01T10:00:00Z",
        };
        match statements::tick(&ctx, evidence, None, &format!("git:{}", "a".repeat(40))) {
            Err(BuildError::Leak(e)) => *e,
            other => panic!("expected a leak, got {other:?}"),
        }
    }

    #[test]
    fn a_leak_in_any_evidence_field_names_that_field() {
        let t = task(str::to_owned);
        type Edit = fn(&mut Value);
        let cases: [(Edit, &str, &str, &str); 8] = [
            (
                |v| v["executor"]["agent"] = json!("/home/ada/bin/agent"),
                "task-verification",
                "/predicate/executor/agent",
                "executor.agent",
            ),
            (
                |v| v["phases"][2]["passed"][1] = json!("run-/home/ada/x"),
                "test-result/green",
                "/predicate/passedTests/1",
                "phases[2].passed[1]",
            ),
            (
                |v| v["phases"][1]["failed"][0] = json!("x_/tmp/y"),
                "test-result/red",
                "/predicate/failedTests/0",
                "phases[1].failed[0]",
            ),
            (
                |v| v["acceptance"][0]["test"] = json!("https://ada:pw@ci.example.com/t"),
                "task-verification",
                "/predicate/trace/2/test",
                "acceptance[0].test",
            ),
            (
                |v| v["acceptance"][0]["result"] = json!("/tmp/out"),
                "task-verification",
                "/predicate/trace/2/result",
                "acceptance[0].result",
            ),
            (
                |v| {
                    v["decisions"] = json!([{ "why": "API_SECRET=0f8fad5bd9cb469fa16570867728950e0f8fad5b" }])
                },
                "task-verification",
                "/predicate/decisions/0/why",
                "decisions[0].why",
            ),
            (
                |v| v["monitor"]["findings"] = json!([{ "password": "Zr8KpX2mQ7vL3nW9tB4c" }]),
                "task-verification",
                "/predicate/monitor/findings/0/password",
                "monitor.findings[0].password",
            ),
            (
                |v| v["context"] = json!({ "/Users/ada": 1 }),
                "task-verification",
                "/predicate/context (key)",
                "context",
            ),
        ];
        for (edit, line, pointer, field) in cases {
            let e = leak_of(&t, &evidence(edit));
            assert_eq!((e.line.as_str(), e.leak.pointer.as_str()), (line, pointer));
            assert_eq!(e.origin, Origin::evidence(field), "{pointer}");
            let shown = e.in_evidence_file(Path::new("ev/evidence.json")).to_string();
            assert!(shown.contains(&format!("`{field}` in the evidence file ev/evidence.json")), "{shown}");
            assert!(
                !shown.contains("ada") && !shown.contains("Zr8K") && !shown.contains("0f8fad5b"),
                "{shown}"
            );
        }
    }

    #[test]
    fn a_leak_in_the_title_names_the_task_list() {
        let t = task(|text| text.replace("in src/tags/store.rs", "in /home/ada/tags/store.rs"));
        let e = leak_of(&t, &evidence(|_| {}));
        assert_eq!(
            (e.leak.pointer.as_str(), &e.origin),
            ("/predicate/task/title", &Origin::File(TASKS.to_owned()))
        );
        let fields = MessageFields { title: t.title.clone(), ..MessageFields::default() };
        let e = check_message(&fields, "", &t).unwrap_err();
        assert_eq!((e.leak.pointer.as_str(), &e.origin), ("/title", &Origin::File(TASKS.to_owned())));
        assert!(e.to_string().starts_with("the commit message would leak an absolute local path"), "{e}");
    }

    #[test]
    fn each_message_trailer_names_where_its_value_came_from() {
        let t = task(str::to_owned);
        let cases = [
            (keys::RUN, Origin::evidence("run")),
            (keys::REGRESSION_ONLY, Origin::evidence("regression")),
            (keys::REASON, Origin::Option("--reason")),
            (keys::ACCEPTED_BY, Origin::Decider),
            (keys::SKIPPED_BY, Origin::Decider),
        ];
        for (key, origin) in cases {
            let fields = MessageFields {
                title: t.title.clone(),
                trailers: vec![(keys::HELD_OUT, "off".to_owned()), (key, "see /tmp/ada-run".to_owned())],
                ..MessageFields::default()
            };
            let e = check_message(&fields, "", &t).unwrap_err();
            assert_eq!((e.leak.pointer, e.origin), (format!("/{key}"), origin));
        }
        let clean = MessageFields { title: t.title.clone(), ..MessageFields::default() };
        assert!(check_message(&clean, "a clean message\n", &t).is_ok());
        assert_eq!(check_message(&clean, "at /home/ada\n", &t).unwrap_err().origin, Origin::Speccoder);
    }

    #[test]
    fn fields_speccoder_fills_from_the_repository_name_their_source() {
        let t = task(str::to_owned);
        let of = |line: &str, pointer: &str| of_statement(line, pointer, &t, None);
        assert_eq!(of("task-verification", "/subject/0/name"), Origin::Target);
        assert_eq!(
            of("task-verification", "/predicate/unit/dir"),
            Origin::UnitDir("specs/001-bookmark-tags".to_owned())
        );
        assert_eq!(of("task-verification", "/predicate/spec/section"), Origin::File(TASKS.to_owned()));
        assert_eq!(of("task-verification", "/predicate/trace/1/requirement"), Origin::File(SPEC.to_owned()));
        assert_eq!(of("task-verification", "/predicate/trace/2/requirement"), Origin::File(TASKS.to_owned()));
        assert_eq!(of("task-verification", "/predicate/decider/reason"), Origin::Option("--reason"));
        assert_eq!(of("task-verification", "/predicate/decider/by"), Origin::Decider);
        assert_eq!(of("task-verification", "/predicate/run/id"), Origin::evidence("run"));
        assert_eq!(of("summary", "/predicate/resourceUri"), Origin::GitConfig("remote.origin.url"));
        assert_eq!(of("summary", "/predicate/verifier/id"), Origin::Speccoder);
        assert_eq!(
            of("test-result/held_out", "/predicate/passedTests/0"),
            Origin::evidence("phases[].passed[0]")
        );
    }

    /// The largest part of `lines` (each a name and its statement, in an unsigned envelope), its
    /// origin as `of_statement` tells it for `t`.
    fn largest_of(lines: &[(&str, &[u8])], t: &TaskFacts) -> LargestPart {
        let envelopes: Vec<(&str, Envelope)> =
            lines.iter().map(|(name, payload)| (*name, Envelope::unsigned(payload.to_vec()))).collect();
        let lines = envelopes.iter().map(|(name, e)| (*name, e));
        largest_part(lines, |line, pointer| of_statement(line, pointer, t, None)).unwrap()
    }

    fn statement(predicate: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"_type": "s", "predicateType": "p", "predicate": predicate})).unwrap()
    }

    #[test]
    fn the_largest_part_of_a_note_is_the_value_holding_most_of_its_largest_statement_as_deep_as_one_does() {
        let t = task(str::to_owned);
        let title = statement(json!({"task": {"id": "T005", "title": "A".repeat(1000)}}));
        let small = statement(json!({"task": {"title": "a"}}));
        let part = largest_of(&[("summary", &small), ("task-verification", &title)], &t);
        let pointer = "/predicate/task/title".to_owned();
        assert_eq!(part.line, "task-verification");
        assert_eq!(part.part, Part::Value { pointer, origin: Origin::File(TASKS.to_owned()) });
        assert_eq!(part.bytes, 1336, "the 1002 bytes of the JSON string, as base64 carries them");

        let spread =
            statement(json!({"context": {"a": "x".repeat(500)}, "dependencies": {"b": "y".repeat(500)}}));
        let part = largest_of(&[("task-verification", &spread)], &t);
        let whole = Part::Value { pointer: "/predicate".to_owned(), origin: Origin::Speccoder };
        assert_eq!(part.part, whole);
        let said = part.to_string();
        assert!(
            said.contains("is the task-verification statement as a whole, built from several sources"),
            "{said}"
        );
    }

    #[test]
    fn the_largest_part_of_a_line_whose_signatures_outweigh_its_statement_is_its_signatures() {
        let small = statement(json!({"task": {"title": "a"}}));
        let mut signed = Envelope::unsigned(small);
        let big = crate::model::dsse::Signature { keyid: "k".into(), sig: vec![b'x'; 3000] };
        signed.signatures = vec![big; 3];
        let title = Envelope::unsigned(statement(json!({"task": {"title": "A".repeat(5000)}})));
        let lines = [("summary", &signed), ("task-verification", &title)];
        let part = largest_part(lines, |_, _| panic!("no value is named")).unwrap();
        assert_eq!((part.line.as_str(), &part.part), ("summary", &Part::Signatures { count: 3 }));
        assert!(part.bytes > 12_000, "{part:?}");
        assert!(part.to_string().contains("is the signatures the summary line carries (3)"), "{part}");
    }

    #[test]
    fn a_value_an_existing_note_holds_is_said_to_be_recorded_again_with_less() {
        let title = Envelope::unsigned(statement(json!({"task": {"title": "A".repeat(5000)}})));
        let note = |_: &str, _: &str| Origin::Note("abc123".to_owned());
        let said = largest_part([("task-verification", &title)], note).unwrap().to_string();
        assert!(
            said.contains(
                "is the task's title (the `predicate.task.title` field of the task-verification statement), as the note of abc123 holds it, where it cannot be made smaller: record the task again"
            ),
            "{said}"
        );
    }
}
