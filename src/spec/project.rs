//! Where a project is: speccoder reads one project, at the top of the work tree. A directory
//! below the top that looks like a project of its own (its own `speccoder.toml`, `specs/` or
//! `openspec/`) is one the published speccoder reads when run there, and this crate does not: a
//! command run inside one is refused ([`project_below_top`]) rather than run against the top's
//! project, where it would find nothing to check, or another project's tasks.

use std::path::{Path, PathBuf};

use crate::model::policy::CONFIG_FILE;

use super::unit::SPECKIT_SPECS_DIR;

/// What marks a directory as a project: its configuration file, or a directory of units.
const PROJECT_MARKS: [&str; 3] = [CONFIG_FILE, SPECKIT_SPECS_DIR, "openspec"];

/// A project below the work tree's top that a command was run inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectBelowTop {
    /// The project's directory, relative to the work tree's top.
    pub dir: PathBuf,
    /// What marks it as a project there (`speccoder.toml`, `specs` or `openspec`).
    pub mark: &'static str,
}

/// The nearest directory from `start` up to, but not including, the work tree's top (the first
/// directory upwards holding `.git`) that holds a project's mark; `None` when there is none, or
/// when no `.git` is found above (the repository is then found, or refused, as git finds it).
/// Only names are looked at, never followed or opened: `specs` and `openspec` count when they
/// are directories, `speccoder.toml` as any entry.
#[must_use]
pub fn project_below_top(start: &Path) -> Option<ProjectBelowTop> {
    let mut nearest: Option<(&Path, &'static str)> = None;
    for dir in start.ancestors() {
        if dir.join(".git").symlink_metadata().is_ok() {
            let (project, mark) = nearest?;
            let relative = project.strip_prefix(dir).ok()?.to_path_buf();
            return Some(ProjectBelowTop { dir: relative, mark });
        }
        if nearest.is_none() {
            nearest = PROJECT_MARKS.iter().find(|mark| is_mark(dir, mark)).map(|mark| (dir, *mark));
        }
    }
    None
}

/// Whether `dir` holds `mark`: a directory for `specs` and `openspec`, any entry for the file.
fn is_mark(dir: &Path, mark: &str) -> bool {
    dir.join(mark).symlink_metadata().is_ok_and(|m| mark == CONFIG_FILE || m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        dir
    }

    #[test]
    fn a_directory_below_the_top_with_its_own_configuration_is_a_project_of_its_own() {
        let top = repo();
        std::fs::create_dir_all(top.path().join("app/src")).unwrap();
        std::fs::write(top.path().join("app/speccoder.toml"), "").unwrap();
        let found = project_below_top(&top.path().join("app/src")).unwrap();
        assert_eq!(found, ProjectBelowTop { dir: "app".into(), mark: "speccoder.toml" });
    }

    #[test]
    fn a_directory_below_the_top_with_its_own_specs_is_a_project_of_its_own() {
        let top = repo();
        std::fs::create_dir_all(top.path().join("app/specs/001-x")).unwrap();
        let found = project_below_top(&top.path().join("app")).unwrap();
        assert_eq!(found, ProjectBelowTop { dir: "app".into(), mark: "specs" });
    }

    #[test]
    fn the_top_and_the_top_project_s_own_directories_are_no_project_below_it() {
        let top = repo();
        std::fs::create_dir_all(top.path().join("specs/001-x")).unwrap();
        std::fs::write(top.path().join("speccoder.toml"), "").unwrap();
        assert_eq!(project_below_top(top.path()), None);
        assert_eq!(project_below_top(&top.path().join("specs")), None);
        assert_eq!(project_below_top(&top.path().join("specs/001-x")), None);
    }

    #[test]
    fn a_file_named_specs_or_a_directory_outside_any_repository_is_no_project() {
        let top = repo();
        std::fs::create_dir_all(top.path().join("docs")).unwrap();
        std::fs::write(top.path().join("docs/specs"), "").unwrap();
        assert_eq!(project_below_top(&top.path().join("docs")), None);
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(outside.path().join("a/specs")).unwrap();
        assert_eq!(project_below_top(&outside.path().join("a")), None);
    }
}
