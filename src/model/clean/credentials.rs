//! Credentials in URLs (`user:password@`, a token as the user name, a signature or password in
//! the query) and in connection strings.

use super::LeakKind;
use super::randomness::{is_placeholder, random_enough};
use super::rule::{Anchor, Rule, leak_if};

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    use LeakKind::*;
    vec![
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
    ]
}
