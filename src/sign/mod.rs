//! Signers and verifiers, one folder per backend. Every backend signs the DSSE PAE bytes it is
//! given and returns the bytes that go, base64-encoded, into an envelope signature's `sig`.
//!
//! SSH ([`ssh`]): [`ssh::SshSigner`] signs (in-process for ed25519 and P-256, through
//! `ssh-keygen -Y sign` for RSA, agent-held and other keys); [`ssh::verify::verify`] checks
//! in-process against an [`ssh::allowed_signers::AllowedSigners`] file and
//! [`ssh::revoked_keys::RevokedKeys`]; [`ssh::keygen::SshKeygen`] checks the same through the real
//! `ssh-keygen`.
//!
//! OpenPGP ([`openpgp`]): [`openpgp::OpenPgpSigner`] signs (in-process from a secret key file,
//! through `gpg` for keyring-held keys); [`openpgp::verify`] checks in-process against
//! [`openpgp::OpenPgpCerts`]; [`openpgp::Sqv`] checks the same through the real `sqv`.
//!
//! Sigstore (cargo feature `sigstore`): `sigstore::SigstoreSigner` signs keylessly and returns
//! the bundle for the envelope's `sigstore` field; `sigstore::verify` checks a bundle offline
//! against a trusted root and the caller's identity. Without the feature, Sigstore lines are
//! `tool_missing` with [`SIGSTORE_MISSING_REASON`].
//!
//! The [`Signer`] trait and [`SignError`] live here; each backend's signing error lives in a file
//! of its own (`ssh/error.rs`, `openpgp/error.rs`), so that this file, which names those errors,
//! and the backends' signers, which implement the trait, do not import each other.

pub mod openpgp;
#[cfg(feature = "sigstore")]
pub mod sigstore;
pub mod ssh;

mod tool;

pub use openpgp::error::OpenPgpSignError;
pub use ssh::error::SshSignError;
pub use tool::ViaToolError;

/// Whether this build can sign and verify Sigstore bundles.
pub const SIGSTORE_COMPILED: bool = cfg!(feature = "sigstore");

/// Why a Sigstore line cannot be checked by a build without the `sigstore` feature.
pub const SIGSTORE_MISSING_REASON: &str = "a Sigstore signature, but this speccoder was built without Sigstore support (cargo feature `sigstore`); rebuild with default features to check it";

/// A way of signing statements: one configured key of one backend.
pub trait Signer {
    /// The backend, which decides how a reader tells the signature's kind.
    fn kind(&self) -> SignerKind;
    /// The envelope's `keyid` hint (for SSH, the key's `SHA256:` fingerprint).
    fn keyid(&self) -> String;
    /// One line for the user, e.g. `ssh ed25519 SHA256:… (key file ~/.ssh/id_ed25519)`.
    fn describe(&self) -> String;
    /// Signs the DSSE PAE bytes; the result is what goes base64-encoded into `sig`.
    fn sign(&self, pae: &[u8]) -> Result<Vec<u8>, SignError>;
    /// Signs a commit object's bytes (without a `gpgsig` header) as `git commit -S` does with
    /// this key; the result is the armored signature for the commit's `gpgsig` header.
    ///
    /// # Errors
    /// The signature cannot be made; a backend that cannot sign commits says so.
    fn sign_git_commit(&self, commit: &[u8]) -> Result<String, SignError> {
        let _ = commit;
        Err(SignError::CannotSign(format!("{} cannot sign git commits", self.describe())))
    }
    /// The Sigstore bundle of the last signature, for the envelope's `sigstore` field (only the
    /// Sigstore backend has one).
    fn take_bundle(&self) -> Option<serde_json::Value> {
        None
    }
    /// Whether the backend signs only the line that names the others (the summary): true for
    /// Sigstore, whose keyless signature costs one login each.
    fn signs_summary_only(&self) -> bool {
        false
    }
    /// The public half of the signing key, to tell this signer's own signatures from others'
    /// (`attest sign`); for a keyless signer, which has no key of its own, the trust its bundles
    /// verify under ([`OwnKey::Sigstore`]); `None` for a signer that tells none.
    ///
    /// # Errors
    /// The key cannot be looked up (gpg cannot resolve a keyring key), or a keyless signer's
    /// trusted root cannot be had.
    fn own_key(&self) -> Result<Option<OwnKey>, SignError> {
        Ok(None)
    }
}

/// The public half of a signer's key: what its own signatures verify with.
#[derive(Clone, Debug)]
pub enum OwnKey {
    /// An SSH key.
    Ssh {
        /// The public key (the certified key, for a certificate).
        key: ssh_key::PublicKey,
        /// The certificate the signer signs with, as its blob, when it signs with one: its
        /// signatures carry it, and only a signature made with exactly this certificate is the
        /// signer's own, as an allowed-signers line naming a certificate trusts only that one.
        certificate: Option<Vec<u8>>,
    },
    /// The signer's OpenPGP certificate, secret material removed.
    OpenPgp(openpgp::OpenPgpCerts),
    /// A keyless signer's: the trusted root it signs under, trusting whoever a CA of it certified
    /// (the signer's own identity is told only when it signs). A line holds one bundle, so this
    /// tells a bundle that verifies from one that does not, never whose it is.
    #[cfg(feature = "sigstore")]
    Sigstore(sigstore::SigstoreTrust),
}

/// The signing backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignerKind {
    /// SSHSIG, namespace `in-toto`, sha512, armored.
    Ssh,
    /// An armored OpenPGP detached signature.
    OpenPgp,
    /// A Sigstore bundle.
    Sigstore,
}

/// A signing key or program as configured (`user.signingKey`, `--key`, `gpg.program`,
/// `gpg.ssh.program`): `None` when unset or blank; text trimmed, a path that is not UTF-8 as it is
/// (git signs with the file it names).
pub(crate) fn configured(value: Option<&std::ffi::OsStr>) -> Option<&std::ffi::OsStr> {
    let value = value?;
    match value.to_str() {
        Some(text) => Some(std::ffi::OsStr::new(text.trim())).filter(|t| !t.is_empty()),
        None => Some(value),
    }
}

/// Where the signing key was named, so that advice about a key that cannot be used names the
/// place to fix it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySetting {
    /// git's `user.signingKey` (where a signer built from git's configuration finds it).
    GitConfig,
    /// The command's `--key`.
    Flag,
    /// `attest export --vsa-key`: the key of the verification summary.
    VsaKey,
}

impl KeySetting {
    /// Advice to name `what` as the signing key in this place: `set user.signingKey to …`, or
    /// `give --key …`.
    #[must_use]
    pub fn advise(self, what: &str) -> String {
        match self {
            KeySetting::GitConfig => format!("set user.signingKey to {what}"),
            KeySetting::Flag => format!("give --key {what}"),
            KeySetting::VsaKey => format!("give --vsa-key {what}"),
        }
    }
}

impl std::fmt::Display for KeySetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KeySetting::GitConfig => "user.signingKey",
            KeySetting::Flag => "--key",
            KeySetting::VsaKey => "--vsa-key",
        })
    }
}

/// Why a signature could not be made; the message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    /// No key is configured for signing.
    #[error("no signing key configured: {hint}")]
    NoKeyConfigured {
        /// How to configure one.
        hint: String,
    },
    /// A signature was asked for (by name, or by a configured key) and this configuration
    /// cannot make one; the text says why and what to do.
    #[error("{0}")]
    CannotSign(String),
    /// A Sigstore signer signed but left no bundle for the envelope (a bug of ours).
    #[error("{signer} made no Sigstore bundle")]
    NoBundle {
        /// The signer, as [`Signer::describe`] names it.
        signer: String,
    },
    /// The Sigstore bundle made cannot be written into the envelope as JSON (a bug of ours).
    #[error("the Sigstore bundle cannot be written as JSON: {0}")]
    BundleEncode(#[source] serde_json::Error),
    /// The program we sign through is not installed.
    #[error("`{program}` was not found; install it or configure its path")]
    ToolMissing {
        /// The program as we tried to run it.
        program: String,
    },
    /// An SSH key or SSH signing problem.
    #[error(transparent)]
    Ssh(#[from] SshSignError),
    /// An OpenPGP key or OpenPGP signing problem.
    #[error(transparent)]
    OpenPgp(#[from] OpenPgpSignError),
    /// A keyless Sigstore signing problem.
    #[cfg(feature = "sigstore")]
    #[error(transparent)]
    Sigstore(#[from] sigstore::SigstoreSignError),
}

impl crate::exit::ExitClass for SignError {
    /// A key or signer that cannot sign is the configuration's to fix; a bundle lost or not
    /// encodable after signing is ours.
    fn class(&self) -> crate::exit::Class {
        match self {
            SignError::NoBundle { .. } | SignError::BundleEncode(_) => crate::exit::Class::Internal,
            SignError::NoKeyConfigured { .. }
            | SignError::CannotSign(_)
            | SignError::ToolMissing { .. }
            | SignError::Ssh(_)
            | SignError::OpenPgp(_) => crate::exit::Class::Config,
            #[cfg(feature = "sigstore")]
            SignError::Sigstore(_) => crate::exit::Class::Config,
        }
    }
}

impl SignError {
    /// This error with its advice naming `to` as where the key was given (`--key` or
    /// `user.signingKey`): the signers' constructors make their errors naming `user.signingKey`,
    /// and a signer built for a key from elsewhere renames them with this.
    #[must_use]
    pub fn key_named_by(mut self, to: KeySetting) -> Self {
        match &mut self {
            SignError::Ssh(
                SshSignError::Unreadable { setting, .. }
                | SshSignError::NotAKey { setting, .. }
                | SshSignError::BadLiteral { setting, .. }
                | SshSignError::Tilde { setting, .. },
            )
            | SignError::OpenPgp(
                OpenPgpSignError::Unreadable { setting, .. }
                | OpenPgpSignError::NotAKey { setting, .. }
                | OpenPgpSignError::Encrypted { setting, .. }
                | OpenPgpSignError::WrongPassphrase { setting, .. }
                | OpenPgpSignError::NotInKeyring { setting, .. }
                | OpenPgpSignError::Ambiguous { setting, .. },
            ) => *setting = to,
            _ => {}
        }
        self
    }
}
