//! Units: a Spec Kit feature directory (`specs/<name>/`) or an OpenSpec change
//! (`openspec/changes/<change-id>/`), and where their files live.
//!
//! One definition serves the writer and the verifier alike ([`locate_unit`],
//! [`list_units`](super::units::list_units), [`scan_units`](super::units::scan_units)): a Spec
//! Kit unit is a directory directly under `specs/` whose name is acceptable
//! ([`check_unit_name`]) and that holds a `tasks.md`; the `NNN-name` and
//! `YYYYMMDD-HHMMSS-name` forms Spec Kit's scripts create are units before their task list is
//! written. What the writer can tick, the verifier checks; a place under `specs/` or
//! `openspec/changes/` that holds a task list with checked boxes but is not read as a unit is a
//! [`Stray`](super::units::Stray), which a verifier reports instead of skipping.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::bug::BUG_TASK_PREFIX;
use super::error::{SpecError, shown};
use super::tree::{EntryKind, SourceTree};
use crate::model::shown::{hidden_marked, is_bidi_control};

/// The directory holding Spec Kit features.
pub const SPECKIT_SPECS_DIR: &str = "specs";
/// The directory holding OpenSpec changes.
pub const OPENSPEC_CHANGES_DIR: &str = "openspec/changes";
/// The task list's file name in a unit's directory, in both formats.
pub const TASK_LIST_FILE: &str = "tasks.md";
/// The name under [`OPENSPEC_CHANGES_DIR`] that holds archived changes, never a unit.
pub const OPENSPEC_ARCHIVE: &str = "archive";

/// A spec format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// GitHub Spec Kit: `specs/<NNN-name>/{spec.md,tasks.md}`.
    SpecKit,
    /// OpenSpec: `openspec/changes/<id>/{proposal.md,tasks.md,specs/**/spec.md}`.
    OpenSpec,
}

impl Format {
    /// The wire name: `speckit` or `openspec`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SpecKit => "speckit",
            Self::OpenSpec => "openspec",
        }
    }

    /// The human name: `Spec Kit` or `OpenSpec`.
    #[must_use]
    pub fn display_name(self) -> &'static str {
        match self {
            Self::SpecKit => "Spec Kit",
            Self::OpenSpec => "OpenSpec",
        }
    }

    /// The human name with its article, for a sentence: `a Spec Kit`, `an OpenSpec`.
    #[must_use]
    pub fn with_article(self) -> &'static str {
        match self {
            Self::SpecKit => "a Spec Kit",
            Self::OpenSpec => "an OpenSpec",
        }
    }

    /// A task line of the format, for a message: `` `- [ ] T001 Title` `` or `` `- [ ] 1.1 Title` ``.
    #[must_use]
    pub fn task_line_example(self) -> &'static str {
        match self {
            Self::SpecKit => "`- [ ] T001 Title`",
            Self::OpenSpec => "`- [ ] 1.1 Title`",
        }
    }

    /// What a task line of the format looks like, as a sentence for a message that found none.
    #[must_use]
    pub fn task_line_form(self) -> &'static str {
        match self {
            Self::SpecKit => {
                "a Spec Kit task line reads `- [ ] T001 Title` (`*` bullets too, `[P]` and `[US1]` \
                 labels after the id optional)"
            }
            Self::OpenSpec => {
                "an OpenSpec task line reads `- [ ] 1.1 Title` (`*` bullets too, ids of dot-separated \
                 numbers such as `2` or `1.2.3`, two or more of which may end in letters, `1.1a`)"
            }
        }
    }

    /// The box character a tick writes: `X` for Spec Kit, `x` for OpenSpec.
    #[must_use]
    pub fn tick_char(self) -> u8 {
        match self {
            Self::SpecKit => b'X',
            Self::OpenSpec => b'x',
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a unit lives: its format, name, directory and task list (which may not exist yet).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitLoc {
    /// The unit's format.
    pub format: Format,
    /// The unit's name: the feature directory name or the change id.
    pub name: String,
    /// The unit's directory, project-relative, without a trailing `/`.
    pub dir: String,
    /// `<dir>/tasks.md`, the unit's task list.
    pub tasks: String,
}

impl UnitLoc {
    pub(crate) fn new(format: Format, name: &str) -> Self {
        Self::at(format, name, unit_dir(format, name))
    }

    pub(crate) fn at(format: Format, name: &str, dir: String) -> Self {
        let tasks = format!("{dir}/{TASK_LIST_FILE}");
        Self { format, name: name.to_owned(), dir, tasks }
    }

    /// Whether this is an archived OpenSpec change (`openspec/changes/archive/<date>-<id>/`): its
    /// tasks are read to check them, never ticked.
    #[must_use]
    pub fn is_archived(&self) -> bool {
        is_archive_dir(&self.dir)
    }

    /// `<dir>/spec.md`: the Spec Kit feature spec (meaningless for OpenSpec).
    #[must_use]
    pub fn spec_md(&self) -> String {
        spec_md_in(&self.dir)
    }

    /// `<dir>/specs`: the OpenSpec change's delta specs (meaningless for Spec Kit).
    #[must_use]
    pub fn deltas_dir(&self) -> String {
        format!("{}/specs", self.dir)
    }
}

/// `<dir>/spec.md`: the Spec Kit feature spec of the unit in `dir`.
pub(crate) fn spec_md_in(dir: &str) -> String {
    format!("{dir}/spec.md")
}

/// Whether `dir` lies in the OpenSpec archive (`openspec/changes/archive/...`).
#[must_use]
pub fn is_archive_dir(dir: &str) -> bool {
    dir.strip_prefix(OPENSPEC_CHANGES_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .and_then(|rest| rest.strip_prefix(OPENSPEC_ARCHIVE))
        .is_some_and(|rest| rest.starts_with('/'))
}

/// The change id of an archive entry named as `openspec archive` names it, `YYYY-MM-DD-<id>`;
/// `None` for any other name.
pub(crate) fn archived_change_id(entry: &str) -> Option<&str> {
    dated_id(entry).filter(|id| is_openspec_unit_name(id))
}

/// What follows the date of an archive entry dated as `openspec archive` dates one,
/// `YYYY-MM-DD-<rest>`, whether or not `<rest>` can be a change id.
fn dated_id(entry: &str) -> Option<&str> {
    let (date, id) = (entry.get(..10)?, entry.get(10..)?.strip_prefix('-')?);
    let date_shape =
        date.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    (date_shape && !id.is_empty()).then_some(id)
}

/// The unit name the entry `name` of `parent` (one of [`UNIT_PARENTS`]) is shaped as, by its name
/// alone and whether or not that name is acceptable ([`check_unit_name`]): a Spec Kit feature's
/// (`NNN-name`, [`is_speckit_unit_name`]), any entry of `openspec/changes/` but its archive, what
/// follows the date of an archive entry dated as `openspec archive` dates one. A symbolic link or
/// a submodule of such a name stands where a unit directory would be, whatever its name holds.
pub(crate) fn unit_shaped<'n>(parent: &str, name: &'n str) -> Option<&'n str> {
    match parent {
        SPECKIT_SPECS_DIR => speckit_shaped(name).then_some(name),
        OPENSPEC_CHANGES_DIR => (name != OPENSPEC_ARCHIVE).then_some(name),
        _ if parent == UNIT_PARENTS[2] => dated_id(name),
        _ => None,
    }
}

/// The directories whose entries are units, or archived copies of one: Spec Kit's `specs/`,
/// OpenSpec's `openspec/changes/` and its archive.
pub const UNIT_PARENTS: [&str; 3] = [SPECKIT_SPECS_DIR, OPENSPEC_CHANGES_DIR, "openspec/changes/archive"];

/// The unit that the entry `name` of the directory `parent` (one of [`UNIT_PARENTS`]) can be, or
/// hold an archived copy of; `None` for a name that is no unit there. Under `specs/` any
/// acceptable name can be one (whether it is depends on what the directory holds:
/// [`list_units`](super::list_units) says).
#[must_use]
pub fn unit_of_entry<'n>(parent: &str, name: &'n str) -> Option<&'n str> {
    match parent {
        SPECKIT_SPECS_DIR => check_unit_name(name).is_ok().then_some(name),
        OPENSPEC_CHANGES_DIR => (name != OPENSPEC_ARCHIVE && is_openspec_unit_name(name)).then_some(name),
        _ if parent == UNIT_PARENTS[2] => archived_change_id(name),
        _ => None,
    }
}

/// The archived copies of OpenSpec changes in `tree`: `(change id, directory)` in name order.
/// A symbolic link or a submodule among them is refused, as for active units.
fn archived_changes(tree: &dyn SourceTree) -> Result<Vec<(String, String)>, SpecError> {
    let parent = format!("{OPENSPEC_CHANGES_DIR}/{OPENSPEC_ARCHIVE}");
    if !dir_exists(tree, &parent)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (entry, kind) in tree.entries(&parent)?.unwrap_or_default() {
        let Some(id) = archived_change_id(&entry) else { continue };
        let dir = format!("{parent}/{entry}");
        if kind == EntryKind::Dir {
            out.push((id.to_owned(), dir));
        } else if let Some(e) = SpecError::entry_refused(&dir, Some(kind), "an archived change", "directory")
        {
            return Err(e);
        }
    }
    Ok(out)
}

/// The directories of the archived copies of the OpenSpec change `id` in `tree`, in name order
/// (so the latest `openspec archive` last).
///
/// # Errors
/// The archive cannot be read, or holds a link or a submodule where a copy would be.
pub fn archived_copies(tree: &dyn SourceTree, id: &str) -> Result<Vec<String>, SpecError> {
    let copies = archived_changes(tree)?.into_iter().filter(|(copy, _)| copy == id);
    Ok(copies.map(|(_, dir)| dir).collect())
}

pub(crate) fn unit_dir(format: Format, name: &str) -> String {
    match format {
        Format::SpecKit => format!("{SPECKIT_SPECS_DIR}/{name}"),
        Format::OpenSpec => format!("{OPENSPEC_CHANGES_DIR}/{name}"),
    }
}

/// The longest unit name accepted, in bytes: the longest directory name most file systems hold.
pub const UNIT_NAME_LIMIT: usize = 255;

/// Checks that a unit name (hostile input) can only name one visible directory, and travels
/// unchanged through a `Spec-Task:` trailer and a report: not empty, at most
/// [`UNIT_NAME_LIMIT`] bytes, no `/` or `\`, no `..`, no leading `.`, no leading or trailing
/// blank (a trailer's value is trimmed), no control character, no character that reorders the
/// text around it (Unicode's bidirectional controls, which can make a name read as another) and
/// none that hides between letters where it stands ([`hidden_marked`]: a joiner that Persian is
/// written with is a letter's); and it does not begin with `bug:` ([`BUG_TASK_PREFIX`]), the name
/// a verifier policy matches a trailer-only bug task by, so that no unit is judged as a bug.
pub fn check_unit_name(name: &str) -> Result<(), SpecError> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > UNIT_NAME_LIMIT {
        Some("it is longer than 255 bytes, more than most file systems hold in a directory name")
    } else if name.contains(['/', '\\']) {
        Some("it contains a path separator")
    } else if name.starts_with('.') || name.contains("..") {
        Some("it starts with `.` or contains `..`")
    } else if name.starts_with(char::is_whitespace) || name.ends_with(char::is_whitespace) {
        Some("it starts or ends with a blank, which a `Spec-Task:` trailer would not keep")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if name.chars().any(|c| c.is_whitespace() && c != ' ') || name.contains("  ") {
        Some(
            "it contains a blank other than one space (a line separator, a no-break space, two spaces), which a `Spec-Task:` trailer would write as one space",
        )
    } else if name.chars().any(is_bidi_control) {
        Some(
            "it contains a bidirectional control character (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which makes text read in another order than it is written",
        )
    } else if hidden_marked(name).any(|(_, hidden)| hidden) {
        Some(
            "it contains an invisible character (a zero-width space or joiner, a word joiner, a byte-order mark, a soft hyphen, a variation selector, a Hangul filler or a tag character), which makes two names look alike",
        )
    } else if name.starts_with(BUG_TASK_PREFIX) {
        Some(
            "it begins with `bug:`, the name of a trailer-only bug task, which a verifier policy's rules for bugs (`units = [\"bug:*\"]`) would judge instead of the rules for units",
        )
    } else {
        None
    };
    match reason {
        Some(reason) => Err(SpecError::BadUnitName { name: shown(name, 100), reason }),
        None => Ok(()),
    }
}

/// Whether `name` has the shape of a Spec Kit feature directory as Spec Kit's scripts name it:
/// `NNN-name` (3 or more digits) or `YYYYMMDD-HHMMSS-name`, with something after the last `-` of
/// the prefix. Such a directory is a unit even before its task list is written; a directory of any
/// other acceptable name is one when it holds a `tasks.md`.
#[must_use]
pub fn is_speckit_unit_name(name: &str) -> bool {
    speckit_shaped(name) && check_unit_name(name).is_ok()
}

/// Whether `name` has [`is_speckit_unit_name`]'s shape, whether or not it is acceptable.
fn speckit_shaped(name: &str) -> bool {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    digits >= 3 && name.as_bytes().get(digits) == Some(&b'-') && name.len() > digits + 1
}

/// Whether `name` can be an OpenSpec change id (any acceptable unit name except `archive`).
#[must_use]
pub fn is_openspec_unit_name(name: &str) -> bool {
    name != OPENSPEC_ARCHIVE && check_unit_name(name).is_ok()
}

/// Whether the directory `dir` exists in `tree`. A symbolic link or a submodule at `dir` or at a
/// directory above it is refused, never taken for absent.
pub(crate) fn dir_exists(tree: &dyn SourceTree, dir: &str) -> Result<bool, SpecError> {
    if tree.entries(dir)?.is_some() {
        return Ok(true);
    }
    let mut upto = 0;
    for component in dir.split('/') {
        upto += component.len();
        let path = dir.get(..upto).unwrap_or(dir);
        let what = "a unit directory or a directory above it";
        if let Some(e) = SpecError::entry_refused(path, tree.kind(path)?, what, "directory") {
            return Err(e);
        }
        upto += 1;
    }
    Ok(false)
}

/// Whether `entries` (a directory's, as [`SourceTree::entries`] gives them) hold a task list: a
/// `tasks.md` that is not a directory (a file, or a link or submodule that reading it refuses).
pub(crate) fn holds_task_list(entries: &[(String, EntryKind)]) -> bool {
    entries.iter().any(|(name, kind)| name == TASK_LIST_FILE && *kind != EntryKind::Dir)
}

/// The one test of a Spec Kit unit, for the writer and the verifier: the directory `specs/<name>`
/// is one when its name is acceptable ([`check_unit_name`]) and either has the shape Spec Kit's
/// scripts give ([`is_speckit_unit_name`]) or the directory holds a `tasks.md`. `entries` reads
/// the directory's entries, only when the name does not settle it.
pub(crate) fn is_speckit_unit_dir(
    name: &str,
    entries: impl FnOnce() -> Result<Vec<(String, EntryKind)>, SpecError>,
) -> Result<bool, SpecError> {
    if check_unit_name(name).is_err() {
        return Ok(false);
    }
    Ok(is_speckit_unit_name(name) || holds_task_list(&entries()?))
}

/// Whether `specs/<name>` of `tree` is a Spec Kit unit ([`is_speckit_unit_dir`]). A symbolic link
/// or a submodule at the directory or above it is refused, never taken for absent.
fn is_speckit_unit(tree: &dyn SourceTree, name: &str) -> Result<bool, SpecError> {
    let dir = unit_dir(Format::SpecKit, name);
    if check_unit_name(name).is_err() || !dir_exists(tree, &dir)? {
        return Ok(false);
    }
    is_speckit_unit_dir(name, || Ok(tree.entries(&dir)?.unwrap_or_default()))
}

/// Finds the unit named `unit` in either format; an OpenSpec change active nowhere is found in
/// the archive when it is archived exactly once ([`UnitLoc::is_archived`]). An unknown or
/// ambiguous unit is an error. ([`UnitLocator::locate`] of one name.)
pub fn locate_unit(tree: &dyn SourceTree, unit: &str) -> Result<UnitLoc, SpecError> {
    UnitLocator::new(tree).locate(unit)
}

/// Finds units of one tree by name as [`locate_unit`] does, listing the OpenSpec archive at most
/// once for all the names asked: a name found nowhere else is looked for there, and the archive's
/// entries are named by date, so each lookup would list it whole.
pub struct UnitLocator<'t> {
    /// The tree.
    tree: &'t dyn SourceTree,
    /// The archived copies of each change id, their directories in name order, once listed.
    archived: std::cell::OnceCell<HashMap<String, Vec<String>>>,
}

impl<'t> UnitLocator<'t> {
    /// A locator of the units of `tree` that has read nothing yet.
    pub fn new(tree: &'t dyn SourceTree) -> Self {
        UnitLocator { tree, archived: std::cell::OnceCell::new() }
    }

    /// The unit named `unit` ([`locate_unit`]).
    ///
    /// # Errors
    /// An unknown or ambiguous unit, a name no unit can have, a tree that cannot be read.
    pub fn locate(&self, unit: &str) -> Result<UnitLoc, SpecError> {
        let tree = self.tree;
        check_unit_name(unit)?;
        let speckit = is_speckit_unit(tree, unit);
        let openspec = if is_openspec_unit_name(unit) {
            dir_exists(tree, &unit_dir(Format::OpenSpec, unit))
        } else {
            Ok(false)
        };
        // A link or a submodule on the way to one format's directory holds no unit of that format
        // (a verifier reports it as a place of its own): it stops the lookup only when the other
        // format holds no unit of the name either.
        let (speckit, openspec) = match (speckit, openspec) {
            (Ok(true), Err(e)) if e.is_link_or_submodule() => (true, false),
            (Err(e), Ok(true)) if e.is_link_or_submodule() => (false, true),
            (speckit, openspec) => (speckit?, openspec?),
        };
        match (speckit, openspec) {
            (true, false) => Ok(UnitLoc::new(Format::SpecKit, unit)),
            (false, true) => Ok(UnitLoc::new(Format::OpenSpec, unit)),
            (true, true) => Err(SpecError::AmbiguousUnit {
                unit: unit.to_owned(),
                speckit_dir: unit_dir(Format::SpecKit, unit),
                openspec_dir: unit_dir(Format::OpenSpec, unit),
            }),
            (false, false) => match self.archived_unit(unit)? {
                Some(archived) => Ok(archived),
                None => Err(unknown_unit(tree, unit)?),
            },
        }
    }

    /// The one archived copy of the OpenSpec change `unit`, when it is archived.
    fn archived_unit(&self, unit: &str) -> Result<Option<UnitLoc>, SpecError> {
        if !is_openspec_unit_name(unit) {
            return Ok(None);
        }
        let archived = match self.archived.get() {
            Some(archived) => archived,
            None => {
                let mut by_id: HashMap<String, Vec<String>> = HashMap::new();
                for (id, dir) in archived_changes(self.tree)? {
                    by_id.entry(id).or_default().push(dir);
                }
                self.archived.get_or_init(|| by_id)
            }
        };
        match archived.get(unit).map(Vec::as_slice).unwrap_or_default() {
            [] => Ok(None),
            [dir] => Ok(Some(UnitLoc::at(Format::OpenSpec, unit, dir.clone()))),
            several => Err(SpecError::ambiguous_archive(unit, several)),
        }
    }
}

/// The error for a unit found nowhere, naming each place looked at and, for a directory under
/// `specs/` that exists, why it is no unit.
fn unknown_unit(tree: &dyn SourceTree, unit: &str) -> Result<SpecError, SpecError> {
    let (speckit, openspec) = (unit_dir(Format::SpecKit, unit), unit_dir(Format::OpenSpec, unit));
    let looked = if tree.entries(&speckit)?.is_some() {
        format!(
            "`{speckit}/` holds no `{TASK_LIST_FILE}` (a Spec Kit feature is a unit once its task \
             list is written, or when it is named `NNN-name`), and there is no `{openspec}/` and no \
             archived change of that id"
        )
    } else {
        format!("there is no `{speckit}/`, no `{openspec}/` and no archived change of that id")
    };
    let looked = match look_alike(tree, unit) {
        Some(dir) => format!(
            "{looked}; `{}` has the same name in another Unicode form (composed or decomposed accents), which is another name to git: name the unit exactly as its directory is named",
            shown(&dir, 200)
        ),
        None => looked,
    };
    Ok(SpecError::UnknownUnit { unit: unit.to_owned(), looked })
}

/// A directory of `specs/` or `openspec/changes/` whose name is `unit` in another Unicode
/// normalization form (NFC against NFD), which a person cannot tell from it (a hint only: a
/// directory that cannot be listed gives none).
fn look_alike(tree: &dyn SourceTree, unit: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization as _;
    if unit.is_ascii() {
        return None;
    }
    let wanted: String = unit.nfc().collect();
    for parent in [SPECKIT_SPECS_DIR, OPENSPEC_CHANGES_DIR] {
        let Ok(Some(entries)) = tree.entries(parent) else { continue };
        if let Some((name, _)) =
            entries.iter().find(|(name, _)| name != unit && name.nfc().eq(wanted.chars()))
        {
            return Some(format!("{parent}/{name}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::list_units;
    use crate::spec::tree::MemTree;

    #[test]
    fn a_locator_reads_the_archive_as_often_for_forty_archived_changes_as_for_one() {
        let fx = crate::git::test_support::Fixture::new();
        for n in 0..40 {
            fx.write(&format!("openspec/changes/archive/2025-01-01-old-{n}/tasks.md"), "- [x] 1.1 a\n");
        }
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "archive"]);
        let repo = fx.repo();
        let tree = repo.commit(fx.rev("HEAD")).unwrap().tree;
        let most_reads = |found: usize| {
            let view = repo.tree(tree);
            let locator = UnitLocator::new(&view);
            for n in 0..found {
                let loc = locator.locate(&format!("old-{n}")).unwrap();
                assert_eq!(loc.dir, format!("openspec/changes/archive/2025-01-01-old-{n}"));
                assert_eq!(loc, locate_unit(&view, &format!("old-{n}")).unwrap(), "as locate_unit finds it");
            }
            let view = repo.tree(tree);
            let locator = UnitLocator::new(&view);
            for n in 0..found {
                locator.locate(&format!("old-{n}")).unwrap();
            }
            view.most_reads_of_a_tree()
        };
        assert_eq!(most_reads(40), most_reads(1), "the archive is read as often for 40 changes as for one");
    }

    fn tree() -> MemTree {
        MemTree::from_files([
            ("specs/001-tags/spec.md", ""),
            ("specs/20250101-120000-clock/spec.md", ""),
            ("specs/notes/readme.md", ""),
            ("specs/01-short/spec.md", ""),
            ("openspec/changes/add-filter/proposal.md", ""),
            ("openspec/changes/archive/2025-01-01-old/proposal.md", ""),
            ("openspec/changes/README.md", ""),
            ("openspec/project.md", ""),
        ])
        .unwrap()
    }

    #[test]
    fn formats_have_their_wire_names() {
        assert_eq!(Format::SpecKit.as_str(), "speckit");
        assert_eq!(Format::OpenSpec.as_str(), "openspec");
        assert_eq!(serde_json::to_string(&Format::OpenSpec).unwrap(), "\"openspec\"");
    }

    #[test]
    fn a_spec_kit_unit_is_found_with_its_directory_and_task_list() {
        let loc = locate_unit(&tree(), "001-tags").unwrap();
        assert_eq!(loc.format, Format::SpecKit);
        assert_eq!(loc.dir, "specs/001-tags");
        assert_eq!(loc.tasks, "specs/001-tags/tasks.md");
        let timed = locate_unit(&tree(), "20250101-120000-clock").unwrap();
        assert_eq!(timed.format, Format::SpecKit);
    }

    #[test]
    fn an_openspec_change_is_found_with_its_directory_and_task_list() {
        let loc = locate_unit(&tree(), "add-filter").unwrap();
        assert_eq!(loc.format, Format::OpenSpec);
        assert_eq!(loc.dir, "openspec/changes/add-filter");
        assert_eq!(loc.tasks, "openspec/changes/add-filter/tasks.md");
    }

    #[test]
    fn an_unknown_unit_names_itself_and_where_it_was_looked_for() {
        let err = locate_unit(&tree(), "002-missing").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("002-missing"), "{msg}");
        assert!(msg.contains("specs/002-missing/"), "{msg}");
        assert!(msg.contains("openspec/changes/002-missing/"), "{msg}");
        let msg = locate_unit(&tree(), "add-missing").unwrap_err().to_string();
        assert!(msg.contains("no `specs/add-missing/`, no `openspec/changes/add-missing/`"), "{msg}");
        // A directory that is no unit yet says why.
        let msg = locate_unit(&tree(), "notes").unwrap_err().to_string();
        assert!(msg.contains("`specs/notes/` holds no `tasks.md`"), "{msg}");
        assert!(matches!(locate_unit(&tree(), "archive"), Err(SpecError::UnknownUnit { .. })));
        assert!(matches!(locate_unit(&tree(), "01-short"), Err(SpecError::UnknownUnit { .. })));
    }

    #[test]
    fn hostile_unit_names_are_refused_before_any_lookup() {
        let long = "a".repeat(UNIT_NAME_LIMIT + 1);
        for bad in [
            "",
            "..",
            ".",
            "../specs",
            "a/b",
            "a\\b",
            "x..y",
            "a\nb",
            "a\u{7f}",
            " a",
            "a\t",
            "ab\u{202e}c",
            "\u{2066}x",
            "001-a\u{200b}",
            "x\u{feff}y",
            "t\u{e0041}",
            "001-a\u{2028}::error::x",
            "001-a\u{2029}b",
            "001-a\u{a0}b",
            "001-a\u{200d}b",
            "001-a\u{3164}b",
            "001-a  b",
            &long,
        ] {
            let err = locate_unit(&tree(), bad).unwrap_err();
            assert!(matches!(err, SpecError::BadUnitName { .. }), "{bad:?}: {err:?}");
            let msg = err.to_string();
            assert!(
                !msg.contains(['\n', '\t', '\u{7f}', '\u{202e}', '\u{2028}']) && msg.len() < 800,
                "{msg}"
            );
        }
        assert!(check_unit_name(&"a".repeat(UNIT_NAME_LIMIT)).is_ok());
        assert!(check_unit_name("機能-検索 v2").is_ok());
        assert!(check_unit_name("\u{645}\u{200c}\u{6cc}").is_ok(), "a joiner scripts are written with");
    }

    #[test]
    fn a_name_that_begins_as_a_bug_task_s_is_refused_in_either_format_so_no_unit_is_judged_as_a_bug() {
        let mut t = tree();
        t.insert("specs/bug:tags/tasks.md", "- [ ] T001 a\n").unwrap();
        t.insert("openspec/changes/bug:filter/tasks.md", "- [ ] 1.1 a\n").unwrap();
        for name in ["bug:tags", "bug:filter", "bug:"] {
            let err = locate_unit(&t, name).unwrap_err();
            let refused = matches!(&err, SpecError::BadUnitName { reason, .. } if reason.contains("`bug:`"));
            assert!(refused, "{name}: {err:?}");
            assert_eq!(unit_of_entry(SPECKIT_SPECS_DIR, name), None);
            assert_eq!(unit_of_entry(OPENSPEC_CHANGES_DIR, name), None);
        }
        // Only the bug task's own prefix: a name that holds `bug` elsewhere is a unit's.
        for name in ["bugfix-tags", "001-bug:tags", "debug:tags"] {
            assert!(check_unit_name(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn a_hand_named_feature_is_a_unit_once_it_holds_a_task_list() {
        let mut t = tree();
        t.insert("specs/scs-hybrid--production-docker/tasks.md", "- [ ] T001 a\n").unwrap();
        let loc = locate_unit(&t, "scs-hybrid--production-docker").unwrap();
        assert_eq!((loc.format, loc.dir.as_str()), (Format::SpecKit, "specs/scs-hybrid--production-docker"));
        assert!(matches!(locate_unit(&t, "notes"), Err(SpecError::UnknownUnit { .. })));
        // A hand-named directory that an OpenSpec change shares is ambiguous, as a numbered one is.
        t.insert("openspec/changes/scs-hybrid--production-docker/tasks.md", "").unwrap();
        let err = locate_unit(&t, "scs-hybrid--production-docker").unwrap_err();
        assert!(matches!(err, SpecError::AmbiguousUnit { .. }), "{err:?}");
    }

    #[test]
    fn a_unit_directory_that_is_a_submodule_is_refused_never_taken_for_absent() {
        let mut t = tree();
        for path in ["specs/002-sub", "openspec/changes/add-sub", "openspec/changes/archive/2025-02-02-gone"]
        {
            t.insert_submodule(path).unwrap();
        }
        for (unit, path) in [
            ("002-sub", "specs/002-sub"),
            ("add-sub", "openspec/changes/add-sub"),
            ("gone", "openspec/changes/archive/2025-02-02-gone"),
        ] {
            let err = locate_unit(&t, unit).unwrap_err();
            assert!(matches!(err, SpecError::Submodule { kind: "directory", .. }), "{unit}: {err:?}");
            assert!(err.to_string().starts_with(&format!("`{path}` is a submodule")), "{err}");
        }
        let mut above = MemTree::new();
        above.insert_submodule("openspec").unwrap();
        let err = locate_unit(&above, "add-filter").unwrap_err();
        assert!(err.to_string().starts_with("`openspec` is a submodule"), "{err}");
    }

    #[test]
    fn a_unit_in_both_formats_is_ambiguous() {
        let mut t = tree();
        t.insert("openspec/changes/001-tags/tasks.md", "").unwrap();
        assert!(matches!(locate_unit(&t, "001-tags"), Err(SpecError::AmbiguousUnit { .. })));
    }

    #[test]
    fn listing_units_covers_both_formats_then_the_archive_and_skips_odd_names() {
        let units: Vec<(Format, String, bool)> = list_units(&tree())
            .unwrap()
            .into_iter()
            .map(|u| (u.format, u.name.clone(), u.is_archived()))
            .collect();
        assert_eq!(
            units,
            [
                (Format::SpecKit, "001-tags".to_owned(), false),
                (Format::SpecKit, "20250101-120000-clock".to_owned(), false),
                (Format::OpenSpec, "add-filter".to_owned(), false),
                (Format::OpenSpec, "old".to_owned(), true),
            ]
        );
        assert!(list_units(&MemTree::new()).unwrap().is_empty());
    }

    #[test]
    fn a_change_archived_once_is_found_in_the_archive_and_an_active_one_wins() {
        let loc = locate_unit(&tree(), "old").unwrap();
        assert_eq!(loc.dir, "openspec/changes/archive/2025-01-01-old");
        assert_eq!(loc.tasks, "openspec/changes/archive/2025-01-01-old/tasks.md");
        assert!(loc.is_archived());
        let mut t = tree();
        t.insert("openspec/changes/archive/2024-05-06-add-filter/tasks.md", "").unwrap();
        let active = locate_unit(&t, "add-filter").unwrap();
        assert!(!active.is_archived(), "{active:?}");
        assert_eq!(list_units(&t).unwrap().iter().filter(|u| u.name == "add-filter").count(), 1);
    }

    #[test]
    fn a_change_archived_twice_and_active_nowhere_is_ambiguous_and_listed_once() {
        let mut t = tree();
        t.insert("openspec/changes/archive/2026-02-03-old/tasks.md", "").unwrap();
        assert!(matches!(locate_unit(&t, "old"), Err(SpecError::AmbiguousArchive { .. })));
        assert_eq!(list_units(&t).unwrap().iter().filter(|u| u.name == "old").count(), 1);
    }

    #[test]
    fn a_unit_named_in_another_unicode_form_than_its_directory_is_unknown_and_the_directory_named() {
        let t = MemTree::from_files([("specs/001-cafe\u{301}/tasks.md", "- [ ] T001 a\n")]).unwrap();
        let err = locate_unit(&t, "001-caf\u{e9}").unwrap_err().to_string();
        assert!(err.contains("`specs/001-cafe\u{301}` has the same name in another Unicode form"), "{err}");
        let err = locate_unit(&t, "002-caf\u{e9}").unwrap_err().to_string();
        assert!(!err.contains("Unicode form"), "{err}");
    }

    #[test]
    fn only_dated_archive_entries_name_changes() {
        assert_eq!(archived_change_id("2025-01-01-old"), Some("old"));
        for odd in ["2025-01-01", "2025-01-01-", "2025-1-01-old", "20250101-old", "2025-01-01-archive", "old"]
        {
            assert_eq!(archived_change_id(odd), None, "{odd:?}");
        }
        assert!(is_archive_dir("openspec/changes/archive/2025-01-01-old"));
        assert!(!is_archive_dir("openspec/changes/archived-thing") && !is_archive_dir("specs/archive/x"));
    }
}
