//! A published held-out ref (`refs/speccoder/held-out/<unit>`) read one way, as git reads it, by
//! `attest verify` and `held-out publish` alike. Its tree holds exactly what `held-out publish`
//! writes: at the top, one directory per set, named by the set's key (the sha256 of its manifest,
//! 64 lowercase hex digits), and nothing else; in each set exactly `manifest.json` (a regular
//! file) and `files/` (directories and regular files, the manifest's files byte for byte). Every
//! tree on the way must be one git writes ([`crate::git::TreeShapeProblem`]): a tree with two
//! entries of one name, or out of git's order, is one that git, a checkout and an archive may
//! each read another way, so it is refused, never read one way among several.
//!
//! The ref is what a remote sent: blobs are read within bounds, the file count is capped, and
//! nothing outside the ref's tree is followed.

use std::collections::HashMap;

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::git::{GitError, Repo, TreeShapeProblem};
use crate::model::digest::{is_sha256_hex, sha256_hex};
use crate::model::held_out::{
    FILES_DIR, HeldOutManifest, MANIFEST_FILE, MAX_FILE_BYTES, MAX_MANIFEST_BYTES, MAX_SET_FILES,
    SetDifference, manifest_digest,
};
use crate::model::shown::one_line;

/// The finding code of a published copy that is not the set its key names.
pub const TAMPERED: &str = "held_out_published_tampered";

/// Why the top of a held-out ref's tree is not one `held-out publish` writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopProblem {
    /// A tree git would not write so.
    #[error("its tree is not one git writes: {0}")]
    Shape(TreeShapeProblem),
    /// An entry that is not a set: its name (escaped when shown).
    #[error(
        "its tree holds {}, which is not a held-out set (a directory named by the sha256 of its manifest)",
        one_line(.0)
    )]
    Stray(String),
}

/// The sets at the top of the tree `tree` of a held-out ref: key (hex) to the set's tree.
///
/// # Errors
/// A tree that cannot be read (the outer error); a top that is not as `held-out publish` writes
/// it (the inner).
pub fn published_sets(
    repo: &Repo,
    tree: ObjectId,
) -> Result<Result<HashMap<String, ObjectId>, TopProblem>, GitError> {
    let items = match repo.strict_tree_items(tree)? {
        Ok(items) => items,
        Err(problem) => return Ok(Err(TopProblem::Shape(problem))),
    };
    let mut sets = HashMap::with_capacity(items.len());
    for item in items {
        let name = String::from_utf8_lossy(&item.name).into_owned();
        if item.mode.kind() != EntryKind::Tree || !is_sha256_hex(&name) {
            return Ok(Err(TopProblem::Stray(name)));
        }
        sets.insert(name, item.id);
    }
    Ok(Ok(sets))
}

/// How a published set is not the set its key names: a finding code, what differs, and the
/// expected and found values when there are two to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// [`TAMPERED`], or `held_out_other_task` (set by the caller).
    pub code: &'static str,
    /// What differs (repository text escaped).
    pub what: String,
    /// Expected and found, when there are two values to show.
    pub values: Option<(String, String)>,
}

impl Difference {
    /// A difference of `code` saying `what`, with no values.
    #[must_use]
    pub fn new(code: &'static str, what: String) -> Self {
        Difference { code, what, values: None }
    }
}

/// Reads the published set `key` (its tree `tree`) as git reads it: its manifest when the copy
/// is that set, whole and exact; otherwise the first difference.
///
/// # Errors
/// An object that cannot be read (missing, corrupt).
pub fn read_set(
    repo: &Repo,
    key: &str,
    tree: ObjectId,
) -> Result<Result<HeldOutManifest, Difference>, GitError> {
    let tampered = |what: String| Ok(Err(Difference::new(TAMPERED, what)));
    let items = match repo.strict_tree_items(tree)? {
        Ok(items) => items,
        Err(problem) => return tampered(format!("it is not a tree git writes: {problem}")),
    };
    let (mut manifest_id, mut files_id) = (None, None);
    for item in items {
        match (item.name.as_ref(), item.mode.kind()) {
            (name, EntryKind::Blob) if name == MANIFEST_FILE.as_bytes() => manifest_id = Some(item.id),
            (name, EntryKind::Tree) if name == FILES_DIR.as_bytes() => files_id = Some(item.id),
            (name, _) if name == MANIFEST_FILE.as_bytes() => {
                return tampered(format!("{MANIFEST_FILE} is not a regular file that is not executable"));
            }
            (name, _) if name == FILES_DIR.as_bytes() => {
                return tampered(format!("{FILES_DIR} is not a directory"));
            }
            (name, _) => {
                let name = String::from_utf8_lossy(name);
                return tampered(format!(
                    "it holds {} beside {MANIFEST_FILE} and {FILES_DIR}/, which a set never holds",
                    one_line(&name)
                ));
            }
        }
    }
    let Some(manifest_id) = manifest_id else { return tampered(format!("it has no {MANIFEST_FILE}")) };
    let bytes = match repo.blob_within(manifest_id, MAX_MANIFEST_BYTES)? {
        Ok(bytes) => bytes,
        Err(size) => {
            return tampered(format!("{MANIFEST_FILE} is {size} bytes, more than {MAX_MANIFEST_BYTES}"));
        }
    };
    let digest = manifest_digest(&bytes);
    if digest != key {
        let mut d = Difference::new(
            TAMPERED,
            format!("{MANIFEST_FILE} has changed: its sha256 is not the set's key"),
        );
        d.values = Some((key.to_owned(), digest));
        return Ok(Err(d));
    }
    let manifest = match HeldOutManifest::parse(&bytes) {
        Ok(manifest) => manifest,
        Err(e) => return tampered(format!("{MANIFEST_FILE}: {e}")),
    };
    Ok(compare_files(repo, files_id, &manifest)?.map(|()| manifest))
}

/// `files/` of a set (its tree, when it has one) against the manifest's files
/// ([`HeldOutManifest::compare_paths`], then each blob's sha256 by
/// [`crate::model::held_out::ManifestFile::compare`]).
fn compare_files(
    repo: &Repo,
    files: Option<ObjectId>,
    manifest: &HeldOutManifest,
) -> Result<Result<(), Difference>, GitError> {
    let tampered = |what: String| Ok(Err(Difference::new(TAMPERED, what)));
    let present = match files {
        Some(id) => match repo.files_below(id, MAX_SET_FILES)? {
            Ok(files) => files,
            Err(problem) => return tampered(format!("{FILES_DIR}/: {problem}")),
        },
        None => Vec::new(),
    };
    if let Err(difference) = manifest.compare_paths(present.iter().map(|(p, _)| p.as_str())) {
        return tampered(difference.to_string());
    }
    let by_path: HashMap<&str, ObjectId> = present.iter().map(|(p, id)| (p.as_str(), *id)).collect();
    for file in &manifest.files {
        let Some(id) = by_path.get(file.path.as_str()) else { continue };
        let compared = match repo.blob_within(*id, MAX_FILE_BYTES)? {
            Ok(bytes) => file.compare(&sha256_hex(&bytes)),
            Err(_) => Err(SetDifference::TooLarge(file.path.clone())),
        };
        if let Err(difference) = compared {
            let mut d = Difference::new(TAMPERED, difference.to_string());
            if let SetDifference::Changed { expected, found, .. } = difference {
                d.values = Some((expected, found));
            }
            return Ok(Err(d));
        }
    }
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;

    /// The tree `git mktree` makes of `listing` (`<mode> <kind> <id>\t<name>` lines).
    fn mktree(fx: &Fixture, listing: &str) -> ObjectId {
        let out = fx.git_bytes(&["mktree"], Some(listing.as_bytes()));
        ObjectId::from_hex(String::from_utf8(out).unwrap().trim().as_bytes()).unwrap()
    }

    #[test]
    fn a_top_holding_anything_but_directories_named_by_a_key_is_refused_naming_it() {
        let fx = Fixture::new();
        let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"x"));
        let blob = String::from_utf8(blob).unwrap();
        let set = mktree(&fx, &format!("100644 blob {}\tmanifest.json\n", blob.trim()));
        let key = "a".repeat(64);
        let sets = published_sets(&fx.repo(), mktree(&fx, &format!("040000 tree {set}\t{key}\n"))).unwrap();
        assert_eq!(sets, Ok(HashMap::from([(key.clone(), set)])));
        for stray in [
            format!("040000 tree {set}\t{}", key.to_uppercase()),
            format!("100644 blob {}\t{key}b", blob.trim()),
        ] {
            let top = mktree(&fx, &format!("040000 tree {set}\t{key}\n{stray}\n"));
            let refused = published_sets(&fx.repo(), top).unwrap().unwrap_err();
            assert!(matches!(refused, TopProblem::Stray(_)), "{refused}");
        }
    }

    #[test]
    fn an_executable_manifest_is_no_copy_of_the_set() {
        let fx = Fixture::new();
        let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"{}"));
        let blob = String::from_utf8(blob).unwrap();
        let set = mktree(&fx, &format!("100755 blob {}\tmanifest.json\n", blob.trim()));
        let difference = read_set(&fx.repo(), &"a".repeat(64), set).unwrap().unwrap_err();
        assert_eq!(difference.code, TAMPERED);
        assert!(difference.what.contains("manifest.json is not a regular file that is not executable"));
    }
}
