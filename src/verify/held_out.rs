//! The published copies of held-out sets: when `refs/speccoder/held-out/<unit>` holds the set a
//! tick names (its held_out line, its `Held-Out:` trailer), that copy must be the set the tick
//! names: its `manifest.json` hashes to the key, parses as a manifest written for the tick's own
//! task, and `files/` holds exactly the manifest's files, byte for byte. A ref that does not exist
//! or does not hold the key is no failure (publishing comes later).
//!
//! The ref is what a remote sent: blobs are read within bounds, the file count is capped, and
//! nothing outside the ref's tree is followed. Each unit's ref is read once per run (its commit
//! and top tree, when the checker is made); each named set is checked once, whichever thread asks
//! first. Without any such ref, making the checker lists one ref prefix and nothing else.

use std::collections::HashMap;
use std::sync::Mutex;

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::check::outcome::{CommitOutcome, Finding};
use crate::git::{GitError, Repo};
use crate::model::digest::{is_sha256_hex, sha256_hex};
use crate::model::held_out::{
    FILES_DIR, HeldOutManifest, MANIFEST_FILE, MAX_FILE_BYTES, MAX_MANIFEST_BYTES, MAX_SET_FILES,
    SetDifference, manifest_digest,
};
use crate::model::refs::{HELD_OUT_PREFIX, held_out_ref};
use crate::model::shown::one_line;

/// One held-out ref as read once at the start of a run.
#[derive(Debug)]
enum Published {
    /// The sets its commit's tree holds: key (hex) to the entry's object and kind.
    Sets(HashMap<String, (ObjectId, EntryKind)>),
    /// Its sets cannot be read (it names no commit, or its commit or tree cannot be read).
    Unreadable(String),
}

/// Every held-out ref of the repository, read once, and the sets checked so far.
#[derive(Debug, Default)]
pub(super) struct PublishedSets {
    /// By full ref name.
    refs: HashMap<String, Published>,
    /// `(ref, key, task)` to what its check found; shared by the threads of a run.
    checked: Mutex<HashMap<(String, String, String), Option<Finding>>>,
}

impl PublishedSets {
    /// Reads every `refs/speccoder/held-out/*` ref's commit and top tree.
    ///
    /// # Errors
    /// The references cannot be listed.
    pub(super) fn read(repo: &Repo) -> Result<Self, GitError> {
        let mut refs = HashMap::new();
        for (name, target) in repo.refs_with_prefix(HELD_OUT_PREFIX)? {
            let published = read_ref(repo, &name, target);
            refs.insert(name, published);
        }
        Ok(PublishedSets { refs, checked: Mutex::default() })
    }

    /// Whether no held-out ref exists (then nothing is ever checked).
    pub(super) fn is_empty(&self) -> bool {
        self.refs.is_empty()
    }

    /// What the published copy of `key` (hex) in the ref of `target`'s unit says against the
    /// tick of `target` (`<unit>/<task>`): `None` when it holds, or when no ref holds the key.
    pub(super) fn check(&self, repo: &Repo, target: &str, key: &str) -> Option<Finding> {
        let unit = target.split_once('/').map_or(target, |(unit, _)| unit);
        let reference = held_out_ref(unit);
        let published = self.refs.get(&reference)?;
        let entry = match published {
            Published::Unreadable(why) => return Some(finding("held_out_ref_unreadable", why.clone())),
            Published::Sets(sets) => *sets.get(key)?,
        };
        let memo = (reference, key.to_owned(), target.to_owned());
        if let Some(found) = self.checked.lock().ok().and_then(|done| done.get(&memo).cloned()) {
            return found;
        }
        let found = check_set(repo, &memo.0, key, entry, target);
        if let Ok(mut done) = self.checked.lock() {
            done.insert(memo, found.clone());
        }
        found
    }
}

/// A mismatch finding of the published copy.
fn finding(code: &'static str, message: String) -> Finding {
    Finding::new(CommitOutcome::Mismatch, code, message)
}

/// The sets of the ref `name` pointing at `target`.
fn read_ref(repo: &Repo, name: &str, target: ObjectId) -> Published {
    let tree = match repo.commit_tree(target) {
        Ok(tree) => tree,
        Err(GitError::WrongKind { found, .. }) => {
            return Published::Unreadable(format!(
                "{name} names a {found}, not a commit, so the held-out sets published there cannot be checked; point it at its last commit (`git reflog {name}`, then `git update-ref {name} <commit>`), or delete it (`git update-ref -d {name}`) and fetch or publish it again"
            ));
        }
        Err(e) => return Published::Unreadable(format!("{name} cannot be read: {e}")),
    };
    let view = repo.tree(tree);
    let listed = view.entries("").and_then(|kinds| Ok((kinds, view.entry_ids("")?)));
    match listed {
        Ok((kinds, ids)) => {
            let kinds: HashMap<String, EntryKind> = kinds.unwrap_or_default().into_iter().collect();
            Published::Sets(
                ids.unwrap_or_default()
                    .into_iter()
                    .filter(|(key, _)| is_sha256_hex(key))
                    .filter_map(|(key, id)| Some((key.clone(), (id, *kinds.get(&key)?))))
                    .collect(),
            )
        }
        Err(e) => Published::Unreadable(format!("the tree of {name} cannot be read: {e}")),
    }
}

/// Checks the published set `key` of `reference` (the entry `entry` of its top tree) against
/// the tick of `target`.
fn check_set(
    repo: &Repo,
    reference: &str,
    key: &str,
    entry: (ObjectId, EntryKind),
    target: &str,
) -> Option<Finding> {
    let at = format!("the published held-out set sha256:{key} in {reference}");
    match read_set(repo, key, entry, target) {
        Ok(None) => None,
        Ok(Some(difference)) => Some(difference.at(&at)),
        Err(e) => Some(finding("held_out_published_unreadable", format!("{at} cannot be read: {e}"))),
    }
}

/// What differs between a published set and the set a tick names.
struct Difference {
    code: &'static str,
    what: String,
    values: Option<(String, String)>,
}

impl Difference {
    fn new(code: &'static str, what: String) -> Self {
        Difference { code, what, values: None }
    }

    /// The finding, its message starting with `at`.
    fn at(self, at: &str) -> Finding {
        let found = finding(self.code, format!("{at}: {}", self.what));
        match self.values {
            Some((expected, seen)) => found.expected_found(expected, seen),
            None => found,
        }
    }
}

/// Reads the set and says the first difference, if any.
fn read_set(
    repo: &Repo,
    key: &str,
    (tree, kind): (ObjectId, EntryKind),
    target: &str,
) -> Result<Option<Difference>, GitError> {
    let tampered = |what: String| Ok(Some(Difference::new("held_out_published_tampered", what)));
    if kind != EntryKind::Tree {
        return tampered("it is not a directory".to_owned());
    }
    let view = repo.tree(tree);
    let manifest_id = match (view.entry_kind(MANIFEST_FILE)?, view.entry_id(MANIFEST_FILE)?) {
        (Some(EntryKind::Blob | EntryKind::BlobExecutable), Some(id)) => id,
        (None, _) | (_, None) => return tampered(format!("it has no {MANIFEST_FILE}")),
        (Some(_), Some(_)) => return tampered(format!("{MANIFEST_FILE} is not a file")),
    };
    let bytes = match repo.blob_within(manifest_id, MAX_MANIFEST_BYTES)? {
        Ok(bytes) => bytes,
        Err(size) => {
            return tampered(format!("{MANIFEST_FILE} is {size} bytes, more than {MAX_MANIFEST_BYTES}"));
        }
    };
    let digest = manifest_digest(&bytes);
    if digest != key {
        let mut d = Difference::new(
            "held_out_published_tampered",
            format!("{MANIFEST_FILE} has changed: its sha256 is not the set's key"),
        );
        d.values = Some((key.to_owned(), digest));
        return Ok(Some(d));
    }
    let manifest = match HeldOutManifest::parse(&bytes) {
        Ok(manifest) => manifest,
        Err(e) => return tampered(format!("{MANIFEST_FILE}: {e}")),
    };
    if manifest.task != target {
        let mut d = Difference::new(
            "held_out_other_task",
            format!("its manifest was written for another task than {target}"),
        );
        d.values = Some((target.to_owned(), one_line(&manifest.task).into_owned()));
        return Ok(Some(d));
    }
    compare_files(repo, &view, &manifest)
}

/// `files/` of the set against the manifest's files ([`HeldOutManifest::compare_paths`], then
/// each blob's sha256 by [`crate::model::held_out::ManifestFile::compare`]).
fn compare_files(
    repo: &Repo,
    view: &crate::git::GitTree<'_>,
    manifest: &HeldOutManifest,
) -> Result<Option<Difference>, GitError> {
    let tampered = |what: String| Ok(Some(Difference::new("held_out_published_tampered", what)));
    let present = match (view.entry_kind(FILES_DIR)?, view.entry_id(FILES_DIR)?) {
        (Some(EntryKind::Tree), Some(id)) => match repo.files_below(id, MAX_SET_FILES)? {
            Ok(files) => files,
            Err(problem) => return tampered(format!("{FILES_DIR}/: {problem}")),
        },
        (None, _) | (_, None) => Vec::new(),
        (Some(_), Some(_)) => return tampered(format!("{FILES_DIR} is not a directory")),
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
            let mut d = Difference::new("held_out_published_tampered", difference.to_string());
            if let SetDifference::Changed { expected, found, .. } = difference {
                d.values = Some((expected, found));
            }
            return Ok(Some(d));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;

    const REF: &str = "refs/speccoder/held-out/u";

    /// A set for `task` holding `a.rs` (`text` as published; the manifest records `"A"`),
    /// committed at the top of the fixture's tree, and the held-out ref pointing at that commit.
    /// Its key.
    fn published(fx: &Fixture, task: &str, text: &str) -> String {
        let manifest = HeldOutManifest::new(task, None, &[("a.rs".to_owned(), b"A".to_vec())]).unwrap();
        let bytes = manifest.to_bytes();
        let key = sha256_hex(&bytes);
        fx.write(&format!("{key}/{MANIFEST_FILE}"), &bytes);
        fx.write(&format!("{key}/{FILES_DIR}/a.rs"), text);
        fx.git(&["add", "-A"]);
        let commit = fx.commit_file("README", "sets", "Publish");
        fx.git(&["update-ref", REF, &commit.to_string()]);
        key
    }

    #[test]
    fn an_intact_copy_of_the_ticks_own_set_holds_and_a_key_the_ref_lacks_is_no_failure() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        let sets = PublishedSets::read(&fx.repo()).unwrap();
        assert_eq!(sets.check(&fx.repo(), "u/T1", &key), None);
        assert_eq!(sets.check(&fx.repo(), "u/T1", &"b".repeat(64)), None);
        assert_eq!(sets.check(&fx.repo(), "other/T1", &key), None, "another unit's ref does not exist");
    }

    #[test]
    fn a_set_written_for_another_task_fails_the_tick_that_names_it() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        let found = PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T2", &key).unwrap();
        assert_eq!((found.outcome, found.code), (CommitOutcome::Mismatch, "held_out_other_task"));
        assert!(found.message.contains(REF) && found.message.contains(&key), "{found}");
        assert_eq!((found.expected.as_deref(), found.found.as_deref()), (Some("u/T2"), Some("u/T1")));
    }

    #[cfg(unix)]
    #[test]
    fn a_published_file_name_holding_control_characters_is_named_escaped() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        fx.write(&format!("{key}/{FILES_DIR}/x\u{1b}[2J\ny.rs"), "E");
        fx.git(&["add", "-A"]);
        fx.git(&["update-ref", REF, &fx.commit_file("README", "more", "Extra").to_string()]);
        let found = PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", &key).unwrap();
        assert!(!found.message.contains(['\u{1b}', '\n']), "{found:?}");
        assert!(found.message.contains("files/x\\u{1b}[2J\\ny.rs is not in the manifest"), "{found:?}");
    }

    #[test]
    fn a_changed_file_in_the_published_copy_fails_the_tick_naming_what_changed() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "B");
        let found = PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", &key).unwrap();
        assert_eq!(found.code, "held_out_published_tampered");
        assert!(found.message.contains("files/a.rs has changed"), "{found}");
        assert_eq!(found.found.as_deref(), Some(sha256_hex(b"B").as_str()));
    }

    #[test]
    fn an_extra_file_a_link_or_a_changed_manifest_in_the_published_copy_fails_the_tick() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        fx.write(&format!("{key}/{FILES_DIR}/extra.rs"), "E");
        fx.git(&["add", "-A"]);
        fx.git(&["update-ref", REF, &fx.commit_file("README", "more", "Extra").to_string()]);
        let found = PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", &key).unwrap();
        assert!(found.message.contains("files/extra.rs is not in the manifest"), "{found}");
        std::fs::remove_file(fx.path().join(format!("{key}/{FILES_DIR}/extra.rs"))).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", fx.path().join(format!("{key}/{FILES_DIR}/link")))
                .unwrap();
            fx.git(&["add", "-A"]);
            fx.git(&["update-ref", REF, &fx.commit_file("README", "link", "Link").to_string()]);
            let found = PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", &key).unwrap();
            assert!(found.message.contains("files/: link is a symbolic link"), "{found}");
            std::fs::remove_file(fx.path().join(format!("{key}/{FILES_DIR}/link"))).unwrap();
        }
        fx.git(&["add", "-A"]);
        fx.write(&format!("{key}/{MANIFEST_FILE}"), b"{}");
        fx.git(&["add", "-A"]);
        fx.git(&["update-ref", REF, &fx.commit_file("README", "manifest", "Manifest").to_string()]);
        let found = PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", &key).unwrap();
        assert!(found.message.contains("manifest.json has changed"), "{found}");
        assert_eq!(found.expected.as_deref(), Some(key.as_str()));
    }

    #[test]
    fn a_ref_naming_a_tree_is_named_with_what_to_do() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        let tree = fx.git(&["rev-parse", &format!("{REF}^{{tree}}")]);
        fx.git(&["update-ref", REF, tree.trim()]);
        let found = PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", &key).unwrap();
        assert_eq!(found.code, "held_out_ref_unreadable");
        assert!(found.message.contains(&format!("{REF} names a tree, not a commit")), "{found}");
    }

    #[test]
    fn without_a_held_out_ref_there_is_nothing_to_check() {
        let fx = Fixture::new();
        fx.commit_file("README", "x", "First");
        assert!(PublishedSets::read(&fx.repo()).unwrap().is_empty());
    }
}
