//! The evidence file: the runner's hand-off to `speccoder attest`. It says what happened; every
//! fact that can be computed from the repository (hashes, tree, policy, subject) is computed by us
//! and never read from here. Unknown fields are errors, so a typo never passes silently.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::collection::RecordedCollection;
use super::dialect::Dialect;
use super::predicate::{RedKind, Verdict};
use super::regression::RecordedRegression;
use super::test_result::{self, Phase, TestOutcome};

/// The verdict a test run can reach (decisions go through `accept` and `skip` instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TickVerdict {
    /// Red, green (and held-out) proved the task.
    Verified,
    /// Only regression evidence; `regression` says why.
    RegressionOnly,
}

impl TickVerdict {
    /// The verdict the tick records.
    #[must_use]
    pub fn verdict(self) -> Verdict {
        match self {
            TickVerdict::Verified => Verdict::Verified,
            TickVerdict::RegressionOnly => Verdict::RegressionOnly,
        }
    }

    /// The wire spelling, the recorded verdict's.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.verdict().as_str()
    }
}

/// One test phase that ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "phase", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(transform = super::evidence_schema::phase_rules)]
pub enum PhaseRun {
    /// The suite before the change.
    Baseline(SuiteRun),
    /// The new acceptance tests against the unchanged code; the result must be `FAILED`.
    Red(RedRun),
    /// The suite after the change.
    Green(SuiteRun),
    /// The held-out tests.
    HeldOut(HeldOutRun),
}

impl PhaseRun {
    /// Which phase this is.
    #[must_use]
    pub fn phase(&self) -> Phase {
        match self {
            PhaseRun::Baseline(_) => Phase::Baseline,
            PhaseRun::Red(_) => Phase::Red,
            PhaseRun::Green(_) => Phase::Green,
            PhaseRun::HeldOut(_) => Phase::HeldOut,
        }
    }
}

/// A baseline or green run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuiteRun {
    /// The run's result.
    pub result: TestOutcome,
    /// The configuration that ran (e.g. the command); its sha256 becomes the configuration digest.
    pub configuration: String,
    /// Tests that passed.
    #[serde(default)]
    pub passed: Vec<String>,
    /// Tests that passed with warnings.
    #[serde(default)]
    pub warned: Vec<String>,
    /// Tests that failed.
    #[serde(default)]
    pub failed: Vec<String>,
}

/// The red run: the suite's fields (its result always `FAILED`: a red run that passed is no red),
/// the captured output and how the tests failed. Unknown fields stay errors: serde checks the
/// fields left over by the flattened suite against this struct's own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedRun {
    /// The run, as a baseline or green run records it.
    #[serde(flatten)]
    pub run: SuiteRun,
    /// The captured output file, relative to the evidence file.
    #[serde(default)]
    pub output: Option<String>,
    /// How the tests failed.
    pub kind: RedKind,
}

/// The held-out run: counts only, the tests stay hidden.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeldOutRun {
    /// The run's result.
    pub result: TestOutcome,
    /// The held-out set's manifest digest, `sha256:<64 hex>`.
    pub manifest: String,
    /// How many held-out tests passed.
    pub passed: u64,
    /// How many held-out tests ran.
    pub total: u64,
}

/// One acceptance test, becoming a trace row under the task's story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptanceRow {
    /// The scenario, e.g. `US1.1`.
    pub scenario: String,
    /// The test that covers it.
    pub test: String,
    /// Its result, e.g. `verified`.
    pub result: String,
}

/// The evidence file, version 1. The schema says its rules across fields too: each phase at most
/// once, a red run `FAILED` naming its output, a baseline or green run `PASSED` with no failed test, a held-out
/// manifest `sha256:<64 lowercase hex>`, `regression` exactly for `regression_only` (whose
/// acceptance rows never say `verified`), a `verified`
/// tick's red and green phases, its green `PASSED` and its held-out run `PASSED` over at least one
/// test. Two rules compare two fields, which JSON Schema cannot say and `speccoder attest` still
/// refuses: `held_out.passed` at most `held_out.total`, and equal to it in a `verified` tick. Nor
/// can it tell a whole number written with a fraction or an exponent (`11.0`, `1e3`), which
/// `attest` refuses as no count, from one written in digits alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = super::evidence_schema::file_rules)]
pub struct Evidence {
    /// `<unit>/<task>`: must name the task being attested.
    pub task: String,
    /// The run that produced this evidence.
    #[serde(default)]
    pub run: Option<String>,
    /// `verified` or `regression_only`.
    pub verdict: TickVerdict,
    /// Why the tick is regression-only (required then, absent otherwise).
    #[serde(default)]
    pub regression: Option<RecordedRegression>,
    /// The phases that ran, each at most once.
    pub phases: Vec<PhaseRun>,
    /// The acceptance tests.
    #[serde(default)]
    pub acceptance: Vec<AcceptanceRow>,
    /// The diff audit, carried as recorded: `{findings: [...]}`; absent or `null`: no findings.
    #[serde(default)]
    #[schemars(schema_with = "super::audit_shapes::integrity_schema")]
    pub integrity: Option<Value>,
    /// The gaming monitor, carried as recorded: `{state, findings}`; absent or `null`: `off`.
    #[serde(default)]
    #[schemars(schema_with = "super::audit_shapes::monitor_schema")]
    pub monitor: Option<Value>,
    /// Mutation testing, carried as recorded.
    #[serde(default)]
    pub mutation: Option<Value>,
    /// The acceptance set's strength, carried as recorded.
    #[serde(default)]
    pub strength: Option<Value>,
    /// Where the attempt ran, carried as recorded.
    #[serde(default)]
    pub sandbox: Option<Value>,
    /// Who implemented the task, carried as recorded.
    #[serde(default)]
    pub executor: Option<Value>,
    /// The judging model, carried as recorded.
    #[serde(default)]
    pub model: Option<Value>,
    /// People's decisions on the attempt's calls, carried as recorded.
    #[serde(default)]
    pub decisions: Option<Value>,
    /// Instruction files given to the attempt, carried as recorded.
    #[serde(default)]
    pub instructions: Option<Value>,
    /// Which changed test files the run collected.
    #[serde(default)]
    pub collection: Option<RecordedCollection>,
    /// A bug task's evidence, carried as recorded.
    #[serde(default)]
    pub bug: Option<Value>,
    /// Reserved: what reached the model, carried as recorded.
    #[serde(default)]
    pub context: Option<Value>,
    /// Reserved: dependencies the change added, carried as recorded.
    #[serde(default)]
    pub dependencies: Option<Value>,
}

/// Why an evidence file cannot be used, beyond its shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceRuleError {
    /// A phase appears twice.
    #[error("phase `{0}` appears more than once in `phases`; each phase runs at most once")]
    DuplicatePhase(&'static str),
    /// The red phase did not fail.
    #[error("the red phase has result {}: a red run must be FAILED (a red run that passed is no red)", .0.as_str())]
    RedNotFailed(TestOutcome),
    /// A red run that names no captured output, which the signed `red` binds by its digest.
    #[error(
        "the red phase names no `output`: the signed `red` carries the sha256 of the captured output (and how the tests failed, its `kind`), so a red run is recorded with its output; write what the red run printed to a file beside the evidence file and name it in the red phase's `output`"
    )]
    RedWithoutOutput,
    /// An acceptance row that claims `verified` in a tick whose verdict is not.
    #[error(
        "acceptance[{0}] has result `verified`, but the tick's verdict is `regression_only`: a trace row cannot claim more than its tick, since no red run proved the task; record the row's result as `regression_only`"
    )]
    AcceptanceAboveVerdict(usize),
    /// A regression-only tick without its reason, or a reason on a verified tick.
    #[error("{0}")]
    Regression(&'static str),
    /// A verified tick without red and green phases.
    #[error("a `verified` tick needs a red and a green phase; `phases` has {0}")]
    MissingPhases(String),
    /// A held-out manifest digest that is not `sha256:<64 hex>`.
    #[error("held_out.manifest must be `sha256:` followed by 64 lowercase hex digits")]
    Manifest,
    /// A `verified` verdict whose phase says otherwise.
    #[error(
        "a `verified` verdict needs the `{phase}` phase {required}, and this one is {found}: \
         the run does not support the verdict (record it as `regression_only`, or run the phase again)"
    )]
    VerdictContradicted {
        /// The phase.
        phase: &'static str,
        /// What the verdict requires of it.
        required: String,
        /// What the evidence says.
        found: String,
    },
    /// A run that passed, yet names tests that failed.
    #[error(
        "the `{phase}` phase is PASSED yet lists {failed} failed test(s): a run that passed has none; record the result the runner reported"
    )]
    PassedWithFailures {
        /// The phase.
        phase: &'static str,
        /// How many failed tests it lists.
        failed: usize,
    },
    /// Held-out counts that cannot be.
    #[error("held_out.passed ({passed}) is greater than held_out.total ({total})")]
    HeldOutCounts {
        /// Passed.
        passed: u64,
        /// Total.
        total: u64,
    },
}

impl Evidence {
    /// Checks the rules across fields, which the schema says too (`evidence_schema`), all but
    /// the held-out counts compared.
    ///
    /// # Errors
    /// The first rule broken.
    pub fn check_rules(&self) -> Result<(), EvidenceRuleError> {
        let seen = self.check_each_phase()?;
        self.check_regression()?;
        self.check_acceptance()?;
        if self.verdict == TickVerdict::Verified {
            self.check_verified(&seen)?;
        }
        Ok(())
    }

    /// Each phase on its own: at most one run of it, a red run that failed, a pass without
    /// failures, a held-out run with a digest and counts that add up. The phases in order.
    fn check_each_phase(&self) -> Result<Vec<Phase>, EvidenceRuleError> {
        let mut seen = Vec::new();
        for run in &self.phases {
            let phase = run.phase();
            if seen.contains(&phase) {
                return Err(EvidenceRuleError::DuplicatePhase(phase.as_str()));
            }
            seen.push(phase);
            match run {
                PhaseRun::Red(red) if red.run.result != TestOutcome::Failed => {
                    return Err(EvidenceRuleError::RedNotFailed(red.run.result));
                }
                PhaseRun::Red(red) if red.output.is_none() => {
                    return Err(EvidenceRuleError::RedWithoutOutput);
                }
                PhaseRun::Baseline(s) | PhaseRun::Green(s)
                    if s.result == TestOutcome::Passed && !s.failed.is_empty() =>
                {
                    return Err(EvidenceRuleError::PassedWithFailures {
                        phase: phase.as_str(),
                        failed: s.failed.len(),
                    });
                }
                PhaseRun::HeldOut(h) => {
                    let hex = h.manifest.strip_prefix("sha256:").unwrap_or("");
                    if !super::digest::is_sha256_hex(hex) {
                        return Err(EvidenceRuleError::Manifest);
                    }
                    if h.passed > h.total {
                        return Err(EvidenceRuleError::HeldOutCounts { passed: h.passed, total: h.total });
                    }
                }
                _ => {}
            }
        }
        Ok(seen)
    }

    /// `regression` present exactly when the verdict is `regression_only`.
    fn check_regression(&self) -> Result<(), EvidenceRuleError> {
        match (self.verdict, &self.regression) {
            (TickVerdict::RegressionOnly, None) => Err(EvidenceRuleError::Regression(
                "a `regression_only` verdict needs `regression`: {\"code\": ..., \"detail\": ...}",
            )),
            (TickVerdict::Verified, Some(_)) => Err(EvidenceRuleError::Regression(
                "`regression` is only for a `regression_only` verdict; remove it or change the verdict",
            )),
            _ => Ok(()),
        }
    }

    /// No acceptance row claims `verified` in a tick that is not.
    fn check_acceptance(&self) -> Result<(), EvidenceRuleError> {
        let verified = TickVerdict::Verified.as_str();
        match self.acceptance.iter().position(|a| a.result == verified) {
            Some(i) if self.verdict != TickVerdict::Verified => {
                Err(EvidenceRuleError::AcceptanceAboveVerdict(i))
            }
            _ => Ok(()),
        }
    }

    /// A `verified` verdict: every phase's result is the one the verdict requires, a held-out set
    /// holds at least one test, and red and green both ran (`seen`: the phases that ran).
    fn check_verified(&self, seen: &[Phase]) -> Result<(), EvidenceRuleError> {
        for run in &self.phases {
            let (result, counts) = match run {
                PhaseRun::Baseline(s) | PhaseRun::Green(s) | PhaseRun::Red(RedRun { run: s, .. }) => {
                    (s.result, None)
                }
                PhaseRun::HeldOut(h) => (h.result, Some((h.passed, h.total))),
            };
            let phase = run.phase();
            test_result::verified_requires(phase, result, counts, Dialect::Ours).map_err(
                |(required, found)| EvidenceRuleError::VerdictContradicted {
                    phase: phase.as_str(),
                    required,
                    found,
                },
            )?;
            // A held-out set of no test proves nothing (a verifier reads such a note as the
            // published speccoder wrote it; a producer does not write one).
            if counts == Some((0, 0)) {
                return Err(EvidenceRuleError::VerdictContradicted {
                    phase: phase.as_str(),
                    required: "PASSED with passed=total and at least one test".to_owned(),
                    found: "PASSED with passed=0/0".to_owned(),
                });
            }
        }
        if !(seen.contains(&Phase::Red) && seen.contains(&Phase::Green)) {
            let names: Vec<&str> = seen.iter().map(|p| p.as_str()).collect();
            return Err(EvidenceRuleError::MissingPhases(if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }));
        }
        Ok(())
    }

    /// The held-out phase, when it ran.
    #[must_use]
    pub fn held_out(&self) -> Option<&HeldOutRun> {
        self.phases.iter().find_map(|p| match p {
            PhaseRun::HeldOut(h) => Some(h),
            _ => None,
        })
    }

    /// The red phase, when it ran.
    #[must_use]
    pub fn red(&self) -> Option<&RedRun> {
        self.phases.iter().find_map(|p| match p {
            PhaseRun::Red(r) => Some(r),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn example() -> Value {
        json!({
            "task": "001-bookmark-tags/T005",
            "run": "run-1",
            "verdict": "verified",
            "phases": [
                {"phase": "baseline", "result": "PASSED", "configuration": "cargo test", "passed": ["a"]},
                {"phase": "red", "result": "FAILED", "configuration": "cargo test --test tags", "failed": ["t"], "output": "red.log", "kind": "assertion"},
                {"phase": "green", "result": "PASSED", "configuration": "cargo test"},
                {"phase": "held_out", "result": "PASSED", "manifest": format!("sha256:{}", "a".repeat(64)), "passed": 3, "total": 3}
            ]
        })
    }

    #[test]
    fn the_example_evidence_with_every_phase_reads_and_keeps_its_rules() {
        let e: Evidence = serde_json::from_value(example()).unwrap();
        e.check_rules().unwrap();
        assert_eq!(e.held_out().unwrap().passed, 3);
    }

    #[test]
    fn an_unknown_field_at_the_top_or_in_a_phase_is_an_error() {
        let mut v = example();
        v["verdikt"] = json!("verified");
        assert!(serde_json::from_value::<Evidence>(v).unwrap_err().to_string().contains("verdikt"));
        let mut v = example();
        v["phases"][2]["pased"] = json!([]);
        assert!(serde_json::from_value::<Evidence>(v).is_err());
        // The red run flattens the suite's fields; what neither knows is still refused.
        let mut v = example();
        v["phases"][1]["kinds"] = json!("assertion");
        assert!(serde_json::from_value::<Evidence>(v).unwrap_err().to_string().contains("kinds"));
        let mut v = example();
        v["phases"][1]["manifest"] = json!("sha256:00");
        assert!(serde_json::from_value::<Evidence>(v).unwrap_err().to_string().contains("manifest"));
    }

    #[test]
    fn an_unknown_member_of_regression_or_of_a_collected_file_is_an_error() {
        let mut v = example();
        v["verdict"] = json!("regression_only");
        v["regression"] = json!({"code": "already_passing", "detail": "d", "only_on": "linux"});
        assert!(serde_json::from_value::<Evidence>(v).unwrap_err().to_string().contains("only_on"));
        let mut v = example();
        v["collection"] =
            json!({"files": [{"path": "tests/tags.rs", "collected": true, "tests_skipped": 12}]});
        assert!(serde_json::from_value::<Evidence>(v).unwrap_err().to_string().contains("tests_skipped"));
        let mut v = example();
        v["collection"] = json!({"files": [], "skipped": []});
        assert!(serde_json::from_value::<Evidence>(v).unwrap_err().to_string().contains("skipped"));
    }

    #[test]
    fn a_red_run_reads_the_suite_fields_beside_its_own() {
        let e: Evidence = serde_json::from_value(example()).unwrap();
        let red = e.red().unwrap();
        assert_eq!(red.run.result, TestOutcome::Failed);
        assert_eq!(red.run.configuration, "cargo test --test tags");
        assert_eq!(red.run.failed, ["t"]);
        assert_eq!((red.output.as_deref(), red.kind), (Some("red.log"), RedKind::Assertion));
        let mut v = example();
        v["phases"][1].as_object_mut().unwrap().remove("configuration");
        assert!(serde_json::from_value::<Evidence>(v).unwrap_err().to_string().contains("configuration"));
    }

    #[test]
    fn a_red_that_passed_or_a_phase_twice_breaks_the_rules() {
        let mut v = example();
        v["phases"][1]["result"] = json!("PASSED");
        let e: Evidence = serde_json::from_value(v).unwrap();
        assert!(matches!(e.check_rules(), Err(EvidenceRuleError::RedNotFailed(_))));
        let mut v = example();
        let green = v["phases"][2].clone();
        v["phases"].as_array_mut().unwrap().push(green);
        let e: Evidence = serde_json::from_value(v).unwrap();
        assert_eq!(e.check_rules(), Err(EvidenceRuleError::DuplicatePhase("green")));
    }

    #[test]
    fn an_acceptance_row_verified_in_a_regression_only_tick_is_refused_and_one_below_a_verified_tick_is_not()
    {
        let mut v = example();
        v["verdict"] = json!("regression_only");
        v["regression"] = json!({"code": "no_behaviour", "detail": "a refactor"});
        v["phases"] = json!([]);
        v["acceptance"] = json!([
            {"scenario": "US1.1", "test": "t", "result": "regression_only"},
            {"scenario": "US1.2", "test": "t", "result": "verified"}
        ]);
        let e: Evidence = serde_json::from_value(v).unwrap();
        assert_eq!(e.check_rules(), Err(EvidenceRuleError::AcceptanceAboveVerdict(1)));
        let mut v = example();
        v["acceptance"] = json!([{"scenario": "US1.1", "test": "t", "result": "regression_only"}]);
        let e: Evidence = serde_json::from_value(v).unwrap();
        assert_eq!(e.check_rules(), Ok(()));
    }

    #[test]
    fn a_red_run_without_its_output_is_refused_saying_to_name_the_output() {
        let mut v = example();
        v["phases"][1].as_object_mut().unwrap().remove("output");
        v["phases"][1]["kind"] = json!("missing_symbol");
        let e: Evidence = serde_json::from_value(v).unwrap();
        assert_eq!(e.check_rules(), Err(EvidenceRuleError::RedWithoutOutput));
        let message = EvidenceRuleError::RedWithoutOutput.to_string();
        assert!(
            message.contains("names no `output`") && message.contains("name it in the red phase's `output`")
        );
    }

    #[test]
    fn a_run_that_passed_with_failures_or_a_held_out_set_of_no_test_contradicts_itself() {
        for phase in [0, 2] {
            let mut v = example();
            v["phases"][phase]["failed"] = json!(["tests/tags.rs"]);
            let e: Evidence = serde_json::from_value(v).unwrap();
            assert!(matches!(e.check_rules(), Err(EvidenceRuleError::PassedWithFailures { failed: 1, .. })));
        }
        let mut v = example();
        v["phases"][3]["passed"] = json!(0);
        v["phases"][3]["total"] = json!(0);
        let e: Evidence = serde_json::from_value(v.clone()).unwrap();
        let err = e.check_rules().unwrap_err().to_string();
        assert!(err.contains("at least one test") && err.contains("passed=0/0"), "{err}");
        v["verdict"] = json!("regression_only");
        v["regression"] = json!({"code": "already_passing", "detail": "d"});
        let e: Evidence = serde_json::from_value(v).unwrap();
        assert_eq!(e.check_rules(), Ok(()), "a regression-only tick claims nothing of it");
    }

    #[test]
    fn regression_only_needs_its_reason_and_verified_needs_red_and_green() {
        let mut v = example();
        v["verdict"] = json!("regression_only");
        let e: Evidence = serde_json::from_value(v.clone()).unwrap();
        assert!(matches!(e.check_rules(), Err(EvidenceRuleError::Regression(_))));
        v["regression"] = json!({"code": "already_passing", "detail": "x"});
        let e: Evidence = serde_json::from_value(v).unwrap();
        e.check_rules().unwrap();
        let mut v = example();
        v["phases"] = json!([]);
        let e: Evidence = serde_json::from_value(v).unwrap();
        assert!(matches!(e.check_rules(), Err(EvidenceRuleError::MissingPhases(_))));
    }
}
