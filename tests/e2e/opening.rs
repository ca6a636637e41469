//! Which repository the commands open, and how: as git finds it (`GIT_DIR`, `GIT_WORK_TREE`), and
//! refused as git refuses it (another user's repository that `safe.directory` does not name), or
//! where speccoder cannot write as git would (reftable references, a repository shared with a
//! group), or whose files gix would block on or read without end (a FIFO or a device as git's
//! configuration, `packed-refs` or the index). Every refusal is exit 14 with what to do (13 for
//! the user's own configuration), and writes nothing.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Evidence, NOTES_REF, Project, SPECKIT_UNIT};

fn target(id: &str) -> String {
    format!("{SPECKIT_UNIT}/{id}")
}

/// `speccoder args` in `dir` with the project's isolation plus the environment `env`.
fn speccoder_env(p: &Project, dir: &Path, env: &[(&str, &Path)], args: &[&str]) -> common::Run {
    let mut cmd = common::speccoder_command(dir, &p.home, args);
    for (name, value) in env {
        cmd.env(name, value);
    }
    common::run(cmd)
}

/// Whether this process runs as root (which may give a repository to another user).
fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// Runs a command as root would, failing the test when it fails.
#[track_caller]
fn sh(program: &str, args: &[&str]) {
    let status = Command::new(program).args(args).status().expect("the command runs");
    assert!(status.success(), "{program} {args:?} failed");
}

/// Every writing command and `attest verify`, each refused the same way in the project: exit 14
/// and a message holding every one of `says`, nothing written.
#[track_caller]
fn every_command_refuses(p: &Project, evidence: &Path, says: &[&str]) {
    every_writer_refuses(p, evidence, says);
    let out = p.speccoder(&["attest", "verify", "--branch", "--all", "--allow-empty"]);
    assert_eq!(out.code(), Some(14), "attest verify: expected exit 14\n{out}");
    for text in says {
        assert!(out.stderr.contains(text), "attest verify: stderr should say {text:?}\n{out}");
    }
}

/// Every writing command, each refused the same way in the project: exit 14 and a message
/// holding every one of `says`.
#[track_caller]
fn every_writer_refuses(p: &Project, evidence: &Path, says: &[&str]) {
    let evidence = evidence.to_str().unwrap();
    let t005 = target("T005");
    let t001 = target("T001");
    let t002 = target("T002");
    let commands: Vec<Vec<&str>> = vec![
        vec!["attest", &t005, "--evidence", evidence, "--signer", "none"],
        vec!["accept", &t001, "--reason", "scaffold", "--signer", "none"],
        vec!["skip", &t002, "--reason", "later", "--signer", "none"],
        vec!["attest", "sign", "--signer", "none"],
        vec!["attest", "carry"],
        vec!["attest", "push", "origin"],
        vec!["attest", "fetch", "origin"],
        vec!["held-out", "publish"],
        vec!["hooks", "install"],
    ];
    for args in commands {
        let out = p.speccoder(&args);
        assert_eq!(out.code(), Some(14), "{args:?}: expected exit 14\n{out}");
        for text in says {
            assert!(out.stderr.contains(text), "{args:?}: stderr should say {text:?}\n{out}");
        }
    }
}

#[test]
fn a_reftable_repository_is_refused_on_opening_with_the_git_command_that_converts_it() {
    // A reftable repository without reflogs: the one git 2.46 and 2.47 can convert.
    let p = Project::uncommitted("speckit");
    std::fs::remove_dir_all(p.root.join(".git")).unwrap();
    p.git(&["init", "-q", "-b", "main", "--ref-format=reftable"]);
    for (key, value) in
        [("user.name", "Ada Lovelace"), ("user.email", common::PRINCIPAL), ("core.logAllRefUpdates", "false")]
    {
        p.git(&["config", key, value]);
    }
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", "Initial project"]);
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    let before = p.snapshot();
    every_command_refuses(
        &p,
        &evidence,
        &[
            "stores its references as `reftable`",
            "git refs migrate --ref-format=files",
            "git clone --ref-format=files",
        ],
    );
    assert_eq!(p.snapshot(), before, "a refusal wrote something");

    // The advice works in the installed git, and then speccoder does too.
    p.git(&["refs", "migrate", "--ref-format=files"]);
    p.attest(&target("T005"), &evidence, &["--signer", "none"]).success();
    assert!(p.note("HEAD").is_some());
}

#[test]
fn a_repository_extension_git_does_not_know_is_refused_by_every_command_as_git_refuses_it() {
    let p = Project::speckit();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    let before = p.snapshot();
    let config = p.root.join(".git/config");
    let config = config.to_str().unwrap();
    p.git(&["config", "core.repositoryFormatVersion", "1"]);
    p.git(&["config", "extensions.foo", "true"]);
    let git = p.git_run(&["status"]);
    assert!(git.stderr.contains("unknown repository extension"), "git itself refuses it\n{git}");

    let advice = format!("`git config --file {config} --unset-all extensions.foo`");
    every_command_refuses(&p, &evidence, &["sets `extensions.foo`", "does not know", &advice]);
    p.git(&["config", "--file", config, "--unset-all", "extensions.foo"]);
    assert_eq!(p.snapshot(), before, "a refusal wrote something");

    // At version 0 git ignores an extension it does not know (older tools never checked), and
    // so does speccoder; one git reads at version 1 only is refused there as git refuses it.
    p.git(&["config", "core.repositoryFormatVersion", "0"]);
    p.git(&["config", "extensions.foo", "true"]);
    p.attest(&target("T005"), &evidence, &["--signer", "none"]).success();
    p.git(&["config", "extensions.noop-v1", "true"]);
    let out = p.speccoder(&["attest", "verify", "--branch", "--all", "--allow-empty"]).failure(14);
    assert!(out.stderr.contains("sets `extensions.noop-v1`, an extension git reads only at"), "{out}");
}

#[test]
fn a_second_object_format_is_refused_to_every_writer_before_anything_is_written_and_read_by_verify() {
    // git keeps a SHA-256 name for every object it writes here (objects/loose-object-idx); an
    // object written without one breaks git's next commit ("Failed to convert object").
    let p = Project::uncommitted("speckit");
    p.git(&["config", "core.repositoryFormatVersion", "1"]);
    p.git(&["config", "extensions.compatObjectFormat", "sha256"]);
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", "Initial project"]);
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    let before = (p.snapshot(), p.git(&["count-objects", "-v"]));
    every_writer_refuses(
        &p,
        &evidence,
        &["keeps a second object format", "nothing was written", "git clone"],
    );
    assert_eq!((p.snapshot(), p.git(&["count-objects", "-v"])), before, "a refusal wrote something");
    p.speccoder(&["attest", "verify", "--branch", "--all", "--allow-empty"]).success();
    p.git(&["commit", "-q", "--allow-empty", "-m", "git still commits"]);

    // The advice: a clone, which git makes without the second format, takes the evidence.
    let clone = p.tmp().join("clone");
    p.git(&["clone", "-q", p.root.join(".git").to_str().unwrap(), clone.to_str().unwrap()]);
    for (key, value) in [("user.name", "Ada Lovelace"), ("user.email", common::PRINCIPAL)] {
        p.git_in(&clone, &["config", key, value]);
    }
    let out = p.speccoder_in(
        &clone,
        &["attest", &target("T005"), "--evidence", evidence.to_str().unwrap(), "--signer", "none"],
    );
    assert_eq!(out.code(), Some(0), "{out}");
}

#[test]
fn a_repository_of_another_user_is_refused_as_git_refuses_it_until_safe_directory_names_it() {
    if !is_root() {
        eprintln!("skipped: giving the repository to another user needs root");
        return;
    }
    let p = Project::speckit();
    let origin = p.tmp().join("origin.git");
    p.git(&["init", "-q", "--bare", origin.to_str().unwrap()]);
    p.git(&["remote", "add", "origin", origin.to_str().unwrap()]);
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    let before = p.snapshot();
    let root = p.root.to_str().unwrap();
    sh("chown", &["-R", "65534", root]);
    let git = p.git_run(&["status"]);
    assert!(git.stderr.contains("dubious ownership"), "git itself refuses it\n{git}");

    let advice = format!("git config --global --add safe.directory {root}");
    every_command_refuses(&p, &evidence, &["is owned by another user", &advice]);
    sh("chown", &["-R", "0", root]);
    assert_eq!(p.snapshot(), before, "a refusal wrote something");

    // git's own remedy makes both git and speccoder work in it.
    sh("chown", &["-R", "65534", root]);
    p.git(&["config", "--global", "--add", "safe.directory", root]);
    p.git(&["status"]);
    p.attest(&target("T005"), &evidence, &["--signer", "none"]).success();
    p.speccoder(&["attest", "push", "origin"]).success();
}

/// `git status` and `speccoder attest verify` in the project with `env` added: whether each opens
/// the repository, and what speccoder said.
fn git_and_speccoder_open(p: &Project, env: &[(&str, &str)]) -> (bool, common::Run) {
    let with_env = |mut cmd: Command| {
        cmd.envs(env.iter().copied());
        common::run(cmd)
    };
    let git = with_env(common::git_command(&p.root, &p.home, &["status"]));
    let verify = ["attest", "verify", "--branch", "--all", "--allow-empty"];
    let ours = with_env(common::speccoder_command(&p.root, &p.home, &verify));
    (git.status.success(), ours)
}

/// `safe.directory` counts only in protected configuration: the system's, the user's, and the
/// command's, which `git -c` hands on in `GIT_CONFIG_PARAMETERS` and a CI sets as
/// `GIT_CONFIG_COUNT` with its keys and values; never in the repository's own. Another user's
/// repository opens exactly when git opens it: an entry of the command's names it (or a
/// directory above it, `<dir>/*`), and an empty entry there drops every entry before it, the
/// user's too.
#[test]
fn another_user_s_repository_opens_when_the_command_s_safe_directory_names_it_and_never_by_its_own() {
    if !is_root() {
        eprintln!("skipped: giving the repository to another user needs root");
        return;
    }
    let p = Project::speckit();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    let root = p.root.to_str().unwrap().to_owned();
    let above = format!("{}/*", p.root.parent().unwrap().display());
    // The repository's own configuration names it, and every directory: that counts for nothing.
    p.git(&["config", "--add", "safe.directory", "*"]);
    p.git(&["config", "--add", "safe.directory", &root]);
    p.git(&["config", "core.hooksPath", "../repo-hooks"]);
    sh("chown", &["-R", "65534", &root]);
    let one = |value: &str| format!("'safe.directory'='{value}'");
    let cases: Vec<(Vec<(&str, String)>, bool)> = vec![
        (vec![], false),
        (
            vec![
                ("GIT_CONFIG_COUNT", "1".into()),
                ("GIT_CONFIG_KEY_0", "safe.directory".into()),
                ("GIT_CONFIG_VALUE_0", root.clone()),
            ],
            true,
        ),
        (vec![("GIT_CONFIG_PARAMETERS", one(&root))], true),
        (vec![("GIT_CONFIG_PARAMETERS", one(&above))], true),
        (vec![("GIT_CONFIG_PARAMETERS", format!("{} {}", one(&root), one("")))], false),
        (vec![("GIT_CONFIG_PARAMETERS", format!("{} {}", one(""), one("*")))], true),
    ];
    for (env, opens) in &cases {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (git_opens, out) = git_and_speccoder_open(&p, &env);
        assert_eq!(git_opens, *opens, "git with {env:?}");
        if *opens {
            assert_eq!(out.code(), Some(0), "{env:?}\n{out}");
        } else {
            assert_eq!(out.code(), Some(14), "{env:?}\n{out}");
            assert!(out.stderr.contains("is owned by another user"), "{env:?}\n{out}");
        }
    }
    // An empty entry of the command's drops the user's entry before it, as in git.
    p.git(&["config", "--global", "--add", "safe.directory", &root]);
    let (git_opens, out) = git_and_speccoder_open(&p, &[]);
    assert!(git_opens && out.code() == Some(0), "the user's entry opens it\n{out}");
    let (git_opens, out) = git_and_speccoder_open(&p, &[("GIT_CONFIG_PARAMETERS", &one(""))]);
    assert!(!git_opens && out.code() == Some(14), "dropped by the command's empty entry\n{out}");
    p.git(&["config", "--global", "--unset-all", "safe.directory"]);

    // Opened so, the repository's own configuration counts as git counts it, the settings gix
    // takes from trusted files only among it: its identity makes the task commit, and the hook
    // goes where its core.hooksPath says.
    let trusted = |args: &[&str]| {
        let mut cmd = common::speccoder_command(&p.root, &p.home, args);
        cmd.env("GIT_CONFIG_PARAMETERS", one(&root));
        common::run(cmd)
    };
    let out =
        trusted(&["attest", &target("T005"), "--evidence", evidence.to_str().unwrap(), "--signer", "none"]);
    assert_eq!(out.code(), Some(0), "{out}");
    let who = p.git(&["-c", "safe.directory=*", "log", "-1", "--format=%an <%ae>"]);
    assert_eq!(who.trim(), format!("Ada Lovelace <{}>", common::PRINCIPAL));
    let out = trusted(&["hooks", "install"]);
    assert_eq!(out.code(), Some(0), "{out}");
    assert!(p.tmp().join("repo-hooks/post-rewrite").is_file(), "{out}");
}

/// Every `safe.directory` entry is judged by one rule, git's, whichever protected scope sets it
/// (the system's, the user's, the command's): resolved as git resolves it, then compared byte for
/// byte. `<dir>/*` names what is below `<dir>`, never `<dir>` itself, and a `*` followed by
/// anything (`/`, `/.`) names nothing; an entry through a missing directory names nothing, though
/// `..` would leave it; `.` is the directory the command runs in. The user's file is read with
/// the files it includes, but never one included on a condition (`includeIf`): git reads
/// `safe.directory` before it knows the repository, so no condition holds there.
#[test]
fn another_user_s_repository_opens_by_any_scope_s_safe_directory_exactly_where_git_opens_it() {
    if !is_root() {
        eprintln!("skipped: giving the repository to another user needs root");
        return;
    }
    let p = Project::speckit();
    let root = p.root.to_str().unwrap().to_owned();
    let top = p.root.parent().unwrap().to_str().unwrap().to_owned();
    let everything = p.tmp().join("everything");
    std::fs::write(&everything, "[safe]\n\tdirectory = *\n").unwrap();
    let everything = everything.to_str().unwrap();
    sh("chown", &["-R", "65534", &root]);
    let entry = |value: &str| format!("[safe]\n\tdirectory = {value}\n");
    let cases: Vec<(String, bool)> = vec![
        (entry(&format!("{top}/*/")), false),
        (entry(&format!("{top}/*/.")), false),
        (entry(&format!("{top}/*//")), false),
        (entry(&format!("{root}/*")), false),
        (entry(&format!("{top}/missing/../repo")), false),
        (entry(&format!("{root}/../missing/../repo")), false),
        (entry(&format!("{top}/*")), true),
        (entry(&format!("{root}/")), true),
        (entry(&format!("{top}/./repo")), true),
        (entry("."), true),
        (format!("{}\tdirectory\n", entry(&root)), false),
        (format!("[includeIf \"onbranch:main\"]\n\tpath = {everything}\n"), false),
        (format!("[includeIf \"gitdir:{root}/\"]\n\tpath = {everything}\n"), false),
        (format!("[include]\n\tpath = {everything}\n"), true),
    ];
    let global = p.home.join(".gitconfig");
    let system = p.tmp().join("system-gitconfig");
    let system_env = [("GIT_CONFIG_NOSYSTEM", "0"), ("GIT_CONFIG_SYSTEM", system.to_str().unwrap())];
    for (text, opens) in &cases {
        for (file, env) in [(&global, &[][..]), (&system, &system_env[..])] {
            std::fs::write(file, text).unwrap();
            let (git_opens, out) = git_and_speccoder_open(&p, env);
            std::fs::remove_file(file).unwrap();
            assert_eq!(git_opens, *opens, "git with {}:\n{text}", file.display());
            let code = if *opens { 0 } else { 14 };
            assert_eq!(out.code(), Some(code), "{}:\n{text}\n{out}", file.display());
        }
    }
    // The command's entries by the same rule.
    for (value, opens) in
        [(format!("{top}/*/"), false), (format!("{top}/*/."), false), (".".to_owned(), true)]
    {
        let count = [("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", KEY), ("GIT_CONFIG_VALUE_0", &value)];
        let parameters = format!("'{KEY}'='{value}'");
        for env in [&count[..], &[("GIT_CONFIG_PARAMETERS", parameters.as_str())]] {
            let (git_opens, out) = git_and_speccoder_open(&p, env);
            assert_eq!(git_opens, opens, "git with {env:?}");
            assert_eq!(out.code(), Some(if opens { 0 } else { 14 }), "{env:?}\n{out}");
        }
    }
    // `.` from a directory below the top names that directory, not the repository.
    let dot = format!("'{KEY}'='.'");
    let below = p.root.join("specs");
    let mut ours = common::speccoder_command(&below, &p.home, &["attest", "verify", "--branch"]);
    ours.env("GIT_CONFIG_PARAMETERS", &dot);
    let out = common::run(ours);
    assert_eq!(out.code(), Some(14), "{out}");
    let mut git = common::git_command(&below, &p.home, &["status"]);
    git.env("GIT_CONFIG_PARAMETERS", &dot);
    assert!(!common::run(git).status.success(), "git refuses it there too");
}

/// The key git reads.
const KEY: &str = "safe.directory";

/// `GIT_CONFIG_PARAMETERS` and `GIT_CONFIG_COUNT` that git cannot read stop git ("bogus format
/// in GIT_CONFIG_PARAMETERS", "missing config key"): every command refuses them too, naming the
/// variable (exit 13), rather than guess what was meant.
#[test]
fn command_line_configuration_git_cannot_read_is_refused_naming_the_variable() {
    let p = Project::speckit();
    let cases: [(&[(&str, &str)], &str); 6] = [
        (&[("GIT_CONFIG_PARAMETERS", "bogus")], "GIT_CONFIG_PARAMETERS"),
        (&[("GIT_CONFIG_PARAMETERS", "'user.name'='Ada")], "GIT_CONFIG_PARAMETERS"),
        (&[("GIT_CONFIG_PARAMETERS", "'user.name'='A''user.email'='a@b'")], "GIT_CONFIG_PARAMETERS"),
        (&[("GIT_CONFIG_PARAMETERS", "'user'='Ada'")], "GIT_CONFIG_PARAMETERS"),
        (&[("GIT_CONFIG_COUNT", "two")], "GIT_CONFIG_COUNT"),
        (&[("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", "user.name")], "GIT_CONFIG_VALUE_0"),
    ];
    for (env, names) in cases {
        let (git_opens, out) = git_and_speccoder_open(&p, env);
        assert!(!git_opens, "git refuses {env:?}");
        assert_eq!(out.code(), Some(13), "{env:?}\n{out}");
        assert!(out.stderr.contains(names), "{env:?}: names {names}\n{out}");
    }
}

/// Two Spec Kit repositories side by side: `a`, whose git directory lives apart as `a.git`
/// (reached only through `GIT_DIR`), and `b`, an ordinary one.
struct Apart {
    p: Project,
    a: PathBuf,
    a_git: PathBuf,
    evidence: PathBuf,
}

fn apart() -> Apart {
    let p = Project::speckit();
    let a = p.tmp().join("a");
    common::copy_dir(&common::crate_root().join("fixtures/speckit"), &a);
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "Ada Lovelace"],
        &["config", "user.email", common::PRINCIPAL],
        &["add", "-A"],
        &["commit", "-q", "-m", "Initial project"],
    ] {
        p.git_in(&a, args);
    }
    let a_git = p.tmp().join("a.git");
    std::fs::rename(a.join(".git"), &a_git).unwrap();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    Apart { p, a, a_git, evidence }
}

/// `git --git-dir=<a.git> args` (a's history as git sees it).
fn git_a(s: &Apart, args: &[&str]) -> String {
    let mut full = vec!["--git-dir", s.a_git.to_str().unwrap()];
    full.extend_from_slice(args);
    s.p.git(&full)
}

#[test]
fn git_dir_and_git_work_tree_choose_the_repository_from_outside_any_work_tree_and_from_inside_another() {
    let s = apart();
    let env = [("GIT_DIR", s.a_git.as_path()), ("GIT_WORK_TREE", s.a.as_path())];
    let evidence = s.evidence.to_str().unwrap();
    let b_before = s.p.snapshot();

    // From a directory outside every work tree.
    let out = speccoder_env(&s.p, s.p.tmp(), &env, &["attest", &target("T005"), "--evidence", evidence]);
    assert_eq!(out.code(), Some(0), "{out}");
    assert!(git_a(&s, &["log", "-1", "--format=%B"]).contains("Spec-Task: 001-bookmark-tags/T005"));
    git_a(&s, &["notes", &format!("--ref={NOTES_REF}"), "show", "HEAD"]);
    assert!(
        std::fs::read_to_string(s.a.join("specs/001-bookmark-tags/tasks.md")).unwrap().contains("[X] T005")
    );

    // From inside the other repository `b`: still `a`, as git does; `b` is untouched.
    let out = speccoder_env(&s.p, &s.p.root, &env, &["accept", &target("T001"), "--reason", "scaffold"]);
    assert_eq!(out.code(), Some(0), "{out}");
    assert!(git_a(&s, &["log", "-1", "--format=%B"]).contains("Spec-Task: 001-bookmark-tags/T001"));
    assert_eq!(s.p.snapshot(), b_before, "the repository around the current directory changed");
    let out = speccoder_env(&s.p, &s.p.root, &env, &["attest", "verify", "--branch", "--accept-unsigned"]);
    assert_eq!(out.code(), Some(0), "verify reads a too\n{out}");
}

/// git does not go up into a ceiling directory (`GIT_CEILING_DIRECTORIES`) while it searches for
/// the repository, and starting in one is fine: from a directory below a work tree's root that is
/// a ceiling, there is no repository (exit 14, nothing written); from the root itself, or with
/// the ceiling above the root, there is.
#[test]
fn a_work_tree_s_root_that_is_a_ceiling_directory_is_not_searched_from_below_it_as_git_does_not() {
    let p = Project::speckit();
    let specs = p.root.join("specs");
    let accept = ["accept", &target("T001"), "--reason", "scaffold", "--by", "Ada"];
    let root = std::fs::canonicalize(&p.root).unwrap();
    let before = p.snapshot();
    let out = speccoder_env(&p, &specs, &[("GIT_CEILING_DIRECTORIES", &root)], &accept);
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(
        out.stderr.contains("no git repository found") && out.stderr.contains("GIT_CEILING_DIRECTORIES"),
        "{out}"
    );
    assert_eq!(p.snapshot(), before);
    let verify = ["attest", "verify", "--branch"];
    let out = speccoder_env(&p, &p.root, &[("GIT_CEILING_DIRECTORIES", &root)], &verify);
    assert!(!out.stderr.contains("no git repository"), "{out}");
    let above = root.parent().unwrap();
    let out = speccoder_env(&p, &specs, &[("GIT_CEILING_DIRECTORIES", above)], &accept);
    assert_eq!(out.code(), Some(0), "{out}");
}

#[test]
fn git_dir_without_git_work_tree_is_refused_where_git_would_take_another_work_tree() {
    let s = apart();
    let env = [("GIT_DIR", s.a_git.as_path())];
    let evidence = s.evidence.to_str().unwrap();
    let b_before = s.p.snapshot();
    let a_before = git_a(&s, &["rev-parse", "HEAD"]);
    // git would take the current directory (b's work tree) as a's work tree.
    let out = speccoder_env(&s.p, &s.p.root, &env, &["attest", &target("T005"), "--evidence", evidence]);
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains("GIT_DIR is set"), "{out}");
    assert!(out.stderr.contains("set GIT_WORK_TREE"), "{out}");
    assert_eq!(s.p.snapshot(), b_before);
    assert_eq!(git_a(&s, &["rev-parse", "HEAD"]), a_before);
    // Run from a's work tree itself, git and speccoder agree on it.
    let git_dir = s.p.root.join(".git");
    let out = speccoder_env(
        &s.p,
        &s.p.root,
        &[("GIT_DIR", &git_dir)],
        &["attest", &target("T005"), "--evidence", evidence],
    );
    assert_eq!(out.code(), Some(0), "{out}");
}

#[test]
fn a_repository_shared_with_a_group_is_refused_before_anything_is_written_and_still_verified() {
    let p = Project::speckit();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    for value in ["group", "true", "all", "0660"] {
        p.git(&["config", "core.sharedRepository", value]);
        let before = p.snapshot();
        let out = p.attest(&target("T005"), &evidence, &["--signer", "none"]);
        assert_eq!(out.code(), Some(14), "{value}: {out}");
        assert!(out.stderr.contains(&format!("core.sharedRepository = {value}")), "{out}");
        assert!(out.stderr.contains("Run speccoder in a clone of your own"), "{out}");
        assert_eq!(p.snapshot(), before, "{value}: a refusal wrote something");
        assert!(!p.root.join(".git/refs/notes").exists(), "{value}");
        let out = p.speccoder(&["attest", "verify", "--branch", "--allow-empty"]);
        assert_eq!(out.code(), Some(0), "verify writes nothing and reads a shared repository\n{out}");
    }
    p.git(&["config", "core.sharedRepository", "umask"]);
    p.attest(&target("T005"), &evidence, &["--signer", "none"]).success();
}

#[test]
fn a_reference_this_user_may_not_write_is_exit_14_naming_the_directory_and_the_cause() {
    let p = Project::speckit();
    let refs = p.root.join(".git/refs");
    let out = where_this_user_may_not_write(
        &p,
        &refs,
        &["skip", &target("T002"), "--reason", "later", "--signer", "none"],
    );
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains("could not write reference refs/notes/speccoder"), "{out}");
    assert!(out.stderr.contains(&format!("permission denied at {}", refs.display())), "{out}");
    assert!(out.stderr.contains("ermission denied (os error 13)"), "the cause\n{out}");
}

#[test]
fn a_branch_directory_this_user_may_not_write_is_named_not_the_notes_directory_beside_it() {
    let p = Project::speckit();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    std::fs::create_dir_all(p.root.join(".git/refs/notes")).unwrap();
    let heads = p.root.join(".git/refs/heads");
    let attest = ["attest", &target("T005"), "--evidence", evidence.to_str().unwrap(), "--signer", "none"];
    let out = where_this_user_may_not_write(&p, &heads, &attest);
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains("could not write reference refs/heads/main"), "{out}");
    assert!(out.stderr.contains(&format!("permission denied at {} (", heads.display())), "{out}");
    assert!(out.stderr.contains(&format!("`ls -ld {}`", heads.display())), "{out}");
    assert!(!out.stderr.contains(".git/refs/notes"), "the notes directory is writable\n{out}");
}

#[test]
fn a_git_or_object_directory_this_user_may_not_write_is_exit_14_naming_it_and_the_cause() {
    for dir in [".git", ".git/objects"] {
        let p = Project::speckit();
        let evidence =
            common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
        let denied = p.root.join(dir);
        let attest =
            ["attest", &target("T005"), "--evidence", evidence.to_str().unwrap(), "--signer", "none"];
        let out = where_this_user_may_not_write(&p, &denied, &attest);
        assert_eq!(out.code(), Some(14), "{dir}\n{out}");
        assert!(out.stderr.contains(&format!("permission denied at {} (", denied.display())), "{dir}\n{out}");
        assert!(out.stderr.contains("ermission denied (os error 13)"), "{dir}: the cause\n{out}");
        assert!(out.stderr.contains(&format!("`ls -ld {}`", denied.display())), "{dir}: what to do\n{out}");
    }
}

/// `speccoder args` in the project while `dir` is read-only to the user running it: as root
/// (who may write anywhere), run as another user who owns the project; `dir` is writable again
/// afterwards.
fn where_this_user_may_not_write(p: &Project, dir: &Path, args: &[&str]) -> common::Run {
    where_this_user_may_not(p, dir, ["555", "755"], args)
}

/// `speccoder args` in the project while `path` has the mode `modes[0]` (one that refuses its
/// owner a read or a write), as its owner ([`as_the_project_s_owner`]); `path` has the mode
/// `modes[1]` afterwards.
fn where_this_user_may_not(p: &Project, path: &Path, modes: [&str; 2], args: &[&str]) -> common::Run {
    let path = path.to_str().unwrap();
    if is_root() {
        sh("chmod", &["755", p.tmp().to_str().unwrap()]);
        sh("chown", &["-R", "65534:65534", p.root.to_str().unwrap(), p.home.to_str().unwrap()]);
    }
    sh("chmod", &[modes[0], path]);
    let out = as_the_project_s_owner(p, args);
    sh("chmod", &[modes[1], path]);
    out
}

/// `speccoder args` in the project as the user who owns it: as root, the other user
/// [`where_this_user_may_not`] gave it to, whom a mode refuses as it refuses no root.
fn as_the_project_s_owner(p: &Project, args: &[&str]) -> common::Run {
    if !is_root() {
        return p.speccoder(args);
    }
    let mut cmd = Command::new("setpriv");
    common::isolate(&mut cmd, &p.home);
    cmd.current_dir(&p.root).args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
    cmd.arg(common::speccoder_bin()).args(args);
    common::run(cmd)
}

#[test]
fn a_notes_reference_this_user_may_not_read_is_exit_14_naming_what_refused_never_advice_to_delete_it() {
    for (denied, restore) in [(NOTES_REF, "644"), ("refs/notes", "755")] {
        let p = Project::speckit();
        p.speccoder(&["skip", &target("T002"), "--reason", "later", "--signer", "none"]).success();
        let notes_dir = p.root.join(".git/refs/notes");
        let verify = ["attest", "verify", "--branch", "--all", "--allow-empty"];
        let out = where_this_user_may_not(&p, &p.root.join(".git").join(denied), ["000", restore], &verify);
        assert_eq!(out.code(), Some(14), "{denied}\n{out}");
        assert!(out.stderr.contains(&format!("could not read reference {NOTES_REF}")), "{denied}\n{out}");
        // The file, when it is the file this user may not read; else its directory.
        let refused = if denied == NOTES_REF { p.root.join(".git").join(NOTES_REF) } else { notes_dir };
        assert!(out.stderr.contains(&format!("permission denied at {} (", refused.display())), "{out}");
        assert!(out.stderr.contains("ermission denied (os error 13)"), "{denied}: the cause\n{out}");
        assert!(!out.stderr.contains("delete"), "{denied}: deleting the notes drops the evidence\n{out}");
    }
}

#[test]
fn a_pack_this_user_may_not_read_is_exit_14_naming_the_pack_directory_never_damage() {
    let p = Project::speckit();
    p.speccoder(&["skip", &target("T002"), "--reason", "later", "--signer", "none"]).success();
    p.git(&["gc", "-q"]);
    let packs = p.root.join(".git/objects/pack");
    let pack = std::fs::read_dir(&packs).unwrap().map(|e| e.unwrap().path());
    let pack = pack.into_iter().find(|path| path.extension().is_some_and(|ext| ext == "pack")).unwrap();
    let verify = ["attest", "verify", "--branch", "--all", "--allow-empty"];
    let out = where_this_user_may_not(&p, &pack, ["000", "444"], &verify);
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains(&format!("permission denied at {} (", packs.display())), "{out}");
    assert!(out.stderr.contains("ermission denied (os error 13)"), "the cause\n{out}");
    assert!(!out.stderr.contains("git fsck"), "nothing is damaged\n{out}");
}

#[test]
fn a_pack_index_this_user_may_not_read_is_exit_14_naming_it_never_a_missing_object() {
    let p = Project::speckit();
    p.speccoder(&["skip", &target("T002"), "--reason", "later", "--signer", "none"]).success();
    p.git(&["gc", "-q"]);
    let packs = p.root.join(".git/objects/pack");
    let index = std::fs::read_dir(&packs).unwrap().map(|e| e.unwrap().path());
    let index = index.into_iter().find(|path| path.extension().is_some_and(|ext| ext == "idx")).unwrap();
    let verify = ["attest", "verify", "--branch", "--all", "--allow-empty"];
    let out = where_this_user_may_not(&p, &index, ["000", "444"], &verify);
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains(&format!("could not read {}", index.display())), "the index\n{out}");
    assert!(out.stderr.contains(&format!("permission denied at {} (", index.display())), "the file\n{out}");
    assert!(out.stderr.contains("ermission denied (os error 13)"), "the cause\n{out}");
    assert!(out.stderr.contains(&format!("`ls -ld {}`", index.display())), "what to do\n{out}");
    assert!(
        !out.stderr.contains("is missing") && !out.stderr.contains("fetch it"),
        "nothing is missing\n{out}"
    );
}

#[test]
fn a_unit_directory_this_user_may_not_write_stops_attest_before_anything_is_committed() {
    let p = Project::speckit();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    let attest = ["attest", &target("T005"), "--evidence", evidence.to_str().unwrap(), "--signer", "none"];
    refused_in_a_unit_directory_this_user_may_not_write(&p, &attest);
}

#[test]
fn a_unit_directory_this_user_may_not_write_stops_accept_before_anything_is_committed() {
    let p = Project::speckit();
    let accept = ["accept", &target("T001"), "--reason", "scaffold", "--signer", "none"];
    refused_in_a_unit_directory_this_user_may_not_write(&p, &accept);
}

/// `speccoder args` (a tick: `attest`, `accept`) while the unit's directory is read-only to the
/// user: exit 14 naming the directory, the cause and what to do, and nothing written (no task
/// commit, no note, the index and work tree as they were, no new file left beside `tasks.md`);
/// once the directory is writable, the same command ticks the task in one task commit.
fn refused_in_a_unit_directory_this_user_may_not_write(p: &Project, args: &[&str]) {
    let unit = p.root.join("specs").join(SPECKIT_UNIT);
    let git = |args: &[&str]| p.git(&[&["-c", "safe.directory=*"], args].concat());
    let state = || {
        let refs = git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
        let index = git(&["ls-files", "--stage"]);
        refs + &index + &git(&["status", "--porcelain", "--untracked-files=all", "--ignored"])
    };
    let (before, head) = (state(), git(&["rev-parse", "HEAD"]));
    let out = where_this_user_may_not_write(p, &unit, args);
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains("nothing was written"), "{out}");
    assert!(!out.stderr.contains("were written"), "no commit to finish later\n{out}");
    assert!(out.stderr.contains(&format!("permission denied at {} (", unit.display())), "{out}");
    assert!(out.stderr.contains("ermission denied (os error 13)"), "the cause\n{out}");
    assert!(out.stderr.contains(&format!("`ls -ld {}`", unit.display())), "what to do\n{out}");
    assert_eq!(state(), before, "no task commit, no note, no file changed or left\n{out}");
    let again = as_the_project_s_owner(p, args);
    assert_eq!(again.code(), Some(0), "once writable, the command ticks the task\n{again}");
    assert_eq!(git(&["rev-parse", "HEAD~"]), head, "one task commit");
    assert_eq!(
        git(&["status", "--porcelain", "--untracked-files=all"]),
        "",
        "the work tree and index hold the tick"
    );
}

#[test]
fn skip_and_its_undo_write_no_work_tree_file_so_a_unit_directory_this_user_may_not_write_stops_neither() {
    let p = Project::speckit();
    let unit = p.root.join("specs").join(SPECKIT_UNIT);
    let skip = ["skip", &target("T002"), "--reason", "later", "--signer", "none"];
    let out = where_this_user_may_not_write(&p, &unit, &skip);
    assert_eq!(out.code(), Some(0), "a skip is a reference and a note, in .git\n{out}");
    let undo = ["skip", &target("T002"), "--undo"];
    let out = where_this_user_may_not_write(&p, &unit, &undo);
    assert_eq!(out.code(), Some(0), "its undo deletes the reference\n{out}");
    let git = |args: &[&str]| p.git(&[&["-c", "safe.directory=*"], args].concat());
    assert_eq!(git(&["for-each-ref", "refs/speccoder/skipped/"]), "", "undone");
    assert_eq!(git(&["status", "--porcelain", "--untracked-files=all"]), "", "the work tree untouched");
}

/// A FIFO at `path`.
#[cfg(unix)]
fn mkfifo(path: &Path) {
    sh("mkfifo", &[path.to_str().unwrap()]);
}

/// A sparse file of 2 MiB at `path`, more than any configuration file speccoder reads.
fn two_mib(path: &Path) {
    std::fs::File::create(path).unwrap().set_len(2 << 20).unwrap();
}

#[cfg(unix)]
#[test]
fn a_git_configuration_that_is_a_fifo_a_device_or_too_long_is_refused_naming_it_before_gix_reads_it() {
    let p = Project::speckit();
    let verify = ["attest", "verify", "--branch", "--all", "--allow-empty"];
    let fifo = p.scratch.join("gitconfig.fifo");
    mkfifo(&fifo);
    let long = p.scratch.join("long.gitconfig");
    two_mib(&long);
    let cases = [
        (fifo.as_path(), "it is a FIFO, not a regular file"),
        (Path::new("/dev/zero"), "it is a device, not a regular file"),
        (long.as_path(), "it holds 2097152 bytes, more than the 1048576 speccoder reads"),
    ];
    for (global, says) in cases {
        let out = speccoder_env(&p, &p.root, &[("GIT_CONFIG_GLOBAL", global)], &verify);
        assert_eq!(out.code(), Some(13), "{global:?}\n{out}");
        let names = format!("the git configuration file {} is not read: {says}", global.display());
        assert!(out.stderr.contains(&names) && out.stderr.contains("GIT_CONFIG_GLOBAL"), "{out}");
    }
    // `/dev/null` is how a person or a CI job names no configuration at all: read as empty.
    let out = speccoder_env(&p, &p.root, &[("GIT_CONFIG_GLOBAL", Path::new("/dev/null"))], &verify);
    assert_eq!(out.code(), Some(0), "{out}");
    // Without GIT_CONFIG_GLOBAL, ~/.gitconfig and $XDG_CONFIG_HOME/git/config are git's.
    for user in [p.home.join(".gitconfig"), p.home.join(".config/git/config")] {
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        mkfifo(&user);
        let out = p.speccoder(&verify).failure(13);
        assert!(out.stderr.contains(&format!("{} is not read: it is a FIFO", user.display())), "{out}");
        std::fs::remove_file(&user).unwrap();
    }
    p.speccoder(&verify).success();
}

#[cfg(unix)]
#[test]
fn a_head_file_the_search_for_the_repository_would_read_as_a_fifo_is_exit_14_naming_it_never_a_hang() {
    let p = Project::speckit();
    let verify = ["attest", "verify", "--branch", "--all", "--allow-empty"];
    // The repository's own HEAD.
    let head = p.root.join(".git/HEAD");
    let kept = p.scratch.join("HEAD");
    std::fs::rename(&head, &kept).unwrap();
    mkfifo(&head);
    let out = p.speccoder(&verify).failure(14);
    let says =
        format!("a HEAD file on the way to the repository {} is not read: it is a FIFO", head.display());
    assert!(out.stderr.contains(&says), "{out}");
    std::fs::remove_file(&head).unwrap();
    std::fs::rename(&kept, &head).unwrap();
    // A linked work tree's `.git` file naming a git directory whose HEAD is a FIFO.
    let linked = p.scratch.join("linked");
    std::fs::create_dir_all(linked.join("meta")).unwrap();
    mkfifo(&linked.join("meta/HEAD"));
    std::fs::write(linked.join(".git"), "gitdir: meta\n").unwrap();
    let out = common::run(common::speccoder_command(&linked, &p.home, &verify)).failure(14);
    assert!(out.stderr.contains(&format!("{} is not read", linked.join("meta/HEAD").display())), "{out}");
    // A `.git` file that is a device is refused, naming it.
    let device = p.scratch.join("device");
    std::fs::create_dir_all(&device).unwrap();
    std::os::unix::fs::symlink("/dev/zero", device.join(".git")).unwrap();
    let out = common::run(common::speccoder_command(&device, &p.home, &verify));
    assert_ne!(out.code(), Some(0), "{out}");
    p.speccoder(&verify).success();
}

#[cfg(unix)]
#[test]
fn a_file_a_git_configuration_includes_as_a_fifo_is_refused_naming_it_at_any_condition_and_depth() {
    let p = Project::speckit();
    let verify = ["attest", "verify", "--branch", "--all", "--allow-empty"];
    let fifo = p.root.join(".git/included.fifo");
    mkfifo(&fifo);
    // The repository's config includes a file (relative to it) that includes the FIFO, under a
    // condition that does not even hold.
    std::fs::write(
        p.root.join(".git/step.inc"),
        "[includeIf \"gitdir:/nowhere/\"]\n\tpath = included.fifo\n",
    )
    .unwrap();
    p.git(&["config", "include.path", "step.inc"]);
    let out = p.speccoder(&verify).failure(14);
    assert!(out.stderr.contains(&format!("{} is not read: it is a FIFO", fifo.display())), "{out}");
    p.git(&["config", "--unset", "include.path"]);
    p.speccoder(&verify).success();
    // The user's configuration including it, through `~/`.
    std::fs::rename(&fifo, p.home.join("home.fifo")).unwrap();
    std::fs::write(p.home.join(".gitconfig"), "[include]\n\tpath = ~/home.fifo\n").unwrap();
    let out = p.speccoder(&verify).failure(13);
    assert!(
        out.stderr.contains(&format!("{} is not read: it is a FIFO", p.home.join("home.fifo").display())),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn the_repository_s_configuration_packed_refs_or_index_as_a_fifo_is_exit_14_naming_it() {
    let p = Project::speckit();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target("T005"), Evidence::Verified);
    p.git(&["pack-refs", "--all"]);
    let git_dir = p.root.join(".git");
    for name in ["config", "packed-refs", "index"] {
        let file = git_dir.join(name);
        let kept = p.scratch.join(name);
        std::fs::rename(&file, &kept).unwrap();
        mkfifo(&file);
        let says = format!("{} is not read: it is a FIFO, not a regular file", file.display());
        let out = p.speccoder(&["attest", "verify", "--branch", "--all", "--allow-empty"]).failure(14);
        assert!(out.stderr.contains(&says), "{name}: {out}");
        let out = p.attest(&target("T005"), &evidence, &["--signer", "none"]).failure(14);
        assert!(out.stderr.contains(&says), "{name}: {out}");
        std::fs::remove_file(&file).unwrap();
        std::fs::rename(&kept, &file).unwrap();
    }
    p.attest(&target("T005"), &evidence, &["--signer", "none"]).success();
}

#[test]
fn a_command_run_inside_a_project_below_the_top_is_refused_never_passed_as_nothing_to_check() {
    // The published speccoder, run in `app/` (a Spec Kit root: `.specify/`), reads the project
    // there; this one reads the top's, where it would find nothing ticked and pass with
    // --allow-empty.
    let p = Project::speckit();
    let app = p.root.join("app");
    common::copy_dir(&common::crate_root().join("fixtures/speckit"), &app);
    let tasks = app.join(format!("specs/{SPECKIT_UNIT}/tasks.md"));
    let text = std::fs::read_to_string(&tasks).unwrap().replacen("- [ ] T002", "- [x] T002", 1);
    std::fs::write(&tasks, text).unwrap();
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", "a project below the top, T002 ticked by hand"]);
    let before = p.snapshot();
    let args = ["attest", "verify", "--branch", "--all", "--allow-empty", "--json"];
    let says = "inside app/, the root of a project of its own (it holds .specify/)";
    for dir in [app.clone(), app.join(format!("specs/{SPECKIT_UNIT}"))] {
        let out = p.speccoder_in(&dir, &args);
        assert_eq!(out.code(), Some(14), "{out}");
        assert!(out.stderr.contains(says), "{out}");
        let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON object");
        assert_eq!(json["exit_code"], 14, "{out}");
        let out = p.speccoder_in(&dir, &["accept", &target("T001"), "--reason", "r", "--signer", "none"]);
        assert_eq!(out.code(), Some(14), "{out}");
    }
    // The work tree's top is the one git uses, also when the git directory is elsewhere.
    let git_dir = p.root.join(".git");
    let env = [("GIT_DIR", git_dir.as_path()), ("GIT_WORK_TREE", p.root.as_path())];
    let out = speccoder_env(&p, &app, &env, &args);
    assert_eq!(out.code(), Some(14), "{out}");
    assert_eq!(p.snapshot(), before);
    // With `GIT_DIR` alone, the work tree is the repository's `core.worktree`.
    p.git(&["config", "core.worktree", p.root.to_str().unwrap()]);
    let out = speccoder_env(&p, &app, &env[..1], &args);
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains(says), "{out}");
    p.git(&["config", "--unset", "core.worktree"]);
    // From the top, and from the top project's own directories, the top's project is read, and
    // the hand tick of the project below it is a row of its own: no run would check it otherwise.
    for dir in [p.root.clone(), p.root.join("specs")] {
        let out = p.speccoder_in(&dir, &["attest", "verify", "--branch", "--all", "--allow-empty"]);
        assert_eq!(out.code(), Some(26), "{out}");
        assert!(
            out.stdout
                .starts_with(&format!("unverifiable app/specs/{SPECKIT_UNIT}/tasks.md - (nested_project)")),
            "{out}"
        );
    }
}

#[test]
fn an_openspec_project_s_own_directories_and_a_specs_directory_below_the_top_are_read_as_the_top_s() {
    // A change holds `specs/` of its own, and OpenSpec keeps `openspec/specs/`: both are the top
    // project's. A `specs/` or a `speccoder.toml` alone makes no project root (the published
    // speccoder reads the top's project there too).
    let p = Project::openspec();
    std::fs::create_dir_all(p.root.join("openspec/specs/tags")).unwrap();
    std::fs::create_dir_all(p.root.join("docs/specs/notes")).unwrap();
    std::fs::write(p.root.join("docs/speccoder.toml"), "").unwrap();
    let change = p.root.join("openspec/changes").read_dir().unwrap().next().unwrap().unwrap().path();
    for dir in [p.root.join("openspec"), change.clone(), change.join("specs"), p.root.join("docs")] {
        let out = p.speccoder_in(&dir, &["attest", "verify", "--branch", "--all", "--allow-empty"]);
        assert_eq!(out.code(), Some(0), "{}: {out}", dir.display());
    }
}

#[test]
fn a_git_file_naming_no_repository_stops_the_search_as_git_stops_there() {
    // git says "not a git repository" below such a file; the repository above is not used.
    let p = Project::speckit();
    let sub = p.root.join("sub");
    std::fs::create_dir_all(p.root.join("junk")).unwrap();
    std::fs::write(p.root.join("junk/HEAD"), "ref: refs/heads/main\n").unwrap();
    let bare = p.scratch.join("other.git");
    common::run(common::git_command(&p.scratch, &p.home, &["init", "-q", "--bare", bare.to_str().unwrap()]));
    std::fs::create_dir_all(&sub).unwrap();
    let contents = [
        "gitdir: /nonexistent\n".to_owned(),
        // No space after the colon: git reads no gitfile ("invalid gitfile format").
        format!("gitdir:{}\n", bare.display()),
        // A directory with a HEAD and nothing else is no repository to git.
        "gitdir: ../junk\n".to_owned(),
        // A trailing space is part of the path git looks for.
        format!("gitdir: {} \n", bare.display()),
    ];
    for content in contents {
        std::fs::write(sub.join(".git"), &content).unwrap();
        let before = p.snapshot();
        let out = p.speccoder_in(&sub, &["accept", &target("T001"), "--reason", "r", "--signer", "none"]);
        assert_eq!(out.code(), Some(14), "{content:?}: {out}");
        assert!(out.stderr.contains("is a .git file that names no repository"), "{content:?}: {out}");
        let out = p.speccoder_in(&sub, &["attest", "verify", "--branch", "--all", "--allow-empty"]);
        assert_eq!(out.code(), Some(14), "{content:?}: {out}");
        assert_eq!(p.snapshot(), before);
    }
    let out = p.speccoder(&["attest", "verify", "--branch", "--all", "--allow-empty"]);
    assert_eq!(out.code(), Some(0), "{out}");
}

#[test]
fn directories_given_with_c_more_than_once_are_taken_each_from_the_one_before_as_git_takes_them() {
    let p = Project::speckit();
    p.speccoder(&["skip", &target("T002"), "--reason", "later", "--signer", "none"]).success();
    let (parent, name) = (p.root.parent().unwrap(), p.root.file_name().unwrap().to_str().unwrap());
    let outer = parent.parent().unwrap();
    let middle = parent.file_name().unwrap().to_str().unwrap();
    let verify = ["attest", "verify", "--branch", "--all", "--json"];
    for args in [
        vec!["-C", middle, "attest", "verify", "-C", name, "--branch", "--all", "--json"],
        [&["-C", middle, "-C", name][..], &verify[..]].concat(),
        [&["-C", "/nowhere", "-C", p.root.to_str().unwrap()][..], &verify[..]].concat(),
    ] {
        let out = common::run(common::speccoder_command(outer, &p.home, &args));
        assert!(
            out.stdout.contains("\"task\":\"001-bookmark-tags/T002\""),
            "{args:?}: run in the project\n{out}"
        );
    }
}

/// A relative `GIT_INDEX_FILE` names a file from the work tree's top, as git reads it (git
/// changes into the top before it reads the index), wherever in the tree the command runs: the
/// tick commits what that index stages, and writes that index, never a file of the same name
/// below the current directory, nor fails where the current directory has no such directory.
#[test]
fn a_relative_git_index_file_is_read_from_the_top_of_the_work_tree_as_git_reads_it() {
    let p = Project::speckit();
    let relative = Path::new("state/index");
    let at_top = p.root.join(relative);
    let specs = p.root.join("specs");
    let decoy = specs.join(relative);
    for file in [&at_top, &decoy] {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::copy(p.root.join(".git/index"), file).unwrap();
    }
    p.write("staged.txt", "staged in the index GIT_INDEX_FILE names\n");
    let git_with_index = |dir: &Path, args: &[&str]| {
        let mut cmd = common::git_command(dir, &p.home, args);
        cmd.env("GIT_INDEX_FILE", relative);
        common::run(cmd)
    };
    git_with_index(&p.root, &["add", "staged.txt"]).success();
    // git itself, run from `specs/`, reads the top's file.
    let status = git_with_index(&specs, &["status", "--porcelain"]).success();
    assert!(status.stdout.contains("A  staged.txt"), "{status}");
    let decoy_before = std::fs::read(&decoy).unwrap();

    let env = [("GIT_INDEX_FILE", relative)];
    let accept = ["accept", &target("T001"), "--reason", "scaffold", "--signer", "none"];
    speccoder_env(&p, &specs, &env, &accept).success();
    let committed = p.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(committed.contains("staged.txt"), "the task commit holds what that index stages\n{committed}");
    assert_eq!(
        std::fs::read(&decoy).unwrap(),
        decoy_before,
        "the file below the current directory is untouched"
    );
    assert!(!decoy.with_extension("lock").exists() && !at_top.with_extension("lock").exists());
    let staged = git_with_index(&p.root, &["diff", "--cached", "--name-only", "HEAD"]).success();
    assert_eq!(staged.stdout, "", "that index holds the tick: {staged}");

    // Where the current directory has no `state/`, the index is still the top's.
    let unit = specs.join(SPECKIT_UNIT);
    let accept = ["accept", &target("T002"), "--reason", "scaffold", "--signer", "none"];
    speccoder_env(&p, &unit, &env, &accept).success();
    let staged = git_with_index(&unit, &["diff", "--cached", "--name-only", "HEAD"]).success();
    assert_eq!(staged.stdout, "", "{staged}");
    let ticked = p.git(&["show", &format!("HEAD:specs/{SPECKIT_UNIT}/tasks.md")]);
    assert!(ticked.contains("- [X] T002"), "{ticked}");
}
