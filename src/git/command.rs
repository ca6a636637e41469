//! Running the `git` program, for the little gix does not do here: talking to remotes (so that
//! credential helpers, SSH and HTTPS work exactly as the user configured them for git), fetching
//! missing objects from a partial clone's promisor remote, the patches of changes and the paths
//! they change (`git diff-tree`), the commits that change given paths (`git rev-list`) and the
//! merge of a merge's parents (`git merge-tree`). Arguments go to the program
//! as they are, never through a shell; output is captured.

use std::ffi::OsStr;
use std::io::Write as _;
use std::process::{Command, ExitStatus, Stdio};

use super::error::GitError;
use super::repo::Repo;

/// The environment variables that make git pick a repository other than the one we opened
/// (a hook inherits some of them from the git that runs it); the child finds it from its
/// directory, as gix did.
const LOCATING_VARIABLES: [&str; 6] =
    ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX", "GIT_NAMESPACE"];

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

impl Repo {
    /// The directory git runs in: the work tree, or the git directory of a bare repository.
    fn git_cwd(&self) -> &std::path::Path {
        self.workdir().unwrap_or_else(|| self.git_dir())
    }

    /// A `git` command for this repository with `args`, reading objects without replacements;
    /// the caller's environment otherwise (the user's credential helpers, SSH agent and
    /// configuration apply).
    pub(crate) fn git_command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut cmd = Command::new("git");
        for var in LOCATING_VARIABLES {
            cmd.env_remove(var);
        }
        // git reads objects as their ids say, as gix does here ([`Repo::discover`]).
        cmd.env("GIT_NO_REPLACE_OBJECTS", "1");
        cmd.current_dir(self.git_cwd()).args(args);
        cmd
    }

    /// Runs `git args…` with `stdin` (or nothing) as its input and waits for it; `action` names
    /// what it was for in an error.
    pub(crate) fn run_git<S: AsRef<OsStr>>(
        &self,
        action: &str,
        args: &[S],
        stdin: Option<&[u8]>,
    ) -> Result<GitOutput, GitError> {
        let mut cmd = self.git_command(args);
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
