//! Task lists read once per check: a verifier reads each task commit's list to find who set each
//! box (beside its parent's), then again for its check. [`TaskLists`] keeps one thread's latest
//! readings, and the unit documents it derived last; [`SharedTaskLists`] keeps readings for every
//! thread and pass of one check, within a byte budget.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::docs::{DocTexts, UnitDocs};
use super::error::SpecError;
use super::task_list::TaskList;
use super::tree::SourceTree;
use super::unit::{Format, UnitLoc};

/// How many task lists a [`TaskLists`] keeps. A verifier reads a commit's list for its check,
/// then again beside its parent's (the commit read before) to find who set each box; a merge
/// brings one more list per parent.
const KEPT: usize = 8;

/// How many unit documents a [`TaskLists`] keeps: a verifier checks one unit's task commits
/// together, each tick reading the same spec documents again.
const DOCS_KEPT: usize = 4;

/// How many bytes of text a unit's documents may hold for a [`TaskLists`] to keep them: larger
/// ones are derived anew each time, as before any was kept.
const DOCS_KEPT_BYTES: usize = super::SPEC_FILE_LIMIT;

/// How many bytes of readings a [`SharedTaskLists`] holds at most ([`TaskList::held_bytes`]):
/// every list of a history of a few hundred ticks in one unit of 200 tasks.
const SHARED_BYTES: usize = 8 << 20;

/// The task lists one thread read last, each parsed once: handed the same text in the same
/// format again, it gives back the reading it made. A verifier reads each task commit's list for
/// its check and again beside its parent's list to find which commit set each box, so without it
/// every list of a history would be parsed three times. It holds at most `KEPT` (8) lists, each at
/// most [`super::SPEC_FILE_LIMIT`] bytes, and looks in its [`SharedTaskLists`] (when it has one)
/// before making a reading; a text that differs from one it holds only by ticks is read from that
/// one instead of parsed (`TaskList::with_marks_of`). It keeps the documents of the units it was
/// asked for last too, at most `DOCS_KEPT` (4) of at most `DOCS_KEPT_BYTES` (1 MiB) of text each
/// ([`Self::docs`]).
#[derive(Default)]
pub struct TaskLists {
    /// The latest readings, the most recent first.
    recent: RefCell<VecDeque<Arc<TaskList>>>,
    /// The readings of every thread of the check, when shared.
    shared: Option<Arc<SharedTaskLists>>,
    /// The unit documents derived latest, the most recent first.
    docs: RefCell<VecDeque<Arc<UnitDocs>>>,
}

impl TaskLists {
    /// Task lists that look in `shared` before parsing, and leave what they parse there.
    #[must_use]
    pub fn sharing(shared: Arc<SharedTaskLists>) -> Self {
        TaskLists { shared: Some(shared), ..TaskLists::default() }
    }

    /// The documents of the unit at `loc`, read from `tree` each time ([`DocTexts::read`]): the
    /// ones derived lately from the same texts (format, paths and texts equal), with every fact
    /// found of them since, else derived anew ([`UnitDocs::derive`]) and kept as the most recent.
    pub(crate) fn docs(&self, tree: &dyn SourceTree, loc: &UnitLoc) -> Result<Arc<UnitDocs>, SpecError> {
        let texts = DocTexts::read(tree, loc)?;
        let mut recent = self.docs.borrow_mut();
        let known = recent.iter().position(|docs| docs.is_derived_from(&texts));
        if let Some(docs) = known.and_then(|at| recent.remove(at)) {
            recent.push_front(Arc::clone(&docs));
            return Ok(docs);
        }
        let keep = texts.text_bytes() <= DOCS_KEPT_BYTES;
        let docs = Arc::new(UnitDocs::derive(texts));
        if keep {
            recent.truncate(DOCS_KEPT - 1);
            recent.push_front(Arc::clone(&docs));
        }
        Ok(docs)
    }

    /// The reading of `text` as `format` ([`TaskList::read`]): the one kept when this text was
    /// read lately here or by another thread of the check, else a new one, then kept as the most
    /// recent. A new one is made from a recent reading of a text that differs only in task boxes'
    /// marks ([`TaskList::with_marks_of`]: a history's versions of one list differ by the ticks
    /// its commits make), and is parsed whole only when there is none.
    pub(crate) fn read(&self, text: String, format: Format) -> Arc<TaskList> {
        let mut recent = self.recent.borrow_mut();
        let known = recent.iter().position(|list| list.is_reading_of(&text, format));
        let list = match known.and_then(|at| recent.remove(at)) {
            Some(list) => list,
            None => {
                let make = |text| reading(&recent, text, format);
                match &self.shared {
                    Some(shared) => shared.read(text, format, make),
                    None => Arc::new(make(text)),
                }
            }
        };
        recent.truncate(KEPT - 1);
        recent.push_front(Arc::clone(&list));
        list
    }
}

/// A new reading of `text` as `format`: made from the first of `recent` that it differs from only
/// in task boxes' marks, else parsed.
fn reading(recent: &VecDeque<Arc<TaskList>>, mut text: String, format: Format) -> TaskList {
    for list in recent.iter().filter(|list| list.source().1 == format) {
        match list.with_marks_of(text) {
            Ok(made) => return made,
            Err(back) => text = back,
        }
    }
    TaskList::read(text, format)
}

/// The task lists every thread of one check parsed, for the others and for a later pass over the
/// same commits. It keeps every reading while all of them fit in `SHARED_BYTES` (8 MiB); the first
/// that does not fit lets them all go, and none is kept from then on. Holding part of a long
/// history would save that part's parses for the whole budget's memory, and a long history is
/// where the memory counts; a short one, parsed twice, is where the second parse is most of the
/// cost.
#[derive(Default)]
pub struct SharedTaskLists {
    /// The readings.
    kept: Mutex<Shared>,
    /// Not every reading fitted: none is kept.
    full: AtomicBool,
}

/// What [`SharedTaskLists`] holds.
#[derive(Default)]
struct Shared {
    /// The readings, by a hash of their text and format (a random key: a hostile text cannot
    /// aim at one bucket); equal hashes are told apart by the texts.
    by_text: HashMap<u64, Vec<Arc<TaskList>>>,
    /// The key of the hash.
    hasher: RandomState,
    /// [`TaskList::held_bytes`] of every reading kept.
    bytes: usize,
}

impl SharedTaskLists {
    /// The reading of `text` as `format`: the one kept, else a new one (`make`), kept while there
    /// is room. The lock is not held while a reading is made: two threads may read one text at
    /// once, and the first reading is the one kept.
    fn read(&self, text: String, format: Format, make: impl FnOnce(String) -> TaskList) -> Arc<TaskList> {
        if self.full.load(Ordering::Relaxed) {
            return Arc::new(make(text));
        }
        let hash = {
            let shared = self.lock();
            let hash = shared.hasher.hash_one((format, text.as_str()));
            if let Some(kept) = shared.find(hash, &text, format) {
                return kept;
            }
            hash
        };
        let list = Arc::new(make(text));
        let mut shared = self.lock();
        let (text, format) = list.source();
        if let Some(kept) = shared.find(hash, text, format) {
            return kept;
        }
        let bytes = shared.bytes.saturating_add(list.held_bytes());
        if bytes > SHARED_BYTES {
            self.full.store(true, Ordering::Relaxed);
            *shared = Shared::default();
        } else if !self.full.load(Ordering::Relaxed) {
            shared.bytes = bytes;
            shared.by_text.entry(hash).or_default().push(Arc::clone(&list));
        }
        list
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Shared {
    /// The reading of `text` as `format` kept under `hash`.
    fn find(&self, hash: u64, text: &str, format: Format) -> Option<Arc<TaskList>> {
        self.by_text.get(&hash)?.iter().find(|list| list.is_reading_of(text, format)).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tree::MemTree;
    use crate::spec::unit::locate_unit;

    #[test]
    fn a_task_list_read_again_is_the_reading_already_made_and_only_in_the_same_format() {
        let lists = TaskLists::default();
        let text = "- [x] T001 a\n- [ ] T002 b\n";
        let first = lists.read(text.to_owned(), Format::SpecKit);
        let again = lists.read(text.to_owned(), Format::SpecKit);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(again.ticked_ids(), ["T001"]);
        let other = lists.read(text.to_owned(), Format::OpenSpec);
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(other.ticked_ids().is_empty(), "T001 is no OpenSpec id");
        let edited = lists.read(text.replace("[ ] T002", "[x] T002"), Format::SpecKit);
        assert_eq!(edited.ticked_ids(), ["T001", "T002"]);
    }

    #[test]
    fn task_lists_keep_the_latest_few_and_read_an_older_one_anew() {
        let lists = TaskLists::default();
        let text = |i: usize| format!("- [x] T{i:03} task {i}\n");
        let first = lists.read(text(0), Format::SpecKit);
        let second = lists.read(text(1), Format::SpecKit);
        for i in 2..KEPT {
            lists.read(text(i), Format::SpecKit);
        }
        // Reading the first again makes it the most recent, so the next new one lets the second go.
        assert!(Arc::ptr_eq(&first, &lists.read(text(0), Format::SpecKit)));
        lists.read(text(KEPT), Format::SpecKit);
        assert!(Arc::ptr_eq(&first, &lists.read(text(0), Format::SpecKit)), "read lately, so kept");
        assert!(!Arc::ptr_eq(&second, &lists.read(text(1), Format::SpecKit)), "let go, so read anew");
        assert_eq!(lists.recent.borrow().len(), KEPT);
    }

    #[test]
    fn a_list_one_thread_read_is_not_parsed_again_by_another_sharing_it() {
        let shared = Arc::new(SharedTaskLists::default());
        let text = |i: usize| format!("- [x] T{i:03} task {i}\n");
        let first = TaskLists::sharing(Arc::clone(&shared));
        let readings: Vec<_> = (0..2 * KEPT).map(|i| first.read(text(i), Format::SpecKit)).collect();
        let second = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let other = TaskLists::sharing(Arc::clone(&shared));
                    (0..2 * KEPT).map(|i| other.read(text(i), Format::SpecKit)).collect::<Vec<_>>()
                })
                .join()
                .unwrap()
        });
        for (a, b) in readings.iter().zip(&second) {
            assert!(Arc::ptr_eq(a, b), "the reading the first thread made, though it let it go");
        }
        let apart = TaskLists::default().read(text(0), Format::SpecKit);
        assert!(!Arc::ptr_eq(&readings[0], &apart), "lists that do not share parse their own");
    }

    #[test]
    fn shared_task_lists_keep_every_reading_while_all_fit_and_none_once_one_does_not() {
        let shared = SharedTaskLists::default();
        let list = |i: usize| format!("- [x] T{i:03} {}\n", "a".repeat(100_000));
        let fit = SHARED_BYTES / TaskList::read(list(0), Format::SpecKit).held_bytes();
        let parse = |text| TaskList::read(text, Format::SpecKit);
        let kept: Vec<_> = (0..fit).map(|i| shared.read(list(i), Format::SpecKit, parse)).collect();
        for (i, reading) in kept.iter().enumerate() {
            assert!(
                Arc::ptr_eq(reading, &shared.read(list(i), Format::SpecKit, parse)),
                "all {fit} fit, so all are kept"
            );
        }
        let one_more = shared.read(list(fit), Format::SpecKit, parse);
        assert!(
            shared.lock().by_text.is_empty() && shared.lock().bytes == 0,
            "one more does not fit: all go"
        );
        assert!(
            !Arc::ptr_eq(&kept[0], &shared.read(list(0), Format::SpecKit, parse)),
            "and none is kept again"
        );
        assert!(!Arc::ptr_eq(&one_more, &shared.read(list(fit), Format::SpecKit, parse)));
    }

    /// The facts a task of `tree`'s unit `001-x` (or `chg`) cites and labels, as `docs` give them.
    fn facts_of(
        docs: &UnitDocs,
        story: Option<&str>,
        cites: &str,
    ) -> (String, Vec<(String, String)>, Vec<String>) {
        let section = docs.section(story).unwrap();
        let (found, unknown) = docs.citations(cites).unwrap();
        let found = found.into_iter().map(|r| (r.hash, r.body.unwrap_or_default())).collect();
        (section.hash, found, unknown)
    }

    #[test]
    fn a_unit_s_documents_read_again_with_the_same_texts_are_the_ones_derived_and_give_the_same_facts() {
        let spec = "## User Story 1 - One\none body\n## Requirements\n- **FR-001**: First\n  wrapped.\n- **FR-002**: Second.\n";
        let tree = |spec: &str| {
            MemTree::from_files([("specs/001-x/spec.md", spec), ("specs/001-x/tasks.md", "- [ ] T001 a\n")])
                .unwrap()
        };
        let lists = TaskLists::default();
        let first_tree = tree(spec);
        let loc = locate_unit(&first_tree, "001-x").unwrap();
        let first = lists.docs(&first_tree, &loc).unwrap();
        let fresh = UnitDocs::load(&first_tree, &loc).unwrap();
        let ask = |docs: &UnitDocs| facts_of(docs, Some("US1"), "Do it (FR-001, FR-002, FR-009)");
        assert_eq!(ask(&first), ask(&fresh));
        // Another tree holding the same text: the documents derived, with what was found of them.
        let again = lists.docs(&tree(spec), &loc).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(ask(&again), ask(&fresh));
        // A changed text is derived anew, and gives what a fresh derivation of it gives.
        let changed_tree = tree(&spec.replace("wrapped.", "rewrapped.").replace("one body", "one story"));
        let changed = lists.docs(&changed_tree, &loc).unwrap();
        assert!(!Arc::ptr_eq(&first, &changed));
        assert_eq!(ask(&changed), ask(&UnitDocs::load(&changed_tree, &loc).unwrap()));
        assert_ne!(ask(&changed), ask(&fresh));
        // The same text at another unit's path is that unit's own.
        let other =
            MemTree::from_files([("specs/002-y/spec.md", spec), ("specs/002-y/tasks.md", "")]).unwrap();
        let other_docs = lists.docs(&other, &locate_unit(&other, "002-y").unwrap()).unwrap();
        assert!(!Arc::ptr_eq(&first, &other_docs));
    }

    #[test]
    fn an_openspec_change_s_documents_are_kept_only_for_the_same_delta_paths_and_texts() {
        let delta = "## ADDED Requirements\n### Requirement: OTP\nUsers MUST give a code.\n";
        let tree = |path: &str, delta: &str| {
            MemTree::from_files([("openspec/changes/chg/tasks.md", "- [ ] 1.1 Do it\n"), (path, delta)])
                .unwrap()
        };
        let lists = TaskLists::default();
        let a = tree("openspec/changes/chg/specs/auth/spec.md", delta);
        let loc = locate_unit(&a, "chg").unwrap();
        let first = lists.docs(&a, &loc).unwrap();
        assert!(Arc::ptr_eq(
            &first,
            &lists.docs(&tree("openspec/changes/chg/specs/auth/spec.md", delta), &loc).unwrap()
        ));
        let moved = tree("openspec/changes/chg/specs/login/spec.md", delta);
        assert!(!Arc::ptr_eq(&first, &lists.docs(&moved, &loc).unwrap()), "another delta path");
        let reworded = tree("openspec/changes/chg/specs/auth/spec.md", &delta.replace("MUST", "MAY"));
        let derived = lists.docs(&reworded, &loc).unwrap();
        let ask = |docs: &UnitDocs| facts_of(docs, None, "Do it (OTP)");
        assert_eq!(ask(&derived), ask(&UnitDocs::load(&reworded, &loc).unwrap()));
        assert_ne!(ask(&derived), ask(&first));
    }

    #[test]
    fn task_lists_keep_the_latest_few_units_documents_and_derive_an_older_one_anew() {
        let lists = TaskLists::default();
        let unit = |i: usize| {
            let tree =
                MemTree::from_files([(format!("specs/{i:03}-u/spec.md"), format!("- **FR-{i:03}**: x\n"))])
                    .unwrap();
            let loc = locate_unit(&tree, &format!("{i:03}-u")).unwrap();
            lists.docs(&tree, &loc).unwrap()
        };
        let first = unit(1);
        for i in 2..=DOCS_KEPT {
            unit(i);
        }
        assert!(Arc::ptr_eq(&first, &unit(1)), "kept");
        for i in DOCS_KEPT + 1..=2 * DOCS_KEPT {
            unit(i);
        }
        assert!(!Arc::ptr_eq(&first, &unit(1)), "let go, so derived anew");
        assert_eq!(lists.docs.borrow().len(), DOCS_KEPT);
    }
}
