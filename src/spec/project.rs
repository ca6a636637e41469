//! Where a project is: speccoder reads one project, at the top of the work tree. A directory
//! below the top that is the root of a project of its own, as Spec Kit and OpenSpec make one (a
//! `.specify/` or an `openspec/` directory in it), is the project the published speccoder reads
//! when run there, and this crate does not: a command run inside one is refused
//! ([`project_below_top`]) rather than run against the top's project, where it would find another
//! project's tasks, or nothing to check.

use std::path::{Path, PathBuf};

/// What makes a directory a project's root: Spec Kit's `.specify/` or OpenSpec's `openspec/`.
const PROJECT_ROOTS: [&str; 2] = [".specify", "openspec"];

/// A project below the work tree's top that a command was run inside: the refusal, exit 14.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "this directory is inside {}/, the root of a project of its own (it holds {}/): speccoder reads only the project at the top of the work tree, not one below it; run the command from the top for the top's project",
    crate::model::shown::shown(&.dir.to_string_lossy(), 200),
    .mark
)]
pub struct ProjectBelowTop {
    /// The project's directory, relative to the work tree's top.
    pub dir: PathBuf,
    /// What makes it a project's root there (`.specify` or `openspec`).
    pub mark: &'static str,
}

impl crate::exit::ExitClass for ProjectBelowTop {
    fn class(&self) -> crate::exit::Class {
        crate::exit::Class::GitPrecondition
    }
}

/// The nearest directory from `start` up to, but not including, the work tree's top `top` that
/// is a project's root: it holds a `.specify` or an `openspec` directory. `None` when there is
/// none, or `start` is not inside `top`. Both paths are taken as the file system resolves them;
/// a mark is a directory as the published speccoder finds one (a link to a directory counts), and
/// is only looked at, never opened.
#[must_use]
pub fn project_below_top(start: &Path, top: &Path) -> Option<ProjectBelowTop> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let (start, top) = (real(start), real(top));
    let below = start.strip_prefix(&top).ok()?;
    let dirs = below.ancestors().filter(|d| !d.as_os_str().is_empty());
    dirs.into_iter().find_map(|dir| {
        let mark = root_mark(|mark| top.join(dir).join(mark).metadata().is_ok_and(|m| m.is_dir()))?;
        Some(ProjectBelowTop { dir: dir.to_path_buf(), mark })
    })
}

/// What makes a directory a project's root, the one rule of it: the first of [`PROJECT_ROOTS`]
/// that `holds_dir` says the directory holds as a directory (a link to one counts). `None` when
/// it holds neither: it is no project's root.
pub(crate) fn root_mark(holds_dir: impl Fn(&str) -> bool) -> Option<&'static str> {
    PROJECT_ROOTS.into_iter().find(|mark| holds_dir(mark))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(top: &Path, paths: &[&str]) {
        for path in paths {
            std::fs::create_dir_all(top.join(path)).unwrap();
        }
    }

    #[test]
    fn a_directory_below_the_top_with_its_own_spec_kit_or_openspec_root_is_a_project_of_its_own() {
        let top = tempfile::tempdir().unwrap();
        dirs(top.path(), &["app/.specify", "app/src", "web/openspec/changes/x", "lnk", "elsewhere"]);
        std::os::unix::fs::symlink(top.path().join("elsewhere"), top.path().join("lnk/.specify")).unwrap();
        let found = project_below_top(&top.path().join("lnk"), top.path()).unwrap();
        assert_eq!(found, ProjectBelowTop { dir: "lnk".into(), mark: ".specify" });
        let found = project_below_top(&top.path().join("app/src"), top.path()).unwrap();
        assert_eq!(found, ProjectBelowTop { dir: "app".into(), mark: ".specify" });
        let found = project_below_top(&top.path().join("web/openspec/changes/x"), top.path()).unwrap();
        assert_eq!(found, ProjectBelowTop { dir: "web".into(), mark: "openspec" });
    }

    #[test]
    fn the_top_project_s_own_directories_are_no_project_below_it() {
        let top = tempfile::tempdir().unwrap();
        dirs(
            top.path(),
            &[".specify", "specs/001-x", "openspec/specs/tags", "openspec/changes/add-x/specs/tags"],
        );
        for start in
            ["", "specs", "specs/001-x", "openspec", "openspec/changes/add-x", "openspec/changes/add-x/specs"]
        {
            assert_eq!(project_below_top(&top.path().join(start), top.path()), None, "{start}");
        }
    }

    #[test]
    fn specs_or_a_configuration_alone_or_a_start_outside_the_top_is_no_project() {
        let top = tempfile::tempdir().unwrap();
        dirs(top.path(), &["app/specs/001-x"]);
        std::fs::write(top.path().join("app/speccoder.toml"), "").unwrap();
        std::fs::write(top.path().join("app/openspec"), "").unwrap();
        assert_eq!(project_below_top(&top.path().join("app"), top.path()), None);
        let outside = tempfile::tempdir().unwrap();
        dirs(outside.path(), &["a/.specify"]);
        assert_eq!(project_below_top(&outside.path().join("a"), top.path()), None);
    }
}
