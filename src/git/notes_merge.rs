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

/// How the caller's rule joined the two notes of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Joined {
    /// Ours, as it is.
    Ours,
    /// Theirs, as it is.
    Theirs,
    /// A note of both, these bytes.
    New(Vec<u8>),
}

impl Repo {
    /// Merges the notes of `theirs_ref` (another clone's notes, fetched; a reference under
    /// `refs/notes/` whose tree holds notes only, [`Repo::notes_only`]) into `notes_ref`, note by
    /// note, whichever way the histories relate.
    ///
    /// Notes of objects only theirs annotates are taken; an object both annotate with different
    /// notes gets `join(object, our blob, Some(their blob))`. When ours is an ancestor of theirs,
    /// theirs replaces ours only as far as the rule agrees: every note of ours is checked against
    /// theirs as in a merge (`join(object, our blob, None)` for one theirs no longer has), and
    /// ours fast-forwards when the rule takes theirs for each; otherwise a notes commit with
    /// parents ours and theirs holds what the rule joined. When ours is absent ours takes theirs;
    /// when theirs is an ancestor of ours nothing changes.
    ///
    /// # Errors
    /// [`MergeNotesError::Conflicts`] listing every object whose notes `join` refused (nothing
    /// is written then), [`GitError::NotANotesCommit`] for theirs, or a repository failure.
    pub fn merge_notes<E>(
        &self,
        notes_ref: &str,
        theirs_ref: &str,
        message: &str,
        mut join: impl FnMut(ObjectId, ObjectId, Option<ObjectId>) -> Result<Joined, E>,
    ) -> Result<NotesMerged, MergeNotesError<E>> {
        self.check_notes_ref(notes_ref)?;
        self.check_notes_ref(theirs_ref)?;
        let Some(theirs) = self.ref_target(theirs_ref)? else {
            return Ok(NotesMerged::UpToDate);
        };
        let theirs_notes = self.notes_only(theirs_ref)?;
        one_note_each(theirs_ref, &theirs_notes)?;
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
            let forward = self.is_ancestor(ours, theirs)?;
            let ours_notes = self.notes(notes_ref)?;
            one_note_each(notes_ref, &ours_notes)?;
            let plan = self.plan_notes_merge(&ours_notes, &theirs_notes, forward, &mut join)?;
            if forward && plan.edits.is_empty() {
                return Ok(CasUpdate::Move {
                    new: theirs,
                    reflog: format!("notes: fast-forward to {theirs_ref}"),
                    then: NotesMerged::FastForward { to: theirs },
                });
            }
            let action = || format!("merge the notes of {theirs_ref} into {notes_ref}");
            let tree = self.commit_tree(if forward { theirs } else { ours })?;
            let mut state = gix::note::plumbing::State::new(tree, &self.inner).during(action)?;
            for (annotated, blob) in &plan.edits {
                state.edit(*annotated, Some(*blob), &self.inner).during(action)?;
            }
            let new_tree = state.write(&self.inner).during(action)?;
            let commit = self.create_commit_detached(&[ours, theirs], new_tree, message)?;
            Ok(CasUpdate::Move {
                new: commit,
                reflog: format!("notes: merged {theirs_ref}"),
                then: NotesMerged::Merged { commit, added: plan.added, joined: plan.joined },
            })
        })
    }

    /// What merging `theirs` into `ours` (both sorted by annotated object) changes in the base:
    /// theirs when `forward` (ours is an ancestor of theirs), else ours.
    fn plan_notes_merge<E>(
        &self,
        ours: &[(ObjectId, ObjectId)],
        theirs: &[(ObjectId, ObjectId)],
        forward: bool,
        join: &mut impl FnMut(ObjectId, ObjectId, Option<ObjectId>) -> Result<Joined, E>,
    ) -> Result<MergePlan, MergeNotesError<E>> {
        let mut plan = MergePlan::default();
        let mut conflicts = Vec::new();
        let apply =
            |plan: &mut MergePlan, annotated: ObjectId, joined: Joined, ours: ObjectId, theirs: ObjectId| {
                let blob = match joined {
                    Joined::Ours if forward => ours,
                    Joined::Theirs if !forward => theirs,
                    Joined::Ours | Joined::Theirs => return Ok::<_, GitError>(()),
                    Joined::New(bytes) => self.write_blob(&bytes)?,
                };
                plan.edits.push((annotated, blob));
                plan.joined += 1;
                Ok(())
            };
        for (annotated, our_blob, their_blob) in paired(ours, theirs) {
            match (our_blob, their_blob) {
                (Some(ours), Some(theirs)) => match join(annotated, ours, Some(theirs)) {
                    Ok(joined) => apply(&mut plan, annotated, joined, ours, theirs)?,
                    Err(e) => conflicts.push((annotated, e)),
                },
                // Theirs no longer has a note of ours: a descendant removed it.
                (Some(ours), None) if forward => match join(annotated, ours, None) {
                    Ok(Joined::Ours) => {
                        plan.edits.push((annotated, ours));
                        plan.joined += 1;
                    }
                    Ok(_) => {}
                    Err(e) => conflicts.push((annotated, e)),
                },
                (Some(_), None) => {}
                (None, Some(theirs)) => {
                    plan.added += 1;
                    if !forward {
                        plan.edits.push((annotated, theirs));
                    }
                }
                (None, None) => {}
            }
        }
        if !conflicts.is_empty() {
            return Err(MergeNotesError::Conflicts(conflicts));
        }
        Ok(plan)
    }
}

/// Two notes lists sorted by annotated object, walked once together: each annotated object with
/// its note on our side and on theirs, leaving out an object both annotate with the same blob.
fn paired<'a>(
    ours: &'a [(ObjectId, ObjectId)],
    theirs: &'a [(ObjectId, ObjectId)],
) -> impl Iterator<Item = (ObjectId, Option<ObjectId>, Option<ObjectId>)> + 'a {
    let mut mine = ours.iter().peekable();
    let mut other = theirs.iter().peekable();
    std::iter::from_fn(move || {
        loop {
            match (mine.peek().copied(), other.peek().copied()) {
                (None, None) => return None,
                (Some(o), t) if t.is_none_or(|t| o.0 < t.0) => {
                    mine.next();
                    return Some((o.0, Some(o.1), None));
                }
                (o, Some(t)) if o.is_none_or(|o| o.0 > t.0) => {
                    other.next();
                    return Some((t.0, None, Some(t.1)));
                }
                (_, _) => {
                    let (Some(o), Some(t)) = (mine.next(), other.next()) else { return None };
                    if o.1 != t.1 {
                        return Some((o.0, Some(o.1), Some(t.1)));
                    }
                }
            }
        }
    })
}

/// Refuses a notes list (sorted) that holds two notes for one object (under two fan-out names):
/// a merge could neither join nor keep such a note as one, and a fast-forward to it would make
/// the object's note ambiguous for every reader.
fn one_note_each(notes_ref: &str, notes: &[(ObjectId, ObjectId)]) -> Result<(), GitError> {
    match notes.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        Some(pair) => Err(GitError::AmbiguousNote { notes_ref: notes_ref.to_owned(), annotated: pair[0].0 }),
        None => Ok(()),
    }
}

/// The notes a merge changes in its base tree.
#[derive(Default)]
struct MergePlan {
    /// `(annotated object, note blob)` to write over the base.
    edits: Vec<(ObjectId, ObjectId)>,
    /// Notes only theirs had.
    added: usize,
    /// Notes of both, joined.
    joined: usize,
}
