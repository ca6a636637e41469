//! Why an OpenPGP key cannot be used or an OpenPGP signature could not be made.

use std::path::PathBuf;

use crate::model::shown::shell_word;
use crate::sign::KeySetting;

/// Why an OpenPGP key cannot be used or an OpenPGP signature could not be made.
#[derive(Debug, thiserror::Error)]
pub enum OpenPgpSignError {
    /// The key file could not be read.
    #[error("cannot read the OpenPGP key {}: {source}; check {setting}", path.display())]
    Unreadable {
        /// The key file.
        path: PathBuf,
        /// Where the key was named.
        setting: KeySetting,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file is not one OpenPGP key.
    #[error("{} is not a usable OpenPGP key ({reason}); point {setting} at a file written by `gpg --export-secret-keys --armor <fingerprint>`, or at the key's fingerprint to sign through gpg", path.display())]
    NotAKey {
        /// The file.
        path: PathBuf,
        /// Where the key was named.
        setting: KeySetting,
        /// What is wrong with it.
        reason: String,
    },
    /// The key file has no key that may sign now.
    #[error("{} has no key that can sign now: {reason}; extend or replace the key, or add a signing subkey (`gpg --quick-add-key <fingerprint> ed25519 sign`) and export it again", path.display())]
    NoUsableKey {
        /// The file.
        path: PathBuf,
        /// What rules each key out.
        reason: String,
    },
    /// The signing key is passphrase-protected and no passphrase was given.
    #[error("{} is passphrase-protected; import it into gpg (`gpg --import {}`) and {} so that gpg-agent unlocks it, or put the passphrase in SPECCODER_PGP_PASSPHRASE", path.display(), shell_word(&path.to_string_lossy()), setting.advise("its fingerprint"))]
    Encrypted {
        /// The key file.
        path: PathBuf,
        /// Where the key was named.
        setting: KeySetting,
    },
    /// The passphrase does not unlock the signing key.
    #[error("the passphrase in SPECCODER_PGP_PASSPHRASE does not unlock {} ({reason}); correct it, or sign through gpg: import the key (`gpg --import {}`) and {}", path.display(), shell_word(&path.to_string_lossy()), setting.advise("its fingerprint"))]
    WrongPassphrase {
        /// The key file.
        path: PathBuf,
        /// Where the key was named.
        setting: KeySetting,
        /// sequoia's reason (also given for a smartcard stub, which has no secret to unlock).
        reason: String,
    },
    /// The key is not a v4 key, so its signatures would not be v4.
    #[error("{} holds a v{version} key, whose signatures gpg 2.2 cannot read; use a v4 key (gpg 2.2 makes them)", path.display())]
    NotV4 {
        /// The key file.
        path: PathBuf,
        /// The key version found.
        version: u8,
    },
    /// sequoia failed to sign.
    #[error("signing in-process failed: {reason}")]
    InProcess {
        /// sequoia's reason.
        reason: String,
    },
    /// The keyring has no usable secret key for the configured key.
    #[error(
        "`{program}` has no usable secret key for {setting} `{key}`: {reason}; list the keys with `gpg --list-secret-keys` and {}", setting.advise("one fingerprint")
    )]
    NotInKeyring {
        /// The key as configured.
        key: String,
        /// Where the key was named.
        setting: KeySetting,
        /// The program.
        program: String,
        /// What gpg found instead.
        reason: String,
    },
    /// The configured key names more than one secret key.
    #[error("{setting} `{key}` matches {} secret keys in the keyring ({}); {}", fingerprints.len(), fingerprints.join(", "), setting.advise("the fingerprint of the one to sign with"))]
    Ambiguous {
        /// The key as configured.
        key: String,
        /// Where the key was named.
        setting: KeySetting,
        /// The primary key fingerprints of the matches.
        fingerprints: Vec<String>,
    },
    /// gpg exists but could not be started.
    #[error("cannot run `{program}`: {source}; check that it is an executable gpg (gpg.program)")]
    GpgStart {
        /// The program.
        program: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// gpg ran and failed to sign.
    #[error("`{program} --detach-sign` failed ({status}): {stderr}{hint}")]
    GpgFailed {
        /// The program.
        program: String,
        /// Its exit status.
        status: String,
        /// What it said.
        stderr: String,
        /// What to try, starting with "; " (empty when there is no advice).
        hint: String,
    },
    /// gpg reported success but its output is not what we asked for.
    #[error("`{program}` produced unusable output: {reason}")]
    GpgOutput {
        /// The program.
        program: String,
        /// What is wrong with the output.
        reason: String,
    },
    /// A temporary file for gpg could not be written.
    #[error("cannot prepare the data file for gpg: {source}; check that the temporary directory is writable")]
    Temp {
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
}
