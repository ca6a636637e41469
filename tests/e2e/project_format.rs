//! The project's format as its `speccoder.toml` names it (`[spec] format`, as the published
//! speccoder reads it): every writer that looks a unit up by name (`attest`, `accept`, `skip`,
//! `held-out store`, `held-out publish --unit`) finds it in that format alone, refuses a unit of
//! the other one, and a name both formats hold when none is named; a malformed `[spec]` stops
//! every writer; `attest verify` never reads it.

use serde_json::Value;

use crate::common::{self, Evidence, OPENSPEC_UNIT, PRINCIPAL, Project, SPECKIT_UNIT};

/// A task of the OpenSpec fixture's change.
const OPENSPEC_TASK: &str = "add-tag-filter/1.1";
/// A task of the Spec Kit fixture's feature.
const SPECKIT_TASK: &str = "001-bookmark-tags/T005";

/// A repository holding both fixtures, Spec Kit's feature and OpenSpec's change, committed once.
fn both_formats() -> Project {
    let p = Project::uncommitted("speckit");
    common::copy_dir(&common::crate_root().join("fixtures/openspec"), &p.root);
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", "Initial project"]);
    p
}

/// Commits `text` as `speccoder.toml`.
fn commit_config(p: &Project, text: &str) {
    p.write("speccoder.toml", text);
    p.git(&["add", "speccoder.toml"]);
    p.git(&["commit", "-q", "-m", "speccoder.toml"]);
}

/// Evidence for `task`, in its own scratch directory.
fn evidence(p: &Project, task: &str) -> String {
    let dir = p.scratch_dir(&task.replace('/', "-"));
    common::write_evidence(&dir, task, Evidence::Verified).to_str().unwrap().to_owned()
}

/// A directory of one held-out test file, outside the work tree.
fn held_out_dir(p: &Project) -> String {
    let dir = p.scratch_dir("held-out-files");
    std::fs::write(dir.join("held_out.rs"), "#[test] fn held_out() {}\n").unwrap();
    dir.to_str().unwrap().to_owned()
}

#[test]
fn a_project_whose_format_is_spec_kit_refuses_an_openspec_change_to_every_writer_and_the_reverse() {
    let p = both_formats();
    commit_config(&p, "[spec]\nformat = \"speckit\"\n");
    let (openspec_ev, held) = (evidence(&p, OPENSPEC_TASK), held_out_dir(&p));
    let before = p.snapshot();
    for args in [
        &["attest", OPENSPEC_TASK, "--evidence", &openspec_ev, "--signer", "none"][..],
        &["accept", OPENSPEC_TASK, "--reason", "by hand", "--signer", "none"],
        &["skip", OPENSPEC_TASK, "--reason", "later", "--signer", "none"],
        &["held-out", "store", OPENSPEC_TASK, &held],
        &["held-out", "publish", "--unit", OPENSPEC_UNIT],
    ] {
        let out = p.speccoder(args).failure(13);
        for says in [
            "unit `add-tag-filter` is an OpenSpec change (`openspec/changes/add-tag-filter/`)",
            "speccoder.toml says this project is written in Spec Kit (`[spec] format = \"speckit\"`)",
            "set `[spec] format = \"openspec\"`",
        ] {
            assert!(out.stderr.contains(says), "{args:?} should say {says:?}\n{out}");
        }
    }
    assert_eq!(p.snapshot(), before, "nothing was written");
    assert!(!p.root.join(".git/speccoder/held-out").exists(), "nothing was stored");

    // The project's own units are ticked as ever.
    let out = p.attest(SPECKIT_TASK, evidence(&p, SPECKIT_TASK).as_ref(), &["--signer", "none"]).success();
    assert!(out.stdout.contains(SPECKIT_TASK), "{out}");

    // Named OpenSpec, the project ticks the change and refuses the feature.
    commit_config(&p, "[spec]\nformat = \"openspec\"\n");
    p.attest(OPENSPEC_TASK, openspec_ev.as_ref(), &["--signer", "none"]).success();
    assert!(p.git(&["show", "HEAD:openspec/changes/add-tag-filter/tasks.md"]).contains("- [x] 1.1"));
    let t006 = format!("{SPECKIT_UNIT}/T006");
    let out = p.attest(&t006, evidence(&p, &t006).as_ref(), &["--signer", "none"]).failure(13);
    assert!(out.stderr.contains("is a Spec Kit feature (`specs/001-bookmark-tags/`)"), "{out}");
    assert!(out.stderr.contains("whose units are the changes under `openspec/changes/`"), "{out}");
}

/// A name both formats hold stays ambiguous to a writer whatever `[spec] format` says: the
/// verifier, which reads no checked-in configuration, could not tell which unit a tick of it is
/// for, so the writer ticks nothing it could not check.
/// The published tool reads `[spec]` through serde: `spec = ["openspec"]` fills its one key, and
/// names the format as the table would; an array of another length is refused.
#[test]
fn a_spec_table_written_as_an_array_of_its_format_names_that_format() {
    let p = both_formats();
    commit_config(&p, "spec = [\"openspec\", \"speckit\"]\n");
    let out = p.attest(SPECKIT_TASK, evidence(&p, SPECKIT_TASK).as_ref(), &["--signer", "none"]).failure(13);
    assert!(out.stderr.contains("`spec` in speccoder.toml: an array here fills the keys of [spec]"), "{out}");
    commit_config(&p, "spec = [\"openspec\"]\n");
    let out = p.attest(SPECKIT_TASK, evidence(&p, SPECKIT_TASK).as_ref(), &["--signer", "none"]).failure(13);
    assert!(out.stderr.contains("is a Spec Kit feature (`specs/001-bookmark-tags/`)"), "{out}");
    p.attest(OPENSPEC_TASK, evidence(&p, OPENSPEC_TASK).as_ref(), &["--signer", "none"]).success();
}

#[test]
fn a_unit_name_both_formats_hold_is_refused_as_ambiguous_whatever_spec_format_says() {
    let p = both_formats();
    p.write(&format!("openspec/changes/{SPECKIT_UNIT}/tasks.md"), "## 1. Tasks\n\n- [ ] 1.1 Something\n");
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", "A change of the feature's name"]);
    let ev = evidence(&p, SPECKIT_TASK);
    for config in ["", "[spec]\nformat = \"speckit\"\n"] {
        commit_config(&p, config);
        let before = p.snapshot();
        let out = p.attest(SPECKIT_TASK, ev.as_ref(), &["--signer", "none"]).failure(13);
        assert!(out.stderr.contains("unit `001-bookmark-tags` is ambiguous"), "{out}");
        assert!(out.stderr.contains("rename or remove one of them"), "{out}");
        assert_eq!(p.snapshot(), before);
    }
}

#[test]
fn a_malformed_spec_table_stops_every_writer_naming_the_key_and_what_to_write() {
    let p = Project::speckit();
    let ada = common::ed25519(&p.scratch, "ada");
    let key = ada.private.to_str().unwrap();
    let ev = evidence(&p, SPECKIT_TASK);
    p.attest(SPECKIT_TASK, ev.as_ref(), &["--signer", "none"]).success();
    let tick = p.rev("HEAD");
    let (t006, held) = (format!("{SPECKIT_UNIT}/T006"), held_out_dir(&p));
    let t006_ev = evidence(&p, &t006);
    for (text, says) in [
        (
            "[spec]\nformat = \"bogus\"\n",
            "`[spec] format` in speccoder.toml: `bogus` is no spec format; write \"speckit\"",
        ),
        ("[spec]\nformat = \"kiro\"\n", "\"kiro\" says the project is written as Kiro specs"),
        ("[spec]\nformat = 1\n", "`[spec] format` in speccoder.toml: must be a string"),
        (
            "[spec]\nformats = \"speckit\"\n",
            "`[spec] formats` in speccoder.toml: unknown key; [spec] holds `format` alone",
        ),
        ("spec = \"speckit\"\n", "`spec` in speccoder.toml: it must be a table"),
    ] {
        commit_config(&p, text);
        let before = p.snapshot();
        for args in [
            &["attest", &t006, "--evidence", &t006_ev, "--signer", "none"][..],
            &["accept", "001-bookmark-tags/T001", "--reason", "by hand", "--signer", "none"],
            &["attest", "sign", &tick, "--key", key],
            &["held-out", "store", &t006, &held],
        ] {
            let out = p.speccoder(args).failure(13);
            assert!(out.stderr.contains(says), "{args:?} should say {says:?}\n{out}");
        }
        assert_eq!(p.snapshot(), before, "nothing was written");
    }
    // A `[spec]` without `format` names none: each unit is looked up in either format.
    commit_config(&p, "[spec]\n");
    p.attest(&t006, t006_ev.as_ref(), &["--signer", "none"]).success();
}

/// A tick names its unit: the verifier checks it where that unit is, whatever the checked tree's
/// `[spec] format` says, so that no checked-in file changes what a verification judges.
#[test]
fn attest_verify_judges_a_tick_where_its_unit_is_whatever_spec_format_the_branch_names() {
    let p = both_formats();
    let ada = common::ed25519(&p.scratch, "ada");
    let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
    let key = ada.private.to_str().unwrap();
    p.attest(OPENSPEC_TASK, evidence(&p, OPENSPEC_TASK).as_ref(), &["--key", key]).success();
    let args = ["attest", "verify", "--branch", "--json", "--allowed-signers", allowed.to_str().unwrap()];
    let row = || {
        let out = p.speccoder(&args);
        assert_eq!(out.code(), Some(0), "{out}");
        let report: Value = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{out}"));
        let tick = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == OPENSPEC_TASK).cloned();
        tick.unwrap_or_else(|| panic!("no tick: {report:#}"))
    };
    let unnamed = row();
    assert_eq!(unnamed["outcome"], "evidenced", "{unnamed:#}");
    for format in ["speckit", "kiro", "bogus"] {
        commit_config(&p, &format!("[spec]\nformat = \"{format}\"\n"));
        assert_eq!(row()["outcome"], unnamed["outcome"], "under [spec] format = {format:?}");
    }
}
