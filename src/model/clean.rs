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
//!   password in the query) and in connection strings (`AccountKey=`, `Password=…;`);
//! - private keys in every PEM, OpenSSH, PuTTY, age and JWK shape, and bare DER key bodies;
//! - tokens of the shapes their providers document (cloud, VCS, chat, payment, mail, package
//!   registries, CI, AI services), JSON Web Tokens, and `Authorization` / bearer credentials;
//! - crypt, bcrypt, argon2, scrypt, PBKDF2 and LDAP password hashes;
//! - a value assigned to a name that says secret, token, password, key, credential or auth
//!   (`API_SECRET=…`, `"password": "…"`, `--token …`, `<password>…</password>`, and an object
//!   member of a JSON document) when the value is random enough ([`random_enough`]): test
//!   fixtures such as `password: hunter2-redacted` pass, generated secrets do not.
//!
//! The patterns are our own: secret scanners exist as crates, but they carry hundreds of rules
//! tuned for source code and would flag ordinary test output; each pattern here is anchored so
//! that relative paths, digests and test names stay clean (`fixtures/clean/` holds both corpora).
//!
//! Every regex runs in time linear in its input (the `regex` crate guarantees it), each rule's
//! regex runs at most one pass over a string, and the judges look at one bounded value at a time,
//! so a hostile string of any length costs time linear in its length.

use std::fmt::Write as _;
use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::{Captures, Regex};
use serde_json::Value;

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
    /// A random value assigned to a name that says it is secret.
    Assignment,
    /// A crypt, bcrypt, argon2 or other password hash.
    PasswordHash,
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
}

/// A leak inside a JSON document: where (a JSON pointer) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} at {pointer} (bytes {}..{})", .leak.what, .leak.start, .leak.end)]
pub struct LeakAt {
    /// The JSON pointer of the string (`/predicate/task/title`); a key is named by the pointer of
    /// its object followed by ` (key)` (`/predicate/context (key)`).
    pub pointer: String,
    /// The leak.
    pub leak: Leak,
}

/// The fewest characters a value must have to count as a generated secret. Shorter random
/// values exist, but below this length a fixture and a secret cannot be told apart.
pub const MIN_SECRET_CHARS: usize = 12;

/// The Shannon entropy, in bits per character, from which a value counts as random.
pub const MIN_ENTROPY_BITS: f64 = 3.0;

/// The same for a value of hexadecimal digits only (an alphabet of 16 reaches less).
pub const MIN_HEX_ENTROPY_BITS: f64 = 2.5;

/// What may stand before a token's prefix: anything but an ASCII letter or digit, so `_`, `-` and
/// `.` separate (`TOKEN_ghp_…`) while `desk-lamp` holds no `sk-`.
const WORD: &str = "(?:^|[^A-Za-z0-9])";

/// What may stand before a prefix that could end a longer name (`key-`, `SK`, `cio`): neither a
/// letter, a digit, nor `_`, `-` or `.`.
const TOKEN: &str = r"(?:^|[^A-Za-z0-9_.\-])";

/// What ends a token of fixed length: anything but an ASCII letter or digit.
const END: &str = "(?:[^A-Za-z0-9]|$)";

/// An absolute path into a home, temp or per-user directory, up to the separator after it.
const LOCAL_DIRS: &str = r#"/(?:home|Users|root|tmp|private|var/folders|var/tmp|run/user|Volumes|mnt/[a-z]/Users)(?:/|$|[\s:'"),;\]])"#;

/// The most characters of an assigned value that are judged ([`value_after`]); a longer value is
/// judged by its start.
const VALUE_MAX: usize = 128;

/// The name words that make an assignment a candidate (compared ignoring ASCII case). Every name
/// [`name_hint`] accepts holds one of them (`passw` and `pwd` hold `pass` and `pw`).
const HINTS: &[&str] = &["secret", "token", "pass", "pw", "credential", "creds", "auth", "key", "pat"];

/// A test that a regex match is a leak (a value random enough, not a placeholder): the leak's byte
/// range in the text, or `None`.
type Judge = fn(&str, &Captures<'_>) -> Option<Range<usize>>;

/// One rule: its pattern, and literals of which every match holds at least one, at a place the
/// rule's [`Anchor`] describes. A rule's regex is compiled the first time a string passes that
/// literal test: compiling a regex costs more than the rest of a `speccoder attest`, and with the
/// anchors an ordinary statement (URLs, `task-verification`, digests) passes almost none of them.
struct Rule {
    kind: LeakKind,
    what: &'static str,
    pattern: String,
    /// Every leak contains one of these (compared ignoring ASCII case when `fold`).
    needles: &'static [&'static str],
    /// Where a literal must sit for the pattern to have a chance.
    anchor: Anchor,
    fold: bool,
    /// When set, a match is a leak only if this says so; the rule then looks at every match.
    judge: Option<Judge>,
    regex: OnceLock<Regex>,
}

/// Where a rule's literal must sit for its pattern to be able to match there. Each test is
/// looser than its pattern, never stricter: a string it turns away cannot match.
#[derive(Clone, Copy)]
enum Anchor {
    /// Anywhere.
    Anywhere,
    /// After no ASCII letter or digit ([`WORD`]). A non-ASCII letter before it passes, so the test
    /// never turns away what the pattern accepts.
    Word,
    /// After no ASCII letter, digit, `_`, `-` or `.` ([`TOKEN`]).
    Token,
    /// Right after a drive letter that does not continue a word (`C:\`, but not `https:/`).
    AfterDriveLetter,
    /// `://` followed, before any `/` or whitespace, by a `:` and then an `@` (`user:pw@`).
    BeforeUserinfo,
    /// `://` followed, before any `/` or whitespace, by an `@`.
    BeforeAt,
    /// Inside a name that an assignment operator follows (`NAME=`, `"name":`, `<name>`), or a
    /// `--name` that a blank follows.
    AssignedName,
}

impl Anchor {
    /// Whether a literal found at byte `at` of `text` sits where this anchor wants it.
    fn holds(self, text: &[u8], at: usize) -> bool {
        let before = |n: usize| at.checked_sub(n).and_then(|i| text.get(i)).copied();
        let authority = || {
            let rest = text.get(at + 3..).unwrap_or_default();
            let end = rest.iter().position(|&b| b == b'/' || b.is_ascii_whitespace());
            &rest[..end.unwrap_or(rest.len())]
        };
        match self {
            Anchor::Anywhere => true,
            Anchor::Word => before(1).is_none_or(|b| !b.is_ascii_alphanumeric()),
            Anchor::Token => {
                before(1).is_none_or(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
            }
            Anchor::AfterDriveLetter => {
                before(1).is_some_and(|b| b.is_ascii_alphabetic())
                    && before(2).is_none_or(|b| !b.is_ascii_alphanumeric())
            }
            Anchor::BeforeUserinfo => {
                let authority = authority();
                authority
                    .iter()
                    .position(|&b| b == b':')
                    .is_some_and(|colon| authority[colon..].contains(&b'@'))
            }
            Anchor::BeforeAt => authority().contains(&b'@'),
            Anchor::AssignedName => {
                let in_name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
                let end = at + text[at..].iter().take_while(|b| in_name(b)).count();
                let after = &text[end..];
                let after = after.strip_prefix(b"\"").or_else(|| after.strip_prefix(b"'")).unwrap_or(after);
                let blanks = after.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
                if matches!(after.get(blanks), Some(b':' | b'=' | b'>')) {
                    return true;
                }
                let begin = text[..at].iter().rev().take_while(|b| in_name(b)).count();
                blanks > 0 && text[at - begin..at].windows(2).any(|w| w == b"--")
            }
        }
    }
}

impl Rule {
    fn new(
        kind: LeakKind,
        what: &'static str,
        pattern: impl Into<String>,
        needles: &'static [&'static str],
    ) -> Rule {
        Rule {
            kind,
            what,
            pattern: pattern.into(),
            needles,
            anchor: Anchor::Anywhere,
            fold: false,
            judge: None,
            regex: OnceLock::new(),
        }
    }

    /// A token whose prefix (one of `needles`) may follow anything but a letter or digit.
    fn word(kind: LeakKind, what: &'static str, body: &str, needles: &'static [&'static str]) -> Rule {
        Rule::new(kind, what, format!("{WORD}(?P<leak>{body})"), needles).anchored(Anchor::Word)
    }

    /// A token whose prefix may follow anything but a letter, a digit, `_`, `-` or `.`.
    fn token(kind: LeakKind, what: &'static str, body: &str, needles: &'static [&'static str]) -> Rule {
        Rule::new(kind, what, format!("{TOKEN}(?P<leak>{body})"), needles).anchored(Anchor::Token)
    }

    /// A provider's token ([`Rule::word`] of kind [`LeakKind::Token`]).
    fn provider(what: &'static str, body: &str, needles: &'static [&'static str]) -> Rule {
        Rule::word(LeakKind::Token, what, body, needles)
    }

    fn anchored(mut self, anchor: Anchor) -> Rule {
        self.anchor = anchor;
        self
    }

    /// A token of fixed length: no letter or digit may follow it.
    fn ended(mut self) -> Rule {
        self.pattern.push_str(END);
        self
    }

    fn folded(mut self) -> Rule {
        self.fold = true;
        self
    }

    fn judged(mut self, judge: Judge) -> Rule {
        self.judge = Some(judge);
        self
    }

    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| match Regex::new(&self.pattern) {
            Ok(re) => re,
            // The patterns are constants of this file; a typo is a bug caught by every test.
            Err(e) => panic!("clean-check pattern {:?} does not compile: {e}", self.pattern),
        })
    }

    /// This rule's first leak in `text`, by position.
    fn find(&self, text: &str) -> Option<Leak> {
        let range = match self.judge {
            None => self
                .regex()
                .captures(text)
                .and_then(|caps| caps.name("leak").or_else(|| caps.get(0)))
                .map(|m| m.range()),
            // Matches do not overlap, so this is one pass over the text.
            Some(judge) => self.regex().captures_iter(text).find_map(|caps| judge(text, &caps)),
        }?;
        Some(Leak { kind: self.kind, what: self.what, start: range.start, end: range.end })
    }
}

/// The rules, in no particular order (the first leak by position wins).
#[allow(clippy::too_many_lines)] // One line per rule reads better than the same list split up.
fn rules() -> Vec<Rule> {
    use LeakKind::*;
    let home = "an absolute local path (home, temp or per-user directory)";
    let private_key = "private key material";
    let hash = "a password hash";
    vec![
        // Local paths. Before the path: anything that cannot continue a relative path, so
        // `src/home/x` and `./tmp/x` stay clean while ` /home/x`, `"/tmp/x` and `run-/home/x` do not.
        Rule::new(
            LocalPath,
            home,
            format!("(?:^|[^A-Za-z0-9.~/])(?P<leak>{LOCAL_DIRS})"),
            &["/home", "/Users", "/root", "/tmp", "/private", "/var/folders", "/var/tmp", "/run/user", "/Volumes", "/mnt/"],
        ),
        // `file:///home/…` (its path follows a `/`, so the rule above misses it); a file URL into
        // a CI work directory (`file:///builds/…`, as Gradle prints its report) is no leak.
        Rule::new(LocalPath, "a file URL of a local path", format!("(?i-u:file:)//(?i-u:localhost)?(?P<leak>{LOCAL_DIRS})"), &["file://"])
            .folded(),
        // An ssh URL's path is a path on that machine.
        Rule::new(LocalPath, "an ssh URL into a home or temp directory", format!("(?i-u:ssh|sftp|scp)://[^\\s/]*(?P<leak>{LOCAL_DIRS})"), &["ssh://", "sftp://", "scp://"])
            .folded(),
        Rule::new(WindowsPath, "an absolute Windows path", r"(?:^|[^A-Za-z0-9])(?P<leak>[A-Za-z]:[\\/][^\s\\/]*)", &[":\\", ":/"])
            .anchored(Anchor::AfterDriveLetter),
        Rule::new(WindowsPath, "a Windows network path", r"(?:^|[^A-Za-z0-9\\])(?P<leak>\\\\[A-Za-z0-9._$-]+\\)", &["\\\\"]),
        // Credentials in URLs.
        Rule::new(UrlCredentials, "a URL with a user name and password", r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@]*:[^\s/@]*@", &["://"])
            .anchored(Anchor::BeforeUserinfo),
        Rule::new(UrlCredentials, "a URL with a token as its user name", r"[A-Za-z][A-Za-z0-9+.\-]*://(?P<leak>[^\s/:@?#]{12,})@", &["://"])
            .anchored(Anchor::BeforeAt)
            .judged(|_, caps| leak_if(caps, random_enough)),
        Rule::new(
            UrlCredentials,
            "a signature or password in a URL's query",
            r#"[?&](?i-u:sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|password|passwd|pwd)=(?P<leak>[^&#\s"'<>]{4,})"#,
            &["sig=", "signature=", "x-amz-", "x-goog-", "password=", "passwd=", "pwd="],
        )
        .folded()
        .judged(|_, caps| leak_if(caps, |v| !is_placeholder(v))),
        // Connection strings (`k=v;k=v`).
        Rule::new(
            ConnectionString,
            "a key in a connection string",
            r#"(?i-u:accountkey|sharedaccesskey|sharedaccesssignature|sharedsecret|clientsecret)[ \t]*=[ \t]*(?P<leak>[^;\s"']{8,})"#,
            &["accountkey", "sharedaccess", "sharedsecret", "clientsecret"],
        )
        .folded()
        .judged(|_, caps| leak_if(caps, |v| !is_placeholder(v))),
        Rule::new(
            ConnectionString,
            "a password in a connection string",
            r#"(?i-u:password|pwd)[ \t]*=[ \t]*(?P<leak>[^;"'\s]+)[ \t]*;"#,
            &["password", "pwd"],
        )
        .folded()
        .judged(|_, caps| leak_if(caps, |v| !is_placeholder(v))),
        Rule::new(
            ConnectionString,
            "a password in a connection string",
            r#";[ \t]*(?i-u:password|pwd)[ \t]*=[ \t]*(?P<leak>[^;"'\s]+)"#,
            &["password", "pwd"],
        )
        .folded()
        .judged(|_, caps| leak_if(caps, |v| !is_placeholder(v))),
        // Private keys: PEM and OpenSSH armor (also cut to its END line), PGP, SSH2, PuTTY, age,
        // JWK, and the start of a bare DER key body (PKCS#1, PKCS#8, SEC1, Ed25519).
        Rule::new(PrivateKey, private_key, r"-{3,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY", &["BEGIN "]),
        Rule::new(PrivateKey, private_key, r"-{3,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY", &["END "]),
        Rule::new(PrivateKey, "an OpenSSH private key", "b3BlbnNzaC1rZXktdjE", &["b3BlbnNzaC1rZXktdjE"]),
        Rule::new(
            PrivateKey,
            "a DER private key",
            "MII[A-Za-z0-9+/]{3}(?:IBAAK[BC]|IBADANBgkqhkiG9w0BAQEFAASC)|MHcCAQEEI|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg|MC4CAQAwBQYDK2VwBCIEI",
            &["MII", "MHcCAQEEI", "MIGHAgEA", "MC4CAQAwBQYDK2Vw"],
        ),
        Rule::new(PrivateKey, "a PuTTY private key", "PuTTY-User-Key-File-[0-9]+:|Private-Lines: *[0-9]+", &["PuTTY-User-Key-File-", "Private-Lines:"]),
        Rule::word(PrivateKey, "an age secret key", "AGE-SECRET-KEY-1[0-9A-Z]{20,}", &["AGE-SECRET-KEY-1"]),
        Rule::new(PrivateKey, "a private JSON Web Key", r#""d"[ \t]*:[ \t]*"[A-Za-z0-9_\-]{20,}""#, &["\"d\""]),
        // Version control.
        Rule::provider("a GitHub token", "gh[pousr]_[A-Za-z0-9]{30,}", &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
        Rule::provider("a GitHub token", "github_pat_[A-Za-z0-9_]{22,}", &["github_pat_"]),
        Rule::provider(
            "a GitLab token",
            r"gl(?:pat|dt|ptt|rt|soat|cbt|imt|agent|oas|ft|ffct|wt)-[A-Za-z0-9_\-]{20,}",
            &["glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "glimt-", "glagent-", "gloas-", "glft-", "glffct-", "glwt-"],
        ),
        Rule::provider("a GitLab runner registration token", r"GR1348941[A-Za-z0-9_\-]{20,}", &["GR1348941"]),
        Rule::provider("a Bitbucket app password", r"ATBB[A-Za-z0-9_=.\-]{24,}", &["ATBB"]),
        Rule::provider("an Atlassian token", r"AT(?:ATT|CTT)3[A-Za-z0-9_=\-]{40,}", &["ATATT3", "ATCTT3"]),
        // Chat.
        Rule::provider("a Slack token", r"xox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9\-]{10,}", &["xox"]),
        Rule::provider("a Slack app token", r"xapp-[0-9]-[A-Za-z0-9\-]{10,}", &["xapp-"]),
        Rule::new(Token, "a Slack webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{16,}", &["hooks.slack.com/"]),
        Rule::new(
            Token,
            "a Microsoft Teams webhook",
            r"(?:webhook|outlook)\.office\.com/webhook(?:b2)?/[A-Za-z0-9@._\-/]{16,}",
            &["webhook.office.com/", "outlook.office.com/webhook"],
        ),
        Rule::new(Token, "a Discord webhook", r"discord(?:app)?\.com/api/webhooks/[0-9]{5,}/[A-Za-z0-9_\-]{20,}", &["discord"]),
        Rule::new(Token, "a Telegram bot token", r"[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}", &[":AA"]),
        // Cloud.
        Rule::provider(
            "an AWS access key id",
            "(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}",
            &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
        )
        .ended(),
        Rule::provider("a Google API key", r"AIza[0-9A-Za-z_\-]{35}", &["AIza"]),
        Rule::provider("a Google OAuth client secret", r"GOCSPX-[A-Za-z0-9_\-]{20,}", &["GOCSPX-"]),
        Rule::provider("a Google OAuth token", r"ya29\.[0-9A-Za-z_\-]{20,}|1//0[0-9A-Za-z_\-]{30,}", &["ya29.", "1//0"]),
        Rule::new(Token, "an Azure client secret", r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}", &["Q~"]),
        Rule::provider("a DigitalOcean token", "do[opr]_v1_[a-f0-9]{64}", &["dop_v1_", "doo_v1_", "dor_v1_"]),
        Rule::provider("a Heroku token", r"HRKU-[A-Za-z0-9_\-]{20,}", &["HRKU-"]),
        Rule::provider("an Alibaba Cloud access key id", "LTAI[A-Za-z0-9]{12,20}", &["LTAI"]).ended(),
        Rule::provider("a HashiCorp Vault token", r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", &["hvs.", "hvb.", "hvr."]),
        Rule::new(Token, "a Terraform Cloud token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}", &[".atlasv1."]),
        Rule::provider("a Doppler token", r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}", &["dp."]),
        Rule::provider("a Pulumi token", "pul-[a-f0-9]{40}", &["pul-"]),
        Rule::provider("a Databricks token", "dapi[a-f0-9]{32}", &["dapi"]),
        Rule::provider("a Grafana token", "glc_[A-Za-z0-9+/]{32,}|glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}", &["glc_", "glsa_"]),
        Rule::provider("a New Relic key", r"NR(?:AK|II|JS)-[A-Za-z0-9_\-]{20,}", &["NRAK-", "NRII-", "NRJS-"]),
        Rule::provider("a Sentry token", "sntry[su]_[A-Za-z0-9+/=_]{40,}", &["sntrys_", "sntryu_"]),
        Rule::provider("a Cloudflare origin CA key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", &["v1.0-"]),
        Rule::provider("a Fly.io token", r"fo1_[A-Za-z0-9_\-]{40,}", &["fo1_"]),
        Rule::provider("a PlanetScale token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{30,}", &["pscale_"]),
        Rule::provider("a Supabase key", r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,}", &["sbp_", "sb_secret_"]),
        // Services.
        Rule::provider("a Linear key", "lin_api_[A-Za-z0-9]{40}", &["lin_api_"]),
        Rule::provider("a Notion token", "secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,}", &["secret_", "ntn_"]),
        Rule::provider("a Figma token", r"figd_[A-Za-z0-9_\-]{40,}", &["figd_"]),
        Rule::provider("an Airtable token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", &["pat"]),
        Rule::provider("a Postman key", "PMAK-[a-f0-9]{24}-[a-f0-9]{34}", &["PMAK-"]),
        Rule::provider("a Contentful token", r"CFPAT-[A-Za-z0-9_\-]{40,}", &["CFPAT-"]),
        Rule::provider("a Shopify token", "shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", &["shpat_", "shpca_", "shppa_", "shpss_"]),
        Rule::provider("a 1Password service account token", r"ops_eyJ[A-Za-z0-9+/=_\-]{40,}", &["ops_eyJ"]),
        Rule::provider("a Mapbox secret token", r"sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}", &["sk.eyJ"]),
        Rule::token(Token, "a Dropbox token", r"sl\.[A-Za-z0-9_\-]{100,}", &["sl."]),
        Rule::new(Token, "a Firebase server key", r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}", &[":APA91b"]),
        // Payment.
        Rule::provider(
            "a Stripe key",
            "(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}",
            &["sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"],
        ),
        Rule::provider("a Square token", r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}", &["sq0atp-", "sq0csp-"]),
        Rule::provider("a Meta or Square access token", r"EAA[A-Za-z0-9_\-]{60,}", &["EAA"]),
        Rule::provider("a Braintree token", r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}", &["access_token$"]),
        Rule::provider("a Razorpay key", "rzp_(?:live|test)_[A-Za-z0-9]{14,}", &["rzp_live_", "rzp_test_"]),
        Rule::token(Token, "a Twilio key", "SK[0-9a-fA-F]{32}", &["SK"]).ended(),
        // Mail.
        Rule::token(Token, "a SendGrid key", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}", &["SG."]),
        Rule::token(Token, "a Mailgun key", "key-[0-9a-f]{32}", &["key-"]).ended(),
        Rule::new(Token, "a Mailchimp key", "(?P<leak>[0-9a-f]{32}-us[0-9]{1,2})", &["-us"]).ended(),
        Rule::provider("a Brevo key", "x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}", &["xkeysib-", "xsmtpsib-"]),
        Rule::token(Token, "a Resend key", "re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", &["re_"]),
        // Package registries.
        Rule::provider("an npm token", "npm_[A-Za-z0-9]{36}", &["npm_"]).ended(),
        Rule::provider("a PyPI token", r"pypi-AgE[A-Za-z0-9_\-]{20,}", &["pypi-AgE"]),
        Rule::token(Token, "a crates.io token", "cio[A-Za-z0-9]{32}", &["cio"]).ended(),
        Rule::token(Token, "a NuGet key", "oy2[a-z0-9]{43}", &["oy2"]).ended(),
        Rule::provider("a RubyGems key", "rubygems_[a-f0-9]{48}", &["rubygems_"]),
        Rule::provider("a Docker Hub token", r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}", &["dckr_pat_", "dckr_oat_"]),
        Rule::provider("a JFrog token", "AKCp[A-Za-z0-9]{60,}|cmVmdGtuOjAxOj[A-Za-z0-9]{30,}", &["AKCp", "cmVmdGtuOjAxOj"]),
        Rule::provider("a Hugging Face token", "hf_[A-Za-z]{30,}", &["hf_"]).ended(),
        Rule::provider("a Clojars token", "CLOJARS_[a-z0-9]{60}", &["CLOJARS_"]),
        // CI.
        Rule::provider("a CircleCI token", "CCIP(?:AT|RJ)_[A-Za-z0-9]{20,}_[a-f0-9]{40}", &["CCIPAT_", "CCIPRJ_"]),
        Rule::provider("a Buildkite token", "bkua_[a-f0-9]{40}", &["bkua_"]),
        Rule::provider("a SonarQube token", "sq[pua]_[a-f0-9]{40}", &["sqp_", "squ_", "sqa_"]),
        // AI services.
        Rule::provider("an OpenAI or Anthropic key", r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}", &["sk-"]),
        Rule::provider("a Groq key", "gsk_[A-Za-z0-9]{40,}", &["gsk_"]),
        Rule::provider("a Replicate token", "r8_[A-Za-z0-9]{30,}", &["r8_"]),
        Rule::provider("a Perplexity key", "pplx-[A-Za-z0-9]{40,}", &["pplx-"]),
        Rule::provider("an xAI key", "xai-[A-Za-z0-9]{60,}", &["xai-"]),
        // Tokens of no one provider.
        Rule::word(Jwt, "a JSON Web Token", r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*", &["eyJ"]),
        Rule::new(Bearer, "a bearer credential", format!(r"{WORD}(?i-u:bearer)[ \t]+(?P<leak>[A-Za-z0-9._~+/\-]{{12,}}=*)"), &["bearer"])
            .anchored(Anchor::Word)
            .folded()
            .judged(|_, caps| leak_if(caps, random_enough)),
        Rule::new(
            Bearer,
            "a credential in an Authorization header",
            r#"(?i-u:authorization)["']?[ \t]*[:=][ \t]*["']?(?:(?i-u:basic|token|digest|apikey|sso-key|negotiate|ntlm|bearer)[ \t]+)?(?P<leak>[A-Za-z0-9._~+/=:\-]{8,})"#,
            &["authorization"],
        )
        .folded()
        .judged(|_, caps| leak_if(caps, |v| random_enough(v) || basic_credentials(v))),
        // Password hashes.
        Rule::new(PasswordHash, hash, r"\$2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}", &["$2"]),
        Rule::new(
            PasswordHash,
            hash,
            r"\$argon2(?:id|i|d)\$(?:v=[0-9]+\$)?m=[0-9]+,t=[0-9]+,p=[0-9]+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}",
            &["$argon2"],
        ),
        Rule::new(PasswordHash, hash, r"\$[56]\$(?:rounds=[0-9]+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}", &["$5$", "$6$"]),
        Rule::new(PasswordHash, hash, r"\$(?:1|apr1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}", &["$1$", "$apr1$"]),
        Rule::new(PasswordHash, hash, r"\$g?y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43}", &["$y$", "$gy$"]),
        Rule::new(
            PasswordHash,
            hash,
            r"\$7\$[./A-Za-z0-9]{11,}\$[./A-Za-z0-9]{43}|\$scrypt\$ln=[0-9]+,r=[0-9]+,p=[0-9]+\$[A-Za-z0-9+/.]+\$[A-Za-z0-9+/.]{20,}",
            &["$7$", "$scrypt$"],
        ),
        Rule::new(
            PasswordHash,
            hash,
            r"(?:pbkdf2_sha(?:1|256|512)|\$pbkdf2(?:-sha(?:1|256|512))?)\$[0-9]+\$[A-Za-z0-9./+]+\$[A-Za-z0-9./+=]{20,}",
            &["pbkdf2_sha", "$pbkdf2"],
        ),
        Rule::new(PasswordHash, hash, r"\$[PH]\$[./A-Za-z0-9]{31}|\$S\$[./A-Za-z0-9]{52}", &["$P$", "$H$", "$S$"]),
        Rule::new(
            PasswordHash,
            hash,
            r"\{(?:SSHA|SSHA256|SSHA512|SHA|SHA256|SHA512|SMD5|MD5|CRYPT|PBKDF2[A-Z0-9-]*)\}[A-Za-z0-9+/=./$]{8,}",
            &["{SSHA", "{SHA", "{SMD5", "{MD5}", "{CRYPT}", "{PBKDF2"],
        ),
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
    ]
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

/// Whether each rule's literal occurs in `text` in its case (ignoring ASCII case when the rule
/// folds it) and at a place its [`Anchor`] allows: the rules worth running, as a set of bits by
/// rule index (there are at most 128 rules: see the tests).
fn candidates(text: &str) -> u128 {
    let literals = &*LITERALS;
    let bytes = text.as_bytes();
    let mut wanted = 0u128;
    for found in literals.automaton.find_overlapping_iter(text) {
        let (index, needle) = literals.owners[found.pattern().as_usize()];
        if wanted & (1 << index) != 0 {
            continue;
        }
        let rule = &RULES[index];
        let in_case = rule.fold || &bytes[found.range()] == needle.as_bytes();
        if in_case && rule.anchor.holds(bytes, found.start()) {
            wanted |= 1 << index;
        }
    }
    wanted
}

/// Checks one string.
///
/// # Errors
/// The first leak found (by position), without its text.
pub fn check_str(text: &str) -> Result<(), Leak> {
    let mut wanted = candidates(text);
    let mut first: Option<Leak> = None;
    while wanted != 0 {
        let index = wanted.trailing_zeros() as usize;
        wanted &= wanted - 1;
        if let Some(leak) = RULES[index].find(text)
            && first.as_ref().is_none_or(|f| leak.start < f.start)
        {
            first = Some(leak);
        }
    }
    first.map_or(Ok(()), Err)
}

/// Checks every string of a JSON document, object keys included, and every object member whose
/// name says it is secret ([`check_assignment`]).
///
/// # Errors
/// The first leak in document order, with its JSON pointer.
pub fn check_value(value: &Value) -> Result<(), LeakAt> {
    walk(value, &mut String::new())
}

/// Checks one assignment of `value` to `name` (an object member, a form field): a leak when the
/// name says secret, token, password, key, credential or auth and the value is random enough.
///
/// # Errors
/// The leak, spanning the whole value.
pub fn check_assignment(name: &str, value: &str) -> Result<(), Leak> {
    if name_says_secret(name, value) {
        return Err(Leak {
            kind: LeakKind::Assignment,
            what: LeakKind::Assignment.describe(),
            start: 0,
            end: value.len(),
        });
    }
    Ok(())
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
                if let Value::String(s) = item {
                    check_assignment(key, s).map_err(|leak| LeakAt { pointer: pointer.clone(), leak })?;
                }
                walk(item, pointer)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Judges

/// The range of the `leak` group when `test` says its text is one.
fn leak_if(caps: &Captures<'_>, test: impl Fn(&str) -> bool) -> Option<Range<usize>> {
    caps.name("leak").filter(|m| test(m.as_str())).map(|m| m.range())
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
fn value_after(text: &str, at: usize) -> Range<usize> {
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
fn name_says_secret(name: &str, value: &str) -> bool {
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
            // `DB_PASS`, `SMTP_PW`, `GITHUB_PAT` (a personal access token).
            || ["pass", "pw", "pat", "pats"].contains(&w)
    };
    if words.iter().any(|w| says(w)) {
        return Some(Hint::Secret);
    }
    let mut key = None;
    for (i, w) in words.iter().enumerate() {
        let Some(before) = w.strip_suffix("keys").or_else(|| w.strip_suffix("key")) else { continue };
        let kind = if before.is_empty() { i.checked_sub(1).map(|j| words[j].as_str()) } else { Some(before) };
        if kind.is_some_and(|k| SECRET_KEYS.contains(&k)) {
            return Some(Hint::Secret);
        }
        key = Some(Hint::Key);
    }
    key
}

/// `name` as lowercase words: split at every non-alphanumeric character, before an upper-case
/// letter that follows a lower-case one, and before the last capital of a run that a lower-case
/// letter follows (`APIKey` -> `api`, `key`).
fn words_of(name: &str) -> Vec<String> {
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

/// Whether `value` looks generated rather than written: at least [`MIN_SECRET_CHARS`] characters,
/// no reference or placeholder (`$VAR`, `${{ secrets.X }}`, `<password>`, `%PW%`, `***`), not made
/// of words and numbers only ([`made_of_words`]: `hunter2-redacted`, `test-password-123`,
/// `tests/fixtures/key.pem`), and a Shannon entropy of at least [`MIN_ENTROPY_BITS`] bits per
/// character ([`MIN_HEX_ENTROPY_BITS`] for hexadecimal digits only). A value longer than
/// [`VALUE_MAX`] characters is judged by its start.
///
/// A passphrase of dictionary words passes as written: it cannot be told from a fixture.
#[must_use]
pub fn random_enough(value: &str) -> bool {
    let value = value.trim_start_matches([':', '=']);
    // A long value is judged by its start.
    let value = value.char_indices().nth(VALUE_MAX).map_or(value, |(i, _)| &value[..i]);
    if is_placeholder(value) || value.chars().count() < MIN_SECRET_CHARS || made_of_words(value) {
        return false;
    }
    let hex = value.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    shannon_bits(value) >= if hex { MIN_HEX_ENTROPY_BITS } else { MIN_ENTROPY_BITS }
}

/// A reference to a secret kept elsewhere, or a placeholder for one.
fn is_placeholder(value: &str) -> bool {
    value.is_empty()
        || value.starts_with(['$', '<', '%', '{', '*', '[', '('])
        || value.chars().all(|c| c == value.chars().next().unwrap_or('x'))
}

/// Whether `value` is base64 of `user:password` (an HTTP Basic credential).
fn basic_credentials(value: &str) -> bool {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .is_some_and(|text| text.split_once(':').is_some_and(|(u, p)| !u.is_empty() && !p.is_empty()))
}

/// The parts of `value` between non-alphanumeric characters.
fn segments(value: &str) -> impl Iterator<Item = &str> {
    value.split(|c: char| !c.is_alphanumeric()).filter(|s| !s.is_empty())
}

/// Whether every part of `value` is a word (see [`is_word`]) or a number.
fn made_of_words(value: &str) -> bool {
    segments(value).all(|s| is_word(s) || s.chars().all(|c| c.is_ascii_digit()))
}

/// Whether every part of `value` that is not a word is hexadecimal digits (a digest, a UUID).
fn hex_apart_from_words(value: &str) -> bool {
    segments(value).all(|s| is_word(s) || s.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Whether `segment` reads as written words: letters in word case (`hunter`, `Redacted`, `HTTP`,
/// `camelCase`, `HTTPServer`, `ThisIsAnExample`) followed by at most four digits (`hunter2`,
/// `oauth2`, `v1`). Capitals followed by a single lower-case letter (`Is`, `Bc`) may be no more
/// than capitals followed by a longer run, so `xKqmPzWt` and `aBcDeF` are no words.
fn is_word(segment: &str) -> bool {
    let letters = segment.trim_end_matches(|c: char| c.is_ascii_digit());
    if letters.is_empty() || segment.len() - letters.len() > 4 || !letters.chars().all(char::is_alphabetic) {
        return false;
    }
    // Runs of capitals each followed by a run of lower-case letters, counted by the length of
    // that lower-case run.
    let (mut short, mut long) = (0, 0);
    let (mut upper, mut lower) = (0, 0);
    let mut close = |upper: usize, lower: usize| match (upper, lower) {
        (0, _) | (_, 0) => {}
        (_, 1) => short += 1,
        _ => long += 1,
    };
    for c in letters.chars() {
        if c.is_uppercase() {
            if lower > 0 {
                close(upper, lower);
                (upper, lower) = (0, 0);
            }
            upper += 1;
        } else {
            lower += 1;
        }
    }
    close(upper, lower);
    short <= long
}

/// The Shannon entropy of `value`'s characters, in bits per character.
fn shannon_bits(value: &str) -> f64 {
    let mut ascii = [0u32; 128];
    let mut other: Vec<char> = Vec::new();
    for c in value.chars() {
        match usize::try_from(u32::from(c)) {
            Ok(i) if i < ascii.len() => ascii[i] += 1,
            _ => other.push(c),
        }
    }
    other.sort_unstable();
    let n = (value.chars().count()).max(1) as f64;
    let counts = ascii
        .iter()
        .copied()
        .filter(|&k| k > 0)
        .chain(other.chunk_by(|a, b| a == b).map(|run| run.len() as u32));
    counts
        .map(|k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The leaking corpus, one string per line (`#` starts a comment line).
    fn corpus() -> Vec<&'static str> {
        include_str!("../../fixtures/clean/leaking.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    }

    /// Whether `rule` passes the literal test on `text`.
    fn passes(rule: &Rule, text: &str) -> bool {
        let index = RULES.iter().position(|r| std::ptr::eq(r, rule)).unwrap();
        candidates(text) & (1 << index) != 0
    }

    fn kind(text: &str) -> Option<LeakKind> {
        check_str(text).err().map(|l| l.kind)
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
    fn every_rule_compiles_and_fits_the_candidate_bits() {
        assert!(RULES.len() <= 128, "{} rules", RULES.len());
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
                        let turned_away = wanted & (1 << index) == 0;
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
            "--token Zr8KpX2mQ7vL3nW9",
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
        assert_eq!(name_hint("keyboard"), None);
        assert_eq!(name_hint("PWD"), None);
        assert_eq!(name_hint("DB_PWD"), Some(Hint::Secret));
    }

    #[test]
    fn words_are_told_from_random_letters() {
        for word in [
            "hunter2",
            "redacted",
            "Redacted",
            "HTTP",
            "HTTPServer",
            "camelCase",
            "ThisIsAnExample",
            "oauth2",
            "v1",
            "contraseña",
        ] {
            assert!(is_word(word), "{word:?}");
        }
        for random in ["xKqmPzWt", "aBcDeF", "s3cr3t", "test12345", "Zr8KpX2m"] {
            assert!(!is_word(random), "{random:?}");
        }
        assert!(!random_enough("hunter2-redacted"));
        assert!(!random_enough("aaaaaaaaaaaaaaaaaaaaaaaaa"));
        assert!(!random_enough("a1a1a1a1a1a1a1a1"));
        assert!(random_enough("Zr8KpX2mQ7vL"));
        assert!(random_enough("3f2a9c1e7b4d5f60"));
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

    /// Strings built to make a backtracking engine or a quadratic loop stall: each is checked (the
    /// time is measured by `examples/bench_clean.rs`, not here).
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
        ];
        for text in &hostile {
            let _ = check_str(text);
            let _ = check_value(&json!({ "password": text }));
        }
        assert!(check_str(&format!("token={}", "Zr8KpX2mQ7vL3nW9".repeat(100))).is_err());
    }
}
