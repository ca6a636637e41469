//! Drift: a tick proves the wording its commit held of the requirements its task cites (for a
//! trailer-only bug task, of its triad); where the head under review words one otherwise, the
//! evidence proves an earlier wording and an evidenced tick is stale. Both ways to run the
//! verifier judge each row here: `--branch` a unit at a time ([`drift`]), over commits in commit
//! order ([`CommitDrift`]).

use gix::ObjectId;

use crate::check::agreement::{Cited, SPEC_UNREADABLE};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::git::{GitTree, Repo};
use crate::model::digest::sha256_hex;
use crate::spec::{self, SourceTree, UnitDocs};
use crate::verify::commit::CommitReport;
use crate::verify::error::VerifyError;
use crate::verify::report::{TickOutcome, TickReport};
use crate::verify::unread::failed_without_object;

/// The drift of the rows of a run over commits, which come in commit order from any unit: the
/// head's documents of the unit the last row named are kept for the next row of that unit.
pub(super) struct CommitDrift<'r> {
    /// The repository.
    repo: &'r Repo,
    /// The tree under review.
    head_tree: GitTree<'r>,
    /// The unit the last row named, and where the head has it (`None`: not there, so its task
    /// is gone at the head and the row fails for that).
    unit: Option<(String, Option<spec::UnitLoc>)>,
    /// That unit's documents at the head, once a row needed them.
    docs: Option<Result<UnitDocs, spec::SpecError>>,
}

impl<'r> CommitDrift<'r> {
    /// Drift against `head_tree`, the tree under review.
    pub(super) fn new(repo: &'r Repo, head_tree: GitTree<'r>) -> Self {
        CommitDrift { repo, head_tree, unit: None, docs: None }
    }

    /// What drifted since the task commit of `report`, for [`with_drift`].
    ///
    /// # Errors
    /// The repository failed without naming an object ([`failed_without_object`]).
    pub(super) fn findings(&mut self, report: &CommitReport) -> Result<Vec<Finding>, VerifyError> {
        let Some((unit, task)) = report.target.as_deref().and_then(|t| t.split_once('/')) else {
            return Ok(Vec::new());
        };
        if let Some(slug) = task.strip_prefix(spec::BUG_TASK_PREFIX) {
            let Ok(commit) = report.commit.parse::<ObjectId>() else { return Ok(Vec::new()) };
            return Ok(triad_drift(self.repo, commit, &self.head_tree, slug).into_iter().collect());
        }
        if self.unit.as_ref().is_none_or(|(name, _)| name != unit) {
            let loc = spec::locate_unit(&self.head_tree, unit).ok();
            self.unit = Some((unit.to_owned(), loc));
            self.docs = None;
        }
        match self.unit.as_ref().and_then(|(_, loc)| loc.as_ref()) {
            Some(loc) => drift(&self.head_tree, Some(loc), &mut self.docs, report),
            None => Ok(Vec::new()),
        }
    }
}

/// `tick` judged with what [`drift`] `found`: a requirement that cannot be read at the head
/// leaves the tick unverifiable (`spec_unreadable`), else one that changed makes an evidenced
/// tick stale.
pub(super) fn with_drift(tick: &mut TickReport, found: Vec<Finding>) {
    let (unreadable, stale): (Vec<Finding>, Vec<Finding>) =
        found.into_iter().partition(|f| f.code == SPEC_UNREADABLE);
    if !unreadable.is_empty() {
        if !tick.outcome.fails() {
            tick.outcome = TickOutcome::Unverifiable;
            tick.reason = Some(SPEC_UNREADABLE.into());
        }
        tick.findings.splice(0..0, unreadable);
    } else if tick.outcome == TickOutcome::Evidenced && !stale.is_empty() {
        tick.outcome = TickOutcome::Stale;
        tick.reason = Some("stale".into());
        tick.findings.extend(stale);
    }
}

/// A cited requirement whose defining line at the head differs from the one the evidence
/// recorded, or whose text beyond it (an OpenSpec requirement's statement and scenarios, the lines
/// a Spec Kit one wraps onto) differs from the task commit's: the tick proves an earlier wording.
/// What the task cites is compared at both commits ([`cited_at_head`]), so a requirement it cites
/// that was defined only after the tick is drift too. `docs` holds the documents at the head of
/// `unit` (where the head has it) once they are read. A requirement that cannot be read at the
/// head (its spec document cannot be, or defines it twice) is a [`SPEC_UNREADABLE`] finding: its
/// drift cannot be told.
pub(super) fn drift(
    head_tree: &dyn SourceTree,
    unit: Option<&spec::UnitLoc>,
    docs: &mut Option<Result<UnitDocs, spec::SpecError>>,
    report: &CommitReport,
) -> Result<Vec<Finding>, VerifyError> {
    if report.cited.is_empty() && report.cites_by_name.is_none() {
        return Ok(Vec::new());
    }
    let docs = match docs {
        Some(docs) => docs,
        None => docs.insert(
            match unit.map_or_else(|| UnitDocs::of_unit(head_tree, ""), |loc| UnitDocs::load(head_tree, loc))
            {
                Err(e) if failed_without_object(&e) => return Err(e.into()),
                read => read,
            },
        ),
    };
    let docs = match docs {
        Ok(docs) => docs,
        Err(e) => return Ok(unreadable_at_head(report, e)),
    };
    let (cited, mut out) = cited_at_head(docs, report);
    out.extend(cited.iter().filter_map(|cited| changed(docs, cited)));
    Ok(out)
}

/// What the task of `report` cites at the head, sorted by id, each with what the task commit held
/// of it: every requirement it cited there, and the names its OpenSpec text holds that `docs`
/// define (one the task commit did not define, as an id undefined then). A [`SPEC_UNREADABLE`]
/// finding when those names cannot be searched for.
fn cited_at_head(docs: &UnitDocs, report: &CommitReport) -> (Vec<Cited>, Vec<Finding>) {
    let mut cited = report.cited.clone();
    let Some(text) = &report.cites_by_name else { return (cited, Vec::new()) };
    match docs.cited_ids(text) {
        Ok(ids) => {
            let defined_later = ids.into_iter().filter(|id| !report.cited.iter().any(|c| c.id == *id));
            cited.extend(defined_later.map(|id| Cited { id, hash: None, body: None, section: None }));
            cited.sort_by(|a, b| a.id.cmp(&b.id));
            (cited, Vec::new())
        }
        Err(e) => {
            let said = format!("what the task's text names cannot be checked for drift at the head: {e}");
            (cited, vec![Finding::new(CommitOutcome::Mismatch, SPEC_UNREADABLE, said)])
        }
    }
}

/// The [`SPEC_UNREADABLE`] findings of the task of `report` when its unit's documents at the head
/// cannot be read (`e`): one for each requirement it cites, or one for its text when it cites none
/// at the task commit.
fn unreadable_at_head(report: &CommitReport, e: &spec::SpecError) -> Vec<Finding> {
    let unreadable =
        |what: String| Finding::new(CommitOutcome::Mismatch, SPEC_UNREADABLE, what).spec_unread(e);
    if report.cited.is_empty() {
        return vec![unreadable(format!(
            "what the task's text names cannot be checked for drift at the head: {e}"
        ))];
    }
    let each = |c: &Cited| {
        unreadable(format!(
            "requirement {}, which the task cites, cannot be checked for drift at the head: {e}",
            c.id
        ))
    };
    report.cited.iter().map(each).collect()
}

/// The drift of requirement `cited` at the head, whose documents are `docs`: its defining line
/// (or its being defined at all) and else its text beyond that line, against the task commit's.
fn changed(docs: &UnitDocs, cited: &Cited) -> Option<Finding> {
    let id = &cited.id;
    let now = match docs.requirement_line(id) {
        Ok(now) => now,
        Err(e) => {
            let said = format!(
                "requirement {id}, which the task cites, cannot be checked for drift at the head: {e}"
            );
            return Some(Finding::new(CommitOutcome::Mismatch, SPEC_UNREADABLE, said));
        }
    };
    let now_hash = now.as_deref().map(sha256_hex);
    if now_hash != cited.hash {
        let said = match cited.hash {
            Some(_) => {
                format!("requirement {id} changed since the tick; the evidence proves the earlier wording")
            }
            None => format!(
                "requirement {id}, which the task cites, was defined after the tick (its spec defined no such requirement then); the evidence proves the task without it"
            ),
        };
        return Some(Finding::new(CommitOutcome::Ok, "requirement_changed", said).expected_found(
            cited.hash.clone().unwrap_or_else(|| "(not defined at the tick)".into()),
            now_hash.unwrap_or_else(|| "(requirement removed)".into()),
        ));
    }
    if let Some(moved) = section_changed(docs, cited) {
        return Some(moved);
    }
    let then = cited.body.as_ref()?;
    let body = docs.requirement_body_hash(id).filter(|body| body != then)?;
    Some(
        Finding::new(CommitOutcome::Ok, "requirement_changed", body_changed(id, docs))
            .expected_found(then.clone(), body),
    )
}

/// OpenSpec requirement `cited`, defined at the head (whose documents are `docs`), sitting under
/// another delta section there than at the task commit (`## ADDED Requirements` turned into
/// `## REMOVED Requirements`): openspec reads the change as doing otherwise with it.
fn section_changed(docs: &UnitDocs, cited: &Cited) -> Option<Finding> {
    let then = cited.section.as_ref()?;
    let now = docs.requirement_section(&cited.id).filter(|now| now != then)?;
    let shown = |section: &str| match section {
        spec::NO_DELTA_SECTION => section.to_owned(),
        one if !one.contains(',') => format!("`## {one} Requirements`"),
        several => format!("the sections {several}"),
    };
    let said = format!(
        "requirement {} sat under {} at the tick and sits under {} at the head: openspec reads the change as doing otherwise with it; the evidence proves the earlier change",
        cited.id,
        shown(then),
        shown(&now)
    );
    Some(Finding::new(CommitOutcome::Ok, "requirement_changed", said).expected_found(then.clone(), now))
}

/// What a `requirement_changed` finding says of requirement `id` whose text beyond its defining
/// line changed (in `docs`' format).
fn body_changed(id: &str, docs: &UnitDocs) -> String {
    let what = if docs.is_spec_kit() {
        format!("the text requirement {id} wraps onto after its defining line (the rest of its paragraph)")
    } else {
        format!("the text under requirement {id}'s heading (its statement or scenarios)")
    };
    format!("{what} changed since the tick; the evidence proves the earlier wording")
}

/// The triad at the head differs from the one at the task commit: the evidence is for an earlier
/// bug home.
pub(super) fn triad_drift(
    repo: &Repo,
    id: ObjectId,
    head_tree: &dyn spec::SourceTree,
    slug: &str,
) -> Option<Finding> {
    let then = spec::bug_triad(&repo.tree(repo.commit_tree(id).ok()?), slug).ok()?.triad_sha256;
    let now = spec::bug_triad(head_tree, slug).map(|t| t.triad_sha256);
    if now.as_ref().is_ok_and(|n| *n == then) {
        return None;
    }
    Some(
        Finding::new(
            CommitOutcome::Ok,
            "triad_changed",
            format!(
                "the bug home {} changed since the tick; the evidence proves the earlier assessment, fix and test",
                spec::bug_home(slug)
            ),
        )
        .expected_found(then, now.unwrap_or_else(|e| format!("(unreadable: {e})"))),
    )
}
