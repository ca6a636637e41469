//! The in-toto test-result predicate v0.1: one line per test phase that ran.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::dialect::Dialect;

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

impl TestOutcome {
    /// The wire spelling: `PASSED`, `WARNED`, `FAILED`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TestOutcome::Passed => "PASSED",
            TestOutcome::Warned => "WARNED",
            TestOutcome::Failed => "FAILED",
        }
    }
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

    /// The manifest digest (hex) a held_out line names in `configuration[0].digest.sha256`, when
    /// this is a held_out line and the digest is 64 lowercase hex digits.
    #[must_use]
    pub fn held_out_manifest(&self) -> Option<&str> {
        if self.phase() != Some(Phase::HeldOut) {
            return None;
        }
        let hex = self.configuration.first()?.digest.get("sha256")?;
        crate::model::digest::is_sha256_hex(hex).then_some(hex.as_str())
    }

    /// The held-out counts `(passed, total)` of `configuration[0].annotations`, when both are
    /// whole numbers.
    #[must_use]
    pub fn held_out_counts(&self) -> Option<(u64, u64)> {
        let annotations = self.configuration.first()?.annotations.as_ref()?;
        Some((annotations.get("passed")?.as_u64()?, annotations.get("total")?.as_u64()?))
    }
}

/// What a `verified` verdict requires of the run of `phase`: green PASSED, and held-out PASSED
/// with every held-out test passed (`counts` is its `(passed, total)`). Baseline and red require
/// nothing of it here (red must fail whatever the verdict).
///
/// In `dialect`'s shapes: this crate signs the held-out counts, so a held_out line without them
/// proves nothing; the published speccoder signs none, and writes its held_out line only when
/// every held-out test passed, as `PASSED` (its `Held-Out:` trailer repeats the count, unsigned),
/// so there `PASSED` without counts is every test passed.
///
/// # Errors
/// What contradicts the verdict, as `(what was required, what was found)`.
pub fn verified_requires(
    phase: Phase,
    result: TestOutcome,
    counts: Option<(u64, u64)>,
    dialect: Dialect,
) -> Result<(), (String, String)> {
    match phase {
        Phase::Baseline | Phase::Red => Ok(()),
        Phase::Green if result == TestOutcome::Passed => Ok(()),
        Phase::Green => Err(("PASSED".to_owned(), result.as_str().to_owned())),
        Phase::HeldOut => match counts {
            Some((passed, total)) if result == TestOutcome::Passed && passed == total => Ok(()),
            Some((passed, total)) => Err((
                "PASSED with passed=total".to_owned(),
                format!("{} with passed={passed}/{total}", result.as_str()),
            )),
            None if dialect == Dialect::Published && result == TestOutcome::Passed => Ok(()),
            None if dialect == Dialect::Published => Err(("PASSED".to_owned(), result.as_str().to_owned())),
            None => {
                Err(("PASSED with passed=total".to_owned(), format!("{} without counts", result.as_str())))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verified_verdict_needs_green_passed_and_every_held_out_test_passed() {
        use TestOutcome::{Failed, Passed, Warned};
        let ours = |phase, result, counts| verified_requires(phase, result, counts, Dialect::Ours);
        assert!(ours(Phase::Green, Passed, None).is_ok());
        assert!(ours(Phase::Red, Failed, None).is_ok());
        assert!(ours(Phase::Baseline, Warned, None).is_ok());
        assert!(ours(Phase::HeldOut, Passed, Some((3, 3))).is_ok());
        assert_eq!(ours(Phase::Green, Warned, None).unwrap_err().1, "WARNED");
        let (required, found) = ours(Phase::HeldOut, Passed, Some((2, 3))).unwrap_err();
        assert_eq!(
            (required.as_str(), found.as_str()),
            ("PASSED with passed=total", "PASSED with passed=2/3")
        );
        assert!(ours(Phase::HeldOut, Failed, Some((0, 0))).is_err());
        assert!(ours(Phase::HeldOut, Passed, None).is_err());
    }

    #[test]
    fn a_held_out_pass_without_counts_is_every_test_passed_only_in_the_published_speccoders_shapes() {
        use TestOutcome::{Failed, Passed};
        let published =
            |result, counts| verified_requires(Phase::HeldOut, result, counts, Dialect::Published);
        assert!(published(Passed, None).is_ok());
        assert_eq!(published(Failed, None).unwrap_err(), ("PASSED".to_owned(), "FAILED".to_owned()));
        assert!(published(Passed, Some((1, 2))).is_err(), "counts it signs are still held to");
        let ours = verified_requires(Phase::HeldOut, Passed, None, Dialect::Ours).unwrap_err();
        assert_eq!(ours.1, "PASSED without counts");
    }
}
