//! What a clone must hold before a task commit's note is checked against that commit, by either
//! wing: a shallow clone must hold the commit's parent (its judge configuration is read there),
//! and the file contents a partial clone (`--filter=blob:none`) leaves on its promisor remote are
//! fetched first, in one batch (gix reads objects that are present and never fetches them one
//! by one). The verifier adds what the check of a history needs besides
//! (`verify::completeness`).

use std::collections::{HashMap, HashSet};

use gix::ObjectId;

pub use crate::git::ShallowCut;
use crate::git::{Commit, GitError, Repo};
use crate::model::bundle::NOTES_REF;
use crate::model::policy::CONFIG_FILE;

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
