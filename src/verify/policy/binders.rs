//! Which certificates of the verifier's OpenPGP trust each name of a policy names. A
//! certificate's holder chooses its user IDs, so anyone the trust holds can bind another
//! person's address to their own certificate: a name that more than one certificate binds names
//! no single signer, and a signature by any of them does not meet `signers` or `approvals.by`
//! through it (docs/policy.md, "Principals"). SSH principals are the trust file's writer's to
//! give, and are not asked about.

use crate::model::verifier_policy::{ANY, OPENPGP, Principal, Rule};
use crate::sign::openpgp::OpenPgpCerts;

/// The certificates of the trust that each name of a policy names.
#[derive(Debug, Clone, Default)]
pub struct Binders {
    /// Each name the policy gives that a certificate binds (`*` aside), as written, with the
    /// primary key fingerprints of every certificate binding it: as a user ID or its address at
    /// any time a signature may say it was made, or as the certificate's own fingerprint.
    by_name: Vec<(String, Vec<String>)>,
}

impl Binders {
    /// The binders of each name `rules` give in `signers` and `approvals.by`, among `certs` (the
    /// trust's OpenPGP certificates; none: no name is bound).
    #[must_use]
    pub fn new<'r>(rules: impl IntoIterator<Item = &'r Rule>, certs: Option<&OpenPgpCerts>) -> Binders {
        let Some(certs) = certs else { return Binders::default() };
        let bindings = certs.bindings();
        let mut by_name: Vec<(String, Vec<String>)> = Vec::new();
        for name in rules.into_iter().flat_map(named) {
            if name.as_str() == ANY || by_name.iter().any(|(n, _)| n == name.as_str()) {
                continue;
            }
            let binders: Vec<String> = bindings
                .iter()
                .filter(|(fpr, user_ids)| {
                    fpr.eq_ignore_ascii_case(name.as_str()) || name.names(OPENPGP, "", user_ids)
                })
                .map(|(fpr, _)| fpr.clone())
                .collect();
            if !binders.is_empty() {
                by_name.push((name.as_str().to_owned(), binders));
            }
        }
        Binders { by_name }
    }

    /// The certificates binding `name` (empty: none, or `name` is `*`).
    #[must_use]
    pub fn of(&self, name: &Principal) -> &[String] {
        self.by_name.iter().find(|(n, _)| n == name.as_str()).map_or(&[], |(_, binders)| binders)
    }

    /// Whether `name` names the signer of kind `kind` whose key is `key` and whose principals the
    /// trust gives as `principals`: as [`Principal::names`] tells it, and, for an OpenPGP
    /// certificate named by a user ID or an address rather than its fingerprint, only when no
    /// other certificate of the trust binds that name too.
    #[must_use]
    pub fn names(&self, name: &Principal, kind: &str, key: &str, principals: &[String]) -> bool {
        if !name.names(kind, key, principals) {
            return false;
        }
        kind != OPENPGP
            || name.as_str() == ANY
            || key.eq_ignore_ascii_case(name.as_str())
            || self.of(name).iter().all(|fpr| fpr.eq_ignore_ascii_case(key))
    }

    /// Why `name` names none of the certificates binding it, when it is one that names the
    /// OpenPGP signer whose key is `key` but for them ([`Binders::names`]); for a message.
    #[must_use]
    pub fn why_not(&self, name: &Principal, kind: &str, key: &str, principals: &[String]) -> Option<String> {
        let shared =
            kind == OPENPGP && name.names(kind, key, principals) && !self.names(name, kind, key, principals);
        shared.then(|| shared_name(name.as_str(), &with(self.of(name), key)))
    }

    /// Each name `rule` gives that more than one certificate binds, once, with their
    /// fingerprints.
    #[must_use]
    pub fn shared_in(&self, rule: &Rule) -> Vec<(&str, &[String])> {
        let shared = self.by_name.iter().filter(|(n, b)| b.len() > 1 && named(rule).any(|p| p.as_str() == n));
        shared.map(|(n, b)| (n.as_str(), b.as_slice())).collect()
    }
}

/// The names a rule gives in `signers` and `approvals.by`.
fn named(rule: &Rule) -> impl Iterator<Item = &Principal> {
    rule.signers.iter().flatten().chain(rule.approvals.iter().flat_map(|a| a.by.iter().flatten()))
}

/// `binders` with `key` among them (once).
fn with(binders: &[String], key: &str) -> Vec<String> {
    let mut all = binders.to_vec();
    if !all.iter().any(|b| b.eq_ignore_ascii_case(key)) {
        all.push(key.to_owned());
    }
    all
}

/// What is wrong with `name`, which the certificates `binders` bind, and what to do.
#[must_use]
pub fn shared_name(name: &str, binders: &[String]) -> String {
    format!(
        "`{name}` is bound by {} certificates of the OpenPGP trust ({}), so it names no single signer and a signature by any of them does not count through it; name the signer by its fingerprint in the policy, or remove the wrong binding from the trust",
        binders.len(),
        binders.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::verifier_policy::VerifierPolicy;
    use crate::sign::openpgp::OpenPgpCerts;
    use crate::verify::policy::test_support::{cert, trust_of, with_expired_user_id};

    /// The binders of the names of one rule whose `signers` are `signers`, among `certs`.
    fn binders(signers: &[&str], certs: &OpenPgpCerts) -> Binders {
        let quoted: Vec<String> = signers.iter().map(|s| format!("{s:?}")).collect();
        let text = format!(
            "version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\nsigners = [{}]\n",
            quoted.join(", ")
        );
        let policy = VerifierPolicy::parse(text.as_bytes(), "policy.toml").expect("a valid policy");
        Binders::new(policy.rules(), Some(certs))
    }

    fn name(text: &str) -> Principal {
        Principal::try_from(text.to_owned()).expect("a principal")
    }

    #[test]
    fn an_address_two_certificates_bind_names_neither_and_each_fingerprint_still_names_its_own() {
        let alice = vec!["Alice <alice@example.org>".to_owned()];
        let mallory = vec!["Mallory <mallory@example.org>".to_owned(), "M. <alice@example.org>".to_owned()];
        let (certs, fpr) = trust_of(&[
            cert(&["Alice <alice@example.org>"]),
            cert(&["Mallory <mallory@example.org>", "M. <alice@example.org>"]),
        ]);
        let b =
            binders(&["alice@example.org", "Alice <alice@example.org>", "mallory@example.org", "*"], &certs);
        let address = name("alice@example.org");
        assert_eq!(b.of(&address), fpr.as_slice());
        assert!(!b.names(&address, "openpgp", &fpr[1], &mallory), "Mallory's binding of Alice's address");
        assert!(!b.names(&address, "openpgp", &fpr[0], &alice), "nor Alice's own, since another binds it");
        let why = b.why_not(&address, "openpgp", &fpr[1], &mallory).expect("a reason");
        assert!(
            why.starts_with("`alice@example.org` is bound by 2 certificates of the OpenPGP trust ("),
            "{why}"
        );
        assert!(
            why.contains(&fpr[0]) && why.contains(&fpr[1]) && why.contains("by its fingerprint"),
            "{why}"
        );
        // A user id only one certificate binds, a fingerprint and `*` name as before.
        assert!(b.names(&name("Alice <alice@example.org>"), "openpgp", &fpr[0], &alice));
        assert!(b.names(&name("mallory@example.org"), "openpgp", &fpr[1], &mallory));
        assert!(b.names(&name(&fpr[0].to_lowercase()), "openpgp", &fpr[0], &alice));
        assert!(b.names(&name("*"), "openpgp", &fpr[1], &mallory));
        assert_eq!(b.why_not(&name("mallory@example.org"), "openpgp", &fpr[1], &mallory), None);
        // The trust file's writer gives an SSH key its principals.
        assert!(b.names(&address, "ssh", "SHA256:alice", &["alice@example.org".to_owned()]));
        let rule = VerifierPolicy::parse(
            b"version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\nsigners = [\"alice@example.org\", \"mallory@example.org\"]\n",
            "policy.toml",
        )
        .expect("a valid policy");
        let shared = b.shared_in(rule.rules().next().expect("a rule"));
        assert_eq!(shared, [("alice@example.org", fpr.as_slice())]);
    }

    #[test]
    fn a_user_id_spelling_another_certificates_fingerprint_names_only_that_certificate() {
        let alice = cert(&["Alice <alice@example.org>"]);
        let alices = alice.fingerprint().to_hex();
        let (certs, fpr) = trust_of(&[alice, cert(&["Mallory <mallory@example.org>", &alices])]);
        let b = binders(&[&alices], &certs);
        let mallory = vec!["Mallory <mallory@example.org>".to_owned(), alices.clone()];
        assert!(!b.names(&name(&alices), "openpgp", &fpr[1], &mallory));
        assert!(b.names(&name(&alices), "openpgp", &fpr[0], &["Alice <alice@example.org>".to_owned()]));
    }

    #[test]
    fn an_address_a_certificate_bound_once_still_counts_as_bound_by_it_though_the_binding_expired() {
        // Alice's binding expired; a signature dated before it expired still carries her address.
        let alice = with_expired_user_id(&cert(&["Alice <alice@home.example>"]), "Alice <alice@example.org>");
        let (certs, fpr) = trust_of(&[alice, cert(&["M. <alice@example.org>"])]);
        assert!(!certs.user_ids().contains(&"Alice <alice@example.org>".to_owned()), "not bound now");
        let b = binders(&["alice@example.org"], &certs);
        assert_eq!(b.of(&name("alice@example.org")), fpr.as_slice());
        assert!(!b.names(
            &name("alice@example.org"),
            "openpgp",
            &fpr[1],
            &["M. <alice@example.org>".to_owned()]
        ));
    }
}
