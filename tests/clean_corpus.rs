//! The clean check against two corpora: strings that leak a machine detail or a credential must be
//! caught, and ordinary test-runner output (relative paths, line numbers, URLs, digests) must pass.

use std::fs;
use std::path::Path;

use speccoder_attest::model::clean::check_str;
use speccoder_attest::model::predicate::RedKind;
use speccoder_attest::model::red::red_from_output;

fn fixtures() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean").leak()
}

#[test]
fn every_leaking_string_of_the_corpus_is_caught() {
    let text = fs::read_to_string(fixtures().join("leaking.txt")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert!(lines.len() >= 30, "the corpus holds {} strings", lines.len());
    let missed: Vec<&&str> = lines.iter().filter(|l| check_str(l).is_ok()).collect();
    assert!(missed.is_empty(), "not caught: {missed:#?}");
    // The red excerpt built from each of them is withheld.
    for line in &lines {
        assert!(red_from_output(RedKind::Assertion, line.as_bytes()).withheld, "{line}");
    }
}

#[test]
fn every_ordinary_test_output_of_the_corpus_passes() {
    let mut count = 0;
    for entry in fs::read_dir(fixtures().join("ordinary")).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        if let Err(leak) = check_str(&text) {
            panic!("{} flagged as {:?}: {:?}", path.display(), leak.kind, &text[leak.start..leak.end]);
        }
        assert!(!red_from_output(RedKind::Assertion, text.as_bytes()).withheld);
        count += 1;
    }
    assert!(count >= 20, "the corpus holds {count} outputs");
}
