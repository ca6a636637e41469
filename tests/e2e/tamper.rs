//! The tamper suite: real repositories with real signed evidence, each changed the way a careless
//! or hostile writer could change it, and the verifier's exact outcome and reason for each. Every
//! case runs twice, in-process and with `--via-tools` (ssh-keygen -Y), and both must agree.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use common::*;
use serde_json::{Value, json};

const TASK: &str = "001-bookmark-tags/T005";

/// A project with one verified, signed tick of T005, an untrusted key, and the trust files.
struct Case {
    p: Project,
    ada: Key,
    eve: Key,
    allowed: PathBuf,
}

fn setup() -> Case {
    setup_with(Evidence::Verified)
}

fn setup_with(kind: Evidence) -> Case {
    setup_prepared(kind, &[], |_| {})
}

/// A project whose T005 is ticked with `kind` evidence by `speccoder attest <extra>`, after
/// `prepare` ran on the fresh project (trust and keys made, git's signing key set to ada's).
fn setup_prepared(kind: Evidence, extra: &[&str], prepare: impl FnOnce(&Case)) -> Case {
    setup_prepared_in(kind, extra, &[], prepare)
}

/// [`setup_prepared`], `speccoder attest` running with the environment variables `env` too.
fn setup_prepared_in(
    kind: Evidence,
    extra: &[&str],
    env: &[(&str, &str)],
    prepare: impl FnOnce(&Case),
) -> Case {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    let eve = ed25519(&p.scratch, "eve");
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    let c = Case { p, ada, eve, allowed };
    prepare(&c);
    c.p.write("src/tags.rs", "pub fn add_tag() {}\n");
    c.p.git(&["add", "src/tags.rs"]);
    let evidence = write_evidence(&c.p.scratch.join("ev"), TASK, kind);
    c.p.store_kit_held_out_named_by(TASK, &evidence);
    let mut args = vec!["attest", TASK, "--evidence", evidence.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut cmd = speccoder_command(&c.p.root, &c.p.home, &args);
    cmd.envs(env.iter().copied());
    run(cmd).success();
    c
}

/// The fixture unit's spec.md.
const SPEC_MD: &str = "specs/001-bookmark-tags/spec.md";

/// The first finding of code `code` on the report's first row.
fn first_finding<'r>(report: &'r Value, code: &str) -> Option<&'r Value> {
    report["ticks"][0]["findings"].as_array()?.iter().find(|f| f["code"] == code)
}

/// The verifier's report on the branch, checked to be the same with `--via-tools`.
fn verify(c: &Case, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["--branch", "--all"];
    args.extend_from_slice(extra);
    verify_with(c, &args)
}

/// The verifier's report (`attest verify --json --allowed-signers <ours> <args>`), checked to be
/// the same with `--via-tools`.
fn verify_with(c: &Case, extra: &[&str]) -> (i32, Value) {
    let allowed = c.allowed.to_str().unwrap().to_owned();
    let mut args = vec!["attest", "verify", "--json", "--allowed-signers", &allowed];
    args.extend_from_slice(extra);
    let ours = c.p.speccoder(&args);
    let mut tool_args = args.clone();
    tool_args.push("--via-tools");
    let tools = c.p.speccoder(&tool_args);
    let parse = |r: &Run| -> Value {
        serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{r}"))
    };
    let (a, b) = (parse(&ours), parse(&tools));
    let outcomes = |v: &Value| -> Vec<(Value, Value)> {
        v["ticks"].as_array().unwrap().iter().map(|t| (t["outcome"].clone(), t["reason"].clone())).collect()
    };
    assert_eq!(outcomes(&a), outcomes(&b), "in-process and ssh-keygen disagree\nours: {a}\ntools: {b}");
    assert_eq!(ours.code(), tools.code());
    (ours.code().unwrap_or(-1), a)
}

/// The single tick of `report`, checked for outcome and reason, returning its finding codes.
#[track_caller]
fn expect_tick(report: &Value, outcome: &str, reason: Option<&str>) -> Vec<String> {
    expect_tick_of(report, TASK, outcome, reason)
}

/// [`expect_tick`] for the tick of `task`.
#[track_caller]
fn expect_tick_of(report: &Value, task: &str, outcome: &str, reason: Option<&str>) -> Vec<String> {
    let ticks = report["ticks"].as_array().unwrap();
    let tick =
        ticks.iter().find(|t| t["task"] == task).unwrap_or_else(|| panic!("no tick for {task}: {report}"));
    assert_eq!(tick["outcome"], outcome, "{tick:#}");
    assert_eq!(tick["reason"], reason.map_or(Value::Null, |r| json!(r)), "{tick:#}");
    tick["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_owned()).collect()
}

#[track_caller]
fn expect_code(codes: &[String], code: &str) {
    assert!(codes.iter().any(|c| c == code), "expected finding {code}, found {codes:?}");
}

// --- note surgery, done with git and ssh-keygen, not with the crate ----------------------------

fn note_raw_lines(c: &Case, rev: &str) -> Vec<Vec<u8>> {
    c.p.note_raw_lines(rev)
}

fn write_note(c: &Case, rev: &str, lines: &[Vec<u8>]) {
    c.p.write_note(rev, lines);
}

/// An envelope line over `statement` signed by `key` with `ssh-keygen -Y sign`.
fn signed_line(c: &Case, statement: &Value, key: &Key) -> Vec<u8> {
    c.p.ssh_signed_line(statement, key)
}

/// An envelope line over `statement` signed with `ssh-keygen -Y sign -f signing` (a private key,
/// or a certificate beside its private key).
fn signed_line_with(c: &Case, statement: &Value, signing: &Path) -> Vec<u8> {
    c.p.ssh_signed_line_with(statement, signing)
}

fn index_of(lines: &[Vec<u8>], predicate_type_suffix: &str) -> usize {
    lines
        .iter()
        .position(|l| statement_of(l)["predicateType"].as_str().unwrap().contains(predicate_type_suffix))
        .unwrap()
}

/// Changes the statement of line `i` with `f`, re-signs it with ada, and (when `fix_summary`)
/// re-points the summary at the new digest and re-signs the summary too: a trusted signer
/// writing evidence that disagrees with the repository in exactly one way.
fn rewrite_signed(c: &Case, i: usize, fix_summary: bool, f: impl FnOnce(&mut Value)) {
    let mut lines = note_raw_lines(c, "HEAD");
    let old = statement_of(&lines[i]);
    let mut new = old.clone();
    f(&mut new);
    lines[i] = signed_line(c, &new, &c.ada);
    if fix_summary {
        let s = index_of(&lines, "verification_summary");
        let mut summary = statement_of(&lines[s]);
        let old_digest = sha256(&serde_json::to_vec(&old).unwrap());
        let new_digest = sha256(&serde_json::to_vec(&new).unwrap());
        for input in summary["predicate"]["inputAttestations"].as_array_mut().unwrap() {
            if input["digest"]["sha256"] == old_digest {
                input["digest"]["sha256"] = json!(new_digest);
            }
        }
        lines[s] = signed_line(c, &summary, &c.ada);
    }
    write_note(c, "HEAD", &lines);
}

/// Edits the envelope JSON of note line `i` in place (no re-signing).
fn edit_envelope(c: &Case, i: usize, f: impl FnOnce(&mut Value)) {
    let mut lines = note_raw_lines(c, "HEAD");
    let mut env: Value = serde_json::from_slice(&lines[i]).unwrap();
    f(&mut env);
    lines[i] = serde_json::to_vec(&env).unwrap();
    write_note(c, "HEAD", &lines);
}

fn tv(lines: &[Vec<u8>]) -> usize {
    index_of(lines, "task-verification")
}

// --- the baseline --------------------------------------------------------------------------------

#[test]
fn untouched_evidence_is_evidenced_by_both_verifiers() {
    let c = setup();
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
    assert_eq!(report["ticks"][0]["signers"][0]["principals"][0], PRINCIPAL);
}

// --- signatures ------------------------------------------------------------------------------------

#[test]
fn a_payload_changed_and_re_encoded_is_a_bad_signature() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    let i = tv(&lines);
    let mut env: Value = serde_json::from_slice(&lines[i]).unwrap();
    let mut st = statement_of(&lines[i]);
    st["predicate"]["task"]["title"] = json!("Something else entirely");
    env["payload"] = json!(STANDARD.encode(serde_json::to_vec(&st).unwrap()));
    lines[i] = serde_json::to_vec(&env).unwrap();
    write_note(&c, "HEAD", &lines);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    expect_code(&expect_tick(&report, "unverifiable", Some("bad_signature")), "bad_signature");
}

#[test]
fn a_signature_from_another_key_is_an_untrusted_signer() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    for l in &mut lines {
        *l = signed_line(&c, &statement_of(l), &c.eve);
    }
    write_note(&c, "HEAD", &lines);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "untrusted_signer");
}

#[test]
fn a_signature_over_other_bytes_is_a_bad_signature() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    let donor: Value = serde_json::from_slice(&lines[0]).unwrap();
    let mut env: Value = serde_json::from_slice(&lines[1]).unwrap();
    env["signatures"] = donor["signatures"].clone();
    lines[1] = serde_json::to_vec(&env).unwrap();
    write_note(&c, "HEAD", &lines);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("bad_signature")), "bad_signature");
}

/// The `SHA256:` fingerprint of `key`, as `ssh-keygen -l` prints it.
fn fingerprint(key: &Key) -> String {
    let out =
        Command::new("ssh-keygen").args(["-l", "-E", "sha256", "-f"]).arg(&key.public).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_whitespace().find(|w| w.starts_with("SHA256:")).unwrap().to_owned()
}

#[test]
fn a_signature_by_a_trusted_key_that_does_not_verify_beside_a_good_one_fails_the_line() {
    for kind in ["task-verification", "verification_summary"] {
        let c = setup();
        let mut lines = note_raw_lines(&c, "HEAD");
        let i = index_of(&lines, kind);
        let donor: Value = serde_json::from_slice(&lines[(i + 1) % lines.len()]).unwrap();
        let mut env: Value = serde_json::from_slice(&lines[i]).unwrap();
        // Ada's own signature, made over another line: her key, not over these bytes.
        env["signatures"].as_array_mut().unwrap().push(donor["signatures"][0].clone());
        lines[i] = serde_json::to_vec(&env).unwrap();
        write_note(&c, "HEAD", &lines);
        let (code, report) = verify(&c, &[]);
        assert_eq!(code, 26, "{kind}: {report:#}");
        expect_tick(&report, "unverifiable", Some("bad_signature"));
        let finding = &report["ticks"][0]["findings"][0];
        let message = finding["message"].as_str().unwrap();
        assert_eq!(finding["code"], "bad_signature", "{kind}: {finding:#}");
        assert_eq!(finding["line"], i + 1, "{kind}: {finding:#}");
        assert!(message.contains(&fingerprint(&c.ada)) && message.contains(PRINCIPAL), "{kind}: {message}");
    }
}

#[test]
fn a_signature_by_an_untrusted_key_beside_a_good_one_is_not_counted() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    let i = tv(&lines);
    let mut env: Value = serde_json::from_slice(&lines[i]).unwrap();
    // Eve's signature over this line (good, by a key nobody trusts) and over another (bad too).
    let eves: Value = serde_json::from_slice(&signed_line(&c, &statement_of(&lines[i]), &c.eve)).unwrap();
    let other = statement_of(&lines[(i + 1) % lines.len()]);
    let eves_other: Value = serde_json::from_slice(&signed_line(&c, &other, &c.eve)).unwrap();
    let sigs = env["signatures"].as_array_mut().unwrap();
    sigs.push(eves["signatures"][0].clone());
    sigs.push(eves_other["signatures"][0].clone());
    lines[i] = serde_json::to_vec(&env).unwrap();
    write_note(&c, "HEAD", &lines);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
}

#[test]
fn a_key_outside_its_valid_before_window_is_an_untrusted_signer() {
    let c = setup();
    let text =
        format!("{PRINCIPAL} namespaces=\"in-toto\",valid-before=\"20200101\" {}\n", c.ada.public_line);
    std::fs::write(&c.allowed, text).unwrap();
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "untrusted_signer");
}

/// A `valid-before` without `Z` is read in the local time zone (`TZ`), as ssh-keygen reads it, by
/// the in-process check and by `--via-tools` alike, and the report warns that it was.
#[test]
fn a_valid_before_without_z_is_read_in_the_local_time_zone_by_both_checkers() {
    let c = setup();
    let date =
        std::process::Command::new("date").args(["-u", "-d", "+2 hours", "+%Y%m%d%H%M"]).output().unwrap();
    let later = String::from_utf8(date.stdout).unwrap();
    let text = format!(
        "{PRINCIPAL} namespaces=\"in-toto\",valid-before=\"{}\" {}\n",
        later.trim(),
        c.ada.public_line
    );
    std::fs::write(&c.allowed, text).unwrap();
    // In UTC the key is trusted for two more hours; five hours east of UTC that time was three
    // hours ago.
    for (tz, outcome) in [("UTC", "evidenced"), ("XXX-5", "unverifiable")] {
        for via_tools in [false, true] {
            let (_, report) = report_in_zone(&c, tz, via_tools);
            assert_eq!(report["ticks"][0]["outcome"], outcome, "TZ={tz} via tools: {via_tools}: {report:#}");
            let warned = report["warnings"].to_string();
            assert!(warned.contains("valid-before has no trailing Z"), "{tz}: {report:#}");
        }
    }
}

/// `attest verify --branch --all --json` with the case's trust, run with `TZ=tz`, in-process or
/// `--via-tools`: its exit code and report.
fn report_in_zone(c: &Case, tz: &str, via_tools: bool) -> (i32, Value) {
    let allowed = c.allowed.to_str().unwrap();
    let mut args = vec!["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed];
    args.extend(via_tools.then_some("--via-tools"));
    let mut cmd = common::speccoder_command(&c.p.root, &c.p.home, &args);
    cmd.env("TZ", tz);
    let out = common::run(cmd);
    let report: Value = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    (out.code().unwrap_or(-1), report)
}

/// A time without `Z` is read as ssh-keygen reads it, whose `mktime` is told no summer time
/// (`tm_isdst` 0): in the zone's standard time even when summer time applies, by the in-process
/// check and by `--via-tools` alike. At 12:00 UTC on 1 July (14:00 summer time in Berlin), 13:30
/// on the wall is 12:30 UTC read in standard time (11:30 in summer time).
#[test]
fn a_time_without_z_in_summer_is_read_in_standard_time_by_both_checkers() {
    let summer = "2024-07-01T12:00:00Z";
    let env = [("GIT_COMMITTER_DATE", summer), ("GIT_AUTHOR_DATE", summer)];
    let c = setup_prepared_in(Evidence::Verified, &[], &env, |_| {});
    for tz in ["Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3"] {
        for (option, code, outcome) in [("valid-before", 0, "evidenced"), ("valid-after", 26, "unverifiable")]
        {
            let line = format!("{PRINCIPAL} {option}=\"20240701133000\" {}\n", c.ada.public_line);
            std::fs::write(&c.allowed, line).unwrap();
            for via_tools in [false, true] {
                let (exit, report) = report_in_zone(&c, tz, via_tools);
                let said = format!("TZ={tz} {option} via tools: {via_tools}: {report:#}");
                assert_eq!((exit, report["ticks"][0]["outcome"].as_str()), (code, Some(outcome)), "{said}");
            }
        }
    }
}

/// OpenSSH matches nothing with a pattern list holding a pattern of 1023 bytes or more, so such a
/// principal, or namespaces entry, leaves its line trusting no one (the short principal beside it
/// neither), on both paths; at 1022 bytes the line holds.
#[test]
fn a_pattern_of_1023_bytes_leaves_its_line_trusting_no_one_on_both_paths() {
    let c = setup();
    for (len, code) in [(1022, 0), (1023, 26)] {
        let long = "a".repeat(len);
        let key = &c.ada.public_line;
        for line in [
            format!("{PRINCIPAL},{long} namespaces=\"in-toto\" {key}\n"),
            format!("{PRINCIPAL} namespaces=\"in-toto,{long}\" {key}\n"),
        ] {
            std::fs::write(&c.allowed, line).unwrap();
            let (exit, report) = verify(&c, &[]);
            assert_eq!(exit, code, "{len} bytes: {report:#}");
        }
    }
}

#[test]
fn a_principal_not_allowed_for_namespace_in_toto_is_an_untrusted_signer() {
    let c = setup();
    let text = format!("{PRINCIPAL} namespaces=\"git,file\" {}\n", c.ada.public_line);
    std::fs::write(&c.allowed, text).unwrap();
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "untrusted_signer");
}

#[test]
fn a_revoked_key_is_an_untrusted_signer() {
    let c = setup();
    let revoked = c.p.scratch.join("revoked");
    std::fs::write(&revoked, format!("{}\n", c.ada.public_line)).unwrap();
    let (_, report) = verify(&c, &["--revoked", revoked.to_str().unwrap()]);
    expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "revoked_key");
}

#[test]
fn unsigned_evidence_fails_unless_accepted_and_then_says_so() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    for l in &mut lines {
        let mut env: Value = serde_json::from_slice(l).unwrap();
        env["signatures"] = json!([]);
        *l = serde_json::to_vec(&env).unwrap();
    }
    write_note(&c, "HEAD", &lines);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    expect_code(&expect_tick(&report, "unverifiable", Some("unsigned")), "unsigned");
    let (code, report) = verify(&c, &["--accept-unsigned"]);
    assert_eq!(code, 0);
    expect_tick(&report, "evidenced", None);
    assert_eq!(report["ticks"][0]["accepted_unsigned"], true);
}

// --- the bundle --------------------------------------------------------------------------------------

#[test]
fn a_dropped_line_leaves_the_summary_naming_a_foreign_line() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    lines.remove(0);
    write_note(&c, "HEAD", &lines);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "summary_names_foreign_line");
}

#[test]
fn an_added_line_the_summary_does_not_name_is_a_mismatch() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    let mut extra = statement_of(&lines[0]);
    extra["predicate"]["configuration"][0]["name"] = json!("speccoder:phase/held_out");
    lines.insert(0, signed_line(&c, &extra, &c.ada));
    write_note(&c, "HEAD", &lines);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "summary_missing_line");
}

#[test]
fn a_line_from_another_commits_note_is_a_subject_mismatch() {
    let c = setup();
    let first = note_raw_lines(&c, "HEAD");
    // A second tick, T006, and T005's first line copied into its note.
    let evidence = write_evidence(&c.p.scratch.join("ev6"), "001-bookmark-tags/T006", Evidence::Verified);
    c.p.attest("001-bookmark-tags/T006", &evidence, &[]).success();
    let mut lines = note_raw_lines(&c, "HEAD");
    lines.push(first[0].clone());
    write_note(&c, "HEAD", &lines);
    let (_, report) = verify(&c, &[]);
    let t6 =
        report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == "001-bookmark-tags/T006").unwrap();
    assert_eq!(t6["outcome"], "unverifiable");
    assert!(t6["findings"].as_array().unwrap().iter().any(|f| f["code"] == "subject_mismatch"), "{t6:#}");
    expect_tick(&report, "evidenced", None);
}

/// Where a finding compares the signed evidence with the repository, `expected` is always the
/// signed value and `found` the repository's, so a reader never has to guess which is which.
#[test]
fn a_note_copied_to_another_task_s_commit_reports_the_signed_values_as_expected() {
    let c = setup();
    let first = c.p.rev("HEAD");
    let first_tree = c.p.rev("HEAD^{tree}");
    let note = c.p.note("HEAD").unwrap();
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(c.p.read(tasks)).unwrap();
    c.p.write(tasks, text.replacen("- [ ] T006", "- [X] T006", 1));
    c.p.git(&["add", tasks]);
    let message = "Tick T006 by hand\n\nSpec-Task: 001-bookmark-tags/T006\nVerdict: verified\n";
    c.p.git(&["commit", "-q", "-m", message]);
    let file = c.p.scratch.join("copied");
    std::fs::write(&file, &note).unwrap();
    c.p.git(&["notes", "--ref=speccoder", "add", "--no-stripspace", "-F", file.to_str().unwrap(), "HEAD"]);
    let (second, second_tree) = (c.p.rev("HEAD"), c.p.rev("HEAD^{tree}"));

    let (code, report) = verify_with(&c, &["HEAD"]);
    assert_eq!(code, 26, "{report:#}");
    let findings = report["ticks"][0]["findings"].as_array().unwrap();
    let values = |code: &str| {
        let f =
            findings.iter().find(|f| f["code"] == code).unwrap_or_else(|| panic!("no {code}: {findings:#?}"));
        (f["expected"].as_str().unwrap().to_owned(), f["found"].as_str().unwrap().to_owned())
    };
    let (expected, found) = values("subject_mismatch");
    assert!(expected.contains(&format!("001-bookmark-tags/T005@{first}")), "{expected}");
    assert!(found.contains(&format!("001-bookmark-tags/T006@{second}")), "{found}");
    assert_eq!(
        values("task_mismatch"),
        ("001-bookmark-tags/T005".to_owned(), "001-bookmark-tags/T006".to_owned())
    );
    assert_eq!(values("tree_mismatch"), (first_tree, second_tree));
    let (signed, at_commit) = values("line_hash_mismatch");
    let tv =
        c.p.note_lines("HEAD").into_iter().find(|l| l.predicate_type().ends_with("task-verification/v0"));
    assert_eq!(signed, tv.unwrap().statement["predicate"]["task"]["line_hash"].as_str().unwrap(), "signed");
    assert_ne!(at_commit, signed);
}

#[test]
fn a_note_moved_to_another_commit_leaves_the_task_commit_missing() {
    let c = setup();
    let note = c.p.note("HEAD").unwrap();
    c.p.git(&["commit", "-q", "--allow-empty", "-m", "later work"]);
    let file = c.p.scratch.join("moved");
    std::fs::write(&file, &note).unwrap();
    c.p.git(&["notes", "--ref=speccoder", "add", "--no-stripspace", "-F", file.to_str().unwrap(), "HEAD"]);
    c.p.git(&["notes", "--ref=speccoder", "remove", "HEAD~1"]);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("missing")), "note_missing");
}

#[test]
fn a_removed_note_is_missing() {
    let c = setup();
    c.p.git(&["notes", "--ref=speccoder", "remove", "HEAD"]);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("missing")), "note_missing");
}

#[test]
fn a_truncated_json_line_is_malformed() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    let half = lines[2].len() / 2;
    lines[2].truncate(half);
    write_note(&c, "HEAD", &lines);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "not_an_envelope");
}

#[test]
fn a_note_of_many_junk_lines_is_reported_for_twenty_and_one_finding_counts_the_rest() {
    let c = setup();
    let mut lines = note_raw_lines(&c, "HEAD");
    let genuine = lines.len();
    lines.extend(std::iter::repeat_n(b"x".to_vec(), 1000));
    write_note(&c, "HEAD", &lines);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    let codes = expect_tick(&report, "unverifiable", Some("malformed"));
    assert_eq!(codes.iter().filter(|c| *c == "not_an_envelope").count(), 20, "of {} findings", codes.len());
    let rest = first_finding(&report, "lines_not_read");
    let rest = rest.unwrap_or_else(|| panic!("no lines_not_read finding: {codes:?}"));
    assert_eq!(rest["line"], genuine + 21);
    let says = format!("980 more lines after line {} were not read", genuine + 20);
    assert!(rest["message"].as_str().unwrap().contains(&says), "{rest}");

    let sign = attest_sign(&c, "HEAD").failure(26);
    assert_eq!(sign.stderr.matches("not_an_envelope").count(), 20, "{sign}");
    assert!(sign.stderr.contains(&says), "{sign}");
}

#[test]
fn a_note_of_its_own_lines_repeated_is_read_for_64_lines_and_one_finding_counts_the_rest() {
    let c = setup();
    let genuine = note_raw_lines(&c, "HEAD");
    let lines: Vec<Vec<u8>> = genuine.iter().cycle().take(genuine.len() * 200).cloned().collect();
    write_note(&c, "HEAD", &lines);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    let codes = expect_tick(&report, "unverifiable", Some("malformed"));
    assert!(codes.len() < 80, "findings grow with the lines read, not the note: {}", codes.len());
    let rest = first_finding(&report, "lines_not_read");
    let rest = rest.unwrap_or_else(|| panic!("no lines_not_read finding: {codes:?}"));
    assert_eq!(rest["line"], 65);
    let says = format!("{} more lines after line 64 were not read", lines.len() - 64);
    assert!(rest["message"].as_str().unwrap().contains(&says), "{rest}");

    let sign = attest_sign(&c, "HEAD").failure(26);
    assert!(sign.stderr.contains(&says), "{sign}");
}

/// A note of its own lines repeated past the 2 MiB a reader takes (one note joined into itself over
/// and over) is not read, and neither the finding nor `attest sign` says to remove it: they say to
/// keep it and how, and the commands the finding gives, run as given, keep each line once and the
/// tick verifies again.
#[test]
fn a_note_too_large_to_read_is_kept_and_the_commands_the_finding_gives_restore_its_evidence() {
    let c = setup();
    let genuine = note_raw_lines(&c, "HEAD");
    let size: usize = genuine.iter().map(|l| l.len() + 1).sum();
    let copies = (2 << 20) / size + 2;
    let lines: Vec<Vec<u8>> = genuine.iter().cycle().take(genuine.len() * copies).cloned().collect();
    write_note(&c, "HEAD", &lines);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "note_too_large");
    let said = first_finding(&report, "note_too_large").unwrap()["message"].as_str().unwrap().to_owned();
    assert!(said.contains("keep it, as removing it would lose the evidence it holds"), "{said}");
    assert!(!said.contains("remove it"), "{said}");
    let sign = attest_sign(&c, "HEAD").failure(14);
    assert!(sign.stderr.contains("keep it, as removing it") && !sign.stderr.contains("remove it"), "{sign}");

    // The commands in its backquotes, as a person would paste them.
    let quoted: Vec<&str> = said.split('`').skip(1).step_by(2).collect();
    let commit = c.p.rev("HEAD");
    let one_each = quoted.iter().find(|q| q.contains("awk")).unwrap_or_else(|| panic!("{said}"));
    let rejoin = format!("speccoder attest rejoin {commit}");
    let look = format!("git notes --ref=refs/notes/speccoder show {commit} | head -c 4096");
    assert!(quoted.contains(&rejoin.as_str()) && quoted.contains(&look.as_str()), "{said}");
    let mut sh = Command::new("sh");
    isolate(&mut sh, &c.p.home);
    sh.current_dir(&c.p.root).args(["-c", one_each]);
    run(sh).success();
    assert_eq!(note_raw_lines(&c, "HEAD"), genuine, "each line kept once");
    let allowed = c.allowed.to_str().unwrap();
    c.p.speccoder(&["attest", "rejoin", &commit, "--allowed-signers", allowed]).success();
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report}");
    expect_tick(&report, "evidenced", None);
}

#[test]
fn a_payload_that_is_not_base64_is_malformed() {
    let c = setup();
    edit_envelope(&c, 1, |env| env["payload"] = json!("this is %%% not base64"));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "not_an_envelope");
}

#[test]
fn a_wrong_payload_type_is_malformed() {
    let c = setup();
    edit_envelope(&c, 1, |env| env["payloadType"] = json!("application/json"));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "wrong_payload_type");
}

#[test]
fn a_type_other_than_statement_v1_is_malformed() {
    let c = setup();
    rewrite_signed(&c, 0, true, |st| st["_type"] = json!("https://in-toto.io/Statement/v0.1"));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "wrong_statement_type");
}

#[test]
fn a_predicate_of_major_version_one_is_malformed_and_not_supported() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    rewrite_signed(&c, tv(&lines), true, |st| {
        st["predicateType"] = json!("https://speccoder.dev/task-verification/v1");
    });
    let (_, report) = verify(&c, &[]);
    let tick = &report["ticks"][0];
    assert_eq!(tick["reason"], "malformed");
    let f = first_finding(&report, "unsupported_predicate_version").unwrap();
    assert!(f["message"].as_str().unwrap().contains("not supported by this verifier"), "{f}");
}

#[test]
fn unknown_fields_and_a_newer_revision_are_named_and_do_not_fail() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    rewrite_signed(&c, tv(&lines), true, |st| {
        st["predicate"]["revision"] = json!(7);
        st["predicate"]["provenance"] = json!({"builder": "future"});
    });
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
    assert_eq!(report["ticks"][0]["not_evaluated"], json!(["provenance", "revision 7"]));
}

#[test]
fn a_wrong_subject_name_or_commit_is_a_mismatch() {
    let c = setup();
    rewrite_signed(&c, 0, true, |st| st["subject"][0]["name"] = json!("001-bookmark-tags/T004"));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "subject_mismatch");

    let c = setup();
    rewrite_signed(&c, 0, true, |st| st["subject"][0]["digest"]["gitCommit"] = json!("0".repeat(40)));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "subject_mismatch");
}

#[test]
fn a_subject_sha256_unlike_the_commit_object_is_a_mismatch() {
    let c = setup();
    rewrite_signed(&c, 0, true, |st| st["subject"][0]["digest"]["sha256"] = json!("0".repeat(64)));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "subject_mismatch");
}

#[test]
fn lines_written_before_the_subject_sha256_existed_still_verify_by_git_commit() {
    let c = setup();
    let drop_sha256 = |st: &mut Value| {
        let digest = st["subject"][0]["digest"].as_object_mut().unwrap();
        assert!(digest.remove("sha256").is_some(), "the producer writes the commit object's sha256");
    };
    let count = note_raw_lines(&c, "HEAD").len();
    let summary = index_of(&note_raw_lines(&c, "HEAD"), "verification_summary");
    for i in (0..count).filter(|&i| i != summary) {
        rewrite_signed(&c, i, true, drop_sha256);
    }
    rewrite_signed(&c, summary, false, drop_sha256);
    for line in note_raw_lines(&c, "HEAD") {
        assert_eq!(statement_of(&line)["subject"][0]["digest"].as_object().unwrap().len(), 1);
    }
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
}

// --- agreement with the repository ----------------------------------------------------------

#[test]
fn a_verdict_trailer_edited_by_amend_no_longer_matches() {
    let c = setup();
    let msg = c.p.git(&["log", "-1", "--format=%B"]).replace("Verdict: verified", "Verdict: regression_only");
    c.p.git(&["commit", "-q", "--amend", "-m", &msg]);
    c.p.git(&["notes", "--ref=speccoder", "copy", "main@{1}", "HEAD"]);
    let (_, report) = verify(&c, &[]);
    let codes = expect_tick(&report, "unverifiable", Some("mismatch"));
    expect_code(&codes, "verdict_mismatch");
    expect_code(&codes, "subject_mismatch");
}

/// The amended verdict leaves every line's subject naming the old commit: one finding, the same
/// on each line, said once in the text and the Markdown report, naming the lines; JSON keeps one
/// entry per line.
#[test]
fn a_finding_repeated_on_every_line_of_a_note_is_said_once_naming_its_lines() {
    let c = setup();
    let msg = c.p.git(&["log", "-1", "--format=%B"]).replace("Verdict: verified", "Verdict: regression_only");
    c.p.git(&["commit", "-q", "--amend", "-m", &msg]);
    c.p.git(&["notes", "--ref=speccoder", "copy", "main@{1}", "HEAD"]);
    let lines = note_raw_lines(&c, "HEAD").len();
    assert!(lines > 2, "a note of several lines");
    let md = c.p.scratch.join("report.md");
    let allowed = c.allowed.to_str().unwrap();
    let args = ["attest", "verify", "--branch", "--all", "--allowed-signers", allowed];
    let text = c.p.speccoder(&[&args[..], &["--markdown", md.to_str().unwrap()]].concat()).failure(26);
    let said = text.stdout.lines().filter(|l| l.contains("subject_mismatch")).collect::<Vec<_>>();
    assert_eq!(said.len(), 1, "said once:\n{text}");
    assert!(
        said[0].trim_start().starts_with(&format!("subject_mismatch lines 1-{lines}: the note names ")),
        "{text}"
    );
    assert_eq!(said[0].matches("[expected ").count(), 1, "{text}");
    assert!(text.stdout.contains("verdict_mismatch line 4: "), "another finding keeps its own line\n{text}");
    let markdown = std::fs::read_to_string(&md).unwrap();
    let row = markdown.lines().find(|l| l.contains(TASK)).unwrap_or_else(|| panic!("{markdown}"));
    assert_eq!(row.matches("the note names").count(), 1, "{row}");
    assert!(row.contains(&format!("(lines 1-{lines})")), "{row}");

    let (_, report) = verify(&c, &[]);
    let at: Vec<u64> = report["ticks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "subject_mismatch")
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    assert_eq!(at, (1..=lines as u64).collect::<Vec<_>>(), "one JSON finding per line");
}

#[test]
fn a_spec_task_trailer_edited_by_amend_leaves_the_tick_without_evidence() {
    let c = setup();
    let msg =
        c.p.git(&["log", "-1", "--format=%B"])
            .replace("Spec-Task: 001-bookmark-tags/T005", "Spec-Task: 001-bookmark-tags/T004");
    c.p.git(&["commit", "-q", "--amend", "-m", &msg]);
    c.p.git(&["notes", "--ref=speccoder", "copy", "main@{1}", "HEAD"]);
    let (_, report) = verify(&c, &[]);
    // T005 is ticked but no reachable commit names it any more; the old commit is unreachable.
    expect_tick(&report, "unverifiable", Some("commit_unreachable"));
}

#[test]
fn evidence_left_behind_by_a_local_squash_is_not_blamed_on_a_merge() {
    let c = setup();
    c.p.git(&["reset", "-q", "--soft", "HEAD~1"]);
    c.p.git(&["commit", "-q", "-m", "squashed locally before review"]);
    let (_, report) = verify(&c, &[]);
    expect_tick(&report, "unverifiable", Some("commit_unreachable"));
    let message = first_finding(&report, "commit_unreachable").unwrap()["message"].as_str().unwrap();
    assert!(!message.contains("squash merge left"), "no merge happened: {message}");
    assert!(message.contains("the task commit left the branch"), "{message}");
    assert!(message.contains("attest the task again"), "{message}");
}

#[test]
fn a_changed_tree_is_a_mismatch() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    rewrite_signed(&c, tv(&lines), true, |st| st["predicate"]["tree"] = json!("1".repeat(40)));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "tree_mismatch");
}

#[test]
fn a_task_line_edited_at_the_head_is_a_mismatch_naming_the_task_line_and_what_to_do() {
    let c = setup();
    let tasks = String::from_utf8(c.p.read("specs/001-bookmark-tags/tasks.md")).unwrap();
    let edited =
        tasks.replace("Implement adding a tag to a bookmark", "Implement adding many tags to a bookmark");
    assert_ne!(tasks, edited);
    let line = 1 + edited.lines().position(|l| l.contains("T005")).unwrap();
    c.p.write("specs/001-bookmark-tags/tasks.md", edited);
    c.p.git(&["commit", "-q", "-am", "reword T005"]);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "line_changed_at_head");
    // The task's line at the head, in its task list (the finding's `line` is the note's).
    let message = first_finding(&report, "line_changed_at_head").unwrap()["message"].as_str().unwrap();
    let at = format!("task T005 (specs/001-bookmark-tags/tasks.md line {line} at the head)");
    assert!(message.contains(&at), "{message}");
    let what_to_do = "restore the line as it was ticked, or untick the task and attest it again";
    assert!(message.ends_with(what_to_do), "{message}");
}

#[test]
fn a_note_copied_from_another_task_is_not_said_to_have_an_edited_line_at_the_head() {
    let c = setup();
    c.p.speccoder(&["accept", "001-bookmark-tags/T004", "--reason", "by hand"]).success();
    c.p.git(&["notes", "--ref=speccoder", "copy", "-f", "HEAD~1", "HEAD"]);
    c.p.write("src/later.rs", "pub fn later() {}\n");
    c.p.git(&["add", "src/later.rs"]);
    c.p.git(&["commit", "-q", "-m", "later work"]);
    let (_, report) = verify(&c, &[]);
    let codes = expect_tick_of(&report, "001-bookmark-tags/T004", "unverifiable", Some("mismatch"));
    expect_code(&codes, "task_mismatch");
    assert!(!codes.iter().any(|c| c == "line_changed_at_head"), "T004's line is as ticked: {codes:?}");
}

#[test]
fn a_cited_requirement_edited_at_the_head_makes_the_tick_stale_and_fails_the_branch() {
    let c = setup();
    let spec = String::from_utf8(c.p.read("specs/001-bookmark-tags/spec.md")).unwrap();
    let line = spec.lines().find(|l| l.contains("**FR-001**")).unwrap().to_owned();
    c.p.write(
        "specs/001-bookmark-tags/spec.md",
        spec.replace(&line, &format!("{line} Tags are case-insensitive.")),
    );
    c.p.git(&["commit", "-q", "-am", "tighten FR-001"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    expect_code(&expect_tick(&report, "stale", Some("stale")), "requirement_changed");
}

#[test]
fn a_spec_md_over_the_limit_at_the_head_leaves_a_cited_tick_unverifiable_naming_its_size() {
    let c = setup();
    let mut spec = String::from_utf8(c.p.read("specs/001-bookmark-tags/spec.md")).unwrap();
    let mut n = 0;
    while spec.len() <= speccoder_attest::spec::SPEC_FILE_LIMIT {
        spec.push_str(&format!("- **SC-{n:07}**: System MUST x.\n"));
        n += 1;
    }
    c.p.write("specs/001-bookmark-tags/spec.md", &spec);
    c.p.git(&["commit", "-q", "-am", "a spec.md of a million bytes and more"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    expect_code(&expect_tick(&report, "unverifiable", Some("spec_unreadable")), "spec_unreadable");
    let text = report.to_string();
    let said = format!("is {} bytes, more than the 1048576 bytes speccoder reads of spec.md", spec.len());
    assert!(text.contains(&said), "{report:#}");
}

#[test]
fn a_summary_missing_a_line_is_a_mismatch() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    rewrite_signed(&c, index_of(&lines, "verification_summary"), false, |st| {
        st["predicate"]["inputAttestations"].as_array_mut().unwrap().remove(0);
    });
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "summary_missing_line");
}

#[test]
fn a_summary_naming_a_foreign_line_is_a_mismatch() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    rewrite_signed(&c, index_of(&lines, "verification_summary"), false, |st| {
        st["predicate"]["inputAttestations"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "test-result/held_out", "digest": {"sha256": "ab".repeat(32)}}));
    });
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "summary_names_foreign_line");
}

#[test]
fn the_wrong_level_for_the_verdict_is_a_mismatch() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    rewrite_signed(&c, index_of(&lines, "verification_summary"), false, |st| {
        st["predicate"]["verifiedLevels"] = json!(["SPECCODER_REGRESSION_ONLY"]);
    });
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "wrong_level");
}

#[test]
fn a_policy_other_than_the_parents_is_a_mismatch() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    rewrite_signed(&c, tv(&lines), true, |st| st["predicate"]["policy_sha256"] = json!("cd".repeat(32)));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "policy_mismatch");
}

#[test]
fn a_decision_carrying_a_test_result_is_a_mismatch() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    let i = tv(&lines);
    // Turn the tick into a decision on both sides (trailer and statement), keeping the test lines.
    rewrite_signed(&c, i, true, |st| {
        st["predicate"]["verdict"] = json!("attested");
        st["predicate"]["decider"] = json!({"by": "Ada Lovelace", "reason": "looked fine"});
    });
    let note = note_raw_lines(&c, "HEAD");
    let msg = c.p.git(&["log", "-1", "--format=%B"]).replace("Verdict: verified", "Verdict: attested");
    c.p.git(&["commit", "-q", "--amend", "-m", &msg]);
    write_note(&c, "HEAD", &note);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "decision_with_evidence");
}

// --- ticks without evidence ----------------------------------------------------------------------

#[test]
fn a_ticked_task_without_any_task_commit_is_unverifiable() {
    let c = setup();
    let tasks = String::from_utf8(c.p.read("specs/001-bookmark-tags/tasks.md")).unwrap();
    c.p.write("specs/001-bookmark-tags/tasks.md", tasks.replacen("- [ ] T006", "- [X] T006", 1));
    c.p.git(&["commit", "-q", "-am", "tick T006 by hand"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    let t6 =
        report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == "001-bookmark-tags/T006").unwrap();
    assert_eq!(t6["outcome"], "unverifiable");
    assert_eq!(t6["reason"], "ticked_without_evidence");
}

#[test]
fn a_squash_merged_branch_leaves_the_evidence_unreachable() {
    let c = setup();
    let task_commit = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "squashed", "HEAD~1"]);
    c.p.git(&["merge", "-q", "--squash", &task_commit]);
    c.p.git(&["commit", "-q", "-m", "Squashed work"]);
    let (_, report) = verify(&c, &[]);
    let codes = expect_tick(&report, "unverifiable", Some("commit_unreachable"));
    expect_code(&codes, "commit_unreachable");
    let msg = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(msg.contains("merge commit"), "{msg}");
}

#[test]
fn a_corrupt_note_on_one_commit_does_not_stop_the_others_from_being_checked() {
    let c = setup();
    let evidence = write_evidence(&c.p.scratch.join("ev6"), "001-bookmark-tags/T006", Evidence::Verified);
    c.p.attest("001-bookmark-tags/T006", &evidence, &[]).success();
    write_note(&c, "HEAD~1", &[b"{ not json at all".to_vec()]);
    let (_, report) = verify(&c, &[]);
    expect_tick(&report, "unverifiable", Some("malformed"));
    let t6 =
        report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == "001-bookmark-tags/T006").unwrap();
    assert_eq!(t6["outcome"], "evidenced", "{t6:#}");
}

// --- trust comes from the caller ----------------------------------------------------------------

#[test]
fn a_trust_file_the_checked_tree_provides_is_refused() {
    let c = setup();
    std::fs::copy(&c.allowed, c.p.root.join("allowed_signers")).unwrap();
    c.p.git(&["add", "allowed_signers"]);
    c.p.git(&["commit", "-q", "-m", "bring my own trust"]);
    let r = c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", "allowed_signers"]);
    let r = r.failure(13);
    assert!(r.stderr.contains("refusing"), "{r}");
    // The same file in a linked work tree of the branch is the branch's too.
    let linked = c.p.scratch.join("linked");
    c.p.git(&["worktree", "add", "-q", "--detach", linked.to_str().unwrap(), "HEAD"]);
    let in_linked = linked.join("allowed_signers");
    let args = ["attest", "verify", "--branch", "--all", "--allowed-signers", in_linked.to_str().unwrap()];
    let r = c.p.speccoder(&args).failure(13);
    assert!(r.stderr.contains("refusing") && r.stderr.contains("allowed_signers"), "{r}");
    // A file of trust that no flag reads from a revision is refused with advice that fits it:
    // never the allowed-signers flag, which would read a revocation list as whom to trust.
    std::fs::copy(&c.allowed, c.p.root.join("revoked")).unwrap();
    c.p.git(&["add", "revoked"]);
    c.p.git(&["commit", "-q", "-m", "bring my own revocations"]);
    let allowed = c.allowed.to_str().unwrap();
    let args =
        ["attest", "verify", "--branch", "--all", "--allowed-signers", allowed, "--revoked", "revoked"];
    let r = c.p.speccoder(&args).failure(13);
    assert!(r.stderr.contains("refusing revoked") && r.stderr.contains("git show <base>:revoked"), "{r}");
    assert!(!r.stderr.contains("--allowed-signers-rev"), "{r}");
}

/// A trust file at a place in the work tree whose name is not UTF-8 is refused: the checked tree
/// is asked by text, and a text with U+FFFD in place of each such byte names another place, so
/// the file the branch commits there would pass for the caller's own.
#[cfg(unix)]
#[test]
fn a_trust_file_at_a_place_that_is_not_utf8_is_refused_whatever_the_tree_holds() {
    use std::os::unix::ffi::OsStrExt as _;
    let c = setup();
    let dir = std::ffi::OsStr::from_bytes(b"keys-\xff\xfe");
    std::fs::create_dir(c.p.root.join(dir)).unwrap();
    std::fs::copy(&c.allowed, c.p.root.join(dir).join("allowed")).unwrap();
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "bring my own trust"]);
    let given = std::path::Path::new(dir).join("allowed");
    let args = [
        std::ffi::OsStr::new("attest"),
        "verify".as_ref(),
        "--branch".as_ref(),
        "--all".as_ref(),
        "--allowed-signers".as_ref(),
        given.as_os_str(),
    ];
    let r = c.p.speccoder(&args).failure(13);
    assert!(r.stderr.contains("refusing") && r.stderr.contains("keys-\\xFF\\xFE/allowed"), "{r}");
    assert!(r.stderr.contains("is not UTF-8") && r.stderr.contains("pass a file from outside"), "{r}");
}

/// A trust file in a submodule of the checked tree is the branch's choice too, and the advice
/// offers no `--allowed-signers-rev` copy: no revision of this repository holds the submodule's
/// files.
#[test]
fn a_trust_file_in_a_submodule_of_the_checked_tree_is_refused_with_advice_that_leads_somewhere() {
    let c = setup();
    let keys = c.p.root.join("vendor/keys");
    std::fs::create_dir_all(&keys).unwrap();
    std::fs::copy(&c.allowed, keys.join("allowed")).unwrap();
    let who = ["-c", "user.name=Eve", "-c", "user.email=eve@example.com", "-c", "commit.gpgsign=false"];
    c.p.git_in(&keys, &["init", "-q"]);
    c.p.git_in(&keys, &["add", "-A"]);
    c.p.git_in(&keys, &[&who[..], &["commit", "-qm", "keys of our choice"]].concat());
    c.p.git(&["add", "vendor/keys"]);
    c.p.git(&["commit", "-q", "-m", "keys (a submodule)"]);
    assert!(c.p.git(&["ls-tree", "HEAD", "vendor/keys"]).starts_with("160000 commit"), "a gitlink");
    let args = ["attest", "verify", "--branch", "--all", "--allowed-signers", "vendor/keys/allowed"];
    let r = c.p.speccoder(&args).failure(13);
    assert!(r.stderr.contains("in the submodule `vendor/keys` of the tree being checked"), "{r}");
    assert!(
        r.stderr.contains("pass a file from outside the repository") && !r.stderr.contains("-rev"),
        "{r}"
    );
}

/// A symbolic link the branch commits chooses which file outside the work tree is read: refused
/// as the file itself would be, whether it is the file given or a directory on the way to it.
#[cfg(unix)]
#[test]
fn a_trust_file_reached_through_a_link_the_checked_tree_provides_is_refused() {
    let c = setup();
    let outside = c.p.scratch_dir("lenient");
    std::fs::copy(&c.allowed, outside.join("allowed_signers")).unwrap();
    std::os::unix::fs::symlink(outside.join("allowed_signers"), c.p.root.join("trust")).unwrap();
    std::os::unix::fs::symlink(&outside, c.p.root.join("trust-dir")).unwrap();
    let verify =
        |file: &str| c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", file]);
    // Links of the caller's own, which the branch does not hold, are followed.
    verify("trust").success();
    verify("trust-dir/allowed_signers").success();
    c.p.git(&["add", "trust", "trust-dir"]);
    c.p.git(&["commit", "-q", "-m", "bring my own trust through links"]);
    for (file, held) in [("trust", "`trust`"), ("trust-dir/allowed_signers", "`trust-dir`")] {
        let r = verify(file).failure(13);
        assert!(r.stderr.contains("refusing") && r.stderr.contains(held), "{file}: {r}");
    }
}

/// A trust file git's configuration names and that cannot be read is blamed on that setting,
/// never on a flag the command line did not give.
#[test]
fn a_trust_file_git_names_that_cannot_be_read_is_blamed_on_its_setting() {
    let c = setup();
    let missing = c.p.scratch.join("missing");
    let allowed = c.allowed.to_str().unwrap();
    c.p.git(&["config", "gpg.ssh.revocationFile", missing.to_str().unwrap()]);
    let r =
        c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", allowed]).failure(13);
    assert!(r.stderr.contains("check git's gpg.ssh.revocationFile setting"), "{r}");
    let r = c.p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--all",
        "--allowed-signers",
        allowed,
        "--revoked",
        missing.to_str().unwrap(),
    ]);
    let r = r.failure(13);
    assert!(r.stderr.contains("check the path given to --revoked"), "the flag names it first: {r}");
    c.p.git(&["config", "--unset", "gpg.ssh.revocationFile"]);
    c.p.git(&["config", "gpg.ssh.allowedSignersFile", missing.to_str().unwrap()]);
    let r = c.p.speccoder(&["attest", "verify", "--branch", "--all"]).failure(13);
    assert!(r.stderr.contains("check git's gpg.ssh.allowedSignersFile setting"), "{r}");
}

#[cfg(unix)]
#[test]
fn a_trust_file_that_is_a_fifo_or_a_device_is_refused_without_waiting_and_a_linked_one_is_read() {
    let c = setup();
    let fifo = c.p.scratch.join("trust.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (fifo, allowed) = (fifo.to_str().unwrap(), c.allowed.to_str().unwrap());
    let fifo_refused = "trust.fifo: it is a FIFO, not a regular file";
    let cases: [(&[&str], &str); 4] = [
        (&["--allowed-signers", fifo], fifo_refused),
        (&["--allowed-signers", "/dev/zero"], "/dev/zero: it is a device, not a regular file"),
        (&["--allowed-signers", allowed, "--revoked", fifo], fifo_refused),
        (&["--allowed-signers", allowed, "--openpgp-certs", fifo], fifo_refused),
    ];
    for (flags, says) in cases {
        let mut args = vec!["attest", "verify", "--branch", "--all"];
        args.extend(flags);
        let r = c.p.speccoder(&args).failure(13);
        assert!(r.stderr.contains(says), "{args:?} should say {says:?}\n{r}");
    }
    // Dotfile managers link a person's trust files into place: a link to a regular file is read.
    let link = c.p.scratch.join("linked_allowed_signers");
    std::os::unix::fs::symlink(&c.allowed, &link).unwrap();
    c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", link.to_str().unwrap()])
        .success();
}

/// A blob of `size` newlines written by `git hash-object -w --stdin`, streamed so that the test
/// never holds it: its id.
fn write_blob_of_newlines(p: &Project, size: usize) -> String {
    use std::io::Write as _;
    let mut cmd = common::git_command(&p.root, &p.home, &["hash-object", "-w", "--stdin"]);
    let mut git = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = git.stdin.take().unwrap();
    let chunk = vec![b'\n'; 1 << 20];
    for _ in 0..size / chunk.len() {
        stdin.write_all(&chunk).unwrap();
    }
    drop(stdin);
    let out = git.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[cfg(target_os = "linux")]
#[test]
fn an_object_larger_than_speccoder_reads_is_refused_unread() {
    // About a megabyte in the repository, 260 MiB inflated: the head's task list of the ticked
    // unit, which the check reads. Its size is told from the object's header, before it is read:
    // the peak memory stays far below it.
    let c = setup();
    let size = 260 << 20;
    let blob = write_blob_of_newlines(&c.p, size);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    c.p.git(&["update-index", "--cacheinfo", &format!("100644,{blob},{tasks}")]);
    c.p.git(&["commit", "-q", "-m", "a task list of 260 MiB"]);
    let allowed = c.allowed.to_str().unwrap();
    let r = peak_of(&c, &["attest", "verify", "--branch", "--all", "--allowed-signers", allowed]);
    assert_eq!(r.0.code(), Some(26), "a unit's finding, every other row reported: {}", r.0);
    let says =
        format!("`{tasks}` is {size} bytes, more than the 1048576 bytes speccoder reads of the task list");
    assert!(r.0.stdout.contains(&says), "{}", r.0);
    assert!(r.0.stdout.contains("(tasks_unreadable)"), "{}", r.0);
    assert!(r.1 < size as u64 / 1024 / 4, "a {size}-byte task list took {} KB at peak", r.1);
}

/// The output of `speccoder args` in `c`'s repository, and its peak memory in KB.
#[cfg(target_os = "linux")]
fn peak_of(c: &Case, args: &[&str]) -> (Run, u64) {
    let mut cmd = Command::new("/usr/bin/time");
    cmd.args(["-f", "peak %M"]).arg(speccoder_bin()).args(args);
    cmd.current_dir(&c.p.root);
    isolate(&mut cmd, &c.p.home);
    let r = run(cmd);
    let peak = r.stderr.lines().find_map(|l| l.strip_prefix("peak ")?.trim().parse().ok()).unwrap();
    (r, peak)
}

#[test]
fn trust_read_from_the_base_revision_is_accepted() {
    let c = setup();
    // The base (main~1, before the tick) holds the allowed signers; the branch is checked against it.
    c.p.git(&["checkout", "-q", "-b", "trust", "HEAD~1"]);
    std::fs::copy(&c.allowed, c.p.root.join("allowed_signers")).unwrap();
    c.p.git(&["add", "allowed_signers"]);
    c.p.git(&["commit", "-q", "-m", "trust"]);
    c.p.git(&["checkout", "-q", "main"]);
    c.p.git(&["merge", "-q", "--no-edit", "trust"]);
    let r = c.p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--base",
        "trust",
        "--allowed-signers-rev",
        "trust:allowed_signers",
    ]);
    assert_eq!(r.code(), Some(0), "{r}");
    let r = c.p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--base",
        "trust",
        "--allowed-signers-rev",
        "HEAD:allowed_signers",
    ]);
    r.failure(13);
}

/// Each principal of a line is taken once, in a time that grows with the line, not its square:
/// 100,000 principals took minutes before, and take well under a second now.
#[test]
fn a_line_of_a_hundred_thousand_principals_verifies_in_linear_time() {
    let c = setup();
    let mut principals: Vec<String> = (0..100_000).map(|i| format!("u{i}@x")).collect();
    principals.push(PRINCIPAL.to_owned());
    let line = format!("{} namespaces=\"in-toto\" {}\n", principals.join(","), c.ada.public_line);
    let allowed = c.p.scratch.join("allowed_many");
    std::fs::write(&allowed, line).unwrap();
    let started = std::time::Instant::now();
    let r = c.p.speccoder(&[
        "attest",
        "verify",
        "--json",
        "--branch",
        "--all",
        "--allowed-signers",
        allowed.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    assert_eq!(r.code(), Some(0), "{r}");
    let report: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    expect_tick(&report, "evidenced", None);
    assert!(took < std::time::Duration::from_secs(15), "took {took:?}");
}

/// A task whose story is in a `spec.md` larger than speccoder reads is refused, the file never
/// read: the writer's peak memory stays far below the file's size. (A verifier reads each task
/// commit's `spec.md` for its story text; since every spec file is held to 1 MiB, no tick's
/// `spec.md` can be larger, so a check of many ticks holds a bounded amount of them.)
#[cfg(target_os = "linux")]
#[test]
fn a_task_whose_story_is_in_a_spec_md_over_the_limit_is_refused_unread() {
    let c = setup();
    let spec = "specs/001-bookmark-tags/spec.md";
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let mut text = c.p.read(spec);
    text.extend("lorem ipsum dolor sit amet ".repeat(3_000_000).bytes());
    let size_kb = text.len() as u64 / 1024;
    let mut list = c.p.read(tasks);
    list.extend(b"- [ ] T010 [US1] extra task 10\n");
    c.p.write(tasks, list);
    c.p.write(spec, &text);
    c.p.git(&["commit", "-q", "-am", "spec"]);
    let task = "001-bookmark-tags/T010";
    let evidence = write_evidence(&c.p.scratch.join("ev10"), task, Evidence::Verified);
    let r = peak_of(&c, &["attest", task, "--evidence", evidence.to_str().unwrap()]);
    assert_eq!(r.0.code(), Some(13), "{}", r.0);
    let says =
        format!("`{spec}` is {} bytes, more than the 1048576 bytes speccoder reads of spec.md", text.len());
    assert!(r.0.stderr.contains(&says), "{}", r.0);
    // Against the same command refused before it reads any spec file (evidence for another
    // task): what a build's own code and set-up take, larger in a debug build, is not the file's.
    let unknown =
        peak_of(&c, &["attest", "001-bookmark-tags/T099", "--evidence", evidence.to_str().unwrap()]);
    assert!(unknown.0.code() == Some(13) && unknown.0.stderr.contains("is for task"), "{}", unknown.0);
    assert!(
        r.1 < unknown.1 + size_kb / 4,
        "a {size_kb} KB spec.md took {} KB at peak ({} KB without it)",
        r.1,
        unknown.1
    );
}

#[test]
fn trust_at_a_revision_is_held_to_the_allowed_signers_limits_a_link_or_directory_is_named_and_no_rev_path_is_usage()
 {
    let c = setup();
    // A trust branch of its own, made with git's plumbing: the good file, one of 16 MiB + 1
    // byte, a link to the good file, and a directory holding it.
    let hash = |path: &Path| c.p.git(&["hash-object", "-w", path.to_str().unwrap()]).trim().to_owned();
    let good = hash(&c.allowed);
    let big_path = c.p.scratch.join("allowed_big");
    let mut big = "#".repeat(16 << 20).into_bytes();
    big.extend_from_slice(b"\n");
    std::fs::write(&big_path, &big).unwrap();
    let big = hash(&big_path);
    std::fs::remove_file(&big_path).unwrap();
    let link_target = c.p.scratch.join("link_target");
    std::fs::write(&link_target, "allowed").unwrap();
    let link = hash(&link_target);
    let mktree = |listing: String| {
        let mut cmd = git_command(&c.p.root, &c.p.home, &["mktree"]);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), listing.as_bytes()).unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap().trim().to_owned()
    };
    let dir = mktree(format!("100644 blob {good}\tallowed\n"));
    let tree = mktree(format!(
        "100644 blob {good}\tallowed\n100644 blob {big}\tallowed_big\n120000 blob {link}\tallowed_link\n040000 tree {dir}\tdir\n"
    ));
    let commit = c.p.git(&["commit-tree", &tree, "-m", "trust"]);
    c.p.git(&["update-ref", "refs/heads/trust", commit.trim()]);

    let verify_rev =
        |spec: &str| c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers-rev", spec]);
    assert_eq!(verify_rev("trust:allowed").code(), Some(0));
    for (path, says) in [
        ("allowed_big", "it is 16777217 bytes at that revision, larger than the 16777216 bytes".to_owned()),
        ("allowed_link", "it is a symbolic link at that revision, not a regular file".to_owned()),
        ("dir", "it is a directory at that revision, not a regular file".to_owned()),
        ("absent", "no such file at that revision".to_owned()),
    ] {
        let r = verify_rev(&format!("trust:{path}")).failure(13);
        assert!(r.stderr.contains(&format!("--allowed-signers-rev trust:{path}: {says}")), "{r}");
    }
    // Not REV:PATH at all is a usage error, with an example that names the base in full.
    for malformed in
        ["trust", "trust:", ":allowed", "trust:./allowed", "trust:a/../allowed", "trust:a//b", "trust:/abs"]
    {
        let r = verify_rev(malformed).failure(2);
        assert!(r.stderr.contains("takes REV:PATH (e.g. refs/remotes/origin/main:"), "{r}");
        assert!(r.stderr.contains("without an empty, `.` or `..` part"), "{r}");
    }
}

#[cfg(unix)]
#[test]
fn a_markdown_report_path_that_the_branch_made_a_link_is_refused_never_written_through() {
    let c = setup();
    let victim = c.p.scratch.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, c.p.root.join("report.md")).unwrap();
    let allowed = c.allowed.to_str().unwrap();
    let args =
        ["attest", "verify", "--branch", "--all", "--allowed-signers", allowed, "--markdown", "report.md"];
    let r = c.p.speccoder(&args).failure(13);
    assert!(r.stderr.contains("cannot write report.md: it is a symbolic link"), "{r}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[test]
fn the_markdown_report_names_every_tick_and_reason() {
    let c = setup();
    c.p.git(&["notes", "--ref=speccoder", "remove", "HEAD"]);
    let md = c.p.scratch.join("report.md");
    let allowed = c.allowed.to_str().unwrap();
    c.p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--all",
        "--allowed-signers",
        allowed,
        "--markdown",
        md.to_str().unwrap(),
    ])
    .failure(26);
    let text = std::fs::read_to_string(md).unwrap();
    assert!(text.contains("| unverifiable | ` 001-bookmark-tags/T005 ` |"), "{text}");
    assert!(text.contains("missing"), "{text}");
}

#[test]
fn a_regression_only_tick_fails_only_under_require_verified() {
    let c = setup_with(Evidence::RegressionOnly);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    let (code, report) = verify(&c, &["--require-verified"]);
    assert_eq!(code, 26);
    expect_tick(&report, "unverifiable", Some("not_verified"));
    let _ = &c.eve;
}

#[test]
fn no_mutation_of_a_note_makes_the_verifier_panic() {
    use speccoder_attest::verify::trust::Trust;
    let c = setup();
    let original = c.p.note("HEAD").unwrap();
    let repo_dir = c.p.root.clone();
    // A fixed-seed xorshift: the same 120 mutations on every run.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    for round in 0..120 {
        let mut bytes = original.clone();
        match round % 4 {
            0 => {
                let at = next(bytes.len());
                bytes[at] ^= 1 << next(8);
            }
            1 => bytes.truncate(next(bytes.len())),
            2 => {
                let at = next(bytes.len());
                bytes.insert(at, [b'"', b'{', b'}', b'\n', b'=', 0xff][next(6)]);
            }
            _ => {
                let at = next(bytes.len());
                let len = next(64).min(bytes.len() - at);
                bytes.drain(at..at + len);
            }
        }
        c.p.write_note_bytes("HEAD", &bytes);
        let repo = speccoder_attest::git::Repo::discover(&repo_dir).unwrap();
        let report =
            speccoder_attest::verify::verify_commits(&repo, Some("HEAD"), &Trust::default()).unwrap();
        // The commit is always reported, with an outcome and a reason; never a panic, never a pass
        // (this run trusts no key, so nothing can pass).
        assert_eq!(report.ticks.len(), 1, "round {round}");
        assert_eq!(report.ticks[0].outcome.as_str(), "unverifiable", "round {round}");
        assert!(report.ticks[0].reason.is_some(), "round {round}");
    }
}

// --- attest sign signs only what its own checks accept ------------------------------------------

const T006: &str = "001-bookmark-tags/T006";

/// `attest sign REV` with ada's key.
fn attest_sign(c: &Case, rev: &str) -> Run {
    c.p.speccoder(&["attest", "sign", rev, "--key", c.ada.private.to_str().unwrap()])
}

/// The attack of a notes writer on the sign-later step: lines made for their own commit, added to
/// a note awaiting `attest sign`, to be moved back once the maintainer's key signed them.
#[test]
fn attest_sign_refuses_lines_forged_for_another_commit_and_the_forged_commit_never_verifies() {
    let c = setup_prepared(Evidence::Verified, &["--signer", "none"], |_| {});
    // The attacker's own tick of T006, unsigned; its lines go into the note of T005.
    let evidence = write_evidence(&c.p.scratch.join("ev6"), T006, Evidence::Verified);
    c.p.attest(T006, &evidence, &["--signer", "none"]).success();
    let forged = note_raw_lines(&c, "HEAD");
    let mut waiting = note_raw_lines(&c, "HEAD~1");
    let own = waiting.len();
    waiting.extend(forged.iter().cloned());
    write_note(&c, "HEAD~1", &waiting);
    c.p.git(&["notes", "--ref=speccoder", "remove", "HEAD"]);
    let before = c.p.note("HEAD~1").unwrap();

    // The maintainer signs later: refused, each forged line named with its finding.
    let r = attest_sign(&c, "HEAD~1").failure(26);
    for n in own + 1..=own + forged.len() {
        assert!(r.stderr.contains(&format!("subject_mismatch line {n}:")), "line {n}\n{r}");
    }
    assert!(!r.stderr.contains(&format!("line {own}:")), "T005's own lines hold\n{r}");
    assert!(r.stderr.contains("nothing was signed"), "{r}");
    assert_eq!(c.p.note("HEAD~1").unwrap(), before, "nothing was signed");

    // The attacker moves the lines to their commit anyway: unsigned, so it fails.
    write_note(&c, "HEAD", &note_raw_lines(&c, "HEAD~1")[own..]);
    let (code, report) = verify_with(&c, &["HEAD"]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick_of(&report, T006, "unverifiable", Some("unsigned")), "unsigned");
}

#[test]
fn attest_sign_refuses_a_line_that_disagrees_with_its_commit_and_signs_nothing() {
    let c = setup_prepared(Evidence::Verified, &["--signer", "none"], |_| {});
    let mut lines = note_raw_lines(&c, "HEAD");
    let i = tv(&lines);
    let mut st = statement_of(&lines[i]);
    st["predicate"]["tree"] = json!("1".repeat(40));
    let mut env: Value = serde_json::from_slice(&lines[i]).unwrap();
    env["payload"] = json!(STANDARD.encode(serde_json::to_vec(&st).unwrap()));
    lines[i] = serde_json::to_vec(&env).unwrap();
    write_note(&c, "HEAD", &lines);
    let before = c.p.note("HEAD").unwrap();
    let r = attest_sign(&c, "HEAD").failure(26);
    assert!(r.stderr.contains(&format!("tree_mismatch line {}:", i + 1)), "{r}");
    assert!(r.stderr.contains("summary_missing_line"), "the summary no longer names the line\n{r}");
    assert_eq!(c.p.note("HEAD").unwrap(), before);
}

#[test]
fn attest_sign_keeps_another_signers_signature_byte_for_byte_and_adds_its_own_beside_it() {
    let c = setup_prepared(Evidence::Verified, &["--signer", "none"], |_| {});
    let mut lines = note_raw_lines(&c, "HEAD");
    lines[0] = signed_line(&c, &statement_of(&lines[0]), &c.eve);
    write_note(&c, "HEAD", &lines);
    let r = attest_sign(&c, "HEAD").success();
    assert!(r.stdout.contains("5 lines, 5 signed by this signer (5 signed now, 0 signed before)"), "{r}");
    assert!(
        r.stdout.contains("warning: line 1 carries signatures that do not verify with this signer's key"),
        "{r}"
    );
    let signed = note_raw_lines(&c, "HEAD");
    let (eve, now): (Value, Value) =
        (serde_json::from_slice(&lines[0]).unwrap(), serde_json::from_slice(&signed[0]).unwrap());
    assert_eq!(now["payload"], eve["payload"]);
    assert_eq!(now["signatures"][0], eve["signatures"][0], "eve's signature is as it was");
    assert_eq!(now["signatures"].as_array().map(Vec::len), Some(2), "ada's beside it: {now}");
    assert!(signed[1..].iter().zip(&lines[1..]).all(|(a, b)| a != b), "the others are signed now");
    // Eve is not trusted; Ada's signature holds for every line, hers among them.
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["ticks"][0]["covered_lines"], json!([]), "{report:#}");
}

// --- notes read as git writes them --------------------------------------------------------------

/// `git mktree` of `text` (git's `ls-tree` format); the tree id.
fn mktree(c: &Case, text: &str) -> String {
    let file = c.p.scratch.join("tree.txt");
    std::fs::write(&file, text).unwrap();
    let mut cmd = git_command(&c.p.root, &c.p.home, &["mktree"]);
    cmd.stdin(std::fs::File::open(&file).unwrap());
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Points `refs/notes/speccoder` at a new notes commit of `root`.
fn set_notes_tree(c: &Case, root: &str) {
    let parent = c.p.rev("refs/notes/speccoder");
    let commit = c.p.git(&["commit-tree", "-p", &parent, "-m", "hostile notes", root]);
    c.p.git(&["update-ref", "refs/notes/speccoder", commit.trim()]);
}

#[test]
fn two_notes_for_one_commit_are_ambiguous_never_one_of_them() {
    let c = setup();
    let head = c.p.rev("HEAD");
    let listed = c.p.git(&["notes", "--ref=speccoder", "list", "HEAD"]);
    let blob = listed.trim();
    let mut decoy = note_raw_lines(&c, "HEAD");
    decoy.truncate(1);
    let decoy_file = c.p.scratch.join("decoy");
    std::fs::write(&decoy_file, [decoy[0].as_slice(), b"\n"].concat()).unwrap();
    let decoy_blob = c.p.git(&["hash-object", "-w", decoy_file.to_str().unwrap()]);
    let sub = mktree(&c, &format!("100644 blob {}\t{}\n", decoy_blob.trim(), &head[2..]));
    set_notes_tree(
        &c,
        &mktree(&c, &format!("100644 blob {blob}\t{head}\n040000 tree {sub}\t{}\n", &head[..2])),
    );
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "note_ambiguous");
}

#[test]
fn a_notes_tree_reaching_one_tree_twice_stops_the_verifier_naming_it() {
    let c = setup();
    let head = c.p.rev("HEAD");
    let blob = c.p.git(&["notes", "--ref=speccoder", "list", "HEAD"]);
    let sub = mktree(&c, &format!("100644 blob {}\t{}\n", blob.trim(), &head[2..]));
    // The note's own fan-out directory and fifteen others, all naming the same subtree.
    let mut names: Vec<String> = (0..16).map(|i| format!("{:02x}", i * 16 + 1)).collect();
    names[0] = head[..2].to_owned();
    names.sort();
    names.dedup();
    set_notes_tree(
        &c,
        &mktree(&c, &names.iter().map(|n| format!("040000 tree {sub}\t{n}\n")).collect::<String>()),
    );
    let allowed = c.allowed.to_str().unwrap();
    for tools in [&[][..], &["--via-tools"]] {
        let mut args = vec!["attest", "verify", "--branch", "--all", "--allowed-signers", allowed];
        args.extend_from_slice(tools);
        let r = c.p.speccoder(&args).failure(14);
        assert!(
            r.stderr.contains(&format!("is not one git writes (the tree {sub} is reached twice)")),
            "{r}"
        );
    }
}

// --- the verdict is tied to the phases ------------------------------------------------------------

/// An edit of the evidence JSON's phase at the given index.
type EditPhase = fn(&mut Value, usize);

#[test]
fn the_producer_refuses_a_verified_verdict_its_phases_contradict_naming_the_phase() {
    let p = Project::speckit();
    let red = std::fs::read(crate_root().join("fixtures/evidence/red.log")).unwrap();
    let phase = |v: &mut Value, name: &str| -> usize {
        v["phases"].as_array().unwrap().iter().position(|ph| ph["phase"] == name).unwrap()
    };
    let cases: [(&str, EditPhase); 4] = [
        ("green", |v, i| v["phases"][i]["result"] = json!("FAILED")),
        ("green", |v, i| v["phases"][i]["result"] = json!("WARNED")),
        ("held_out", |v, i| {
            v["phases"][i]["result"] = json!("FAILED");
            v["phases"][i]["passed"] = json!(0);
        }),
        ("held_out", |v, i| v["phases"][i]["passed"] = json!(2)),
    ];
    for (n, (name, edit)) in cases.into_iter().enumerate() {
        let mut evidence = evidence_json(TASK, Evidence::WithHeldOut);
        let i = phase(&mut evidence, name);
        edit(&mut evidence, i);
        let file = write_evidence_value(&p.scratch.join(format!("ev{n}")), &evidence, &red);
        let before = p.snapshot();
        let r = p.attest(TASK, &file, &["--signer", "none"]).failure(13);
        assert!(r.stderr.contains(&format!("`{name}`")) && r.stderr.contains("verified"), "{name}\n{r}");
        assert_eq!(p.snapshot(), before, "nothing written");
    }
}

/// The line of `lines` whose test result is of `phase`.
fn phase_line(lines: &[Vec<u8>], phase: &str) -> usize {
    let name = format!("speccoder:phase/{phase}");
    lines.iter().position(|l| statement_of(l)["predicate"]["configuration"][0]["name"] == name).unwrap()
}

#[test]
fn a_verified_note_whose_green_run_failed_is_a_verdict_mismatch() {
    let c = setup();
    let green = phase_line(&note_raw_lines(&c, "HEAD"), "green");
    rewrite_signed(&c, green, true, |st| st["predicate"]["result"] = json!("FAILED"));
    for extra in [&[][..], &["--require-verified"]] {
        let (code, report) = verify(&c, extra);
        assert_eq!(code, 26, "{report:#}");
        expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "verdict_mismatch");
    }
}

#[test]
fn a_verified_note_whose_held_out_run_failed_or_missed_a_test_is_a_verdict_mismatch() {
    let edits: [fn(&mut Value); 2] = [
        |st| {
            st["predicate"]["result"] = json!("FAILED");
            st["predicate"]["configuration"][0]["annotations"]["passed"] = json!(0);
        },
        |st| st["predicate"]["configuration"][0]["annotations"]["passed"] = json!(2),
    ];
    for edit in edits {
        let c = setup_with(Evidence::WithHeldOut);
        let held_out = phase_line(&note_raw_lines(&c, "HEAD"), "held_out");
        rewrite_signed(&c, held_out, true, edit);
        let (code, report) = verify(&c, &["--require-verified"]);
        assert_eq!(code, 26, "{report:#}");
        let tick = &report["ticks"][0];
        let finding = tick["findings"].as_array().unwrap().iter().find(|f| f["code"] == "verdict_mismatch");
        let finding = finding.unwrap_or_else(|| panic!("no verdict_mismatch: {tick:#}"));
        assert_eq!(finding["line"], json!(held_out + 1), "{finding:#}");
        assert_eq!(finding["expected"], "PASSED with passed=total", "{finding:#}");
        expect_tick(&report, "unverifiable", Some("mismatch"));
    }
}

// --- the signature time -----------------------------------------------------------------------------

/// The committer date of a backdated tick: 2023-11-14.
const BACKDATED: &str = "@1700000000 +0000";

/// A case whose tick (signed by ada at attest) carries the committer date [`BACKDATED`].
fn setup_backdated() -> Case {
    let env = [("GIT_COMMITTER_DATE", BACKDATED), ("GIT_AUTHOR_DATE", BACKDATED)];
    setup_prepared_in(Evidence::Verified, &[], &env, |_| {})
}

/// A time without `Z` is read in the local time zone as ssh-keygen reads it; where `TZ` names
/// a zone this reader cannot read (a POSIX rule without its dates, which glibc reads with default
/// ones), the trust file is refused rather than read in another zone, and a time with `Z` still
/// reads.
#[test]
fn a_local_time_in_a_time_zone_speccoder_cannot_read_is_refused_not_read_as_utc() {
    let c = setup_backdated();
    let allowed = c.allowed.to_str().unwrap().to_owned();
    let args = ["attest", "verify", "--branch", "--all", "--allowed-signers", allowed.as_str()];
    for (time, code) in [("20231114231330", 13), ("20231114231330Z", 0), ("20231114231330UTC", 13)] {
        let line =
            format!("{PRINCIPAL} namespaces=\"in-toto\",valid-before=\"{time}\" {}\n", c.ada.public_line);
        std::fs::write(&c.allowed, line).unwrap();
        let mut cmd = speccoder_command(&c.p.root, &c.p.home, &args);
        cmd.env("TZ", "CET-1CEST");
        let out = run(cmd);
        assert_eq!(out.status.code(), Some(code), "{time}: {out}");
        if time.ends_with("UTC") {
            // No time at all: said as that, whatever the zone.
            assert!(out.stderr.contains("is not a time") && !out.stderr.contains("TZ="), "{out}");
        } else if code == 13 {
            assert!(out.stderr.contains("TZ=\"CET-1CEST\" names a zone speccoder cannot read"), "{out}");
            assert!(out.stderr.contains("add Z to say UTC"), "{out}");
        }
    }
}

#[test]
fn a_key_retired_since_the_commit_holds_at_the_commit_date_and_not_at_now() {
    let c = setup_backdated();
    let line =
        format!("{PRINCIPAL} namespaces=\"in-toto\",valid-before=\"20240101\" {}\n", c.ada.public_line);
    std::fs::write(&c.allowed, line).unwrap();
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
    assert_eq!(report["signature_time"], json!({"mode": "commit"}), "{report:#}");
    let (code, report) = verify(&c, &["--signature-time", "now"]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "untrusted_signer");
    assert_eq!(report["signature_time"]["mode"], "now", "{report:#}");
    let at = report["signature_time"]["at"].as_str().unwrap();
    assert!(at.starts_with("20") && at.ends_with('Z'), "{at}");

    // The time used is named for people too, as text and in Markdown.
    let md = c.p.scratch.join("report.md");
    let allowed = c.allowed.to_str().unwrap();
    let args =
        ["attest", "verify", "--branch", "--all", "--allowed-signers", allowed, "--signature-time", "now"];
    let mut with_md = args.to_vec();
    with_md.extend(["--markdown", md.to_str().unwrap()]);
    let text = c.p.speccoder(&with_md).failure(26);
    // Another run, another second: the time named is an RFC 3339 UTC time in parentheses.
    let names_now = |out: &str| {
        out.split("signature time: now (")
            .nth(1)
            .and_then(|rest| rest.get(..21))
            .is_some_and(|t| t.starts_with("20") && t.ends_with("Z)") && t.as_bytes()[10] == b'T')
    };
    assert!(names_now(&text.stdout), "{text}");
    assert!(names_now(&std::fs::read_to_string(&md).unwrap()));
    let text = c.p.speccoder(&args[..6]).success();
    assert!(text.stdout.contains("signature time: each task commit's committer date"), "{text}");
}

#[test]
fn a_certificate_expired_since_the_commit_holds_at_the_commit_date_and_not_at_now() {
    let c = setup_backdated();
    let ca = ed25519(&c.p.scratch, "ca");
    let cert = certify(&ca, &c.eve, &["-V", "20230101:20240101"]);
    sign_with_certificate(&c, &ca, &cert);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    let (code, report) = verify(&c, &["--signature-time", "now"]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "untrusted_signer");
}

// --- certificates, skips, trust revisions, reports and envelopes ---------------------------------

/// `ssh-keygen -s ca -I test-cert -n ada@example.com [validity] key.pub`: the certificate's path.
fn certify(ca: &Key, key: &Key, validity: &[&str]) -> PathBuf {
    common::certify(ca, key, "test-cert", PRINCIPAL, validity)
}

/// Signs every line of HEAD's note again with `signing` (a certificate beside its key), and makes
/// the trust one cert-authority line for `ca`.
fn sign_with_certificate(c: &Case, ca: &Key, signing: &Path) {
    let lines: Vec<Vec<u8>> =
        note_raw_lines(c, "HEAD").iter().map(|l| signed_line_with(c, &statement_of(l), signing)).collect();
    write_note(c, "HEAD", &lines);
    let line = format!("{PRINCIPAL} cert-authority,namespaces=\"in-toto\" {}\n", ca.public_line);
    std::fs::write(&c.allowed, line).unwrap();
}

#[test]
fn a_user_certificate_valid_forever_verifies_in_process_and_through_ssh_keygen() {
    let c = setup();
    let ca = ed25519(&c.p.scratch, "ca");
    // `ssh-keygen -s` without -V: valid from the epoch to "forever" (all ones).
    let cert = certify(&ca, &c.eve, &[]);
    sign_with_certificate(&c, &ca, &cert);
    for extra in [&[][..], &["--signature-time", "now"]] {
        let (code, report) = verify(&c, extra);
        assert_eq!(code, 0, "{report:#}");
        expect_tick(&report, "evidenced", None);
        assert_eq!(report["ticks"][0]["signers"][0]["principals"][0], PRINCIPAL, "{report:#}");
    }
}

/// A line naming a certificate itself, without cert-authority, is read as `ssh-keygen` reads it
/// (the file is not refused): it trusts signatures made with exactly that certificate, expired or
/// not, in-process and through `ssh-keygen` alike; a line of the plain key does not trust them.
#[test]
fn a_line_naming_a_certificate_itself_trusts_signatures_made_with_exactly_it() {
    let c = setup();
    let ca = ed25519(&c.p.scratch, "ca");
    let cert = certify(&ca, &c.eve, &["-V", "20200101:20210101"]);
    sign_with_certificate(&c, &ca, &cert);
    let trust = |key_line: &str| {
        let ada = &c.ada.public_line;
        let text = format!("# the team\n{PRINCIPAL} {ada}\n{PRINCIPAL} namespaces=\"in-toto\" {key_line}\n");
        std::fs::write(&c.allowed, text).unwrap();
    };
    trust(&common::cert_line(&cert));
    for extra in [&[][..], &["--signature-time", "now"]] {
        let (code, report) = verify(&c, extra);
        assert_eq!(code, 0, "{report:#}");
        expect_tick(&report, "evidenced", None);
        assert_eq!(report["ticks"][0]["signers"][0]["principals"][0], PRINCIPAL, "{report:#}");
    }
    trust(&c.eve.public_line);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "untrusted_signer");
}

/// A certificate carrying a critical option is not honoured under a cert-authority line, and
/// ssh-keygen, which ignores such options, is not let accept it either: `untrusted_signer` on both
/// paths.
#[test]
fn a_certificate_with_a_critical_option_is_an_untrusted_signer_on_both_paths() {
    let c = setup();
    let ca = ed25519(&c.p.scratch, "ca");
    for option in ["force-command=/bin/true", "source-address=192.0.2.0/24"] {
        let cert = certify(&ca, &c.eve, &["-V", "20200101:20991231", "-O", option]);
        sign_with_certificate(&c, &ca, &cert);
        let (code, report) = verify(&c, &[]);
        assert_eq!(code, 26, "{option}: {report:#}");
        expect_code(&expect_tick(&report, "unverifiable", Some("untrusted_signer")), "untrusted_signer");
    }
}

#[test]
fn a_skip_commit_is_skipped_in_commit_mode_too_and_fails_under_require_verified() {
    let c = setup();
    c.p.speccoder(&["skip", T006, "--reason", "not needed here"]).success();
    let skip = "refs/speccoder/skipped/001-bookmark-tags/T006";
    let (code, report) = verify_with(&c, &[skip]);
    assert_eq!(code, 0, "only a skip, checked and holding\n{report:#}");
    expect_tick_of(&report, T006, "skipped", None);
    let (code, report) = verify_with(&c, &[skip, "--require-verified"]);
    assert_eq!(code, 26, "a skip --require-verified does not accept fails\n{report:#}");
    expect_code(&expect_tick_of(&report, T006, "skipped", Some("not_verified")), "not_verified");
    assert_eq!(report["totals"]["skipped"], 1, "{report:#}");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick_of(&report, T006, "skipped", None);
    let (code, report) = verify(&c, &["--require-verified"]);
    assert_eq!(code, 26, "{report:#}");
    expect_tick_of(&report, T006, "skipped", Some("not_verified"));
    expect_tick(&report, "evidenced", None);
}

#[test]
fn a_trust_revision_inside_the_checked_history_is_refused_whatever_the_base() {
    // The allowed signers are committed before the tick: HEAD~1 holds them.
    let c = setup_prepared(Evidence::Verified, &[], |c| {
        std::fs::copy(&c.allowed, c.p.root.join("trust")).unwrap();
        c.p.git(&["add", "trust"]);
        c.p.git(&["commit", "-q", "-m", "trust"]);
    });
    let run_with = |mode: &[&str]| {
        let mut args = vec!["attest", "verify", "--allowed-signers-rev", "HEAD~1:trust"];
        args.extend_from_slice(mode);
        c.p.speccoder(&args)
    };
    for inside in [&["--branch", "--all"][..], &["--branch"], &[], &["HEAD~1"], &["HEAD~2..HEAD"]] {
        let r = run_with(inside).failure(13);
        assert!(r.stderr.contains("part of the history being checked"), "{inside:?}\n{r}");
    }
    for outside in [&["--branch", "--base", "HEAD~1"][..], &["HEAD~1..HEAD"], &["HEAD"]] {
        run_with(outside).success();
    }
    // A merge of the branch into its base holds files the branch wrote: refused as well.
    let branch = c.p.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim().to_owned();
    c.p.git(&["checkout", "-q", "-b", "merged", "HEAD~1"]);
    c.p.git(&["merge", "-q", "--no-ff", &branch, "-m", "merge the branch"]);
    c.p.git(&["checkout", "-q", &branch]);
    for mode in [&["--branch", "--base", "HEAD~1"][..], &["HEAD~1..HEAD"], &["HEAD"]] {
        let mut args = vec!["attest", "verify", "--allowed-signers-rev", "merged:trust"];
        args.extend_from_slice(mode);
        let r = c.p.speccoder(&args).failure(13);
        assert!(r.stderr.contains("or builds on it (a merge of the branch)"), "{mode:?}\n{r}");
    }
}

#[test]
fn markdown_cells_are_escaped() {
    let c = setup();
    let hostile = "001-bookmark-tags/T0`7 | <img src=x onerror=alert(1)> *x* [a](b)";
    c.p.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        &format!("hostile\n\nSpec-Task: {hostile}\nVerdict: verified"),
    ]);
    let md = c.p.scratch.join("report.md");
    let (code, _) = verify_with(&c, &["HEAD", "--markdown", md.to_str().unwrap()]);
    assert_eq!(code, 26);
    let text = std::fs::read_to_string(&md).unwrap();
    let row = text.lines().find(|l| l.contains("T0")).unwrap_or_else(|| panic!("{text}"));
    let cells = row.replace("\\|", "").matches('|').count();
    assert_eq!(cells, 6, "five cells (outcome, task, commit, reason, policy), no more: {row}");
    // The task is one code span (a fence longer than its backtick), so nothing in it is HTML,
    // emphasis or a link.
    let task = "`` 001-bookmark-tags/T0`7 \\| <img src=x onerror=alert(1)> *x* [a](b) ``";
    assert!(row.starts_with(&format!("| unverifiable | {task} |")), "{row}");
}

#[test]
fn an_envelope_with_more_than_sixteen_signatures_is_malformed() {
    let c = setup();
    let copies = |n: usize| {
        move |env: &mut Value| {
            let one = env["signatures"][0].clone();
            env["signatures"] = Value::Array(vec![one; n]);
        }
    };
    edit_envelope(&c, 1, copies(17));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "too_many_signatures");
    edit_envelope(&c, 1, |env| env["signatures"].as_array_mut().unwrap().truncate(16));
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
}

// --- Sigstore lines ---------------------------------------------------------------------------

/// The Sigstore conformance suite beside the repository.
#[cfg(feature = "sigstore")]
fn sigstore_suite() -> PathBuf {
    crate_root().join("../shared/sigstore-conformance")
}

/// The identity that signed the conformance suite's bundles.
#[cfg(feature = "sigstore")]
const BEACON_IDENTITY: &str = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
/// Its OIDC issuer (GitHub Actions).
#[cfg(feature = "sigstore")]
const ACTIONS_ISSUER: &str = "https://token.actions.githubusercontent.com";

/// A case whose summary line of T005 carries a real Sigstore bundle (from the conformance suite)
/// that signed other bytes.
#[cfg(feature = "sigstore")]
fn setup_keyless() -> Case {
    let c = setup();
    let bundle: Value = serde_json::from_slice(
        &std::fs::read(
            sigstore_suite().join("bundle-verify/happy-path-intoto-in-dsse-v3/bundle.sigstore.json"),
        )
        .expect("the Sigstore conformance suite beside the repository (../shared)"),
    )
    .unwrap();
    let mut lines = note_raw_lines(&c, "HEAD");
    let s = index_of(&lines, "verification_summary");
    let mut env: Value = serde_json::from_slice(&lines[s]).unwrap();
    env["sigstore"] = bundle;
    env["signatures"] = json!([{ "keyid": "sigstore", "sig": "AAAA" }]);
    lines[s] = serde_json::to_vec(&env).unwrap();
    write_note(&c, "HEAD", &lines);
    c
}

/// `attest verify HEAD` with the beacon's identity and no `--sigstore-trusted-root`, its cache
/// directory (`XDG_CACHE_HOME`) being `cache_home`.
#[cfg(feature = "sigstore")]
fn verify_keyless_default_root(c: &Case, cache_home: &std::path::Path) -> Run {
    let mut cmd = keyless_default_root_command(c);
    cmd.env("XDG_CACHE_HOME", cache_home);
    run(cmd)
}

/// The command of [`verify_keyless_default_root`], its environment as the tests' own.
#[cfg(feature = "sigstore")]
fn keyless_default_root_command(c: &Case) -> Command {
    let allowed = c.allowed.to_str().unwrap();
    let args = [
        "attest",
        "verify",
        "HEAD",
        "--json",
        "--allowed-signers",
        allowed,
        "--certificate-identity",
        BEACON_IDENTITY,
        "--certificate-oidc-issuer",
        ACTIONS_ISSUER,
    ];
    speccoder_command(&c.p.root, &c.p.home, &args)
}

/// The summary line of T005 carrying a real Sigstore bundle that signed other bytes: the verifier
/// reads the bundle as authoritative and never passes it.
#[cfg(feature = "sigstore")]
#[test]
fn a_sigstore_bundle_over_other_bytes_never_passes_and_needs_an_identity() {
    let c = setup_keyless();
    let suite = sigstore_suite();
    let allowed = c.allowed.to_str().unwrap();
    let base = ["attest", "verify", "HEAD", "--json", "--allowed-signers", allowed];
    let report = |extra: &[&str]| -> Value {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        let r = c.p.speccoder(&args).failure(26);
        serde_json::from_str(r.stdout.trim()).unwrap()
    };
    let codes = |v: &Value| -> Vec<String> {
        v["ticks"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_owned())
            .collect()
    };
    // No identity given: not trusted.
    let no_identity = report(&[]);
    expect_code(&codes(&no_identity), "no_sigstore_trust");
    // With the suite's identity and root: the bundle does not cover this payload.
    let root = suite.join("production-trusted_root.json");
    let with_identity = report(&[
        "--sigstore-trusted-root",
        root.to_str().unwrap(),
        "--certificate-identity",
        BEACON_IDENTITY,
        "--certificate-oidc-issuer",
        ACTIONS_ISSUER,
    ]);
    let tick = &with_identity["ticks"][0];
    assert_eq!(tick["outcome"], "unverifiable", "{tick:#}");
    assert!(
        matches!(tick["commit_outcome"].as_str(), Some("bad_signature" | "malformed" | "untrusted_signer")),
        "{tick:#}"
    );
}

/// No `--sigstore-trusted-root` and an empty cache: the verifier fetches the public-good root
/// through TUF. Offline that fails with exit 13 and a message naming the repository, the cache
/// and `--sigstore-trusted-root`; online the root is cached and the bundle judged (it signed other
/// bytes, so 26).
#[cfg(feature = "sigstore")]
#[test]
fn without_a_root_or_a_cache_a_keyless_line_fetches_the_public_good_root_or_fails_naming_the_option() {
    let c = setup_keyless();
    let cache_home = c.p.scratch_dir("cache");
    let cache = cache_home.join("speccoder/sigstore/trusted_root.json");
    let r = verify_keyless_default_root(&c, &cache_home);
    if r.code() == Some(13) {
        for part in [
            "--sigstore-trusted-root FILE",
            "https://tuf-repo-cdn.sigstore.dev",
            &cache.display().to_string(),
        ] {
            assert!(r.stderr.contains(part), "the error names {part:?}\n{r}");
        }
        let json: Value =
            serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{r}"));
        assert_eq!(json["exit_code"], 13, "{r}");
        assert!(!cache.exists(), "a failed fetch leaves no cache\n{r}");
    } else {
        let r = r.failure(26);
        assert!(cache.is_file(), "the fetched root is cached at {}\n{r}", cache.display());
    }
}

/// A cached root younger than a day is used as it is: verified offline, and not rewritten.
#[cfg(feature = "sigstore")]
#[test]
fn a_fresh_cached_root_is_used_without_fetching_again() {
    let c = setup_keyless();
    let cache_home = c.p.scratch_dir("cache");
    let cache = cache_home.join("speccoder/sigstore/trusted_root.json");
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    std::fs::copy(sigstore_suite().join("production-trusted_root.json"), &cache).unwrap();
    let before = std::fs::metadata(&cache).unwrap().modified().unwrap();
    let r = verify_keyless_default_root(&c, &cache_home).failure(26);
    let report: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    let tick = &report["ticks"][0];
    assert!(
        matches!(tick["commit_outcome"].as_str(), Some("bad_signature" | "malformed" | "untrusted_signer")),
        "{tick:#}"
    );
    assert_eq!(report["warnings"], json!([]), "{report:#}");
    assert_eq!(std::fs::metadata(&cache).unwrap().modified().unwrap(), before, "the cache was not refreshed");
}

/// A relative XDG_CACHE_HOME (and HOME) names no cache: resolved where the command runs, it would
/// take a trusted root the checked repository holds (and write one there).
#[cfg(feature = "sigstore")]
#[test]
fn a_relative_cache_home_is_never_where_the_trusted_root_is_taken_from() {
    let c = setup_keyless();
    let planted = c.p.root.join("relc/speccoder/sigstore/trusted_root.json");
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    std::fs::copy(sigstore_suite().join("production-trusted_root.json"), &planted).unwrap();
    let mut cmd = keyless_default_root_command(&c);
    cmd.current_dir(&c.p.root).env("XDG_CACHE_HOME", "relc").env("HOME", "rel-home");
    let r = run(cmd).failure(13);
    assert!(r.stderr.contains("no cache directory for the Sigstore trusted root"), "{r}");
    assert!(!c.p.root.join("rel-home").exists(), "{r}");
}

/// Where the cache of the public-good Sigstore root lies inside the work tree.
#[cfg(feature = "sigstore")]
const PLANTED_CACHE: &str = ".cache/speccoder/sigstore/trusted_root.json";

/// A case whose checked tree commits `.cache/speccoder/sigstore/trusted_root.json`, as a pull
/// request may where CI keeps its cache in the work tree.
#[cfg(feature = "sigstore")]
fn setup_with_committed_cache() -> Case {
    setup_prepared(Evidence::Verified, &[], |c| {
        c.p.write(
            PLANTED_CACHE,
            std::fs::read(sigstore_suite().join("production-trusted_root.json")).unwrap(),
        );
        c.p.git(&["add", PLANTED_CACHE]);
        c.p.git(&["commit", "-qm", "ci cache"]);
    })
}

/// Asserts `r` is the refusal of the cache `tree_path` of the checked tree, with its advice.
#[cfg(feature = "sigstore")]
fn expect_cache_refused(r: Run, tree_path: &str) {
    let r = r.failure(13);
    for part in [
        "the Sigstore trusted-root cache",
        &format!("`{tree_path}` of the tree being checked"),
        "--sigstore-trusted-root",
        "set XDG_CACHE_HOME to a directory outside the work tree",
    ] {
        assert!(r.stderr.contains(part), "the refusal says {part:?}\n{r}");
    }
}

/// A Sigstore root cache the checked tree commits (`XDG_CACHE_HOME=$PWD/.cache`, or `HOME` the
/// work tree) is refused with exit 13 and advice, as `--sigstore-trusted-root` inside the tree
/// is: the branch under review would choose the root it is checked against. A cache in the work
/// tree that the tree does not hold is the caller's own.
#[cfg(feature = "sigstore")]
#[test]
fn a_sigstore_root_cache_the_checked_tree_commits_is_refused_with_advice() {
    let c = setup_with_committed_cache();
    expect_cache_refused(verify_keyless_default_root(&c, &c.p.root.join(".cache")), PLANTED_CACHE);
    let mut cmd = keyless_default_root_command(&c);
    cmd.env("HOME", &c.p.root).env_remove("XDG_CACHE_HOME");
    expect_cache_refused(run(cmd), PLANTED_CACHE);
    let untracked = c.p.root.join("untracked-cache");
    std::fs::create_dir_all(untracked.join("speccoder/sigstore")).unwrap();
    std::fs::copy(c.p.root.join(PLANTED_CACHE), untracked.join("speccoder/sigstore/trusted_root.json"))
        .unwrap();
    verify_keyless_default_root(&c, &untracked).success();
}

/// A cache that lies in a submodule the checked tree commits (a gitlink at `.cache`, its checkout
/// holding the root, as CI checks submodules out) is refused as a committed file is: the branch
/// chose the commit whose root it would be checked against.
#[cfg(feature = "sigstore")]
#[test]
fn a_sigstore_root_cache_in_a_submodule_the_checked_tree_commits_is_refused() {
    let c = setup_prepared(Evidence::Verified, &[], |c| {
        c.p.write(
            PLANTED_CACHE,
            std::fs::read(sigstore_suite().join("production-trusted_root.json")).unwrap(),
        );
        let checkout = c.p.root.join(".cache");
        let who = ["-c", "user.name=Eve", "-c", "user.email=eve@example.com", "-c", "commit.gpgsign=false"];
        c.p.git_in(&checkout, &["init", "-q"]);
        c.p.git_in(&checkout, &["add", "-A"]);
        c.p.git_in(&checkout, &[&who[..], &["commit", "-qm", "the root of our choice"]].concat());
        c.p.git(&["add", ".cache"]);
        c.p.git(&["commit", "-qm", "ci cache (a submodule)"]);
    });
    assert!(c.p.git(&["ls-tree", "HEAD", ".cache"]).starts_with("160000 commit"), "a gitlink");
    expect_cache_refused(verify_keyless_default_root(&c, &c.p.root.join(".cache")), ".cache");
}

/// A cache reached through a symbolic link the checked tree commits is refused, whether the
/// link's target holds a root or not (a missing cache would be written through the link).
#[cfg(feature = "sigstore")]
#[test]
fn a_sigstore_root_cache_reached_through_a_link_the_checked_tree_commits_is_refused() {
    let c = setup_prepared(Evidence::Verified, &[], |c| {
        let outside = c.p.scratch_dir("elsewhere");
        std::os::unix::fs::symlink(&outside, c.p.root.join(".cache")).unwrap();
        c.p.git(&["add", ".cache"]);
        c.p.git(&["commit", "-qm", "cache link"]);
    });
    let outside = c.p.scratch.join("elsewhere");
    expect_cache_refused(verify_keyless_default_root(&c, &c.p.root.join(".cache")), ".cache");
    let planted = outside.join("speccoder/sigstore/trusted_root.json");
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    std::fs::copy(sigstore_suite().join("production-trusted_root.json"), &planted).unwrap();
    expect_cache_refused(verify_keyless_default_root(&c, &c.p.root.join(".cache")), ".cache");
}

/// `sigstore fetch-root` run in a repository whose tree at HEAD commits the cache refuses it
/// before asking the network, and leaves the file as it is; its advice is only what fetch-root
/// takes (no `--sigstore-trusted-root`, which it does not accept).
#[cfg(feature = "sigstore")]
#[test]
fn fetching_the_sigstore_root_into_a_cache_the_tree_at_head_commits_is_refused_with_advice_it_takes() {
    let c = setup_with_committed_cache();
    let before = c.p.read(PLANTED_CACHE);
    let mut cmd = speccoder_command(&c.p.root, &c.p.home, &["sigstore", "fetch-root"]);
    cmd.env("XDG_CACHE_HOME", c.p.root.join(".cache"));
    let r = run(cmd).failure(13);
    assert!(r.stderr.contains(&format!("`{PLANTED_CACHE}` of the tree being checked")), "{r}");
    assert!(
        r.stderr.contains(
            "set XDG_CACHE_HOME to a directory outside the work tree, then run `speccoder sigstore fetch-root` again"
        ),
        "{r}"
    );
    assert!(!r.stderr.contains("--sigstore-trusted-root") && !r.stderr.contains("pass a file"), "{r}");
    assert_eq!(c.p.read(PLANTED_CACHE), before, "the committed file is left as it is");
}

/// Sigstore trust given but no keyless line to check: the root is never resolved, so nothing is
/// fetched and nothing is cached, even with an empty cache.
#[cfg(feature = "sigstore")]
#[test]
fn a_branch_without_keyless_lines_never_fetches_a_sigstore_root() {
    let c = setup();
    let cache_home = c.p.scratch_dir("cache");
    verify_keyless_default_root(&c, &cache_home).success();
    assert_eq!(std::fs::read_dir(&cache_home).unwrap().count(), 0, "nothing was fetched or cached");
}

#[test]
fn a_trusted_root_that_does_not_parse_is_a_configuration_error_naming_the_file() {
    let c = setup();
    let root = c.p.scratch.join("trusted_root.json");
    std::fs::write(&root, "{ this is not a trusted root").unwrap();
    let r = c.p.speccoder(&[
        "attest",
        "verify",
        "--sigstore-trusted-root",
        root.to_str().unwrap(),
        "--certificate-identity",
        "ada@example.com",
        "--certificate-oidc-issuer",
        "https://accounts.example.com",
    ]);
    let r = r.failure(13);
    assert!(r.stderr.contains("trusted_root.json"), "{r}");
}

/// A root of a media type this build does not read, or with CAs but no CT log (or the other way
/// round), is the verifier's unusable trust file, never a finding on a note line.
#[cfg(feature = "sigstore")]
#[test]
fn a_trusted_root_of_an_unknown_version_or_with_a_ca_but_no_ct_log_is_a_configuration_error() {
    let c = setup();
    let production: Value = serde_json::from_slice(
        &std::fs::read(sigstore_suite().join("production-trusted_root.json")).unwrap(),
    )
    .unwrap();
    let verify = |root: &Value| {
        let file = c.p.scratch.join("trusted_root.json");
        std::fs::write(&file, root.to_string()).unwrap();
        let allowed = c.allowed.to_str().unwrap();
        let file = file.to_str().unwrap();
        c.p.speccoder(&[
            "attest",
            "verify",
            "--allowed-signers",
            allowed,
            "--sigstore-trusted-root",
            file,
            "--certificate-identity",
            "ada@example.com",
            "--certificate-oidc-issuer",
            "https://accounts.example.com",
        ])
    };
    let mut root = production.clone();
    root["mediaType"] = json!("application/vnd.dev.sigstore.trustedroot+json;version=9.9");
    let r = verify(&root).failure(13);
    assert!(r.stderr.contains("not a trusted root of a version this build reads"), "{r}");
    let mut root = production.clone();
    root["ctlogs"] = json!([]);
    let r = verify(&root).failure(13);
    assert!(r.stderr.contains("no keyless signature verifies against it"), "{r}");
    let mut root = production;
    root["certificateAuthorities"] = json!([]);
    verify(&root).failure(13);
}

// --- a tick its task commit did not set ---------------------------------------------------------

/// Sets T005's box by hand (ticked or open) and commits that with `message`, as a person editing
/// `tasks.md` would.
fn set_t005_by_hand(p: &Project, ticked: bool, message: &str) {
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(p.read(tasks)).unwrap();
    let (from, to) = if ticked { ("- [ ] T005", "- [X] T005") } else { ("- [X] T005", "- [ ] T005") };
    assert!(text.contains(from), "{text}");
    p.write(tasks, text.replacen(from, to, 1));
    p.git(&["commit", "-q", "-am", message]);
}

/// The one finding of T005's row, which must be `ticked_again` naming `setter` and `evidence`.
#[track_caller]
fn expect_ticked_again(report: &Value, setter: &str, evidence: &str) {
    let codes = expect_tick(report, "unverifiable", Some("ticked_again"));
    expect_code(&codes, "ticked_again");
    let tick = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == TASK).unwrap();
    let message = tick["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains(setter) && message.contains(evidence), "{message}");
}

#[test]
fn a_tick_a_revert_took_back_and_a_hand_edit_set_again_is_ticked_again() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    c.p.git(&["revert", "--no-edit", "HEAD"]);
    let base = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "pr"]);
    set_t005_by_hand(&c.p, true, "tick T005");
    let hand = c.p.rev("HEAD");
    for args in [vec!["--branch", "--all"], vec!["--branch", "--base", base.as_str()]] {
        let (code, report) = verify_with(&c, &args);
        assert_eq!(code, 26, "{args:?}: {report:#}");
        expect_ticked_again(&report, &hand, &evidence);
    }
}

#[test]
fn a_tick_taken_back_and_set_again_by_hand_is_ticked_again_though_a_ticked_copy_of_the_id_stood_between() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(c.p.read(tasks)).unwrap();
    let open = text.replacen("- [X] T005", "- [ ] T005", 1);
    assert_ne!(open, text, "{text}");
    c.p.write(tasks, format!("{open}\n- [X] T005 stray copy\n"));
    c.p.git(&["commit", "-q", "-am", "untick T005, not done after all; a stray ticked copy"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_tick(&report, "unverifiable", Some("duplicate_task"));
    // The original line ticked again by hand, the stray copy gone: the head's tick is the hand's.
    c.p.write(tasks, &text);
    c.p.git(&["commit", "-q", "-am", "tick T005 by hand"]);
    let hand = c.p.rev("HEAD");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_ticked_again(&report, &hand, &evidence);
}

#[test]
fn a_tick_set_again_by_the_revert_of_its_revert_is_ticked_again_until_attested_afresh() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    c.p.git(&["revert", "--no-edit", "HEAD"]);
    c.p.git(&["revert", "--no-edit", "HEAD"]);
    let reapply = c.p.rev("HEAD");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_ticked_again(&report, &reapply, &evidence);

    // What the finding says to do: untick the task in a commit of its own and attest it again.
    set_t005_by_hand(&c.p, false, "untick T005 to attest it again");
    let evidence = write_evidence(&c.p.scratch.join("ev2"), TASK, Evidence::Verified);
    c.p.attest(TASK, &evidence, &[]).success();
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
}

#[test]
fn a_task_commit_merged_from_its_branch_still_evidences_the_tick() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    c.p.git(&["branch", "feature"]);
    c.p.git(&["reset", "-q", "--hard", "HEAD~1"]);
    c.p.write("README.md", "meanwhile on main\n");
    c.p.git(&["add", "README.md"]);
    c.p.git(&["commit", "-q", "-m", "meanwhile"]);
    c.p.git(&["merge", "-q", "--no-ff", "-m", "merge feature", "feature"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
    assert_eq!(report["ticks"][0]["commit"], evidence.as_str());
}

/// On a branch `x` from the task commit, T005 is unticked ("reopened"); beside it, on `y`, other
/// work; `x` is merged into `y` and the merge is amended to tick T005 again. Returns the merge.
fn merge_ticking_what_one_side_took_back(c: &Case) -> String {
    c.p.git(&["checkout", "-q", "-b", "x"]);
    set_t005_by_hand(&c.p, false, "reopen T005: it is broken");
    c.p.git(&["checkout", "-q", "-b", "y", "HEAD~1"]);
    c.p.write("README.md", "other work\n");
    c.p.git(&["add", "README.md"]);
    c.p.git(&["commit", "-q", "-m", "other work"]);
    c.p.git(&["merge", "-q", "--no-edit", "x"]);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(c.p.read(tasks)).unwrap();
    assert!(text.contains("- [ ] T005"), "git's merge leaves T005 open: {text}");
    c.p.write(tasks, text.replacen("- [ ] T005", "- [X] T005", 1));
    c.p.git(&["commit", "-q", "--amend", "--no-edit", "-a"]);
    let merge = c.p.rev("HEAD");
    assert_eq!(c.p.git(&["rev-list", "--parents", "-1", &merge]).split_whitespace().count(), 3);
    merge
}

#[test]
fn a_merge_that_ticks_again_a_box_one_side_took_back_is_ticked_again() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    let merge = merge_ticking_what_one_side_took_back(&c);
    // The whole history, and the branch since the task commit (whose unit the head shows as it
    // was there: only the commits in between changed it).
    for args in [vec!["--branch", "--all"], vec!["--branch", "HEAD", "--base", evidence.as_str()]] {
        let (code, report) = verify_with(&c, &args);
        assert_eq!(code, 26, "{args:?}: {report:#}");
        expect_ticked_again(&report, &merge, &evidence);
    }
}

#[test]
fn an_octopus_merge_that_ticks_again_a_box_one_side_took_back_is_ticked_again() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "x"]);
    set_t005_by_hand(&c.p, false, "reopen T005");
    for (branch, file) in [("z", "z.txt"), ("y", "y.txt")] {
        c.p.git(&["checkout", "-q", "-b", branch, &evidence]);
        c.p.write(file, "other work\n");
        c.p.git(&["add", file]);
        c.p.git(&["commit", "-q", "-m", "other work"]);
    }
    c.p.git(&["merge", "-q", "--no-edit", "x", "z"]);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(c.p.read(tasks)).unwrap();
    c.p.write(tasks, text.replacen("- [ ] T005", "- [X] T005", 1));
    c.p.git(&["commit", "-q", "--amend", "--no-edit", "-a"]);
    let merge = c.p.rev("HEAD");
    assert_eq!(c.p.git(&["rev-list", "--parents", "-1", &merge]).split_whitespace().count(), 4);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_ticked_again(&report, &merge, &evidence);
}

#[test]
fn a_merge_of_main_s_tick_into_a_branch_that_never_touched_it_sets_no_box() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "feature", "HEAD~1"]);
    c.p.write("README.md", "feature work\n");
    c.p.git(&["add", "README.md"]);
    c.p.git(&["commit", "-q", "-m", "feature work"]);
    c.p.git(&["merge", "-q", "--no-edit", "main"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
    assert_eq!(report["ticks"][0]["commit"], evidence.as_str());
}

#[test]
fn a_branch_that_unticks_a_task_and_ticks_it_again_by_hand_fails_the_pull_request_gate() {
    let c = setup();
    let evidence = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "feature"]);
    set_t005_by_hand(&c.p, false, "reopen T005");
    set_t005_by_hand(&c.p, true, "T005 done, ticked by hand");
    let hand = c.p.rev("HEAD");
    // The gate of docs/ci.md: the unit is the same at the base and the head.
    let (code, report) = verify_with(&c, &["--branch", "HEAD", "--base", "refs/heads/main", "--allow-empty"]);
    assert_eq!(code, 26, "{report:#}");
    expect_ticked_again(&report, &hand, &evidence);
}

/// T005 attested on `main` (by [`setup`]) and again on a branch `other` from `fork`, after
/// `prepare` ran there, merged cleanly into `main`. Returns the two task commits, the evidence
/// judged (the newest) first.
fn two_task_commits_of_t005_merged(c: &Case, fork: &str, prepare: impl FnOnce(&Case)) -> (String, String) {
    let on_main = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "other", fork]);
    c.p.write("README.md", "work on other\n");
    c.p.git(&["add", "README.md"]);
    c.p.git(&["commit", "-q", "-m", "work on other"]);
    prepare(c);
    c.p.write("src/tags.rs", "pub fn add_tag() {}\n");
    c.p.git(&["add", "src/tags.rs"]);
    let evidence = write_evidence(&c.p.scratch.join("ev-other"), TASK, Evidence::Verified);
    c.p.attest(TASK, &evidence, &[]).success();
    let on_other = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "main"]);
    c.p.git(&["merge", "-q", "--no-edit", "other"]);
    let (_, report) = verify(c, &[]);
    match report["ticks"][0]["commit"].as_str() {
        Some(judged) if judged == on_main => (on_main, on_other),
        _ => (on_other, on_main),
    }
}

#[test]
fn two_task_commits_of_one_task_merged_together_still_evidence_the_tick() {
    let c = setup();
    let (judged, _) = two_task_commits_of_t005_merged(&c, "HEAD~1", |_| {});
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
    assert_eq!(report["ticks"][0]["commit"], judged.as_str());
}

#[test]
fn a_hand_tick_taken_back_before_a_second_task_commit_of_the_task_leaves_the_tick_evidenced() {
    let early = |c: &Case| {
        set_t005_by_hand(&c.p, true, "tick T005 too early");
        set_t005_by_hand(&c.p, false, "take the early tick back");
    };
    // On both branches, so that whichever task commit is judged, the other's branch holds a hand
    // tick that the judged one does not descend from.
    let c = setup_prepared(Evidence::Verified, &[], early);
    two_task_commits_of_t005_merged(&c, "HEAD~3", early);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
}

#[test]
fn a_second_task_commit_of_the_task_whose_evidence_does_not_hold_is_still_ticked_again() {
    let c = setup();
    let (judged, second) = two_task_commits_of_t005_merged(&c, "HEAD~1", |_| {});
    c.p.git(&["notes", "--ref=speccoder", "remove", &second]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_ticked_again(&report, &second, &judged);
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("another task commit of this task") && message.contains("missing"), "{message}");
    assert!(!message.contains("took the tick back"), "nothing took it back: {message}");
}

/// A second task commit of the task is a claim of the tick only when its own row would be
/// evidenced: one whose evidence proves an earlier wording of a requirement the task cites is not.
#[test]
fn a_second_task_commit_that_proves_an_earlier_wording_is_no_second_claim() {
    let c = setup_backdated();
    let older = c.p.rev("HEAD");
    let reword = |c: &Case| {
        edit_and_commit(&c.p, SPEC_MD, "**FR-001**: System MUST", "**FR-001**: System MAY", "reword FR-001");
    };
    let (judged, second) = two_task_commits_of_t005_merged(&c, "HEAD~1", reword);
    assert_eq!(second, older, "the newer task commit, made after the rewording, is judged");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_ticked_again(&report, &second, &judged);
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("does not hold (stale)"), "{message}");
}

#[test]
fn a_hand_tick_taken_back_before_the_task_was_attested_does_not_touch_its_evidence() {
    let c = setup_prepared(Evidence::Verified, &[], |c| {
        set_t005_by_hand(&c.p, true, "tick T005 too early");
        set_t005_by_hand(&c.p, false, "take the early tick back");
    });
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
}

// --- a commit whose claim is not one plain claim ------------------------------------------------

/// Replaces the task commit at HEAD by a commit of the same tree and parent whose message is
/// `message`, returning (the task commit, its replacement).
fn recommit(c: &Case, message: &str) -> (String, String) {
    let old = c.p.rev("HEAD");
    let msg = c.p.scratch.join("message");
    std::fs::write(&msg, message).unwrap();
    let new = c.p.git(&[
        "commit-tree",
        &format!("{old}^{{tree}}"),
        "-p",
        &format!("{old}^"),
        "-F",
        msg.to_str().unwrap(),
    ]);
    let new = new.trim().to_owned();
    c.p.git(&["reset", "-q", "--soft", &new]);
    (old, new)
}

/// `attest carry --from old --to new` with our trust, as a JSON report and its exit code.
fn carry(c: &Case, old: &str, new: &str) -> (i32, Value) {
    let r = c.p.speccoder(&[
        "attest",
        "carry",
        "--from",
        old,
        "--to",
        new,
        "--allowed-signers",
        c.allowed.to_str().unwrap(),
        "--json",
    ]);
    let v = serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{r}"));
    (r.code().unwrap_or(-1), v)
}

#[test]
fn a_commit_naming_two_tasks_is_refused_by_carry_and_malformed_for_verify() {
    let c = setup();
    let subject = c.p.git(&["log", "-1", "--format=%s"]);
    let message = format!(
        "{}\n\nSpec-Task: 001-bookmark-tags/T001\nSpec-Task: {TASK}\nVerdict: verified\n",
        subject.trim()
    );
    let (old, new) = recommit(&c, &message);
    let (code, report) = carry(&c, &old, &new);
    assert_eq!(code, 26, "{report:#}");
    assert!(report.to_string().contains("not_one_claim"), "{report:#}");
    c.p.git(&["notes", "--ref=speccoder", "copy", &old, &new]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "not_one_claim");
}

#[test]
fn a_held_out_trailer_claiming_a_result_the_evidence_lacks_is_a_mismatch() {
    let c = setup();
    let message = c.p.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Held-Out: off"), "{message}");
    let forged = message
        .replace("Held-Out: off", &format!("Held-Out: passed=42/42 manifest=sha256:{}", "0".repeat(64)));
    let (old, new) = recommit(&c, &forged);
    c.p.git(&["notes", "--ref=speccoder", "copy", &old, &new]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    let codes: Vec<String> = report["ticks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect();
    expect_code(&codes, "held_out_trailer_mismatch");
}

/// The `Run:` trailer names the run the signed evidence names, as `Held-Out:` does: one edited
/// after the tick is a mismatch, and carry refuses to re-sign the evidence for it.
#[test]
fn a_run_trailer_edited_after_the_tick_is_a_mismatch_and_carry_refuses_it() {
    let c = setup();
    let message = c.p.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Run: run-20261130-0007"), "{message}");
    let forged = message.replace("Run: run-20261130-0007", "Run: run-FAKE-999");
    let (old, new) = recommit(&c, &forged);
    let (code, report) = carry(&c, &old, &new);
    assert_eq!(code, 26, "{report:#}");
    assert_eq!(report["refused"][0]["code"], "run_differs", "{report:#}");
    c.p.git(&["notes", "--ref=speccoder", "copy", &old, &new]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    let finding = first_finding(&report, "run_trailer_mismatch");
    let said = finding.map(|f| (f["expected"].as_str(), f["found"].as_str()));
    assert_eq!(said, Some((Some("run-20261130-0007"), Some("run-FAKE-999"))), "{report:#}");
}

/// A tick's commit with `Accepted-By:` and `Reason:` added reads in the log as a person's
/// decision the signed evidence never made: a mismatch.
#[test]
fn decision_trailers_added_to_a_tick_are_a_mismatch() {
    let c = setup();
    let message = c.p.git(&["log", "-1", "--format=%B"]);
    let forged = format!("{}\nAccepted-By: Mallory\nReason: looks fine\n", message.trim_end());
    let (old, new) = recommit(&c, &forged);
    c.p.git(&["notes", "--ref=speccoder", "copy", &old, &new]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    let finding = first_finding(&report, "tick_with_decision_trailers");
    assert_eq!(finding.and_then(|f| f["found"].as_str()), Some("Accepted-By, Reason"), "{report:#}");
}

#[test]
fn a_merge_commit_carrying_a_task_s_trailers_is_no_task_commit() {
    let c = setup();
    let task_commit = c.p.rev("HEAD");
    let message = c.p.git(&["log", "-1", "--format=%B"]);
    c.p.git(&["branch", "feature"]);
    c.p.git(&["reset", "-q", "--hard", "HEAD~1"]);
    c.p.write("README.md", "meanwhile on main\n");
    c.p.git(&["add", "README.md"]);
    c.p.git(&["commit", "-q", "-m", "meanwhile"]);
    c.p.git(&["merge", "-q", "--no-ff", "-m", message.trim(), "feature"]);
    let merge = c.p.rev("HEAD");
    let (code, report) = carry(&c, &task_commit, &merge);
    assert_eq!(code, 26, "{report:#}");
    assert!(report.to_string().contains("not_one_claim"), "{report:#}");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    assert_eq!(report["ticks"][0]["commit"], merge.as_str(), "{report:#}");
}

// --- the judge configuration --------------------------------------------------------------------

#[test]
fn a_speccoder_toml_that_is_a_link_or_a_directory_stops_attest_before_anything_is_written() {
    for (shape, said) in [("link", "a symbolic link"), ("directory", "a directory")] {
        let p = Project::speckit();
        let path = p.root.join("speccoder.toml");
        let _ = std::fs::remove_file(&path);
        if shape == "link" {
            std::os::unix::fs::symlink("checks=1", &path).unwrap();
        } else {
            std::fs::create_dir(&path).unwrap();
            std::fs::write(path.join("x"), "x\n").unwrap();
        }
        p.git(&["add", "-A"]);
        p.git(&["commit", "-q", "-m", &format!("the configuration as a {shape}")]);
        p.write("src/tags.rs", "pub fn add_tag() {}\n");
        p.git(&["add", "src/tags.rs"]);
        let before = p.snapshot();
        let evidence = write_evidence(&p.scratch.join("ev"), TASK, Evidence::Verified);
        let r = p.attest(TASK, &evidence, &["--signer", "none"]).failure(13);
        assert!(r.stderr.contains("speccoder.toml") && r.stderr.contains(said), "{shape}: {r}");
        // The commit whose file it is is named: here the branch's tip, the task commit's parent.
        assert!(r.stderr.contains(&format!("at commit {}", p.rev("HEAD"))), "{shape}: {r}");
        assert_eq!(p.snapshot().refs, before.refs, "{shape}: nothing written");
    }
}

// --- replacements (`refs/replace/*`) ------------------------------------------------------------

#[test]
fn a_replacement_of_the_ticked_task_list_never_hides_a_hand_tick() {
    let c = setup();
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(c.p.read(tasks)).unwrap();
    c.p.write(tasks, text.replacen("- [ ] T006", "- [X] T006", 1));
    c.p.git(&["commit", "-q", "-am", "tick T006 by hand"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_tick_of(&report, "001-bookmark-tags/T006", "unverifiable", Some("ticked_without_evidence"));
    // git now shows the unticked list at HEAD; the ids the evidence names still hold the tick.
    let (ticked, unticked) = (c.p.rev(&format!("HEAD:{tasks}")), c.p.rev(&format!("HEAD~1:{tasks}")));
    c.p.git(&["replace", &ticked, &unticked]);
    assert!(!c.p.git(&["show", &format!("HEAD:{tasks}")]).contains("[X] T006"), "git reads the replacement");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "a replacement is read as the id says: {report:#}");
    expect_tick_of(&report, "001-bookmark-tags/T006", "unverifiable", Some("ticked_without_evidence"));
}

#[test]
fn a_replacement_grafting_a_hand_tick_onto_a_task_commit_never_lends_it_the_evidence() {
    let c = setup();
    let evidenced = c.p.rev("HEAD");
    // Another branch ticks T005 by hand from before the task commit.
    c.p.git(&["switch", "-q", "-c", "hand", "HEAD~1"]);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(c.p.read(tasks)).unwrap();
    c.p.write(tasks, text.replacen("- [ ] T005", "- [X] T005", 1));
    c.p.git(&["commit", "-q", "-am", "tick T005 by hand"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    let before =
        report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == TASK).unwrap()["reason"].clone();
    assert_ne!(before, Value::Null, "{report:#}");
    // A replacement makes the hand tick's parent the task commit: git log shows it there.
    c.p.git(&["replace", "--graft", "HEAD", &evidenced]);
    assert_eq!(c.p.rev("HEAD~1"), evidenced, "git reads the graft");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "a replacement is read as the id says: {report:#}");
    expect_tick(&report, "unverifiable", before.as_str());
}

// --- what the repository lacks ------------------------------------------------------------------

#[test]
fn a_note_or_task_list_the_repository_lacks_ends_the_run_as_a_repository_to_repair_not_as_failed_evidence() {
    for lacked in ["note", "task list"] {
        let c = setup();
        let id = match lacked {
            "note" => c.p.git(&["notes", "--ref", "speccoder", "list", "HEAD"]).trim().to_owned(),
            _ => c.p.rev("HEAD:specs/001-bookmark-tags/tasks.md"),
        };
        // Checked out, the work tree keeps its copy; the object database loses its own.
        let loose = c.p.root.join(".git/objects").join(&id[..2]).join(&id[2..]);
        std::fs::remove_file(&loose).unwrap_or_else(|e| panic!("{lacked}: {} {e}", loose.display()));
        let (code, report) = verify_with(&c, &["HEAD"]);
        assert_eq!(code, 14, "{lacked}: {report:#}");
        assert_eq!(report["exit_code"], 14, "{lacked}: {report:#}");
        let warning =
            report["warnings"].as_array().unwrap().iter().find(|w| w.as_str().unwrap().contains(&id));
        assert!(warning.is_some_and(|w| w.as_str().unwrap().contains("git fsck")), "{lacked}: {report:#}");
    }
}

/// Overwrites the loose object `id` with bytes no object reads as.
fn corrupt_loose_object(c: &Case, id: &str) {
    let loose = c.p.root.join(".git/objects").join(&id[..2]).join(&id[2..]);
    let mut permissions = std::fs::metadata(&loose).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&loose, permissions).unwrap();
    std::fs::write(&loose, b"garbage").unwrap();
}

/// A run that ended with exit 13, its report's error naming the corrupt object `id` and `git fsck`.
fn ends_as_a_repository_to_repair(code: i32, report: &Value, id: &str) {
    assert_eq!((code, report["exit_code"].as_i64()), (13, Some(13)), "{report:#}");
    let error = report["error"].as_str().unwrap_or_else(|| panic!("no error: {report:#}"));
    assert!(error.contains(id) && error.contains("git fsck"), "{error}");
}

#[test]
fn a_corrupt_note_object_ends_the_run_as_a_repository_to_repair_naming_the_object() {
    let c = setup();
    let id = c.p.git(&["notes", "--ref", "speccoder", "list", "HEAD"]).trim().to_owned();
    corrupt_loose_object(&c, &id);
    let (code, report) = verify_with(&c, &["HEAD"]);
    ends_as_a_repository_to_repair(code, &report, &id);
}

#[test]
fn a_corrupt_spec_md_at_the_task_commit_ends_the_run_as_a_repository_to_repair_naming_the_object() {
    let c = setup();
    let spec = "specs/001-bookmark-tags/spec.md";
    let id = c.p.git(&["rev-parse", &format!("HEAD:{spec}")]).trim().to_owned();
    // The head's spec.md is another object: only the task commit's reading meets the damage.
    let mut text = c.p.read(spec);
    text.extend(b"\n## Notes\n\nAdded after the tick.\n");
    c.p.write(spec, &text);
    c.p.git(&["commit", "-q", "-am", "notes"]);
    corrupt_loose_object(&c, &id);
    let (code, report) = verify_with(&c, &["HEAD~1"]);
    ends_as_a_repository_to_repair(code, &report, &id);
}

/// GitHub's runner ignores every workflow command after `::stop-commands::<token>` until
/// `::<token>::`: a run that stops after its rows began must still close the fence, and annotate
/// the rows it printed and its own failure.
#[test]
fn a_corrupt_note_after_printed_rows_closes_the_github_fence_and_annotates_what_was_printed() {
    let c = setup();
    let tasks = "specs/001-bookmark-tags/tasks.md";
    edit_and_commit(&c.p, tasks, "- [ ] T001", "- [X] T001", "tick T001 by hand");
    let id = c.p.git(&["notes", "--ref", "speccoder", "list", "HEAD~1"]).trim().to_owned();
    corrupt_loose_object(&c, &id);
    let allowed = c.allowed.to_str().unwrap();
    let args = ["attest", "verify", "--branch", "--all", "--github", "--allowed-signers", allowed];
    let out = c.p.speccoder(&args).failure(13);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let token = lines[0].strip_prefix("::stop-commands::").unwrap_or_else(|| panic!("{out}"));
    let closed = lines.iter().position(|l| *l == format!("::{token}::"));
    let closed = closed.unwrap_or_else(|| panic!("the fence is closed: {out}"));
    assert!(lines[1..closed].iter().any(|l| l.contains("001-bookmark-tags/T001")), "{out}");
    let annotations = &lines[closed + 1..];
    let t001 = format!("::error file={tasks},line=");
    assert!(annotations.iter().any(|l| l.starts_with(&t001) && l.contains("T001 is unverifiable")), "{out}");
    let stopped =
        annotations.iter().find(|l| l.starts_with("::error title=speccoder%3A attest verify stopped"));
    assert!(stopped.is_some_and(|l| l.contains(&id) && l.contains("(exit 13)")), "{out}");
    assert!(out.stderr.contains(&id), "{out}");
}

/// A project whose T005 is ticked with `speccoder.toml` committed before it (`toml` at the task
/// commit's parent), and another configuration committed after it; returns the parent's blob.
fn setup_with_config_at_parent(toml: &str) -> (Case, String) {
    let c = setup_prepared(Evidence::Verified, &[], |c| {
        c.p.write("speccoder.toml", toml);
        c.p.git(&["add", "speccoder.toml"]);
        c.p.git(&["commit", "-q", "-m", "configure"]);
    });
    c.p.write("speccoder.toml", "[checks.test]\nargv = [\"cargo\", \"test\", \"-q\"]\n");
    c.p.git(&["commit", "-q", "-am", "configure again"]);
    let blob = c.p.rev("HEAD~2:speccoder.toml");
    (c, blob)
}

/// The report warns that the repository lacks `id`: the run is no verdict.
#[track_caller]
fn warns_of_lacking(report: &Value, id: &str) {
    let warnings = report["warnings"].as_array().unwrap();
    let warned = warnings.iter().any(|w| w.as_str().unwrap().contains(&format!("object {id} is missing")));
    assert!(warned, "{report:#}");
}

#[test]
fn a_speccoder_toml_at_the_parent_the_repository_lacks_or_holds_corrupt_is_a_repository_to_repair() {
    let valid = "[checks.test]\nargv = [\"cargo\", \"test\"]\n";
    let (c, blob) = setup_with_config_at_parent(valid);
    let loose = c.p.root.join(".git/objects").join(&blob[..2]).join(&blob[2..]);
    let kept = std::fs::read(&loose).unwrap();
    std::fs::remove_file(&loose).unwrap();
    for args in [&["--branch", "--all"][..], &["HEAD~1"]] {
        let (code, report) = verify_with(&c, args);
        assert_eq!((code, report["exit_code"].as_i64()), (14, Some(14)), "{args:?}: {report:#}");
        expect_tick(&report, "unverifiable", Some("mismatch"));
        warns_of_lacking(&report, &blob);
    }
    std::fs::write(&loose, kept).unwrap();
    corrupt_loose_object(&c, &blob);
    let (code, report) = verify_with(&c, &["--branch", "--all"]);
    ends_as_a_repository_to_repair(code, &report, &blob);
}

#[test]
fn a_parent_tree_the_repository_lacks_is_a_repository_to_repair_in_every_mode() {
    let (c, _) = setup_with_config_at_parent("[checks.test]\nargv = [\"cargo\", \"test\"]\n");
    let tree = c.p.rev("HEAD~2^{tree}");
    std::fs::remove_file(c.p.root.join(".git/objects").join(&tree[..2]).join(&tree[2..])).unwrap();
    for args in [&["HEAD~1"][..], &["HEAD~2..HEAD"]] {
        let (code, report) = verify_with(&c, args);
        assert_eq!((code, report["exit_code"].as_i64()), (14, Some(14)), "{args:?}: {report:#}");
        expect_tick(&report, "unverifiable", Some("mismatch"));
        warns_of_lacking(&report, &tree);
    }
    // A branch check reads every tree of its history before any row: the run stops naming it.
    let (code, report) = verify_damaged(&c, &["--branch", "--all"]);
    ends_as_a_repository_to_fetch(code, &report, &tree);
}

/// Cuts the loose object `id` to its first ten bytes, as a write stopped half-way leaves it.
fn truncate_loose_object(c: &Case, id: &str) {
    let loose = c.p.root.join(".git/objects").join(&id[..2]).join(&id[2..]);
    let bytes = std::fs::read(&loose).unwrap();
    corrupt_loose_object(c, id);
    std::fs::write(&loose, &bytes[..10]).unwrap();
}

/// The report of one in-process `attest verify --json` run that ends before any row (no second
/// run through the tools: nothing is signed-checked).
fn verify_damaged(c: &Case, extra: &[&str]) -> (i32, Value) {
    let allowed = c.allowed.to_str().unwrap().to_owned();
    let mut args = vec!["attest", "verify", "--json", "--allowed-signers", &allowed];
    args.extend_from_slice(extra);
    let run = c.p.speccoder(&args);
    let report = serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{run}"));
    (run.code().unwrap_or(-1), report)
}

/// A run that ended with exit 14, its report's error naming the missing object `id`.
fn ends_as_a_repository_to_fetch(code: i32, report: &Value, id: &str) {
    assert_eq!((code, report["exit_code"].as_i64()), (14, Some(14)), "{report:#}");
    let error = report["error"].as_str().unwrap_or_else(|| panic!("no error: {report:#}"));
    assert!(error.contains(id) && error.contains("missing"), "{error}");
}

#[test]
fn a_damaged_commit_in_the_middle_of_the_history_ends_the_run_as_a_repository_to_repair_naming_it() {
    for damage in [corrupt_loose_object, truncate_loose_object] {
        let c = setup();
        let id = c.p.rev("HEAD~1");
        damage(&c, &id);
        let (code, report) = verify_damaged(&c, &["--branch", "--all"]);
        ends_as_a_repository_to_repair(code, &report, &id);
    }
}

#[test]
fn a_damaged_head_commit_is_a_repository_to_repair_naming_it_not_an_unknown_revision() {
    let c = setup();
    let id = c.p.rev("HEAD");
    corrupt_loose_object(&c, &id);
    let (code, report) = verify_damaged(&c, &["--branch", "--all"]);
    ends_as_a_repository_to_repair(code, &report, &id);
}

#[test]
fn a_head_or_base_commit_the_repository_lacks_is_named_as_missing_not_as_an_unknown_revision() {
    for (named, extra) in [("HEAD", ["--branch", "--all"]), ("base", ["--branch", "--base=base"])] {
        let c = setup();
        c.p.git(&["tag", "base", "HEAD~1"]);
        let id = c.p.rev(named);
        std::fs::remove_file(c.p.root.join(".git/objects").join(&id[..2]).join(&id[2..])).unwrap();
        let (code, report) = verify_damaged(&c, &extra);
        ends_as_a_repository_to_fetch(code, &report, &id);
    }
}

#[test]
fn a_search_through_a_commit_the_repository_lacks_ends_as_a_repository_to_fetch_never_a_panic() {
    let searches: [&[&str]; 4] =
        [&["HEAD^{/T005}"], &["HEAD^{/nomatch}"], &[":/nomatch"], &["--branch", "--base", "HEAD^{/nomatch}"]];
    for search in searches {
        let c = setup();
        let id = c.p.rev("HEAD~1");
        std::fs::remove_file(c.p.root.join(".git/objects").join(&id[..2]).join(&id[2..])).unwrap();
        let (code, report) = verify_damaged(&c, search);
        ends_as_a_repository_to_fetch(code, &report, &id);
    }
}

#[test]
fn a_unit_or_specs_tree_the_head_lacks_ends_the_run_as_a_repository_to_fetch() {
    for path in ["specs/001-bookmark-tags", "specs"] {
        let c = setup();
        let id = c.p.rev(&format!("HEAD:{path}"));
        std::fs::remove_file(c.p.root.join(".git/objects").join(&id[..2]).join(&id[2..])).unwrap();
        let (code, report) = verify_damaged(&c, &["--branch", "--all"]);
        assert_eq!((code, report["exit_code"].as_i64()), (14, Some(14)), "{path}: {report:#}");
        assert!(report.to_string().contains(&id), "{path}: {report:#}");
    }
}

#[test]
fn a_truncated_notes_commit_is_a_repository_to_repair_naming_it_not_a_notes_ref_to_repoint() {
    let c = setup();
    let id = c.p.rev("refs/notes/speccoder");
    truncate_loose_object(&c, &id);
    let (code, report) = verify_damaged(&c, &["--branch", "--all"]);
    ends_as_a_repository_to_repair(code, &report, &id);
    assert!(!report["error"].as_str().unwrap().contains("must point directly"), "{report:#}");
}

/// A task commit amended without `attest carry`, the old commit then pruned by git: its note
/// stays, naming a commit no longer in the repository.
#[test]
fn evidence_on_a_commit_git_removed_is_said_to_be_gone_by_verify_and_refused_by_carry() {
    let c = setup();
    c.p.git(&["commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00Z"]);
    c.p.git(&["reflog", "expire", "--expire=now", "--all"]);
    c.p.git(&["gc", "-q", "--prune=now"]);
    let (_, report) = verify(&c, &[]);
    let finding = first_finding(&report, "note_missing").unwrap_or_else(|| panic!("{report:#}"));
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("a commit no longer in the repository"), "{message}");
    assert!(!message.contains("attest fetch"), "no remote to fetch from: {message}");
    assert!(message.contains("attest the task again"), "{message}");

    let args = ["attest", "carry", "--allowed-signers", c.allowed.to_str().unwrap(), "--json"];
    let r = c.p.speccoder(&args);
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{r}"));
    assert_eq!(r.code(), Some(26), "{r}");
    assert_eq!(v["refused"][0]["code"], "evidence_gone", "{v:#}");
    assert_eq!(v["refused"][0]["target"], TASK, "{v:#}");
}

/// A task commit squashed into one without its trailers, the old commit pruned since: no commit
/// of the branch names the task, and its evidence is on a commit git removed. The tick is said to
/// be evidence gone with its commit, not a tick without evidence ever.
#[test]
fn a_tick_whose_task_commit_was_squashed_away_and_pruned_is_said_to_have_its_evidence_gone() {
    let c = setup();
    c.p.git(&["commit", "-q", "--amend", "-m", "Squashed, without its trailers"]);
    c.p.git(&["reflog", "expire", "--expire=now", "--all"]);
    c.p.git(&["gc", "-q", "--prune=now"]);
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    let row = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == TASK);
    let row = row.unwrap_or_else(|| panic!("{report:#}"));
    let finding = &row["findings"][0];
    assert_eq!(finding["code"], "commit_unreachable", "{row:#}");
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("a commit no longer in the repository"), "{message}");
    assert!(message.contains("attest the task again"), "{message}");
}

/// A notes reference file git cannot read (a bad write, a disk error): every command that reads
/// it says so with the same repair advice, as a repository to repair (exit 14).
#[test]
fn a_damaged_notes_reference_file_is_exit_14_with_repair_advice_in_every_mode() {
    let c = setup();
    c.p.git(&["pack-refs", "--all"]);
    c.p.write(".git/refs/notes/speccoder", "garbage\n");
    let allowed = c.allowed.to_str().unwrap();
    let key = c.ada.private.to_str().unwrap();
    let out = c.p.scratch.join("pack");
    for args in [
        vec!["attest", "verify", "--allowed-signers", allowed],
        vec!["attest", "verify", "--branch", "--allowed-signers", allowed],
        vec![
            "attest",
            "export",
            "--allowed-signers",
            allowed,
            "--vsa-key",
            key,
            "--out",
            out.to_str().unwrap(),
        ],
        vec!["attest", "carry", "--allowed-signers", allowed],
    ] {
        let r = c.p.speccoder(&args).failure(14);
        assert!(r.stderr.contains("the notes reference refs/notes/speccoder"), "{args:?}: {r}");
        assert!(r.stderr.contains("Repair its file by hand"), "{args:?}: {r}");
        assert!(!r.stderr.contains("delete it"), "{args:?}: {r}");
    }

    // The advice: the last line of the reference's log names the notes commit it last held.
    let log = String::from_utf8(c.p.read(".git/logs/refs/notes/speccoder")).unwrap();
    let last = log.lines().last().unwrap().split(' ').nth(1).unwrap().to_owned();
    c.p.write(".git/refs/notes/speccoder", format!("{last}\n"));
    let allowed = c.allowed.to_str().unwrap();
    c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", allowed]).success();
}

/// A notes reference that is a symbolic one (`git symbolic-ref refs/notes/speccoder
/// refs/notes/real`) is refused, and the advice changes the link alone: deleting it with git's
/// ordinary `git update-ref -d` would delete the reference it names, every note with it.
#[test]
fn a_symbolic_notes_reference_is_refused_with_advice_that_keeps_the_notes_it_names() {
    let c = setup();
    c.p.git(&["update-ref", "refs/notes/real", "refs/notes/speccoder"]);
    c.p.git(&["update-ref", "-d", "refs/notes/speccoder"]);
    c.p.git(&["symbolic-ref", "refs/notes/speccoder", "refs/notes/real"]);
    let notes = c.p.rev("refs/notes/real");
    let allowed = c.allowed.to_str().unwrap();
    let evidence = write_evidence(&c.p.scratch.join("ev2"), "001-bookmark-tags/T001", Evidence::Verified);
    for args in [
        vec!["attest", "verify", "--branch", "--all", "--allowed-signers", allowed],
        vec![
            "attest",
            "001-bookmark-tags/T001",
            "--evidence",
            evidence.to_str().unwrap(),
            "--signer",
            "none",
        ],
    ] {
        let r = c.p.speccoder(&args).failure(14);
        for says in [
            "is a symbolic reference to refs/notes/real",
            "`git symbolic-ref refs/notes/speccoder`",
            "`git update-ref --no-deref refs/notes/speccoder refs/notes/real`",
            "`git symbolic-ref --delete refs/notes/speccoder`",
        ] {
            assert!(r.stderr.contains(says), "{args:?}: should say {says}\n{r}");
        }
        assert!(!r.stderr.contains("`git update-ref -d"), "{args:?}: {r}");
        assert!(!r.stderr.contains("show-ref"), "git show-ref follows the link: {r}");
    }

    // The advice makes it point at the notes commit directly, and both references keep it.
    c.p.git(&["update-ref", "--no-deref", "refs/notes/speccoder", "refs/notes/real"]);
    assert!(c.p.git_run(&["symbolic-ref", "-q", "refs/notes/speccoder"]).code() != Some(0));
    assert_eq!((c.p.rev("refs/notes/speccoder"), c.p.rev("refs/notes/real")), (notes.clone(), notes));
    c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", allowed]).success();
}

// --- signed claims that the commit or the specification's values rule out --------------------
// Each note below is signed by the trusted key, its summary re-pointed: only what it claims is
// wrong, and the verifier checks that again.

/// The statement of line `i` of HEAD's note, as signed.
fn statement_at(c: &Case, i: usize) -> Value {
    statement_of(&note_raw_lines(c, "HEAD")[i])
}

/// The message of the first finding of code `code` on the row of [`TASK`].
fn message_of(report: &Value, code: &str) -> String {
    let f = first_finding(report, code).unwrap_or_else(|| panic!("no {code}: {report:#}"));
    f["message"].as_str().unwrap().to_owned()
}

/// A trace that leaves out a requirement the task cites claims nothing false (the published
/// speccoder reads fewer cited ids than this reader), and hides nothing: the drift check takes the
/// ids the task's text cites at the task commit, never the trace's.
#[test]
fn a_trace_that_leaves_out_a_requirement_the_task_cites_hides_no_drift_from_the_check() {
    let c = setup();
    let i = tv(&note_raw_lines(&c, "HEAD"));
    let original = statement_at(&c, i);
    let rows = original["predicate"]["trace"].as_array().unwrap();
    let without: Vec<Value> = rows.iter().filter(|r| r["requirement"] != "FR-001").cloned().collect();
    assert!(without.len() < rows.len(), "the task cites FR-001: {rows:?}");
    for (trace, code) in [(Value::Null, 26), (json!("x"), 26), (json!([]), 0), (json!(without), 0)] {
        rewrite_signed(&c, i, true, |st| st["predicate"]["trace"] = trace.clone());
        let (found, report) = verify(&c, &[]);
        assert_eq!(found, code, "{trace}: {report:#}");
        if code == 26 {
            expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "tick_fields_missing");
        }
    }
    // The requirement reworded at the head makes the tick stale, though the trace has no row for it.
    edit_and_commit(&c.p, SPEC_MD, "**FR-001**: System MUST", "**FR-001**: System MUST NOT", "reword FR-001");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick(&report, "stale", Some("stale")), "requirement_changed");
    assert!(message_of(&report, "requirement_changed").contains("FR-001"), "{report:#}");
}

/// The modes over commits hold a task commit to the head's wording as `--branch` does: a cited
/// requirement reworded after the tick makes it stale whether the commit is named alone, in a
/// range, or as one of the branch's.
#[test]
fn a_requirement_reworded_after_the_tick_makes_it_stale_in_every_mode() {
    let c = setup();
    let task_commit = c.p.git(&["rev-parse", "HEAD"]).trim().to_owned();
    edit_and_commit(
        &c.p,
        SPEC_MD,
        "**FR-002**: System MUST",
        "**FR-002**: System MAY",
        "weaken FR-002 after the tick",
    );
    let range = format!("{task_commit}~1..HEAD");
    for mode in [&[][..], &[task_commit.as_str()], &[range.as_str()], &["--branch", "--all"]] {
        let (code, report) = verify_with(&c, mode);
        assert_eq!(code, 26, "{mode:?}: {report:#}");
        expect_code(&expect_tick(&report, "stale", Some("stale")), "requirement_changed");
        assert!(message_of(&report, "requirement_changed").contains("FR-002"), "{mode:?}: {report:#}");
    }
}

/// A requirement the task cites that its spec did not define at the tick, defined afterwards, is
/// wording the evidence never saw: the tick is stale, in every mode.
#[test]
fn a_cited_requirement_defined_only_after_the_tick_makes_it_stale() {
    let c = setup_prepared(Evidence::Verified, &[], |c| {
        let tasks = "specs/001-bookmark-tags/tasks.md";
        edit_and_commit(
            &c.p,
            tasks,
            "(FR-001, FR-002)",
            "(FR-001, FR-002, FR-040)",
            "T005 cites FR-040, not yet written",
        );
    });
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "nothing defines FR-040 at the head either: {report:#}");
    let defined = "- **FR-040**: System MUST delete every bookmark that has no tag.\n- **FR-004**:";
    edit_and_commit(&c.p, SPEC_MD, "- **FR-004**:", defined, "define FR-040 after the tick");
    for mode in [&[][..], &["--branch", "--all"]] {
        let (code, report) = verify_with(&c, mode);
        assert_eq!(code, 26, "{mode:?}: {report:#}");
        expect_code(&expect_tick(&report, "stale", Some("stale")), "requirement_changed");
        let f = first_finding(&report, "requirement_changed").unwrap();
        assert!(
            f["message"].as_str().unwrap().contains("FR-040,")
                && f["message"].as_str().unwrap().contains("defined after the tick"),
            "{f:#}"
        );
        assert_eq!(f["expected"], "(not defined at the tick)", "{f:#}");
    }
}

/// A note written before a table's row was read as a requirement's definition carries no trace
/// row for the requirement its task cites there (it was said untraced). Read now, the row
/// defines it at the task commit and at the head alike: the note is no mismatch and stays
/// evidenced while the row reads the same, and is stale once the row changes.
#[test]
fn a_note_that_traced_no_row_for_a_table_row_requirement_holds_until_the_row_changes() {
    const ROW: &str = "| FR-40 | Text search on display_name and bio fields (ILIKE) | P1 |";
    let c = setup_prepared(Evidence::Verified, &[], |c| {
        let table = format!("| ID | Requirement | Priority |\n|----|----|----|\n{ROW}\n\n### Key Entities");
        edit_and_commit(&c.p, SPEC_MD, "### Key Entities", &table, "FR-40 as a table's row");
        let tasks = "specs/001-bookmark-tags/tasks.md";
        edit_and_commit(&c.p, tasks, "(FR-001, FR-002)", "(FR-001, FR-002, FR-40)", "T005 cites FR-40");
    });
    let i = tv(&note_raw_lines(&c, "HEAD"));
    rewrite_signed(&c, i, true, |st| {
        let rows = st["predicate"]["trace"].as_array_mut().unwrap();
        let before = rows.len();
        rows.retain(|row| row["requirement"] != "FR-40");
        assert_eq!(rows.len() + 1, before, "the tick traced FR-40 by its row");
    });
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
    expect_tick(&report, "evidenced", None);
    edit_and_commit(&c.p, SPEC_MD, "(ILIKE) | P1", "(exact) | P1", "reword FR-40 after the tick");
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26, "{report:#}");
    expect_code(&expect_tick(&report, "stale", Some("stale")), "requirement_changed");
    assert!(message_of(&report, "requirement_changed").contains("FR-40"), "{report:#}");
}

#[test]
fn a_requirement_hash_that_never_was_the_commit_s_is_a_mismatch_not_a_change_since_the_tick() {
    let c = setup();
    let i = tv(&note_raw_lines(&c, "HEAD"));
    let signed =
        statement_at(&c, i)["predicate"]["trace"][0]["requirement_hash"].as_str().unwrap().to_owned();
    rewrite_signed(&c, i, true, |st| st["predicate"]["trace"][0]["requirement_hash"] = json!("0".repeat(64)));
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 26);
    let codes = expect_tick(&report, "unverifiable", Some("mismatch"));
    expect_code(&codes, "requirement_hash_mismatch");
    assert!(!codes.iter().any(|c| c == "requirement_changed"), "nothing changed since the tick: {codes:?}");
    let f = first_finding(&report, "requirement_hash_mismatch").unwrap();
    assert_eq!(
        (f["expected"].as_str(), f["found"].as_str()),
        (Some("0".repeat(64).as_str()), Some(signed.as_str()))
    );
}

#[test]
fn a_signed_unit_directory_format_or_title_unlike_the_commit_s_is_a_mismatch_naming_the_field() {
    let c = setup();
    let i = tv(&note_raw_lines(&c, "HEAD"));
    let original = statement_at(&c, i);
    for (field, key, value, code) in [
        ("unit", "dir", "specs/999-other", "unit_dir_mismatch"),
        ("unit", "format", "openspec", "unit_format_mismatch"),
        ("task", "title", "Delete all bookmarks (FR-009)", "title_mismatch"),
    ] {
        rewrite_signed(&c, i, true, |st| {
            *st = original.clone();
            st["predicate"][field][key] = json!(value);
        });
        let (code_, report) = verify(&c, &[]);
        assert_eq!(code_, 26, "{field}.{key}");
        expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), code);
        assert!(message_of(&report, code).contains(&format!("{field}.{key}")), "{report:#}");
        assert_eq!(first_finding(&report, code).unwrap()["expected"], value, "the signed value is expected");
    }
}

/// A change made to a signed predicate.
type Change = Box<dyn Fn(&mut Value)>;

#[test]
fn values_the_specification_rules_out_fail_a_tick_signed_by_a_trusted_key() {
    let c = setup();
    let lines = note_raw_lines(&c, "HEAD");
    let (i, s) = (tv(&lines), index_of(&lines, "verification_summary"));
    let original = statement_at(&c, i);
    assert!(original["predicate"]["red"]["excerpt"].is_string(), "the fixture's red excerpt is signed");
    let long = "A".repeat(5000);
    let cases: Vec<(&str, &str, Change)> = vec![
        ("bad_time", "malformed", Box::new(|p| p["time"] = json!("yesterday"))),
        ("bad_time", "malformed", Box::new(|p| p["time"] = json!("2026-12-06T15:30:13+02:00"))),
        ("unknown_monitor_state", "malformed", Box::new(|p| p["monitor"]["state"] = json!("great"))),
        ("bad_revision", "malformed", Box::new(|p| p["revision"] = json!(0))),
        ("tick_fields_missing", "malformed", Box::new(|p| p["integrity"] = json!({ "ok": true }))),
        ("tick_fields_missing", "malformed", Box::new(|p| p["monitor"]["findings"] = json!("none"))),
        ("unknown_format", "malformed", Box::new(|p| p["unit"]["format"] = json!("jira"))),
        (
            "red_excerpt_too_long",
            "malformed",
            Box::new(move |p| {
                p["red"]["excerpt"] = json!(long);
                p["red"]["excerpt_sha256"] = json!(sha256(long.as_bytes()));
            }),
        ),
        (
            "red_excerpt_digest_mismatch",
            "mismatch",
            Box::new(|p| p["red"]["excerpt_sha256"] = json!("0".repeat(64))),
        ),
        ("red_withheld_mismatch", "mismatch", Box::new(|p| p["red"]["withheld"] = json!(true))),
        (
            "red_withheld_mismatch",
            "mismatch",
            Box::new(|p| {
                p["red"]["excerpt"] = Value::Null;
                p["red"]["excerpt_sha256"] = Value::Null;
            }),
        ),
        (
            "tick_fields_missing",
            "malformed",
            Box::new(|p| {
                let p = p.as_object_mut().unwrap();
                for field in ["trace", "monitor", "integrity"] {
                    p.remove(field);
                }
            }),
        ),
    ];
    for (code, reason, change) in &cases {
        rewrite_signed(&c, i, true, |st| {
            *st = original.clone();
            change(&mut st["predicate"]);
        });
        let (exit, report) = verify(&c, &[]);
        assert_eq!(exit, 26, "{code}: {report:#}");
        expect_code(&expect_tick(&report, "unverifiable", Some(reason)), code);
    }
    rewrite_signed(&c, i, true, |st| {
        *st = original.clone();
        st["predicate"]["monitor"].as_object_mut().unwrap().remove("findings");
    });
    let (exit, report) = verify(&c, &[]);
    assert_eq!(exit, 0, "a monitor without findings has none: {report:#}");
    rewrite_signed(&c, i, true, |st| *st = original.clone());
    let (exit, _) = verify(&c, &[]);
    assert_eq!(exit, 0, "the statement as attest signed it");
    rewrite_signed(&c, s, false, |st| st["predicate"]["timeVerified"] = json!("never"));
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("malformed")), "bad_time");
}

#[test]
fn a_summary_whose_resource_uri_names_another_commit_is_a_mismatch_whatever_the_repository() {
    let c = setup();
    let s = index_of(&note_raw_lines(&c, "HEAD"), "verification_summary");
    let commit = c.p.rev("HEAD");
    rewrite_signed(&c, s, false, |st| {
        st["predicate"]["resourceUri"] =
            json!(format!("git+https://github.com/other/repo@{}", "0".repeat(40)));
    });
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "resource_uri_mismatch");
    // The repository it names is not checked: a clone's remotes do not say where it was published.
    rewrite_signed(&c, s, false, |st| {
        st["predicate"]["resourceUri"] = json!(format!("git+https://github.com/other/repo@{commit}"));
    });
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn a_git_commit_in_upper_case_hex_is_said_to_be_no_lowercase_id_not_a_rewritten_commit() {
    let c = setup();
    let commit = c.p.rev("HEAD");
    let mut lines = note_raw_lines(&c, "HEAD");
    let mut statements: Vec<Value> = lines.iter().map(|l| statement_of(l)).collect();
    let digest = |st: &Value| sha256(&serde_json::to_vec(st).unwrap());
    let before: Vec<String> = statements.iter().map(digest).collect();
    for st in &mut statements {
        st["subject"][0]["digest"]["gitCommit"] = json!(commit.to_uppercase());
    }
    let after: Vec<String> = statements.iter().map(digest).collect();
    let s = index_of(&lines, "verification_summary");
    for input in statements[s]["predicate"]["inputAttestations"].as_array_mut().unwrap() {
        let at = before.iter().position(|d| input["digest"]["sha256"] == d.as_str()).unwrap();
        input["digest"]["sha256"] = json!(after[at]);
    }
    for (line, st) in lines.iter_mut().zip(&statements) {
        *line = signed_line(&c, st, &c.ada);
    }
    write_note(&c, "HEAD", &lines);
    let (_, report) = verify(&c, &[]);
    expect_code(&expect_tick(&report, "unverifiable", Some("mismatch")), "subject_mismatch");
    let message = message_of(&report, "subject_mismatch");
    assert!(message.contains("lowercase"), "{message}");
    assert!(!message.contains("attest carry") && !message.contains("rewritten"), "{message}");
}

/// Carry reads the requirements the task's text cites at both commits, as the drift check does,
/// never the trace: evidence whose trace leaves a row out is not carried across a rewording of
/// that requirement. Its reason says the requirement changed, and the verifier, before any carry,
/// says the same of the new commit instead of advising a carry that would be refused.
#[test]
fn carry_refuses_a_rewording_of_a_cited_requirement_the_trace_leaves_out() {
    let c = setup();
    let i = tv(&note_raw_lines(&c, "HEAD"));
    rewrite_signed(&c, i, true, |st| {
        let rows = st["predicate"]["trace"].as_array().unwrap();
        let scenarios: Vec<Value> = rows.iter().filter(|r| r.get("scenario").is_some()).cloned().collect();
        st["predicate"]["trace"] = json!(scenarios);
    });
    let (code, report) = verify(&c, &[]);
    assert_eq!(code, 0, "a trace without requirement rows claims nothing false: {report:#}");
    let old = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "reworded", "HEAD~1"]);
    let spec = String::from_utf8(c.p.read("specs/001-bookmark-tags/spec.md")).unwrap();
    c.p.write(
        "specs/001-bookmark-tags/spec.md",
        spec.replace(
            "**FR-002**: System MUST store tags in lowercase",
            "**FR-002**: System MUST store tags in UPPERCASE",
        ),
    );
    c.p.git(&["commit", "-q", "-am", "FR-002 now says UPPERCASE"]);
    c.p.git(&["cherry-pick", &old]);
    let new = c.p.rev("HEAD");
    let (_, report) = verify(&c, &[]);
    let missing = message_of(&report, "note_missing");
    assert!(missing.contains("(requirement_differs): requirement FR-002 changed"), "{missing}");
    assert!(
        missing.contains("to attest it again") && !missing.contains("run `speccoder attest carry`"),
        "{missing}"
    );
    let (code, report) = carry(&c, &old, &new);
    assert_eq!(code, 26, "{report:#}");
    assert_eq!(report["refused"][0]["code"], "requirement_differs", "{report:#}");
    let reason = report["refused"][0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("requirement FR-002 changed since the evidence was given: at {new}")),
        "{reason}"
    );
    assert!(missing.contains(reason), "verify says what carry says: {missing}");
}

/// A cherry-pick onto a parent whose judge configuration differs: carry refuses it
/// (`policy_differs`), and the verifier says so of the new commit instead of advising the carry.
#[test]
fn a_task_commit_picked_onto_another_judge_configuration_is_told_to_attest_again_not_to_carry() {
    let c = setup();
    let old = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "judged-otherwise", "HEAD~1"]);
    c.p.write("speccoder.toml", "[checks.test]\nargv = [\"cargo\", \"test\", \"-q\"]\n");
    c.p.git(&["add", "speccoder.toml"]);
    c.p.git(&["commit", "-q", "-m", "another judge configuration"]);
    c.p.git(&["cherry-pick", &old]);
    let new = c.p.rev("HEAD");
    let (_, report) = verify(&c, &[]);
    let missing = message_of(&report, "note_missing");
    assert!(missing.contains("(policy_differs): the judge configuration (speccoder.toml)"), "{missing}");
    assert!(!missing.contains("run `speccoder attest carry`"), "{missing}");
    let (code, report) = carry(&c, &old, &new);
    assert_eq!(code, 26, "{report:#}");
    assert_eq!(report["refused"][0]["code"], "policy_differs", "{report:#}");
}
