//! Git notes: reading git's notes layout (flat or fanned out, any depth), listing every note in
//! one walk, and updating one note (or setting many in one notes commit) by compare-and-swap of
//! the notes reference with retries.

use gix::ObjectId;
use gix::refs::transaction::RefEdit;

use super::error::{GitError, GixResultExt};
use super::refs::{CasUpdate, cas_edit};
use super::repo::Repo;
use super::tree::TreeItem;

/// The notes reference that holds every bundle (defined with the bundle format).
pub use crate::model::bundle::NOTES_REF;

/// How many tree entries `notes` visits at most (a notes tree can be built to explode when walked).
const LIST_BUDGET: usize = 20_000_000;

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

/// A new note whose blob, notes tree and notes commit are stored but whose reference has not
/// moved yet: made by [`Repo::prepare_note`], published by [`Repo::publish_note`] or together
/// with a branch by [`Repo::advance_branch_with_note`].
#[derive(Debug, Clone)]
#[must_use = "a prepared note is published only by Repo::publish_note"]
pub struct PreparedNote {
    notes_ref: String,
    annotated: ObjectId,
    bytes: Vec<u8>,
    /// The notes commit the new one was made on (`None`: the reference did not exist).
    base: Option<ObjectId>,
    notes_commit: ObjectId,
}

impl PreparedNote {
    /// The compare-and-swap of the notes reference that publishes this note.
    fn edit(&self) -> Result<RefEdit, GitError> {
        let reflog = format!("notes: {}", ADDED_MESSAGE.trim_end());
        cas_edit(&self.notes_ref, self.base, self.notes_commit, &reflog)
    }
}

/// Why [`Repo::advance_branch_with_note`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BranchNoteError {
    /// The branch did not move, so nothing was published.
    #[error(transparent)]
    Branch(GitError),
    /// The branch moved to the new commit, but its note could not be published.
    #[error(transparent)]
    Note(GitError),
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
    if !item.mode.is_blob() || prefix.len() + item.name.len() != hex_len {
        return None;
    }
    let mut hex = prefix.to_vec();
    hex.extend_from_slice(&item.name);
    ObjectId::from_hex(&hex).ok()
}

/// Whether a notes-tree entry is a fan-out directory (two hex digits, a tree, id not complete).
fn is_fanout(item: &TreeItem, prefix: &[u8], hex_len: usize) -> bool {
    item.mode.is_tree()
        && item.name.len() == 2
        && prefix.len() + 2 < hex_len
        && item.name.iter().all(u8::is_ascii_hexdigit)
}

impl Repo {
    /// The notes commit and its tree for `notes_ref`, `None` when the reference does not exist.
    fn notes_head(&self, notes_ref: &str) -> Result<Option<(ObjectId, ObjectId)>, GitError> {
        self.notes_head_at(self.ref_target(notes_ref)?)
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
        let mut pending = vec![(tree, 0usize)];
        while let Some((tree, consumed)) = pending.pop() {
            let prefix = &hex[..consumed];
            for item in self.tree_items(tree)?.iter() {
                if note_at(item, prefix, hex.len()) == Some(annotated) {
                    found.push(item.id);
                } else if is_fanout(item, prefix, hex.len())
                    && item.name.eq_ignore_ascii_case(&hex[consumed..consumed + 2])
                {
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

    /// The note of `annotated` under `notes_ref`, byte for byte; `None` when it has none.
    pub fn note(&self, notes_ref: &str, annotated: ObjectId) -> Result<Option<Vec<u8>>, GitError> {
        let Some((_, tree)) = self.notes_head(notes_ref)? else {
            return Ok(None);
        };
        match self.note_blob_in(notes_ref, tree, annotated)? {
            Some(blob) => self.blob(blob).map(Some),
            None => Ok(None),
        }
    }

    /// Every note under `notes_ref` as `(annotated object, note blob)`, sorted by annotated id, in
    /// one walk of the notes tree. An object listed twice has two notes (a damaged tree; git would
    /// show them concatenated): treat it as ambiguous.
    pub fn notes(&self, notes_ref: &str) -> Result<Vec<(ObjectId, ObjectId)>, GitError> {
        let Some((_, tree)) = self.notes_head(notes_ref)? else {
            return Ok(Vec::new());
        };
        let hex_len = self.object_hash().len_in_hex();
        let mut out = Vec::new();
        let mut budget = LIST_BUDGET;
        let mut pending = vec![(tree, Vec::new())];
        while let Some((tree, prefix)) = pending.pop() {
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

    /// Writes `bytes` as the note of `annotated` on top of the current notes commit without
    /// moving `notes_ref`, so that a writer can move its branch and the note together.
    ///
    /// # Errors
    /// A notes reference outside `refs/notes/`, or reading or writing the repository failed.
    pub fn prepare_note(
        &self,
        notes_ref: &str,
        annotated: ObjectId,
        bytes: Vec<u8>,
    ) -> Result<PreparedNote, GitError> {
        check_notes_ref(notes_ref)?;
        let head = self.notes_head(notes_ref)?;
        let tree = head.map_or_else(|| self.empty_tree_id(), |(_, tree)| tree);
        let current_blob = self.note_blob_in(notes_ref, tree, annotated)?;
        let notes_commit = self.write_notes_commit(notes_ref, head, current_blob, annotated, Some(&bytes))?;
        Ok(PreparedNote {
            notes_ref: notes_ref.to_owned(),
            annotated,
            bytes,
            base: head.map(|(commit, _)| commit),
            notes_commit,
        })
    }

    /// Moves the notes reference to the prepared notes commit by compare-and-swap. When another
    /// writer moved it since the note was prepared, the note is written again on top of theirs
    /// through [`Repo::update_note`], so neither note is lost.
    ///
    /// # Errors
    /// Writing failed, or the reference kept moving for [`crate::git::CAS_TRIES`] attempts.
    pub fn publish_note(&self, prepared: PreparedNote) -> Result<NoteOutcome, GitError> {
        match self.apply_ref_edit(prepared.edit()?, &prepared.notes_ref, prepared.base) {
            Ok(()) => Ok(NoteOutcome::Written { notes_commit: prepared.notes_commit }),
            Err(GitError::RefMoved { .. } | GitError::RefLocked { .. }) => self.republish_note(prepared),
            Err(other) => Err(other),
        }
    }

    /// Moves `branch_ref` from `expected_head` to the commit `new` (written already, with
    /// `message`, as [`Repo::advance_branch`] does) and publishes `note`, prepared on `new`, in one
    /// reference transaction: both references are locked and checked before either moves, and
    /// they move one right after the other, so the task commit and its note appear together.
    ///
    /// When the notes reference moved or was locked since the note was prepared (another writer's
    /// note), nothing has moved yet: the branch then moves alone, and the note is written again on
    /// top of the other writer's, as [`Repo::publish_note`] does.
    ///
    /// # Errors
    /// [`BranchNoteError::Branch`] when the branch did not move (nothing was published);
    /// [`BranchNoteError::Note`] when the branch moved but the note could not be published.
    pub fn advance_branch_with_note(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        new: ObjectId,
        message: &str,
        note: PreparedNote,
    ) -> Result<NoteOutcome, BranchNoteError> {
        let branch_edit =
            self.branch_edit(branch_ref, expected_head, new, message).map_err(BranchNoteError::Branch)?;
        let note_edit = note.edit().map_err(BranchNoteError::Branch)?;
        let Err(source) = self.edit_refs([branch_edit, note_edit]) else {
            return Ok(NoteOutcome::Written { notes_commit: note.notes_commit });
        };
        let moved = self.ref_target(branch_ref).map_err(BranchNoteError::Branch)?;
        if moved == Some(new) {
            // The transaction failed while committing, after the branch moved.
            return self.publish_note(note).map_err(BranchNoteError::Note);
        }
        if moved != Some(expected_head) {
            return Err(BranchNoteError::Branch(self.ref_edit_error(
                source,
                branch_ref,
                Some(expected_head),
            )));
        }
        if !(source.is_conflict() || source.is_not_found() || source.is_retryable()) {
            let action = format!("update references {branch_ref} and {}", note.notes_ref);
            return Err(BranchNoteError::Branch(GitError::Gix { action, source }));
        }
        // The branch is where it was, so the notes reference moved or one of the locks is held.
        self.advance_branch(branch_ref, expected_head, new, message).map_err(BranchNoteError::Branch)?;
        self.publish_note(note).map_err(BranchNoteError::Note)
    }

    /// Writes the note of a prepared note again on top of the current notes commit, with the
    /// retries of [`Repo::update_note`].
    fn republish_note(&self, prepared: PreparedNote) -> Result<NoteOutcome, GitError> {
        let PreparedNote { notes_ref, annotated, bytes, .. } = prepared;
        self.update_note(&notes_ref, annotated, |_| Ok::<_, std::convert::Infallible>(Some(bytes.clone())))
            .map_err(|e| match e {
                UpdateNoteError::Git(git) => git,
                UpdateNoteError::Compute(never) => match never {},
            })
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
        check_notes_ref(notes_ref)?;
        self.update_ref_retrying(notes_ref, |parent| {
            let head = self.notes_head_at(parent)?;
            let tree = head.map_or_else(|| self.empty_tree_id(), |(_, tree)| tree);
            let current_blob = self.note_blob_in(notes_ref, tree, annotated)?;
            let current = current_blob.map(|id| self.blob(id)).transpose()?;
            let wanted = f(current.as_deref()).map_err(UpdateNoteError::Compute)?;
            if wanted == current {
                return Ok(CasUpdate::Keep(NoteOutcome::Unchanged));
            }
            let notes_commit =
                self.write_notes_commit(notes_ref, head, current_blob, annotated, wanted.as_deref())?;
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
        check_notes_ref(notes_ref)?;
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

    /// Write the blob, the edited notes tree and a notes commit on top of `head`; return the commit.
    fn write_notes_commit(
        &self,
        notes_ref: &str,
        head: Option<(ObjectId, ObjectId)>,
        current_blob: Option<ObjectId>,
        annotated: ObjectId,
        wanted: Option<&[u8]>,
    ) -> Result<ObjectId, GitError> {
        let (parent, tree) = match head {
            Some((commit, tree)) => (Some(commit), tree),
            None => (None, self.empty_tree_id()),
        };
        let action = || format!("edit the notes tree of {notes_ref}");
        let mut state = gix::note::plumbing::State::new(tree, &self.inner).during(action)?;
        let new_blob = wanted.map(|bytes| self.write_blob(bytes)).transpose()?;
        let previous = state.edit(annotated, new_blob, &self.inner).during(action)?;
        if previous != current_blob {
            return Err(GitError::NotesLayout { notes_ref: notes_ref.to_owned(), annotated });
        }
        let new_tree = state.write(&self.inner).during(action)?;
        let message = if wanted.is_some() { ADDED_MESSAGE } else { REMOVED_MESSAGE };
        self.create_commit_detached(parent.as_slice(), new_tree, message)
    }
}

/// Notes references live under `refs/notes/`, where git looks for them.
fn check_notes_ref(notes_ref: &str) -> Result<(), GitError> {
    if notes_ref.starts_with("refs/notes/") {
        Ok(())
    } else {
        Err(GitError::InvalidRefName {
            name: notes_ref.to_owned(),
            reason: "notes references live under refs/notes/".into(),
        })
    }
}
