//! What a tick's note signed, as far as a verifier policy asks about it: read from the lines that
//! the rules of agreement and the signatures already judged, never from the trailers or the tree,
//! and kept as the few values the rules compare (a run holds a row per tick).

use serde_json::Value;

use crate::check::agreement::CheckedNote;
use crate::check::line::Body;
use crate::check::signatures::LineSigners;
use crate::model::predicate::Verdict;
use crate::model::test_result::{Phase, TestOutcome};

/// One signed test run: its phase, result and held-out counts `(passed, total)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignedRun {
    /// The phase.
    pub phase: Phase,
    /// Its result.
    pub result: TestOutcome,
    /// `(passed, total)` of a held-out run.
    pub counts: Option<(u64, u64)>,
}

/// The signed facts of one note that a rule can ask about.
#[derive(Debug, Clone, Default)]
pub struct SignedEvidence {
    /// The signed verdict (`None`: the note has no task-verification line this verifier reads).
    pub verdict: Option<Verdict>,
    /// The signed test runs, in note order.
    pub runs: Vec<SignedRun>,
    /// `(caught, missed)` of the signed `mutation` (`None`: absent, or not two whole counts).
    pub mutation: Option<(u64, u64)>,
    /// The signed `strength.combined.share` (`None`: absent, or not a number).
    pub strength: Option<f64>,
    /// The signed `monitor.state` (`None`: absent, or not a string).
    pub monitor: Option<String>,
    /// The signed `sandbox.mode` (`None`: absent, or not a string).
    pub sandbox: Option<String>,
    /// The evidence was re-issued by `attest carry` (it has `carried`).
    pub carried: bool,
    /// The trusted signers of the covering line: who made the tick (as what was signed tells
    /// it) and those who approved it.
    pub covering: LineSigners,
}

impl SignedEvidence {
    /// The facts of `note`, whose covering line `covering` signed.
    #[must_use]
    pub fn read(note: &CheckedNote, covering: LineSigners) -> SignedEvidence {
        let mut out = SignedEvidence { covering, ..SignedEvidence::default() };
        for line in &note.lines {
            if let Body::TestResult(t) = &line.body
                && let Some(phase) = t.phase()
            {
                out.runs.push(SignedRun { phase, result: t.result, counts: t.held_out_counts() });
            }
        }
        if let Some(Body::TaskVerification(p)) = note.task_verification.map(|i| &note.lines[i].body) {
            out.verdict = Verdict::parse(&p.verdict);
            let mutation = p.audits.mutation.as_ref();
            let count = |name| field(mutation, &[name]).and_then(Value::as_u64);
            out.mutation = count("caught").zip(count("missed"));
            out.strength =
                field(p.guidance.strength.as_ref(), &["combined", "share"]).and_then(Value::as_f64);
            let text = |v: Option<&Value>, name| field(v, &[name]).and_then(Value::as_str).map(str::to_owned);
            out.monitor = text(p.audits.monitor.as_ref(), "state");
            out.sandbox = text(p.setting.sandbox.as_ref(), "mode");
            out.carried = p.carried.is_some();
        }
        out
    }
}

/// The value at `path` inside `value` (objects only).
fn field<'v>(value: Option<&'v Value>, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(value?, |v, key| v.get(key))
}
