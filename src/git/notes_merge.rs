//! Merging another clone's notes into ours: a fast-forward when one side holds the other, else a
//! notes commit with both parents whose tree holds the union of both sides' notes, two notes of
//! one object joined by the caller's rule. The reference moves by compare-and-swap, so a writer
//! adding a note meanwhile is never overwritten: the merge is made again on top of it.

use gix::ObjectId;

use super::error::{GitError, GixResultExt};
use super::refs::CasUpdate;
use super::repo::Repo;

/// What merging notes did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum NotesMerged {
    /// Ours held theirs already (or both were the same): nothing moved.
    UpToDate,
    /// Ours was absent or an ancestor of theirs: ours now points at theirs.
    FastForward {
        /// The notes commit ours points at now.
        #[serde(serialize_with = "hex")]
        to: ObjectId,
    },
    /// Both had notes the other lacked: a notes commit with both parents.
    Merged {
        /// The merge commit.
        #[serde(serialize_with = "hex")]
        commit: ObjectId,
        /// Notes only theirs had, now ours too.
        added: usize,
        /// Objects both annotated differently, whose notes were joined.
        joined: usize,
    },
}

fn hex<S: serde::Serializer>(id: &ObjectId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&id.to_string())
}

/// Why notes could not be merged; in every case our notes reference did not move.
#[derive(Debug, thiserror::Error)]
pub enum MergeNotesError<E> {
    /// Objects whose two notes the rule could not join, each with the rule's reason.
    #[error("{} object(s) have notes that cannot be joined", .0.len())]
    Conflicts(Vec<(ObjectId, E)>),
    /// Reading or writing the repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
}

impl Repo {
    /// Merges the notes of `theirs_ref` (another clone's notes, fetched; a reference under
    /// `refs/notes/`) into `notes_ref`.
    ///
    /// Notes of objects only one side annotates are kept; an object both annotate with different
    /// notes gets `join(object, ours, theirs)`. When ours is absent or an ancestor of theirs,
    /// ours fast-forwards; when theirs is an ancestor of ours nothing changes; otherwise a notes
    /// commit with parents ours and theirs is written, with `message`.
    ///
    /// # Errors
    /// [`MergeNotesError::Conflicts`] listing every object whose notes `join` refused (nothing
    /// is written then), or a repository failure.
    pub fn merge_notes<E>(
        &self,
        notes_ref: &str,
        theirs_ref: &str,
        message: &str,
        mut join: impl FnMut(ObjectId, &[u8], &[u8]) -> Result<Vec<u8>, E>,
    ) -> Result<NotesMerged, MergeNotesError<E>> {
        self.check_notes_ref(notes_ref)?;
        self.check_notes_ref(theirs_ref)?;
        let Some(theirs) = self.ref_target(theirs_ref)? else {
            return Ok(NotesMerged::UpToDate);
        };
        let theirs_notes = self.notes(theirs_ref)?;
        self.update_ref_retrying(notes_ref, |ours| {
            let Some(ours) = ours else {
                return Ok(CasUpdate::Move {
                    new: theirs,
                    reflog: format!("notes: fast-forward to {theirs_ref}"),
                    then: NotesMerged::FastForward { to: theirs },
                });
            };
            if ours == theirs || self.is_ancestor(theirs, ours)? {
                return Ok(CasUpdate::Keep(NotesMerged::UpToDate));
            }
            if self.is_ancestor(ours, theirs)? {
                return Ok(CasUpdate::Move {
                    new: theirs,
                    reflog: format!("notes: fast-forward to {theirs_ref}"),
                    then: NotesMerged::FastForward { to: theirs },
                });
            }
            // The union, walking both sorted lists once.
            let ours_notes = self.notes(notes_ref)?;
            let mut edits: Vec<(ObjectId, ObjectId)> = Vec::new();
            let (mut added, mut joined) = (0, 0);
            let mut conflicts = Vec::new();
            let mut mine = ours_notes.iter().peekable();
            for (annotated, blob) in &theirs_notes {
                while mine.next_if(|(o, _)| o < annotated).is_some() {}
                match mine.peek() {
                    Some((o, b)) if o == annotated => {
                        if b != blob {
                            let (ours_bytes, theirs_bytes) = (self.blob(*b)?, self.blob(*blob)?);
                            match join(*annotated, &ours_bytes, &theirs_bytes) {
                                Ok(bytes) if bytes == ours_bytes => {}
                                Ok(bytes) => {
                                    edits.push((*annotated, self.write_blob(&bytes)?));
                                    joined += 1;
                                }
                                Err(e) => conflicts.push((*annotated, e)),
                            }
                        }
                    }
                    _ => {
                        edits.push((*annotated, *blob));
                        added += 1;
                    }
                }
            }
            if !conflicts.is_empty() {
                return Err(MergeNotesError::Conflicts(conflicts));
            }
            let action = || format!("merge the notes of {theirs_ref} into {notes_ref}");
            let tree = self.commit_tree(ours)?;
            let mut state = gix::note::plumbing::State::new(tree, &self.inner).during(action)?;
            for (annotated, blob) in &edits {
                state.edit(*annotated, Some(*blob), &self.inner).during(action)?;
            }
            let new_tree = state.write(&self.inner).during(action)?;
            let commit = self.create_commit_detached(&[ours, theirs], new_tree, message)?;
            Ok(CasUpdate::Move {
                new: commit,
                reflog: format!("notes: merged {theirs_ref}"),
                then: NotesMerged::Merged { commit, added, joined },
            })
        })
    }
}
