//! Which evidence to carry where: the pair given, the pairs git's post-rewrite hook names, or,
//! for each task the branch ticks without its own note, the newest commit off the branch whose
//! note is for the same task and whose change, and series of changes before it, are the same.

use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use super::refusal::{change_differs, evidence_gone};
use super::{CarryError, RefusedRow};
use crate::attest::same_change;
use crate::check::completeness::GoneCommit;
use crate::check::line::{
    JOINED_NOTES, JoinedNote, copied_from_another_commit, joined_note, read_lines, task_of_gone_commit,
};
use crate::check::trailers::{NOT_ONE_CLAIM, task_trailers, unclear_claims};
use crate::git::{Commit, GitError, Head, Repo};
use crate::model::bundle::MAX_NOTE_BYTES;
use crate::model::predicate::Verdict;
use crate::model::shown::shown;

/// One carry to attempt: the evidence on `from` for the commit `to`.
pub(super) struct Job {
    /// The commit whose note is carried.
    pub(super) from: ObjectId,
    /// The commit that receives it.
    pub(super) to: ObjectId,
}

/// The carry `--from OLD --to NEW` asks for; none when both name one commit, which is refused
/// here (its note is its own).
///
/// # Errors
/// An unknown revision, or [`CarryError::NoNote`] when `OLD` has no note.
pub(super) fn pair_job(
    repo: &Repo,
    (from, to): (&str, &str),
    notes: &HashMap<ObjectId, ObjectId>,
    refused: &mut Vec<RefusedRow>,
) -> Result<Vec<Job>, CarryError> {
    let (from, to) = (repo.rev_parse_peeled(from)?, repo.rev_parse_peeled(to)?);
    if from == to {
        // Its note is its own: re-issuing it there would replace the original evidence, its
        // signatures and time, with a copy signed by whoever runs this.
        let target = repo.commit(from).ok().and_then(|c| task_trailers(&c.message).0);
        refused.push(RefusedRow {
            target: target.unwrap_or_default(),
            from: from.to_string(),
            to: to.to_string(),
            code: "same_commit",
            reason: format!(
                "--from and --to are the same commit ({from}): its evidence is where it belongs, and carry never replaces a commit's own note; name the commit the change was rewritten to as --to"
            ),
        });
        return Ok(Vec::new());
    }
    if !notes.contains_key(&from) {
        return Err(CarryError::NoNote { commit: from });
    }
    Ok(vec![Job { from, to }])
}

/// The carries git's post-rewrite input asks for (`<old> <new> [<extra>]` lines of full commit
/// ids; blank lines aside): each old commit with a note, for its new commit, followed along the
/// input to the last commit it was rewritten to. Git's lists miss some rewrites: a rebase names
/// the commits it made, not what an `exec`'s `git commit --amend` made of them, and an amend names
/// a commit whose evidence is still on the commit before the rebase. So when a new commit is not
/// on HEAD, or is a task commit lacking its evidence that its old commit has none to give, the
/// search of a plain `attest carry` ([`branch_jobs`]) finds where that evidence goes, and only the
/// carries (and refusals) of those tasks are kept: nothing is carried to a commit HEAD does not
/// hold.
///
/// # Errors
/// [`CarryError::RewrittenLine`] naming the first line that is no such pair, or whose new commit
/// is not in the repository.
pub(super) fn rewritten_jobs(
    repo: &Repo,
    pairs: &str,
    notes: &HashMap<ObjectId, ObjectId>,
    refused: &mut Vec<RefusedRow>,
) -> Result<Vec<Job>, CarryError> {
    let pairs = rewritten_pairs(repo, pairs)?;
    let rewritten_to: HashMap<ObjectId, ObjectId> = pairs.iter().copied().collect();
    let head = head_commit(repo)?;
    let (mut seen, mut jobs) = (HashSet::new(), Vec::new());
    let (mut tasks, mut lacking) = (HashSet::new(), HashSet::new());
    for &(from, to) in &pairs {
        if notes.contains_key(&from) {
            let to = last_rewrite(&rewritten_to, to);
            match head {
                Some(head) if repo.is_ancestor(to, head)? => {
                    if seen.insert(to) {
                        jobs.push(Job { from, to });
                    }
                }
                _ => tasks.extend(task_trailers(&repo.commit(from)?.message).0),
            }
        } else if lacks_evidence(repo, notes, to)? {
            lacking.insert(to);
        }
    }
    if tasks.is_empty() && lacking.is_empty() {
        return Ok(jobs);
    }
    let mut found = Vec::new();
    for job in branch_jobs(repo, notes, &mut found)? {
        let task = task_trailers(&repo.commit(job.from)?.message).0;
        if (lacking.contains(&job.to) || task.is_some_and(|t| tasks.contains(&t))) && seen.insert(job.to) {
            jobs.push(job);
        }
    }
    refused.extend(found.into_iter().filter(|row| {
        tasks.contains(&row.target)
            || ObjectId::from_hex(row.to.as_bytes()).is_ok_and(|to| lacking.contains(&to))
    }));
    Ok(jobs)
}

/// The pairs of git's post-rewrite input whose old and new commit differ.
///
/// # Errors
/// As [`rewritten_jobs`].
fn rewritten_pairs(repo: &Repo, pairs: &str) -> Result<Vec<(ObjectId, ObjectId)>, CarryError> {
    let mut read = Vec::new();
    for (index, line) in pairs.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let bad = |reason: &'static str| CarryError::RewrittenLine {
            line: index + 1,
            text: shown(line, 100),
            reason,
        };
        let mut words = line.split_whitespace();
        let mut id = || words.next().and_then(|w| ObjectId::from_hex(w.as_bytes()).ok());
        let (Some(from), Some(to)) = (id(), id()) else {
            return Err(bad("it is not two full commit ids, `<old> <new>`"));
        };
        if repo.commit(to).is_err() {
            return Err(bad("its new commit is not a commit of this repository"));
        }
        if from != to {
            read.push((from, to));
        }
    }
    Ok(read)
}

/// The last commit `to` was rewritten to along the input's pairs (`rewritten_to`), at most as many
/// steps as there are pairs, so that a loop in the input ends.
fn last_rewrite(rewritten_to: &HashMap<ObjectId, ObjectId>, mut to: ObjectId) -> ObjectId {
    for _ in 0..rewritten_to.len() {
        match rewritten_to.get(&to) {
            Some(next) => to = *next,
            None => break,
        }
    }
    to
}

/// The commit HEAD names, `None` on an unborn branch.
fn head_commit(repo: &Repo) -> Result<Option<ObjectId>, GitError> {
    Ok(match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Some(commit),
        Head::Unborn(_) => None,
    })
}

/// Whether `commit` ticks a task (not a skip) without a note of its own.
fn lacks_evidence(
    repo: &Repo,
    notes: &HashMap<ObjectId, ObjectId>,
    commit: ObjectId,
) -> Result<bool, GitError> {
    let ticks = match task_trailers(&repo.commit(commit)?.message) {
        (Some(_), Some(verdict)) => !verdict.is_empty() && verdict != Verdict::Skipped.as_str(),
        _ => false,
    };
    Ok(ticks && !has_own_note(repo, notes, commit))
}

/// For each task whose newest task commit on the branch lacks its own note: the newest commit
/// the branch no longer holds whose note is for the same task and whose change is the same, with
/// the same series before it ([`same_series`]). A task whose only such commits carry a different
/// change is refused here.
pub(super) fn branch_jobs(
    repo: &Repo,
    notes: &HashMap<ObjectId, ObjectId>,
    refused: &mut Vec<RefusedRow>,
) -> Result<Vec<Job>, GitError> {
    let Some(head) = head_commit(repo)? else { return Ok(Vec::new()) };
    let reachable = repo.walk(head, &[])?;
    let reachable_set: HashSet<ObjectId> = reachable.iter().copied().collect();
    let mut newest: Vec<(String, Commit)> = Vec::new();
    let mut targets = HashSet::new();
    for id in reachable.iter().copied() {
        let commit = repo.commit(id)?;
        if let (Some(target), Some(verdict)) = task_trailers(&commit.message)
            && !verdict.is_empty()
            && targets.insert(target.clone())
            && verdict != Verdict::Skipped.as_str()
        {
            newest.push((target, commit));
        }
    }
    // Notes on commits the branch does not hold, by task, newest commit first; and notes on
    // commits no longer in the repository, by task, which nothing can carry.
    let mut elsewhere: HashMap<String, Vec<Commit>> = HashMap::new();
    let mut gone: HashMap<String, ObjectId> = HashMap::new();
    for (annotated, blob) in notes.iter().filter(|(c, _)| !reachable_set.contains(*c)) {
        match repo.commit(*annotated) {
            Ok(commit) => {
                if let (Some(target), Some(verdict)) = task_trailers(&commit.message)
                    && verdict != Verdict::Skipped.as_str()
                {
                    elsewhere.entry(target).or_default().push(commit);
                }
            }
            Err(_) => {
                if let Some(target) = task_of_gone_commit(repo, *annotated, *blob) {
                    gone.entry(target).or_insert(*annotated);
                }
            }
        }
    }
    for list in elsewhere.values_mut() {
        list.sort_by_key(|c| std::cmp::Reverse((c.committer.seconds, c.id)));
    }
    refuse_unclear_claims(repo, &reachable, &targets, &elsewhere, refused)?;
    let mut wanted: Vec<(String, Commit, &Vec<Commit>)> = Vec::new();
    for (target, commit) in newest {
        match held_note(repo, notes, commit.id) {
            Held::Own => continue,
            Held::Joined(joined) => {
                refused.push(joined_notes(&target, &commit, &joined));
                continue;
            }
            Held::Lacking => {}
        }
        match (elsewhere.get(&target), gone.get(&target)) {
            (Some(candidates), _) => wanted.push((target, commit, candidates)),
            (None, Some(old)) => {
                let verdict = task_trailers(&commit.message).1;
                let gone = GoneCommit::of(repo, *old);
                refused.push(evidence_gone(&target, verdict.as_deref(), (*old, &gone), commit.id));
            }
            (None, None) => {}
        }
    }
    // Every change compared, the branch's and all candidates', in one pass.
    let all: Vec<&Commit> = wanted
        .iter()
        .flat_map(|(_, commit, candidates)| std::iter::once(commit).chain(candidates.iter()))
        .collect();
    let mut ids = same_change::change_ids(repo, &all)?.into_iter();
    let mut jobs = Vec::new();
    for (target, commit, candidates) in &wanted {
        let id = ids.next().flatten();
        let same: Vec<&Commit> = candidates
            .iter()
            .zip(ids.by_ref().take(candidates.len()))
            .filter(|(_, c)| *c == id)
            .map(|(candidate, _)| candidate)
            .collect();
        match (same_series(repo, commit, &same)?, candidates.first()) {
            (Some(from), _) => jobs.push(Job { from: from.id, to: commit.id }),
            (None, Some(newest_elsewhere)) => {
                let verdict = task_trailers(&newest_elsewhere.message).1;
                refused.push(change_differs(target, verdict.as_deref(), newest_elsewhere.id, commit.id));
            }
            (None, None) => {}
        }
    }
    Ok(jobs)
}

/// How many of a task's commits off the branch with its change are compared by their series: each
/// comparison walks and diffs up to [`same_change::MAX_SERIES`] commits, and the commits are
/// whoever pushed them.
const MAX_SERIES_COMPARED: usize = 16;

/// Of the commits `same` (newest first) whose change is `commit`'s: the newest of the first
/// [`MAX_SERIES_COMPARED`] whose series `commit`'s history carries too
/// ([`same_change::series_gap`]), else the newest, whose carry the checks then refuse naming what
/// its series lacks; `None` when there is none.
fn same_series<'c>(
    repo: &Repo,
    commit: &Commit,
    same: &[&'c Commit],
) -> Result<Option<&'c Commit>, GitError> {
    for candidate in same.iter().take(MAX_SERIES_COMPARED) {
        if same_change::series_gap(repo, candidate, commit)?.is_none() {
            return Ok(Some(candidate));
        }
    }
    Ok(same.first().copied())
}

/// Refuses, as `not_one_claim`, each task with evidence off the branch (`elsewhere`) that no task
/// commit on it claims (`claimed`), when a commit of the branch names it in a claim that is not
/// one plain claim (two `Spec-Task:` trailers, a folded one, a merge): that commit is where the
/// evidence was meant to go, and it cannot go there until its trailers make one claim.
fn refuse_unclear_claims(
    repo: &Repo,
    reachable: &[ObjectId],
    claimed: &HashSet<String>,
    elsewhere: &HashMap<String, Vec<Commit>>,
    refused: &mut Vec<RefusedRow>,
) -> Result<(), GitError> {
    if elsewhere.keys().all(|target| claimed.contains(target)) {
        return Ok(());
    }
    let unclear = unclear_claims(repo, reachable)?;
    let mut orphaned: Vec<(&String, &Vec<Commit>)> =
        elsewhere.iter().filter(|(target, _)| !claimed.contains(*target)).collect();
    orphaned.sort_by_key(|(target, _)| *target);
    for (target, candidates) in orphaned {
        let (Some((to, problem)), Some(from)) = (unclear.get(target), candidates.first()) else { continue };
        refused.push(RefusedRow {
            target: target.clone(),
            from: from.id.to_string(),
            to: to.to_string(),
            code: NOT_ONE_CLAIM,
            reason: format!(
                "{to} names {target}, but not in one plain claim ({problem}), so the evidence on {} is not carried to it; reword {to} so that its trailers name one task with one Spec-Task: and one Verdict: (`git rebase -i` with `reword`), then carry again",
                from.id
            ),
        });
    }
    Ok(())
}

/// Whether `commit`'s note is its own: present, and not a copy git made from another commit
/// (`notes.rewriteRef`), whose every line names that other commit.
fn has_own_note(repo: &Repo, notes: &HashMap<ObjectId, ObjectId>, commit: ObjectId) -> bool {
    !matches!(held_note(repo, notes, commit), Held::Lacking)
}

/// What a task commit's note is to carry.
enum Held {
    /// None, or a copy git made from another commit (`notes.rewriteRef`), whose every line names
    /// that other commit: carry gives it one.
    Lacking,
    /// Its own note (or one too large to read), which carry never replaces.
    Own,
    /// Its own lines joined line by line with another note's ([`JoinedNote`]): neither carried
    /// over nor passed over, but refused with how to keep its own.
    Joined(JoinedNote),
}

/// What the note of `commit` is to carry ([`Held`]).
fn held_note(repo: &Repo, notes: &HashMap<ObjectId, ObjectId>, commit: ObjectId) -> Held {
    let Some(blob) = notes.get(&commit) else { return Held::Lacking };
    // A note too large to read is not one carry replaces either.
    let bytes = match repo.blob_within(*blob, MAX_NOTE_BYTES) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return Held::Own,
        Err(_) => return Held::Lacking,
    };
    let lines = read_lines(&bytes, &mut Vec::new());
    if copied_from_another_commit(&lines, commit) {
        return Held::Lacking;
    }
    match joined_note(&lines, commit) {
        Some(joined) => Held::Joined(joined),
        None => Held::Own,
    }
}

/// The row of a task whose newest task commit `commit` holds a note joined line by line with
/// another's: the evidence there is its own, but no verifier reads it so, and carry does not
/// replace it.
fn joined_notes(target: &str, commit: &Commit, joined: &JoinedNote) -> RefusedRow {
    let hex = commit.id.to_string();
    let other = |c: &&String| **c != hex && ObjectId::from_hex(c.as_bytes()).is_ok();
    let from = joined.commits.iter().map(|(c, _)| c).find(other).cloned().unwrap_or(hex);
    RefusedRow {
        target: target.to_owned(),
        from,
        to: commit.id.to_string(),
        code: JOINED_NOTES,
        reason: format!("the note of {} is {}", commit.id, joined.said(commit.id)),
    }
}
