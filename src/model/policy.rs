//! The policy hash: what a tick's `policy_sha256` binds, in the two recipes a verifier knows.
//!
//! - **Version-free** (this crate's, and what it writes): sha256 of the canonical JSON of one flat
//!   object keyed by the judge sections' dotted names, `checks`, `acceptance`, `tests`, `mutation`,
//!   `monitor`, `sandbox`, `executor`, `model.provider`, `model.model` and `attest.signer` (absent:
//!   `null`). The tool's own version is deliberately not part of it, so an upgrade never
//!   invalidates old ticks; the version goes into the summary's `verifier.version`.
//! - **Published** (the published speccoder's): sha256 of the canonical JSON of `checks` ...
//!   `executor` as above, `model: {provider, model}` (each `null` when absent), `attest: {signer}`
//!   (`"git"` when absent) and `speccoder_version`, the version of the tool that wrote the note.
//!   A verifier recomputes it with the version the note's signed summary records. A date and a
//!   float JSON cannot hold take the published tool's forms there ([`Forms::Published`]).
//!
//! Comments, formatting, key order and unrelated keys change neither.

use serde::Serialize;
use serde_json::{Map, Number, Value, json};

use super::canonical::value_to_canonical;
use super::clean::shown_if_clean;
use super::dialect::Dialect;
use super::digest::sha256_hex;
use super::shown::SHOWN_MAX;

/// The project configuration file, read at the task commit's parent.
pub const CONFIG_FILE: &str = "speccoder.toml";

/// The judge sections, as dotted paths into the TOML document.
pub const JUDGE_SECTIONS: [&str; 10] = [
    "checks",
    "acceptance",
    "tests",
    "mutation",
    "monitor",
    "sandbox",
    "executor",
    "model.provider",
    "model.model",
    "attest.signer",
];

/// `speccoder.toml` could not be used; the text says why (not TOML, not UTF-8, too large).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("speccoder.toml cannot be used: {0}")]
pub struct PolicyError(pub String);

/// The largest `speccoder.toml` read: a real one is a few KiB, and a parsed TOML table takes
/// several times its text in memory, so a checked branch may not make it as large as it likes.
pub const CONFIG_MAX_BYTES: usize = 1 << 20;

/// What a `speccoder.toml` may hold, counted before it is parsed ([`super::toml_bound`]): a
/// checked branch writes the file the verifier parses at every task commit's parent, and a
/// megabyte of `{}` or dotted keys would take a hundred times that. The published tool's
/// configuration is a few tables of a few keys each, its lists a few entries (commands, globs,
/// test names): thousands of tables or a hundred thousand values is no project's.
pub const CONFIG_LIMITS: super::toml_bound::Limits =
    super::toml_bound::Limits { tables: 10_000, dots: 5_000, values: 100_000 };

/// `speccoder.toml`'s `text` as a TOML table, refused unparsed when it is over
/// [`CONFIG_MAX_BYTES`] or holds more than [`CONFIG_LIMITS`].
///
/// # Errors
/// Too large, or not TOML.
pub fn parse_table(text: &str) -> Result<toml::Table, PolicyError> {
    if text.len() > CONFIG_MAX_BYTES {
        return Err(too_large(text.len() as u64));
    }
    super::toml_bound::check(text, CONFIG_LIMITS).map_err(|e| {
        let (line, column) = line_column(text, e.offset);
        PolicyError(format!(
            "it holds {e} at line {line}, column {column}, more than any project's configuration; {MAKE_IT_SMALLER}"
        ))
    })?;
    text.parse().map_err(|e: toml::de::Error| PolicyError(not_toml(text, &e)))
}

/// Why a `speccoder.toml` of `size` bytes is not read: over [`CONFIG_MAX_BYTES`].
#[must_use]
pub fn too_large(size: u64) -> PolicyError {
    PolicyError(format!(
        "it is {size} bytes, more than the {CONFIG_MAX_BYTES} bytes read of it; {MAKE_IT_SMALLER}"
    ))
}

/// What to do about a `speccoder.toml` over [`CONFIG_MAX_BYTES`] or [`CONFIG_LIMITS`]: what a
/// configuration holds, and that the smaller file must be committed (both wings read it as
/// committed).
const MAKE_IT_SMALLER: &str = "make it smaller: a project's configuration is a few tables of a few keys each ([checks], [tests], [model], [attest], [spec] ...), its lists a few entries, so keep those and remove whatever else it holds, then commit it";

/// Why `text` is not TOML, quoting the offending line through [`shown_if_clean`]: the file is
/// checked in, so the line may hold escape sequences, a secret or megabytes, and the message
/// reaches a terminal and a CI log (the parser's own message echoes the line raw and whole).
fn not_toml(text: &str, e: &toml::de::Error) -> String {
    let mut what = shown_if_clean(e.message().trim(), SHOWN_MAX);
    // The parser names no place for a key of more dots than it follows: found here.
    let deep = e.span().is_none().then(|| super::toml_bound::deep_key(text)).flatten();
    if let Some(key) = deep {
        what = format!(
            "a key of {} dots, more than the {} the parser follows (it says `{what}`); write the key with fewer",
            key.dots,
            super::toml_bound::PARSER_KEY_DOTS
        );
    }
    let Some(start) = e.span().map(|span| span.start.min(text.len())).or(deep.map(|key| key.offset)) else {
        return format!("it is not valid TOML: {what} (the parser names no line)");
    };
    let before = text.get(..start).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text.get(line_start..).unwrap_or_default();
    let line = line.split('\n').next().unwrap_or_default().trim_end_matches('\r');
    let (number, column) = line_column(text, start);
    format!(
        "it is not valid TOML at line {number}, column {column}: {what}; the line reads `{}`",
        shown_if_clean(line, SHOWN_MAX)
    )
}

/// The 1-based line and column (in characters) of the byte `offset` of `text` (an offset past
/// the end, or inside a character, counts from the last character boundary before it).
#[must_use]
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
}

/// The sections both recipes take whole, under their own names.
const WHOLE_SECTIONS: [&str; 7] =
    ["checks", "acceptance", "tests", "mutation", "monitor", "sandbox", "executor"];

/// The published recipe's `attest.signer` when `speccoder.toml` names none.
pub const PUBLISHED_DEFAULT_SIGNER: &str = "git";

/// Every release of the published speccoder (crates.io, oldest first). Its decisions (`accept`,
/// `skip`) are one task-verification line with no summary, so they record no version, yet their
/// digest hashes one in: the version that wrote them is one of these. Each new release is added
/// here, or its decisions show a `policy_mismatch` that names the last release tried.
pub const PUBLISHED_RELEASES: [&str; 19] = [
    "0.0.1", "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.5.1", "0.5.2", "0.6.0", "0.6.1", "0.7.0",
    "0.7.1", "0.7.2", "0.8.0", "0.8.1", "0.8.2", "0.8.3", "0.8.4", "0.9.0",
];

/// The judge sections of one `speccoder.toml`, read once and hashed by either recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeConfig {
    /// Each of [`JUDGE_SECTIONS`] by its dotted name, `null` when absent ([`Forms::VersionFree`]).
    sections: Map<String, Value>,
    /// The same, dates and odd floats as the published tool hashes them ([`Forms::Published`]).
    published_sections: Map<String, Value>,
    /// The version-free digest of `sections`, computed once.
    version_free_sha256: String,
}

impl JudgeConfig {
    /// The judge sections of `toml_text` (`None`: the file is absent).
    ///
    /// # Errors
    /// What [`parse_table`] refuses.
    pub fn parse(toml_text: Option<&str>) -> Result<Self, PolicyError> {
        Ok(match toml_text {
            Some(text) => Self::of_table(&parse_table(text)?),
            None => Self::of_table(&toml::Table::new()),
        })
    }

    /// The judge sections of the parsed `speccoder.toml` `doc`.
    #[must_use]
    pub fn of_table(doc: &toml::Table) -> Self {
        let sections_as = |forms: Forms| -> Map<String, Value> {
            let mut sections = Map::new();
            for path in JUDGE_SECTIONS {
                let mut node: Option<&toml::Value> = None;
                for (i, part) in path.split('.').enumerate() {
                    node = if i == 0 { doc.get(part) } else { node.and_then(|n| n.get(part)) };
                }
                sections.insert(path.to_owned(), node.map_or(Value::Null, |v| toml_to_json(v, forms)));
            }
            sections
        };
        let (sections, published_sections) = (sections_as(Forms::VersionFree), sections_as(Forms::Published));
        let version_free_sha256 = sha256_hex(value_to_canonical(&Value::Object(sections.clone())));
        JudgeConfig { sections, published_sections, version_free_sha256 }
    }

    /// The section at dotted `path` (one of [`JUDGE_SECTIONS`]) as the published recipe takes it,
    /// `null` when absent.
    fn published_get(&self, path: &str) -> Value {
        self.published_sections.get(path).cloned().unwrap_or(Value::Null)
    }

    /// The published recipe's object for the tool version `speccoder_version`.
    #[must_use]
    pub fn published(&self, speccoder_version: &str) -> Value {
        let mut out: Map<String, Value> =
            WHOLE_SECTIONS.iter().map(|s| ((*s).to_owned(), self.published_get(s))).collect();
        // The published tool reads these three as strings: any other value it hashes as `null`
        // (the model's) or as its default signer.
        let string_or_null = |path| match self.published_get(path) {
            given @ Value::String(_) => given,
            _ => Value::Null,
        };
        out.insert(
            "model".into(),
            json!({"provider": string_or_null("model.provider"), "model": string_or_null("model.model")}),
        );
        let signer = match string_or_null("attest.signer") {
            Value::Null => Value::String(PUBLISHED_DEFAULT_SIGNER.into()),
            given => given,
        };
        out.insert("attest".into(), json!({ "signer": signer }));
        out.insert("speccoder_version".into(), Value::String(speccoder_version.to_owned()));
        Value::Object(out)
    }

    /// The version-free digest (what this crate writes as `policy_sha256`).
    #[must_use]
    pub fn sha256(&self) -> String {
        self.version_free_sha256.clone()
    }

    /// The published recipe's digest for the tool version `speccoder_version`.
    #[must_use]
    pub fn published_sha256(&self, speccoder_version: &str) -> String {
        sha256_hex(value_to_canonical(&self.published(speccoder_version)))
    }

    /// Which recipe gives `signed`: the version-free one, else the published one with
    /// `speccoder_version` (when a version is known); `None` when neither does.
    #[must_use]
    pub fn matching(&self, signed: &str, speccoder_version: Option<&str>) -> Option<Recipe> {
        if self.version_free_sha256 == signed {
            return Some(Recipe::VersionFree);
        }
        let version = speccoder_version?;
        (self.published_sha256(version) == signed)
            .then(|| Recipe::Published { speccoder_version: version.to_owned() })
    }

    /// Which recipe gives `signed` for a note that records no version (a decision): the
    /// version-free one, else the published one with one of [`PUBLISHED_RELEASES`], newest first.
    /// The version only salts the digest, so whichever release gives it, the configuration is the
    /// one the decision was made under.
    #[must_use]
    pub fn matching_any_release(&self, signed: &str) -> Option<Recipe> {
        if self.version_free_sha256 == signed {
            return Some(Recipe::VersionFree);
        }
        PUBLISHED_RELEASES
            .iter()
            .rev()
            .find(|version| self.published_sha256(version) == signed)
            .map(|version| Recipe::Published { speccoder_version: (*version).to_owned() })
    }
}

/// The recipe a note's `policy_sha256` was found to follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "recipe", rename_all = "snake_case")]
pub enum Recipe {
    /// The judge configuration alone (what this crate writes).
    VersionFree,
    /// The published speccoder's: the judge configuration with the version that wrote the note,
    /// as the note's signed summary records it (for a decision, which records none, the release
    /// whose digest it is).
    Published {
        /// The recorded version, as the summary carries it (a note's text: quoted), or the
        /// release found.
        #[serde(serialize_with = "crate::model::shown::in_line")]
        speccoder_version: String,
    },
}

impl Recipe {
    /// The shapes a note under this recipe is read in: the published speccoder's under its
    /// recipe, this crate's under the version-free one.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        match self {
            Recipe::VersionFree => Dialect::Ours,
            Recipe::Published { .. } => Dialect::Published,
        }
    }
}

impl std::fmt::Display for Recipe {
    /// `version-free recipe`, or `published recipe, speccoder <version>` (the version's control
    /// and quote characters escaped, at most 64 characters shown).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recipe::VersionFree => f.write_str("version-free recipe"),
            Recipe::Published { speccoder_version } => {
                write!(f, "published recipe, speccoder {}", shown_version(speccoder_version))
            }
        }
    }
}

/// A recorded version as a report shows it: escaped, at most 64 characters, `…` when cut.
#[must_use]
pub fn shown_version(version: &str) -> String {
    let mut out: String = version.chars().take(64).flat_map(char::escape_debug).collect();
    if version.chars().nth(64).is_some() {
        out.push('…');
    }
    out
}

/// The version-free digest of `toml_text` (`None`: the file is absent): what the producer writes.
///
/// # Errors
/// When the text is not TOML.
pub fn policy_sha256(toml_text: Option<&str>) -> Result<String, PolicyError> {
    Ok(JudgeConfig::parse(toml_text)?.sha256())
}

/// TOML to JSON in the `forms` of one recipe (docs/task-verification-v0.md names them, for a
/// recomputation): a date or time, and a float that JSON cannot hold, take the recipe's form.
fn toml_to_json(v: &toml::Value, forms: Forms) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::Number((*i).into()),
        toml::Value::Float(f) => Number::from_f64(*f).map_or_else(|| forms.odd_float(*f), Value::Number),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => forms.date(d),
        toml::Value::Array(items) => Value::Array(items.iter().map(|i| toml_to_json(i, forms)).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.clone(), toml_to_json(v, forms))).collect())
        }
    }
}

/// How a recipe turns the TOML values JSON has no form for into JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Forms {
    /// A date or time as its RFC 3339 text; a float JSON cannot hold as Rust's spelling of it as a
    /// string (`NaN`, `inf`, `-inf`).
    VersionFree,
    /// As the published tool's TOML reader turns them into JSON, which its recipe hashes: a date as
    /// `{"$__toml_private_datetime": "<RFC 3339 text>"}`; a float JSON cannot hold as `null`.
    Published,
}

impl Forms {
    /// The non-finite float `f` (`nan`, `inf`, `-inf`, signed or not) in this recipe.
    fn odd_float(self, f: f64) -> Value {
        match self {
            Forms::VersionFree => Value::String(f.to_string()),
            Forms::Published => Value::Null,
        }
    }

    /// The TOML date or time `d` in this recipe: the published tool's reader spells it as it was
    /// written (`07:32`, `07:32:00.0`); the version-free recipe always with its seconds and with
    /// a fraction only when it is not zero (`07:32:00`), as this crate has hashed it from the start.
    fn date(self, d: &toml::value::Datetime) -> Value {
        match self {
            Forms::VersionFree => Value::String(version_free_date(d)),
            Forms::Published => json!({ PUBLISHED_DATE_KEY: d.to_string() }),
        }
    }
}

/// `d` as the version-free recipe writes it: its date, time and offset as RFC 3339 spells them,
/// the seconds always written, the fraction without trailing zeros and left out when zero.
fn version_free_date(d: &toml::value::Datetime) -> String {
    let mut out = d.date.map(|date| date.to_string()).unwrap_or_default();
    if let Some(time) = d.time {
        if d.date.is_some() {
            out.push('T');
        }
        let second = time.second.unwrap_or(0);
        out.push_str(&format!("{:02}:{:02}:{second:02}", time.hour, time.minute));
        if let Some(nanosecond) = time.nanosecond.filter(|n| *n != 0) {
            out.push('.');
            out.push_str(format!("{nanosecond:09}").trim_end_matches('0'));
        }
    }
    if let Some(offset) = d.offset {
        out.push_str(&offset.to_string());
    }
    out
}

/// The one key of a date in the published recipe ([`Forms::Published`]).
const PUBLISHED_DATE_KEY: &str = "$__toml_private_datetime";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_of_a_hundred_thousand_tables_is_refused_before_it_is_parsed() {
        let e = parse_table(&"[[x]]\n".repeat(100_000)).unwrap_err();
        assert!(e.0.contains("more than 10000 tables and arrays") && e.0.contains("line 5001"), "{e}");
        assert!(e.0.ends_with(MAKE_IT_SMALLER), "what to do: {e}");
        let e = parse_table(&"a.b = 1\n".repeat(100_000)).unwrap_err();
        assert!(e.0.contains("dotted keys"), "{e}");
        let real = "[tests]\ncommand = \"cargo test\"\ntimeout = 1.5\n[attest]\nsigner = \"git\"\n[model]\nprovider = \"p\"\n";
        assert!(parse_table(real).is_ok());
    }

    #[test]
    fn a_key_of_more_dots_than_the_parser_follows_is_named_at_its_line() {
        let e = parse_table(&format!("[tests]\ntimeout = 1\n{} = 1\n", "a.".repeat(200) + "a")).unwrap_err();
        assert!(e.0.contains("at line 3, column 1: a key of 200 dots, more than the 79"), "{e}");
    }

    #[test]
    fn comments_formatting_order_and_unrelated_keys_do_not_change_the_hash() {
        let a = "[tests]\ncommand = \"cargo test\"\ntimeout = 60\n[model]\nprovider = \"x\"\n";
        let b = "# judge\n[model]\nprovider='x'\nname_unrelated = 1\n\n[tests]\ntimeout=60\ncommand =   \"cargo test\" # c\n[ui]\ncolor = true\n";
        assert_eq!(policy_sha256(Some(a)).unwrap(), policy_sha256(Some(b)).unwrap());
    }

    #[test]
    fn a_judge_value_changes_the_hash() {
        let a = policy_sha256(Some("[tests]\ntimeout = 60\n")).unwrap();
        let b = policy_sha256(Some("[tests]\ntimeout = 61\n")).unwrap();
        let c = policy_sha256(Some("[attest]\nsigner = \"ssh\"\n")).unwrap();
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn an_absent_file_hashes_every_section_as_null() {
        let expected = "{\"acceptance\":null,\"attest.signer\":null,\"checks\":null,\"executor\":null,\"model.model\":null,\"model.provider\":null,\"monitor\":null,\"mutation\":null,\"sandbox\":null,\"tests\":null}";
        assert_eq!(policy_sha256(None).unwrap(), sha256_hex(expected));
        assert_eq!(policy_sha256(Some("")).unwrap(), sha256_hex(expected));
    }

    #[test]
    fn the_published_recipe_hashes_the_sections_model_attest_and_the_version() {
        let text = "[tests]\ncommand = \"cargo test\"\n[model]\nprovider = \"x\"\n[attest]\nsigner = \"none\"\nsign_at = \"later\"\n";
        // Written out by hand: keys sorted, compact, `model.model` null, the signer as given.
        let expected = r#"{"acceptance":null,"attest":{"signer":"none"},"checks":null,"executor":null,"model":{"model":null,"provider":"x"},"monitor":null,"mutation":null,"sandbox":null,"speccoder_version":"0.7.2","tests":{"command":"cargo test"}}"#;
        let config = JudgeConfig::parse(Some(text)).unwrap();
        assert_eq!(config.published_sha256("0.7.2"), sha256_hex(expected));
        assert_ne!(config.published_sha256("0.9.0"), config.published_sha256("0.7.2"));
        assert_ne!(config.published_sha256("0.7.2"), config.sha256());
    }

    #[test]
    fn the_published_recipe_hashes_a_model_or_signer_that_is_no_string_as_the_published_tool_reads_it() {
        // speccoder 0.9.0 signed this digest for `[model] provider = 5, model = ["a"]`.
        let expected = r#"{"acceptance":null,"attest":{"signer":"git"},"checks":null,"executor":null,"model":{"model":null,"provider":null},"monitor":null,"mutation":null,"sandbox":null,"speccoder_version":"0.9.0","tests":{"frozen":"additions"}}"#;
        let text =
            "[model]\nprovider = 5\nmodel = [\"a\"]\n[attest]\nsigner = 7\n[tests]\nfrozen = \"additions\"\n";
        let config = JudgeConfig::parse(Some(text)).unwrap();
        assert_eq!(config.published_sha256("0.9.0"), sha256_hex(expected));
        assert_eq!(&sha256_hex(expected)[..8], "856d8c1b");
    }

    #[test]
    fn the_published_recipe_defaults_the_signer_to_git_and_keeps_model_an_object() {
        let expected = r#"{"acceptance":null,"attest":{"signer":"git"},"checks":null,"executor":null,"model":{"model":null,"provider":null},"monitor":null,"mutation":null,"sandbox":null,"speccoder_version":"0.9.0","tests":null}"#;
        assert_eq!(JudgeConfig::parse(None).unwrap().published_sha256("0.9.0"), sha256_hex(expected));
        let attest_without_signer = JudgeConfig::parse(Some("[attest]\nenabled = true\n")).unwrap();
        assert_eq!(attest_without_signer.published_sha256("0.9.0"), sha256_hex(expected));
    }

    #[test]
    fn matching_names_the_recipe_that_gives_the_signed_digest() {
        let config = JudgeConfig::parse(Some("[checks]\nlint = true\n")).unwrap();
        assert_eq!(config.matching(&config.sha256(), None), Some(Recipe::VersionFree));
        assert_eq!(config.matching(&config.sha256(), Some("0.7.2")), Some(Recipe::VersionFree));
        let published = config.published_sha256("0.7.2");
        assert_eq!(
            config.matching(&published, Some("0.7.2")),
            Some(Recipe::Published { speccoder_version: "0.7.2".into() })
        );
        assert_eq!(config.matching(&published, Some("0.7.3")), None);
        assert_eq!(config.matching(&published, None), None);
    }

    #[test]
    fn a_recipe_reads_as_the_report_shows_it() {
        assert_eq!(Recipe::VersionFree.to_string(), "version-free recipe");
        let published = Recipe::Published { speccoder_version: "0.7.2".into() };
        assert_eq!(published.to_string(), "published recipe, speccoder 0.7.2");
        assert_eq!(
            serde_json::to_value(&published).unwrap(),
            json!({"recipe": "published", "speccoder_version": "0.7.2"})
        );
        assert_eq!(serde_json::to_value(Recipe::VersionFree).unwrap(), json!({"recipe": "version_free"}));
        assert_eq!(shown_version("1.0\n\u{1b}[31m"), "1.0\\n\\u{1b}[31m");
        assert_eq!(shown_version(&"9".repeat(70)), format!("{}…", "9".repeat(64)));
    }

    #[test]
    fn the_published_recipe_hashes_a_date_in_the_form_the_published_tool_reads_it() {
        let text = "[model]\nprovider = \"anthropic\"\nmodel = \"claude-sonnet-4-5\"\n\
                    [checks.unit]\nargv = [\"cargo\", \"test\"]\njunit = 1979-05-27\nsince = 1979-05-27T07:32:00Z\n";
        let config = JudgeConfig::parse(Some(text)).unwrap();
        // sha256 of the canonical JSON with each date as {"$__toml_private_datetime": "<text>"},
        // computed apart by Python's json.dumps(sort_keys=True, separators=(",", ":")).
        let published = "3b14f083a44cd3ff9a15b1cabee62ae0ea9b6ff2b70b723cd145f319df0bd468";
        assert_eq!(config.published_sha256("0.9.0"), published);
        assert!(matches!(config.matching(published, Some("0.9.0")), Some(Recipe::Published { .. })));
        // The version-free recipe keeps the date as its text, as the specification says.
        let text_form = "[checks.unit]\njunit = \"1979-05-27\"\n";
        let date_form = "[checks.unit]\njunit = 1979-05-27\n";
        assert_eq!(policy_sha256(Some(text_form)).unwrap(), policy_sha256(Some(date_form)).unwrap());
    }

    #[test]
    fn numbers_dates_and_odd_floats_take_the_json_forms_the_specification_names() {
        let text = "[mutation]\nbig = 1e300\nsmall = 1.5e-7\nhalf = 0.5\nint = 7\nn = nan\nm = -inf\nsince = 1979-05-27T07:32:00Z\n";
        let table = parse_table(text).unwrap();
        let json = value_to_canonical(&toml_to_json(&toml::Value::Table(table), Forms::VersionFree));
        assert_eq!(
            String::from_utf8(json).unwrap(),
            r#"{"mutation":{"big":1e+300,"half":0.5,"int":7,"m":"-inf","n":"NaN","since":"1979-05-27T07:32:00Z","small":1.5e-7}}"#
        );
    }

    #[test]
    fn the_published_recipe_hashes_a_float_json_cannot_hold_as_null_as_the_published_tool_does() {
        // The digests speccoder 0.9.0 signed for `task accept` under each configuration.
        let one = "[checks.t]\nargv = [\"true\"]\nlimit = nan\n";
        let config = JudgeConfig::parse(Some(one)).unwrap();
        let signed = "86337798e46a53fd0d5dcba169fcdd725ad78d134fb2956520a279a9d1715bb1";
        assert_eq!(config.published_sha256("0.9.0"), signed);
        let every_spelling = "[checks.t]\nargv = [\"true\"]\nlimit = nan\nhi = +inf\nlo = -inf\n\
                              xs = [-nan, inf, 1.5, +nan]\n";
        let config = JudgeConfig::parse(Some(every_spelling)).unwrap();
        let signed = "046068f472f385ad4bd7d549e25d2e8dc21c5fb624296ba40244d27f7266d137";
        assert_eq!(
            config.matching_any_release(signed),
            Some(Recipe::Published { speccoder_version: "0.9.0".into() })
        );
        // The version-free recipe keeps its own form, so `nan` and `null` still differ there.
        let null_written = "[checks.t]\nargv = [\"true\"]\n";
        assert_ne!(policy_sha256(Some(one)).unwrap(), policy_sha256(Some(null_written)).unwrap());
    }

    #[test]
    fn a_time_without_seconds_or_with_a_zero_fraction_hashes_as_the_published_tool_signed_it() {
        // The digests speccoder 0.9.0 signed for `task accept` under each configuration.
        let signed = [
            ("07:32", "243144714f8bf0dd7faf9ebb4852a6cc9be6517a29141d31ab42efe6deb85da2"),
            ("1979-05-27T07:32:00.000Z", "d8138aaf8879dad0a0963e94eb56d77cf5b31665ae6592bd552c729edcbd6c79"),
            (
                "1979-05-27T07:32:00.5+01:00",
                "30ad5273928ea3dc5f8a85bda7001bfe96a376d2e85282279c101c69d2ab7166",
            ),
        ];
        for (since, digest) in signed {
            let text = format!("[checks.unit]\nargv = [\"cargo\", \"test\"]\nsince = {since}\n");
            let config = JudgeConfig::parse(Some(&text)).unwrap();
            assert_eq!(config.published_sha256("0.9.0"), digest, "{since}");
        }
    }

    #[test]
    fn the_version_free_recipe_writes_a_time_with_its_seconds_and_no_zero_fraction() {
        let forms = [
            ("07:32", "07:32:00"),
            ("07:32:00.000", "07:32:00"),
            ("1979-05-27T07:32Z", "1979-05-27T07:32:00Z"),
            ("1979-05-27T07:32:00.500+01:00", "1979-05-27T07:32:00.5+01:00"),
            ("1979-05-27", "1979-05-27"),
            ("1979-05-27 07:32:01.000000001", "1979-05-27T07:32:01.000000001"),
        ];
        for (written, hashed) in forms {
            let table = parse_table(&format!("since = {written}\n")).unwrap();
            let json = toml_to_json(&toml::Value::Table(table), Forms::VersionFree);
            assert_eq!(json["since"], hashed, "{written}");
        }
    }

    #[test]
    fn dates_and_odd_floats_hash_without_error() {
        assert!(policy_sha256(Some("[checks]\nsince = 1979-05-27T07:32:00Z\nx = nan\n")).is_ok());
    }

    #[test]
    fn invalid_toml_is_an_error() {
        assert!(policy_sha256(Some("[tests\n")).is_err());
    }

    #[test]
    fn a_toml_error_names_the_line_and_quotes_it_only_when_clean() {
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        for text in [format!("[attest]\nsigner = {token}\n"), format!("{token}\n")] {
            let err = parse_table(&text).unwrap_err().to_string();
            assert!(!err.contains("R8x2Kq9LmZ4vT7nB3cW6"), "{err}");
            assert!(err.contains("(a value not shown, as it holds a GitHub token)"), "{err}");
            assert!(err.contains("it is not valid TOML at line "), "{err}");
        }
        let err = parse_table("[attest]\nsigner = hsm\n").unwrap_err().to_string();
        assert!(err.contains("the line reads `signer = hsm`"), "{err}");
    }

    #[test]
    fn a_toml_error_names_the_line_and_quotes_it_escaped_and_cut() {
        let text = format!("[checks]\nx = \"\u{1b}[2K{}\" junk\n", "a".repeat(500));
        let err = parse_table(&text).unwrap_err().to_string();
        assert!(
            err.starts_with("speccoder.toml cannot be used: it is not valid TOML at line 2, column "),
            "{err}"
        );
        assert!(err.contains("the line reads `x = \"\\u{1b}[2Kaaa"), "{err}");
        assert!(err.ends_with("aaa…`"), "{err}");
        assert!(!err.contains('\u{1b}') && err.len() < 400, "{err}");
    }

    #[test]
    fn a_configuration_over_a_mebibyte_is_refused_before_it_is_parsed() {
        let comment = format!("# {}\n", "x".repeat(CONFIG_MAX_BYTES));
        let err = policy_sha256(Some(&comment)).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "speccoder.toml cannot be used: it is {} bytes, more than the 1048576 bytes read of it; {MAKE_IT_SMALLER}",
                comment.len()
            )
        );
        let at_the_limit = format!("# {}\n", "x".repeat(CONFIG_MAX_BYTES - 3));
        assert!(policy_sha256(Some(&at_the_limit)).is_ok());
    }
}
