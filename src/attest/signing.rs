//! Choosing the signer the way git does, and signing envelopes with it. A signer that cannot be
//! had (nothing configured, an agent that is absent) is not an error of the command: the lines
//! are written unsigned, the reason is reported, and `speccoder attest sign` signs them later.

use crate::git::Repo;
use crate::model::dsse::{Envelope, Signature};
use crate::sign::ssh::SshSigner;
use crate::sign::{SignError, Signer};

/// Which backend the user asked for (`--signer`, `[attest] signer`), or none said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerChoice {
    /// As git is configured (`gpg.format`, `user.signingKey`).
    Auto,
    /// SSH.
    Ssh,
    /// Write the lines unsigned on purpose.
    None,
}

impl SignerChoice {
    /// Reads `ssh`, `none`, `auto` (the values of `--signer` and `[attest] signer`).
    ///
    /// # Errors
    /// An unknown or not yet supported backend, with the supported ones.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(SignerChoice::Auto),
            "ssh" => Ok(SignerChoice::Ssh),
            "none" => Ok(SignerChoice::None),
            "openpgp" | "sigstore" => {
                Err(format!("signer `{s}` is not available in this build; use `ssh` or `none`"))
            }
            other => Err(format!("unknown signer `{other}`; use one of: ssh, none, auto")),
        }
    }
}

/// The outcome of choosing: a signer, or why there is none.
pub enum Chosen {
    /// Sign with this.
    Signer(Box<dyn Signer>),
    /// Write unsigned; the text says why and how to fix it.
    Unsigned(String),
}

const HOW_TO_SIGN: &str = "configure a key (`git config gpg.format ssh` and `git config user.signingKey ~/.ssh/id_ed25519.pub`, or pass --key FILE) and run `speccoder attest sign <commit>`";

/// Chooses the signer from the flags, then git's configuration.
///
/// # Errors
/// A configured key that is broken (unreadable, encrypted without an agent, not a key): that is
/// a configuration error to fix, not a reason to write unsigned lines silently.
pub fn choose(repo: &Repo, choice: SignerChoice, key: Option<&str>) -> Result<Chosen, SignError> {
    if choice == SignerChoice::None {
        return Ok(Chosen::Unsigned("--signer none: written unsigned on purpose".into()));
    }
    let format = repo.config_string("gpg.format");
    // `--key` names an SSH key (file or `key::` literal): it means SSH unless git is explicitly
    // configured for another format.
    let is_ssh = choice == SignerChoice::Ssh
        || format.as_deref() == Some("ssh")
        || (key.is_some() && format.is_none());
    let configured_key = key.map(str::to_owned).or_else(|| repo.config_string("user.signingKey"));
    if !is_ssh {
        return Ok(Chosen::Unsigned(match (&format, &configured_key) {
            (_, None) => format!("no signing key configured; {HOW_TO_SIGN}"),
            (f, Some(_)) => format!(
                "git is configured for {} signing, which this build cannot use yet; pass --signer ssh --key FILE, or {HOW_TO_SIGN}",
                f.as_deref().unwrap_or("openpgp")
            ),
        }));
    }
    let Some(key) = configured_key else {
        return Ok(Chosen::Unsigned(format!("no SSH signing key configured; {HOW_TO_SIGN}")));
    };
    let program = repo.config_string("gpg.ssh.program");
    let signer = SshSigner::from_git_config(Some(&key), program.as_deref())?;
    Ok(Chosen::Signer(Box::new(signer)))
}

/// Signs `envelope` with `signer`, appending the signature.
///
/// # Errors
/// The signer's failure.
pub fn sign_envelope(envelope: &mut Envelope, signer: &dyn Signer) -> Result<(), SignError> {
    let sig = signer.sign(&envelope.pae())?;
    envelope.signatures.push(Signature { keyid: signer.keyid(), sig });
    Ok(())
}
