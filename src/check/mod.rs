//! The rules a task commit's note must meet against that commit, whoever reads it. They stand on
//! the model, the spec formats, the repository adapter and the signers' verifiers and reach into
//! neither wing, so both may use them: the verifier runs them on every task commit and adds the
//! branch around them; the producer can run them on lines before it signs them, and checks the
//! signatures of evidence against its user's trust before it re-signs it (`attest carry`).
//!
//! From the bottom up: [`outcome`] (what a finding does to a commit's outcome), [`line`](mod@line)
//! (reading a note's line back), [`trailers`] (the task and verdict a commit claims), the rules
//! for a bug task's anchor ([`bug`]), a decision ([`decision`]), a tick's lines ([`tick`]), its
//! trace against the requirements its task cites ([`trace`]), the values the specification allows
//! ([`values`]) and the policy digest ([`policy`](mod@policy)), and [`agreement`], which applies
//! them to one task commit. Beside them: [`trust`] (whom the caller trusts, loaded from the caller's files only),
//! [`signatures`] (whether a line's signatures, and a note's, hold under that trust),
//! [`approvals`] (who counts as an approval of a covering line, for the verifier's policy and
//! `attest approve` alike),
//! [`verifier_policy`] (the caller's rules per unit, loaded as the trust is) and [`held_out`]
//! (a published held-out set, read as git reads it, by the verifier and by `held-out publish`),
//! and [`completeness`] (what a clone must hold, or fetch, before a task commit is checked), and
//! [`carriable`] (what keeps evidence from being carried to a rewritten commit, for `attest carry`
//! and the verifier's advice alike).

pub mod agreement;
pub mod approvals;
pub mod bug;
pub mod carriable;
pub mod completeness;
pub mod decision;
pub mod held_out;
pub mod line;
pub mod outcome;
pub mod policy;
pub mod signatures;
pub mod tick;
pub mod trace;
pub mod trailers;
pub mod trust;
pub mod values;
pub mod verifier_policy;
