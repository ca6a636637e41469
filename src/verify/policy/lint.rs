//! `attest policy check`: what a verifier policy's rules match today, for the person who writes
//! it. Each rule's units at HEAD (the first matching rule judges a unit), the principals it names
//! that no trust file given names or that several OpenPGP certificates bind, whether an earlier
//! rule shadows it; the units no rule matches; the units whose names may pass for another's; the
//! task lists that cannot be read; the places that hold ticks but are no unit's; and what the
//! baseline holds. Units and ticks are told as
//! `attest verify --branch --all` tells them.

use std::fmt::Write as _;

use gix::ObjectId;
use serde::Serialize;

use crate::check::signatures::SignerInfo;
use crate::check::trust::{SignatureTrust, TrustFiles};
use crate::git::{GitError, Head, Repo};
use crate::model::shown::{in_line, one_line};
use crate::model::verifier_policy::{ANY, LoadedPolicy, Rule, lookalike};
use crate::sign::openpgp::OpenPgpCerts;
use crate::spec;
use crate::verify::VerifyError;
use crate::verify::completeness;
use crate::verify::policy::TICKED_WITHOUT_EVIDENCE;
use crate::verify::policy::baseline::BaselineView;
use crate::verify::policy::binders::{Binders, shared_name};
use crate::verify::report::TickReport;
use crate::verify::run::{self, Planned};
use crate::verify::unread::{TASKS_UNREADABLE, is_place};

/// One rule, as it stands today.
#[derive(Debug, Clone, Serialize)]
pub struct RuleCheck {
    /// The rule's name.
    #[serde(serialize_with = "in_line")]
    pub name: String,
    /// The units of HEAD it judges (those it matches that no earlier rule takes).
    #[serde(serialize_with = "in_line")]
    pub units: Vec<String>,
    /// The units of HEAD it matches that an earlier rule takes.
    #[serde(serialize_with = "in_line")]
    pub taken_earlier: Vec<String>,
    /// The earlier rule that takes every unit it could ever match, if one does.
    #[serde(serialize_with = "in_line")]
    pub shadowed_by: Option<String>,
    /// Principals of `signers` and `approvals.by` that no trust file given names.
    #[serde(serialize_with = "in_line")]
    pub unknown_principals: Vec<String>,
    /// Principals of `signers` and `approvals.by` that more than one certificate of the OpenPGP
    /// trust binds: they name none of them.
    pub shared_principals: Vec<SharedPrincipal>,
}

/// A principal that more than one certificate of the OpenPGP trust binds.
#[derive(Debug, Clone, Serialize)]
pub struct SharedPrincipal {
    /// The principal, as the policy writes it.
    #[serde(serialize_with = "in_line")]
    pub principal: String,
    /// The primary key fingerprints of the certificates that bind it.
    pub certificates: Vec<String>,
}

/// A unit whose name may pass for another's.
#[derive(Debug, Clone, Serialize)]
pub struct LookalikeUnit {
    /// The unit's name.
    #[serde(serialize_with = "in_line")]
    pub unit: String,
    /// Why, in the words of its ticks' finding (`policy_mixed_script`).
    #[serde(serialize_with = "in_line")]
    pub why: String,
}

/// What the baseline holds today.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineCheck {
    /// The baseline commit.
    pub commit: String,
    /// Whether it is in the history of HEAD.
    pub in_history: bool,
    /// Why it holds nothing, in verify's words, when it is not: not in the history of HEAD, or
    /// no commit at all (a tree, a blob, an annotated tag), and what to write instead.
    #[serde(skip)]
    pub holds_none: Option<String>,
    /// The ticks of HEAD it holds (ticked there by hand, unchanged since, without a task commit).
    #[serde(serialize_with = "in_line")]
    pub holds: Vec<String>,
}

/// What `attest policy check` reports.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The policy's source.
    #[serde(serialize_with = "in_line")]
    pub source: String,
    /// The sha256 of its bytes.
    pub sha256: String,
    /// Each rule, in order.
    pub rules: Vec<RuleCheck>,
    /// Units of HEAD that no rule matches: their ticks fail with `policy_no_rule`.
    #[serde(serialize_with = "in_line")]
    pub unmatched_units: Vec<String>,
    /// Units of HEAD whose names may pass for another's: their ticks fail with
    /// `policy_mixed_script`, whatever rule they match.
    pub lookalike_units: Vec<LookalikeUnit>,
    /// The task lists of HEAD that cannot be read, each in verify's words: their ticks fail
    /// (`tasks_unreadable`), and none of them is counted here.
    #[serde(serialize_with = "in_line")]
    pub unreadable: Vec<String>,
    /// The places of HEAD that hold ticks but are no unit's (a task list in a directory whose name
    /// cannot be a unit's, or nested deeper than a unit), each in verify's words: their ticks fail
    /// (`not_a_unit`, `nested_project`), and no rule judges them.
    #[serde(serialize_with = "in_line")]
    pub not_units: Vec<String>,
    /// The baseline, when the policy has one.
    pub baseline: Option<BaselineCheck>,
    /// Whether trust files were given (without, every principal but `*` is unknown).
    pub trust_given: bool,
}

/// Checks `policy` against the units of HEAD, `known` (the trust files' principals, as
/// [`known_signers`] gives them) and `certs` (the OpenPGP trust's certificates).
///
/// A task list that cannot be read is named ([`CheckReport::unreadable`]) and the rest shown.
///
/// # Errors
/// An unborn branch, a repository that cannot be read.
pub fn check(
    repo: &Repo,
    policy: &LoadedPolicy,
    known: &[SignerInfo],
    certs: Option<&OpenPgpCerts>,
    trust_given: bool,
) -> Result<CheckReport, VerifyError> {
    let head = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => commit,
        Head::Unborn(name) => return Err(VerifyError::Unborn(name.to_string())),
    };
    let tree = repo.tree(repo.commit_tree(head)?);
    // The units verify checks, and each ticked box as its branch check plans it.
    let units: Vec<String> = spec::scan_units(&tree)?.units.into_iter().map(|u| u.name).collect();
    let (planned, setters) = run::planned_ticks(repo, head)?;
    let said =
        |row: &TickReport| row.findings.first().map_or_else(|| row.task.clone(), |f| f.message.clone());
    let unreadable = rows_with(&planned, TASKS_UNREADABLE).map(said).collect();
    let not_units = rows_where(&planned, is_place).map(said).collect();
    let rules: Vec<&Rule> = policy.policy.rules().collect();
    let binders = Binders::new(rules.iter().copied(), certs);
    // Each unit's judge, found once: a rule judges the units it is the first to match.
    let first: Vec<Option<usize>> = units.iter().map(|u| policy.policy.rule_for(u).map(|(i, _)| i)).collect();
    let mut checks = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let (mut judged, mut taken) = (Vec::new(), Vec::new());
        for (unit, first) in units.iter().zip(&first).filter(|(u, _)| rule.matches(u)) {
            if *first == Some(i) { judged.push(unit.clone()) } else { taken.push(unit.clone()) }
        }
        checks.push(RuleCheck {
            name: rule.name.0.clone(),
            units: judged,
            taken_earlier: taken,
            shadowed_by: rules[..i].iter().find(|e| shadows(e, rule)).map(|e| e.name.0.clone()),
            unknown_principals: unknown(rule, known),
            shared_principals: binders
                .shared_in(rule)
                .into_iter()
                .map(|(name, fprs)| SharedPrincipal {
                    principal: name.to_owned(),
                    certificates: fprs.to_vec(),
                })
                .collect(),
        });
    }
    let unmatched_units =
        units.iter().zip(&first).filter(|(_, first)| first.is_none()).map(|(u, _)| u.clone()).collect();
    let lookalike_units = units
        .iter()
        .filter_map(|u| lookalike(u).map(|l| LookalikeUnit { unit: u.clone(), why: l.to_string() }))
        .collect();
    let baseline = match &policy.policy.baseline {
        Some(b) => {
            let (view, warning) = BaselineView::new(repo, b, head, None);
            if warning.is_some() {
                baseline_not_cut_off(repo, &b.commit.0, head)?;
            }
            let hand = rows_with(&planned, TICKED_WITHOUT_EVIDENCE);
            let holds = hand
                .filter(|row| view.holds(&row.task, &setters).is_ok())
                .map(|row| row.task.clone())
                .collect();
            let commit = b.commit.0.clone();
            Some(BaselineCheck { commit, in_history: warning.is_none(), holds_none: warning, holds })
        }
        None => None,
    };
    Ok(CheckReport {
        source: policy.source.clone(),
        sha256: policy.sha256.clone(),
        rules: checks,
        unmatched_units,
        lookalike_units,
        unreadable,
        not_units,
        baseline,
        trust_given,
    })
}

/// Refuses, in a shallow clone, to tell the baseline `commit` out of the history of `head` when
/// it may lie beyond the boundary: it is no object here, or a commit ([`completeness::in_history_here`]).
/// A text that is no full id, or an object that is no commit, is told as such.
fn baseline_not_cut_off(repo: &Repo, commit: &str, head: ObjectId) -> Result<(), VerifyError> {
    let Ok(id) = commit.parse::<ObjectId>() else { return Ok(()) };
    if matches!(repo.commit(id), Err(GitError::WrongKind { .. })) {
        return Ok(());
    }
    completeness::in_history_here(repo, id, head, &format!("the verifier policy's baseline {commit}"))
}

/// The rows of `planned` whose reason is `code`.
fn rows_with<'p>(planned: &'p [Planned], code: &'p str) -> impl Iterator<Item = &'p TickReport> {
    rows_where(planned, move |reason| reason == code)
}

/// The rows of `planned` whose reason `wanted` takes.
fn rows_where<'p>(
    planned: &'p [Planned],
    wanted: impl Fn(&str) -> bool + 'p,
) -> impl Iterator<Item = &'p TickReport> {
    planned.iter().filter_map(move |p| match p {
        Planned::Row(row) if row.reason.as_deref().is_some_and(&wanted) => Some(&**row),
        Planned::Row(_) | Planned::Commit(..) => None,
    })
}

/// Whether `earlier` takes every unit `later` could match: it has the glob `*`, or each of
/// `later`'s globs in the form globs are matched in (`UnitGlob::as_matched`).
fn shadows(earlier: &Rule, later: &Rule) -> bool {
    let texts: Vec<&str> = earlier.units.iter().map(|g| g.as_matched()).collect();
    texts.contains(&"*") || later.units.iter().all(|g| texts.contains(&g.as_matched()))
}

/// Each principal the trust names ([`SignatureTrust::principals`]), as the signer it stands for
/// when `verify` matches a policy's principal, of its own kind: an OpenPGP fingerprint as a
/// certificate's key (named in any case), an OpenPGP user id as a certificate's (named as written
/// or by its address), an SSH principal or the Sigstore identity as one of its kind (named
/// exactly as written).
#[must_use]
pub fn known_signers(trust: &SignatureTrust, files: &TrustFiles) -> Vec<SignerInfo> {
    let (fingerprints, user_ids) =
        trust.openpgp.as_ref().map(|c| (c.fingerprints(), c.user_ids())).unwrap_or_default();
    let identity = files.certificate_identity.as_deref();
    let signer = |kind, key, principals| SignerInfo { kind, key, principals };
    trust
        .principals(files)
        .into_iter()
        .map(|p| {
            if fingerprints.contains(&p) {
                signer("openpgp", p, Vec::new())
            } else if user_ids.contains(&p) {
                signer("openpgp", String::new(), vec![p])
            } else if identity == Some(p.as_str()) {
                signer("sigstore", String::new(), vec![p])
            } else {
                signer("ssh", String::new(), vec![p])
            }
        })
        .collect()
}

/// The principals `rule` names that name none of `known` ([`known_signers`]; `*` aside).
fn unknown(rule: &Rule, known: &[SignerInfo]) -> Vec<String> {
    let named =
        rule.signers.iter().flatten().chain(rule.approvals.iter().flat_map(|a| a.by.iter().flatten()));
    let mut out: Vec<String> = Vec::new();
    for p in named.filter(|p| p.as_str() != ANY) {
        let is_known = known.iter().any(|k| p.names(k.kind, &k.key, &k.principals));
        if !is_known && !out.iter().any(|o| o == p.as_str()) {
            out.push(p.as_str().to_owned());
        }
    }
    out
}

impl std::fmt::Display for CheckReport {
    /// Text from the policy and the repository (its path, rule names, units, principals) is
    /// shown on one line each ([`one_line`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let listed = |items: &[String]| items.iter().map(|i| one_line(i)).collect::<Vec<_>>().join(", ");
        writeln!(f, "verifier policy {} sha256:{}: it reads", one_line(&self.source), self.sha256)?;
        for r in &self.rules {
            let units = if r.units.is_empty() { "no unit today".to_owned() } else { listed(&r.units) };
            writeln!(f, "  rule {}: {units}", one_line(&r.name))?;
            if !r.taken_earlier.is_empty() {
                writeln!(f, "    matches, but an earlier rule judges: {}", listed(&r.taken_earlier))?;
            }
            if let Some(by) = &r.shadowed_by {
                writeln!(
                    f,
                    "    warning: shadowed by rule {}, which takes every unit this one matches",
                    one_line(by)
                )?;
            }
            if !r.unknown_principals.is_empty() {
                let why = if self.trust_given {
                    "no trust file given names"
                } else {
                    "no trust file was given; unchecked"
                };
                writeln!(f, "    warning: principals {why}: {}", listed(&r.unknown_principals))?;
            }
            for shared in &r.shared_principals {
                writeln!(
                    f,
                    "    warning: {}",
                    shared_name(&one_line(&shared.principal), &shared.certificates)
                )?;
            }
        }
        if !self.unmatched_units.is_empty() {
            let mut line = String::new();
            let _ = write!(line, "  warning: no rule matches {}", listed(&self.unmatched_units));
            writeln!(f, "{line}: their ticks fail (policy_no_rule)")?;
        }
        for l in &self.lookalike_units {
            writeln!(
                f,
                "  warning: unit {} may pass for another's: {}: its ticks fail (policy_mixed_script)",
                one_line(&l.unit),
                one_line(&l.why)
            )?;
        }
        for why in self.unreadable.iter().chain(&self.not_units) {
            writeln!(f, "  warning: {}", one_line(why))?;
        }
        if let Some(b) = &self.baseline {
            match &b.holds_none {
                None => writeln!(f, "  baseline {}: holds {} hand ticks today", b.commit, b.holds.len())?,
                Some(why) => writeln!(f, "  warning: {}", one_line(why))?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::verifier_policy::VerifierPolicy;

    /// The one rule of a policy whose signers are `signers`.
    fn rule(signers: &str) -> Rule {
        let text = format!("version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\nsigners = [{signers}]\n");
        let policy = VerifierPolicy::parse(text.as_bytes(), "policy.toml").expect("a valid rule");
        policy.rules().next().expect("one rule").clone()
    }

    fn known(kind: &'static str, key: &str, principals: &[&str]) -> SignerInfo {
        SignerInfo { kind, key: key.into(), principals: principals.iter().map(|p| (*p).into()).collect() }
    }

    #[test]
    fn each_known_principal_is_matched_as_its_own_kind_is() {
        let known = [
            known("ssh", "", &["ada@example.org"]),
            known("openpgp", "ABCD1234", &[]),
            known("openpgp", "", &["Bob <bob@example.org>"]),
        ];
        let named =
            r#""ada@example.org", "Ada@example.org", "abcd1234", "bob@example.org", "Bob@example.org""#;
        assert_eq!(unknown(&rule(named), &known), ["Ada@example.org", "Bob@example.org"]);
    }

    #[test]
    fn a_rule_whose_globs_an_earlier_rule_writes_in_another_unicode_form_is_shadowed_by_it() {
        let text = "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*caf\u{e9}\"]\n[[rule]]\nname = \"b\"\nunits = [\"*cafe\u{301}\"]\n";
        let policy = VerifierPolicy::parse(text.as_bytes(), "policy.toml").expect("a valid policy");
        let rules: Vec<&Rule> = policy.rules().collect();
        assert!(shadows(rules[0], rules[1]) && shadows(rules[1], rules[0]));
        assert!(rules[1].matches("001-caf\u{e9}"), "as `verify` matches it");
    }

    #[test]
    fn text_from_the_policy_and_the_repository_stays_on_the_lines_it_is_shown_on() {
        let forged = |what: &str| format!("{what}\n  rule all: every unit");
        let report = CheckReport {
            source: forged("p.toml"),
            sha256: "ab".repeat(32),
            rules: vec![RuleCheck {
                name: forged("r"),
                units: vec![forged("unit")],
                taken_earlier: vec![forged("earlier")],
                shadowed_by: Some(forged("s")),
                unknown_principals: vec![forged("eve")],
                shared_principals: vec![SharedPrincipal {
                    principal: forged("mal"),
                    certificates: vec!["AB".repeat(20), "CD".repeat(20)],
                }],
            }],
            unmatched_units: vec![forged("lost")],
            lookalike_units: vec![LookalikeUnit { unit: forged("like"), why: forged("why") }],
            unreadable: vec![forged("unread")],
            not_units: vec![forged("stray")],
            baseline: None,
            trust_given: true,
        };
        let text = report.to_string();
        assert!(!text.lines().any(|l| l.starts_with("  rule all")), "{text}");
        assert_eq!(text.matches("\\n  rule all").count(), 12, "{text}");
    }
}
