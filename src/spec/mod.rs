//! Spec formats: Spec Kit and OpenSpec units, tasks, requirement text and ticking.
//!
//! Everything reads through [`SourceTree`], so the same rules run on a git tree, the work tree
//! ([`FsTree`]) or files in memory ([`MemTree`]). A task list is read by one reader, as CommonMark
//! renders it (`task_list.rs`): the writer ticks and the verifier checks exactly the tasks it
//! reads, and every other box is named ([`unread_ticks`], unknown-task errors) rather than
//! skipped. A symbolic link or a submodule where a task list, a spec file or a unit directory
//! should be is refused. Unit names, task ids and bug slugs are hostile input and are checked before they
//! become paths. The hashes (`task.line_hash`, `spec.section_hash`, `trace[].requirement_hash`)
//! follow the open specification's "Hashes" exactly (docs/task-verification-v0.md; where each is
//! computed: docs/architecture.md): [`line_hash`], [`speckit_story_text`],
//! [`openspec_change_text`], [`Requirement`].

#![deny(missing_docs)]

mod bug;
mod docs;
mod error;
mod nested;
mod openspec_schema;
mod project;
mod requirement;
mod section;
mod task;
mod task_line;
mod task_list;
mod task_lists;
mod text;
mod tick;
mod ticks;
mod tree;
mod unit;
mod units;
mod yaml;

pub use bug::{
    BUG_TASK_PREFIX, BUGS_DIR, BugTriad, PUBLISHED_BUG_UNIT, TRIAD_FILES, bug_home, bug_line_hash, bug_slug,
    bug_title, bug_triad, check_bug_slug, published_bug, triad_sha256,
};
pub use docs::{NO_DELTA_SECTION, UnitDocs};
pub use error::{SpecError, lines_listed};
pub use nested::nested_projects;
pub use project::{ProjectBelowTop, project_below_top};
pub use requirement::{
    Requirement, is_speckit_requirement_id, openspec_defined_name, speckit_cited_ids, speckit_defined_id,
};
pub use section::{
    Delta, SECTION_LIMIT_BYTES, SECTION_TRUNCATION_MARKER, StoryFallback, WholeSpec, openspec_change_text,
    speckit_story, speckit_story_text,
};
pub use task::{
    PublishedLine, TaskFacts, TaskId, as_published, bug_task_facts, read_any_task, read_any_task_with,
    read_task, requirement_line, task_location, ticked_tasks,
};
pub use task_line::{TaskLine, is_task_id, line_hash, open_boxes, parse_task_line, unbound_story_label};
pub use task_lists::{SharedTaskLists, TaskLists};
pub use text::{DELTAS_LIMIT, SPEC_FILE_LIMIT};
pub use tick::tick;
pub use ticks::{
    ListTicks, TaskWording, Ticked, TickedBox, TreeTaskLines, UnitTicks, UnreadTick, ticked_boxes_at,
    ticked_boxes_in_dir, ticked_ids, unit_ticks, unread_ticks,
};
pub use tree::{EntryKind, FsTree, MemTree, SourceTree, link_or_submodule_on_the_way};
pub use unit::{
    Format, OPENSPEC_ARCHIVE, OPENSPEC_CHANGES_DIR, SPECKIT_SPECS_DIR, TASK_LIST_FILE, UNIT_NAME_LIMIT,
    UNIT_PARENTS, UnitLoc, UnitLocator, archived_copies, check_unit_name, is_archive_dir,
    is_openspec_unit_name, is_speckit_unit_name, locate_unit, unit_of_entry,
};
pub use units::{STRAY_DIRS_LIMIT, Stray, UNIT_DIRS_LIMIT, UnitScan, list_units, readable_units, scan_units};
