//! One rule of a verifier policy held against one row's signed evidence: each key the rule sets,
//! in the order docs/policy.md lists them, each failing key one finding. A key whose field the
//! note lacks fails (`policy_evidence`), never passes.

use crate::check::outcome::{CommitOutcome, Finding};
use crate::check::signatures::SignerInfo;
use crate::model::test_result::{Phase, TestOutcome};
use crate::model::verifier_policy::{Principal, Rule};
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
}

/// A finding of the policy: it decides nothing about the commit, and fails the row.
fn finding(code: &'static str, rule: &Rule, message: String) -> Finding {
    Finding::new(CommitOutcome::Ok, code, format!("rule `{}`: {message}", rule.name))
}

/// What `rule` finds wrong with a row whose signed evidence is `ev`; `skip`: the row is a skip
/// (judged by `signers`, `approvals` and `skips` only: it claims no test evidence).
#[must_use]
pub fn judge(rule: &Rule, ev: &SignedEvidence, skip: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    signers_and_approvals(rule, ev, &mut out);
    if skip {
        if rule.skips == Some(false) {
            out.push(finding(code::SKIP, rule, "a skip does not count for this unit".into()));
        }
        return out;
    }
    if let (Some(allowed), Some(verdict)) = (&rule.verdicts, ev.verdict)
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

/// `signers`, and `approvals` counted against the signer that met it.
fn signers_and_approvals(rule: &Rule, ev: &SignedEvidence, out: &mut Vec<Finding>) {
    let names =
        |list: &[Principal], s: &SignerInfo| list.iter().any(|p| p.names(s.kind, &s.key, &s.principals));
    let authors: Vec<&SignerInfo> = match &rule.signers {
        Some(list) => ev.covering_signers.iter().filter(|s| names(list, s)).collect(),
        None => ev.covering_signers.iter().collect(),
    };
    if let Some(list) = &rule.signers
        && authors.is_empty()
    {
        let wanted: Vec<&str> = list.iter().map(Principal::as_str).collect();
        out.push(
            finding(code::SIGNER, rule, "no signer of the covering line is one the rule accepts".into())
                .expected_found(wanted.join(", "), describe(&ev.covering_signers)),
        );
        return;
    }
    let Some(approvals) = &rule.approvals else { return };
    let by = approvals.by.as_deref();
    let counted = authors
        .iter()
        .map(|author| approvers(author, &ev.covering_signers, |s| by.is_none_or(|by| names(by, s))))
        .max()
        .unwrap_or(0);
    if counted < approvals.count.0 as usize {
        let who = by.map_or_else(
            || "anyone the trust accepts".to_owned(),
            |by| by.iter().map(Principal::as_str).collect::<Vec<_>>().join(", "),
        );
        out.push(
            finding(
                code::APPROVAL,
                rule,
                format!("{counted} approval(s) by {who} on the covering line; add them with `speccoder attest approve <commit>`"),
            )
            .expected_found(approvals.count.0.to_string(), counted.to_string()),
        );
    }
}

/// How many of `signers` approve what `author` signed: each a key other than the author's that
/// `counts`, sharing no principal with the author (nobody approves their own tick) nor with an
/// approver counted before it (one principal counts once).
fn approvers(author: &SignerInfo, signers: &[SignerInfo], counts: impl Fn(&SignerInfo) -> bool) -> usize {
    let shares = |a: &SignerInfo, b: &SignerInfo| {
        (a.kind == b.kind && a.key == b.key) || a.principals.iter().any(|p| b.principals.contains(p))
    };
    let mut taken: Vec<&SignerInfo> = vec![author];
    for s in signers {
        if counts(s) && !taken.iter().any(|t| shares(t, s)) {
            taken.push(s);
        }
    }
    taken.len() - 1
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
