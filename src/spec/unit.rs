//! Units: a Spec Kit feature directory (`specs/<NNN-name>/`) or an OpenSpec change
//! (`openspec/changes/<change-id>/`), and where their files live.

use serde::{Deserialize, Serialize};

use super::error::{SpecError, shown};
use super::tree::SourceTree;

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
    fn new(format: Format, name: &str) -> Self {
        Self::at(format, name, unit_dir(format, name))
    }

    fn at(format: Format, name: &str, dir: String) -> Self {
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
        format!("{}/spec.md", self.dir)
    }

    /// `<dir>/specs`: the OpenSpec change's delta specs (meaningless for Spec Kit).
    #[must_use]
    pub fn deltas_dir(&self) -> String {
        format!("{}/specs", self.dir)
    }
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
fn archived_change_id(entry: &str) -> Option<&str> {
    let (date, id) = (entry.get(..10)?, entry.get(10..)?.strip_prefix('-')?);
    let date_shape =
        date.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    (date_shape && is_openspec_unit_name(id)).then_some(id)
}

/// The directories whose entries are units, or archived copies of one: Spec Kit's `specs/`,
/// OpenSpec's `openspec/changes/` and its archive.
pub const UNIT_PARENTS: [&str; 3] = [SPECKIT_SPECS_DIR, OPENSPEC_CHANGES_DIR, "openspec/changes/archive"];

/// The unit that the entry `name` of the directory `parent` (one of [`UNIT_PARENTS`]) is, or
/// holds an archived copy of; `None` for a name that is no unit there.
#[must_use]
pub fn unit_of_entry<'n>(parent: &str, name: &'n str) -> Option<&'n str> {
    match parent {
        SPECKIT_SPECS_DIR => is_speckit_unit_name(name).then_some(name),
        OPENSPEC_CHANGES_DIR => (name != OPENSPEC_ARCHIVE && is_openspec_unit_name(name)).then_some(name),
        _ if parent == UNIT_PARENTS[2] => archived_change_id(name),
        _ => None,
    }
}

/// The archived copies of OpenSpec changes in `tree`: `(change id, directory)` in name order.
/// A symbolic link among them is refused, as for active units.
fn archived_changes(tree: &dyn SourceTree) -> Result<Vec<(String, String)>, SpecError> {
    let parent = format!("{OPENSPEC_CHANGES_DIR}/{OPENSPEC_ARCHIVE}");
    if !dir_exists(tree, &parent)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (entry, is_dir) in tree.entries(&parent)?.unwrap_or_default() {
        let Some(id) = archived_change_id(&entry) else { continue };
        let dir = format!("{parent}/{entry}");
        if is_dir {
            out.push((id.to_owned(), dir));
        } else if tree.is_link(&dir)? {
            return Err(SpecError::SymbolicLink { path: dir, what: "an archived change", kind: "directory" });
        }
    }
    Ok(out)
}

/// The one archived copy of the OpenSpec change `unit`, when it is archived.
fn archived_unit(tree: &dyn SourceTree, unit: &str) -> Result<Option<UnitLoc>, SpecError> {
    if !is_openspec_unit_name(unit) {
        return Ok(None);
    }
    let dirs: Vec<String> =
        archived_changes(tree)?.into_iter().filter(|(id, _)| id == unit).map(|(_, dir)| dir).collect();
    match dirs.as_slice() {
        [] => Ok(None),
        [dir] => Ok(Some(UnitLoc::at(Format::OpenSpec, unit, dir.clone()))),
        several => Err(SpecError::AmbiguousArchive { unit: unit.to_owned(), dirs: several.join(", ") }),
    }
}

fn unit_dir(format: Format, name: &str) -> String {
    match format {
        Format::SpecKit => format!("{SPECKIT_SPECS_DIR}/{name}"),
        Format::OpenSpec => format!("{OPENSPEC_CHANGES_DIR}/{name}"),
    }
}

/// Checks that a unit name (hostile input) can only name one visible directory: not empty, no `/`
/// or `\`, no `..`, no leading `.`, no control characters.
pub fn check_unit_name(name: &str) -> Result<(), SpecError> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.contains(['/', '\\']) {
        Some("it contains a path separator")
    } else if name.starts_with('.') || name.contains("..") {
        Some("it starts with `.` or contains `..`")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(SpecError::BadUnitName { name: shown(name, 100), reason }),
        None => Ok(()),
    }
}

/// Whether `name` has the shape of a Spec Kit feature directory: `NNN-name` (3 or more digits) or
/// `YYYYMMDD-HHMMSS-name`, with something after the last `-` of the prefix.
#[must_use]
pub fn is_speckit_unit_name(name: &str) -> bool {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    digits >= 3
        && name.as_bytes().get(digits) == Some(&b'-')
        && name.len() > digits + 1
        && check_unit_name(name).is_ok()
}

/// Whether `name` can be an OpenSpec change id (any acceptable unit name except `archive`).
#[must_use]
pub fn is_openspec_unit_name(name: &str) -> bool {
    name != OPENSPEC_ARCHIVE && check_unit_name(name).is_ok()
}

/// Whether the directory `dir` exists in `tree`. A symbolic link at `dir` or at a directory above
/// it is refused, never taken for absent.
fn dir_exists(tree: &dyn SourceTree, dir: &str) -> Result<bool, SpecError> {
    if tree.entries(dir)?.is_some() {
        return Ok(true);
    }
    let mut upto = 0;
    for component in dir.split('/') {
        upto += component.len();
        let path = dir.get(..upto).unwrap_or(dir);
        if tree.is_link(path)? {
            return Err(SpecError::SymbolicLink {
                path: path.to_owned(),
                what: "a unit directory or a directory above it",
                kind: "directory",
            });
        }
        upto += 1;
    }
    Ok(false)
}

/// Finds the unit named `unit` in either format; an OpenSpec change active nowhere is found in
/// the archive when it is archived exactly once ([`UnitLoc::is_archived`]). An unknown or
/// ambiguous unit is an error.
pub fn locate_unit(tree: &dyn SourceTree, unit: &str) -> Result<UnitLoc, SpecError> {
    check_unit_name(unit)?;
    let speckit = is_speckit_unit_name(unit) && dir_exists(tree, &unit_dir(Format::SpecKit, unit))?;
    let openspec = is_openspec_unit_name(unit) && dir_exists(tree, &unit_dir(Format::OpenSpec, unit))?;
    match (speckit, openspec) {
        (true, false) => Ok(UnitLoc::new(Format::SpecKit, unit)),
        (false, true) => Ok(UnitLoc::new(Format::OpenSpec, unit)),
        (true, true) => Err(SpecError::AmbiguousUnit {
            unit: unit.to_owned(),
            speckit_dir: unit_dir(Format::SpecKit, unit),
            openspec_dir: unit_dir(Format::OpenSpec, unit),
        }),
        (false, false) => {
            if let Some(archived) = archived_unit(tree, unit)? {
                return Ok(archived);
            }
            let mut looked = Vec::new();
            if is_speckit_unit_name(unit) {
                looked.push(format!("`{}/`", unit_dir(Format::SpecKit, unit)));
            }
            if is_openspec_unit_name(unit) {
                looked.push(format!("`{}/`", unit_dir(Format::OpenSpec, unit)));
            }
            if !is_speckit_unit_name(unit) {
                looked.push(format!(
                    "not under `{SPECKIT_SPECS_DIR}/` (a Spec Kit feature is named \
                     `NNN-name` or `YYYYMMDD-HHMMSS-name`)"
                ));
            }
            Err(SpecError::UnknownUnit { unit: unit.to_owned(), looked: looked.join(", ") })
        }
    }
}

/// Every unit of both formats, Spec Kit first, each sorted by name, then the archived OpenSpec
/// changes that are active nowhere (by change id, each once: a change archived twice is one unit,
/// which [`locate_unit`] refuses as ambiguous). Directories whose names cannot be units are left
/// out.
pub fn list_units(tree: &dyn SourceTree) -> Result<Vec<UnitLoc>, SpecError> {
    let mut out = units_under(tree, Format::SpecKit, is_speckit_unit_name)?;
    out.extend(units_under(tree, Format::OpenSpec, is_openspec_unit_name)?);
    let mut archived: Vec<UnitLoc> = Vec::new();
    for (id, dir) in archived_changes(tree)? {
        let taken = out.iter().chain(&archived).any(|u| u.name == id);
        if !taken {
            archived.push(UnitLoc::at(Format::OpenSpec, &id, dir));
        }
    }
    archived.sort_by(|a, b| a.name.cmp(&b.name));
    out.extend(archived);
    Ok(out)
}

/// The units of `format`: directories under its parent whose names it `accepts`, sorted by name.
fn units_under(
    tree: &dyn SourceTree,
    format: Format,
    accepts: fn(&str) -> bool,
) -> Result<Vec<UnitLoc>, SpecError> {
    let parent = match format {
        Format::SpecKit => SPECKIT_SPECS_DIR,
        Format::OpenSpec => OPENSPEC_CHANGES_DIR,
    };
    if !dir_exists(tree, parent)? {
        return Ok(Vec::new());
    }
    let mut names = Vec::new();
    for (name, is_dir) in tree.entries(parent)?.unwrap_or_default() {
        if !accepts(&name) {
            continue;
        }
        if is_dir {
            names.push(name);
        } else if tree.is_link(&format!("{parent}/{name}"))? {
            return Err(SpecError::SymbolicLink {
                path: format!("{parent}/{name}"),
                what: "a unit directory",
                kind: "directory",
            });
        }
    }
    names.sort();
    Ok(names.iter().map(|name| UnitLoc::new(format, name)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tree::MemTree;

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
        assert!(msg.contains("openspec/changes/add-missing/"), "{msg}");
        assert!(msg.contains("a Spec Kit feature is named `NNN-name`"), "{msg}");
        assert!(matches!(locate_unit(&tree(), "archive"), Err(SpecError::UnknownUnit { .. })));
        assert!(matches!(locate_unit(&tree(), "01-short"), Err(SpecError::UnknownUnit { .. })));
    }

    #[test]
    fn hostile_unit_names_are_refused_before_any_lookup() {
        for bad in ["", "..", ".", "../specs", "a/b", "a\\b", "x..y", "a\nb", "a\u{7f}"] {
            assert!(matches!(locate_unit(&tree(), bad), Err(SpecError::BadUnitName { .. })), "{bad:?}");
        }
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
