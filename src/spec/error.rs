//! What can go wrong while reading a spec unit: every message says what was wrong and what to do.

use thiserror::Error;

use super::tree::EntryKind;

/// An error reading units, tasks, requirements or bug homes from a source tree.
#[derive(Debug, Error)]
pub enum SpecError {
    /// A path handed to a source tree is not a plain project-relative `/`-separated path.
    #[error(
        "path `{path}` is not a project-relative `/`-separated path ({reason}); \
         name files relative to the project root without `.`, `..` or a leading `/`"
    )]
    BadPath {
        /// The offending path, escaped.
        path: String,
        /// Which rule it broke.
        reason: &'static str,
    },

    /// Reading from the work tree failed for a reason other than absence.
    #[error("cannot read `{path}` from the work tree: {source}; check its permissions and retry")]
    Io {
        /// The project-relative path being read.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// Reading from a git tree failed (a corrupt or missing object).
    #[error("cannot read `{path}` from the repository: {message}")]
    Repository {
        /// The project-relative path being read.
        path: String,
        /// What the repository said.
        message: String,
        /// The object the repository lacks, when that is why.
        missing: Option<gix::ObjectId>,
        /// The object the repository holds but cannot decode, when that is why.
        corrupt: Option<gix::ObjectId>,
    },

    /// A unit name that cannot name a unit directory.
    #[error(
        "unit name `{name}` is not acceptable ({reason}); name the Spec Kit feature \
         directory (e.g. `001-bookmark-tags`) or the OpenSpec change id (e.g. `add-tag-filter`)"
    )]
    BadUnitName {
        /// The offending name, escaped.
        name: String,
        /// Which rule it broke.
        reason: &'static str,
    },

    /// No unit of that name exists in either format.
    #[error(
        "unit `{unit}` not found: {looked}; check the name against the directories under \
         `specs/` and `openspec/changes/`"
    )]
    UnknownUnit {
        /// The unit that was asked for.
        unit: String,
        /// What was found at each place looked at, for display.
        looked: String,
    },

    /// The same unit name exists in both formats, so the task it names is ambiguous.
    #[error(
        "unit `{unit}` is ambiguous: both `{speckit_dir}` (Spec Kit) and `{openspec_dir}` \
         (OpenSpec) exist; rename or remove one of them"
    )]
    AmbiguousUnit {
        /// The unit that was asked for.
        unit: String,
        /// The Spec Kit directory.
        speckit_dir: String,
        /// The OpenSpec directory.
        openspec_dir: String,
    },

    /// An OpenSpec change was archived more than once and is active nowhere: which archived copy
    /// a task of it names cannot be told.
    #[error(
        "OpenSpec change `{unit}` is archived more than once ({count} copies: {dirs}) and active nowhere, so which copy its tasks are is ambiguous; keep one archived copy"
    )]
    AmbiguousArchive {
        /// The change id.
        unit: String,
        /// How many archived copies it has.
        count: usize,
        /// The archived directories as a message lists them ([`listed`]: the first few, then how
        /// many more).
        dirs: String,
    },

    /// An OpenSpec change whose schema has openspec count its tasks in another file than its
    /// `tasks.md`, or in files that cannot be told: speccoder reads `tasks.md` only.
    #[error(
        "OpenSpec change `{change}` ({dir}) {why}; speccoder reads a change's tasks from `tasks.md` only, so it neither ticks nor checks this change's: make the schema's tracked artifact generate `tasks.md` (`generates: tasks.md`, and `apply.tracks: tasks.md`), or have the change use a schema that does"
    )]
    OtherTaskFile {
        /// The change id.
        change: String,
        /// The change's directory.
        dir: String,
        /// Where its tasks are tracked, and which schema says so; or why that cannot be told.
        why: String,
    },

    /// A file the operation needs is absent.
    #[error("`{path}` is missing: {hint}")]
    MissingFile {
        /// The project-relative path that was expected.
        path: String,
        /// Why it is needed and how to provide it.
        hint: &'static str,
    },

    /// A markdown file is not valid UTF-8.
    #[error(
        "`{path}` is not valid UTF-8 (first bad byte at offset {offset}); \
         re-save it as UTF-8"
    )]
    NotUtf8 {
        /// The project-relative path of the file.
        path: String,
        /// Byte offset of the first byte that is not valid UTF-8.
        offset: usize,
    },

    /// A markdown file starts with a UTF-16 byte order mark.
    #[error("`{path}` is UTF-16 (it starts with a UTF-16 byte order mark); re-save it as UTF-8")]
    Utf16 {
        /// The project-relative path of the file.
        path: String,
    },

    /// A markdown file holds a NUL byte: no text file does, and UTF-16 saved without a byte-order
    /// mark reads as ASCII with a NUL after each letter, which would hide every box in it.
    #[error(
        "`{path}` holds a NUL byte (at offset {offset}), which no text file holds (UTF-16 saved \
         without a byte-order mark?); re-save it as UTF-8"
    )]
    NulByte {
        /// The project-relative path of the file.
        path: String,
        /// Byte offset of the first NUL byte.
        offset: usize,
    },

    /// A task id that cannot be a task of this unit's format.
    #[error("task id `{id}` is not acceptable: {reason}")]
    BadTaskId {
        /// The offending id, escaped.
        id: String,
        /// Which rule it broke and what a valid id looks like.
        reason: &'static str,
    },

    /// The task list has no task with this id.
    #[error("task `{task}` not found in `{tasks_path}`; tasks there: {known}{unread}; {form}")]
    UnknownTask {
        /// The task that was asked for.
        task: String,
        /// The task list that was searched.
        tasks_path: String,
        /// The first few task ids that exist, for display.
        known: String,
        /// Empty, or `; ` and the first few boxes not read as tasks, each with its line and why
        /// (those naming the task first).
        unread: String,
        /// What a task line of the unit's format looks like ([`super::Format::task_line_form`]).
        form: &'static str,
    },

    /// A task's facts need a spec document that cannot be read: the story text of a `[USn]` task
    /// or the lines of the requirements it cites (spec.md), an OpenSpec change's delta specs.
    #[error("task `{task}` (`{tasks_path}` line {line}) {why}: {source}")]
    TaskNeedsSpec {
        /// The task id.
        task: String,
        /// Its task list.
        tasks_path: String,
        /// The 1-based line of the task.
        line: usize,
        /// What the task needs from which file, for display.
        why: String,
        /// Why that file cannot be read.
        #[source]
        source: Box<SpecError>,
    },

    /// A spec file or unit directory is a symbolic link where a file or directory is expected.
    #[error(
        "`{path}` is a symbolic link; speccoder reads {what} only as a real {kind} in the \
         repository (a link could point anywhere); replace the link with the {kind} itself"
    )]
    SymbolicLink {
        /// The project-relative path of the link.
        path: String,
        /// What was being read there (`the task list`, `a unit directory`, ...).
        what: &'static str,
        /// `file` or `directory`.
        kind: &'static str,
    },

    /// A submodule where a file or directory is read: its files are another repository's, which
    /// speccoder does not read.
    #[error(
        "`{path}` is a submodule (another repository); speccoder does not read into submodules, so \
         it cannot read {what} there: keep {what} in the project's own tree as a real {kind}"
    )]
    Submodule {
        /// The project-relative path of the submodule.
        path: String,
        /// What was being read there (`the task list`, `a unit directory`, ...).
        what: &'static str,
        /// `file` or `directory`.
        kind: &'static str,
    },

    /// A directory, a FIFO, a socket or a device where a file is read.
    #[error(
        "`{path}` is a {found} where {what} should be a regular file; move it away and write {what} there"
    )]
    NotAFile {
        /// The project-relative path of the entry.
        path: String,
        /// What was being read there (`the task list`, `spec.md`, ...).
        what: &'static str,
        /// What stands there instead (`directory`, `FIFO, socket or device`).
        found: &'static str,
    },

    /// A task list or spec file stored through a filter: a Git LFS pointer, or a file the tree's
    /// `.gitattributes` give a `filter` driver (Git LFS, git-crypt, any other), whose committed
    /// bytes are not the text a checkout shows.
    #[error(
        "`{path}` is stored through a filter ({how}), so its committed bytes are not {what} people \
         read and speccoder cannot read it as they do; store {what} as plain text: remove the \
         `filter` attribute for it from `.gitattributes` (Git LFS: `git lfs untrack '<pattern>'`) \
         and commit the file's text in place of what the filter stored (`git add --renormalize \
         {}` in a checkout that shows the text)",
        crate::model::shown::shell_word(.path)
    )]
    Filtered {
        /// The project-relative path of the file.
        path: String,
        /// What it was read as (`the task list`, `spec.md`, `a delta spec`).
        what: &'static str,
        /// How it is stored, for display (the filter's driver, escaped; or a Git LFS pointer).
        how: String,
    },

    /// A task list or spec file whose attributes cannot be told: an attributes file of the tree
    /// on its way cannot be read, so whether the file is stored through a filter is unknown.
    #[error(
        "the attributes file `{attributes}` cannot be read ({reason}), so whether it stores `{path}` \
         through a filter cannot be told, and `{path}` is not read: commit `{attributes}` as an \
         attributes file git reads (a blob of less than 100 MiB; in a partial clone, fetched), or \
         remove it"
    )]
    AttributesUnreadable {
        /// The project-relative path of the file it governs.
        path: String,
        /// The attributes file's path in the tree.
        attributes: String,
        /// Why it cannot be read.
        reason: String,
    },

    /// An OpenSpec change whose delta specs together are too large to be a real one's.
    #[error(
        "the delta specs under `{dir}` hold more than the {limit} bytes speccoder reads of a \
         change's delta specs together ({count} read so far); split the change"
    )]
    DeltasTooLarge {
        /// The project-relative path of the change's `specs/` directory.
        dir: String,
        /// How many delta specs were read when the sum passed the limit.
        count: usize,
        /// The largest sum read.
        limit: usize,
    },

    /// A task title holding every word of so many of its change's requirement names that searching
    /// it for each would cost more than a real change's citations ever do.
    #[error(
        "the task's title ({title} bytes) holds every word of {names} requirement names of its \
         change, and searching it for each would pass the {limit} bytes speccoder searches for a \
         task's citations; shorten the task's title or the change's requirement names"
    )]
    CitationsTooCostly {
        /// The title's length in bytes, lowercased.
        title: usize,
        /// How many distinct names it holds every word of.
        names: usize,
        /// The most bytes searched ([`CITE_SEARCH_LIMIT`](super::requirement::CITE_SEARCH_LIMIT)).
        limit: usize,
    },

    /// A file of a unit too large to be a real one (a task list, spec.md, a delta spec).
    #[error(
        "`{path}` is {size} bytes, more than the {limit} bytes speccoder reads of {what}; \
         shorten it, or split the unit"
    )]
    FileTooLarge {
        /// The project-relative path of the file.
        path: String,
        /// What it was read as (`the task list`, `spec.md`, `a delta spec`).
        what: &'static str,
        /// Its size in bytes.
        size: u64,
        /// The largest size read.
        limit: usize,
    },

    /// spec.md defines the same requirement id more than once, so its text is ambiguous.
    #[error(
        "requirement `{id}` is defined more than once in `{path}` (lines {lines}); \
         give each requirement its own id"
    )]
    DuplicateRequirement {
        /// The duplicated id.
        id: String,
        /// The spec file.
        path: String,
        /// The 1-based line numbers, for display.
        lines: String,
    },

    /// The task list holds the same id more than once, so it is ambiguous which one is meant.
    #[error(
        "task `{task}` appears more than once in `{tasks_path}` (lines {lines}); \
         give each task its own id"
    )]
    DuplicateTask {
        /// The duplicated id.
        task: String,
        /// The task list.
        tasks_path: String,
        /// The 1-based line numbers, for display.
        lines: String,
    },

    /// A trailer-only task (a bug home) was asked for as if it had a task line.
    #[error(
        "task `bug:{slug}` is a bug home at `.specify/bugs/{slug}/` and has no task line; \
         read it with `bug_triad` instead"
    )]
    TrailerOnlyTask {
        /// The bug's slug.
        slug: String,
    },

    /// A bug slug that cannot name a bug home.
    #[error(
        "bug slug `{slug}` is not acceptable ({reason}); use lowercase letters, digits, \
         `.`, `_` and `-`, starting with a letter or digit, e.g. `bug:crash-on-empty-tag`"
    )]
    BadBugSlug {
        /// The offending slug, escaped.
        slug: String,
        /// Which rule it broke.
        reason: &'static str,
    },

    /// The line to tick does not exist.
    #[error(
        "line {line} does not exist: the task list has {count} lines; \
         read the task again and tick the line it names"
    )]
    NoSuchLine {
        /// The 1-based line number asked for.
        line: usize,
        /// How many lines the task list has.
        count: usize,
    },

    /// The line to tick is not a task line of the format.
    #[error(
        "line {line} is not {} task line ({}); read the task again and tick the line it names",
        format.with_article(),
        format.task_line_example()
    )]
    NotATaskLine {
        /// The 1-based line number.
        line: usize,
        /// The unit's format.
        format: super::Format,
    },

    /// The task is ticked already, so there is nothing to tick.
    #[error("line {line} is already ticked; a task is ticked once, by the run that closes it")]
    AlreadyTicked {
        /// The 1-based line number.
        line: usize,
    },
}

impl SpecError {
    /// The refusal to read `what` as a `kind` (`file` or `directory`) at `path` where a symbolic
    /// link or a submodule stands (`found`), which no reader follows or enters; `None` for any
    /// other entry, or none.
    pub(crate) fn entry_refused(
        path: &str,
        found: Option<EntryKind>,
        what: &'static str,
        kind: &'static str,
    ) -> Option<SpecError> {
        let path = path.to_owned();
        match found? {
            EntryKind::Link => Some(SpecError::SymbolicLink { path, what, kind }),
            EntryKind::Submodule => Some(SpecError::Submodule { path, what, kind }),
            EntryKind::File | EntryKind::Special | EntryKind::Dir => None,
        }
    }

    /// OpenSpec change `unit`, archived in each of `dirs` (more than one) and active nowhere: how
    /// many copies, and the first few of them ([`listed`]).
    pub(crate) fn ambiguous_archive(unit: &str, dirs: &[impl std::fmt::Display]) -> SpecError {
        SpecError::AmbiguousArchive { unit: unit.to_owned(), count: dirs.len(), dirs: listed(dirs) }
    }

    /// Whether a symbolic link or a submodule was refused where a file or directory was looked for.
    #[must_use]
    pub fn is_link_or_submodule(&self) -> bool {
        matches!(self, SpecError::SymbolicLink { .. } | SpecError::Submodule { .. })
    }

    /// The object the repository lacks, when that is why the file cannot be read.
    #[must_use]
    pub fn missing_object(&self) -> Option<gix::ObjectId> {
        match self {
            SpecError::Repository { missing, .. } => *missing,
            SpecError::TaskNeedsSpec { source, .. } => source.missing_object(),
            _ => None,
        }
    }

    /// The object the repository holds but cannot decode, when that is why the file cannot be
    /// read.
    #[must_use]
    pub fn corrupt_object(&self) -> Option<gix::ObjectId> {
        match self {
            SpecError::Repository { corrupt, .. } => *corrupt,
            SpecError::TaskNeedsSpec { source, .. } => source.corrupt_object(),
            _ => None,
        }
    }

    /// Whether the repository or the work tree itself failed (an object that cannot be read, an
    /// I/O error), rather than a file's content or place: no reading of the spec can go on.
    #[must_use]
    pub fn is_repository_failure(&self) -> bool {
        match self {
            SpecError::Io { .. } | SpecError::Repository { .. } => true,
            SpecError::TaskNeedsSpec { source, .. } => source.is_repository_failure(),
            _ => false,
        }
    }
}

/// How many items (line numbers, directories) a message lists before it counts the rest.
const LISTED: usize = 10;

/// Line numbers (1-based) as a message lists them ([`listed`]), so that a task list of thousands
/// of look-alike lines makes no message of thousands of numbers.
#[must_use]
pub fn lines_listed(lines: &[usize]) -> String {
    listed(lines)
}

/// `items` as a message lists them: the first ten, then how many more, so that a message's
/// length never grows with their number.
pub(crate) fn listed(items: &[impl std::fmt::Display]) -> String {
    let shown: Vec<String> = items.iter().take(LISTED).map(ToString::to_string).collect();
    match items.len().checked_sub(LISTED) {
        Some(more) if more > 0 => format!("{} and {more} more", shown.join(", ")),
        _ => shown.join(", "),
    }
}

impl crate::exit::ExitClass for SpecError {
    /// A unit, task or bug slug that is not there or not of its shape was named by the command
    /// line (a target): usage. An object the repository lacks is its state, to fetch, as
    /// [`crate::git::GitError::ObjectMissing`] is. Everything else is a spec file that cannot be
    /// read as one.
    fn class(&self) -> crate::exit::Class {
        use crate::exit::Class;
        match self {
            _ if self.missing_object().is_some() => Class::GitPrecondition,
            SpecError::UnknownUnit { .. }
            | SpecError::UnknownTask { .. }
            | SpecError::BadUnitName { .. }
            | SpecError::BadTaskId { .. }
            | SpecError::BadBugSlug { .. } => Class::Usage,
            SpecError::BadPath { .. }
            | SpecError::Io { .. }
            | SpecError::Repository { .. }
            | SpecError::AmbiguousUnit { .. }
            | SpecError::AmbiguousArchive { .. }
            | SpecError::OtherTaskFile { .. }
            | SpecError::MissingFile { .. }
            | SpecError::NotUtf8 { .. }
            | SpecError::NulByte { .. }
            | SpecError::Utf16 { .. }
            | SpecError::TaskNeedsSpec { .. }
            | SpecError::SymbolicLink { .. }
            | SpecError::Submodule { .. }
            | SpecError::NotAFile { .. }
            | SpecError::Filtered { .. }
            | SpecError::AttributesUnreadable { .. }
            | SpecError::FileTooLarge { .. }
            | SpecError::DeltasTooLarge { .. }
            | SpecError::CitationsTooCostly { .. }
            | SpecError::DuplicateRequirement { .. }
            | SpecError::DuplicateTask { .. }
            | SpecError::TrailerOnlyTask { .. }
            | SpecError::NoSuchLine { .. }
            | SpecError::NotATaskLine { .. }
            | SpecError::AlreadyTicked { .. } => Class::Config,
        }
    }
}

pub(crate) use crate::model::shown::shown;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_lines_are_listed_and_the_rest_counted() {
        assert_eq!(lines_listed(&[3, 7]), "3, 7");
        assert_eq!(lines_listed(&(1..=10).collect::<Vec<_>>()), "1, 2, 3, 4, 5, 6, 7, 8, 9, 10");
        let many: Vec<usize> = (1..=30_000).collect();
        assert_eq!(lines_listed(&many), "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 29990 more");
    }

    #[test]
    fn an_unknown_task_message_names_the_file_and_the_known_tasks() {
        let e = SpecError::UnknownTask {
            task: "T009".into(),
            tasks_path: "specs/001-x/tasks.md".into(),
            known: "T001, T002".into(),
            unread: String::new(),
            form: crate::spec::Format::SpecKit.task_line_form(),
        };
        let m = e.to_string();
        assert!(m.contains("T009") && m.contains("specs/001-x/tasks.md") && m.contains("T001"));
    }
}
