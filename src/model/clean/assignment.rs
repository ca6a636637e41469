//! A value assigned to a name that says it is secret (`API_SECRET=…`, `"password": "…"`,
//! `--token …`, `<password>…</password>`, a name and value pair of an environment list, a
//! `.netrc` password), when the value is random enough.

use std::ops::Range;

use regex::Captures;
use serde_json::{Map, Value};

use super::randomness::{hex_apart_from_words, random_enough};
use super::rule::{Anchor, Rule};
use super::{LeakKind, MIN_SECRET_CHARS, VALUE_MAX};

/// The name words that make an assignment a candidate (compared ignoring ASCII case). Every name
/// [`name_hint`] accepts holds one of them (`passw` and `pwd` hold `pass` and `pw`).
const HINTS: &[&str] = &["secret", "token", "pass", "pw", "credential", "creds", "auth", "key", "pat"];

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // A value assigned to a name that says it is secret: `NAME=v`, `name: v`, `"name": "v"`,
        // `name := v`, `name => v`, `<name>v`, and `--name v`. The pattern finds the name and the
        // operator only, so that one assignment's value never hides the next (`env: TOKEN=v`);
        // the value is read after it ([`value_after`]).
        Rule::new(
            Assignment,
            "a secret assigned to a name that says so",
            r#"(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)["']?[ \t]*(?::=|=>|=|:|>)"#,
            HINTS,
        )
        .anchored(Anchor::AssignedName)
        .folded()
        .judged(secret_assignment),
        Rule::new(
            Assignment,
            "a secret assigned to a name that says so",
            r"--(?P<name>[A-Za-z][A-Za-z0-9_\-]*)[ \t]+",
            HINTS,
        )
        .anchored(Anchor::AssignedName)
        .folded()
        .judged(secret_assignment),
        // A name and value pair of an environment list, as Kubernetes and ECS write one in JSON
        // or YAML (`{"name": "NAME", "value": "v"}`, `- name: NAME` and `  value: v` on the next
        // line): the name after `name`, then `value` after a comma or a line break.
        Rule::new(
            Assignment,
            "a secret assigned to a name that says so",
            format!(
                r#"(?i)\bname["']?{BLANKS}[:=]{BLANKS}["']?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)["']?{BLANKS}(?:,{BLANKS}(?:\r?\n{BLANKS})?|\r?\n{BLANKS})["']?value["']?{BLANKS}[:=]"#
            ),
            &["value"],
        )
        .anchored(Anchor::AssignedName)
        .folded()
        .judged(secret_assignment),
        // A `.netrc` entry's password: `machine HOST`, or `default`, then the entry's other
        // tokens, then `password` and its value after a blank (an entry may span lines).
        Rule::new(
            Assignment,
            "a secret assigned to a name that says so",
            r"(?i)(?:^|\s)(?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+)*\s+(?P<name>password)[ \t]+",
            &["password"],
        )
        .anchored(Anchor::Word)
        .folded()
        .judged(secret_assignment),
    ]
}

/// Blanks inside a line.
const BLANKS: &str = "[ \t]*";

/// The members that name a pair's name, and those that hold its value (either in any case).
const PAIR_NAMES: [&str; 3] = ["name", "key", "k"];
const PAIR_VALUES: [&str; 3] = ["value", "val", "v"];

/// The name and value of an object that pairs them (`{"name": "NAME", "value": "v"}`, as an
/// environment list of Kubernetes or ECS holds them; `{"key": …, "val": …}`, `{"k": …, "v": …}`;
/// each member's name in any case), with the value member's name: an assignment of `v` to `NAME`.
pub(super) fn named_value(map: &Map<String, Value>) -> Option<(&str, &str, &str)> {
    let member = |wanted: &[&str]| {
        map.iter()
            .find(|(key, v)| v.is_string() && wanted.iter().any(|w| key.eq_ignore_ascii_case(w)))
            .and_then(|(key, v)| Some((key, v.as_str()?)))
    };
    let (_, name) = member(&PAIR_NAMES)?;
    let (key, value) = member(&PAIR_VALUES)?;
    Some((key, name, value))
}

/// Whether a member named `name` holds its parent's value rather than a thing of its own: a
/// pair's value member or a version of it (`value`, `current`, `next`, `previous`, `old`, `new`,
/// `primary`, `secondary`, `data`, `raw`, `plain`, `text`, `content`, `default`), any case. Below
/// a member whose name says secret, strings under such names are that secret.
pub(super) fn holds_the_value(name: &str) -> bool {
    const HOLDERS: [&str; 14] = [
        "current",
        "next",
        "previous",
        "prev",
        "old",
        "new",
        "primary",
        "secondary",
        "data",
        "raw",
        "plain",
        "text",
        "content",
        "default",
    ];
    PAIR_VALUES.iter().chain(HOLDERS.iter()).any(|holder| name.eq_ignore_ascii_case(holder))
}

/// Whether `name` says something of its value (a secret, or a key): the member's value, its
/// arrays' items and its value's holders ([`holds_the_value`]) are read as assigned to it.
pub(super) fn names_a_secret(name: &str) -> bool {
    name_hint(name).is_some()
}

/// The ends of a name's last word, a plural `s` aside, that make the name a secret's own
/// (`password`, `PGPASSWORD`, `apiToken`, `oauth`); a word that only begins so names another
/// thing (`tokenizer`, `passwordless`).
const SECRET_ENDS: [&str; 10] = [
    "secret",
    "token",
    "password",
    "passwd",
    "passphrase",
    "credential",
    "cred",
    "pwd",
    "auth",
    "authorization",
];

/// Short words that say secret only as a whole word (`DB_PASS`, `SMTP_PW`, `GITHUB_PAT`).
const SHORT_SECRETS: [&str; 4] = ["pass", "pw", "pat", "pats"];

/// Whether `name` is a secret's own name (`api_keys`, `db_password`, `PGPASSWORD`, `secrets`,
/// `credentials`, `Authorization`): it says secret ([`name_hint`]) and its last word ends in what
/// says so, or is a secret key. Every string below a member so named, under any member, is read
/// as assigned to it. A name that holds such a word only inside another word or before the thing
/// it names names that thing (`tokenizer`, `passwordless`, `token_usage`, `key_id`,
/// `password_policy`).
pub(super) fn is_a_secrets_name(name: &str) -> bool {
    if name_hint(name) != Some(Hint::Secret) {
        return false;
    }
    let words = words_of(name);
    let Some(last) = words.last() else { return false };
    let singular = last.strip_suffix('s').unwrap_or(last);
    SHORT_SECRETS.contains(&last.as_str())
        || SECRET_ENDS.iter().any(|end| singular.ends_with(end))
        || key_hint(&words, words.len() - 1) == Some(Hint::Secret)
}

/// The last words of a member's name that say it holds an identifier or a digest.
const ID_WORDS: [&str; 13] = [
    "id",
    "ids",
    "uuid",
    "kid",
    "digest",
    "hash",
    "checksum",
    "fingerprint",
    "sha1",
    "sha256",
    "sha384",
    "sha512",
    "md5",
];

/// Whether a member named `name` holds an identifier or a digest (`id`, `request_id`, `digest`,
/// `sha256`, `fingerprint`): below a secret's name it names the secret and holds none of it.
pub(super) fn names_an_id_or_digest(name: &str) -> bool {
    words_of(name).last().is_some_and(|last| ID_WORDS.contains(&last.as_str()))
}

/// The judge of a generic assignment: the name says secret and the value after the operator is
/// random enough.
fn secret_assignment(text: &str, caps: &Captures<'_>) -> Option<Range<usize>> {
    let value = value_after(text, caps.get(0)?.end());
    // The cheap test first: most values are short, and most names say nothing.
    if text[value.clone()].chars().count() < MIN_SECRET_CHARS {
        return None;
    }
    let hint = name_hint(caps.name("name")?.as_str())?;
    secret_under(hint, &text[value.clone()]).then_some(value)
}

/// The value that starts at byte `at`, after blanks and an opening quote: up to a quote, a blank,
/// a delimiter, or the operator of the next assignment (a `:` or an `=` that is no base64
/// padding: `a=b:token=c`), at most [`VALUE_MAX`] characters. As a value ends where the next
/// assignment's operator is, the values read after each match never overlap more than once.
pub(super) fn value_after(text: &str, at: usize) -> Range<usize> {
    let bytes = text.as_bytes();
    let mut start = at + bytes[at..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    if matches!(bytes.get(start), Some(b'"' | b'\'')) {
        start += 1;
    }
    let mut chars = 0;
    let mut end = start;
    for (i, &b) in bytes[start..].iter().enumerate() {
        let next = bytes.get(start + i + 1).copied();
        let operator = i > 0
            && (b == b':' || (b == b'=' && next.is_some_and(|n| n != b'=' && !n.is_ascii_whitespace())));
        let ends = operator
            || b.is_ascii_whitespace()
            || matches!(
                b,
                b'"' | b'\''
                    | b'`'
                    | b'<'
                    | b'>'
                    | b','
                    | b';'
                    | b'&'
                    | b'|'
                    | b'('
                    | b')'
                    | b'{'
                    | b'}'
                    | b'['
                    | b']'
                    | b'\\'
            );
        // A byte that starts a character (not a UTF-8 continuation byte) counts one.
        let starts_char = b & 0xC0 != 0x80;
        if ends || (starts_char && chars == VALUE_MAX) {
            break;
        }
        chars += usize::from(starts_char);
        end += 1;
    }
    start..end
}

/// Whether a value of `value` under `name` is a secret (see [`name_hint`] and [`random_enough`]).
pub(super) fn name_says_secret(name: &str, value: &str) -> bool {
    name_hint(name).is_some_and(|hint| secret_under(hint, value))
}

/// Whether `value` is a secret under a name that says `hint`.
fn secret_under(hint: Hint, value: &str) -> bool {
    match hint {
        Hint::Secret => random_enough(value),
        // A name that only says "key" (`cache_key`, `primary_key`) often holds a digest or an id:
        // hexadecimal parts (digests, UUIDs) are no secret there.
        Hint::Key => random_enough(value) && !hex_apart_from_words(value),
    }
}

/// How strongly a name says that its value is secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    /// secret, token, password, credential, auth, or a key of a kind that is always secret
    /// (`api_key`, `SECRET_ACCESS_KEY`, `privateKey`).
    Secret,
    /// A key of another kind (`cache_key`, `sort_key`).
    Key,
}

/// The words before `key` that make it a secret key.
const SECRET_KEYS: &[&str] = &[
    "api",
    "access",
    "private",
    "secret",
    "signing",
    "sign",
    "encryption",
    "encrypt",
    "decryption",
    "master",
    "client",
    "account",
    "app",
    "application",
    "license",
    "licence",
    "subscription",
    "deploy",
    "ssh",
    "storage",
    "shared",
    "service",
    "session",
    "consumer",
    "webhook",
    "admin",
    "root",
    "server",
    "hmac",
    "jwt",
    "aes",
    "crypto",
    "cipher",
    "gpg",
    "pgp",
    "auth",
];

/// What `name` says about its value: split into words at non-alphanumerics and at camelCase.
fn name_hint(name: &str) -> Option<Hint> {
    // Every name that says something holds one of the literals: a cheap test before the split.
    let bytes = name.as_bytes();
    if !HINTS.iter().any(|h| bytes.windows(h.len()).any(|w| w.eq_ignore_ascii_case(h.as_bytes()))) {
        return None;
    }
    let words = words_of(name);
    // The shell's working directories are not passwords.
    if matches!(words.as_slice(), [w] if w == "pwd" || w == "oldpwd") {
        return None;
    }
    let says = |w: &str| {
        ["secret", "token", "passw", "passphrase", "credential", "creds", "pwd"].iter().any(|h| w.contains(h))
            || (w.starts_with("auth") && !w.starts_with("author"))
            // An `Authorization` header, which an author is not.
            || w == "authorization"
            // `DB_PASS`, `SMTP_PW`, `GITHUB_PAT` (a personal access token).
            || SHORT_SECRETS.contains(&w)
    };
    if words.iter().any(|w| says(w)) {
        return Some(Hint::Secret);
    }
    let keys: Vec<Hint> = (0..words.len()).filter_map(|i| key_hint(&words, i)).collect();
    if keys.contains(&Hint::Secret) { Some(Hint::Secret) } else { keys.first().copied() }
}

/// What the word at `i` of `words` says when it ends in `key` or `keys`: a secret key when the
/// kind before it, in the word or as the word before, is one of [`SECRET_KEYS`] (`apikey`,
/// `api_key`), a key of another kind otherwise (`cache_key`); nothing for another word.
fn key_hint(words: &[String], i: usize) -> Option<Hint> {
    let w = &words[i];
    let before = w.strip_suffix("keys").or_else(|| w.strip_suffix("key"))?;
    let kind = if before.is_empty() { i.checked_sub(1).map(|j| words[j].as_str()) } else { Some(before) };
    Some(if kind.is_some_and(|k| SECRET_KEYS.contains(&k)) { Hint::Secret } else { Hint::Key })
}

/// `name` as lowercase words: split at every non-alphanumeric character, before an upper-case
/// letter that follows a lower-case one, and before the last capital of a run that a lower-case
/// letter follows (`APIKey` -> `api`, `key`).
pub(super) fn words_of(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_words_at_separators_and_camel_case() {
        assert_eq!(words_of("AWS_SECRET_ACCESS_KEY"), ["aws", "secret", "access", "key"]);
        assert_eq!(words_of("apiKey"), ["api", "key"]);
        assert_eq!(words_of("APIKey"), ["api", "key"]);
        assert_eq!(words_of("x-api-key"), ["x", "api", "key"]);
        assert_eq!(words_of("oauth2Token"), ["oauth2", "token"]);
        assert_eq!(name_hint("apikey"), Some(Hint::Secret));
        assert_eq!(name_hint("primary_key"), Some(Hint::Key));
        assert_eq!(name_hint("AZURE_DEVOPS_PAT"), Some(Hint::Secret));
        assert_eq!(name_hint("DB_PASS"), Some(Hint::Secret));
        assert_eq!(name_hint("path"), None);
        assert_eq!(name_hint("author"), None);
        assert_eq!(name_hint("Proxy-Authorization"), Some(Hint::Secret));
        assert_eq!(name_hint("keyboard"), None);
        assert_eq!(name_hint("PWD"), None);
        assert_eq!(name_hint("DB_PWD"), Some(Hint::Secret));
    }

    #[test]
    fn a_name_is_a_secrets_own_when_its_last_word_ends_in_what_says_secret() {
        for name in [
            "api_keys",
            "db_password",
            "api_key",
            "password",
            "secrets",
            "credentials",
            "PGPASSWORD",
            "apiToken",
            "Authorization",
            "DB_PASS",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(is_a_secrets_name(name), "{name}");
        }
        for name in [
            "tokenizer",
            "token_usage",
            "passwordless",
            "key_id",
            "password_policy",
            "secret_name",
            "cache_key",
            "author",
            "max_tokens_per_minute",
        ] {
            assert!(!is_a_secrets_name(name), "{name}");
        }
    }

    #[test]
    fn a_member_whose_last_word_says_id_or_digest_holds_an_id_or_a_digest() {
        for name in ["id", "request_id", "keyId", "digest", "sha256", "fingerprint", "Checksum"] {
            assert!(names_an_id_or_digest(name), "{name}");
        }
        for name in ["openai", "prod", "rotation", "identity", "hashed_value", "idle"] {
            assert!(!names_an_id_or_digest(name), "{name}");
        }
    }
}
