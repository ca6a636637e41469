//! What a verifier reads of task lists: the ticks of a unit, the line of a task at the head, the
//! checked boxes that are not tasks. Only task lists are read here, never a spec document: a
//! ticked box is a claim whatever spec.md says, and a line hash is the line's.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::error::SpecError;
use super::task::{TaskId, find_listed, read_any_task, read_task_list_at, unit_task_list};
use super::task_line::{TaskLine, is_task_id, line_hash};
use super::task_list::TaskList;
use super::task_lists::TaskLists;
use super::tree::SourceTree;
use super::unit::{Format, TASK_LIST_FILE, UnitLoc};

/// How a task is worded in a task list: what a tick binds of its text, and whether its box is
/// ticked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskWording {
    /// `task.line_hash` of its line ([`line_hash`]).
    pub line_hash: String,
    /// The lines that continue its paragraph ([`super::TaskFacts::continuation`]).
    pub continuation: Vec<String>,
    /// Whether its box is ticked (`[x]` or `[X]`); a bug task has no box: never.
    pub ticked: bool,
    /// Its task list's path, project-relative (a bug task's home, `.specify/bugs/<slug>`).
    pub tasks_path: Arc<str>,
    /// The 1-based number of its line in that task list; none for a bug task, which has no line.
    pub line: Option<usize>,
}

impl TaskWording {
    /// The wording of the task on line `index` of `list`, the task list at `tasks_path`.
    fn at(list: &TaskList, index: usize, tasks_path: Arc<str>) -> Self {
        TaskWording {
            line_hash: line_hash(list.line(index)),
            continuation: list.continuation(index).into_iter().map(str::to_owned).collect(),
            ticked: list.task_at(index).is_some_and(|task| task.ticked),
            tasks_path,
            line: Some(index + 1),
        }
    }
}

/// The task lines of one tree, each unit's task list read once: for a verifier that asks the
/// same tree (the head under review) about every ticked task, where reading the list again per
/// task would make a unit of n tasks cost n² to check.
pub struct TreeTaskLines<T> {
    /// The tree read.
    tree: T,
    /// Per unit, the wording of each listed task whose id names exactly one task line (`None`:
    /// the unit or its list did not read).
    units: RefCell<HashMap<String, Option<HashMap<String, TaskWording>>>>,
}

impl<T: SourceTree> TreeTaskLines<T> {
    /// The task lines of `tree`; nothing is read until asked.
    pub fn new(tree: T) -> Self {
        TreeTaskLines { tree, units: RefCell::default() }
    }

    /// The tree read.
    pub fn tree(&self) -> &T {
        &self.tree
    }

    /// The wording of task `task_id` of `unit` (a bug task's line hash as [`read_any_task`] gives
    /// it), and the error that finding the task gives when it gives one (an unknown unit or task,
    /// a duplicated id, a task list that cannot be read). The spec documents are not read: the
    /// wording is the task list's alone.
    pub fn wording(&self, unit: &str, task_id: &str) -> Result<TaskWording, SpecError> {
        if !matches!(TaskId::parse(task_id), Ok(TaskId::Listed(_))) {
            return read_any_task(&self.tree, unit, task_id).map(|facts| TaskWording {
                line_hash: facts.line_hash,
                continuation: facts.continuation,
                ticked: facts.ticked,
                tasks_path: facts.tasks_path.into(),
                line: None,
            });
        }
        if let Some(wording) = self.listed(unit, task_id) {
            return Ok(wording);
        }
        let (loc, list, index) = find_listed(&self.tree, unit, task_id, &TaskLists::default())?;
        Ok(TaskWording::at(&list, index, loc.tasks.into()))
    }

    /// The wording of the listed task `task_id` of `unit` as the one reading of its task list
    /// gives it; none when the unit or its task list does not read, or when no task line, or more
    /// than one, has the id (a bug task has no line). Unlike [`Self::wording`], a task the list
    /// does not hold costs no second reading, to say why: for a reader asking after many tasks of
    /// one tree that need not be there (a policy's baseline, once per hand tick).
    pub fn listed(&self, unit: &str, task_id: &str) -> Option<TaskWording> {
        let mut units = self.units.borrow_mut();
        let known = units.entry(unit.to_owned()).or_insert_with(|| self.read_unit(unit));
        known.as_ref()?.get(task_id).cloned()
    }

    /// The wording of every task of `unit` whose id names exactly one task line.
    fn read_unit(&self, unit: &str) -> Option<HashMap<String, TaskWording>> {
        let (loc, text) = unit_task_list(&self.tree, unit).ok()??;
        let list = TaskList::read(text, loc.format);
        let all = list.tasks();
        let once = |task: &TaskLine<'_>| list.lines_of(task.id).nth(1).is_none();
        let tasks_path: Arc<str> = loc.tasks.into();
        Some(
            all.iter()
                .filter(|(_, task)| once(task) && is_task_id(loc.format, task.id))
                .map(|(index, task)| {
                    (task.id.to_owned(), TaskWording::at(&list, *index, Arc::clone(&tasks_path)))
                })
                .collect(),
        )
    }
}

/// The ids of the ticked tasks of `unit`, in line order; a unit without a task list has none.
/// Read by the same reader as [`super::ticked_tasks`], without the spec documents: for comparing
/// the ticks of two trees.
pub fn ticked_ids(tree: &dyn SourceTree, unit: &str) -> Result<Vec<String>, SpecError> {
    let Some((loc, text)) = unit_task_list(tree, unit)? else {
        return Ok(Vec::new());
    };
    Ok(TaskList::read(text, loc.format).ticked_ids())
}

/// A ticked id of a task list, as a reader comparing the list's versions reads its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickedBox<'l> {
    /// The task id.
    pub id: &'l str,
    /// Whether more than one task line has the id (ticked or not): no one box is then the task's,
    /// and a line other than the one a task commit ticked may be the one that shows the tick.
    pub duplicated: bool,
}

/// The ticked boxes of one reading of a task list, found once for the reading however often it
/// is asked (a verifier asks a commit's list, then the same list as the next commit's parent's);
/// none when there is no task list.
#[derive(Clone, Default)]
pub struct ListTicks(Option<Arc<TaskList>>);

impl ListTicks {
    /// The ticked ids, each once, in the order of their first ticked line.
    pub fn boxes(&self) -> impl Iterator<Item = TickedBox<'_>> {
        let boxes = self.0.as_deref().map(TaskList::ticked_boxes).into_iter().flatten();
        boxes.map(|(id, duplicated)| TickedBox { id, duplicated })
    }

    /// Whether `id` is ticked on one task line and no other task line has it.
    #[must_use]
    pub fn ticks_on_one_line(&self, id: &str) -> bool {
        self.0.as_deref().is_some_and(|list| list.ticks_on_one_line(id))
    }
}

/// The ticked boxes of the unit at `loc` (from a [`super::UnitLocator`] or
/// [`super::scan_units`]); a unit without a task list has none.
///
/// # Errors
/// A task list that is a symbolic link, too large, or not UTF-8.
pub fn ticked_boxes_at(tree: &dyn SourceTree, loc: &UnitLoc) -> Result<ListTicks, SpecError> {
    let text = read_task_list_at(tree, &loc.tasks)?;
    Ok(ListTicks(text.map(|text| Arc::new(TaskList::read(text, loc.format)))))
}

/// [`ticked_boxes_at`] of the unit whose directory is the root of `unit_dir` (a view of the
/// unit's own tree, for a caller that already holds its id), in `format`, the task list parsed
/// through `lists`.
///
/// # Errors
/// A task list that is a symbolic link, too large, or not UTF-8.
pub fn ticked_boxes_in_dir(
    unit_dir: &dyn SourceTree,
    format: Format,
    lists: &TaskLists,
) -> Result<ListTicks, SpecError> {
    let text = read_task_list_at(unit_dir, TASK_LIST_FILE)?;
    Ok(ListTicks(text.map(|text| lists.read(text, format))))
}

/// A checked box in a unit's task list that is not read as a task (see `task_list.rs`): a tick
/// that speccoder cannot check, which a verifier reports instead of skipping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadTick {
    /// The task list's path, project-relative.
    pub tasks_path: String,
    /// The 1-based line number.
    pub line: usize,
    /// The line, control characters escaped, cut at 200 characters.
    pub shown: String,
    /// Why it is not read as a task.
    pub reason: String,
}

/// A ticked task of a unit's task list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticked {
    /// Its id.
    pub id: String,
    /// The 1-based lines of every task line with this id, ticked or not: more than one, and the
    /// id is ambiguous.
    pub lines: Vec<usize>,
}

/// The ticks a unit's task list holds, as one reading of it gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnitTicks {
    /// The ticked tasks, each id once, in the order of their first ticked line.
    pub ticked: Vec<Ticked>,
    /// The checked boxes that are not read as tasks, in line order.
    pub unread: Vec<UnreadTick>,
}

/// The ticks of the unit at `loc` (from [`super::scan_units`] or [`super::locate_unit`]); none
/// when it has no task list. Only the task list is read: a tick is listed whatever the spec
/// documents say, and whether they can be read.
///
/// # Errors
/// The task list cannot be read (a symbolic link, too large, not UTF-8).
pub fn unit_ticks(tree: &dyn SourceTree, loc: &UnitLoc) -> Result<UnitTicks, SpecError> {
    let Some(text) = read_task_list_at(tree, &loc.tasks)? else {
        return Ok(UnitTicks::default());
    };
    let list = TaskList::read(text, loc.format);
    let mut ticked: Vec<Ticked> = Vec::new();
    let mut seen = HashSet::new();
    for (_, task) in list.tasks().iter().filter(|(_, t)| t.ticked) {
        if seen.insert(task.id) {
            let lines = list.lines_of(task.id).map(|i| i + 1).collect();
            ticked.push(Ticked { id: task.id.to_owned(), lines });
        }
    }
    Ok(UnitTicks { ticked, unread: unread_of(&list, &loc.tasks) })
}

/// The checked boxes of `list` (at `path`) that are not read as tasks.
fn unread_of(list: &TaskList, path: &str) -> Vec<UnreadTick> {
    list.unread()
        .iter()
        .filter(|u| u.checked)
        .map(|u| UnreadTick {
            tasks_path: path.to_owned(),
            line: u.line_index + 1,
            shown: u.shown.clone(),
            reason: u.reason.clone(),
        })
        .collect()
}

/// Every checked box of `unit`'s task list that is not read as a task, in line order; none when
/// the unit has no task list. Read by the same reader as [`super::ticked_tasks`] and
/// [`super::read_task`].
pub fn unread_ticks(tree: &dyn SourceTree, unit: &str) -> Result<Vec<UnreadTick>, SpecError> {
    let Some((loc, text)) = unit_task_list(tree, unit)? else {
        return Ok(Vec::new());
    };
    Ok(unread_of(&TaskList::read(text, loc.format), &loc.tasks))
}

/// The 1-based lines of every checked box of the task list at `path` read as `format`, task or
/// not, in line order; none when there is no file there.
pub(crate) fn checked_box_lines(
    tree: &dyn SourceTree,
    path: &str,
    format: Format,
) -> Result<Vec<usize>, SpecError> {
    let Some(text) = read_task_list_at(tree, path)? else {
        return Ok(Vec::new());
    };
    let list = TaskList::read(text, format);
    let mut lines: Vec<usize> = list.tasks().iter().filter(|(_, t)| t.ticked).map(|(i, _)| i + 1).collect();
    lines.extend(list.unread().iter().filter(|u| u.checked).map(|u| u.line_index + 1));
    lines.sort_unstable();
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::digest::sha256_hex;
    use crate::spec::tree::MemTree;

    fn loc(tree: &MemTree, unit: &str) -> UnitLoc {
        crate::spec::locate_unit(tree, unit).unwrap()
    }

    #[test]
    fn a_unit_s_ticks_need_no_spec_document_and_name_a_duplicated_id_s_lines() {
        let tree = MemTree::from_files([(
            "specs/001-x/tasks.md",
            "- [x] T001 [US1] Story without spec.md\n- [X] T002 a (FR-001)\n- [ ] T002 again\n- [x] T002 thrice\n+ [x] T003 plus\n",
        )])
        .unwrap();
        let ticks = unit_ticks(&tree, &loc(&tree, "001-x")).unwrap();
        assert_eq!(
            ticks.ticked,
            [
                Ticked { id: "T001".into(), lines: vec![1] },
                Ticked { id: "T002".into(), lines: vec![2, 3, 4] }
            ]
        );
        assert_eq!(ticks.unread.iter().map(|u| u.line).collect::<Vec<_>>(), [5]);
        let bare = MemTree::from_files([("specs/001-x/spec.md", "")]).unwrap();
        assert_eq!(unit_ticks(&bare, &loc(&bare, "001-x")).unwrap(), UnitTicks::default());
    }

    #[test]
    fn a_ticked_id_on_more_than_one_task_line_is_read_as_duplicated_once() {
        let text =
            "- [ ] T001 a\n- [x] T002 b\n- [x] T001 copy\n- [x] T001 again\n- [ ] T003 c\n- [ ] T003 d\n";
        let tree = MemTree::from_files([("specs/001-x/tasks.md", text)]).unwrap();
        let ticks = ticked_boxes_at(&tree, &loc(&tree, "001-x")).unwrap();
        let read = |id, duplicated| TickedBox { id, duplicated };
        assert_eq!(ticks.boxes().collect::<Vec<_>>(), [read("T002", false), read("T001", true)]);
        assert!(ticks.ticks_on_one_line("T002"));
        assert!(!ticks.ticks_on_one_line("T001"), "on three lines");
        assert!(!ticks.ticks_on_one_line("T003"), "on two lines, and open");
    }

    #[test]
    fn a_line_hash_at_the_head_needs_no_spec_document() {
        let tree = MemTree::from_files([
            ("specs/001-x/tasks.md", &b"- [x] T001 [US1] Story (FR-001)\n- [ ] T002 a\n- [ ] T002 b\n"[..]),
            ("specs/001-x/spec.md", &b"\xff not UTF-8"[..]),
        ])
        .unwrap();
        let lines = TreeTaskLines::new(tree);
        let hash = |unit, task| lines.wording(unit, task).map(|w| w.line_hash);
        assert_eq!(hash("001-x", "T001").unwrap(), sha256_hex("- [ ] T001 [US1] Story (FR-001)"));
        assert!(matches!(hash("001-x", "T002"), Err(SpecError::DuplicateTask { .. })));
        assert!(matches!(hash("001-x", "T404"), Err(SpecError::UnknownTask { .. })));
        assert!(matches!(hash("002-y", "T001"), Err(SpecError::UnknownUnit { .. })));
    }

    #[test]
    fn a_listed_task_s_line_and_box_are_read_from_the_task_list_alone_and_a_missing_one_is_none() {
        let tree = MemTree::from_files([
            (
                "specs/001-x/tasks.md",
                "- [x] T001 [US1] Story\n  wrapped (FR-001)\n- [ ] T002 a\n- [X] T003 b\n- [x] T003 c\n",
            ),
            ("specs/001-x/spec.md", "- **FR-001**: one\n- **FR-001**: twice\n"),
        ])
        .unwrap();
        let lines = TreeTaskLines::new(tree);
        let story = lines.listed("001-x", "T001").unwrap();
        assert_eq!(
            (story.line_hash.as_str(), story.ticked),
            (sha256_hex("- [ ] T001 [US1] Story").as_str(), true)
        );
        assert_eq!(story.continuation, ["  wrapped (FR-001)"]);
        assert_eq!(lines.wording("001-x", "T001").unwrap(), story);
        assert!(!lines.listed("001-x", "T002").unwrap().ticked);
        for (unit, task) in [("001-x", "T003"), ("001-x", "T404"), ("001-x", "bug:x"), ("002-y", "T001")] {
            assert_eq!(lines.listed(unit, task), None, "{unit}/{task}");
        }
    }

    #[test]
    fn a_task_s_wording_at_the_head_holds_the_lines_its_text_wraps_onto() {
        let text = "- [x] T001 Show tags\n  in the list (SC-001)\n  - [ ] T002 nested\n- [ ] T003 one line\n";
        let lines = TreeTaskLines::new(MemTree::from_files([("specs/001-x/tasks.md", text)]).unwrap());
        let wording = lines.wording("001-x", "T001").unwrap();
        assert_eq!(wording.line_hash, sha256_hex("- [ ] T001 Show tags"));
        assert_eq!(wording.continuation, ["  in the list (SC-001)"]);
        assert!(lines.wording("001-x", "T002").unwrap().continuation.is_empty());
        assert!(lines.wording("001-x", "T003").unwrap().continuation.is_empty());
    }
}
