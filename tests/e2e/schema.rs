//! The generated schemas: the committed files match the types (checked through the binary, as CI
//! and a user run it), and the open specification's examples validate against them with an
//! independent JSON Schema validator.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use speccoder_attest::model::predicate::TaskVerificationV0;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn speccoder() -> Command {
    Command::new(common::speccoder_bin())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn predicate_validator() -> jsonschema::Validator {
    let schema = read_json(&root().join("schema/task-verification-v0.schema.json"));
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn the_committed_schemas_match_what_the_types_generate() {
    let out = speccoder().args(["schema", "--check", "--out"]).arg(root().join("schema")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_drifted_schema_file_fails_the_check_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let generated = speccoder().args(["schema", "--out"]).arg(dir.path()).output().unwrap();
    assert!(generated.status.success());
    let victim = dir.path().join("evidence.schema.json");
    let text = std::fs::read_to_string(&victim).unwrap();
    std::fs::write(&victim, text.replacen("\"task\"", "\"tusk\"", 1)).unwrap();
    std::fs::remove_file(dir.path().join("statement-test-result.schema.json")).unwrap();
    let out = speccoder().args(["schema", "--check", "--out"]).arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(26));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("evidence.schema.json differs"), "{err}");
    assert!(err.contains("statement-test-result.schema.json cannot be read"), "{err}");
    assert!(!err.contains("task-verification-v0.schema.json"), "{err}");
}

#[test]
fn schema_json_names_the_files_written_or_checked_and_a_drift_as_an_error_object() {
    let dir = tempfile::tempdir().unwrap();
    let json = |args: &[&str]| {
        let out = speccoder().args(args).arg("--out").arg(dir.path()).arg("--json").output().unwrap();
        (out.status.code(), serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap())
    };
    let (code, written) = json(&["schema"]);
    assert_eq!((code, &written["check"]), (Some(0), &serde_json::json!(false)));
    assert_eq!(written["files"].as_array().unwrap().len(), 7, "{written}");
    let (code, checked) = json(&["schema", "--check"]);
    assert_eq!((code, &checked["files"]), (Some(0), &written["files"]));
    std::fs::write(dir.path().join("evidence.schema.json"), "{}").unwrap();
    let (code, drift) = json(&["schema", "--check"]);
    assert_eq!((code, &drift["exit_code"]), (Some(26), &serde_json::json!(26)));
    assert!(drift["error"].as_str().unwrap().contains("evidence.schema.json differs"), "{drift}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_link_among_the_schema_files_is_named_never_waited_on_or_written_through() {
    let dir = tempfile::tempdir().unwrap();
    assert!(speccoder().args(["schema", "--out"]).arg(dir.path()).output().unwrap().status.success());
    let file = dir.path().join("evidence.schema.json");
    std::fs::remove_file(&file).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&file).status().unwrap().success());
    let out = speccoder().args(["schema", "--check", "--out"]).arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(26));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("evidence.schema.json cannot be read: it is a FIFO, not a regular file"), "{err}");
    // The advice removes it first: `schema --out` refuses to replace a FIFO.
    assert!(err.contains("remove each symbolic link, directory or other non-file named above, run"), "{err}");

    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&victim, &file).unwrap();
    let out = speccoder().args(["schema", "--out"]).arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(13), "a file that cannot be used is a configuration error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("evidence.schema.json: it is a symbolic link"), "{err}");
    assert!(err.contains("remove the link") && !err.contains("name the file itself"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[cfg(unix)]
#[test]
fn an_out_path_that_is_a_file_a_fifo_or_a_dangling_link_exits_13_naming_that_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("afile");
    std::fs::write(&file, "x").unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
    for (path, says) in [
        (&file, "it is a regular file, not a directory"),
        (&fifo, "it is a FIFO, not a directory"),
        (&dangling, "it is a symbolic link, not a directory"),
    ] {
        let out = speccoder().args(["schema", "--json", "--out"]).arg(path).output().unwrap();
        assert_eq!(out.status.code(), Some(13), "{}", String::from_utf8_lossy(&out.stderr));
        let err = String::from_utf8_lossy(&out.stderr);
        let named = format!("speccoder schema: cannot write {}: {says}; remove it", path.display());
        assert!(err.starts_with(&named), "{err}");
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["exit_code"], 13, "{json}");
    }
    // The check says the same of DIR, once, rather than that each file in it cannot be read.
    for (path, kind) in [(&file, "regular file"), (&fifo, "FIFO")] {
        let out = speccoder().args(["schema", "--check", "--out"]).arg(path).output().unwrap();
        assert_eq!(out.status.code(), Some(13), "{}", String::from_utf8_lossy(&out.stderr));
        let err = String::from_utf8_lossy(&out.stderr);
        let named = format!("{} is a {kind}, not a directory of schemas; name the directory", path.display());
        assert!(err.contains(&named) && !err.contains("regenerate"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
}

/// Schemas written inside a repository's git directory would become refs (`.git/refs/heads`)
/// or break them: the directory is refused there, and nothing is written.
#[test]
fn an_out_directory_inside_the_git_directory_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        assert!(Command::new("git").args(args).current_dir(dir.path()).status().unwrap().success())
    };
    git(&["init", "-q"]);
    for out_dir in [".git/refs/heads", ".git/refs/speccoder", "sub/../.git/schemas"] {
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        let out = speccoder().current_dir(dir.path()).args(["schema", "--out", out_dir]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(13), "{out_dir}: {err}");
        assert!(err.contains("lies inside the repository's git directory"), "{out_dir}: {err}");
    }
    assert_eq!(std::fs::read_dir(dir.path().join(".git/refs/heads")).unwrap().count(), 0);
    assert!(!dir.path().join(".git/refs/speccoder").exists() && !dir.path().join(".git/schemas").exists());
}

/// From a submodule, the superproject's git directory is as much a git directory as the
/// submodule's own: schemas written there would break its refs, so both are refused.
#[test]
fn an_out_directory_in_the_git_directory_of_a_superproject_is_refused_from_its_submodule() {
    let dir = tempfile::tempdir().unwrap();
    let git = |at: &Path, args: &[&str]| {
        let out = Command::new("git").args(args).current_dir(at).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let (inner, outer) = (dir.path().join("inner"), dir.path().join("outer"));
    for repo in [&inner, &outer] {
        std::fs::create_dir(repo).unwrap();
        git(repo, &["init", "-q"]);
        git(
            repo,
            &[
                "-c",
                "user.name=A",
                "-c",
                "user.email=a@example.com",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "init",
            ],
        );
    }
    git(
        &outer,
        &["-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.to_str().unwrap(), "sub"],
    );
    for out_dir in ["../.git/refs/heads/sch", "../.git/modules/sub/x"] {
        let out =
            speccoder().current_dir(outer.join("sub")).args(["schema", "--out", out_dir]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(13), "{out_dir}: {err}");
        assert!(err.contains("lies inside the repository's git directory"), "{out_dir}: {err}");
    }
    assert!(!outer.join(".git/refs/heads/sch").exists(), "nothing was written in the superproject's refs");
}

/// A schema directory a checked branch committed as a link to schemas elsewhere holds no schema
/// of its own: the check fails it, as writing refuses it, and never passes what lies behind it.
#[cfg(unix)]
#[test]
fn a_schema_directory_that_is_a_link_in_the_checked_tree_fails_the_check() {
    let tmp = tempfile::tempdir().unwrap();
    let in_tmp = |args: &[&str]| {
        Command::new(common::speccoder_bin()).current_dir(tmp.path()).args(args).output().unwrap()
    };
    let elsewhere = tempfile::tempdir().unwrap();
    let up_to_date = elsewhere.path().join("schema");
    assert!(speccoder().args(["schema", "--out"]).arg(&up_to_date).status().unwrap().success());
    std::os::unix::fs::symlink(&up_to_date, tmp.path().join("schema")).unwrap();
    let out = in_tmp(&["schema", "--check"]);
    assert_eq!(out.status.code(), Some(26), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("schema is a symbolic link, and the schemas are never read through one"), "{err}");
    // Named outside the work tree, the same directory is the user's own, and is read.
    assert!(speccoder().args(["schema", "--check", "--out"]).arg(&up_to_date).status().unwrap().success());
}

#[cfg(unix)]
#[test]
fn the_check_s_advice_regenerates_the_out_directory_it_checked_and_says_to_remove_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let in_tmp = |args: &[&str]| {
        Command::new(common::speccoder_bin()).current_dir(tmp.path()).args(args).output().unwrap()
    };
    assert!(in_tmp(&["schema", "--out", "out dir"]).status.success());
    std::fs::write(tmp.path().join("out dir/evidence.schema.json"), "{}").unwrap();
    let out = in_tmp(&["schema", "--check", "--out", "out dir"]);
    assert_eq!(out.status.code(), Some(26));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("run `speccoder schema --out 'out dir'` to regenerate them"), "{err}");
    // Following the advice makes the check pass.
    assert!(in_tmp(&["schema", "--out", "out dir"]).status.success());
    assert!(in_tmp(&["schema", "--check", "--out", "out dir"]).status.success());
    assert!(!tmp.path().join("schema").exists(), "nothing was written into ./schema");

    // The default directory is named as the plain command.
    assert!(in_tmp(&["schema"]).status.success());
    std::fs::write(tmp.path().join("schema/evidence.schema.json"), "{}").unwrap();
    let err = String::from_utf8_lossy(&in_tmp(&["schema", "--check"]).stderr).into_owned();
    assert!(err.contains("run `speccoder schema` to regenerate them"), "{err}");

    // Run with -C, the advice runs the same command from the same place.
    let elsewhere = tempfile::tempdir().unwrap();
    let with_c = |args: &[&str]| {
        Command::new(common::speccoder_bin())
            .current_dir(elsewhere.path())
            .arg("-C")
            .arg(tmp.path())
            .args(args)
            .output()
            .unwrap()
    };
    std::fs::write(tmp.path().join("out dir/evidence.schema.json"), "{}").unwrap();
    let err =
        String::from_utf8_lossy(&with_c(&["schema", "--check", "--out", "out dir"]).stderr).into_owned();
    let advised = format!("speccoder -C {} schema --out 'out dir'", tmp.path().display());
    assert!(err.contains(&format!("run `{advised}` to regenerate them")), "{err}");
    assert!(with_c(&["schema", "--out", "out dir"]).status.success());
    assert!(with_c(&["schema", "--check", "--out", "out dir"]).status.success());
    assert!(!elsewhere.path().join("out dir").exists(), "nothing was written where the advice was read");

    // A schema file that is a link: the advice removes it first, and writing refuses it saying so.
    std::fs::write(tmp.path().join("victim"), "{}").unwrap();
    let link = tmp.path().join("out dir/evidence.schema.json");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("../victim", &link).unwrap();
    let err =
        String::from_utf8_lossy(&in_tmp(&["schema", "--check", "--out", "out dir"]).stderr).into_owned();
    assert!(err.contains("remove each symbolic link, directory or other non-file named above, run `speccoder schema --out 'out dir'`"), "{err}");
    let out = in_tmp(&["schema", "--out", "out dir"]);
    assert_eq!(out.status.code(), Some(13));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("it is a symbolic link, which is never written through; remove the link"), "{err}");
}

#[test]
fn the_seed_examples_validate_and_round_trip_unchanged() {
    let validator = predicate_validator();
    for name in ["tick.json", "decision.json", "revision-2-example.json"] {
        let value = read_json(&root().join("fixtures/seed").join(name));
        let errors: Vec<String> = validator.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let typed: TaskVerificationV0 = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), value, "{name}");
        // Byte for byte through the canonical encoding.
        let bytes = speccoder_attest::model::canonical::value_to_canonical(&value);
        let again = speccoder_attest::model::canonical::to_canonical(
            &serde_json::from_slice::<TaskVerificationV0>(&bytes).unwrap(),
        )
        .unwrap();
        assert_eq!(again, bytes, "{name}");
    }
}

#[test]
fn an_example_without_tree_fails_the_schema() {
    let mut value = read_json(&root().join("fixtures/seed/tick.json"));
    value.as_object_mut().unwrap().remove("tree");
    let validator = predicate_validator();
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| e.to_string()).collect();
    assert!(errors.iter().any(|e| e.contains("tree")), "{errors:?}");
}

#[test]
fn unknown_fields_and_revision_seven_validate_and_are_named() {
    let mut value = read_json(&root().join("fixtures/seed/tick.json"));
    value["revision"] = Value::from(7);
    value["provenance"] = serde_json::json!({"builder": "x"});
    assert!(predicate_validator().is_valid(&value));
    let typed: TaskVerificationV0 = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(typed.newer_fields(), ["provenance", "revision 7"]);
    assert_eq!(serde_json::to_value(&typed).unwrap(), value);
}

#[test]
fn a_schema_breaking_evidence_file_is_caught_by_the_validator() {
    let schema = read_json(&root().join("schema/evidence.schema.json"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let good = read_json(&root().join("fixtures/evidence/verified.json"));
    assert!(
        validator.is_valid(&good),
        "{:?}",
        validator.iter_errors(&good).map(|e| e.to_string()).collect::<Vec<_>>()
    );
    let mut bad = good.clone();
    bad["verdict"] = Value::from("attested");
    assert!(!validator.is_valid(&bad));
}
