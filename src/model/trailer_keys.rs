//! The keys of the trailers of a task commit, in the order speccoder writes them: what the
//! producer writes and the verifier reads are these same names.

/// `<unit>/<task>`.
pub const SPEC_TASK: &str = "Spec-Task";
/// `verified`, `regression_only`, `attested`, `skipped`.
pub const VERDICT: &str = "Verdict";
/// Why a tick is regression-only.
pub const REGRESSION_ONLY: &str = "Regression-Only";
/// `passed=<k>/<n> manifest=sha256:<hex>`, `off`, or `absent=<reason>`.
pub const HELD_OUT: &str = "Held-Out";
/// The run id.
pub const RUN: &str = "Run";
/// Who accepted a task.
pub const ACCEPTED_BY: &str = "Accepted-By";
/// Who skipped a task.
pub const SKIPPED_BY: &str = "Skipped-By";
/// A decision's reason.
pub const REASON: &str = "Reason";
