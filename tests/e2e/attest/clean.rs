//! The clean check end to end: a value that would leak stops `attest` (and `accept`) before
//! anything is written, naming the statement, the field and the file the value came from; a red
//! output that would leak is withheld; the summary's `resourceUri` never carries a local path or a
//! credential, so a clone of a local repository attests.

use serde_json::{Value, json};

use super::refusals::evidence_with;
use super::{Setup, T005};
use crate::common::{self, Evidence, NOTES_REF};

/// What a refused command must leave as it was, as git itself shows it.
#[derive(Debug, PartialEq, Eq)]
struct Untouched {
    log: String,
    notes: String,
    status: String,
    snapshot: common::Snapshot,
}

fn untouched(s: &Setup) -> Untouched {
    let p = &s.project;
    Untouched {
        log: p.git(&["log", "--all", "--format=%H %s"]),
        notes: p.git(&["notes", "--ref=speccoder", "list"]),
        status: p.git(&["status", "--porcelain", "--untracked-files=all"]),
        snapshot: p.snapshot(),
    }
}

#[test]
fn a_secret_in_an_evidence_field_stops_attest_naming_statement_pointer_field_and_evidence_file() {
    let s = Setup::speckit(Evidence::Verified);
    let secret = "0f8fad5bd9cb469fa16570867728950e0f8fad5b";
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, [&str; 3]); 4] = [
        (
            "decision",
            |v| v["decisions"] = json!([{ "call": "kept the cache", "note": "API_SECRET=0f8fad5bd9cb469fa16570867728950e0f8fad5b" }]),
            [
                "the task-verification statement would leak a secret assigned to a name that says so",
                "in its `predicate.decisions[0].note` field",
                "`decisions[0].note` in the evidence file ",
            ],
        ),
        (
            "test-name",
            |v| {
                v["phases"][2]["passed"] =
                    json!(["tests/tags.rs", "x_/tmp/0f8fad5bd9cb469fa16570867728950e0f8fad5b"])
            },
            [
                "the test-result/green statement would leak an absolute local path",
                "in its `predicate.passedTests[1]` field",
                "`phases[2].passed[1]` in the evidence file ",
            ],
        ),
        (
            "scenario",
            |v| {
                v["acceptance"][0]["scenario"] =
                    json!("US1.1 $2b$12$0f8fad5bd9cb469fa16570867728950e0f8fad5bd9cb469fa1657")
            },
            [
                "would leak a password hash",
                "in its `predicate.trace[2].scenario` field",
                "`acceptance[0].scenario` in the evidence file ",
            ],
        ),
        (
            "run",
            |v| v["run"] = json!("run-7 token=0f8fad5bd9cb469fa16570867728950e0f8fad5b"),
            [
                "the commit message would leak a secret assigned to a name that says so",
                "in its `Run` field",
                "`run` in the evidence file ",
            ],
        ),
    ];
    for (name, edit, says) in cases {
        let evidence = evidence_with(&s, name, edit);
        let before = untouched(&s);
        let out = s.project.attest(T005, &evidence, &["--key", s.key.private.to_str().unwrap()]).failure(13);
        for text in says {
            assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
        }
        assert!(out.stderr.contains(&evidence.display().to_string()), "{out}");
        assert!(out.stderr.contains("nothing was written"), "{out}");
        assert!(
            !out.stderr.contains(secret) && !out.stderr.contains(&secret[..12]),
            "the message repeats the leak\n{out}"
        );
        assert_eq!(untouched(&s), before, "{name}: the repository changed\n{out}");
    }
}

#[test]
fn a_secret_in_the_task_title_stops_attest_naming_the_task_list() {
    let s = Setup::speckit(Evidence::Verified);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(s.project.read(tasks)).unwrap();
    let text = text.replace("in src/tags/store.rs (FR-001", "with key AKIA0F8FAD5BD9CB469F (FR-001");
    s.project.write(tasks, text);
    s.project.git(&["commit", "-qam", "a title that holds a key"]);
    let before = untouched(&s);
    let out = s.project.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).failure(13);
    for text in [
        "the commit message would leak an AWS access key id in its `title` field",
        &format!("it comes from {tasks}"),
    ] {
        assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
    }
    assert!(!out.stderr.contains("AKIA0F8F"), "{out}");
    assert_eq!(untouched(&s), before, "{out}");
}

#[test]
fn a_secret_in_a_unit_s_name_stops_accept_naming_the_target_never_as_our_own() {
    let s = Setup::speckit(Evidence::Verified);
    let unit = "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5xyzAB1";
    let from = s.project.root.join("specs/001-bookmark-tags");
    let to = s.project.root.join("specs").join(unit);
    std::fs::create_dir(&to).unwrap();
    for name in ["spec.md", "tasks.md"] {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
    s.project.git(&["add", "-A"]);
    s.project.git(&["commit", "-qm", "a unit named like a token"]);
    let before = untouched(&s);
    let key = s.key.private.to_str().unwrap();
    let out =
        s.project.speccoder(&["accept", &format!("{unit}/T001"), "--reason", "ok", "--key", key]).failure(13);
    for text in
        ["would leak a GitHub token in its `Spec-Task` field", "the <unit>/<task> given on the command line"]
    {
        assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
    }
    assert!(!out.stderr.contains("please report") && !out.stderr.contains("A1b2C3"), "{out}");
    assert_eq!(untouched(&s), before, "{out}");
}

#[test]
fn a_secret_in_the_reason_stops_accept_naming_the_option() {
    let s = Setup::speckit(Evidence::Verified);
    let before = untouched(&s);
    let key = s.key.private.to_str().unwrap();
    let reason = "checked by hand with xoxb-0f8fad5bd9cb-469fa1657086";
    let out = s.project.speccoder(&["accept", T005, "--reason", reason, "--key", key]).failure(13);
    for text in
        ["the commit message would leak a Slack token in its `Reason` field", "the command line's --reason"]
    {
        assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
    }
    assert!(!out.stderr.contains("xoxb-0f8f"), "{out}");
    assert_eq!(untouched(&s), before, "{out}");
}

#[test]
fn an_encoded_secret_in_the_reason_stops_accept_naming_its_encoding_and_never_the_value() {
    use base64::Engine as _;
    let key = base64::engine::general_purpose::STANDARD.encode("-----BEGIN OPENSSH PRIVATE KEY-----\n");
    for (reason, said) in [
        (
            format!("checked with the deploy key {key}"),
            "would leak private key material, base64-encoded, in its `Reason` field",
        ),
        // A token of a word's prefix: after the `D` of `%3D` as written, it continues a word.
        (
            "retried with token%3Dhf_sMehGAkWvjFAcQeWJKYuvSwMFLZDef".to_owned(),
            "would leak a Hugging Face token, percent-encoded, in its `Reason` field",
        ),
    ] {
        let s = Setup::speckit(Evidence::Verified);
        let before = untouched(&s);
        let signing_key = s.key.private.to_str().unwrap();
        let out =
            s.project.speccoder(&["accept", T005, "--reason", &reason, "--key", signing_key]).failure(13);
        for text in [said, "the command line's --reason"] {
            assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
        }
        assert!(!out.stderr.contains(&key[..24]) && !out.stderr.contains("sMehGAkWvj"), "{out}");
        assert_eq!(untouched(&s), before, "{out}");
    }
}

#[test]
fn a_red_output_holding_an_assignment_a_connection_string_or_a_hash_is_withheld() {
    for leaking in [
        "env: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        "conn: DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zr8KpX2mQ7vL3nW9tB4cYd6Fh1Jk5Ab8Cd==;\n",
        "stored $argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$Zr8KpX2mQ7vL3nW9tB4cYd6Fh1Jk5Ab8Cd\n",
        "wrote run-/home/alice/out.txt\n",
    ] {
        let s = Setup::speckit(Evidence::Verified);
        let red = format!("running 1 test\ntest adds_a_tag ... FAILED\n{leaking}");
        std::fs::write(s.evidence.parent().unwrap().join("red.log"), &red).unwrap();
        let out = s.attest_signed(&["--json"]);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["withheld"], json!(["red excerpt (not clean)"]), "{leaking}{out}");
        let lines = s.project.note_lines("HEAD");
        for line in &lines {
            let text = String::from_utf8_lossy(&line.payload);
            assert!(!text.contains("wJalr") && !text.contains("Zr8Kp") && !text.contains("alice"), "{text}");
        }
        assert_eq!(lines[3].statement["predicate"]["red"]["withheld"], json!(true));
    }
}

#[test]
fn a_red_output_holding_a_dockerfile_env_secret_without_an_equals_sign_is_withheld() {
    let s = Setup::speckit(Evidence::Verified);
    let red = "running 1 test\ntest image_builds ... FAILED\nStep 3/7 : ENV DB_PASSWORD \"s3cr3t value\"\n";
    std::fs::write(s.evidence.parent().unwrap().join("red.log"), red).unwrap();
    let out = s.attest_signed(&["--json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["withheld"], json!(["red excerpt (not clean)"]), "{out}");
    let lines = s.project.note_lines("HEAD");
    for line in &lines {
        assert!(!String::from_utf8_lossy(&line.payload).contains("s3cr3t"), "{out}");
    }
    assert_eq!(lines[3].statement["predicate"]["red"]["withheld"], json!(true));
}

#[test]
fn a_secret_in_an_env_pair_a_netrc_line_a_hex_dump_or_fullwidth_letters_is_withheld_or_refused() {
    let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8xKf2mWp";
    let token = "ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8";
    let hex: String = token.bytes().map(|b| format!("{b:02x}")).collect();
    let fullwidth: String = token.chars().map(|c| char::from_u32(c as u32 + 0xFEE0).unwrap()).collect();
    for (leaking, needle) in [
        (format!("env:\n- name: AWS_SECRET_ACCESS_KEY\n  value: {secret}\n"), secret.to_owned()),
        (
            "machine github.com login ada password Xk9mP2vL7qR4tY8w\n".to_owned(),
            "Xk9mP2vL7qR4tY8w".to_owned(),
        ),
        (format!("sent: {hex}\n"), hex[..24].to_owned()),
        (format!("header value: {fullwidth}\n"), fullwidth[..12].to_owned()),
    ] {
        let s = Setup::speckit(Evidence::Verified);
        let red = format!("running 1 test\ntest adds_a_tag ... FAILED\n{leaking}");
        std::fs::write(s.evidence.parent().unwrap().join("red.log"), &red).unwrap();
        let out = s.attest_signed(&["--json"]);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["withheld"], json!(["red excerpt (not clean)"]), "{leaking}{out}");
        let lines = s.project.note_lines("HEAD");
        assert!(lines.iter().all(|l| !String::from_utf8_lossy(&l.payload).contains(&needle)), "{leaking}");
    }
    let s = Setup::speckit(Evidence::Verified);
    let evidence = evidence_with(&s, "env", |v| {
        v["executor"]["env"] = json!([{"name": "AWS_SECRET_ACCESS_KEY", "value": secret}]);
    });
    let before = untouched(&s);
    let out = s.project.attest(T005, &evidence, &["--key", s.key.private.to_str().unwrap()]).failure(13);
    for text in [
        "would leak a secret assigned to a name that says so in its `predicate.executor.env[0].value` field",
        "`executor.env[0].value` in the evidence file ",
    ] {
        assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
    }
    assert!(!out.stderr.contains(&secret[..12]), "{out}");
    assert_eq!(untouched(&s), before, "{out}");
}

/// `speccoder attest` in a work tree whose `origin` is `remote`: the summary's `resourceUri`.
fn resource_uri_with_origin(remote: &str) -> (String, String) {
    let s = Setup::speckit(Evidence::Verified);
    s.project.git(&["remote", "add", "origin", remote]);
    s.attest_signed(&[]);
    let lines = s.project.note_lines("HEAD");
    let summary = lines.last().unwrap();
    let uri = summary.statement["predicate"]["resourceUri"].as_str().unwrap().to_owned();
    (uri, s.project.rev("HEAD"))
}

#[test]
fn a_remote_url_of_each_shape_gives_a_resource_uri_without_credentials_or_local_paths() {
    let cases = [
        (
            "https://oauth2:glpat-0f8fad5bd9cb469fa165@gitlab.example.com/g/p.git?private_token=x",
            Some("git+https://gitlab.example.com/g/p.git"),
        ),
        (
            "https://0f8fad5bd9cb469fa16570867728950e0f8fad5b@github.com/acme/app.git",
            Some("git+https://github.com/acme/app.git"),
        ),
        (
            "ssh://git:hunter2@git.example.com/acme/app.git",
            Some("git+ssh://git@git.example.com/acme/app.git"),
        ),
        ("git@github.com:acme/app.git", Some("git+ssh://git@github.com/acme/app.git")),
        ("ada@build.example.net:/home/ada/app.git", None),
        ("file:///srv/git/app.git", None),
        ("/srv/git/app.git", None),
    ];
    for (remote, expected) in cases {
        let (uri, commit) = resource_uri_with_origin(remote);
        let expected = expected.map_or_else(|| format!("git:{commit}"), |base| format!("{base}@{commit}"));
        assert_eq!(uri, expected, "{remote}");
    }
}

#[test]
fn a_clone_of_a_local_repository_attests_and_its_resource_uri_holds_no_path() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let clone = p.tmp().join("clone");
    p.git(&["clone", "-q", p.root.to_str().unwrap(), clone.to_str().unwrap()]);
    for (key, value) in
        [("user.name", "Ada Lovelace"), ("user.email", common::PRINCIPAL), ("commit.gpgsign", "false")]
    {
        p.git_in(&clone, &["config", key, value]);
    }
    let origin = p.git_in(&clone, &["config", "remote.origin.url"]);
    assert!(origin.trim().starts_with('/'), "{origin}");
    let key = s.key.private.to_str().unwrap();
    let evidence = s.evidence.to_str().unwrap();
    p.speccoder_in(&clone, &["attest", T005, "--evidence", evidence, "--key", key]).success();
    let commit = p.git_in(&clone, &["rev-parse", "HEAD"]).trim().to_owned();
    let note = p.git_in(&clone, &["notes", "--ref", NOTES_REF, "show", &commit]);
    let lines = common::parse_bundle(note.as_bytes());
    assert_eq!(lines.last().unwrap().statement["predicate"]["resourceUri"], json!(format!("git:{commit}")));
    for line in &lines {
        assert!(!String::from_utf8_lossy(&line.payload).contains(p.root.to_str().unwrap()));
    }
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &lines);
    assert_eq!(p.git_in(&clone, &["status", "--porcelain"]), "");
}

/// A GitHub token broken up by `hidden`, a character that renders as nothing.
fn token_broken_by(hidden: char) -> String {
    format!("ghp_sMehGAkWvj{hidden}Ac9QeWJKY40uvSwMFLZDe1f8")
}

#[test]
fn a_token_broken_up_by_a_joiner_a_selector_or_a_filler_stops_attest_and_accept() {
    for hidden in ['\u{200d}', '\u{34f}', '\u{fe0f}', '\u{3164}', '\u{e0100}'] {
        let s = Setup::speckit(Evidence::Verified);
        let token = token_broken_by(hidden);
        let evidence = evidence_with(&s, "agent", |v| v["executor"]["agent"] = json!(token));
        let before = untouched(&s);
        let out = s.project.attest(T005, &evidence, &["--key", s.key.private.to_str().unwrap()]).failure(13);
        assert!(
            out.stderr.contains("would leak a GitHub token in its `predicate.executor.agent` field"),
            "{hidden:?}\n{out}"
        );
        assert!(!out.stderr.contains("sMehGAkWvj"), "{out}");
        assert_eq!(untouched(&s), before, "{hidden:?}: the repository changed\n{out}");
    }
    let s = Setup::speckit(Evidence::Verified);
    let key = s.key.private.to_str().unwrap();
    let reason = format!("rotated {}", token_broken_by('\u{200d}'));
    let out = s.project.speccoder(&["accept", T005, "--reason", &reason, "--key", key]).failure(13);
    assert!(out.stderr.contains("would leak a GitHub token in its `Reason` field"), "{out}");
    assert!(!out.stdout.contains("sMehGAkWvj") && !out.stderr.contains("sMehGAkWvj"), "{out}");
}

#[test]
fn a_joiner_between_ascii_letters_of_a_reason_is_written_as_its_escape_and_an_emoji_s_is_kept() {
    let s = Setup::speckit(Evidence::Verified);
    let key = s.key.private.to_str().unwrap();
    let reason = "checked a\u{200d}b by hand \u{2705}\u{fe0f}";
    s.project.speccoder(&["accept", T005, "--reason", reason, "--key", key]).success();
    let message = s.project.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Reason: checked a\\u{200d}b by hand \u{2705}\u{fe0f}"), "{message}");
}

#[test]
fn an_excerpt_unclean_on_its_own_but_clean_with_the_bytes_before_it_is_withheld() {
    let s = Setup::speckit(Evidence::Verified);
    let fill = "test result: FAILED. 0 passed; 1 failed\n".repeat(60);
    // A token of a word's prefix, which a letter or digit before it makes part of a longer word.
    let tail = format!("hf_sMehGAkWvjFAcQeWJKYuvSwMFLZDef\n{fill}");
    let red = format!("running 1 test\nchecksum deadbeef00{}", &tail[..2048]);
    std::fs::write(s.evidence.parent().unwrap().join("red.log"), red).unwrap();
    let out = s.attest_signed(&["--json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["withheld"], json!(["red excerpt (not clean)"]), "{out}");
    let lines = s.project.note_lines("HEAD");
    assert_eq!(lines[3].statement["predicate"]["red"]["withheld"], json!(true));
    assert!(lines.iter().all(|l| !String::from_utf8_lossy(&l.payload).contains("sMehGAkWvj")));
}

#[test]
fn a_refused_evidence_file_s_values_never_reach_stderr_or_json_unless_clean() {
    let token = "ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8";
    type Edit = fn(&mut Value, &str);
    let edits: [(&str, Edit); 9] = [
        ("verdict", |v, t| v["verdict"] = json!(t)),
        // Out of the specification's shapes, refused by the verifier's own rules.
        ("monitor-state", |v, t| v["monitor"] = json!({"state": t, "findings": []})),
        ("integrity", |v, t| v["integrity"] = json!(t)),
        ("monitor-findings", |v, t| v["monitor"] = json!({"state": "clean", "findings": t})),
        ("kind", |v, t| v["phases"][1]["kind"] = json!(t)),
        ("acceptance", |v, t| v["acceptance"] = json!(t)),
        ("member", |v, t| v[t] = json!(1)),
        ("task", |v, t| v["task"] = json!(t)),
        ("output", |v, t| v["phases"][1]["output"] = json!(t)),
    ];
    let s = Setup::speckit(Evidence::Verified);
    for (name, edit) in edits {
        let evidence = evidence_with(&s, name, |v| edit(v, token));
        for extra in [&[][..], &["--json"][..]] {
            let mut args = vec!["--key", s.key.private.to_str().unwrap()];
            args.extend(extra);
            let out = s.project.attest(T005, &evidence, &args).failure(13);
            assert!(
                !out.stdout.contains("sMehGAkWvj") && !out.stderr.contains("sMehGAkWvj"),
                "{name}\n{out}"
            );
            assert!(
                out.stdout.contains("a GitHub token") || out.stderr.contains("a GitHub token"),
                "{name}\n{out}"
            );
        }
    }
}

#[test]
fn a_token_right_after_an_escaped_line_break_or_a_letter_is_withheld_from_the_excerpt_or_refused() {
    let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
    let s = Setup::speckit(Evidence::Verified);
    let red = format!(
        "test reads_config ... FAILED\nassertion `left == right` failed\n  left: \"[github]\\ntoken = x\\n\"\n right: \"[github]\\n{token}\\n\"\n"
    );
    std::fs::write(s.evidence.parent().unwrap().join("red.log"), red).unwrap();
    let out = s.attest_signed(&["--json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["withheld"], json!(["red excerpt (not clean)"]), "{out}");
    assert!(
        s.project.note_lines("HEAD").iter().all(|l| !String::from_utf8_lossy(&l.payload).contains(token))
    );

    let s = Setup::speckit(Evidence::Verified);
    let field =
        evidence_with(&s, "escaped", |v| v["integrity"] = json!({"findings": [format!("cfg:\\n{token}")]}));
    let before = untouched(&s);
    let out = s.project.attest(T005, &field, &["--key", s.key.private.to_str().unwrap()]).failure(13);
    assert!(out.stderr.contains("would leak a GitHub token"), "{out}");
    assert!(!out.stderr.contains(&token[..20]), "{out}");
    assert_eq!(untouched(&s), before, "{out}");

    for title in [format!("[US{token}]"), format!("X{token}"), format!("v2{token}")] {
        let s = Setup::speckit(Evidence::Verified);
        let tasks = "specs/001-bookmark-tags/tasks.md";
        let text = String::from_utf8(s.project.read(tasks)).unwrap();
        s.project.write(tasks, text.replace("in src/tags/store.rs (FR-001", &format!("{title} (FR-001")));
        s.project.git(&["commit", "-qam", "a title that holds a token"]);
        let before = untouched(&s);
        let out =
            s.project.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).failure(13);
        assert!(out.stderr.contains("would leak a GitHub token in its `title` field"), "{out}");
        assert!(!out.stderr.contains(&token[..20]), "{out}");
        assert_eq!(untouched(&s), before, "{out}");
    }
}

#[test]
fn a_red_output_that_stops_inside_a_private_key_larger_than_the_excerpt_and_its_context_is_withheld() {
    let alphabet = b"Q7Yv0kP2cRrJm9sT5uW8zA1bC3dE5fG7hI9jK1lM3nxX4oN6pL8qB0wZ+/eDgHtU";
    let body: Vec<u8> = (0..12_800).map(|i| alphabet[(i * 7 + i / 64) % alphabet.len()]).collect();
    let body: String = body.chunks(64).map(|line| format!("{}\n", String::from_utf8_lossy(line))).collect();
    for end in ["-----END RSA PRIV", "", "Q7Yv0k"] {
        let s = Setup::speckit(Evidence::Verified);
        let red = format!("running 1 test\n-----BEGIN RSA PRIVATE KEY-----\n{body}{end}");
        std::fs::write(s.evidence.parent().unwrap().join("red.log"), red).unwrap();
        let out = s.attest_signed(&["--json"]);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["withheld"], json!(["red excerpt (not clean)"]), "{end:?}\n{out}");
        let lines = s.project.note_lines("HEAD");
        assert_eq!(lines[3].statement["predicate"]["red"]["withheld"], json!(true));
        assert!(
            lines.iter().all(|l| !String::from_utf8_lossy(&l.payload).contains(&body[body.len() - 200..]))
        );
    }
}

#[test]
fn an_unknown_task_s_message_never_quotes_a_box_line_that_holds_a_secret() {
    let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
    let tasks = "specs/001-bookmark-tags/tasks.md";
    for line in [format!("- [y] T005 [US1] use {token}"), format!("- [ ] T005\u{a0}[US1] use {token}")] {
        let s = Setup::speckit(Evidence::Verified);
        let text = String::from_utf8(s.project.read(tasks)).unwrap();
        let at = text.find("- [ ] T005 ").unwrap();
        let end = at + text[at..].find('\n').unwrap();
        s.project.write(tasks, format!("{}{line}{}", &text[..at], &text[end..]));
        s.project.git(&["commit", "-qam", "a box out of shape"]);
        for extra in [&[][..], &["--json"][..]] {
            let mut args = vec!["--key", s.key.private.to_str().unwrap()];
            args.extend(extra);
            let out = s.project.attest(T005, &s.evidence, &args).failure(2);
            let said = format!("{}{}", out.stdout, out.stderr);
            assert!(
                said.contains(
                    "boxes not read as tasks: line 23 `(a value not shown, as it holds a GitHub token)`"
                ),
                "{out}"
            );
            assert!(!said.contains(&token[..20]), "{out}");
        }
    }
}
