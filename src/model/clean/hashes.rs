//! Password hashes: crypt, bcrypt, argon2, scrypt, PBKDF2, phpass and LDAP.

use super::LeakKind;
use super::rule::Rule;

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    use LeakKind::*;
    let hash = "a password hash";
    vec![
        // Password hashes.
        Rule::new(PasswordHash, hash, r"\$2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}", &["$2"]),
        Rule::new(
            PasswordHash,
            hash,
            r"\$argon2(?:id|i|d)\$(?:v=[0-9]+\$)?m=[0-9]+,t=[0-9]+,p=[0-9]+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}",
            &["$argon2"],
        ),
        Rule::new(
            PasswordHash,
            hash,
            r"\$[56]\$(?:rounds=[0-9]+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}",
            &["$5$", "$6$"],
        ),
        Rule::new(
            PasswordHash,
            hash,
            r"\$(?:1|apr1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}",
            &["$1$", "$apr1$"],
        ),
        Rule::new(
            PasswordHash,
            hash,
            r"\$g?y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43}",
            &["$y$", "$gy$"],
        ),
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
        Rule::new(
            PasswordHash,
            hash,
            r"\$[PH]\$[./A-Za-z0-9]{31}|\$S\$[./A-Za-z0-9]{52}",
            &["$P$", "$H$", "$S$"],
        ),
        Rule::new(
            PasswordHash,
            hash,
            r"\{(?:SSHA|SSHA256|SSHA512|SHA|SHA256|SHA512|SMD5|MD5|CRYPT|PBKDF2[A-Z0-9-]*)\}[A-Za-z0-9+/=./$]{8,}",
            &["{SSHA", "{SHA", "{SMD5", "{MD5}", "{CRYPT}", "{PBKDF2"],
        ),
    ]
}
