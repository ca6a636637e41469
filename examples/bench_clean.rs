//! The clean check's cost: `cargo run --release --example bench_clean`.
//!
//! Prints, for the check as `speccoder attest` runs it:
//! - the first call in a process (regexes are compiled on first use), on a runner output;
//! - per red excerpt: the last 2 KiB of each runner output of `fixtures/clean/ordinary/`;
//! - per string of `fixtures/clean/leaking.txt`;
//! - per statement: a task-verification statement built like the fixture evidence's;
//! - hostile strings of 16 KiB to 1 MiB in shapes that would make a backtracking engine or a
//!   quadratic scan stall (the decoded readings' too: percent-escapes, base64 that decodes to
//!   text): the time per byte, which stays flat when the cost is linear.
//!
//! Figures are medians over repeated runs; they go to `benches/README.md`, never into a test.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use speccoder_attest::model::clean::{check_str, check_value};
use speccoder_attest::model::red::bound_tail;

/// The median time of `work`, run until at least `budget` has passed (and at least 5 times).
fn median(budget: Duration, mut work: impl FnMut()) -> Duration {
    let mut runs = Vec::new();
    let start = Instant::now();
    while runs.len() < 5 || start.elapsed() < budget {
        let t = Instant::now();
        work();
        runs.push(t.elapsed());
    }
    runs.sort();
    runs[runs.len() / 2]
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

fn statement() -> Value {
    let evidence: Value = serde_json::from_str(&fixture("fixtures/evidence/verified.json")).unwrap();
    json!({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{ "name": "001-bookmark-tags/T005", "digest": { "gitCommit": "3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c" } }],
        "predicateType": "https://speccoder.dev/task-verification/v0",
        "predicate": {
            "revision": 3, "verdict": "verified",
            "unit": { "format": "speckit", "feature": "001-bookmark-tags", "dir": "specs/001-bookmark-tags" },
            "task": { "id": "T005", "title": "Implement adding a tag to a bookmark in src/tags/store.rs (FR-001, FR-002)",
                      "line_hash": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
            "tree": "0f8fad5bd9cb469fa16570867728950e0f8fad5b",
            "spec": { "section": "US1", "section_hash": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
            "trace": [{ "requirement": "FR-001", "requirement_hash": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "phase": "green", "result": "verified" },
                      { "requirement": "US1", "scenario": "US1.1", "test": "tests/tags.rs", "phase": "green", "result": "verified" }],
            "integrity": evidence["integrity"], "monitor": evidence["monitor"], "mutation": evidence["mutation"],
            "sandbox": evidence["sandbox"], "executor": evidence["executor"], "run": { "id": evidence["run"] },
            "decisions": [], "instructions": [],
            "policy_sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "time": "2026-12-01T10:00:00Z",
            "red": { "kind": "assertion", "excerpt": fixture("fixtures/evidence/red.log"),
                     "excerpt_sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     "output_sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "withheld": false }
        }
    })
}

fn main() {
    let budget = Duration::from_millis(300);
    let mut outputs: Vec<(String, String)> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean/ordinary"))
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                (
                    path.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&path).unwrap(),
                )
            })
            .collect();
    outputs.sort();

    let first = Instant::now();
    let _ = check_str(bound_tail(&outputs[0].1, 2048));
    println!(
        "first call in a process (regexes compiled on first use): {:.1} us",
        first.elapsed().as_secs_f64() * 1e6
    );

    let excerpts: Vec<&str> = outputs.iter().map(|(_, text)| bound_tail(text, 2048)).collect();
    let all = median(budget, || {
        for e in &excerpts {
            assert!(check_str(e).is_ok());
        }
    });
    println!(
        "red excerpt (2 KiB tails of {} runner outputs): {:.2} us each",
        excerpts.len(),
        all.as_secs_f64() * 1e6 / excerpts.len() as f64
    );

    let leaking = fixture("fixtures/clean/leaking.txt");
    let lines: Vec<&str> = leaking.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let all = median(budget, || {
        for l in &lines {
            assert!(check_str(l).is_err());
        }
    });
    println!(
        "leaking string ({} of them): {:.2} us each",
        lines.len(),
        all.as_secs_f64() * 1e6 / lines.len() as f64
    );

    let statement = statement();
    let t = median(budget, || assert!(check_value(&statement).is_ok()));
    println!("task-verification statement: {:.2} us", t.as_secs_f64() * 1e6);

    println!("hostile strings, ns per byte at 16 KiB / 64 KiB / 256 KiB / 1 MiB:");
    let shapes: [(&str, &str); 35] = [
        ("letters", "a"),
        ("a=", "a="),
        ("key:", "key:"),
        ("password: ", "password: "),
        ("://a:", "://a:"),
        ("-----BEGIN ", "-----BEGIN "),
        ("$2$", "$2$"),
        ("eyJ.", "eyJaaaaaaaa."),
        ("--token ", "--token "),
        ("token=Ab1", "token=Ab1"),
        ("%41", "%41"),
        ("%3D%", "%3D%"),
        ("b64 AAA", "QUFB"),
        ("b64 key= ", "a2V5PWtleT1rZXk9 "),
        ("mysql -u ", "mysql -u "),
        ("mysql -p$ ", "mysql -p$ "),
        ("docker login", "docker login -p$ "),
        ("keykey", "key"),
        ("--password $", "--password $ "),
        ("curl -u $:$", "curl -u $:$ "),
        ("redis-cli -a $", "redis-cli -a $ "),
        ("htpasswd -b", "htpasswd -b a b $ "),
        ("-o password=$", " -o a,password=$"),
        (" password=", " password=hunter2"),
        (",password=", ",password=hunter2"),
        (";PGPASSWORD=", ";PGPASSWORD=hunter2"),
        ("-Dpassword=$", " -Dpassword=$"),
        ("logfmt $", " msg=\"a \\\"b\\\"\" password=$"),
        ("ENV lines", "ENV PASSWORD $\n"),
        ("ENV \\n", "\\nENV PASSWORD $"),
        ("setx", "setx /M PASSWORD $ "),
        ("_authToken=$", ":_authToken=$ "),
        ("ENV A=1 \\", "ENV A=1 \\\n  \\\n  PASSWORD=$ "),
        ("_authToken $", "_authToken $\n"),
        ("msg=\"token=$", "msg=\"a \\\" token=$ "),
    ];
    for (name, unit) in shapes {
        let mut row = Vec::new();
        for size in [16 << 10, 64 << 10, 256 << 10, 1 << 20] {
            let text = unit.repeat(size / unit.len());
            let t = median(Duration::from_millis(200), || {
                let _ = check_str(&text);
            });
            row.push(format!("{:>8.2}", t.as_secs_f64() * 1e9 / text.len() as f64));
        }
        println!("  {name:<12} {}", row.join(" "));
    }
}
