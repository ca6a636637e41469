//! A published held-out ref (`refs/speccoder/held-out/<unit>`) read one way, as git reads it, by
//! `attest verify` and `held-out publish` alike. Its tree holds exactly what `held-out publish`
//! writes: at the top, one directory per set, named by the set's key (the sha256 of its manifest,
//! 64 lowercase hex digits), and nothing else; in each set exactly `manifest.json` (a regular
//! file) and `files/` (directories and regular files, the manifest's files byte for byte). The
//! published speccoder publishes its sets on the same ref, each named by its store key (the task
//! id) instead, its manifest of its own shape ([`crate::model::published_held_out`]): a directory
//! at the top named otherwise than a key is such a set, read when a tick of that tool names it. Every
//! tree on the way must be one git writes ([`crate::git::TreeShapeProblem`]): a tree with two
//! entries of one name, or out of git's order, is one that git, a checkout and an archive may
//! each read another way, so it is refused, never read one way among several.
//!
//! The ref is what a remote sent: blobs are read within bounds, the file count is capped, and
//! nothing outside the ref's tree is followed.

use std::collections::HashMap;

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::git::{GitError, Repo, TreeShapeProblem, delete_ref_command};
use crate::model::digest::{is_sha256_hex, sha256_hex};
use crate::model::held_out::{
    FILES_DIR, HeldOutManifest, MANIFEST_FILE, MAX_FILE_BYTES, MAX_MANIFEST_BYTES, MAX_SET_FILES,
    SetDifference, manifest_digest,
};
use crate::model::published_held_out::PublishedManifest;
use crate::model::shown::{one_line, shell_word};

/// The finding code of a published copy that is not the set its key names.
pub const TAMPERED: &str = "held_out_published_tampered";

/// Why the top of a held-out ref's tree is not one `held-out publish` writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopProblem {
    /// A tree git would not write so.
    #[error("its tree is not one git writes: {0}")]
    Shape(TreeShapeProblem),
    /// An entry that is not a set: its name (escaped when shown), and whether the top holds sets
    /// the published speccoder published, which `held-out publish` cannot write again.
    #[error(
        "its tree holds {}, which is not a held-out set (a directory named by the sha256 of its manifest, or by the task the published speccoder stored it for)",
        one_line(.name)
    )]
    Stray {
        /// The entry's name.
        name: String,
        /// Whether the top holds the published speccoder's sets too.
        beside_published: bool,
    },
}

impl TopProblem {
    /// Whether the ref holds sets the published speccoder published, which `held-out publish`
    /// cannot write again: advice never has such a ref deleted.
    #[must_use]
    pub fn beside_published(&self) -> bool {
        matches!(self, TopProblem::Stray { beside_published: true, .. })
    }
}

/// What to do about the held-out ref `reference` whose top is not as a publisher
/// writes it (`problem`): find where it came from and fetch an intact copy; delete it and publish
/// again only when it holds no set the published speccoder published.
#[must_use]
pub fn top_advice(reference: &str, problem: &TopProblem) -> String {
    let delete = delete_ref_command(reference);
    let reference = shell_word(reference);
    if problem.beside_published() {
        format!(
            "find where it came from (`git log {reference}`) and fetch an intact copy; do not delete it, since it holds held-out sets the published speccoder published, which `speccoder held-out publish` cannot write again"
        )
    } else {
        format!(
            "find where it came from (`git log {reference}`), then delete it (`{delete}`) and publish the unit's sets again from a store that holds them (`speccoder held-out publish`), or fetch an intact copy"
        )
    }
}

/// The sets at the top of a held-out ref's tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefSets {
    /// The sets `held-out publish` writes: key (hex) to the set's tree.
    pub by_key: HashMap<String, ObjectId>,
    /// The sets the published speccoder published: its store key (a task's set: the task id) to
    /// the set's tree.
    pub by_task: HashMap<String, ObjectId>,
}

/// The sets at the top of the tree `tree` of a held-out ref: every entry a directory, named by a
/// key (64 lowercase hex digits) or, the published speccoder's, by anything but a digest.
///
/// # Errors
/// A tree that cannot be read (the outer error); a top that is not as `held-out publish` or the
/// published speccoder writes it (the inner): the first entry that is no set.
pub fn published_sets(repo: &Repo, tree: ObjectId) -> Result<Result<RefSets, TopProblem>, GitError> {
    let items = match repo.strict_tree_items(tree)? {
        Ok(items) => items,
        Err(problem) => return Ok(Err(TopProblem::Shape(problem))),
    };
    let mut sets = RefSets::default();
    let mut stray = None;
    for item in items {
        let name = String::from_utf8(item.name.to_vec());
        match name {
            Ok(name) if item.mode.kind() == EntryKind::Tree && is_sha256_hex(&name) => {
                sets.by_key.insert(name, item.id);
            }
            // A digest in other letter case is a key misspelt, never a task's name.
            Ok(name) if item.mode.kind() == EntryKind::Tree && !looks_like_a_key(&name) => {
                sets.by_task.insert(name, item.id);
            }
            Ok(name) => stray = stray.or(Some(name)),
            Err(e) => stray = stray.or_else(|| Some(String::from_utf8_lossy(e.as_bytes()).into_owned())),
        }
    }
    Ok(match stray {
        Some(name) => Err(TopProblem::Stray { name, beside_published: !sets.by_task.is_empty() }),
        None => Ok(sets),
    })
}

/// Whether `name` is 64 hex digits in any letter case.
fn looks_like_a_key(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
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
    let (files_id, bytes) = match set_manifest(repo, tree)? {
        Ok(Ok(read)) => read,
        Ok(Err(size)) => {
            return tampered(format!("{MANIFEST_FILE} is {size} bytes, more than {MAX_MANIFEST_BYTES}"));
        }
        Err(difference) => return Ok(Err(difference)),
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

/// What a copy the published speccoder published (under its store key) is, against the digest a
/// tick of that tool names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublishedCopy {
    /// The set the tick names, whole and exact: its manifest.
    Named(PublishedManifest),
    /// Not the set the tick names, as far as this build can tell (another set stored under the
    /// same key, or a manifest it cannot read as that tool's): why. Nothing about it is checked.
    Other(String),
}

/// Reads the copy at `tree` the published speccoder published under its store key, as git reads
/// it, against `digest` (hex), the digest a tick of that tool names: the set when its manifest
/// gives that digest as that tool computes it and `files/` holds exactly its files; otherwise
/// another set, or the first difference of a copy of the named set (or of a copy that is no set
/// at all).
///
/// # Errors
/// An object that cannot be read (missing, corrupt).
pub fn read_published_copy(
    repo: &Repo,
    digest: &str,
    tree: ObjectId,
) -> Result<Result<PublishedCopy, Difference>, GitError> {
    let (files_id, bytes) = match set_manifest(repo, tree)? {
        Ok(Ok(read)) => read,
        Ok(Err(size)) => {
            let why = format!(
                "its {MANIFEST_FILE} is {size} bytes, more than {MAX_MANIFEST_BYTES} this build reads"
            );
            return Ok(Ok(PublishedCopy::Other(why)));
        }
        Err(difference) => return Ok(Err(difference)),
    };
    let manifest = match PublishedManifest::parse(&bytes) {
        Ok(manifest) => manifest,
        Err(e) => {
            let why =
                format!("its {MANIFEST_FILE} does not read as the published speccoder's manifest ({e})");
            return Ok(Ok(PublishedCopy::Other(why)));
        }
    };
    let found = manifest.digest();
    if found != digest {
        let why = format!(
            "its {MANIFEST_FILE} gives sha256:{found}, as the published speccoder names a set: another set stored for the task (a later attempt's) or one changed since"
        );
        return Ok(Ok(PublishedCopy::Other(why)));
    }
    Ok(compare_files(repo, files_id, &manifest.as_set())?.map(|()| PublishedCopy::Named(manifest)))
}

/// A set's tree `tree` holding exactly `manifest.json` (a regular file that is not executable)
/// and `files/` (a directory, or none), as git reads it: the manifest's bytes (or its size, when
/// larger than [`MAX_MANIFEST_BYTES`]) and the id of `files/`; otherwise how the tree is no set.
fn set_manifest(repo: &Repo, tree: ObjectId) -> Result<Result<SetManifest, Difference>, GitError> {
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
    let bytes = repo.blob_within(manifest_id, MAX_MANIFEST_BYTES)?;
    Ok(Ok(bytes.map(|bytes| (files_id, bytes))))
}

/// The id of a set's `files/` (none: no such directory) and its manifest's bytes, or the
/// manifest's size when it is too large to read.
type SetManifest = Result<(Option<ObjectId>, Vec<u8>), u64>;

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
    fn a_top_holding_anything_but_directories_named_by_a_key_or_a_task_is_refused_naming_it() {
        let fx = Fixture::new();
        let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"x"));
        let blob = String::from_utf8(blob).unwrap();
        let set = mktree(&fx, &format!("100644 blob {}\tmanifest.json\n", blob.trim()));
        let key = "a".repeat(64);
        let top = mktree(&fx, &format!("040000 tree {set}\t{key}\n040000 tree {set}\tT001\n"));
        let sets = published_sets(&fx.repo(), top).unwrap().unwrap();
        assert_eq!(sets.by_key, HashMap::from([(key.clone(), set)]));
        assert_eq!(sets.by_task, HashMap::from([("T001".to_owned(), set)]), "the published speccoder's");
        for (stray, beside_published) in [
            (format!("040000 tree {set}\t{}", key.to_uppercase()), false),
            (format!("100644 blob {}\t{key}b", blob.trim()), false),
            (format!("100644 blob {}\tT002\n040000 tree {set}\tT001", blob.trim()), true),
        ] {
            let top = mktree(&fx, &format!("040000 tree {set}\t{key}\n{stray}\n"));
            let refused = published_sets(&fx.repo(), top).unwrap().unwrap_err();
            assert!(
                matches!(&refused, TopProblem::Stray { beside_published: b, .. } if *b == beside_published),
                "{refused:?}"
            );
        }
    }

    /// A set of the published speccoder's shape: `manifest.json` (its own manifest naming `h.rs`
    /// of `text`, for 001-x/T001, pretty-printed) and `files/h.rs` holding `stored`; the set's
    /// tree and its digest as that tool computes it.
    fn published_set(fx: &Fixture, text: &str, stored: &str) -> (ObjectId, String) {
        let manifest = serde_json::json!({
            "version": 1, "feature": "001-x", "task": "T001", "author_run": "r", "checkpoint": "c",
            "visible_scenarios": ["US1.1"],
            "files": [{ "path": "h.rs", "sha256": sha256_hex(text.as_bytes()), "scenarios": ["US1.1"],
                        "argv": ["cargo", "test"], "composition": false }],
            "discarded": []
        });
        let pretty = serde_json::to_vec_pretty(&manifest).unwrap();
        let digest = PublishedManifest::parse(&pretty).unwrap().digest();
        let hash = |bytes: &[u8]| {
            let out = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(bytes));
            String::from_utf8(out).unwrap().trim().to_owned()
        };
        let files = mktree(fx, &format!("100644 blob {}\th.rs\n", hash(stored.as_bytes())));
        let set = mktree(
            fx,
            &format!("040000 tree {files}\tfiles\n100644 blob {}\tmanifest.json\n", hash(&pretty)),
        );
        (set, digest)
    }

    #[test]
    fn the_published_speccoders_copy_is_the_named_set_only_when_its_manifest_gives_the_digest_and_its_files_are_its()
     {
        let fx = Fixture::new();
        let (set, digest) = published_set(&fx, "fn h() {}\n", "fn h() {}\n");
        match read_published_copy(&fx.repo(), &digest, set).unwrap() {
            Ok(PublishedCopy::Named(manifest)) => assert_eq!(manifest.target(), "001-x/T001"),
            other => panic!("{other:?}"),
        }
        let other = read_published_copy(&fx.repo(), &"b".repeat(64), set).unwrap();
        assert!(
            matches!(&other, Ok(PublishedCopy::Other(why)) if why.contains(&format!("sha256:{digest}"))),
            "{other:?}"
        );

        let (changed, digest) = published_set(&fx, "fn h() {}\n", "fn h() { evil() }\n");
        let difference = read_published_copy(&fx.repo(), &digest, changed).unwrap().unwrap_err();
        assert_eq!(difference.code, TAMPERED);
        assert!(difference.what.contains("files/h.rs has changed"), "{}", difference.what);
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
