//! What a verifier run that held hands to `attest export`: the head checked and how much of its
//! history, each tick's task commit and level, and the verifier policy it was judged under; and,
//! while it runs, each note it reads ([`NoteKeeper`]). The verifier makes them and the producer's
//! export reads them; neither wing sees the other's types.

use crate::model::predicate::Verdict;
use crate::model::summary;

/// What a tick that holds proves, lowest first: the order of `verifiedLevels` in an export's
/// summary, whose level is the lowest one every tick of the range meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Ticked by hand before adoption, held by the verifier policy's baseline.
    Baseline,
    /// A person's word (`speccoder accept`), no test evidence.
    Attested,
    /// Regression evidence only: no red run proved the task.
    RegressionOnly,
    /// Red and green runs proved the task, and the held-out set passed in full where one ran.
    Verified,
}

impl Level {
    /// The level's name in `verifiedLevels` (`SPECCODER_VERIFIED`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Baseline => summary::LEVEL_BASELINE,
            Level::Attested => summary::LEVEL_ATTESTED,
            Level::RegressionOnly => summary::LEVEL_REGRESSION_ONLY,
            Level::Verified => summary::LEVEL_VERIFIED,
        }
    }

    /// The level a tick with `verdict` proves; a skip proves none (it is never a tick).
    #[must_use]
    pub fn of_verdict(verdict: Verdict) -> Option<Level> {
        match verdict {
            Verdict::Verified => Some(Level::Verified),
            Verdict::RegressionOnly => Some(Level::RegressionOnly),
            Verdict::Attested => Some(Level::Attested),
            Verdict::Skipped => None,
        }
    }
}

/// One tick that holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldTick {
    /// Its task commit (hex); none for a baseline tick.
    pub commit: Option<String>,
    /// What it proves.
    pub level: Level,
}

/// The verifier policy a run was judged under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyRef {
    /// Where it was read: the file as named, or `REV:PATH (<commit>)`.
    pub source: String,
    /// The sha256 of its exact bytes.
    pub sha256: String,
    /// Whether it was read from a local file (`--policy`), whose path is this machine's.
    pub local_file: bool,
}

/// How much of the head's history a run checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum History {
    /// Every commit the head reaches: no range, `--branch --all`, or a branch with no default
    /// branch to take its base from.
    Whole,
    /// The commits the head reaches and this base (hex, the commit the range excludes) does not:
    /// `A..B`, `REV` (as `REV^..REV`), or `--branch` since its base (`--base`, or the merge base
    /// with the default branch).
    Since(String),
}

impl History {
    /// Its name in `attest export --json` (`checked`): `history` or `range`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            History::Whole => "history",
            History::Since(_) => "range",
        }
    }

    /// The commit the range excludes (hex), for [`History::Since`].
    #[must_use]
    pub fn base(&self) -> Option<&str> {
        match self {
            History::Since(base) => Some(base),
            History::Whole => None,
        }
    }
}

/// A range every tick of which holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldRange {
    /// The head commit checked (hex): what the summary is about.
    pub head: String,
    /// How much of the head's history was checked.
    pub history: History,
    /// Its ticks, in the report's order.
    pub ticks: Vec<HeldTick>,
    /// The verifier policy, when one judged the ticks.
    pub policy: Option<PolicyRef>,
}

impl HeldRange {
    /// The lowest level every tick meets; `None` without a tick.
    #[must_use]
    pub fn level(&self) -> Option<Level> {
        self.ticks.iter().map(|t| t.level).min()
    }

    /// The commits checked, in git's revision notation (what `git rev-list` lists): `<head>` for
    /// its whole history, `<base>..<head>` for a range. The summary's resource URI names it, so
    /// that a summary of part of the history never reads as one of the head's whole history.
    #[must_use]
    pub fn revision(&self) -> String {
        match &self.history {
            History::Whole => self.head.clone(),
            History::Since(base) => format!("{base}..{}", self.head),
        }
    }

    /// The task commits of the range, each once, in the order first named.
    #[must_use]
    pub fn task_commits(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.ticks.iter().filter_map(|t| t.commit.as_deref()).filter(|c| seen.insert(*c)).collect()
    }
}

/// Keeps the notes a verifier run reads, as it reads them: `attest export` writes each into its
/// pack then, so that no note is read twice. The verifier calls it from the thread that read the
/// note, once or more for each task commit it checks (the same bytes each time), before it knows
/// whether the range holds.
pub trait NoteKeeper: Send + Sync + std::fmt::Debug {
    /// The note of the task commit `commit` (hex), byte for byte, and the payload sha256 (hex) of
    /// each of its lines the verifier could read, in the note's order.
    fn keep(&self, commit: &str, note: &[u8], payload_sha256: &[&str]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_meets_the_lowest_level_of_its_ticks_and_names_each_commit_once() {
        let tick = |commit: Option<&str>, level| HeldTick { commit: commit.map(str::to_owned), level };
        let mut range = HeldRange {
            head: "h".into(),
            history: History::Whole,
            ticks: vec![tick(Some("a"), Level::Verified), tick(Some("b"), Level::RegressionOnly)],
            policy: None,
        };
        assert_eq!(range.level(), Some(Level::RegressionOnly));
        range.ticks.push(tick(Some("a"), Level::Verified));
        range.ticks.push(tick(None, Level::Baseline));
        assert_eq!(range.level().map(Level::as_str), Some("SPECCODER_BASELINE"));
        assert_eq!(range.task_commits(), ["a", "b"]);
        range.ticks.clear();
        assert_eq!(range.level(), None);
        assert!(Level::Attested < Level::RegressionOnly && Level::RegressionOnly < Level::Verified);
        assert_eq!(Level::of_verdict(Verdict::Skipped), None);
        assert_eq!(Level::of_verdict(Verdict::Attested), Some(Level::Attested));
    }

    #[test]
    fn the_revision_names_the_whole_history_or_a_range_from_its_base() {
        let (head, base) = ("1".repeat(40), "2".repeat(40));
        let range = |history| HeldRange { head: head.clone(), history, ticks: Vec::new(), policy: None };
        assert_eq!(range(History::Whole).revision(), head);
        assert_eq!(range(History::Since(base.clone())).revision(), format!("{base}..{head}"));
    }
}
