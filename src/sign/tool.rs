//! Running an external program (`ssh-keygen`, `gpg`, `sqv`) with captured output, never a shell,
//! never a prompt on our stdin. A program that cannot be found is its own error, so that it is
//! never a pass; [`SignatureTool`] turns that into a verifier's `ToolMissing`.

use std::ffi::{OsStr, OsString};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The default SSH tool, as git's `gpg.ssh.program` defaults to it.
pub const SSH_KEYGEN: &str = "ssh-keygen";

/// Why a program could not be run at all.
#[derive(Debug)]
pub enum ToolError {
    /// The program is not installed (or not on `PATH`).
    Missing(String),
    /// It exists but could not be started or waited for.
    Io(String, std::io::Error),
}

/// Why a signature checked by an external program (`ssh-keygen`, `sqv`) did not verify: the
/// program's own rejection `R`, or a program that gave no answer, which is never a pass.
#[derive(Debug, thiserror::Error)]
pub enum ViaToolError<R: std::error::Error + 'static> {
    /// The program is not installed: nothing was checked.
    #[error(
        "`{program}` was not found, so no {what} signature was checked; install {install} or verify without --via-tools"
    )]
    ToolMissing {
        /// The program as we tried to run it.
        program: String,
        /// The kind of signature it checks (`SSH`, `OpenPGP`).
        what: &'static str,
        /// What to install.
        install: &'static str,
    },
    /// The program checked and rejected the signature.
    #[error(transparent)]
    Rejected(#[from] R),
    /// The program could not be used (it failed in a way that says nothing about the signature).
    #[error("`{program}` could not check the signature: {reason}")]
    Tool {
        /// The program.
        program: String,
        /// What went wrong.
        reason: String,
    },
    /// The program and this verifier's own reading of the same trust file differ on who signed:
    /// the signature counts for no one.
    #[error(
        "`{program}` and this verifier read the trust file differently, so the signature is not counted: {reason}; look at the lines of the trust file that name the key, or verify without --via-tools for this verifier's own verdict"
    )]
    Disagrees {
        /// The program.
        program: String,
        /// Each difference.
        reason: String,
    },
}

/// What sets one signature-checking program apart: its usual name, what it checks, what a user
/// installs to get it, and the rejection it reports.
pub trait ToolKind {
    /// Why the program rejected a signature.
    type Rejection: std::error::Error + 'static;
    /// The program's usual name on `PATH`.
    const PROGRAM: &'static str;
    /// The kind of signature it checks (`SSH`, `OpenPGP`).
    const CHECKS: &'static str;
    /// What to install to get it.
    const INSTALL: &'static str;
}

/// OpenSSH's `ssh-keygen`, checking SSH signatures.
#[derive(Clone, Copy, Debug)]
pub enum SshKeygenKind {}

impl ToolKind for SshKeygenKind {
    type Rejection = crate::sign::ssh::verify::SshVerifyError;
    const PROGRAM: &'static str = SSH_KEYGEN;
    const CHECKS: &'static str = "SSH";
    const INSTALL: &'static str = "OpenSSH's ssh-keygen (8.9 or newer)";
}

/// Sequoia's `sqv`, checking OpenPGP signatures.
#[derive(Clone, Copy, Debug)]
pub enum SqvKind {}

impl ToolKind for SqvKind {
    type Rejection = crate::sign::openpgp::OpenPgpVerifyError;
    const PROGRAM: &'static str = "sqv";
    const CHECKS: &'static str = "OpenPGP";
    const INSTALL: &'static str = "sqv (Debian/Ubuntu package `sqv`)";
}

/// A program of kind `K` that checks signatures: how to run it, and what to tell a user who does
/// not have it. The checks themselves are `impl SignatureTool<SqvKind>` (`Sqv`) and
/// `impl SignatureTool<SshKeygenKind>` (`SshKeygen`).
#[derive(Clone, Debug)]
pub struct SignatureTool<K> {
    program: OsString,
    kind: PhantomData<K>,
}

impl<K: ToolKind> Default for SignatureTool<K> {
    fn default() -> Self {
        Self::at(K::PROGRAM)
    }
}

impl<K: ToolKind> SignatureTool<K> {
    /// The program at `program`: a name on `PATH`, or a path.
    pub fn at(program: impl Into<OsString>) -> Self {
        Self { program: program.into(), kind: PhantomData }
    }

    /// A new invocation of the program.
    pub fn command(&self) -> Run<'_> {
        Run::new(&self.program)
    }

    /// Runs `run` to completion.
    ///
    /// # Errors
    /// [`ViaToolError::ToolMissing`] when the program is not installed, else
    /// [`ViaToolError::Tool`] when it cannot be started.
    pub fn output(&self, run: Run<'_>) -> Result<Output, ViaToolError<K::Rejection>> {
        run.output().map_err(|e| match e {
            ToolError::Missing(program) => {
                ViaToolError::ToolMissing { program, what: K::CHECKS, install: K::INSTALL }
            }
            ToolError::Io(_, source) => self.fail(format!("cannot run it: {source}")),
        })
    }

    /// The program could not be used, for `reason`.
    pub fn fail(&self, reason: String) -> ViaToolError<K::Rejection> {
        ViaToolError::Tool { program: self.program.to_string_lossy().into_owned(), reason }
    }

    /// The program and this verifier's reading of the trust differ, as `reason` says.
    pub fn disagrees(&self, reason: String) -> ViaToolError<K::Rejection> {
        ViaToolError::Disagrees { program: self.program.to_string_lossy().into_owned(), reason }
    }
}

/// A signature and the bytes it signs, written to files in a temporary directory for a program
/// that reads them from files; the directory goes when this is dropped.
pub struct SignedFiles {
    /// The signature file.
    pub signature: PathBuf,
    /// The signed bytes.
    pub message: PathBuf,
    dir: tempfile::TempDir,
}

impl SignedFiles {
    /// Writes `signature` and `message` into a new temporary directory.
    ///
    /// # Errors
    /// What could not be created or written.
    pub fn write(signature: &[u8], message: &[u8]) -> Result<Self, TempFilesError> {
        let dir = tempfile::tempdir().map_err(TempFilesError::Dir)?;
        let files =
            Self { signature: dir.path().join("signature"), message: dir.path().join("message"), dir };
        std::fs::write(&files.signature, signature)
            .and_then(|()| std::fs::write(&files.message, message))
            .map_err(TempFilesError::Write)?;
        Ok(files)
    }

    /// The temporary directory, for further files the program needs.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// Why the files a verifying program reads could not be written.
#[derive(Debug, thiserror::Error)]
pub enum TempFilesError {
    /// The temporary directory cannot be created.
    #[error("cannot create a temporary directory: {0}")]
    Dir(std::io::Error),
    /// A file cannot be written.
    #[error("cannot write temporary files: {0}")]
    Write(std::io::Error),
}

/// Which ssh-agent a child talks to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Agent {
    /// Whatever `SSH_AUTH_SOCK` this process has.
    #[default]
    Inherit,
    /// The agent listening at this socket.
    At(PathBuf),
    /// None: `SSH_AUTH_SOCK` is removed for the child.
    Off,
}

impl Agent {
    /// The socket a child would use, if any.
    pub fn socket(&self) -> Option<PathBuf> {
        match self {
            Self::Inherit => std::env::var_os("SSH_AUTH_SOCK").filter(|s| !s.is_empty()).map(PathBuf::from),
            Self::At(p) => Some(p.clone()),
            Self::Off => None,
        }
    }
}

/// One program invocation being assembled.
pub struct Run<'a> {
    program: &'a OsStr,
    args: Vec<OsString>,
    stdin: Option<&'a Path>,
    agent: Option<&'a Agent>,
}

impl<'a> Run<'a> {
    /// Starts an invocation of `program`.
    pub fn new(program: &'a OsStr) -> Self {
        Self { program, args: Vec::new(), stdin: None, agent: None }
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Feeds the file at `path` on stdin (otherwise stdin is empty).
    pub fn stdin_file(mut self, path: &'a Path) -> Self {
        self.stdin = Some(path);
        self
    }

    /// Chooses the child's ssh-agent (otherwise `SSH_AUTH_SOCK` is inherited).
    pub fn agent(mut self, agent: &'a Agent) -> Self {
        self.agent = Some(agent);
        self
    }

    /// Runs to completion and returns status and captured output.
    pub fn output(self) -> Result<Output, ToolError> {
        let name = self.program.to_string_lossy().into_owned();
        let stdin = match self.stdin {
            Some(path) => Stdio::from(std::fs::File::open(path).map_err(|e| ToolError::Io(name.clone(), e))?),
            None => Stdio::null(),
        };
        let mut cmd = Command::new(self.program);
        cmd.args(&self.args).stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped());
        match self.agent {
            Some(Agent::At(socket)) => {
                cmd.env("SSH_AUTH_SOCK", socket);
            }
            Some(Agent::Off) => {
                cmd.env_remove("SSH_AUTH_SOCK");
            }
            Some(Agent::Inherit) | None => {}
        }
        cmd.output().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::Missing(name),
            _ => ToolError::Io(name, e),
        })
    }
}

/// The child's stderr as one trimmed, lossy line-joined string for messages.
pub fn stderr_text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).trim().replace('\n', "; ")
}
