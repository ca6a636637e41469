//! Bug homes: `.specify/bugs/<slug>/` with assessment.md, fix.md and test.md and no task list. A
//! bug is closed by a commit whose `Spec-Task:` is `<unit>/bug:<slug>`; its anchor is the triad
//! digest.

use crate::model::digest::sha256_hex;

use super::error::{SpecError, shown};
use super::text::read_file;
use super::tree::SourceTree;

/// The prefix of a trailer-only bug task id: `bug:<slug>`. A verifier policy matches a bug's row
/// by that id, so no unit name may begin with it ([`super::check_unit_name`]).
pub const BUG_TASK_PREFIX: &str = "bug:";

/// The directory holding bug homes.
pub const BUGS_DIR: &str = ".specify/bugs";

/// How the published speccoder (0.9.0) begins the unit it names a bug of Spec Kit's `bug`
/// extension by: `bugs/<slug>`, the bug's home `.specify/bugs/<slug>` below `.specify/`, a name
/// with a `/` that no unit may have ([`published_bug`]).
pub const PUBLISHED_BUG_UNIT: &str = "bugs/";

/// The files of a bug home, in the order the triad digest reads them.
pub const TRIAD_FILES: [&str; 3] = ["assessment.md", "fix.md", "test.md"];

/// A bug home and the digest of its three files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BugTriad {
    /// The bug's slug.
    pub slug: String,
    /// The home directory, project-relative, without a trailing `/`: `.specify/bugs/<slug>`.
    pub home: String,
    /// The triad digest; see [`triad_sha256`].
    pub triad_sha256: String,
}

/// Checks a bug slug (hostile input): `[a-z0-9][a-z0-9._-]*` and no `..`.
pub fn check_bug_slug(slug: &str) -> Result<(), SpecError> {
    let bad = |reason| Err(SpecError::BadBugSlug { slug: shown(slug, 100), reason });
    let mut bytes = slug.bytes();
    match bytes.next() {
        None => return bad("it is empty"),
        Some(b) if !(b.is_ascii_lowercase() || b.is_ascii_digit()) => {
            return bad("it must start with a lowercase letter or a digit");
        }
        Some(_) => {}
    }
    if !bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b)) {
        return bad("it holds a character other than `a-z`, `0-9`, `.`, `_`, `-`");
    }
    if slug.contains("..") {
        return bad("it contains `..`");
    }
    Ok(())
}

/// The unit and task of a `<unit>/<task>` that the published speccoder (0.9.0) writes for a bug
/// of Spec Kit's `bug` extension it records (`bug keep`, a bug fix): `bugs/<slug>/bug:<slug>`, one
/// name, its unit `bugs/<slug>` (the home `.specify/bugs/<slug>`, which this crate names by the
/// task alone, [`bug_home`]) and its task `bug:<slug>`, the same valid slug twice. `None` for any
/// other target, this crate's `<unit>/bug:<slug>` among them.
#[must_use]
pub fn published_bug(target: &str) -> Option<(&str, &str)> {
    let (unit, task) = target.rsplit_once('/')?;
    let slug = task.strip_prefix(BUG_TASK_PREFIX)?;
    (unit.strip_prefix(PUBLISHED_BUG_UNIT) == Some(slug) && check_bug_slug(slug).is_ok())
        .then_some((unit, task))
}

/// The slug of the bug home a `<unit>/<task>` closes, when its task is a bug's: this crate's
/// `<unit>/bug:<slug>`, the published speccoder's `bugs/<slug>/bug:<slug>` ([`published_bug`]),
/// or any other name with a `bug:` part after a `/`, whose claim the check of its commit judges.
/// The slug is not checked.
#[must_use]
pub fn bug_slug(target: &str) -> Option<&str> {
    if let Some((_, task)) = published_bug(target) {
        return task.strip_prefix(BUG_TASK_PREFIX);
    }
    target.split('/').skip(1).find_map(|part| part.strip_prefix(BUG_TASK_PREFIX))
}

/// `task.line_hash` of the trailer-only task `bug:<slug>`: sha256 of the text `bug:<slug>` (a bug
/// has no task line; its id stands in for one, and the triad digest is its anchor).
#[must_use]
pub fn bug_line_hash(slug: &str) -> String {
    sha256_hex(format!("bug:{slug}"))
}

/// A bug's title: the first non-blank line of its assessment.md without leading `#`s, at most 120
/// characters; `bug <slug>` when there is none.
#[must_use]
pub fn bug_title(slug: &str, assessment: &[u8]) -> String {
    let text = String::from_utf8_lossy(assessment);
    let line = text.lines().map(|l| l.trim_start_matches('#').trim()).find(|l| !l.is_empty());
    match line {
        Some(l) => l.chars().filter(|c| !c.is_control()).take(120).collect(),
        None => format!("bug {slug}"),
    }
}

/// The home directory of bug `slug` (unchecked): `.specify/bugs/<slug>`.
#[must_use]
pub fn bug_home(slug: &str) -> String {
    format!("{BUGS_DIR}/{slug}")
}

/// The triad digest: sha256 over, for each `(name, bytes)` in order, `<name>\n<len>\n<bytes>\n`
/// concatenated, where `<len>` is the byte count in decimal without leading zeros.
#[must_use]
pub fn triad_sha256(files: &[(&str, &[u8])]) -> String {
    let mut framed = Vec::new();
    for (name, bytes) in files {
        framed.extend_from_slice(name.as_bytes());
        framed.push(b'\n');
        framed.extend_from_slice(bytes.len().to_string().as_bytes());
        framed.push(b'\n');
        framed.extend_from_slice(bytes);
        framed.push(b'\n');
    }
    sha256_hex(framed)
}

/// The bug home of `slug` and its triad digest: [`triad_sha256`] over assessment.md, fix.md and
/// test.md in that order, i.e. sha256 of `assessment.md\n<len>\n<bytes>\nfix.md\n<len>\n<bytes>\n`
/// `test.md\n<len>\n<bytes>\n` with each `<len>` the file's size in bytes (decimal) and `<bytes>`
/// its exact content. A bad slug or a missing file is an error naming it.
pub fn bug_triad(tree: &dyn SourceTree, slug: &str) -> Result<BugTriad, SpecError> {
    check_bug_slug(slug)?;
    let home = bug_home(slug);
    if let Some(e) = SpecError::entry_refused(&home, tree.kind(&home)?, "a bug home", "directory") {
        return Err(e);
    }
    let mut contents = Vec::with_capacity(TRIAD_FILES.len());
    for name in TRIAD_FILES {
        let path = format!("{home}/{name}");
        let missing = || SpecError::MissingFile {
            path: path.clone(),
            hint: "a bug home holds assessment.md, fix.md and test.md; write the missing one and \
                   stage it (`git add`) before closing the bug",
        };
        // Hashed whole, as large as the repository holds it (no limit of a unit's files).
        let bytes = read_file(tree, &path, "a bug home's file", u64::MAX)?.ok_or_else(missing)?;
        contents.push((name, bytes));
    }
    let files: Vec<(&str, &[u8])> = contents.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    Ok(BugTriad { slug: slug.to_owned(), home, triad_sha256: triad_sha256(&files) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tree::MemTree;

    #[test]
    fn the_triad_digest_frames_each_file_with_its_name_and_length() {
        let tree = MemTree::from_files([
            (".specify/bugs/crash-1/assessment.md", "A"),
            (".specify/bugs/crash-1/fix.md", "é\n"),
            (".specify/bugs/crash-1/test.md", ""),
        ])
        .unwrap();
        let got = bug_triad(&tree, "crash-1").unwrap();
        assert_eq!(got.home, ".specify/bugs/crash-1");
        let expected = "assessment.md\n1\nA\nfix.md\n3\né\n\ntest.md\n0\n\n";
        assert_eq!(got.triad_sha256, sha256_hex(expected.as_bytes()));
    }

    #[test]
    fn a_bug_is_titled_by_its_assessment_heading_and_hashed_by_its_id() {
        assert_eq!(bug_title("x", b"\n# Tags lose their case\nbody"), "Tags lose their case");
        assert_eq!(bug_title("x", b"  \n"), "bug x");
        assert_eq!(bug_line_hash("x"), sha256_hex("bug:x"));
    }

    #[test]
    fn a_missing_triad_file_is_an_error_naming_it() {
        let tree =
            MemTree::from_files([(".specify/bugs/b/assessment.md", "A"), (".specify/bugs/b/test.md", "T")])
                .unwrap();
        let err = bug_triad(&tree, "b").unwrap_err();
        assert!(err.to_string().contains(".specify/bugs/b/fix.md"), "{err}");
    }

    /// A bug home, or a file of it, that is a symbolic link is refused as one, never read through
    /// or taken for missing.
    #[cfg(unix)]
    #[test]
    fn a_linked_bug_home_or_triad_file_is_refused_as_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir_all(&real).unwrap();
        for name in TRIAD_FILES {
            std::fs::write(real.join(name), "x").unwrap();
        }
        std::fs::create_dir_all(dir.path().join(".specify/bugs")).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join(".specify/bugs/linked")).unwrap();
        let tree = crate::spec::FsTree::new(dir.path());
        let err = bug_triad(&tree, "linked").unwrap_err();
        assert!(matches!(err, SpecError::SymbolicLink { what: "a bug home", .. }), "{err}");

        std::fs::create_dir(dir.path().join(".specify/bugs/filed")).unwrap();
        for name in ["assessment.md", "fix.md"] {
            std::fs::write(dir.path().join(".specify/bugs/filed").join(name), "x").unwrap();
        }
        std::os::unix::fs::symlink(real.join("test.md"), dir.path().join(".specify/bugs/filed/test.md"))
            .unwrap();
        let err = bug_triad(&tree, "filed").unwrap_err();
        assert!(matches!(err, SpecError::SymbolicLink { .. }), "{err}");
        assert!(err.to_string().contains(".specify/bugs/filed/test.md"), "{err}");
    }

    #[test]
    fn a_bug_home_that_is_a_submodule_is_refused_as_one() {
        let mut tree = MemTree::new();
        tree.insert_submodule(".specify/bugs/vendored").unwrap();
        let err = bug_triad(&tree, "vendored").unwrap_err();
        assert!(matches!(err, SpecError::Submodule { what: "a bug home", .. }), "{err}");
    }

    /// `bugs/<slug>/bug:<slug>` is one name, the published speccoder's unit `bugs/<slug>` and task
    /// `bug:<slug>`; this crate's `<unit>/bug:<slug>` and other shapes are not that name.
    #[test]
    fn the_published_speccoder_s_bug_names_its_home_as_a_unit_with_a_slash() {
        assert_eq!(
            published_bug("bugs/login-crash/bug:login-crash"),
            Some(("bugs/login-crash", "bug:login-crash"))
        );
        for other in [
            "001-x/bug:login-crash",
            "bugs/a/bug:b",
            "bugs/bug:a",
            "x/bugs/a/bug:a",
            "bugs/A/bug:A",
            "bugs/a/T001",
            "bugs/../bug:..",
        ] {
            assert_eq!(published_bug(other), None, "{other}");
        }
        assert_eq!(bug_slug("bugs/login-crash/bug:login-crash"), Some("login-crash"));
        assert_eq!(bug_slug("001-x/bug:login-crash"), Some("login-crash"));
        assert_eq!(bug_slug("bugs/a/bug:b"), Some("b"));
        assert_eq!(bug_slug("001-x/T001"), None);
        assert_eq!(bug_slug("bug:a/T001"), None);
    }

    #[test]
    fn hostile_bug_slugs_are_refused() {
        for bad in ["", "..", "a..b", "a/b", "-a", ".a", "A", "a b", "a\n", "ä"] {
            assert!(matches!(bug_triad(&MemTree::new(), bad), Err(SpecError::BadBugSlug { .. })), "{bad:?}");
        }
        for good in ["a", "0", "crash-on-empty_tag.v2"] {
            assert!(check_bug_slug(good).is_ok(), "{good}");
        }
    }
}
