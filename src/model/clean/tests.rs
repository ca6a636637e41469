use super::*;
use serde_json::json;

/// The leaking corpus, one string per line (`#` starts a comment line).
fn corpus() -> Vec<&'static str> {
    include_str!("../../../fixtures/clean/leaking.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// Whether `rule` passes the literal test on `text`.
fn passes(rule: &Rule, text: &str) -> bool {
    let index = RULES.iter().position(|r| std::ptr::eq(r, rule)).unwrap();
    candidates(text) & (1 << index) != 0
}

fn kind(text: &str) -> Option<LeakKind> {
    check_str(text).err().map(|l| l.kind)
}

#[test]
fn a_finding_points_at_the_string_and_never_repeats_it() {
    let doc = json!({"predicate": {"task": {"title": "see /home/ada/notes"}}});
    let err = check_value(&doc).unwrap_err();
    assert_eq!(err.pointer, "/predicate/task/title");
    assert_eq!(err.leak.kind, LeakKind::LocalPath);
    assert!(!err.to_string().contains("ada"));
}

#[test]
fn a_finding_names_the_provider_of_a_token() {
    let leak = check_str("push with ghp_0123456789abcdefghijABCDEFGHIJ012345 failed").unwrap_err();
    assert_eq!((leak.kind, leak.what, leak.start, leak.end), (LeakKind::Token, "a GitHub token", 10, 50));
}

#[test]
fn keys_are_checked_too_and_named_by_their_object() {
    let doc = json!({"a": {"/tmp/ada": 1}});
    let err = check_value(&doc).unwrap_err();
    assert_eq!(err.pointer, "/a (key)");
    assert!(!err.to_string().contains("ada"), "{err}");
}

#[test]
fn the_pointer_escapes_tilde_and_slash_in_keys_and_counts_array_items() {
    let doc = json!({"a/b": [0, {"c~d": ["", " /home/ada"]}]});
    assert_eq!(check_value(&doc).unwrap_err().pointer, "/a~1b/1/c~0d/1");
}

#[test]
fn every_rule_compiles_and_fits_the_candidate_bits() {
    assert!(RULES.len() <= 128, "{} rules", RULES.len());
    for rule in RULES.iter() {
        let _ = rule.regex();
        assert!(!rule.needles.is_empty(), "{:?} has no literal", rule.pattern);
        for needle in rule.needles {
            assert!(needle.len() >= 2, "{needle:?}: the literal table needs two bytes");
        }
    }
}

#[test]
fn every_rule_finds_a_leak_in_the_corpus() {
    let lines = corpus();
    for rule in RULES.iter() {
        assert!(lines.iter().any(|l| rule.find(l).is_some()), "no corpus line for {:?}", rule.pattern);
    }
}

/// The literal test is looser than the rule: wherever a rule finds a leak, its literal test
/// passes, whatever stands before or after the sample (ASCII word characters, punctuation,
/// non-ASCII letters, URL parts).
#[test]
fn a_leak_a_rule_finds_always_passes_its_literal_test() {
    let before = ["", "a", "9", "_", "-", ".", "/", "\u{e9}", "x://", "@"];
    let after = ["", "Z", "_", ":", "\u{3b1}", "@"];
    for sample in corpus() {
        for before in before {
            for after in after {
                let text = format!("{before}{sample}{after}");
                let wanted = candidates(&text);
                for (index, rule) in RULES.iter().enumerate() {
                    let turned_away = wanted & (1 << index) == 0;
                    // `is_match` first: a cheap pass that most rules fail.
                    if turned_away && rule.regex().is_match(&text) {
                        assert!(
                            rule.find(&text).is_none(),
                            "{:?} finds a leak in {text:?} but its literal test fails",
                            rule.pattern
                        );
                    }
                }
            }
        }
    }
}

/// Each anchor turns away a literal in a place its pattern cannot match.
#[test]
fn literals_inside_words_urls_and_plain_links_compile_no_pattern() {
    let ordinary = [
        "https://speccoder.dev/task-verification/v0",
        "https://in-toto.io/Statement/v1",
        "git+https://github.com/o/r@0123abcd",
        "https://slsa.dev/verification_summary/v1",
        "mask-images and desk-lamps",
        "the shelf_life of a pnpm_like thing",
        "KAKIAN is a word; so are PASIAN and TACCATA",
    ];
    for text in ordinary {
        let hits: Vec<&str> = RULES.iter().filter(|r| passes(r, text)).map(|r| r.pattern.as_str()).collect();
        assert!(hits.is_empty(), "{text:?} passes the literal test of {hits:?}");
    }
}

#[test]
fn a_local_path_after_any_separator_is_caught_and_a_relative_one_is_not() {
    for text in [
        "run-/home/alice/x",
        "x_/tmp/y",
        "--out=/tmp/build",
        "PATH=/usr/bin:/home/ada/.cargo/bin",
        "cd /Users/grace",
        "(/root/.config)",
        "[/tmp]",
        "/home",
        "/mnt/c/Users/ada/src",
        "/run/user/1000/bus",
    ] {
        assert_eq!(kind(text), Some(LeakKind::LocalPath), "{text:?}");
    }
    for text in [
        "src/home/mod.rs",
        "./tmp/out.txt",
        "../tmp/out.txt",
        "~/tmp/x",
        "https://example.com/home/index.html",
        "http://localhost:8080/tmp/x",
        "/usr/lib/python3.12/unittest/case.py",
        "/homework",
        "tests/tmp_dir.rs",
    ] {
        assert_eq!(kind(text), None, "{text:?}");
    }
}

#[test]
fn fixtures_assigned_to_secret_names_pass() {
    for text in [
        "password: hunter2-redacted",
        "password = \"hunter2-redacted\"",
        "token=test-token-123",
        "API_KEY=${API_KEY}",
        "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        "password: <redacted>",
        "secret: ***",
        "DB_PASSWORD=%DB_PASSWORD%",
        "client_secret: xxxxxxxxxxxxxxxxxxxx",
        "cache_key: Linux-cargo-0f8fad5bd9cb469fa16570867728950e",
        "idempotency_key=0f8fad5b-d9cb-469f-a165-70867728950e",
        "max_tokens: 4096",
        "token_count=1234567890123",
        "tokenizer: bert-base-uncased",
        "author: Ada Lovelace",
        "auth_url: https://auth.example.com/oauth2/token",
        "key_file=tests/fixtures/keys/rsa_2048.pem",
        "secret_name=projects/my-proj-123456/secrets/db",
        "tests/test_auth.py::test_token_expiry PASSED",
        "--token-file tests/fixtures/token.txt",
        "password: correct-horse-battery-staple",
        "PWD=/builds/group/project-0f3a9c2e1b",
        "authorization: required for this endpoint",
        "cache-key-0123456789abcdef0123456789abcdef",
    ] {
        assert_eq!(check_str(text), Ok(()), "{text:?}");
    }
}

#[test]
fn random_values_assigned_to_secret_names_are_caught() {
    for text in [
        "API_SECRET=0f8fad5bd9cb469fa16570867728950e0f8fad5b",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "{\"password\": \"Xk9#mQ2$vL7!pR4@\"}",
        "--token Zr8KpX2mQ7vL3nW9",
        "<password>Zr8KpX2mQ7vL3nW9</password>",
        "api_key: 0f8fad5b-d9cb-469f-a165-70867728950e",
        "client_secret=Zr8KpX2mQ7vL3nW9tB4c",
        "x-api-key: Zr8KpX2mQ7vL3nW9tB4c",
        "SecretAccessKey: Zr8KpX2mQ7vL3nW9tB4cYd6Fh1Jk5",
        "cache_key=Zr8KpX2mQ7vL3nW9tB4c",
        // One assignment's value never hides the next.
        "env: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "flags=a:b:token=Zr8KpX2mQ7vL3nW9tB4c",
    ] {
        assert_eq!(kind(text), Some(LeakKind::Assignment), "{text:?}");
    }
}

#[test]
fn an_object_member_whose_name_says_secret_is_an_assignment() {
    let doc = json!({"context": {"db": {"password": "Zr8KpX2mQ7vL3nW9tB4c"}}});
    let err = check_value(&doc).unwrap_err();
    assert_eq!((err.pointer.as_str(), err.leak.kind), ("/context/db/password", LeakKind::Assignment));
    assert!(
        check_value(&json!({"password": "hunter2-redacted", "cache_key": "0f8fad5bd9cb469fa165"})).is_ok()
    );
}

#[test]
fn names_split_into_words_at_separators_and_camel_case() {
    assert_eq!(words_of("AWS_SECRET_ACCESS_KEY"), ["aws", "secret", "access", "key"]);
    assert_eq!(words_of("apiKey"), ["api", "key"]);
    assert_eq!(words_of("APIKey"), ["api", "key"]);
    assert_eq!(words_of("x-api-key"), ["x", "api", "key"]);
    assert_eq!(words_of("oauth2Token"), ["oauth2", "token"]);
    assert_eq!(name_hint("apikey"), Some(Hint::Secret));
    assert_eq!(name_hint("primary_key"), Some(Hint::Key));
    assert_eq!(name_hint("AZURE_DEVOPS_PAT"), Some(Hint::Secret));
    assert_eq!(name_hint("DB_PASS"), Some(Hint::Secret));
    assert_eq!(name_hint("path"), None);
    assert_eq!(name_hint("author"), None);
    assert_eq!(name_hint("keyboard"), None);
    assert_eq!(name_hint("PWD"), None);
    assert_eq!(name_hint("DB_PWD"), Some(Hint::Secret));
}

#[test]
fn words_are_told_from_random_letters() {
    for word in [
        "hunter2",
        "redacted",
        "Redacted",
        "HTTP",
        "HTTPServer",
        "camelCase",
        "ThisIsAnExample",
        "oauth2",
        "v1",
        "contraseña",
    ] {
        assert!(is_word(word), "{word:?}");
    }
    for random in ["xKqmPzWt", "aBcDeF", "s3cr3t", "test12345", "Zr8KpX2m"] {
        assert!(!is_word(random), "{random:?}");
    }
    assert!(!random_enough("hunter2-redacted"));
    assert!(!random_enough("aaaaaaaaaaaaaaaaaaaaaaaaa"));
    assert!(!random_enough("a1a1a1a1a1a1a1a1"));
    assert!(random_enough("Zr8KpX2mQ7vL"));
    assert!(random_enough("3f2a9c1e7b4d5f60"));
}

#[test]
fn a_bearer_or_basic_credential_is_caught_and_prose_is_not() {
    assert_eq!(kind("Authorization: Bearer 0123456789abcdefghij0123"), Some(LeakKind::Bearer));
    assert_eq!(kind("Authorization: Basic dXNlcjpwYXNz"), Some(LeakKind::Bearer));
    assert_eq!(kind("bearer token-based-authentication-flow"), None);
    assert_eq!(kind("the basic functionality works"), None);
}

#[test]
fn digests_uuids_versions_and_relative_paths_are_clean() {
    let doc = json!({"h": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "p": "src/home/mod.rs", "q": "./tmp/out.txt", "u": "https://github.com/o/r", "k": "SHA256:abc",
        "id": "0f8fad5b-d9cb-469f-a165-70867728950e", "v": "1.2.3-beta.4+build.5",
        "c": "commit 3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c"});
    assert!(check_value(&doc).is_ok());
}

/// Strings built to make a backtracking engine or a quadratic loop stall: each is checked (the
/// time is measured by `examples/bench_clean.rs`, not here).
#[test]
fn hostile_strings_of_every_rule_shape_are_checked_without_panic() {
    let n = 64 * 1024;
    let hostile = [
        "a".repeat(n),
        "a=".repeat(n / 2),
        "key=".repeat(n / 4),
        "://".repeat(n / 3),
        "://a:".repeat(n / 5),
        "-----BEGIN ".repeat(n / 11),
        "$2$".repeat(n / 3),
        "eyJ".repeat(n / 3) + ".",
        "password:".repeat(n / 9),
        "--token ".repeat(n / 8),
        format!("token={}", "Ab1".repeat(n / 3)),
    ];
    for text in &hostile {
        let _ = check_str(text);
        let _ = check_value(&json!({ "password": text }));
    }
    assert!(check_str(&format!("token={}", "Zr8KpX2mQ7vL3nW9".repeat(100))).is_err());
}
