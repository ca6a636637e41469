//! Why an SSH key cannot be used or an SSH signature could not be made.

use std::path::PathBuf;

use crate::model::shown::{one_line_path, shell_word};

use crate::sign::KeySetting;

/// Why an SSH key cannot be used or an SSH signature could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SshSignError {
    /// The key file could not be read.
    #[error("cannot read the SSH key {}: {source}; check {setting}", one_line_path(path))]
    Unreadable {
        /// The key file.
        path: PathBuf,
        /// Where the key was named.
        setting: KeySetting,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file is not an SSH key we can use.
    #[error(
        "{} is not a usable SSH key ({reason}); point {setting} at an OpenSSH private key such as ~/.ssh/id_ed25519, or at its .pub file when the key is in ssh-agent",
        one_line_path(path)
    )]
    NotAKey {
        /// The file.
        path: PathBuf,
        /// Where the key was named.
        setting: KeySetting,
        /// What is wrong with it.
        reason: String,
    },
    /// A passphrase-protected key and no agent to sign with it.
    #[error(
        "{} is passphrase-protected and no ssh-agent is reachable (SSH_AUTH_SOCK is not set); start ssh-agent and run `ssh-add {}`",
        one_line_path(path),
        shell_word(&path.to_string_lossy())
    )]
    EncryptedWithoutAgent {
        /// The key file.
        path: PathBuf,
    },
    /// A `key::` literal and no agent to sign with it.
    #[error(
        "the signing key {keyid} is given as a public key only, and no ssh-agent is reachable (SSH_AUTH_SOCK is not set); start ssh-agent and `ssh-add` the private key"
    )]
    AgentNeeded {
        /// The key's fingerprint.
        keyid: String,
    },
    /// A legacy PEM private key without its public key beside it.
    #[error(
        "{} is a PEM private key, and {}.pub is missing; convert the key with `ssh-keygen -p -f {}` or put its public key beside it",
        one_line_path(path),
        one_line_path(path),
        shell_word(&path.to_string_lossy())
    )]
    LegacyWithoutPublicKey {
        /// The key file.
        path: PathBuf,
    },
    /// The `key::` literal (or bare `ssh-…` key) does not decode.
    #[error(
        "the signing key literal given as {setting} is not an OpenSSH public key ({reason}); {}", setting.advise("`key::ssh-ed25519 AAAA… comment`")
    )]
    BadLiteral {
        /// Where the key was named.
        setting: KeySetting,
        /// What is wrong.
        reason: String,
    },
    /// A `~` that cannot be expanded.
    #[error("cannot expand `{path}` ({setting}): {reason}; {}", setting.advise("an absolute path"))]
    Tilde {
        /// Where the key was named.
        setting: KeySetting,
        /// The path as configured.
        path: String,
        /// Why not.
        reason: &'static str,
    },
    /// `ssh-keygen` exists but could not be started.
    #[error("cannot run `{program}`: {source}; check that it is an executable ssh-keygen (gpg.ssh.program)")]
    ToolStart {
        /// The program.
        program: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// `ssh-keygen` ran and failed.
    #[error("`{program} -Y sign` failed ({status}): {stderr}{hint}")]
    ToolFailed {
        /// The program.
        program: String,
        /// Its exit status.
        status: String,
        /// What it said.
        stderr: String,
        /// What to try, starting with "; " (empty when there is no advice).
        hint: String,
    },
    /// `ssh-keygen` reported success but its output is not what we asked for.
    #[error("`{program} -Y sign` produced an unusable signature: {reason}")]
    ToolOutput {
        /// The program.
        program: String,
        /// What is wrong with the output.
        reason: String,
    },
    /// ssh-key failed to sign.
    #[error("signing in-process failed: {reason}")]
    InProcess {
        /// ssh-key's reason.
        reason: String,
    },
    /// A key whose raw signatures DSSE readers do not verify (`attest export`'s summary).
    #[error(
        "the {algorithm} key {keyid} makes signatures DSSE readers (securesystemslib, slsa-verifier) cannot check: they verify raw ed25519 and ecdsa-sha2-nistp256 signatures; give such a key (`ssh-keygen -t ed25519`)"
    )]
    RawScheme {
        /// The key's algorithm, as OpenSSH names it.
        algorithm: String,
        /// The key's fingerprint.
        keyid: String,
    },
    /// A private key file only `ssh-keygen` reads, and no agent to make a raw signature with it.
    #[error(
        "{} can sign only through ssh-keygen, which makes SSH signatures, not the raw signature the verification summary needs, and no ssh-agent is reachable (SSH_AUTH_SOCK is not set); load it into ssh-agent with `ssh-add {}` and run again, or convert it with `ssh-keygen -p -f {}`",
        one_line_path(path),
        shell_word(&path.to_string_lossy()),
        shell_word(&path.to_string_lossy())
    )]
    RawNeedsAgent {
        /// The key file.
        path: std::path::PathBuf,
    },
    /// The ssh-agent could not be reached, or did not sign.
    #[error(
        "the ssh-agent at {} did not sign with {keyid}: {reason}; check that it holds the key (`ssh-add -l`)",
        one_line_path(socket)
    )]
    Agent {
        /// The agent's socket.
        socket: std::path::PathBuf,
        /// The key's fingerprint.
        keyid: String,
        /// What went wrong.
        reason: String,
    },
    /// A raw signature that does not verify with the key it was asked of (an agent that signed
    /// with another key, or a key file whose halves differ).
    #[error("the raw signature made with {keyid} does not verify with that key: {reason}")]
    RawOutput {
        /// The key's fingerprint.
        keyid: String,
        /// Why not.
        reason: String,
    },
    /// A temporary file for `ssh-keygen` could not be written or read.
    #[error(
        "cannot prepare or read the files for ssh-keygen: {source}; check that the temporary directory is writable"
    )]
    Temp {
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
}
