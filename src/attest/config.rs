//! The project's configuration as the producer reads it: `speccoder.toml` as committed (its judge
//! configuration, hashed into every statement, and its `[attest]` table, read as the published
//! speccoder reads it), and the signer a command line or `[attest] signer` names.

use gix::ObjectId;

use crate::check::policy::{ConfigFileError, config_file};
use crate::exit::{Class, ExitClass};
use crate::git::{GitError, Repo};
use crate::model::policy::{self, CONFIG_FILE};
use crate::model::shown::one_line;

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

/// A signer name that is not one of speccoder's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignerParseError {
    /// A name speccoder does not know.
    #[error("unknown signer `{}`; use one of: git (or auto), ssh, openpgp, sigstore, none", one_line(.0))]
    Unknown(String),
    /// `sigstore`, in a build without it.
    #[error("signer `sigstore`: {}", crate::sign::SIGSTORE_MISSING_REASON)]
    NotBuilt,
}

impl SignerChoice {
    /// Reads `git` (or its synonym `auto`), `ssh`, `openpgp`, `sigstore`, `none`: the values of
    /// `--signer` (`[attest] signer` takes fewer: [`attest_config`]).
    ///
    /// # Errors
    /// An unknown or not yet supported backend, with the supported ones.
    pub fn parse(s: &str) -> Result<Self, SignerParseError> {
        match s {
            "git" | "auto" => Ok(SignerChoice::Auto),
            "ssh" => Ok(SignerChoice::Ssh),
            "openpgp" | "gpg" => Ok(SignerChoice::OpenPgp),
            "sigstore" if crate::sign::SIGSTORE_COMPILED => Ok(SignerChoice::Sigstore),
            "sigstore" => Err(SignerParseError::NotBuilt),
            "none" => Ok(SignerChoice::None),
            other => Err(SignerParseError::Unknown(other.to_owned())),
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

/// The keys of `[attest.sigstore]`, the published tool's: the certificate identity and issuer the
/// project expects (a verifier never takes them as trust).
const SIGSTORE_KEYS: [&str; 2] = ["identity", "issuer"];

/// Where one Sigstore service's URL is set by the person signing, and the key an earlier
/// `[attest.sigstore]` of `speccoder.toml` used for it, now refused: whoever writes the branch
/// must not choose where the identity token goes.
#[derive(Debug, PartialEq, Eq)]
pub struct EndpointNames {
    /// The command-line flag.
    pub flag: &'static str,
    /// The environment variable.
    pub env_var: &'static str,
    /// The git configuration key (per user, as git keeps them: `git config --global`).
    pub git_key: &'static str,
    /// The key the old `[attest.sigstore]` table of `speccoder.toml` used, now refused.
    pub old_toml_key: &'static str,
}

impl EndpointNames {
    /// Why the old key is not used, and where to set the URL instead.
    #[must_use]
    pub fn refusal(&self) -> String {
        format!(
            "a checked-in file must not choose the Sigstore services that receive the identity token and the signature, so it is not used: remove it and set the URL yourself with {}, {}, or `git config --global {} URL`",
            self.flag, self.env_var, self.git_key
        )
    }
}

/// The names of the Sigstore services keyless signing uses: Fulcio, Rekor, the OIDC issuer.
#[rustfmt::skip]
pub(crate) const ENDPOINT_NAMES: [EndpointNames; 3] = [
    EndpointNames { flag: "--sigstore-fulcio-url", env_var: "SPECCODER_SIGSTORE_FULCIO_URL", git_key: "speccoder.sigstore.fulcioUrl", old_toml_key: "fulcio_url" },
    EndpointNames { flag: "--sigstore-rekor-url", env_var: "SPECCODER_SIGSTORE_REKOR_URL", git_key: "speccoder.sigstore.rekorUrl", old_toml_key: "rekor_url" },
    EndpointNames { flag: "--sigstore-oidc-issuer", env_var: "SPECCODER_SIGSTORE_OIDC_ISSUER", git_key: "speccoder.sigstore.oidcIssuer", old_toml_key: "oidc_issuer" },
];

/// What is wrong with a key of `[attest]`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttestKeyProblem {
    /// `attest` is not a table.
    #[error("it must be a table (`[attest]` with its keys on the lines below), not a value")]
    NotATable,
    /// A key the published tool does not read.
    #[error("unknown key; the keys of [attest] are {}", ATTEST_KEYS.join(", "))]
    Unknown,
    /// `enabled` is not a boolean.
    #[error("must be true or false")]
    NotABool,
    /// `signer` is not a string.
    #[error("must be a string such as \"git\"")]
    NotAString,
    /// `signer` names no backend this build has.
    #[error(transparent)]
    Signer(SignerParseError),
    /// `signer` names no signer the file takes (`gpg` included, which the published tool refuses).
    #[error(
        "unknown signer `{}`; write \"git\" (git's own key), \"sigstore\" or \"none\" (the values the published speccoder takes too); choose ssh or openpgp with --signer or git's `gpg.format` instead",
        one_line(.0)
    )]
    UnknownSigner(String),
    /// `sign_at` is neither `tick` nor `later`.
    #[error("must be \"tick\" or \"later\"")]
    SignAt,
    /// `signer = "auto"`: a `--signer` value, which the published tool refuses in the file.
    #[error(
        "`auto` is a --signer value; in {CONFIG_FILE} write \"git\", which means the same (the published speccoder refuses the whole file with `auto`)"
    )]
    AutoInFile,
    /// `sigstore` is not a table.
    #[error("it must be a table (`[attest.sigstore]` with `identity` and `issuer`), not a value")]
    SigstoreNotATable,
    /// A key of `[attest.sigstore]` the published tool does not read.
    #[error("unknown key; the keys of [attest.sigstore] are {}", SIGSTORE_KEYS.join(", "))]
    SigstoreUnknown,
    /// A Sigstore service URL, which a checked-in file must not choose.
    #[error("{}", .0.refusal())]
    SigstoreService(&'static EndpointNames),
    /// `identity` or `issuer` is not a string.
    #[error("must be a string")]
    SigstoreNotAString,
}

/// Why the project's configuration stops a command that writes evidence.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The repository failed while reading it.
    #[error(transparent)]
    Git(#[from] GitError),
    /// speccoder.toml, as committed at `commit` (the branch's tip before the task commit, or the
    /// parent of the commit evidence is carried to), is broken or cannot be read. The
    /// [`ConfigFileError`] names the file.
    #[error("at commit {commit}, {source}")]
    Policy {
        /// The commit whose tree holds the file.
        commit: ObjectId,
        /// What is wrong with it.
        source: ConfigFileError,
    },
    /// A key of `[attest]` is unknown or has a value it does not take.
    #[error("{} in {CONFIG_FILE}: {problem}", key_shown(.key))]
    Attest {
        /// The key (empty when `attest` itself is not a table).
        key: String,
        /// What is wrong with it.
        problem: AttestKeyProblem,
    },
    /// The project turned attestation off.
    #[error(
        "{CONFIG_FILE} at HEAD says `[attest] enabled = false`: this project records no attestations, and nothing was written"
    )]
    Disabled,
}

/// How [`ConfigError::Attest`] names its key: `[attest] <key>`, or `attest` itself.
fn key_shown(key: &str) -> String {
    // A key is the file's text, which can hold a line break: quoted on one line.
    if key.is_empty() { "`attest`".to_owned() } else { format!("`[attest] {}`", one_line(key)) }
}

impl ExitClass for ConfigError {
    fn class(&self) -> Class {
        match self {
            ConfigError::Git(e) | ConfigError::Policy { source: ConfigFileError::Unread(e), .. } => e.class(),
            ConfigError::Policy { source: ConfigFileError::Unusable(_), .. }
            | ConfigError::Attest { .. }
            | ConfigError::Disabled => Class::Config,
        }
    }
}

/// Reads `[attest]` of `policy` (speccoder.toml as committed at HEAD); absent keys take the
/// published tool's defaults.
///
/// # Errors
/// [`ConfigError::Attest`] naming the key: an unknown key, a value of the wrong type, or a signer
/// this build does not have.
pub fn attest_config(policy: Option<&toml::Table>) -> Result<AttestConfig, ConfigError> {
    let mut config = AttestConfig { enabled: true, signer: SignerChoice::Auto, sign_later: false };
    let Some(section) = policy.and_then(|t| t.get("attest")) else { return Ok(config) };
    let bad = |key: &str, problem| ConfigError::Attest { key: key.to_owned(), problem };
    let table = section.as_table().ok_or_else(|| bad("", AttestKeyProblem::NotATable))?;
    if let Some(unknown) = table.keys().find(|k| !ATTEST_KEYS.contains(&k.as_str())) {
        return Err(bad(unknown, AttestKeyProblem::Unknown));
    }
    if let Some(enabled) = table.get("enabled") {
        config.enabled = enabled.as_bool().ok_or_else(|| bad("enabled", AttestKeyProblem::NotABool))?;
    }
    if let Some(signer) = table.get("signer") {
        let name = signer.as_str().ok_or_else(|| bad("signer", AttestKeyProblem::NotAString))?;
        config.signer = file_signer(name).map_err(|problem| bad("signer", problem))?;
    }
    if let Some(sigstore) = table.get("sigstore") {
        check_sigstore(sigstore).map_err(|(key, problem)| bad(&key, problem))?;
    }
    if let Some(at) = table.get("sign_at") {
        config.sign_later = match at.as_str() {
            Some("tick") => false,
            Some("later") => true,
            _ => return Err(bad("sign_at", AttestKeyProblem::SignAt)),
        };
    }
    Ok(config)
}

/// The signer `[attest] signer` names: a `--signer` value but `auto` and `gpg`, which the
/// published tool refuses in the file. `ssh` and `openpgp`, which it refuses too, are read (this
/// tool's own), though the message of a refused value does not offer them.
fn file_signer(name: &str) -> Result<SignerChoice, AttestKeyProblem> {
    match name {
        "auto" => Err(AttestKeyProblem::AutoInFile),
        "gpg" => Err(AttestKeyProblem::UnknownSigner(name.to_owned())),
        _ => SignerChoice::parse(name).map_err(|e| match e {
            SignerParseError::Unknown(other) => AttestKeyProblem::UnknownSigner(other),
            not_built @ SignerParseError::NotBuilt => AttestKeyProblem::Signer(not_built),
        }),
    }
}

/// Checks `[attest.sigstore]` as the published tool reads it: a table of `identity` and
/// `issuer`, each a string. The error names the key as `sigstore.<key>`.
fn check_sigstore(sigstore: &toml::Value) -> Result<(), (String, AttestKeyProblem)> {
    let table =
        sigstore.as_table().ok_or_else(|| ("sigstore".to_owned(), AttestKeyProblem::SigstoreNotATable))?;
    for (key, value) in table {
        let problem = if let Some(names) = ENDPOINT_NAMES.iter().find(|n| n.old_toml_key == key) {
            AttestKeyProblem::SigstoreService(names)
        } else if !SIGSTORE_KEYS.contains(&key.as_str()) {
            AttestKeyProblem::SigstoreUnknown
        } else if !value.is_str() {
            AttestKeyProblem::SigstoreNotAString
        } else {
            continue;
        };
        return Err((format!("sigstore.{key}"), problem));
    }
    Ok(())
}

/// Refuses to write evidence in a project that turned attestation off (`[attest] enabled =
/// false` in `policy`, speccoder.toml at HEAD); otherwise its `[attest]`, read whole.
///
/// # Errors
/// [`ConfigError::Disabled`], or a malformed `[attest]`.
pub fn ensure_enabled(policy: Option<&toml::Table>) -> Result<AttestConfig, ConfigError> {
    let config = attest_config(policy)?;
    if config.enabled { Ok(config) } else { Err(ConfigError::Disabled) }
}

/// The policy hash and the parsed configuration of `speccoder.toml` in `commit`'s tree.
///
/// # Errors
/// An unreadable tree, or a file that is not TOML.
pub fn read_policy(repo: &Repo, commit: ObjectId) -> Result<(String, Option<toml::Table>), ConfigError> {
    let tree = repo.commit_tree(commit)?;
    let at = |source| ConfigError::Policy { commit, source };
    let text = config_file(repo, tree).map_err(at)?.map(|(_, text)| text);
    let table = text.as_deref().map(policy::parse_table).transpose().map_err(|e| at(e.into()))?;
    let hash = policy::JudgeConfig::of_table(table.as_ref().unwrap_or(&toml::Table::new())).sha256();
    Ok((hash, table))
}

/// `speccoder.toml` as committed at HEAD, parsed; `None` before the first commit or without one.
///
/// # Errors
/// An unreadable tree, or a file that is not TOML.
pub fn policy_at_head(repo: &Repo) -> Result<Option<toml::Table>, ConfigError> {
    match repo.head()? {
        crate::git::Head::Branch { commit, .. } | crate::git::Head::Detached(commit) => {
            Ok(read_policy(repo, commit)?.1)
        }
        crate::git::Head::Unborn(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<AttestConfig, ConfigError> {
        attest_config(Some(&text.parse::<toml::Table>().expect("TOML")))
    }

    #[test]
    fn an_attest_that_is_no_table_is_named_as_attest_and_a_bad_key_as_its_key() {
        let err = config("attest = \"none\"\n").unwrap_err().to_string();
        assert!(err.starts_with("`attest` in speccoder.toml: it must be a table"), "{err}");
        let err = config("[attest]\nenabled = \"no\"\n").unwrap_err().to_string();
        assert!(err.starts_with("`[attest] enabled` in speccoder.toml: must be true or false"), "{err}");
        let later = config("[attest]\nsign_at = \"later\"\nenabled = false\n").unwrap();
        assert!(later.sign_later && !later.enabled);
    }

    #[test]
    fn a_line_break_in_a_key_or_a_signer_of_the_file_is_quoted_on_one_line() {
        for text in ["[attest]\n\"k\\nattest u/T001: verified\" = 1\n", "[attest]\nsigner = \"x\\nforged\"\n"]
        {
            let err = config(text).unwrap_err().to_string();
            assert!(!err.contains('\n'), "no line of its own for the file's text: {err}");
            assert!(err.contains("\\n"), "the break shown as an escape: {err}");
        }
    }

    #[test]
    fn a_signer_the_file_does_not_take_is_refused_naming_only_the_values_it_takes() {
        for name in ["x509", "gpg"] {
            let err = config(&format!("[attest]\nsigner = \"{name}\"\n")).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("`[attest] signer` in speccoder.toml: unknown signer `{name}`")),
                "{err}"
            );
            assert!(err.contains("write \"git\" (git's own key), \"sigstore\" or \"none\""), "{err}");
            assert!(err.contains("choose ssh or openpgp with --signer or git's `gpg.format`"), "{err}");
            assert!(!err.contains("auto"), "a value the file refuses is not offered: {err}");
        }
        // `--signer` takes `gpg` for OpenPGP still, and the file this tool's own ssh and openpgp.
        assert_eq!(SignerChoice::parse("gpg"), Ok(SignerChoice::OpenPgp));
        assert_eq!(config("[attest]\nsigner = \"ssh\"\n").unwrap().signer, SignerChoice::Ssh);
        assert_eq!(config("[attest]\nsigner = \"openpgp\"\n").unwrap().signer, SignerChoice::OpenPgp);
    }

    #[test]
    fn attest_sigstore_holds_the_published_tool_s_identity_and_issuer_only() {
        let ok = "[attest.sigstore]\nidentity = \"ci@example.com\"\nissuer = \"https://token.actions.githubusercontent.com\"\n";
        assert!(config(ok).is_ok());
        for (text, says) in [
            ("[attest.sigstore]\nbogus = 1\n", "`[attest] sigstore.bogus` in speccoder.toml: unknown key"),
            (
                "[attest.sigstore]\ntrusted_root = \"x\"\n",
                "`[attest] sigstore.trusted_root` in speccoder.toml: unknown key",
            ),
            (
                "[attest.sigstore]\nFULCIO_URL = \"x\"\n",
                "unknown key; the keys of [attest.sigstore] are identity, issuer",
            ),
            ("[attest.sigstore]\nfulcio_url = \"https://f\"\n", "must not choose the Sigstore services"),
            (
                "[attest]\nsigstore = \"https://f\"\n",
                "`[attest] sigstore` in speccoder.toml: it must be a table",
            ),
            (
                "[attest.sigstore]\nidentity = 7\n",
                "`[attest] sigstore.identity` in speccoder.toml: must be a string",
            ),
            ("[attest]\nsigner = \"auto\"\n", "`auto` is a --signer value"),
        ] {
            let err = config(text).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
