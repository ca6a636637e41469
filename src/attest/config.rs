//! The project's configuration as the producer reads it: `speccoder.toml` as committed (its judge
//! configuration, hashed into every statement, and its `[attest]` and `[spec]` tables, read as the
//! published speccoder reads them), and the signer a command line or `[attest] signer` names.
//! Whatever of the file an error quotes (a key, a value) is quoted through [`Quoted`]: on one
//! line, escaped and cut short, and only when it passes the clean check, for the file is anyone's
//! to write.

use gix::ObjectId;

use crate::check::policy::{ConfigFileError, config_file};
use crate::exit::{Class, ExitClass};
use crate::git::{GitError, Repo};
use crate::model::clean::shown_if_clean;
use crate::model::policy::{self, CONFIG_FILE};
use crate::model::shown::{Quoted, SHOWN_MAX};
use crate::model::toml_struct::{ArrayLength, Fields, Misfit, Shape, published_form};
use crate::spec::{self, Format, SourceTree};

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
    /// A name speccoder does not know (as a message quotes it).
    #[error("unknown signer `{0}`; use one of: git (or auto), ssh, openpgp, sigstore, none")]
    Unknown(Quoted),
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
            other => Err(SignerParseError::Unknown(quoted(other))),
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

/// The keys of `[attest]`: the published tool's, in its order (an array fills them so), which
/// are all this crate reads there.
const ATTEST_KEYS: Fields = Fields {
    name: "[attest]",
    keys: &[
        ("enabled", Shape::Bool),
        ("signer", Shape::Text),
        ("sign_at", Shape::Text),
        ("sigstore", Shape::Struct(&SIGSTORE_KEYS)),
    ],
};

/// The keys of `[attest.sigstore]`, the published tool's, in its order: the certificate identity
/// and issuer the project expects (a verifier never takes them as trust).
const SIGSTORE_KEYS: Fields =
    Fields { name: "[attest.sigstore]", keys: &[("identity", Shape::Text), ("issuer", Shape::Text)] };

/// The one key of `[spec]`, as the published tool reads it.
const SPEC_KEYS: Fields = Fields { name: "[spec]", keys: &[("format", Shape::Text)] };

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
    #[error("unknown key; the keys of [attest] are {}", ATTEST_KEYS.key_list())]
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
        "unknown signer `{0}`; write \"git\" (git's own key), \"sigstore\" or \"none\" (the values the published speccoder takes too); choose ssh or openpgp with --signer or git's `gpg.format` instead"
    )]
    UnknownSigner(Quoted),
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
    #[error("unknown key; the keys of [attest.sigstore] are {}", SIGSTORE_KEYS.key_list())]
    SigstoreUnknown,
    /// A Sigstore service URL, which a checked-in file must not choose.
    #[error("{}", .0.refusal())]
    SigstoreService(&'static EndpointNames),
    /// `identity` or `issuer` is not a string.
    #[error("must be a string")]
    SigstoreNotAString,
    /// An array written for `[attest]` or `[attest.sigstore]` without one element for each key.
    #[error(transparent)]
    ArrayLength(ArrayLength),
}

/// What is wrong with a key of `[spec]`, which the published speccoder reads to know the project's
/// format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecKeyProblem {
    /// `spec` is not a table.
    #[error(
        "it must be a table (`[spec]` with `format = \"speckit\"` or `format = \"openspec\"` on the line below), not a value"
    )]
    NotATable,
    /// A key the published tool does not read there.
    #[error(
        "unknown key; [spec] holds `format` alone, and the published speccoder refuses the whole file with any other: remove it"
    )]
    Unknown,
    /// `format` is not a string.
    #[error("must be a string: \"speckit\" or \"openspec\"")]
    NotAString,
    /// `format` names no format.
    #[error(
        "`{0}` is no spec format; write \"speckit\" (Spec Kit: features under specs/) or \"openspec\" (OpenSpec: changes under openspec/changes/), or remove the key to look each unit up in both"
    )]
    UnknownFormat(Quoted),
    /// `format = "kiro"`: a format the published tool knows, and neither it nor this one runs.
    #[error(
        "\"kiro\" says the project is written as Kiro specs (.kiro/specs/), which speccoder neither reads nor ticks; it writes evidence for Spec Kit (\"speckit\") and OpenSpec (\"openspec\") projects only: name one of those, or remove the key"
    )]
    Kiro,
    /// An array written for `[spec]` without exactly one element.
    #[error(transparent)]
    ArrayLength(ArrayLength),
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
    #[error("{} in {CONFIG_FILE}: {problem}", key_shown("attest", .key.as_ref()))]
    Attest {
        /// The key as a message quotes it (`None` when `attest` itself is not a table).
        key: Option<Quoted>,
        /// What is wrong with it.
        problem: AttestKeyProblem,
    },
    /// A key of `[spec]` is unknown or has a value it does not take.
    #[error("{} in {CONFIG_FILE}: {problem}", key_shown("spec", .key.as_ref()))]
    Spec {
        /// The key as a message quotes it (`None` when `spec` itself is not a table).
        key: Option<Quoted>,
        /// What is wrong with it.
        problem: SpecKeyProblem,
    },
    /// The project names its format (`[spec] format`), and the unit named is the other format's.
    #[error(
        "unit `{unit}` is {} (`{dir}/`), but {CONFIG_FILE} says this project is written in {} (`[spec] format = \"{chosen}\"`), whose units are {}: name one of those, or, if the project is written in {}, set `[spec] format = \"{found}\"` (or remove the key) in {CONFIG_FILE} and commit it",
        unit_kind(*.found), .chosen.display_name(), units_place(*.chosen), .found.display_name()
    )]
    OtherFormat {
        /// The unit named, as a message quotes it.
        unit: Quoted,
        /// Its directory.
        dir: String,
        /// The format it is in.
        found: Format,
        /// The format `[spec] format` names.
        chosen: Format,
    },
    /// The project turned attestation off.
    #[error(
        "{CONFIG_FILE} at HEAD says `[attest] enabled = false`: this project records no attestations, and nothing was written"
    )]
    Disabled,
}

/// What a unit of `format` is, with its article, for a message.
fn unit_kind(format: Format) -> &'static str {
    match format {
        Format::SpecKit => "a Spec Kit feature",
        Format::OpenSpec => "an OpenSpec change",
    }
}

/// Where the units of `format` are, for a message.
fn units_place(format: Format) -> &'static str {
    match format {
        Format::SpecKit => "the features under `specs/`",
        Format::OpenSpec => "the changes under `openspec/changes/`",
    }
}

/// The key a [`Misfit`]'s array is at, as [`ConfigError::Attest`] and [`ConfigError::Spec`] name
/// it (`None`: the table itself).
fn misfit_key(path: &[&str]) -> Option<Quoted> {
    (!path.is_empty()).then(|| quoted(&path.join(".")))
}

/// A key or value of the file (or a name given on the command line) as an error quotes it:
/// escaped and cut ([`Quoted`]), and only when it passes the clean check ([`shown_if_clean`]).
fn quoted(text: &str) -> Quoted {
    Quoted::from(shown_if_clean(text, SHOWN_MAX))
}

/// How [`ConfigError::Attest`] and [`ConfigError::Spec`] name their key: `[<table>] <key>`, or
/// the table itself.
fn key_shown(table: &str, key: Option<&Quoted>) -> String {
    match key {
        Some(key) => format!("`[{table}] {key}`"),
        None => format!("`{table}`"),
    }
}

impl ExitClass for ConfigError {
    fn class(&self) -> Class {
        match self {
            ConfigError::Git(e) | ConfigError::Policy { source: ConfigFileError::Unread(e), .. } => e.class(),
            ConfigError::Policy { source: ConfigFileError::Unusable(_), .. }
            | ConfigError::Attest { .. }
            | ConfigError::Spec { .. }
            | ConfigError::OtherFormat { .. }
            | ConfigError::Disabled => Class::Config,
        }
    }
}

/// Reads `[attest]` of `policy` (speccoder.toml as committed at HEAD) in every form the published
/// tool takes ([`published_form`]: an array of its keys' values in order, a date or time as its
/// text); absent keys take the published tool's defaults.
///
/// # Errors
/// [`ConfigError::Attest`] naming the key: an unknown key, a value of the wrong type, an array
/// without one element for each key, or a signer this build does not have.
pub fn attest_config(policy: Option<&toml::Table>) -> Result<AttestConfig, ConfigError> {
    let mut config = AttestConfig { enabled: true, signer: SignerChoice::Auto, sign_later: false };
    let Some(section) = policy.and_then(|t| t.get("attest")) else { return Ok(config) };
    let section =
        published_form(section, &Shape::Struct(&ATTEST_KEYS)).map_err(|Misfit { path, problem }| {
            ConfigError::Attest { key: misfit_key(&path), problem: AttestKeyProblem::ArrayLength(problem) }
        })?;
    let bad = |key: &str, problem| ConfigError::Attest { key: Some(quoted(key)), problem };
    let not_a_table = ConfigError::Attest { key: None, problem: AttestKeyProblem::NotATable };
    let table = section.as_table().ok_or(not_a_table)?;
    if let Some(unknown) = table.keys().find(|k| !ATTEST_KEYS.holds(k)) {
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
        "gpg" => Err(AttestKeyProblem::UnknownSigner(name.into())),
        _ => SignerChoice::parse(name).map_err(|e| match e {
            SignerParseError::Unknown(other) => AttestKeyProblem::UnknownSigner(other),
            not_built @ SignerParseError::NotBuilt => AttestKeyProblem::Signer(not_built),
        }),
    }
}

/// Checks `[attest.sigstore]` as the published tool reads it ([`published_form`] wrote it as a
/// table): a table of `identity` and `issuer`, each a string. The error names the key as
/// `sigstore.<key>`.
fn check_sigstore(sigstore: &toml::Value) -> Result<(), (String, AttestKeyProblem)> {
    let table =
        sigstore.as_table().ok_or_else(|| ("sigstore".to_owned(), AttestKeyProblem::SigstoreNotATable))?;
    for (key, value) in table {
        let problem = if let Some(names) = ENDPOINT_NAMES.iter().find(|n| n.old_toml_key == key) {
            AttestKeyProblem::SigstoreService(names)
        } else if !SIGSTORE_KEYS.holds(key) {
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

/// `[spec] format` of `policy` (speccoder.toml as committed): the one format the project's units
/// are written in, as the published speccoder reads it, or `None` when the file names none.
/// `[spec]` holds `format` alone (or is an array of its one value, [`published_form`]); a table
/// without it names no format.
///
/// # Errors
/// [`ConfigError::Spec`] naming the key: `spec` that is no table, another key, a value that is
/// not a string or names no format, an array of other than one element, or `kiro`, which neither
/// tool runs.
pub fn spec_format(policy: Option<&toml::Table>) -> Result<Option<Format>, ConfigError> {
    let Some(section) = policy.and_then(|t| t.get("spec")) else { return Ok(None) };
    let section =
        published_form(section, &Shape::Struct(&SPEC_KEYS)).map_err(|Misfit { path, problem }| {
            ConfigError::Spec { key: misfit_key(&path), problem: SpecKeyProblem::ArrayLength(problem) }
        })?;
    let bad = |key: &str, problem| ConfigError::Spec { key: Some(quoted(key)), problem };
    let not_a_table = ConfigError::Spec { key: None, problem: SpecKeyProblem::NotATable };
    let table = section.as_table().ok_or(not_a_table)?;
    if let Some(unknown) = table.keys().find(|k| !SPEC_KEYS.holds(k)) {
        return Err(bad(unknown, SpecKeyProblem::Unknown));
    }
    let Some(format) = table.get("format") else { return Ok(None) };
    match format.as_str() {
        Some("speckit") => Ok(Some(Format::SpecKit)),
        Some("openspec") => Ok(Some(Format::OpenSpec)),
        Some("kiro") => Err(bad("format", SpecKeyProblem::Kiro)),
        Some(other) => Err(bad("format", SpecKeyProblem::UnknownFormat(quoted(other)))),
        None => Err(bad("format", SpecKeyProblem::NotAString)),
    }
}

/// What a writer of evidence takes from `speccoder.toml` at HEAD: its `[attest]`, and the format
/// its `[spec]` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterConfig {
    /// `[attest]`.
    pub attest: AttestConfig,
    /// `[spec] format`.
    pub format: Option<Format>,
}

/// Refuses `unit` when `tree` holds it in another format than `format`, the one the project's
/// `speccoder.toml` names (`[spec] format`): read as the published speccoder reads the file, the
/// other format's units are no part of the project. The unit is found as everywhere else
/// ([`spec::locate_unit`], in either format, as a verifier finds the unit a tick names, whatever
/// the checked tree's configuration says): a name both formats hold stays ambiguous, and whatever
/// else is wrong with the name is left to the reader of its task to say.
///
/// # Errors
/// [`ConfigError::OtherFormat`], naming the unit's directory and what to do.
pub fn ensure_unit_format(
    format: Option<Format>,
    tree: &dyn SourceTree,
    unit: &str,
) -> Result<(), ConfigError> {
    let Some(chosen) = format else { return Ok(()) };
    match spec::locate_unit(tree, unit) {
        Ok(loc) if loc.format != chosen => {
            Err(ConfigError::OtherFormat { unit: quoted(unit), dir: loc.dir, found: loc.format, chosen })
        }
        _ => Ok(()),
    }
}

/// Refuses to write evidence in a project that turned attestation off (`[attest] enabled =
/// false` in `policy`, speccoder.toml at HEAD); otherwise its `[attest]` and `[spec]`, each read
/// whole.
///
/// # Errors
/// [`ConfigError::Disabled`], or a malformed `[attest]` or `[spec]`.
pub fn ensure_enabled(policy: Option<&toml::Table>) -> Result<WriterConfig, ConfigError> {
    let attest = attest_config(policy)?;
    let format = spec_format(policy)?;
    if attest.enabled { Ok(WriterConfig { attest, format }) } else { Err(ConfigError::Disabled) }
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
    fn a_key_or_a_signer_of_the_file_is_quoted_cut_short_whatever_its_length() {
        let huge = "x".repeat(100_000);
        for text in [
            format!("[attest]\nsigner = \"{huge}\"\n"),
            format!("[attest]\n{huge} = 1\n"),
            format!("[attest.sigstore]\n{huge} = 1\n"),
            format!("[spec]\nformat = \"{huge}\"\n"),
            format!("[spec]\n{huge} = 1\n"),
        ] {
            let table = text.parse::<toml::Table>().expect("TOML");
            let err = ensure_enabled(Some(&table)).unwrap_err().to_string();
            assert!(err.len() < 1_000 && err.contains("x…"), "{} bytes: {}", err.len(), &err[..200]);
        }
        let err = SignerChoice::parse(&huge).unwrap_err().to_string();
        assert!(err.len() < 1_000 && err.contains("x…"), "--signer's value too: {} bytes", err.len());
    }

    #[test]
    fn a_key_or_a_value_of_the_file_that_holds_a_secret_is_named_and_never_shown() {
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        for (text, clean) in [
            (format!("[attest]\nsigner = \"{token}\"\n"), "[attest]\nsigner = \"hsm\"\n"),
            (format!("[attest]\n{token} = 1\n"), "[attest]\nhsm = 1\n"),
            (format!("[attest.sigstore]\n{token} = 1\n"), "[attest.sigstore]\nhsm = 1\n"),
            (format!("[spec]\nformat = \"{token}\"\n"), "[spec]\nformat = \"hsm\"\n"),
            (format!("[spec]\n{token} = 1\n"), "[spec]\nhsm = 1\n"),
        ] {
            let refused = |text: &str| {
                let table = text.parse::<toml::Table>().expect("TOML");
                ensure_enabled(Some(&table)).unwrap_err().to_string()
            };
            let err = refused(&text);
            assert!(!err.contains("R8x2Kq9LmZ4vT7nB3cW6"), "{err}");
            assert!(err.contains("(a value not shown, as it holds a GitHub token)"), "{err}");
            assert!(refused(clean).contains("hsm"), "a clean key or value is still shown: {clean}");
        }
        let err = SignerChoice::parse(token).unwrap_err().to_string();
        assert!(!err.contains("R8x2Kq9LmZ4vT7nB3cW6"), "--signer's value too: {err}");
    }

    #[test]
    fn spec_format_is_read_as_the_published_tool_reads_it() {
        let format = |text: &str| spec_format(Some(&text.parse::<toml::Table>().expect("TOML")));
        assert_eq!(format("").unwrap(), None);
        assert_eq!(format("[spec]\n").unwrap(), None);
        assert_eq!(format("[spec]\nformat = \"speckit\"\n").unwrap(), Some(Format::SpecKit));
        assert_eq!(format("[spec]\nformat = \"openspec\"\n").unwrap(), Some(Format::OpenSpec));
        for (text, says) in [
            ("spec = 1\n", "`spec` in speccoder.toml: it must be a table"),
            ("[spec]\nname = \"x\"\n", "`[spec] name` in speccoder.toml: unknown key"),
            ("[spec]\nformat = true\n", "`[spec] format` in speccoder.toml: must be a string"),
            ("[spec]\nformat = \"SpecKit\"\n", "`SpecKit` is no spec format; write \"speckit\""),
            ("[spec]\nformat = \"kiro\"\n", "which speccoder neither reads nor ticks"),
        ] {
            let err = format(text).unwrap_err();
            assert_eq!(err.class(), Class::Config, "{text}");
            assert!(err.to_string().contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn a_unit_of_the_other_format_than_the_project_s_is_refused_naming_its_directory_and_the_remedy() {
        let tree = crate::spec::MemTree::from_files([
            ("specs/001-tags/tasks.md", "- [ ] T001 a\n"),
            ("openspec/changes/add-filter/tasks.md", "- [ ] 1.1 a\n"),
        ])
        .unwrap();
        let only = |format, unit| ensure_unit_format(Some(format), &tree, unit);
        assert!(only(Format::SpecKit, "001-tags").is_ok() && only(Format::OpenSpec, "add-filter").is_ok());
        assert!(ensure_unit_format(None, &tree, "add-filter").is_ok());
        assert!(only(Format::SpecKit, "no-such-unit").is_ok(), "the task's reader says it is unknown");
        let err = only(Format::SpecKit, "add-filter").unwrap_err();
        assert_eq!(err.class(), Class::Config);
        let err = err.to_string();
        assert!(
            err.starts_with("unit `add-filter` is an OpenSpec change (`openspec/changes/add-filter/`)"),
            "{err}"
        );
        assert!(err.contains("written in Spec Kit (`[spec] format = \"speckit\"`), whose units are the features under `specs/`"), "{err}");
        assert!(err.contains("set `[spec] format = \"openspec\"` (or remove the key)"), "{err}");
        let err = only(Format::OpenSpec, "001-tags").unwrap_err().to_string();
        assert!(err.starts_with("unit `001-tags` is a Spec Kit feature (`specs/001-tags/`)"), "{err}");
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
    fn the_array_and_date_forms_the_published_tool_reads_are_read_with_its_meaning() {
        let read = |text: &str| {
            let table = text.parse::<toml::Table>().expect("TOML");
            (attest_config(Some(&table)).unwrap(), spec_format(Some(&table)).unwrap())
        };
        let (attest, format) =
            read("attest = [true, \"none\", \"tick\", [\"ada@example.com\", \"https://x\"]]\n");
        assert_eq!(attest, AttestConfig { enabled: true, signer: SignerChoice::None, sign_later: false });
        assert_eq!(format, None);
        let (attest, _) = read("attest = [false, \"git\", \"later\", {}]\n");
        assert_eq!(attest, AttestConfig { enabled: false, signer: SignerChoice::Auto, sign_later: true });
        let (attest, _) =
            read("[attest]\nsigner = \"none\"\nsigstore = [2026-01-01T00:00:00Z, 1979-05-27]\n");
        assert_eq!(attest.signer, SignerChoice::None);
        let (attest, _) =
            read("[attest.sigstore]\nidentity = 2026-01-01T00:00:00Z\nissuer = \"https://x\"\n");
        assert_eq!(attest, config("").unwrap(), "a date is the identity's text; the rest defaults");
        assert_eq!(read("spec = [\"openspec\"]\n").1, Some(Format::OpenSpec));
        assert_eq!(read("spec = [\"speckit\"]\n").1, Some(Format::SpecKit));
    }

    #[test]
    fn an_array_or_a_date_the_published_tool_refuses_is_refused_naming_its_key() {
        let read = |text: &str| {
            let table = text.parse::<toml::Table>().expect("TOML");
            ensure_enabled(Some(&table)).unwrap_err()
        };
        for (text, says) in [
            (
                "attest = []\n",
                "`attest` in speccoder.toml: an array here fills the keys of [attest] in their order (enabled, signer, sign_at, sigstore), one element each",
            ),
            (
                "attest = [true, \"none\", \"tick\"]\n",
                "this one has 3: write exactly 4, or a table of the keys",
            ),
            ("attest = [true, \"none\", \"tick\", {}, 1]\n", "this one has 5: write exactly 4"),
            (
                "attest = [true, \"none\", \"tick\", [\"a\"]]\n",
                "`[attest] sigstore` in speccoder.toml: an array here fills the keys of [attest.sigstore] in their order (identity, issuer)",
            ),
            (
                "[attest]\nsigstore = [\"a\", \"b\", \"c\"]\n",
                "`[attest] sigstore` in speccoder.toml: an array here",
            ),
            (
                "attest = [true, \"none\", \"tick\", { fulcio_url = \"https://f\" }]\n",
                "must not choose the Sigstore services",
            ),
            (
                "attest = [\"true\", \"none\", \"tick\", {}]\n",
                "`[attest] enabled` in speccoder.toml: must be true or false",
            ),
            ("attest = [[true, \"none\", \"tick\", {}]]\n", "this one has 1: write exactly 4"),
            ("attest = 2026-01-01\n", "`attest` in speccoder.toml: it must be a table"),
            (
                "[attest]\nenabled = 2026-01-01\n",
                "`[attest] enabled` in speccoder.toml: must be true or false",
            ),
            ("[attest]\nsigner = 2026-01-01\n", "unknown signer `2026-01-01`"),
            (
                "[attest]\nsign_at = 07:32:00\n",
                "`[attest] sign_at` in speccoder.toml: must be \"tick\" or \"later\"",
            ),
            (
                "[attest]\nsigstore = 2026-01-01\n",
                "`[attest] sigstore` in speccoder.toml: it must be a table",
            ),
            (
                "spec = []\n",
                "`spec` in speccoder.toml: an array here fills the keys of [spec] in their order (format), one element each",
            ),
            ("spec = [\"speckit\", \"x\"]\n", "this one has 2: write exactly 1"),
            ("spec = [[\"speckit\"]]\n", "`[spec] format` in speccoder.toml: must be a string"),
            ("spec = [2026-01-01]\n", "`2026-01-01` is no spec format"),
            ("[spec]\nformat = 2026-01-01T00:00:00Z\n", "`2026-01-01T00:00:00Z` is no spec format"),
        ] {
            let err = read(text);
            assert_eq!(err.class(), Class::Config, "{text}");
            assert!(err.to_string().contains(says), "{text}: {err}");
        }
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
