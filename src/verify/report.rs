//! The verifier's report: one row per tick (or task commit), totals, and the renderings for a
//! person (text), a machine (`--json`) and a pull request (`--markdown`).

use std::fmt::Write as _;

use serde::Serialize;
use time::format_description::well_known::Rfc3339;

use crate::check::outcome::{CommitOutcome, Finding, Unread, lines_named};
use crate::check::signatures::SignerInfo;
use crate::exit;
use crate::model::clean::unless_leaking;
use crate::model::policy::Recipe;
use crate::model::predicate::{Carried, Verdict};
use crate::model::shown::{hidden_marked, in_line, in_line_commands_escaped};
use crate::model::verifier_policy::LoadedPolicy;
use crate::verify::commit::CommitReport;
use crate::verify::policy::evidence::SignedEvidence;
use crate::verify::trust::{SignatureTime, Trust};

/// The reason (and finding code) of a tick whose verdict `--require-verified` does not accept.
pub const NOT_VERIFIED: &str = "not_verified";

/// The outcome of one ticked task on a branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TickOutcome {
    /// Signed evidence that still matches the spec, code and policy.
    Evidenced,
    /// The evidence holds, but a requirement the task cites changed since: it proves an earlier
    /// wording.
    Stale,
    /// No evidence that holds; the reason says why.
    Unverifiable,
    /// Reserved: a later checkpoint marked the task regressed. Never evaluated by this verifier.
    Regressed,
    /// A person skipped the task (recorded outside the branch); listed, never verified.
    Skipped,
    /// Ticked by hand before speccoder was adopted: ticked at the verifier policy's baseline
    /// commit, unchanged since, without a task commit. Holds, listed and counted apart.
    Baseline,
}

impl TickOutcome {
    /// The wire spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TickOutcome::Evidenced => "evidenced",
            TickOutcome::Stale => "stale",
            TickOutcome::Unverifiable => "unverifiable",
            TickOutcome::Regressed => "regressed",
            TickOutcome::Skipped => "skipped",
            TickOutcome::Baseline => "baseline",
        }
    }

    /// Whether this outcome fails a branch by itself (a `skipped` row can fail too, under
    /// `--require-verified`: [`TickReport::fails`]).
    #[must_use]
    pub fn fails(self) -> bool {
        matches!(self, TickOutcome::Stale | TickOutcome::Unverifiable)
    }
}

/// One ticked task (or, in commit mode, one task commit).
#[derive(Debug, Clone, Serialize)]
pub struct TickReport {
    /// `<unit>/<task>` (a commit's trailer names it, unchecked: quoted).
    #[serde(serialize_with = "in_line")]
    pub task: String,
    /// The task commit, when one was found.
    pub commit: Option<String>,
    /// The verdict the evidence carries.
    #[serde(serialize_with = "in_line")]
    pub verdict: Option<String>,
    /// The outcome.
    pub outcome: TickOutcome,
    /// The commit's outcome, when a commit was checked.
    pub commit_outcome: Option<CommitOutcome>,
    /// The reason code: `ticked_without_evidence`, `ticked_again` (a commit other than the task
    /// commit set the box again after it), `commit_unreachable`, `not_one_claim` (no task commit
    /// names the task, but a commit names it among trailers that are not one plain claim),
    /// `unrecognized_tick` (a
    /// checked box that is not read as a task; the task is `<unit>/tasks.md:<line>`), `stale`, the
    /// commit outcome, or `not_verified` under `--require-verified` (an `unverifiable`
    /// `regression_only` or `attested` tick, or a `skipped` or `baseline` row, which then fails
    /// the run too), or
    /// the code of the verifier policy's first finding (`policy_signer`, ...; a `skipped` row
    /// with it fails the run too).
    pub reason: Option<String>,
    /// What was found, worst first.
    pub findings: Vec<Finding>,
    /// Who signed: each line's trusted signer, and every trusted signer of the line that covers
    /// the note (its maker and those who approved it), each key once.
    pub signers: Vec<SignerInfo>,
    /// Who made the tick, as the signed content tells it (never the order of the signatures);
    /// `None` when no one or several could have.
    pub maker: Option<SignerInfo>,
    /// Where `attest carry` re-issued the evidence from, as it signed it: `{from, patch_id, time}`
    /// (the task commit, the change's patch id, the time of the statement carried); `null` when
    /// the evidence was made on this commit. Its signers are who re-issued it.
    #[serde(serialize_with = "in_line")]
    pub carried: Option<Carried>,
    /// Fields and revisions not evaluated.
    #[serde(serialize_with = "in_line")]
    pub not_evaluated: Vec<String>,
    /// Unsigned lines were accepted (`--accept-unsigned`).
    pub accepted_unsigned: bool,
    /// Lines covered by the summary's signature.
    pub covered_lines: Vec<usize>,
    /// The recipe the signed policy digest follows: `{"recipe": "version_free"}` or
    /// `{"recipe": "published", "speccoder_version": ...}`; `null` when it follows neither (then
    /// a `policy_mismatch` finding says what each gives) or no policy was read.
    pub policy: Option<Recipe>,
    /// The verifier policy's rule that judged the row (absent without a policy, or when no rule
    /// matches its unit).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "in_line")]
    pub rule: Option<String>,
    /// What the note signed, for the verifier policy (read only under one).
    #[serde(skip)]
    pub evidence: Option<Box<SignedEvidence>>,
}

/// A task commit's `Verdict:` trailer as a row gives it: a verdict the wire format names as it
/// is; any other is the commit message's to write, given only when it passes the clean check.
fn verdict_shown(verdict: String) -> String {
    if Verdict::parse(&verdict).is_some() { verdict } else { unless_leaking(verdict) }
}

impl TickReport {
    /// A tick judged by its task commit's report. Under `--require-verified` a verdict other than
    /// `verified` fails: an `attested` or `regression_only` tick is `unverifiable`, and a skip
    /// stays `skipped` (a skip is never evidence, in any mode), both with the reason
    /// `not_verified`.
    #[must_use]
    pub fn from_commit(mut c: CommitReport, trust: &Trust) -> Self {
        c.verdict = c.verdict.map(verdict_shown);
        let verdict = c.verdict.as_deref().and_then(Verdict::parse);
        let not_verified = trust.require_verified && verdict.is_some_and(|v| v != Verdict::Verified);
        let refused = || Some(NOT_VERIFIED.to_owned());
        let (outcome, reason) = match c.outcome {
            // A skip holds as a skip, whichever way it was reached: it is never evidence.
            CommitOutcome::Ok if verdict == Some(Verdict::Skipped) => {
                (TickOutcome::Skipped, if not_verified { refused() } else { None })
            }
            CommitOutcome::Ok if not_verified => (TickOutcome::Unverifiable, refused()),
            CommitOutcome::Ok => (TickOutcome::Evidenced, None),
            other => (TickOutcome::Unverifiable, Some(other.as_str().to_owned())),
        };
        let mut findings = c.findings;
        if not_verified {
            let shown = c.verdict.as_deref().unwrap_or("");
            let message = if verdict == Some(Verdict::Skipped) {
                "--require-verified: a skip is listed, never accepted as verified".to_owned()
            } else {
                format!("--require-verified: the verdict is {shown}, not verified")
            };
            let finding = Finding::new(CommitOutcome::Ok, NOT_VERIFIED, message);
            // When it is why the row fails, it comes first (the one-line renderings show it).
            if c.outcome == CommitOutcome::Ok {
                findings.insert(0, finding);
            } else {
                findings.push(finding);
            }
        }
        TickReport {
            task: c.target.unwrap_or_default(),
            commit: Some(c.commit),
            verdict: c.verdict,
            outcome,
            commit_outcome: Some(c.outcome),
            reason,
            findings,
            signers: c.signers,
            maker: c.maker,
            carried: c.carried,
            not_evaluated: c.not_evaluated,
            accepted_unsigned: c.accepted_unsigned,
            covered_lines: c.covered_lines,
            policy: c.policy,
            rule: None,
            evidence: c.evidence,
        }
    }

    /// Whether this row fails the run: its outcome is `stale` or `unverifiable`, or it is a skip
    /// `--require-verified` or the verifier policy does not accept (reason `not_verified`, or a
    /// policy finding's code), or a baseline tick under `--require-verified` (`not_verified`). The one rule the exit code, the totals and the GitHub annotations
    /// follow.
    #[must_use]
    pub fn fails(&self) -> bool {
        self.outcome.fails() || self.refused_skip() || self.refused_baseline()
    }

    /// A `baseline` row that `--require-verified` does not accept (reason `not_verified`): a
    /// baseline tick that holds has no reason.
    fn refused_baseline(&self) -> bool {
        self.outcome == TickOutcome::Baseline && self.reason.is_some()
    }

    /// A `skipped` row that `--require-verified` or the verifier policy does not accept: a skip
    /// that holds has no reason.
    pub(crate) fn refused_skip(&self) -> bool {
        self.outcome == TickOutcome::Skipped && self.reason.is_some()
    }

    /// A ticked task with no task commit to check.
    #[must_use]
    pub fn without_commit(task: String, reason: &'static str, message: String) -> Self {
        TickReport {
            task,
            commit: None,
            verdict: None,
            outcome: TickOutcome::Unverifiable,
            commit_outcome: None,
            reason: Some(reason.to_owned()),
            findings: vec![Finding::new(CommitOutcome::Missing, reason, message)],
            signers: Vec::new(),
            maker: None,
            carried: None,
            not_evaluated: Vec::new(),
            accepted_unsigned: false,
            covered_lines: Vec::new(),
            policy: None,
            rule: None,
            evidence: None,
        }
    }

    /// The first (worst) finding's message and the note lines it was found at, for one-line
    /// renderings.
    pub(crate) fn headline(&self) -> String {
        let Some((first, lines)) = self.said_once().into_iter().next() else { return String::new() };
        match lines_named(&lines) {
            Some(lines) => format!("{} ({lines})", first.message),
            None => first.message.clone(),
        }
    }

    /// The findings as a person reads them, each with the note lines it was found at: a finding
    /// found alike on several lines of the note ([`Finding::same_but_line`]), as a verdict trailer
    /// edited after the tick makes every line's subject differ, is said once. In the order first
    /// found. `--json` keeps one finding per line.
    pub(crate) fn said_once(&self) -> Vec<(&Finding, Vec<usize>)> {
        let mut said: Vec<(&Finding, Vec<usize>)> = Vec::new();
        for f in &self.findings {
            match said.iter_mut().find(|(first, _)| first.same_but_line(f)) {
                Some((_, lines)) => lines.extend(f.line),
                None => said.push((f, f.line.into_iter().collect())),
            }
        }
        said
    }
}

/// Counts per outcome.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    /// Ticks checked.
    pub checked: usize,
    /// Evidenced.
    pub evidenced: usize,
    /// Stale.
    pub stale: usize,
    /// Unverifiable.
    pub unverifiable: usize,
    /// Regressed (never evaluated).
    pub regressed: usize,
    /// Skipped.
    pub skipped: usize,
    /// Of the skipped, those `--require-verified` or the verifier policy does not accept (each
    /// fails the run).
    pub skipped_not_accepted: usize,
    /// Ticked by hand before adoption, held by the verifier policy's baseline.
    pub baseline: usize,
    /// Of the baseline ticks, those `--require-verified` does not accept (each fails the run).
    pub baseline_not_accepted: usize,
}

/// The whole report, collected: what [`ReportSink`] is given, kept. The renderings
/// ([`Report::to_text`], [`Report::to_markdown`], `--json`) are the same bytes as the writers of
/// [`crate::verify::render`] stream.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `commits` or `branch`.
    pub mode: &'static str,
    /// The head checked (branch mode).
    pub head: Option<String>,
    /// The base the branch was compared with (branch mode); `null`: every unit.
    pub base: Option<String>,
    /// Where the SSH trust came from.
    #[serde(serialize_with = "in_line")]
    pub trust: Option<String>,
    /// Unsigned evidence was accepted on the caller's word.
    pub accept_unsigned: bool,
    /// Every tick.
    pub ticks: Vec<TickReport>,
    /// Counts.
    pub totals: Totals,
    /// Reserved outcomes this verifier does not evaluate.
    pub not_evaluated: Vec<&'static str>,
    /// What did not stop the run but weakens it (a stale Sigstore root used offline).
    #[serde(serialize_with = "in_line")]
    pub warnings: Vec<String>,
    /// The time SSH validity windows and certificates were checked at.
    pub signature_time: SignatureTimeReport,
    /// The verifier policy applied (`--policy`, `--policy-rev`): its sha256 and source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verifier_policy: Option<PolicyReport>,
}

/// How a report names the policy it applied: `{"sha256", "source"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyReport {
    /// The sha256 of the policy file's exact bytes.
    pub sha256: String,
    /// Where it was read: the file as named, or `REV:PATH (<commit>)`.
    #[serde(serialize_with = "in_line")]
    pub source: String,
    /// Whether it was read from a local file (not shown: the source says so).
    #[serde(skip)]
    pub local_file: bool,
}

impl PolicyReport {
    /// The report's name for `policy`.
    #[must_use]
    pub fn of(policy: &LoadedPolicy) -> Self {
        PolicyReport {
            sha256: policy.sha256.clone(),
            source: policy.source.clone(),
            local_file: policy.local_file,
        }
    }
}

/// What a report says before its rows: what was checked, and against what. Every field is known
/// before the first row is decided.
#[derive(Debug, Clone)]
pub struct ReportHead {
    /// `commits` or `branch`.
    pub mode: &'static str,
    /// The head checked (branch mode).
    pub head: Option<String>,
    /// The base the branch was compared with (branch mode); `None`: every unit.
    pub base: Option<String>,
    /// Where the SSH trust came from.
    pub trust: Option<String>,
    /// Unsigned evidence was accepted on the caller's word.
    pub accept_unsigned: bool,
    /// The time SSH validity windows and certificates are checked at.
    pub signature_time: SignatureTimeReport,
    /// The verifier policy applied.
    pub verifier_policy: Option<PolicyReport>,
    /// How many ticks the run checks: the ticks the head shows (branch mode) or the task commits
    /// (commit mode). The rows can be more (skips, bug tasks, strays come after them).
    pub ticks: usize,
}

impl ReportHead {
    /// The head of a `mode` report checked under `trust`, over `ticks` ticks.
    #[must_use]
    pub fn new(mode: &'static str, trust: &Trust, ticks: usize) -> Self {
        ReportHead {
            mode,
            head: None,
            base: None,
            trust: trust.signers.ssh.as_ref().map(|s| s.source.clone()),
            accept_unsigned: trust.accept_unsigned,
            signature_time: SignatureTimeReport::of(trust.signature_time),
            verifier_policy: trust.policy.as_ref().map(PolicyReport::of),
            ticks,
        }
    }

    /// Why a run of this head that listed no row had nothing to check, as its line on stderr
    /// says it. A branch's rows are the ticks at its head, its skips and closed bug tasks: a task
    /// commit of the range whose task is not ticked at the head (an accept unticked since) is no
    /// row, so "no task commit in range" would not be true there.
    #[must_use]
    pub fn nothing_to_check(&self) -> &'static str {
        if self.mode == "branch" {
            "nothing to check (no task is ticked at the head in the units checked, and no skip or closed bug task is there to list, so no task commit in range decides anything that holds at the head)"
        } else {
            "nothing to check (no task commit in range)"
        }
    }
}

/// What a report says after its rows: what needs every row (the totals, whether one fails, the
/// warnings of the whole run).
#[derive(Debug, Clone, Default)]
pub struct ReportEnd {
    /// Counts.
    pub totals: Totals,
    /// What did not stop the run but weakens it, in the order found.
    pub warnings: Vec<String>,
    /// A row fails the run ([`TickReport::fails`]).
    pub fails: bool,
    /// A row's unsigned lines were accepted (`--accept-unsigned`).
    pub accepted_unsigned: bool,
    /// The first object (hex) a row could not be read for, the repository lacking it: the run is
    /// then no verdict, and ends as a repository to repair.
    pub lacks: Option<String>,
    /// The first object (hex) a row could not be read for, the repository holding it corrupt:
    /// the run then fails as a repository to repair ([`crate::verify::VerifyError::CorruptObject`]).
    pub corrupt: Option<String>,
}

impl ReportEnd {
    /// Counts `tick` in.
    pub fn add(&mut self, tick: &TickReport) {
        let t = &mut self.totals;
        t.checked += 1;
        match tick.outcome {
            TickOutcome::Evidenced => t.evidenced += 1,
            TickOutcome::Stale => t.stale += 1,
            TickOutcome::Unverifiable => t.unverifiable += 1,
            TickOutcome::Regressed => t.regressed += 1,
            TickOutcome::Skipped => t.skipped += 1,
            TickOutcome::Baseline => t.baseline += 1,
        }
        if tick.refused_skip() {
            t.skipped_not_accepted += 1;
        }
        if tick.refused_baseline() {
            t.baseline_not_accepted += 1;
        }
        self.fails |= tick.fails();
        self.accepted_unsigned |= tick.accepted_unsigned;
        for unread in tick.findings.iter().filter_map(|f| f.unread.as_deref()) {
            let (first, id) = match unread {
                Unread::Missing(id) => (&mut self.lacks, id),
                Unread::Corrupt(id) => (&mut self.corrupt, id),
            };
            first.get_or_insert_with(|| id.to_string());
        }
    }

    /// The warning a run ends with when the repository lacks an object a row needed.
    #[must_use]
    pub fn lacks_warning(&self) -> Option<String> {
        self.lacks.as_ref().map(|id| {
            format!(
                "object {id} is missing from the repository, so a row could not be checked (its finding names it): fetch it or repair the repository (`git fsck`), and check again; until then this run is no verdict"
            )
        })
    }

    /// 14 when the repository lacks an object a row needed ([`ReportEnd::lacks`]: what a clone
    /// lacks is never evidence that fails), else 26 when a row fails ([`TickReport::fails`]), else
    /// 15 when there was nothing to check (no rows), else 0. Every row was checked, a skip's
    /// decision line and a bug task's commit as much as a tick's evidence, so a branch whose only
    /// rows are skips exits as they came out.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        if self.lacks.is_some() {
            exit::GIT_PRECONDITION
        } else if self.fails {
            exit::DOES_NOT_HOLD
        } else if self.totals.checked == 0 {
            exit::NOTHING_TO_CHECK
        } else {
            exit::OK
        }
    }

    /// The summary line of a report whose head is `head`.
    #[must_use]
    pub fn summary_line(&self, head: &ReportHead) -> String {
        let t = &self.totals;
        let mut s = format!(
            "{} checked: {} evidenced, {} stale, {} unverifiable, {} skipped",
            t.checked, t.evidenced, t.stale, t.unverifiable, t.skipped
        );
        if t.skipped_not_accepted > 0 {
            let by = if head.verifier_policy.is_some() {
                "--require-verified or the verifier policy"
            } else {
                "--require-verified"
            };
            let _ = write!(s, " ({} not accepted by {by})", t.skipped_not_accepted);
        }
        if t.baseline > 0 {
            let _ = write!(s, ", {} baseline (ticked by hand before adoption)", t.baseline);
            if t.baseline_not_accepted > 0 {
                let _ = write!(s, " ({} not accepted by --require-verified)", t.baseline_not_accepted);
            }
        }
        if head.accept_unsigned && self.accepted_unsigned {
            s.push_str("; unsigned evidence ACCEPTED on request (--accept-unsigned)");
        }
        s.push_str("; regressed: not evaluated");
        s
    }
}

/// Where a verifier run puts its report as it decides it: [`ReportSink::begin`] once, then every
/// row in the report's order as soon as it is decided ([`ReportSink::row`]), then
/// [`ReportSink::end`] with what needs every row. A run that fails part way ends without `end`.
/// The text, JSON and Markdown writers ([`crate::verify::render`]) and the collected [`Report`]
/// are sinks; so is any caller that wants the rows as they come (a sink that cannot write keeps
/// its failure and says it when it ends: the run goes on).
pub trait ReportSink {
    /// Before the first row.
    fn begin(&mut self, head: &ReportHead);
    /// One row, in the report's order.
    fn row(&mut self, tick: TickReport);
    /// After the last row.
    fn end(&mut self, head: &ReportHead, end: &ReportEnd);
}

impl<S: ReportSink + ?Sized> ReportSink for &mut S {
    fn begin(&mut self, head: &ReportHead) {
        (**self).begin(head);
    }
    fn row(&mut self, tick: TickReport) {
        (**self).row(tick);
    }
    fn end(&mut self, head: &ReportHead, end: &ReportEnd) {
        (**self).end(head, end);
    }
}

/// What a run hands back besides the rows it streamed: its head and its end. A caller that needs
/// the run's verdict and not its rows (an export of it) keeps this, and a sink of the few row
/// fields it wants, instead of the whole [`Report`].
#[derive(Debug, Clone)]
pub struct Summary {
    /// What was checked, and against what.
    pub head: ReportHead,
    /// The totals, the warnings and whether a row fails.
    pub end: ReportEnd,
}

impl Summary {
    /// The run's exit code ([`ReportEnd::exit_code`]).
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        self.end.exit_code()
    }
}

/// Counts the rows that pass through to `sink` ([`ReportEnd::add`]): the end a run hands on.
pub(crate) struct Counted<S> {
    /// Where the rows go.
    pub sink: S,
    /// What they add up to.
    pub end: ReportEnd,
}

impl<S: ReportSink> Counted<S> {
    /// Counts `tick` and hands it on.
    pub(crate) fn row(&mut self, tick: TickReport) {
        self.end.add(&tick);
        self.sink.row(tick);
    }
}

/// How the report names the signature time: `{"mode": "commit"}`, or `{"mode": "now", "at":
/// "<RFC 3339 UTC>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignatureTimeReport {
    /// `commit` (each task commit's committer date) or `now`.
    pub mode: &'static str,
    /// The time used, for `now`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl SignatureTimeReport {
    fn of(time: SignatureTime) -> Self {
        match time {
            SignatureTime::Commit => SignatureTimeReport { mode: "commit", at: None },
            SignatureTime::Now(now) => {
                let at = now.to_offset(time::UtcOffset::UTC).replace_nanosecond(0).unwrap_or(now);
                SignatureTimeReport { mode: "now", at: at.format(&Rfc3339).ok() }
            }
        }
    }

    /// `signature time: now (<at>)`, or the committer date's sentence.
    pub(crate) fn line(&self) -> String {
        match &self.at {
            Some(at) => format!("signature time: now ({at})"),
            None => "signature time: each task commit's committer date".to_owned(),
        }
    }
}

impl Report {
    /// A report over `ticks`, with the trust's warnings.
    #[must_use]
    pub fn new(mode: &'static str, ticks: Vec<TickReport>, trust: &Trust) -> Self {
        let head = ReportHead::new(mode, trust, ticks.len());
        let mut report = Report::begun(&head);
        let mut end = ReportEnd { warnings: trust.warnings(), ..ReportEnd::default() };
        for tick in ticks {
            end.add(&tick);
            report.row(tick);
        }
        let lacking = end.lacks_warning();
        end.warnings.extend(lacking);
        report.end(&head, &end);
        report
    }

    /// An empty report with `head`'s fields.
    fn begun(head: &ReportHead) -> Self {
        Report {
            mode: head.mode,
            head: head.head.clone(),
            base: head.base.clone(),
            trust: head.trust.clone(),
            accept_unsigned: head.accept_unsigned,
            ticks: Vec::new(),
            totals: Totals::default(),
            not_evaluated: NOT_EVALUATED.to_vec(),
            warnings: Vec::new(),
            signature_time: head.signature_time.clone(),
            verifier_policy: head.verifier_policy.clone(),
        }
    }

    /// The head this report began with (its count of ticks: its rows).
    #[must_use]
    pub fn report_head(&self) -> ReportHead {
        ReportHead {
            mode: self.mode,
            head: self.head.clone(),
            base: self.base.clone(),
            trust: self.trust.clone(),
            accept_unsigned: self.accept_unsigned,
            signature_time: self.signature_time.clone(),
            verifier_policy: self.verifier_policy.clone(),
            ticks: self.ticks.len(),
        }
    }

    /// The end this report closed with.
    #[must_use]
    pub fn report_end(&self) -> ReportEnd {
        let mut end = ReportEnd { warnings: self.warnings.clone(), ..ReportEnd::default() };
        self.ticks.iter().for_each(|t| end.add(t));
        end
    }

    /// Hands the whole report to `sink`, as a run would have.
    pub fn replay(&self, sink: &mut dyn ReportSink) {
        let (head, end) = (self.report_head(), self.report_end());
        sink.begin(&head);
        self.ticks.iter().for_each(|t| sink.row(t.clone()));
        sink.end(&head, &end);
    }

    /// 14 when the repository lacks an object a row needed, else 26 when a row fails, else 15
    /// when there was nothing to check, else 0 ([`ReportEnd::exit_code`]).
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        self.report_end().exit_code()
    }

    /// The summary line.
    #[must_use]
    pub fn summary_line(&self) -> String {
        self.report_end().summary_line(&self.report_head())
    }
}

/// A report that fills in as a run streams into it.
impl ReportSink for Report {
    fn begin(&mut self, head: &ReportHead) {
        *self = Report::begun(head);
    }
    fn row(&mut self, tick: TickReport) {
        self.ticks.push(tick);
    }
    fn end(&mut self, _: &ReportHead, end: &ReportEnd) {
        self.totals = end.totals.clone();
        self.warnings.clone_from(&end.warnings);
    }
}

/// The reserved outcomes this verifier does not evaluate, as every report lists them.
pub const NOT_EVALUATED: [&str; 1] = ["regressed"];

/// `text` from the checked repository (task names, findings, a recorded tool version) as a
/// GitHub-flavoured Markdown table cell that shows it literally and links nothing: one code span
/// ([`code_span`]) in which every `|` is written `\|`: a table row is split into cells before its
/// inlines are read, and `\|` is the escape GFM honours there, code spans included (its cell
/// scanner takes the longest match, so a backslash before it cannot undo it).
pub(crate) fn markdown_code(text: &str) -> String {
    code_span(&text.replace('|', "\\|"))
}

/// `text` as one GitHub-flavoured Markdown code span, outside a table. By the GFM spec, a code
/// span's content is never parsed for emphasis, links, autolinks (the `www.`, `https://` and
/// e-mail extensions included) or HTML, and GitHub adds no @mention, #issue or commit link inside
/// `code`. The fence is one backtick longer than the longest run inside, so nothing inside closes
/// it; one space pads each side, which the span strips (so text that starts or ends with a
/// backtick stays inside). A line break becomes a space; a tab stays, as text output keeps it;
/// any other control character, and one that reorders or hides text ([`hidden_marked`]), is
/// written as its escape (`\u{202e}`), which a code span shows as it is; and a workflow command
/// a CI runner acts on anywhere in a line (`##[`, `##vso[`) has its first `#` escaped, as text
/// output escapes it ([`in_line_commands_escaped`]): the file may be printed in a CI log. The
/// empty text is empty.
pub(crate) fn code_span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let text = in_line_commands_escaped(text);
    let mut longest = 0;
    let mut run = 0;
    let mut inside = String::with_capacity(text.len() + 8);
    for (c, hidden) in hidden_marked(&text) {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
        match c {
            '\n' | '\r' => inside.push(' '),
            c if (c.is_control() && c != '\t') || hidden => inside.extend(c.escape_default()),
            c => inside.push(c),
        }
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {inside} {fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_span_shows_text_that_reorders_or_hides_as_its_escape() {
        assert_eq!(
            code_span("unit\u{202e}exe.txt\u{200b}\u{1b}[1m\tx"),
            "` unit\\u{202e}exe.txt\\u{200b}\\u{1b}[1m\tx `"
        );
    }

    #[test]
    fn repository_text_is_one_code_span_whose_fence_nothing_inside_closes() {
        // Links, addresses, mentions and references: plain text inside a code span.
        assert_eq!(
            markdown_code("see https://evil.example www.evil.example x@evil.example @octocat #1"),
            "` see https://evil.example www.evil.example x@evil.example @octocat #1 `"
        );
        // A fence longer than the longest backtick run; padded, so an edge backtick stays inside.
        assert_eq!(markdown_code("a`b``c"), "``` a`b``c ```");
        assert_eq!(markdown_code("`x`"), "`` `x` ``");
        // A pipe is escaped as GFM reads it in a table cell, a backslash before it included;
        // line breaks become spaces; HTML stays text.
        assert_eq!(markdown_code("a\\|b|c\r\nd<img>"), "` a\\\\|b\\|c  d<img> `");
        assert_eq!(markdown_code(""), "");
        // Outside a table, a pipe is text.
        assert_eq!(code_span("a|b www.evil.example"), "` a|b www.evil.example `");
    }

    #[test]
    fn a_code_span_escapes_a_workflow_command_a_runner_finds_anywhere_in_a_line() {
        assert_eq!(
            markdown_code("- [x] ##vso[task.setvariable variable=X]1 ###[group]g"),
            "` - [x] \\u{23}#vso[task.setvariable variable=X]1 #\\u{23}#[group]g `"
        );
        assert_eq!(code_span("## heading ::error::x"), "` ## heading ::error::x `");
    }

    #[cfg(feature = "sigstore")]
    #[test]
    fn a_stale_sigstore_root_is_a_warning_in_every_rendering() {
        use crate::check::trust::SignatureTrust;
        use crate::sign::sigstore::{DefaultRoot, SigstoreTrustSource, TrustedRoot};
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/sigstore-conformance/production-trusted_root.json");
        let root =
            TrustedRoot::from_file(&path).unwrap_or_else(|e| panic!("the shared production root: {e}"));
        let source = SigstoreTrustSource::lazy("a".into(), "b".into(), move || {
            Ok(DefaultRoot { root: root.clone(), warning: Some("the root is 3 days old".into()) })
        });
        assert!(source.get().is_ok());
        let trust = Trust {
            signers: SignatureTrust { sigstore: Some(source), ..SignatureTrust::default() },
            ..Trust::default()
        };
        let report = Report::new("commits", Vec::new(), &trust);
        assert_eq!(report.warnings, ["the root is 3 days old"]);
        assert!(report.to_text().contains("warning: the root is 3 days old\n"), "{}", report.to_text());
        assert!(report.to_markdown().contains("> **warning:** ` the root is 3 days old `"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["warnings"][0], "the root is 3 days old");
    }

    #[test]
    fn a_row_gives_a_known_verdict_as_written_and_another_only_when_clean() {
        let row = |verdict: &str| {
            let mut commit = CommitReport::new("c".repeat(40));
            commit.verdict = Some(verdict.to_owned());
            let row = TickReport::from_commit(commit, &Trust::default());
            serde_json::to_value(&row).unwrap()["verdict"].as_str().unwrap().to_owned()
        };
        assert_eq!(row("verified"), "verified");
        assert_eq!(row("looks fine"), "looks fine");
        assert_eq!(
            row("ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k"),
            "(a value not shown, as it holds a GitHub token)"
        );
    }

    #[test]
    fn a_report_without_trouble_has_no_warnings() {
        let report = Report::new("commits", Vec::new(), &Trust::default());
        assert!(report.warnings.is_empty());
        assert!(!report.to_text().contains("warning"));
    }
}
