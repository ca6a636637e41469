//! Credentials in URLs (`user:password@`, a token as the user name, a signature or password in
//! the query), in connection strings, and in a package registry's settings (`.npmrc`, npm's
//! `npm_config_…` environment variables, `.yarnrc`, `.yarnrc.yml`).

use super::LeakKind;
use super::command_line::given;
use super::randomness::{is_placeholder, random_enough};
use super::rule::{Anchor, Rule, leak_if};

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Credentials in URLs. The user information ends at the last `@` before the path, and
        // the password starts at its first `:`: a user name may hold an `@` unescaped (an e-mail
        // address, `ci-bot@corp.example:…@host`), as URL parsers and curl read it.
        Rule::new(UrlCredentials, "a URL with a user name and password", r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:]*:[^\s/]*@", &["://"])
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
        registry_auth(),
        yarnrc_auth(),
    ]
}

/// What [`registry_auth`] and [`yarnrc_auth`] name a leak.
const REGISTRY: &str = "a package registry's credential in its settings";

/// A registry credential in npm's settings (`_authToken`, `_auth`, `_password`, alone or scoped
/// to a registry, `//registry.npmjs.org/:_authToken=…`), also set as an environment variable
/// (npm reads `npm_config_<key>`, ignoring the prefix's case: `NPM_CONFIG__AUTH=…` is `_auth`,
/// `NPM_CONFIG_//registry.npmjs.org/:_authToken=…` the scoped token), or yarn's
/// (`npmAuthToken: "…"`, `npmAuthIdent: "…"`), whatever the value but a reference or a
/// placeholder ([`given`]: `${NPM_TOKEN}`).
fn registry_auth() -> Rule {
    Rule::new(
        LeakKind::Assignment,
        REGISTRY,
        r#"(?:^|[^A-Za-z0-9_])(?i-u:npm_config_)?(?i-u:_authToken|_auth|_password|npmAuthToken|npmAuthIdent)["']?[ \t]*[=:][ \t]*["']?(?P<leak>[^\s"']*)"#,
        &["_auth", "_password", "npmauth"],
    )
    .anchored(Anchor::Word)
    .folded()
    .judged(|_, caps| leak_if(caps, given))
}

/// A registry credential in yarn v1's `.yarnrc`, whose lines are a key, blanks and a value, each
/// quoted or not (`"//registry.npmjs.org/:_authToken" abc123`, `_authToken abc123`): the key
/// starts its line and the value ends it, so prose that names the key (`set _authToken in your
/// .npmrc`) is no setting. Any value but a reference or a placeholder ([`given`]) is a leak.
fn yarnrc_auth() -> Rule {
    Rule::new(
        LeakKind::Assignment,
        REGISTRY,
        r#"(?m)^[ \t]*["']?(?://[^\s"']*:)?(?i-u:_authToken|_auth|_password)["']?[ \t]+["']?(?P<leak>[^\s"']+)["']?[ \t]*\r?$"#,
        &["_auth", "_password"],
    )
    .anchored(Anchor::Word)
    .folded()
    .judged(|_, caps| leak_if(caps, given))
}

#[cfg(test)]
mod tests {
    use super::super::check_str;
    use super::super::tests::caught;

    #[test]
    fn a_url_whose_user_name_holds_an_at_sign_is_caught_up_to_its_last_at_sign() {
        let what = "a URL with a user name and password";
        for (text, userinfo) in [
            (
                "Mirror https://ci-bot@corp.example:Zq8Wn3bY6cJxK2mTp9@git.corp.example/x.git now",
                "https://ci-bot@corp.example:Zq8Wn3bY6cJxK2mTp9@",
            ),
            ("https://ada:hunter2@git.example.net/app.git", "https://ada:hunter2@"),
            ("git clone https://ada:p@ss@git.example.net/a.git", "https://ada:p@ss@"),
            ("redis://a@b@c:hunter2@cache:6379", "redis://a@b@c:hunter2@"),
        ] {
            assert_eq!(caught(text), Some((what, userinfo)), "{text:?}");
        }
        for text in [
            "https://ci-bot@git.corp.example:8443/x.git",
            "ssh://git@github.com:22/org/repo.git and mail ada@example.org",
            "https://git.example.net:8443/a@b",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_credential_in_npm_or_yarn_settings_is_caught_whatever_its_value() {
        let registry = "a package registry's credential in its settings";
        for (text, value) in [
            ("//registry.npmjs.org/:_authToken=npm_abcdefghijklmnop", "npm_abcdefghijklmnop"),
            ("//npm.pkg.github.com/:_authToken=hunter2", "hunter2"),
            ("_auth=dXNlcjpwYXNz", "dXNlcjpwYXNz"),
            ("//registry.example.net/npm/:_password=\"aHVudGVyMg==\"", "aHVudGVyMg=="),
            ("_authToken = hunter2", "hunter2"),
            (
                "registry=https://registry.example.net/\n//registry.example.net/:_authToken=hunter2\n",
                "hunter2",
            ),
            ("npmAuthToken: \"npm_abc123\"", "npm_abc123"),
            ("    npmAuthToken: hunter2", "hunter2"),
            ("  npmAuthIdent: \"ada:hunter2\"", "ada:hunter2"),
        ] {
            assert_eq!(caught(text), Some((registry, value)), "{text:?}");
        }
    }

    #[test]
    fn a_credential_npm_reads_from_its_environment_is_caught_whatever_its_value() {
        for (text, value) in [
            ("NPM_CONFIG__AUTH=dXNlcjpwYXNz", "dXNlcjpwYXNz"),
            ("export NPM_CONFIG__AUTH=dXNlcjpwYXNz", "dXNlcjpwYXNz"),
            ("npm_config__password=aHVudGVyMg== npm publish", "aHVudGVyMg=="),
            ("npm_config__authToken=abc123", "abc123"),
            ("env:\n  NPM_CONFIG__AUTH: \"dXNlcjpwYXNz\"", "dXNlcjpwYXNz"),
            ("NPM_CONFIG_//registry.npmjs.org/:_authToken=abc", "abc"),
        ] {
            assert_eq!(caught(text), Some((super::REGISTRY, value)), "{text:?}");
        }
    }

    #[test]
    fn a_credential_in_a_yarnrc_line_of_a_key_and_a_value_is_caught() {
        for (text, value) in [
            ("\"//registry.npmjs.org/:_authToken\" abc123", "abc123"),
            ("_authToken abc123", "abc123"),
            (
                "registry \"https://registry.example.net/\"\n//registry.example.net/:_authToken \"hunter2\"\n",
                "hunter2",
            ),
            ("  _password\taGVsbG8=\r\nalways-auth true", "aGVsbG8="),
            ("'_auth' 'dXNlcjpwYXNz'", "dXNlcjpwYXNz"),
        ] {
            assert_eq!(caught(text), Some((super::REGISTRY, value)), "{text:?}");
        }
    }

    #[test]
    fn a_reference_or_placeholder_in_npm_or_yarn_settings_stays_clean() {
        for text in [
            "//npm.pkg.github.com/:_authToken=${NPM_TOKEN}",
            "//registry.npmjs.org/:_authToken=$NPM_TOKEN",
            "//registry.npmjs.org/:_authToken=NPM_TOKEN",
            "_authToken=",
            "_password=%NPM_PASSWORD%",
            "npmAuthToken: \"${NPM_AUTH_TOKEN}\"",
            "npmAuthToken: ''",
            "always-auth=true",
            "npmAlwaysAuth: true",
            "set _authToken in your .npmrc",
            "NPM_CONFIG__AUTH=${NPM_AUTH}",
            "npm_config__authToken=",
            "\"//registry.npmjs.org/:_authToken\" \"${NPM_TOKEN}\"",
            "_authToken $NPM_TOKEN",
            "_authToken is required to publish",
            "_auth",
            "_authToken null",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }
}
