//! Passwords and other credentials given to a tool on its command line, as the argument of an
//! option: an option whose name says it takes one (`--password …`, `--client-secret=…`,
//! `-passin pass:…`), a `user:password` pair (`curl -u ada:…`, `smbclient -U ada%…`,
//! `lftp -u ada,…`), a mount option list (`-o username=ada,password=…`), `htpasswd -b`, and the
//! tools whose short option is a password (`mysql -p…`, `redis-cli -a …`, `ldapsearch -w …`).
//!
//! A short option is a password only for the tool that defines it (`-p` names a port, a package
//! or a parents flag elsewhere, `-u` a user and group for `docker run`), so those rules name the
//! tool, and the option must follow it on the same command (before a `|`, `;`, `&` or line
//! break). A long option says what it takes by its name, so one rule covers every tool.
//!
//! Any value but a reference or a placeholder is a leak, however short or plain: `hunter2` given
//! to `--password` is a password, while `password: hunter2` in a fixture is judged by
//! randomness ([`super::assignment`]). Not a leak ([`given`]): `$VAR`, `${VAR}`, `<password>`,
//! `***`, a help text's metavariable (`PASSWORD`), openssl's and apksigner's references
//! (`env:VAR`, `file:path`, `fd:3`, `stdin`), a file (`@path`, `/path`, `./path`, `~/path`), a
//! port mapping (`27017:27017`), or a value that starts with `-` (the next option).

use std::ops::Range;

use regex::Captures;

use super::LeakKind;
use super::assignment::words_of;
use super::randomness::is_placeholder;
use super::rule::{Anchor, Rule, WORD, leak_if};

/// What an option's value may be: no blank, quote or command separator, and not the next option.
const VALUE: &str = r#"[^\s"'|;&<>\-][^\s"'|;&<>]*"#;

/// The rest of a command after its tool: options up to a blank before the one wanted, or none.
const SAME_COMMAND: &str = r"(?:\.exe)?[ \t](?:[^\n|;&]*?[ \t])?";

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    let mut rules = vec![named_option()];
    rules.extend(SHORT_OPTIONS.iter().map(ShortOption::rule));
    rules.extend(PAIRS.iter().map(Pair::rule));
    rules.extend([mount_options(), htpasswd(), sshpass(), login()]);
    rules
}

/// How a password follows its short option.
#[derive(Clone, Copy)]
enum Spacing {
    /// Glued only (`-pSECRET`): the option alone prompts, and what follows it is something else.
    Glued,
    /// After a blank only (`-k SECRET`): glued, the option is another one (`-keyout`).
    Blank,
    /// Glued or after blanks.
    Either,
}

/// A tool whose short option is a password.
struct ShortOption {
    /// What a finding calls the leak.
    what: &'static str,
    /// Literals of which every tool name holds one.
    needles: &'static [&'static str],
    /// The tool names, as a regex alternation.
    tools: &'static str,
    /// The option, as written (`-a`).
    option: &'static str,
    /// How the password follows it.
    spacing: Spacing,
}

/// The tools whose short option is a password. `sshpass -p` (its first option) and
/// `docker login -p` (a subcommand's) have rules of their own ([`sshpass`], [`login`]).
const SHORT_OPTIONS: &[ShortOption] = &[
    // `-p SECRET` prompts and names a database.
    ShortOption {
        what: "a password on a MySQL or MariaDB command line",
        needles: &["mysql", "mariadb"],
        tools: "mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mariadb-admin",
        option: "-p",
        spacing: Spacing::Glued,
    },
    ShortOption {
        what: "a password on a Redis client's command line",
        needles: &["redis-", "valkey-", "keydb-"],
        tools: "redis-cli|redis-benchmark|valkey-cli|keydb-cli",
        option: "-a",
        spacing: Spacing::Either,
    },
    ShortOption {
        what: "a password on an LDAP client's command line",
        needles: &["ldap"],
        tools: "ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapwhoami|ldapcompare|ldapmodrdn|ldappasswd|ldapexop",
        option: "-w",
        spacing: Spacing::Either,
    },
    ShortOption {
        what: "a password on a MongoDB client's command line",
        needles: &["mongo"],
        tools: "mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop|mongofiles",
        option: "-p",
        spacing: Spacing::Either,
    },
    ShortOption {
        what: "a password on a SQL Server client's command line",
        needles: &["sqlcmd", "osql", "bcp"],
        tools: "sqlcmd|osql|bcp",
        option: "-P",
        spacing: Spacing::Either,
    },
    ShortOption {
        what: "a password on a zip command line",
        needles: &["zip", "unzip"],
        tools: "zip|unzip",
        option: "-P",
        spacing: Spacing::Either,
    },
    // `-p` alone prompts.
    ShortOption {
        what: "a password on a 7-Zip command line",
        needles: &["7z"],
        tools: "7z|7za|7zr|7zz",
        option: "-p",
        spacing: Spacing::Glued,
    },
    ShortOption {
        what: "a password on a package upload command line",
        needles: &["twine"],
        tools: "twine",
        option: "-p",
        spacing: Spacing::Either,
    },
    ShortOption {
        what: "a password on an MQTT client's command line",
        needles: &["mosquitto_"],
        tools: "mosquitto_pub|mosquitto_sub|mosquitto_rr",
        option: "-P",
        spacing: Spacing::Either,
    },
    // `-P` is its port.
    ShortOption {
        what: "a password on a RabbitMQ command line",
        needles: &["rabbitmqadmin"],
        tools: "rabbitmqadmin",
        option: "-p",
        spacing: Spacing::Either,
    },
    // `openssl enc -k`; `-passin`, `-passout` and `-pass` are named options.
    ShortOption {
        what: "a password on an openssl command line",
        needles: &["openssl"],
        tools: "openssl",
        option: "-k",
        spacing: Spacing::Blank,
    },
];

impl ShortOption {
    fn rule(&self) -> Rule {
        let spacing = match self.spacing {
            Spacing::Glued => "",
            Spacing::Blank => r"[ \t]+",
            Spacing::Either => r"[ \t]*",
        };
        let pattern = format!(
            r#"{WORD}(?:{})(?:{SAME_COMMAND}){}{spacing}["']?(?P<leak>{VALUE})"#,
            self.tools, self.option
        );
        Rule::new(LeakKind::CommandLine, self.what, pattern, self.needles)
            .anchored(Anchor::Word)
            .judged(|_, caps| leak_if(caps, given))
    }
}

/// A tool that takes a user name and its password as one option's argument, joined by a
/// separator.
struct Pair {
    /// What a finding calls the leak.
    what: &'static str,
    /// Literals of which every tool name holds one.
    needles: &'static [&'static str],
    /// The tool names, as a regex alternation.
    tools: &'static str,
    /// The options, as a regex alternation, each with what separates it from its argument.
    options: &'static str,
    /// What joins the user name and the password.
    separator: char,
}

/// The tools that take `user<separator>password` as an option's argument. Others' `-u user:group`
/// (`docker run -u 1000:1000`) is no password.
const PAIRS: &[Pair] = &[
    Pair {
        what: "a user name and password on a curl command line",
        needles: &["curl"],
        tools: "curl",
        options: r"-[uU][ \t]*|--(?:proxy-)?user(?:=|[ \t]+)",
        separator: ':',
    },
    Pair {
        what: "a user name and password on a Samba client's command line",
        needles: &["smb", "rpcclient", "samba-tool"],
        tools: "smbclient|smbcacls|smbcquotas|smbget|smbtree|rpcclient|samba-tool",
        options: r"-U[ \t]*|--user(?:name)?(?:=|[ \t]+)",
        separator: '%',
    },
    Pair {
        what: "a user name and password on an lftp command line",
        needles: &["lftp"],
        tools: "lftp",
        options: r"-u[ \t]*",
        separator: ',',
    },
];

impl Pair {
    fn rule(&self) -> Rule {
        let separator = self.separator;
        let pattern = format!(
            r#"{WORD}(?:{})(?:{SAME_COMMAND})(?:{})["']?[^\s"'|;&{separator}]*{separator}(?P<leak>{VALUE})"#,
            self.tools, self.options
        );
        Rule::new(LeakKind::CommandLine, self.what, pattern, self.needles)
            .anchored(Anchor::Word)
            .judged(|_, caps| leak_if(caps, given))
    }
}

/// An option whose name says it takes a password, a token, a client secret or an API key, with
/// its value after `=`, after blanks, or as the next item of an argument list
/// (`["--token", "…"]`). Which names say so is [`takes_secret`].
fn named_option() -> Rule {
    let pattern = format!(
        r#"(?:^|[^A-Za-z0-9_\-])--?(?P<name>[A-Za-z][A-Za-z0-9_\-]*)(?P<op>=|[ \t]+|["'],[ \t]*)["']?(?P<leak>{VALUE})"#
    );
    Rule::new(
        LeakKind::CommandLine,
        "a credential given to an option that says so",
        pattern,
        &["pass", "token", "secret", "api", "bearer"],
    )
    .anchored(Anchor::OptionName)
    .folded()
    .judged(named_option_value)
}

/// The judge of [`named_option`]: the name takes a secret, and the value is one. openssl's and
/// apksigner's `pass:` is left out of the leak. A value after blanks that reads as a word, a name
/// or a file name (lower-case letters, `.`, `_`, `-`: `--token through`, `--password mydb`) is
/// prose or the operand after a flag (`psql --password mydb`), and is left alone.
fn named_option_value(_: &str, caps: &Captures<'_>) -> Option<Range<usize>> {
    if !takes_secret(&words_of(caps.name("name")?.as_str())) {
        return None;
    }
    let value = caps.name("leak")?;
    let (text, start) = match value.as_str().strip_prefix("pass:") {
        Some(rest) => (rest, value.start() + "pass:".len()),
        None => (value.as_str(), value.start()),
    };
    let spaced = caps.name("op")?.as_str().starts_with([' ', '\t']);
    let prose = spaced
        && start == value.start()
        && text.bytes().all(|b| b.is_ascii_lowercase() || matches!(b, b'.' | b'_' | b'-'));
    (text.chars().count() >= 3 && !prose && given(text)).then_some(start..value.end())
}

/// The last words of an option name that say it takes a secret.
const SECRET_OPTIONS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pass",
    // openssl.
    "passin",
    "passout",
    // keytool and jarsigner.
    "storepass",
    "keypass",
    "srcstorepass",
    "deststorepass",
    "srckeypass",
    "destkeypass",
    "token",
    "bearer",
    "apikey",
];

/// Words that make an option with such a last word no credential: a flag that takes no value
/// (`--no-password`, `--ask-become-pass`, `--password-prompt` has another last word), or a token
/// that pages (`--starting-token`).
const NO_SECRET: &[&str] = &[
    "no",
    "ask",
    "prompt",
    "show",
    "print",
    "skip",
    "use",
    "with",
    "without",
    "allow",
    "disable",
    "enable",
    "require",
    "reset",
    "rotate",
    "generate",
    "empty",
    "read",
    "check",
    "verify",
    "save",
    "remember",
    "forget",
    "hide",
    "mask",
    "starting",
    // A secret kept elsewhere, named (Helm charts' `auth.existingSecret`).
    "existing",
    "next",
    "page",
    "continuation",
    "pagination",
    "sync",
];

/// Whether an option named by `words` ([`words_of`]) takes a secret: its last word says so
/// ([`SECRET_OPTIONS`], or `secret` after another word, `--client-secret`: docker's `--secret`
/// names one kept elsewhere; or `key` after `api` or `secret`), and no other word says it is a
/// flag or a page token ([`NO_SECRET`]). `--password-file` and `--token-type` end in other words.
pub(super) fn takes_secret(words: &[String]) -> bool {
    let Some((last, before)) = words.split_last() else { return false };
    let named = SECRET_OPTIONS.contains(&last.as_str())
        || (last == "secret" && !before.is_empty())
        || (last == "key" && before.iter().any(|w| w == "api" || w == "secret"));
    named && !before.iter().any(|w| NO_SECRET.contains(&w.as_str()))
}

/// A password among mount options (`mount -t cifs -o username=ada,password=…`).
fn mount_options() -> Rule {
    let pattern = r#"[ \t]-o[ \t]*["']?(?:[^\s,"'|;&]*,)*?(?i-u:password|passwd|pass)=(?P<leak>[^\s,"'|;&<>\-][^\s,"'|;&<>]*)"#;
    Rule::new(
        LeakKind::CommandLine,
        "a password among mount options",
        pattern,
        &["password=", "passwd=", "pass="],
    )
    .folded()
    .judged(|_, caps| leak_if(caps, given))
}

/// `htpasswd -b`: the password is the last operand (`htpasswd -b FILE USER PASSWORD`, or with
/// `-n` no file: `htpasswd -nb USER PASSWORD`).
fn htpasswd() -> Rule {
    let operand = |name: &str| format!(r#"["']?(?P<{name}>{VALUE})["']?"#);
    let pattern = format!(
        r"{WORD}htpasswd(?:\.exe)?(?P<flags>(?:[ \t]+-[A-Za-z]+(?:[ \t]+[0-9]+)?)+)[ \t]+{}[ \t]+{}(?:[ \t]+{})?",
        operand("first"),
        operand("second"),
        operand("third")
    );
    Rule::new(LeakKind::CommandLine, "a password on an htpasswd command line", pattern, &["htpasswd"])
        .anchored(Anchor::Word)
        .judged(|_, caps| {
            let flags = caps.name("flags")?.as_str();
            if !flags.contains('b') {
                return None;
            }
            let password = if flags.contains('n') { caps.name("second") } else { caps.name("third") }?;
            given(password.as_str()).then(|| password.range())
        })
}

/// sshpass takes the password as its first option, glued or not (`sshpass -p SECRET ssh …`).
fn sshpass() -> Rule {
    Rule::new(
        LeakKind::CommandLine,
        "a password on an sshpass command line",
        format!(r#"{WORD}sshpass(?:\.exe)?[ \t]+-p[ \t]*["']?(?P<leak>{VALUE})"#),
        &["sshpass"],
    )
    .anchored(Anchor::Word)
    .judged(|_, caps| leak_if(caps, given))
}

/// The `login` subcommand of container registry and cloud clients takes it anywhere in the
/// command, glued or not (`docker login -u ci -p …`, `helm registry login`, `oc login`,
/// `cf login`, `az login`, `az acr login`).
fn login() -> Rule {
    let tools = r"docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry|oc|cf|az|az[ \t]+acr";
    Rule::new(
        LeakKind::CommandLine,
        "a password on a login command line",
        format!(
            r#"{WORD}(?:{tools})(?:\.exe)?[ \t]+login[ \t](?:[^\n|;&]*?[ \t])?-p[ \t]*["']?(?P<leak>{VALUE})"#
        ),
        &["login"],
    )
    .anchored(Anchor::Word)
    .judged(|_, caps| leak_if(caps, given))
}

/// Whether an option's value is a password given on the command line, rather than a reference to
/// one kept elsewhere or a placeholder (see the module's documentation).
pub(super) fn given(value: &str) -> bool {
    let metavariable =
        value.len() >= 2 && value.bytes().all(|b| b.is_ascii_uppercase() || matches!(b, b'_' | b'-'));
    let reference =
        ["env:", "file:", "fd:", "@", "/", "./", "../", "~/"].iter().any(|p| value.starts_with(p))
            || value == "stdin";
    let port_mapping = value.contains(':') && value.bytes().all(|b| b.is_ascii_digit() || b == b':');
    !(is_placeholder(value) || metavariable || reference || port_mapping)
}
