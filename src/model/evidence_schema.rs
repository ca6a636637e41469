//! The rules of the evidence file that cross its fields (`Evidence::check_rules`), as its
//! published schema says them: added to the generated schema of a phase and of the file (which
//! names these functions; this file does not import it back). The
//! evidence check's tests hold the rules and the schema to one list of cases; the two comparisons
//! JSON Schema cannot make are named in the file's description.

use schemars::Schema;
use serde_json::{Value, json};

use super::predicate::Verdict;
use super::test_result::{Phase, TestOutcome};

/// `{"phase": <phase>}` matched: the schema of a phase's run.
fn is_phase(phases: &[Phase]) -> Value {
    let names: Vec<&str> = phases.iter().map(|p| p.as_str()).collect();
    json!({ "properties": { "phase": { "enum": names } }, "required": ["phase"] })
}

/// `{"verdict": <verdict>}` matched.
fn is_verdict(verdict: Verdict) -> Value {
    json!({ "properties": { "verdict": { "const": verdict.as_str() } }, "required": ["verdict"] })
}

/// A run with this `result`.
fn result_is(outcome: TestOutcome) -> Value {
    json!({ "properties": { "result": { "const": outcome.as_str() } } })
}

/// Each phase on its own, whatever the verdict: a red run `FAILED` naming its output, a baseline or green run
/// `PASSED` with no failed test, a held-out manifest `sha256:<64 lowercase hex>`.
pub fn phase_rules(schema: &mut Schema) {
    let mut red_failed_with_output = result_is(TestOutcome::Failed);
    red_failed_with_output["properties"]["output"] = json!({ "type": "string" });
    red_failed_with_output["required"] = json!(["output"]);
    let mut passed_baseline_or_green = is_phase(&[Phase::Baseline, Phase::Green]);
    passed_baseline_or_green["properties"]["result"] = json!({ "const": TestOutcome::Passed.as_str() });
    passed_baseline_or_green["required"] = json!(["phase", "result"]);
    schema.insert(
        "allOf".into(),
        json!([
            { "if": is_phase(&[Phase::Red]), "then": red_failed_with_output },
            { "if": passed_baseline_or_green, "then": { "properties": { "failed": { "maxItems": 0 } } } },
            {
                "if": is_phase(&[Phase::HeldOut]),
                "then": { "properties": { "manifest": { "pattern": "^sha256:[0-9a-f]{64}$" } } }
            }
        ]),
    );
}

/// The file's rules across its fields: each phase at most once; `regression` an object exactly
/// when the verdict is `regression_only` (else absent or `null`), and then no acceptance row
/// `verified`; a `verified` tick's red and
/// green phases, its green `PASSED` and its held-out run `PASSED` over at least one test.
pub fn file_rules(schema: &mut Schema) {
    let at_most_once: Vec<Value> = Phase::ALL
        .iter()
        .map(|&p| json!({ "contains": is_phase(&[p]), "minContains": 0, "maxContains": 1 }))
        .collect();
    let mut held_out_passed = result_is(TestOutcome::Passed);
    held_out_passed["properties"]["total"] = json!({ "minimum": 1 });
    let verified_phases = json!({
        "allOf": [{ "contains": is_phase(&[Phase::Red]) }, { "contains": is_phase(&[Phase::Green]) }],
        "items": {
            "allOf": [
                { "if": is_phase(&[Phase::Green]), "then": result_is(TestOutcome::Passed) },
                { "if": is_phase(&[Phase::HeldOut]), "then": held_out_passed }
            ]
        }
    });
    schema.insert(
        "allOf".into(),
        json!([
            { "properties": { "phases": { "allOf": at_most_once } } },
            {
                "if": is_verdict(Verdict::RegressionOnly),
                "then": {
                    "required": ["regression"],
                    "properties": {
                        "regression": { "type": "object" },
                        "acceptance": {
                            "items": { "properties": { "result": { "not": { "const": Verdict::Verified.as_str() } } } }
                        }
                    }
                },
                "else": { "properties": { "regression": { "type": "null" } } }
            },
            { "if": is_verdict(Verdict::Verified), "then": { "properties": { "phases": verified_phases } } }
        ]),
    );
}
