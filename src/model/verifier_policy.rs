//! The verifier policy: the verifier's own rules, per unit, for who may tick, which verdicts and
//! phases count, which evidence the signed predicate must show, how many people must approve, and
//! which ticks made by hand before adoption hold (the baseline). It is TOML, versioned, and read
//! only from the verifier's side (`attest verify --policy FILE | --policy-rev REV:PATH`): a file
//! of the checked tree never chooses the rules that judge it. docs/policy.md is its reference;
//! `schema/verifier-policy.schema.json` is generated from [`VerifierPolicy`].
//!
//! Parsing is strict: an unknown key, a value of the wrong type, a malformed glob, a version other
//! than 1 or a rule that says nothing it can be held to is refused, naming the line and the column
//! ([`PolicyParseError`]). This module is pure: it parses and matches; the verifier applies a rule
//! to a tick's signed evidence.

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use unicode_normalization::UnicodeNormalization as _;

use super::audit_shapes::MonitorState;
use super::digest::sha256_hex;
use super::policy::line_column;
use super::predicate::Verdict;
use super::shown::{SHOWN_MAX, shown};
use super::test_result::Phase;

/// A type read through a check of its own, described to JSON Schema by hand: what the check
/// enforces, inline where it is used.
macro_rules! schema {
    ($ty:ty, $schema:tt) => {
        impl JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }
            fn inline_schema() -> bool {
                true
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}

/// The one version this build reads.
pub const VERSION: u32 = 1;

/// The largest policy file read: a policy of hundreds of rules is a few tens of KiB.
pub const MAX_BYTES: u64 = 1 << 20;

/// The most rules one policy holds: each tick is matched against them in order.
pub const MAX_RULES: usize = 1000;

/// The most unit globs one policy holds, all rules together: each compiled glob holds a few KiB.
pub const MAX_GLOBS: usize = 4096;

/// The most bytes of unit globs one policy holds, all rules together: a glob of many alternatives
/// (`{a*,b*,…}`) compiles to tens of KiB.
pub const MAX_GLOB_BYTES: usize = 64 * 1024;

/// The most entries one list of a rule holds (unit globs, signers, approvers, verdicts, phases,
/// monitor states, sandbox modes).
pub const MAX_LIST: usize = 1000;

/// What a policy's text may hold, counted before it is parsed ([`super::toml_bound`]), so that a
/// hostile file is refused before its document is built. Loose enough for every policy these caps
/// accept, since the count is of the parser's own tokens (never of a string's or a comment's
/// text): a rule opens at most 10 tables and arrays (`[[rule]]` two, `[rule.approvals]` or
/// `approvals = {` one, seven lists) and writes at most 5 dots (`rule.approvals`,
/// `approvals.count`, `approvals.by`, two floats); the top level adds at most two of each
/// (`[baseline]` or `baseline.commit` and `baseline.reason`, `rule = [`). Every `=` or `,` of a
/// policy that reads comes with at least three more bytes of its own (`"a",`, `by=[`), so a file
/// of [`MAX_BYTES`] holds at most a quarter as many values.
pub const TEXT_LIMITS: super::toml_bound::Limits = super::toml_bound::Limits {
    tables: 10 * MAX_RULES + 2,
    dots: 5 * MAX_RULES + 2,
    values: (MAX_BYTES / 4) as usize,
};

/// The principal that stands for any principal the verifier's trust accepts.
pub const ANY: &str = "*";

/// A verifier policy, as `version = 1` defines it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "speccoder verifier policy, version 1")]
pub struct VerifierPolicy {
    /// The format's version: 1.
    pub version: Version,
    /// Tasks ticked by hand before speccoder was adopted, which hold as they are.
    #[serde(default)]
    pub baseline: Option<Baseline>,
    /// The rules, in order: the first rule one of whose `units` globs matches a tick's unit judges
    /// it, and a tick no rule matches fails (`policy_no_rule`).
    #[serde(default, rename = "rule")]
    #[schemars(with = "Vec<Rule>")]
    pub rules: Vec<toml::Spanned<Rule>>,
}

/// `version = 1`, refused otherwise where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "i64")]
pub struct Version;
schema!(Version, {"type": "integer", "const": 1});

impl TryFrom<i64> for Version {
    type Error = ValueError;
    fn try_from(v: i64) -> Result<Self, ValueError> {
        if v == i64::from(VERSION) { Ok(Version) } else { Err(ValueError::Version(v)) }
    }
}

/// How much of a value a [`ValueError`] quotes: the rest of the message, which says what is wrong,
/// must fit in what [`VerifierPolicy::parse`] shows of it ([`MESSAGE_MAX`]).
const QUOTED_MAX: usize = 60;

/// How much of the parser's message a [`PolicyParseError`] shows: the parser's own messages can
/// echo a line of the file whole.
const MESSAGE_MAX: usize = 400;

/// A value of the policy that its field does not take; the message says what to write instead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// `version` is not [`VERSION`].
    #[error("version {0} is not one this verifier reads; write `version = {VERSION}`")]
    Version(i64),
    /// A commit id that is not a full one.
    #[error(
        "`{}` is not a full commit id; write the 40 lowercase hex digits `git rev-parse <commit>` prints (a name such as a branch or tag could be moved by the branch under review)",
        shown(.0, QUOTED_MAX)
    )]
    CommitId(String),
    /// An approval count out of range.
    #[error(
        "`count = {0}`: an approval count is a whole number from 1 to 15 (a line carries at most 16 signatures)"
    )]
    Count(i64),
    /// A share out of range.
    #[error("{0} is not a share; write a number from 0 to 1, such as 0.8")]
    Share(f64),
    /// A text that is empty, too long or holds a control character.
    #[error("`{}`: write a text of 1 to 256 bytes without control characters", shown(.0, QUOTED_MAX))]
    Text(String),
    /// A unit glob that does not compile.
    #[error("the unit glob `{}` is not a glob: {kind}", shown(.text, QUOTED_MAX))]
    Glob {
        /// As written.
        text: String,
        /// Why.
        kind: globset::ErrorKind,
    },
}

/// The commit at which speccoder was adopted, and why the ticks it shows hold without evidence.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// The full id of the adoption commit (40 or 64 lowercase hex digits: never a name, which the
    /// checked branch could move). A task ticked there, unchanged at the head and without a task
    /// commit, holds as `baseline`.
    pub commit: CommitId,
    /// Why those ticks hold, for the people who read the report.
    pub reason: String,
}

/// A full commit id, as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct CommitId(pub String);
schema!(CommitId, {"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$"});

impl TryFrom<String> for CommitId {
    type Error = ValueError;
    fn try_from(id: String) -> Result<Self, ValueError> {
        let hex = id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if hex && matches!(id.len(), 40 | 64) { Ok(CommitId(id)) } else { Err(ValueError::CommitId(id)) }
    }
}

/// One rule: the units it judges and what their ticks must show.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The rule's name, unique in the policy; every report row names the rule that judged it.
    pub name: Text,
    /// Globs over unit names (`*`, `?`, `[a-z]`, `{a,b}`); at least one.
    #[schemars(length(min = 1))]
    pub units: Vec<UnitGlob>,
    /// Who may sign the line that covers a tick (its summary, or a decision's one line): principals
    /// as the trust files name them, `"*"` for any the trust accepts; at least one. Absent: no
    /// requirement.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub signers: Option<Vec<Principal>>,
    /// The verdicts a tick may carry; at least one. Absent: every verdict.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub verdicts: Option<Vec<Verdict>>,
    /// Phases that must be present and hold: baseline, green and held_out `PASSED` (held_out with
    /// `passed` equal to `total`, at least one), red present (and `FAILED`, as always). Empty or
    /// absent: no phase is asked for.
    #[serde(default)]
    pub phases: Option<Vec<Phase>>,
    /// Signatures of other people on the covering line.
    #[serde(default)]
    pub approvals: Option<Approvals>,
    /// The least mutation score, `caught / (caught + missed)` of the signed `mutation`.
    #[serde(default)]
    pub min_mutation_score: Option<Share>,
    /// The least acceptance strength, the signed `strength.combined.share`.
    #[serde(default)]
    pub min_strength: Option<Share>,
    /// The gaming monitor states that count (the signed `monitor.state`); at least one.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub monitor: Option<Vec<MonitorState>>,
    /// The sandbox modes that count (the signed `sandbox.mode`); at least one.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub sandbox: Option<Vec<Text>>,
    /// `false`: evidence re-issued by `attest carry` (with `carried`) does not count.
    #[serde(default)]
    pub carried: Option<bool>,
    /// `false`: a skip does not count for these units.
    #[serde(default)]
    pub skips: Option<bool>,
}

/// How many other people must sign the covering line, and who counts.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Approvals {
    /// How many distinct approvers, at least 1; with `by`, at most the number of distinct people
    /// it names (one person counts once; names equal without regard to case and Unicode
    /// composition are one person), unless it names `"*"`.
    pub count: Count,
    /// Who counts as an approver (principals, `"*"` for any the trust accepts); at least one.
    /// Absent: anyone the trust accepts.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub by: Option<Vec<Principal>>,
}

/// A count of at least one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "i64")]
pub struct Count(pub u32);
schema!(Count, {"type": "integer", "minimum": 1, "maximum": 15});

impl TryFrom<i64> for Count {
    type Error = ValueError;
    fn try_from(n: i64) -> Result<Self, ValueError> {
        // A line carries at most 16 signatures, the signer's among them.
        match u32::try_from(n) {
            Ok(n @ 1..=15) => Ok(Count(n)),
            _ => Err(ValueError::Count(n)),
        }
    }
}

/// A share from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
pub struct Share(pub f64);
schema!(Share, {"type": "number", "minimum": 0, "maximum": 1});

impl TryFrom<f64> for Share {
    type Error = ValueError;
    fn try_from(x: f64) -> Result<Self, ValueError> {
        if (0.0..=1.0).contains(&x) { Ok(Share(x)) } else { Err(ValueError::Share(x)) }
    }
}

/// A short text: not empty, at most 256 bytes, no control character (it reaches reports).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "String")]
pub struct Text(pub String);
schema!(Text, {"type": "string", "minLength": 1, "maxLength": 256});

impl TryFrom<String> for Text {
    type Error = ValueError;
    fn try_from(s: String) -> Result<Self, ValueError> {
        if s.is_empty() || s.len() > 256 || s.chars().any(char::is_control) {
            Err(ValueError::Text(s))
        } else {
            Ok(Text(s))
        }
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A principal as the trust files name it: an SSH allowed-signers principal, an OpenPGP
/// fingerprint or user id (or the address in a user id's `<...>`), a Sigstore certificate
/// identity; `"*"` for any the trust accepts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct Principal(pub Text);
schema!(Principal, {"type": "string", "minLength": 1, "maxLength": 256});

impl TryFrom<String> for Principal {
    type Error = ValueError;
    fn try_from(s: String) -> Result<Self, ValueError> {
        Text::try_from(s).map(Principal)
    }
}

impl Principal {
    /// The text as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0.0
    }

    /// Whether this principal names a signer the trust established: `kind` (`ssh`, `openpgp`,
    /// `sigstore`), its `key` (fingerprint) and the `principals` the trust gives it. `"*"` names
    /// every one; an OpenPGP key is also named by its fingerprint (any case) or the address of
    /// one of its user ids. Principals and addresses are compared in their [`canonical`] form,
    /// with their case as written.
    #[must_use]
    pub fn names(&self, kind: &str, key: &str, principals: &[String]) -> bool {
        let me = self.as_str();
        if me == ANY || (kind == OPENPGP && key.eq_ignore_ascii_case(me)) {
            return true;
        }
        let me = canonical(me);
        principals.iter().map(String::as_str).chain(identities(kind, principals)).any(|p| canonical(p) == me)
    }
}

/// The signer kind whose principals are user ids, named by their address too.
pub const OPENPGP: &str = "openpgp";

/// The people a signer of `kind` with the trust's `principals` is, one name each: an SSH or
/// Sigstore principal as written; an OpenPGP user id by its address (`Name <address> (comment)`;
/// one without `<...>` as written), so that two user ids of one address are one person. Two
/// signers that share one ([`same_identity`]) are the same person to `approvals`.
pub fn identities<'p>(kind: &str, principals: &'p [String]) -> impl Iterator<Item = &'p str> {
    let by_address = kind == OPENPGP;
    principals.iter().map(move |p| if by_address { email_of(p).unwrap_or(p) } else { p.as_str() })
}

/// Whether two identities ([`identities`]) are one person's: equal in their [`person_form`].
#[must_use]
pub fn same_identity(a: &str, b: &str) -> bool {
    a == b || person_form(a) == person_form(b)
}

/// The one form in which two identities ([`identities`]), or two names of a rule's
/// `approvals.by`, are told to be one person: the [`canonical`] form without regard to case
/// (Unicode's full case folding: `STRASSE` is `straße`, a final `ς` is `σ`), since whoever holds
/// a key chooses the case of its user id, and an address's domain (and in practice its local
/// part) is read without it. A wildcard (`*`, `?`) is left as it is, so that a pattern in this
/// form matches the others in this form.
#[must_use]
pub fn person_form(id: &str) -> String {
    canonical(&unicase::UniCase::new(canonical(id)).to_folded_case()).into_owned()
}

/// `text` in the one form identities and unit names are compared in: Unicode's canonical
/// composition (NFC), so that an address or a unit typed composed (`é`) and one typed decomposed
/// (`e` and U+0301) are one. Never
/// the compatibility form (NFKC), which would also make `ﬁ` `fi` and a fullwidth `ａ` an `a`:
/// distinct characters that a trust file may give to different people, or that name two units.
#[must_use]
fn canonical(text: &str) -> Cow<'_, str> {
    if unicode_normalization::is_nfc(text) { Cow::Borrowed(text) } else { Cow::Owned(text.nfc().collect()) }
}

/// Whether `name`, a person as they named themselves (a decision's `decider.by`: a name, an
/// address, or `Name <address>`), is one of the people ([`identities`]) a signer of `kind` with
/// the trust's `principals` is: its address (without one, the name as written) compared as
/// [`same_identity`] compares them. A bare name (`Ada Lovelace`) names no address.
#[must_use]
pub fn person_named(name: &str, kind: &str, principals: &[String]) -> bool {
    let wanted = email_of(name).unwrap_or(name);
    identities(kind, principals).any(|id| same_identity(id, wanted))
}

/// Whether `name`, a person as they named themselves, gives an address (`ada@example.org`, or
/// `Name <ada@example.org>`), which [`person_named`] compares, rather than a bare name, which
/// names no signer.
#[must_use]
pub fn gives_address(name: &str) -> bool {
    email_of(name).unwrap_or(name).contains('@')
}

/// Why a unit's name may pass for another's ([`lookalike`]), by UTS #39 (Unicode's security
/// mechanisms, as the `unicode-security` crate implements them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookalikeKind {
    /// A character outside the general security profile's identifier characters that is not
    /// printable ASCII: a mathematical or fullwidth letter, a letter of a script no longer in
    /// common use (Coptic), a dash or a symbol.
    Restricted,
    /// A word mixing scripts below the "highly restrictive" level: Latin with Cyrillic, Greek or
    /// Armenian letters (Latin with Han, Hiragana and Katakana, Han with Bopomofo or Hangul, is
    /// highly restrictive).
    MixedScripts,
    /// Not ASCII, yet its confusable skeleton is: it reads as ASCII text it is not (a word of
    /// Cyrillic letters shaped as Latin ones, a hyphen U+2010 for `-`).
    PassesForAscii,
}

/// A part of a unit's name that may pass for another's ([`lookalike`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookalike {
    /// The word, or the character between words, in the [`canonical`] form.
    pub part: String,
    /// Why it may.
    pub kind: LookalikeKind,
}

impl fmt::Display for Lookalike {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = shown(&self.part, SHOWN_MAX);
        match self.kind {
            LookalikeKind::Restricted => {
                write!(f, "`{part}` holds a character outside Unicode's identifier characters (UTS #39)")
            }
            LookalikeKind::MixedScripts => {
                write!(f, "`{part}` mixes scripts that one word may not mix (UTS #39)")
            }
            LookalikeKind::PassesForAscii => write!(f, "`{part}` reads as ASCII text it is not (UTS #39)"),
        }
    }
}

/// The first part of `name` in its [`canonical`] form, as rules match it, that may pass for
/// another name's, so that a unit named with it would escape the rule its name seems to match
/// (`pаyments` with a Cyrillic `а`, `001‐payments` with a hyphen U+2010). The parts are the words
/// (runs of letters and digits with the marks and invisible format characters written among
/// them, which a reader does not see as breaking a word) and each character between them; a part
/// of printable ASCII is never one, any other is when a [`LookalikeKind`] says so. A name in
/// one script (`002-вход`), or with words in different scripts (`005-api-авторизация`), is not.
#[must_use]
pub fn lookalike(name: &str) -> Option<Lookalike> {
    static WORD: LazyLock<Regex> = LazyLock::new(|| fixed(r"[\p{Alphabetic}\p{N}\p{M}\p{Cf}]+"));
    let name = canonical(name);
    // Each character of `between` on its own.
    let chars = |between: &str| -> Vec<String> { between.chars().map(String::from).collect() };
    let mut parts = Vec::new();
    let mut after = 0;
    for word in WORD.find_iter(&name) {
        parts.extend(chars(&name[after..word.start()]));
        parts.push(word.as_str().to_owned());
        after = word.end();
    }
    parts.extend(chars(&name[after..]));
    parts.into_iter().find_map(|part| Some(Lookalike { kind: lookalike_kind(&part)?, part }))
}

/// Why `part`, a word or a character between words, may pass for another, if it may.
fn lookalike_kind(part: &str) -> Option<LookalikeKind> {
    use unicode_security::{GeneralSecurityProfile as _, RestrictionLevel, RestrictionLevelDetection as _};
    let printable = |c: char| c.is_ascii_graphic() || c == ' ';
    if part.chars().all(printable) {
        None
    } else if part.chars().any(|c| !printable(c) && !c.identifier_allowed()) {
        Some(LookalikeKind::Restricted)
    } else if part.detect_restriction_level() > RestrictionLevel::HighlyRestrictive {
        Some(LookalikeKind::MixedScripts)
    } else if unicode_security::skeleton(part).all(|c| c.is_ascii()) {
        Some(LookalikeKind::PassesForAscii)
    } else {
        None
    }
}

/// A fixed pattern, compiled.
fn fixed(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
}

/// The address in an OpenPGP user id, read as gpg reads a user id's mailbox: the text from its
/// first `<` to the first `>` after it, whatever name is before it and comment after it
/// (`Alice <alice@example.org> (work)`, as `gpg --quick-gen-key` writes what it is given).
fn email_of(user_id: &str) -> Option<&str> {
    let (_, rest) = user_id.split_once('<')?;
    rest.split_once('>').map(|(address, _)| address)
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A glob over unit names, checked when read and compiled when first matched: a compiled glob
/// holds a few KiB, so a policy's memory stays bounded by [`MAX_GLOBS`] rather than its bytes.
/// It is matched in the [`canonical`] form, as the unit's name is: a glob written `*café` with a
/// composed `é` matches a unit directory named with `e` and U+0301, and the other way round.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
pub struct UnitGlob {
    /// As written.
    pub text: String,
    /// Parsed, from the text in its [`canonical`] form.
    glob: globset::Glob,
    /// Compiled, once matched.
    matcher: std::sync::OnceLock<globset::GlobMatcher>,
}
schema!(UnitGlob, {"type": "string", "minLength": 1, "maxLength": 256});

impl TryFrom<String> for UnitGlob {
    type Error = ValueError;
    fn try_from(text: String) -> Result<Self, ValueError> {
        let text = Text::try_from(text)?.0;
        let glob = match globset::GlobBuilder::new(&canonical(&text)).literal_separator(true).build() {
            Ok(glob) => glob,
            Err(e) => return Err(ValueError::Glob { kind: e.kind().clone(), text }),
        };
        Ok(UnitGlob { text, glob, matcher: std::sync::OnceLock::new() })
    }
}

impl UnitGlob {
    /// Whether the unit named `unit` matches, both in their [`canonical`] form.
    #[must_use]
    pub fn matches(&self, unit: &str) -> bool {
        self.matcher.get_or_init(|| self.glob.compile_matcher()).is_match(canonical(unit).as_ref())
    }

    /// The glob in the form it is matched in ([`canonical`]): two globs written in different
    /// forms of one text are one glob.
    #[must_use]
    pub fn as_matched(&self) -> &str {
        self.glob.glob()
    }
}

impl Rule {
    /// Whether one of the rule's globs matches the unit `unit`.
    #[must_use]
    pub fn matches(&self, unit: &str) -> bool {
        self.units.iter().any(|g| g.matches(unit))
    }
}

/// A policy that does not parse, or says something that cannot hold: where, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct PolicyParseError {
    /// The file, as the caller named it.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, and what to write instead.
    pub message: String,
}

/// A policy read and checked, with the sha256 of its exact bytes.
#[derive(Debug, Clone)]
pub struct LoadedPolicy {
    /// The policy.
    pub policy: VerifierPolicy,
    /// The sha256 of the file's bytes.
    pub sha256: String,
    /// Where it came from: the file as named, or `REV:PATH (<commit>)`.
    pub source: String,
    /// Whether it came from a local file, named by a path of this machine ([`Self::read_file`]).
    pub local_file: bool,
}

impl VerifierPolicy {
    /// Parses the policy file `bytes`; `file` names it in errors.
    ///
    /// # Errors
    /// [`PolicyParseError`], at the line and column of what is wrong: a file over
    /// [`MAX_BYTES`] or not UTF-8 (at 1:1 and the first invalid byte), TOML that does not
    /// parse, an unknown key, a value of the wrong type or out of range, a malformed glob, a
    /// version other than 1, a rule without units, two rules of one name, more than
    /// [`MAX_RULES`] rules, a list of more than [`MAX_LIST`] entries, or (before anything is
    /// parsed) more structure than [`TEXT_LIMITS`] allows.
    pub fn parse(bytes: &[u8], file: &str) -> Result<VerifierPolicy, PolicyParseError> {
        let at = |text: &str, offset: usize, message: String| {
            let (line, column) = line_column(text, offset);
            PolicyParseError { file: file.to_owned(), line, column, message }
        };
        if bytes.len() as u64 > MAX_BYTES {
            let message = format!("the policy is {} bytes, more than the {MAX_BYTES} read", bytes.len());
            return Err(at("", 0, message));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
            at(valid, valid.len(), "the policy is not UTF-8 text".to_owned())
        })?;
        super::toml_bound::check(text, TEXT_LIMITS).map_err(|e| {
            at(text, e.offset, format!("{e}; a policy of at most {MAX_RULES} rules holds far fewer"))
        })?;
        let policy: VerifierPolicy = toml::from_str(text).map_err(|e| match e.span() {
            Some(span) => at(text, span.start, shown(e.message().trim(), MESSAGE_MAX)),
            None => {
                let (offset, message) = unplaced(text, &e);
                at(text, offset, message)
            }
        })?;
        policy.check(text, &at)
    }

    /// What serde cannot say by itself: rules that exist, a few, each with units and its own name.
    fn check(
        self,
        text: &str,
        at: &dyn Fn(&str, usize, String) -> PolicyParseError,
    ) -> Result<VerifierPolicy, PolicyParseError> {
        if self.rules.len() > MAX_RULES {
            let start = self.rules[MAX_RULES].span().start;
            return Err(at(text, start, format!("more than {MAX_RULES} rules")));
        }
        let (mut globs, mut bytes) = (0, 0);
        for rule in &self.rules {
            let units = &rule.get_ref().units;
            globs += units.len();
            bytes += units.iter().map(|g| g.text.len()).sum::<usize>();
            if globs > MAX_GLOBS || bytes > MAX_GLOB_BYTES {
                let message = format!(
                    "more than {MAX_GLOBS} unit globs or {MAX_GLOB_BYTES} bytes of them in all; a rule's `*` or `{{a,b}}` stands for many units"
                );
                return Err(at(text, rule.span().start, message));
            }
        }
        for (i, rule) in self.rules.iter().enumerate() {
            let start = rule.span().start;
            let r = rule.get_ref();
            if r.units.is_empty() {
                return Err(at(
                    text,
                    start,
                    format!("rule `{}` has no units; write units = [\"<glob>\"], such as [\"*\"]", r.name),
                ));
            }
            if let Some(message) = empty_list(r).or_else(|| approvals_beyond_by(r)) {
                return Err(at(text, start, message));
            }
            let lists = [
                r.units.len(),
                r.signers.as_ref().map_or(0, Vec::len),
                r.approvals.as_ref().and_then(|a| a.by.as_ref()).map_or(0, Vec::len),
                r.verdicts.as_ref().map_or(0, Vec::len),
                r.phases.as_ref().map_or(0, Vec::len),
                r.monitor.as_ref().map_or(0, Vec::len),
                r.sandbox.as_ref().map_or(0, Vec::len),
            ];
            if lists.iter().any(|n| *n > MAX_LIST) {
                return Err(at(text, start, format!("rule `{}` lists more than {MAX_LIST} entries", r.name)));
            }
            if self.rules[..i].iter().any(|earlier| earlier.get_ref().name == r.name) {
                return Err(at(
                    text,
                    start,
                    format!("a second rule named `{}`; give each rule its own name", r.name),
                ));
            }
        }
        Ok(self)
    }

    /// The rules, in order.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(toml::Spanned::get_ref)
    }

    /// The first rule that matches the unit `unit`, with its position.
    #[must_use]
    pub fn rule_for(&self, unit: &str) -> Option<(usize, &Rule)> {
        self.rules().enumerate().find(|(_, r)| r.matches(unit))
    }
}

/// What to write instead of the first list of `rule` that is empty where empty means that nothing
/// can ever hold (every tick of its units refused, whatever was signed): `signers`, `verdicts`,
/// `approvals.by`, `monitor`, `sandbox`. `phases = []` asks for no phase, as leaving it out does,
/// and is read so.
fn empty_list(rule: &Rule) -> Option<String> {
    fn empty<T>(list: Option<&Vec<T>>) -> bool {
        list.is_some_and(Vec::is_empty)
    }
    let lists = [
        (
            empty(rule.signers.as_ref()),
            "signers",
            "no signer meets it, so the rule would refuse every tick of its units",
            "leave `signers` out to accept any signer, or write signers = [\"<principal>\"] ([\"*\"]: anyone your trust accepts)",
        ),
        (
            empty(rule.verdicts.as_ref()),
            "verdicts",
            "no verdict meets it, so the rule would refuse every tick of its units but skips (which `skips` judges)",
            "leave `verdicts` out to accept every verdict, or write verdicts = [\"verified\"]",
        ),
        (
            empty(rule.approvals.as_ref().and_then(|a| a.by.as_ref())),
            "approvals.by",
            "no approval counts, so the rule would refuse every tick of its units",
            "leave `by` out to count anyone your trust accepts, or write by = [\"<principal>\"]",
        ),
        (
            empty(rule.monitor.as_ref()),
            "monitor",
            "no monitor state meets it, so the rule would refuse every tick of its units",
            "leave `monitor` out to accept any, or write monitor = [\"clean\"]",
        ),
        (
            empty(rule.sandbox.as_ref()),
            "sandbox",
            "no sandbox mode meets it, so the rule would refuse every tick of its units",
            "leave `sandbox` out to accept any, or write sandbox = [\"<mode>\"], such as [\"container\"]",
        ),
    ];
    let (_, key, never, instead) = lists.into_iter().find(|(is_empty, ..)| *is_empty)?;
    Some(format!("rule `{}` has `{key} = []`: {never}; {instead}", rule.name))
}

/// What to write instead of an `approvals` whose `count` is more than the people its `by` names,
/// which no tick could ever meet: one person counts once, and two names equal in their
/// [`person_form`] are one person, as the rule counts them. A `by` naming `"*"` (anyone the trust
/// accepts) sets no bound.
fn approvals_beyond_by(rule: &Rule) -> Option<String> {
    let approvals = rule.approvals.as_ref()?;
    let by = approvals.by.as_ref()?;
    if by.iter().any(|p| p.as_str() == ANY) {
        return None;
    }
    let people: std::collections::HashSet<String> = by.iter().map(|p| person_form(p.as_str())).collect();
    let count = approvals.count.0;
    (count as usize > people.len()).then(|| {
        format!(
            "rule `{}` has `approvals.count = {count}`, more than the {} distinct people its `by` names (one person counts once, and names that differ only in case or in Unicode's composed and decomposed forms are one person), so no tick of its units could ever meet it; write count = {} or less, or name more approvers in `by`",
            rule.name,
            people.len(),
            people.len(),
        )
    })
}

/// Where a parser's error that names no place is, and what to do: a key of more dots than the
/// parser follows ([`toml_bound::deep_key`](super::toml_bound::deep_key)) at the key; any other
/// at the start, saying that the parser named no place.
fn unplaced(text: &str, e: &toml::de::Error) -> (usize, String) {
    let said = shown(e.message().trim(), MESSAGE_MAX);
    match super::toml_bound::deep_key(text) {
        Some(key) => (
            key.offset,
            format!(
                "this key has {} dots, more than the {} the TOML parser follows (it says `{said}`); no key of a policy has more than one: write each as docs/policy.md names it, such as `approvals.count = 1` in a rule or a table `[rule.approvals]`",
                key.dots,
                super::toml_bound::PARSER_KEY_DOTS
            ),
        ),
        None => (0, format!("{said} (the TOML parser names no line: look through the whole file)")),
    }
}

impl LoadedPolicy {
    /// Parses `bytes` read from `source` (named `file` in errors).
    ///
    /// # Errors
    /// See [`VerifierPolicy::parse`].
    pub fn read(bytes: &[u8], file: &str, source: String) -> Result<LoadedPolicy, PolicyParseError> {
        let policy = VerifierPolicy::parse(bytes, file)?;
        Ok(LoadedPolicy { policy, sha256: sha256_hex(bytes), source, local_file: false })
    }

    /// Parses `bytes` read from the local file named `name` (its path as given).
    ///
    /// # Errors
    /// See [`VerifierPolicy::parse`].
    pub fn read_file(bytes: &[u8], name: &str) -> Result<LoadedPolicy, PolicyParseError> {
        Ok(LoadedPolicy { local_file: true, ..Self::read(bytes, name, name.to_owned())? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_is_named_by_their_address_alone_or_in_a_user_id_and_never_by_a_bare_name() {
        let ssh = ["ada@example.org".to_owned()];
        for name in ["ada@example.org", "ADA@Example.org", "Ada Lovelace <ada@example.org>"] {
            assert!(person_named(name, "ssh", &ssh), "{name}");
        }
        assert!(!person_named("Ada Lovelace", "ssh", &ssh));
        assert!(!person_named("bob@example.org", "ssh", &ssh));
        let pgp = ["A. Lovelace <ada@example.org>".to_owned()];
        assert!(person_named("Ada <ada@example.org>", "openpgp", &pgp));
        assert!(gives_address("Ada <ada@example.org>") && gives_address("ada@example.org"));
        assert!(!gives_address("Ada Lovelace") && !gives_address("Ada <lovelace>"));
    }

    /// The part of `name` [`lookalike`] finds, and why.
    fn found(name: &str) -> Option<(String, LookalikeKind)> {
        lookalike(name).map(|l| (l.part, l.kind))
    }

    #[test]
    fn a_word_mixing_latin_with_cyrillic_greek_or_armenian_letters_is_found_whatever_hides_inside_it() {
        use LookalikeKind::MixedScripts;
        assert_eq!(found("002-p\u{0430}yments"), Some(("p\u{0430}yments".into(), MixedScripts)));
        assert_eq!(found("003-\u{03bf}rders"), Some(("\u{03bf}rders".into(), MixedScripts)));
        assert_eq!(found("004-\u{0585}rders"), Some(("\u{0585}rders".into(), MixedScripts)));
        // A joiner or a variation selector a reader does not see does not cut the word in two.
        for hidden in ['\u{200c}', '\u{200d}', '\u{fe00}'] {
            let name = format!("001-\u{0440}{hidden}ayments");
            assert_eq!(lookalike(&name).map(|l| l.part).as_deref(), Some(&name[4..]), "{hidden:?}");
        }
    }

    #[test]
    fn a_name_that_reads_as_ascii_text_it_is_not_is_found_whatever_its_scripts() {
        use LookalikeKind::{PassesForAscii, Restricted};
        // A hyphen U+2010 for `-`; a mathematical sans-serif `p`; a Coptic `o`.
        assert_eq!(found("001\u{2010}payments"), Some(("\u{2010}".into(), PassesForAscii)));
        assert_eq!(found("002-\u{1d5c9}ayments"), Some(("\u{1d5c9}ayments".into(), Restricted)));
        assert_eq!(found("003-\u{2c9f}rders"), Some(("\u{2c9f}rders".into(), Restricted)));
        // Every letter Cyrillic, each shaped as a Latin one: `рау` and `сор` in one script.
        assert_eq!(
            found("005-\u{0440}\u{0430}\u{0443}"),
            Some(("\u{0440}\u{0430}\u{0443}".into(), PassesForAscii))
        );
        assert_eq!(
            found("006-api-\u{0441}\u{043e}\u{0440}"),
            Some(("\u{0441}\u{043e}\u{0440}".into(), PassesForAscii))
        );
        // A fullwidth letter, a hyphen between words of another script, a dash.
        assert_eq!(found("007-\u{ff50}ayments").map(|(_, kind)| kind), Some(Restricted));
        assert_eq!(
            found("008-\u{0432}\u{0445}\u{043e}\u{0434}\u{2010}payments").map(|(p, _)| p).as_deref(),
            Some("\u{2010}")
        );
        assert_eq!(found("009\u{2014}payments").map(|(_, kind)| kind), Some(Restricted));
    }

    #[test]
    fn names_in_one_script_or_with_words_in_different_scripts_and_plain_ascii_names_are_no_lookalikes() {
        for plain in [
            "001-payments",
            "001-bookmark-tags",
            "add_2fa+login v2",
            "002-\u{0432}\u{0445}\u{043e}\u{0434}",
            "004-\u{0430}\u{0432}\u{0442}\u{043e}\u{0440}\u{0438}\u{0437}\u{0430}\u{0446}\u{0438}\u{044f}",
            "005-api-\u{0430}\u{0432}\u{0442}\u{043e}\u{0440}\u{0438}\u{0437}\u{0430}\u{0446}\u{0438}\u{044f}",
            "006-\u{7528}\u{6237}\u{767b}\u{5f55}",
            "007-\u{c4}rger-\u{fc}ber",
            "008-\u{30ed}\u{30b0}\u{30a4}\u{30f3}\u{753b}\u{9762}",
            "009-\u{b85c}\u{adf8}\u{c778}",
            "010-login\u{753b}\u{9762}",
            "011-\u{03b5}\u{03af}\u{03c3}\u{03bf}\u{03b4}\u{03bf}\u{03c2}",
            "012-cafe\u{301}",
        ] {
            assert_eq!(lookalike(plain), None, "{plain}");
        }
    }

    const EXAMPLE: &str = r#"version = 1

[baseline]
commit = "0123456789abcdef0123456789abcdef01234567"
reason = "adopted after these tasks were ticked by hand"

[[rule]]
name = "payments"
units = ["*-payments-*"]
signers = ["alice@example.org"]
verdicts = ["verified"]
phases = ["green", "held_out"]
approvals = { count = 1, by = ["bob@example.org"] }
min_mutation_score = 0.8
min_strength = 0.9
monitor = ["clean"]
sandbox = ["container", "vm"]
carried = false
skips = false

[[rule]]
name = "default"
units = ["*"]
signers = ["*"]
"#;

    fn error(text: &str) -> PolicyParseError {
        VerifierPolicy::parse(text.as_bytes(), "policy.toml").expect_err(text)
    }

    #[test]
    fn more_unit_globs_than_a_policy_holds_are_refused_naming_the_rule_that_passes_the_cap() {
        let globs =
            |rule: usize| (0..1000).map(|g| format!("\"r{rule}g{g}-*\"")).collect::<Vec<_>>().join(",");
        let rules = |n: usize| -> String {
            (0..n).map(|r| format!("[[rule]]\nname = \"r{r}\"\nunits = [{}]\n", globs(r))).collect()
        };
        let e = error(&format!("version = 1\n{}", rules(5)));
        assert!(e.message.contains("more than 4096 unit globs or 65536 bytes of them"), "{e}");
        assert_eq!(e.line, 1 + 3 * 4 + 1, "{e}");
        let long = (0..300).map(|g| format!("\"{g}{}\"", "x".repeat(240))).collect::<Vec<_>>().join(",");
        let e = error(&format!("version = 1\n[[rule]]\nname = \"long\"\nunits = [{long}]\n"));
        assert!(e.message.contains("65536 bytes"), "{e}");
        let policy =
            VerifierPolicy::parse(format!("version = 1\n{}", rules(2)).as_bytes(), "policy.toml").unwrap();
        assert_eq!(policy.rule_for("r1g999-x").map(|(_, r)| r.name.0.as_str()), Some("r1"));
    }

    #[test]
    fn a_long_value_is_cut_in_the_message_and_what_is_wrong_with_it_is_kept() {
        let long = "a".repeat(300);
        let text = format!("version = 1\n[[rule]]\nname = \"{long}\"\nunits = [\"*\"]\n");
        assert!(
            error(&text).message.ends_with("…`: write a text of 1 to 256 bytes without control characters")
        );
        let glob = format!("version = 1\n[[rule]]\nname = \"r\"\nunits = [\"{}[a-\"]\n", "x".repeat(190));
        assert!(
            error(&glob).message.contains("…` is not a glob: unclosed character class"),
            "{}",
            error(&glob).message
        );
    }

    #[test]
    fn the_example_of_the_issue_reads_with_every_key() {
        let p = VerifierPolicy::parse(EXAMPLE.as_bytes(), "policy.toml").unwrap();
        assert_eq!(p.baseline.as_ref().unwrap().commit.0, "0123456789abcdef0123456789abcdef01234567");
        let rules: Vec<&Rule> = p.rules().collect();
        assert_eq!(rules.len(), 2);
        let pay = rules[0];
        assert_eq!(pay.verdicts.as_deref(), Some(&[Verdict::Verified][..]));
        assert_eq!(pay.phases.as_deref(), Some(&[Phase::Green, Phase::HeldOut][..]));
        assert_eq!(pay.approvals.as_ref().unwrap().count, Count(1));
        assert_eq!(pay.min_mutation_score, Some(Share(0.8)));
        assert_eq!(pay.monitor.as_deref(), Some(&[MonitorState::Clean][..]));
        assert_eq!((pay.carried, pay.skips), (Some(false), Some(false)));
        assert_eq!(p.rule_for("007-payments-refunds").unwrap().0, 0);
        assert_eq!(p.rule_for("001-bookmark-tags").unwrap().1.name.0, "default");
    }

    #[test]
    fn the_first_matching_rule_applies_and_none_may_match() {
        let p = VerifierPolicy::parse(
        b"version = 1\n[[rule]]\nname = \"a\"\nunits = [\"00[1-3]-*\"]\n[[rule]]\nname = \"b\"\nunits = [\"{x,y}\"]\n",
        "p",
    )
    .unwrap();
        assert_eq!(p.rule_for("002-z").unwrap().1.name.0, "a");
        assert_eq!(p.rule_for("y").unwrap().1.name.0, "b");
        assert!(p.rule_for("004-z").is_none());
    }

    #[test]
    fn an_unknown_key_is_named_at_its_line_and_column() {
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\n  signer = [\"x\"]\n");
        assert_eq!((e.line, e.column), (5, 3), "{e}");
        assert!(e.message.contains("unknown field `signer`"), "{e}");
        assert!(e.to_string().starts_with("policy.toml:5:3: "), "{e}");
        let e = error("version = 1\ncolour = 1\n");
        assert_eq!(e.line, 2, "{e}");
    }

    #[test]
    fn a_bad_glob_a_wrong_type_and_a_bad_value_are_named_where_written() {
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"ok\", \"[a-\"]\n");
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("not a glob"), "{e}");
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = \"*\"\n");
        assert_eq!(e.line, 4, "{e}");
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nmin_strength = 1.5\n");
        assert_eq!((e.line, e.message.contains("not a share")), (5, true), "{e}");
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nverdicts = [\"proven\"]\n");
        assert_eq!(e.line, 5, "{e}");
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\napprovals = { count = 0 }\n");
        assert_eq!(e.line, 5, "{e}");
        let e = error("version = 2\n");
        assert_eq!((e.line, e.message.contains("version 2")), (1, true), "{e}");
        let e = error("version = 1\n[baseline]\ncommit = \"main\"\nreason = \"r\"\n");
        assert_eq!((e.line, e.message.contains("full commit id")), (3, true), "{e}");
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nsigners = [\"\"]\n");
        assert_eq!(e.line, 5, "{e}");
    }

    #[test]
    fn what_serde_cannot_say_is_refused_at_the_rule() {
        let e = error("version = 1\n[[rule]]\nname = \"a\"\nunits = []\n");
        assert!(e.message.contains("no units"), "{e}");
        let e = error(
            "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\n\n[[rule]]\nname = \"a\"\nunits = [\"x\"]\n",
        );
        assert!(e.message.contains("second rule named `a`"), "{e}");
        assert_eq!(e.line, 6, "{e}: the second rule's header");
        let e = error("[[rule]]\nname = \"a\"\nunits = [\"*\"]\n");
        assert!(e.message.contains("version"), "{e}");
    }

    #[test]
    fn a_list_that_empty_no_tick_could_meet_is_refused_at_its_rule_as_empty_units_are() {
        for (list, what, instead) in [
            ("units = []", "has no units", "write units = [\"<glob>\"]"),
            ("signers = []", "`signers = []`: no signer meets it", "leave `signers` out"),
            ("verdicts = []", "`verdicts = []`: no verdict meets it", "write verdicts = [\"verified\"]"),
            (
                "approvals = { count = 2, by = [] }",
                "`approvals.by = []`: no approval counts",
                "leave `by` out",
            ),
            ("monitor = []", "`monitor = []`: no monitor state meets it", "write monitor = [\"clean\"]"),
            ("sandbox = []", "`sandbox = []`: no sandbox mode meets it", "write sandbox = [\"<mode>\"]"),
        ] {
            let units = if list.starts_with("units") { "" } else { "units = [\"*\"]\n" };
            let e = error(&format!("version = 1\n\n [[rule]]\nname = \"a\"\n{units}{list}\n"));
            assert_eq!((e.line, e.column), (3, 2), "{list}: {e}");
            assert!(e.message.starts_with("rule `a` ") && e.message.contains(what), "{list}: {e}");
            assert!(e.message.contains(instead), "{list}: {e}");
        }
        let text = "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nphases = []\n";
        let p = VerifierPolicy::parse(text.as_bytes(), "p").expect("no phase asked for, as without `phases`");
        assert_eq!(p.rules().next().and_then(|r| r.phases.as_deref()), Some(&[][..]));
    }

    #[test]
    fn a_count_of_approvals_beyond_the_people_by_names_is_refused_at_its_rule_saying_what_to_write() {
        for (by, count, people) in [
            (r#"["bob@example.com"]"#, 3, 1),
            // One person however the name's case or composition is written.
            (r#"["bob@example.com", "BOB@Example.COM", "jos\u00e9@x", "jose\u0301@x"]"#, 3, 2),
        ] {
            let text = format!(
                "version = 1\n\n [[rule]]\nname = \"a\"\nunits = [\"*\"]\napprovals = {{ count = {count}, by = {by} }}\n"
            );
            let e = error(&text);
            assert_eq!((e.line, e.column), (3, 2), "{by}: {e}");
            let said =
                format!("`approvals.count = {count}`, more than the {people} distinct people its `by` names");
            assert!(e.message.starts_with("rule `a` ") && e.message.contains(&said), "{by}: {e}");
            assert!(e.message.contains(&format!("write count = {people} or less")), "{by}: {e}");
        }
        for holds in [
            r#"approvals = { count = 2, by = ["bob@example.com", "carol@example.com"] }"#,
            r#"approvals = { count = 3, by = ["bob@example.com", "*"] }"#,
            "approvals = { count = 3 }",
        ] {
            let text = format!("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\n{holds}\n");
            assert!(VerifierPolicy::parse(text.as_bytes(), "p").is_ok(), "{holds}");
        }
    }

    #[test]
    fn text_that_is_not_utf8_or_too_large_is_refused_unparsed() {
        let e = VerifierPolicy::parse(b"version = 1\nx = \"\xff\"\n", "p").unwrap_err();
        assert_eq!((e.line, e.column), (2, 6), "{e}");
        let big = vec![b'#'; usize::try_from(MAX_BYTES).unwrap() + 1];
        assert!(VerifierPolicy::parse(&big, "p").unwrap_err().message.contains("more than"));
    }

    #[test]
    fn a_policy_of_many_tiny_rules_is_refused_before_it_is_parsed_at_the_line_past_the_bound() {
        let text = format!("version = 1\n{}", "[[rule]]\n".repeat(100_000));
        let e = error(&text);
        assert_eq!(e.line, 2 + (TEXT_LIMITS.tables / 2), "{e}");
        assert!(e.message.starts_with(&format!("more than {} tables and arrays", TEXT_LIMITS.tables)), "{e}");
        let dotted: String = (0..10_000).map(|i| format!("k{i}.a = 1\n")).collect();
        assert!(error(&format!("version = 1\n{dotted}")).message.contains("dotted keys"));
        let values = format!("version = 1\nx = [{}]\n", "1,".repeat(300_000));
        assert!(error(&values).message.contains(&format!("more than {} values", TEXT_LIMITS.values)));
    }

    /// A rule in the form that opens the most tables, arrays and dots, its strings and comment
    /// full of what would open more if they were counted; `dotted`: approvals as dotted keys.
    fn heaviest_rule(i: usize, dotted: bool) -> String {
        let approvals = if dotted {
            "approvals.count = 1\napprovals.by = [\"b\"]\n"
        } else {
            "[rule.approvals]\ncount = 1\nby = [\"b\"]\n"
        };
        format!(
            "[[rule]] # [[{{{{..==,,\nname = \"r{i} [[{{.=,\"\nunits = ['*[a-z]{{x,y}}.*']\nsigners = [\"a\"]\n\
             verdicts = [\"verified\"]\nphases = [\"green\"]\nmonitor = [\"clean\"]\nsandbox = [\"vm\"]\n\
             min_mutation_score = 0.5\nmin_strength = 0.5\n{approvals}"
        )
    }

    #[test]
    fn no_policy_within_the_caps_is_refused_by_the_bound_counted_before_parsing() {
        let mut text = "version = 1\n[baseline] # {{[[..\ncommit = \"0123456789abcdef0123456789abcdef01234567\"\nreason = \"r\"\n".to_owned();
        for i in 0..MAX_RULES {
            text.push_str(&heaviest_rule(i, i % 2 == 0));
        }
        let p = VerifierPolicy::parse(text.as_bytes(), "p").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.rules().count(), MAX_RULES);
        let list = |item: &str| format!("[{}]", vec![item; MAX_LIST].join(","));
        let long = format!(
            "version = 1\n[[rule]]\nname = \"r\"\nunits = {}\nsigners = {}\nverdicts = {}\nphases = {}\nmonitor = {}\nsandbox = {}\napprovals = {{ count = 1, by = {} }}\n",
            list("\"*\""),
            list("\"a\""),
            list("\"verified\""),
            list("\"green\""),
            list("\"clean\""),
            list("\"vm\""),
            list("\"b\"")
        );
        VerifierPolicy::parse(long.as_bytes(), "p").unwrap_or_else(|e| panic!("{e}"));
        let e = error(&long.replacen("units = [", "units = [\"x\",", 1));
        assert!(e.message.contains(&format!("more than {MAX_LIST} entries")), "{e}");
        let e = error(&long.replacen("sandbox = [", "sandbox = [\"x\",", 1));
        assert!(
            e.message.contains(&format!("more than {MAX_LIST} entries")),
            "{e}: every list is held to it"
        );
    }

    #[test]
    fn deeply_nested_toml_is_an_error_not_a_crash() {
        let text = format!("version = 1\nx = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        assert!(VerifierPolicy::parse(text.as_bytes(), "p").is_err());
    }

    #[test]
    fn a_principal_names_what_the_trust_established() {
        let p = |s: &str| Principal::try_from(s.to_owned()).unwrap();
        let ada = ["ada@example.org".to_owned()];
        assert!(p("ada@example.org").names("ssh", "SHA256:x", &ada));
        assert!(p("*").names("ssh", "SHA256:x", &ada));
        assert!(!p("bob@example.org").names("ssh", "SHA256:x", &ada));
        let uid = ["Ada <ada@example.org>".to_owned()];
        assert!(p("ada@example.org").names("openpgp", "ABCD", &uid));
        assert!(p("abcd").names("openpgp", "ABCD", &uid));
        assert!(p("Ada <ada@example.org>").names("openpgp", "ABCD", &uid));
        assert!(!p("abcd").names("ssh", "ABCD", &uid), "an SSH key is named by its principals only");
    }

    #[test]
    fn a_user_id_s_address_is_read_inside_its_angle_brackets_whatever_comment_follows_them() {
        let uids = |u: &[&str]| u.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let work = uids(&["Alice <alice@example.org> (work)", "Alice (home) <alice@example.org>"]);
        assert_eq!(identities("openpgp", &work).collect::<Vec<_>>(), ["alice@example.org"; 2]);
        let p = Principal::try_from("alice@example.org".to_owned()).unwrap();
        assert!(p.names("openpgp", "ABCD", &work[..1]));
        let plain = uids(&["alice@example.org", "Alice <alice@example.org"]);
        assert_eq!(
            identities("openpgp", &plain).collect::<Vec<_>>(),
            ["alice@example.org", "Alice <alice@example.org"]
        );
        assert_eq!(
            identities("ssh", &work).next(),
            Some("Alice <alice@example.org> (work)"),
            "SSH: as written"
        );
        let ssh = uids(&["alice@example.org"]);
        let openpgp = uids(&["Alice <alice@example.org> (work)"]);
        assert!(
            identities("ssh", &ssh).any(|x| identities("openpgp", &openpgp).any(|y| same_identity(x, y)))
        );
    }

    #[test]
    fn one_address_in_its_composed_and_decomposed_forms_and_any_case_is_one_person() {
        let (nfc, nfd) = ("jos\u{e9}@example.org", "jose\u{301}@example.org");
        assert!(same_identity(nfc, nfd));
        assert!(same_identity("JOSE\u{301}@EXAMPLE.ORG", nfc));
        assert!(
            same_identity("\u{212b}ngstr\u{f6}m@example.org", "\u{c5}ngstro\u{308}m@example.org"),
            "a singleton"
        );
        assert!(!same_identity("jose@example.org", nfc), "an accent is no form of its letter");
        // Case is set aside as Unicode folds it, not as `to_lowercase` lowers it.
        assert!(same_identity("stra\u{df}e@x.example", "STRASSE@x.example"));
        assert!(same_identity(
            "\u{3bf}\u{3b4}\u{3bf}\u{3c3}@x.example",
            "\u{39f}\u{394}\u{39f}\u{3a3}@x.example"
        ));
        assert!(
            same_identity("\u{3bf}\u{3b4}\u{3bf}\u{3c2}@x.example", "\u{39f}\u{394}\u{39f}\u{3a3}@x.example"),
            "a final sigma"
        );
        assert!(!same_identity("\u{430}lice@x.example", "alice@x.example"), "a look-alike is another letter");
    }

    #[test]
    fn a_principal_names_its_canonical_equivalents_and_no_compatibility_lookalike_nor_other_case() {
        let p = |s: &str| Principal::try_from(s.to_owned()).unwrap();
        let (nfc, nfd) = ("jos\u{e9}@example.org", "jose\u{301}@example.org");
        assert!(p(nfd).names("ssh", "SHA256:x", &[nfc.to_owned()]));
        assert!(p(nfc).names("openpgp", "ABCD", &[format!("Jos\u{e9} <{nfd}>")]));
        assert!(p(nfc).names("openpgp", "ABCD", &[format!("Jose\u{301} <{nfd}>")]), "a user id as written");
        for (named, trusted) in [
            ("\u{fb01}n@example.org", "fin@example.org"),
            ("fin@example.org", "\u{fb01}n@example.org"),
            ("\u{ff41}da@example.org", "ada@example.org"),
            ("ada@example.org", "ada\u{b2}@example.org"),
            ("Ada@example.org", "ada@example.org"),
        ] {
            assert!(!p(named).names("ssh", "SHA256:x", &[trusted.to_owned()]), "{named} names {trusted}");
            // One person to `approvals` when Unicode's case folding makes them one (a ligature
            // folds to its letters, as `ß` to `ss`): counting fewer approvers is the stricter side.
            let folds_alike = named.eq_ignore_ascii_case(trusted)
                || named.starts_with('\u{fb01}')
                || trusted.starts_with('\u{fb01}');
            assert_eq!(same_identity(named, trusted), folds_alike, "{named} is {trusted}");
        }
    }

    #[test]
    fn a_key_of_more_dots_than_the_parser_follows_is_named_at_its_line_with_what_to_write() {
        let text = format!("version = 1\n[[rule]]\nname = \"a\"\n  {} = 1\n", "a.".repeat(300) + "a");
        let e = error(&text);
        assert_eq!((e.line, e.column), (4, 3), "{e}");
        assert!(e.message.starts_with("this key has 300 dots, more than the 79"), "{e}");
        assert!(e.message.contains("`approvals.count = 1`"), "{e}");
        let header = format!("version = 1\n\n[{}]\n", "b.".repeat(100) + "b");
        assert_eq!(error(&header).line, 3, "a table header's key");
    }

    #[test]
    fn a_unit_glob_matches_a_unit_named_in_either_unicode_form_and_no_compatibility_lookalike() {
        let (nfc, nfd) = ("001-caf\u{e9}", "002-cafe\u{301}");
        let policy = |glob: &str| {
            let text = format!("version = 1\n[[rule]]\nname = \"strict\"\nunits = [\"{glob}\"]\n");
            VerifierPolicy::parse(text.as_bytes(), "p").unwrap()
        };
        for glob in ["*caf\u{e9}", "*cafe\u{301}", "00?-caf\u{e9}", "{001,002}-cafe\u{301}"] {
            let p = policy(glob);
            assert!(p.rule_for(nfc).is_some() && p.rule_for(nfd).is_some(), "{glob:?}");
        }
        assert!(policy("*cafe").rule_for(nfd).is_none(), "an accent is no form of its letter");
        assert!(policy("\u{fb01}n").rule_for("fin").is_none(), "a ligature is not its letters");
        for one_byte in ["*caf?", "*caf[\u{e9}x]"] {
            let p = policy(one_byte);
            assert!(
                p.rule_for(nfc).is_none() && p.rule_for(nfd).is_none(),
                "{one_byte:?}: one ASCII character"
            );
        }
    }

    #[test]
    fn a_word_mixing_scripts_is_found_when_a_combining_accent_stands_between_them() {
        assert_eq!(lookalike("001-cafe\u{301}\u{430}").map(|l| l.part).as_deref(), Some("caf\u{e9}\u{430}"));
    }

    #[test]
    fn the_sha256_is_of_the_exact_bytes() {
        let loaded = LoadedPolicy::read(EXAMPLE.as_bytes(), "p", "p".into()).unwrap();
        assert_eq!(loaded.sha256, sha256_hex(EXAMPLE.as_bytes()));
    }
}
