//! The clean check against two corpora: strings that leak a machine detail or a credential must be
//! caught, and ordinary test-runner output (relative and CI paths, line numbers, URLs, digests,
//! UUIDs, timings, assertion diffs, stack traces) must pass.
//!
//! `fixtures/clean/leaking.txt` holds one made-up value per line in a shape its provider
//! documents; `fixtures/clean/ordinary/` holds the output of real runs of cargo test, pytest,
//! jest, vitest, mocha and node's test runner on small projects, and outputs of go test, nextest,
//! Maven, Gradle, RSpec, dotnet test, CTest, PHPUnit, swift test and ExUnit written to those
//! tools' formats.

use std::fs;
use std::path::Path;

use serde_json::json;
use speccoder_attest::model::clean::{check_str, check_value};
use speccoder_attest::model::predicate::RedKind;
use speccoder_attest::model::red::red_from_output;

fn fixtures() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean").leak()
}

#[test]
fn every_leaking_string_of_the_corpus_is_withheld_as_red_output_and_refused_in_a_field() {
    let text = fs::read_to_string(fixtures().join("leaking.txt")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert!(lines.len() >= 80, "the corpus holds {} strings", lines.len());
    let missed: Vec<&&str> = lines.iter().filter(|l| check_str(l).is_ok()).collect();
    assert!(missed.is_empty(), "not caught: {missed:#?}");
    for line in &lines {
        // As the red output's tail: the excerpt is withheld.
        let output = format!("running 1 test\ntest tags::adds ... FAILED\n{line}\n");
        assert!(red_from_output(RedKind::Assertion, output.as_bytes()).withheld, "{line}");
        // As an evidence field: the statement is refused, and the finding does not repeat it.
        let err = check_value(&json!({ "predicate": { "executor": { "agent": line } } })).unwrap_err();
        assert_eq!(err.pointer, "/predicate/executor/agent");
        assert!(!err.to_string().contains(*line));
    }
}

#[test]
fn every_ordinary_test_output_of_the_corpus_passes() {
    let mut flagged = Vec::new();
    let mut count = 0;
    for entry in fs::read_dir(fixtures().join("ordinary")).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        count += 1;
        if let Err(leak) = check_str(&text) {
            flagged.push(format!("{}: {} {:?}", path.display(), leak.what, &text[leak.start..leak.end]));
            continue;
        }
        assert!(!red_from_output(RedKind::Assertion, text.as_bytes()).withheld, "{}", path.display());
        // Each line as an evidence field (a test name, a finding) passes too.
        for line in text.lines() {
            assert!(check_value(&json!({ "failed": [line] })).is_ok(), "{}: {line:?}", path.display());
        }
    }
    assert!(flagged.is_empty(), "flagged: {flagged:#?}");
    assert!(count >= 40, "the corpus holds {count} outputs");
}
