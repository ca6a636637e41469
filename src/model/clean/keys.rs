//! Private keys: PEM and OpenSSH armor, PuTTY, age and JWK shapes, and bare DER key bodies.

use super::LeakKind;
use super::rule::Rule;

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    use LeakKind::*;
    let private_key = "private key material";
    vec![
        // Private keys: PEM and OpenSSH armor (also cut to its END line), PGP, SSH2, PuTTY, age,
        // JWK, and the start of a bare DER key body (PKCS#1, PKCS#8, SEC1, Ed25519).
        Rule::new(PrivateKey, private_key, r"-{3,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY", &["BEGIN "]),
        Rule::new(PrivateKey, private_key, r"-{3,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY", &["END "]),
        // An END line cut where the string ends (a run killed while printing a key): the body
        // above it is a key's, or a certificate's.
        Rule::new(
            PrivateKey,
            private_key,
            r"(?:-----END|---- END)(?: [A-Z0-9 ]{0,40})?\r?\n?\z",
            &["-----END", "---- END"],
        ),
        Rule::new(PrivateKey, "an OpenSSH private key", "b3BlbnNzaC1rZXktdjE", &["b3BlbnNzaC1rZXktdjE"]),
        Rule::new(
            PrivateKey,
            "a DER private key",
            "MII[A-Za-z0-9+/]{3}(?:IBAAK[BC]|IBADANBgkqhkiG9w0BAQEFAASC)|MHcCAQEEI|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg|MC4CAQAwBQYDK2VwBCIEI",
            &["MII", "MHcCAQEEI", "MIGHAgEA", "MC4CAQAwBQYDK2Vw"],
        ),
        Rule::new(
            PrivateKey,
            "a PuTTY private key",
            "PuTTY-User-Key-File-[0-9]+:|Private-Lines: *[0-9]+",
            &["PuTTY-User-Key-File-", "Private-Lines:"],
        ),
        Rule::word(PrivateKey, "an age secret key", "AGE-SECRET-KEY-1[0-9A-Z]{20,}", &["AGE-SECRET-KEY-1"]),
        Rule::new(
            PrivateKey,
            "a private JSON Web Key",
            r#""d"[ \t]*:[ \t]*"[A-Za-z0-9_\-]{20,}""#,
            &["\"d\""],
        ),
    ]
}
