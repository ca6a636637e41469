//! The held-out set's manifest: which task the set was written for, which run, and every file of
//! the set by its path inside the set and its sha256. The manifest's digest (sha256 of the exact
//! `manifest.json` bytes) is what the evidence's held_out phase and the `Held-Out:` trailer name,
//! and it is the set's key in the store and in `refs/speccoder/held-out/<unit>`.
//!
//! A manifest is hostile input: [`HeldOutManifest::parse`] refuses anything that is not exactly
//! this shape, and every path must stay inside its set ([`check_set_path`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::canonical::to_canonical;
use super::digest::{is_sha256_hex, sha256_hex};
use super::shown::one_line;

/// The manifest's file name inside a set.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The directory inside a set that holds its files.
pub const FILES_DIR: &str = "files";

/// The manifest version this build writes and reads.
pub const MANIFEST_VERSION: u32 = 1;

/// The longest path (bytes) a manifest may name.
pub const MAX_PATH_BYTES: usize = 1024;

/// The largest held-out file read (from the store, or from a published set).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The largest manifest read.
pub const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;
/// The most files one set may hold.
pub const MAX_SET_FILES: usize = 10_000;

/// One file of a held-out set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// The path inside the set's `files/` directory, `/`-separated.
    pub path: String,
    /// Lowercase hex sha256 of the file's bytes.
    pub sha256: String,
}

/// The manifest of a held-out set (`<key>/manifest.json`), version 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeldOutManifest {
    /// Always 1.
    pub version: u32,
    /// `<unit>/<task>`: the task the set was written for.
    pub task: String,
    /// The run that used the set, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Every file of the set, sorted by path; at least one.
    pub files: Vec<ManifestFile>,
}

/// Why a manifest cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// Not JSON of the manifest's shape.
    #[error("it is not a valid manifest ({0}); see schema/held-out-manifest.schema.json")]
    Shape(String),
    /// Another version.
    #[error("it has version {0}; this build reads version {MANIFEST_VERSION} only")]
    Version(u32),
    /// `task` is not `<unit>/<task>`.
    #[error("its task `{0}` is not <unit>/<task>")]
    Task(String),
    /// No files.
    #[error("it names no files; a held-out set holds at least one test file")]
    Empty,
    /// A path that could leave the set or cannot be a file in it.
    #[error(
        "it names the path `{path}`, which {reason}; every path must stay inside the set and be a name git takes as an ordinary file (rename it)"
    )]
    Path {
        /// The offending path (control characters escaped).
        path: String,
        /// The rule it broke.
        reason: &'static str,
    },
    /// A digest that is not lowercase hex sha256.
    #[error("its sha256 for `{0}` is not 64 lowercase hex digits")]
    Sha256(String),
    /// The same path twice, or a path that is another's directory.
    #[error("it names `{0}` twice, or both as a file and as a directory")]
    Duplicate(String),
    /// Two paths that a case-insensitive or normalizing file system takes for one.
    #[error(
        "it names `{0}` and `{1}`, which differ only in letter case or Unicode normalization: a clone on a case-insensitive file system (macOS, Windows) holds only one of them (rename one)"
    )]
    Collision(String, String),
    /// Larger than every reader of a set accepts ([`MAX_MANIFEST_BYTES`]).
    #[error(
        "it would be {0} bytes, more than the {MAX_MANIFEST_BYTES} bytes (4 MiB) every reader of a held-out set accepts; store fewer files or give them shorter paths (each file's path is written in full)"
    )]
    TooLarge(usize),
}

/// Checks a path of a set (hostile input): relative, `/`-separated, no empty, `.` or `..`
/// component, no backslash, drive letter or control character, at most [`MAX_PATH_BYTES`], and no
/// component that git refuses in a tree or treats as its own ([`special_to_git`]).
///
/// # Errors
/// The rule broken, as [`ManifestError::Path`].
pub fn check_set_path(path: &str) -> Result<(), ManifestError> {
    let bad = |reason| {
        Err(ManifestError::Path {
            path: path.chars().take(200).flat_map(char::escape_default).collect(),
            reason,
        })
    };
    if path.is_empty() {
        return bad("is empty");
    }
    if path.len() > MAX_PATH_BYTES {
        return bad("is too long");
    }
    if path.starts_with('/') {
        return bad("is absolute");
    }
    if path.contains('\\') {
        return bad("holds a backslash");
    }
    if path.chars().any(char::is_control) {
        return bad("holds a control character");
    }
    let first = path.split('/').next().unwrap_or("");
    if first.len() >= 2 && first.as_bytes()[1] == b':' && first.as_bytes()[0].is_ascii_alphabetic() {
        return bad("starts with a drive letter");
    }
    for component in path.split('/') {
        match component {
            "" => return bad("has an empty component"),
            "." | ".." => return bad("has a `.` or `..` component"),
            c => {
                if let Some(reason) = special_to_git(c) {
                    return bad(reason);
                }
            }
        }
    }
    Ok(())
}

/// Why git would refuse `component` as a name in a tree, or read it as one of its own files: gix's
/// check of a tree entry's name with every protection on (Windows, NTFS, HFS+), so `.git`, `GIT~1`,
/// `.git.` and `.g\u{200c}it` are caught alike. The check runs as for a symbolic link, which
/// makes it refuse `.gitmodules` and the names NTFS and HFS+ take for it (`GITMOD~1`,
/// `.GITMODULES`) too: `git fsck` reads every blob so named as submodule configuration.
#[must_use]
pub fn special_to_git(component: &str) -> Option<&'static str> {
    use gix::validate::path::component::{Error, Mode, Options};
    let err =
        gix::validate::path::component(component.into(), Some(Mode::Symlink), Options::default()).err()?;
    Some(match err {
        Error::DotGitDir => "has a component git takes for `.git` (such as `GIT~1`, `.git.` or `.GIT`)",
        Error::SymlinkedGitModules => {
            "has a component git takes for `.gitmodules` (such as `.GITMODULES` or `GITMOD~1`), which `git fsck` checks as submodule configuration"
        }
        Error::WindowsReservedName => {
            "has a component that is a Windows device name (such as `CON`, `NUL` or `aux.rs`)"
        }
        Error::WindowsIllegalCharacter => {
            "has a component with a character Windows forbids in a name (one of `:<>\"|?*`) or ending in `.` or a space"
        }
        Error::WindowsPathPrefix => "has a component that starts with a drive letter",
        Error::PathSeparator => "holds a backslash",
        Error::Empty => "has an empty component",
        Error::Relative => "has a `.` or `..` component",
        _ => "has a component git does not take as a name in a tree",
    })
}

/// The manifest digest (hex) a `Held-Out: passed=k/n manifest=sha256:<hex>` trailer names, when
/// it names one of 64 lowercase hex digits.
#[must_use]
pub fn trailer_manifest(value: &str) -> Option<&str> {
    value
        .split_whitespace()
        .find_map(|part| part.strip_prefix("manifest=sha256:"))
        .filter(|hex| is_sha256_hex(hex))
}

/// The digest of manifest bytes, lowercase hex: the set's key.
#[must_use]
pub fn manifest_digest(bytes: &[u8]) -> String {
    sha256_hex(bytes)
}

impl HeldOutManifest {
    /// The manifest of `files` (path inside the set, bytes) for `task` and `run`, files sorted.
    ///
    /// # Errors
    /// A task or path that breaks the rules, or no files.
    pub fn new(task: &str, run: Option<&str>, files: &[(String, Vec<u8>)]) -> Result<Self, ManifestError> {
        let listed =
            files.iter().map(|(path, bytes)| ManifestFile { path: path.clone(), sha256: sha256_hex(bytes) });
        Self::from_digests(task, run, listed.collect())
    }

    /// The manifest of `files` (path inside the set, sha256 of its bytes, as hashed while the
    /// file was copied) for `task` and `run`, files sorted.
    ///
    /// # Errors
    /// A task or path that breaks the rules, no files, or more bytes than [`MAX_MANIFEST_BYTES`]
    /// (a reader of the set would refuse it).
    pub fn from_digests(
        task: &str,
        run: Option<&str>,
        mut listed: Vec<ManifestFile>,
    ) -> Result<Self, ManifestError> {
        listed.sort();
        let manifest = HeldOutManifest {
            version: MANIFEST_VERSION,
            task: task.to_owned(),
            run: run.map(str::to_owned),
            files: listed,
        };
        manifest.check()?;
        let len = manifest.to_bytes().len();
        if u64::try_from(len).is_ok_and(|len| len <= MAX_MANIFEST_BYTES) {
            Ok(manifest)
        } else {
            Err(ManifestError::TooLarge(len))
        }
    }

    /// Reads and checks manifest bytes.
    ///
    /// # Errors
    /// Not JSON of this shape, or a rule broken.
    pub fn parse(bytes: &[u8]) -> Result<Self, ManifestError> {
        let manifest: HeldOutManifest =
            serde_json::from_slice(bytes).map_err(|e| ManifestError::Shape(e.to_string()))?;
        manifest.check()?;
        Ok(manifest)
    }

    /// The bytes written as `manifest.json`: canonical JSON.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        to_canonical(self).unwrap_or_default()
    }

    /// The unit part of `task`.
    #[must_use]
    pub fn unit(&self) -> &str {
        self.task.split_once('/').map_or("", |(unit, _)| unit)
    }

    /// Checks the rules the shape cannot express.
    ///
    /// # Errors
    /// The first rule broken.
    pub fn check(&self) -> Result<(), ManifestError> {
        if self.version != MANIFEST_VERSION {
            return Err(ManifestError::Version(self.version));
        }
        match self.task.split_once('/') {
            Some((u, t)) if !u.is_empty() && !t.is_empty() && !self.task.chars().any(char::is_control) => {}
            _ => return Err(ManifestError::Task(self.task.chars().flat_map(char::escape_default).collect())),
        }
        if self.files.is_empty() {
            return Err(ManifestError::Empty);
        }
        let mut paths: Vec<&str> = Vec::with_capacity(self.files.len());
        for file in &self.files {
            check_set_path(&file.path)?;
            if !is_sha256_hex(&file.sha256) {
                return Err(ManifestError::Sha256(file.path.clone()));
            }
            paths.push(&file.path);
        }
        paths.sort_unstable();
        if let Some(pair) = paths.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(ManifestError::Duplicate(pair[0].to_owned()));
        }
        // A path that is also another path's directory (`a` and `a/b`).
        for path in &paths {
            let mut at = 0;
            while let Some(i) = path[at..].find('/') {
                let dir = &path[..at + i];
                if paths.binary_search(&dir).is_ok() {
                    return Err(ManifestError::Duplicate(dir.to_owned()));
                }
                at += i + 1;
            }
        }
        check_collisions(&paths)
    }
}

/// How a set's files differ from its manifest: the one comparison of a stored set (on disk) and
/// of a published one (in git), so both name a difference alike. Paths are shown escaped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetDifference {
    /// A file the manifest names is not in `files/`.
    #[error("{FILES_DIR}/{} is missing", one_line(.0))]
    Missing(String),
    /// A file of `files/` that the manifest does not name.
    #[error("{FILES_DIR}/{} is not in the manifest", one_line(.0))]
    Extra(String),
    /// A file larger than [`MAX_FILE_BYTES`], which is never read.
    #[error("{FILES_DIR}/{} is larger than {MAX_FILE_BYTES} bytes", one_line(.0))]
    TooLarge(String),
    /// A file whose bytes are not the ones the manifest hashed.
    #[error("{FILES_DIR}/{} has changed (manifest sha256 {expected}, found {found})", one_line(.path))]
    Changed {
        /// The file's path inside `files/`.
        path: String,
        /// The manifest's sha256.
        expected: String,
        /// The sha256 of the bytes found.
        found: String,
    },
}

impl HeldOutManifest {
    /// Whether `present` (every file below the set's `files/`, by path) is exactly the manifest's
    /// files: the first the manifest names that is missing, else the first that it does not name.
    ///
    /// # Errors
    /// That difference.
    pub fn compare_paths<'a>(&self, present: impl IntoIterator<Item = &'a str>) -> Result<(), SetDifference> {
        let present: std::collections::BTreeSet<&str> = present.into_iter().collect();
        if let Some(file) = self.files.iter().find(|f| !present.contains(f.path.as_str())) {
            return Err(SetDifference::Missing(file.path.clone()));
        }
        let named: std::collections::BTreeSet<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
        match present.into_iter().find(|p| !named.contains(p)) {
            Some(extra) => Err(SetDifference::Extra(extra.to_owned())),
            None => Ok(()),
        }
    }
}

impl ManifestFile {
    /// Whether `found` (the sha256 of the file's bytes as read, hex) is the manifest's.
    ///
    /// # Errors
    /// [`SetDifference::Changed`].
    pub fn compare(&self, found: &str) -> Result<(), SetDifference> {
        if found == self.sha256 {
            return Ok(());
        }
        Err(SetDifference::Changed {
            path: self.path.clone(),
            expected: self.sha256.clone(),
            found: found.to_owned(),
        })
    }
}

/// A name as a case-insensitive, normalizing file system compares it (HFS+ and APFS, NTFS):
/// composed (NFC), each character lowercased.
fn folded(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    name.nfc().flat_map(char::to_lowercase).collect()
}

/// The first two of `paths` (or of their directories) that differ but fold to the same name
/// ([`folded`]): `A.rs` and `a.rs`, `Dir/x.rs` and `dir/y.rs`, `é` composed and decomposed. On
/// such a file system a clone holds only one of them (or merges two directories), so the set it
/// checks out is not the set the manifest names.
fn check_collisions(paths: &[&str]) -> Result<(), ManifestError> {
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    for path in paths {
        let ends = path.match_indices('/').map(|(i, _)| i).chain(std::iter::once(path.len()));
        for end in ends {
            let prefix = &path[..end];
            match seen.entry(folded(prefix)) {
                std::collections::hash_map::Entry::Occupied(first) if *first.get() != prefix => {
                    return Err(ManifestError::Collision((*first.get()).to_owned(), prefix.to_owned()));
                }
                std::collections::hash_map::Entry::Occupied(_) => {}
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(prefix);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_missing_a_named_file_or_holding_another_is_named_by_its_first_difference() {
        let m = HeldOutManifest::new("001-x/T005", None, &files(&["a.rs", "b/c.rs"])).unwrap();
        assert_eq!(m.compare_paths(["b/c.rs", "a.rs"]), Ok(()));
        assert_eq!(m.compare_paths(["a.rs", "z.rs"]), Err(SetDifference::Missing("b/c.rs".into())));
        let extra = m.compare_paths(["a.rs", "b/c.rs", "b/\u{1b}[2J"]).unwrap_err();
        assert_eq!(extra.to_string(), "files/b/\\u{1b}[2J is not in the manifest");
    }

    #[test]
    fn a_file_is_changed_when_its_bytes_hash_to_another_digest() {
        let m = HeldOutManifest::new("001-x/T005", None, &files(&["a.rs"])).unwrap();
        let file = &m.files[0];
        assert_eq!(file.compare(&sha256_hex(b"a.rs")), Ok(()));
        let changed = file.compare(&sha256_hex(b"A.rs")).unwrap_err();
        assert!(changed.to_string().starts_with("files/a.rs has changed (manifest sha256 "), "{changed}");
    }

    fn files(paths: &[&str]) -> Vec<(String, Vec<u8>)> {
        paths.iter().map(|p| ((*p).to_owned(), p.as_bytes().to_vec())).collect()
    }

    #[test]
    fn a_new_manifest_sorts_its_files_and_reads_back_from_its_bytes() {
        let m = HeldOutManifest::new("001-x/T005", Some("run-1"), &files(&["b.rs", "a/c.rs"])).unwrap();
        assert_eq!(m.files[0].path, "a/c.rs");
        assert_eq!(m.files[1].sha256, sha256_hex(b"b.rs"));
        let bytes = m.to_bytes();
        assert!(
            bytes.starts_with(br#"{"files":[{"path":"a/c.rs","sha256":""#),
            "{}",
            String::from_utf8_lossy(&bytes)
        );
        assert_eq!(HeldOutManifest::parse(&bytes).unwrap(), m);
        assert_eq!(m.unit(), "001-x");
    }

    #[test]
    fn the_trailer_names_its_manifest_digest_only_when_well_formed() {
        let hex = "a".repeat(64);
        assert_eq!(trailer_manifest(&format!("passed=3/3 manifest=sha256:{hex}")), Some(hex.as_str()));
        assert_eq!(trailer_manifest("off"), None);
        assert_eq!(trailer_manifest("passed=1/1 manifest=sha256:ABC"), None);
    }

    #[test]
    fn paths_that_could_leave_the_set_are_refused() {
        for bad in
            ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a\\b", "C:/x", "a/.git/config", "a\nb"]
        {
            assert!(matches!(check_set_path(bad), Err(ManifestError::Path { .. })), "{bad:?}");
        }
        for good in
            ["a", "tests/held_out/tags.rs", "..a", ".hidden", ".gitignore", "git~1x/a", "gitmodules.rs"]
        {
            assert!(check_set_path(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn names_git_takes_for_its_own_or_refuses_in_a_tree_are_refused() {
        for (bad, reason) in [
            (".git/config", "`.git`"),
            ("a/.GIT/x", "`.git`"),
            ("GIT~1/c", "`.git`"),
            ("git~1", "`.git`"),
            (".git./c", "`.git`"),
            (".git /c", "`.git`"),
            (".git::$INDEX_ALLOCATION/c", "`.git`"),
            ("\u{200c}.git/c", "`.git`"),
            (".g\u{200d}it/c", "`.git`"),
            (".gitmodules", "`.gitmodules`"),
            ("sub/.GITMODULES", "`.gitmodules`"),
            ("GITMOD~1", "`.gitmodules`"),
            (".gitmodules.", "`.gitmodules`"),
            (".gitm\u{feff}odules", "`.gitmodules`"),
            ("aux.rs", "Windows device"),
            ("a..", "Windows forbids"),
            ("a/b?.rs", "Windows forbids"),
        ] {
            match check_set_path(bad) {
                Err(ManifestError::Path { reason: found, .. }) => {
                    assert!(found.contains(reason), "{bad:?}: {found}")
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_manifest_that_is_not_the_shape_or_breaks_a_rule_does_not_parse() {
        let ok = HeldOutManifest::new("u/T1", None, &files(&["a"])).unwrap().to_bytes();
        let text = String::from_utf8(ok).unwrap();
        for (bad, what) in [
            ("not json".to_owned(), "Shape"),
            (text.replace("\"version\":1", "\"version\":2"), "Version"),
            (text.replace("\"u/T1\"", "\"T1\""), "Task"),
            (text.replace("\"path\":\"a\"", "\"path\":\"../a\""), "Path"),
            (text.replace("}],", ",\"mode\":1}],"), "Shape"),
            (r#"{"version":1,"task":"u/T","files":[]}"#.to_owned(), "Empty"),
        ] {
            let err = HeldOutManifest::parse(bad.as_bytes()).unwrap_err();
            assert!(format!("{err:?}").starts_with(what), "{bad}: {err:?}");
        }
    }

    #[test]
    fn a_path_named_twice_or_as_file_and_directory_is_refused() {
        for set in [&["a", "a"][..], &["a", "a/b"], &["a", "a.x", "a/b"]] {
            assert!(
                matches!(HeldOutManifest::new("u/T", None, &files(set)), Err(ManifestError::Duplicate(_))),
                "{set:?}"
            );
        }
        assert!(HeldOutManifest::new("u/T", None, &files(&["a.x", "a/b"])).is_ok());
    }

    #[test]
    fn names_that_differ_only_in_case_or_normalization_are_refused_as_one_name() {
        let nfc = "caf\u{e9}.rs";
        let nfd = "cafe\u{301}.rs";
        for set in [
            &["A.rs", "a.rs"][..],
            &["Dir/x.rs", "dir/y.rs"],
            &[nfc, nfd],
            &["\u{c9}t\u{e9}.rs", "\u{e9}t\u{e9}.rs"],
            &["x/\u{3a3}.rs", "x/\u{3c3}.rs"],
        ] {
            assert!(
                matches!(HeldOutManifest::new("u/T", None, &files(set)), Err(ManifestError::Collision(..))),
                "{set:?}"
            );
        }
        for set in [&["a.rs", "b.rs"][..], &["A/x.rs", "A/y.rs"], &["a.rs", "a.rs.bak"], &[nfc, "cafe.rs"]] {
            assert!(HeldOutManifest::new("u/T", None, &files(set)).is_ok(), "{set:?}");
        }
    }

    #[test]
    fn a_manifest_larger_than_every_reader_accepts_is_never_made() {
        let long =
            |i: usize| ManifestFile { path: format!("{}/{i:05}", "d".repeat(990)), sha256: "0".repeat(64) };
        let err =
            HeldOutManifest::from_digests("001-x/T001", None, (0..4_000).map(long).collect()).unwrap_err();
        assert!(matches!(err, ManifestError::TooLarge(len) if len > 4 * 1024 * 1024), "{err}");
        assert!(err.to_string().contains("more than the 4194304 bytes (4 MiB)"), "{err}");
        assert!(HeldOutManifest::from_digests("001-x/T001", None, (0..3_000).map(long).collect()).is_ok());
    }
}
