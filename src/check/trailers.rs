//! The task and verdict a commit claims: its `Spec-Task:` and `Verdict:` trailers.

use crate::git::trailers;

/// The trailer naming the task.
pub const SPEC_TASK: &str = "Spec-Task";
/// The trailer naming the verdict.
pub const VERDICT: &str = "Verdict";

/// The `Spec-Task:` and `Verdict:` trailers of a commit message (the last of each).
#[must_use]
pub fn task_trailers(message: &str) -> (Option<String>, Option<String>) {
    let found = trailers::parse(message);
    let last = |key: &str| {
        found.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim().to_owned())
    };
    (last(SPEC_TASK), last(VERDICT))
}
