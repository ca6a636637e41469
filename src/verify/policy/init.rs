//! `attest policy init`: a starter verifier policy for a repository, to review and adopt. Its
//! baseline names the commit (default HEAD) at which tasks are ticked without a task commit (by
//! hand, before speccoder), so those hold as `baseline` and every later tick follows the rules;
//! its one catch-all rule names the principals of the caller's trust files. Every key has a
//! comment, and the keys a team tightens next are there, commented out.

use std::collections::HashSet;
use std::fmt::Write as _;

use gix::ObjectId;
use serde::Serialize;

use crate::git::{Head, NOTES_REF, Repo};
use crate::model::shown::{ci_safe_json, in_line, leaves_its_line, one_line};
use crate::model::verifier_policy::{ANY, Baseline, CommitId, Principal};
use crate::verify::VerifyError;
use crate::verify::policy::baseline::BaselineView;
use crate::verify::policy::{TICKED_WITHOUT_EVIDENCE, not_held};
use crate::verify::report::TickReport;
use crate::verify::run::{self, Planned};

/// The reason of the baseline `policy init` writes.
const ADOPTED: &str = "ticked by hand before speccoder was adopted";

/// What `attest policy init` found and printed.
#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    /// The policy text (TOML).
    pub policy: String,
    /// The baseline commit, when there are hand ticks.
    pub baseline: Option<String>,
    /// The tasks ticked there without a task commit, `<unit>/<task>`, that verify holds by the
    /// baseline, as verify and `policy check` decide it (each a hand tick of a unit, on one task
    /// line).
    #[serde(serialize_with = "in_line")]
    pub hand_ticks: Vec<String>,
    /// The checked boxes there that the baseline will not hold, each with why and what verify
    /// says of it: a task list that cannot be read, an id that names more than one task line, a
    /// box not read as a task, a place that is no unit's, a task commit without a note, a box set
    /// again after its task commit, a hand tick the baseline would not hold, ...
    #[serde(serialize_with = "in_line")]
    pub unheld: Vec<String>,
    /// The principals the catch-all rule names (`["*"]` without trust files).
    #[serde(serialize_with = "in_line")]
    pub principals: Vec<String>,
    /// The trust files' principals it leaves out, each with why: a policy cannot hold them.
    #[serde(serialize_with = "in_line")]
    pub left_out: Vec<String>,
}

impl std::fmt::Display for InitReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.policy)
    }
}

/// The starter policy for the history of `baseline` (default HEAD), whose catch-all rule names
/// `principals` (the trust files', in their order; `None` when no trust file was given, and
/// `Some` of none when the files given name no principal: `"*"` either way, each with its
/// comment).
///
/// Its baseline's hand ticks and the boxes it will not hold are told as `attest verify --branch
/// --all` tells them ([`run::planned_ticks`]).
///
/// # Errors
/// An unborn branch, an unknown revision, a repository that cannot be read.
pub fn init(
    repo: &Repo,
    baseline: Option<&str>,
    principals: Option<&[String]>,
) -> Result<InitReport, VerifyError> {
    let at = match baseline {
        Some(rev) => repo.rev_parse_peeled(rev)?,
        None => match repo.head()? {
            Head::Branch { commit, .. } | Head::Detached(commit) => commit,
            Head::Unborn(name) => return Err(VerifyError::Unborn(name.to_string())),
        },
    };
    let noted: HashSet<ObjectId> =
        repo.notes(NOTES_REF)?.into_iter().map(|(annotated, _)| annotated).collect();
    // What the baseline will hold is asked of the view verify and `policy check` ask.
    let adoption = Baseline { commit: CommitId(at.to_string()), reason: ADOPTED.to_owned() };
    let (view, _) = BaselineView::new(repo, &adoption, at, None);
    let (planned, setters) = run::planned_ticks(repo, at)?;
    let (mut hand_ticks, mut unheld) = (Vec::new(), Vec::new());
    for planned in planned {
        match planned {
            Planned::Row(mut row) if row.reason.as_deref() == Some(TICKED_WITHOUT_EVIDENCE) => {
                match view.holds(&row.task, &setters) {
                    Ok(()) => hand_ticks.push(row.task),
                    Err(why) => {
                        not_held(&mut row, &view, &why);
                        unheld.push(verify_fails(&row));
                    }
                }
            }
            Planned::Row(row) => unheld.push(verify_fails(&row)),
            Planned::Commit(target, id) if !noted.contains(&id) => unheld.push(format!(
                "{target}: its task commit {id} has no note in {NOTES_REF} (an earlier tool's commit, or notes not fetched), so verify fails it as `missing`, and a baseline never holds a task a task commit claims; fetch its evidence (`speccoder attest fetch`) or attest the task again"
            )),
            Planned::Commit(..) => {}
        }
    }
    let (named, left_out) = nameable(principals.unwrap_or_default());
    let baseline = (!hand_ticks.is_empty()).then(|| at.to_string());
    let facts = Facts { hand_ticks: hand_ticks.len(), unheld: &unheld, left_out: &left_out };
    let policy = text(baseline.as_deref(), &facts, &named, who_signs(principals));
    Ok(InitReport { policy, baseline, hand_ticks, unheld, principals: named, left_out })
}

/// The principals of `principals` a policy can name (`["*"]` when none can), and why each other
/// one is left out: a policy's principal is a text of 1 to 256 bytes without control characters.
fn nameable(principals: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut named, mut refused) = (Vec::new(), Vec::new());
    for p in principals {
        match Principal::try_from(p.clone()) {
            Ok(_) => named.push(p.clone()),
            Err(e) => refused.push((p.len(), e)),
        }
    }
    let then = if named.is_empty() {
        named.push(ANY.to_owned());
        "`signers` is \"*\" instead: anyone the trust accepts"
    } else {
        "the rule fails that signer's ticks (`policy_signer`) until the trust file names the signer by such a text"
    };
    let left_out = refused
        .into_iter()
        .map(|(bytes, e)| {
            format!("a trusted principal of {bytes} bytes is left out of `signers`, which cannot hold it ({e}); {then}")
        })
        .collect();
    (named, left_out)
}

/// Why verify fails `row`, a box no task commit backs that is no hand tick: its place, the code
/// and verify's own words.
fn verify_fails(row: &TickReport) -> String {
    let reason = row.reason.as_deref().unwrap_or("unverifiable");
    let said = row.findings.first().map_or("", |f| f.message.as_str());
    format!("{}: verify fails it as `{reason}`: {said}", row.task)
}

/// What the policy's comments tell of the repository and the trust.
struct Facts<'f> {
    /// How many hand ticks the baseline holds.
    hand_ticks: usize,
    /// The checked boxes it will not hold, each with why.
    unheld: &'f [String],
    /// The trusted principals `signers` leaves out, each with why.
    left_out: &'f [String],
}

/// The comment on `signers`: who may sign a tick, from the trust files' `principals` as
/// [`init`] takes them.
fn who_signs(principals: Option<&[String]>) -> &'static str {
    match principals {
        None => {
            "# Who may sign a tick: \"*\" is anyone the verifier's trust accepts (no trust file was\n\
             # given to `policy init`: name people as the trust files name them).\n"
        }
        Some([]) => {
            "# Who may sign a tick: \"*\" is anyone the verifier's trust accepts (the trust files\n\
             # given to `policy init` name no principal: name people as the trust files name them).\n"
        }
        Some(_) => {
            "# Who may sign a tick: the principals of the trust files given (\"*\": anyone trusted).\n"
        }
    }
}

/// The policy's text, `who` the comment on `signers` ([`who_signs`]).
fn text(baseline: Option<&str>, facts: &Facts<'_>, principals: &[String], who: &str) -> String {
    let Facts { hand_ticks, unheld, left_out } = *facts;
    let quoted: Vec<String> = principals.iter().map(|p| toml_quoted(p)).collect();
    let mut out = String::from(
        "# The speccoder verifier policy (docs/policy.md), from `speccoder attest policy init`.\n\
         # Review it, keep it on the base branch, and have CI read it from there:\n\
         # speccoder attest verify --branch HEAD --base <base> --policy-rev <base>:<this file>\n\
         # The format's version.\nversion = 1\n",
    );
    if let Some(commit) = baseline {
        let _ = write!(
            out,
            "\n# Tasks ticked by hand before speccoder was adopted ({hand_ticks} at this commit): a task\n\
             # ticked at the baseline commit, unchanged since, without a task commit, holds as\n\
             # `baseline`. Every tick made after it follows the rules below.\n\
             [baseline]\n\
             # The adoption commit, by its full id.\n\
             commit = \"{commit}\"\n\
             # Why those ticks hold; every report shows it.\n\
             reason = \"{ADOPTED}\"\n"
        );
    }
    if !unheld.is_empty() {
        out.push_str(
            "\n# Checked boxes at this commit that the baseline will not hold (fix them before adopting):\n",
        );
        for why in unheld {
            // One comment line each, whatever the repository's text holds: its line breaks, line
            // separators and hidden characters escaped.
            let _ = writeln!(out, "# - {}", one_line(why));
        }
    }
    if !left_out.is_empty() {
        out.push_str("\n# Trusted principals `signers` leaves out:\n");
        for why in left_out {
            let _ = writeln!(out, "# - {}", one_line(why));
        }
    }
    let _ = write!(
        out,
        "\n# The first rule whose units match a tick's unit judges it; a tick no rule matches fails.\n\
         [[rule]]\n\
         # Every report row names the rule that judged it.\n\
         name = \"default\"\n\
         # Globs over unit names: \"*\" is every unit. Put rules for particular units above this one.\n\
         units = [\"*\"]\n\
         {who}signers = [{}]\n\
         # What a rule can also ask, each from the signed evidence (uncomment to require it):\n\
         # verdicts = [\"verified\"]              # the verdicts a tick may carry\n\
         # phases = [\"green\", \"held_out\"]       # runs present and passed (held_out: passed = total)\n\
         # approvals = {{ count = 1, by = [\"*\"] }} # others' signatures: `speccoder attest approve`\n\
         # min_mutation_score = 0.8             # mutation caught / (caught + missed)\n\
         # min_strength = 0.9                   # strength.combined.share\n\
         # monitor = [\"clean\"]                  # the gaming monitor's state\n\
         # sandbox = [\"container\", \"vm\"]        # where the attempt ran (sandbox.mode)\n\
         # carried = false                      # refuse evidence re-issued by `attest carry`\n\
         # skips = false                        # a skip does not count for these units\n",
        quoted.join(", ")
    );
    out
}

/// `text` as a TOML basic string in which every character that could break its line, act on a
/// terminal, or reorder or hide text ([`leaves_its_line`]) is written as its `\u` escape, which
/// TOML reads back as the character: the toml crate writes such characters as they are, and the
/// policy is a file a person reviews. A workflow command's `##[` is written `#\u0023[`
/// ([`ci_safe_json`]), so that the printed policy holds none for its output to rewrite and reads
/// back as the trust names the principal.
fn toml_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if leaves_its_line(c) && u32::from(c) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c if leaves_its_line(c) => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    ci_safe_json(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;
    use crate::model::verifier_policy::{LoadedPolicy, VerifierPolicy};
    use crate::verify::policy::lint;

    #[test]
    fn init_counts_the_hand_ticks_its_baseline_holds_as_policy_check_counts_them() {
        let fixture = Fixture::new();
        // A story task of a unit without spec.md: no spec document is read to hold it.
        let tasks = "# Tasks\n\n## Phase 1: User Story 1 - Count (Priority: P1)\n\n- [x] T001 [US1] Count them\n- [x] T002 Route\n";
        fixture.commit_file("specs/001-stats/tasks.md", tasks, "Ticked by hand");
        let repo = fixture.repo();
        let init = init(&repo, None, None).unwrap();
        assert_eq!(
            (init.hand_ticks.as_slice(), init.unheld.as_slice()),
            (&["001-stats/T001".to_owned(), "001-stats/T002".to_owned()][..], &[][..])
        );
        assert!(init.policy.contains("(2 at this commit)"), "{}", init.policy);
        let policy = VerifierPolicy::parse(init.policy.as_bytes(), "p.toml").unwrap();
        let policy =
            LoadedPolicy { policy, sha256: String::new(), source: "p.toml".into(), local_file: true };
        let check = lint::check(&repo, &policy, &[], None, false).unwrap();
        assert_eq!(check.baseline.map(|b| b.holds), Some(init.hand_ticks));
    }

    #[test]
    fn a_principal_is_written_with_its_hidden_and_breaking_characters_escaped_and_reads_back_whole() {
        let hostile = "a\u{202e}b\u{2028}::error::c\u{200b}\"\\\u{1b}[2J\u{e0041}é";
        let quoted = toml_quoted(hostile);
        assert_eq!(quoted, r#""a\u202Eb\u2028::error::c\u200B\"\\\u001B[2J\U000E0041é""#);
        let table: toml::Table = toml::from_str(&format!("p = {quoted}")).unwrap();
        assert_eq!(table["p"].as_str(), Some(hostile));
        assert_eq!(toml_quoted("ada@example.com"), r#""ada@example.com""#);
    }

    #[test]
    fn a_principal_holding_a_workflow_command_is_written_with_its_second_hash_escaped_and_reads_back_whole() {
        let principal = "release##[bot]@example.com ##vso[x]";
        let quoted = toml_quoted(principal);
        assert_eq!(quoted, r#""release#\u0023[bot]@example.com #\u0023vso[x]""#);
        let table: toml::Table = toml::from_str(&format!("p = {quoted}")).unwrap();
        assert_eq!(table["p"].as_str(), Some(principal));
    }
}
