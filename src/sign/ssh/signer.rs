//! The SSH signer: SSHSIG over the DSSE PAE bytes, namespace `in-toto`, sha512, armored exactly as
//! `ssh-keygen -Y sign` writes it. Ed25519 and P-256 keys from readable, unencrypted files sign
//! in-process; RSA keys, other key types, keys held only in ssh-agent and passphrase-protected
//! keys sign through `ssh-keygen -Y sign`, as git does for `gpg.format=ssh`.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use ssh_key::{Algorithm, EcdsaCurve, HashAlg, LineEnding, PrivateKey, PublicKey};

use super::error::SshSignError;
use super::private_key;
use super::sshsig::{self, NAMESPACE};

/// The SSHSIG namespace git signs and verifies commits in (`git commit -S`, `git verify-commit`).
const GIT_NAMESPACE: &str = "git";
use super::verify::{self as ssh_verify, SshVerifyError};
use crate::model::shown::shell_word;
use crate::sign::tool::{self, Agent, Run, SSH_KEYGEN, ToolError};
use crate::sign::{KeySetting, SignError, Signer, SignerKind};

/// One configured SSH signing key and how it signs.
#[derive(Clone)]
pub struct SshSigner {
    /// The public half of the signing key (the certified key when signing with a certificate).
    public: PublicKey,
    /// The certificate `ssh-keygen -Y sign` signs with (its blob), when the key file named is one:
    /// every signature carries it.
    certificate: Option<Vec<u8>>,
    how: How,
    origin: Origin,
    program: OsString,
    agent: Agent,
}

/// How signatures are made.
#[derive(Clone)]
enum How {
    /// Signed in-process with the decoded private key.
    InProcess(Box<PrivateKey>),
    /// `ssh-keygen -Y sign -f <file>`: a private key file, or a public key or certificate file
    /// whose private half is in ssh-agent or beside it.
    ToolFile(PathBuf),
    /// `ssh-keygen -Y sign -f <temporary file with the public key>`: the agent must hold the key.
    ToolAgent,
}

/// Where the key came from, for [`Signer::describe`] and for advice in errors.
#[derive(Clone)]
enum Origin {
    KeyFile(PathBuf),
    PublicKeyFile(PathBuf),
    EncryptedKeyFile(PathBuf),
    Literal,
}

impl SshSigner {
    /// A signer for the key named by `setting` (git's `user.signingKey`, or `--key`) with
    /// `gpg.ssh.program`, resolved as git does: a `key::` literal (or a deprecated bare `ssh-…`
    /// key), otherwise a path with `~` expanded. Advice about a key that cannot be used names
    /// `setting`.
    pub fn configured(
        signing_key: Option<&OsStr>,
        setting: KeySetting,
        program: Option<&OsStr>,
    ) -> Result<Self, SignError> {
        let configured = crate::sign::configured(signing_key).ok_or_else(|| SignError::NoKeyConfigured {
            hint: "set one with `git config user.signingKey ~/.ssh/id_ed25519`, or `key::<public key>` for a key held in ssh-agent".to_owned(),
        })?;
        let signer = match configured.to_str() {
            Some(text) if text.starts_with("key::") || text.starts_with("ssh-") => {
                Self::from_public_key_literal(text)
            }
            // A path, UTF-8 or not: git signs with the file it names as it is.
            _ => {
                let home = std::env::var_os("HOME").map(PathBuf::from);
                expand_tilde(configured, home.as_deref())
                    .map_err(SignError::from)
                    .and_then(|path| Self::from_key_path(&path))
            }
        }
        .map_err(|e| e.key_named_by(setting))?;
        Ok(match crate::sign::configured(program) {
            Some(p) => signer.with_program(p),
            None => signer,
        })
    }

    /// A signer from a key file: an OpenSSH private key, a legacy PEM private key with its `.pub`
    /// beside it, or a public key or certificate file (the private half in ssh-agent or beside it).
    pub fn from_key_path(path: &Path) -> Result<Self, SignError> {
        let bytes = read_key_file(path).map_err(|e| SshSignError::Unreadable {
            path: path.to_owned(),
            setting: KeySetting::GitConfig,
            source: e.into_io(),
        })?;
        let not_a_key = |reason: String| SshSignError::NotAKey {
            path: path.to_owned(),
            setting: KeySetting::GitConfig,
            reason,
        };
        let text = std::str::from_utf8(&bytes).map_err(|_| not_a_key("the file is not text".to_owned()))?;
        let trimmed = text.trim();
        let mut pub_path = path.as_os_str().to_owned();
        pub_path.push(".pub");
        let pub_path = PathBuf::from(pub_path);
        // ssh-keygen signs with the file itself, given the public key beside it.
        let through_ssh_keygen =
            |public| Self::new(public, How::ToolFile(path.to_owned()), Origin::KeyFile(path.to_owned()));
        if trimmed.starts_with("-----BEGIN OPENSSH PRIVATE KEY-----") {
            return match private_key::from_openssh(trimmed) {
                Ok(key) => Ok(Self::from_private_key(key, path)),
                // ssh-key 0.6 reads some keys OpenSSH writes as too short (a P-384 or P-521
                // scalar with a leading zero byte, which OpenSSH leaves out): ssh-keygen still
                // signs with them.
                Err(e) => match read_public_key(&pub_path) {
                    Ok(public) => Ok(through_ssh_keygen(public)),
                    Err(_) => Err(not_a_key(format!(
                        "{e}; if ssh-keygen can read it, put its public key beside it as {} and ssh-keygen will sign with it",
                        pub_path.display()
                    ))
                    .into()),
                },
            };
        }
        if trimmed.starts_with("-----BEGIN ") && trimmed.contains("PRIVATE KEY-----") {
            let public = read_public_key(&pub_path)
                .map_err(|_| SshSignError::LegacyWithoutPublicKey { path: path.to_owned() })?;
            return Ok(through_ssh_keygen(public));
        }
        let (public, certificate) = parse_public_key(trimmed).map_err(|e| not_a_key(e.to_string()))?;
        if let Some(private) = private_beside(path, &public) {
            return Ok(Self::from_private_key(private, &path.with_extension("")));
        }
        let signer =
            Self::new(public, How::ToolFile(path.to_owned()), Origin::PublicKeyFile(path.to_owned()));
        Ok(Self { certificate, ..signer })
    }

    /// A signer for a key held in ssh-agent, given as `key::ssh-ed25519 AAAA… comment` (the
    /// `key::` prefix is optional).
    pub fn from_public_key_literal(literal: &str) -> Result<Self, SignError> {
        let text = literal.trim();
        let text = text.strip_prefix("key::").unwrap_or(text).trim();
        if sshsig::is_certificate_line(text) {
            return Err(SshSignError::BadLiteral {
                setting: KeySetting::GitConfig,
                reason: "a certificate cannot be given inline; name the certificate file instead".to_owned(),
            }
            .into());
        }
        let (public, _) = parse_public_key(text).map_err(|e| SshSignError::BadLiteral {
            setting: KeySetting::GitConfig,
            reason: e.to_string(),
        })?;
        Ok(Self::new(public, How::ToolAgent, Origin::Literal))
    }

    /// Uses `program` instead of `ssh-keygen` (git's `gpg.ssh.program`).
    #[must_use]
    pub fn with_program(mut self, program: impl Into<OsString>) -> Self {
        self.program = program.into();
        self
    }

    /// Talks to the ssh-agent at `socket` instead of the inherited `SSH_AUTH_SOCK`.
    #[must_use]
    pub fn with_agent_socket(mut self, socket: impl Into<PathBuf>) -> Self {
        self.agent = Agent::At(socket.into());
        self
    }

    /// Never uses an ssh-agent, even when `SSH_AUTH_SOCK` is set.
    #[must_use]
    pub fn without_agent(mut self) -> Self {
        self.agent = Agent::Off;
        self
    }

    /// The public half of the signing key.
    #[must_use]
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Whether signatures are made in-process (otherwise through `ssh-keygen`).
    #[must_use]
    pub fn signs_in_process(&self) -> bool {
        matches!(self.how, How::InProcess(_))
    }

    /// A raw signature of `message` ([`super::raw`]: Ed25519's bytes, or ECDSA P-256's as DER),
    /// not an SSHSIG: made in-process from a key file ssh-key reads, else by the ssh-agent that
    /// holds the key (a `.pub` file or `key::` literal, a passphrase-protected key, a key file only
    /// ssh-keygen reads). Verified with the key before it is returned.
    ///
    /// # Errors
    /// A key other than ed25519 or P-256, no agent to sign through, an agent that does not sign,
    /// or a signature that does not verify.
    pub fn sign_raw(&self, message: &[u8]) -> Result<Vec<u8>, SignError> {
        super::raw::check_scheme(&self.public)?;
        let sig = match &self.how {
            How::InProcess(key) => ssh_signature::Signer::try_sign(key.as_ref(), message)
                .map_err(|e| SshSignError::InProcess { reason: e.to_string() })?,
            How::ToolFile(_) | How::ToolAgent => {
                let socket = self.agent.socket().ok_or_else(|| match &self.origin {
                    Origin::EncryptedKeyFile(path) => {
                        SshSignError::EncryptedWithoutAgent { path: path.clone() }
                    }
                    Origin::KeyFile(path) => SshSignError::RawNeedsAgent { path: path.clone() },
                    Origin::PublicKeyFile(_) | Origin::Literal => {
                        SshSignError::AgentNeeded { keyid: self.keyid() }
                    }
                })?;
                super::raw::agent_sign(&socket, &self.public, message)?
            }
        };
        Ok(super::raw::to_raw(&self.public, message, &sig)?)
    }

    /// The signing key as a SubjectPublicKeyInfo PEM, the form DSSE readers take a public key in.
    ///
    /// # Errors
    /// A key other than ed25519 or P-256.
    pub fn public_key_pem(&self) -> Result<String, SignError> {
        Ok(super::raw::spki_pem(&self.public)?)
    }

    fn new(public: PublicKey, how: How, origin: Origin) -> Self {
        Self {
            public,
            certificate: None,
            how,
            origin,
            program: OsString::from(SSH_KEYGEN),
            agent: Agent::Inherit,
        }
    }

    fn from_private_key(key: PrivateKey, path: &Path) -> Self {
        let public = key.public_key().clone();
        let path = path.to_owned();
        if key.is_encrypted() {
            Self::new(public, How::ToolAgent, Origin::EncryptedKeyFile(path))
        } else if signs_in_process(&key) {
            Self::new(public, How::InProcess(Box::new(key)), Origin::KeyFile(path))
        } else {
            Self::new(public, How::ToolFile(path.clone()), Origin::KeyFile(path))
        }
    }

    /// The armored SSHSIG of `message` under `namespace` (`in-toto` for statements, `git` for
    /// commits), made by the key itself or through `ssh-keygen -Y sign`.
    fn sign_in_namespace(&self, namespace: &str, message: &[u8]) -> Result<Vec<u8>, SignError> {
        match &self.how {
            How::InProcess(key) => Ok(Self::sign_in_process(key, namespace, message)?),
            How::ToolFile(_) | How::ToolAgent => self.sign_with_tool(namespace, message),
        }
    }

    fn sign_in_process(key: &PrivateKey, namespace: &str, pae: &[u8]) -> Result<Vec<u8>, SshSignError> {
        let in_process = |e: ssh_key::Error| SshSignError::InProcess { reason: e.to_string() };
        let sig = key.sign(namespace, HashAlg::Sha512, pae).map_err(in_process)?;
        let mut armored = sig.to_pem(LineEnding::LF).map_err(in_process)?;
        if !armored.ends_with('\n') {
            armored.push('\n');
        }
        Ok(armored.into_bytes())
    }

    fn sign_with_tool(&self, namespace: &str, pae: &[u8]) -> Result<Vec<u8>, SignError> {
        let dir = tempfile::tempdir().map_err(|source| SshSignError::Temp { source })?;
        let key_file = match &self.how {
            How::ToolFile(path) => path.clone(),
            _ => {
                if self.agent.socket().is_none() {
                    return Err(match &self.origin {
                        Origin::EncryptedKeyFile(path) => {
                            SshSignError::EncryptedWithoutAgent { path: path.clone() }
                        }
                        _ => SshSignError::AgentNeeded { keyid: self.keyid() },
                    }
                    .into());
                }
                // No private key sits beside this file, so ssh-keygen uses the agent or fails; it
                // never prompts for a passphrase.
                let file = dir.path().join("signing-key.pub");
                let line = self
                    .public
                    .to_openssh()
                    .map_err(|e| SshSignError::InProcess { reason: e.to_string() })?;
                std::fs::write(&file, line + "\n").map_err(|source| SshSignError::Temp { source })?;
                file
            }
        };
        let message = dir.path().join("pae");
        std::fs::write(&message, pae).map_err(|source| SshSignError::Temp { source })?;
        let output = Run::new(&self.program)
            .args(["-Y", "sign", "-n", namespace, "-f"])
            .args([key_file.as_os_str(), message.as_os_str()])
            .agent(&self.agent)
            .output()
            .map_err(|e| match e {
                ToolError::Missing(program) => SignError::ToolMissing { program },
                ToolError::Io(program, source) => SshSignError::ToolStart { program, source }.into(),
            })?;
        if !output.status.success() {
            return Err(SshSignError::ToolFailed {
                program: self.program_name(),
                status: output.status.to_string(),
                stderr: tool::stderr_text(&output),
                hint: self.agent_hint(),
            }
            .into());
        }
        let mut sig_file = message.into_os_string();
        sig_file.push(".sig");
        let armored = std::fs::read(&sig_file).map_err(|source| SshSignError::Temp { source })?;
        self.check_tool_output(&armored, namespace, pae)?;
        Ok(armored)
    }

    /// Refuses tool output that is not a sha512 signature by our key over `pae` in `namespace`.
    fn check_tool_output(&self, armored: &[u8], namespace: &str, pae: &[u8]) -> Result<(), SshSignError> {
        let fail = |reason: String| SshSignError::ToolOutput { program: self.program_name(), reason };
        let sig = match sshsig::parse_armored(armored) {
            Ok(sig) => sig,
            // What we cannot decode (a "forever" certificate) we cannot second-guess either.
            Err(sshsig::DecodeError::Unsupported(_)) => return Ok(()),
            Err(sshsig::DecodeError::Malformed(reason)) => return Err(fail(reason)),
        };
        if sig.hash_alg != "sha512" {
            return Err(fail(format!("it used hash {} instead of sha512", sig.hash_alg.escape_debug())));
        }
        let signed_by = sig.signer.signing_key();
        if signed_by != self.public.key_data() {
            return Err(fail(format!(
                "it signed with {} instead of {}",
                ssh_verify::fingerprint(signed_by),
                self.keyid()
            )));
        }
        match ssh_verify::check_signature(&sig, pae, namespace) {
            Ok(()) | Err(SshVerifyError::Unsupported { .. }) => Ok(()),
            Err(e) => Err(fail(e.to_string())),
        }
    }

    fn program_name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    fn agent_hint(&self) -> String {
        match &self.origin {
            Origin::EncryptedKeyFile(path) => {
                format!(
                    "; the key is passphrase-protected: load it into ssh-agent with `ssh-add {}`",
                    shell_word(&path.to_string_lossy())
                )
            }
            Origin::Literal => "; load the private key into ssh-agent with `ssh-add`".to_owned(),
            Origin::PublicKeyFile(path) => format!(
                "; load the private key of {} into ssh-agent with `ssh-add`, or put it beside the .pub file",
                path.display()
            ),
            Origin::KeyFile(_) => String::new(),
        }
    }
}

impl Signer for SshSigner {
    fn kind(&self) -> SignerKind {
        SignerKind::Ssh
    }

    fn keyid(&self) -> String {
        ssh_verify::fingerprint(self.public.key_data())
    }

    fn describe(&self) -> String {
        let through = match self.how {
            How::InProcess(_) => String::new(),
            _ => format!(", signed by {}", self.program_name()),
        };
        let origin = match &self.origin {
            Origin::KeyFile(p) => format!("key file {}", p.display()),
            Origin::PublicKeyFile(p) => {
                format!("public key file {}, private key from ssh-agent or beside it", p.display())
            }
            Origin::EncryptedKeyFile(p) => {
                format!("passphrase-protected key file {}, through ssh-agent", p.display())
            }
            Origin::Literal => "key:: literal, through ssh-agent".to_owned(),
        };
        format!("ssh {} {} ({origin}{through})", short_type(self.public.algorithm()), self.keyid())
    }

    fn sign(&self, pae: &[u8]) -> Result<Vec<u8>, SignError> {
        self.sign_in_namespace(NAMESPACE, pae)
    }

    fn sign_git_commit(&self, commit: &[u8]) -> Result<String, SignError> {
        let armored = self.sign_in_namespace(GIT_NAMESPACE, commit)?;
        String::from_utf8(armored)
            .map_err(|_| SshSignError::InProcess { reason: "the armor is not text".into() }.into())
    }

    fn own_key(&self) -> Result<Option<crate::sign::OwnKey>, SignError> {
        Ok(Some(crate::sign::OwnKey::Ssh { key: self.public.clone(), certificate: self.certificate.clone() }))
    }
}

impl fmt::Debug for SshSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never prints key material.
        f.write_str(&self.describe())
    }
}

/// Whether ssh-key signs this key correctly in-process (its RSA signing is broken upstream).
fn signs_in_process(key: &PrivateKey) -> bool {
    matches!(key.algorithm(), Algorithm::Ed25519 | Algorithm::Ecdsa { curve: EcdsaCurve::NistP256 })
}

fn short_type(algorithm: Algorithm) -> String {
    match algorithm {
        Algorithm::Ed25519 => "ed25519".to_owned(),
        Algorithm::Ecdsa { curve } => {
            format!("ecdsa-{}", curve.as_str().trim_start_matches("nist"))
        }
        Algorithm::Rsa { .. } => "rsa".to_owned(),
        other => other.as_str().to_owned(),
    }
}

/// A public key or certificate line: the key (for a certificate, its certified key) and, for a
/// certificate, its blob.
fn parse_public_key(text: &str) -> Result<(PublicKey, Option<Vec<u8>>), KeyTextError> {
    let first_line = text.lines().next().unwrap_or("").trim();
    if sshsig::is_certificate_line(first_line) {
        let (cert, comment) = sshsig::read_certificate_line(first_line).map_err(|e| match e {
            sshsig::DecodeError::Malformed(reason) | sshsig::DecodeError::Unsupported(reason) => {
                KeyTextError::Certificate(reason)
            }
        })?;
        let key = PublicKey::new(cert.cert.public_key().clone(), comment);
        return Ok((key, Some(cert.blob().to_vec())));
    }
    Ok((PublicKey::from_openssh(first_line).map_err(KeyTextError::Key)?, None))
}

/// Why a key file or a key written out is not a public key or certificate.
#[derive(Debug, thiserror::Error)]
enum KeyTextError {
    /// The file cannot be read ([`crate::input::InputError::reason`]).
    #[error("{}", .0.reason())]
    Read(crate::input::InputError),
    /// The file is not text.
    #[error("the file is not text")]
    NotText,
    /// A certificate line that does not decode: why.
    #[error("not a readable certificate: {0}")]
    Certificate(String),
    /// Neither a private nor a public key.
    #[error("not an OpenSSH private or public key: {0}")]
    Key(ssh_key::Error),
}

/// The largest SSH key file read: far above any key OpenSSH writes, RSA included.
pub const MAX_KEY_BYTES: u64 = 1 << 20;

/// The bytes of the key file `path`: a regular file of at most [`MAX_KEY_BYTES`] (a link to one
/// is followed), never blocking on a FIFO or a device.
fn read_key_file(path: &Path) -> Result<Vec<u8>, crate::input::InputError> {
    crate::input::read_regular_through_links(path, MAX_KEY_BYTES)
}

fn read_public_key(path: &Path) -> Result<PublicKey, KeyTextError> {
    let bytes = read_key_file(path).map_err(KeyTextError::Read)?;
    let text = String::from_utf8(bytes).map_err(|_| KeyTextError::NotText)?;
    // A private key signs without the certificate its `.pub` might be.
    parse_public_key(text.trim()).map(|(key, _)| key)
}

/// The unencrypted private key beside `<name>.pub` when it is the same key and signs in-process.
fn private_beside(pub_path: &Path, public: &PublicKey) -> Option<PrivateKey> {
    if pub_path.extension()? != "pub" {
        return None;
    }
    let text = String::from_utf8(read_key_file(&pub_path.with_extension("")).ok()?).ok()?;
    let key = private_key::from_openssh(text.trim()).ok()?;
    let usable =
        !key.is_encrypted() && signs_in_process(&key) && key.public_key().key_data() == public.key_data();
    usable.then_some(key)
}

/// git's expansion of `~` and `~/…` in a key path; `~user` is refused.
fn expand_tilde(path: impl AsRef<Path>, home: Option<&Path>) -> Result<PathBuf, SshSignError> {
    let path = path.as_ref();
    let Some(rest) = path.as_os_str().as_encoded_bytes().strip_prefix(b"~") else {
        return Ok(path.to_owned());
    };
    let refuse = |reason| SshSignError::Tilde {
        setting: KeySetting::GitConfig,
        path: path.to_string_lossy().into_owned(),
        reason,
    };
    if !(rest.is_empty() || rest.starts_with(b"/")) {
        return Err(refuse("~user paths are not supported"));
    }
    let home = home.ok_or_else(|| refuse("HOME is not set"))?;
    Ok(home.join(path.strip_prefix("~").unwrap_or(path)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::ssh::allowed_signers::AllowedSigners;
    use crate::sign::ssh::revoked_keys::RevokedKeys;
    use crate::sign::ssh::test_support::{
        Agent, keygen, keygen_with, public_line, ssh_keygen, tool_sign, tool_verifies,
    };
    use crate::sign::ssh::verify::verify;

    const PAE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 13 {\"a\":\"b\\u0000\"}";

    fn allowed(dir: &Path, principal: &str, key: &Path) -> (String, AllowedSigners) {
        let text = format!("{principal} {}\n", public_line(key));
        let parsed = AllowedSigners::parse(text.as_bytes(), &dir.join("allowed_signers"))
            .expect("allowed signers parse");
        (text, parsed)
    }

    fn verifies_in_process(sig: &[u8], trust: &AllowedSigners) -> bool {
        verify(sig, PAE, NAMESPACE, trust, &RevokedKeys::default(), time::OffsetDateTime::now_utc()).is_ok()
    }

    #[test]
    fn an_ed25519_signature_from_us_is_byte_identical_to_ssh_keygens_and_verifies_with_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_ed25519", "ed25519");
        let signer = SshSigner::from_key_path(&key).expect("key loads");
        assert!(signer.signs_in_process());
        let ours = signer.sign(PAE).expect("signs");
        let theirs = tool_sign(dir.path(), &key, NAMESPACE, PAE);
        assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs));
        let (text, _) = allowed(dir.path(), "alice@example.com", &key);
        assert!(tool_verifies(dir.path(), &text, "alice@example.com", NAMESPACE, &ours, PAE));
        assert!(!tool_verifies(dir.path(), &text, "alice@example.com", "file", &ours, PAE));
    }

    #[test]
    fn an_ed25519_key_whose_public_half_is_another_keys_never_signs() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pair = |name: &str| {
            let path = keygen(dir.path(), name, "ed25519");
            let key = PrivateKey::read_openssh_file(&path).expect("key loads");
            key.key_data().ed25519().cloned().expect("an ed25519 key")
        };
        let (mine, other) = (pair("mine"), pair("other"));
        let mixed = ssh_key::private::Ed25519Keypair { public: other.public, private: mine.private };
        let mixed =
            PrivateKey::new(ssh_key::private::KeypairData::Ed25519(mixed), "mixed").expect("a key value");
        // Written to a file, it does not load: decoding checks the halves.
        let file = dir.path().join("mixed");
        mixed.write_openssh_file(&file, LineEnding::LF).expect("written");
        let err = SshSigner::from_key_path(&file).expect_err("refused").to_string();
        assert!(err.contains("mixed"), "{err}");
        // Held in memory, it loads, and signing is refused rather than signed under `other`.
        let signer = SshSigner::from_private_key(mixed, &file);
        assert!(signer.signs_in_process());
        let err = signer.sign(PAE).expect_err("no signature under the wrong public key").to_string();
        assert!(err.contains("public key"), "{err}");
    }

    #[test]
    fn a_p256_signature_from_us_verifies_with_ssh_keygen() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_ecdsa", "ecdsa");
        let signer = SshSigner::from_key_path(&key).expect("key loads");
        assert!(signer.signs_in_process());
        let sig = signer.sign(PAE).expect("signs");
        let (text, trust) = allowed(dir.path(), "bob@example.com", &key);
        assert!(tool_verifies(dir.path(), &text, "bob@example.com", NAMESPACE, &sig, PAE));
        assert!(verifies_in_process(&sig, &trust));
    }

    /// A P-256 key as ssh-keygen wrote it, whose private scalar's leading zero byte OpenSSH leaves
    /// out (`fixtures/ssh/p256-short-scalar`, a throwaway key made for this test), which ssh-key 0.6
    /// cannot read: it signs in-process, both verifiers accept its signature, and its raw
    /// signature needs no agent.
    #[test]
    fn a_p256_key_whose_scalar_openssh_wrote_short_signs_in_process() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = dir.path().join("id_ecdsa");
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ssh");
        std::fs::copy(fixtures.join("p256-short-scalar"), &key).expect("copied");
        std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).expect("chmod");

        let signer = SshSigner::from_key_path(&key).expect("key loads").without_agent();
        assert!(signer.signs_in_process());
        let sig = signer.sign(PAE).expect("signs");
        std::fs::copy(fixtures.join("p256-short-scalar.pub"), dir.path().join("id_ecdsa.pub"))
            .expect("copied");
        let (text, trust) = allowed(dir.path(), "dana@example.com", &key);
        assert!(tool_verifies(dir.path(), &text, "dana@example.com", NAMESPACE, &sig, PAE));
        assert!(verifies_in_process(&sig, &trust));
        let raw = signer.sign_raw(PAE).expect("a raw signature without an agent");
        let pem = signer.public_key_pem().expect("a PEM");
        let verifying: p256::ecdsa::VerifyingKey =
            p256::pkcs8::DecodePublicKey::from_public_key_pem(&pem).expect("a P-256 PEM");
        let der = p256::ecdsa::DerSignature::try_from(raw.as_slice()).expect("a DER signature");
        assert!(ssh_signature::Verifier::verify(&verifying, PAE, &der).is_ok());
        // Named by its public key, as git's user.signingKey often is: the file beside it signs.
        let by_public = SshSigner::from_key_path(&dir.path().join("id_ecdsa.pub")).expect("loads");
        assert!(by_public.signs_in_process());
    }

    /// A P-521 key ssh-key 0.6 cannot read (its scalar written without a leading zero byte, as for
    /// about half of them) signs through ssh-keygen with the public key beside it, and says which
    /// file it needs when that is missing. (The verifier here checks ed25519, P-256 and RSA only.)
    #[test]
    fn a_key_that_ssh_key_cannot_read_signs_through_ssh_keygen() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p521 = |name: String| {
            let key = dir.path().join(name);
            let path = key.to_str().expect("utf-8");
            let out =
                ssh_keygen(&["-q", "-t", "ecdsa", "-b", "521", "-N", "", "-C", "erin", "-f", path], None);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            key
        };
        let key = (0..64)
            .map(|i| p521(format!("id_ecdsa_{i}")))
            .find(|key| PrivateKey::read_openssh_file(key).is_err())
            .expect("a P-521 key ssh-key 0.6 cannot read");
        let signer = SshSigner::from_key_path(&key).expect("key loads").without_agent();
        assert!(!signer.signs_in_process());
        let sig = signer.sign(PAE).expect("signs");
        let (text, _) = allowed(dir.path(), "erin@example.com", &key);
        assert!(tool_verifies(dir.path(), &text, "erin@example.com", NAMESPACE, &sig, PAE));

        let mut public = key.clone().into_os_string();
        public.push(".pub");
        std::fs::remove_file(&public).expect("removed");
        let err = SshSigner::from_key_path(&key).expect_err("no public key to sign with").to_string();
        assert!(err.contains(".pub"), "{err}");
    }

    #[test]
    fn an_rsa_key_signs_through_ssh_keygen_and_verifies_in_process() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_rsa", "rsa");
        let signer = SshSigner::from_key_path(&key).expect("key loads").without_agent();
        assert!(!signer.signs_in_process());
        assert!(signer.describe().ends_with(", signed by ssh-keygen)"), "{}", signer.describe());
        let sig = signer.sign(PAE).expect("signs");
        let (text, trust) = allowed(dir.path(), "carol@example.com", &key);
        assert!(verifies_in_process(&sig, &trust));
        assert!(tool_verifies(dir.path(), &text, "carol@example.com", NAMESPACE, &sig, PAE));
    }

    #[test]
    fn an_agent_held_key_signs_through_ssh_keygen_with_only_the_public_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_agent", "ed25519");
        let agent = Agent::start(dir.path());
        agent.add(&key);
        let literal = format!("key::{}", public_line(&key));
        let (text, trust) = allowed(dir.path(), "dana@example.com", &key);
        std::fs::remove_file(&key).expect("the private key leaves the disk");
        let signer = SshSigner::configured(Some(OsStr::new(&literal)), KeySetting::GitConfig, None)
            .expect("literal parses")
            .with_agent_socket(&agent.socket);
        assert_eq!(signer.keyid(), ssh_verify::fingerprint(signer.public_key().key_data()));
        assert!(signer.describe().contains("key:: literal, through ssh-agent"), "{}", signer.describe());
        let sig = signer.sign(PAE).expect("the agent signs");
        assert!(verifies_in_process(&sig, &trust));
        assert!(tool_verifies(dir.path(), &text, "dana@example.com", NAMESPACE, &sig, PAE));
    }

    #[test]
    fn a_public_key_file_whose_private_half_is_only_in_the_agent_signs_through_ssh_keygen() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_pub_only", "ecdsa");
        let agent = Agent::start(dir.path());
        agent.add(&key);
        std::fs::remove_file(&key).expect("the private key leaves the disk");
        let signer = SshSigner::from_key_path(&key.with_extension("pub"))
            .expect("public key loads")
            .with_agent_socket(&agent.socket);
        assert!(!signer.signs_in_process());
        let sig = signer.sign(PAE).expect("the agent signs");
        let (_, trust) = allowed(dir.path(), "erin@example.com", &key);
        assert!(verifies_in_process(&sig, &trust));
    }

    #[test]
    fn a_public_key_file_with_its_private_key_beside_it_signs_in_process() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_beside", "ed25519");
        let signer = SshSigner::from_key_path(&key.with_extension("pub")).expect("loads");
        assert!(signer.signs_in_process());
        assert!(
            signer.describe().contains(&format!("(key file {})", key.display())),
            "{}",
            signer.describe()
        );
    }

    #[test]
    fn a_passphrase_protected_key_without_an_agent_is_an_error_that_suggests_ssh_agent() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen_with(dir.path(), "id_locked", "ed25519", "correct horse");
        let signer = SshSigner::from_key_path(&key).expect("the public half is readable").without_agent();
        let err = signer.sign(PAE).unwrap_err().to_string();
        assert!(err.contains("is passphrase-protected and no ssh-agent is reachable"), "{err}");
        assert!(err.contains(&format!("ssh-add {}", key.display())), "{err}");
    }

    #[test]
    fn a_passphrase_protected_key_signs_through_the_agent_that_holds_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_later_locked", "ed25519");
        let agent = Agent::start(dir.path());
        agent.add(&key);
        let out = ssh_keygen(
            &["-p", "-q", "-P", "", "-N", "a passphrase", "-f", key.to_str().expect("utf-8")],
            None,
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let signer = SshSigner::from_key_path(&key).expect("loads").with_agent_socket(&agent.socket);
        assert!(signer.describe().contains("passphrase-protected key file"), "{}", signer.describe());
        let sig = signer.sign(PAE).expect("the agent signs");
        let (_, trust) = allowed(dir.path(), "fay@example.com", &key);
        assert!(verifies_in_process(&sig, &trust));

        let empty_dir = dir.path().join("empty-agent");
        std::fs::create_dir(&empty_dir).expect("mkdir");
        let other = Agent::start(&empty_dir);
        let err = SshSigner::from_key_path(&key)
            .expect("loads")
            .with_agent_socket(&other.socket)
            .sign(PAE)
            .unwrap_err()
            .to_string();
        assert!(err.contains("load it into ssh-agent with `ssh-add"), "{err}");
    }

    #[test]
    fn git_config_without_a_key_says_how_to_configure_one() {
        let err = SshSigner::configured(None, KeySetting::GitConfig, None).unwrap_err().to_string();
        assert!(
            err.starts_with("no signing key configured: set one with `git config user.signingKey"),
            "{err}"
        );
        assert!(SshSigner::configured(Some(OsStr::new("  ")), KeySetting::GitConfig, None).is_err());
    }

    #[test]
    fn git_config_reads_a_bare_ssh_key_as_a_literal_and_honours_the_program() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_bare", "ed25519");
        let signer = SshSigner::configured(
            Some(OsStr::new(&public_line(&key))),
            KeySetting::GitConfig,
            Some(OsStr::new("/nonexistent/ssh-keygen")),
        )
        .expect("literal parses")
        .with_agent_socket(dir.path().join("no-agent.sock"));
        match signer.sign(PAE) {
            Err(SignError::ToolMissing { program }) => {
                assert_eq!(program, "/nonexistent/ssh-keygen")
            }
            other => panic!("expected ToolMissing, got {other:?}"),
        }
    }

    #[test]
    fn git_config_expands_a_leading_tilde_like_git() {
        let home = Path::new("/home/u");
        assert_eq!(expand_tilde("~/.ssh/id", Some(home)).expect("expands"), Path::new("/home/u/.ssh/id"));
        assert_eq!(expand_tilde("~", Some(home)).expect("expands"), Path::new("/home/u"));
        assert_eq!(expand_tilde("keys/id", Some(home)).expect("as is"), Path::new("keys/id"));
        assert!(
            expand_tilde("~bob/.ssh/id", Some(home))
                .unwrap_err()
                .to_string()
                .contains("~user paths are not supported")
        );
        assert!(expand_tilde("~/.ssh/id", None).unwrap_err().to_string().contains("HOME is not set"));
    }

    #[test]
    fn a_key_that_cannot_be_read_is_advised_about_as_the_setting_that_named_it() {
        for (setting, says, never) in [
            (KeySetting::GitConfig, "set user.signingKey to", "--key"),
            (KeySetting::Flag, "give --key", "user.signingKey"),
        ] {
            for (key, what) in [
                ("~bob/.ssh/id", format!("cannot expand `~bob/.ssh/id` ({setting})")),
                ("key::ssh-ed25519 AAAAnope", format!("the signing key literal given as {setting}")),
            ] {
                let err =
                    SshSigner::configured(Some(OsStr::new(key)), setting, None).unwrap_err().to_string();
                assert!(err.starts_with(&what) && err.contains(says) && !err.contains(never), "{err}");
            }
        }
    }

    #[test]
    fn files_that_are_not_keys_are_refused_with_the_file_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let junk = dir.path().join("junk");
        std::fs::write(&junk, "hello\n").expect("write");
        let err = SshSigner::from_key_path(&junk).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{} is not a usable SSH key", junk.display())), "{err}");
        let err = SshSigner::from_key_path(&dir.path().join("absent")).unwrap_err().to_string();
        assert!(err.starts_with("cannot read the SSH key"), "{err}");
        let err = SshSigner::from_public_key_literal("key::ssh-ed25519 AAAAnope").unwrap_err().to_string();
        assert!(err.contains("set user.signingKey to `key::ssh-ed25519"), "{err}");
    }

    #[test]
    fn a_literal_key_without_any_agent_is_an_error_before_running_anything() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_lit", "ed25519");
        let signer = SshSigner::from_public_key_literal(&public_line(&key)).expect("parses").without_agent();
        let err = signer.sign(PAE).unwrap_err().to_string();
        assert!(err.contains("no ssh-agent is reachable"), "{err}");
    }

    #[test]
    fn a_legacy_pem_key_signs_through_ssh_keygen_when_its_public_key_is_beside_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = dir.path().join("id_pem");
        let out = ssh_keygen(
            &["-q", "-t", "ecdsa", "-b", "256", "-m", "PEM", "-N", "", "-f", key.to_str().expect("utf-8")],
            None,
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::read_to_string(&key).expect("key").starts_with("-----BEGIN EC PRIVATE KEY-----"));
        let signer = SshSigner::from_key_path(&key).expect("loads").without_agent();
        assert!(!signer.signs_in_process());
        let sig = signer.sign(PAE).expect("ssh-keygen signs");
        let (_, trust) = allowed(dir.path(), "gus@example.com", &key);
        assert!(verifies_in_process(&sig, &trust));
        std::fs::remove_file(key.with_extension("pub")).expect("remove .pub");
        let err = SshSigner::from_key_path(&key).unwrap_err().to_string();
        assert!(
            err.contains("is a PEM private key")
                && err.contains(&format!("ssh-keygen -p -f {}", key.display())),
            "{err}"
        );
    }

    #[test]
    fn describe_names_type_fingerprint_and_key_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "id_desc", "ecdsa");
        let signer = SshSigner::from_key_path(&key).expect("loads");
        assert_eq!(signer.kind(), SignerKind::Ssh);
        assert!(signer.keyid().starts_with("SHA256:"));
        assert_eq!(
            signer.describe(),
            format!("ssh ecdsa-p256 {} (key file {})", signer.keyid(), key.display())
        );
    }
}
