//! Notes git joined line by line, and two notes of one commit a fetch cannot join, told by their
//! cause with advice that works as given (each command run as printed):
//!
//! - a carried note that `git notes merge -s union` joined with the copy git made on a rebase
//!   (`notes.rewriteRef`) is `joined_notes` for the verifier, which names its lines and how to keep
//!   the commit's own; `attest carry` refuses it (26) instead of saying there is nothing to carry;
//! - a remote note `git notes merge -s cat_sort_uniq` made of an unsigned and a signed copy is told
//!   by `attest fetch` as that, never as a task attested twice, and repaired on the remote as told;
//! - two clones' carries of one rebased commit are told as such by `attest fetch`, and settled as
//!   told.

use std::process::Command;

use serde_json::Value;

use crate::common::{self, NOTES_REF, Run};
use crate::team::{self, Clone, Team};

/// Runs `command`, a command line the tool advised, in `clone` as a person pasting it would.
#[track_caller]
fn paste(clone: &Clone<'_>, command: &str) {
    let mut sh = Command::new("sh");
    common::isolate(&mut sh, &clone.team.home);
    sh.args(["-c", command]).current_dir(&clone.dir);
    let run = common::run(sh);
    assert!(run.status.success(), "{command}\n{run}");
}

/// The commands quoted (in backquotes) in `text` after `after`, up to the end of its line.
fn quoted_after(text: &str, after: &str) -> Vec<String> {
    let line = text.lines().find(|l| l.contains(after)).unwrap_or_else(|| panic!("no `{after}` in {text}"));
    let rest = &line[line.find(after).unwrap() + after.len()..];
    rest.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The finding `code` of the one tick of a `verify --json` run.
#[track_caller]
fn finding(run: &Run, code: &str) -> Value {
    let report: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run}"));
    let findings = report["ticks"][0]["findings"].as_array().unwrap();
    findings.iter().find(|f| f["code"] == code).cloned().unwrap_or_else(|| panic!("no {code}: {report:#}"))
}

#[test]
fn a_carried_note_a_union_merge_joined_with_git_s_copy_is_told_as_joined_and_carry_refuses_it() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["config", "notes.rewriteRef", NOTES_REF]);
    let (old, new) = team::tick_rebased_onto_a_moved_main(&team, &ada);
    // Git's copy kept aside (a notes history of its own), the evidence carried, then the copy
    // joined back as a teammate's notes would be, by git's union strategy (which concatenates the
    // two notes).
    let copy = ada.git(&["notes", "--ref", NOTES_REF, "list", &new]);
    ada.git(&["notes", "--ref", "refs/notes/copy", "add", "-C", copy.trim(), &new]);
    ada.git(&["notes", "--ref", NOTES_REF, "remove", &new]);
    ada.speccoder(&["attest", "carry"]).success();
    let own = ada.note(&new).unwrap();
    ada.git(&["notes", "--ref", NOTES_REF, "merge", "-s", "union", "refs/notes/copy"]);
    assert_ne!(ada.note(&new).unwrap(), own, "git joined the two notes");

    let joined = finding(&ada.verify(&["--json"]).failure(26), "joined_notes");
    assert_eq!(joined["outcome"], "malformed", "{joined:#}");
    let message = joined["message"].as_str().unwrap();
    assert!(
        message.starts_with("the note is 2 notes joined line by line (lines 1-5 about this commit"),
        "{message}"
    );
    assert!(message.contains(&format!("lines 7-11 about {old}")), "{message}");
    assert!(message.contains("`git notes merge -s union`") && message.contains("docs/team.md"), "{message}");

    let carry = ada.speccoder(&["attest", "carry", "--json"]).failure(26);
    let row = team::refused_row(&carry);
    assert_eq!(
        (&row["code"], &row["from"], &row["to"]),
        (&"joined_notes".into(), &old.as_str().into(), &new.as_str().into()),
        "{row:#}"
    );
    let keep =
        quoted_after(&ada.speccoder(&["attest", "carry"]).failure(26).stdout, "keep this commit's own note");
    assert_eq!(keep.len(), 1, "{keep:?}");
    paste(&ada, &keep[0]);
    assert_eq!(ada.note(&new).unwrap(), own, "the commit's own note, as carry wrote it");
    ada.assert_evidenced(1);
    assert!(ada.speccoder(&["attest", "carry"]).success().stdout.contains("nothing to carry"));
}

#[test]
fn a_remote_note_cat_sort_uniq_made_of_an_unsigned_and_a_signed_copy_is_told_so_and_repaired_there_as_told() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &["--signer", "none"]);
    ada.speccoder(&["attest", "push"]).success();
    ada.speccoder(&["attest", "sign", &t001]).success();

    // Bob signs his copy, and joins it with the unsigned one (a notes history of its own) by
    // git's cat_sort_uniq strategy: every line of both, sorted, each once; he pushes that.
    bob.git(&["fetch", "-q", "origin"]);
    bob.speccoder(&["attest", "fetch"]).success();
    let unsigned = team.tmp.path().join("unsigned-note");
    std::fs::write(&unsigned, bob.note(&t001).unwrap()).unwrap();
    bob.speccoder(&["attest", "sign", &t001]).success();
    bob.git(&["notes", "--ref", "refs/notes/unsigned", "add", "-F", unsigned.to_str().unwrap(), &t001]);
    bob.git(&["notes", "--ref", NOTES_REF, "merge", "-s", "cat_sort_uniq", "refs/notes/unsigned"]);
    assert_eq!(bob.note(&t001).unwrap().iter().filter(|b| **b == b'\n').count(), 10);
    bob.git(&["push", "-q", "origin", NOTES_REF]);

    let refused = ada.speccoder(&["attest", "fetch"]).failure(14);
    assert!(!refused.stderr.contains("attested twice"), "{refused}");
    let said = format!(
        "{t001}: their note is 2 notes joined line by line (lines 1-10 about this commit, a statement listed more than once)"
    );
    assert!(refused.stderr.contains(&said), "{refused}");
    let repair = quoted_after(&refused.stderr, "so repair it there");
    assert_eq!(repair.len(), 3, "fetch, keep, push: {repair:?}");
    for command in &repair {
        paste(&ada, command);
    }
    assert_eq!(team.remote_note(&t001).unwrap().iter().filter(|b| **b == b'\n').count(), 5);
    ada.speccoder(&["attest", "fetch"]).success();
    for line in ada.note_lines(&t001) {
        assert_eq!(line.signatures.len(), 2, "Ada's signature and Bob's, joined");
    }
    ada.assert_evidenced(1);
    team.fsck(&[&ada, &bob]);
}

#[test]
fn two_clones_carries_of_one_rebased_commit_are_told_so_by_fetch_and_settled_as_told() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let (old, new) = team::tick_rebased_onto_a_moved_main(&team, &ada);
    ada.speccoder(&["attest", "carry"]).success();
    // Another clone's carry of the same evidence, at another time, pushed first.
    let other = team::re_signed(&ada, &new, |p| p["time"] = "2030-01-01T00:00:00Z".into());
    ada.git(&["push", "-q", "origin", "feature-a"]);
    bob.git(&["fetch", "-q", "origin"]);
    bob.git(&["checkout", "-q", "-b", "feature-a", "origin/feature-a"]);
    bob.replace_note(&new, &other);
    bob.speccoder(&["attest", "push"]).success();

    let refused = ada.speccoder(&["attest", "fetch"]).failure(14);
    assert!(!refused.stderr.contains("attested twice, differently"), "{refused}");
    let said = format!("both notes carry the evidence of {old} to this commit");
    assert!(
        refused.stderr.contains(&said) && refused.stderr.contains("nothing was attested twice"),
        "{refused}"
    );
    let settle = quoted_after(&refused.stderr, "keep one: drop yours with");
    assert_eq!(settle[0], format!("git notes --ref={NOTES_REF} remove {new}"), "{refused}");
    paste(&ada, &settle[0]);
    ada.speccoder(&["attest", "fetch"]).success();
    assert_eq!(ada.note(&new).unwrap(), other.as_bytes(), "theirs taken");
    ada.assert_evidenced(1);
}
