//! Choosing the signer the way git does, and signing envelopes with it.
//!
//! Fail closed: a signer that was asked for (`--signer ssh|openpgp|sigstore`, `[attest] signer`)
//! or a key that is configured must sign, or the command stops before anything is written. Only
//! when no key is configured at all (or the project signs later, `[attest] sign_at = "later"`, or
//! `--signer none`) are the lines written unsigned, with the reason reported and
//! `speccoder attest sign` to sign them later.

use crate::attest::config::{self, ConfigError, EndpointNames, SignerChoice, SignerParseError};
use crate::exit::{Class, ExitClass};
use std::ffi::{OsStr, OsString};

use crate::git::{GitError, Repo};
use crate::model::dsse::{self, Envelope, EnvelopeError, RawJson, Signature};
use crate::sign::openpgp::OpenPgpSigner;
use crate::sign::ssh::SshSigner;
use crate::sign::{KeySetting, SignError, Signer};

/// What the person signing asked for on the command line: the one request every command that
/// signs (`attest`, `attest sign`, `accept`, `skip`, `attest carry`, `attest approve`) resolves
/// through [`resolve`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignerRequest {
    /// `--signer`; `None`: `--key` when given, else as `[attest] signer` in speccoder.toml at
    /// HEAD says, else git's key.
    pub signer: Option<SignerChoice>,
    /// `--key`: a key file or `key::` literal overriding `user.signingKey`; without `--signer` it
    /// signs, whatever signer the checked-in file names ([`resolve`]).
    pub key: Option<String>,
    /// `--sigstore-*`: where keyless signing may send the identity token.
    pub sigstore: SigstoreFlags,
}

/// Whether the lines being signed make a tick (`attest`, `accept`, `skip`, `attest carry`), where
/// a project that signs later (`[attest] sign_at = "later"`) writes them unsigned, or sign what
/// is there (`attest sign`, `attest approve`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// A tick (or a decision, or a carry) is being written.
    Tick,
    /// Lines that exist are being signed.
    Later,
}

/// Why no signer was chosen for a command that signs what exists (`attest sign`, `attest
/// approve`), or a signer the command cannot use.
#[derive(Debug, thiserror::Error)]
pub enum SignerError {
    /// speccoder.toml at HEAD cannot be read, or its `[attest]` is malformed.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `--signer` names no backend this build has.
    #[error(transparent)]
    Parse(#[from] SignerParseError),
    /// The configured key is broken, or cannot sign.
    #[error("signing key: {0}")]
    Sign(#[from] SignError),
    /// `--key` without `--signer` cannot sign as the kind the file or git's `gpg.format` made it,
    /// and reads as a key of the other kind.
    #[error(transparent)]
    KeyKind(Box<KeyKindError>),
    /// git's configuration of signing cannot be read (a value that must be text is not UTF-8).
    #[error(transparent)]
    Git(#[from] GitError),
    /// A checked-in speccoder.toml names a Sigstore service URL.
    #[error("speccoder.toml names `[attest.sigstore] {}`; {}", .0.old_toml_key, .0.refusal())]
    SigstoreUrlInPolicy(&'static EndpointNames),
    /// A Sigstore service URL the person signing chose cannot receive the token.
    #[cfg(feature = "sigstore")]
    #[error(transparent)]
    SigstoreUrl(#[from] crate::attest::service_url::ServiceUrlError),
}

/// `--key` given without `--signer` cannot sign as the kind of key the checked-in file's
/// `[attest] signer` (`ssh`, `openpgp`) or git's `gpg.format` made it, and reads as a key of the
/// other kind: the message says which `--signer` signs with it.
#[derive(Debug, thiserror::Error)]
#[error(
    "signing key: {source}; --key was used as {taken} key because {why}, and it reads as {reads} key: pass `--signer {flag}` with --key to sign with it as one"
)]
pub struct KeyKindError {
    /// Why it cannot sign as the kind it was used as.
    pub source: SignError,
    /// The kind it was used as, with its article.
    pub taken: &'static str,
    /// Who chose that kind.
    pub why: &'static str,
    /// The kind it reads as, with its article.
    pub reads: &'static str,
    /// The `--signer` value of that kind.
    pub flag: &'static str,
}

impl ExitClass for SignerError {
    fn class(&self) -> Class {
        match self {
            SignerError::Config(e) => e.class(),
            SignerError::Sign(e) => e.class(),
            SignerError::KeyKind(e) => e.source.class(),
            SignerError::Git(e) => e.class(),
            SignerError::Parse(_) | SignerError::SigstoreUrlInPolicy(_) => Class::Config,
            #[cfg(feature = "sigstore")]
            SignerError::SigstoreUrl(_) => Class::Config,
        }
    }
}

/// The one resolution of the signer of every command that writes a note's signatures, after the
/// project's `[attest]` and `[spec]` (speccoder.toml at HEAD) are read whole, whatever `--signer`
/// says: a malformed one or `enabled = false` stops the command ([`config::ensure_enabled`]). The
/// signer is, first to last:
///
/// 1. `--signer` when given (with `--key`, or git's key);
/// 2. else `--key`: the person's own key signs, whatever the checked-in file says (its `signer =
///    "none"` or `"sigstore"` never turns a key the person named into no signature or into a
///    keyless one, nor does `sign_at = "later"`). The file chooses at most the kind of key it is
///    read as: SSH for `signer = "ssh"`, OpenPGP for `"openpgp"`; otherwise as git reads one
///    (`gpg.format`, else the kind the key itself is of). A key that cannot sign as that kind and
///    reads as the other is refused saying which `--signer` signs with it;
/// 3. else `[attest] signer` (a tick of a project that signs later, `sign_at = "later"`, is
///    written unsigned);
/// 4. else git's own key, as `git commit -S` finds it ([`choose`]).
///
/// # Errors
/// A malformed `[attest]` or `[spec]`, attestation turned off, a signer asked for by name that
/// has no key, a configured key that is broken, a Sigstore service the checked-in file or an
/// unusable URL chooses.
pub fn resolve(repo: &Repo, req: &SignerRequest, moment: Moment) -> Result<Chosen, SignerError> {
    let attest = config::ensure_enabled(config::policy_at_head(repo)?.as_ref())?.attest;
    let key = req.key.as_deref();
    let choice = match (req.signer, key) {
        (Some(flag), _) => flag,
        (None, Some(_)) => match attest.signer {
            kind @ (SignerChoice::Ssh | SignerChoice::OpenPgp) => kind,
            _ => SignerChoice::Auto,
        },
        (None, None) if moment == Moment::Tick && attest.sign_later => SignerChoice::Later,
        (None, None) => attest.signer,
    };
    let chosen = choose(repo, choice, key, &req.sigstore);
    match (chosen, key) {
        (Err(SignerError::Sign(e)), Some(key)) if req.signer.is_none() => {
            Err(kind_advice(repo, choice, key, e))
        }
        (chosen, _) => chosen,
    }
}

/// `e`, the failure of `--key` given without `--signer` to sign as the kind `choice` (the file's
/// `ssh` or `openpgp`, or git's `gpg.format`) made it, with which `--signer` signs with it when it
/// reads as a key of the other kind ([`SignerError::KeyKind`]).
fn kind_advice(repo: &Repo, choice: SignerChoice, key: &str, e: SignError) -> SignerError {
    let (taken_as_ssh, why) = match choice {
        SignerChoice::Ssh => (true, "speccoder.toml says `[attest] signer = \"ssh\"`"),
        SignerChoice::OpenPgp => (false, "speccoder.toml says `[attest] signer = \"openpgp\"`"),
        // Without gpg.format the key's own kind chose: it cannot read as the other.
        _ if !repo.config_is_set("gpg.format") => return e.into(),
        _ => match GitFormat::of(repo) {
            Ok(GitFormat::Ssh) => (true, "git's `gpg.format` is `ssh`"),
            Ok(GitFormat::OpenPgp) => (false, "git's `gpg.format` is `openpgp`"),
            _ => return e.into(),
        },
    };
    if looks_like_ssh_key(key) == taken_as_ssh {
        return e.into();
    }
    let (taken, reads, flag) =
        if taken_as_ssh { ("an SSH", "an OpenPGP", "openpgp") } else { ("an OpenPGP", "an SSH", "ssh") };
    SignerError::KeyKind(Box::new(KeyKindError { source: e, taken, why, reads, flag }))
}

/// Where keyless signing may send the identity token, as the person signing said on the command
/// line. Unset endpoints come from the environment, then the user's git config, then
/// Sigstore's public-good instance; never from the checked-in `speccoder.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SigstoreFlags {
    /// `--sigstore-fulcio-url`.
    pub fulcio_url: Option<String>,
    /// `--sigstore-rekor-url`.
    pub rekor_url: Option<String>,
    /// `--sigstore-oidc-issuer`.
    pub oidc_issuer: Option<String>,
    /// `--sigstore-allow-http-loopback`: plain `http` to a loopback address (for tests).
    pub allow_http_loopback: bool,
    /// `--sigstore-signing-root`: the trusted root each new bundle is checked against.
    pub trusted_root: Option<std::path::PathBuf>,
}

/// One Sigstore service the person signing can point keyless signing at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// Fulcio, which receives the identity token.
    Fulcio = 0,
    /// Rekor, which receives the signed envelope and certificate.
    Rekor = 1,
    /// The OIDC issuer of the interactive login.
    OidcIssuer = 2,
}

impl Endpoint {
    /// All of them.
    pub const ALL: [Endpoint; 3] = [Endpoint::Fulcio, Endpoint::Rekor, Endpoint::OidcIssuer];

    /// Where its setting is read and how it is named.
    #[must_use]
    pub fn names(self) -> &'static EndpointNames {
        &config::ENDPOINT_NAMES[self as usize]
    }
}

/// The outcome of choosing: a signer, or why there is none.
pub enum Chosen {
    /// Sign with this.
    Signer(Box<dyn Signer>),
    /// Write unsigned, for this reason.
    Unsigned(Unsigned),
}

/// Why lines are written unsigned; each says how to sign them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unsigned {
    /// `--signer none`, or `[attest] signer = "none"`.
    #[error(
        "signer `none` (--signer, or [attest] signer in speccoder.toml): written unsigned on purpose; `--key KEY` or `--signer ssh|openpgp|sigstore` signs them anyway"
    )]
    Asked,
    /// `[attest] sign_at = "later"`.
    #[error(
        "speccoder.toml says `[attest] sign_at = \"later\"`: written unsigned; sign them with `speccoder attest sign <commit>`"
    )]
    SignLater,
    /// No key is configured at all.
    #[error("no signing key configured; {HOW_TO_SIGN}")]
    NoKey,
}

const HOW_TO_SIGN: &str = "configure a key as for signed git commits (`git config gpg.format ssh` and `git config user.signingKey ~/.ssh/id_ed25519.pub`, or an OpenPGP key id), or pass --signer ssh|openpgp --key KEY; then run `speccoder attest sign <commit>`";

/// Chooses the signer `choice` names, with `key` or git's configuration.
///
/// # Errors
/// A signer that was asked for by name but has no key, and a configured key that is broken
/// (unreadable, encrypted without an agent, not a key, a format speccoder does not sign with):
/// configuration errors to fix, never a reason to write unsigned lines silently.
fn choose(
    repo: &Repo,
    choice: SignerChoice,
    key: Option<&str>,
    sigstore: &SigstoreFlags,
) -> Result<Chosen, SignerError> {
    if choice == SignerChoice::None {
        return Ok(Chosen::Unsigned(Unsigned::Asked));
    }
    if choice == SignerChoice::Later {
        return Ok(Chosen::Unsigned(Unsigned::SignLater));
    }
    if choice == SignerChoice::Sigstore {
        return keyless(repo, sigstore);
    }
    // As git: gpg.format chooses the backend (openpgp when unset), user.signingKey the key.
    let backend = match choice {
        SignerChoice::Ssh => GitFormat::Ssh,
        SignerChoice::OpenPgp => GitFormat::OpenPgp,
        _ => match GitFormat::of(repo)? {
            // `--key` given without any gpg.format: the key itself says which kind it is.
            GitFormat::OpenPgp
                if !repo.config_is_set("gpg.format") && key.is_some_and(looks_like_ssh_key) =>
            {
                GitFormat::Ssh
            }
            GitFormat::Other(format) => {
                return Err(SignError::CannotSign(format!(
                    "git is configured for {format} signing (gpg.format = {format}), which speccoder does not sign with; {HOW_TO_SIGN}, or pass --signer none to write unsigned lines"
                ))
                .into());
            }
            format => format,
        },
    };
    if let Some(key) = key {
        refuse_no_key_file(key)?;
    }
    let setting = if key.is_some() { KeySetting::Flag } else { KeySetting::GitConfig };
    let configured_key = match key {
        Some(key) => Some(OsString::from(key)),
        None => git_signing_key(repo)?,
    };
    let Some(key) = configured_key else {
        if choice == SignerChoice::Auto {
            return Ok(Chosen::Unsigned(Unsigned::NoKey));
        }
        return Err(SignError::CannotSign(format!(
            "the {} signer was asked for, but no key is configured: pass --key KEY or set `git config user.signingKey`",
            backend.name()
        ))
        .into());
    };
    Ok(Chosen::Signer(signer_for(repo, &backend, &key, setting)?))
}

/// Refuses a `--key` that names a path (it has a `/`, starts with `~/`, or names anything on disk:
/// a link, a directory, a FIFO) where nothing is, a link to nothing or a directory: it is never
/// taken for a key id, so gpg never runs for it. A FIFO or a device there is read as a key file,
/// and refused by the key readers.
///
/// # Errors
/// [`SignError::CannotSign`] naming the path and what is there instead.
fn refuse_no_key_file(key: &str) -> Result<(), SignerError> {
    let on_disk = || std::fs::symlink_metadata(key).is_ok().then(|| std::path::PathBuf::from(key));
    let Some(path) = key_path(key).or_else(on_disk) else { return Ok(()) };
    let what = match (std::fs::symlink_metadata(&path), std::fs::metadata(&path)) {
        (Err(_), _) => "does not exist".to_owned(),
        (Ok(_), Err(e)) => format!("is a symbolic link that leads to no file ({e})"),
        (Ok(_), Ok(meta)) if meta.is_dir() => "is a directory, not a key file".to_owned(),
        // A FIFO or a device is the key readers' to refuse (`crate::input`), as for any key file.
        (Ok(_), Ok(_)) => return Ok(()),
    };
    Err(SignError::CannotSign(format!(
        "the --key file {} {what}: pass a private key file (SSH or OpenPGP), a `.pub` whose key is in ssh-agent, or a key id gpg knows",
        crate::model::shown::one_line(&path.to_string_lossy())
    ))
    .into())
}

/// The kind of signature git makes: `gpg.format`, `openpgp` when unset.
#[derive(Debug, Clone, PartialEq, Eq)]
enum GitFormat {
    /// `openpgp` (or unset).
    OpenPgp,
    /// `ssh`.
    Ssh,
    /// `x509`, or a value git does not know: speccoder signs with neither.
    Other(String),
}

impl GitFormat {
    /// `gpg.format` of `repo`.
    ///
    /// # Errors
    /// [`GitError::ConfigNotText`]: it is set, but not UTF-8.
    fn of(repo: &Repo) -> Result<Self, GitError> {
        Ok(match repo.config_string("gpg.format")?.as_deref().map(str::trim) {
            None | Some("openpgp") => GitFormat::OpenPgp,
            Some("ssh") => GitFormat::Ssh,
            Some(other) => GitFormat::Other(other.to_owned()),
        })
    }

    /// The value as `gpg.format` spells it.
    fn name(&self) -> &str {
        match self {
            GitFormat::OpenPgp => "openpgp",
            GitFormat::Ssh => "ssh",
            GitFormat::Other(other) => other,
        }
    }
}

/// git's `user.signingKey`, unless unset or blank: its bytes as they are, as git reads them (a
/// key file's path need not be UTF-8).
///
/// # Errors
/// [`GitError::ConfigNotText`] where a path must be UTF-8 (not on unix).
fn git_signing_key(repo: &Repo) -> Result<Option<OsString>, GitError> {
    let key = repo.config_os_string("user.signingKey")?;
    Ok(key.filter(|k| crate::sign::configured(Some(k)).is_some()))
}

/// A signer of `format` with `key`, named by `setting`, through the program git's configuration
/// names for it.
fn signer_for(
    repo: &Repo,
    format: &GitFormat,
    key: &OsStr,
    setting: KeySetting,
) -> Result<Box<dyn Signer>, SignerError> {
    if *format == GitFormat::Ssh {
        let program = repo.config_os_string("gpg.ssh.program")?;
        return Ok(Box::new(SshSigner::configured(Some(key), setting, program.as_deref())?));
    }
    let program = match repo.config_os_string("gpg.openpgp.program")? {
        Some(program) => Some(program),
        None => repo.config_os_string("gpg.program")?,
    };
    Ok(Box::new(OpenPgpSigner::configured(Some(key), setting, program.as_deref())?))
}

/// The `gpgsig` signature of the commit object `commit` (its bytes without one) under
/// `commit.gpgsign`, made as `git commit -S` makes it: with git's own key, `gpg.format` and
/// `user.signingKey`. Never with `--signer` or `--key`, which choose the key of the note's lines
/// only.
///
/// # Errors
/// [`CommitSigningError`]: `gpg.format` is one speccoder does not sign with, no
/// `user.signingKey` is configured, or the configured one cannot sign; the message says how to
/// configure git's key, or to turn `commit.gpgsign` off for the repository.
pub fn sign_git_commit(repo: &Repo, commit: &[u8]) -> Result<String, CommitSigningError> {
    let unreadable = |e: GitError, format: &str| CommitSigningError {
        format: format.to_owned(),
        why: e.to_string(),
        fix: "set it again in UTF-8".to_owned(),
    };
    let format = GitFormat::of(repo).map_err(|e| unreadable(e, "not UTF-8"))?;
    let refuse = |why: String, fix: String| CommitSigningError { format: format.name().to_owned(), why, fix };
    let set_key = match format {
        GitFormat::OpenPgp => {
            "set it: `git config user.signingKey <fingerprint>` (an OpenPGP key `gpg --list-secret-keys` lists)"
        }
        GitFormat::Ssh => {
            "set it: `git config user.signingKey <path of your SSH key>` (or `key::<public key>` for a key in ssh-agent)"
        }
        GitFormat::Other(ref other) => {
            return Err(refuse(
                format!("speccoder does not sign commits with gpg.format = {other}"),
                "use an SSH or OpenPGP key instead: `git config gpg.format ssh` (or `openpgp`) and `git config user.signingKey <key>`".to_owned(),
            ));
        }
    };
    let Some(key) = git_signing_key(repo).map_err(|e| unreadable(e, format.name()))? else {
        let mut why = "no user.signingKey is configured".to_owned();
        if format == GitFormat::Ssh && repo.config_is_set("gpg.ssh.defaultKeyCommand") {
            why.push_str(" (speccoder does not run gpg.ssh.defaultKeyCommand)");
        }
        return Err(refuse(why, set_key.to_owned()));
    };
    let signed = match signer_for(repo, &format, &key, KeySetting::GitConfig) {
        Ok(signer) => signer.sign_git_commit(commit).map_err(|e| e.to_string()),
        Err(SignerError::Sign(e)) => Err(e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    signed.map_err(|e| {
        refuse(
            format!(
                "user.signingKey `{}` cannot sign: {e}",
                crate::model::shown::one_line(&key.to_string_lossy())
            ),
            "point user.signingKey at a key that can sign: `git config user.signingKey <key>`".to_owned(),
        )
    })
}

/// `commit.gpgsign` is set, and git's own signing key cannot sign the task commit.
#[derive(Debug, thiserror::Error)]
#[error(
    "commit.gpgsign is set, so the task commit is signed as git signs commits, with git's own signing key (gpg.format = {format}, user.signingKey), not with the key the note's lines are signed with; {why}. Nothing was written: {fix}, or turn commit signing off for this repository (`git config commit.gpgsign false`); then run the same command again"
)]
pub struct CommitSigningError {
    /// `gpg.format` (`openpgp` when unset).
    pub format: String,
    /// Why git's key cannot sign.
    pub why: String,
    /// How to configure one that can.
    pub fix: String,
}

impl ExitClass for CommitSigningError {
    /// git's own key is configured by the person: theirs to fix.
    fn class(&self) -> Class {
        Class::Config
    }
}

/// The environment variable naming the trusted root keyless signing checks against.
pub const SIGNING_ROOT_ENV: &str = "SPECCODER_SIGSTORE_SIGNING_ROOT";
/// The git config key naming it.
pub const SIGNING_ROOT_GIT_KEY: &str = "speccoder.sigstore.signingRoot";

/// The keyless signer: `--signer sigstore` of [`resolve`], and, without the gate of `[attest]`
/// (which is about notes), the signer of a file that is no note (`attest export --vsa-signer
/// sigstore`). Each service URL comes from its flag, else its environment variable, else
/// the user's git config (`speccoder.sigstore.fulcioUrl`, `rekorUrl`, `oidcIssuer`), else the
/// public-good instance. A `speccoder.toml` at HEAD that still names the URLs in
/// `[attest.sigstore]` is refused: whoever writes the branch must not choose where the token goes.
///
/// # Errors
/// A Sigstore service the checked-in file or an unusable URL chooses; a build without Sigstore.
#[cfg(feature = "sigstore")]
pub fn keyless(repo: &Repo, flags: &SigstoreFlags) -> Result<Chosen, SignerError> {
    use crate::sign::sigstore::SigstoreSigner;
    let policy = match repo.head() {
        Ok(crate::git::Head::Branch { commit, .. } | crate::git::Head::Detached(commit)) => {
            config::read_policy(repo, commit)?.1
        }
        _ => None,
    };
    refuse_service_urls_in_policy(policy.as_ref())?;
    let mut from_git: [Option<String>; 3] = Default::default();
    for (value, e) in from_git.iter_mut().zip(Endpoint::ALL) {
        *value = repo.config_string(e.names().git_key)?;
    }
    let chosen = Endpoint::ALL.map(|e| {
        let flag = match e {
            Endpoint::Fulcio => &flags.fulcio_url,
            Endpoint::Rekor => &flags.rekor_url,
            Endpoint::OidcIssuer => &flags.oidc_issuer,
        };
        let names = e.names();
        let nonempty = |v: String| (!v.trim().is_empty()).then(|| v.trim().to_owned());
        flag.clone()
            .and_then(nonempty)
            .map(|v| (v, names.flag.to_owned()))
            .or_else(|| {
                std::env::var(names.env_var).ok().and_then(nonempty).map(|v| (v, names.env_var.to_owned()))
            })
            .or_else(|| {
                from_git[e as usize]
                    .clone()
                    .and_then(nonempty)
                    .map(|v| (v, format!("git config {}", names.git_key)))
            })
    });
    let mut config = crate::attest::service_url::sigstore_config(chosen, flags.allow_http_loopback)?;
    config.trusted_root = signing_root(repo, flags)?;
    Ok(Chosen::Signer(Box::new(SigstoreSigner::new(config))))
}

/// The trusted root keyless signing checks its new bundles against: `--sigstore-signing-root`,
/// else SPECCODER_SIGSTORE_SIGNING_ROOT, else `git config speccoder.sigstore.signingRoot`, else
/// none (the public-good root).
#[cfg(feature = "sigstore")]
fn signing_root(repo: &Repo, flags: &SigstoreFlags) -> Result<Option<std::path::PathBuf>, GitError> {
    let nonempty = |v: &OsStr| crate::sign::configured(Some(v)).map(std::path::PathBuf::from);
    if let Some(root) = flags.trusted_root.clone() {
        return Ok(Some(root));
    }
    if let Some(root) = std::env::var_os(SIGNING_ROOT_ENV).as_deref().and_then(nonempty) {
        return Ok(Some(root));
    }
    Ok(repo.config_os_string(SIGNING_ROOT_GIT_KEY)?.as_deref().and_then(nonempty))
}

/// The keyless signer of a build without Sigstore: none.
///
/// # Errors
/// Always: this build cannot sign keylessly.
#[cfg(not(feature = "sigstore"))]
pub fn keyless(_repo: &Repo, _flags: &SigstoreFlags) -> Result<Chosen, SignerError> {
    Err(SignError::CannotSign(crate::sign::SIGSTORE_MISSING_REASON.to_owned()).into())
}

/// Refuses `fulcio_url`, `rekor_url` and `oidc_issuer` in `[attest.sigstore]`: an earlier
/// speccoder read them from the checked-in file. `identity` and `issuer` (the certificate
/// identity and issuer the project expects, as the published tool names them) are accepted; a
/// verifier never takes them as trust.
///
/// # Errors
/// [`SignerError::SigstoreUrlInPolicy`] naming the key and where to set it instead.
#[cfg(feature = "sigstore")]
pub fn refuse_service_urls_in_policy(policy: Option<&toml::Table>) -> Result<(), SignerError> {
    let section = policy.and_then(|t| t.get("attest")).and_then(|a| a.get("sigstore"));
    for names in Endpoint::ALL.map(Endpoint::names) {
        if section.and_then(|s| s.get(names.old_toml_key)).is_some() {
            return Err(SignerError::SigstoreUrlInPolicy(names));
        }
    }
    Ok(())
}

/// Signs `envelope` with `signer`, appending the signature.
///
/// # Errors
/// The signer's failure.
pub fn sign_envelope(envelope: &mut Envelope, signer: &dyn Signer) -> Result<(), SignError> {
    signature_over(envelope, signer)?.apply(envelope);
    Ok(())
}

/// A signature made over an envelope, with the Sigstore bundle a keyless signer made with it.
#[derive(Debug, Clone)]
pub struct Made {
    /// The signature.
    pub signature: Signature,
    /// A keyless signer's bundle, for the envelope's `sigstore` field.
    pub sigstore: Option<RawJson>,
}

impl Made {
    /// Puts it on `envelope`: the signature appended, the bundle as its `sigstore`.
    pub fn apply(self, envelope: &mut Envelope) {
        envelope.signatures.push(self.signature);
        if let Some(bundle) = self.sigstore {
            envelope.sigstore = Some(bundle);
        }
    }

    /// `line`, the envelope it was made over as a note holds it, with it added and every other
    /// byte as it was ([`dsse::add_to_line`]).
    ///
    /// # Errors
    /// The line is not an envelope, carries as many signatures as a line may, or a bundle already.
    pub fn add_to(&self, line: &[u8]) -> Result<Vec<u8>, EnvelopeError> {
        dsse::add_to_line(line, &[self.signature.json()], self.sigstore.as_ref())
    }
}

/// `signer`'s signature over `envelope`, and its bundle when it is keyless; `envelope` is left as
/// it is.
///
/// # Errors
/// The signer's failure.
pub fn signature_over(envelope: &Envelope, signer: &dyn Signer) -> Result<Made, SignError> {
    let sig = signer.sign(&envelope.pae())?;
    let signature = Signature { keyid: signer.keyid(), sig };
    let sigstore = match signer.take_bundle() {
        Some(bundle) => Some(RawJson::from_value(&bundle).map_err(SignError::BundleEncode)?),
        None => None,
    };
    Ok(Made { signature, sigstore })
}

/// The file a key argument names, when it is written as a path (with a `/`, or `~/` for the home
/// directory) and is not a key written out (`key::…`, a public key line): a key id, a fingerprint
/// or an email address never holds a `/`.
fn key_path(key: &str) -> Option<std::path::PathBuf> {
    if key.starts_with("key::") || ssh_key_text(key) {
        return None;
    }
    match key.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(rest)),
        None => key.contains('/').then(|| std::path::PathBuf::from(key)),
    }
}

/// Whether `text` starts as an SSH public key line or an OpenSSH private key does.
fn ssh_key_text(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("ssh-")
        || t.starts_with("ecdsa-")
        || t.starts_with("sk-")
        || t.starts_with("-----BEGIN OPENSSH")
}

/// Whether `key` (a `--key` value) names an SSH key: a `key::` literal, a public key line, or a
/// file holding an OpenSSH key or public key line.
fn looks_like_ssh_key(key: &str) -> bool {
    if key.starts_with("key::") || ssh_key_text(key) {
        return true;
    }
    let path = key_path(key).or_else(|| Some(std::path::PathBuf::from(key)));
    // The first bytes tell. A file that is not a regular one of an SSH key's size is no SSH key;
    // the signer it falls to names what is wrong with it.
    let head = |p: std::path::PathBuf| {
        crate::input::read_regular_through_links(&p, crate::sign::ssh::signer::MAX_KEY_BYTES).ok()
    };
    path.and_then(head).is_some_and(|head| {
        ssh_key_text(&String::from_utf8_lossy(&head))
            || head.starts_with(b"-----BEGIN RSA PRIVATE KEY")
            || head.starts_with(b"-----BEGIN EC PRIVATE KEY")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;

    #[test]
    fn every_signer_request_is_refused_in_a_project_that_turned_attestation_off_or_names_an_unknown_key() {
        let fx = Fixture::new();
        let requests = [None, Some(SignerChoice::None), Some(SignerChoice::Ssh)]
            .map(|signer| SignerRequest { signer, ..SignerRequest::default() });
        for (text, disabled) in [("[attest]\nenabled = false\n", true), ("[attest]\nbogus = 1\n", false)] {
            fx.commit_file("speccoder.toml", text, "config");
            for (req, moment) in requests.iter().flat_map(|r| [(r, Moment::Tick), (r, Moment::Later)]) {
                let refused = match resolve(&fx.repo(), req, moment) {
                    Err(SignerError::Config(ConfigError::Disabled)) => disabled,
                    Err(SignerError::Config(ConfigError::Attest { key: Some(key), .. })) => {
                        !disabled && key.to_string() == "bogus"
                    }
                    _ => false,
                };
                assert!(refused, "{text:?}, {req:?}, {moment:?}");
            }
        }
        fx.commit_file("speccoder.toml", "[attest]\nenabled = true\n", "config");
        assert!(matches!(
            resolve(&fx.repo(), &requests[1], Moment::Later),
            Ok(Chosen::Unsigned(Unsigned::Asked))
        ));
    }

    #[test]
    fn a_key_without_signer_is_chosen_over_the_file_s_none_sigstore_and_later_for_every_moment() {
        let fx = Fixture::new();
        let key = crate::sign::ssh::test_support::keygen(fx.home(), "ada", "ed25519");
        let with_key =
            SignerRequest { key: Some(key.to_str().unwrap().to_owned()), ..SignerRequest::default() };
        for text in [
            "[attest]\nsigner = \"none\"\n",
            "[attest]\nsigner = \"sigstore\"\n",
            "[attest]\nsign_at = \"later\"\nsigner = \"none\"\n",
            "[attest]\nsigner = \"ssh\"\n",
        ] {
            fx.commit_file("speccoder.toml", text, "config");
            for moment in [Moment::Tick, Moment::Later] {
                let Ok(Chosen::Signer(signer)) = resolve(&fx.repo(), &with_key, moment) else {
                    panic!("{text:?}, {moment:?}: the key given does not sign");
                };
                assert!(signer.describe().starts_with("ssh "), "{text:?}: {}", signer.describe());
            }
        }
        fx.commit_file("speccoder.toml", "[attest]\nsigner = \"openpgp\"\n", "config");
        let err = resolve(&fx.repo(), &with_key, Moment::Tick).err().expect("an SSH key as OpenPGP");
        assert!(matches!(&err, SignerError::KeyKind(kind) if kind.flag == "ssh"), "{err}");
        assert!(err.to_string().contains("pass `--signer ssh` with --key"), "{err}");
    }
}
