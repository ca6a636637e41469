//! A temporary repository driven by the real `git`, isolated from the machine's configuration.

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::git::{ObjectId, Repo};

/// The variables that would let the machine's git setup leak into a test.
const LEAKY_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_NOTES_REF",
    "GIT_NOTES_DISPLAY_REF",
    "EMAIL",
];

/// A repository in a temporary directory, with its own empty HOME.
pub struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    clock: Cell<i64>,
}

impl Fixture {
    /// `git init` on branch `main`, with user.name/email in the repository config.
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().join("repo");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let fixture = Fixture { _dir: dir, root, home, clock: Cell::new(1_700_000_000) };
        fixture.git(&["init", "-q", "-b", "main"]);
        fixture.git(&["config", "user.name", "Test Person"]);
        fixture.git(&["config", "user.email", "test@example.com"]);
        fixture.git(&["config", "commit.gpgsign", "false"]);
        fixture.git(&["config", "core.autocrlf", "false"]);
        fixture
    }

    /// The work tree's root.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The isolated home directory.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Open the repository with our adapter.
    pub fn repo(&self) -> Repo {
        Repo::discover(&self.root).expect("the fixture repository opens")
    }

    /// A `git` command in the work tree with the machine's configuration kept out.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(&self.root).args(args);
        isolate(&mut cmd, &self.home);
        cmd
    }

    /// Run git, fail the test on a non-zero exit, return stdout as text.
    pub fn git(&self, args: &[&str]) -> String {
        String::from_utf8(self.git_bytes(args, None)).expect("git printed UTF-8")
    }

    /// Run git with `stdin`, fail the test on a non-zero exit, return stdout as bytes.
    pub fn git_bytes(&self, args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
        let out = self.git_output(args, stdin);
        assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// Run git with `stdin` and return whatever happened.
    pub fn git_output(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        let mut cmd = self.command(args);
        self.tick(&mut cmd);
        run(cmd, stdin)
    }

    /// Give the next git command a commit date one minute after the previous one.
    fn tick(&self, cmd: &mut Command) {
        let now = self.clock.get() + 60;
        self.clock.set(now);
        let date = format!("@{now} +0000");
        cmd.env("GIT_AUTHOR_DATE", &date).env("GIT_COMMITTER_DATE", &date);
    }

    /// Write a file in the work tree (directories created).
    pub fn write(&self, rela: &str, bytes: impl AsRef<[u8]>) {
        let path = self.root.join(rela);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Write a file and stage it as executable (the work-tree file gets the bit too on unix).
    pub fn write_executable(&self, rela: &str, bytes: impl AsRef<[u8]>) {
        self.write(rela, bytes);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let perms = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(self.root.join(rela), perms).unwrap();
        }
        self.git(&["add", "--", rela]);
        self.git(&["update-index", "--chmod=+x", "--", rela]);
    }

    /// Write, add and commit one file; return the new commit.
    pub fn commit_file(&self, rela: &str, bytes: impl AsRef<[u8]>, message: &str) -> ObjectId {
        self.write(rela, bytes);
        self.git(&["add", "--", rela]);
        self.git(&["commit", "-q", "-m", message]);
        self.rev("HEAD")
    }

    /// `git rev-parse --verify` of `spec`.
    pub fn rev(&self, spec: &str) -> ObjectId {
        let hex = self.git(&["rev-parse", "--verify", spec]);
        ObjectId::from_hex(hex.trim().as_bytes()).expect("git printed an object id")
    }

    /// `git fsck --strict` must be clean (no errors, no warnings).
    pub fn assert_fsck_clean(&self) {
        let out = self.git_output(&["fsck", "--strict", "--no-progress", "--no-dangling"], None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stderr.trim().is_empty() && stdout.trim().is_empty(),
            "git fsck --strict complained:\n{stdout}\n{stderr}"
        );
    }
}

/// Keep the machine's configuration and environment away from `cmd`.
pub fn isolate(cmd: &mut Command, home: &Path) {
    for var in LEAKY_VARS {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("LC_ALL", "C");
}

/// Run `cmd`, feeding `stdin` when given.
pub fn run(mut cmd: Command, stdin: Option<&[u8]>) -> Output {
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("git runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // Write from a thread so a large input cannot deadlock against a full stdout pipe.
        let writer = std::thread::spawn(move || pipe.write_all(&bytes));
        let out = child.wait_with_output().expect("git finishes");
        writer.join().unwrap().expect("stdin written");
        return out;
    }
    child.wait_with_output().expect("git finishes")
}
