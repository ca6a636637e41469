//! The lines of a tick: its test results by phase, and the summary that names them.

use std::collections::HashMap;

use serde_json::Value;

use crate::check::line::{Body, ReadLine};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::check::trailers::{held_out_trailer as held_out_trailer_of, last_trailer};
use crate::check::values;
use crate::git::Commit;
use crate::git::trailers::sanitize_value;
use crate::model::clean::shown_if_clean;
use crate::model::dialect::Dialect;
use crate::model::predicate::{TaskVerificationV0, Verdict};
use crate::model::summary::{self, VerificationSummary};
use crate::model::test_result::{self, Phase, TestOutcome, TestResult};
use crate::model::trailer_keys::{ACCEPTED_BY, REASON, REGRESSION_ONLY, RUN, SKIPPED_BY};

/// The lines of a tick (`verified`, `regression_only`; `lines` is every line of the note): each
/// phase once, red failed, red and green for `verified`, the `Held-Out:` trailer as the signed
/// held_out line says, the `Run:` and `Regression-Only:` trailers as the signed `run` and
/// `regression` say, no decision trailers, and one
/// summary that names exactly the other lines by digest, at the verdict's level, under the
/// task-verification's policy, for the task commit ([`values::summary`]).
pub fn tick_lines(
    commit: &Commit,
    verdict: Verdict,
    p: &TaskVerificationV0,
    lines: &[&ReadLine],
    dialect: Dialect,
    findings: &mut Vec<Finding>,
) {
    let summaries: Vec<(&ReadLine, &VerificationSummary)> = lines
        .iter()
        .filter_map(|l| match &l.body {
            Body::Summary(s) => Some((*l, s)),
            _ => None,
        })
        .collect();
    let named_lines: Vec<&ReadLine> =
        lines.iter().copied().filter(|l| !matches!(l.body, Body::Summary(_))).collect();
    let phases = phases(verdict, &named_lines, dialect, findings);
    if verdict == Verdict::Verified && !(phases.contains(&Phase::Red) && phases.contains(&Phase::Green)) {
        findings.push(Finding::new(
            CommitOutcome::Mismatch,
            "verified_without_red_green",
            "a verified tick needs signed red and green test results",
        ));
    }
    held_out_trailer(commit, lines, dialect, findings);
    run_trailer(commit, p, dialect, findings);
    regression_trailer(commit, p, dialect, findings);
    decision_trailers(commit, findings);

    let (sline, s) = match summaries.as_slice() {
        [one] => *one,
        [] => {
            findings.push(Finding::new(
                CommitOutcome::Mismatch,
                "summary_missing",
                "a tick needs a verification summary line",
            ));
            return;
        }
        [_, second, ..] => {
            findings.push(
                Finding::new(
                    CommitOutcome::Mismatch,
                    "several_summaries",
                    "the note has more than one summary line",
                )
                .at_line(second.0.number),
            );
            return;
        }
    };
    summary_names(s, sline.number, &named_lines, findings);
    summary_fields(verdict, p, s, sline.number, findings);
    values::summary(s, commit.id, sline.number, findings);
}

/// The phases of the test-result lines of a tick, each once, red failed, and each as a verified
/// tick needs it, read in `dialect`'s shapes; a test result of no speccoder phase is malformed.
fn phases(
    verdict: Verdict,
    named_lines: &[&ReadLine],
    dialect: Dialect,
    findings: &mut Vec<Finding>,
) -> Vec<Phase> {
    let mut phases = Vec::new();
    for l in named_lines {
        if let Body::TestResult(t) = &l.body {
            match t.phase() {
                Some(phase) => {
                    if phases.contains(&phase) {
                        findings.push(
                            Finding::new(
                                CommitOutcome::Mismatch,
                                "duplicate_phase",
                                format!("phase {} appears twice", phase.as_str()),
                            )
                            .at_line(l.number),
                        );
                    } else {
                        // At most one of each phase: the list never outgrows Phase::ALL.
                        phases.push(phase);
                    }
                    if verdict == Verdict::Verified
                        && let Err((required, found)) =
                            test_result::verified_requires(phase, t.result, t.held_out_counts(), dialect)
                    {
                        findings.push(
                            Finding::new(
                                CommitOutcome::Mismatch,
                                "verdict_mismatch",
                                format!(
                                    "the verdict is verified, but the {} phase says otherwise",
                                    phase.as_str()
                                ),
                            )
                            .at_line(l.number)
                            .expected_found(required, found),
                        );
                    }
                    if phase == Phase::Red && t.result != TestOutcome::Failed {
                        findings.push(
                            Finding::new(
                                CommitOutcome::Mismatch,
                                "red_not_failed",
                                "the red phase did not fail",
                            )
                            .at_line(l.number),
                        );
                    }
                }
                None => findings.push(
                    Finding::new(
                        CommitOutcome::Malformed,
                        "unknown_phase",
                        "a test-result whose configuration names no speccoder phase",
                    )
                    .at_line(l.number),
                ),
            }
        }
    }
    phases
}

/// The summary `s` (line `line`) names exactly the other lines of the note, each by its digest.
fn summary_names(
    s: &VerificationSummary,
    line: usize,
    named_lines: &[&ReadLine],
    findings: &mut Vec<Finding>,
) {
    let mismatch =
        |code: &'static str, msg: &str| Finding::new(CommitOutcome::Mismatch, code, msg).at_line(line);
    // The summary's entries as a multiset (how often each name and digest is named), so that each
    // line is matched in constant time: a note of n lines is checked in time linear in n.
    let mut named: HashMap<(String, &str), usize> = HashMap::new();
    for i in &s.input_attestations {
        *named.entry((i.name.clone(), digest_of(i))).or_default() += 1;
    }
    for l in named_lines {
        let entry = (l.input_name().unwrap_or_default(), l.payload_sha256.as_str());
        match named.get_mut(&entry) {
            Some(count) if *count > 0 => *count -= 1,
            _ => findings.push(
                Finding::new(
                    CommitOutcome::Mismatch,
                    "summary_missing_line",
                    "the summary does not name this line by its digest",
                )
                .at_line(l.number)
                .expected_found(format!("{} sha256:{}", entry.0, entry.1), "not named"),
            ),
        }
    }
    // In the summary's order, so that the findings read as the summary does.
    for i in &s.input_attestations {
        let key = (i.name.clone(), digest_of(i));
        let Some(count) = named.get_mut(&key).filter(|c| **c > 0) else { continue };
        *count -= 1;
        let (name, digest) = key;
        findings.push(
            mismatch("summary_names_foreign_line", "the summary names a line the note does not hold")
                .expected_found("only lines of this note", format!("{name} sha256:{digest}")),
        );
    }
}

/// The summary `s` (line `line`) is at the verdict's level, passed, under the task-verification's
/// policy, and by speccoder.
fn summary_fields(
    verdict: Verdict,
    p: &TaskVerificationV0,
    s: &VerificationSummary,
    line: usize,
    findings: &mut Vec<Finding>,
) {
    let mismatch =
        |code: &'static str, msg: &str| Finding::new(CommitOutcome::Mismatch, code, msg).at_line(line);
    let level = if verdict == Verdict::RegressionOnly {
        summary::LEVEL_REGRESSION_ONLY
    } else {
        summary::LEVEL_VERIFIED
    };
    if s.verified_levels != [level] {
        findings.push(
            mismatch("wrong_level", "the summary's level does not match the verdict")
                .expected_found(level, s.verified_levels.join(",")),
        );
    }
    if s.verification_result != "PASSED" {
        findings.push(
            mismatch("summary_not_passed", "the summary's result is not PASSED")
                .expected_found("PASSED", s.verification_result.clone()),
        );
    }
    let policy = s.policy.digest.get("sha256").cloned().unwrap_or_default();
    if policy != p.policy_sha256 || s.policy.uri != summary::POLICY_URI {
        findings.push(
            mismatch("summary_policy_mismatch", "the summary's policy is not the task-verification's")
                .expected_found(p.policy_sha256.clone(), policy),
        );
    }
    if s.verifier.id != summary::VERIFIER_ID {
        findings.push(
            mismatch("unknown_verifier", "the summary names another verifier")
                .expected_found(summary::VERIFIER_ID, s.verifier.id.clone()),
        );
    }
}

/// The `Held-Out:` trailer must say what the signed held_out line says, and without one it must
/// not claim a held-out result (`off` or `absent=<reason>` say there was none). A line that
/// records its counts is repeated exactly; one that records none (the published speccoder's,
/// read in `dialect`) backs only `passed=<n>/<n>` with its manifest, and only when it `PASSED`:
/// the count is the trailer's word, and the trailer never claims more than the signed line.
fn held_out_trailer(commit: &Commit, lines: &[&ReadLine], dialect: Dialect, findings: &mut Vec<Finding>) {
    let held_out = lines.iter().find_map(|l| match &l.body {
        Body::TestResult(t) if t.phase() == Some(Phase::HeldOut) => Some((l.number, t)),
        _ => None,
    });
    let trailer = held_out_trailer_of(&commit.message);
    if let Some((number, t)) = held_out {
        let (agrees, expected) = trailer_agrees(t, trailer.as_deref(), dialect);
        if !agrees {
            findings.push(
                Finding::new(
                    CommitOutcome::Mismatch,
                    "held_out_trailer_mismatch",
                    "the Held-Out: trailer does not match the signed held_out result",
                )
                .at_line(number)
                .expected_found(expected, trailer.unwrap_or_default()),
            );
        }
    } else if let Some(claimed) = trailer.filter(|t| t.trim_start().starts_with("passed=")) {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "held_out_trailer_mismatch",
                "the Held-Out: trailer claims a held-out result that the signed evidence does not have",
            )
            .expected_found("off", claimed),
        );
    }
}

/// Whether the `Held-Out:` trailer value `trailer` says what the held_out line `t` says, read in
/// `dialect`'s shapes, and what it would say (for a finding).
fn trailer_agrees(t: &TestResult, trailer: Option<&str>, dialect: Dialect) -> (bool, String) {
    let c = &t.configuration[0];
    let digest = c.digest.get("sha256").map_or("", String::as_str);
    let annotation = |k: &str| c.annotations.as_ref().and_then(|a| a.get(k)).map(ToString::to_string);
    match (annotation("passed"), annotation("total")) {
        (None, None) if dialect == Dialect::Published && t.result == TestOutcome::Passed => {
            let agrees = trailer.and_then(uncounted_pass).is_some_and(|named| named == digest);
            (agrees, format!("passed=<n>/<n> manifest=sha256:{digest}"))
        }
        (None, None) => (
            false,
            format!(
                "no held-out count: the signed held_out line is {} with no passed and total, manifest sha256:{digest}",
                t.result.as_str()
            ),
        ),
        (passed, total) => match t.held_out_counts() {
            Some((passed, total)) => {
                let expected = format!("passed={passed}/{total} manifest=sha256:{digest}");
                (trailer == Some(expected.as_str()), expected)
            }
            // Counts that are no whole numbers back no trailer: said as they were found.
            None => {
                let found =
                    |v: Option<String>| v.map_or_else(|| "absent".to_owned(), |v| shown_if_clean(&v, 40));
                (
                    false,
                    format!(
                        "no held-out count this verifier reads: the signed held_out line is {} with passed {} and total {} (each must be a whole number), manifest sha256:{digest}",
                        t.result.as_str(),
                        found(passed),
                        found(total)
                    ),
                )
            }
        },
    }
}

/// The manifest digest of a trailer `passed=<n>/<n> manifest=sha256:<digest>` whose two counts
/// are the same whole number (every held-out test passed), as the published speccoder writes it.
fn uncounted_pass(trailer: &str) -> Option<&str> {
    let (counts, manifest) = trailer.split_once(' ')?;
    let (passed, total) = counts.strip_prefix("passed=")?.split_once('/')?;
    let whole = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    (whole(passed) && passed == total).then_some(())?;
    manifest.strip_prefix("manifest=sha256:")
}

/// The `Run:` trailer as the signed `run` says: `Run: <run.id>` when it names a run, no `Run:`
/// when it is absent, `null` or blank (as `attest` writes them). Read in the published speccoder's
/// shapes (`dialect`), a `run` that is a string names the run itself, as that tool writes it. A
/// `run` of another shape is opaque (another producer's), and the trailer is not held to it.
fn run_trailer(commit: &Commit, p: &TaskVerificationV0, dialect: Dialect, findings: &mut Vec<Finding>) {
    let named = |id: &str| Some(sanitize_value(id)).filter(|id| !id.is_empty());
    let expected = match &p.setting.run {
        None | Some(Value::Null) => None,
        Some(Value::String(run)) if dialect == Dialect::Published => named(run),
        Some(run) => match run.get("id").and_then(Value::as_str) {
            Some(id) => named(id),
            None => return,
        },
    };
    let trailer = last_trailer(&commit.message, RUN).map(|t| t.trim().to_owned());
    if trailer != expected {
        let none = || "(no such trailer)".to_owned();
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "run_trailer_mismatch",
                "the Run: trailer does not name the run the signed evidence names",
            )
            .expected_found(expected.unwrap_or_else(none), trailer.unwrap_or_else(none)),
        );
    }
}

/// The `Regression-Only:` trailer as the signed `regression` says, in its writer's words
/// ([`SignedRegression::trailer_value`](crate::model::regression::SignedRegression::trailer_value)):
/// exactly those words when the statement records a reason, no such trailer when it records none,
/// so that the trailer never claims a reason the evidence does not sign. A reason in the published
/// speccoder's shape outside its recipe (`dialect` ours) is malformed there already
/// ([`values::published_shapes`]), and its trailer is not judged besides.
fn regression_trailer(
    commit: &Commit,
    p: &TaskVerificationV0,
    dialect: Dialect,
    findings: &mut Vec<Finding>,
) {
    if dialect == Dialect::Ours && p.regression.as_ref().is_some_and(|r| r.dialect() == Dialect::Published) {
        return;
    }
    let expected =
        p.regression.as_ref().map(|r| sanitize_value(&r.trailer_value())).filter(|v| !v.is_empty());
    let trailer = last_trailer(&commit.message, REGRESSION_ONLY).map(|t| t.trim().to_owned());
    if trailer != expected {
        let none = || "(no such trailer)".to_owned();
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "regression_trailer_mismatch",
                "the Regression-Only: trailer does not say the reason the signed evidence records",
            )
            .expected_found(expected.unwrap_or_else(none), trailer.unwrap_or_else(none)),
        );
    }
}

/// A tick records test evidence, not a person's decision: its commit carries no `Accepted-By:`,
/// `Skipped-By:` or `Reason:` trailer, which a reader of the log would take for one.
fn decision_trailers(commit: &Commit, findings: &mut Vec<Finding>) {
    let found: Vec<&str> = [ACCEPTED_BY, SKIPPED_BY, REASON]
        .into_iter()
        .filter(|key| last_trailer(&commit.message, key).is_some())
        .collect();
    if !found.is_empty() {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "tick_with_decision_trailers",
                "a tick's commit carries no decision trailers: the signed evidence names no decider",
            )
            .expected_found("none", found.join(", ")),
        );
    }
}

/// The sha256 digest by which a summary's entry names a line (empty when it names none).
fn digest_of(input: &summary::InputAttestation) -> &str {
    input.digest.get("sha256").map_or("", String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A held_out line with `result`, the manifest `digest` and `annotations` (none: `None`).
    fn held_out(result: &str, digest: &str, annotations: Option<Value>) -> TestResult {
        let mut config = json!({ "name": "speccoder:phase/held_out", "digest": { "sha256": digest } });
        if let Some(a) = annotations {
            config["annotations"] = a;
        }
        serde_json::from_value(json!({ "result": result, "configuration": [config] })).unwrap()
    }

    /// A commit of `message`.
    fn commit(message: &str) -> Commit {
        let null = gix::ObjectId::null(gix::hash::Kind::Sha1);
        let who = crate::git::Signature { name: "a".into(), email: "a@x".into(), seconds: 0, offset: 0 };
        Commit {
            id: null,
            tree: null,
            parents: vec![null],
            message: message.to_owned(),
            message_bytes: message.as_bytes().to_vec(),
            author: who.clone(),
            committer: who,
        }
    }

    /// A tick's task verification with `run` and `regression` (each absent when `None`).
    fn tick_with(run: Option<Value>, regression: Option<Value>) -> TaskVerificationV0 {
        let mut v = json!({
            "verdict": "regression_only",
            "unit": { "format": "speckit", "feature": "001-x", "dir": "specs/001-x" },
            "task": { "id": "T001", "line_hash": "ab", "title": "t" },
            "tree": "t", "policy_sha256": "ef", "time": "2026-10-26T00:00:00Z"
        });
        if let Some(run) = run {
            v["run"] = run;
        }
        if let Some(regression) = regression {
            v["regression"] = regression;
        }
        serde_json::from_value(v).unwrap()
    }

    /// The codes of the trailer findings of `message` against `p`, read in `dialect`'s shapes.
    fn trailer_codes(message: &str, p: &TaskVerificationV0, dialect: Dialect) -> Vec<&'static str> {
        let mut findings = Vec::new();
        run_trailer(&commit(message), p, dialect, &mut findings);
        regression_trailer(&commit(message), p, dialect, &mut findings);
        findings.iter().map(|f| f.code).collect()
    }

    #[test]
    fn a_run_the_published_speccoder_signs_as_a_string_is_named_by_the_run_trailer_in_its_shapes_only() {
        let p = tick_with(Some(json!("run-1")), None);
        assert!(trailer_codes("s\n\nRun: run-1\n", &p, Dialect::Published).is_empty());
        for contradicts in ["s\n\nRun: other-run\n", "s\n"] {
            assert_eq!(
                trailer_codes(contradicts, &p, Dialect::Published),
                ["run_trailer_mismatch"],
                "{contradicts}"
            );
        }
        assert!(trailer_codes("s\n\nRun: other-run\n", &p, Dialect::Ours).is_empty(), "opaque in ours");
        let blank = tick_with(Some(json!(" ")), None);
        assert!(trailer_codes("s\n", &blank, Dialect::Published).is_empty());
        let ours = tick_with(Some(json!({ "id": "run-1" })), None);
        for dialect in [Dialect::Ours, Dialect::Published] {
            assert!(trailer_codes("s\n\nRun: run-1\n", &ours, dialect).is_empty());
            assert_eq!(trailer_codes("s\n\nRun: run-2\n", &ours, dialect), ["run_trailer_mismatch"]);
        }
    }

    #[test]
    fn the_regression_only_trailer_says_exactly_the_signed_reason_in_its_writer_s_words() {
        let ours = tick_with(None, Some(json!({ "code": "already_passing", "detail": "passed  before" })));
        let published = tick_with(None, Some(json!({ "reason": "no_scenarios", "story": "US1" })));
        let none = tick_with(None, None);
        for (message, p, agrees) in [
            ("s\n\nRegression-Only: already_passing: passed before\n", &ours, true),
            ("s\n\nRegression-Only: already_passing\n", &ours, false),
            ("s\n\nRegression-Only: no_behaviour: passed before\n", &ours, false),
            ("s\n", &ours, false),
            ("s\n\nRegression-Only: no_scenarios story=US1\n", &published, true),
            ("s\n\nRegression-Only: no_scenarios story=US2\n", &published, false),
            ("s\n\nRegression-Only: already_passing\n", &published, false),
            ("s\n", &published, false),
            ("s\n", &none, true),
            ("s\n\nRegression-Only: already_passing\n", &none, false),
        ] {
            let codes = trailer_codes(message, p, Dialect::Published);
            let expected: &[&str] = if agrees { &[] } else { &["regression_trailer_mismatch"] };
            assert_eq!(codes, expected, "{message:?} {:?}", p.regression);
        }
        let outside = trailer_codes("s\n\nRegression-Only: x\n", &published, Dialect::Ours);
        assert!(outside.is_empty(), "malformed there already, not judged twice: {outside:?}");
        let ours_there = trailer_codes("s\n\nRegression-Only: x\n", &ours, Dialect::Ours);
        assert_eq!(ours_there, ["regression_trailer_mismatch"]);
    }

    #[test]
    fn a_trailer_repeats_the_counts_a_held_out_line_signs_exactly_in_either_shapes() {
        let d = "d".repeat(64);
        let t = held_out("PASSED", &d, Some(json!({ "passed": 2, "total": 2 })));
        for dialect in [Dialect::Ours, Dialect::Published] {
            assert!(trailer_agrees(&t, Some(&format!("passed=2/2 manifest=sha256:{d}")), dialect).0);
            let (agrees, expected) =
                trailer_agrees(&t, Some(&format!("passed=3/3 manifest=sha256:{d}")), dialect);
            assert!(!agrees);
            assert_eq!(expected, format!("passed=2/2 manifest=sha256:{d}"));
        }
    }

    #[test]
    fn a_held_out_pass_without_counts_backs_every_test_passed_only_in_the_published_speccoders_shapes() {
        let d = "d".repeat(64);
        let t = held_out("PASSED", &d, None);
        let agrees = |trailer: &str, dialect| trailer_agrees(&t, Some(trailer), dialect).0;
        assert!(agrees(&format!("passed=1/1 manifest=sha256:{d}"), Dialect::Published));
        assert!(agrees(&format!("passed=12/12 manifest=sha256:{d}"), Dialect::Published));
        for claims_more_or_else in [
            format!("passed=1/2 manifest=sha256:{d}"),
            format!("passed=1/1 manifest=sha256:{}", "e".repeat(64)),
            format!("passed=/ manifest=sha256:{d}"),
            format!("passed=x/x manifest=sha256:{d}"),
            "off".to_owned(),
        ] {
            assert!(!agrees(&claims_more_or_else, Dialect::Published), "{claims_more_or_else}");
        }
        let (agrees_ours, expected) =
            trailer_agrees(&t, Some(&format!("passed=1/1 manifest=sha256:{d}")), Dialect::Ours);
        assert!(!agrees_ours);
        assert!(expected.starts_with("no held-out count: the signed held_out line is PASSED"), "{expected}");
        let failed = held_out("FAILED", &d, None);
        assert!(
            !trailer_agrees(&failed, Some(&format!("passed=1/1 manifest=sha256:{d}")), Dialect::Published).0
        );
        assert!(!trailer_agrees(&t, None, Dialect::Published).0);
    }

    #[test]
    fn held_out_counts_that_are_no_whole_numbers_are_said_as_found_never_as_a_trailer() {
        let d = "d".repeat(64);
        for (annotations, said) in [
            (json!({ "passed": "3", "total": "3" }), "passed \"3\" and total \"3\""),
            (json!({ "passed": 3 }), "passed 3 and total absent"),
            (json!({ "passed": -1, "total": 2.5 }), "passed -1 and total 2.5"),
        ] {
            let t = held_out("PASSED", &d, Some(annotations));
            for dialect in [Dialect::Ours, Dialect::Published] {
                let (agrees, expected) =
                    trailer_agrees(&t, Some(&format!("passed=3/3 manifest=sha256:{d}")), dialect);
                assert!(!agrees, "{expected}");
                assert!(expected.starts_with("no held-out count this verifier reads"), "{expected}");
                assert!(expected.contains(said) && !expected.contains("passed=3/"), "{expected}");
            }
        }
    }
}
