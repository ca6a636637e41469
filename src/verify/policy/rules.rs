//! One rule of a verifier policy held against one row's signed evidence: each key the rule sets,
//! in the order docs/policy.md lists them, each failing key one finding. A key whose field the
//! note lacks fails (`policy_evidence`), never passes.

use crate::check::approvals::{counted, described, may_be_one};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::check::signatures::{LineSigners, Maker, Refused, SignerInfo};
use crate::model::test_result::{Phase, TestOutcome};
use crate::model::verifier_policy::{Principal, Rule};
use crate::verify::policy::binders::Binders;
use crate::verify::policy::evidence::SignedEvidence;

/// The finding codes a policy adds, each failing the row it is on.
pub mod code {
    /// The covering line is signed by no one the rule's `signers` names.
    pub const SIGNER: &str = "policy_signer";
    /// The signed verdict is not one of the rule's `verdicts`.
    pub const VERDICT: &str = "policy_verdict";
    /// A phase of the rule's `phases` is absent or did not hold.
    pub const PHASE: &str = "policy_phase";
    /// Fewer approvals than the rule's `approvals.count`.
    pub const APPROVAL: &str = "policy_approval";
    /// A signed field the rule asks about is absent or below its threshold.
    pub const EVIDENCE: &str = "policy_evidence";
    /// Carried evidence where the rule says `carried = false`.
    pub const CARRIED: &str = "policy_carried";
    /// A skip where the rule says `skips = false`.
    pub const SKIP: &str = "policy_skip";
    /// No rule matches the row's unit.
    pub const NO_RULE: &str = "policy_no_rule";
    /// The unit's name may pass for another's (`model::verifier_policy::lookalike`: a word
    /// mixing scripts, a character outside Unicode's identifier characters, a part that reads as
    /// ASCII text it is not), so no rule is trusted to be the one it seems to match.
    pub const MIXED_SCRIPT: &str = "policy_mixed_script";
}

/// A finding of the policy: it decides nothing about the commit, and fails the row.
fn finding(code: &'static str, rule: &Rule, message: String) -> Finding {
    Finding::new(CommitOutcome::Ok, code, format!("rule `{}`: {message}", rule.name))
}

/// What `rule` finds wrong with a row whose signed evidence is `ev`, its names matched to
/// signers as `binders` tells them; `skip`: the row is a skip, judged by `skips` instead of
/// `verdicts`, and by every other key as any row: it signs no test run and no measurement, so a
/// rule that asks for one refuses it.
#[must_use]
pub fn judge(rule: &Rule, ev: &SignedEvidence, skip: bool, binders: &Binders) -> Vec<Finding> {
    let mut out = Vec::new();
    signers_and_approvals(rule, ev, binders, &mut out);
    if skip && rule.skips == Some(false) {
        out.push(finding(code::SKIP, rule, "a skip does not count for this unit".into()));
    }
    if let (false, Some(allowed), Some(verdict)) = (skip, &rule.verdicts, ev.verdict)
        && !allowed.contains(&verdict)
    {
        let list: Vec<&str> = allowed.iter().map(|v| v.as_str()).collect();
        out.push(
            finding(code::VERDICT, rule, format!("the signed verdict is {}", verdict.as_str()))
                .expected_found(list.join(" | "), verdict.as_str()),
        );
    }
    for phase in rule.phases.iter().flatten() {
        if let Some((expected, found)) = phase_problem(*phase, ev) {
            out.push(
                finding(code::PHASE, rule, format!("the {} phase does not hold", phase.as_str()))
                    .expected_found(expected, found),
            );
        }
    }
    if rule.carried == Some(false) && ev.carried {
        out.push(finding(
            code::CARRIED,
            rule,
            "the evidence was re-issued by `attest carry`, which this rule does not accept; attest the task again".into(),
        ));
    }
    evidence(rule, ev, &mut out);
    out
}

/// `signers`, met by whoever made the tick ([`Maker`], told from what was signed), and
/// `approvals` counted from the covering line's other signers: an approval never stands in for
/// the tick's own signer, and the tick's signer never counts as an approver. Where the maker
/// cannot be told, `signers` fails and `approvals` counts what holds whichever of the possible
/// makers made it. A name that more than one certificate of the OpenPGP trust binds names none
/// of them ([`Binders::names`]), and the finding says so.
fn signers_and_approvals(rule: &Rule, ev: &SignedEvidence, binders: &Binders, out: &mut Vec<Finding>) {
    let names = |list: &[Principal], s: &SignerInfo| {
        list.iter().any(|p| binders.names(p, s.kind, &s.key, &s.principals))
    };
    let maker = &ev.covering.maker;
    if let Some(list) = &rule.signers
        && !matches!(maker, Maker::Known(m) if names(list, m))
    {
        let wanted: Vec<&str> = list.iter().map(Principal::as_str).collect();
        let shared = match maker {
            Maker::Known(m) => shared_names(list, std::slice::from_ref(m), binders),
            Maker::Several(_) | Maker::Unknown => String::new(),
        };
        out.push(
            finding(code::SIGNER, rule, format!("{}{shared}", not_made_by_them(maker, ev.carried)))
                .expected_found(wanted.join(", "), describe_maker(&ev.covering)),
        );
        return;
    }
    let Some(approvals) = &rule.approvals else { return };
    let by = approvals.by.as_deref();
    let every = &ev.covering.every;
    let counted = counted(&ev.covering, |s| by.is_none_or(|by| names(by, s)));
    if counted < approvals.count.0 as usize {
        let who = by.map_or_else(
            || "anyone the trust accepts".to_owned(),
            |by| by.iter().map(Principal::as_str).collect::<Vec<_>>().join(", "),
        );
        let against = match maker {
            Maker::Known(_) => String::new(),
            _ => {
                " (counted against each signer who may have made the tick, as nothing signed tells which did)"
                    .to_owned()
            }
        };
        let shared = by.map(|by| shared_names(by, every, binders)).unwrap_or_default();
        let refused = refused_approvals(&ev.covering, |s| by.is_none_or(|by| names(by, s)));
        let what_to_do = what_to_do(&refused);
        out.push(
            finding(
                code::APPROVAL,
                rule,
                format!("{counted} approval(s) by {who} on the covering line{against}; {what_to_do}{shared}"),
            )
            .expected_found(approvals.count.0.to_string(), counted.to_string()),
        );
    }
}

/// The signatures of the covering line `covering` by keys the trust does not accept that would
/// be approvals but for that: by none of the people who may have made the tick, and by someone
/// `counts` (the rule's `by`) names, or whom no entry of the trust names at all (a new key of a
/// named approver is such a key). Each key once.
fn refused_approvals(covering: &LineSigners, counts: impl Fn(&SignerInfo) -> bool) -> Vec<&Refused> {
    let makers = covering.maker.possible(&covering.every);
    let mut out: Vec<&Refused> = Vec::new();
    for r in &covering.refused {
        let candidate = !makers.iter().any(|m| may_be_one(m, &r.claimed))
            && (r.claimed.principals.is_empty() || counts(&r.claimed));
        if candidate
            && !out.iter().any(|o| o.claimed.kind == r.claimed.kind && o.claimed.key == r.claimed.key)
        {
            out.push(r);
        }
    }
    out
}

/// How to meet `approvals` when the approvals the covering line carries fall short: approve, or,
/// when it carries signatures the trust does not accept (`refused`), which approving again with
/// the same key cannot help, who made each and why the trust refuses it, and what does help.
fn what_to_do(refused: &[&Refused]) -> String {
    const ADD: &str = "approve with a key your trust accepts (`speccoder attest approve <commit>`)";
    const RENEW: &str = "renew or correct its entry in your trust (an allowed-signers line's valid-before, valid-after or namespaces, a line for a key none lists, an OpenPGP certificate's expiry) and verify again";
    if refused.is_empty() {
        return "add them with `speccoder attest approve <commit>`".to_owned();
    }
    let each: Vec<String> = refused
        .iter()
        .map(|r| format!("{}: {} ({})", described(&r.claimed), r.why.message, r.why.code))
        .collect();
    let revoked = refused.iter().any(|r| r.why.code == REVOKED);
    let renewable = refused.iter().any(|r| r.why.code != REVOKED);
    let help = match (renewable, revoked) {
        (true, false) => format!("if you still trust the key, {RENEW}, or {ADD}"),
        (false, _) => format!("a revoked key never counts again: {ADD}"),
        (true, true) => {
            format!(
                "a revoked key never counts again; if you still trust a key that is not revoked, {RENEW}; or {ADD}"
            )
        }
    };
    format!(
        "it also carries {} approval signature(s) your trust does not accept, which never count: {}; approving again with the same key cannot help: {help}",
        refused.len(),
        each.join("; "),
    )
}

/// The code of a signature by a key a revocation names.
const REVOKED: &str = "revoked_key";

/// Why the names of `list` name none of `signers` that they would name but for another
/// certificate binding them too ([`Binders::why_not`]): `; ` and each reason, once; empty when
/// there is none.
fn shared_names(list: &[Principal], signers: &[SignerInfo], binders: &Binders) -> String {
    let mut why: Vec<String> = Vec::new();
    for reason in list
        .iter()
        .flat_map(|p| signers.iter().filter_map(|s| binders.why_not(p, s.kind, &s.key, &s.principals)))
    {
        if !why.contains(&reason) {
            why.push(reason);
        }
    }
    why.iter().map(|w| format!("; {w}")).collect()
}

/// Why a tick meets no `signers`: its maker is not one of them, or cannot be told; `carried`:
/// its evidence was re-issued by `attest carry`, whose maker is whoever re-issued it.
fn not_made_by_them(maker: &Maker, carried: bool) -> String {
    match (maker, carried) {
        (Maker::Known(_), false) => "the tick was not made by a signer the rule accepts".into(),
        (Maker::Known(_), true) => "the tick was not made by a signer the rule accepts: its evidence was re-issued by `attest carry`, and carried evidence (a decision too) is made by whoever re-issued it, not by whoever attested or decided it before; name the carrier in `signers`, or have someone the rule accepts untick the task in a new commit and attest or decide it again".into(),
        (Maker::Several(_), false) => "who made the tick cannot be told from what was signed: several trusted signers signed all it signed (a decision: its `by` names none of them, or several; or one OpenPGP key that several certificates of your trust bind made the signatures); the rule never picks one. Have its maker record it again (a decision: with `--by` giving the address of the signer's principal), or, for a key several certificates bind, remove the wrong binding from the trust".into(),
        (Maker::Several(_), true) => "who re-issued the carried evidence cannot be told from what was signed: several trusted signers signed all it signed (a carried decision that was approved: nothing signed names its carrier, whom its `by` does not name); the rule never picks one. Untick the task in a new commit and attest or decide it again".into(),
        (Maker::Unknown, _) => "no trusted signer of the covering line made the tick: none signed the note's other lines too (a decision made on its own commit: its `by` names none of its signers), so someone outside the trust made it, or the note was changed after it was made".into(),
    }
}

/// Who made a line, for a message: its maker, or why it has none.
fn describe_maker(signers: &LineSigners) -> String {
    match (&signers.maker, signers.every.as_slice()) {
        (Maker::Known(maker), _) => describe(std::slice::from_ref(maker)),
        (Maker::Several(some), _) => format!("one of {}, untold", describe(some)),
        (Maker::Unknown, []) => "no trusted signature".into(),
        (Maker::Unknown, approvers) => {
            format!("no trusted maker (the covering line signed by {})", describe(approvers))
        }
    }
}

/// The signers of a line, for a message.
fn describe(signers: &[SignerInfo]) -> String {
    if signers.is_empty() {
        return "no trusted signature".into();
    }
    let each: Vec<String> = signers
        .iter()
        .map(|s| match s.principals.as_slice() {
            [] => format!("{} key {}", s.kind, s.key),
            p => p.join(" / "),
        })
        .collect();
    each.join(", ")
}

/// Why `phase` does not hold in `ev`: `(expected, found)`; `None` when it holds.
fn phase_problem(phase: Phase, ev: &SignedEvidence) -> Option<(String, String)> {
    let Some(run) = ev.runs.iter().find(|r| r.phase == phase) else {
        return Some(("a signed run".into(), "none".into()));
    };
    let holds = match phase {
        // Red fails by definition (the rules of agreement check it); the rule asks it ran.
        Phase::Red => return None,
        Phase::Baseline | Phase::Green => run.result == TestOutcome::Passed,
        Phase::HeldOut => {
            run.result == TestOutcome::Passed && run.counts.is_some_and(|(p, t)| p == t && t > 0)
        }
    };
    if holds {
        return None;
    }
    let counts = run.counts.map(|(p, t)| format!(" passed={p}/{t}")).unwrap_or_default();
    let expected = if phase == Phase::HeldOut { "PASSED with passed=total > 0" } else { "PASSED" };
    Some((expected.into(), format!("{}{counts}", run.result.as_str())))
}

/// `min_mutation_score`, `min_strength`, `monitor` and `sandbox`.
fn evidence(rule: &Rule, ev: &SignedEvidence, out: &mut Vec<Finding>) {
    let mut fail = |what: &str, expected: String, found: String| {
        out.push(finding(code::EVIDENCE, rule, what.to_owned()).expected_found(expected, found));
    };
    if let Some(min) = rule.min_mutation_score {
        match mutation_score(ev.mutation) {
            None => fail(
                "the note signs no mutation score (mutation.caught, mutation.missed)",
                format!(">= {}", min.0),
                "none".into(),
            ),
            Some((score, caught, missed)) if score < min.0 => fail(
                "the signed mutation score is below the rule's",
                format!(">= {}", min.0),
                format!("{score:.4} (caught {caught}, missed {missed})"),
            ),
            Some(_) => {}
        }
    }
    if let Some(min) = rule.min_strength {
        match ev.strength {
            None => fail("the note signs no strength.combined.share", format!(">= {}", min.0), "none".into()),
            Some(share) if share < min.0 => {
                fail("the signed strength is below the rule's", format!(">= {}", min.0), share.to_string());
            }
            Some(_) => {}
        }
    }
    if let Some(states) = &rule.monitor {
        let wanted: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
        check_one_of(ev.monitor.as_deref(), &wanted, "monitor.state", &mut fail);
    }
    if let Some(modes) = &rule.sandbox {
        let wanted: Vec<&str> = modes.iter().map(|m| m.0.as_str()).collect();
        check_one_of(ev.sandbox.as_deref(), &wanted, "sandbox.mode", &mut fail);
    }
}

/// A signed string field that must be one of `wanted`.
fn check_one_of(
    value: Option<&str>,
    wanted: &[&str],
    name: &str,
    fail: &mut impl FnMut(&str, String, String),
) {
    match value {
        None => fail(&format!("the note signs no {name}"), wanted.join(" | "), "none".into()),
        Some(found) if !wanted.contains(&found) => {
            fail(&format!("the signed {name} is not one the rule accepts"), wanted.join(" | "), found.into());
        }
        Some(_) => {}
    }
}

/// `caught / (caught + missed)` of signed counts, with both; `None` without counts, or with none
/// at all (no mutant, no score).
fn mutation_score(counts: Option<(u64, u64)>) -> Option<(f64, u64, u64)> {
    let (caught, missed) = counts?;
    let total = caught.checked_add(missed).filter(|t| *t > 0)?;
    #[allow(clippy::cast_precision_loss, reason = "a ratio of counts far below 2^52")]
    Some((caught as f64 / total as f64, caught, missed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::predicate::Verdict;
    use crate::model::verifier_policy::VerifierPolicy;
    use crate::sign::openpgp::OpenPgpCerts;
    use crate::verify::policy::evidence::SignedRun;
    use crate::verify::policy::test_support::{cert, trust_of};

    /// [`super::judge`] under an OpenPGP trust in which no name is bound by two certificates.
    fn judge(rule: &Rule, ev: &SignedEvidence, skip: bool) -> Vec<Finding> {
        super::judge(rule, ev, skip, &Binders::default())
    }

    /// The one rule of a policy whose `[[rule]]` body is `body`.
    fn rule(body: &str) -> Rule {
        let text = format!("version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\n{body}\n");
        let policy = VerifierPolicy::parse(text.as_bytes(), "policy.toml").expect("a valid rule");
        policy.rules().next().expect("one rule").clone()
    }

    fn ssh(key: &str, principals: &[&str]) -> SignerInfo {
        SignerInfo {
            kind: "ssh",
            key: key.into(),
            principals: principals.iter().map(|p| (*p).into()).collect(),
        }
    }

    fn run(phase: Phase, result: TestOutcome, counts: Option<(u64, u64)>) -> SignedRun {
        SignedRun { phase, result, counts }
    }

    fn codes(findings: &[Finding]) -> Vec<&'static str> {
        findings.iter().map(|f| f.code).collect()
    }

    /// The signers of a line `maker` made, nobody approving it yet.
    fn made_by(maker: SignerInfo) -> LineSigners {
        LineSigners { maker: Maker::Known(maker.clone()), every: vec![maker], refused: Vec::new() }
    }

    /// Evidence of a verified tick by alice with a green run.
    fn alices_tick() -> SignedEvidence {
        SignedEvidence {
            verdict: Some(Verdict::Verified),
            runs: vec![run(Phase::Green, TestOutcome::Passed, None)],
            covering: made_by(ssh("SHA256:alice", &["alice@example.org"])),
            ..SignedEvidence::default()
        }
    }

    #[test]
    fn a_rule_that_sets_no_key_finds_nothing() {
        assert!(judge(&rule(""), &alices_tick(), false).is_empty());
    }

    #[test]
    fn a_signer_the_rule_does_not_name_fails_the_row_and_names_who_signed() {
        let found = judge(&rule(r#"signers = ["bob@example.org"]"#), &alices_tick(), false);
        assert_eq!(codes(&found), [code::SIGNER]);
        assert_eq!(found[0].expected.as_deref(), Some("bob@example.org"));
        assert_eq!(found[0].found.as_deref(), Some("alice@example.org"));
    }

    #[test]
    fn the_star_names_every_trusted_signer_and_no_untrusted_line() {
        assert!(judge(&rule(r#"signers = ["*"]"#), &alices_tick(), false).is_empty());
        let unsigned = SignedEvidence { covering: LineSigners::default(), ..alices_tick() };
        let found = judge(&rule(r#"signers = ["*"]"#), &unsigned, false);
        assert_eq!(codes(&found), [code::SIGNER]);
        assert_eq!(found[0].found.as_deref(), Some("no trusted signature"));
    }

    #[test]
    fn nobody_approves_their_own_tick_with_a_second_key() {
        let mut ev = alices_tick();
        ev.covering.every.push(ssh("SHA256:alice-laptop", &["alice@example.org"]));
        let found = judge(&rule("approvals = { count = 1 }"), &ev, false);
        assert_eq!(codes(&found), [code::APPROVAL]);
        assert_eq!((found[0].expected.as_deref(), found[0].found.as_deref()), (Some("1"), Some("0")));
    }

    #[test]
    fn one_principal_approving_with_two_keys_counts_once() {
        let mut ev = alices_tick();
        ev.covering.every.push(ssh("SHA256:bob-1", &["bob@example.org"]));
        ev.covering.every.push(ssh("SHA256:bob-2", &["bob@example.org"]));
        assert_eq!(codes(&judge(&rule("approvals = { count = 2 }"), &ev, false)), [code::APPROVAL]);
        assert!(judge(&rule("approvals = { count = 1 }"), &ev, false).is_empty());
    }

    #[test]
    fn nobody_approves_their_own_tick_with_a_key_the_trust_lets_sign_as_them_through_a_pattern() {
        for pattern in ["alice@*", "*", "alice@example.or?", "*@example.org"] {
            let mut ev = alices_tick();
            ev.covering.every.push(ssh("SHA256:alice-2", &[pattern]));
            let found = judge(&rule("approvals = { count = 1 }"), &ev, false);
            assert_eq!(codes(&found), [code::APPROVAL], "{pattern}");
            assert_eq!(found[0].found.as_deref(), Some("0"), "{pattern}");
        }
        let mut ev = alices_tick();
        ev.covering.every.push(ssh("SHA256:bob", &["bob@*"]));
        assert!(judge(&rule("approvals = { count = 1 }"), &ev, false).is_empty(), "bob@* is never alice");
    }

    #[test]
    fn a_pattern_principal_and_a_principal_it_matches_approve_once_and_the_pattern_meets_no_by_name() {
        let mut ev = alices_tick();
        ev.covering.every.push(ssh("SHA256:bob-1", &["bob@example.org"]));
        ev.covering.every.push(ssh("SHA256:bob-2", &["bob@*"]));
        let found = judge(&rule("approvals = { count = 2 }"), &ev, false);
        assert_eq!((codes(&found), found[0].found.as_deref()), (vec![code::APPROVAL], Some("1")));
        assert!(judge(&rule("approvals = { count = 1 }"), &ev, false).is_empty());
        // A name in `by` is met by a principal as written: a pattern that matches it does not.
        let mut ev = alices_tick();
        ev.covering.every.push(ssh("SHA256:bob-2", &["bob@*"]));
        let by_bob = rule(r#"approvals = { count = 1, by = ["bob@example.org"] }"#);
        assert_eq!(codes(&judge(&by_bob, &ev, false)), [code::APPROVAL]);
    }

    fn openpgp(key: &str, user_ids: &[&str]) -> SignerInfo {
        SignerInfo { kind: "openpgp", ..ssh(key, user_ids) }
    }

    #[test]
    fn nobody_approves_their_own_tick_with_a_second_certificate_of_their_address() {
        let by = r#"approvals = { count = 1, by = ["alice@example.org", "bob@example.org"] }"#;
        let mut ev = SignedEvidence {
            covering: made_by(openpgp("AAAA", &["Alice <alice@example.org>"])),
            ..alices_tick()
        };
        ev.covering.every.push(openpgp("BBBB", &["A. Lovelace <alice@example.org>"]));
        let rule = rule(&format!("signers = [\"alice@example.org\"]\n{by}"));
        assert_eq!(codes(&judge(&rule, &ev, false)), [code::APPROVAL]);
    }

    #[test]
    fn an_openpgp_key_of_the_authors_ssh_principal_is_the_author_too() {
        let mut ev = alices_tick();
        ev.covering.every.push(openpgp("AAAA", &["Alice <alice@example.org>"]));
        assert_eq!(codes(&judge(&rule("approvals = { count = 1 }"), &ev, false)), [code::APPROVAL]);
    }

    #[test]
    fn two_certificates_whose_user_ids_differ_only_in_the_name_approve_once() {
        let mut ev = alices_tick();
        ev.covering.every.push(openpgp("B1", &["Bob <bob@example.org>"]));
        ev.covering.every.push(openpgp("B2", &["Robert <bob@example.org>"]));
        assert_eq!(codes(&judge(&rule("approvals = { count = 2 }"), &ev, false)), [code::APPROVAL]);
        assert!(judge(&rule("approvals = { count = 1 }"), &ev, false).is_empty());
    }

    #[test]
    fn an_approval_counts_only_from_someone_the_rule_names_in_by() {
        let mut ev = alices_tick();
        ev.covering.every.push(ssh("SHA256:carol", &["carol@example.org"]));
        let by_bob = r#"approvals = { count = 1, by = ["bob@example.org"] }"#;
        assert_eq!(codes(&judge(&rule(by_bob), &ev, false)), [code::APPROVAL]);
        ev.covering.every.push(ssh("SHA256:bob", &["bob@example.org"]));
        assert!(judge(&rule(by_bob), &ev, false).is_empty());
    }

    /// A signature on the covering line by `claimed` that the trust refused with `code`.
    fn refused(claimed: SignerInfo, code: &'static str) -> Refused {
        let why = Finding::new(CommitOutcome::UntrustedSigner, code, format!("{} refused", claimed.key));
        Refused { claimed, why }
    }

    #[test]
    fn an_approval_the_trust_refuses_is_named_with_why_and_approving_again_is_not_advised() {
        let by_bob = rule(r#"approvals = { count = 1, by = ["bob@example.org"] }"#);
        let mut ev = alices_tick();
        let found = judge(&by_bob, &ev, false);
        assert!(
            found[0].message.ends_with("; add them with `speccoder attest approve <commit>`"),
            "{found:?}"
        );
        ev.covering.refused.push(refused(ssh("SHA256:bob", &["bob@example.org"]), "untrusted_signer"));
        let found = judge(&by_bob, &ev, false);
        assert_eq!(codes(&found), [code::APPROVAL]);
        assert_eq!((found[0].expected.as_deref(), found[0].found.as_deref()), (Some("1"), Some("0")));
        let said = &found[0].message;
        assert!(
            said.contains("it also carries 1 approval signature(s) your trust does not accept, which never count: bob@example.org (ssh key SHA256:bob): SHA256:bob refused (untrusted_signer); approving again with the same key cannot help: if you still trust the key, renew"),
            "{said}"
        );
        assert!(!said.contains("add them with"), "{said}");
        // A revoked key never counts again; a key no principal names may be the approver's new one.
        ev.covering.refused = vec![
            refused(ssh("SHA256:bob", &["bob@example.org"]), "revoked_key"),
            refused(ssh("SHA256:new", &[]), "untrusted_signer"),
        ];
        let said = judge(&by_bob, &ev, false).remove(0).message;
        assert!(said.contains("carries 2 approval signature(s)"), "{said}");
        assert!(said.contains("ssh key SHA256:new, named by no principal of your trust: "), "{said}");
        assert!(
            said.contains("a revoked key never counts again; if you still trust a key that is not revoked"),
            "{said}"
        );
    }

    #[test]
    fn a_refused_signature_by_the_maker_or_someone_by_does_not_name_is_no_approval_to_speak_of() {
        let by_bob = rule(r#"approvals = { count = 1, by = ["bob@example.org"] }"#);
        let mut ev = alices_tick();
        ev.covering
            .refused
            .push(refused(ssh("SHA256:alice-old", &["alice@example.org"]), "untrusted_signer"));
        ev.covering.refused.push(refused(ssh("SHA256:carol", &["carol@example.org"]), "untrusted_signer"));
        let said = judge(&by_bob, &ev, false).remove(0).message;
        assert!(said.ends_with("add them with `speccoder attest approve <commit>`"), "{said}");
    }

    #[test]
    fn an_approval_by_a_named_signer_never_stands_in_for_the_signer_who_made_the_tick() {
        let rule = rule("signers = [\"alice@example.org\", \"bob@example.org\"]\napprovals = { count = 1 }");
        let mut ev = SignedEvidence {
            covering: made_by(ssh("SHA256:carol", &["carol@example.org"])),
            ..alices_tick()
        };
        ev.covering.every.push(ssh("SHA256:alice", &["alice@example.org"]));
        ev.covering.every.push(ssh("SHA256:bob", &["bob@example.org"]));
        let found = judge(&rule, &ev, false);
        assert_eq!(codes(&found), [code::SIGNER]);
        assert_eq!(found[0].found.as_deref(), Some("carol@example.org"));
    }

    #[test]
    fn the_signer_who_made_the_tick_never_counts_as_the_approval_of_a_named_approver() {
        let rule = rule("signers = [\"bob@example.org\"]\napprovals = { count = 1 }");
        let mut ev = SignedEvidence {
            covering: made_by(ssh("SHA256:carol", &["carol@example.org"])),
            ..alices_tick()
        };
        ev.covering.every.push(ssh("SHA256:bob", &["bob@example.org"]));
        assert_eq!(codes(&judge(&rule, &ev, false)), [code::SIGNER]);
    }

    #[test]
    fn a_tick_no_trusted_signer_made_meets_no_signers_rule() {
        let approved_only = LineSigners {
            maker: Maker::Unknown,
            every: vec![ssh("SHA256:alice", &["alice@example.org"])],
            refused: Vec::new(),
        };
        let ev = SignedEvidence { covering: approved_only, ..alices_tick() };
        let found = judge(&rule(r#"signers = ["*"]"#), &ev, false);
        assert_eq!(codes(&found), [code::SIGNER]);
        assert_eq!(
            found[0].found.as_deref(),
            Some("no trusted maker (the covering line signed by alice@example.org)")
        );
        assert!(found[0].message.contains("none signed the note's other lines too"), "{found:?}");
    }

    #[test]
    fn a_tick_whose_maker_cannot_be_told_meets_no_signers_rule_even_when_every_candidate_is_named() {
        let (alice, bob) =
            (ssh("SHA256:alice", &["alice@example.org"]), ssh("SHA256:bob", &["bob@example.org"]));
        let both = vec![alice, bob];
        let ev = SignedEvidence {
            covering: LineSigners { maker: Maker::Several(both.clone()), every: both, refused: Vec::new() },
            ..alices_tick()
        };
        let found = judge(&rule(r#"signers = ["alice@example.org", "bob@example.org"]"#), &ev, false);
        assert_eq!(codes(&found), [code::SIGNER]);
        assert_eq!(found[0].found.as_deref(), Some("one of alice@example.org, bob@example.org, untold"));
    }

    #[test]
    fn approvals_of_a_tick_whose_maker_cannot_be_told_count_against_each_possible_maker() {
        let (alice, bob) =
            (ssh("SHA256:alice", &["alice@example.org"]), ssh("SHA256:bob", &["bob@example.org"]));
        let carol = ssh("SHA256:carol", &["carol@example.org"]);
        let by_bob = rule(r#"approvals = { count = 1, by = ["bob@example.org"] }"#);
        for maker in [Maker::Unknown, Maker::Several(vec![alice.clone(), bob.clone()])] {
            for every in [vec![alice.clone(), bob.clone()], vec![bob.clone(), alice.clone()]] {
                let ev = SignedEvidence {
                    covering: LineSigners { maker: maker.clone(), every, refused: Vec::new() },
                    ..alices_tick()
                };
                // Bob may have made it: his signature is no approval of his own tick.
                let found = judge(&by_bob, &ev, false);
                assert_eq!(codes(&found), [code::APPROVAL], "{maker:?}");
                assert!(found[0].message.contains("counted against each signer"), "{found:?}");
                // Whichever of the two made it, the other approved it.
                assert!(judge(&rule("approvals = { count = 1 }"), &ev, false).is_empty(), "{maker:?}");
            }
        }
        let three = vec![alice.clone(), bob, carol];
        let ev = SignedEvidence {
            covering: LineSigners { maker: Maker::Several(vec![alice]), every: three, refused: Vec::new() },
            ..alices_tick()
        };
        assert!(judge(&rule("approvals = { count = 2 }"), &ev, false).is_empty());
    }

    #[test]
    fn a_certificate_whose_address_differs_only_in_case_is_the_author_and_approves_nothing() {
        let mut ev = alices_tick();
        ev.covering.every.push(openpgp("AAAA", &["Alice <ALICE@Example.ORG>"]));
        assert_eq!(
            codes(&judge(&rule("approvals = { count = 1, by = [\"*\"] }"), &ev, false)),
            [code::APPROVAL]
        );
        let mut bobs = alices_tick();
        bobs.covering.every.push(openpgp("B1", &["Bob <bob@example.org>"]));
        bobs.covering.every.push(ssh("SHA256:bob", &["BOB@example.org"]));
        assert_eq!(codes(&judge(&rule("approvals = { count = 2 }"), &bobs, false)), [code::APPROVAL]);
    }

    /// Alice's certificate, Mallory's binding Alice's address too, and Bob's: the trust, and
    /// each as a signer.
    fn alice_mallory_and_bob() -> (OpenPgpCerts, [SignerInfo; 3]) {
        let user_ids: [&[&str]; 3] = [
            &["Alice <alice@example.org>"],
            &["Mallory <mallory@example.org>", "M. <alice@example.org>"],
            &["Bob <bob@example.org>"],
        ];
        let (certs, fpr) = trust_of(&user_ids.map(cert));
        let signer = |i: usize| openpgp(&fpr[i], user_ids[i]);
        (certs, [signer(0), signer(1), signer(2)])
    }

    /// What `rule` (a rule's body) finds wrong with `ev` under the OpenPGP trust `certs`.
    fn judged_under(certs: &OpenPgpCerts, rule_body: &str, ev: &SignedEvidence) -> Vec<Finding> {
        let rule = rule(rule_body);
        super::judge(&rule, ev, false, &Binders::new([&rule], Some(certs)))
    }

    #[test]
    fn a_tick_by_a_certificate_binding_an_address_another_certificate_binds_meets_no_signers_naming_it() {
        let (certs, [alice, mallory, _]) = alice_mallory_and_bob();
        let bound = format!(
            "`alice@example.org` is bound by 2 certificates of the OpenPGP trust ({}, {})",
            alice.key, mallory.key
        );
        for maker in [&mallory, &alice] {
            let ev = SignedEvidence { covering: made_by(maker.clone()), ..alices_tick() };
            let found = judged_under(&certs, r#"signers = ["alice@example.org"]"#, &ev);
            assert_eq!(codes(&found), [code::SIGNER], "{maker:?}");
            assert!(found[0].message.contains(&bound), "{found:?}");
            assert!(
                found[0].message.contains("name the signer by its fingerprint in the policy"),
                "{found:?}"
            );
        }
        let ev = SignedEvidence { covering: made_by(alice.clone()), ..alices_tick() };
        assert!(judged_under(&certs, &format!("signers = [\"{}\"]", alice.key), &ev).is_empty());
    }

    #[test]
    fn an_approval_by_a_certificate_binding_an_address_another_certificate_binds_counts_for_no_by_naming_it()
    {
        let (certs, [alice, mallory, bob]) = alice_mallory_and_bob();
        let mut ev = SignedEvidence { covering: made_by(bob), ..alices_tick() };
        ev.covering.every.push(mallory);
        let found = judged_under(&certs, r#"approvals = { count = 1, by = ["alice@example.org"] }"#, &ev);
        assert_eq!(codes(&found), [code::APPROVAL]);
        assert!(found[0].message.contains("`alice@example.org` is bound by 2 certificates"), "{found:?}");
        // Alice's own approval counts when the rule names her by her fingerprint.
        ev.covering.every.push(alice.clone());
        let by_fingerprint = format!("approvals = {{ count = 1, by = [\"{}\"] }}", alice.key);
        assert!(judged_under(&certs, &by_fingerprint, &ev).is_empty());
    }

    #[test]
    fn a_verdict_the_rule_does_not_list_fails_the_row() {
        let ev = SignedEvidence { verdict: Some(Verdict::RegressionOnly), ..alices_tick() };
        let found = judge(&rule(r#"verdicts = ["verified"]"#), &ev, false);
        assert_eq!(codes(&found), [code::VERDICT]);
        assert_eq!(found[0].found.as_deref(), Some("regression_only"));
    }

    #[test]
    fn an_absent_phase_and_a_held_out_run_short_of_its_total_each_fail() {
        let mut ev = alices_tick();
        ev.runs.push(run(Phase::HeldOut, TestOutcome::Passed, Some((4, 5))));
        let found = judge(&rule(r#"phases = ["baseline", "green", "held_out"]"#), &ev, false);
        assert_eq!(codes(&found), [code::PHASE, code::PHASE]);
        assert_eq!(found[0].found.as_deref(), Some("none"));
        assert_eq!(found[1].found.as_deref(), Some("PASSED passed=4/5"));
    }

    #[test]
    fn a_held_out_run_of_no_tests_does_not_hold() {
        let mut ev = alices_tick();
        ev.runs.push(run(Phase::HeldOut, TestOutcome::Passed, Some((0, 0))));
        assert_eq!(codes(&judge(&rule(r#"phases = ["held_out"]"#), &ev, false)), [code::PHASE]);
    }

    #[test]
    fn a_field_the_note_does_not_sign_fails_and_never_passes() {
        let keys = "min_mutation_score = 0.5\nmin_strength = 0.5\nmonitor = [\"clean\"]\nsandbox = [\"vm\"]";
        let found = judge(&rule(keys), &alices_tick(), false);
        assert_eq!(codes(&found), [code::EVIDENCE; 4]);
        assert!(found.iter().all(|f| f.found.as_deref() == Some("none")), "{found:?}");
    }

    #[test]
    fn a_mutation_score_is_caught_over_caught_and_missed_and_no_mutant_is_no_score() {
        let scored = |caught, missed| SignedEvidence { mutation: Some((caught, missed)), ..alices_tick() };
        let min = rule("min_mutation_score = 0.8");
        assert!(judge(&min, &scored(4, 1), false).is_empty());
        let below = judge(&min, &scored(3, 1), false);
        assert_eq!(below[0].found.as_deref(), Some("0.7500 (caught 3, missed 1)"));
        assert_eq!(judge(&min, &scored(0, 0), false)[0].found.as_deref(), Some("none"));
    }

    #[test]
    fn signed_values_outside_the_rules_lists_fail() {
        let ev = SignedEvidence {
            strength: Some(0.5),
            monitor: Some("gaming".into()),
            sandbox: Some("none".into()),
            ..alices_tick()
        };
        let keys = "min_strength = 0.9\nmonitor = [\"clean\"]\nsandbox = [\"container\", \"vm\"]";
        let found = judge(&rule(keys), &ev, false);
        let got: Vec<_> = found.iter().map(|f| f.found.as_deref().unwrap_or_default()).collect();
        assert_eq!(got, ["0.5", "gaming", "none"]);
    }

    #[test]
    fn carried_evidence_fails_a_rule_that_refuses_it() {
        let ev = SignedEvidence { carried: true, ..alices_tick() };
        assert_eq!(codes(&judge(&rule("carried = false"), &ev, false)), [code::CARRIED]);
        assert!(judge(&rule("carried = true"), &ev, false).is_empty());
    }

    #[test]
    fn a_skip_is_judged_by_skips_instead_of_verdicts() {
        let skip = SignedEvidence { verdict: Some(Verdict::Skipped), runs: Vec::new(), ..alices_tick() };
        assert!(judge(&rule("verdicts = [\"verified\"]"), &skip, true).is_empty());
        assert_eq!(codes(&judge(&rule("skips = false"), &skip, true)), [code::SKIP]);
        let by_bob = rule(r#"signers = ["bob@example.org"]"#);
        assert_eq!(codes(&judge(&by_bob, &skip, true)), [code::SIGNER]);
    }

    #[test]
    fn a_skip_fails_a_rule_that_asks_for_a_phase_or_a_measurement_it_never_signs() {
        let skip = SignedEvidence { verdict: Some(Verdict::Skipped), runs: Vec::new(), ..alices_tick() };
        let strict =
            rule("phases = [\"green\"]\nmin_mutation_score = 0.9\nmin_strength = 0.9\nmonitor = [\"clean\"]");
        let found = judge(&strict, &skip, true);
        assert_eq!(codes(&found), [code::PHASE, code::EVIDENCE, code::EVIDENCE, code::EVIDENCE]);
        assert!(found.iter().all(|f| f.found.as_deref() == Some("none")), "{found:?}");
    }
}
