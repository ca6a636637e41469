//! What a carry that is refused tells its user to do, and the rows of a task whose change, or
//! whose series of changes, differs from the attested one: shared by the plan (which finds such a
//! change before any check) and the checks.

use gix::ObjectId;

use super::RefusedRow;
use crate::attest::same_change::SeriesGap;
pub(super) use crate::check::carriable::attest_again;
use crate::check::completeness::GoneCommit;
use crate::model::shown::shown;

/// The row of a task whose change differs from the attested one.
pub(super) fn change_differs(
    target: &str,
    verdict: Option<&str>,
    from: ObjectId,
    to: ObjectId,
) -> RefusedRow {
    RefusedRow {
        target: target.to_owned(),
        from: from.to_string(),
        to: to.to_string(),
        code: "change_differs",
        reason: format!(
            "the task's change differs from the attested one (attested: {from}, now: {to}); {}",
            attest_again(target, verdict)
        ),
    }
}

/// The row of a task whose evidence is on `from`, a commit the repository does not hold (`gone`
/// says what became of it), so its change cannot be compared. `verdict` is the new commit's,
/// which says how the task is recorded again.
pub(super) fn evidence_gone(
    target: &str,
    verdict: Option<&str>,
    (from, gone): (ObjectId, &GoneCommit),
    to: ObjectId,
) -> RefusedRow {
    RefusedRow {
        target: target.to_owned(),
        from: from.to_string(),
        to: to.to_string(),
        code: "evidence_gone",
        reason: format!(
            "the evidence for {target} is on {}, so it cannot be carried to {to}; {}",
            gone.said(from),
            attest_again(target, verdict)
        ),
    }
}

/// The row of a task whose new commit's history lacks a change of the series the old one's
/// evidence judged (`series_differs`), or whose series is too long to compare
/// (`series_too_long`).
pub(super) fn series_differs(
    target: &str,
    verdict: Option<&str>,
    from: ObjectId,
    to: ObjectId,
    gap: &SeriesGap,
) -> RefusedRow {
    let (code, why) = match gap {
        SeriesGap::Missing { id, subject, parents } if *parents > 2 => (
            "series_differs",
            format!(
                "{id} (`{}`), a merge of {parents} parents of the series before the attested {from}, has no merge or commit of the same whole change against its first parent before {to} (a merge of more than two parents is compared by that whole change, which a rebase that flattens it drops): the evidence judged a tree that held it, and {to}'s does not; keep the merge with `git rebase --rebase-merges`",
                shown(subject, 80)
            ),
        ),
        SeriesGap::Missing { id, subject, parents: 2 } => (
            "series_differs",
            format!(
                "{id} (`{}`), a merge of the series before the attested {from}, changes something of its own (its tree is not what merging its parents gives: a resolution edited it, or its parents conflicted), and no commit before {to} makes that change: the evidence judged a tree that held it, and {to}'s does not (a rebase that flattens merges drops it; keep the merge with `git rebase --rebase-merges` and resolve it as before)",
                shown(subject, 80)
            ),
        ),
        SeriesGap::Missing { id, subject, .. } => (
            "series_differs",
            format!(
                "{id} (`{}`), a commit of the series before the attested {from}, has no commit of the same change before {to}: the evidence judged a tree that held it, and {to}'s does not (an earlier commit was dropped, squashed or amended)",
                shown(subject, 80)
            ),
        ),
        SeriesGap::Undone { id, subject, undone, undone_subject, parents } => {
            let undone_subject = shown(undone_subject, 80);
            let what = if *undone == from {
                format!("the attested task commit {undone} (`{undone_subject}`) itself")
            } else {
                format!("{undone} (`{undone_subject}`), a commit of the series before the attested {from}")
            };
            let (kind, change, shapes) = match parents {
                0 | 1 => (
                    "commit",
                    "its change",
                    "a revert inserted, even one applied again since, is not carried",
                ),
                2 => (
                    "merge",
                    "its change of its own (its tree against the tree merging its parents gives)",
                    "a merge that drops what a parent brought, or whose resolution restores what it changed, is not carried",
                ),
                _ => {
                    ("merge", "its change against its first parent", "a merge that undoes it is not carried")
                }
            };
            (
                "series_differs",
                format!(
                    "{id} (`{}`), a {kind} before {to} that the series of the attested {from} does not hold, undoes {what}: {change} is the inverse of that one's, so the evidence judged a tree that held a change {to}'s history undoes ({shapes})",
                    shown(subject, 80)
                ),
            )
        }
        SeriesGap::TooLong { tip, most } => (
            "series_too_long",
            format!(
                "the commits of {tip}'s history that the other's does not hold are more than {most}, so whether {to} holds every change the evidence of {from} judged is not compared (a --from or --to of another history, or a branch that forked that long ago)"
            ),
        ),
    };
    RefusedRow {
        target: target.to_owned(),
        from: from.to_string(),
        to: to.to_string(),
        code,
        reason: format!("{why}; {}", attest_again(target, verdict)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_is_said_to_be_missing_by_how_many_parents_it_has() {
        let id = ObjectId::null(gix::hash::Kind::Sha1);
        let gap = |parents| SeriesGap::Missing { id, subject: "merge".to_owned(), parents };
        let said = |parents| series_differs("u/T001", None, id, id, &gap(parents)).reason;
        assert!(said(2).contains("a resolution edited it, or its parents conflicted"), "{}", said(2));
        assert!(said(3).contains("a merge of 3 parents") && !said(3).contains("resolution"), "{}", said(3));
        assert!(said(1).contains("an earlier commit was dropped, squashed or amended"), "{}", said(1));
    }

    #[test]
    fn a_commit_that_undoes_a_change_judged_is_said_to_undo_the_one_it_undoes() {
        let [from, to, revert, implement] =
            [1u8, 2, 3, 4].map(|n| ObjectId::from_hex(format!("{n:02x}").repeat(20).as_bytes()).unwrap());
        let undone = |undone| SeriesGap::Undone {
            id: revert,
            subject: "Revert \"implement\"".to_owned(),
            undone,
            undone_subject: "implement".to_owned(),
            parents: 1,
        };
        let said = |undone_id| series_differs("u/T001", None, from, to, &undone(undone_id));
        let of_series = said(implement);
        assert_eq!(of_series.code, "series_differs");
        let reason = of_series.reason;
        assert!(
            reason.starts_with(&format!("{revert} (`Revert \"implement\"`), a commit before {to}")),
            "{reason}"
        );
        let undoes =
            format!("undoes {implement} (`implement`), a commit of the series before the attested {from}:");
        assert!(reason.contains(&undoes), "{reason}");
        assert!(reason.contains("to attest it again"), "{reason}");
        let own = said(from).reason;
        assert!(
            own.contains(&format!("undoes the attested task commit {from} (`implement`) itself:")),
            "{own}"
        );
    }

    #[test]
    fn a_merge_that_undoes_a_change_judged_is_said_to_undo_it_by_its_change_of_its_own() {
        let [from, to, merge, implement] =
            [1u8, 2, 3, 4].map(|n| ObjectId::from_hex(format!("{n:02x}").repeat(20).as_bytes()).unwrap());
        let said = |parents| {
            let gap = SeriesGap::Undone {
                id: merge,
                subject: "Merge branch 'side'".to_owned(),
                undone: implement,
                undone_subject: "implement".to_owned(),
                parents,
            };
            series_differs("u/T001", None, from, to, &gap).reason
        };
        let two = said(2);
        assert!(two.starts_with(&format!("{merge} (`Merge branch 'side'`), a merge before {to}")), "{two}");
        assert!(
            two.contains(
                "its change of its own (its tree against the tree merging its parents gives) is the inverse"
            ),
            "{two}"
        );
        assert!(!two.contains("a revert inserted"), "{two}");
        assert!(said(3).contains("its change against its first parent is the inverse"), "{}", said(3));
    }
}
