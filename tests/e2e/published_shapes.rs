//! Evidence in the published speccoder's own shapes, as its 0.9.0 writes them: a `collection` row
//! `{path, state, decided_by, tests, test_ids}`, a `regression` `{reason, ...}`, a held_out test
//! result `PASSED` without counts beside its `Held-Out: passed=<n>/<n> manifest=sha256:<d>`
//! trailer, and its publication of held-out sets under each set's task. Our own notes are
//! rewritten here into those shapes by hand (the statements edited as JSON, signed with
//! `ssh-keygen`), under the published recipe (its digest by `jq` and `sha256sum`) where the tool
//! wrote them, and under the version-free recipe where a note of ours would carry them.

use crate::common;

use std::path::PathBuf;

use common::*;
use serde_json::{Value, json};

const T005: &str = "001-bookmark-tags/T005";
const T006: &str = "001-bookmark-tags/T006";
const T007: &str = "001-bookmark-tags/T007";
const T008: &str = "001-bookmark-tags/T008";
const REF: &str = "refs/speccoder/held-out/001-bookmark-tags";

/// The release whose shapes these notes take.
const RELEASE: &str = "0.9.0";

/// The published recipe's object for a project without `speccoder.toml`, at [`RELEASE`].
const NO_CONFIG_AT_RELEASE: &str = r#"{"acceptance":null,"attest":{"signer":"git"},"checks":null,"executor":null,
  "model":{"model":null,"provider":null},"monitor":null,"mutation":null,"sandbox":null,
  "speccoder_version":"0.9.0","tests":null}"#;

/// A Spec Kit project whose ticks ada signs, and the allowed signers that trust her.
struct Signed {
    p: Project,
    ada: Key,
    allowed: PathBuf,
}

fn signed_project() -> Signed {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    Signed { p, ada, allowed }
}

/// Attests `task` with evidence of `kind`; its task commit.
fn attested(s: &Signed, task: &str, kind: Evidence) -> String {
    let evidence = write_evidence(&s.p.scratch.join(task.replace('/', "-")), task, kind);
    s.p.attest(task, &evidence, &[]).success();
    s.p.rev("HEAD")
}

/// Who wrote a rewritten note: the published speccoder at [`RELEASE`] (its recipe's policy digest,
/// its version in the summary), or this crate (the note's version-free digest kept).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Writer {
    Published,
    Ours,
}

/// Writes onto `to` the note of `from` with `edit` applied to every statement, as `writer` writes
/// it, every line signed by ada and the summary naming the new lines by their digests.
fn rewrite(s: &Signed, from: &str, to: &str, writer: Writer, edit: impl Fn(&mut Value)) {
    let digest = crate::published_policy::peer_digest(&s.p, NO_CONFIG_AT_RELEASE);
    let mut renamed = std::collections::HashMap::new();
    let mut lines = Vec::new();
    let mut summary = None;
    for line in s.p.note_lines(from) {
        let mut statement = line.statement.clone();
        edit(&mut statement);
        let predicate = &mut statement["predicate"];
        match line.predicate_type() {
            t if t.ends_with("/verification_summary/v1") => {
                if writer == Writer::Published {
                    predicate["verifier"]["version"] = json!({ "speccoder": RELEASE });
                    predicate["policy"]["digest"]["sha256"] = json!(digest);
                }
                summary = Some((lines.len(), statement));
                lines.push(Vec::new());
                continue;
            }
            t if t.ends_with("/task-verification/v0") && writer == Writer::Published => {
                predicate["policy_sha256"] = json!(digest);
            }
            _ => {}
        }
        renamed.insert(line.digest(), sha256(&serde_json::to_vec(&statement).unwrap()));
        lines.push(s.p.ssh_signed_line(&statement, &s.ada));
    }
    let (at, mut statement) = summary.expect("a summary line");
    for input in statement["predicate"]["inputAttestations"].as_array_mut().unwrap() {
        let old = input["digest"]["sha256"].as_str().unwrap().to_owned();
        input["digest"]["sha256"] = json!(renamed[&old]);
    }
    lines[at] = s.p.ssh_signed_line(&statement, &s.ada);
    s.p.write_note(to, &lines);
}

/// The task verification's predicate of `statement`, when it is that line.
fn task_verification(statement: &mut Value) -> Option<&mut Value> {
    let tv = statement["predicateType"].as_str().is_some_and(|t| t.ends_with("/task-verification/v0"));
    tv.then(|| &mut statement["predicate"])
}

/// The held_out test result's predicate of `statement`, when it is that line.
fn held_out_line(statement: &mut Value) -> Option<&mut Value> {
    let phase = &statement["predicate"]["configuration"][0]["name"];
    (phase == "speccoder:phase/held_out").then(|| &mut statement["predicate"])
}

/// `attest verify --branch --all --json` with ada trusted: the exit code and the report.
fn verify(s: &Signed) -> (i32, Value) {
    let allowed = s.allowed.to_str().unwrap();
    let out =
        s.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", allowed, "--json"]);
    let report = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"));
    (out.code().unwrap_or(-1), report)
}

#[track_caller]
fn tick<'r>(report: &'r Value, task: &str) -> &'r Value {
    let ticks = report["ticks"].as_array().unwrap();
    ticks.iter().find(|t| t["task"] == task).unwrap_or_else(|| panic!("no tick for {task}: {report:#}"))
}

fn codes(tick: &Value) -> Vec<&str> {
    tick["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect()
}

#[track_caller]
fn finding<'r>(tick: &'r Value, code: &str) -> &'r Value {
    let findings = tick["findings"].as_array().unwrap();
    findings.iter().find(|f| f["code"] == code).unwrap_or_else(|| panic!("no {code}: {tick:#}"))
}

/// The published speccoder's collection of one collected file.
fn published_collection() -> Value {
    json!({ "files": [{
        "path": "tests/tags_add.rs", "state": "collected", "decided_by": "junit",
        "tests": 1, "test_ids": ["tags_add::adds_a_tag"]
    }] })
}

#[test]
fn the_published_speccoders_collection_and_regression_verify_in_its_evidence_and_are_malformed_in_ours() {
    let s = signed_project();
    let collection = |st: &mut Value| {
        if let Some(p) = task_verification(st) {
            p["collection"] = published_collection();
        }
    };
    let regression = |st: &mut Value| {
        if let Some(p) = task_verification(st) {
            p["regression"] = json!({ "reason": "no_scenarios", "story": "US1" });
        }
    };
    // The published speccoder says its reason in its own words in the commit's trailer.
    let its_words = |m: &str| with_trailer(m, "Regression-Only", "no_scenarios story=US1");
    let c5 = attested(&s, T005, Evidence::Verified);
    let c6 = attested(&s, T006, Evidence::RegressionOnly);
    reworded(&s, &c6, T006, Writer::Published, its_words, regression);
    let c7 = attested(&s, T007, Evidence::Verified);
    let c8 = attested(&s, T008, Evidence::RegressionOnly);
    rewrite(&s, &c5, &c5, Writer::Published, collection);
    rewrite(&s, &c7, &c7, Writer::Ours, collection);
    rewrite(&s, &c8, &c8, Writer::Ours, regression);

    let (code, report) = verify(&s);
    assert_eq!(code, 26, "{report:#}");
    for task in [T005, T006] {
        let t = tick(&report, task);
        assert_eq!(t["outcome"], "evidenced", "{t:#}");
        assert_eq!(t["policy"], json!({"recipe": "published", "speccoder_version": RELEASE}), "{t:#}");
    }
    for (task, member) in [(T007, "collection.files[0]"), (T008, "regression")] {
        let t = tick(&report, task);
        assert_eq!(t["outcome"], "unverifiable", "{t:#}");
        assert_eq!(codes(t), ["published_shape_outside_recipe"], "{t:#}");
        assert_eq!(finding(t, "published_shape_outside_recipe")["found"], member, "{t:#}");
    }
}

#[test]
fn a_run_or_regression_only_trailer_that_contradicts_the_signed_run_or_reason_is_a_mismatch_in_either_shapes()
{
    let s = signed_project();
    // The published speccoder signs its run as a string and its reason as `{reason, ...}`.
    let published = |run: &'static str| {
        move |st: &mut Value| {
            if let Some(p) = task_verification(st) {
                p["run"] = json!(run);
                if p["verdict"] == "regression_only" {
                    p["regression"] = json!({ "reason": "no_scenarios", "story": "US1" });
                }
            }
        }
    };
    let trailers = |run: &'static str, reason: Option<&'static str>| {
        move |m: &str| {
            let m = with_trailer(m, "Run", run);
            reason.map_or(m.clone(), |reason| with_trailer(&m, "Regression-Only", reason))
        }
    };
    let c5 = attested(&s, T005, Evidence::Verified);
    reworded(&s, &c5, T005, Writer::Published, trailers("other-run", None), published("run-1"));
    let c6 = attested(&s, T006, Evidence::RegressionOnly);
    let story2 = trailers("run-1", Some("no_scenarios story=US2"));
    reworded(&s, &c6, T006, Writer::Published, story2, published("run-1"));
    let c7 = attested(&s, T007, Evidence::RegressionOnly);
    let story1 = trailers("run-1", Some("no_scenarios story=US1"));
    reworded(&s, &c7, T007, Writer::Published, story1, published("run-1"));
    // Ours: the reason our attest signed, reworded in the unsigned trailer.
    let c8 = attested(&s, T008, Evidence::RegressionOnly);
    let untestable = |m: &str| with_trailer(m, "Regression-Only", "untestable: no harness");
    reworded(&s, &c8, T008, Writer::Ours, untestable, |_| {});

    let (code, report) = verify(&s);
    assert_eq!(code, 26, "{report:#}");
    let t5 = tick(&report, T005);
    assert_eq!(t5["policy"], json!({"recipe": "published", "speccoder_version": RELEASE}), "{t5:#}");
    assert_eq!(codes(t5), ["run_trailer_mismatch"], "{t5:#}");
    let run = finding(t5, "run_trailer_mismatch");
    assert_eq!((&run["expected"], &run["found"]), (&json!("run-1"), &json!("other-run")), "{t5:#}");
    let t6 = tick(&report, T006);
    assert_eq!(codes(t6), ["regression_trailer_mismatch"], "{t6:#}");
    let reason = finding(t6, "regression_trailer_mismatch");
    assert_eq!(
        (&reason["expected"], &reason["found"]),
        (&json!("no_scenarios story=US1"), &json!("no_scenarios story=US2")),
        "{t6:#}"
    );
    assert_eq!(tick(&report, T007)["outcome"], "evidenced", "{report:#}");
    let t8 = tick(&report, T008);
    assert_eq!(codes(t8), ["regression_trailer_mismatch"], "{t8:#}");
    let reason = finding(t8, "regression_trailer_mismatch");
    assert_eq!(
        (&reason["expected"], &reason["found"]),
        (
            &json!("already_passing: the acceptance tests passed before the change"),
            &json!("untestable: no harness")
        ),
        "{t8:#}"
    );
}

#[test]
fn a_task_verification_line_that_does_not_read_is_named_as_such_and_not_as_missing() {
    let s = signed_project();
    let c5 = attested(&s, T005, Evidence::Verified);
    rewrite(&s, &c5, &c5, Writer::Published, |st| {
        if let Some(p) = task_verification(st) {
            p["collection"] = json!({ "files": [{ "path": "tests/tags_add.rs" }] });
        }
    });
    let (code, report) = verify(&s);
    assert_eq!(code, 26, "{report:#}");
    let t = tick(&report, T005);
    let codes = codes(t);
    assert!(codes.contains(&"bad_predicate"), "{t:#}");
    assert!(!codes.contains(&"no_task_verification"), "the line is there: {t:#}");
    let message = finding(t, "bad_predicate")["message"].as_str().unwrap();
    assert!(message.contains("missing field `collected`"), "{message}");
}

#[test]
fn a_held_out_pass_without_counts_verifies_in_the_published_speccoders_evidence_and_never_for_more_than_it_signs()
 {
    let s = signed_project();
    let c5 = attested(&s, T005, Evidence::WithHeldOut);
    let c6 = attested(&s, T006, Evidence::WithHeldOut);
    let c7 = attested(&s, T007, Evidence::WithHeldOut);
    let uncounted = |st: &mut Value| {
        if let Some(p) = held_out_line(st) {
            p["configuration"][0].as_object_mut().unwrap().remove("annotations");
        }
    };
    rewrite(&s, &c5, &c5, Writer::Published, uncounted);
    rewrite(&s, &c6, &c6, Writer::Ours, uncounted);
    rewrite(&s, &c7, &c7, Writer::Published, |st| {
        uncounted(st);
        if let Some(p) = held_out_line(st) {
            p["result"] = json!("FAILED");
        }
    });
    let trailer = |c: &str| s.p.git(&["log", "-1", "--format=%(trailers:key=Held-Out,valueonly)", c]);
    assert!(trailer(&c5).starts_with("passed=3/3 manifest=sha256:"), "{}", trailer(&c5));

    let (code, report) = verify(&s);
    assert_eq!(code, 26, "{report:#}");
    let t5 = tick(&report, T005);
    assert_eq!(t5["outcome"], "evidenced", "{t5:#}");

    let t6 = tick(&report, T006);
    assert_eq!(codes(t6), ["verdict_mismatch", "held_out_trailer_mismatch"], "{t6:#}");
    let expected = finding(t6, "held_out_trailer_mismatch")["expected"].as_str().unwrap();
    assert!(expected.starts_with("no held-out count: the signed held_out line is PASSED"), "{expected}");
    assert!(!expected.contains("passed=/"), "{expected}");

    let t7 = tick(&report, T007);
    assert_eq!(codes(t7), ["verdict_mismatch", "held_out_trailer_mismatch"], "{t7:#}");
    assert_eq!(finding(t7, "verdict_mismatch")["found"], "FAILED", "{t7:#}");
}

/// The published speccoder's manifest of a held-out set for T005 naming the kit's one file, as
/// it writes it (pretty), and the digest its tick names for it: sha256 of its compact JSON in the
/// manifest's own member order, written out here by hand.
fn published_manifest(task: &str, file_sha256: &str) -> (Vec<u8>, String) {
    let compact = format!(
        r#"{{"version":1,"feature":"001-bookmark-tags","task":"{task}","author_run":"run-1","checkpoint":"abc","visible_scenarios":["US1.1"],"files":[{{"path":"held_out.rs","sha256":"{file_sha256}","scenarios":["US1.1"],"argv":["cargo","test"],"composition":false}}],"discarded":[]}}"#
    );
    let value: Value = serde_json::from_str(&compact).unwrap();
    (serde_json::to_vec_pretty(&value).unwrap(), sha256(compact.as_bytes()))
}

/// Amends HEAD (`commit`) so that its `Held-Out:` trailer names `digest` instead, and moves its
/// note there as the published speccoder writes it: each subject the new commit's, the summary's
/// resource too, and the held_out line naming `digest`. The new commit.
fn renamed_to(s: &Signed, commit: &str, digest: &str) -> String {
    let named = |message: &str| {
        let old = message.lines().find_map(|l| l.strip_prefix("Held-Out: ")).unwrap().to_owned();
        message.replace(&old, &format!("passed=1/1 manifest=sha256:{digest}"))
    };
    reworded(s, commit, T005, Writer::Published, named, |st| {
        if let Some(p) = held_out_line(st) {
            p["configuration"][0] =
                json!({ "name": "speccoder:phase/held_out", "digest": { "sha256": digest } });
        }
    })
}

/// Amends HEAD (`commit`, the task commit of `task`) to the message `reword` makes of its own, and
/// moves its note there as `writer` writes it: each subject the new commit's, the summary's
/// resource too, every statement with `edit` applied. The new commit.
fn reworded(
    s: &Signed,
    commit: &str,
    task: &str,
    writer: Writer,
    reword: impl Fn(&str) -> String,
    edit: impl Fn(&mut Value),
) -> String {
    let message = reword(&s.p.git(&["log", "-1", "--format=%B", commit]));
    s.p.git(&["commit", "-q", "--amend", "--no-verify", "-m", &message]);
    let new = s.p.rev("HEAD");
    let raw = s.p.git_bytes(&["cat-file", "commit", &new]);
    let object = [format!("commit {}\0", raw.len()).into_bytes(), raw].concat();
    let subject = json!([{ "name": task, "digest": { "gitCommit": new, "sha256": sha256(&object) } }]);
    rewrite(s, commit, &new, writer, |st| {
        st["subject"] = subject.clone();
        if let Some(uri) = st["predicate"]["resourceUri"].as_str() {
            st["predicate"]["resourceUri"] = json!(uri.replace(commit, &new));
        }
        edit(st);
    });
    s.p.git(&["notes", "--ref=speccoder", "remove", commit]);
    new
}

/// `message` with the value of its trailer `key` replaced by `value`, or the trailer added.
fn with_trailer(message: &str, key: &str, value: &str) -> String {
    let prefix = format!("{key}: ");
    let mut lines: Vec<String> = message.trim_end().lines().map(str::to_owned).collect();
    match lines.iter_mut().find(|l| l.starts_with(&prefix)) {
        Some(line) => *line = format!("{prefix}{value}"),
        None => lines.push(format!("{prefix}{value}")),
    }
    lines.join("\n") + "\n"
}

/// Points the held-out ref at a new commit whose tree holds `entries` (`(path, bytes)`), as the
/// published speccoder publishes them (every file a regular one, by `git update-index`).
fn publish(s: &Signed, entries: &[(&str, &[u8])]) {
    let index = s.p.scratch.join("published-index");
    let _ = std::fs::remove_file(&index);
    for (path, bytes) in entries {
        let blob = hash_object(s, bytes);
        let mut cmd = git_command(&s.p.root, &s.p.home, &["update-index", "--add", "--cacheinfo"]);
        cmd.arg(format!("100644,{blob},{path}")).env("GIT_INDEX_FILE", &index);
        run(cmd).success();
    }
    let mut cmd = git_command(&s.p.root, &s.p.home, &["write-tree"]);
    cmd.env("GIT_INDEX_FILE", &index);
    let tree = run(cmd).success().stdout.trim().to_owned();
    let commit = s.p.git(&["commit-tree", &tree, "-p", "HEAD", "-m", "speccoder: held-out tests"]);
    s.p.git(&["update-ref", REF, commit.trim()]);
}

fn hash_object(s: &Signed, bytes: &[u8]) -> String {
    let cmd = git_command(&s.p.root, &s.p.home, &["hash-object", "-w", "--stdin"]);
    run_with_stdin(cmd, bytes).success().stdout.trim().to_owned()
}

#[test]
fn the_published_speccoders_publication_of_held_out_sets_is_read_as_its_own_and_checked_for_its_ticks() {
    let s = signed_project();
    attested(&s, T006, Evidence::WithHeldOut);
    let c5 = attested(&s, T005, Evidence::WithHeldOut);
    let file: &[u8] = b"#[test] fn held_out() {}\n";
    let (manifest, digest) = published_manifest("T005", &sha256(file));
    let c5 = renamed_to(&s, &c5, &digest);

    // Its layout: the set under the task it was stored for, its own manifest, pretty-printed.
    publish(&s, &[("T005/manifest.json", &manifest), ("T005/files/held_out.rs", file)]);
    let (code, report) = verify(&s);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(tick(&report, T005)["outcome"], "evidenced");
    assert!(codes(tick(&report, T005)).is_empty(), "{report:#}");
    assert!(codes(tick(&report, T006)).is_empty(), "a tick of ours never reads it: {report:#}");

    // A file changed in the copy of the set the tick names fails it; our tick stands.
    publish(&s, &[("T005/manifest.json", &manifest), ("T005/files/held_out.rs", b"evil\n")]);
    let (code, report) = verify(&s);
    assert_eq!(code, 26, "{report:#}");
    let t5 = tick(&report, T005);
    let tampered = finding(t5, "held_out_published_tampered")["message"].as_str().unwrap();
    assert!(tampered.contains("files/held_out.rs has changed"), "{tampered}");
    assert_eq!(tick(&report, T006)["outcome"], "evidenced");

    // Another set stored for the task (a later attempt's) is not the tick's: said, not failed.
    let (later, _) = published_manifest("T005", &sha256(b"later\n"));
    publish(&s, &[("T005/manifest.json", &later), ("T005/files/held_out.rs", b"later\n")]);
    let (code, report) = verify(&s);
    assert_eq!(code, 0, "{report:#}");
    let note = finding(tick(&report, T005), "held_out_published_unchecked");
    assert_eq!(note["outcome"], "ok", "{note:#}");

    // A stray beside its sets fails every tick naming a set, and the advice keeps the ref.
    publish(&s, &[("README", b"hi\n"), ("T005/manifest.json", &manifest), ("T005/files/held_out.rs", file)]);
    let (code, report) = verify(&s);
    assert_eq!(code, 26, "{report:#}");
    let message = finding(tick(&report, T005), "held_out_published_tampered")["message"].as_str().unwrap();
    assert!(message.contains("do not delete it") && !message.contains(" -d "), "{message}");
    assert_eq!(c5, s.p.rev("HEAD"));
}

#[test]
fn evidence_that_holds_only_in_the_published_speccoders_shapes_is_refused_by_carry_and_ours_is_carried() {
    let s = signed_project();
    let c5 = attested(&s, T005, Evidence::Verified);
    attested(&s, T006, Evidence::Verified);
    rewrite(&s, &c5, &c5, Writer::Published, |st| {
        if let Some(p) = task_verification(st) {
            p["collection"] = published_collection();
        }
    });
    assert_eq!(verify(&s).0, 0);
    let root = crate::published_policy::move_main_beside_root(&s.p);
    s.p.git(&["rebase", "-q", "--onto", "moved", &root, "main"]);
    // Before the carry, the verifier says which it refuses, and why, instead of advising it.
    let (_, report) = verify(&s);
    let said = |task| finding(tick(&report, task), "note_missing")["message"].as_str().unwrap().to_owned();
    let refused = said(T005);
    assert!(refused.contains("cannot re-issue for it (published_shapes)"), "{refused}");
    assert!(refused.contains("collection.files[0]") && refused.contains("to attest it again"), "{refused}");
    assert!(!refused.contains("run `speccoder attest carry`"), "{refused}");
    assert!(said(T006).contains("run `speccoder attest carry`"), "{}", said(T006));
    let (code, report) = crate::published_policy::carry(&s.p, &s.allowed);
    assert_ne!(code, 0, "{report:#}");
    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{report:#}");
    assert_eq!(
        (&refused[0]["target"], &refused[0]["code"]),
        (&json!(T005), &json!("published_shapes")),
        "{report:#}"
    );
    assert!(refused[0]["reason"].as_str().unwrap().contains("collection.files[0]"), "{report:#}");
    let carried = report["carried"].as_array().unwrap();
    assert_eq!((carried.len(), &carried[0]["target"]), (1, &json!(T006)), "{report:#}");
}
