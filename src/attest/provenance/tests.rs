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
        (TASKS, edit(include_str!("../../../fixtures/speckit/specs/001-bookmark-tags/tasks.md"))),
        (SPEC, include_str!("../../../fixtures/speckit/specs/001-bookmark-tags/spec.md").to_owned()),
    ])
    .unwrap();
    crate::spec::read_task(&tree, "001-bookmark-tags", "T005").unwrap()
}

fn evidence(edit: impl FnOnce(&mut Value)) -> Evidence {
    let mut value: Value =
        serde_json::from_str(include_str!("../../../fixtures/evidence/verified.json")).unwrap();
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
            |v| v["decisions"] = json!([{ "why": "API_SECRET=0f8fad5bd9cb469fa16570867728950e0f8fad5b" }]),
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
        assert!(!shown.contains("ada") && !shown.contains("Zr8K") && !shown.contains("0f8fad5b"), "{shown}");
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
