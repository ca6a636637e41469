//! Bringing one of our references up to date with another clone's copy of it: a three-way
//! decision between the value we fetched (or pushed) last time (the base), ours, and theirs now.
//! A side that did not change since the base takes the other's value, as far as the other can
//! reach it (a value of ours that theirs replaced rather than descends from is named, so that it
//! can be taken back): ours moves to anything, but theirs takes ours only by a push, which never forces, so
//! ours is kept only when it is new, deleted here, or a descendant of theirs. A value of ours that
//! does not descend from theirs (a skip undone and made again after it was pushed) is decided by
//! ancestry as when both moved. A fast-forward is taken; two histories that both moved are a
//! conflict.
//!
//! An append-only reference (published held-out sets: its tree is a union of independent
//! top-level entries, and nothing in it is ever removed) never moves back and never loses an
//! entry, whatever the remote did to its copy: ours takes theirs only when theirs descends from
//! ours, a remote deletion is not followed (a push sends ours again), and two histories, also one
//! the remote replaced by force, are joined by a commit whose tree holds the entries of both.
//! Our reference moves by compare-and-swap only.

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::error::{GitError, GixResultExt};
use super::refs::CasUpdate;
use super::repo::Repo;
use crate::model::held_out::special_to_git;
use crate::model::shown::{in_line, one_line};

/// What happened to our reference.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RefMerged {
    /// Ours and theirs are the same.
    UpToDate,
    /// Theirs did not change since we last fetched it, and ours did, to a value a push can send
    /// (new, or a descendant of theirs): ours stays.
    KeptOurs,
    /// Theirs did not change since we last fetched it, and ours was deleted here: it stays
    /// deleted here, and the remote keeps its copy (a push never deletes).
    DeletedHereOnly,
    /// Ours did not exist, or had not changed since we last fetched it: it now holds theirs.
    Took {
        /// The value taken.
        to: String,
    },
    /// Ours had not changed since we last fetched it, and theirs no longer descends from it (the
    /// remote's was replaced by force, or deleted and made again): it now holds theirs, and ours
    /// is named so that it can be taken back.
    Replaced {
        /// Ours before.
        from: String,
        /// The value taken.
        to: String,
    },
    /// Theirs was deleted, and ours had not changed since: ours is deleted too (never an
    /// append-only reference: ours is kept).
    Deleted,
    /// Ours is a descendant of theirs: nothing to do.
    AheadOfTheirs,
    /// Both moved; a commit with both parents joins their trees.
    Merged {
        /// The new commit.
        commit: String,
    },
    /// The two cannot be joined (both moved, or one is not a reference a merge can take); ours
    /// is unchanged.
    Conflict {
        /// Ours (`None`: deleted here).
        ours: Option<String>,
        /// Theirs (`None`: deleted there).
        theirs: Option<String>,
        /// Why they cannot be joined.
        #[serde(serialize_with = "in_line")]
        reason: String,
        /// Which kind of conflict, which decides how it is settled.
        #[serde(flatten)]
        kind: Unjoinable,
    },
}

/// Why our reference and the remote's cannot be joined, which decides how to settle it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unjoinable {
    /// Both sides moved since the last fetch: keep one of them.
    BothMoved,
    /// The remote's value is not one a merge can take (not a commit, or a tree entry git refuses):
    /// the remote's copy must be repaired or deleted there.
    DamagedThere,
    /// Our value is not a commit: ours must be repaired or deleted here.
    DamagedHere,
    /// The remote's reference is a symbolic reference: it was not fetched, as its value is that
    /// of the reference it names, which a push to it would move. Only whoever keeps the remote
    /// can remove the link alone (a push that deletes it deletes what it names too).
    SymbolicThere {
        /// The reference it names.
        #[serde(serialize_with = "in_line")]
        target: String,
    },
    /// The remote's reference has a name this clone cannot keep ([`Repo::cannot_keep`]): it was
    /// not fetched, and must be deleted or renamed there.
    NameUnusable,
    /// The remote's reference cannot exist here beside another of ours, one a directory of the
    /// other's name (git keeps references as files).
    NameTaken {
        /// Our reference in the way.
        #[serde(serialize_with = "in_line")]
        by: String,
    },
}

/// What a merge of a fetched reference is given, besides ours.
struct Fetched<'a> {
    /// Our reference.
    local: &'a str,
    /// Theirs when we last fetched or pushed it.
    base: Option<ObjectId>,
    /// Theirs now (`None`: deleted there).
    theirs: Option<ObjectId>,
    /// Whether the reference only ever gains entries (published held-out sets).
    append_only: bool,
    /// The message of a commit that joins two histories.
    message: &'a str,
    /// The reflog message of a move.
    reflog: String,
}

/// Ours stays: the two sides both moved and cannot be joined, for `reason`.
fn conflict(ours: Option<ObjectId>, theirs: Option<ObjectId>, reason: &str) -> CasUpdate<RefMerged> {
    unjoinable(ours, theirs, reason.to_owned(), Unjoinable::BothMoved)
}

/// Ours stays: the two sides cannot be joined, of `kind`, for `reason`.
fn unjoinable(
    ours: Option<ObjectId>,
    theirs: Option<ObjectId>,
    reason: String,
    kind: Unjoinable,
) -> CasUpdate<RefMerged> {
    CasUpdate::Keep(RefMerged::Conflict {
        ours: ours.map(|o| o.to_string()),
        theirs: theirs.map(|t| t.to_string()),
        reason,
        kind,
    })
}

impl Repo {
    /// Brings `local` up to date with another clone's copy, now `theirs` (`None`: deleted there),
    /// fetched last time as `base` (see the module documentation). `append_only`: the reference
    /// never moves back or loses an entry: theirs is taken only when it descends from ours, a
    /// deletion there leaves ours, and two histories are joined by a commit (with `message`) whose
    /// tree holds every top-level entry of both; they conflict only when one name holds different
    /// objects.
    ///
    /// # Errors
    /// A repository failure, or [`GitError::Contention`] when another writer kept moving `local`.
    pub fn merge_fetched_ref(
        &self,
        local: &str,
        base: Option<ObjectId>,
        theirs: Option<ObjectId>,
        append_only: bool,
        message: &str,
    ) -> Result<RefMerged, GitError> {
        let fetched = Fetched {
            local,
            base,
            theirs,
            append_only,
            message,
            reflog: format!("speccoder attest fetch: {local}"),
        };
        self.update_ref_retrying(local, |ours| self.merge_step(&fetched, ours))
    }

    /// The update of our reference, now `ours`: decided here when at most one side moved since
    /// the base, else by [`Self::both_moved`].
    fn merge_step(&self, f: &Fetched<'_>, ours: Option<ObjectId>) -> Result<CasUpdate<RefMerged>, GitError> {
        let theirs = f.theirs;
        if ours == theirs {
            return Ok(CasUpdate::Keep(RefMerged::UpToDate));
        }
        if let Some((reason, kind)) = self.cannot_take(f, ours)? {
            return Ok(unjoinable(ours, theirs, reason, kind));
        }
        // Theirs did not change since the base: ours stays when it is a creation, a deletion
        // (which stays ours) or a successor of theirs. A different value that does not
        // descend from theirs is not pushable (a push never forces): it is decided below
        // by ancestry, as when both moved.
        if theirs == f.base {
            match (ours, theirs) {
                (None, _) => return Ok(CasUpdate::Keep(RefMerged::DeletedHereOnly)),
                (_, None) => return Ok(CasUpdate::Keep(RefMerged::KeptOurs)),
                (Some(o), Some(t)) if self.is_ancestor(t, o)? => {
                    return Ok(CasUpdate::Keep(RefMerged::KeptOurs));
                }
                (Some(_), Some(_)) => {}
            }
        }
        match (ours, theirs) {
            // Deleted there: an append-only reference keeps what it holds, and a push sends
            // it again.
            (o, None) if o == f.base && !f.append_only => Ok(CasUpdate::Delete { then: RefMerged::Deleted }),
            (_, None) => Ok(CasUpdate::Keep(RefMerged::KeptOurs)),
            // Unchanged here: ours takes theirs, unless ours holds what theirs may lack (an
            // append-only reference the remote replaced by one that does not descend from
            // ours, by force or by a delete and a new push): that is decided by ancestry.
            (o, Some(t)) if o == f.base && (o.is_none() || !f.append_only) => {
                let then = match o {
                    Some(o) if !self.is_ancestor(o, t)? => {
                        RefMerged::Replaced { from: o.to_string(), to: t.to_string() }
                    }
                    _ => RefMerged::Took { to: t.to_string() },
                };
                Ok(CasUpdate::Move { new: t, reflog: f.reflog.clone(), then })
            }
            (None, Some(t)) => Ok(conflict(None, Some(t), "deleted here, changed there")),
            (Some(o), Some(t)) => self.both_moved(f, o, t),
        }
    }

    /// Why theirs (fetched, hostile) cannot be merged into `ours` at all, before any history is
    /// walked: a value that is not a commit (a blob, a tree), on either side; for an append-only
    /// reference, a top-level entry of theirs that git refuses in a tree (`.git`); a new reference
    /// whose name is taken by one of ours (`a/b` beside `a`, or `a` beside `a/b`).
    fn cannot_take(
        &self,
        f: &Fetched<'_>,
        ours: Option<ObjectId>,
    ) -> Result<Option<(String, Unjoinable)>, GitError> {
        let Some(theirs) = f.theirs else { return Ok(None) };
        if let Some(kind) = self.not_a_commit(theirs)? {
            let reason = format!("the remote's is {kind}, not a commit: its copy is damaged");
            return Ok(Some((reason, Unjoinable::DamagedThere)));
        }
        if let Some(kind) = ours.map(|o| self.not_a_commit(o)).transpose()?.flatten() {
            let reason = format!("the one here is {kind}, not a commit");
            return Ok(Some((reason, Unjoinable::DamagedHere)));
        }
        if f.append_only
            && let Some(name) = self.refused_entry(self.commit_tree(theirs)?)?
        {
            let reason =
                format!("the remote's holds an entry git refuses in a tree, {name}: its copy is damaged");
            return Ok(Some((reason, Unjoinable::DamagedThere)));
        }
        if ours.is_none()
            && let Some(by) = self.name_taken_by(f.local)?
        {
            let reason = Repo::name_taken(&by);
            return Ok(Some((reason, Unjoinable::NameTaken { by })));
        }
        Ok(None)
    }

    /// What `id` is (`a blob`, `a tree`, `a tag`, `a missing object`) when it is not a commit.
    fn not_a_commit(&self, id: ObjectId) -> Result<Option<String>, GitError> {
        match self.inner.try_find_header(id) {
            Ok(Some(header)) if header.kind() == gix::object::Kind::Commit => Ok(None),
            Ok(Some(header)) => Ok(Some(format!("a {}", header.kind()))),
            Ok(None) => Ok(Some("a missing object".to_owned())),
            Err(e) => Err(self.object_unreadable(id, "object", e)),
        }
    }

    /// The first top-level entry of `tree` that git refuses in a tree or takes for its own
    /// (`.git`, `GIT~1`, a name that is not UTF-8), quoted.
    fn refused_entry(&self, tree: ObjectId) -> Result<Option<String>, GitError> {
        Ok(self.tree_items(tree)?.iter().find_map(|item| {
            let refused = std::str::from_utf8(&item.name).map_or(true, |name| special_to_git(name).is_some());
            refused.then(|| format!("`{}`", one_line(&item.name.to_str_lossy())))
        }))
    }

    /// Both `ours` and `theirs` moved since the base (or ours moved to a value that does not
    /// descend from theirs): ours stays ahead or takes a successor; else an append-only
    /// reference joins the two trees in a commit, and any other is a conflict.
    fn both_moved(
        &self,
        f: &Fetched<'_>,
        ours: ObjectId,
        theirs: ObjectId,
    ) -> Result<CasUpdate<RefMerged>, GitError> {
        if self.is_ancestor(theirs, ours)? {
            return Ok(CasUpdate::Keep(RefMerged::AheadOfTheirs));
        }
        // A successor of ours is taken as it is, unless the reference is append-only and the
        // successor dropped or changed an entry ours holds: then it is joined as below.
        if self.is_ancestor(ours, theirs)? && (!f.append_only || self.keeps_every_entry(ours, theirs)?) {
            return Ok(CasUpdate::Move {
                new: theirs,
                reflog: f.reflog.clone(),
                then: RefMerged::Took { to: theirs.to_string() },
            });
        }
        if !f.append_only {
            return Ok(conflict(
                Some(ours),
                Some(theirs),
                if Some(theirs) == f.base {
                    "changed here since the last fetch or push to a value that does not descend from the remote's, and a push never replaces the remote's"
                } else {
                    "both sides changed it since the last fetch"
                },
            ));
        }
        let tree =
            match self.union_of_top_level_entries(self.commit_tree(ours)?, self.commit_tree(theirs)?)? {
                Ok(tree) => tree,
                Err(names) => {
                    let reason = format!("both sides hold different objects at {}", names.join(", "));
                    return Ok(conflict(Some(ours), Some(theirs), &reason));
                }
            };
        let commit = self.create_commit_detached(&[ours, theirs], tree, f.message)?;
        Ok(CasUpdate::Move {
            new: commit,
            reflog: f.reflog.clone(),
            then: RefMerged::Merged { commit: commit.to_string() },
        })
    }

    /// Whether the tree of commit `theirs` holds every top-level entry of the tree of commit
    /// `ours`, with the same object and mode.
    fn keeps_every_entry(&self, ours: ObjectId, theirs: ObjectId) -> Result<bool, GitError> {
        let theirs = self.tree_items(self.commit_tree(theirs)?)?;
        let kept = |m: &super::tree::TreeItem| {
            theirs.iter().any(|t| t.name == m.name && t.id == m.id && t.mode == m.mode)
        };
        Ok(self.tree_items(self.commit_tree(ours)?)?.iter().all(kept))
    }

    /// The tree holding every top-level entry of `ours` and `theirs`; `Err` with the names both
    /// hold with different objects or modes.
    fn union_of_top_level_entries(
        &self,
        ours: ObjectId,
        theirs: ObjectId,
    ) -> Result<Result<ObjectId, Vec<String>>, GitError> {
        let mine = self.tree_items(ours)?;
        let action = || "join two trees".to_owned();
        let mut editor = self.inner.edit_tree(ours).during(action)?;
        let mut clashes = Vec::new();
        for item in self.tree_items(theirs)? {
            match mine.iter().find(|m| m.name == item.name) {
                Some(m) if m.id == item.id && m.mode == item.mode => {}
                Some(_) => clashes.push(item.name.to_str_lossy().into_owned()),
                None => {
                    editor.upsert(item.name.as_bstr(), item.mode.kind(), item.id).during(action)?;
                }
            }
        }
        if !clashes.is_empty() {
            return Ok(Err(clashes));
        }
        Ok(Ok(editor.write().map(gix::Id::detach).during(action)?))
    }
}
