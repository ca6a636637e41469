//! What a carry that is refused tells its user to do, and the row of a task whose change differs
//! from the attested one: shared by the plan (which finds such a change before any check) and the
//! checks.

use gix::ObjectId;

use super::RefusedRow;
use crate::spec;

/// How to give a task whose evidence cannot be carried new evidence: the branch ticks it already,
/// and `attest` ticks only an open task.
pub(super) fn attest_again(target: &str) -> String {
    let is_bug = target.split_once('/').is_some_and(|(_, task)| task.starts_with(spec::BUG_TASK_PREFIX));
    if is_bug {
        // A bug task has no box: a changed bug home is closed again by attesting it.
        return format!(
            "to close it again, run its checks, then run `speccoder attest {target} --evidence <the new evidence>`"
        );
    }
    format!(
        "to attest it again, run its checks, clear its box in tasks.md in a commit of its own, then run `speccoder attest {target} --evidence <the new evidence>`"
    )
}

/// The row of a task whose change differs from the attested one.
pub(super) fn change_differs(target: &str, from: ObjectId, to: ObjectId) -> RefusedRow {
    RefusedRow {
        target: target.to_owned(),
        from: from.to_string(),
        to: to.to_string(),
        code: "change_differs",
        reason: format!(
            "the task's change differs from the attested one (attested: {from}, now: {to}); {}",
            attest_again(target)
        ),
    }
}
