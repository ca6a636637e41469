//! Why a tick is `regression_only` (task-verification revision 3).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The recorded reason a task was closed on regression evidence alone: no red run proved it.
///
/// `code` is open-ended so that a newer runner's codes still read; the codes speccoder writes are
/// `already_passing` (the acceptance tests passed before the change), `no_behaviour` (a refactor,
/// documentation or build task with nothing observable to test) and `untestable` (the behaviour
/// cannot be exercised by the project's test harness).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RegressionReason {
    /// A short reason code, e.g. `already_passing`.
    pub code: String,
    /// The runner's explanation, one line of prose.
    pub detail: String,
}

/// Why a tick is regression-only, as the evidence file records it (no red run proved the task;
/// the codes are open-ended, as in the statement): these members and no other. (A signed
/// statement's `regression` is read tolerantly, as a newer producer may add members.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedRegression {
    /// A short reason code, e.g. `already_passing`.
    pub code: String,
    /// The runner's explanation, one line of prose.
    pub detail: String,
}

impl From<RecordedRegression> for RegressionReason {
    fn from(r: RecordedRegression) -> Self {
        RegressionReason { code: r.code, detail: r.detail }
    }
}
