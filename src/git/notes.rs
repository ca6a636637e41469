//! Git notes: reading git's notes layout (flat or fanned out, any depth), listing every note in
//! one walk, and updating one note (or setting many in one notes commit) by compare-and-swap of
//! the notes reference with retries.
//!
//! A notes tree is hostile input: whoever can push to the notes ref wrote it. It is read as git
//! reads it (`notes.c`): a note is a regular file (any permission bits) whose name completes the
//! annotated id in hex digits of either case, a fan-out directory is a tree named by two hex digits
//! of either case at any depth short of the whole id, and every other entry is no note. Two names
//! for one object (`ab…` and `AB…`, flat and fanned out) are two notes, which git shows joined:
//! the listing holds both and a lookup refuses the object as ambiguous. Each tree object is read
//! at most once (a tree reached again is
//! refused, so the work is bounded by the objects stored, never by the paths through them), and a
//! lookup reads at most [`LOOKUP_TREES`] trees.

use std::collections::HashSet;

use gix::ObjectId;

use super::error::{GitError, GixResultExt, NotesRefFault, access_refused, out_of_room};
use super::lock_wait::{Backoff, StuckLock};
use super::refs::{CAS_TRIES, CasUpdate, cas_edit};
use super::repo::Repo;
use super::tree::TreeItem;
use crate::model::shown::one_line;
use gix::bstr::ByteSlice;

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
    /// The note in place could not be read (its notes commit, tree or blob); nothing was written.
    #[error(transparent)]
    Read(GitError),
    /// Writing the repository failed; the notes reference did not move.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// The object whose note `item` is, when it sits below the hex digits `prefix` (git: a regular
/// blob whose name completes the id, in digits of either case).
fn note_at(item: &TreeItem, prefix: &[u8], hex_len: usize) -> Option<ObjectId> {
    if !item.mode.is_blob() || prefix.len() + item.name.len() != hex_len || !is_hex(&item.name) {
        return None;
    }
    let mut hex = prefix.to_vec();
    hex.extend_from_slice(&item.name);
    ObjectId::from_hex(&hex).ok()
}

/// Whether a notes-tree entry is a fan-out directory (two hex digits of either case, a tree, id
/// not complete).
fn is_fanout(item: &TreeItem, prefix: &[u8], hex_len: usize) -> bool {
    item.mode.is_tree() && item.name.len() == 2 && prefix.len() + 2 < hex_len && is_hex(&item.name)
}

/// Whether `name` is hex digits: git writes the names of a notes tree in lowercase but reads
/// either case (`AB` is a fan-out directory, `ABC…` names an object), and so does this.
fn is_hex(name: &[u8]) -> bool {
    name.iter().all(u8::is_ascii_hexdigit)
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
    /// [`GitError::NotesRefUnusable`] naming the reference and what it points at;
    /// [`GitError::CorruptObject`] naming a notes commit that cannot be read.
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
            fault: NotesRefFault::NotACommit,
        };
        let Some(reference) = self.find_reference(notes_ref)? else {
            return Ok(None);
        };
        let id = match reference.target() {
            gix::refs::TargetRef::Symbolic(to) => {
                return Err(GitError::NotesRefUnusable {
                    name: notes_ref.to_owned(),
                    target: to.as_bstr().to_string(),
                    reason: "it is a symbolic reference".into(),
                    fault: NotesRefFault::Symbolic,
                });
            }
            gix::refs::TargetRef::Object(id) => id.to_owned(),
        };
        // A notes commit the repository holds but cannot read is damage, not a wrong reference.
        match self.header(id) {
            Ok(header) if header.kind() == gix::object::Kind::Commit => Ok(Some((id, self.commit_tree(id)?))),
            Ok(header) => {
                Err(unusable(id.to_string(), format!("it points at a {}, not a notes commit", header.kind())))
            }
            Err(GitError::ObjectMissing { .. }) => {
                Err(unusable(id.to_string(), "it points at a missing object".into()))
            }
            Err(e) => Err(e),
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

    /// The note blob `blob` of `annotated`, when it is within `limit` bytes (its size read from
    /// the object's header first): a note any remote can write is never read beyond that.
    fn note_bytes(
        &self,
        notes_ref: &str,
        annotated: ObjectId,
        blob: ObjectId,
        limit: u64,
    ) -> Result<Vec<u8>, GitError> {
        self.blob_within(blob, limit)?.map_err(|size| GitError::NoteTooLarge {
            notes_ref: notes_ref.to_owned(),
            annotated,
            size,
            limit,
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
            Some(blob) => self.note_bytes(notes_ref, annotated, blob, MAX_NOTE_BYTES).map(Some),
            None => Ok(None),
        }
    }

    /// Every note under `notes_ref` as `(annotated object, note blob)`, sorted by annotated id, in
    /// one walk of the notes tree that reads each tree object once. An object listed twice has two
    /// notes (a damaged tree; git would show them concatenated): treat it as ambiguous. Entries
    /// that are no note are passed over, as git passes them over.
    ///
    /// # Errors
    /// A tree reached twice or more than [`LIST_BUDGET`] entries ([`GitError::NotesTreeHostile`],
    /// [`GitError::NotesTreeTooLarge`]), or an unreadable object.
    pub fn notes(&self, notes_ref: &str) -> Result<Vec<(ObjectId, ObjectId)>, GitError> {
        self.list_notes(notes_ref, false)
    }

    /// [`Repo::notes`] of a notes reference another clone wrote (fetched): its tree must hold
    /// notes and fan-out directories only. One that holds anything else (`src`, `README`) is no
    /// notes commit, whatever its reference's name says: a branch's commit, most likely, that a
    /// merge would make the parent of the notes history.
    ///
    /// # Errors
    /// [`GitError::NotANotesCommit`] naming the first other entry, or as [`Repo::notes`].
    pub fn notes_only(&self, notes_ref: &str) -> Result<Vec<(ObjectId, ObjectId)>, GitError> {
        self.list_notes(notes_ref, true)
    }

    /// [`Repo::notes`]; `strict`: an entry that is no note and no fan-out directory is refused.
    fn list_notes(&self, notes_ref: &str, strict: bool) -> Result<Vec<(ObjectId, ObjectId)>, GitError> {
        let Some((commit, tree)) = self.notes_head(notes_ref)? else {
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
                } else if strict {
                    let entry = format!("`{}`", one_line(&item.name.to_str_lossy()));
                    return Err(GitError::NotANotesCommit { notes_ref: notes_ref.to_owned(), commit, entry });
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Moves `branch_ref`, the branch HEAD named when the writer read it, from `expected_head`
    /// to the commit `new` (written already, with `message`, as [`Repo::advance_branch`] does)
    /// and makes `bytes` the note of `new` under `notes_ref`, in one reference transaction: both
    /// references, and HEAD, are locked and checked before either moves, so the task commit and
    /// its note appear together or not at all, and only on the branch HEAD still names.
    ///
    /// The notes reference is listed first, so that git commits it first: a process killed
    /// between the two leaves at most a note on a commit no branch holds, never a task commit
    /// without its note. When another writer moved the notes reference meanwhile, the note is
    /// made again on top of theirs and the transaction retried ([`CAS_TRIES`] times at most); the
    /// branch never moves alone.
    ///
    /// # Errors
    /// [`GitError::RefMoved`] when the branch moved meanwhile, [`GitError::HeadMoved`] when HEAD
    /// names another branch (or none) now (either way nothing was published), a notes
    /// reference that cannot take a note ([`Repo::check_notes_ref`]), [`GitError::RefLocked`]
    /// when a lock of the notes reference, the branch, `HEAD` or the packed references stayed in
    /// place (unchanged for [`super::lock_wait::LOCK_WAIT`], it is not waited for longer),
    /// [`GitError::Contention`], or a failed read or write: [`GitError::NoRoom`] at once, never
    /// retried, when the file system had no room for a reflog or reference, which may have left
    /// the note on `new` (the notes reference is written first).
    pub fn advance_branch_with_note(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        new: ObjectId,
        message: &str,
        notes_ref: &str,
        bytes: &[u8],
    ) -> Result<ObjectId, GitError> {
        let branch_edit = self.branch_edit(branch_ref, expected_head, new, message, true)?;
        let blob = self.write_blob(bytes)?;
        let locks = [notes_ref, branch_ref, "HEAD"];
        let (mut stuck, mut backoff) = (StuckLock::default(), Backoff::new());
        for _ in 0..CAS_TRIES {
            let head = self.notes_head(notes_ref)?;
            let tree = head.map_or_else(|| self.empty_tree_id(), |(_, tree)| tree);
            let current_blob = self.note_blob_in(notes_ref, tree, new)?;
            let notes_commit = self.write_notes_commit(notes_ref, head, current_blob, new, Some(blob))?;
            let reflog = format!("notes: {}", ADDED_MESSAGE.trim_end());
            let note_edit = cas_edit(notes_ref, head.map(|(commit, _)| commit), notes_commit, &reflog)?;
            let locked = self.lock_refs([note_edit, branch_edit.clone()]);
            // Under HEAD's lock once the references are locked; when they could not be, a HEAD
            // that moved is still the first thing to say (the edit through it found another branch).
            self.ensure_head_names(branch_ref)?;
            let Err(source) = locked.and_then(super::refs::LockedRefs::commit) else {
                return Ok(notes_commit);
            };
            if self.ref_target(branch_ref)? != Some(expected_head) {
                return Err(self.ref_edit_error(source, branch_ref, Some(expected_head)));
            }
            let notes_moved = self.ref_target(notes_ref)? != head.map(|(commit, _)| commit);
            if access_refused(&source) {
                return Err(self.ref_edit_error(source, notes_ref, head.map(|(commit, _)| commit)));
            }
            if out_of_room(&source) {
                // Never retried: the notes reference may have moved already, by this very update.
                let action = format!("update references {branch_ref} and {notes_ref}");
                return Err(GitError::gix(action, source, None));
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
            backoff.wait();
        }
        Err(self.exhausted(&locks))
    }

    /// Replace the note of `annotated` under `notes_ref` with what `f` computes from the current
    /// note (`None`: no note); `f` returning `None` removes the note. The bytes are stored exactly.
    /// The notes reference moves by compare-and-swap; when another writer moved it first, the
    /// notes are read again and `f` is called again ([`Repo::update_ref_retrying`]), so concurrent
    /// writers never lose each other's notes. Notes of other objects are untouched. A current
    /// note larger than [`MAX_NOTE_BYTES`] is not read ([`GitError::NoteTooLarge`]).
    pub fn update_note<E, F>(
        &self,
        notes_ref: &str,
        annotated: ObjectId,
        f: F,
    ) -> Result<NoteOutcome, UpdateNoteError<E>>
    where
        E: std::error::Error + 'static,
        F: FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>, E>,
    {
        self.update_note_within(notes_ref, annotated, MAX_NOTE_BYTES, f)
    }

    /// [`Repo::update_note`], reading a current note of up to `limit` bytes (`attest rejoin`
    /// reads a note git joined of several notes, each up to [`MAX_NOTE_BYTES`]).
    pub fn update_note_within<E, F>(
        &self,
        notes_ref: &str,
        annotated: ObjectId,
        limit: u64,
        mut f: F,
    ) -> Result<NoteOutcome, UpdateNoteError<E>>
    where
        E: std::error::Error + 'static,
        F: FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>, E>,
    {
        self.check_notes_ref(notes_ref)?;
        self.update_ref_retrying(notes_ref, |parent| {
            let read = UpdateNoteError::Read;
            let head = self.notes_head_at(parent).map_err(read)?;
            let tree = head.map_or_else(|| self.empty_tree_id(), |(_, tree)| tree);
            let current_blob = self.note_blob_in(notes_ref, tree, annotated).map_err(read)?;
            let current = current_blob.map(|id| self.note_bytes(notes_ref, annotated, id, limit)).transpose();
            let current = current.map_err(read)?;
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

#[cfg(test)]
mod tests {
    //! Notes: what we write, git shows byte for byte; what git writes (fanned out), we read and edit.

    use std::convert::Infallible;
    use std::fmt::Write as _;

    use crate::git::test_support::Fixture;
    use crate::git::{
        GitError, Joined, MergeNotesError, NOTES_REF, NoteOutcome, ObjectId, Repo, UpdateNoteError,
    };

    fn set(repo: &Repo, annotated: ObjectId, bytes: &[u8]) -> NoteOutcome {
        repo.update_note(NOTES_REF, annotated, |_| Ok::<_, Infallible>(Some(bytes.to_vec())))
            .expect("the note is written")
    }

    fn git_show(fx: &Fixture, annotated: ObjectId) -> Vec<u8> {
        fx.git_bytes(&["notes", "--ref=speccoder", "show", &annotated.to_string()], None)
    }

    /// `git notes list` as (annotated, note blob) pairs, sorted.
    fn git_list(fx: &Fixture) -> Vec<(ObjectId, ObjectId)> {
        let mut out: Vec<(ObjectId, ObjectId)> = fx
            .git(&["notes", "--ref=speccoder", "list"])
            .lines()
            .map(|line| {
                let (blob, annotated) = line.split_once(' ').unwrap();
                (
                    ObjectId::from_hex(annotated.as_bytes()).unwrap(),
                    ObjectId::from_hex(blob.as_bytes()).unwrap(),
                )
            })
            .collect();
        out.sort();
        out
    }

    /// Let `git fast-import` make `count - real.len()` commits on a side branch and write notes for
    /// them and for `real` in one commit of refs/notes/speccoder, fanned out as git sees fit (past 256
    /// notes per level). Returns the annotated commits; note `i` reads `git note {i}\n`.
    fn fast_import_notes(fx: &Fixture, real: &[ObjectId], count: usize) -> Vec<ObjectId> {
        let extra = count - real.len();
        let mut stream = String::new();
        for i in 0..extra {
            let message = format!("side {i}\n");
            write!(
            stream,
            "commit refs/heads/side\nmark :{}\ncommitter Git <git@example.com> {} +0000\ndata {}\n{message}\n",
            i + 1,
            1_600_000_000 + i,
            message.len()
        )
        .unwrap();
        }
        for i in 0..count {
            let body = format!("git note {i}\n");
            write!(stream, "blob\nmark :{}\ndata {}\n{body}\n", extra + i + 1, body.len()).unwrap();
        }
        let message = "Notes added by 'git fast-import'\n";
        write!(
            stream,
            "commit {NOTES_REF}\ncommitter Git <git@example.com> 1700000000 +0000\ndata {}\n{message}\n",
            message.len()
        )
        .unwrap();
        for (i, id) in real.iter().enumerate() {
            writeln!(stream, "N :{} {id}", extra + i + 1).unwrap();
        }
        for i in 0..extra {
            writeln!(stream, "N :{} :{}", extra + real.len() + i + 1, i + 1).unwrap();
        }
        stream.push_str("done\n");
        let marks = fx.path().join(".git/marks");
        let marks_arg = format!("--export-marks={}", marks.display());
        fx.git_bytes(&["fast-import", "--quiet", "--done", &marks_arg], Some(stream.as_bytes()));
        let exported = std::fs::read_to_string(&marks).unwrap();
        let mut by_mark = std::collections::HashMap::new();
        for line in exported.lines() {
            let (mark, id) = line.split_once(' ').unwrap();
            by_mark.insert(mark[1..].parse::<usize>().unwrap(), ObjectId::from_hex(id.as_bytes()).unwrap());
        }
        let mut annotated = real.to_vec();
        annotated.extend((0..extra).map(|i| by_mark[&(i + 1)]));
        annotated
    }

    #[test]
    fn a_note_we_write_is_shown_by_git_notes_byte_for_byte_and_fsck_is_clean() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let repo = fx.repo();
        // No final newline, a leading blank line, CRLF, trailing blanks, a tab: nothing is normalised.
        let bytes = b"\n{\"payload\":\"x\"}  \r\n\t{\"b\":1}\n\n{\"c\":2}";
        let outcome = set(&repo, commit, bytes);
        assert!(matches!(outcome, NoteOutcome::Written { .. }));
        assert_eq!(git_show(&fx, commit), bytes);
        assert_eq!(repo.note(NOTES_REF, commit).unwrap().as_deref(), Some(&bytes[..]));
        assert_eq!(
            fx.git(&["log", "-1", "--format=%s", NOTES_REF]).trim(),
            "Notes added by 'speccoder attest'"
        );
        assert!(fx.path().join(".git/logs/refs/notes/speccoder").exists(), "the notes ref has a reflog");
        fx.assert_fsck_clean();
    }

    #[test]
    fn replacing_a_note_keeps_history_and_leaves_other_notes_alone() {
        let fx = Fixture::new();
        let first = fx.commit_file("a.txt", "a\n", "first");
        let second = fx.commit_file("b.txt", "b\n", "second");
        let repo = fx.repo();
        set(&repo, first, b"one");
        set(&repo, second, b"two");
        let seen = std::cell::RefCell::new(Vec::new());
        repo.update_note(NOTES_REF, second, |current| {
            seen.borrow_mut().push(current.map(<[u8]>::to_vec));
            Ok::<_, Infallible>(Some(b"two, again".to_vec()))
        })
        .unwrap();
        assert_eq!(seen.into_inner(), vec![Some(b"two".to_vec())]);
        assert_eq!(git_show(&fx, first), b"one");
        assert_eq!(git_show(&fx, second), b"two, again");
        assert_eq!(fx.git(&["rev-list", "--count", NOTES_REF]).trim(), "3");
        fx.assert_fsck_clean();
    }

    #[test]
    fn an_unchanged_note_writes_nothing_and_a_refusing_computation_writes_nothing() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let repo = fx.repo();
        set(&repo, commit, b"same");
        let before = fx.rev(NOTES_REF);
        assert_eq!(set(&repo, commit, b"same"), NoteOutcome::Unchanged);
        let refused = repo.update_note(NOTES_REF, commit, |_| Err(std::fmt::Error));
        assert!(matches!(refused, Err(UpdateNoteError::Compute(std::fmt::Error))));
        assert_eq!(fx.rev(NOTES_REF), before);
    }

    #[test]
    fn removing_a_note_is_seen_by_git_and_the_last_removal_leaves_a_valid_empty_tree() {
        let fx = Fixture::new();
        let first = fx.commit_file("a.txt", "a\n", "first");
        let second = fx.commit_file("b.txt", "b\n", "second");
        let repo = fx.repo();
        set(&repo, first, b"one");
        set(&repo, second, b"two");
        repo.update_note(NOTES_REF, first, |_| Ok::<_, Infallible>(None)).unwrap();
        assert_eq!(git_list(&fx).len(), 1);
        assert_eq!(repo.note(NOTES_REF, first).unwrap(), None);
        repo.update_note(NOTES_REF, second, |_| Ok::<_, Infallible>(None)).unwrap();
        assert!(git_list(&fx).is_empty());
        assert_eq!(
            fx.git(&["log", "-1", "--format=%s", NOTES_REF]).trim(),
            "Notes removed by 'speccoder attest'"
        );
        fx.assert_fsck_clean();
    }

    #[test]
    fn notes_git_wrote_with_fanout_are_read_listed_and_one_is_updated_without_losing_the_others() {
        let fx = Fixture::new();
        let real = fx.commit_file("a.txt", "a\n", "first");
        let annotated = fast_import_notes(&fx, &[real], 600);
        let root = fx.git(&["ls-tree", NOTES_REF]);
        assert!(
            root.lines()
                .all(|l| l.ends_with(|c: char| c.is_ascii_hexdigit())
                    && l.split('\t').nth(1).unwrap().len() == 2),
            "git fanned the notes out: {root}"
        );
        let repo = fx.repo();
        let before = git_list(&fx);
        assert_eq!(before.len(), 600);
        assert_eq!(repo.notes(NOTES_REF).unwrap(), before);
        for (i, id) in annotated.iter().enumerate().step_by(97) {
            assert_eq!(repo.note(NOTES_REF, *id).unwrap().unwrap(), format!("git note {i}\n").into_bytes());
        }

        set(&repo, real, b"ours");
        assert_eq!(git_show(&fx, real), b"ours");
        let after = git_list(&fx);
        assert_eq!(after.len(), 600);
        let changed: Vec<_> = before.iter().zip(&after).filter(|(a, b)| a != b).collect();
        assert_eq!(changed.len(), 1, "only the one note changed");
        assert_eq!(changed[0].0.0, real);
        assert!(fx.git(&["ls-tree", "-r", "--name-only", NOTES_REF]).lines().all(|p| p.contains('/')));
        fx.assert_fsck_clean();
    }

    #[test]
    fn a_note_added_by_git_notes_add_is_read_and_replaced() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        fx.git(&["notes", "--ref=speccoder", "add", "-m", "from git", &commit.to_string()]);
        let repo = fx.repo();
        assert_eq!(repo.note(NOTES_REF, commit).unwrap().unwrap(), b"from git\n");
        set(&repo, commit, b"from us");
        assert_eq!(git_show(&fx, commit), b"from us");
        fx.assert_fsck_clean();
    }

    #[test]
    fn ten_thousand_notes_are_listed_in_one_walk() {
        let fx = Fixture::new();
        let real = fx.commit_file("a.txt", "a\n", "first");
        fast_import_notes(&fx, &[real], 10_000);
        let repo = fx.repo();
        let started = std::time::Instant::now();
        let listed = repo.notes(NOTES_REF).unwrap();
        let elapsed = started.elapsed();
        assert_eq!(listed.len(), 10_000);
        assert_eq!(listed, git_list(&fx));
        assert!(elapsed.as_secs() < 10, "listing took {elapsed:?}");
    }

    #[test]
    fn two_threads_writing_notes_for_different_objects_both_keep_all_of_theirs() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "first");
        let repo = fx.repo();
        let objects: Vec<ObjectId> =
            (0..50).map(|i| repo.write_blob(format!("object {i}\n").as_bytes()).unwrap()).collect();
        std::thread::scope(|scope| {
            for half in objects.chunks(25) {
                let path = fx.path().to_owned();
                scope.spawn(move || {
                    let repo = Repo::discover(&path).unwrap();
                    for id in half {
                        let body = format!("note of {id}");
                        repo.update_note(NOTES_REF, *id, |_| {
                            Ok::<_, Infallible>(Some(body.clone().into_bytes()))
                        })
                        .unwrap();
                    }
                });
            }
        });
        let listed = git_list(&fx);
        assert_eq!(listed.len(), 50);
        for id in &objects {
            assert_eq!(git_show(&fx, *id), format!("note of {id}").into_bytes());
        }
        assert_eq!(fx.git(&["rev-list", "--count", NOTES_REF]).trim(), "50", "no write was lost");
        fx.assert_fsck_clean();
    }

    #[test]
    fn a_notes_tree_holding_two_notes_for_one_object_is_reported_as_ambiguous() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let hex = commit.to_string();
        let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"n\n"));
        let blob = String::from_utf8(blob).unwrap();
        let sub = fx
            .git_bytes(&["mktree"], Some(format!("100644 blob {}\t{}\n", blob.trim(), &hex[2..]).as_bytes()));
        let root = fx.git_bytes(
            &["mktree"],
            Some(
                format!(
                    "100644 blob {b}\t{hex}\n040000 tree {s}\t{p}\n",
                    b = blob.trim(),
                    s = String::from_utf8(sub).unwrap().trim(),
                    p = &hex[..2]
                )
                .as_bytes(),
            ),
        );
        let root = String::from_utf8(root).unwrap();
        let notes_commit = fx.git(&["commit-tree", "-m", "odd", root.trim()]);
        fx.git(&["update-ref", NOTES_REF, notes_commit.trim()]);
        let repo = fx.repo();
        assert!(matches!(repo.note(NOTES_REF, commit), Err(GitError::AmbiguousNote { .. })));
        assert_eq!(repo.notes(NOTES_REF).unwrap().len(), 2, "the listing shows both");
        let update = repo.update_note(NOTES_REF, commit, |_| Ok::<_, Infallible>(Some(b"x".to_vec())));
        assert!(matches!(update, Err(UpdateNoteError::Read(GitError::AmbiguousNote { .. }))));

        // Fetched from a remote, such notes are merged into nothing: ours stay where they were.
        let ours = "refs/notes/ours";
        repo.update_note(ours, commit, |_| Ok::<_, Infallible>(Some(b"ours\n".to_vec()))).unwrap();
        let before = fx.git(&["rev-parse", ours]);
        let merged =
            repo.merge_notes(ours, NOTES_REF, "merge", |_, _, _| Ok::<_, Infallible>(Joined::Theirs));
        assert!(matches!(merged, Err(MergeNotesError::Git(GitError::AmbiguousNote { .. }))), "{merged:?}");
        assert_eq!(fx.git(&["rev-parse", ours]), before);
    }

    #[test]
    fn a_notes_ref_pointing_at_a_damaged_tree_is_an_error_not_a_panic() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let bad_tree = fx.git_bytes(
            &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
            Some(b"100644 no-nul-and-no-id"),
        );
        let bad_tree = String::from_utf8(bad_tree).unwrap();
        let notes_commit = fx.git(&["commit-tree", "-m", "broken", bad_tree.trim()]);
        fx.git(&["update-ref", NOTES_REF, notes_commit.trim()]);
        let repo = fx.repo();
        assert!(repo.note(NOTES_REF, commit).is_err());
        assert!(repo.notes(NOTES_REF).is_err());
        assert!(repo.update_note(NOTES_REF, commit, |_| Ok::<_, Infallible>(Some(vec![]))).is_err());

        let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"not a commit"));
        fx.git(&["update-ref", NOTES_REF, String::from_utf8(blob).unwrap().trim()]);
        let repo = fx.repo();
        assert!(matches!(repo.note(NOTES_REF, commit), Err(GitError::NotesRefUnusable { .. })));
    }

    #[test]
    fn a_damaged_notes_ref_file_is_unusable_with_advice_for_every_reader() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let file = fx.path().join(".git").join(NOTES_REF);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, "garbage\n").unwrap();
        let repo = fx.repo();
        let unusable =
            |result: Result<(), GitError>| matches!(result, Err(GitError::NotesRefUnusable { .. }));
        assert!(unusable(repo.note(NOTES_REF, commit).map(drop)));
        assert!(unusable(repo.ref_target(NOTES_REF).map(drop)));
        assert!(unusable(repo.check_notes_ref(NOTES_REF)));
    }

    #[test]
    fn notes_refs_outside_refs_notes_are_refused_for_writing() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let repo = fx.repo();
        let result = repo.update_note("refs/heads/main", commit, |_| Ok::<_, Infallible>(Some(vec![1])));
        assert!(matches!(result, Err(UpdateNoteError::Git(GitError::InvalidRefName { .. }))));
        assert_eq!(repo.note("refs/notes/absent", commit).unwrap(), None);
        assert!(repo.notes("refs/notes/absent").unwrap().is_empty());
    }

    #[test]
    fn a_writer_that_loses_the_race_reads_again_and_keeps_the_winners_note() {
        let fx = Fixture::new();
        let ours = fx.commit_file("a.txt", "a\n", "first");
        let theirs = fx.commit_file("b.txt", "b\n", "second");
        let repo = fx.repo();
        let other = fx.repo();
        let mut calls = 0;
        let outcome = repo
            .update_note(NOTES_REF, ours, |current| {
                calls += 1;
                if calls == 1 {
                    // Another writer moves the notes ref between our read and our swap.
                    set(&other, theirs, b"theirs");
                }
                assert_eq!(current, None);
                Ok::<_, Infallible>(Some(b"ours".to_vec()))
            })
            .unwrap();
        assert!(matches!(outcome, NoteOutcome::Written { .. }));
        assert_eq!(calls, 2, "the computation ran again on the fresh notes");
        assert_eq!(git_show(&fx, ours), b"ours");
        assert_eq!(git_show(&fx, theirs), b"theirs");
        assert_eq!(fx.git(&["rev-list", "--count", NOTES_REF]).trim(), "2");
        fx.assert_fsck_clean();
    }

    #[test]
    fn a_note_two_fanout_levels_deep_is_read_by_git_and_us_and_replaced_in_place() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let other = fx.commit_file("b.txt", "b\n", "second");
        let hex = commit.to_string();
        let deep = format!("{}/{}/{}", &hex[..2], &hex[2..4], &hex[4..]);
        let stream = format!(
            "commit {NOTES_REF}\ncommitter Git <git@example.com> 1700000000 +0000\ndata 5\ndeep\nM 100644 inline {deep}\ndata 10\ndeep note\n\ndone\n"
        );
        fx.git_bytes(&["fast-import", "--quiet", "--done"], Some(stream.as_bytes()));
        assert_eq!(git_show(&fx, commit), b"deep note\n", "git reads the deep layout");
        let repo = fx.repo();
        assert_eq!(repo.note(NOTES_REF, commit).unwrap().unwrap(), b"deep note\n");
        assert_eq!(repo.notes(NOTES_REF).unwrap().len(), 1);

        set(&repo, commit, b"replaced");
        set(&repo, other, b"other");
        assert_eq!(git_show(&fx, commit), b"replaced");
        assert_eq!(git_show(&fx, other), b"other");
        assert_eq!(git_list(&fx).len(), 2, "no second copy of the replaced note");
        assert_eq!(repo.notes(NOTES_REF).unwrap(), git_list(&fx));
        fx.assert_fsck_clean();
    }

    #[test]
    fn past_256_notes_we_fan_the_tree_out_as_git_does_and_git_reads_every_note() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "first");
        let repo = fx.repo();
        let objects: Vec<ObjectId> =
            (0..300).map(|i| repo.write_blob(format!("object {i}\n").as_bytes()).unwrap()).collect();
        for id in &objects {
            set(&repo, *id, id.to_string().as_bytes());
        }
        let root = fx.git(&["ls-tree", "--name-only", NOTES_REF]);
        assert!(root.lines().all(|name| name.len() == 2), "fanned out: {root}");
        assert_eq!(git_list(&fx).len(), 300);
        for id in objects.iter().step_by(37) {
            assert_eq!(git_show(&fx, *id), id.to_string().into_bytes());
        }
        fx.assert_fsck_clean();
    }

    #[test]
    fn many_notes_set_in_one_commit_are_read_by_git_and_leave_the_others_alone() {
        let fx = Fixture::new();
        let first = fx.commit_file("a.txt", "a\n", "first");
        let repo = fx.repo();
        set(&repo, first, b"kept\n");
        let objects: Vec<ObjectId> =
            (0..600).map(|i| repo.write_blob(format!("object {i}\n").as_bytes()).unwrap()).collect();
        let notes: Vec<(ObjectId, Vec<u8>)> =
            objects.iter().map(|id| (*id, format!("{{\"n\":\"{id}\"}}\n").into_bytes())).collect();
        let before = repo.ref_target(NOTES_REF).unwrap().unwrap();
        let outcome = repo.set_notes(NOTES_REF, &notes).unwrap();
        let NoteOutcome::Written { notes_commit } = outcome else { panic!("written: {outcome:?}") };
        assert_eq!(repo.commit(notes_commit).unwrap().parents, [before], "one commit on top of the old one");
        assert_eq!(git_list(&fx).len(), 601);
        assert_eq!(git_show(&fx, first), b"kept\n");
        for (id, bytes) in notes.iter().step_by(53) {
            assert_eq!(git_show(&fx, *id), *bytes);
            assert_eq!(repo.note(NOTES_REF, *id).unwrap().as_deref(), Some(&bytes[..]));
        }
        assert_eq!(repo.set_notes(NOTES_REF, &notes).unwrap(), NoteOutcome::Unchanged);
        assert!(matches!(repo.set_notes("refs/heads/x", &notes), Err(GitError::InvalidRefName { .. })));
        fx.assert_fsck_clean();
    }

    /// Whether git itself can read object `id`.
    fn git_has(fx: &Fixture, id: ObjectId) -> bool {
        fx.git_output(&["cat-file", "-e", &id.to_string()], None).status.success()
    }

    #[test]
    fn new_objects_are_written_loose_as_git_writes_them_and_no_pack_is_added() {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "a\n", "base");
        let packs = || std::fs::read_dir(fx.path().join(".git/objects/pack")).map_or(0, Iterator::count);
        let before = packs();
        let repo = fx.repo();
        let tree = repo.tree_from_files(&[("b.txt".to_owned(), b"b\n".to_vec())]).unwrap();
        let commit = repo.create_commit_detached(&[base], tree, "loose\n").unwrap();
        assert!(git_has(&fx, commit) && git_has(&fx, tree), "git reads what gix wrote");
        let loose = |id: ObjectId| {
            let hex = id.to_string();
            fx.path().join(".git/objects").join(&hex[..2]).join(&hex[2..]).is_file()
        };
        assert!(loose(commit) && loose(tree));
        let notes_commit = repo.advance_branch_with_note(
            "refs/heads/main",
            base,
            commit,
            "loose\n",
            NOTES_REF,
            b"the note\n",
        );
        assert_eq!(notes_commit.unwrap(), fx.rev(NOTES_REF));
        assert_eq!(git_show(&fx, commit), b"the note\n");
        assert_eq!(packs(), before, "no pack was added");
        fx.git(&["gc", "-q"]);
        assert_eq!(git_show(&fx, commit), b"the note\n", "git gc packs them later");
        fx.assert_fsck_clean();
    }

    /// A task commit on top of HEAD that no reference names yet (a new file).
    fn unreferenced_commit(fx: &Fixture, repo: &Repo, head: ObjectId) -> ObjectId {
        let tree = repo.tree_from_files(&[("task.txt".to_owned(), b"done\n".to_vec())]).unwrap();
        let commit = repo.create_commit_detached(&[head], tree, "Tick T001\n\nbody\n").unwrap();
        assert_eq!(fx.git(&["branch", "--contains", &commit.to_string()]), "", "no branch holds it yet");
        commit
    }

    /// The subject of the last reflog entry of `name`.
    fn last_reflog(fx: &Fixture, name: &str) -> String {
        fx.git(&["reflog", "show", "-1", "--format=%gs", name]).trim().to_owned()
    }

    #[test]
    fn a_commit_and_its_note_move_together_with_every_reflog_written() {
        let fx = Fixture::new();
        let head = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let commit = unreferenced_commit(&fx, &repo, head);

        let outcome = repo.advance_branch_with_note(
            "refs/heads/main",
            head,
            commit,
            "Tick T001\n\nbody\n",
            NOTES_REF,
            b"the note\n",
        );

        assert_eq!(outcome.unwrap(), fx.rev(NOTES_REF));
        assert_eq!(fx.rev("refs/heads/main"), commit);
        assert_eq!(git_show(&fx, commit), b"the note\n");
        assert_eq!(last_reflog(&fx, "refs/heads/main"), "commit: Tick T001");
        assert_eq!(last_reflog(&fx, "HEAD"), "commit: Tick T001");
        assert_eq!(last_reflog(&fx, NOTES_REF), "notes: Notes added by 'speccoder attest'");
        assert!(
            !fx.path().join(".git/HEAD.lock").exists()
                && !fx.path().join(".git/refs/notes/speccoder.lock").exists()
        );
        fx.assert_fsck_clean();
    }

    #[test]
    fn a_note_whose_notes_reference_moved_meanwhile_lands_on_top_with_the_branch_moved() {
        let fx = Fixture::new();
        let head = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let commit = unreferenced_commit(&fx, &repo, head);
        fx.git(&["notes", "--ref=speccoder", "add", "-m", "theirs", &head.to_string()]);
        let theirs = fx.rev(NOTES_REF);

        let outcome = repo.advance_branch_with_note(
            "refs/heads/main",
            head,
            commit,
            "Tick T001\n",
            NOTES_REF,
            b"ours\n",
        );

        let Ok(notes_commit) = outcome else { panic!("the note is written: {outcome:?}") };
        assert_eq!(fx.rev(&format!("{notes_commit}^")), theirs, "ours sits on top of theirs");
        assert_eq!(fx.rev("refs/heads/main"), commit);
        assert_eq!(git_show(&fx, head), b"theirs\n");
        assert_eq!(git_show(&fx, commit), b"ours\n");
        assert_eq!(last_reflog(&fx, "HEAD"), "commit: Tick T001");
        fx.assert_fsck_clean();
    }

    #[test]
    fn when_the_branch_moved_meanwhile_neither_reference_moves() {
        let fx = Fixture::new();
        let head = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let commit = unreferenced_commit(&fx, &repo, head);
        let other = fx.commit_file("b.txt", "b\n", "someone else's commit");

        let outcome = repo.advance_branch_with_note(
            "refs/heads/main",
            head,
            commit,
            "Tick T001\n",
            NOTES_REF,
            b"ours\n",
        );

        let Err(GitError::RefMoved { name, expected, found }) = outcome else {
            panic!("the branch moved: {outcome:?}")
        };
        assert_eq!((name.as_str(), expected, found), ("refs/heads/main", Some(head), Some(other)));
        assert_eq!(fx.rev("refs/heads/main"), other);
        assert!(!fx.git_output(&["rev-parse", "--verify", "-q", NOTES_REF], None).status.success());
        fx.assert_fsck_clean();
    }

    #[test]
    fn when_head_names_another_branch_now_no_reference_moves() {
        let fx = Fixture::new();
        let head = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let commit = unreferenced_commit(&fx, &repo, head);
        fx.git(&["branch", "other"]);
        fx.git(&["symbolic-ref", "HEAD", "refs/heads/other"]);

        let outcome = repo.advance_branch_with_note(
            "refs/heads/main",
            head,
            commit,
            "Tick T001\n",
            NOTES_REF,
            b"ours\n",
        );

        let Err(GitError::HeadMoved { expected, found }) = outcome else { panic!("HEAD moved: {outcome:?}") };
        assert_eq!((expected.as_str(), found.as_deref()), ("refs/heads/main", Some("refs/heads/other")));
        assert_eq!((fx.rev("refs/heads/main"), fx.rev("refs/heads/other")), (head, head));
        assert!(!fx.git_output(&["rev-parse", "--verify", "-q", NOTES_REF], None).status.success());
        assert!(!fx.path().join(".git/HEAD.lock").exists());
    }

    #[test]
    fn a_lock_file_a_stopped_writer_left_is_named_and_neither_reference_moves() {
        for stale in ["refs/notes/speccoder", "refs/heads/main", "HEAD"] {
            let fx = Fixture::new();
            let head = fx.commit_file("a.txt", "a\n", "base");
            let repo = fx.repo();
            let commit = unreferenced_commit(&fx, &repo, head);
            let lock = repo.ref_lock_path(stale);
            std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
            std::fs::write(&lock, "").unwrap();

            let outcome = repo.advance_branch_with_note(
                "refs/heads/main",
                head,
                commit,
                "Tick T001\n",
                NOTES_REF,
                b"ours\n",
            );

            let Err(err @ GitError::RefLocked { .. }) = outcome else {
                panic!("{stale}: the lock is named: {outcome:?}")
            };
            assert!(err.to_string().ends_with(&format!("remove {}", lock.display())), "{stale}: {err}");
            assert!(lock.is_absolute(), "{stale}: the lock is named by an absolute path");
            assert_eq!(fx.rev("refs/heads/main"), head, "{stale}: the branch stays");
            assert!(!fx.git_output(&["rev-parse", "--verify", "-q", NOTES_REF], None).status.success());
        }
    }
    #[test]
    fn a_packed_refs_lock_a_stopped_pack_refs_left_is_named_and_neither_reference_moves() {
        let fx = Fixture::new();
        let head = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let commit = unreferenced_commit(&fx, &repo, head);
        // `git pack-refs` killed while it held the lock leaves it; git's own updates of loose
        // references go on, gix's reference transaction waits for it.
        let lock = std::path::absolute(fx.path().join(".git/packed-refs.lock")).unwrap();
        std::fs::write(&lock, "").unwrap();

        let outcome = repo.advance_branch_with_note(
            "refs/heads/main",
            head,
            commit,
            "Tick T001\n",
            NOTES_REF,
            b"ours\n",
        );

        let Err(err @ GitError::RefLocked { .. }) = outcome else { panic!("the lock is named: {outcome:?}") };
        assert!(err.to_string().ends_with(&format!("remove {}", lock.display())), "{err}");
        assert_eq!(fx.rev("refs/heads/main"), head, "the branch stays");
        assert!(!fx.git_output(&["rev-parse", "--verify", "-q", NOTES_REF], None).status.success());

        let outcome =
            repo.update_note(NOTES_REF, head, |_| Ok::<_, std::convert::Infallible>(Some(b"x\n".to_vec())));
        let Err(UpdateNoteError::Git(err @ GitError::RefLocked { .. })) = outcome else {
            panic!("the lock is named: {outcome:?}")
        };
        assert!(err.to_string().ends_with(&format!("remove {}", lock.display())), "{err}");
    }

    /// `git mktree` of `text` (git's `ls-tree` format); the tree id.
    fn mktree(fx: &Fixture, text: &str) -> String {
        String::from_utf8(fx.git_bytes(&["mktree"], Some(text.as_bytes()))).unwrap().trim().to_owned()
    }

    /// A tree of directories written byte for byte, duplicate names kept (git never writes one).
    fn literal_tree(fx: &Fixture, entries: &[(&str, &str)]) -> String {
        let mut bytes = Vec::new();
        for (name, id) in entries {
            bytes.extend_from_slice(b"40000 ");
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
            bytes.extend_from_slice(&hex::decode(id).unwrap());
        }
        let args = ["hash-object", "-t", "tree", "--literally", "-w", "--stdin"];
        String::from_utf8(fx.git_bytes(&args, Some(&bytes))).unwrap().trim().to_owned()
    }

    /// Points the notes ref at a notes commit of `tree`.
    fn notes_tree(fx: &Fixture, tree: &str) {
        let notes_commit = fx.git(&["commit-tree", "-m", "hostile", tree]);
        fx.git(&["update-ref", NOTES_REF, notes_commit.trim()]);
    }

    /// A blob holding `text`; its id.
    fn blob(fx: &Fixture, text: &str) -> String {
        String::from_utf8(fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(text.as_bytes())))
            .unwrap()
            .trim()
            .to_owned()
    }

    #[test]
    fn a_notes_tree_reaching_one_tree_twice_is_refused_never_walked_again() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let hex = commit.to_string();
        let note = blob(&fx, "n\n");
        let sub = mktree(&fx, &format!("100644 blob {note}\t{}\n", &hex[2..]));
        // Sixteen fan-out directories, the note's own among them, all naming one subtree.
        let mut names: Vec<String> = (0..16).map(|i| format!("{:02x}", i * 16 + 1)).collect();
        names[0] = hex[..2].to_owned();
        names.sort();
        names.dedup();
        let text: String = names.iter().map(|n| format!("040000 tree {sub}\t{n}\n")).collect();
        notes_tree(&fx, &mktree(&fx, &text));
        let repo = fx.repo();
        let err = repo.notes(NOTES_REF).unwrap_err();
        assert!(matches!(err, GitError::NotesTreeHostile { .. }), "{err}");
        assert!(err.to_string().contains(&format!("the tree {sub} is reached twice")), "{err}");
        // A lookup follows one fan-out directory and reads the subtree once.
        assert_eq!(repo.note(NOTES_REF, commit).unwrap().as_deref(), Some(&b"n\n"[..]));

        // The note's own fan-out name listed twice, naming the same subtree: the lookup refuses too.
        notes_tree(&fx, &literal_tree(&fx, &[(&hex[..2], &sub), (&hex[..2], &sub)]));
        let err = fx.repo().note(NOTES_REF, commit).unwrap_err();
        assert!(matches!(err, GitError::NotesTreeHostile { .. }), "{err}");
    }

    #[test]
    fn names_are_read_as_git_reads_them_in_either_case_at_any_fanout_depth() {
        let fx = Fixture::new();
        let ids: Vec<String> =
            (0..4).map(|i| fx.commit_file("a.txt", format!("{i}\n"), &format!("c{i}")).to_string()).collect();
        let note = |i: usize| blob(&fx, &format!("note {i}\n"));
        let sub = |text: String| mktree(&fx, &text);
        let up = |s: &str| s.to_uppercase();
        // 0: the whole id in capitals at the root. 1: a fan-out directory and the rest in capitals.
        // 2: two levels of fan-out, mixed case. 3: lowercase, as git writes it.
        let one = sub(format!("100644 blob {}\t{}\n", note(1), up(&ids[1][2..])));
        let two_inner = sub(format!("100755 blob {}\t{}\n", note(2), &ids[2][4..]));
        let two = sub(format!("040000 tree {two_inner}\t{}\n", up(&ids[2][2..4])));
        // Entries git takes for no note: a symbolic link and a tree named by a whole id, a
        // directory named by two letters that are not hex, a file of another name.
        let junk = sub(format!("100644 blob {}\tREADME\n", note(9)));
        let mut root = format!(
            "100644 blob {}\t{}\n040000 tree {one}\t{}\n040000 tree {two}\t{}\n100644 blob {}\t{}\n",
            note(0),
            up(&ids[0]),
            up(&ids[1][..2]),
            &ids[2][..2],
            note(3),
            &ids[3]
        );
        write!(root, "120000 blob {}\t{}\n040000 tree {junk}\tzz\n", note(8), "f".repeat(40)).unwrap();
        write!(root, "040000 tree {junk}\t{}\n100644 blob {}\tREADME\n", "e".repeat(40), note(9)).unwrap();
        let mut names: Vec<&str> = root.lines().map(|l| l.split('\t').nth(1).unwrap()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), root.lines().count(), "no name twice");
        notes_tree(&fx, &mktree(&fx, &root));
        let repo = fx.repo();
        let listed = repo.notes(NOTES_REF).unwrap();
        assert_eq!(listed, git_list(&fx), "the notes git reads, and only those");
        assert_eq!(listed.len(), 4);
        for (i, id) in ids.iter().enumerate() {
            let id = ObjectId::from_hex(id.as_bytes()).unwrap();
            let expected = format!("note {i}\n").into_bytes();
            assert_eq!(repo.note(NOTES_REF, id).unwrap(), Some(expected.clone()));
            assert_eq!(git_show(&fx, id), expected);
        }
    }

    #[test]
    fn a_branch_s_commit_is_no_notes_commit_to_a_strict_listing_which_reads_git_s_notes_trees() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        fx.git(&["notes", "--ref", NOTES_REF, "add", "-m", "n", &commit.to_string()]);
        let repo = fx.repo();
        assert_eq!(repo.notes_only(NOTES_REF).unwrap(), repo.notes(NOTES_REF).unwrap());
        // The branch's history, as a symbolic reference to it would give it: its tree holds a.txt.
        let branch = fx.git(&["rev-parse", "HEAD"]);
        fx.git(&["update-ref", NOTES_REF, branch.trim()]);
        let branch = ObjectId::from_hex(branch.trim().as_bytes()).unwrap();
        let repo = fx.repo();
        let err = repo.notes_only(NOTES_REF).unwrap_err();
        assert!(
            matches!(&err, GitError::NotANotesCommit { commit, entry, .. } if *commit == branch && entry == "`a.txt`"),
            "{err}"
        );
        assert!(repo.notes(NOTES_REF).unwrap().is_empty(), "git's reading passes it over");
    }

    #[test]
    fn two_spellings_of_one_object_are_two_notes_refused_as_ambiguous_as_git_joins_them() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let hex = commit.to_string();
        let (ours, junk) = (blob(&fx, "ours\n"), blob(&fx, "junk\n"));
        let fanned = mktree(&fx, &format!("100644 blob {junk}\t{}\n", hex[2..].to_uppercase()));
        let trees = [
            format!("100644 blob {ours}\t{hex}\n100644 blob {junk}\t{}\n", hex.to_uppercase()),
            format!("100644 blob {ours}\t{hex}\n040000 tree {fanned}\t{}\n", &hex[..2]),
        ];
        for text in trees {
            notes_tree(&fx, &mktree(&fx, &text));
            let shown = String::from_utf8(git_show(&fx, commit)).unwrap();
            assert!(shown.contains("ours\n") && shown.contains("junk\n"), "git shows both, joined: {shown}");
            let repo = fx.repo();
            let err = repo.note(NOTES_REF, commit).unwrap_err();
            assert!(matches!(err, GitError::AmbiguousNote { annotated, .. } if annotated == commit), "{err}");
            assert_eq!(repo.notes(NOTES_REF).unwrap().iter().filter(|(a, _)| *a == commit).count(), 2);
        }
    }

    #[test]
    fn a_lookup_reads_at_most_its_budget_of_trees() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "first");
        let hex = commit.to_string();
        // The note's fan-out name listed 70 times, each naming a different subtree.
        let subs: Vec<String> = (0..70)
            .map(|i| mktree(&fx, &format!("100644 blob {}\tdecoy-{i}\n", blob(&fx, &format!("{i}\n")))))
            .collect();
        let entries: Vec<(&str, &str)> = subs.iter().map(|s| (&hex[..2], s.as_str())).collect();
        notes_tree(&fx, &literal_tree(&fx, &entries));
        let err = fx.repo().note(NOTES_REF, commit).unwrap_err();
        assert!(err.to_string().contains("takes more than 64 trees"), "{err}");
        // The listing reads each of them once and finds no note.
        assert!(fx.repo().notes(NOTES_REF).unwrap().is_empty());
    }
}
