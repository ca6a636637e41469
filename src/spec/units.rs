//! Every unit of a tree, and every place that holds ticks but is no unit.
//!
//! [`list_units`] gives the units by the one definition of [`super::unit`]; [`scan_units`] adds
//! the [`Stray`]s: a task list with checked boxes under `specs/` or `openspec/changes/` that is no
//! unit's (in a directory whose name cannot be a unit's, nested deeper than a unit, an archive
//! entry not named as `openspec archive` names one, an archived copy of a change that is active
//! under the same name or archived twice), an OpenSpec change whose schema has openspec count its
//! tasks in another file than `tasks.md` ([`super::openspec_schema`]), a task list there that
//! cannot be read, and
//! a symbolic link or a submodule where a unit directory would be (named as a unit is, whether or
//! not the name is one a unit can have). A verifier reports each of them, so that no tick is
//! skipped because of where it was written. A submodule anywhere else is
//! another repository's, whose boxes are no claim of this one: it is not searched.

use std::collections::{HashMap, HashSet};

use super::error::{SpecError, shown};
use super::openspec_schema::Tracking;
use super::ticks::checked_box_lines;
use super::tree::{EntryKind, SourceTree, join, link_or_submodule_on_the_way};
use super::unit::{
    Format, OPENSPEC_ARCHIVE, OPENSPEC_CHANGES_DIR, SPECKIT_SPECS_DIR, TASK_LIST_FILE, UNIT_PARENTS, UnitLoc,
    archived_change_id, check_unit_name, dir_exists, is_openspec_unit_name, is_speckit_unit_dir,
    is_speckit_unit_name, unit_shaped,
};

/// How many directories outside the units [`scan_units`] searches for task lists, all parents
/// together: a tree built to be walked for ever is reported as such, never walked to its end.
pub const STRAY_DIRS_LIMIT: usize = 4096;

/// How many directories of the units' own (each unit's directory and those below it)
/// [`scan_units`] searches for task lists other than the units' own, all units together: a
/// budget apart from [`STRAY_DIRS_LIMIT`], so that a project of many units never stops the
/// search outside them early. The search for projects nested below the top
/// ([`super::nested_projects`]) has a budget of its own of as many directories.
pub const UNIT_DIRS_LIMIT: usize = 16384;

/// Every unit of `tree` and every place that may hold ticks without being one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnitScan {
    /// The units, as [`list_units`] lists them, less an OpenSpec change archived more than once
    /// and active nowhere (its copies are strays: which one is the unit cannot be told).
    pub units: Vec<UnitLoc>,
    /// The places that are no unit but hold, or may hold, checked boxes, in path order.
    pub strays: Vec<Stray>,
}

/// A task list with checked boxes, or a place that may hold one, that is read as no unit's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stray {
    /// The entry of `specs/`, `openspec/changes/` or its archive it is in (or is), a path of the
    /// tree: a branch that leaves it as it was did not write it.
    pub top: String,
    /// Its path, escaped and cut for display: the task list, or the entry itself.
    pub shown: String,
    /// Why it is no unit's, and what to do.
    pub reason: String,
    /// The 1-based lines of its checked boxes; empty when it could not be read.
    pub checked: Vec<usize>,
    /// Whether a search's limit stopped before it ([`STRAY_DIRS_LIMIT`], [`UNIT_DIRS_LIMIT`]):
    /// nothing in it was read, which is no fault of the place.
    pub stopped: bool,
    /// The directory of the project below the top whose task list it is, when it is one's
    /// ([`super::nested_projects`]): the top's units read none of its ticks.
    pub project: Option<String>,
}

/// One of [`UNIT_PARENTS`], sorted out.
#[derive(Default)]
struct Parent {
    /// The units (for the archive: one per archived copy, named by its change id), in entry order.
    units: Vec<UnitLoc>,
    /// Symbolic links and submodules where a unit directory, or the directory of units, would be.
    refused: Vec<Refused>,
    /// Directories that are no units, with why: searched for task lists by [`scan_units`].
    others: Vec<(String, String)>,
    /// The parent's own task lists ([`lists_in`]), each with why it is no unit's.
    own_lists: Vec<(String, String)>,
    /// Its entries whose names are not UTF-8 (decoded with U+FFFD): no path can name them.
    undecodable: Vec<String>,
}

/// A symbolic link or a submodule where a unit directory, or the directory of units, would be.
struct Refused {
    /// Its path.
    path: String,
    /// What would be there.
    what: &'static str,
    /// Which of the two it is.
    kind: EntryKind,
    /// Why its name cannot be a unit's, when it is shaped as one's ([`unit_shaped`]) but cannot
    /// be one: no unit is there, yet a directory of that name would be searched for ticks, and a
    /// link or a submodule cannot be.
    misnamed: Option<&'static str>,
}

/// Sorts out the entries of `parent` (one of [`UNIT_PARENTS`]).
fn read_parent(tree: &dyn SourceTree, parent: &str) -> Result<Parent, SpecError> {
    let mut out = Parent::default();
    if let Some((path, kind)) = link_or_submodule_on_the_way(tree, parent)? {
        out.refused.push(Refused { path, what: "the directory of units", kind, misnamed: None });
        return Ok(out);
    }
    if !dir_exists(tree, parent)? {
        return Ok(out);
    }
    let entries = tree.entries(parent)?.unwrap_or_default();
    out.own_lists = lists_in(parent, &entries, &no_unit_because(parent, None));
    out.undecodable = tree.undecodable(parent)?.into_iter().map(|(name, _)| join(parent, &name)).collect();
    for (name, kind) in entries {
        let path = join(parent, &name);
        let (unit, what) = match parent {
            // The parent's own task list (`own_lists`), reported as such.
            _ if name == TASK_LIST_FILE && kind != EntryKind::Dir => continue,
            SPECKIT_SPECS_DIR => speckit_entry(tree, &name, &path, kind)?,
            OPENSPEC_CHANGES_DIR if name == OPENSPEC_ARCHIVE => continue,
            OPENSPEC_CHANGES_DIR => {
                let id = is_openspec_unit_name(&name).then(|| name.clone());
                (id.map(|id| UnitLoc::new(Format::OpenSpec, &id)), "a unit directory")
            }
            _ => {
                let id = archived_change_id(&name).map(str::to_owned);
                (id.map(|id| UnitLoc::at(Format::OpenSpec, &id, path.clone())), "an archived change")
            }
        };
        match (unit, kind) {
            (Some(unit), EntryKind::Dir) => out.units.push(unit),
            (Some(_), EntryKind::Link | EntryKind::Submodule) => {
                out.refused.push(Refused { path, what, kind, misnamed: None });
            }
            (None, EntryKind::Dir) => out.others.push((path, no_unit_because(parent, Some(&name)))),
            (None, EntryKind::Link | EntryKind::Submodule) => {
                let misnamed = misnamed(parent, &name);
                out.refused.extend(misnamed.map(|why| Refused { path, what, kind, misnamed: Some(why) }));
            }
            (_, EntryKind::File | EntryKind::Special) => {}
        }
    }
    Ok(out)
}

/// Why the entry `name` of `parent`, shaped as a unit's ([`unit_shaped`]), cannot be one; `None`
/// when it is not so shaped (a link or a submodule of that name stands where no unit would be).
fn misnamed(parent: &str, name: &str) -> Option<&'static str> {
    let id = unit_shaped(parent, name)?;
    match check_unit_name(id) {
        Err(SpecError::BadUnitName { reason, .. }) => Some(reason),
        // Shaped as a change archived under the archive's own name.
        _ => Some("it names the archive itself, which no change can be named"),
    }
}

/// The unit the entry `name` of `specs/` is, or `None` ([`is_speckit_unit_dir`]); and what a link
/// or a submodule there would be. Either is refused where Spec Kit's own names would make it a
/// unit (and a stray where they would but for a name no unit can have, [`misnamed`]); any other
/// entry that is no directory is no unit.
fn speckit_entry(
    tree: &dyn SourceTree,
    name: &str,
    path: &str,
    kind: EntryKind,
) -> Result<(Option<UnitLoc>, &'static str), SpecError> {
    let unit = match kind {
        EntryKind::Dir => is_speckit_unit_dir(name, || Ok(tree.entries(path)?.unwrap_or_default()))?,
        EntryKind::File | EntryKind::Special | EntryKind::Link | EntryKind::Submodule => {
            check_unit_name(name).is_ok() && is_speckit_unit_name(name)
        }
    };
    Ok((unit.then(|| UnitLoc::new(Format::SpecKit, name)), "a unit directory"))
}

/// Why the directory `name` of `parent` (`None`: the parent itself) is no unit.
fn no_unit_because(parent: &str, name: Option<&str>) -> String {
    if let Some(Err(SpecError::BadUnitName { reason, .. })) = name.map(check_unit_name) {
        return format!("its directory's name cannot be a unit's: {reason}; rename the directory");
    }
    match parent {
        SPECKIT_SPECS_DIR => format!(
            "a Spec Kit unit's task list is `{SPECKIT_SPECS_DIR}/<unit>/{TASK_LIST_FILE}`, directly under `{SPECKIT_SPECS_DIR}/`; move the feature there"
        ),
        OPENSPEC_CHANGES_DIR => format!(
            "an OpenSpec change's task list is `{OPENSPEC_CHANGES_DIR}/<change-id>/{TASK_LIST_FILE}`; move the change there"
        ),
        _ => format!(
            "an archived OpenSpec change is `{OPENSPEC_CHANGES_DIR}/{OPENSPEC_ARCHIVE}/YYYY-MM-DD-<change-id>/`, as `openspec archive` names it; rename the directory"
        ),
    }
}

/// The units of `tree` by [`UNIT_PARENTS`]: Spec Kit's, the active OpenSpec changes, the
/// archived copies; and every symbolic link or submodule where a unit directory would be.
fn parents(tree: &dyn SourceTree) -> Result<[Parent; 3], SpecError> {
    Ok([
        read_parent(tree, UNIT_PARENTS[0])?,
        read_parent(tree, UNIT_PARENTS[1])?,
        read_parent(tree, UNIT_PARENTS[2])?,
    ])
}

/// [`list_units`] less what it refuses (a symbolic link or a submodule where a unit, or the
/// directory of units, would be): for a writer that reads only the units it changes, where a link
/// elsewhere is no concern of its task (a verifier reports it, through [`scan_units`]).
///
/// # Errors
/// A tree that cannot be read.
pub fn readable_units(tree: &dyn SourceTree) -> Result<Vec<UnitLoc>, SpecError> {
    Ok(units_of(&parents(tree)?, true))
}

/// Every unit of both formats, Spec Kit first, each sorted by name, then the archived OpenSpec
/// changes that are active nowhere (by change id, each once: a change archived twice is one unit,
/// which [`super::locate_unit`] refuses as ambiguous). A Spec Kit unit is a directory directly
/// under `specs/` that holds a `tasks.md` or is named as Spec Kit names features (see
/// [`super::unit`]); directories that are no unit are left out ([`scan_units`] names those that
/// hold ticks). A symbolic link or a submodule where a unit directory would be is refused.
pub fn list_units(tree: &dyn SourceTree) -> Result<Vec<UnitLoc>, SpecError> {
    let parents = parents(tree)?;
    // A link or a submodule whose name cannot be a unit's stands where no unit is.
    let mut refused = parents.iter().flat_map(|p| &p.refused).filter(|r| r.misnamed.is_none());
    if let Some(e) =
        refused.find_map(|r| SpecError::entry_refused(&r.path, Some(r.kind), r.what, "directory"))
    {
        return Err(e);
    }
    Ok(units_of(&parents, true))
}

/// The units of `parents`, in [`list_units`]'s order; `twice_once`: a change archived more than
/// once and active nowhere is listed once (else not at all).
fn units_of(parents: &[Parent; 3], twice_once: bool) -> Vec<UnitLoc> {
    let [speckit, openspec, archive] = parents;
    let mut out: Vec<UnitLoc> = speckit.units.iter().chain(&openspec.units).cloned().collect();
    let active: HashSet<&str> = out.iter().map(|u| u.name.as_str()).collect();
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for copy in &archive.units {
        *copies.entry(copy.name.as_str()).or_default() += 1;
    }
    let mut listed: HashSet<&str> = HashSet::new();
    let mut archived: Vec<UnitLoc> = Vec::new();
    for copy in &archive.units {
        let name = copy.name.as_str();
        let once = copies.get(name) == Some(&1);
        if !active.contains(name) && (once || twice_once) && listed.insert(name) {
            archived.push(copy.clone());
        }
    }
    archived.sort_by(|a, b| a.name.cmp(&b.name));
    out.extend(archived);
    out
}

/// [`list_units`], and every place under [`UNIT_PARENTS`] that holds a task list with checked
/// boxes but is no unit's, or cannot be told not to ([`Stray`]): a symbolic link or a submodule
/// where a unit directory would be is one of them here, not an error.
///
/// # Errors
/// A tree that cannot be read.
pub fn scan_units(tree: &dyn SourceTree) -> Result<UnitScan, SpecError> {
    let parents = parents(tree)?;
    let mut strays: Vec<Stray> = parents.iter().flat_map(|p| &p.refused).map(refused).collect();
    let units = units_not_ambiguous(tree, units_of(&parents, false), &mut strays)?;
    archives_not_units(tree, &parents, &units, &mut strays)?;
    let units = units_read_from_tasks_md(tree, units, &mut strays)?;
    search_outside_units(tree, &parents, &mut strays)?;
    search_inside_units(tree, &units, &mut strays)?;
    strays.sort_by(|a, b| (&a.shown, &a.top, &a.reason).cmp(&(&b.shown, &b.top, &b.reason)));
    // A link at `openspec` is on the way to both OpenSpec parents: one place reached twice is one
    // stray, and every other place is one of its own.
    strays.dedup();
    Ok(UnitScan { units, strays })
}

/// `units` less those whose name is both a Spec Kit feature and an OpenSpec change (an archived
/// copy is listed only when no unit is active under its name, [`units_of`]): a
/// `Spec-Task:` naming one names both ([`super::locate_unit`] refuses it as ambiguous), so the
/// task list of each that holds checked boxes is a stray that says so.
fn units_not_ambiguous(
    tree: &dyn SourceTree,
    units: Vec<UnitLoc>,
    strays: &mut Vec<Stray>,
) -> Result<Vec<UnitLoc>, SpecError> {
    let speckit: HashSet<&str> =
        units.iter().filter(|u| u.format == Format::SpecKit).map(|u| u.name.as_str()).collect();
    let both: HashSet<String> = units
        .iter()
        .filter(|u| u.format == Format::OpenSpec && speckit.contains(u.name.as_str()))
        .map(|u| u.name.clone())
        .collect();
    let (ambiguous, units): (Vec<UnitLoc>, Vec<UnitLoc>) =
        units.into_iter().partition(|u| both.contains(&u.name));
    for unit in &ambiguous {
        let reason = SpecError::AmbiguousUnit {
            unit: unit.name.clone(),
            speckit_dir: UnitLoc::new(Format::SpecKit, &unit.name).dir,
            openspec_dir: UnitLoc::new(Format::OpenSpec, &unit.name).dir,
        };
        push_list(tree, strays, &unit.tasks, &unit.dir, unit.format, &reason.to_string())?;
    }
    Ok(units)
}

/// `units` less the OpenSpec changes whose schema has openspec count their tasks in another file
/// than `tasks.md` (or in files that cannot be told, [`Tracking::refusal`]): each is a stray of its
/// directory that says so, whatever its files hold, for speccoder reads none of them as a task
/// list.
fn units_read_from_tasks_md(
    tree: &dyn SourceTree,
    units: Vec<UnitLoc>,
    strays: &mut Vec<Stray>,
) -> Result<Vec<UnitLoc>, SpecError> {
    let tracking = Tracking::new(tree);
    let mut read = Vec::with_capacity(units.len());
    for unit in units {
        match tracking.refusal(&unit)? {
            None => read.push(unit),
            Some(refused) => strays.push(Stray {
                top: unit.dir.clone(),
                shown: shown(&unit.dir, 200),
                reason: refused.to_string(),
                checked: Vec::new(),
                stopped: false,
                project: None,
            }),
        }
    }
    Ok(read)
}

/// The stray of a symbolic link or a submodule where a unit directory would be.
fn refused(Refused { path, what, kind, misnamed }: &Refused) -> Stray {
    let named = misnamed.map_or_else(String::new, |why| format!(", and its name cannot be a unit's: {why}"));
    let renamed = if misnamed.is_some() { ", under a name a unit can have" } else { "" };
    let reason = if *kind == EntryKind::Link {
        format!(
            "it is a symbolic link where {what} would be{named}; speccoder never reads a unit through a link (it could point anywhere): replace the link with the directory itself{renamed}"
        )
    } else {
        format!(
            "it is a submodule (another repository) where {what} would be{named}; speccoder does not read into submodules: keep the unit in the project's own tree{renamed}"
        )
    };
    Stray {
        top: path.clone(),
        shown: shown(path, 200),
        reason,
        checked: Vec::new(),
        stopped: false,
        project: None,
    }
}

/// The task lists of the archived copies that are no unit (`units`): of a change archived more
/// than once and active nowhere, which copy is the unit cannot be told; of a change active under
/// the same name (an OpenSpec change or a Spec Kit feature), a `Spec-Task:` naming it names the
/// active one, so the copy's ticks have no evidence a verifier could find. The copies are grouped
/// by change once, and each change's reason is made once for all its copies (naming how many
/// there are and the first few, [`SpecError::ambiguous_archive`]): the rows grow with the copies,
/// never with their square.
fn archives_not_units(
    tree: &dyn SourceTree,
    parents: &[Parent; 3],
    units: &[UnitLoc],
    strays: &mut Vec<Stray>,
) -> Result<(), SpecError> {
    let unit_dirs: HashSet<&str> = units.iter().map(|u| u.dir.as_str()).collect();
    // The directory of the first active unit of each name, Spec Kit's before OpenSpec's.
    let mut active: HashMap<&str, &str> = HashMap::new();
    for unit in parents[..2].iter().flat_map(|p| &p.units) {
        active.entry(unit.name.as_str()).or_insert(unit.dir.as_str());
    }
    let mut copies: HashMap<&str, Vec<&str>> = HashMap::new();
    for copy in &parents[2].units {
        copies.entry(copy.name.as_str()).or_default().push(copy.dir.as_str());
    }
    let mut reasons: HashMap<&str, String> = HashMap::new();
    for copy in parents[2].units.iter().filter(|copy| !unit_dirs.contains(copy.dir.as_str())) {
        let name = copy.name.as_str();
        let reason = reasons.entry(name).or_insert_with(|| match active.get(name) {
            Some(active) => format!(
                "it is an archived copy of `{name}`, which is also active at {active}: a task of either is named `{name}/<task>`, so the archived copy's ticks cannot be told from the active ones; give the active change another name, or clear the archived copy's boxes"
            ),
            None => {
                let dirs = copies.get(name).map_or(&[][..], Vec::as_slice);
                SpecError::ambiguous_archive(name, dirs).to_string()
            }
        });
        push_list(tree, strays, &copy.tasks, &copy.dir, Format::OpenSpec, reason)?;
    }
    Ok(())
}

/// The strays outside the units: each parent's names that are not UTF-8, its own task list, and
/// the task lists in and below its entries that are no unit.
fn search_outside_units(
    tree: &dyn SourceTree,
    parents: &[Parent; 3],
    strays: &mut Vec<Stray>,
) -> Result<(), SpecError> {
    let mut budget = Budget::outside_units();
    for (parent, found) in UNIT_PARENTS.iter().zip(parents) {
        strays.extend(found.undecodable.iter().map(|path| undecodable(parent, path)));
        let format = if *parent == SPECKIT_SPECS_DIR { Format::SpecKit } else { Format::OpenSpec };
        for (list, reason) in &found.own_lists {
            push_list(tree, strays, list, parent, format, reason)?;
        }
        for (dir, reason) in &found.others {
            search(tree, strays, &Search { top: dir, format, reason, own: None }, &mut budget)?;
        }
    }
    Ok(())
}

/// The strays inside the units' directories: every task list there but each unit's own.
fn search_inside_units(
    tree: &dyn SourceTree,
    units: &[UnitLoc],
    strays: &mut Vec<Stray>,
) -> Result<(), SpecError> {
    let mut budget = Budget::inside_units();
    for unit in units {
        let reason = format!(
            "it is inside the directory of unit `{}`, whose one task list is `{}`; move its tasks there",
            unit.name, unit.tasks
        );
        let inside = Search { top: &unit.dir, format: unit.format, reason: &reason, own: Some(&unit.tasks) };
        search(tree, strays, &inside, &mut budget)?;
    }
    Ok(())
}

/// A search for task lists that no unit reads, in one entry of a unit parent.
struct Search<'a> {
    /// The entry searched (a directory that is no unit, or a unit's directory), which every
    /// stray found names as its `top`.
    top: &'a str,
    /// The format a task list found there would be read in.
    format: Format,
    /// Why a task list there is read by no unit, and what to do.
    reason: &'a str,
    /// The task list left out, as a unit reads it: the unit's own, in a unit's directory.
    own: Option<&'a str>,
}

/// How many more directories the searches of one kind may read, and what they say when they stop:
/// each search that the stop cuts short or leaves out says so, in a stray of its own entry, so
/// that a check against a base still reports the entries it changed.
pub(super) struct Budget {
    /// The directories left.
    pub(super) left: usize,
    /// Where the stop is reported, and what to do: the reason of those strays.
    pub(super) stopped: String,
}

impl Budget {
    /// The search outside the units ([`STRAY_DIRS_LIMIT`]).
    fn outside_units() -> Budget {
        let stopped = format!(
            "speccoder searches at most {STRAY_DIRS_LIMIT} directories outside the units for task lists, and stopped here; move what is no unit out of `{SPECKIT_SPECS_DIR}/` and `{OPENSPEC_CHANGES_DIR}/`"
        );
        Budget { left: STRAY_DIRS_LIMIT, stopped }
    }

    /// The search inside the units' directories ([`UNIT_DIRS_LIMIT`]).
    fn inside_units() -> Budget {
        let stopped = format!(
            "speccoder searches at most {UNIT_DIRS_LIMIT} directories of the units' own (each unit's directory among them) for other task lists, and stopped here; move what no unit needs out of the units' directories, or check the branch against its base, which reports only the units it changed"
        );
        Budget { left: UNIT_DIRS_LIMIT, stopped }
    }
}

/// Searches the directory `search.top` and every directory below it for task lists (but its
/// own), each a stray when it holds checked boxes or cannot be read; at most `budget` more
/// directories are read, and a stray says where the search stopped.
fn search(
    tree: &dyn SourceTree,
    strays: &mut Vec<Stray>,
    search: &Search<'_>,
    budget: &mut Budget,
) -> Result<(), SpecError> {
    let mut pending = vec![search.top.to_owned()];
    while let Some(dir) = pending.pop() {
        let Some(left) = budget.left.checked_sub(1) else {
            let (top, shown, reason) = (search.top.to_owned(), shown(&dir, 200), budget.stopped.clone());
            strays.push(Stray { top, shown, reason, checked: Vec::new(), stopped: true, project: None });
            return Ok(());
        };
        budget.left = left;
        let Listing { entries, undecodable: unnamed } =
            listing(tree, &dir, search.top, search.reason, strays)?;
        for (list, reason) in lists_in(&dir, &entries, search.reason) {
            if search.own != Some(list.as_str()) {
                push_list(tree, strays, &list, search.top, search.format, &reason)?;
            }
        }
        strays.extend(unnamed.iter().map(|(name, _)| undecodable(search.top, &join(&dir, name))));
        let dirs = entries.into_iter().filter(|(_, kind)| *kind == EntryKind::Dir);
        pending.extend(dirs.map(|(name, _)| join(&dir, &name)));
    }
    Ok(())
}

/// A directory as a search for task lists reads it ([`listing`]).
#[derive(Default)]
pub(super) struct Listing {
    /// Its entries whose names are paths, with their kinds.
    pub(super) entries: Vec<(String, EntryKind)>,
    /// Its entries whose names are not UTF-8 (decoded with U+FFFD), with their kinds: no path
    /// names them, so a search reports each it would enter ([`undecodable`]) instead of skipping it.
    pub(super) undecodable: Vec<(String, EntryKind)>,
}

/// The directory `dir` as a search of the entry `top` reads it: a directory that cannot be
/// listed (a name no path can address, a `\` in it) may hold ticks, so it is a stray of `top`
/// that says so before `reason` (why a list there is read by no run, and what to do), and reads
/// as empty.
///
/// # Errors
/// A tree that cannot be read.
pub(super) fn listing(
    tree: &dyn SourceTree,
    dir: &str,
    top: &str,
    reason: &str,
    strays: &mut Vec<Stray>,
) -> Result<Listing, SpecError> {
    match tree.entries(dir) {
        Ok(entries) => {
            Ok(Listing { entries: entries.unwrap_or_default(), undecodable: tree.undecodable(dir)? })
        }
        Err(e) if e.is_repository_failure() => Err(e),
        Err(e) => {
            let reason = format!("it cannot be searched for task lists ({e}); {reason}");
            let (top, shown) = (top.to_owned(), shown(dir, 200));
            strays.push(Stray { top, shown, reason, checked: Vec::new(), stopped: false, project: None });
            Ok(Listing::default())
        }
    }
}

/// The task lists among `entries`, those of the directory `dir`, each with why no unit reads it:
/// the one rule of where a search looks for a list. A `tasks.md` that is no directory is one, for
/// `reason` (why a list there is no unit's); so is a file whose name is a task list's in other
/// letter case (`Tasks.md`), which no reader takes for one, yet a person and a case-blind file
/// system do: its reason says so before `reason`.
pub(super) fn lists_in(dir: &str, entries: &[(String, EntryKind)], reason: &str) -> Vec<(String, String)> {
    let lists = entries
        .iter()
        .filter(|(name, kind)| *kind != EntryKind::Dir && name.eq_ignore_ascii_case(TASK_LIST_FILE));
    lists
        .map(|(name, _)| {
            let why = if name == TASK_LIST_FILE {
                reason.to_owned()
            } else {
                format!(
                    "its name is `{name}`, and Spec Kit, OpenSpec and speccoder read `{TASK_LIST_FILE}` only (a file system that ignores case takes the two for one file), so rename it to `{TASK_LIST_FILE}`; and {reason}"
                )
            };
            (join(dir, name), why)
        })
        .collect()
}

/// The stray of an entry whose name is not UTF-8 (`path`, decoded with U+FFFD), inside the entry
/// or parent `top`: no path names it, so whether it holds ticks cannot be read.
pub(super) fn undecodable(top: &str, path: &str) -> Stray {
    Stray {
        top: top.to_owned(),
        shown: shown(path, 200),
        reason: "its name is not valid UTF-8, so no path can name it and it cannot be searched for task lists; rename it".to_owned(),
        checked: Vec::new(),
        stopped: false,
        project: None,
    }
}

/// A stray for the task list at `path` (in the entry `top`) when it holds checked boxes or
/// cannot be read; none when it holds no checked box.
pub(super) fn push_list(
    tree: &dyn SourceTree,
    strays: &mut Vec<Stray>,
    path: &str,
    top: &str,
    format: Format,
    reason: &str,
) -> Result<(), SpecError> {
    let (checked, reason) = match checked_box_lines(tree, path, format) {
        Ok(lines) if lines.is_empty() => return Ok(()),
        Ok(lines) => (lines, reason.to_owned()),
        Err(e) if e.is_repository_failure() => return Err(e),
        Err(e) => (Vec::new(), format!("it cannot be read ({e}); {reason}")),
    };
    let (top, shown) = (top.to_owned(), shown(path, 200));
    strays.push(Stray { top, shown, reason, checked, stopped: false, project: None });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tree::MemTree;

    /// Each stray of `scan` as its entry of the top, its place and its checked lines.
    fn places(scan: &UnitScan) -> Vec<(&str, &str, &[usize])> {
        scan.strays.iter().map(|s| (s.top.as_str(), s.shown.as_str(), s.checked.as_slice())).collect()
    }

    fn names(units: &[UnitLoc]) -> Vec<(Format, &str, &str)> {
        units.iter().map(|u| (u.format, u.name.as_str(), u.dir.as_str())).collect()
    }

    #[test]
    fn a_directory_under_specs_is_a_unit_when_it_holds_a_task_list_whatever_its_name() {
        let tree = MemTree::from_files([
            ("specs/scs-hybrid--production-docker/tasks.md", "- [x] T001 a\n"),
            ("specs/機能-検索/tasks.md", "- [ ] T001 a\n"),
            ("specs/002-named/spec.md", ""),
            ("specs/notes/readme.md", ""),
            ("specs/README.md", ""),
        ])
        .unwrap();
        let units = list_units(&tree).unwrap();
        assert_eq!(
            names(&units),
            [
                (Format::SpecKit, "002-named", "specs/002-named"),
                (Format::SpecKit, "scs-hybrid--production-docker", "specs/scs-hybrid--production-docker"),
                (Format::SpecKit, "機能-検索", "specs/機能-検索"),
            ]
        );
        let scan = scan_units(&tree).unwrap();
        assert_eq!(scan.units, units);
        assert!(scan.strays.is_empty(), "{:?}", scan.strays);
    }

    #[test]
    fn a_directory_named_as_a_bug_task_is_no_unit_and_its_ticks_are_strays_that_say_to_rename_it() {
        let tree = MemTree::from_files([
            ("specs/bug:bookmark-tags/tasks.md", "- [x] T001 a\n"),
            ("openspec/changes/bug:tag-filter/tasks.md", "- [x] 1.1 a\n"),
            ("openspec/changes/archive/2025-01-01-bug:old/tasks.md", "- [x] 1.1 a\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        assert!(scan.units.is_empty(), "{:?}", scan.units);
        assert_eq!(
            places(&scan),
            [
                (
                    "openspec/changes/archive/2025-01-01-bug:old",
                    "openspec/changes/archive/2025-01-01-bug:old/tasks.md",
                    &[1][..]
                ),
                ("openspec/changes/bug:tag-filter", "openspec/changes/bug:tag-filter/tasks.md", &[1][..]),
                ("specs/bug:bookmark-tags", "specs/bug:bookmark-tags/tasks.md", &[1][..]),
            ]
        );
        for stray in &scan.strays[1..] {
            let reason = &stray.reason;
            assert!(
                reason.contains("begins with `bug:`") && reason.ends_with("rename the directory"),
                "{reason}"
            );
        }
    }

    #[test]
    fn checked_boxes_outside_every_unit_are_strays_with_their_lines() {
        let tree = MemTree::from_files([
            ("specs/001-a/tasks.md", "- [x] T001 a\n"),
            ("specs/.drafts/tasks.md", "- [ ] T001 open\n- [x] T002 done\n"),
            ("specs/archive/001-old/tasks.md", "# old\n\n- [X] T001 done\n"),
            ("specs/archive/002-open/tasks.md", "- [ ] T001 open\n"),
            ("specs/tasks.md", "* [x] loose\n"),
            ("openspec/changes/archive/old-change/tasks.md", "- [x] 1.1 done\n"),
            ("openspec/changes/archive/2025-01-01-kept/tasks.md", "- [x] 1.1 done\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        assert_eq!(
            names(&scan.units),
            [
                (Format::SpecKit, "001-a", "specs/001-a"),
                (Format::OpenSpec, "kept", "openspec/changes/archive/2025-01-01-kept"),
            ]
        );
        let strays = places(&scan);
        assert_eq!(
            strays,
            [
                (
                    "openspec/changes/archive/old-change",
                    "openspec/changes/archive/old-change/tasks.md",
                    &[1][..]
                ),
                ("specs/.drafts", "specs/.drafts/tasks.md", &[2][..]),
                ("specs/archive", "specs/archive/001-old/tasks.md", &[3][..]),
                ("specs", "specs/tasks.md", &[1][..]),
            ]
        );
        assert!(scan.strays[1].reason.contains("starts with `.`"), "{}", scan.strays[1].reason);
        assert!(scan.strays[2].reason.contains("directly under `specs/`"), "{}", scan.strays[2].reason);
        assert!(scan.strays[0].reason.contains("YYYY-MM-DD-<change-id>"), "{}", scan.strays[0].reason);
    }

    #[test]
    fn each_task_list_with_ticks_in_one_entry_that_is_no_unit_is_a_stray_of_its_own() {
        let tree = MemTree::from_files([
            ("specs/001-a/tasks.md", "- [ ] T001 a\n"),
            ("specs/001-a/notes/tasks.md", "- [x] T001 a\n"),
            ("specs/001-a/old/tasks.md", "- [x] T001 a\n"),
            ("specs/archive/000-proto/tasks.md", "- [x] T001 done\n"),
            ("specs/archive/002-login/tasks.md", "- [x] T001 done\n- [x] T002 done\n"),
            ("specs/archive/003-billing/tasks.md", "- [ ] T001 open\n- [x] T002 done\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        let strays = places(&scan);
        assert_eq!(
            strays,
            [
                ("specs/001-a", "specs/001-a/notes/tasks.md", &[1][..]),
                ("specs/001-a", "specs/001-a/old/tasks.md", &[1][..]),
                ("specs/archive", "specs/archive/000-proto/tasks.md", &[1][..]),
                ("specs/archive", "specs/archive/002-login/tasks.md", &[1, 2][..]),
                ("specs/archive", "specs/archive/003-billing/tasks.md", &[2][..]),
            ]
        );
    }

    #[test]
    fn an_archived_copy_of_a_change_active_under_its_name_is_a_stray_when_it_holds_ticks() {
        let tree = MemTree::from_files([
            ("openspec/changes/add-auth/tasks.md", "- [ ] 1.1 again\n"),
            ("openspec/changes/archive/2025-01-01-add-auth/tasks.md", "- [x] 1.1 first\n"),
            ("specs/tags/tasks.md", "- [ ] T001 a\n"),
            ("openspec/changes/archive/2025-02-01-tags/tasks.md", "- [ ] 1.1 open\n- [x] 1.2 done\n"),
            ("openspec/changes/archive/2025-03-01-quiet/tasks.md", "- [x] 1.1 done\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        assert_eq!(
            names(&scan.units),
            [
                (Format::SpecKit, "tags", "specs/tags"),
                (Format::OpenSpec, "add-auth", "openspec/changes/add-auth"),
                (Format::OpenSpec, "quiet", "openspec/changes/archive/2025-03-01-quiet"),
            ]
        );
        let strays: Vec<(&str, &[usize])> =
            scan.strays.iter().map(|s| (s.top.as_str(), s.checked.as_slice())).collect();
        assert_eq!(
            strays,
            [
                ("openspec/changes/archive/2025-01-01-add-auth", &[1][..]),
                ("openspec/changes/archive/2025-02-01-tags", &[2][..]),
            ]
        );
        assert!(
            scan.strays[0].reason.contains("also active at openspec/changes/add-auth"),
            "{}",
            scan.strays[0].reason
        );
        assert!(scan.strays[1].reason.contains("also active at specs/tags"), "{}", scan.strays[1].reason);
    }

    #[test]
    fn a_task_list_named_in_other_letter_case_is_a_stray_when_it_holds_ticks() {
        let tree = MemTree::from_files([
            ("specs/003-case/Tasks.md", "- [x] T001 done by hand\n- [ ] T002 open\n"),
            ("specs/004-both/tasks.md", "- [ ] T001 a\n"),
            ("specs/004-both/TASKS.md", "- [X] T001 a\n"),
            ("specs/005-open/TASKS.MD", "- [ ] T001 a\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        let strays = places(&scan);
        assert_eq!(
            strays,
            [
                ("specs/003-case", "specs/003-case/Tasks.md", &[1][..]),
                ("specs/004-both", "specs/004-both/TASKS.md", &[1][..]),
            ]
        );
        assert!(scan.strays[0].reason.contains("its name is `Tasks.md`"), "{}", scan.strays[0].reason);
    }

    #[test]
    fn a_task_list_in_other_letter_case_directly_in_a_unit_parent_is_a_stray_as_one_below_it() {
        let tree = MemTree::from_files([
            ("specs/001-a/tasks.md", "- [ ] T001 a\n"),
            ("specs/TASKS.md", "## Tasks\n\n- [x] T001 Set up the CLI\n- [x] T002 Wire exit codes\n"),
            ("specs/Tasks.md", "- [ ] T001 open\n"),
            ("openspec/changes/Tasks.md", "- [x] 1.1 done\n"),
            ("openspec/changes/archive/TASKS.md", "- [X] 1.1 done\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        let strays = places(&scan);
        assert_eq!(
            strays,
            [
                ("openspec/changes", "openspec/changes/Tasks.md", &[1][..]),
                ("openspec/changes/archive", "openspec/changes/archive/TASKS.md", &[1][..]),
                ("specs", "specs/TASKS.md", &[3, 4][..]),
            ]
        );
        let reason = &scan.strays[2].reason;
        assert!(reason.starts_with("its name is `TASKS.md`"), "{reason}");
        assert!(reason.contains("a Spec Kit unit's task list is `specs/<unit>/tasks.md`"), "{reason}");
    }

    #[test]
    fn hostile_directory_names_are_strays_named_escaped_and_cut() {
        let long = "x".repeat(300);
        let tree = MemTree::from_files([
            ("specs/bad\u{1b}[31mname/tasks.md".to_owned(), "- [x] T001 a\n".to_owned()),
            (format!("specs/{long}/tasks.md"), "- [x] T001 a\n".to_owned()),
            ("specs/ spaced/tasks.md".to_owned(), "- [x] T001 a\n".to_owned()),
            ("specs/rtl\u{202e}dm.exe/tasks.md".to_owned(), "- [x] T001 a\n".to_owned()),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        assert!(scan.units.is_empty(), "{:?}", scan.units);
        assert_eq!(scan.strays.len(), 4, "{:?}", scan.strays);
        for stray in &scan.strays {
            assert!(!stray.shown.contains('\u{1b}'), "{stray:?}");
            assert!(stray.shown.chars().count() <= 201, "{stray:?}");
            assert!(stray.reason.contains("cannot be a unit's"), "{stray:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_a_stray_since_no_path_can_name_it() {
        use std::os::unix::ffi::OsStrExt as _;
        let dir = tempfile::tempdir().unwrap();
        let hidden = dir.path().join("specs").join(std::ffi::OsStr::from_bytes(b"bad\xffname"));
        std::fs::create_dir_all(&hidden).unwrap();
        std::fs::write(hidden.join("tasks.md"), "- [x] T001 a\n").unwrap();
        std::fs::create_dir_all(dir.path().join("specs/notes/deeper")).unwrap();
        std::fs::create_dir(dir.path().join("specs/notes").join(std::ffi::OsStr::from_bytes(b"\xfe")))
            .unwrap();
        let tree = crate::spec::FsTree::new(dir.path());
        let scan = scan_units(&tree).unwrap();
        let strays: Vec<(&str, &str)> =
            scan.strays.iter().map(|s| (s.top.as_str(), s.shown.as_str())).collect();
        assert_eq!(strays, [("specs", "specs/bad\u{fffd}name"), ("specs/notes", "specs/notes/\u{fffd}")]);
        assert!(scan.strays[0].reason.contains("not valid UTF-8"), "{:?}", scan.strays[0]);
    }

    #[test]
    fn a_submodule_where_a_unit_directory_would_be_is_refused_by_the_list_and_a_stray_of_the_scan() {
        let mut tree = MemTree::from_files([("specs/001-a/tasks.md", "- [x] T001 a\n")]).unwrap();
        let submodules =
            ["openspec/changes/add-sub", "openspec/changes/archive/2025-01-01-old", "specs/002-sub"];
        for path in submodules {
            tree.insert_submodule(path).unwrap();
        }
        let err = list_units(&tree).unwrap_err();
        assert!(matches!(err, SpecError::Submodule { kind: "directory", .. }), "{err:?}");
        assert!(err.to_string().starts_with("`specs/002-sub` is a submodule"), "{err}");
        let scan = scan_units(&tree).unwrap();
        assert_eq!(names(&scan.units), [(Format::SpecKit, "001-a", "specs/001-a")]);
        let strays: Vec<(&str, &str)> =
            scan.strays.iter().map(|s| (s.top.as_str(), s.shown.as_str())).collect();
        assert_eq!(strays, submodules.map(|path| (path, path)));
        for stray in &scan.strays {
            assert!(stray.reason.starts_with("it is a submodule (another repository) where"), "{stray:?}");
            assert!(stray.checked.is_empty(), "{stray:?}");
        }
    }

    #[test]
    fn a_submodule_named_as_a_unit_in_a_name_no_unit_can_have_is_a_stray_that_says_both() {
        let mut tree = MemTree::from_files([("specs/001-a/tasks.md", "- [x] T001 a\n")]).unwrap();
        let named_as_units = [
            "openspec/changes/.drafts",
            "openspec/changes/archive/2025-01-01-archive",
            "openspec/changes/archive/2025-01-01-new\nline",
            "openspec/changes/tab\there",
            "specs/002-esc\u{1b}[2J",
            "specs/003-two  spaces",
        ];
        // Not named as units: another repository's, as a well-named one there is.
        let elsewhere = ["openspec/changes/archive/not dated", "specs/002 b", "specs/notes\tx"];
        for path in named_as_units.into_iter().chain(elsewhere) {
            tree.insert_submodule(path).unwrap();
        }
        // No unit is there: a writer is stopped by none of them.
        assert_eq!(names(&list_units(&tree).unwrap()), [(Format::SpecKit, "001-a", "specs/001-a")]);
        let scan = scan_units(&tree).unwrap();
        let strays: Vec<(&str, &str)> =
            scan.strays.iter().map(|s| (s.top.as_str(), s.shown.as_str())).collect();
        let shown = [
            "openspec/changes/.drafts",
            "openspec/changes/archive/2025-01-01-archive",
            "openspec/changes/archive/2025-01-01-new\\nline",
            "openspec/changes/tab\\there",
            "specs/002-esc\\u{1b}[2J",
            "specs/003-two  spaces",
        ];
        assert_eq!(strays, named_as_units.into_iter().zip(shown).collect::<Vec<_>>());
        let why = [
            "it starts with `.`",
            "it names the archive itself",
            "it contains a control character",
            "it contains a control character",
            "it contains a control character",
            "it contains a blank other than one space",
        ];
        for (stray, why) in scan.strays.iter().zip(why) {
            let what =
                if stray.top.contains("/archive/") { "an archived change" } else { "a unit directory" };
            let said = format!("where {what} would be, and its name cannot be a unit's: {why}");
            assert!(stray.reason.contains(&said), "{stray:?}");
            assert!(stray.reason.ends_with("under a name a unit can have"), "{stray:?}");
        }
    }

    #[test]
    fn a_submodule_where_the_units_directory_would_be_is_one_stray_and_other_units_stay_readable() {
        let mut tree = MemTree::from_files([("specs/001-a/tasks.md", "- [x] T001 a\n")]).unwrap();
        tree.insert_submodule("openspec").unwrap();
        tree.insert_submodule("specs/002-sub").unwrap();
        assert!(list_units(&tree).is_err());
        assert_eq!(names(&readable_units(&tree).unwrap()), [(Format::SpecKit, "001-a", "specs/001-a")]);
        let scan = scan_units(&tree).unwrap();
        let strays: Vec<(&str, &str)> =
            scan.strays.iter().map(|s| (s.top.as_str(), s.reason.as_str())).collect();
        assert_eq!(strays.len(), 2, "{strays:?}");
        assert_eq!(strays[0].0, "openspec");
        assert!(strays[0].1.contains("where the directory of units would be"), "{}", strays[0].1);
        assert_eq!(strays[1].0, "specs/002-sub");
    }

    #[test]
    fn a_submodule_where_no_unit_would_be_is_another_repository_s_and_only_a_task_list_one_is_a_stray() {
        let mut tree = MemTree::from_files([("specs/notes/readme.md", "")]).unwrap();
        for path in [
            "openspec/changes/archive/old-change",
            "specs/.drafts",
            "specs/vendored-api",
            "specs/archive/001-old/tasks.md",
            "specs/notes/vendored",
            "specs/tasks.md",
        ] {
            tree.insert_submodule(path).unwrap();
        }
        assert!(list_units(&tree).unwrap().is_empty(), "no unit, and nothing refused");
        let scan = scan_units(&tree).unwrap();
        let strays: Vec<(&str, &str)> =
            scan.strays.iter().map(|s| (s.top.as_str(), s.shown.as_str())).collect();
        assert_eq!(
            strays,
            [("specs/archive", "specs/archive/001-old/tasks.md"), ("specs", "specs/tasks.md")]
        );
        for stray in &scan.strays {
            assert!(stray.reason.starts_with("it cannot be read (`"), "{stray:?}");
            assert!(stray.reason.contains("` is a submodule"), "{stray:?}");
        }
    }

    #[test]
    fn a_task_list_inside_a_unit_s_directory_is_a_stray_naming_the_unit_s_own() {
        let tree = MemTree::from_files([
            ("specs/001-a/tasks.md", "- [x] T001 a\n"),
            ("specs/001-a/archive/tasks.md", "- [ ] T001 a\n- [x] T002 b\n"),
            ("specs/001-a/contracts/v1/tasks.md", "- [ ] T003 nothing ticked\n"),
            ("specs/001-a/contracts/v1/api.md", "- [x] not a task list\n"),
            ("openspec/changes/add-x/tasks.md", "- [ ] 1.1 a\n"),
            ("openspec/changes/add-x/specs/auth/tasks.md", "- [x] 1.1 a\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        assert_eq!(scan.units.len(), 2);
        let strays = places(&scan);
        assert_eq!(
            strays,
            [
                ("openspec/changes/add-x", "openspec/changes/add-x/specs/auth/tasks.md", &[1][..]),
                ("specs/001-a", "specs/001-a/archive/tasks.md", &[2][..]),
            ]
        );
        assert!(
            scan.strays[1].reason.starts_with(
                "it is inside the directory of unit `001-a`, whose one task list is `specs/001-a/tasks.md`"
            ),
            "{:?}",
            scan.strays[1]
        );
    }

    #[test]
    fn the_search_inside_the_units_has_a_budget_of_its_own_and_says_where_it_stopped() {
        let mut files: Vec<(String, String)> = (0..STRAY_DIRS_LIMIT)
            .map(|n| (format!("specs/{n:04}-unit/sub/notes.md"), String::new()))
            .collect();
        files.push(("specs/notes/deep/tasks.md".to_owned(), "- [x] T001 a\n".to_owned()));
        let scan = scan_units(&MemTree::from_files(files.clone()).unwrap()).unwrap();
        assert_eq!(scan.units.len(), STRAY_DIRS_LIMIT);
        let shown: Vec<&str> = scan.strays.iter().map(|s| s.shown.as_str()).collect();
        assert_eq!(shown, ["specs/notes/deep/tasks.md"], "the units' directories spent none of its budget");
        files.extend((0..UNIT_DIRS_LIMIT).map(|n| (format!("specs/0000-unit/d{n}/x.md"), String::new())));
        let scan = scan_units(&MemTree::from_files(files).unwrap()).unwrap();
        let stopped: Vec<&Stray> = scan.strays.iter().filter(|s| s.reason.contains("stopped here")).collect();
        assert_eq!(stopped.len(), STRAY_DIRS_LIMIT, "the unit where it stopped, and each after it");
        assert_eq!(stopped[0].top, "specs/0000-unit");
        assert_ne!(stopped[0].shown, "specs/0000-unit", "it stopped below the unit's directory");
        assert_eq!(
            (stopped[1].top.as_str(), stopped[1].shown.as_str()),
            ("specs/0001-unit", "specs/0001-unit")
        );
        assert!(stopped.iter().all(|s| s.reason.contains("of the units' own")), "{:?}", stopped[0]);
        assert!(stopped.iter().all(|s| s.stopped), "each says the limit stopped the search there");
        assert!(scan.strays.iter().filter(|s| s.stopped).count() == stopped.len(), "and no other says so");
        assert!(
            scan.strays.iter().any(|s| s.shown == "specs/notes/deep/tasks.md"),
            "the search outside ran whole"
        );
    }

    #[test]
    fn units_are_scanned_with_as_few_reads_of_each_tree_however_many_there_are() {
        let most_reads = |units: usize| {
            let fx = crate::git::test_support::Fixture::new();
            for n in 0..units {
                // Each folder its own tree, so that the count is of one tree read again.
                fx.write(&format!("specs/{n:03}-unit/tasks.md"), format!("- [ ] T001 a{n}\n"));
                fx.write(&format!("specs/{n:03}-unit/notes/a.md"), format!("{n}"));
            }
            fx.git(&["add", "."]);
            fx.git(&["commit", "-q", "-m", "units"]);
            let repo = fx.repo();
            let view = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
            let scan = scan_units(&view).unwrap();
            assert_eq!((scan.units.len(), scan.strays.len()), (units, 0));
            view.most_reads_of_a_tree()
        };
        assert_eq!(most_reads(40), most_reads(4), "`specs` is read as often for 40 units as for 4");
    }

    #[test]
    fn an_unreadable_task_list_outside_the_units_is_a_stray_without_lines() {
        let tree = MemTree::from_files([("specs/.x/tasks.md", &b"- [x] T001 \xff\n"[..])]).unwrap();
        let scan = scan_units(&tree).unwrap();
        assert_eq!(scan.strays.len(), 1);
        assert!(scan.strays[0].checked.is_empty());
        assert!(scan.strays[0].reason.contains("not valid UTF-8"), "{}", scan.strays[0].reason);
    }

    #[test]
    fn a_name_that_is_a_feature_and_a_change_is_no_unit_for_the_scan_and_its_checked_lists_are_strays() {
        let tree = MemTree::from_files([
            ("specs/auth/tasks.md", "- [x] T001 a\n"),
            ("openspec/changes/auth/tasks.md", "- [x] 1.1 a\n"),
            ("specs/001-other/tasks.md", "- [x] T001 b\n"),
            ("specs/open/tasks.md", "- [ ] T001 c\n"),
            ("openspec/changes/open/tasks.md", "- [ ] 1.1 c\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        assert_eq!(names(&scan.units), [(Format::SpecKit, "001-other", "specs/001-other")]);
        let shown: Vec<&str> = scan.strays.iter().map(|s| s.shown.as_str()).collect();
        assert_eq!(
            shown,
            ["openspec/changes/auth/tasks.md", "specs/auth/tasks.md"],
            "no checked box, no stray"
        );
        assert!(
            scan.strays.iter().all(|s| s.reason.contains("unit `auth` is ambiguous")),
            "{:?}",
            scan.strays
        );
    }

    #[test]
    fn a_change_archived_twice_and_active_nowhere_is_two_strays_for_the_scan_and_one_unit_for_the_list() {
        let tree = MemTree::from_files([
            ("openspec/changes/archive/2025-01-01-old/tasks.md", "- [x] 1.1 a\n"),
            ("openspec/changes/archive/2026-01-01-old/tasks.md", "- [x] 1.1 a\n"),
        ])
        .unwrap();
        assert_eq!(list_units(&tree).unwrap().len(), 1);
        let scan = scan_units(&tree).unwrap();
        assert!(scan.units.is_empty());
        assert_eq!(scan.strays.len(), 2);
        assert!(scan.strays[0].reason.contains("archived more than once"), "{}", scan.strays[0].reason);
    }

    #[test]
    fn each_copy_of_a_change_archived_many_times_is_a_stray_whose_reason_names_the_count_and_ten_copies() {
        let copies = 40;
        let files: Vec<(String, &str)> = (0..copies)
            .map(|i| (format!("openspec/changes/archive/2025-01-{i:02}-old/tasks.md"), "- [x] 1.1 a\n"))
            .collect();
        let tree = MemTree::from_files(files).unwrap();
        let scan = scan_units(&tree).unwrap();
        assert_eq!(scan.strays.len(), copies);
        for stray in &scan.strays {
            let reason = &stray.reason;
            assert!(reason.contains("(40 copies: openspec/changes/archive/2025-01-00-old, "), "{reason}");
            assert!(reason.contains("2025-01-09-old and 30 more)"), "{reason}");
            assert_eq!(reason.matches("openspec/changes/archive/").count(), 10, "{reason}");
        }
        // A task of the change is refused with the same list.
        let refused = crate::spec::locate_unit(&tree, "old").unwrap_err().to_string();
        assert_eq!(refused, scan.strays[0].reason);
    }

    #[test]
    fn an_openspec_change_whose_schema_tracks_another_file_is_a_stray_of_its_directory_whatever_it_holds() {
        let schema = "name: custom\nversion: 1\nartifacts:\n  - id: tasks\n    generates: checklist.md\napply:\n  requires: [tasks]\n  tracks: checklist.md\n";
        let tree = MemTree::from_files([
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", schema),
            ("openspec/changes/add-x/checklist.md", "- [x] 1.1 ticked by hand\n"),
            ("openspec/changes/add-x/specs/a/tasks.md", "- [x] 1.1 a\n"),
            ("openspec/changes/add-y/tasks.md", "- [ ] 1.1 open\n"),
            ("openspec/changes/add-z/.openspec.yaml", "schema: spec-driven\n"),
            ("openspec/changes/add-z/tasks.md", "- [x] 1.1 a\n"),
            ("openspec/changes/archive/2025-01-01-old/tasks.md", "- [x] 1.1 a\n"),
            ("specs/001-a/tasks.md", "- [x] T001 a\n"),
        ])
        .unwrap();
        let scan = scan_units(&tree).unwrap();
        assert_eq!(
            names(&scan.units),
            [
                (Format::SpecKit, "001-a", "specs/001-a"),
                (Format::OpenSpec, "add-z", "openspec/changes/add-z")
            ]
        );
        let strays: Vec<(&str, &str, &[usize])> = places(&scan);
        assert_eq!(
            strays,
            [
                ("openspec/changes/add-x", "openspec/changes/add-x", &[][..]),
                ("openspec/changes/add-y", "openspec/changes/add-y", &[][..]),
                (
                    "openspec/changes/archive/2025-01-01-old",
                    "openspec/changes/archive/2025-01-01-old",
                    &[][..]
                ),
            ],
            "one row a change, none for a task list inside it"
        );
        for stray in &scan.strays {
            assert!(stray.reason.contains("has its tasks counted in `checklist.md`"), "{stray:?}");
            assert!(stray.reason.contains("`openspec/schemas/custom/schema.yaml`"), "{stray:?}");
        }
    }

    #[test]
    fn the_search_outside_the_units_stops_at_its_limit_and_says_so() {
        let files: Vec<(String, &str)> =
            (0..STRAY_DIRS_LIMIT + 10).map(|i| (format!("specs/notes/d{i}/x.md"), "")).collect();
        let scan = scan_units(&MemTree::from_files(files).unwrap()).unwrap();
        assert_eq!(scan.strays.len(), 1);
        assert!(scan.strays[0].reason.contains("stopped here"), "{:?}", scan.strays);
    }
}
