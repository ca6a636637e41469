//! A path of this machine in a `--json` report (the hook `hooks install` wrote, the schemas, a
//! held-out set's directory; `attest export`'s DIR in `export`): the exact path, whatever it holds
//! (a newline, an ESC, a Unicode line separator), so that a script that reads it finds the file;
//! the text report shows it escaped on one line. A path such a report would name that is not
//! UTF-8, which no JSON string names exactly, is refused with `--json` before anything is done
//! (exit 2), and taken without it.

use crate::common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use common::Project;
use serde_json::Value;

/// A name that holds what a JSON string escapes, and what a quoted text would escape: a newline,
/// an ESC, a line separator, a bidirectional control.
const ODD: &str = "odd\n\u{1b}[31m\u{2028}\u{202e}x";

/// A name that is not UTF-8.
fn not_utf8(dir: &Path) -> PathBuf {
    dir.join(OsStr::from_bytes(b"not-utf8-\xff"))
}

/// The report `run` printed.
fn report(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("one JSON object: {e}\n{run}"))
}

/// The failure `run` printed for a path that is not UTF-8 with `--json`: exit 2, said in its JSON
/// object and on stderr, naming the byte.
#[track_caller]
fn refused_as_not_utf8(run: common::Run) {
    let run = run.failure(2);
    let said = report(&run);
    assert_eq!(said["exit_code"], 2, "{run}");
    let error = said["error"].as_str().unwrap();
    assert!(error.contains("not-utf8-\\xFF") && error.contains(" is not UTF-8, "), "{run}");
    assert!(error.contains("nothing was done"), "{run}");
    assert!(run.stderr.contains("is not UTF-8"), "{run}");
}

#[test]
fn the_hook_s_path_in_the_json_report_is_the_file_written_whatever_it_holds() {
    let p = Project::speckit();
    p.git(&["config", "core.hooksPath", ODD]);
    let run = p.speccoder(&["hooks", "install", "--json"]).success();
    let path = PathBuf::from(report(&run)["path"].as_str().unwrap());
    assert_eq!(path, p.root.join(ODD).join("post-rewrite"), "{run}");
    assert!(std::fs::read_to_string(&path).unwrap().contains("speccoder-managed hook"));
    // The program too, by its path: the hooks directory is no work tree's.
    p.git(&["config", "core.hooksPath", p.scratch.join(ODD).to_str().unwrap()]);
    let run = p.speccoder(&["hooks", "install", "--json"]).success();
    let program = PathBuf::from(report(&run)["program"].as_str().unwrap());
    assert_eq!(program, common::speccoder_bin().canonicalize().unwrap(), "{run}");
    // The text report keeps it on one line, escaped.
    let text = p.speccoder(&["hooks", "install"]).success().stdout;
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("odd\\n\\u{1b}[31m\\u{2028}\\u{202e}x/post-rewrite"), "{text}");
}

#[test]
fn the_paths_of_the_schemas_and_of_a_held_out_set_in_the_json_report_are_those_written() {
    let p = Project::speckit();
    let out = p.scratch.join(ODD);
    let run =
        p.speccoder(&[OsStr::new("schema"), OsStr::new("--json"), OsStr::new("--out"), out.as_os_str()]);
    let written = report(&run.success());
    assert_eq!(Path::new(written["dir"].as_str().unwrap()), out);
    for file in written["files"].as_array().unwrap() {
        let file = Path::new(file.as_str().unwrap());
        assert!(file.starts_with(&out) && file.is_file(), "{file:?}");
    }

    let tests = p.scratch_dir("held-out-tests");
    std::fs::write(tests.join("a_test.rs"), "#[test] fn a() {}\n").unwrap();
    let store = p.scratch.join(format!("store-{ODD}"));
    let args = [
        OsStr::new("held-out"),
        OsStr::new("store"),
        OsStr::new("001-bookmark-tags/T005"),
        tests.as_os_str(),
        OsStr::new("--store"),
        store.as_os_str(),
        OsStr::new("--json"),
    ];
    let stored = report(&p.speccoder(&args).success());
    let set_dir = Path::new(stored["set_dir"].as_str().unwrap());
    assert!(set_dir.starts_with(&store) && set_dir.is_dir(), "{stored}");
}

#[test]
fn a_path_the_json_report_would_name_that_is_not_utf8_is_refused_before_anything_is_done() {
    let p = Project::speckit();
    // `schema --out`: nothing is written with `--json`; the text report writes it.
    let out = not_utf8(&p.scratch);
    let args = |json: bool| {
        let mut args = vec![OsStr::new("schema"), OsStr::new("--out"), out.as_os_str()];
        args.extend(json.then_some(OsStr::new("--json")));
        args
    };
    refused_as_not_utf8(p.speccoder(&args(true)));
    assert!(!out.exists());
    p.speccoder(&args(false)).success();
    assert!(out.join("evidence.schema.json").is_file());

    // `hooks install` whose `core.hooksPath` is not UTF-8: no directory, no hook.
    let mut config = std::fs::read(p.root.join(".git/config")).unwrap();
    config.extend_from_slice(b"[core]\n\thooksPath = hooks-not-utf8-\xff\n");
    std::fs::write(p.root.join(".git/config"), config).unwrap();
    refused_as_not_utf8(p.speccoder(&["hooks", "install", "--json"]));
    assert!(!p.root.join(OsStr::from_bytes(b"hooks-not-utf8-\xff")).exists());

    // `held-out store` and `publish` with such a store: nothing stored.
    let tests = p.scratch_dir("held-out-tests");
    std::fs::write(tests.join("a_test.rs"), "#[test] fn a() {}\n").unwrap();
    let store = not_utf8(&p.scratch.join("stores"));
    let stored = [
        OsStr::new("held-out"),
        OsStr::new("store"),
        OsStr::new("001-bookmark-tags/T005"),
        tests.as_os_str(),
        OsStr::new("--store"),
        store.as_os_str(),
        OsStr::new("--json"),
    ];
    refused_as_not_utf8(p.speccoder(&stored));
    assert!(!p.scratch.join("stores").exists());
    let published = [
        OsStr::new("held-out"),
        OsStr::new("publish"),
        OsStr::new("--store"),
        store.as_os_str(),
        OsStr::new("--json"),
    ];
    refused_as_not_utf8(p.speccoder(&published));

    // `sigstore fetch-root`, whose cache is not UTF-8: refused before anything is fetched.
    #[cfg(feature = "sigstore")]
    {
        let cache = not_utf8(&p.scratch.join("cache"));
        let mut cmd = common::speccoder_command(&p.root, &p.home, &["sigstore", "fetch-root", "--json"]);
        cmd.env("XDG_CACHE_HOME", &cache);
        refused_as_not_utf8(common::run(cmd));
        assert!(!p.scratch.join("cache").exists());
    }
}
