use super::*;

const EXAMPLE: &str = r#"version = 1

[baseline]
commit = "0123456789abcdef0123456789abcdef01234567"
reason = "adopted after these tasks were ticked by hand"

[[rule]]
name = "payments"
units = ["*-payments-*"]
signers = ["alice@example.org"]
verdicts = ["verified"]
phases = ["green", "held_out"]
approvals = { count = 1, by = ["bob@example.org"] }
min_mutation_score = 0.8
min_strength = 0.9
monitor = ["clean"]
sandbox = ["container", "vm"]
carried = false
skips = false

[[rule]]
name = "default"
units = ["*"]
signers = ["*"]
"#;

fn error(text: &str) -> PolicyParseError {
    VerifierPolicy::parse(text.as_bytes(), "policy.toml").expect_err(text)
}

#[test]
fn the_example_of_the_issue_reads_with_every_key() {
    let p = VerifierPolicy::parse(EXAMPLE.as_bytes(), "policy.toml").unwrap();
    assert_eq!(p.baseline.as_ref().unwrap().commit.0, "0123456789abcdef0123456789abcdef01234567");
    let rules: Vec<&Rule> = p.rules().collect();
    assert_eq!(rules.len(), 2);
    let pay = rules[0];
    assert_eq!(pay.verdicts.as_deref(), Some(&[Verdict::Verified][..]));
    assert_eq!(pay.phases.as_deref(), Some(&[Phase::Green, Phase::HeldOut][..]));
    assert_eq!(pay.approvals.as_ref().unwrap().count, Count(1));
    assert_eq!(pay.min_mutation_score, Some(Share(0.8)));
    assert_eq!(pay.monitor.as_deref(), Some(&[MonitorState::Clean][..]));
    assert_eq!((pay.carried, pay.skips), (Some(false), Some(false)));
    assert_eq!(p.rule_for("007-payments-refunds").unwrap().0, 0);
    assert_eq!(p.rule_for("001-bookmark-tags").unwrap().1.name.0, "default");
}

#[test]
fn the_first_matching_rule_applies_and_none_may_match() {
    let p = VerifierPolicy::parse(
        b"version = 1\n[[rule]]\nname = \"a\"\nunits = [\"00[1-3]-*\"]\n[[rule]]\nname = \"b\"\nunits = [\"{x,y}\"]\n",
        "p",
    )
    .unwrap();
    assert_eq!(p.rule_for("002-z").unwrap().1.name.0, "a");
    assert_eq!(p.rule_for("y").unwrap().1.name.0, "b");
    assert!(p.rule_for("004-z").is_none());
}

#[test]
fn an_unknown_key_is_named_at_its_line_and_column() {
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\n  signer = [\"x\"]\n");
    assert_eq!((e.line, e.column), (5, 3), "{e}");
    assert!(e.message.contains("unknown field `signer`"), "{e}");
    assert!(e.to_string().starts_with("policy.toml:5:3: "), "{e}");
    let e = error("version = 1\ncolour = 1\n");
    assert_eq!(e.line, 2, "{e}");
}

#[test]
fn a_bad_glob_a_wrong_type_and_a_bad_value_are_named_where_written() {
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"ok\", \"[a-\"]\n");
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("not a glob"), "{e}");
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = \"*\"\n");
    assert_eq!(e.line, 4, "{e}");
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nmin_strength = 1.5\n");
    assert_eq!((e.line, e.message.contains("not a share")), (5, true), "{e}");
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nverdicts = [\"proven\"]\n");
    assert_eq!(e.line, 5, "{e}");
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\napprovals = { count = 0 }\n");
    assert_eq!(e.line, 5, "{e}");
    let e = error("version = 2\n");
    assert_eq!((e.line, e.message.contains("version 2")), (1, true), "{e}");
    let e = error("version = 1\n[baseline]\ncommit = \"main\"\nreason = \"r\"\n");
    assert_eq!((e.line, e.message.contains("full commit id")), (3, true), "{e}");
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nsigners = [\"\"]\n");
    assert_eq!(e.line, 5, "{e}");
}

#[test]
fn what_serde_cannot_say_is_refused_at_the_rule() {
    let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = []\n");
    assert!(e.message.contains("no units"), "{e}");
    let e = error(
        "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\n\n[[rule]]\nname = \"a\"\nunits = [\"x\"]\n",
    );
    assert!(e.message.contains("second rule named `a`"), "{e}");
    assert_eq!(e.line, 6, "{e}: the second rule's header");
    let e = error("[[rule]]\nname = \"a\"\nunits = [\"*\"]\n");
    assert!(e.message.contains("version"), "{e}");
}

#[test]
fn text_that_is_not_utf8_or_too_large_is_refused_unparsed() {
    let e = VerifierPolicy::parse(b"version = 1\nx = \"\xff\"\n", "p").unwrap_err();
    assert_eq!((e.line, e.column), (2, 6), "{e}");
    let big = vec![b'#'; usize::try_from(MAX_BYTES).unwrap() + 1];
    assert!(VerifierPolicy::parse(&big, "p").unwrap_err().message.contains("more than"));
}

#[test]
fn deeply_nested_toml_is_an_error_not_a_crash() {
    let text = format!("version = 1\nx = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    assert!(VerifierPolicy::parse(text.as_bytes(), "p").is_err());
}

#[test]
fn a_principal_names_what_the_trust_established() {
    let p = |s: &str| Principal::try_from(s.to_owned()).unwrap();
    let ada = ["ada@example.org".to_owned()];
    assert!(p("ada@example.org").names("ssh", "SHA256:x", &ada));
    assert!(p("*").names("ssh", "SHA256:x", &ada));
    assert!(!p("bob@example.org").names("ssh", "SHA256:x", &ada));
    let uid = ["Ada <ada@example.org>".to_owned()];
    assert!(p("ada@example.org").names("openpgp", "ABCD", &uid));
    assert!(p("abcd").names("openpgp", "ABCD", &uid));
    assert!(p("Ada <ada@example.org>").names("openpgp", "ABCD", &uid));
    assert!(!p("abcd").names("ssh", "ABCD", &uid), "an SSH key is named by its principals only");
}

#[test]
fn the_sha256_is_of_the_exact_bytes() {
    let loaded = LoadedPolicy::read(EXAMPLE.as_bytes(), "p", "p".into()).unwrap();
    assert_eq!(loaded.sha256, sha256_hex(EXAMPLE.as_bytes()));
}
