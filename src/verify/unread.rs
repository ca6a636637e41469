//! Checked boxes that are not tasks: a tick the reader cannot check is a finding that fails the
//! branch (`unrecognized_tick`), never a line skipped. Renaming a tick out of the reader's sight
//! (`T008:`, a Cyrillic `Т008`, a `+` bullet, a box inside a comment) cannot hide it.

use crate::check::outcome::CommitOutcome;
use crate::spec::{self, SourceTree};
use crate::verify::report::TickReport;

/// The reason code of such a row.
pub const UNRECOGNIZED_TICK: &str = "unrecognized_tick";

/// One unverifiable row per checked box of `unit`'s task list at the head that is not read as a
/// task, in line order. The row's task is `<unit>/<tasks.md>:<line>`.
///
/// # Errors
/// The unit's task list cannot be read (a symbolic link, too large, not UTF-8).
pub fn unread_tick_rows(head_tree: &dyn SourceTree, unit: &str) -> Result<Vec<TickReport>, spec::SpecError> {
    Ok(spec::unread_ticks(head_tree, unit)?
        .into_iter()
        .map(|tick| {
            let file = tick.tasks_path.rsplit('/').next().unwrap_or_default();
            let mut row = TickReport::without_commit(
                format!("{unit}/{file}:{}", tick.line),
                UNRECOGNIZED_TICK,
                format!(
                    "{} line {} holds a checked box that is not read as a task: {}; a tick is \
                     never skipped: write it as a task line (`- [x] <id> ...`) and attest it, or \
                     remove the box",
                    tick.tasks_path, tick.line, tick.reason
                ),
            );
            for finding in &mut row.findings {
                finding.outcome = CommitOutcome::Mismatch;
                finding.expected = Some("a task line, or no checked box".to_owned());
                finding.found = Some(tick.shown.clone());
            }
            row
        })
        .collect())
}
