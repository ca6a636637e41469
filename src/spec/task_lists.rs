//! Task lists read once per check: a verifier reads each task commit's list to find who set each
//! box (beside its parent's), then again for its check. [`TaskLists`] keeps one thread's latest
//! readings; [`SharedTaskLists`] keeps readings for every thread and pass of one check, within a
//! byte budget.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::task_list::TaskList;
use super::unit::Format;

/// How many task lists a [`TaskLists`] keeps. A verifier reads a commit's list for its check,
/// then again beside its parent's (the commit read before) to find who set each box; a merge
/// brings one more list per parent.
const KEPT: usize = 8;

/// How many bytes of readings a [`SharedTaskLists`] holds at most ([`TaskList::held_bytes`]):
/// every list of a history of a few hundred ticks in one unit of 200 tasks.
const SHARED_BYTES: usize = 8 << 20;

/// The task lists one thread read last, each parsed once: handed the same text in the same
/// format again, it gives back the reading it made. A verifier reads each task commit's list for
/// its check and again beside its parent's list to find which commit set each box, so without it
/// every list of a history would be parsed three times. It holds at most `KEPT` (8) lists, each at
/// most [`super::SPEC_FILE_LIMIT`] bytes, and looks in its [`SharedTaskLists`] (when it has one)
/// before making a reading; a text that differs from one it holds only by ticks is read from that
/// one instead of parsed (`TaskList::with_marks_of`).
#[derive(Default)]
pub struct TaskLists {
    /// The latest readings, the most recent first.
    recent: RefCell<VecDeque<Arc<TaskList>>>,
    /// The readings of every thread of the check, when shared.
    shared: Option<Arc<SharedTaskLists>>,
}

impl TaskLists {
    /// Task lists that look in `shared` before parsing, and leave what they parse there.
    #[must_use]
    pub fn sharing(shared: Arc<SharedTaskLists>) -> Self {
        TaskLists { recent: RefCell::default(), shared: Some(shared) }
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
}
