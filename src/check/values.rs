//! The value rules of the open specification that a line's types do not hold: what a task
//! verification's `revision`, `time`, `unit.format`, `monitor.state` and `red` may be, the fields
//! a tick must carry and their shapes, and a summary's `timeVerified` and `resourceUri`. A value
//! out of the specification is `malformed`; a line that contradicts itself (a digest not of its
//! excerpt) or the commit (a resource naming another) is a `mismatch`.

use gix::ObjectId;
use serde_json::Value;

use crate::check::line::{Body, ReadLine};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::model::audit_shapes::MonitorState;
use crate::model::clean::shown_if_clean;
use crate::model::dialect::Dialect;
use crate::model::digest::sha256_hex;
use crate::model::policy::Recipe;
use crate::model::predicate::{Audits, TaskVerificationV0, Verdict};
use crate::model::red::EXCERPT_MAX;
use crate::model::shown::SHOWN_MAX;
use crate::model::summary::{VerificationSummary, resource_revision};
use crate::model::test_result::Phase;
use crate::model::timestamp::{is_rfc3339_utc, rfc3339};

/// The spec formats a unit may name.
const FORMATS: [&str; 2] = ["speckit", "openspec"];

/// A time that is not RFC 3339 (a task verification's `time`: in UTC, with `Z`).
pub const BAD_TIME: &str = "bad_time";
/// A `revision` below 1: revisions start at 1, and an absent one means 1.
pub const BAD_REVISION: &str = "bad_revision";
/// A tick without one of `trace`, `monitor`, `integrity`, or with one not of its shape: a `trace`
/// that is no array, an `integrity` that is no object with a `findings` array, a `monitor` whose
/// `findings` is there and no array.
pub const TICK_FIELDS_MISSING: &str = "tick_fields_missing";
/// The summary's `resourceUri` names another commit than the task commit.
pub const RESOURCE_URI_MISMATCH: &str = "resource_uri_mismatch";

/// A member in the published speccoder's shape (`regression`, a `collection.files` row) in a note
/// under the version-free recipe: those shapes are read only where its published recipe holds.
pub const PUBLISHED_SHAPE_OUTSIDE_RECIPE: &str = "published_shape_outside_recipe";

/// The members of the task verification `p` (line `n`) recorded in the published speccoder's
/// shapes ([`crate::model::dialect`]), against the recipe its policy digest follows: a verifier
/// reads them as that tool meant them only where its published recipe holds. Under the version-free
/// recipe, which this crate writes, each is `malformed`: a weaker shape never stands in for ours.
/// Where no recipe holds, the policy finding already fails the note.
pub fn published_shapes(
    p: &TaskVerificationV0,
    recipe: Option<&Recipe>,
    n: usize,
    findings: &mut Vec<Finding>,
) {
    if recipe.map(Recipe::dialect) != Some(Dialect::Ours) {
        return;
    }
    let names = p.published_shapes();
    if !names.is_empty() {
        findings.push(
            Finding::new(
                CommitOutcome::Malformed,
                PUBLISHED_SHAPE_OUTSIDE_RECIPE,
                "the statement records these members in the published speccoder's shapes, which are read only in its evidence (under its published recipe), but its policy digest follows the version-free recipe this verifier writes",
            )
            .at_line(n)
            .expected_found("regression {code, detail}; collection.files[] {path, collected}", names.join(", ")),
        );
    }
}

/// What of the note `lines` only the published speccoder's shapes read: the members of its task
/// verification in those shapes, and a held_out test result without its counts (`test-result/
/// held_out`). Evidence re-issued under the version-free recipe (`attest carry`) would not hold
/// with any of them.
#[must_use]
pub fn published_only(lines: &[ReadLine]) -> Vec<String> {
    let mut names = Vec::new();
    for line in lines {
        match &line.body {
            Body::TaskVerification(p) => names.extend(p.published_shapes()),
            Body::TestResult(t) if t.phase() == Some(Phase::HeldOut) && t.held_out_counts().is_none() => {
                names.push("test-result/held_out without counts".to_owned());
            }
            _ => {}
        }
    }
    names
}

/// The task verification `p` (line `n`, verdict `verdict`) against the specification's values.
pub fn task_verification(p: &TaskVerificationV0, verdict: Verdict, n: usize, findings: &mut Vec<Finding>) {
    let malformed = |code: &'static str, msg: &str, expected: &str, found: String| {
        Finding::new(CommitOutcome::Malformed, code, msg).at_line(n).expected_found(expected, found)
    };
    if p.revision == Some(0) {
        let msg = "the statement's revision is 0; revisions start at 1";
        findings.push(malformed(BAD_REVISION, msg, "1 or more (absent: 1)", "0".into()));
    }
    if !is_rfc3339_utc(&p.time) {
        let msg = "the statement's time is not an RFC 3339 date and time in UTC";
        findings.push(malformed(
            BAD_TIME,
            msg,
            "RFC 3339 in UTC, e.g. 2026-10-26T10:00:00Z",
            shown_if_clean(&p.time, 64),
        ));
    }
    if !FORMATS.contains(&p.unit.format.as_str()) {
        let msg = "the unit's format is not one the specification names";
        findings.push(malformed(
            "unknown_format",
            msg,
            "speckit|openspec",
            shown_if_clean(&p.unit.format, 64),
        ));
    }
    if !verdict.is_decision() {
        tick_fields(p, n, findings);
    }
    red(p, n, findings);
}

/// A tick carries `trace` (an array), `monitor` (with a known `state`) and `integrity`, each of its
/// shape ([`audit_shapes`]).
fn tick_fields(p: &TaskVerificationV0, n: usize, findings: &mut Vec<Finding>) {
    let a = &p.audits;
    let given = |field: &Option<Value>| field.as_ref().is_some_and(|v| !v.is_null());
    let missing: Vec<&str> = [("trace", &a.trace), ("monitor", &a.monitor), ("integrity", &a.integrity)]
        .into_iter()
        .filter(|(_, field)| !given(field))
        .map(|(name, _)| name)
        .collect();
    if !missing.is_empty() {
        findings.push(
            Finding::new(
                CommitOutcome::Malformed,
                TICK_FIELDS_MISSING,
                "a tick carries trace, monitor and integrity",
            )
            .at_line(n)
            .expected_found("trace, monitor, integrity", format!("{} absent or null", missing.join(", "))),
        );
    }
    audit_shapes(a, n, findings);
    if let Some(monitor) = a.monitor.as_ref().filter(|m| !m.is_null()) {
        let state = monitor.get("state").and_then(Value::as_str);
        if state.and_then(MonitorState::parse).is_none() {
            findings.push(
                Finding::new(
                    CommitOutcome::Malformed,
                    "unknown_monitor_state",
                    "the gaming monitor's state is not one the specification names",
                )
                .at_line(n)
                .expected_found(
                    "clean|suspected|unreviewed|off",
                    state.map_or("(none)".into(), |s| shown_if_clean(s, 64)),
                ),
            );
        }
    }
}

/// An audit's name, its value, whether a value fits its shape, and that shape as a finding says it.
type Shape<'a> = (&'static str, &'a Option<Value>, fn(&Value) -> bool, &'static str);

/// The shapes of a tick's audits, where given: `trace` an array of rows, `integrity` an object
/// with a `findings` array (the diff audit's findings), and `monitor.findings`, where present, an
/// array (a monitor without findings is read as having none). The published schemas say the same
/// (`model::audit_shapes`); the tests hold both to one list of cases.
fn audit_shapes(a: &Audits, n: usize, findings: &mut Vec<Finding>) {
    let shapes: [Shape; 3] = [
        ("trace", &a.trace, Value::is_array, "an array of rows"),
        ("integrity", &a.integrity, |v| v.get("findings").is_some_and(Value::is_array), "{findings: [...]}"),
        (
            "monitor",
            &a.monitor,
            |v| v.get("findings").is_none_or(Value::is_array),
            "{state, findings: [...]}",
        ),
    ];
    for (name, value, fits, expected) in shapes {
        let Some(value) = value.as_ref().filter(|v| !v.is_null() && !fits(v)) else { continue };
        findings.push(
            Finding::new(
                CommitOutcome::Malformed,
                TICK_FIELDS_MISSING,
                format!("a tick's {name} is not of the shape the specification gives it: {expected}"),
            )
            .at_line(n)
            .expected_found(expected, shown_if_clean(&value.to_string(), 64)),
        );
    }
}

/// The red excerpt: at most [`EXCERPT_MAX`] bytes, `excerpt_sha256` its sha256, and `withheld`
/// exactly when there is none.
fn red(p: &TaskVerificationV0, n: usize, findings: &mut Vec<Finding>) {
    let Some(red) = &p.red else { return };
    let finding = |outcome, code: &'static str, msg: &str| Finding::new(outcome, code, msg).at_line(n);
    if let Some(excerpt) = &red.excerpt {
        if excerpt.len() > EXCERPT_MAX {
            findings.push(
                finding(
                    CommitOutcome::Malformed,
                    "red_excerpt_too_long",
                    "the red excerpt is longer than the specification allows",
                )
                .expected_found(format!("at most {EXCERPT_MAX} bytes"), format!("{} bytes", excerpt.len())),
            );
        }
        let digest = sha256_hex(excerpt.as_bytes());
        if red.excerpt_sha256.as_deref() != Some(digest.as_str()) {
            findings.push(
                finding(
                    CommitOutcome::Mismatch,
                    "red_excerpt_digest_mismatch",
                    "the red excerpt's excerpt_sha256 is not the sha256 of the excerpt",
                )
                .expected_found(
                    digest,
                    red.excerpt_sha256.as_deref().map_or("null".into(), |d| shown_if_clean(d, 64)),
                ),
            );
        }
    }
    if red.withheld == red.excerpt.is_some() {
        let msg = "the red excerpt is withheld exactly when it is null: withheld true with excerpt null, withheld false with an excerpt";
        let found = format!(
            "withheld {} with {}",
            red.withheld,
            if red.withheld { "an excerpt" } else { "excerpt null" }
        );
        findings.push(
            finding(CommitOutcome::Mismatch, "red_withheld_mismatch", msg)
                .expected_found(format!("withheld {}", !red.withheld), found),
        );
    }
}

/// The summary `s` (line `line`) of the task commit `commit`: `timeVerified` RFC 3339, and the
/// commit its `resourceUri` names that one (its origin cannot be checked against a clone).
pub fn summary(s: &VerificationSummary, commit: ObjectId, line: usize, findings: &mut Vec<Finding>) {
    if rfc3339(&s.time_verified).is_none() {
        findings.push(
            Finding::new(
                CommitOutcome::Malformed,
                BAD_TIME,
                "the summary's timeVerified is not an RFC 3339 date and time",
            )
            .at_line(line)
            .expected_found("RFC 3339, e.g. 2026-10-26T10:00:00Z", shown_if_clean(&s.time_verified, 64)),
        );
    }
    let hex = commit.to_string();
    if resource_revision(&s.resource_uri) != Some(hex.as_str()) {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                RESOURCE_URI_MISMATCH,
                "the summary's resourceUri does not name the task commit (git+<origin>@<commit> or git:<commit>)",
            )
            .at_line(line)
            .expected_found(shown_if_clean(&s.resource_uri, SHOWN_MAX), hex),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::validator;
    use serde_json::json;

    /// A tick's predicate as speccoder writes it (and as the published 0.9.0 wrote it).
    fn tick() -> Value {
        json!({
            "revision": 3,
            "verdict": "verified",
            "unit": { "format": "speckit", "feature": "001-x", "dir": "specs/001-x" },
            "task": { "id": "T001", "line_hash": "ab", "title": "Do it (FR-001)" },
            "tree": "t",
            "spec": { "section": null, "section_hash": "cd" },
            "trace": [],
            "integrity": { "findings": [] },
            "monitor": { "state": "off", "findings": [] },
            "policy_sha256": "ef",
            "time": "2026-10-26T00:00:00Z"
        })
    }

    /// The codes of the findings on `v`, a predicate checked as a tick.
    fn codes(v: Value) -> Vec<&'static str> {
        codes_as(v, Verdict::Verified)
    }

    /// The codes of the findings on `v`, a predicate checked with the verdict `verdict`.
    fn codes_as(v: Value, verdict: Verdict) -> Vec<&'static str> {
        let p: TaskVerificationV0 = serde_json::from_value(v).unwrap();
        let mut findings = Vec::new();
        task_verification(&p, verdict, 2, &mut findings);
        assert!(findings.iter().all(|f| f.outcome == CommitOutcome::Malformed), "{findings:?}");
        findings.iter().map(|f| f.code).collect()
    }

    /// `tick()` with `field` set to `value` (`None`: removed).
    fn with(field: &str, value: Option<Value>) -> Value {
        let mut v = tick();
        let object = v.as_object_mut().unwrap();
        match value {
            Some(value) => object.insert(field.to_owned(), value),
            None => object.remove(field),
        };
        v
    }

    #[test]
    fn a_value_out_of_the_specification_is_quoted_only_when_it_passes_the_clean_check() {
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        let cases = [
            ("monitor", json!({ "state": token, "findings": [] })),
            ("monitor", json!({ "state": "clean", "findings": token })),
            ("integrity", json!(token)),
            ("time", json!(format!("at {token}"))),
        ];
        for (field, value) in cases {
            let p: TaskVerificationV0 = serde_json::from_value(with(field, Some(value))).unwrap();
            let mut findings = Vec::new();
            task_verification(&p, Verdict::Verified, 2, &mut findings);
            let found = findings[0].found.as_deref().unwrap();
            assert_eq!(found, "(a value not shown, as it holds a GitHub token)", "{field}");
        }
        let p: TaskVerificationV0 =
            serde_json::from_value(with("monitor", Some(json!({ "state": "fine" })))).unwrap();
        let mut findings = Vec::new();
        task_verification(&p, Verdict::Verified, 2, &mut findings);
        assert_eq!(findings[0].found.as_deref(), Some("fine"), "a clean value is quoted");
    }

    #[test]
    fn the_shapes_speccoder_writes_pass() {
        assert!(codes(tick()).is_empty());
        let monitor = json!({ "state": "clean", "findings": [{ "code": "weakened_assert" }] });
        assert!(codes(with("monitor", Some(monitor))).is_empty());
        assert!(
            codes(with("integrity", Some(json!({ "findings": [{ "file": "a" }], "note": 1 })))).is_empty()
        );
    }

    #[test]
    fn the_published_speccoders_shapes_are_malformed_under_the_version_free_recipe_and_read_under_its_own() {
        let mut v = with("regression", Some(json!({ "reason": "already_passing" })));
        v["collection"] = json!({ "files": [
            { "path": "a.rs", "collected": true },
            { "path": "b.rs", "state": "collected", "decided_by": "junit", "tests": 1, "test_ids": ["b"] }
        ] });
        let p: TaskVerificationV0 = serde_json::from_value(v).unwrap();
        let judged = |recipe: Option<Recipe>| {
            let mut findings = Vec::new();
            published_shapes(&p, recipe.as_ref(), 2, &mut findings);
            findings
        };
        let found = judged(Some(Recipe::VersionFree));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].outcome, found[0].code),
            (CommitOutcome::Malformed, PUBLISHED_SHAPE_OUTSIDE_RECIPE)
        );
        assert_eq!(found[0].found.as_deref(), Some("regression, collection.files[1]"));
        assert!(judged(Some(Recipe::Published { speccoder_version: "0.9.0".into() })).is_empty());
        assert!(judged(None).is_empty(), "no recipe holds: the policy finding fails the note");
        let ours: TaskVerificationV0 = serde_json::from_value(tick()).unwrap();
        let mut findings = Vec::new();
        published_shapes(&ours, Some(&Recipe::VersionFree), 2, &mut findings);
        assert!(findings.is_empty());
    }

    #[test]
    fn a_revision_of_zero_is_malformed_and_an_absent_or_higher_one_is_not() {
        assert_eq!(codes(with("revision", Some(json!(0)))), [BAD_REVISION]);
        assert!(codes(with("revision", None)).is_empty());
        assert!(codes(with("revision", Some(json!(1)))).is_empty());
        assert!(codes(with("revision", Some(json!(99)))).is_empty());
    }

    #[test]
    fn an_integrity_that_is_no_object_with_a_findings_array_is_malformed() {
        for integrity in
            [json!({}), json!({ "findings": {} }), json!({ "findings": null }), json!([]), json!("ok")]
        {
            assert_eq!(
                codes(with("integrity", Some(integrity.clone()))),
                [TICK_FIELDS_MISSING],
                "{integrity}"
            );
        }
    }

    #[test]
    fn a_monitor_whose_findings_is_no_array_is_malformed_and_one_without_findings_is_not() {
        for findings in [json!("none"), json!({}), json!(null), json!(0)] {
            let monitor = json!({ "state": "off", "findings": findings });
            assert_eq!(codes(with("monitor", Some(monitor))), [TICK_FIELDS_MISSING], "{findings}");
        }
        assert!(codes(with("monitor", Some(json!({ "state": "off" })))).is_empty());
    }

    #[test]
    fn a_trace_that_is_no_array_is_malformed() {
        assert_eq!(codes(with("trace", Some(json!({ "rows": [] })))), [TICK_FIELDS_MISSING]);
    }

    /// Each value a tick's `trace`, `integrity` and `monitor` may be given (`None`: absent), and
    /// whether the specification accepts it. The verifier's rules and the published schemas are
    /// both held to this one list, so neither can accept what the other refuses.
    fn audit_cases() -> Vec<(&'static str, Option<Value>, bool)> {
        let mut cases = vec![
            ("trace", Some(json!([])), true),
            ("trace", Some(json!([{ "requirement": "FR-001" }, "any row"])), true),
            ("integrity", Some(json!({ "findings": [] })), true),
            ("integrity", Some(json!({ "findings": [{ "file": "a" }, "x", 1, null] })), true),
            ("integrity", Some(json!({ "findings": [], "note": 1 })), true),
            ("monitor", Some(json!({ "state": "off" })), true),
            ("monitor", Some(json!({ "state": "clean", "findings": [{ "code": "w" }], "by": "x" })), true),
        ];
        for state in ["clean", "suspected", "unreviewed", "off"] {
            cases.push(("monitor", Some(json!({ "state": state, "findings": [] })), true));
        }
        let refused: [(&str, &[Value]); 3] = [
            ("trace", &[json!({ "rows": [] }), json!("none"), json!(0)]),
            (
                "integrity",
                &[json!({}), json!({ "findings": {} }), json!({ "findings": null }), json!([]), json!("ok")],
            ),
            (
                "monitor",
                &[
                    json!({}),
                    json!({ "findings": [] }),
                    json!({ "state": "Clean", "findings": [] }),
                    json!({ "state": "gone" }),
                    json!({ "state": 1 }),
                    json!({ "state": null }),
                    json!({ "state": "off", "findings": "none" }),
                    json!({ "state": "off", "findings": {} }),
                    json!({ "state": "off", "findings": null }),
                    json!({ "state": "off", "findings": 0 }),
                    json!([]),
                    json!("clean"),
                ],
            ),
        ];
        for (field, values) in refused {
            cases.extend(values.iter().map(|v| (field, Some(v.clone()), false)));
            cases.extend([(field, Some(Value::Null), false), (field, None, false)]);
        }
        cases
    }

    /// `predicate` as the statement a note's line holds.
    fn statement(predicate: &Value) -> Value {
        json!({
            "_type": crate::model::statement::STATEMENT_TYPE,
            "subject": [{ "name": "commit", "digest": { "gitCommit": "ab" } }],
            "predicateType": crate::model::predicate::TYPE,
            "predicate": predicate,
        })
    }

    #[test]
    fn the_schemas_accept_exactly_the_audits_the_verifier_accepts() {
        let predicate = validator("task-verification-v0.schema.json");
        let stated = validator("statement-task-verification.schema.json");
        let evidence = validator("evidence.schema.json");
        let recorded: Value =
            serde_json::from_str(include_str!("../../fixtures/evidence/verified.json")).unwrap();
        for (field, value, accepted) in audit_cases() {
            for verdict in [Verdict::Verified, Verdict::RegressionOnly] {
                let mut tick = with(field, value.clone());
                tick["verdict"] = json!(verdict.as_str());
                let case = format!("{field}: {value:?} in a {} tick", verdict.as_str());
                assert_eq!(codes_as(tick.clone(), verdict).is_empty(), accepted, "the verifier, {case}");
                assert_eq!(predicate.is_valid(&tick), accepted, "the predicate's schema, {case}");
                assert_eq!(stated.is_valid(&statement(&tick)), accepted, "the statement's schema, {case}");
            }
            // In an evidence file, `null` or absent is recorded as the default attest writes.
            let Some(value) = value.filter(|v| !v.is_null() && field != "trace") else { continue };
            let mut file = recorded.clone();
            file[field] = value.clone();
            assert_eq!(evidence.is_valid(&file), accepted, "the evidence schema, {field}: {value}");
        }
    }

    #[test]
    fn the_predicates_speccoder_writes_and_wrote_meet_the_verifier_and_the_schema() {
        let predicate = validator("task-verification-v0.schema.json");
        let published_0_9_0_decision = json!({
            "decider": { "by": "Ada (asserted)", "reason": "done by hand" },
            "policy_sha256": "856d8c1bb769b6ea31ffa073d6a3692e5ad5abfbc00f8f84c78aec42b7e03110",
            "revision": 3,
            "task": { "id": "T001", "line_hash": "2a6b", "title": "Create the tag module skeleton" },
            "time": "2026-12-06T02:47:32Z",
            "tree": "84155ec97e561730cae50b49341a648a6e17002c",
            "unit": { "dir": "specs/001-bookmark-tags", "feature": "001-bookmark-tags", "format": "speckit" },
            "verdict": "attested"
        });
        let seeds = [
            include_str!("../../fixtures/seed/tick.json"),
            include_str!("../../fixtures/seed/decision.json"),
            include_str!("../../fixtures/seed/revision-2-example.json"),
        ];
        let seeds = seeds.map(|text| serde_json::from_str::<Value>(text).unwrap());
        // A decision may carry a tick's fields as `null`: they claim nothing.
        let mut decision_with_nulls = seeds[1].clone();
        for field in ["trace", "integrity", "monitor"] {
            decision_with_nulls[field] = Value::Null;
        }
        for p in seeds.into_iter().chain([tick(), published_0_9_0_decision, decision_with_nulls]) {
            let verdict = Verdict::parse(p["verdict"].as_str().unwrap()).unwrap();
            assert!(predicate.is_valid(&p), "{p}");
            // The seed's red excerpt is abbreviated (`c0de…`): its digest is not what is checked here.
            let mut audits = p.clone();
            audits.as_object_mut().unwrap().remove("red");
            assert!(codes_as(audits, verdict).is_empty(), "{p}");
        }
        let evidence = validator("evidence.schema.json");
        let recorded: Value =
            serde_json::from_str(include_str!("../../fixtures/evidence/verified.json")).unwrap();
        assert!(evidence.is_valid(&recorded));
    }
}
