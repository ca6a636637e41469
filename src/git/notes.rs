//! Git notes: reading git's notes layout (flat or fanned out, any depth), listing every note in
//! one walk, and updating one note (or setting many in one notes commit) by compare-and-swap of
//! the notes reference with retries.
//!
//! A notes tree is hostile input: whoever can push to the notes ref wrote it. It is read as git
//! writes it (names in lowercase hex), each tree object at most once (a tree reached again is
//! refused, so the work is bounded by the objects stored, never by the paths through them), and a
//! lookup reads at most [`LOOKUP_TREES`] trees.

use std::collections::HashSet;

use gix::ObjectId;

use super::error::{GitError, GixResultExt};
use super::refs::{CAS_TRIES, CasUpdate, StuckLock, backoff, cas_edit};
use super::repo::Repo;
use super::tree::TreeItem;

/// The notes reference that holds every bundle (defined with the bundle format).
pub use crate::model::bundle::NOTES_REF;

use crate::model::bundle::MAX_NOTE_BYTES;

/// How many tree entries `notes` visits at most, over every distinct tree of the notes tree.
const LIST_BUDGET: usize = 20_000_000;

/// How many trees one lookup reads at most. It follows only the fan-out directory named by the
/// next two hex digits of the object id, so a tree git writes needs one per level (at most 20 for
/// SHA-1, 32 for SHA-256); the rest is room for names listed twice, which git never writes.
pub const LOOKUP_TREES: usize = 64;

/// The commit message of a notes commit that adds or replaces a note.
const ADDED_MESSAGE: &str = "Notes added by 'speccoder attest'\n";
/// The commit message of a notes commit that removes a note.
const REMOVED_MESSAGE: &str = "Notes removed by 'speccoder attest'\n";

/// What `update_note` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteOutcome {
    /// The new content equals the current one: nothing was written.
    Unchanged,
    /// The notes reference now points at this new notes commit.
    Written {
        /// The new notes commit.
        notes_commit: ObjectId,
    },
}

/// Why `update_note` failed: the caller's computation refused, or the repository did.
#[derive(Debug, thiserror::Error)]
pub enum UpdateNoteError<E: std::error::Error + 'static> {
    /// The caller's function returned an error; nothing was written.
    #[error(transparent)]
    Compute(E),
    /// Reading or writing the repository failed; the notes reference did not move.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// The object whose note `item` is, when it sits below the hex digits `prefix` (git: a regular
/// blob whose name completes the id).
fn note_at(item: &TreeItem, prefix: &[u8], hex_len: usize) -> Option<ObjectId> {
    if !item.mode.is_blob() || prefix.len() + item.name.len() != hex_len || !is_lower_hex(&item.name) {
        return None;
    }
    let mut hex = prefix.to_vec();
    hex.extend_from_slice(&item.name);
    ObjectId::from_hex(&hex).ok()
}

/// Whether a notes-tree entry is a fan-out directory (two lowercase hex digits, a tree, id not
/// complete).
fn is_fanout(item: &TreeItem, prefix: &[u8], hex_len: usize) -> bool {
    item.mode.is_tree() && item.name.len() == 2 && prefix.len() + 2 < hex_len && is_lower_hex(&item.name)
}

/// Whether `name` is lowercase hex digits, as git writes the names of a notes tree (`AB` or `Ab`
/// is not a fan-out directory and `ABC…` names no object).
fn is_lower_hex(name: &[u8]) -> bool {
    name.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Records `tree` as read; a tree read before is refused: git never writes one tree object at two
/// places of a notes tree, and re-reading it is how a few kilobytes of trees become millions of
/// entries.
fn first_visit(seen: &mut HashSet<ObjectId>, tree: ObjectId, notes_ref: &str) -> Result<(), GitError> {
    if seen.insert(tree) {
        Ok(())
    } else {
        Err(GitError::NotesTreeHostile {
            notes_ref: notes_ref.to_owned(),
            reason: format!("the tree {tree} is reached twice"),
        })
    }
}

impl Repo {
    /// Checks, before anything is written, that `notes_ref` can take a note: a name under
    /// `refs/notes/`, and the reference absent or pointing directly (not through a symbolic
    /// reference) at a commit.
    ///
    /// # Errors
    /// [`GitError::NotesRefUnusable`] naming the reference and what it points at.
    pub fn check_notes_ref(&self, notes_ref: &str) -> Result<(), GitError> {
        self.notes_head(notes_ref).map(drop)
    }

    /// The notes commit and its tree for `notes_ref`, `None` when the reference does not exist;
    /// a reference that cannot hold notes ([`Repo::check_notes_ref`]) is an error.
    fn notes_head(&self, notes_ref: &str) -> Result<Option<(ObjectId, ObjectId)>, GitError> {
        check_notes_ref_name(notes_ref)?;
        let unusable = |target: String, reason: String| GitError::NotesRefUnusable {
            name: notes_ref.to_owned(),
            target,
            reason,
        };
        let reference = match self.inner.try_find_reference(notes_ref) {
            Ok(Some(reference)) => reference,
            Ok(None) => return Ok(None),
            Err(e) => return Err(unusable("something unreadable".into(), e.to_string())),
        };
        let id = match reference.target() {
            gix::refs::TargetRef::Symbolic(to) => {
                return Err(unusable(to.as_bstr().to_string(), "it is a symbolic reference".into()));
            }
            gix::refs::TargetRef::Object(id) => id.to_owned(),
        };
        match self.inner.try_find_header(id) {
            Ok(Some(header)) if header.kind() == gix::object::Kind::Commit => {
                Ok(Some((id, self.commit_tree(id)?)))
            }
            Ok(Some(header)) => {
                Err(unusable(id.to_string(), format!("it points at a {}, not a notes commit", header.kind())))
            }
            Ok(None) => Err(unusable(id.to_string(), "it points at a missing object".into())),
            Err(e) => Err(unusable(id.to_string(), e.to_string())),
        }
    }

    /// The notes commit `commit` (when there is one) with its tree.
    fn notes_head_at(&self, commit: Option<ObjectId>) -> Result<Option<(ObjectId, ObjectId)>, GitError> {
        commit.map(|commit| Ok((commit, self.commit_tree(commit)?))).transpose()
    }

    /// The blob id of the note of `annotated` below notes tree `tree`.
    fn note_blob_in(
        &self,
        notes_ref: &str,
        tree: ObjectId,
        annotated: ObjectId,
    ) -> Result<Option<ObjectId>, GitError> {
        let hex = annotated.to_hex().to_string().into_bytes();
        let mut found = Vec::new();
        let mut seen = HashSet::new();
        let mut pending = vec![(tree, 0usize)];
        while let Some((tree, consumed)) = pending.pop() {
            first_visit(&mut seen, tree, notes_ref)?;
            if seen.len() > LOOKUP_TREES {
                return Err(GitError::NotesTreeHostile {
                    notes_ref: notes_ref.to_owned(),
                    reason: format!("finding the note of {annotated} takes more than {LOOKUP_TREES} trees"),
                });
            }
            let prefix = &hex[..consumed];
            for item in self.tree_items(tree)?.iter() {
                if note_at(item, prefix, hex.len()) == Some(annotated) {
                    found.push(item.id);
                } else if is_fanout(item, prefix, hex.len()) && *item.name == hex[consumed..consumed + 2] {
                    pending.push((item.id, consumed + 2));
                }
            }
        }
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            _ => Err(GitError::AmbiguousNote { notes_ref: notes_ref.to_owned(), annotated }),
        }
    }

    /// The note blob `blob` of `annotated`, when it is within [`MAX_NOTE_BYTES`] (its size read
    /// from the object's header first): a note any remote can write is never read beyond that.
    fn note_bytes(&self, notes_ref: &str, annotated: ObjectId, blob: ObjectId) -> Result<Vec<u8>, GitError> {
        self.blob_within(blob, MAX_NOTE_BYTES)?.map_err(|size| GitError::NoteTooLarge {
            notes_ref: notes_ref.to_owned(),
            annotated,
            size,
            limit: MAX_NOTE_BYTES,
        })
    }

    /// The note of `annotated` under `notes_ref`, byte for byte; `None` when it has none.
    ///
    /// # Errors
    /// [`GitError::NoteTooLarge`] for a note over [`MAX_NOTE_BYTES`], or a repository failure.
    pub fn note(&self, notes_ref: &str, annotated: ObjectId) -> Result<Option<Vec<u8>>, GitError> {
        let Some((_, tree)) = self.notes_head(notes_ref)? else {
            return Ok(None);
        };
        match self.note_blob_in(notes_ref, tree, annotated)? {
            Some(blob) => self.note_bytes(notes_ref, annotated, blob).map(Some),
            None => Ok(None),
        }
    }

    /// Every note under `notes_ref` as `(annotated object, note blob)`, sorted by annotated id, in
    /// one walk of the notes tree that reads each tree object once. An object listed twice has two
    /// notes (a damaged tree; git would show them concatenated): treat it as ambiguous.
    ///
    /// # Errors
    /// A tree reached twice or more than [`LIST_BUDGET`] entries ([`GitError::NotesTreeHostile`],
    /// [`GitError::NotesTreeTooLarge`]), or an unreadable object.
    pub fn notes(&self, notes_ref: &str) -> Result<Vec<(ObjectId, ObjectId)>, GitError> {
        let Some((_, tree)) = self.notes_head(notes_ref)? else {
            return Ok(Vec::new());
        };
        let hex_len = self.object_hash().len_in_hex();
        let mut out = Vec::new();
        let mut budget = LIST_BUDGET;
        let mut seen = HashSet::new();
        let mut pending = vec![(tree, Vec::new())];
        while let Some((tree, prefix)) = pending.pop() {
            first_visit(&mut seen, tree, notes_ref)?;
            let data = self.read_kind(tree, gix::object::Kind::Tree)?;
            for entry in gix::objs::TreeRefIter::from_bytes(&data, self.object_hash()) {
                let entry = entry.map_err(|e| GitError::CorruptObject {
                    id: tree,
                    kind: "tree",
                    reason: e.to_string(),
                })?;
                budget = budget.checked_sub(1).ok_or_else(|| GitError::NotesTreeTooLarge {
                    notes_ref: notes_ref.to_owned(),
                    limit: LIST_BUDGET,
                })?;
                let item = TreeItem {
                    name: entry.filename.to_vec().into_boxed_slice(),
                    mode: entry.mode,
                    id: entry.oid.to_owned(),
                };
                if let Some(annotated) = note_at(&item, &prefix, hex_len) {
                    out.push((annotated, item.id));
                } else if is_fanout(&item, &prefix, hex_len) {
                    let mut deeper = prefix.clone();
                    deeper.extend_from_slice(&item.name);
                    pending.push((item.id, deeper));
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Moves `branch_ref` from `expected_head` to the commit `new` (written already, with
    /// `message`, as [`Repo::advance_branch`] does) and makes `bytes` the note of `new` under
    /// `notes_ref`, in one reference transaction: both references are locked and checked before
    /// either moves, so the task commit and its note appear together or not at all.
    ///
    /// The notes reference is listed first, so that git commits it first: a process killed
    /// between the two leaves at most a note on a commit no branch holds, never a task commit
    /// without its note. When another writer moved the notes reference meanwhile, the note is
    /// made again on top of theirs and the transaction retried ([`CAS_TRIES`] times at most); the
    /// branch never moves alone.
    ///
    /// # Errors
    /// [`GitError::RefMoved`] when the branch moved meanwhile (nothing was published), a notes
    /// reference that cannot take a note ([`Repo::check_notes_ref`]), [`GitError::RefLocked`]
    /// when a lock of the notes reference, the branch, `HEAD` or the packed references stayed in
    /// place (unchanged for [`super::index::LOCK_WAIT`], it is not waited for longer),
    /// [`GitError::Contention`], or a failed read or write.
    pub fn advance_branch_with_note(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        new: ObjectId,
        message: &str,
        notes_ref: &str,
        bytes: &[u8],
    ) -> Result<ObjectId, GitError> {
        let branch_edit = self.branch_edit(branch_ref, expected_head, new, message)?;
        let blob = self.write_blob(bytes)?;
        let locks = [notes_ref, branch_ref, "HEAD"];
        let mut stuck = StuckLock::default();
        for tries in 0..CAS_TRIES {
            let head = self.notes_head(notes_ref)?;
            let tree = head.map_or_else(|| self.empty_tree_id(), |(_, tree)| tree);
            let current_blob = self.note_blob_in(notes_ref, tree, new)?;
            let notes_commit = self.write_notes_commit(notes_ref, head, current_blob, new, Some(blob))?;
            let reflog = format!("notes: {}", ADDED_MESSAGE.trim_end());
            let note_edit = cas_edit(notes_ref, head.map(|(commit, _)| commit), notes_commit, &reflog)?;
            let Err(source) = self.edit_refs([note_edit, branch_edit.clone()]) else {
                return Ok(notes_commit);
            };
            if self.ref_target(branch_ref)? != Some(expected_head) {
                return Err(self.ref_edit_error(source, branch_ref, Some(expected_head)));
            }
            let notes_moved = self.ref_target(notes_ref)? != head.map(|(commit, _)| commit);
            if source.is_permission_denied() {
                return Err(self.ref_edit_error(source, notes_ref, head.map(|(commit, _)| commit)));
            }
            if !(notes_moved || source.is_retryable()) {
                let action = format!("update references {branch_ref} and {notes_ref}");
                return Err(GitError::Gix { action, source });
            }
            if !notes_moved
                && let Some(held) = self.held_lock(&locks)
                && stuck.left_behind(&held)
            {
                return Err(held);
            }
            backoff(tries);
        }
        Err(self.exhausted(&locks))
    }

    /// Replace the note of `annotated` under `notes_ref` with what `f` computes from the current
    /// note (`None`: no note); `f` returning `None` removes the note. The bytes are stored exactly.
    /// The notes reference moves by compare-and-swap; when another writer moved it first, the
    /// notes are read again and `f` is called again ([`Repo::update_ref_retrying`]), so concurrent
    /// writers never lose each other's notes. Notes of other objects are untouched.
    pub fn update_note<E, F>(
        &self,
        notes_ref: &str,
        annotated: ObjectId,
        mut f: F,
    ) -> Result<NoteOutcome, UpdateNoteError<E>>
    where
        E: std::error::Error + 'static,
        F: FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>, E>,
    {
        self.check_notes_ref(notes_ref)?;
        self.update_ref_retrying(notes_ref, |parent| {
            let head = self.notes_head_at(parent)?;
            let tree = head.map_or_else(|| self.empty_tree_id(), |(_, tree)| tree);
            let current_blob = self.note_blob_in(notes_ref, tree, annotated)?;
            let current = current_blob.map(|id| self.note_bytes(notes_ref, annotated, id)).transpose()?;
            let wanted = f(current.as_deref()).map_err(UpdateNoteError::Compute)?;
            if wanted == current {
                return Ok(CasUpdate::Keep(NoteOutcome::Unchanged));
            }
            let new_blob = wanted.as_deref().map(|bytes| self.write_blob(bytes)).transpose()?;
            let notes_commit = self.write_notes_commit(notes_ref, head, current_blob, annotated, new_blob)?;
            let message = if wanted.is_some() { ADDED_MESSAGE } else { REMOVED_MESSAGE };
            Ok(CasUpdate::Move {
                new: notes_commit,
                reflog: format!("notes: {}", message.trim_end()),
                then: NoteOutcome::Written { notes_commit },
            })
        })
    }

    /// Set the notes of many objects under `notes_ref` in one notes commit: each `(annotated,
    /// bytes)` becomes the note of `annotated` (stored exactly, replacing any note it had; when an
    /// object is listed twice the last bytes win). Notes of other objects are untouched, and the
    /// tree is fanned out as git does. For bulk producers (a benchmark's synthetic repository, an
    /// import) where one notes commit per note would cost a tree rewrite each.
    ///
    /// The reference moves by compare-and-swap with the same retries as [`Repo::update_note`]:
    /// when another writer moved it first, the edits are applied again on top of its commit.
    pub fn set_notes(&self, notes_ref: &str, notes: &[(ObjectId, Vec<u8>)]) -> Result<NoteOutcome, GitError> {
        self.check_notes_ref(notes_ref)?;
        let blobs: Vec<(ObjectId, ObjectId)> = notes
            .iter()
            .map(|(annotated, bytes)| Ok((*annotated, self.write_blob(bytes)?)))
            .collect::<Result<_, GitError>>()?;
        let action = || format!("edit the notes tree of {notes_ref}");
        self.update_ref_retrying(notes_ref, |parent| {
            let tree = match self.notes_head_at(parent)? {
                Some((_, tree)) => tree,
                None => self.empty_tree_id(),
            };
            let mut state = gix::note::plumbing::State::new(tree, &self.inner).during(action)?;
            for (annotated, blob) in &blobs {
                state.edit(*annotated, Some(*blob), &self.inner).during(action)?;
            }
            let new_tree = state.write(&self.inner).during(action)?;
            if new_tree == tree {
                return Ok(CasUpdate::Keep(NoteOutcome::Unchanged));
            }
            let notes_commit = self.create_commit_detached(parent.as_slice(), new_tree, ADDED_MESSAGE)?;
            Ok(CasUpdate::Move {
                new: notes_commit,
                reflog: format!("notes: {}", ADDED_MESSAGE.trim_end()),
                then: NoteOutcome::Written { notes_commit },
            })
        })
    }

    /// Write the notes tree with `new_blob` as the note of `annotated` (`None`: no note) and a
    /// notes commit on top of `head`; return the commit.
    fn write_notes_commit(
        &self,
        notes_ref: &str,
        head: Option<(ObjectId, ObjectId)>,
        current_blob: Option<ObjectId>,
        annotated: ObjectId,
        new_blob: Option<ObjectId>,
    ) -> Result<ObjectId, GitError> {
        let (parent, tree) = match head {
            Some((commit, tree)) => (Some(commit), tree),
            None => (None, self.empty_tree_id()),
        };
        let action = || format!("edit the notes tree of {notes_ref}");
        let mut state = gix::note::plumbing::State::new(tree, &self.inner).during(action)?;
        let previous = state.edit(annotated, new_blob, &self.inner).during(action)?;
        if previous != current_blob {
            return Err(GitError::NotesLayout { notes_ref: notes_ref.to_owned(), annotated });
        }
        let new_tree = state.write(&self.inner).during(action)?;
        let message = if new_blob.is_some() { ADDED_MESSAGE } else { REMOVED_MESSAGE };
        self.create_commit_detached(parent.as_slice(), new_tree, message)
    }
}

/// Notes references live under `refs/notes/`, where git looks for them.
fn check_notes_ref_name(notes_ref: &str) -> Result<(), GitError> {
    if notes_ref.starts_with("refs/notes/") {
        Ok(())
    } else {
        Err(GitError::InvalidRefName {
            name: notes_ref.to_owned(),
            reason: "notes references live under refs/notes/".into(),
        })
    }
}
