//! What a clone must hold before a task commit's note is checked against that commit, by either
//! wing: a shallow clone must hold the commit's parent (its judge configuration is read there),
//! and the file contents a partial clone (`--filter=blob:none`) leaves on its promisor remote are
//! fetched first, in one batch (gix reads objects that are present and never fetches them one
//! by one); and what a note on a commit the clone does not hold says of that commit, for both
//! wings to say alike. The verifier adds what the check of a history needs besides
//! (`verify::completeness`).

use std::collections::{HashMap, HashSet};

use gix::ObjectId;

pub use crate::git::ShallowCut;
use crate::git::{Commit, GitError, Repo};
use crate::model::bundle::{NOTES_REF, tracking_notes_ref};
use crate::model::policy::CONFIG_FILE;
use crate::model::shown::one_line;

/// The directories whose files a check reads at a task commit and at the head: Spec Kit
/// features, OpenSpec changes and bug homes.
const SPEC_DIRS: [&str; 3] = ["specs", "openspec/changes", ".specify/bugs"];

/// Readies the clone for the check of the one task commit `commit` against its own tree
/// (`attest sign`, `attest approve`), as `attest verify` readies it for the commits it checks:
/// a shallow clone without the commit's parent is refused ([`parents_here`]), and a partial
/// clone fetches what the check reads ([`fetch_what_the_check_reads`]).
///
/// # Errors
/// [`ShallowCut`], or the repository failed (the promisor remote unreachable).
pub fn ready_for<E: From<GitError> + From<ShallowCut>>(repo: &Repo, commit: &Commit) -> Result<(), E> {
    parents_here(&repo.shallow_boundary()?, &[commit.id])?;
    fetch_what_the_check_reads(repo, commit.tree, &[commit.id], &[])?;
    Ok(())
}

/// Refuses the check of task commits `commits` when one lies at the shallow `boundary` (sorted;
/// empty in a complete clone): its parent, where its judge configuration is read, is not here.
///
/// # Errors
/// [`ShallowCut`], naming the first such commit.
pub fn parents_here(boundary: &[ObjectId], commits: &[ObjectId]) -> Result<(), ShallowCut> {
    match commits.iter().find(|c| boundary.binary_search(c).is_ok()) {
        Some(c) => Err(ShallowCut {
            boundary: c.to_string(),
            why: format!(
                "the task commit {c} has no parent here (its judge configuration is read at the parent)"
            ),
        }),
        None => Ok(()),
    }
}

/// In a partial clone, fetches from the promisor remote, in one batch, every missing blob the
/// check of `commits` at `head_tree` reads: the notes of the commits, the spec files of each
/// commit's tree and of the head's, and `speccoder.toml` at each commit's parent, and the files
/// below each `(tree, dir)` of `dirs`. Nothing happens in a complete clone.
///
/// # Errors
/// The trees cannot be read, or the fetch fails (the promisor remote unreachable).
pub fn fetch_what_the_check_reads(
    repo: &Repo,
    head_tree: ObjectId,
    commits: &[ObjectId],
    dirs: &[(ObjectId, String)],
) -> Result<usize, GitError> {
    if repo.promisor_remote().is_none() {
        return Ok(0);
    }
    let notes: HashMap<ObjectId, ObjectId> = repo.notes(NOTES_REF)?.into_iter().collect();
    let mut seen = HashSet::new();
    let mut blobs = Vec::new();
    let mut trees = vec![head_tree];
    for commit in commits {
        if let Some(note) = notes.get(commit) {
            blobs.push(*note);
        }
        let commit = repo.commit(*commit)?;
        trees.push(commit.tree);
        if let Some(parent) = commit.parents.first()
            && let Ok(parent_tree) = repo.commit_tree(*parent)
        {
            repo.blobs_below(parent_tree, CONFIG_FILE, &mut seen, &mut blobs)?;
        }
    }
    for tree in trees {
        repo.blobs_below(tree, CONFIG_FILE, &mut seen, &mut blobs)?;
        for dir in SPEC_DIRS {
            repo.blobs_below(tree, dir, &mut seen, &mut blobs)?;
        }
    }
    for (tree, dir) in dirs {
        repo.blobs_below(*tree, dir, &mut seen, &mut blobs)?;
    }
    repo.fetch_missing_objects(&blobs)
}

/// What became of a commit this repository does not hold whose note names a task, as far as the
/// clone can tell: the notes a remote sent name it, or only notes written here do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoneCommit {
    /// Only the notes written here name it: it was here when its task was attested, so a
    /// rewrite left it behind and git removed it since.
    Removed,
    /// The notes fetched from these remotes name it: it may never have been in this clone (a
    /// branch or a fork not fetched here, a commit never pushed), or have been removed since.
    Fetched(Vec<String>),
}

impl GoneCommit {
    /// What became of `commit`, which this repository does not hold and whose note is in ours:
    /// [`GoneCommit::Fetched`] when the notes `attest fetch` brought from a remote (or `attest
    /// push` sent to it) hold a note of it ([`tracking_notes_ref`]), else [`GoneCommit::Removed`].
    #[must_use]
    pub fn of(repo: &Repo, commit: ObjectId) -> GoneCommit {
        let fetched: Vec<String> = repo
            .remote_names()
            .into_iter()
            .filter(|remote| repo.note(&tracking_notes_ref(remote), commit).is_ok_and(|n| n.is_some()))
            .collect();
        if fetched.is_empty() { GoneCommit::Removed } else { GoneCommit::Fetched(fetched) }
    }

    /// `commit` as a message names it: `<id>, a commit ...` and what became of it.
    #[must_use]
    pub fn said(&self, commit: ObjectId) -> String {
        match self {
            GoneCommit::Removed => format!(
                "{commit}, a commit no longer in the repository (a rewrite left it behind and git removed it since)"
            ),
            GoneCommit::Fetched(remotes) => format!(
                "{commit}, a commit this clone does not hold, named by the notes fetched from {} (never fetched here, or removed since)",
                remotes_named(remotes)
            ),
        }
    }
}

/// The configured remotes whose notes `attest fetch` brought here (or `attest push` sent): each
/// has a remote-tracking copy of the notes ([`tracking_notes_ref`]).
#[must_use]
pub fn notes_fetched_from(repo: &Repo) -> Vec<String> {
    let fetched = |remote: &String| repo.ref_target(&tracking_notes_ref(remote)).is_ok_and(|t| t.is_some());
    repo.remote_names().into_iter().filter(fetched).collect()
}

/// Remote names as a message lists them: `` `origin` ``, `` `origin`, `fork` ``.
#[must_use]
pub fn remotes_named(remotes: &[String]) -> String {
    remotes.iter().map(|r| format!("`{}`", one_line(r))).collect::<Vec<_>>().join(", ")
}
