//! The published copies of held-out sets: when `refs/speccoder/held-out/<unit>` holds the set a
//! tick names (its held_out line, its `Held-Out:` trailer), that copy must be the set the tick
//! names: its `manifest.json` hashes to the key, parses as a manifest written for the tick's own
//! task, and `files/` holds exactly the manifest's files, byte for byte. A ref that does not exist
//! or does not hold the key is no failure (publishing comes later). The ref and each set are read
//! as git reads them, by [`crate::check::held_out`], which `held-out publish` reads them with too.
//!
//! Each unit's ref is read once per run (its commit and top tree, when the checker is made); each
//! named set is checked once, whichever thread asks first. Without any such ref, making the
//! checker lists one ref prefix and nothing else.

use std::collections::HashMap;
use std::sync::Mutex;

use gix::ObjectId;

use crate::check::held_out::{
    Difference, PublishedCopy, RefSets, TAMPERED, published_sets, read_published_copy, read_set, top_advice,
};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::git::{GitError, Repo, delete_ref_command, set_ref_command};
use crate::model::dialect::Dialect;
use crate::model::refs::{HELD_OUT_PREFIX, held_out_ref};
use crate::model::shown::{one_line, shell_word};

/// One held-out ref as read once at the start of a run.
#[derive(Debug)]
enum Published {
    /// The sets its commit's tree holds: ours by key, the published speccoder's by task.
    Sets(RefSets),
    /// Its sets cannot be read or trusted: the finding's code and message.
    Refused(&'static str, String),
}

/// A copy checked: `(ref, key, task, the layout it was read in)`.
type Checked = (String, String, String, Dialect);

/// Every held-out ref of the repository, read once, and the sets checked so far.
#[derive(Debug, Default)]
pub(super) struct PublishedSets {
    /// By full ref name.
    refs: HashMap<String, Published>,
    /// What each copy's check found; shared by the threads of a run.
    checked: Mutex<HashMap<Checked, Option<Finding>>>,
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
    /// tick of `target` (`<unit>/<task>`), read in `dialect`'s shapes: `None` when it holds, or
    /// when no ref holds the key. A tick of the published speccoder ([`Dialect::Published`]) names
    /// a set that tool published under its task, when the ref holds none under the key.
    pub(super) fn check(&self, repo: &Repo, target: &str, key: &str, dialect: Dialect) -> Option<Finding> {
        let (unit, task) = target.split_once('/').unwrap_or((target, ""));
        let reference = held_out_ref(unit);
        let published = self.refs.get(&reference)?;
        let (tree, layout) = match published {
            Published::Refused(code, why) => return Some(finding(code, why.clone())),
            Published::Sets(sets) => match sets.by_key.get(key) {
                Some(tree) => (*tree, Dialect::Ours),
                None if dialect == Dialect::Published => (*sets.by_task.get(task)?, Dialect::Published),
                None => return None,
            },
        };
        let memo = (reference, key.to_owned(), target.to_owned(), layout);
        if let Some(found) = self.checked.lock().ok().and_then(|done| done.get(&memo).cloned()) {
            return found;
        }
        let found = match layout {
            Dialect::Ours => check_set(repo, &memo.0, key, tree, target),
            Dialect::Published => check_published_copy(repo, &memo.0, key, tree, target),
        };
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

/// The finding of `difference` in the published copy described by `at`, with its expected and
/// found values when it has them.
fn differs(at: &str, difference: Difference) -> Finding {
    let found = finding(difference.code, format!("{at}: {}", difference.what));
    match difference.values {
        Some((expected, seen)) => found.expected_found(expected, seen),
        None => found,
    }
}

/// The sets of the ref `name` pointing at `target`.
fn read_ref(repo: &Repo, name: &str, target: ObjectId) -> Published {
    let unreadable = |why: String| Published::Refused("held_out_ref_unreadable", why);
    // The name as one shell word in the commands advised: a fetched reference's name may hold `$(`.
    let name_w = shell_word(name);
    let tree = match repo.commit_tree(target) {
        Ok(tree) => tree,
        Err(GitError::WrongKind { found, .. }) => {
            return unreadable(format!(
                "{name} names a {found}, not a commit, so the held-out sets published there cannot be checked; point it at its last commit (`git reflog {name_w}`, then `{}`), or delete it (`{}`) and fetch or publish it again",
                set_ref_command(name, "<commit>"),
                delete_ref_command(name)
            ));
        }
        Err(e) => return unreadable(format!("{name} cannot be read: {e}")),
    };
    match published_sets(repo, tree) {
        Ok(Ok(sets)) => Published::Sets(sets),
        Ok(Err(problem)) => Published::Refused(
            TAMPERED,
            format!(
                "{name} is not as `speccoder held-out publish` writes it ({problem}), so no held-out set published there can be trusted; {}",
                top_advice(name, &problem)
            ),
        ),
        Err(e) => unreadable(format!("the tree of {name} cannot be read: {e}")),
    }
}

/// Checks the published set `key` of `reference` (its tree `tree`) against the tick of `target`.
fn check_set(repo: &Repo, reference: &str, key: &str, tree: ObjectId, target: &str) -> Option<Finding> {
    let at = format!("the published held-out set sha256:{key} in {reference}");
    let difference = match read_set(repo, key, tree) {
        Ok(Ok(manifest)) if manifest.task == target => return None,
        Ok(Ok(manifest)) => Difference {
            code: "held_out_other_task",
            what: format!("its manifest was written for another task than {target}"),
            values: Some((target.to_owned(), one_line(&manifest.task).into_owned())),
        },
        Ok(Err(difference)) => difference,
        Err(e) => {
            return Some(finding("held_out_published_unreadable", format!("{at} cannot be read: {e}")));
        }
    };
    Some(differs(&at, difference))
}

/// The finding of a copy the published speccoder published under a tick's task that this build
/// cannot tell is the set the tick names: not checked, and no failure (as a ref without the set).
pub const PUBLISHED_UNCHECKED: &str = "held_out_published_unchecked";

/// Checks the copy the published speccoder published of `target`'s task in `reference` (its tree
/// `tree`) against `key`, the set a tick of that tool names.
fn check_published_copy(
    repo: &Repo,
    reference: &str,
    key: &str,
    tree: ObjectId,
    target: &str,
) -> Option<Finding> {
    let task = target.split_once('/').map_or(target, |(_, task)| task);
    let at =
        format!("the held-out set the published speccoder published for {} in {reference}", one_line(task));
    let difference = match read_published_copy(repo, key, tree) {
        Ok(Ok(PublishedCopy::Named(manifest))) if manifest.target() == target => return None,
        Ok(Ok(PublishedCopy::Named(manifest))) => Difference {
            code: "held_out_other_task",
            what: format!("its manifest was written for another task than {target}"),
            values: Some((target.to_owned(), one_line(&manifest.target()).into_owned())),
        },
        Ok(Ok(PublishedCopy::Other(why))) => {
            let message = format!(
                "{at} is not checked: {why}; the tick names sha256:{key}, which this ref does not hold as far as this verifier can tell"
            );
            return Some(Finding::new(CommitOutcome::Ok, PUBLISHED_UNCHECKED, message));
        }
        Ok(Err(difference)) => difference,
        Err(e) => {
            return Some(finding("held_out_published_unreadable", format!("{at} cannot be read: {e}")));
        }
    };
    Some(differs(&at, difference))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;
    use crate::model::digest::sha256_hex;
    use crate::model::held_out::{FILES_DIR, HeldOutManifest, MANIFEST_FILE};

    const REF: &str = "refs/speccoder/held-out/u";

    /// Points the held-out ref at a new commit whose tree holds only the directory `key` of the
    /// work tree as staged now, as `held-out publish` writes it.
    fn point_ref(fx: &Fixture, key: &str) {
        fx.git(&["add", "-A"]);
        let staged = fx.git(&["write-tree"]);
        let set = fx.git(&["rev-parse", &format!("{}:{key}", staged.trim())]);
        let listing = format!("040000 tree {}\t{key}\n", set.trim());
        let top = String::from_utf8(fx.git_bytes(&["mktree"], Some(listing.as_bytes()))).unwrap();
        let commit = fx.git(&["commit-tree", "-m", "Publish", top.trim()]);
        fx.git(&["update-ref", REF, commit.trim()]);
    }

    /// A set for `task` holding `a.rs` (`text` as published; the manifest records `"A"`),
    /// published on the held-out ref. Its key.
    fn published(fx: &Fixture, task: &str, text: &str) -> String {
        let manifest = HeldOutManifest::new(task, None, &[("a.rs".to_owned(), b"A".to_vec())]).unwrap();
        let bytes = manifest.to_bytes();
        let key = sha256_hex(&bytes);
        fx.write(&format!("{key}/{MANIFEST_FILE}"), &bytes);
        fx.write(&format!("{key}/{FILES_DIR}/a.rs"), text);
        point_ref(fx, &key);
        key
    }

    /// What the check of `key` for the tick of `u/T1` finds.
    fn found(fx: &Fixture, key: &str) -> Finding {
        PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", key, Dialect::Ours).unwrap()
    }

    #[test]
    fn an_intact_copy_of_the_ticks_own_set_holds_and_a_key_the_ref_lacks_is_no_failure() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        let sets = PublishedSets::read(&fx.repo()).unwrap();
        assert_eq!(sets.check(&fx.repo(), "u/T1", &key, Dialect::Ours), None);
        assert_eq!(sets.check(&fx.repo(), "u/T1", &"b".repeat(64), Dialect::Ours), None);
        assert_eq!(
            sets.check(&fx.repo(), "other/T1", &key, Dialect::Ours),
            None,
            "another unit's ref does not exist"
        );
    }

    #[test]
    fn a_set_written_for_another_task_fails_the_tick_that_names_it() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        let found =
            PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T2", &key, Dialect::Ours).unwrap();
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
        point_ref(&fx, &key);
        let found = found(&fx, &key);
        assert!(!found.message.contains(['\u{1b}', '\n']), "{found:?}");
        assert!(found.message.contains("files/x\\u{1b}[2J\\ny.rs is not in the manifest"), "{found:?}");
    }

    #[test]
    fn a_changed_file_in_the_published_copy_fails_the_tick_naming_what_changed() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "B");
        let found = found(&fx, &key);
        assert_eq!(found.code, "held_out_published_tampered");
        assert!(found.message.contains("files/a.rs has changed"), "{found}");
        assert_eq!(found.found.as_deref(), Some(sha256_hex(b"B").as_str()));
    }

    #[test]
    fn an_extra_file_a_link_or_a_changed_manifest_in_the_published_copy_fails_the_tick() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        fx.write(&format!("{key}/{FILES_DIR}/extra.rs"), "E");
        point_ref(&fx, &key);
        let found = found(&fx, &key);
        assert!(found.message.contains("files/extra.rs is not in the manifest"), "{found}");
        std::fs::remove_file(fx.path().join(format!("{key}/{FILES_DIR}/extra.rs"))).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", fx.path().join(format!("{key}/{FILES_DIR}/link")))
                .unwrap();
            point_ref(&fx, &key);
            let found = self::found(&fx, &key);
            assert!(found.message.contains("files/: link is a symbolic link"), "{found}");
            std::fs::remove_file(fx.path().join(format!("{key}/{FILES_DIR}/link"))).unwrap();
        }
        fx.write(&format!("{key}/{MANIFEST_FILE}"), b"{}");
        point_ref(&fx, &key);
        let found = self::found(&fx, &key);
        assert!(found.message.contains("manifest.json has changed"), "{found}");
        assert_eq!(found.expected.as_deref(), Some(key.as_str()));
    }

    #[test]
    fn an_entry_beside_the_manifest_and_files_or_an_executable_file_fails_the_tick() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        fx.write(&format!("{key}/.gitattributes"), "* text eol=crlf\n");
        point_ref(&fx, &key);
        let found = found(&fx, &key);
        assert_eq!(found.code, "held_out_published_tampered");
        assert!(found.message.contains("it holds .gitattributes beside manifest.json and files/"), "{found}");
        std::fs::remove_file(fx.path().join(format!("{key}/.gitattributes"))).unwrap();
        fx.write_executable(&format!("{key}/{FILES_DIR}/a.rs"), "A");
        point_ref(&fx, &key);
        let found = self::found(&fx, &key);
        assert!(found.message.contains("files/: a.rs is executable"), "{found}");
    }

    #[test]
    fn a_ref_holding_anything_but_sets_at_its_top_fails_every_tick_of_the_unit_saying_what_to_do() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        let top = fx.git(&["rev-parse", &format!("{REF}^{{tree}}")]);
        let readme = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"hi\n"));
        let readme = String::from_utf8(readme).unwrap();
        let mut listing = fx.git(&["ls-tree", top.trim()]);
        listing.push_str(&format!("100644 blob {}\tREADME\n", readme.trim()));
        let top = String::from_utf8(fx.git_bytes(&["mktree"], Some(listing.as_bytes()))).unwrap();
        let commit = fx.git(&["commit-tree", "-m", "Stray", top.trim()]);
        fx.git(&["update-ref", REF, commit.trim()]);
        let found = found(&fx, &key);
        assert_eq!(found.code, "held_out_published_tampered");
        assert!(found.message.contains("its tree holds README, which is not a held-out set"), "{found}");
        assert!(found.message.contains(&format!("git update-ref --no-deref -d {REF}")), "{found}");
    }

    #[test]
    fn a_ref_naming_a_tree_is_named_with_what_to_do() {
        let fx = Fixture::new();
        let key = published(&fx, "u/T1", "A");
        let tree = fx.git(&["rev-parse", &format!("{REF}^{{tree}}")]);
        fx.git(&["update-ref", REF, tree.trim()]);
        let found = found(&fx, &key);
        assert_eq!(found.code, "held_out_ref_unreadable");
        assert!(found.message.contains(&format!("{REF} names a tree, not a commit")), "{found}");
    }

    /// A set as the published speccoder publishes it, under the store key `T1`: its own manifest
    /// for `task` of unit `u` naming `a.rs` of `"A"`, pretty-printed, and `files/a.rs` holding
    /// `text`, on the held-out ref. The digest its tick names.
    fn published_by_the_published_speccoder(fx: &Fixture, task: &str, text: &str) -> String {
        let manifest = serde_json::json!({
            "version": 1, "feature": "u", "task": task, "author_run": "r", "checkpoint": "c",
            "visible_scenarios": [],
            "files": [{ "path": "a.rs", "sha256": sha256_hex(b"A"), "scenarios": [], "argv": ["t"], "composition": false }],
            "discarded": []
        });
        let pretty = serde_json::to_vec_pretty(&manifest).unwrap();
        fx.write(&format!("T1/{MANIFEST_FILE}"), &pretty);
        fx.write(&format!("T1/{FILES_DIR}/a.rs"), text);
        point_ref(fx, "T1");
        crate::model::published_held_out::PublishedManifest::parse(&pretty).unwrap().digest()
    }

    #[test]
    fn the_published_speccoders_copy_under_its_task_is_checked_only_for_a_tick_read_in_its_shapes() {
        let fx = Fixture::new();
        let digest = published_by_the_published_speccoder(&fx, "T1", "A");
        let sets = PublishedSets::read(&fx.repo()).unwrap();
        assert_eq!(sets.check(&fx.repo(), "u/T1", &digest, Dialect::Published), None);
        assert_eq!(sets.check(&fx.repo(), "u/T1", &digest, Dialect::Ours), None, "no key of ours names it");
        let other = sets.check(&fx.repo(), "u/T1", &"b".repeat(64), Dialect::Published).unwrap();
        assert_eq!((other.outcome, other.code), (CommitOutcome::Ok, PUBLISHED_UNCHECKED));
        assert!(other.message.contains(&format!("gives sha256:{digest}")), "{other}");
        assert!(!other.message.contains(" -d "), "{other}");

        let digest = published_by_the_published_speccoder(&fx, "T1", "B");
        let sets = PublishedSets::read(&fx.repo()).unwrap();
        let tampered = sets.check(&fx.repo(), "u/T1", &digest, Dialect::Published).unwrap();
        assert_eq!((tampered.outcome, tampered.code), (CommitOutcome::Mismatch, TAMPERED));
        assert!(tampered.message.contains("files/a.rs has changed"), "{tampered}");

        let digest = published_by_the_published_speccoder(&fx, "T9", "A");
        let sets = PublishedSets::read(&fx.repo()).unwrap();
        let other_task = sets.check(&fx.repo(), "u/T1", &digest, Dialect::Published).unwrap();
        assert_eq!(other_task.code, "held_out_other_task");
        assert_eq!(other_task.found.as_deref(), Some("u/T9"));
    }

    #[test]
    fn a_stray_beside_the_published_speccoders_sets_is_never_advised_away_by_deleting_the_ref() {
        let fx = Fixture::new();
        let digest = published_by_the_published_speccoder(&fx, "T1", "A");
        let top = fx.git(&["rev-parse", &format!("{REF}^{{tree}}")]);
        let readme = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"hi\n"));
        let mut listing = fx.git(&["ls-tree", top.trim()]);
        listing.push_str(&format!("100644 blob {}\tREADME\n", String::from_utf8(readme).unwrap().trim()));
        let top = String::from_utf8(fx.git_bytes(&["mktree"], Some(listing.as_bytes()))).unwrap();
        let commit = fx.git(&["commit-tree", "-m", "Stray", top.trim()]);
        fx.git(&["update-ref", REF, commit.trim()]);
        let found =
            PublishedSets::read(&fx.repo()).unwrap().check(&fx.repo(), "u/T1", &digest, Dialect::Published);
        let found = found.unwrap();
        assert_eq!(found.code, TAMPERED);
        assert!(!found.message.contains(" -d ") && found.message.contains("do not delete it"), "{found}");
    }

    #[test]
    fn without_a_held_out_ref_there_is_nothing_to_check() {
        let fx = Fixture::new();
        fx.commit_file("README", "x", "First");
        assert!(PublishedSets::read(&fx.repo()).unwrap().is_empty());
    }
}
