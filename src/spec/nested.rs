//! Projects nested below the top. A directory below the work tree's top that is the root of a
//! project of its own (by the one rule of [`super::project`]: it holds `.specify/` or
//! `openspec/`) is a project whose ticks speccoder never reads: the top's units are not its, and
//! a command run inside it is refused ([`super::project_below_top`]). So that no tick of one is a
//! claim nobody checks, [`nested_projects`] finds each task list of such a project that holds
//! checked boxes, where that project's own search would find it (below its `specs/` or
//! `openspec/changes/`), and a verifier reports each as a [`Stray`] of its own. It searches every
//! directory of the top that [`super::scan_units`] does not read itself: all but the top's
//! `specs/` and `openspec/changes/` ([`UNIT_PARENTS`]), whose every task list with checked boxes
//! the unit scan reports; so the rest of `openspec/` (its `specs/`, anything else) is searched here.

use super::error::{SpecError, shown};
use super::project::root_mark;
use super::tree::{EntryKind, SourceTree, join};
use super::unit::{Format, OPENSPEC_CHANGES_DIR, SPECKIT_SPECS_DIR, UNIT_PARENTS};
use super::units::{Budget, Listing, Stray, UNIT_DIRS_LIMIT, listing, lists_in, push_list, undecodable};

/// The entries of a project that hold its units, searched at any depth below a project below the
/// top.
const PROJECT_OWN: [&str; 2] = [SPECKIT_SPECS_DIR, "openspec"];

/// Why a directory of the search that cannot be read by its name is reported, and what to do.
const SEARCHED: &str = "speccoder searches it for projects of their own below the top (a directory holding `.specify/` or `openspec/`), whose ticks no run can check; rename it";

/// How many directories deep below the top a project of its own is looked for (`apps/web/` is
/// two): its root at most this deep, its units at any depth below its `specs/` or `openspec/`.
/// Deeper than this the search does not go, so that a run does not read every tree of a large
/// repository.
pub const NESTED_ROOT_DEPTH: usize = 4;

/// A project below the top: its directory, and what makes it a root there.
#[derive(Clone)]
struct Nested {
    /// Its directory, a path of the tree.
    dir: String,
    /// `.specify` or `openspec`.
    mark: &'static str,
}

impl Nested {
    /// The format a task list in `dir` would be read in by this project's units: `None` when
    /// `dir` is below neither its `specs/` nor its `openspec/changes/`, where it reads none.
    fn reads(&self, dir: &str) -> Option<Format> {
        let below = self.below(dir)?;
        if within(below, SPECKIT_SPECS_DIR) {
            Some(Format::SpecKit)
        } else {
            within(below, OPENSPEC_CHANGES_DIR).then_some(Format::OpenSpec)
        }
    }

    /// Whether `dir` is this project's `specs/` or `openspec/`, or below them: where its units
    /// are, searched at any depth.
    fn holds_units_at(&self, dir: &str) -> bool {
        self.below(dir).is_some_and(|below| PROJECT_OWN.iter().any(|own| within(below, own)))
    }

    /// `dir` as a path below this project's directory, when it is below it.
    fn below<'d>(&self, dir: &'d str) -> Option<&'d str> {
        dir.strip_prefix(self.dir.as_str())?.strip_prefix('/')
    }

    /// Why a task list of this project is checked by no run, and what to do.
    fn reason(&self) -> String {
        let dir = shown(&self.dir, 200);
        format!(
            "it is a task list of the project at `{dir}/` (it holds `{}/`), a project of its own below the top of the work tree: speccoder reads only the project at the top, a run from the top reads none of its ticks and one inside it is refused, so no tick of it can be checked; move its units into the top's `{SPECKIT_SPECS_DIR}/` or `{OPENSPEC_CHANGES_DIR}/`, keep that project in a repository of its own, or clear its boxes",
            self.mark
        )
    }
}

/// The task lists with checked boxes (or that cannot be read) of every project below the top
/// of `tree`, each a [`Stray`] naming its project: the directories the unit scan does not read
/// ([`read_by_the_unit_scan`]) are searched, at most [`NESTED_ROOT_DEPTH`] deep but below a
/// project's own `specs/` and `openspec/`, at most [`UNIT_DIRS_LIMIT`] of them, and each entry of
/// the top that the limit cut short or left out is a stray that says so. A directory the search
/// would enter but cannot name (not UTF-8) or list is a stray too ([`listing`]). A submodule is
/// another repository's and is not searched.
///
/// # Errors
/// A tree that cannot be read.
pub fn nested_projects(tree: &dyn SourceTree) -> Result<Vec<Stray>, SpecError> {
    let mut budget = Budget {
        left: UNIT_DIRS_LIMIT,
        stopped: format!(
            "speccoder searches at most {UNIT_DIRS_LIMIT} directories outside `{SPECKIT_SPECS_DIR}/` and `{OPENSPEC_CHANGES_DIR}/` for projects of their own below the top (a directory holding `.specify/` or `openspec/`), and stopped here, so a tick of one there cannot be checked; keep such projects in repositories of their own, or check the branch against its base, which reports only the places it changed"
        ),
    };
    let mut strays = Vec::new();
    let Listing { entries, undecodable: unnamed } = listing(tree, "", "", SEARCHED, &mut strays)?;
    push_unnamed(&mut strays, ("", ""), &unnamed, |_| true);
    let searched =
        entries.iter().filter(|(name, kind)| *kind == EntryKind::Dir && !read_by_the_unit_scan(name));
    for (name, _) in searched {
        search(tree, name, &mut budget, &mut strays)?;
    }
    Ok(strays)
}

/// Whether the unit scan ([`super::scan_units`]) reads the directory `path` of the top, and all
/// below it, itself: the top's `specs/` and `openspec/changes/` ([`UNIT_PARENTS`]), where it
/// reports every task list with checked boxes that is no unit's, a nested project's among them.
/// Every other directory is this search's.
fn read_by_the_unit_scan(path: &str) -> bool {
    UNIT_PARENTS.contains(&path)
}

/// A stray for each directory among `unnamed` (the entries of `dir` whose names are not UTF-8)
/// that the search of the entry `top` would enter (`entered`, given its path as decoded).
fn push_unnamed(
    strays: &mut Vec<Stray>,
    (top, dir): (&str, &str),
    unnamed: &[(String, EntryKind)],
    entered: impl Fn(&str) -> bool,
) {
    let dirs = unnamed.iter().filter(|(_, kind)| *kind == EntryKind::Dir).map(|(name, _)| join(dir, name));
    strays.extend(dirs.filter(|path| entered(path)).map(|path| undecodable(top, &path)));
}

/// Searches the entry `top` of the top and every directory below it for projects of their own,
/// and their task lists; at most `budget` more directories are read.
fn search(
    tree: &dyn SourceTree,
    top: &str,
    budget: &mut Budget,
    strays: &mut Vec<Stray>,
) -> Result<(), SpecError> {
    // Each directory with the projects it is inside, the nearest last.
    let mut pending: Vec<(String, Vec<Nested>)> = vec![(top.to_owned(), Vec::new())];
    while let Some((dir, mut projects)) = pending.pop() {
        let Some(left) = budget.left.checked_sub(1) else {
            let (top, shown, reason) = (top.to_owned(), shown(&dir, 200), budget.stopped.clone());
            strays.push(Stray { top, shown, reason, checked: Vec::new(), stopped: true, project: None });
            return Ok(());
        };
        budget.left = left;
        let Listing { entries, undecodable: unnamed } = listing(tree, &dir, top, SEARCHED, strays)?;
        let holds_dir = |mark: &str| {
            entries
                .iter()
                .any(|(name, kind)| name == mark && matches!(kind, EntryKind::Dir | EntryKind::Link))
        };
        projects.extend(root_mark(holds_dir).map(|mark| Nested { dir: dir.clone(), mark }));
        if let Some((project, format)) = projects.iter().rev().find_map(|p| Some((p, p.reads(&dir)?))) {
            push_lists(tree, strays, (&dir, &entries), project, format)?;
        }
        let shallow = dir.split('/').count() < NESTED_ROOT_DEPTH;
        let entered = |child: &str| {
            (shallow || projects.iter().any(|p| p.holds_units_at(child))) && !read_by_the_unit_scan(child)
        };
        push_unnamed(strays, (top, &dir), &unnamed, entered);
        let dirs =
            entries.iter().filter(|(_, kind)| *kind == EntryKind::Dir).map(|(name, _)| join(&dir, name));
        let searched: Vec<String> = dirs.filter(|child| entered(child)).collect();
        pending.extend(searched.into_iter().map(|child| (child, projects.clone())));
    }
    Ok(())
}

/// Whether the path `below` is `parent` or a path below it.
fn within(below: &str, parent: &str) -> bool {
    below == parent || below.strip_prefix(parent).is_some_and(|rest| rest.starts_with('/'))
}

/// A stray for each task list among the `entries` of `dir` that holds checked boxes or cannot be
/// read, read in `format` as `project`'s: its `top` is the project's directory, which a branch
/// that leaves it as it was did not write.
fn push_lists(
    tree: &dyn SourceTree,
    strays: &mut Vec<Stray>,
    (dir, entries): (&str, &[(String, EntryKind)]),
    project: &Nested,
    format: Format,
) -> Result<(), SpecError> {
    let mut found = Vec::new();
    for (list, reason) in lists_in(dir, entries, &project.reason()) {
        push_list(tree, &mut found, &list, &project.dir, format, &reason)?;
    }
    strays.extend(found.into_iter().map(|stray| Stray { project: Some(project.dir.clone()), ..stray }));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tree::MemTree;

    fn found(tree: &MemTree) -> Vec<(String, String, Vec<usize>, Option<String>)> {
        let strays = nested_projects(tree).unwrap();
        strays.into_iter().map(|s| (s.top, s.shown, s.checked, s.project)).collect()
    }

    #[test]
    fn each_ticked_task_list_of_a_project_below_the_top_is_a_stray_naming_the_project() {
        let tree = MemTree::from_files([
            (".specify/memory/constitution.md", "c\n"),
            ("specs/001-top/tasks.md", "- [x] T001 the top's own\n"),
            ("app one/.specify/memory/constitution.md", "c\n"),
            ("app one/specs/001-uv/tasks.md", "## Setup\n\n- [x] T001 Verify prerequisites\n"),
            ("app one/specs/002-open/tasks.md", "- [ ] T001 open\n"),
            ("app one/specs/TASKS.md", "- [X] T009 in other case\n"),
            ("app one/docs/tasks.md", "- [x] T001 no unit of that project reads it\n"),
            ("web/openspec/changes/add-y/tasks.md", "- [ ] 1.1 a\n- [x] 1.2 b\n"),
            ("web/openspec/changes/archive/2025-01-01-old/tasks.md", "- [x] 1.1 a\n"),
            ("web/inner/.specify/c", "c\n"),
            ("web/inner/specs/001-x/tasks.md", "- [x] T001 the nearer project's\n"),
            ("docs/specs/001-z/tasks.md", "- [x] T001 no project holds it\n"),
        ])
        .unwrap();
        let row = |top: &str, shown: &str, lines: &[usize]| {
            (top.to_owned(), shown.to_owned(), lines.to_vec(), Some(top.to_owned()))
        };
        let mut found = found(&tree);
        found.sort();
        assert_eq!(
            found,
            [
                row("app one", "app one/specs/001-uv/tasks.md", &[3]),
                row("app one", "app one/specs/TASKS.md", &[1]),
                row("web", "web/openspec/changes/add-y/tasks.md", &[2]),
                row("web", "web/openspec/changes/archive/2025-01-01-old/tasks.md", &[1]),
                row("web/inner", "web/inner/specs/001-x/tasks.md", &[1]),
            ]
        );
        let strays = nested_projects(&tree).unwrap();
        let reason = &strays.iter().find(|s| s.shown == "app one/specs/001-uv/tasks.md").unwrap().reason;
        assert!(
            reason.starts_with("it is a task list of the project at `app one/` (it holds `.specify/`)"),
            "{reason}"
        );
    }

    #[test]
    fn every_ticked_list_of_a_project_below_the_top_is_reported_once_by_the_unit_scan_or_this_search() {
        let ticked = [
            "openspec/app/specs/001-x/tasks.md",
            "openspec/changes/add-y/app/specs/001-x/tasks.md",
            "openspec/changes/archive/2025-01-01-z/app/specs/001-x/tasks.md",
            "openspec/specs/app/specs/001-x/tasks.md",
            "openspec/vendor/app/specs/001-x/tasks.md",
            "specs/notes/app/specs/001-x/tasks.md",
            "vendor/app/specs/001-x/tasks.md",
        ];
        let mut files = vec![("openspec/changes/add-y/tasks.md".to_owned(), "- [ ] 1.1 a\n".to_owned())];
        for list in ticked {
            let root = list.strip_suffix("/specs/001-x/tasks.md").unwrap();
            files.push((format!("{root}/.specify/c"), "c\n".to_owned()));
            files.push((list.to_owned(), "- [x] T001 ticked by hand\n".to_owned()));
        }
        let tree = MemTree::from_files(files).unwrap();
        let (scan, nested) = (crate::spec::scan_units(&tree).unwrap(), nested_projects(&tree).unwrap());
        let mut reported: Vec<&str> = scan.strays.iter().chain(&nested).map(|s| s.shown.as_str()).collect();
        reported.sort_unstable();
        assert_eq!(reported, ticked, "each once, by one of the two searches");
        let searched_here: Vec<&str> = nested.iter().map(|s| s.shown.as_str()).collect();
        assert!(searched_here.contains(&"openspec/vendor/app/specs/001-x/tasks.md"), "{searched_here:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_whose_name_is_not_utf8_is_a_stray_where_the_search_would_enter_it_in_either_tree() {
        use std::os::unix::ffi::OsStrExt as _;
        let fx = crate::git::test_support::Fixture::new();
        let at = |dir: &str, name: &[u8]| fx.path().join(dir).join(std::ffi::OsStr::from_bytes(name));
        let files = [
            (at("", b"app\xff"), ".specify/c", "c\n"),
            (at("", b"app\xff"), "specs/001-x/tasks.md", "- [x] T001 ticked by hand\n"),
            (at("vendor", b"\xfe"), "x.md", ""),
            (at("web", b"specs/a/b/\xfd"), "x.md", ""),
            (at("web", b".specify"), "c", "c\n"),
            (at("docs", b"\xfc.md"), "", "a file, which holds no project\n"),
            (at("a/b/c/d", b"\xfb"), "x.md", "deeper than a project is looked for\n"),
        ];
        for (dir, file, text) in files {
            let path = if file.is_empty() { dir } else { dir.join(file) };
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        fx.git(&["add", "-A"]);
        fx.git(&["commit", "-q", "-m", "names that are not UTF-8"]);
        let repo = fx.repo();
        let view = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        let fs = crate::spec::FsTree::new(fx.path());
        for tree in [&view as &dyn SourceTree, &fs] {
            let strays = nested_projects(tree).unwrap();
            let found: Vec<(&str, &str)> =
                strays.iter().map(|s| (s.top.as_str(), s.shown.as_str())).collect();
            let expected =
                [("", "app\u{fffd}"), ("vendor", "vendor/\u{fffd}"), ("web", "web/specs/a/b/\u{fffd}")];
            assert_eq!(found, expected);
            assert!(strays.iter().all(|s| s.reason.contains("not valid UTF-8")), "{strays:?}");
        }
    }

    #[test]
    fn a_project_is_looked_for_at_most_four_directories_deep_and_its_units_at_any_depth() {
        let tree = MemTree::from_files([
            ("a/b/c/d/.specify/c", "c\n"),
            ("a/b/c/d/specs/001-x/tasks.md", "- [x] T001 four deep\n"),
            ("a/b/c/d/openspec/changes/archive/2025-01-01-y/tasks.md", "- [x] 1.1 four deep\n"),
            ("a/b/c/d/e/.specify/c", "c\n"),
            ("a/b/c/d/e/specs/001-x/tasks.md", "- [x] T001 five deep\n"),
            ("v/w/x/y/z/.specify/c", "c\n"),
            ("v/w/x/y/z/specs/001-x/tasks.md", "- [x] T001 five deep, no project above\n"),
        ])
        .unwrap();
        let mut shown: Vec<String> = found(&tree).into_iter().map(|(_, shown, _, _)| shown).collect();
        shown.sort();
        assert_eq!(
            shown,
            ["a/b/c/d/openspec/changes/archive/2025-01-01-y/tasks.md", "a/b/c/d/specs/001-x/tasks.md"]
        );
    }

    #[test]
    fn the_search_for_projects_below_the_top_stops_at_its_limit_and_says_where() {
        let mut files: Vec<(String, &str)> =
            (0..UNIT_DIRS_LIMIT).map(|n| (format!("vendor/d{n:05}/x.md"), "")).collect();
        files.push(("later/.specify/c".to_owned(), "c\n"));
        files.push(("later/specs/001-x/tasks.md".to_owned(), "- [x] T001 a\n"));
        files.push(("specs/001-top/tasks.md".to_owned(), "- [ ] T001 a\n"));
        files.push(("zz/a/x.md".to_owned(), ""));
        let strays = nested_projects(&MemTree::from_files(files).unwrap()).unwrap();
        let found: Vec<(&str, bool, Option<&str>)> =
            strays.iter().map(|s| (s.top.as_str(), s.stopped, s.project.as_deref())).collect();
        assert_eq!(found, [("later", false, Some("later")), ("vendor", true, None), ("zz", true, None)]);
        assert!(strays[1].shown.starts_with("vendor/d"), "it stopped below the entry: {:?}", strays[1]);
        assert!(
            strays[1].reason.contains(&format!("at most {UNIT_DIRS_LIMIT} directories")),
            "{:?}",
            strays[1]
        );
    }
}
