//! What a tick's note signed, as far as a verifier policy asks about it: read from the lines that
//! the rules of agreement and the signatures already judged, never from the trailers or the tree.

use serde_json::Value;

use crate::check::agreement::CheckedNote;
use crate::check::line::Body;
use crate::check::signatures::SignerInfo;
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
    /// `mutation`, `strength`, `monitor` and `sandbox` of the task verification, as signed
    /// (`None`: absent).
    pub mutation: Option<Value>,
    /// See [`SignedEvidence::mutation`].
    pub strength: Option<Value>,
    /// See [`SignedEvidence::mutation`].
    pub monitor: Option<Value>,
    /// See [`SignedEvidence::mutation`].
    pub sandbox: Option<Value>,
    /// The evidence was re-issued by `attest carry` (it has `carried`).
    pub carried: bool,
    /// Every signer of the covering line the trust accepts, each key once, in the line's order:
    /// the tick's signer and those who approved it.
    pub covering_signers: Vec<SignerInfo>,
}

impl SignedEvidence {
    /// The facts of `note`, whose covering line `covering_signers` signed.
    #[must_use]
    pub fn read(note: &CheckedNote, covering_signers: Vec<SignerInfo>) -> SignedEvidence {
        let mut out = SignedEvidence { covering_signers, ..SignedEvidence::default() };
        for line in &note.lines {
            if let Body::TestResult(t) = &line.body
                && let Some(phase) = t.phase()
            {
                out.runs.push(SignedRun { phase, result: t.result, counts: t.held_out_counts() });
            }
        }
        if let Some(Body::TaskVerification(p)) = note.task_verification.map(|i| &note.lines[i].body) {
            out.verdict = Verdict::parse(&p.verdict);
            out.mutation.clone_from(&p.audits.mutation);
            out.monitor.clone_from(&p.audits.monitor);
            out.strength.clone_from(&p.guidance.strength);
            out.sandbox.clone_from(&p.setting.sandbox);
            out.carried = p.carried.is_some();
        }
        out
    }
}
