//! What a clone may lack for the check of a history, said plainly instead of as evidence that
//! fails: history cut off by a shallow clone, and notes never fetched. What the check of each
//! task commit needs (its parent, the file contents it reads) is [`crate::check::completeness`],
//! which the producer shares; a trust or policy file read from a revision is fetched where it is
//! read (`check::trust::read_rev_file`).

use gix::ObjectId;

use crate::check::completeness::{ShallowCut, parents_here, remotes_named};
use crate::git::{Direction, Head, Repo};
use crate::model::bundle::NOTES_REF;
use crate::model::shown::one_line;
use crate::verify::error::VerifyError;

/// The `note_missing` message of a task commit whose note is in none of the notes fetched from
/// `remotes` (nor in ours, where they were merged), `aside` said of those notes: the clone that
/// attested it pushed the note elsewhere, or not yet, which this clone cannot tell apart.
#[must_use]
pub fn note_not_fetched(remotes: &[String], aside: Option<&str>) -> String {
    let aside = aside.map(|a| format!(" ({a})")).unwrap_or_default();
    format!(
        "the task commit has no note in {NOTES_REF}, nor in the notes fetched from {}{aside}: the clone that attested it pushed its note elsewhere (for a pull request from a fork, to the fork), or not yet; push it from that clone (`speccoder attest push <remote>`), or fetch the notes of the remote the commit came from (`speccoder attest fetch <remote>`), or attest the task again",
        remotes_named(remotes)
    )
}

/// What the check needs of the history, for [`history_reaches`].
#[derive(Debug, Default)]
pub struct HistoryNeeds<'a> {
    /// The task commits to check: each needs its parent (the policy is read there).
    pub commits: &'a [ObjectId],
    /// Ticked tasks for which no task commit was found: in a shallow clone, it may lie beyond.
    pub unexplained: Vec<&'a str>,
    /// The base was named (or found) but no merge base with the head was.
    pub unrelated_base: Option<UnrelatedBase>,
    /// Every commit a range walk yielded (`attest verify [A..B]`): one at the shallow boundary
    /// means the walk stopped there, cut off, unless its parents are the base or below it.
    pub walked: &'a [ObjectId],
    /// Where that walk was to stop (exclusive); `None`: at the roots.
    pub base: Option<ObjectId>,
    /// The checked head's whole history, where unexplained ticks' task commits were looked for:
    /// only a boundary commit among it can have cut one off. `None`: any boundary commit may have.
    pub reached: Option<&'a [ObjectId]>,
}

/// A base with which the head has no merge base in this clone.
#[derive(Debug)]
pub struct UnrelatedBase {
    /// The base's commit.
    pub tip: ObjectId,
    /// How it was named: `--base REV`, or the default branch's reference.
    pub name: String,
    /// Whether it is the default branch (no `--base` was given).
    pub by_default: bool,
}

impl UnrelatedBase {
    /// The base as a message names it.
    fn said(&self) -> String {
        let what = if self.by_default { "the default branch" } else { "the base" };
        format!("{what} `{}`", one_line(&self.name))
    }
}

/// In a shallow clone, refuses a check whose history crosses the shallow boundary (a task
/// commit at the boundary, a ticked task whose commit was not found where the checked history
/// reaches the boundary, a base beyond it, a base with no merge base with the head where either
/// history reaches the boundary, a walked range that stopped at the boundary rather than at its
/// base or a root), saying to fetch the whole history; a complete clone always passes, and so
/// does a checked history that is whole where only another branch was cut.
///
/// # Errors
/// [`VerifyError::Shallow`].
pub fn history_reaches(repo: &Repo, needs: &HistoryNeeds<'_>) -> Result<(), VerifyError> {
    let boundary = repo.shallow_boundary()?;
    if boundary.is_empty() {
        return Ok(());
    }
    parents_here(&boundary, needs.commits)?;
    let (at, why) = if let (Some(task), Some(cut)) =
        (needs.unexplained.first(), cut_in_reach(needs, &boundary))
    {
        let others = match needs.unexplained.len() {
            1 => String::new(),
            n => format!(" and {} other ticked task(s)", n - 1),
        };
        (cut, format!("no task commit for {task}{others} was found above it"))
    } else if let Some(base) = &needs.unrelated_base
        && let Some(cut) = merge_base_cut_at(repo, needs, base, &boundary)?
    {
        (cut, format!("the merge base of the head and {} lies beyond it", base.said()))
    } else if let Some(c) = walk_cut_off_at(repo, needs, &boundary)? {
        let to = needs.base.map_or_else(|| "its root commits".to_owned(), |b| format!("the base {b}"));
        (
            c,
            format!(
                "the commits checked go on below it to {to}, and those were not fetched (task commits may be among them)"
            ),
        )
    } else {
        return Ok(());
    };
    Err(ShallowCut { boundary: at.to_string(), why }.into())
}

/// In a shallow clone, refuses a check in which a commit at the shallow boundary sets the box of
/// a task the head ticks (`set_by` gives the first such task and commit, from the boundary,
/// sorted): without that commit's parents, whether it set the box or kept one set below cannot be
/// told, and taking it for the setter would blame it for a tick it may only have inherited.
///
/// # Errors
/// [`VerifyError::Shallow`].
pub fn boundary_sets_no_box<'t>(
    repo: &Repo,
    set_by: impl FnOnce(&[ObjectId]) -> Option<(&'t str, ObjectId)>,
) -> Result<(), VerifyError> {
    let boundary = repo.shallow_boundary()?;
    if boundary.is_empty() {
        return Ok(());
    }
    match set_by(&boundary) {
        Some((task, at)) => Err(ShallowCut {
            boundary: at.to_string(),
            why: format!(
                "{} is ticked there, so which commit set its box cannot be told without the commits below",
                one_line(task)
            ),
        }
        .into()),
        None => Ok(()),
    }
}

/// In a shallow clone, refuses to tell `commit` (`what`, as a message names it) out of the
/// history of `head` when that history reaches the shallow boundary: it may lie beyond it. A
/// complete clone, a commit of that history, or a history that is whole here passes.
///
/// # Errors
/// [`VerifyError::Shallow`], or the history cannot be read.
pub fn in_history_here(repo: &Repo, commit: ObjectId, head: ObjectId, what: &str) -> Result<(), VerifyError> {
    let boundary = repo.shallow_boundary()?;
    if boundary.is_empty() {
        return Ok(());
    }
    let reached = repo.walk(head, &[])?;
    if reached.contains(&commit) {
        return Ok(());
    }
    let needs = HistoryNeeds { reached: Some(&reached), ..HistoryNeeds::default() };
    match cut_in_reach(&needs, &boundary) {
        Some(cut) => {
            Err(ShallowCut { boundary: cut.to_string(), why: format!("{what} is not in it") }.into())
        }
        None => Ok(()),
    }
}

/// The first commit at the shallow `boundary` (sorted) that the checked history reaches
/// ([`HistoryNeeds::reached`]; any, when it is not told): where a task commit may have been cut
/// off. `None`: that history is whole.
fn cut_in_reach(needs: &HistoryNeeds<'_>, boundary: &[ObjectId]) -> Option<ObjectId> {
    match needs.reached {
        None => boundary.first().copied(),
        Some(reached) => reached.iter().filter(|c| boundary.binary_search(c).is_ok()).min().copied(),
    }
}

/// The first commit at the shallow `boundary` (sorted) that the head's history
/// ([`cut_in_reach`]) or the unrelated `base`'s reaches: where their merge base may have been cut
/// off. `None`: both histories are whole here, and truly share no commit.
fn merge_base_cut_at(
    repo: &Repo,
    needs: &HistoryNeeds<'_>,
    base: &UnrelatedBase,
    boundary: &[ObjectId],
) -> Result<Option<ObjectId>, VerifyError> {
    if let Some(cut) = cut_in_reach(needs, boundary) {
        return Ok(Some(cut));
    }
    let below_base = repo.walk(base.tip, &[])?;
    Ok(below_base.into_iter().filter(|c| boundary.binary_search(c).is_ok()).min())
}

/// The first walked commit at the shallow `boundary` (sorted) whose parents (as its commit
/// records them) are not all the base or below it: the walk stopped there for want of history,
/// not at the end of the range. A root commit, or one whose parents were fetched and lie at or
/// below the base, ends the range as it should.
fn walk_cut_off_at(
    repo: &Repo,
    needs: &HistoryNeeds<'_>,
    boundary: &[ObjectId],
) -> Result<Option<ObjectId>, VerifyError> {
    for c in needs.walked.iter().filter(|c| boundary.binary_search(c).is_ok()) {
        let parents = repo.commit(*c)?.parents;
        // A parent this clone lacks cannot be placed: the range is cut off (the safe side).
        let ends_range =
            |p: &ObjectId| needs.base.is_some_and(|b| *p == b || repo.is_ancestor(*p, b).unwrap_or(false));
        if !parents.iter().all(ends_range) {
            return Ok(Some(*c));
        }
    }
    Ok(None)
}

/// Refuses to check task commits in a clone that has a remote but no notes at all: the evidence
/// was never fetched, which is not the same as evidence that is missing.
///
/// # Errors
/// [`VerifyError::NotesNotFetched`], naming the remote to fetch from.
pub fn notes_fetched(repo: &Repo, commits: &[ObjectId]) -> Result<(), VerifyError> {
    if commits.is_empty() || repo.ref_target(NOTES_REF)?.is_some() {
        return Ok(());
    }
    let branch = match repo.head()? {
        Head::Branch { name, .. } => Some(name),
        _ => None,
    };
    let names = repo.remote_names();
    let usable = repo
        .default_remote(branch.as_ref(), Direction::Fetch)
        .ok()
        .or_else(|| names.iter().find(|name| repo.require_remote(name).is_ok()).cloned());
    match (usable, names.into_iter().next()) {
        (Some(remote), _) => Err(VerifyError::NotesNotFetched { remote, rename_first: false }),
        (None, Some(remote)) => Err(VerifyError::NotesNotFetched { remote, rename_first: true }),
        (None, None) => Ok(()),
    }
}
