//! Choosing the signer the way git does, and signing envelopes with it.
//!
//! Fail closed: a signer that was asked for (`--signer ssh|openpgp|sigstore`, `[attest] signer`)
//! or a key that is configured must sign, or the command stops before anything is written. Only
//! when no key is configured at all (or the project signs later, `[attest] sign_at = "later"`, or
//! `--signer none`) are the lines written unsigned, with the reason reported and
//! `speccoder attest sign` to sign them later.

use crate::attest::AttestError;
use crate::git::Repo;
use crate::model::dsse::{Envelope, Signature};
use crate::sign::openpgp::OpenPgpSigner;
use crate::sign::ssh::SshSigner;
use crate::sign::{SignError, Signer};

/// Which backend the user asked for (`--signer`, `[attest] signer`), or none said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerChoice {
    /// The person's git signing key, as `git commit -S` finds it (`gpg.format`,
    /// `user.signingKey`): the published speccoder's `git`, and its default.
    Auto,
    /// SSH.
    Ssh,
    /// OpenPGP.
    OpenPgp,
    /// Sigstore keyless (the summary line only).
    Sigstore,
    /// Write the lines unsigned on purpose.
    None,
    /// Write the lines unsigned now, as the project asks (`[attest] sign_at = "later"`);
    /// `speccoder attest sign` signs them.
    Later,
}

impl SignerChoice {
    /// Reads `git` (or its synonym `auto`), `ssh`, `openpgp`, `sigstore`, `none`: the values of
    /// `--signer` and `[attest] signer`.
    ///
    /// # Errors
    /// An unknown or not yet supported backend, with the supported ones.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "git" | "auto" => Ok(SignerChoice::Auto),
            "ssh" => Ok(SignerChoice::Ssh),
            "openpgp" | "gpg" => Ok(SignerChoice::OpenPgp),
            "sigstore" if crate::sign::SIGSTORE_COMPILED => Ok(SignerChoice::Sigstore),
            "sigstore" => Err(format!("signer `sigstore`: {}", crate::sign::SIGSTORE_MISSING_REASON)),
            "none" => Ok(SignerChoice::None),
            other => Err(format!("unknown signer `{other}`; use one of: git, ssh, openpgp, sigstore, none")),
        }
    }
}

/// The `[attest]` table of `speccoder.toml`, read as the published speccoder reads it: the same
/// keys mean the same things, and a key it does not know is an error rather than ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttestConfig {
    /// `enabled` (default true): false means the project records no attestations.
    pub enabled: bool,
    /// `signer` (default `git`, i.e. [`SignerChoice::Auto`]).
    pub signer: SignerChoice,
    /// `sign_at = "later"` (default `"tick"`): lines are written unsigned when a task is ticked,
    /// and signed by `speccoder attest sign`.
    pub sign_later: bool,
}

/// The keys of `[attest]`: the published tool's, which are all this crate reads there.
const ATTEST_KEYS: [&str; 4] = ["enabled", "signer", "sign_at", "sigstore"];

/// Reads `[attest]` of `policy` (speccoder.toml as committed at HEAD); absent keys take the
/// published tool's defaults.
///
/// # Errors
/// [`AttestError::BadSigner`] naming the key: an unknown key, a value of the wrong type, or a
/// signer this build does not have.
pub fn attest_config(policy: Option<&toml::Table>) -> Result<AttestConfig, AttestError> {
    let mut config = AttestConfig { enabled: true, signer: SignerChoice::Auto, sign_later: false };
    let Some(section) = policy.and_then(|t| t.get("attest")) else { return Ok(config) };
    let bad = |key: &str, what: &str| {
        AttestError::BadSigner(format!("`[attest] {key}` in {}: {what}", crate::attest::CONFIG_FILE))
    };
    let table = section.as_table().ok_or_else(|| bad("", "`attest` must be a table"))?;
    if let Some(unknown) = table.keys().find(|k| !ATTEST_KEYS.contains(&k.as_str())) {
        return Err(bad(
            unknown,
            &format!("unknown key; the keys of [attest] are {}", ATTEST_KEYS.join(", ")),
        ));
    }
    if let Some(enabled) = table.get("enabled") {
        config.enabled = enabled.as_bool().ok_or_else(|| bad("enabled", "must be true or false"))?;
    }
    if let Some(signer) = table.get("signer") {
        let name = signer.as_str().ok_or_else(|| bad("signer", "must be a string such as \"git\""))?;
        config.signer = SignerChoice::parse(name).map_err(|e| bad("signer", &e))?;
    }
    if let Some(at) = table.get("sign_at") {
        config.sign_later = match at.as_str() {
            Some("tick") => false,
            Some("later") => true,
            _ => return Err(bad("sign_at", "must be \"tick\" or \"later\"")),
        };
    }
    Ok(config)
}

/// The signer a command is asked for: `--signer` when given (`flag`), else `[attest] signer` in
/// `policy` (speccoder.toml as committed at HEAD), else [`SignerChoice::Auto`]. When a task is
/// being ticked (`at_tick`) and the project signs later, [`SignerChoice::Later`] unless a flag
/// says otherwise.
///
/// # Errors
/// [`AttestError::BadSigner`]: `[attest]` is malformed or names no backend this build has.
pub fn requested(
    flag: Option<SignerChoice>,
    policy: Option<&toml::Table>,
    at_tick: bool,
) -> Result<SignerChoice, AttestError> {
    let config = attest_config(policy)?;
    Ok(match flag {
        Some(flag) => flag,
        None if at_tick && config.sign_later => SignerChoice::Later,
        None => config.signer,
    })
}

/// The outcome of choosing: a signer, or why there is none.
pub enum Chosen {
    /// Sign with this.
    Signer(Box<dyn Signer>),
    /// Write unsigned; the text says why and how to fix it.
    Unsigned(String),
}

const HOW_TO_SIGN: &str = "configure a key as for signed git commits (`git config gpg.format ssh` and `git config user.signingKey ~/.ssh/id_ed25519.pub`, or an OpenPGP key id), or pass --signer ssh|openpgp --key KEY; then run `speccoder attest sign <commit>`";

/// Chooses the signer from the flags, then git's configuration.
///
/// # Errors
/// A signer that was asked for by name but has no key, and a configured key that is broken
/// (unreadable, encrypted without an agent, not a key, a format speccoder does not sign with):
/// configuration errors to fix, never a reason to write unsigned lines silently.
pub fn choose(repo: &Repo, choice: SignerChoice, key: Option<&str>) -> Result<Chosen, SignError> {
    if choice == SignerChoice::None {
        return Ok(Chosen::Unsigned(
            "signer `none` (--signer, or [attest] signer in speccoder.toml): written unsigned on purpose"
                .into(),
        ));
    }
    if choice == SignerChoice::Later {
        return Ok(Chosen::Unsigned(
            "speccoder.toml says `[attest] sign_at = \"later\"`: written unsigned; sign them with `speccoder attest sign <commit>`"
                .into(),
        ));
    }
    if choice == SignerChoice::Sigstore {
        return sigstore_signer(repo);
    }
    // As git: gpg.format chooses the backend (openpgp when unset), user.signingKey the key.
    let format = repo.config_string("gpg.format");
    let backend = match choice {
        SignerChoice::Ssh => SignerChoice::Ssh,
        SignerChoice::OpenPgp => SignerChoice::OpenPgp,
        _ => match format.as_deref() {
            Some("ssh") => SignerChoice::Ssh,
            // `--key` given without any gpg.format: the key itself says which kind it is.
            None if key.is_some_and(looks_like_ssh_key) => SignerChoice::Ssh,
            Some("x509") => {
                return Err(SignError::CannotSign(format!(
                    "git is configured for x509 signing (gpg.format = x509), which speccoder does not sign with; {HOW_TO_SIGN}, or pass --signer none to write unsigned lines"
                )));
            }
            _ => SignerChoice::OpenPgp,
        },
    };
    let configured_key = key.map(str::to_owned).or_else(|| repo.config_string("user.signingKey"));
    let Some(key) = configured_key else {
        if choice == SignerChoice::Auto {
            return Ok(Chosen::Unsigned(format!("no signing key configured; {HOW_TO_SIGN}")));
        }
        return Err(SignError::CannotSign(format!(
            "a {} signature was asked for, but no key is configured: pass --key KEY or set `git config user.signingKey`",
            if backend == SignerChoice::Ssh { "ssh" } else { "openpgp" }
        )));
    };
    if backend == SignerChoice::Ssh {
        let program = repo.config_string("gpg.ssh.program");
        let signer = SshSigner::from_git_config(Some(&key), program.as_deref())?;
        return Ok(Chosen::Signer(Box::new(signer)));
    }
    let program = repo.config_string("gpg.openpgp.program").or_else(|| repo.config_string("gpg.program"));
    let signer = OpenPgpSigner::from_git_config(Some(&key), program.as_deref())?;
    Ok(Chosen::Signer(Box::new(signer)))
}

/// The keyless signer, its instance from `[attest.sigstore]` (`fulcio_url`, `rekor_url`,
/// `oidc_issuer`), public-good by default.
#[cfg(feature = "sigstore")]
fn sigstore_signer(repo: &Repo) -> Result<Chosen, SignError> {
    use crate::sign::sigstore::{SigstoreConfig, SigstoreSigner};
    let mut c = SigstoreConfig::default();
    // speccoder.toml as committed at HEAD: the configuration the task commit's policy hashes.
    let config = match repo.head() {
        Ok(crate::git::Head::Branch { commit, .. } | crate::git::Head::Detached(commit)) => {
            crate::attest::read_policy(repo, commit).ok().and_then(|(_, table)| table)
        }
        _ => None,
    };
    let section = config.as_ref().and_then(|t| t.get("attest")).and_then(|a| a.get("sigstore"));
    let get = |k: &str| section.and_then(|s| s.get(k)).and_then(|v| v.as_str()).map(str::to_owned);
    if let Some(v) = get("fulcio_url") {
        c.fulcio_url = v;
    }
    if let Some(v) = get("rekor_url") {
        c.rekor_url = v;
    }
    if let Some(v) = get("oidc_issuer") {
        c.oidc_issuer = v;
    }
    Ok(Chosen::Signer(Box::new(SigstoreSigner::new(c))))
}

#[cfg(not(feature = "sigstore"))]
fn sigstore_signer(_repo: &Repo) -> Result<Chosen, SignError> {
    Err(SignError::CannotSign(crate::sign::SIGSTORE_MISSING_REASON.to_owned()))
}

/// Signs `envelope` with `signer`, appending the signature.
///
/// # Errors
/// The signer's failure.
pub fn sign_envelope(envelope: &mut Envelope, signer: &dyn Signer) -> Result<(), SignError> {
    let sig = signer.sign(&envelope.pae())?;
    envelope.signatures.push(Signature { keyid: signer.keyid(), sig });
    if let Some(bundle) = signer.take_bundle() {
        envelope.sigstore = Some(bundle);
    }
    Ok(())
}

/// Whether `key` (a `--key` value) names an SSH key: a `key::` literal, a public key line, or a
/// file holding an OpenSSH key or public key line.
fn looks_like_ssh_key(key: &str) -> bool {
    let ssh_text = |t: &str| {
        let t = t.trim_start();
        t.starts_with("ssh-")
            || t.starts_with("ecdsa-")
            || t.starts_with("sk-")
            || t.starts_with("-----BEGIN OPENSSH")
    };
    if key.starts_with("key::") || ssh_text(key) {
        return true;
    }
    let path = match key.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(rest)),
        None => Some(std::path::PathBuf::from(key)),
    };
    // The first bytes tell; the signer reads the whole file when it loads the key.
    let head = |p: std::path::PathBuf| -> Option<Vec<u8>> {
        use std::io::Read as _;
        let mut head = Vec::with_capacity(64);
        std::fs::File::open(p).ok()?.take(64).read_to_end(&mut head).ok()?;
        Some(head)
    };
    path.and_then(head).is_some_and(|head| {
        ssh_text(&String::from_utf8_lossy(&head))
            || head.starts_with(b"-----BEGIN RSA PRIVATE KEY")
            || head.starts_with(b"-----BEGIN EC PRIVATE KEY")
    })
}
