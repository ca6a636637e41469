//! The clean check: nothing that identifies a machine or grants access leaves in a statement.
//!
//! Every string of every statement (keys included) goes through [`check_value`] before anything
//! is written; the red excerpt goes through [`check_str`] and is withheld when it fails. A finding
//! names the kind of leak and where it is, never the leaked text itself.
//!
//! The patterns are our own: secret scanners exist as crates, but they carry hundreds of rules
//! tuned for source code and would flag ordinary test output; this list is the short one the
//! specification names, each pattern anchored so that relative paths and hashes stay clean.

use std::fmt::Write as _;
use std::sync::{LazyLock, OnceLock};

use regex::Regex;
use serde_json::Value;

/// What kind of secret or local detail a string holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeakKind {
    /// An absolute path into a home, temp or per-user directory (Linux, macOS).
    LocalPath,
    /// A Windows drive or UNC path.
    WindowsPath,
    /// A URL carrying `user:password@`.
    UrlCredentials,
    /// PEM or OpenSSH private key armor.
    PrivateKey,
    /// A token of a known shape (GitHub, GitLab, Slack, AWS, OpenAI, Anthropic, Google, npm, ...).
    Token,
    /// A JSON Web Token.
    Jwt,
    /// A bearer credential in an `Authorization` header.
    Bearer,
}

impl LeakKind {
    /// A few words for the user.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            LeakKind::LocalPath => "an absolute local path (home, temp or per-user directory)",
            LeakKind::WindowsPath => "an absolute Windows path",
            LeakKind::UrlCredentials => "a URL with a user name and password",
            LeakKind::PrivateKey => "private key armor",
            LeakKind::Token => "an access token",
            LeakKind::Jwt => "a JSON Web Token",
            LeakKind::Bearer => "a bearer credential",
        }
    }
}

/// A leak found in a string: its kind and the byte range, for a message that points at it
/// without repeating it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// What was found.
    pub kind: LeakKind,
    /// Byte offset of the match in the string.
    pub start: usize,
    /// Byte offset just past the match.
    pub end: usize,
}

/// A leak inside a JSON document: where (a JSON pointer) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} at {pointer} (bytes {}..{})", .leak.kind.describe(), .leak.start, .leak.end)]
pub struct LeakAt {
    /// The JSON pointer of the string (`/predicate/task/title`); a key is named by its pointer.
    pub pointer: String,
    /// The leak.
    pub leak: Leak,
}

/// Characters that may stand before an absolute path: anything that cannot continue a relative
/// path segment, so `src/home/x` and `./tmp/x` stay clean while ` /home/x` and `"/tmp/x` do not.
const PATH_START: &str = r"(?:^|[^A-Za-z0-9_.\-~/])";

/// One rule: its pattern, and literals of which every match holds at least one, at a place the
/// rule's [`Anchor`] describes. A rule's regex is compiled the first time a string passes that
/// literal test: compiling a regex costs more than the rest of a `speccoder attest`, and with the
/// anchors an ordinary statement (URLs, `task-verification`, digests) passes none of them.
struct Rule {
    kind: LeakKind,
    pattern: String,
    /// Every match contains one of these (compared ignoring ASCII case when `fold`; see [`BY_FIRST_BYTE`]).
    needles: &'static [&'static str],
    /// Where a literal must sit for the pattern to have a chance.
    anchor: Anchor,
    fold: bool,
    regex: OnceLock<Regex>,
}

/// Where a rule's literal must sit for its pattern to be able to match there. Each test is
/// looser than its pattern, never stricter: a string it turns away cannot match.
#[derive(Clone, Copy)]
enum Anchor {
    /// Anywhere.
    Anywhere,
    /// At the start of a word (the pattern begins with `\b` before the literal): at the start of
    /// the string or after a byte that is not an ASCII letter, digit or `_`. A non-ASCII letter
    /// before it passes, so Unicode word characters are never wrongly turned away.
    WordStart,
    /// Right after a drive letter that does not continue a word (`C:\`, but not `https:/`).
    AfterDriveLetter,
    /// `://` followed, before any `/` or whitespace, by a `:` and then an `@` (`user:pw@`).
    BeforeUserinfo,
}

impl Anchor {
    /// Whether a literal found at byte `at` of `text` sits where this anchor wants it.
    fn holds(self, text: &[u8], at: usize) -> bool {
        let before = |n: usize| at.checked_sub(n).and_then(|i| text.get(i)).copied();
        match self {
            Anchor::Anywhere => true,
            Anchor::WordStart => before(1).is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_')),
            Anchor::AfterDriveLetter => {
                before(1).is_some_and(|b| b.is_ascii_alphabetic())
                    && before(2).is_none_or(|b| !b.is_ascii_alphanumeric())
            }
            Anchor::BeforeUserinfo => {
                let rest = text.get(at + 3..).unwrap_or_default();
                let authority_end = rest.iter().position(|&b| b == b'/' || b.is_ascii_whitespace());
                let authority = &rest[..authority_end.unwrap_or(rest.len())];
                authority
                    .iter()
                    .position(|&b| b == b':')
                    .is_some_and(|colon| authority[colon..].contains(&b'@'))
            }
        }
    }
}

impl Rule {
    fn new(kind: LeakKind, pattern: impl Into<String>, needles: &'static [&'static str]) -> Rule {
        Rule {
            kind,
            pattern: pattern.into(),
            needles,
            anchor: Anchor::Anywhere,
            fold: false,
            regex: OnceLock::new(),
        }
    }

    /// A rule whose pattern starts with `\b` right before its literals.
    fn word(kind: LeakKind, pattern: &str, needles: &'static [&'static str]) -> Rule {
        Rule::new(kind, pattern, needles).anchored(Anchor::WordStart)
    }

    fn anchored(mut self, anchor: Anchor) -> Rule {
        self.anchor = anchor;
        self
    }

    fn folded(mut self) -> Rule {
        self.fold = true;
        self
    }

    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| match Regex::new(&self.pattern) {
            Ok(re) => re,
            // The patterns are constants of this file; a typo is a bug caught by every test.
            Err(e) => panic!("clean-check pattern {:?} does not compile: {e}", self.pattern),
        })
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use LeakKind::*;
    vec![
        Rule::new(
            LocalPath,
            format!(r"{PATH_START}(/(?:home|Users|root|tmp|private|var/folders|var/tmp)(?:/|$|[\s:'\x22)]))"),
            &["/home", "/Users", "/root", "/tmp", "/private", "/var/folders", "/var/tmp"],
        ),
        Rule::new(LocalPath, r"file:///", &["file:///"]),
        Rule::new(WindowsPath, r"(?:^|[^A-Za-z0-9])([A-Za-z]:[\\/][^\s\\/]*)", &[":\\", ":/"])
            .anchored(Anchor::AfterDriveLetter),
        Rule::new(WindowsPath, r"(?:^|[\s'\x22(=])(\\\\[A-Za-z0-9._$-]+\\)", &["\\\\"]),
        Rule::new(UrlCredentials, r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@]*:[^\s/@]*@", &["://"])
            .anchored(Anchor::BeforeUserinfo),
        Rule::new(PrivateKey, r"-----BEGIN[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----", &["-----BEGIN"]),
        Rule::word(Token, r"\bgh[pousr]_[A-Za-z0-9]{30,}", &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
        Rule::word(Token, r"\bgithub_pat_[A-Za-z0-9_]{20,}", &["github_pat_"]),
        Rule::word(Token, r"\bglpat-[A-Za-z0-9_\-]{20,}", &["glpat-"]),
        Rule::word(
            Token,
            r"\bgl(?:ptt|dt|rt|soat|cbt)-[A-Za-z0-9_\-]{20,}",
            &["glptt-", "gldt-", "glrt-", "glsoat-", "glcbt-"],
        ),
        Rule::word(Token, r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", &["xox"]),
        Rule::word(Token, r"\bxapp-[0-9]-[A-Za-z0-9\-]{10,}", &["xapp-"]),
        Rule::word(Token, r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", &["AKIA", "ASIA", "ABIA", "ACCA"]),
        Rule::word(Token, r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}", &["sk-"]),
        Rule::word(
            Token,
            r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
            &["sk_live_", "rk_live_", "sk_test_", "rk_test_"],
        ),
        Rule::word(Token, r"\bAIza[0-9A-Za-z_\-]{35}", &["AIza"]),
        Rule::word(Token, r"\bnpm_[A-Za-z0-9]{36}\b", &["npm_"]),
        Rule::word(Token, r"\bhf_[A-Za-z]{30,}\b", &["hf_"]),
        Rule::word(Token, r"\bpypi-AgE[A-Za-z0-9_\-]{20,}", &["pypi-AgE"]),
        Rule::word(Jwt, r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", &["eyJ"]),
        // "bearer" has no letter with a non-ASCII case fold, so an ASCII-folded search finds
        // every match of `(?i)bearer`.
        Rule::word(Bearer, r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{20,}=*", &["bearer"]).folded(),
    ]
});

/// Every rule's literals, by their first byte: for each byte value, the rules with a literal
/// starting with it, and that literal (a folded rule's literal under both cases of its first
/// letter). One pass over a string with this table finds every rule worth running.
///
/// Written here rather than taken from `aho-corasick` (used before): with about forty short
/// literals and a few kilobytes of text per command, building an automaton cost more than every
/// search it then ran (170 us of a 6 ms `speccoder attest`), where this table is built in well
/// under a microsecond and a pass costs a lookup per byte.
static BY_FIRST_BYTE: LazyLock<Vec<Vec<(usize, &'static str)>>> = LazyLock::new(|| {
    let mut table = vec![Vec::new(); 256];
    for (index, rule) in RULES.iter().enumerate() {
        for needle in rule.needles {
            let Some(&first) = needle.as_bytes().first() else { continue };
            let mut firsts = vec![first];
            if rule.fold && first.is_ascii_alphabetic() {
                firsts = vec![first.to_ascii_lowercase(), first.to_ascii_uppercase()];
            }
            for byte in firsts {
                table[usize::from(byte)].push((index, *needle));
            }
        }
    }
    table
});

/// Whether each rule's literal occurs in `text` in its case (ignoring ASCII case when the rule
/// folds it) and at a place its [`Anchor`] allows: the rules whose patterns are worth running, as
/// a set of bits by rule index (there are fewer than 64 rules: see the tests).
fn candidates(text: &str) -> u64 {
    let table = &*BY_FIRST_BYTE;
    let bytes = text.as_bytes();
    let mut wanted = 0u64;
    for (at, &byte) in bytes.iter().enumerate() {
        for &(index, needle) in &table[usize::from(byte)] {
            let rule = &RULES[index];
            let found = bytes.get(at..at + needle.len()).is_some_and(|here| {
                if rule.fold {
                    here.eq_ignore_ascii_case(needle.as_bytes())
                } else {
                    here == needle.as_bytes()
                }
            });
            if wanted & (1 << index) == 0 && found && rule.anchor.holds(bytes, at) {
                wanted |= 1 << index;
            }
        }
    }
    wanted
}

/// Checks one string.
///
/// # Errors
/// The first leak found (by position), without its text.
pub fn check_str(text: &str) -> Result<(), Leak> {
    let mut first: Option<Leak> = None;
    let wanted = candidates(text);
    for (_, rule) in RULES.iter().enumerate().filter(|(index, _)| wanted & (1 << index) != 0) {
        if let Some(caps) = rule.regex().captures(text) {
            let m = caps.get(1).or_else(|| caps.get(0));
            if let Some(m) = m {
                let leak = Leak { kind: rule.kind, start: m.start(), end: m.end() };
                if first.as_ref().is_none_or(|f| leak.start < f.start) {
                    first = Some(leak);
                }
            }
        }
    }
    first.map_or(Ok(()), Err)
}

/// Checks every string of a JSON document, object keys included.
///
/// # Errors
/// The first leak in document order, with its JSON pointer.
pub fn check_value(value: &Value) -> Result<(), LeakAt> {
    walk(value, &mut String::new())
}

fn walk(value: &Value, pointer: &mut String) -> Result<(), LeakAt> {
    match value {
        Value::String(s) => check_str(s).map_err(|leak| LeakAt { pointer: pointer.clone(), leak }),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                let _ = write!(pointer, "/{i}");
                walk(item, pointer)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (key, item) in map {
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
                check_str(key).map_err(|leak| LeakAt { pointer: format!("{pointer} (key)"), leak })?;
                walk(item, pointer)?;
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

    /// Whether `rule` passes the literal test on `text`.
    fn passes(rule: &Rule, text: &str) -> bool {
        let index = RULES.iter().position(|r| std::ptr::eq(r, rule)).unwrap();
        candidates(text) & (1 << index) != 0
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
    fn keys_are_checked_too() {
        let doc = json!({"a": {"/tmp/x": 1}});
        assert!(check_value(&doc).unwrap_err().pointer.ends_with("(key)"));
    }

    #[test]
    fn the_pointer_escapes_tilde_and_slash_in_keys_and_counts_array_items() {
        let doc = json!({"a/b": [0, {"c~d": ["", " /home/ada"]}]});
        assert_eq!(check_value(&doc).unwrap_err().pointer, "/a~1b/1/c~0d/1");
    }

    #[test]
    fn every_rule_compiles_and_a_match_of_it_holds_one_of_its_literals() {
        // `candidates` keeps one bit a rule.
        assert!(RULES.len() <= 64, "{} rules", RULES.len());
        let samples = [
            " /home/ada/x",
            "file:///etc",
            "C:\\Users\\ada",
            " \\\\server\\share",
            "https://ada:pw@example.com",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "ghs_0123456789abcdefghijABCDEFGHIJ012345",
            "github_pat_0123456789abcdefghij_x",
            "glpat-0123456789abcdefghij",
            "glrt-0123456789abcdefghij",
            "xoxb-0123456789",
            "xapp-1-0123456789",
            "AKIA0123456789ABCDEF",
            "sk-proj-0123456789abcdefghij",
            "rk_live_0123456789abcdef",
            "AIza0123456789abcdefghij0123456789abcde",
            "npm_0123456789abcdefghij0123456789abcdef",
            "hf_abcdefghijabcdefghijabcdefghij",
            "pypi-AgE0123456789abcdefghij",
            "eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeK",
            "Authorization: BEARER 0123456789abcdefghij0123",
        ];
        for rule in RULES.iter() {
            let matched: Vec<&&str> = samples.iter().filter(|s| rule.regex().is_match(s)).collect();
            assert!(!matched.is_empty(), "no sample for {:?}", rule.pattern);
            for sample in matched {
                assert!(passes(rule, sample), "{:?} matches {sample:?} without a literal", rule.pattern);
            }
        }
    }

    /// Each anchor turns away a literal in a place its pattern cannot match, and only there.
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
        let leaking = [
            ("x sk-proj-0123456789abcdefghij", LeakKind::Token),
            ("at D:\\build\\out", LeakKind::WindowsPath),
            ("C:/Users/ada", LeakKind::WindowsPath),
            ("clone https://ada:pw@example.com/r", LeakKind::UrlCredentials),
            ("Bearer 0123456789abcdefghij0123", LeakKind::Bearer),
        ];
        for (text, kind) in leaking {
            assert_eq!(check_str(text).map_err(|l| l.kind), Err(kind), "{text:?}");
        }
    }

    /// The literal test is looser than the pattern: wherever a pattern matches, its literal test
    /// passes, whatever stands before or after the sample (ASCII word characters, punctuation,
    /// non-ASCII letters, URL parts).
    #[test]
    fn a_string_a_pattern_matches_always_passes_its_literal_test() {
        let samples = [
            "/home/ada/x",
            "file:///etc",
            "C:\\Users\\ada",
            "d:/x",
            "\\\\server\\share",
            "https://ada:pw@example.com",
            "git+ssh://u:p@h/x",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "ghs_0123456789abcdefghijABCDEFGHIJ012345",
            "glrt-0123456789abcdefghij",
            "xoxb-0123456789",
            "AKIA0123456789ABCDEF",
            "sk-proj-0123456789abcdefghij",
            "rk_live_0123456789abcdef",
            "npm_0123456789abcdefghij0123456789abcdef",
            "eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeK",
            "bEaReR 0123456789abcdefghij0123",
        ];
        let around =
            ["", " ", "a", "Z", "9", "_", "-", "/", ":", "\u{e9}", "\u{3b1}", "=", "\"", "x://", "@"];
        for sample in samples {
            for before in around {
                for after in around {
                    let text = format!("{before}{sample}{after}");
                    for rule in RULES.iter().filter(|r| r.regex().is_match(&text)) {
                        assert!(
                            passes(rule, &text),
                            "{:?} matches {text:?} but its literal test fails",
                            rule.pattern
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn digests_and_relative_paths_are_clean() {
        let doc = json!({"h": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "p": "src/home/mod.rs", "q": "./tmp/out.txt", "u": "https://github.com/o/r", "k": "SHA256:abc"});
        assert!(check_value(&doc).is_ok());
    }
}
