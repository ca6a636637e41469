//! Ticks the reader cannot check, each a row that fails the branch, never a line skipped: a
//! checked box that is not a task (`unrecognized_tick`: renaming a tick out of the reader's sight,
//! `T008:`, a Cyrillic `Т008`, a `+` bullet, a box inside a comment, cannot hide it), a task list
//! that cannot be read (`tasks_unreadable`: a link, too large, not UTF-8, stored through a
//! filter), a ticked id on more than one task line (`duplicate_task`), and checked boxes in a
//! place that is no unit (`not_a_unit`) or in a task list of a project below the top
//! (`nested_project`).

use crate::check::outcome::{CommitOutcome, Finding};
use crate::spec::{SpecError, Stray, Ticked, UnitLoc, UnreadTick};
use crate::verify::report::TickReport;

/// The reason code of a checked box that is not read as a task.
pub const UNRECOGNIZED_TICK: &str = "unrecognized_tick";
/// The reason code of a unit whose task list cannot be read.
pub const TASKS_UNREADABLE: &str = "tasks_unreadable";
/// The reason code of a ticked task whose id is on more than one task line.
pub const DUPLICATE_TASK: &str = "duplicate_task";
/// The reason code of checked boxes in a task list that is no unit's.
pub const NOT_A_UNIT: &str = "not_a_unit";
/// The reason code of checked boxes in a task list of a project of its own below the top.
pub const NESTED_PROJECT: &str = "nested_project";

/// Whether a row of this reason is of a place, not of a unit ([`stray_row`]): no rule of a
/// verifier policy can match it.
#[must_use]
pub fn is_place(reason: &str) -> bool {
    matches!(reason, NOT_A_UNIT | NESTED_PROJECT)
}

/// Whether a row of this reason stands whatever commits a shallow clone lacks: no task commit
/// can read a task list that cannot be read, or tell which of two lines an id names.
#[must_use]
pub fn no_commit_explains(reason: &str) -> bool {
    matches!(reason, TASKS_UNREADABLE | DUPLICATE_TASK)
}

/// A row that fails the branch, its one finding a `mismatch` with what was expected and found.
fn row(task: String, code: &'static str, message: String, expected: &str, found: String) -> TickReport {
    let mut row = TickReport::without_commit(task, code, message);
    for finding in &mut row.findings {
        finding.outcome = CommitOutcome::Mismatch;
        finding.expected = Some(expected.to_owned());
        finding.found = Some(found.clone());
    }
    row
}

/// One unverifiable row per checked box of `unit`'s task list that is not read as a task
/// (`unread`, from [`crate::spec::unit_ticks`]), in line order. The row's task is
/// `<unit>/<tasks.md>:<line>`.
#[must_use]
pub fn unread_tick_rows(unit: &str, unread: Vec<UnreadTick>) -> Vec<TickReport> {
    unread
        .into_iter()
        .map(|tick| {
            let file = tick.tasks_path.rsplit('/').next().unwrap_or_default();
            row(
                format!("{unit}/{file}:{}", tick.line),
                UNRECOGNIZED_TICK,
                format!(
                    "{} line {} holds a checked box that is not read as a task: {}; a tick is \
                     never skipped: write it as a task line (`- [x] <id> ...`) and attest it, or \
                     remove the box",
                    tick.tasks_path, tick.line, tick.reason
                ),
                "a task line, or no checked box",
                tick.shown,
            )
        })
        .collect()
}

/// The row of a unit whose task list cannot be read (`error`): its ticks cannot be told, so none
/// of them is checked. The row's task is `<unit>/tasks.md`; its file the task list, or the
/// attributes file that cannot be read, which the message blames alone.
#[must_use]
pub fn tasks_unreadable_row(unit: &UnitLoc, error: &SpecError) -> TickReport {
    let file = unit.tasks.rsplit('/').next().unwrap_or_default();
    let (message, expected, at) = match error {
        SpecError::AttributesUnreadable { attributes, .. } => (
            format!("the ticks of unit {} cannot be checked: {error}", unit.name),
            "an attributes file git reads (less than 100 MiB, its blob in the repository)",
            attributes.clone(),
        ),
        _ => (
            format!(
                "the task list of unit {} cannot be read, so none of its ticks can be checked: {error}",
                unit.name
            ),
            "a task list stored as its plain UTF-8 text, of at most 1 MiB",
            unit.tasks.clone(),
        ),
    };
    let mut row = row(format!("{}/{file}", unit.name), TASKS_UNREADABLE, message, expected, at);
    row.findings = row.findings.into_iter().map(|f| f.spec_unread(error)).collect();
    row
}

/// The row of `target`, whose box counts as set by `setter`, `when` its evidence, only because
/// the task list of `unit` could not be read at `parent` (`error`): whether `setter` set the box
/// again or kept it as that list had it cannot be told, so the tick is not checked. The finding
/// names the object the repository lacks or holds corrupt, when that is why.
#[must_use]
pub fn unread_before_row(
    target: &str,
    unit: &str,
    setter: gix::ObjectId,
    (parent, error): (gix::ObjectId, &SpecError),
    when: &str,
) -> TickReport {
    let remedy = if error.missing_object().is_some() || error.corrupt_object().is_some() {
        "repair the repository and check again"
    } else {
        "untick the task in a commit of its own and attest it again"
    };
    let message = format!(
        "the task list of unit {unit} could not be read at {parent} ({error}), so the box counts as set by {setter}, its child, {when}: whether the tick the head shows is the evidenced one cannot be told; {remedy}"
    );
    let mut row = TickReport::without_commit(target.to_owned(), TASKS_UNREADABLE, message);
    row.findings = (row.findings.into_iter())
        .map(|f| Finding { outcome: CommitOutcome::Mismatch, ..f }.spec_unread(error))
        .collect();
    row
}

/// The row of a ticked task whose id is on more than one task line of `unit`: which line the
/// tick and any evidence are about cannot be told.
#[must_use]
pub fn duplicate_task_row(unit: &UnitLoc, tick: &Ticked) -> TickReport {
    let lines = crate::spec::lines_listed(&tick.lines);
    let error = SpecError::DuplicateTask {
        task: tick.id.clone(),
        tasks_path: unit.tasks.clone(),
        lines: lines.clone(),
    };
    row(
        format!("{}/{}", unit.name, tick.id),
        DUPLICATE_TASK,
        format!("the task is ticked, but which line the tick is cannot be told: {error}"),
        "one task line with this id",
        format!("lines {lines}"),
    )
}

/// The row of checked boxes (or a place that may hold some) outside every unit: `not_a_unit`, or
/// `nested_project` in a task list of a project below the top. The row's task is the place's path.
#[must_use]
pub fn stray_row(stray: &Stray) -> TickReport {
    let (code, expected) = match stray.project {
        Some(_) => (NESTED_PROJECT, "no checked box in a project below the top"),
        None => (NOT_A_UNIT, "no checked box outside a unit"),
    };
    let (holds, found) = match stray.checked.as_slice() {
        _ if stray.stopped => (
            "was not searched for ticks that are no unit's (the search stopped at its limit), so none there can be checked",
            "a place not searched".to_owned(),
        ),
        [] => (
            "may hold ticks that are no unit's, and none of them can be checked",
            "a place that cannot be read".to_owned(),
        ),
        lines => (
            "holds ticks that are no unit's, so none of them is checked",
            format!("checked boxes on line(s) {}", crate::spec::lines_listed(lines)),
        ),
    };
    row(stray.shown.clone(), code, format!("{} {holds}: {}", stray.shown, stray.reason), expected, found)
}

/// Whether the repository or the work tree failed for `e` without naming an object it lacks or
/// holds corrupt (an I/O error): no row can say what to repair, so the run stops. An object that
/// cannot be read is named by the row of what needed it, and the run ends as a repository to
/// repair ([`crate::verify::report::ReportEnd::lacks`]).
pub(super) fn failed_without_object(e: &SpecError) -> bool {
    e.is_repository_failure() && e.missing_object().is_none() && e.corrupt_object().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{MemTree, UNIT_DIRS_LIMIT, scan_units};

    #[test]
    fn a_unit_the_search_s_limit_stopped_before_is_said_to_be_not_searched_never_unreadable() {
        let files = (0..=UNIT_DIRS_LIMIT).map(|n| (format!("specs/{n:05}-unit/tasks.md"), "- [ ] T001 a\n"));
        let scan = scan_units(&MemTree::from_files(files).unwrap()).unwrap();
        let [stray] = scan.strays.as_slice() else { panic!("one stray: {:?}", scan.strays) };
        let row = stray_row(stray);
        assert_eq!(row.task, format!("specs/{UNIT_DIRS_LIMIT:05}-unit"));
        assert_eq!(row.reason.as_deref(), Some(NOT_A_UNIT));
        let finding = &row.findings[0];
        assert_eq!(finding.found.as_deref(), Some("a place not searched"));
        assert!(
            finding
                .message
                .contains("was not searched for ticks that are no unit's (the search stopped at its limit)"),
            "{}",
            finding.message
        );
        assert!(
            finding.message.contains(&format!("at most {UNIT_DIRS_LIMIT} directories")),
            "{}",
            finding.message
        );
    }
}
