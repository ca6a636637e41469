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
            cited.extend(defined_later.map(|id| Cited {
                id,
                hash: None,
                body: None,
                section: None,
                capability: None,
            }));
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
/// `## REMOVED Requirements`), or in another capability's delta spec (moved word for word from
/// `specs/provider-service/` to `specs/config-service/`): openspec reads the change as doing
/// otherwise with it, or doing it to another spec.
fn section_changed(docs: &UnitDocs, cited: &Cited) -> Option<Finding> {
    let then = cited.section.as_ref()?;
    let now = docs.requirement_section(&cited.id)?;
    let now_capability = docs.requirement_capability(&cited.id);
    if cited.capability != now_capability {
        let (then_capability, now_capability) = (cited.capability.as_deref()?, now_capability?);
        return Some(capability_changed(&cited.id, (then, then_capability), (&now, &now_capability)));
    }
    if now == *then {
        return None;
    }
    let said = format!(
        "requirement {} sat under {} at the tick and sits under {} at the head: openspec reads the change as doing otherwise with it; the evidence proves the earlier change",
        cited.id,
        shown_section(then),
        shown_section(&now)
    );
    Some(Finding::new(CommitOutcome::Ok, "requirement_changed", said).expected_found(then.clone(), now))
}

/// The delta section (or sections) a requirement sits under, as a message shows it.
fn shown_section(section: &str) -> String {
    match section {
        spec::NO_DELTA_SECTION => section.to_owned(),
        one if !one.contains(',') => format!("`## {one} Requirements`"),
        several => format!("the sections {several}"),
    }
}

/// The finding of requirement `id`, defined in the delta spec of another capability at the head
/// than at the tick: each (its delta section, its capability), `then` at the tick and `now` at the
/// head.
fn capability_changed(id: &str, then: (&str, &str), now: (&str, &str)) -> Finding {
    let capability = |name: &str| match name {
        "" => "no capability (a spec.md directly in the change's specs folder)".to_owned(),
        one if !one.contains(',') => format!("capability {one}"),
        several => format!("capabilities {several}"),
    };
    let at_head = if now.0 == then.0 {
        format!("of {}", capability(now.1))
    } else {
        format!("under {} of {}", shown_section(now.0), capability(now.1))
    };
    let said = format!(
        "requirement {id} was defined under {} of {} at the tick, and {at_head} at the head: openspec applies it to another spec; the evidence proves the earlier change",
        shown_section(then.0),
        capability(then.1),
    );
    let both = |(section, capability): (&str, &str)| format!("{section} of {capability}");
    Finding::new(CommitOutcome::Ok, "requirement_changed", said).expected_found(both(then), both(now))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::agreement;
    use crate::spec::MemTree;

    /// The MODIFIED block of a change's delta spec that task 2.3 cites by name.
    const MODIFIED: &str = "## MODIFIED Requirements\n\n### Requirement: Provider CRUD Operations\n\nThe system SHALL manage providers through ProviderService.\n\n#### Scenario: Add provider\n- **WHEN** added\n- **THEN** stored\n";

    /// An OpenSpec change `chg` in `dir` whose task 2.3 cites "Provider CRUD Operations", with
    /// `delta` as the delta spec of `capability`.
    fn change(dir: &str, capability: &str, delta: &str) -> MemTree {
        MemTree::from_files([
            (format!("{dir}/tasks.md"), "- [ ] 2.3 Add unit tests — Provider CRUD Operations\n".to_owned()),
            (format!("{dir}/specs/{capability}/spec.md"), delta.to_owned()),
        ])
        .unwrap()
    }

    /// The drift at `head` of the one requirement task 2.3 cites at `tick`, as the verifier finds it.
    fn drift_of_2_3(tick: &MemTree, head: &MemTree) -> Option<Finding> {
        let cited = agreement::cited(&spec::read_any_task(tick, "chg", "2.3").unwrap());
        assert_eq!(cited.len(), 1, "{cited:?}");
        changed(&UnitDocs::of_unit(head, "chg").unwrap(), &cited[0])
    }

    #[test]
    fn a_cited_requirement_moved_word_for_word_to_another_capability_s_delta_is_drift_and_archiving_is_not() {
        let active = "openspec/changes/chg";
        let tick = change(active, "provider-service", MODIFIED);
        let archived = change("openspec/changes/archive/2026-01-01-chg", "provider-service", MODIFIED);
        assert_eq!(drift_of_2_3(&tick, &archived), None, "the same capability's delta, archived");
        let moved = drift_of_2_3(&tick, &change(active, "config-service", MODIFIED)).unwrap();
        assert_eq!(moved.code, "requirement_changed");
        assert_eq!(
            (moved.expected.as_deref(), moved.found.as_deref()),
            (Some("MODIFIED of provider-service"), Some("MODIFIED of config-service"))
        );
        assert!(
            moved.message.contains(
                "under `## MODIFIED Requirements` of capability provider-service at the tick, and of capability config-service at the head"
            ),
            "{}",
            moved.message
        );
        // An ADDED requirement moved to a new capability, nested, turned MODIFIED on the way.
        let added = MODIFIED.replace("MODIFIED", "ADDED");
        let tick = change(active, "provider-service", &added);
        assert_eq!(drift_of_2_3(&tick, &change(active, "provider-service", &added)), None);
        let moved = drift_of_2_3(&tick, &change(active, "tools/config-service", MODIFIED)).unwrap();
        assert_eq!(moved.found.as_deref(), Some("MODIFIED of tools/config-service"));
        assert!(
            moved.message.contains(
                "and under `## MODIFIED Requirements` of capability tools/config-service at the head"
            ),
            "{}",
            moved.message
        );
    }
}
