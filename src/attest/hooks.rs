//! `speccoder hooks install`: a `post-rewrite` hook that runs `speccoder attest carry` after
//! `git commit --amend` and `git rebase`, so that the evidence of a rewritten task commit follows
//! it to its new commit.
//!
//! The hook goes where git looks for hooks: `core.hooksPath` (relative to the work tree root when
//! relative, as git reads it), else the `hooks` directory of the common git directory; a
//! `core.hooksPath` git reads as a directory only it can tell (empty: `/`; `%(prefix)/`: its own
//! installation) is refused. It is
//! marked as speccoder's by its second line; speccoder replaces only a hook with that mark and
//! never overwrites a hook somebody else wrote, nor writes through a symbolic link in a work tree
//! of the repository (the main one or any linked one) on the way to the hooks directory.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::exit::{Class, ExitClass};
use crate::git::{GitError, Repo};
use crate::input::{self, InputError};
use crate::model::shown::{exact_path, one_line_path, shell_script_bytes_word, shown};
use crate::output_file::{self, OutputError, Problem};

/// The line that marks a hook as written by speccoder.
pub const MARKER: &str = "# speccoder-managed hook: post-rewrite";

/// The hook's file name.
pub const HOOK: &str = "post-rewrite";

/// The action of a hook that is a symbolic link to one speccoder wrote, which is left as it is.
const LINKED: &str = "linked";

/// What `speccoder hooks install` did.
#[derive(Debug, Clone, Serialize)]
pub struct HookReport {
    /// The hook file, exactly ([`exact_path`]).
    #[serde(serialize_with = "exact_path")]
    pub path: PathBuf,
    /// `installed`, `updated` (speccoder's earlier hook replaced), `unchanged`, or `linked` (a
    /// symbolic link to a hook speccoder wrote, left as it is).
    pub action: &'static str,
    /// The `speccoder` program the hook runs: a path, or the one on PATH (a hooks directory in the
    /// work tree, shared through the repository, names no one's own path).
    pub program: HookProgram,
}

/// The `speccoder` program a hook runs, as its report names it: a path exactly
/// ([`exact_path`]), or what finds it, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookProgram {
    /// This program, by its path.
    Path(PathBuf),
    /// The `speccoder` on PATH when the hook runs.
    OnPath,
    /// The one the hook a symbolic link leads to names.
    Linked,
}

impl Serialize for HookProgram {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            HookProgram::Path(path) => exact_path(path, serializer),
            HookProgram::OnPath => serializer.serialize_str(ON_PATH),
            HookProgram::Linked => serializer.serialize_str(NAMED_BY_THE_LINKED),
        }
    }
}

impl std::fmt::Display for HookProgram {
    /// The path on one line ([`one_line_path`]): it can hold any text, a line break included.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HookProgram::Path(path) => f.write_str(&one_line_path(path)),
            HookProgram::OnPath => f.write_str(ON_PATH),
            HookProgram::Linked => f.write_str(NAMED_BY_THE_LINKED),
        }
    }
}

/// How a report names the `speccoder` on PATH.
const ON_PATH: &str = "speccoder (the one on PATH when the hook runs)";

/// How a report names the program of a hook a symbolic link leads to.
const NAMED_BY_THE_LINKED: &str = "the one the linked hook names";

impl std::fmt::Display for HookReport {
    /// The hook's path and program on one line each: `core.hooksPath` can hold any text, a line
    /// break included.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (path, program) = (one_line_path(&self.path), &self.program);
        if self.action == LINKED {
            return writeln!(
                f,
                "hooks install: {path} is a symbolic link to a hook speccoder wrote (it runs `speccoder attest carry --rewritten`), left as it is"
            );
        }
        writeln!(f, "hooks install: {} {path} (runs `{program} attest carry --rewritten`)", self.action)
    }
}

/// Why the hook was not installed.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// A hook that speccoder did not write is there.
    #[error(
        "{} exists and was not written by speccoder, so it is left as it is: add the line `speccoder attest carry --rewritten` to it yourself (git gives the hook the rewritten commits on stdin, which carry reads)",
        one_line_path(.0)
    )]
    Foreign(PathBuf),
    /// Something that is no hook file is at the hook's path: git runs nothing there.
    #[error(
        "{} is {kind}, not a hook file, so git runs no hook there and it is left as it is: remove it, then run `speccoder hooks install` again",
        one_line_path(.path)
    )]
    NotAHook {
        /// The hook's path.
        path: PathBuf,
        /// What is there, with its article: `a directory`, `a symbolic link to nothing`.
        kind: String,
    },
    /// `core.hooksPath` names no directory speccoder can tell git's reading of: git would run no
    /// hook written anywhere speccoder could write it.
    #[error(
        "core.hooksPath is `{value}`, which {reading}, so a hook speccoder wrote would never run: nothing was installed. Unset it (`git config --unset core.hooksPath`; `git config --show-origin core.hooksPath` names the file that sets it) or set it to a plain path, then run `speccoder hooks install` again"
    )]
    UnusableHooksPath {
        /// The setting's value, escaped and cut.
        value: String,
        /// How git reads it.
        reading: &'static str,
    },
    /// The hooks directory cannot take the hook.
    #[error("cannot install the hook in {}: {reason}", one_line_path(.path))]
    Directory {
        /// The directory.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The hooks directory is reached through a symbolic link in a work tree of the repository,
    /// which the repository may have committed: the hook is never written through it.
    #[error(transparent)]
    Linked(#[from] OutputError),
    /// The repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
}

impl ExitClass for HookError {
    fn class(&self) -> Class {
        match self {
            HookError::Git(e) => e.class(),
            HookError::Linked(e) => e.class(),
            HookError::Foreign(_)
            | HookError::NotAHook { .. }
            | HookError::UnusableHooksPath { .. }
            | HookError::Directory { .. } => Class::GitPrecondition,
        }
    }
}

/// The hooks directory git uses for `repo`.
///
/// # Errors
/// `core.hooksPath` cannot be read, or is a value whose directory only git can tell
/// ([`unusable_hooks_path`]).
pub fn hooks_dir(repo: &Repo) -> Result<PathBuf, HookError> {
    if let Some(value) = repo.config_os_string("core.hooksPath")?.map(|v| v.to_string_lossy().into_owned())
        && let Some(reading) = unusable_hooks_path(&value)
    {
        return Err(HookError::UnusableHooksPath { value: shown(&value, 200), reading });
    }
    let dir = match repo.config_path("core.hooksPath")? {
        Some(path) if path.is_absolute() => path,
        Some(path) => repo.workdir().unwrap_or_else(|| repo.git_dir()).join(path),
        None => repo.common_dir().join("hooks"),
    };
    // Said in full, so that the report names the file wherever it was run from.
    Ok(std::path::absolute(&dir).unwrap_or(dir))
}

/// How git reads a `core.hooksPath` value that names no directory speccoder could write the hook
/// in: empty, git looks for `/post-rewrite` (its hooks path joined to `/<hook>`); `%(prefix)/...`,
/// git's own installation directory, which only git knows. `None` for a plain path.
fn unusable_hooks_path(value: &str) -> Option<&'static str> {
    if value.is_empty() {
        Some("git reads as the root directory (it looks for `/post-rewrite`, not in .git/hooks)")
    } else if value.starts_with("%(prefix)") {
        Some("git reads below its own installation directory, which speccoder cannot tell")
    } else {
        None
    }
}

/// The hook's text, running `program`, or the `speccoder` on PATH when the hook runs (`None`).
#[must_use]
pub fn hook_text(program: Option<&Path>) -> String {
    let find = match program {
        Some(program) => {
            // The path exactly, whatever bytes it holds: a text with U+FFFD in place of a byte
            // that is not UTF-8, or without the newline a name may end in, would run another
            // program, or none.
            let quoted = shell_script_bytes_word(program.as_os_str().as_encoded_bytes());
            format!(
                "speccoder={quoted}\n\
                 [ -x \"$speccoder\" ] || speccoder=$(command -v speccoder) || {{\n\
                 \x20   echo \"speccoder post-rewrite hook: speccoder is neither at \"{quoted}\" nor on PATH, {NOT_CARRIED}\" >&2\n"
            )
        }
        None => format!(
            "speccoder=$(command -v speccoder) || {{\n\
             \x20   echo \"speccoder post-rewrite hook: speccoder is not on PATH, {NOT_CARRIED}\" >&2\n"
        ),
    };
    format!(
        "#!/bin/sh\n\
         {MARKER}\n\
         # Written by `speccoder hooks install`, which replaces it; it leaves any hook without the line above alone.\n\
         # After `git commit --amend` and `git rebase`, git gives this hook the rewritten commits on stdin;\n\
         # `speccoder attest carry --rewritten` re-issues the evidence of each rewritten task commit for its new\n\
         # commit when the change is the same, and says so when it is not.\n\
         {find}\
         \x20   exit 1\n\
         }}\n\
         exec \"$speccoder\" attest carry --rewritten\n"
    )
}

/// What the hook says, and what to do, when it finds no speccoder to run.
const NOT_CARRIED: &str = "so the evidence of the rewritten task commits was not carried: install speccoder, run \\`speccoder attest carry\\` here, and \\`speccoder hooks install\\` again";

/// Installs the `post-rewrite` hook running `program` (see the module documentation).
///
/// # Errors
/// A hook speccoder did not write is there ([`HookError::Foreign`]), or the directory cannot
/// take the hook.
pub fn install(repo: &Repo, program: Option<&Path>) -> Result<HookReport, HookError> {
    let dir = hooks_dir(repo)?;
    refuse_link_in_work_tree(repo, &dir)?;
    let dir_error = |reason: String| HookError::Directory { path: dir.clone(), reason };
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(dir_error("it is not a directory".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && is_link(&dir) => {
            return Err(dir_error(
                "it is a symbolic link to nothing: create the directory it names, or point core.hooksPath elsewhere"
                    .into(),
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(&dir).map_err(|e| dir_error(format!("it cannot be created: {e}")))?;
        }
        Err(e) => return Err(dir_error(e.to_string())),
    }
    let program = program_named(repo, &dir, program)?;
    let path = dir.join(HOOK);
    let text = hook_text(program);
    let existing = match input::read_regular(&path, 1024 * 1024) {
        Ok(bytes) => Some(bytes),
        Err(InputError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => None,
        Err(InputError::Io { source, .. }) => {
            return Err(dir_error(format!("{HOOK} cannot be read: {source}")));
        }
        // A link to a file or a huge file under that name is someone's hook, not ours; a
        // directory, a FIFO or a link to nothing is no hook at all.
        Err(_) => {
            return match not_a_hook(&path) {
                Some(kind) => Err(HookError::NotAHook { path, kind }),
                None if is_link(&path) && links_to_ours(&path) => {
                    Ok(HookReport { path, action: LINKED, program: HookProgram::Linked })
                }
                None => Err(HookError::Foreign(path)),
            };
        }
    };
    let action = match &existing {
        // A hook git would skip (not executable) is put back as one it runs.
        Some(bytes) if *bytes == text.as_bytes() && is_executable(&path) => "unchanged",
        Some(bytes) if ours(bytes) => "updated",
        Some(_) => return Err(HookError::Foreign(path)),
        None => "installed",
    };
    if action != "unchanged" {
        // Written in a hidden directory of ours beside it, which the next install removes when a
        // kill left it. A new hook never replaces one that appeared meanwhile; ours is replaced in
        // one rename.
        let put = output_file::put_file(&dir, HOOK.as_ref(), existing.is_some(), |file| {
            file.write_all(text.as_bytes())?;
            set_executable(file)
        });
        put.map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => HookError::Foreign(path.clone()),
            _ => dir_error(format!("cannot put {HOOK} in place: {e}")),
        })?;
    }
    let program = program.map_or(HookProgram::OnPath, |p| HookProgram::Path(p.to_owned()));
    Ok(HookReport { path, action, program })
}

/// Whether the hook `bytes` are speccoder's. Only the second line marks a hook as ours: a hook of
/// a person's own that holds our lines further down is theirs, and never replaced.
fn ours(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes).lines().nth(1) == Some(MARKER)
}

/// The paths of this machine a report of [`install`] for `repo`, run by `program`, names: the hook,
/// and `program` when the hook names it ([`program_named`]). A `--json` report names each exactly,
/// so one that is not UTF-8 is refused before anything is written
/// ([`crate::model::shown::json_path`]).
///
/// # Errors
/// As [`hooks_dir`], or the work trees cannot be listed.
pub fn named_paths(repo: &Repo, program: Option<&Path>) -> Result<Vec<PathBuf>, HookError> {
    let dir = hooks_dir(repo)?;
    let program = program_named(repo, &dir, program)?;
    Ok(std::iter::once(dir.join(HOOK)).chain(program.map(Path::to_owned)).collect())
}

/// The program a hook in the hooks directory `dir` names by its path: `program`, unless the
/// repository shares `dir` ([`shared_through_the_repository`]), where the hook names only the one
/// on PATH.
fn program_named<'p>(
    repo: &Repo,
    dir: &Path,
    program: Option<&'p Path>,
) -> Result<Option<&'p Path>, GitError> {
    Ok(if shared_through_the_repository(repo, dir)? { None } else { program })
}

/// Whether the symbolic link at `path` leads to a hook speccoder wrote (a dotfiles manager keeps
/// hooks elsewhere and links them in): it is left as it is, and said to be ours.
fn links_to_ours(path: &Path) -> bool {
    input::read_regular_through_links(path, 1024 * 1024).is_ok_and(|bytes| ours(&bytes))
}

/// Refuses the hooks directory `dir` when a symbolic link in a work tree of the repository (the
/// main one or any linked one, whichever this one is: `core.hooksPath` is shared by all) is on
/// the way to it ([`crate::output_file::link_below`]), however `dir` spells it
/// (`.git/../.githooks`), as every file speccoder writes is refused: a repository may commit
/// `.githooks` as a link that leads the hook anywhere. The git directory is the user's own (a
/// work tree holds none of it), and a link there is followed.
fn refuse_link_in_work_tree(repo: &Repo, dir: &Path) -> Result<(), HookError> {
    let own = [repo.git_dir(), repo.common_dir()];
    let link =
        repo.work_trees()?.iter().find_map(|work_tree| crate::output_file::link_below(work_tree, dir, &own));
    match link {
        Some(link) => Err(OutputError { path: dir.join(HOOK), problem: Problem::LinkOnTheWay(link) }.into()),
        None => Ok(()),
    }
}

/// What is at the hook's `path` when it is no file git could run as a hook (git follows a link
/// to one): `a directory`, `a FIFO`, `a symbolic link to nothing`, ...; `None` for a file.
fn not_a_hook(path: &Path) -> Option<String> {
    let linked = if is_link(path) { "a symbolic link to " } else { "" };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => None,
        Ok(meta) if meta.is_dir() => Some(format!("{linked}a directory")),
        Ok(meta) => Some(format!("{linked}a {}", input::kind_of(&meta.file_type()))),
        Err(_) if is_link(path) => Some("a symbolic link to nothing".to_owned()),
        Err(_) => None,
    }
}

/// Whether `path` is a symbolic link (wherever it leads).
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

/// Whether the hooks directory `dir` is in a work tree of the repository (the main one or any
/// linked one, [`Repo::work_tree_holding`]), where the repository may share it: then the hook
/// names no one's own path (each person's install would change it), only the speccoder on PATH.
fn shared_through_the_repository(repo: &Repo, dir: &Path) -> Result<bool, GitError> {
    Ok(repo.work_tree_holding(dir)?.is_some())
}

#[cfg(unix)]
fn set_executable(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    file.set_permissions(std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_executable(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// Whether git would run the hook at `path`: someone may execute it.
#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_quotes_its_program_for_the_shell() {
        let text = hook_text(Some(Path::new("/opt/it's here/speccoder")));
        assert!(text.contains("speccoder='/opt/it'\\''s here/speccoder'\n"), "{text}");
        assert_eq!(text.lines().nth(1), Some(MARKER));
        assert!(text.ends_with("exec \"$speccoder\" attest carry --rewritten\n"));
    }

    /// The hook runs its program at a path that is not UTF-8, whose name may end in a newline,
    /// exactly: never the program named without that newline, which a command substitution
    /// would leave.
    #[cfg(unix)]
    #[test]
    fn the_hook_runs_its_program_at_a_path_that_is_not_utf8_exactly() {
        use std::os::unix::ffi::OsStrExt as _;
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join(std::ffi::OsStr::from_bytes(b"bin-\xff\xfe"));
        std::fs::create_dir(&bin).unwrap();
        let script = |name: &[u8], says: &Path| {
            let program = bin.join(std::ffi::OsStr::from_bytes(name));
            std::fs::write(&program, format!("#!/bin/sh\necho \"$@\" > '{}'\n", says.display())).unwrap();
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
            program
        };
        let (ran, other) = (dir.path().join("ran"), dir.path().join("other-ran"));
        for name in [&b"speccoder"[..], b"speccoder\n", b"speccoder\n\n"] {
            let program = script(name, &ran);
            if name != b"speccoder" {
                script(b"speccoder", &other);
            }
            let hook = dir.path().join(HOOK);
            std::fs::write(&hook, hook_text(Some(&program))).unwrap();
            let out = std::process::Command::new("sh")
                .arg(&hook)
                .env("PATH", "/usr/bin:/bin")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(std::fs::read_to_string(&ran).unwrap(), "attest carry --rewritten\n");
            assert!(!other.exists(), "{}: another program ran", String::from_utf8_lossy(name));
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_person_s_hook_holding_our_lines_below_its_second_stays_and_ours_made_unrunnable_is_put_back() {
        use std::os::unix::fs::PermissionsExt as _;
        let fx = crate::git::test_support::Fixture::new();
        let repo = fx.repo();
        let program = Some(Path::new("/usr/local/bin/speccoder"));
        let hook = fx.path().join(".git/hooks").join(HOOK);
        std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
        let mine = format!("#!/bin/sh\ninput=$(cat)\necho \"$input\" | my-tool\n{}", hook_text(program));
        std::fs::write(&hook, &mine).unwrap();
        assert!(matches!(install(&repo, program), Err(HookError::Foreign(_))));
        assert_eq!(std::fs::read_to_string(&hook).unwrap(), mine);

        std::fs::remove_file(&hook).unwrap();
        let installed = install(&repo, program).unwrap();
        let named = HookProgram::Path("/usr/local/bin/speccoder".into());
        assert_eq!((installed.action, installed.program), ("installed", named));
        assert_eq!(install(&repo, program).unwrap().action, "unchanged");
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(install(&repo, program).unwrap().action, "updated");
        assert_eq!(std::fs::metadata(&hook).unwrap().permissions().mode() & 0o777, 0o755);
    }

    #[cfg(unix)]
    #[test]
    fn what_is_no_hook_file_is_named_as_such_and_a_link_to_a_person_s_hook_is_theirs() {
        let fx = crate::git::test_support::Fixture::new();
        let repo = fx.repo();
        let hooks = fx.path().join(".git/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        let hook = hooks.join(HOOK);
        let nowhere = fx.path().join("nowhere");
        let make: [(&str, &dyn Fn()); 3] = [
            ("a directory", &|| std::fs::create_dir(&hook).unwrap()),
            ("a FIFO", &|| {
                assert!(std::process::Command::new("mkfifo").arg(&hook).status().unwrap().success());
            }),
            ("a symbolic link to nothing", &|| std::os::unix::fs::symlink(&nowhere, &hook).unwrap()),
        ];
        for (kind, make) in make {
            make();
            match install(&repo, None) {
                Err(HookError::NotAHook { kind: found, .. }) => assert_eq!(found, kind),
                other => panic!("{kind}: {other:?}"),
            }
            let _ = std::fs::remove_dir(&hook).or_else(|_| std::fs::remove_file(&hook));
        }
        let theirs = fx.path().join("their-hook");
        std::fs::write(&theirs, "#!/bin/sh\nmy-tool\n").unwrap();
        std::os::unix::fs::symlink(&theirs, &hook).unwrap();
        assert!(matches!(install(&repo, None), Err(HookError::Foreign(_))));
        // A hooks directory that is a link to nothing (outside the work tree, where a link is the
        // user's own) is said to be one, never "File exists".
        let outside = tempfile::tempdir().unwrap();
        let nowhere = outside.path().join("nowhere");
        fx.git(&["config", "core.hooksPath", nowhere.to_str().unwrap()]);
        std::os::unix::fs::symlink(outside.path().join("gone"), &nowhere).unwrap();
        let said = install(&fx.repo(), None).unwrap_err().to_string();
        assert!(said.contains("it is a symbolic link to nothing: create the directory it names"), "{said}");
    }

    /// A dotfiles manager keeps the hook elsewhere and links it in: the link is speccoder's hook,
    /// said to be one and left as it is, never called someone else's.
    #[cfg(unix)]
    #[test]
    fn a_link_to_a_hook_speccoder_wrote_is_said_to_be_one_and_left_as_it_is() {
        let fx = crate::git::test_support::Fixture::new();
        let kept = tempfile::tempdir().unwrap();
        let target = kept.path().join(HOOK);
        std::fs::write(&target, hook_text(Some(Path::new("/opt/speccoder")))).unwrap();
        let hook = fx.path().join(".git/hooks").join(HOOK);
        std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &hook).unwrap();
        let report = install(&fx.repo(), Some(Path::new("/usr/bin/speccoder"))).unwrap();
        assert_eq!(report.action, "linked");
        let said = report.to_string();
        assert!(
            said.contains("is a symbolic link to a hook speccoder wrote") && said.contains("left as it is"),
            "{said}"
        );
        assert!(std::fs::symlink_metadata(&hook).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), hook_text(Some(Path::new("/opt/speccoder"))));
    }

    #[test]
    fn a_hooks_directory_in_the_work_tree_gets_a_hook_naming_no_one_s_path() {
        let fx = crate::git::test_support::Fixture::new();
        fx.git(&["config", "core.hooksPath", ".githooks"]);
        let repo = fx.repo();
        let ada = install(&repo, Some(Path::new("/home/ada/bin/speccoder"))).unwrap();
        assert_eq!(ada.action, "installed");
        assert_eq!(ada.program, HookProgram::OnPath);
        let text = std::fs::read_to_string(fx.path().join(".githooks").join(HOOK)).unwrap();
        assert_eq!(text, hook_text(None));
        assert!(
            !text.contains("/home/ada") && text.contains("speccoder=$(command -v speccoder) ||"),
            "{text}"
        );
        let bob = install(&repo, Some(Path::new("/opt/bob/speccoder"))).unwrap();
        assert_eq!(bob.action, "unchanged");
    }

    /// git reads an empty `core.hooksPath` as `/` and `%(prefix)/` as its own installation
    /// directory: install refuses both (14), naming the setting, and writes nothing in
    /// `.git/hooks`, where git would not look.
    #[test]
    fn an_empty_or_prefix_hooks_path_is_refused_naming_the_setting_and_nothing_is_written() {
        let fx = crate::git::test_support::Fixture::new();
        for value in ["", "%(prefix)/hooks"] {
            fx.git(&["config", "core.hooksPath", value]);
            let looks = fx.git(&["rev-parse", "--git-path", "hooks/post-rewrite"]);
            assert!(!looks.contains(".git/hooks"), "git looks elsewhere: {looks}");
            let err = install(&fx.repo(), None).unwrap_err();
            assert_eq!(err.exit_code(), crate::exit::GIT_PRECONDITION, "{err}");
            let said = err.to_string();
            assert!(said.contains(&format!("core.hooksPath is `{value}`")), "{said}");
            assert!(said.contains("git config --unset core.hooksPath"), "{said}");
        }
        assert!(!fx.path().join(".git/hooks").join(HOOK).exists());
    }

    /// A hooks directory reached through a link in the work tree (`.githooks` itself, or a
    /// directory above it) is refused and nothing is written where the link leads; a link that is
    /// the git directory's `hooks` is the user's own and is followed.
    #[cfg(unix)]
    #[test]
    fn a_hooks_directory_reached_through_a_link_in_the_work_tree_is_refused_and_one_in_the_git_dir_is_followed()
     {
        let fx = crate::git::test_support::Fixture::new();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), fx.path().join(".githooks")).unwrap();
        std::os::unix::fs::symlink(outside.path(), fx.path().join("tools")).unwrap();
        for (hooks_path, link) in [(".githooks", ".githooks"), ("tools/hooks", "tools")] {
            fx.git(&["config", "core.hooksPath", hooks_path]);
            let err = install(&fx.repo(), None).unwrap_err();
            assert_eq!(err.exit_code(), crate::exit::CONFIG, "{err}");
            let said = err.to_string();
            assert!(said.contains(&format!("{link} on the way to it is a symbolic link")), "{said}");
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written through the link");
        fx.git(&["config", "--unset", "core.hooksPath"]);
        let hooks = fx.path().join(".git/hooks");
        let _ = std::fs::remove_dir_all(&hooks);
        std::os::unix::fs::symlink(outside.path(), &hooks).unwrap();
        assert_eq!(install(&fx.repo(), None).unwrap().action, "installed");
        assert!(outside.path().join(HOOK).is_file());
    }

    /// However `core.hooksPath` spells its way to a link in the work tree (through the git
    /// directory and `..`, out of the work tree and back, through a link of the user's own to the
    /// work tree), the link is refused and nothing is written where it leads.
    #[cfg(unix)]
    #[test]
    fn a_hooks_directory_link_in_the_work_tree_is_refused_however_the_path_spells_it() {
        let fx = crate::git::test_support::Fixture::new();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), fx.path().join(".githooks")).unwrap();
        let alias = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(fx.path(), alias.path().join("repo")).unwrap();
        let root = fx.path().to_str().unwrap();
        let name = fx.path().file_name().unwrap().to_str().unwrap();
        for hooks_path in [
            ".git/../.githooks".to_owned(),
            format!("{root}/.git/../.githooks"),
            ".git/hooks/../../.githooks".to_owned(),
            format!("../{name}/.githooks"),
            format!("{}/repo/.githooks", alias.path().display()),
        ] {
            fx.git(&["config", "core.hooksPath", &hooks_path]);
            let err = install(&fx.repo(), None).unwrap_err();
            assert_eq!(err.exit_code(), crate::exit::CONFIG, "{hooks_path}: {err}");
            assert!(err.to_string().contains(".githooks on the way to it is a symbolic link"), "{err}");
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written through the link");
    }

    /// A hook whose binary is gone, with none on PATH, says that nothing was carried and what to
    /// run, instead of the shell's bare "not found".
    #[cfg(unix)]
    #[test]
    fn the_hook_says_so_when_speccoder_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("post-rewrite");
        std::fs::write(&hook, hook_text(Some(&dir.path().join("gone/speccoder")))).unwrap();
        let out = std::process::Command::new("/bin/sh").arg(&hook).env("PATH", dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("was not carried"), "{stderr}");
        assert!(stderr.contains("run `speccoder attest carry` here"), "{stderr}");
        assert!(stderr.contains(&format!("neither at {}/gone/speccoder", dir.path().display())), "{stderr}");
    }
}
