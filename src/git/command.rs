//! Running the `git` program, for the little gix does not do here: talking to remotes (so that
//! credential helpers, SSH and HTTPS work exactly as the user configured them for git), fetching
//! missing objects from a partial clone's promisor remote, the patches of changes and the paths
//! they change (`git diff-tree`), the commits that change given paths (`git rev-list`) and the
//! merge of a merge's parents (`git merge-tree`). Arguments go to the program
//! as they are, never through a shell; output is captured.
//!
//! Every run reads the repository and the objects gix reads, and no environment variable changes
//! what its options ask ([`Repo::git_command`]); a run that reads the histories (patches, paths,
//! merges) reads them alone, as every clone holds them: no attributes but the repository's own,
//! no grafts, and git's defaults for what would change a merged tree ([`Repo::history_command`]).

use std::ffi::OsStr;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

use super::error::{GitError, io_error};
use super::repo::Repo;

/// The environment variables that make git pick a repository, or objects, other than the ones we
/// opened (a hook inherits some of them from the git that runs it): the child finds the repository
/// from its directory, as gix did, and reads the objects gix reads (gix reads neither
/// `GIT_OBJECT_DIRECTORY` nor `GIT_ALTERNATE_OBJECT_DIRECTORIES`).
const LOCATING_VARIABLES: [&str; 8] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "GIT_NAMESPACE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
];

/// The environment variables (git's ENVIRONMENT VARIABLES, as of 2.47) that change what a git we
/// run writes or decides beyond what its options ask: none reaches it, so that its options are
/// all it takes. The user's configuration (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_COUNT`,
/// `GIT_CONFIG_PARAMETERS`, ...) is not among them: it applies as it applies to git, and a run
/// overrides on its command line what of it would change the meaning of its output
/// ([`HISTORY_SETTINGS`], the options of each run).
const OUTPUT_VARIABLES: [&str; 11] = [
    // The lines of context of every patch, over `-U3`: a patch would lose the lines that place
    // its change, and two changes in different places would read as one.
    "GIT_DIFF_OPTS",
    // A program git runs to write each patch instead of its own diff (`--no-ext-diff` stops it
    // too), and what git tells it: never ours to run.
    "GIT_EXTERNAL_DIFF",
    "GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE",
    "GIT_DIFF_PATH_COUNTER",
    "GIT_DIFF_PATH_TOTAL",
    // Every pathspec read literally, as a glob or whatever the case: the paths we ask for say how
    // they are read (`--literal-pathspecs`), which git refuses beside a glob or icase setting.
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
    // The tree attributes are read from instead of the work tree: a run that reads the histories
    // sets its own ([`Repo::history_command`]).
    "GIT_ATTR_SOURCE",
    // Where replacements of objects are read from: none are (`GIT_NO_REPLACE_OBJECTS`).
    "GIT_REPLACE_REF_BASE",
];

/// The configuration a run that reads the histories is held to, over the user's: git's defaults
/// wherever a setting would change the tree `git merge-tree` writes for two commits, which is
/// what the carry rule compares a merge with (git's own three-way merge; docs/cli.md, "The same
/// change"). `core.attributesFile` is set beside them ([`Repo::history_command`]).
const HISTORY_SETTINGS: [&str; 6] = [
    // Files renormalized before they are merged, by the attributes of the merged trees: a
    // checked-in `.gitattributes` would change the merge.
    "merge.renormalize=false",
    // The conflict markers written into a conflicted file (`diff3` and `zdiff3` add the base's
    // lines): part of the tree a merge is compared with.
    "merge.conflictStyle=merge",
    // Renames followed (unset, `diff.renames` decides), up to git's default number of files
    // (unset, `diff.renameLimit`), and a file one side adds to a directory the other renamed moved
    // with it, as a conflict.
    "merge.renames=true",
    "merge.renameLimit=7000",
    "merge.directoryRenames=conflict",
    // The merge driver of a file no attribute gives one: an empty name, which names no driver, so
    // git merges with its built-in text merge as when it is unset (`text` would name a driver
    // `merge.text.driver` can define, a program git would run).
    "merge.default=",
];

/// What a finished `git` left.
#[derive(Debug)]
pub(crate) struct GitOutput {
    /// How it ended.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error, lossily decoded and trimmed.
    pub stderr: String,
}

impl GitOutput {
    /// Standard output as text (lossily decoded).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// The output of a run that had to succeed, or [`GitError::GitCommand`] saying what failed.
    pub fn succeeded(self, action: &str) -> Result<GitOutput, GitError> {
        if self.status.success() {
            Ok(self)
        } else {
            Err(GitError::GitCommand {
                action: action.to_owned(),
                status: self.status.code(),
                stderr: self.stderr,
            })
        }
    }
}

/// A `git` run over the histories ([`Repo::history_command`]) and the empty directory it runs in,
/// which is removed when this is dropped: keep it until the run has ended.
pub(crate) struct HistoryCommand {
    /// The command.
    pub cmd: Command,
    /// The directory: the run's work tree, with no file of its own.
    _empty: tempfile::TempDir,
}

impl Repo {
    /// The directory git runs in: the work tree, or the git directory of a bare repository.
    fn git_cwd(&self) -> &Path {
        self.workdir().unwrap_or_else(|| self.git_dir())
    }

    /// A `git` command for this repository with `args`, reading the objects gix reads, as their
    /// ids say (no replacements, the clone's shallow boundary as gix reads it), with no variable
    /// of [`OUTPUT_VARIABLES`]; the caller's environment otherwise (the user's credential
    /// helpers, SSH agent and configuration apply).
    pub(crate) fn git_command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut cmd = Command::new("git");
        for var in LOCATING_VARIABLES.iter().chain(&OUTPUT_VARIABLES) {
            cmd.env_remove(var);
        }
        // git reads objects as their ids say, as gix does here ([`Repo::discover`]).
        cmd.env("GIT_NO_REPLACE_OBJECTS", "1");
        // The commits whose parents the clone lacks, from the file gix reads them from: gix takes
        // a relative `GIT_SHALLOW_FILE` from the common directory, git from where it runs.
        match self.inner.shallow_file().map(std::path::absolute) {
            Ok(Ok(file)) => cmd.env("GIT_SHALLOW_FILE", file),
            _ => cmd.env_remove("GIT_SHALLOW_FILE"),
        };
        cmd.current_dir(self.git_cwd()).args(args);
        cmd
    }

    /// [`Repo::git_command`] for a run that reads the histories (patches, the paths commits
    /// change, the merge of two commits): what it writes is a function of the commits alone, the
    /// same in every clone. It runs in an empty directory of its own, given as its work tree with
    /// no index, so no `.gitattributes` of the work tree or the index is read; attributes are read
    /// from the empty tree (`GIT_ATTR_SOURCE`, git 2.41 or later: no tree's, whatever `attr.tree`
    /// says), never from the system's file (`GIT_ATTR_NOSYSTEM`) or the user's
    /// (`core.attributesFile`, else `$XDG_CONFIG_HOME/git/attributes`). So no checked-in file can
    /// pick a merge driver (a program git would run), another way to merge a file (`binary`,
    /// `union`), or a diff driver. The repository's own `info/attributes` still applies, as its configuration does:
    /// it is set by whoever owns the clone, is never checked in nor fetched, and git cannot be
    /// told to pass it over without another git directory, which would lose the clone's own
    /// state (its shallow boundary, promisor remote, object format). No grafts are read
    /// (`GIT_GRAFT_FILE` names no file), as gix reads none, and the settings that would change a
    /// merged tree are git's defaults ([`HISTORY_SETTINGS`]).
    ///
    /// # Errors
    /// The empty directory cannot be made, or the current directory cannot be read.
    pub(crate) fn history_command<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<HistoryCommand, GitError> {
        let temp = std::env::temp_dir();
        let empty = tempfile::Builder::new()
            .prefix("speccoder-git-")
            .tempdir_in(&temp)
            .map_err(io_error("create a directory to run git in, in", temp))?;
        // Absolute, since git takes a relative path from the directory it runs in.
        let absolute =
            |path: &Path| std::path::absolute(path).map_err(io_error("read the current directory", "."));
        let git_dir = absolute(self.git_dir())?;
        let dir = absolute(empty.path())?;
        let none = |name: &str| dir.join(name);
        let mut cmd = self.git_command::<&str>(&[]);
        cmd.current_dir(&dir)
            .env("GIT_DIR", git_dir)
            .env("GIT_WORK_TREE", &dir)
            .env("GIT_INDEX_FILE", none("index"))
            .env("GIT_ATTR_SOURCE", gix::ObjectId::empty_tree(self.object_hash()).to_string())
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_GRAFT_FILE", none("grafts"));
        let mut attributes_file = std::ffi::OsString::from("core.attributesFile=");
        attributes_file.push(none("attributes"));
        cmd.arg("-c").arg(attributes_file);
        for setting in HISTORY_SETTINGS {
            cmd.args(["-c", setting]);
        }
        cmd.args(args);
        Ok(HistoryCommand { cmd, _empty: empty })
    }

    /// Runs `git args…` ([`Repo::git_command`]) with `stdin` (or nothing) as its input and waits
    /// for it; `action` names what it was for in an error.
    pub(crate) fn run_git<S: AsRef<OsStr>>(
        &self,
        action: &str,
        args: &[S],
        stdin: Option<&[u8]>,
    ) -> Result<GitOutput, GitError> {
        run(self.git_command(args), action, stdin)
    }

    /// [`Repo::run_git`] for a run that reads the histories ([`Repo::history_command`]).
    pub(crate) fn run_history_git<S: AsRef<OsStr>>(
        &self,
        action: &str,
        args: &[S],
        stdin: Option<&[u8]>,
    ) -> Result<GitOutput, GitError> {
        let HistoryCommand { cmd, _empty } = self.history_command(args)?;
        run(cmd, action, stdin)
    }
}

/// Runs `cmd` with `stdin` (or nothing) as its input and waits for it; `action` names what it was
/// for in an error.
fn run(mut cmd: Command, action: &str, stdin: Option<&[u8]>) -> Result<GitOutput, GitError> {
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let cannot_run = |e: std::io::Error| GitError::GitCommand {
        action: action.to_owned(),
        status: None,
        stderr: why_not_run(&e),
    };
    let mut child = cmd.spawn().map_err(cannot_run)?;
    // The input is written from another thread, so that a child filling its output pipes
    // while we are still writing cannot block us both.
    let writer = match (stdin, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || pipe.write_all(&bytes)))
        }
        _ => None,
    };
    let output = child.wait_with_output().map_err(cannot_run)?;
    if let Some(writer) = writer {
        // A child that exits without reading all of its input reports that itself.
        let _ = writer.join();
    }
    Ok(GitOutput {
        status: output.status,
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    })
}

/// Why the git program could not be run, and what to do: only a program not found is a git to
/// install.
fn why_not_run(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("the git program could not be run ({e}); install git and put it on PATH")
        }
        std::io::ErrorKind::ArgumentListTooLong => format!(
            "the git program could not be started: it was given more arguments than this system allows ({e}); \
             this is speccoder's fault, please report it"
        ),
        _ => format!("the git program could not be run ({e})"),
    }
}

#[cfg(test)]
mod tests {
    use crate::git::GitError;
    use crate::git::test_support::Fixture;

    #[test]
    fn git_given_more_arguments_than_the_system_allows_is_said_so_and_not_called_missing() {
        let fx = Fixture::new();
        // One argument longer than Linux takes (128 KiB) is refused as a list too long.
        let long = "a".repeat(256 * 1024);
        let err = fx.repo().run_git("`git version`", &["version", &long], None).unwrap_err();
        let GitError::GitCommand { stderr, .. } = &err else { panic!("{err:?}") };
        assert!(stderr.contains("more arguments than this system allows"), "{stderr}");
        assert!(!stderr.contains("install git"), "{stderr}");
    }
}
