//! The in-toto test-result predicate v0.1: one line per test phase that ran.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The predicate type URI.
pub const TYPE: &str = "https://in-toto.io/attestation/test-result/v0.1";

/// The prefix of `configuration[0].name` that names the phase.
pub const PHASE_PREFIX: &str = "speccoder:phase/";

/// The test phases speccoder runs, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The suite before the change: what already passed.
    Baseline,
    /// The new acceptance tests against the unchanged code: they must fail.
    Red,
    /// The suite after the change: everything passes.
    Green,
    /// The tests the implementer never saw.
    HeldOut,
}

impl Phase {
    /// All phases, in running order.
    pub const ALL: [Phase; 4] = [Phase::Baseline, Phase::Red, Phase::Green, Phase::HeldOut];

    /// The wire spelling: `baseline`, `red`, `green`, `held_out`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Baseline => "baseline",
            Phase::Red => "red",
            Phase::Green => "green",
            Phase::HeldOut => "held_out",
        }
    }

    /// Reads the wire spelling.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Phase::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// `speccoder:phase/<phase>`, the configuration name of its test-result line.
    #[must_use]
    pub fn configuration_name(self) -> String {
        format!("{PHASE_PREFIX}{}", self.as_str())
    }
}

/// A test run's overall result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum TestOutcome {
    /// Every test passed.
    Passed,
    /// Passed with warnings.
    Warned,
    /// At least one test failed.
    Failed,
}

/// An in-toto resource descriptor, as far as test-result configurations use it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceDescriptor {
    /// `speccoder:phase/<phase>`.
    pub name: String,
    /// `{"sha256": ...}`: the phase's configuration (for `held_out`, the manifest's digest).
    pub digest: BTreeMap<String, String>,
    /// Extra facts about the resource; for `held_out`, `{passed, total}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, Value>>,
}

/// The test-result v0.1 predicate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestResult {
    /// The run's result; a red phase is `FAILED` by definition.
    pub result: TestOutcome,
    /// The configuration that ran; the first entry names the phase.
    pub configuration: Vec<ResourceDescriptor>,
    /// The tests that passed.
    #[serde(rename = "passedTests", default)]
    pub passed_tests: Vec<String>,
    /// The tests that failed.
    #[serde(rename = "failedTests", default)]
    pub failed_tests: Vec<String>,
    /// The tests that passed with warnings.
    #[serde(rename = "warnedTests", default)]
    pub warned_tests: Vec<String>,
}

impl TestResult {
    /// The phase this line is about, read from `configuration[0].name`.
    #[must_use]
    pub fn phase(&self) -> Option<Phase> {
        let name = self.configuration.first()?.name.strip_prefix(PHASE_PREFIX)?;
        Phase::parse(name)
    }
}
