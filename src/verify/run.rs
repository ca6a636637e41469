//! The two ways to run the verifier: over task commits (`attest verify [REV | A..B]`) and over
//! the ticked tasks of a branch (`attest verify --branch`).

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use crate::check::completeness::{ShallowCut, fetch_what_the_check_reads};
use crate::check::outcome::CommitOutcome;
use crate::check::trailers::{NOT_ONE_CLAIM, newest_task_commits, task_trailers, unclear_claims};
use crate::git::{GitError, GitTree, Head, Repo};
use crate::model::shown::shell_word;
use crate::spec::{self, SourceTree, UnitDocs};
use crate::verify::box_setters::BoxSetters;
use crate::verify::commit::{Checker, CommitReport};
use crate::verify::completeness::{self, HistoryNeeds, UnrelatedBase};
use crate::verify::drift::{CommitDrift, drift, with_drift};
use crate::verify::error::VerifyError;
use crate::verify::report::{
    Counted, Report, ReportEnd, ReportHead, ReportSink, Summary, TickOutcome, TickReport,
};
use crate::verify::rewritten::{self, LostEvidence};
use crate::verify::trust::Trust;
use crate::verify::unread::failed_without_object;
use crate::verify::{bugs, decisions, policy, unread};

/// Checks the task commits named by `range`: one revision, `A..B`, or (None) every commit on the
/// current branch that carries `Spec-Task:` ([`verify_commits_into`], collected).
///
/// # Errors
/// A revision that does not resolve, or a repository that cannot be read.
pub fn verify_commits(repo: &Repo, range: Option<&str>, trust: &Trust) -> Result<Report, VerifyError> {
    let mut report = Report::new("commits", Vec::new(), trust);
    verify_commits_into(repo, range, trust, &mut report)?;
    Ok(report)
}

/// Checks the task commits named by `range`: one revision, `A..B`, or (None) every commit on the
/// current branch that carries `Spec-Task:`. The report goes to `sink` a row at a time, in the
/// order of the commits, as each is decided; its head and end are returned ([`Summary`]).
///
/// # Errors
/// A revision that does not resolve, or a repository that cannot be read. An error after
/// [`ReportSink::begin`] leaves the sink without its end.
pub fn verify_commits_into(
    repo: &Repo,
    range: Option<&str>,
    trust: &Trust,
    sink: &mut dyn ReportSink,
) -> Result<Summary, VerifyError> {
    let head = head_commit(repo)?;
    let (ids, head_for_lines, walked_base) = match Checked::of_commits(repo, range)? {
        Checked::One(id) => (vec![id], head, None),
        Checked::Range { head: tip, base } => (repo.walk(tip, base.as_slice())?, tip, Some(base)),
    };
    let checker = Checker::new(repo, trust, Some(repo.commit_tree(head_for_lines)?))?;
    // `REV` alone is `<rev>^!`: a commit that names no task leaves nothing to check, as in a range.
    let mut task_commits = Vec::new();
    for &id in &ids {
        let commit = repo.commit(id)?;
        if task_trailers(&commit.message).0.is_some() {
            task_commits.push(id);
        }
    }
    completeness::notes_fetched(repo, &task_commits)?;
    fetch_what_the_check_reads(repo, repo.commit_tree(head_for_lines)?, &task_commits, &[])?;
    // A range walk that stopped at the shallow boundary has not seen the whole range.
    let needs = match walked_base {
        Some(base) => HistoryNeeds { commits: &task_commits, walked: &ids, base, ..HistoryNeeds::default() },
        None => HistoryNeeds { commits: &task_commits, ..HistoryNeeds::default() },
    };
    completeness::history_reaches(repo, &needs)?;
    let (mut judge, judged) = judge(repo, trust, head_for_lines, walked_base.flatten());
    let report_head = ReportHead::new("commits", trust, task_commits.len());
    let mut out = Counted { sink, end: ReportEnd::default() };
    out.sink.begin(&report_head);
    // Evidence a rewrite left behind is looked for once a commit lacks its note.
    let reachable: OnceCell<HashSet<ObjectId>> = OnceCell::new();
    let lost: OnceCell<LostEvidence<'_>> = OnceCell::new();
    let mut drift = CommitDrift::new(repo, repo.tree(repo.commit_tree(head_for_lines)?));
    let mut failed: Option<VerifyError> = None;
    checker.check_stream(&task_commits, |mut report| {
        if failed.is_some() {
            return;
        }
        if rewritten::lacks_note(&report) {
            if reachable.get().is_none() {
                match repo.walk(head, &[]) {
                    Ok(walked) => drop(reachable.set(walked.into_iter().collect())),
                    Err(e) => return failed = Some(e.into()),
                }
            }
            if let Some(reachable) = reachable.get() {
                lost.get_or_init(|| LostEvidence::new(repo, reachable)).hint_carry(&mut report);
            }
        }
        let found = match drift.findings(&report) {
            Ok(found) => found,
            Err(e) => return failed = Some(e),
        };
        let mut tick = TickReport::from_commit(report, trust);
        with_drift(&mut tick, found);
        judge.iter_mut().for_each(|judge| judge.judge(&mut tick, None));
        out.row(tick);
    });
    if let Some(e) = failed {
        return Err(e);
    }
    finish(out, &report_head, trust, [judged].into_iter().flatten())
}

/// The verifier policy's judge of the rows of a run whose head is `head` (the history under
/// review since `base`, when there is one), and its warnings.
fn judge<'a>(
    repo: &'a Repo,
    trust: &'a Trust,
    head: ObjectId,
    base: Option<ObjectId>,
) -> (Option<policy::Judge<'a>>, Vec<String>) {
    match &trust.policy {
        Some(p) => {
            let certs = trust.signers.openpgp.as_ref();
            let (judge, warnings) = policy::Judge::new(repo, p, head, base, trust.require_verified, certs);
            (Some(judge), warnings)
        }
        None => (None, Vec::new()),
    }
}

/// Ends a run whose rows went through `out`: a trust that failed while checking leaves the run
/// without a verdict; else the end (the trust's warnings, then `warnings`) goes to the sink.
fn finish(
    out: Counted<&mut dyn ReportSink>,
    head: &ReportHead,
    trust: &Trust,
    warnings: impl IntoIterator<Item = String>,
) -> Result<Summary, VerifyError> {
    if let Some(failure) = trust.failure() {
        return Err(VerifyError::Trust(failure));
    }
    if let Some(id) = out.end.corrupt.clone() {
        return Err(VerifyError::CorruptObject(id));
    }
    let Counted { sink, mut end } = out;
    end.warnings = trust.warnings();
    end.warnings.extend(warnings);
    let lacking = end.lacks_warning();
    end.warnings.extend(lacking);
    sink.end(head, &end);
    Ok(Summary { head: head.clone(), end })
}

/// One unit's ticks in order (the task commit to check, or the row saying why there is none,
/// boxed: a plan holds every tick of the branch, and most are commits), and the `<unit>/<task>`
/// ticked at the head (`None` when the head's task list cannot be read: its one row says so).
type UnitPlan = (Vec<Result<ObjectId, Box<TickReport>>>, Option<HashSet<String>>);

/// The history a run checks. The trust it checks against must come from outside it: a trust
/// file at a revision inside was written by whoever wrote the history under review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// One task commit (`attest verify REV`).
    One(ObjectId),
    /// The commits reachable from `head` and not from `base` (with no base, every commit
    /// reachable from `head`).
    Range {
        /// The newest commit checked.
        head: ObjectId,
        /// Where the checked history starts (exclusive).
        base: Option<ObjectId>,
    },
}

impl Checked {
    /// What `attest verify [REV | A..B]` checks: REV alone, `A..B`, or (None) every commit
    /// reachable from HEAD.
    ///
    /// # Errors
    /// An unborn HEAD, a revision that does not resolve, or `A...B`.
    pub fn of_commits(repo: &Repo, range: Option<&str>) -> Result<Checked, VerifyError> {
        if let Some(spec) = range.filter(|spec| spec.contains("...")) {
            return Err(VerifyError::SymmetricRange(spec.to_owned()));
        }
        let head = head_commit(repo)?;
        Ok(match range {
            None => Checked::Range { head, base: None },
            Some(spec) => match spec.split_once("..") {
                Some((a, b)) => {
                    let b = if b.is_empty() { head } else { repo.rev_parse_peeled(b)? };
                    let a = repo.rev_parse_peeled(if a.is_empty() { "HEAD" } else { a })?;
                    Checked::Range { head: b, base: Some(a) }
                }
                None => Checked::One(repo.rev_parse_peeled(spec)?),
            },
        })
    }

    /// What `attest verify --branch` checks: the branch's history since its base (`--base`, or
    /// the merge base with the default branch), or all of it (`--all`, or no default branch).
    ///
    /// # Errors
    /// An unborn HEAD, or a revision that does not resolve.
    pub fn of_branch(repo: &Repo, opts: &BranchOptions) -> Result<Checked, VerifyError> {
        let head = match &opts.head {
            Some(rev) => repo.rev_parse_peeled(rev).map_err(|e| unborn_or(repo, rev, e))?,
            None => head_commit(repo)?,
        };
        let base = match (&opts.base, opts.all) {
            (_, true) => None,
            (Some(rev), false) => {
                let b = repo.rev_parse_peeled(rev).map_err(|e| shallow_or(repo, head, rev, e))?;
                Some(repo.merge_base(head, b)?.unwrap_or(b))
            }
            (None, false) => default_base(repo, head)?,
        };
        Ok(Checked::Range { head, base })
    }

    /// Whether `rev` holds a commit of the checked history: it is one ([`Self::contains`]), or
    /// one is among its ancestors (a merge of the branch into its base, say), so that its files
    /// are partly the branch's. For a trust or policy revision; a question the repository cannot
    /// answer counts as holding one.
    #[must_use]
    pub fn reached_from(&self, repo: &Repo, rev: ObjectId) -> bool {
        if self.contains(repo, rev) {
            return true;
        }
        match *self {
            Checked::One(id) => repo.is_ancestor(id, rev).unwrap_or(true),
            Checked::Range { head, .. } => match repo.merge_base(rev, head) {
                Ok(Some(shared)) => self.contains(repo, shared),
                Ok(None) => false,
                Err(_) => true,
            },
        }
    }

    /// Whether `commit` is part of the checked history. A question the repository cannot answer
    /// counts as inside: refusing a trust revision is the safe side.
    #[must_use]
    pub fn contains(&self, repo: &Repo, commit: ObjectId) -> bool {
        match *self {
            Checked::One(id) => id == commit,
            Checked::Range { head, base } => {
                repo.is_ancestor(commit, head).unwrap_or(true)
                    && base.is_none_or(|b| !repo.is_ancestor(commit, b).unwrap_or(false))
            }
        }
    }
}

/// Options of `attest verify --branch`.
#[derive(Debug, Clone, Default)]
pub struct BranchOptions {
    /// The head to check (default HEAD).
    pub head: Option<String>,
    /// The base the branch started from (default: the merge base with the default branch).
    pub base: Option<String>,
    /// Check every unit, not only those the branch touched.
    pub all: bool,
}

/// Checks every ticked task of the units the branch touched since its base (or of every unit),
/// lists those units' skips, and checks the bug tasks closed on the branch
/// ([`verify_branch_into`], collected).
///
/// # Errors
/// Revisions that do not resolve, a repository or spec that cannot be read.
pub fn verify_branch(repo: &Repo, opts: &BranchOptions, trust: &Trust) -> Result<Report, VerifyError> {
    let mut report = Report::new("branch", Vec::new(), trust);
    verify_branch_into(repo, opts, trust, &mut report)?;
    Ok(report)
}

/// Checks every ticked task of the units the branch touched since its base (or of every unit),
/// lists those units' skips, and checks the bug tasks closed on the branch. The report goes to
/// `sink` a row at a time, in unit order, each row as soon as it is decided (the task commits
/// are checked on several threads, and their rows put back in order); its head and end are
/// returned ([`Summary`]). What needs the whole history (which commits set each box) is read before the
/// first row.
///
/// # Errors
/// Revisions that do not resolve, a repository or spec that cannot be read. An error after
/// [`ReportSink::begin`] leaves the sink without its end.
pub fn verify_branch_into(
    repo: &Repo,
    opts: &BranchOptions,
    trust: &Trust,
    sink: &mut dyn ReportSink,
) -> Result<Summary, VerifyError> {
    let (head, base) = match Checked::of_branch(repo, opts)? {
        Checked::Range { head, base } => (head, base),
        Checked::One(head) => (head, None),
    };
    let head_tree_id = repo.commit_tree(head)?;
    let head_tree = repo.tree(head_tree_id);
    // A base that shares no history with the head: what the shallow-history check must know.
    let unrelated_base = unrelated_base(repo, opts, head)?;
    let (units, strays) = units_checked(repo, &head_tree, base, &HashSet::new())?;

    // The newest reachable task commit per task.
    let reachable = repo.walk(head, &[])?;
    let task_commit: HashMap<String, ObjectId> = newest_task_commits(repo, &reachable)?;
    fetch_what_a_branch_check_reads(repo, head_tree_id, &reachable, &units, &task_commit)?;
    // Which commits set each box, from one pass over the history, before any row is decided; the
    // check reads each task commit's unit from where that pass found it, and its task list as that
    // pass parsed it.
    let (units, setters) = units_and_setters(repo, trust, head, base, &reachable, units, &task_commit)?;
    let reachable_set: HashSet<ObjectId> = reachable.iter().copied().collect();
    let lost = LostEvidence::new(repo, &reachable_set);
    let unclear = UnclearClaims { repo, reachable: &reachable, found: OnceCell::new() };

    // What each unit's ticks need: a task commit to check, or a row saying why there is none.
    let checker = Checker::new(repo, trust, Some(head_tree_id))?;
    let mut planned: Vec<UnitPlan> = Vec::new();
    for unit in &units {
        planned.push(plan_unit(repo, &head_tree, unit, &task_commit, &lost, &unclear)?);
    }
    let ids = planned_commits(&planned);
    history_reaches_the_plan(repo, &planned, &ids, unrelated_base, &reachable, &setters)?;
    let checker = checker.knowing(setters.learned());
    let unticked = match base {
        Some(base) => taken_back_since(repo, base, &units, &planned, &head_tree)?,
        None => Vec::new(),
    };
    // A verifier policy's baseline is placed against the base branch itself (its tip), not the
    // one merge base gix picks: after a criss-cross merge, a commit of the base branch need not be
    // an ancestor of that merge base; and a branch that shares no history with it has none.
    let (judge, judged) = judge(repo, trust, head, base_tip(repo, opts, head)?.or(base));
    let judge = judge.map(|j| j.of_branch_since(base));
    let mut report_head = ReportHead::new("branch", trust, planned.iter().map(|(rows, _)| rows.len()).sum());
    report_head.base = base.map(|b| b.to_string());
    report_head.head = Some(head.to_string());
    let mut rows = Rows {
        repo,
        claims: Claims { checker: &checker, trust, head_tree: &head_tree },
        setters: &setters,
        judge,
        out: Counted { sink, end: ReportEnd::default() },
    };
    rows.out.sink.begin(&report_head);
    rows.units(&units, planned, &ids, &lost)?;
    // The skips of units the head has nowhere: of every such unit, or with a base, of those a
    // commit since the base removed or renamed.
    let in_scope = |unit: &str| base.is_none() || setters.changed_in_range().contains(unit);
    for row in decisions::gone_unit_skip_rows(repo, &checker, &head_tree, in_scope, trust)? {
        rows.put(row);
    }
    for stray in &strays {
        rows.put(unread::stray_row(stray));
    }
    for row in bugs::bug_rows(repo, &checker, trust, head, base, &task_commit, &lost)? {
        rows.put(row);
    }
    finish(rows.out, &report_head, trust, judged.into_iter().chain(unticked))
}

/// A ticked box of a branch check, as it stands before any task commit's evidence is checked.
pub enum Planned {
    /// A task (`<unit>/<task>`) whose task commit the check reads.
    Commit(String, ObjectId),
    /// The row of a box no task commit backs, saying why: a hand tick (`ticked_without_evidence`,
    /// which a verifier policy's baseline may hold), a box that cannot be checked (a list that
    /// cannot be read, an id on two lines, a box no task, a place that is no unit's, ...), or a
    /// box set again after its task commit (`ticked_again`).
    Row(Box<TickReport>),
}

/// Every ticked box of the whole history of `head` as `attest verify --branch --all` plans it
/// (its units and the places that are no unit's, each tick's task commit or the row of why
/// there is none, a task commit whose box another commit set again after it as its
/// `ticked_again` row: [`PlannedClaims::commit`]), in the report's order, bug tasks aside, and
/// which commits set each box: what `attest policy init` tells its baseline's hand ticks and the
/// boxes it will not hold from, and `attest policy check` the hand ticks a baseline holds.
///
/// # Errors
/// A repository that cannot be read; a shallow clone whose history the plan needs is cut off
/// ([`VerifyError::Shallow`], as verify refuses it: [`history_reaches_the_plan`]).
pub(in crate::verify) fn planned_ticks(
    repo: &Repo,
    head: ObjectId,
) -> Result<(Vec<Planned>, BoxSetters), VerifyError> {
    let head_tree = repo.tree(repo.commit_tree(head)?);
    let (units, strays) = units_checked(repo, &head_tree, None, &HashSet::new())?;
    let reachable = repo.walk(head, &[])?;
    let task_commit = newest_task_commits(repo, &reachable)?;
    let reachable_set: HashSet<ObjectId> = reachable.iter().copied().collect();
    let lost = LostEvidence::new(repo, &reachable_set);
    let unclear = UnclearClaims { repo, reachable: &reachable, found: OnceCell::new() };
    let setters = BoxSetters::find(repo, None, &reachable, &BoxSetters::wanted(&units), &HashSet::new())?;
    let target_of: HashMap<ObjectId, &String> =
        task_commit.iter().map(|(target, id)| (*id, target)).collect();
    let nobody = Trust::default();
    let claims = PlannedClaims {
        repo,
        head_tree: &head_tree,
        setters: &setters,
        trust: &nobody,
        checker: OnceCell::new(),
    };
    let plans: Vec<UnitPlan> = units
        .iter()
        .map(|unit| plan_unit(repo, &head_tree, unit, &task_commit, &lost, &unclear))
        .collect::<Result<_, _>>()?;
    // What the plan counts may lie beyond a shallow boundary: refused as verify refuses it.
    history_reaches_the_plan(repo, &plans, &planned_commits(&plans), None, &reachable, &setters)?;
    let mut out = Vec::new();
    for (unit, (rows, _)) in units.iter().zip(plans) {
        // The unit's documents at the head, read when a second claim first cites a requirement.
        let mut head_docs = None;
        for row in rows {
            out.push(match row {
                Ok(id) => match target_of.get(&id) {
                    Some(target) => claims.commit((*target).clone(), id, unit, &mut head_docs)?,
                    None => Planned::Commit(id.to_string(), id),
                },
                Err(row) => Planned::Row(row),
            });
        }
    }
    // The claims borrow the box setters, which go back with the plan.
    drop(claims);
    out.extend(strays.iter().map(|stray| Planned::Row(Box::new(unread::stray_row(stray)))));
    Ok((out, setters))
}

/// The second claims of the plan of a branch check ([`planned_ticks`]), decided as verify decides
/// them ([`Claims::set_again`]) by a checker that checks no signature: every line's signature is
/// taken to hold, as under the rule `policy init` prints, which lets every trusted principal sign.
struct PlannedClaims<'a, 'r> {
    /// The repository.
    repo: &'r Repo,
    /// The tree under review.
    head_tree: &'a GitTree<'r>,
    /// Which commits set each box.
    setters: &'a BoxSetters,
    /// A trust in no one, which refuses no verdict: the checker looks at no signature.
    trust: &'r Trust,
    /// The checker, made when a box is first found set again after its task commit.
    checker: OnceCell<Checker<'r>>,
}

impl PlannedClaims<'_, '_> {
    /// The plan of `target`'s task commit `id`, of `unit`: the `ticked_again` row verify makes
    /// when another commit set the box again after it ([`ticked_again`]), else the commit. The
    /// newest task commit's note is taken to hold; another task commit of the same task is a
    /// second claim when its row, signatures aside, would be `evidenced` ([`Claims::set_again`]).
    fn commit(
        &self,
        target: String,
        id: ObjectId,
        unit: &spec::UnitLoc,
        head_docs: &mut Option<Result<UnitDocs, spec::SpecError>>,
    ) -> Result<Planned, VerifyError> {
        let again = ticked_again(self.repo, self.setters, &target, id, |setter| {
            self.claims()?.set_again(setter, &target, Some(unit), head_docs, |_| {})
        })?;
        Ok(match again {
            Some(row) => Planned::Row(Box::new(row)),
            None => Planned::Commit(target, id),
        })
    }

    /// What decides a second claim's row: the checker without signatures, made once.
    fn claims(&self) -> Result<Claims<'_, '_>, VerifyError> {
        let checker = match self.checker.get() {
            Some(checker) => checker,
            None => {
                let made = Checker::new(self.repo, self.trust, Some(self.head_tree.id()))?;
                self.checker.get_or_init(|| made.knowing(self.setters.learned()).without_signatures())
            }
        };
        Ok(Claims { checker, trust: self.trust, head_tree: self.head_tree })
    }
}

/// The units a branch check covers and which commits set their boxes ([`BoxSetters::find`] over
/// `reachable`): `units`, and with a base, every other unit of the head that a commit since the
/// base changed, which the same pass finds (a branch that unticks a task and ticks it again by
/// hand leaves its unit as the base had it). Only such a branch pays a second pass, for the
/// units the first did not read.
///
/// # Errors
/// A repository or spec that cannot be read.
fn units_and_setters(
    repo: &Repo,
    trust: &Trust,
    head: ObjectId,
    base: Option<ObjectId>,
    reachable: &[ObjectId],
    units: Vec<spec::UnitLoc>,
    task_commit: &HashMap<String, ObjectId>,
) -> Result<(Vec<spec::UnitLoc>, BoxSetters), VerifyError> {
    let range: HashSet<ObjectId> = match base {
        Some(base) => repo.walk(head, &[base])?.into_iter().collect(),
        None => HashSet::new(),
    };
    let wanted = BoxSetters::wanted(&units);
    let setters = BoxSetters::find(repo, trust.jobs, reachable, &wanted, &range)?;
    if setters.changed_in_range().is_subset(&wanted) {
        return Ok((units, setters));
    }
    let head_tree_id = repo.commit_tree(head)?;
    let (all, _) = units_checked(repo, &repo.tree(head_tree_id), base, setters.changed_in_range())?;
    if all.len() == units.len() {
        // Only units the head no longer has were changed besides.
        return Ok((units, setters));
    }
    fetch_what_a_branch_check_reads(repo, head_tree_id, reachable, &all, task_commit)?;
    let setters = BoxSetters::find(repo, trust.jobs, reachable, &BoxSetters::wanted(&all), &range)?;
    Ok((all, setters))
}

/// Makes sure the objects a branch check reads are here before it reads them: the notes of the
/// task commits and skips (fetched first), then in one batch what a partial clone lacks of the
/// head's tree, the task commits and the unit directories the box setters read.
fn fetch_what_a_branch_check_reads(
    repo: &Repo,
    head_tree_id: ObjectId,
    reachable: &[ObjectId],
    units: &[spec::UnitLoc],
    task_commit: &HashMap<String, ObjectId>,
) -> Result<(), VerifyError> {
    let mut to_read: Vec<ObjectId> = task_commit.values().copied().collect();
    to_read.extend(repo.refs_with_prefix(crate::model::refs::SKIPPED_PREFIX)?.into_iter().map(|(_, id)| id));
    completeness::notes_fetched(repo, &to_read)?;
    let setter_dirs = BoxSetters::dirs_read(repo, reachable, units)?;
    fetch_what_the_check_reads(repo, head_tree_id, &to_read, &setter_dirs)?;
    Ok(())
}

/// The task commits a plan checks, in its order.
fn planned_commits(planned: &[UnitPlan]) -> Vec<ObjectId> {
    planned.iter().flat_map(|(rows, _)| rows.iter().filter_map(|r| r.as_ref().ok().copied())).collect()
}

/// Refuses a history cut short where the plan needs it: a task commit `ids` names beyond a
/// shallow boundary, or a tick without one that such a commit could explain, where the head's
/// history (`reachable`) reaches the boundary, or a box a commit at the boundary sets (of
/// `setters`), which may only have kept it set. Nothing explains a task list that cannot be read
/// or an id on two lines. The one judgement of a shallow clone for verify's branch check and for
/// `policy init` and `policy check`, which count the same plan ([`planned_ticks`]).
fn history_reaches_the_plan(
    repo: &Repo,
    planned: &[UnitPlan],
    ids: &[ObjectId],
    unrelated_base: Option<UnrelatedBase>,
    reachable: &[ObjectId],
    setters: &BoxSetters,
) -> Result<(), VerifyError> {
    let unexplained: Vec<&str> = planned
        .iter()
        .flat_map(|(rows, _)| rows.iter().filter_map(|r| r.as_ref().err()))
        .filter(|t| !t.reason.as_deref().is_some_and(unread::no_commit_explains))
        .map(|t| t.task.as_str())
        .collect();
    completeness::history_reaches(
        repo,
        &HistoryNeeds {
            commits: ids,
            unexplained,
            unrelated_base,
            reached: Some(reachable),
            ..HistoryNeeds::default()
        },
    )?;
    let ticked = planned.iter().flat_map(|(_, targets)| targets.iter().flatten().map(String::as_str));
    completeness::boundary_sets_no_box(repo, |boundary| setters.first_set_by(boundary, ticked))
}

/// The units a branch check covers, and the places that hold ticks but are no unit's (a project's
/// below the top too, [`spec::nested_projects`]): with a base, those whose directory differs between base and head, and those named in `changed` (a
/// commit since the base changed them, [`BoxSetters::changed_in_range`]); else all.
fn units_checked(
    repo: &Repo,
    head_tree: &GitTree<'_>,
    base: Option<ObjectId>,
    changed: &HashSet<String>,
) -> Result<(Vec<spec::UnitLoc>, Vec<spec::Stray>), VerifyError> {
    let mut scan = spec::scan_units(head_tree)?;
    scan.strays.extend(spec::nested_projects(head_tree)?);
    let Some(base) = base else { return Ok((scan.units, scan.strays)) };
    let base_tree = repo.tree(repo.commit_tree(base)?);
    let mut touched = Vec::new();
    for u in scan.units {
        if changed.contains(&u.name) || base_tree.entry_id(&u.dir)? != head_tree.entry_id(&u.dir)? {
            touched.push(u);
        }
    }
    // A name no path can look up counts as touched: reported rather than left out.
    let strays = scan.strays.into_iter().filter(
        |s| !matches!((base_tree.entry_id(&s.top), head_tree.entry_id(&s.top)), (Ok(a), Ok(b)) if a == b),
    );
    Ok((touched, strays.collect()))
}

/// The rows of a branch check as they are decided: each judged by the verifier policy, counted,
/// and handed to the sink.
struct Rows<'a, 'r> {
    /// The repository.
    repo: &'r Repo,
    /// What decides a task commit's row.
    claims: Claims<'a, 'r>,
    /// Which commits set each box.
    setters: &'a BoxSetters,
    /// The verifier policy's judge, under one.
    judge: Option<policy::Judge<'r>>,
    /// Where the rows go.
    out: Counted<&'a mut dyn ReportSink>,
}

/// What comes next in a branch report's order: a row decided without a task commit, the row of
/// the next task commit checked, or the end of a unit's ticks (then its skips).
enum Slot {
    /// A row without a task commit.
    Row(Box<TickReport>),
    /// The next task commit's row, of the unit at this position.
    Commit(usize),
    /// The unit at this position has no more ticks.
    UnitEnd(usize),
}

impl Rows<'_, '_> {
    /// Judges and hands on `tick`.
    fn put(&mut self, mut tick: TickReport) {
        if let Some(judge) = &mut self.judge {
            judge.judge(&mut tick, Some(self.setters));
        }
        self.out.row(tick);
    }

    /// The rows of every unit in order: the task commits `ids` are checked as a stream, and the
    /// rows planned around them go out as their place comes.
    fn units(
        &mut self,
        units: &[spec::UnitLoc],
        planned: Vec<UnitPlan>,
        ids: &[ObjectId],
        lost: &LostEvidence<'_>,
    ) -> Result<(), VerifyError> {
        let mut ticked_targets = Vec::with_capacity(planned.len());
        let mut slots = Vec::new();
        for (at, (rows, ticked)) in planned.into_iter().enumerate() {
            ticked_targets.push(ticked);
            slots.extend(rows.into_iter().map(|row| row.map_or_else(Slot::Row, |_| Slot::Commit(at))));
            slots.push(Slot::UnitEnd(at));
        }
        let mut slots = slots.into_iter();
        // The unit's documents at the head, read when one of its ticks first cites a requirement.
        let mut head_docs = None;
        let mut failed = Ok(());
        let checker = self.claims.checker;
        checker.check_stream(ids, |mut report| {
            lost.hint_carry(&mut report);
            failed = std::mem::replace(&mut failed, Ok(())).and_then(|()| {
                let unit = self.until_commit(&mut slots, units, &ticked_targets, &mut head_docs)?;
                // check_stream hands on one report per id, in order: one per commit slot.
                self.commit_row(report, unit.map(|at| &units[at]), &mut head_docs)
            });
        });
        failed?;
        self.until_commit(&mut slots, units, &ticked_targets, &mut head_docs).map(|_| ())
    }

    /// Hands on the rows before the next task commit's (or all that are left), and says whose
    /// unit that commit's row is (at its position in `units`).
    fn until_commit(
        &mut self,
        slots: &mut impl Iterator<Item = Slot>,
        units: &[spec::UnitLoc],
        ticked_targets: &[Option<HashSet<String>>],
        head_docs: &mut Option<Result<UnitDocs, spec::SpecError>>,
    ) -> Result<Option<usize>, VerifyError> {
        for slot in slots {
            match slot {
                Slot::Row(tick) => self.put(*tick),
                Slot::Commit(at) => return Ok(Some(at)),
                Slot::UnitEnd(at) => {
                    *head_docs = None;
                    let unit = &units[at];
                    let none = HashSet::new();
                    let ticked = ticked_targets[at].as_ref().unwrap_or(&none);
                    for row in
                        decisions::skip_rows(self.repo, self.claims.checker, unit, ticked, self.claims.trust)?
                    {
                        self.put(row);
                    }
                }
            }
        }
        Ok(None)
    }

    /// The row of a checked task commit of `unit`: `ticked_again` when another commit set the box
    /// after it ([`Self::ticked_again`]), else its report with the drift of the requirements it
    /// cites at the head.
    fn commit_row(
        &mut self,
        report: CommitReport,
        unit: Option<&spec::UnitLoc>,
        head_docs: &mut Option<Result<UnitDocs, spec::SpecError>>,
    ) -> Result<(), VerifyError> {
        if let Some(target) = report.target.as_deref()
            && let Ok(commit) = report.commit.parse::<ObjectId>()
            && let Some(row) = self.ticked_again(target, commit, unit, head_docs)?
        {
            self.put(row);
            return Ok(());
        }
        let tick = self.claims.row(report, unit, head_docs)?;
        self.put(tick);
        Ok(())
    }

    /// The `ticked_again` row of `target`, whose newest task commit is `commit` ([`ticked_again`]):
    /// another task commit of the same task is a second claim of the tick when its own evidence
    /// holds for the caller's trust ([`Claims::set_again`]), held to its unit's rule under a
    /// verifier policy as the newest task commit's row is: who may sign, approvals, what evidence
    /// counts.
    fn ticked_again(
        &mut self,
        target: &str,
        commit: ObjectId,
        unit: Option<&spec::UnitLoc>,
        head_docs: &mut Option<Result<UnitDocs, spec::SpecError>>,
    ) -> Result<Option<TickReport>, VerifyError> {
        let (repo, setters, claims, judge) = (self.repo, self.setters, self.claims, &mut self.judge);
        ticked_again(repo, setters, target, commit, |setter| {
            claims.set_again(setter, target, unit, head_docs, |tick| {
                if let Some(judge) = judge {
                    judge.judge(tick, Some(setters));
                }
            })
        })
    }
}

/// What decides the row of a task commit's claim of a tick: verify's, and the plan's that
/// `attest policy init` reads ([`planned_ticks`], with a checker that checks no signature).
#[derive(Clone, Copy)]
struct Claims<'a, 'r> {
    /// The checker of task commits.
    checker: &'a Checker<'r>,
    /// The caller's trust.
    trust: &'r Trust,
    /// The tree under review.
    head_tree: &'a GitTree<'r>,
}

impl Claims<'_, '_> {
    /// The row of a task commit's claim of a tick of `unit`, before the verifier policy judges it:
    /// its report, a skip record refused as a tick, and the drift of what it cites at the head.
    fn row(
        &self,
        report: CommitReport,
        unit: Option<&spec::UnitLoc>,
        head_docs: &mut Option<Result<UnitDocs, spec::SpecError>>,
    ) -> Result<TickReport, VerifyError> {
        let found = drift(self.head_tree, unit, head_docs, &report)?;
        let mut tick = TickReport::from_commit(report, self.trust);
        decisions::refuse_skip_as_tick(&mut tick);
        with_drift(&mut tick, found);
        Ok(tick)
    }

    /// What `setter`, a commit that set the box of `target` (of `unit`) again after its task
    /// commit, is to that tick ([`ticked_again`]): a second claim when it is a task commit of the
    /// same task whose own row ([`Self::row`], then `judged`) is `evidenced` (its note agreeing
    /// with its commit and the head's task line, no cited requirement worded otherwise at the
    /// head, ...), else a tick no evidence covers, with the reason of its row.
    fn set_again(
        &self,
        setter: ObjectId,
        target: &str,
        unit: Option<&spec::UnitLoc>,
        head_docs: &mut Option<Result<UnitDocs, spec::SpecError>>,
        judged: impl FnOnce(&mut TickReport),
    ) -> Result<SetAgain, VerifyError> {
        let other = self.checker.check(setter);
        if other.target.as_deref() != Some(target) {
            return Ok(SetAgain::Uncovered(None));
        }
        let mut tick = self.row(other, unit, head_docs)?;
        judged(&mut tick);
        Ok(if tick.outcome == TickOutcome::Evidenced {
            SetAgain::Claim
        } else {
            SetAgain::Uncovered(Some(tick.reason.unwrap_or_else(|| tick.outcome.as_str().to_owned())))
        })
    }
}

/// What a commit that set a box again after its task commit is to that task commit's tick
/// ([`ticked_again`]).
enum SetAgain {
    /// Another task commit of the same task whose own evidence holds: a second claim of the
    /// tick, as a merge of two branches that each attested the task, or a backport, gives.
    Claim,
    /// A tick no evidence covers: a commit that is no task commit of the task (`None`), or one
    /// whose evidence does not hold, with why.
    Uncovered(Option<String>),
}

/// The `ticked_again` row of `target`, whose newest task commit is `commit`, when another commit
/// set its box that `commit` does not descend from ([`BoxSetters::later_setters`]); `stands`
/// says what each such setter is to the tick. A claim leaves the tick to `commit`'s evidence,
/// and a setter it descends from is behind it as one `commit` descends from is. Any other
/// setter is a tick no evidence covers. Verify asks it of each checked task commit, and
/// [`planned_ticks`] of each planned one.
fn ticked_again(
    repo: &Repo,
    setters: &BoxSetters,
    target: &str,
    commit: ObjectId,
    mut stands: impl FnMut(ObjectId) -> Result<SetAgain, VerifyError>,
) -> Result<Option<TickReport>, VerifyError> {
    let mut claims = vec![commit];
    let mut uncovered = Vec::new();
    for setter in setters.later_setters(repo, target, commit)? {
        match stands(setter)? {
            SetAgain::Claim => claims.push(setter),
            SetAgain::Uncovered(why) => uncovered.push((setter, why)),
        }
    }
    uncovered.retain(|(setter, _)| !claims.iter().any(|c| setters.descends(*c, *setter)));
    // A setter counted as one only because a task list before it could not be read is named
    // when no other is: a tick set again for certain is the finding to fix first.
    let unread_at = |setter: &ObjectId| setters.unread_before(target, *setter);
    let Some((setter, why)) = (uncovered.iter().find(|(setter, _)| unread_at(setter).is_none()))
        .or_else(|| uncovered.first())
        .cloned()
    else {
        return Ok(None);
    };
    let after = setters.descends(setter, commit);
    if let Some(list) = unread_at(&setter) {
        let when = if after { "after" } else { "beside" };
        let at = (list.parent, list.error.as_ref());
        return Ok(Some(unread::unread_before_row(
            target,
            &list.unit,
            setter,
            at,
            &format!("{when} the evidence on {commit}"),
        )));
    }
    let when = if after {
        format!("after the evidence on {commit}: something took the tick back in between")
    } else {
        format!("beside the evidence on {commit}, on a line of history merged in")
    };
    let message = match why {
        None => format!(
            "the box was set again by {setter}, which is not a task commit of this task, {when}, so the tick the head shows is not the evidenced one; untick the task in a commit of its own and attest it again"
        ),
        Some(why) => format!(
            "the box was set again by {setter}, another task commit of this task, {when}, and that commit's own evidence does not hold ({why}), so the tick the head shows may be its tick, which no evidence covers: make its evidence hold (`attest sign`, or `attest carry` to it), or untick the task in a commit of its own and attest it again"
        ),
    };
    Ok(Some(TickReport::without_commit(target.to_owned(), "ticked_again", message)))
}

/// What the ticks of `unit` at the head need: a task commit to check (the newest of
/// `task_commit` naming the tick), or the row saying why there is none; and the `<unit>/<task>`
/// ticked there. Only the task list is read: a tick is a claim whatever the spec documents say.
fn plan_unit(
    repo: &Repo,
    head_tree: &dyn SourceTree,
    unit: &spec::UnitLoc,
    task_commit: &HashMap<String, ObjectId>,
    lost: &LostEvidence,
    unclear: &UnclearClaims<'_>,
) -> Result<UnitPlan, VerifyError> {
    let ticks = match spec::unit_ticks(head_tree, unit) {
        Ok(ticks) => ticks,
        Err(e) if failed_without_object(&e) => return Err(e.into()),
        Err(e) => return Ok((vec![Err(Box::new(unread::tasks_unreadable_row(unit, &e)))], None)),
    };
    let ticked_targets: HashSet<String> =
        ticks.ticked.iter().map(|t| format!("{}/{}", unit.name, t.id)).collect();
    let mut rows = Vec::new();
    let mut skips = None;
    for tick in &ticks.ticked {
        let target = format!("{}/{}", unit.name, tick.id);
        if tick.lines.len() > 1 {
            rows.push(Err(Box::new(unread::duplicate_task_row(unit, tick))));
            continue;
        }
        if !task_commit.contains_key(&target)
            && let Some(row) = unclear.row(&target)?
        {
            rows.push(Err(Box::new(row)));
            continue;
        }
        rows.push(match task_commit.get(&target).copied() {
            Some(id) => Ok(id),
            None => Err(Box::new(without_task_commit(repo, unit, target, lost, &mut skips)?)),
        });
    }
    rows.extend(unread::unread_tick_rows(&unit.name, ticks.unread).into_iter().map(|t| Err(Box::new(t))));
    Ok((rows, Some(ticked_targets)))
}

/// The row of `target`, a tick of `unit` that no task commit on the branch names:
/// `commit_unreachable` when a note on a commit the branch cannot reach, or on one no longer in
/// the repository, carries its evidence; else `ticked_without_evidence`, naming the task's skip
/// record when it has one (`skips`: the unit's skip refs, listed when first needed), since a skip
/// ticks nothing and whoever ticked the box may have meant to undo it.
fn without_task_commit(
    repo: &Repo,
    unit: &spec::UnitLoc,
    target: String,
    lost: &LostEvidence,
    skips: &mut Option<HashMap<String, String>>,
) -> Result<TickReport, VerifyError> {
    if let Some(commit) = lost.commit_of(&target) {
        let message = format!(
            "the evidence is on {commit}, which this branch cannot reach, and no commit on it names {target} any more (the task commit left the branch: squashed, dropped, its trailers reworded, or merged by squashing); attest the task again on the branch, and keep task commits on it (merge pull requests with a merge commit), as their notes and signatures stay with them"
        );
        return Ok(TickReport::without_commit(target, "commit_unreachable", message));
    }
    if let Some((commit, gone)) = lost.gone_commit_of(&target) {
        let message = format!(
            "the evidence for {target} is on {}, and no commit on the branch names {target} any more: it can be neither checked nor carried; attest the task again on the branch",
            gone.said(commit)
        );
        return Ok(TickReport::without_commit(target, "commit_unreachable", message));
    }
    let mut message =
        "the task is ticked, but no commit reachable from the head carries Spec-Task: for it with a Verdict:"
            .to_owned();
    if skips.is_none() {
        *skips = Some(decisions::skip_refs(repo, unit)?);
    }
    if let Some(skip) = skips.as_ref().and_then(|skips| skips.get(&target)) {
        message.push_str(&format!(
            "; it has a skip record (`git show {}`), and a skip ticks nothing",
            shell_word(skip)
        ));
    }
    message.push_str(&format!(
        "; to back it with evidence, clear its box in a commit of its own and run `speccoder attest {t} --evidence FILE` (or `speccoder accept {t} --reason TEXT` for a task with nothing to test); boxes ticked by hand before speccoder was adopted are held by a verifier policy's [baseline] (`speccoder attest policy init` writes one)",
        t = shell_word(&target)
    ));
    Ok(TickReport::without_commit(target, "ticked_without_evidence", message))
}

/// The commits of the checked history that name a task in a claim that is not one plain claim
/// ([`unclear_claims`]), read once, when a tick first lacks a task commit.
struct UnclearClaims<'a> {
    /// The repository.
    repo: &'a Repo,
    /// The checked history, newest first.
    reachable: &'a [ObjectId],
    /// `<unit>/<task>` -> the newest such commit and why its claim is not taken.
    found: OnceCell<HashMap<String, (ObjectId, String)>>,
}

impl UnclearClaims<'_> {
    /// The row of `target`, which no task commit names, when a commit of the history names it in
    /// a claim that is not one plain claim: `not_one_claim`, naming that commit and its problem.
    fn row(&self, target: &str) -> Result<Option<TickReport>, VerifyError> {
        if self.found.get().is_none() {
            let _ = self.found.set(unclear_claims(self.repo, self.reachable)?);
        }
        let Some((commit, problem)) = self.found.get().and_then(|found| found.get(target)) else {
            return Ok(None);
        };
        let message = format!(
            "{commit} names {target}, but not in one plain claim, so no commit is taken as its task commit: {problem}; reword it so that its trailers name one task with one Spec-Task: and one Verdict: (`git rebase -i` with `reword`), then attest or carry the task's evidence to it"
        );
        let mut row = TickReport::without_commit(target.to_owned(), NOT_ONE_CLAIM, message);
        row.commit = Some(commit.to_string());
        for finding in &mut row.findings {
            finding.outcome = CommitOutcome::Malformed;
        }
        Ok(Some(row))
    }
}

/// The tasks ticked at `base` that the head no longer ticks: in a checked unit
/// ([`unticked_since`]), or in a unit the head no longer has ([`gone_since`]).
fn taken_back_since(
    repo: &Repo,
    base: ObjectId,
    units: &[spec::UnitLoc],
    planned: &[UnitPlan],
    head_tree: &GitTree<'_>,
) -> Result<Vec<String>, VerifyError> {
    let mut unticked = unticked_since(repo, base, units, planned, head_tree)?;
    unticked.extend(gone_since(repo, base, units, head_tree)?);
    Ok(unticked)
}

/// The tasks ticked at `base` that a checked unit no longer ticks at the head: nothing the branch
/// claims is unproven by it, but a reviewer should see that the branch takes a tick back. Only a
/// list read at both ends is compared: one the head cannot read (its `tasks_unreadable` row says
/// so), or the base's list standing at the head as no unit's, takes back nothing a reader could
/// tell.
fn unticked_since(
    repo: &Repo,
    base: ObjectId,
    units: &[spec::UnitLoc],
    planned: &[UnitPlan],
    head_tree: &GitTree<'_>,
) -> Result<Vec<String>, VerifyError> {
    let base_tree = repo.tree(repo.commit_tree(base)?);
    let mut out = Vec::new();
    for (unit, (_, ticked_here)) in units.iter().zip(planned) {
        let Some(ticked_here) = ticked_here else { continue };
        if base_list_not_the_unit_s(&base_tree, head_tree, unit)? {
            continue;
        }
        // A unit the base does not have, or cannot read, ticked nothing there.
        for id in spec::ticked_ids(&base_tree, &unit.name).unwrap_or_default() {
            let target = format!("{}/{id}", unit.name);
            if !ticked_here.contains(&target) {
                out.push(format!(
                    "{target} is ticked at the base and not at the head: this branch unticks it"
                ));
            }
        }
    }
    Ok(out)
}

/// Whether the task list the base reads as `unit`'s (of the same name) is another file than the
/// head's and still stands at the head, where it is read as no unit's (an archived change whose
/// name a new active change took: its `not_a_unit` row says so where the check reports that
/// place); then the head's list of the name is not the one the base ticked. A base without the
/// unit has no such list.
fn base_list_not_the_unit_s(
    base_tree: &GitTree<'_>,
    head_tree: &GitTree<'_>,
    unit: &spec::UnitLoc,
) -> Result<bool, VerifyError> {
    match spec::locate_unit(base_tree, &unit.name) {
        Ok(at_base) if at_base.tasks != unit.tasks => Ok(head_tree.entry_id(&at_base.tasks)?.is_some()),
        _ => Ok(false),
    }
}

/// The tasks ticked at `base` in a unit whose directory the head no longer has (the branch
/// removed or renamed it): their ticks are taken back with it, which a reviewer should see as
/// [`unticked_since`] shows a tick taken back in place. A unit the head still has elsewhere (an
/// OpenSpec change archived, found at the head as every reader finds it, [`spec::locate_unit`])
/// takes back only what that copy no longer ticks: [`unticked_since`] says it for a unit
/// checked (`units`), and this for any other.
fn gone_since(
    repo: &Repo,
    base: ObjectId,
    units: &[spec::UnitLoc],
    head_tree: &GitTree<'_>,
) -> Result<Vec<String>, VerifyError> {
    let base_tree = repo.tree(repo.commit_tree(base)?);
    let checked: HashSet<&str> = units.iter().map(|u| u.name.as_str()).collect();
    let mut out = Vec::new();
    // A base whose units cannot be listed ticked nothing a reader could tell.
    for unit in spec::list_units(&base_tree).unwrap_or_default() {
        if head_tree.entry_id(&unit.dir)?.is_some() || checked.contains(unit.name.as_str()) {
            continue;
        }
        let moved = spec::locate_unit(head_tree, &unit.name).ok();
        // A copy whose task list cannot be read ticks nothing a reader could tell.
        let kept = match &moved {
            Some(_) => spec::ticked_ids(head_tree, &unit.name).unwrap_or_default(),
            None => Vec::new(),
        };
        for id in spec::ticked_ids(&base_tree, &unit.name).unwrap_or_default() {
            let said = match &moved {
                Some(_) if kept.contains(&id) => continue,
                Some(copy) => format!(
                    "{}/{id} is ticked at the base and not in `{}`, where the head has the unit now: this branch takes the tick back",
                    unit.name, copy.dir
                ),
                None => format!(
                    "{}/{id} is ticked at the base, and the head has no `{}` (the unit was removed or renamed): this branch takes the tick back",
                    unit.name, unit.dir
                ),
            };
            out.push(said);
        }
    }
    Ok(out)
}

/// A base that does not resolve in a shallow clone is history the clone never fetched
/// (`actions/checkout` with its default `fetch-depth: 1` fetches no other branch): said as such,
/// with how to fetch it, rather than as a mistyped name.
fn shallow_or(repo: &Repo, head: ObjectId, rev: &str, e: GitError) -> VerifyError {
    match (&e, repo.shallow_boundary()) {
        (GitError::UnknownRevision { .. }, Ok(boundary)) if !boundary.is_empty() => ShallowCut {
            boundary: boundary.first().copied().unwrap_or(head).to_string(),
            why: format!(
                "the base `{rev}` is not in it (if it is still unknown once the whole history is fetched, the name is wrong)"
            ),
        }
        .into(),
        _ => VerifyError::Git(e),
    }
}

/// A head that does not resolve because it names the current branch before its first commit
/// (`HEAD`, `@`, or the branch's name): said as such, rather than as a mistyped name.
fn unborn_or(repo: &Repo, rev: &str, e: GitError) -> VerifyError {
    match (&e, repo.head()) {
        (GitError::UnbornHead { branch, .. }, _) => VerifyError::Unborn(branch.clone()),
        (GitError::UnknownRevision { .. }, Ok(Head::Unborn(name)))
            if rev == "HEAD" || rev == "@" || name.is(rev) || name.is(&format!("refs/heads/{rev}")) =>
        {
            VerifyError::Unborn(name.to_string())
        }
        _ => VerifyError::Git(e),
    }
}

fn head_commit(repo: &Repo) -> Result<ObjectId, VerifyError> {
    match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Ok(commit),
        Head::Unborn(name) => Err(VerifyError::Unborn(name.to_string())),
    }
}

/// The merge base with the first of origin/HEAD, origin/main, origin/master, main, master that
/// exists and is not the head itself; `None` (every unit) when there is none.
fn default_base(repo: &Repo, head: ObjectId) -> Result<Option<ObjectId>, VerifyError> {
    match default_branch(repo, head)? {
        Some((_, id)) => Ok(repo.merge_base(head, id)?),
        None => Ok(None),
    }
}

/// The base a branch check compares with (`--base REV`, else the default branch) when this clone
/// holds no merge base of it and the head: in a shallow clone, one may lie beyond the boundary
/// ([`completeness::history_reaches`]). `None` with `--all`, without a default branch, or when
/// the merge base is here.
fn unrelated_base(
    repo: &Repo,
    opts: &BranchOptions,
    head: ObjectId,
) -> Result<Option<UnrelatedBase>, VerifyError> {
    let (tip, name, by_default) = match (&opts.base, opts.all) {
        (_, true) => return Ok(None),
        (Some(rev), false) => (repo.rev_parse_peeled(rev)?, rev.clone(), false),
        (None, false) => match default_branch(repo, head)? {
            Some((name, tip)) => (tip, name.to_owned(), true),
            None => return Ok(None),
        },
    };
    Ok(repo.merge_base(head, tip)?.is_none().then_some(UnrelatedBase { tip, name, by_default }))
}

/// The commit of the base a branch check names (`--base REV`), else of the default branch
/// ([`default_branch`]); `None` with `--all`.
fn base_tip(repo: &Repo, opts: &BranchOptions, head: ObjectId) -> Result<Option<ObjectId>, VerifyError> {
    match (&opts.base, opts.all) {
        (_, true) => Ok(None),
        (Some(rev), false) => Ok(Some(repo.rev_parse_peeled(rev)?)),
        (None, false) => Ok(default_branch(repo, head)?.map(|(_, id)| id)),
    }
}

/// The default branch the checked branch is compared with, its reference and commit: the first
/// of the remote's HEAD, its `main` or `master`, the local `main` or `master` that is not `head`
/// itself.
fn default_branch(repo: &Repo, head: ObjectId) -> Result<Option<(&'static str, ObjectId)>, VerifyError> {
    for name in [
        "refs/remotes/origin/HEAD",
        "refs/remotes/origin/main",
        "refs/remotes/origin/master",
        "refs/heads/main",
        "refs/heads/master",
    ] {
        if let Some(id) = repo.ref_target(name)?
            && id != head
        {
            return Ok(Some((name, id)));
        }
    }
    Ok(None)
}
