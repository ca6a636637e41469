//! The clean check: nothing that identifies a machine or grants access leaves in a statement or a
//! commit message.
//!
//! Every string of every statement (keys included) goes through [`check_value`] before anything
//! is written; the red excerpt and the commit message go through [`check_str`]. A finding names
//! the kind of leak and where it is, never the leaked text itself.
//!
//! What is caught:
//! - absolute local paths (home, temp and per-user directories, Windows drive and UNC paths,
//!   `file://` URLs), after any separator (`run-/home/ada/x` as much as ` /home/ada/x`);
//! - credentials in URLs (`user:password@`, a random token as the user name, a signature or
//!   password in the query), in connection strings (`AccountKey=`, `Password=…;`), and in a
//!   package registry's settings (`//registry.npmjs.org/:_authToken=…`, `_auth=…`, `_password=…`,
//!   npm's environment `NPM_CONFIG__AUTH=…`, yarn's `npmAuthToken: …`, a `.yarnrc` line
//!   `_authToken …`), whatever the value but a reference or a placeholder;
//! - a password or other credential given to a tool as an option's argument: an option whose name
//!   says so (`--password …`, `--db-password=…`, `--client-secret …`, `--api-key=…`,
//!   `--auth-token …`, `-passin pass:…`, `-storepass …`), a `user:password` pair (`curl -u`,
//!   `smbclient -U user%…`, `lftp -u user,…`), a mount option list (`-o …,password=…`),
//!   `htpasswd -b`, and the tools whose short option is a password (`mysql -pSECRET`,
//!   `sshpass -p`, `docker login -p`, `redis-cli -a`, `ldapsearch -w`, `mongosh -p`, `sqlcmd -P`,
//!   `zip -P`, `7z -pSECRET`, `twine -p`, `mosquitto_pub -P`, `openssl enc -k`), whatever the
//!   value but a reference (`$VAR`) or a help text's placeholder;
//! - a name that says secret bound to a value on a command line, whatever the value but a
//!   reference or a placeholder: an environment variable set for a command (`PGPASSWORD=… psql`,
//!   `env AWS_SECRET_ACCESS_KEY=… aws`, `export DB_PASSWORD=…`, `set PASSWORD=…`, `ENV
//!   PASSWORD=…`, `ENV PASSWORD …`, `setx /M PASSWORD …`, `$env:API_TOKEN = "…"`), a property
//!   (`-Dpassword=…`, `-Psigning.password=…`), a `name=value` argument (`--set db.password=…`,
//!   `-var db_password=…`, `-e ansible_become_pass=…`, `--from-literal=password=…`, `vault login
//!   password=…`), and a pair of a logfmt line (`level=info user=ada password=…`);
//! - private keys in every PEM, OpenSSH, PuTTY, age and JWK shape (an armour's END line cut where
//!   the string ends too), and bare DER key bodies; a place inside a key's body whose armour
//!   stands further back is told by [`inside_private_key`];
//! - tokens of the shapes their providers document (cloud, VCS, chat, payment, mail, package
//!   registries, CI, AI services), JSON Web Tokens, and `Authorization` / bearer credentials; a
//!   vendor's prefix after anything (`[USghp_…]`, `v2AKIA…`), but one that ordinary words end in
//!   (`sk-` of `task-`, `key-` of `monkey-`, `SK` of `TASK`, `lin_api_` of `kotlin_api_`) only
//!   after no ASCII letter or digit (`tokens.rs` names the words for each);
//! - crypt, bcrypt, argon2, scrypt, PBKDF2 and LDAP password hashes;
//! - a value assigned to a name that says secret, token, password, key, credential or auth
//!   (`API_SECRET=…`, `"password": "…"`, `--token …`, `<password>…</password>`, an object
//!   member of a JSON document, a name and value pair of an environment list as JSON, YAML or a
//!   JSON object (`{"name": "API_TOKEN", "value": "…"}`, `- name: API_TOKEN` / `  value: …`), and
//!   a `.netrc` entry's `password …`) when the value is random enough ([`random_enough`]): test
//!   fixtures such as `password: hunter2-redacted` pass, generated secrets do not.
//!
//! Each string is checked as written and as a person reads it ([`as_read`]): a colour code, a
//! control or invisible character, or the backslash of `\"` inside a secret does not hide it,
//! and an escape (`\n`, `\t`, `\r`, `\u200b`, `\u{200b}`) reads as what it stands for.
//! It is also checked decoded once ([`decoded`]): its percent-escapes (`token%3D…`), its
//! characters that NFKC folds to ASCII (fullwidth `ｇｈｐ＿…`), each run of base64 that decodes to
//! text, and each stretch of text a run of hexadecimal digits decodes to (`6768705f…`,
//! `67 68 70 5f …`). A leak found so is reported at the encoded bytes it came from and named as
//! encoded; base64 or hexadecimal is never a leak for being so (digests, signatures and commit
//! ids are).
//!
//! The patterns are our own: secret scanners exist as crates, but they carry hundreds of rules
//! tuned for source code and would flag ordinary test output; each pattern here is anchored so
//! that relative paths, digests and test names stay clean (`fixtures/clean/` holds both corpora).
//!
//! Every regex runs in time linear in its input (the `regex` crate guarantees it), each rule's
//! regex runs at most one pass over a string, the judges look at one bounded value at a time (and
//! at most 256 bytes around it for its command line), and a string is read at most six ways (as
//! written, as read, percent-decoded, NFKC-folded, its base64 and its hexadecimal runs decoded;
//! nothing decoded is decoded again),
//! so a hostile string of any length costs time linear in its length.
//!
//! The rules, by family: [`paths`], [`credentials`] (in URLs and connection strings),
//! [`command_line`] (given to a tool as an option's argument), [`keys`], [`tokens`] (by provider,
//! then the generic ones), [`hashes`], [`assignment`] and [`bindings`] (bound to a name on a
//! command line); [`rule`] is how a rule is matched, [`randomness`] how a value is told from a
//! written one, [`view`] how a string read another way points back at the raw one, [`armour`]
//! where a cut string stands in a key, [`quoted`] how a message quotes a value.

mod armour;
mod as_read;
mod assignment;
mod bindings;
mod command_line;
mod credentials;
mod decoded;
mod hashes;
mod keys;
mod paths;
mod quoted;
mod randomness;
mod rule;
mod tokens;
mod view;

use std::fmt::Write as _;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use serde_json::Value;

use assignment::name_says_secret;
use rule::Rule;
use view::View;

use crate::model::shown::json_field;

pub use armour::inside_private_key;
pub use quoted::{not_shown, shown_if_clean, unless_leaking};
pub use randomness::random_enough;

/// What kind of secret or local detail a string holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeakKind {
    /// An absolute path into a home, temp or per-user directory (Linux, macOS), or a file URL.
    LocalPath,
    /// A Windows drive or UNC path.
    WindowsPath,
    /// A URL carrying credentials.
    UrlCredentials,
    /// A key or password in a connection string.
    ConnectionString,
    /// Private key material.
    PrivateKey,
    /// A token of a provider's documented shape.
    Token,
    /// A JSON Web Token.
    Jwt,
    /// A credential in an `Authorization` header or after `Bearer`.
    Bearer,
    /// A value assigned to a name that says it is secret: a random one, or any in a package
    /// registry's settings (`_authToken=…`).
    Assignment,
    /// A crypt, bcrypt, argon2 or other password hash.
    PasswordHash,
    /// A password or other credential given to a tool as an option's argument (`mysql -p…`,
    /// `curl -u user:…`, `--password …`).
    CommandLine,
}

impl LeakKind {
    /// A few words for the user.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            LeakKind::LocalPath => "an absolute local path (home, temp or per-user directory)",
            LeakKind::WindowsPath => "an absolute Windows path",
            LeakKind::UrlCredentials => "a URL with credentials",
            LeakKind::ConnectionString => "a key or password in a connection string",
            LeakKind::PrivateKey => "private key material",
            LeakKind::Token => "an access token",
            LeakKind::Jwt => "a JSON Web Token",
            LeakKind::Bearer => "a bearer credential",
            LeakKind::Assignment => "a secret assigned to a name that says so",
            LeakKind::PasswordHash => "a password hash",
            LeakKind::CommandLine => "a password or other credential on a command line",
        }
    }
}

/// A leak found in a string: its kind, what it looks like, and the byte range, for a message that
/// points at it without repeating it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// What was found.
    pub kind: LeakKind,
    /// A few words naming it more precisely than the kind (`a GitHub token`).
    pub what: &'static str,
    /// Byte offset of the match in the string.
    pub start: usize,
    /// Byte offset just past the match.
    pub end: usize,
    /// How the leak was encoded where it was found, or `None` when it was written out.
    pub encoding: Option<Encoding>,
}

/// An encoding a leak was found under ([`decoded`]): the leak's range spans its encoded form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Percent-escapes (`%3D`), as in a URL.
    Percent,
    /// A run of base64, standard or URL-safe.
    Base64,
    /// A run of hexadecimal digits, each pair one byte (`6768705f…`, `67 68 70 5f …`).
    Hex,
    /// Unicode compatibility characters that NFKC folds to ASCII (fullwidth `ｇｈｐ＿`,
    /// mathematical bold letters).
    Compatibility,
}

impl Encoding {
    /// How a finding names it, after the leak's name (`, base64-encoded,`), or nothing.
    fn named(encoding: Option<Encoding>) -> &'static str {
        match encoding {
            None => "",
            Some(Encoding::Percent) => ", percent-encoded,",
            Some(Encoding::Base64) => ", base64-encoded,",
            Some(Encoding::Hex) => ", hex-encoded,",
            Some(Encoding::Compatibility) => ", in fullwidth or other compatibility characters,",
        }
    }
}

/// A leak inside a JSON document: where (a JSON pointer) and what. Said after the document
/// (`the held-out manifest would leak …`) as what it is and the field it is in (`an absolute local
/// path in its `run` field, bytes 3..9`): the pointer itself would read as a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{} {}, bytes {}..{}", .leak.what, Encoding::named(.leak.encoding), where_in(pointer), .leak.start, .leak.end)]
pub struct LeakAt {
    /// The JSON pointer of the string (`/predicate/task/title`); a key is named by the pointer of
    /// its object followed by ` (key)` (`/predicate/context (key)`).
    pub pointer: String,
    /// The leak.
    pub leak: Leak,
}

/// Where in its document the string at `pointer` ([`LeakAt::pointer`]) is, for a message that names
/// the document before it.
fn where_in(pointer: &str) -> String {
    match pointer.strip_suffix(" (key)") {
        Some("") => "in one of its top-level keys".to_owned(),
        Some(object) => format!("in a key of its {} field", json_field(object)),
        None if pointer.is_empty() => "in its text".to_owned(),
        None => format!("in its {} field", json_field(pointer)),
    }
}

/// The fewest characters a value must have to count as a generated secret. Shorter random
/// values exist, but below this length a fixture and a secret cannot be told apart.
pub const MIN_SECRET_CHARS: usize = 12;

/// The Shannon entropy, in bits per character, from which a value counts as random.
pub const MIN_ENTROPY_BITS: f64 = 3.0;

/// The same for a value of hexadecimal digits only (an alphabet of 16 reaches less).
pub const MIN_HEX_ENTROPY_BITS: f64 = 2.5;

/// The most characters of an assigned value that are judged (`assignment::value_after`); a
/// longer value is judged by its start.
const VALUE_MAX: usize = 128;

/// The rules, in no particular order (the first leak by position wins; between two leaks at the
/// same place, the earlier rule's).
fn rules() -> Vec<Rule> {
    [
        paths::rules(),
        credentials::rules(),
        command_line::rules(),
        keys::rules(),
        tokens::rules(),
        hashes::rules(),
        assignment::rules(),
        // After the assignment rules: a random value is named as an assignment, as it was.
        bindings::rules(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(rules);

/// Every rule's literals in one automaton (ASCII case ignored; a rule that does not fold is
/// held to its case when a literal is found), with the rule each pattern belongs to.
struct Literals {
    automaton: AhoCorasick,
    /// By pattern id: the rule's index and the literal.
    owners: Vec<(usize, &'static str)>,
}

static LITERALS: LazyLock<Literals> = LazyLock::new(|| {
    let owners: Vec<(usize, &'static str)> = RULES
        .iter()
        .enumerate()
        .flat_map(|(index, rule)| rule.needles.iter().map(move |needle| (index, *needle)))
        .collect();
    let automaton = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(owners.iter().map(|(_, needle)| needle))
        // The literals are a fixed, small set: building their automaton cannot fail.
        .unwrap_or_else(|e| unreachable!("the clean check's literals build an automaton: {e}"));
    Literals { automaton, owners }
});

/// How many 64-bit words a [`RuleSet`] holds: room for 256 rules (a test checks that every rule
/// fits; more rules need only a larger number here).
const RULE_WORDS: usize = 4;

/// A set of rules by their index in [`RULES`], one bit a rule.
#[derive(Default)]
struct RuleSet([u64; RULE_WORDS]);

impl RuleSet {
    fn insert(&mut self, index: usize) {
        self.0[index / 64] |= 1 << (index % 64);
    }

    fn contains(&self, index: usize) -> bool {
        self.0[index / 64] & (1 << (index % 64)) != 0
    }

    /// The indexes in the set, in increasing order.
    fn indexes(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(word, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                let bit = (rest != 0).then(|| rest.trailing_zeros() as usize)?;
                rest &= rest - 1;
                Some(word * 64 + bit)
            })
        })
    }
}

/// Whether each rule's literal occurs in `text` in its case (ignoring ASCII case when the rule
/// folds it) and at a place its [`Anchor`](rule::Anchor) allows: the rules worth running, as a
/// set of rule indexes.
fn candidates(text: &str) -> RuleSet {
    let literals = &*LITERALS;
    let bytes = text.as_bytes();
    let mut wanted = RuleSet::default();
    for found in literals.automaton.find_overlapping_iter(text) {
        let (index, needle) = literals.owners[found.pattern().as_usize()];
        if wanted.contains(index) {
            continue;
        }
        let rule = &RULES[index];
        let in_case = rule.fold || &bytes[found.range()] == needle.as_bytes();
        if in_case && rule.anchor.holds(bytes, found.range()) {
            wanted.insert(index);
        }
    }
    wanted
}

/// Checks one string as written, as a person reads it ([`as_read`]: a colour code, a control or
/// invisible character, or the backslash of `\"` breaks no secret up), and decoded once
/// ([`decoded`]: its percent-escapes, and each run of base64 that decodes to text).
///
/// # Errors
/// The first leak found (by position) in the first of these readings that holds one, without its
/// text, at the raw bytes it was read from.
pub fn check_str(text: &str) -> Result<(), Leak> {
    check_written(text)?;
    if let Some(read) = as_read::as_read(text) {
        check_view(&read, None)?;
    }
    if let Some(decoded) = decoded::percent_decoded(text) {
        check_view(&decoded, Some(Encoding::Percent))?;
    }
    if let Some(folded) = decoded::compatibility_folded(text) {
        check_view(&folded, Some(Encoding::Compatibility))?;
    }
    decoded::base64_leak(text, check_written)?;
    decoded::hex_leak(text, check_written)
}

/// Checks a string read another way as written, and reports a leak at the raw bytes it came from.
fn check_view(view: &View, encoding: Option<Encoding>) -> Result<(), Leak> {
    check_written(&view.text).map_err(|leak| Leak {
        start: view.raw_offset(leak.start),
        end: view.raw_offset(leak.end),
        encoding,
        ..leak
    })
}

/// Checks one string as it is written.
fn check_written(text: &str) -> Result<(), Leak> {
    let mut first: Option<Leak> = None;
    for index in candidates(text).indexes() {
        if let Some(leak) = RULES[index].find(text)
            && first.as_ref().is_none_or(|f| leak.start < f.start)
        {
            first = Some(leak);
        }
    }
    first.map_or(Ok(()), Err)
}

/// Checks every string of a JSON document, object keys included, and every string held below an
/// object member whose name says it is secret ([`check_assignment`]): its value, an array's
/// items, its value's holders, and below a secret's own name (`api_keys`) any member's but an
/// id's or a digest's, however deep ([`Under::member`]). A name and value pair is an assignment
/// too: an array of two strings (`["API_TOKEN", "…"]`) and an object of a name and a value member
/// ([`assignment::named_value`]: `{"name"|"key"|"k": …, "value"|"val"|"v": …}`).
///
/// # Errors
/// The first leak in document order, with its JSON pointer.
pub fn check_value(value: &Value) -> Result<(), LeakAt> {
    walk(value, &mut String::new(), None)
}

/// Checks one assignment of `value` to `name` (an object member, a form field, a name and value
/// pair): a leak when the name says secret, token, password, key, credential or auth and the
/// value is random enough, or when the two read as one header line leak (`Authorization: token
/// …`, whose value alone is a scheme and a credential).
///
/// # Errors
/// The leak, spanning the whole value.
pub fn check_assignment(name: &str, value: &str) -> Result<(), Leak> {
    let read = as_read::as_read(value);
    if name_says_secret(name, value) || read.is_some_and(|read| name_says_secret(name, &read.text)) {
        return Err(Leak {
            kind: LeakKind::Assignment,
            what: LeakKind::Assignment.describe(),
            start: 0,
            end: value.len(),
            encoding: None,
        });
    }
    check_str(&format!("{name}: {value}")).map_err(|leak| Leak { start: 0, end: value.len(), ..leak })
}

/// [`check_assignment`] of `value` to `name`, the leak at `pointer`.
fn assigned(name: &str, value: &str, pointer: String) -> Result<(), LeakAt> {
    check_assignment(name, value).map_err(|leak| LeakAt { pointer, leak })
}

/// The nearest member around a value whose name says something of its value, which the strings
/// below it are read as assigned to ([`walk`]).
#[derive(Clone, Copy)]
struct Under<'a> {
    /// The member's name.
    name: &'a str,
    /// Whether the name is a secret's own ([`assignment::is_a_secrets_name`]: `api_keys`).
    secrets_own: bool,
}

impl<'a> Under<'a> {
    /// What the strings below the member `key` are read as assigned to, `around` being what its
    /// object's are: `key` itself when it says something of its value; else the name around,
    /// carried into a member that holds its value (`value`, `current`, ...,
    /// [`assignment::holds_the_value`]), and below a secret's own name into any member but one
    /// holding an id or a digest (`api_keys.openai`, not `secrets.digest`). A name that only holds
    /// a secret word names another thing (`tokenizer.sha256`, `token_usage.request_id`): below
    /// it, no member is read as that secret.
    fn member(key: &'a str, around: Option<Self>) -> Option<Self> {
        if assignment::names_a_secret(key) {
            return Some(Under { name: key, secrets_own: assignment::is_a_secrets_name(key) });
        }
        around.filter(|under| {
            assignment::holds_the_value(key) || (under.secrets_own && !assignment::names_an_id_or_digest(key))
        })
    }
}

/// Walks `value` at `pointer`; `under` is the name every string below is assigned to, carried
/// into arrays' items and into the members [`Under::member`] says.
fn walk<'a>(value: &'a Value, pointer: &mut String, under: Option<Under<'a>>) -> Result<(), LeakAt> {
    match value {
        Value::String(s) => {
            if let Some(under) = under {
                assigned(under.name, s, pointer.clone())?;
            }
            check_str(s).map_err(|leak| LeakAt { pointer: pointer.clone(), leak })
        }
        Value::Array(items) => {
            if let [Value::String(name), Value::String(value)] = items.as_slice() {
                assigned(name, value, format!("{pointer}/1"))?;
            }
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                let _ = write!(pointer, "/{i}");
                walk(item, pointer, under)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            if let Some((key, name, value)) = assignment::named_value(map) {
                assigned(name, value, format!("{pointer}/{key}"))?;
            }
            for (key, item) in map {
                // A key is named by its object's pointer: its own would repeat the leak.
                check_str(key).map_err(|leak| LeakAt { pointer: format!("{pointer} (key)"), leak })?;
                let len = pointer.len();
                pointer.push('/');
                // RFC 6901: `~` as `~0`, `/` as `~1`.
                for c in key.chars() {
                    match c {
                        '~' => pointer.push_str("~0"),
                        '/' => pointer.push_str("~1"),
                        c => pointer.push(c),
                    }
                }
                walk(item, pointer, Under::member(key, under))?;
                pointer.truncate(len);
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The leaking corpus, one string per line (`#` starts a comment line).
    fn corpus() -> Vec<&'static str> {
        include_str!("../../../fixtures/clean/leaking.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    }

    /// Whether `rule` passes the literal test on `text`.
    fn passes(rule: &Rule, text: &str) -> bool {
        let index = RULES.iter().position(|r| std::ptr::eq(r, rule)).unwrap();
        candidates(text).contains(index)
    }

    /// The kind of the leak the whole check finds in `text`.
    pub(super) fn kind(text: &str) -> Option<LeakKind> {
        check_str(text).err().map(|l| l.kind)
    }

    /// The leak the whole check finds in `text`: what it is called, and the text it spans.
    pub(super) fn caught(text: &str) -> Option<(&'static str, &str)> {
        check_str(text).err().map(|leak| (leak.what, &text[leak.start..leak.end]))
    }

    #[test]
    fn a_finding_points_at_the_string_and_never_repeats_it() {
        let doc = json!({"predicate": {"task": {"title": "see /home/ada/notes"}}});
        let err = check_value(&doc).unwrap_err();
        assert_eq!(err.pointer, "/predicate/task/title");
        assert_eq!(err.leak.kind, LeakKind::LocalPath);
        assert!(!err.to_string().contains("ada"));
    }

    #[test]
    fn a_secret_broken_up_by_what_a_reader_does_not_see_is_still_caught() {
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        for hidden in ["\0", "\u{1b}[0m", "\u{200b}", "\r", "\u{7f}"] {
            let text = format!("push with {}{hidden}{} failed", &token[..17], &token[17..]);
            let leak = check_str(&text).unwrap_err();
            assert_eq!((leak.kind, leak.start), (LeakKind::Token, 10), "{hidden:?}");
            assert_eq!(leak.end, 10 + token.len() + hidden.len(), "{hidden:?}: the raw span");
        }
        assert_eq!(kind("aws AKIA\0IOSFODNN7EXAMPLE"), Some(LeakKind::Token));
        for text in [
            "password: \u{1b}[31mXk9mQ2vL7pR4zTq8\u{1b}[39m",
            "  \"password\": \u{1b}[32m\"Xk9mQ2vL7pR4zTq8\"\u{1b}[39m,",
            "left: \"{\\\"password\\\":\\\"Xk9mQ2vL7pR4zTq8\\\"}\"",
            "Expected: \"{\\\"apiKey\\\":\\\"Xk9mQ2vL7pR4zTq8\\\"}\"",
        ] {
            assert_eq!(kind(text), Some(LeakKind::Assignment), "{text}");
        }
        let member = json!({"decisions": [{"password": "\u{1b}[31mXk9mQ2vL7pR4zTq8\u{1b}[39m"}]});
        assert_eq!(check_value(&member).unwrap_err().leak.kind, LeakKind::Assignment);
        assert_eq!(kind("\u{1b}[32mtest result: ok.\u{1b}[0m 3 passed; 0 failed\r"), None);
    }

    #[test]
    fn a_secret_broken_up_by_any_character_that_renders_as_nothing_is_still_caught() {
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        for hidden in [
            '\u{200c}',
            '\u{200d}',
            '\u{34f}',
            '\u{fe00}',
            '\u{fe0f}',
            '\u{e0100}',
            '\u{e01ef}',
            '\u{115f}',
            '\u{1160}',
            '\u{3164}',
            '\u{ffa0}',
            '\u{2065}',
            '\u{1d173}',
            '\u{180b}',
            '\u{17b4}',
        ] {
            let text = format!("push with {}{hidden}{} failed", &token[..17], &token[17..]);
            assert_eq!(kind(&text), Some(LeakKind::Token), "{hidden:?}");
        }
        for text in [
            "- ✅\u{fe0f} T001 done",
            "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467} family",
            "می\u{200c}خواهم",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn random_letters_under_a_secret_name_are_caught_and_written_words_are_not() {
        for text in [
            "EMAIL_HOST_PASSWORD=qwhtzkpmvbnsxlrd",
            "API_TOKEN=mxqvbtrwplkjhgfdsazcnyeuioqpwlzk",
            "SESSION_SECRET=KhfqwZmbnvTxcrplsdWqazxm",
        ] {
            assert_eq!(kind(text), Some(LeakKind::Assignment), "{text:?}");
        }
        for text in
            ["password=changeme", "token=none", "SECRET=placeholder_value", "password=supersecretpassword"]
        {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_finding_names_the_provider_of_a_token() {
        let leak = check_str("push with ghp_0123456789abcdefghijABCDEFGHIJ012345 failed").unwrap_err();
        assert_eq!((leak.kind, leak.what, leak.start, leak.end), (LeakKind::Token, "a GitHub token", 10, 50));
    }

    #[test]
    fn keys_are_checked_too_and_named_by_their_object() {
        let doc = json!({"a": {"/tmp/ada": 1}});
        let err = check_value(&doc).unwrap_err();
        assert_eq!(err.pointer, "/a (key)");
        assert!(!err.to_string().contains("ada"), "{err}");
    }

    #[test]
    fn the_pointer_escapes_tilde_and_slash_in_keys_and_counts_array_items() {
        let doc = json!({"a/b": [0, {"c~d": ["", " /home/ada"]}]});
        assert_eq!(check_value(&doc).unwrap_err().pointer, "/a~1b/1/c~0d/1");
    }

    #[test]
    fn every_rule_compiles_has_a_literal_and_fits_a_rule_set() {
        assert!(RULES.len() <= RULE_WORDS * 64, "{} rules: raise RULE_WORDS", RULES.len());
        for rule in RULES.iter() {
            let _ = rule.regex();
            assert!(!rule.needles.is_empty(), "{:?} has no literal", rule.pattern);
            for needle in rule.needles {
                assert!(needle.len() >= 2, "{needle:?}: the literal table needs two bytes");
            }
        }
    }

    #[test]
    fn every_rule_finds_a_leak_in_the_corpus() {
        let lines = corpus();
        for rule in RULES.iter() {
            assert!(lines.iter().any(|l| rule.find(l).is_some()), "no corpus line for {:?}", rule.pattern);
        }
    }

    /// The literal test is looser than the rule: wherever a rule finds a leak, its literal test
    /// passes, whatever stands before or after the sample (ASCII word characters, punctuation,
    /// non-ASCII letters, URL parts).
    #[test]
    fn a_leak_a_rule_finds_always_passes_its_literal_test() {
        let before = ["", "a", "9", "_", "-", ".", "/", "\u{e9}", "x://", "@"];
        let after = ["", "Z", "_", ":", "\u{3b1}", "@"];
        for sample in corpus() {
            for before in before {
                for after in after {
                    let text = format!("{before}{sample}{after}");
                    let wanted = candidates(&text);
                    for (index, rule) in RULES.iter().enumerate() {
                        let turned_away = !wanted.contains(index);
                        // `is_match` first: a cheap pass that most rules fail.
                        if turned_away && rule.regex().is_match(&text) {
                            assert!(
                                rule.find(&text).is_none(),
                                "{:?} finds a leak in {text:?} but its literal test fails",
                                rule.pattern
                            );
                        }
                    }
                }
            }
        }
    }

    /// Tokens whose prefix is a vendor's own, each with what the check calls it.
    const PREFIXED: [(&str, &str); 11] = [
        ("ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k", "a GitHub token"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ", "a GitHub token"),
        ("glpat-PYq6Aq-berGFlly6Ek2X", "a GitLab token"),
        ("xoxb-607773546950-3284851517363-w4XLvNo2a17lVspspvZ2dnCl", "a Slack token"),
        ("sk_live_1234567890abcdefABCDEF", "a Stripe key"),
        ("rk_live_1234567890abcdefABCDEF", "a Stripe key"),
        ("AIzaSy42y4ge7BnLp845pEAL4mt4GoZm0c2FX6n", "a Google API key"),
        ("AKIAIOSFODNN7EXAMPLE", "an AWS access key id"),
        ("ASIAIOSFODNN7EXAMPLE", "an AWS access key id"),
        ("npm_v17cgFf1wUtCv8dkLxtmlF0blpxaYj5p0P8x", "an npm token"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "a JSON Web Token",
        ),
    ];

    #[test]
    fn a_token_of_a_vendors_prefix_right_after_a_letter_a_digit_or_an_escape_is_caught() {
        for (token, what) in PREFIXED {
            for before in ["[US", "X", "v2", "cfg:\\n", "\\t", "\\r\\n", "a\\u200b", " "] {
                let text = format!("{before}{token}]");
                assert_eq!(caught(&text), Some((what, token)), "{text:?}");
            }
        }
        let broken = "push ghp_R8x2Kq9LmZ4v\\u200bT7nB3cW6yH1jP0sD5fG9hJ2k";
        assert_eq!(caught(broken), Some(("a GitHub token", &broken[5..])), "JSON's escape of U+200B");
    }

    #[test]
    fn a_secret_right_after_an_escaped_line_break_or_tab_is_caught_as_after_a_real_one() {
        for (text, want) in [
            ("  left: \"[cfg]\\n/home/ada/x\\n\"", LeakKind::LocalPath),
            ("cmd: \"set -e\\nPGPASSWORD=hunter2 psql -h db\"", LeakKind::CommandLine),
            ("\"a\\r\\nhf_abcdefghijklmnopqrstuvwxyzABCD\"", LeakKind::Token),
            ("[\"x\\tsk-proj-R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k\"]", LeakKind::Token),
            ("{\"a\":\"b\\u000a/tmp/x\"}", LeakKind::LocalPath),
            (
                "url=\"https://x.blob.core.windows.net/c?sv=2022\\u0026sig=Zr8KpX2mQ7vL3nW9tB4cYq%3D\"",
                LeakKind::UrlCredentials,
            ),
        ] {
            assert_eq!(kind(text), Some(want), "{text:?}");
        }
    }

    #[test]
    fn words_and_code_holding_a_vendors_prefix_and_text_with_escapes_stay_clean() {
        for text in [
            "config.monkeyJsonParser.parseItNow.x = surveyJsonReader.load()",
            "KAKIAN TAKIAFORMULATIONS PASIANAKIAN",
            "the task_live_feed and risk_live_updates of laughs_and_cries",
            "pnpm_store_dir=node_modules/.pnpm and xoxo-hugs",
            "  left: \"a\\nb\\tc\"\n right: \"a\\r\\nb\\u00e9\"",
            "assert_eq!(s, \"line one\\nline two\\n\\ttabbed\");",
            "expected: \"\\u{1b}[31mred\\u{1b}[0m\", found: \"\\\\n\"",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    /// Each anchor turns away a literal in a place its pattern cannot match.
    #[test]
    fn literals_inside_words_urls_and_plain_links_compile_no_pattern() {
        let ordinary = [
            "https://speccoder.dev/task-verification/v0",
            "https://in-toto.io/Statement/v1",
            "git+https://github.com/o/r@0123abcd",
            "https://slsa.dev/verification_summary/v1",
            "mask-images and desk-lamps",
            "the shelf_life of a pnpm_like thing",
            "KAKIAN is a word; so are PASIAN and TACCATA",
        ];
        for text in ordinary {
            let hits: Vec<&str> =
                RULES.iter().filter(|r| passes(r, text)).map(|r| r.pattern.as_str()).collect();
            assert!(hits.is_empty(), "{text:?} passes the literal test of {hits:?}");
        }
    }

    #[test]
    fn a_local_path_after_any_separator_is_caught_and_a_relative_one_is_not() {
        for text in [
            "run-/home/alice/x",
            "x_/tmp/y",
            "--out=/tmp/build",
            "PATH=/usr/bin:/home/ada/.cargo/bin",
            "cd /Users/grace",
            "(/root/.config)",
            "[/tmp]",
            "/home",
            "/mnt/c/Users/ada/src",
            "/run/user/1000/bus",
        ] {
            assert_eq!(kind(text), Some(LeakKind::LocalPath), "{text:?}");
        }
        for text in [
            "src/home/mod.rs",
            "./tmp/out.txt",
            "../tmp/out.txt",
            "~/tmp/x",
            "https://example.com/home/index.html",
            "http://localhost:8080/tmp/x",
            "/usr/lib/python3.12/unittest/case.py",
            "/homework",
            "tests/tmp_dir.rs",
        ] {
            assert_eq!(kind(text), None, "{text:?}");
        }
    }

    #[test]
    fn fixtures_assigned_to_secret_names_pass() {
        for text in [
            "password: hunter2-redacted",
            "password = \"hunter2-redacted\"",
            "token=test-token-123",
            "API_KEY=${API_KEY}",
            "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
            "password: <redacted>",
            "secret: ***",
            "DB_PASSWORD=%DB_PASSWORD%",
            "client_secret: xxxxxxxxxxxxxxxxxxxx",
            "cache_key: Linux-cargo-0f8fad5bd9cb469fa16570867728950e",
            "idempotency_key=0f8fad5b-d9cb-469f-a165-70867728950e",
            "max_tokens: 4096",
            "token_count=1234567890123",
            "tokenizer: bert-base-uncased",
            "author: Ada Lovelace",
            "auth_url: https://auth.example.com/oauth2/token",
            "key_file=tests/fixtures/keys/rsa_2048.pem",
            "secret_name=projects/my-proj-123456/secrets/db",
            "tests/test_auth.py::test_token_expiry PASSED",
            "--token-file tests/fixtures/token.txt",
            "password: correct-horse-battery-staple",
            "PWD=/builds/group/project-0f3a9c2e1b",
            "authorization: required for this endpoint",
            "cache-key-0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn random_values_assigned_to_secret_names_are_caught() {
        for text in [
            "API_SECRET=0f8fad5bd9cb469fa16570867728950e0f8fad5b",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "{\"password\": \"Xk9#mQ2$vL7!pR4@\"}",
            "<password>Zr8KpX2mQ7vL3nW9</password>",
            "api_key: 0f8fad5b-d9cb-469f-a165-70867728950e",
            "client_secret=Zr8KpX2mQ7vL3nW9tB4c",
            "x-api-key: Zr8KpX2mQ7vL3nW9tB4c",
            "SecretAccessKey: Zr8KpX2mQ7vL3nW9tB4cYd6Fh1Jk5",
            "cache_key=Zr8KpX2mQ7vL3nW9tB4c",
            // One assignment's value never hides the next.
            "env: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "flags=a:b:token=Zr8KpX2mQ7vL3nW9tB4c",
        ] {
            assert_eq!(kind(text), Some(LeakKind::Assignment), "{text:?}");
        }
    }

    #[test]
    fn an_object_member_whose_name_says_secret_is_an_assignment() {
        let doc = json!({"context": {"db": {"password": "Zr8KpX2mQ7vL3nW9tB4c"}}});
        let err = check_value(&doc).unwrap_err();
        assert_eq!((err.pointer.as_str(), err.leak.kind), ("/context/db/password", LeakKind::Assignment));
        assert!(
            check_value(&json!({"password": "hunter2-redacted", "cache_key": "0f8fad5bd9cb469fa165"}))
                .is_ok()
        );
    }

    #[test]
    fn a_bearer_or_basic_credential_is_caught_and_prose_is_not() {
        assert_eq!(kind("Authorization: Bearer 0123456789abcdefghij0123"), Some(LeakKind::Bearer));
        assert_eq!(kind("Authorization: Basic dXNlcjpwYXNz"), Some(LeakKind::Bearer));
        assert_eq!(kind("bearer token-based-authentication-flow"), None);
        assert_eq!(kind("the basic functionality works"), None);
    }

    #[test]
    fn digests_uuids_versions_and_relative_paths_are_clean() {
        let doc = json!({"h": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "p": "src/home/mod.rs", "q": "./tmp/out.txt", "u": "https://github.com/o/r", "k": "SHA256:abc",
        "id": "0f8fad5b-d9cb-469f-a165-70867728950e", "v": "1.2.3-beta.4+build.5",
        "c": "commit 3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c"});
        assert!(check_value(&doc).is_ok());
    }

    fn b64(text: &str) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(text)
    }

    #[test]
    fn a_percent_encoded_secret_is_caught_at_the_escapes_it_came_from() {
        // A token of a word's prefix: one found after a letter needs no decoding.
        let token = "hf_abcdefghijklmnopqrstuvwxyzABCD";
        let text = format!("push token%3D{token} failed");
        let leak = check_str(&text).unwrap_err();
        assert_eq!((leak.kind, leak.encoding), (LeakKind::Token, Some(Encoding::Percent)));
        assert_eq!(&text[leak.start..leak.end], token);
        let aws = "key %41KIAIOSFODNN7EXAMPL%45";
        let leak = check_str(aws).unwrap_err();
        assert_eq!((leak.kind, &aws[leak.start..leak.end]), (LeakKind::Token, "%41KIAIOSFODNN7EXAMPL%45"));
        for (text, want) in [
            ("password%3DZr8KpX2mQ7vL3nW9tB4c", LeakKind::Assignment),
            ("-----BEGIN%20PRIVATE%20KEY-----", LeakKind::PrivateKey),
            ("%2D%2D%2D%2D%2DBEGIN%20OPENSSH%20PRIVATE%20KEY%2D%2D%2D%2D%2D", LeakKind::PrivateKey),
            (
                "GET /login?next=https%3A%2F%2Fapp.example.net%2Fcb%3Fclient_secret%3DZr8KpX2mQ7vL3nW9tB4c",
                LeakKind::Assignment,
            ),
            ("open?dir=%2Fhome%2Fada%2Fnotes", LeakKind::LocalPath),
            ("Authorization%3A%20Basic%20dXNlcjpodW50ZXIy", LeakKind::Bearer),
        ] {
            let leak = check_str(text).unwrap_err();
            assert_eq!((leak.kind, leak.encoding), (want, Some(Encoding::Percent)), "{text}");
        }
    }

    #[test]
    fn percent_escapes_in_ordinary_text_stay_clean() {
        for text in [
            "GET https://example.com/search?q=tags%20and%20bookmarks%2Fall 200",
            "coverage 100%; 3 of 3 passed",
            "expected %d items, got %s",
            "caf%C3%A9 is percent-encoded UTF-8",
            "name%3Dvalue&sort%3Dasc",
            "token%3Dtest-token-123",
            "double %253D stays one level: token%253DZr8KpX2mQ7vL3nW9tB4c",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_base64_encoded_secret_is_caught_at_the_whole_run() {
        for (secret, want) in [
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n", LeakKind::PrivateKey),
            ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", LeakKind::Assignment),
            ("ghp_0123456789abcdefghijABCDEFGHIJ012345", LeakKind::Token),
            ("Authorization: Basic dXNlcjpodW50ZXIy", LeakKind::Bearer),
            ("https://ada:hunter2@git.example.net/app.git", LeakKind::UrlCredentials),
            ("/home/ada/.ssh/id_ed25519", LeakKind::LocalPath),
        ] {
            let run = b64(secret);
            let text = format!("blob \"{run}\", more");
            let leak = check_str(&text).unwrap_err();
            assert_eq!((leak.kind, leak.encoding), (want, Some(Encoding::Base64)), "{secret}");
            assert_eq!(&text[leak.start..leak.end], run, "{secret}: the raw run, padding included");
        }
        // The URL-safe alphabet, without padding.
        let url_safe = {
            use base64::Engine as _;
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode("{\"password\": \"~~~Zr8KpX2mQ7vL3nW9?\"}")
        };
        assert!(url_safe.contains(['-', '_']), "{url_safe}");
        assert_eq!(check_str(&format!("state={url_safe}")).unwrap_err().kind, LeakKind::Assignment);
    }

    #[test]
    fn base64_of_bytes_digests_and_ordinary_text_stays_clean() {
        use base64::Engine as _;
        let standard = base64::engine::general_purpose::STANDARD;
        let random: Vec<u8> = (0u32..64).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for text in [
            standard.encode(&random),
            format!("integrity sha256-{}", standard.encode([0xe3u8; 32])),
            "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="
                .to_owned(),
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ada@host"
                .to_owned(),
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".to_owned(),
            "test tags::adds_a_tag_to_a_bookmark_and_lists_it ... ok".to_owned(),
            "TheQuickBrownFoxJumpsOverTheLazyDog0123456789".to_owned(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".to_owned(),
            standard.encode("test result: ok. 3 passed; 0 failed; password: hunter2-redacted"),
            standard.encode(r#"{"_type":"https://in-toto.io/Statement/v1","subject":[]}"#),
        ] {
            assert_eq!(check_str(&text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_password_given_on_the_command_line_of_a_tool_whose_p_is_one_is_caught() {
        for text in [
            "mysql -uroot -pZr8KpX2mQ7vL3nW9 app",
            "docker exec db mysql -u app -phunter2 -e 'select 1'",
            "mysqldump --single-transaction -u app -p'hunter2' tags > dump.sql",
            "mysqladmin -pS3cr3t ping",
            "mariadb -h db -p\"hunter2\" app",
            "mariadb-dump -phunter2 app",
            "sshpass -p hunter2 ssh ada@build.example.net",
            "sshpass -phunter2 scp dump.sql build:",
            "docker login -u ada -p hunter2 registry.example.net",
            "podman login --username ada -phunter2 quay.io",
        ] {
            assert_eq!(kind(text), Some(LeakKind::CommandLine), "{text:?}");
        }
        let leak = check_str("mysql -u root -pZr8KpX2 app").unwrap_err();
        assert_eq!((leak.start, leak.end), (16, 23), "the password only");
        for text in [
            "cargo test -p speccoder_attest clean",
            "mkdir -p target/tmp",
            "python -p 8000",
            "ssh -p 2222 ada@build.example.net",
            "psql -h db -p 5432 -U app",
            "docker run -p 3306:3306 mysql:8",
            "mysql -u root -p app",
            "mysql -p",
            "mysql -P 3306 --protocol=tcp",
            "mysql -p$MYSQL_PASSWORD app",
            "mysql -p\"${DB_PASSWORD}\" app",
            "mysql -u root; cargo test -pfoo",
            "sshpass -e ssh -p 2222 host",
            "sshpass -f ~/.pw ssh host",
            "the mysql-connector -pure flag",
            "docker run -p 8080:80 app && docker login -u ada --password-stdin",
            "docker login -u ada -p \"$REGISTRY_PASSWORD\" registry.example.net",
        ] {
            assert_eq!(kind(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_credential_given_to_an_option_whose_name_says_so_is_caught_and_a_mention_is_not() {
        for text in [
            "wget --user=ada --password=hunter2 https://files.example.net/x",
            "cli login --password hunter2",
            "redis-cli --user app --pass hunter2 ping",
            "--passwd=hunter2",
            "app --db-password 'hunter2' migrate",
            "wget --http-password=hunter2 --proxy-password=hunter2 https://x.example.net",
            "oauth --client-secret s3cr3t-value",
            "--api-key=abc123",
            "gh-release --token abc123",
            "--auth-token=abc123",
            "--apiKey abc123",
            "--token Zr8KpX2mQ7vL3nW9",
            "openssl pkcs12 -export -in c.pem -passout pass:hunter2 -out c.p12",
            "openssl rsa -in k.pem -passin pass:secret",
            "keytool -importkeystore -srcstorepass hunter2 -deststorepass hunter2",
            "jarsigner -keystore ks.jks -storepass hunter2 -keypass hunter2 app.jar",
            "apksigner sign --ks ks.jks --ks-pass pass:secret app.apk",
            "args: [\"--password\", \"secret\"]",
            "Command(['mysql', '--password=secret', 'app'])",
        ] {
            assert_eq!(kind(text), Some(LeakKind::CommandLine), "{text:?}");
        }
        let text = "openssl rsa -passin pass:hunter2 -in k.pem";
        let leak = check_str(text).unwrap_err();
        assert_eq!(&text[leak.start..leak.end], "hunter2", "the password only");
        let text = "cli --password=hunter2 --verbose";
        let leak = check_str(text).unwrap_err();
        assert_eq!(&text[leak.start..leak.end], "hunter2", "the password only");
        // An option that names a credential without giving one, a reference, a help text's
        // placeholder, and prose.
        for text in [
            "docker login -u ada --password-stdin registry.example.net",
            "cli --password-file secrets/pw.txt",
            "oauth --token-type bearer",
            "psql --no-password -h db app",
            "psql -U app --password mydb_prod",
            "ansible-playbook --ask-become-pass site.yml",
            "llm --max-tokens 4096",
            "aws s3api list-objects --starting-token page-0002",
            "docker build --secret id=npmrc,src=.npmrc .",
            "ffmpeg -i in.mp4 -pass 1 -f null",
            "cli --password $DB_PASSWORD",
            "cli --password=\"${DB_PASSWORD}\"",
            "cli --token ${{ secrets.GITHUB_TOKEN }}",
            "cli --token @token.txt",
            "cli --password=***",
            "  -p, --password <PASSWORD>  the password to log in with",
            "  --password TEXT  Password for the registry",
            "      --token string   the API token",
            "  -password string",
            "openssl rsa -passin env:KEY_PASS -in k.pem",
            "openssl rsa -passin file:pw.txt -in k.pem",
            "apksigner sign --ks-pass stdin app.apk",
            "keytool -list -storepass:env STORE_PASS",
            "test cli::passes --token through to the client ... ok",
            "tests/test_auth.py::test_password_reset PASSED",
            "  \u{2713} rejects --password without a value (3 ms)",
            "cli --password",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_user_name_and_password_given_as_one_argument_is_caught_and_a_user_alone_is_not() {
        for text in [
            "curl -u ada:hunter2 https://api.example.net/v1/tags",
            "curl -sS --user ada:hunter2 https://api.example.net",
            "curl -x http://proxy:3128 -U ada:hunter2 https://example.net",
            "curl --proxy-user 'ada:hunter2' https://example.net",
            "curl -uada:hunter2 https://example.net",
            "smbclient //files/share -U ada%hunter2 -c ls",
            "smbclient -U 'CORP\\ada%hunter2' -L files",
            "rpcclient -U ada%hunter2 files",
            "lftp -u ada,hunter2 sftp://files.example.net",
            "htpasswd -b .htpasswd ada hunter2",
            "htpasswd -nbB ada hunter2",
            "docker run --rm httpd htpasswd -Bbn ada hunter2 > auth/htpasswd",
            "mount -t cifs //files/share /mnt/share -o username=ada,password=hunter2,vers=3.0",
        ] {
            assert_eq!(kind(text), Some(LeakKind::CommandLine), "{text:?}");
        }
        let text = "curl -u ada:hunter2 https://api.example.net";
        let leak = check_str(text).unwrap_err();
        assert_eq!(&text[leak.start..leak.end], "hunter2", "the password only");
        // Caught by the rules of URLs and of Authorization headers.
        for (text, want) in [
            ("psql postgresql://app:hunter2@db:5432/tags -c 'select 1'", LeakKind::UrlCredentials),
            ("redis-cli -u redis://:hunter2@cache:6379 ping", LeakKind::UrlCredentials),
            ("git -c http.extraheader=\"Authorization: Basic YWRhOmh1bnRlcjI=\" fetch", LeakKind::Bearer),
            (
                "git -c http.extraHeader='AUTHORIZATION: bearer 0123456789abcdefghij0123' push",
                LeakKind::Bearer,
            ),
        ] {
            assert_eq!(kind(text), Some(want), "{text:?}");
        }
        for text in [
            "curl -u ada https://api.example.net",
            "curl -u \"$API_USER:$API_PASSWORD\" https://api.example.net",
            "curl -u ada:${TOKEN} https://api.example.net",
            "curl -u ada: https://api.example.net",
            "docker run -u 1000:1000 app",
            "docker run --user app:app app",
            "curl -fsS https://example.net/health && docker run -u 1000:1000 app",
            "htpasswd -B .htpasswd ada",
            "htpasswd -D .htpasswd ada",
            "smbclient -U ada //files/share",
            "mount -t cifs -o rw,credentials=secrets/smb.cred //files/share share",
            "printf 'usage: -U %s' \"$USER\"",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_password_given_to_a_tool_whose_short_option_is_one_is_caught() {
        for text in [
            "redis-cli -a hunter2 ping",
            "redis-cli -h cache -p 6379 -a hunter2 --no-auth-warning ping",
            "ldapsearch -x -D cn=admin,dc=example,dc=net -w hunter2 -b dc=example,dc=net",
            "mongosh -u admin -p hunter2 mongodb://db:27017",
            "mongodump -u app -p hunter2 --db tags",
            "sqlcmd -S db -U sa -P 'Str0ng!Passw0rd' -Q 'select 1'",
            "zip -r -P hunter2 out.zip dir",
            "unzip -P hunter2 archive.zip",
            "7z a -phunter2 -mhe=on out.7z dir",
            "openssl enc -aes-256-cbc -k hunter2 -in plain.txt -out enc.bin",
            "twine upload -u ci -p hunter2 dist/*",
            "mosquitto_pub -h broker -u ci -P hunter2 -t tags -m hi",
            "rabbitmqadmin -H mq -P 15672 -u ci -p hunter2 list queues",
            "helm registry login registry.example.net -u ci -p hunter2",
            "oc login https://api.example.net:6443 -u dev -p hunter2",
            "az acr login -n tags -u ci -p hunter2",
            "cf login -a https://api.example.net -u ci -p hunter2",
        ] {
            assert_eq!(kind(text), Some(LeakKind::CommandLine), "{text:?}");
        }
        for text in [
            "redis-cli -p 6379 ping",
            "redis-cli --askpass ping",
            "grep -P '\\d+' out.txt",
            "ldapsearch -x -W -D cn=admin",
            "mongosh -u admin -p",
            "mongosh -u admin -p --quiet",
            "docker run --name mongo -p 27017:27017 mongo:7",
            "zip -r out.zip dir",
            "7z x -p archive.7z",
            "openssl req -new -keyout key.pem -out req.csr",
            "sqlcmd -S db -E -Q 'select 1'",
            "unzip -o archive.zip",
            "mosquitto_sub -h broker -p 1883 -t tags",
            "rabbitmqadmin -H mq -P 15672 list queues",
            "npm login --registry https://registry.example.net",
            "tests/test_login.py::test_login -p PASSED",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_secret_set_in_the_environment_of_a_command_is_caught_whatever_its_value() {
        for text in [
            "PGPASSWORD=hunter2 psql -h db -U app tags",
            "$ MYSQL_PWD=hunter2 mysql -u app tags",
            "env AWS_SECRET_ACCESS_KEY=abc123 aws s3 ls s3://bucket",
            "export DB_PASSWORD=hunter2",
            "export DB_PASSWORD='hunter2' && ./migrate",
            "LANG=C PGPASSWORD=hunter2 pg_dump tags > dump.sql",
            "cd app; VAULT_TOKEN=hunter2 vault kv get secret/db",
            "set PASSWORD=hunter2",
            "SET \"API_TOKEN=hunter2\"",
            "PS> $env:API_TOKEN = \"hunter2\"",
            "$Env:GITHUB_TOKEN=\"hunter2\"",
            "ENV PASSWORD=hunter2",
            "ARG NPM_TOKEN=hunter2",
            "docker run -e POSTGRES_PASSWORD=hunter2 postgres:16",
            "docker run --env=MYSQL_ROOT_PASSWORD=hunter2 mysql:8",
            "docker build --build-arg NPM_TOKEN=hunter2 .",
        ] {
            assert_eq!(kind(text), Some(LeakKind::CommandLine), "{text:?}");
        }
        let text = "PGPASSWORD=hunter2 psql -h db";
        let leak = check_str(text).unwrap_err();
        assert_eq!(&text[leak.start..leak.end], "hunter2", "the value only");
    }

    #[test]
    fn a_secret_given_as_a_property_of_a_jvm_or_build_tool_is_caught() {
        for text in [
            "java -Dpassword=hunter2 -jar app.jar",
            "java -Djavax.net.ssl.keyStorePassword=changeit -jar app.jar",
            "JAVA_OPTS=\"-Dspring.datasource.password=hunter2\"",
            "./gradlew publish -Psigning.password=hunter2",
            "mvn deploy -Dgpg.passphrase=hunter2",
            "mvn sonar:sonar -Dsonar.token=abc123",
            "cc -DAPI_KEY=abc123 main.c",
        ] {
            assert_eq!(kind(text), Some(LeakKind::CommandLine), "{text:?}");
        }
    }

    #[test]
    fn a_secret_given_as_a_key_value_argument_of_a_subcommand_is_caught() {
        for text in [
            "kubectl create secret generic db --from-literal=password=hunter2",
            "kubectl create secret generic db --from-literal=user=app --from-literal=password=hunter2",
            "vault login -method=userpass username=ada password=hunter2",
            "vault kv put secret/db password=hunter2",
            "helm install db bitnami/postgresql --set auth.password=hunter2",
            "helm upgrade app ./chart --set image.tag=1.2,db.password=hunter2",
            "helm upgrade app ./chart --set=db.password=hunter2",
            "terraform apply -var db_password=hunter2",
            "terraform apply -var=\"db_password=hunter2\"",
            "terraform plan -var 'db_password=hunter2'",
            "ansible-playbook site.yml -e ansible_become_pass=hunter2",
            "ansible-playbook site.yml -e \"ansible_user=ci ansible_password=hunter2\"",
            "http POST :8080/login username=ada password=hunter2",
            "make deploy REGISTRY_TOKEN=hunter2",
            "Step 3: helm install db ./chart --set db.password=hunter2",
        ] {
            assert_eq!(kind(text), Some(LeakKind::CommandLine), "{text:?}");
        }
        let text = "helm install db ./chart --set a=1,db.password=hunter2,b=2";
        let leak = check_str(text).unwrap_err();
        assert_eq!(&text[leak.start..leak.end], "hunter2", "the value only");
    }

    #[test]
    fn a_reference_a_placeholder_or_prose_bound_to_a_secret_name_stays_clean() {
        for text in [
            "PASSWORD_FILE=/run/secrets/db psql -h db",
            "PGPASSFILE=.pgpass psql -h db",
            "java -Dpassword.file=secrets/pw.txt -jar app.jar",
            "helm install db ./chart --set db.password=$DB_PW",
            "helm install db ./chart --set auth.existingSecret=db-credentials",
            "vault-operator install --existing-secret=db-credentials",
            "export TOKEN=$(cat token)",
            "export GITHUB_TOKEN=\"${{ secrets.GITHUB_TOKEN }}\"",
            "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
            "kubectl create secret generic db --from-literal=password=<password>",
            "kubectl create secret generic db --from-file=password=./pw.txt",
            "vault login -method=userpass username=ada password=***",
            "terraform apply -var db_password=@secrets/db.txt",
            "PGPASSWORD=hunter2",
            "token=test-token-123",
            "test_password_is_hashed ... ok",
            "tests/test_auth.py::test_password=hunter2 PASSED",
            "password=",
            "cli configure password= ",
            "set the password= field before you log in",
            "    client.login(username=\"ada\", password=\"hunter2\")",
            "    login(password=\"hunter2\")",
            "E       AssertionError: expected password=hunter2",
            "env: AWS_SECRET_ACCESS_KEY=hunter2",
            "docker run -e PGPASSWORD -e GIT_ASKPASS=/usr/bin/true app",
            "PWD=/builds/app OLDPWD=/builds make test",
            "NO_PASSWORD=1 REQUIRE_TOKEN=true ./run-tests",
            "mvn -Pprod -DskipTests -Dtoken.ttl=3600 package",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    /// The anchors look at a name's first bytes only (`rule::NAME_MAX`): a longer name is left to
    /// the pattern, never turned away.
    #[test]
    fn a_secret_under_a_name_longer_than_the_anchors_look_is_still_caught() {
        let long = "x".repeat(200);
        for (text, want) in [
            (format!("{long}_token={long}_TOKEN=Zr8KpX2mQ7vL3nW9tB4c"), LeakKind::Assignment),
            (format!("--{long}-token-id Zr8KpX2mQ7vL3nW9tB4c"), LeakKind::Assignment),
            (format!("cli --{long}-db-password=hunter2"), LeakKind::CommandLine),
            (format!("cli --db-password-{long}-token hunter2"), LeakKind::CommandLine),
        ] {
            assert_eq!(kind(&text), Some(want), "{text:?}");
        }
    }

    /// Strings built to make a backtracking engine or a quadratic loop stall: each is checked (the
    /// time is measured by `examples/bench_clean.rs`, not here).
    const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8xKf2mWp";

    #[test]
    fn a_secret_in_a_name_and_value_pair_of_an_environment_list_is_caught() {
        for text in [
            format!("\"env\":[{{\"name\":\"AWS_SECRET_ACCESS_KEY\",\"value\":\"{AWS_SECRET}\"}}]"),
            format!("env:\n- name: AWS_SECRET_ACCESS_KEY\n  value: {AWS_SECRET}\n"),
            format!("    - name: \"DB_PASSWORD\"\n      value: \"{AWS_SECRET}\""),
            format!("env: [{{name: API_TOKEN, value: {AWS_SECRET}}}]"),
            format!("{{\n  \"name\": \"API_TOKEN\",\n  \"value\": \"{AWS_SECRET}\"\n}}"),
            format!("{{'Name': 'client_secret', 'Value': '{AWS_SECRET}'}}"),
        ] {
            let (what, leaked) = caught(&text).unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!((what, leaked), (LeakKind::Assignment.describe(), AWS_SECRET), "{text:?}");
        }
        let doc = json!({"executor": {"env": [{"name": "AWS_SECRET_ACCESS_KEY", "value": AWS_SECRET}]}});
        let err = check_value(&doc).unwrap_err();
        assert_eq!((err.pointer.as_str(), err.leak.kind), ("/executor/env/0/value", LeakKind::Assignment));
    }

    #[test]
    fn a_secret_held_in_an_array_or_an_object_below_a_member_whose_name_says_secret_is_caught() {
        const S: &str = "Xq8vR2mK9pL4tZ7wN3bY6cF1";
        for (doc, pointer) in [
            (json!({"db": {"password": [S]}}), "/db/password/0"),
            (json!({"db": {"password": {"value": S}}}), "/db/password/value"),
            (json!({"db": {"password": {"current": S}}}), "/db/password/current"),
            (json!({"api_key": [{"next": S}, {"previous": S}]}), "/api_key/0/next"),
            (json!({"Authorization": ["Bearer-less", S]}), "/Authorization/1"),
            (json!({"proxy_authorization": {"value": S}}), "/proxy_authorization/value"),
        ] {
            let err = check_value(&doc).expect_err(&doc.to_string());
            assert_eq!((err.pointer.as_str(), err.leak.kind), (pointer, LeakKind::Assignment), "{doc}");
        }
    }

    #[test]
    fn a_secret_in_a_name_and_value_pair_of_two_strings_or_of_key_and_val_members_is_caught() {
        const S: &str = "Xq8vR2mK9pL4tZ7wN3bY6cF1";
        for (doc, pointer) in [
            (json!({"sandbox": {"env": [["API_TOKEN", S]]}}), "/sandbox/env/0/1"),
            (json!({"env": [{"key": "DB_PASSWORD", "val": S}]}), "/env/0/val"),
            (json!({"env": [{"k": "client_secret", "v": S}]}), "/env/0/v"),
            (json!({"headers": [{"Name": "X-Api-Key", "Value": S}]}), "/headers/0/Value"),
        ] {
            let err = check_value(&doc).expect_err(&doc.to_string());
            assert_eq!((err.pointer.as_str(), err.leak.kind), (pointer, LeakKind::Assignment), "{doc}");
        }
        // A header's value is its scheme and the credential: read as the header line it is.
        for (doc, pointer) in [
            (json!({"headers": [{"key": "Authorization", "val": format!("token {S}")}]}), "/headers/0/val"),
            (json!({"headers": [["Proxy-Authorization", format!("Basic {S}")]]}), "/headers/0/1"),
            (json!({"request": {"Authorization": format!("token {S}")}}), "/request/Authorization"),
        ] {
            let err = check_value(&doc).expect_err(&doc.to_string());
            assert_eq!(err.pointer, pointer, "{doc}");
        }
    }

    #[test]
    fn a_member_named_for_what_it_holds_below_a_secret_sounding_name_is_not_read_as_that_secret() {
        const HEX: &str = "3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c";
        for doc in [
            json!({"model": {"tokenizer": {"sha256": format!("{HEX}{HEX}")}}}),
            json!({"executor": {"token_usage": {"request_id": "req_01HZX8Q2V7K9M4N6P8R3T5W7Y9"}}}),
            json!({"executor": {"passwordless": {"commit": HEX}}}),
            json!({"sandbox": {"secrets": {"digest": format!("sha256:{HEX}{HEX}")}}}),
        ] {
            assert_eq!(check_value(&doc), Ok(()), "{doc}");
        }
    }

    #[test]
    fn a_secret_below_a_secrets_own_name_is_caught_under_any_member_at_any_depth() {
        const S: &str = "Xq8vR2mK9pL4tZ7wN3bY6cF1";
        for (doc, pointer) in [
            (json!({"executor": {"api_keys": {"openai": S}}}), "/executor/api_keys/openai"),
            (json!({"executor": {"db_password": {"prod": S}}}), "/executor/db_password/prod"),
            (
                json!({"executor": {"api_key": {"rotation": [{"next": S}]}}}),
                "/executor/api_key/rotation/0/next",
            ),
            (json!({"db": {"password": {"eu": {"replica": [S]}}}}), "/db/password/eu/replica/0"),
            (json!({"sandbox": {"secrets": {"GITHUB": S}}}), "/sandbox/secrets/GITHUB"),
            (json!({"credentials": {"aws": {"access": S}}}), "/credentials/aws/access"),
            (json!({"PGPASSWORD": {"staging": S}}), "/PGPASSWORD/staging"),
            (json!({"Authorization": {"github": S}}), "/Authorization/github"),
        ] {
            let err = check_value(&doc).expect_err(&doc.to_string());
            assert_eq!((err.pointer.as_str(), err.leak.kind), (pointer, LeakKind::Assignment), "{doc}");
        }
        // The controls: an array's item and a value's holder were caught already.
        for doc in [json!({"api_keys": [S]}), json!({"api_key": {"value": S}})] {
            assert!(check_value(&doc).is_err(), "{doc}");
        }
    }

    #[test]
    fn a_name_that_holds_a_secret_word_only_inside_another_or_before_its_thing_carries_it_no_deeper() {
        const S: &str = "Xq8vR2mK9pL4tZ7wN3bY6cF1";
        for doc in [
            json!({"model": {"tokenizer": {"vocab": S}}}),
            json!({"executor": {"token_usage": {"request": S}}}),
            json!({"executor": {"passwordless": {"session": S}}}),
            json!({"kms": {"key_id": {"eu": S}}}),
            json!({"db": {"password_policy": {"example": S}}}),
        ] {
            assert_eq!(check_value(&doc), Ok(()), "{doc}");
        }
    }

    #[test]
    fn an_id_or_a_digest_below_a_secrets_own_name_is_not_read_as_that_secret() {
        const HEX: &str = "3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c";
        for doc in [
            json!({"api_keys": {"openai": {"id": "key_01HZX8Q2V7K9M4N6P8R3T5W7Y9"}}}),
            json!({"credentials": {"fingerprint": "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8"}}),
            json!({"secrets": {"github": {"sha256": HEX}}}),
        ] {
            assert_eq!(check_value(&doc), Ok(()), "{doc}");
        }
    }

    #[test]
    fn names_and_written_values_below_a_secret_name_and_pairs_that_say_nothing_stay_clean() {
        for doc in [
            json!({"password": {"min_length": 12, "policy": "hunter2-redacted", "source": "$DB_PASSWORD"}}),
            json!({"token": ["${TOKEN}", "<token>", "/run/secrets/token"]}),
            json!({"env": [["PATH", "/usr/local/bin:/usr/bin"], ["GIT_COMMIT", "3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c"]]}),
            json!({"env": [{"key": "LANG", "val": "C.UTF-8"}, {"k": "HOME", "v": "relative/dir"}]}),
            json!({"args": ["--verbose", "Xq8vR2mK9pL4tZ7wN3bY6cF1", "extra"]}),
            json!({"cache_key": ["0f8fad5bd9cb469fa165"]}),
        ] {
            assert_eq!(check_value(&doc), Ok(()), "{doc}");
        }
    }

    #[test]
    fn a_name_and_value_pair_whose_name_says_nothing_or_whose_value_is_written_stays_clean() {
        for text in [
            "env:\n- name: PATH\n  value: /usr/local/bin:/usr/bin",
            "{\"name\":\"PATH\",\"value\":\"/usr/local/bin:/usr/bin\"}",
            "- name: GIT_COMMIT\n  value: 3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c",
            "- name: DB_PASSWORD\n  value: hunter2-redacted",
            "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef: {name: api, key: token}",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
        let doc = json!({"env": [{"name": "PATH", "value": "/usr/bin"}, {"name": "DB_PASSWORD", "value": "hunter2-redacted"}]});
        assert_eq!(check_value(&doc), Ok(()));
    }

    #[test]
    fn a_netrc_password_is_caught_and_a_netrc_line_without_one_is_not() {
        for text in [
            "machine github.com login ada password Xk9mP2vL7qR4tY8w",
            "machine api.example.com password \"Xk9mP2vL7qR4tY8w\" login ada",
            "machine github.com\n  login ada\n  password Xk9mP2vL7qR4tY8w\n",
            "default login anonymous password Xk9mP2vL7qR4tY8w",
        ] {
            assert_eq!(caught(text), Some((LeakKind::Assignment.describe(), "Xk9mP2vL7qR4tY8w")), "{text:?}");
        }
        for text in [
            "machine github.com login ada",
            "machine api.example.com login Xk9mP2vL7qR4tY8w",
            "machine github.com login ada password hunter2-redacted",
            "the password Xk9mP2vL7qR4tY8w is not read from a netrc line",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    fn hex(text: &str) -> String {
        text.bytes().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn a_hex_encoded_secret_is_caught_at_the_whole_run() {
        let token = "ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8";
        let run = hex(token);
        let spaced: Vec<String> = token.bytes().map(|b| format!("{b:02X}")).collect();
        let wrapped = format!("{}\n{}", &run[..60], &run[60..]);
        let framed = format!("00ff{}0a00", hex(&format!("Authorization: Bearer {AWS_SECRET}")));
        for run in [run.clone(), spaced.join(" "), wrapped, hex(&format!("password={AWS_SECRET}")), framed] {
            let text = format!("sent: {run}\n");
            let leak = check_str(&text).unwrap_err();
            assert_eq!(leak.encoding, Some(Encoding::Hex), "{text:?}");
            assert_eq!(&text[leak.start..leak.end], run, "{text:?}: the raw run");
        }
        assert!(check_str(&format!("0x{run}")).is_err(), "after 0x");
        let words = format!("FAILED\n{} added", spaced.join(" "));
        assert_eq!(
            check_str(&words).unwrap_err().encoding,
            Some(Encoding::Hex),
            "words of hex letters around it"
        );
    }

    #[test]
    fn hex_digests_commit_ids_and_hex_of_ordinary_text_stay_clean() {
        for text in [
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".to_owned(),
            "commit 3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c\nMerge: 3e761aa 50145fa".to_owned(),
            "3f2a9c1e7b4d5f60a1b2c3d4e5f60718293a4b5c e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".to_owned(),
            format!("payload {}", hex("test result: ok. 3 passed; password: hunter2-redacted")),
            "dead beef cafe babe face feed 0123 4567 89ab cdef".to_owned(),
        ] {
            assert_eq!(check_str(&text), Ok(()), "{text:?}");
        }
    }

    /// `text` in fullwidth letters, digits and punctuation.
    fn fullwidth(text: &str) -> String {
        text.chars().map(|c| char::from_u32(c as u32 + 0xFEE0).unwrap()).collect()
    }

    #[test]
    fn a_secret_written_in_fullwidth_letters_is_caught_where_it_is_written() {
        let token = fullwidth("ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8");
        let text = format!("header value: {token} sent");
        let leak = check_str(&text).unwrap_err();
        assert_eq!((leak.kind, leak.encoding), (LeakKind::Token, Some(Encoding::Compatibility)));
        assert_eq!(&text[leak.start..leak.end], token);
        let bold: String = "AKIAIOSFODNN7EXAMPLE"
            .chars()
            .map(|c| match c {
                'A'..='Z' => char::from_u32(0x1D400 + c as u32 - 'A' as u32).unwrap(),
                c => c,
            })
            .collect();
        assert_eq!(kind(&format!("key {bold}")), Some(LeakKind::Token), "mathematical bold");
        assert_eq!(kind(&format!("password={}", fullwidth(AWS_SECRET))), Some(LeakKind::Assignment));
    }

    #[test]
    fn ordinary_text_in_fullwidth_or_other_compatibility_characters_stays_clean() {
        for text in [
            fullwidth("test result: ok. 3 passed; 0 failed"),
            "２０２４年１月１日 テスト成功 （３件）".to_owned(),
            "ﬁle ﬂag ① ② x² ㎏ Ⅳ".to_owned(),
            fullwidth("password: hunter2-redacted"),
        ] {
            assert_eq!(check_str(&text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn hostile_strings_of_every_rule_shape_are_checked_without_panic() {
        let n = 64 * 1024;
        let hostile = [
            "a".repeat(n),
            "a=".repeat(n / 2),
            "key=".repeat(n / 4),
            "://".repeat(n / 3),
            "://a:".repeat(n / 5),
            "-----BEGIN ".repeat(n / 11),
            "$2$".repeat(n / 3),
            "eyJ".repeat(n / 3) + ".",
            "password:".repeat(n / 9),
            "--token ".repeat(n / 8),
            format!("token={}", "Ab1".repeat(n / 3)),
            "%41".repeat(n / 3),
            "%2".repeat(n / 2),
            "%3D%".repeat(n / 4),
            // Base64 of `AAA`: one run that decodes to text all along.
            "QUFB".repeat(n / 4),
            // Base64 of `key=` cut into runs just long enough to be decoded.
            "a2V5PWtleT1rZXk9 ".repeat(n / 17),
            "mysql -u ".repeat(n / 9),
            "mysql -p$ ".repeat(n / 10),
            "docker login -p$ ".repeat(n / 17),
            // Literals of the assignment and option rules, one name long.
            "key".repeat(n / 3),
            "pass".repeat(n / 4),
            "--password $ ".repeat(n / 13),
            "curl -u $:$ ".repeat(n / 12),
            "redis-cli -a $ ".repeat(n / 15),
            "htpasswd -b a b $ ".repeat(n / 18),
            " -o a,password=$".repeat(n / 16),
            // Bindings judged on their command line: each looks back and ahead a bounded way.
            " password=hunter2".repeat(n / 17),
            ",password=hunter2".repeat(n / 17),
            ";PGPASSWORD=hunter2".repeat(n / 19),
            " -Dpassword=$".repeat(n / 13),
            // The spaced bindings, a logfmt line's pairs (each looks back over a quoted value), a
            // registry's settings.
            " msg=\"a \\\"b\\\"\" password=$".repeat(n / 24),
            "ENV PASSWORD $\n".repeat(n / 15),
            "\\nENV PASSWORD $".repeat(n / 16),
            "setx /M PASSWORD $ ".repeat(n / 19),
            ":_authToken=$ ".repeat(n / 14),
            // A name and value pair, a `.netrc` entry of many tokens before its password.
            "name: TOKEN\nvalue: ".repeat(n / 19),
            "machine h login a ".repeat(n / 18) + "password $",
            // Hexadecimal of `A`: one run that decodes to text all along, joined or spaced; and
            // fullwidth letters, each folded.
            "41".repeat(n / 2),
            "41 ".repeat(n / 3),
            "\u{ff41}".repeat(n / 3),
        ];
        for text in &hostile {
            let _ = check_str(text);
            let _ = check_value(&json!({ "password": text }));
        }
        assert!(check_str(&format!("token={}", "Zr8KpX2mQ7vL3nW9".repeat(100))).is_err());
    }

    /// Text made of the pieces the rules look at, in any order: names, keywords, quotes, escapes,
    /// line continuations, blanks and line breaks.
    fn any_shaped_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just("password"),
            Just("DB_PASSWORD"),
            Just("token"),
            Just("api_key"),
            Just("ENV"),
            Just("env"),
            Just("setx"),
            Just("/M"),
            Just("/p"),
            Just("_authToken"),
            Just("npm_config_"),
            Just("msg"),
            Just("//r.io/:"),
            Just("="),
            Just(":"),
            Just("\""),
            Just("'"),
            Just("\\"),
            Just("\\n"),
            Just("\\\n"),
            Just("\n"),
            Just("\r\n"),
            Just(" "),
            Just("\t"),
            Just(","),
            Just(";"),
            Just("$"),
            Just("${X}"),
            Just("%X%"),
            Just("hunter2"),
            Just("null"),
            Just("-e"),
            Just("--set"),
            Just("Step 1/2 : "),
            Just(">>> "),
            Just("é"),
            Just("\u{200b}"),
            Just("psql"),
            Just("-Dp="),
            Just("name"),
            Just("value"),
            Just("machine"),
            Just("41"),
            Just("7a"),
            Just("\u{ff47}"),
            Just("\u{1d400}"),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 1000, failure_persistence: None, ..Default::default() })]

        /// Every byte offset the rules compute stays inside the text: no input makes the check
        /// panic, and a leak it reports spans text that is there.
        #[test]
        fn any_text_of_the_rules_pieces_is_checked_without_a_panic(text in any_shaped_text()) {
            if let Err(leak) = check_str(&text) {
                proptest::prop_assert!(leak.start <= leak.end && leak.end <= text.len(), "{:?}: {:?}", text, leak);
            }
        }
    }
}
