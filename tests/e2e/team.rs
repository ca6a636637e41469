//! The team flow end to end: a bare remote, two writers' clones and a CI clone, driven by the real
//! `git` and the built `speccoder`, checked with `git notes show`, `git fsck --strict` and
//! `ssh-keygen -Y verify`. Each test builds its own remote:
//!
//! - two writers attest different tasks and `attest push` at the same time; the CI clone
//!   `attest fetch`es and every tick of both branches is `evidenced`;
//! - a rebase onto a moved main, then `attest carry`, verifies again (and a note git copied
//!   with `notes.rewriteRef` is replaced the same way; a cherry-pick is carried with
//!   `--from/--to`);
//! - the same with `speccoder hooks install` and a plain `git rebase` (and `git commit --amend`);
//!   a hooks directory the repository committed as a link is never written through;
//! - an amended task change is refused by `carry`; so is a task commit whose implementation a
//!   `git rebase -i` dropped (by the hook too), while a series rebased, reordered and joined by
//!   another commit is carried; of two writers' task commits with the same tick, carry takes the
//!   one whose series the branch holds, never the other writer's newer one;
//! - carry re-signs only evidence its carrier trusts: an untrusted signer (also through the hook
//!   on a plain rebase), a note edited after signing, an unsigned note are refused; with no trust
//!   configured nothing is carried; `--from X --to X` is refused and X's note stays;
//! - a line signed later in one clone merges over its unsigned copy in the other; different
//!   statements on one commit are a conflict and change nothing, and so are copies of one
//!   statement whose `payloadType` alone differs, named as that field;
//! - a depth-1 clone exits 14 with the fetch advice; a clone without notes exits 14 saying to
//!   run `attest fetch`; a shallow clone whose checked branch is whole checks a hand tick as a
//!   complete clone does;
//! - a `--filter=blob:none` clone verifies after `attest fetch`, fetching what it reads in one
//!   `git fetch`;
//! - `attest approve` and `attest sign` in a depth-1 clone exit 14 with the fetch advice and write
//!   nothing; in a `--filter=blob:none` clone they fetch what they check first, as verify does;
//! - `--github` output, line by line, and `--allow-empty`;
//! - a clone without an identity fetches and pushes (only a notes merge commit needs one);
//! - a remote named as git allows but no Windows path may be (`a|b`, `a.`, `aux`) is pushed to
//!   and fetched from, and verify's advice to fetch from it works as given; one configured under a
//!   name no reference can hold is refused before anything is written, with the rename that fixes
//!   it;
//! - the branch goes where `push.default` sends it, and a refusal's advice names that ref;
//! - a held-out ref the remote replaced by force (by one holding other sets) or deleted is joined
//!   or kept in every clone, never rewound: no published set is lost;
//! - a skip conflict is reported by every fetch and by push until one side is kept, also when a
//!   pushed skip is undone and made again in the same clone;
//! - a skip the remote replaced is taken by the other clones, each told which skip it replaced
//!   and how to take it back;
//! - a fetch that stopped after git fetched and before the merge (killed, no identity for a
//!   notes merge commit, a notes conflict resolved as told) takes the remote's new skip and
//!   held-out set, and follows its deleted skip (which push then does not make again), when run
//!   again; the lock a killed fetch left is named by the next fetch and push, with its remedy,
//!   and SIGTERM or Ctrl-C leaves none;
//! - a push without a fetch first deletes here a skip another clone deleted on the remote, as
//!   fetch would, and sends one changed here since; a note the remote's notes removed is named as
//!   removed, with commands that, run as given, keep ours or accept the removal;
//! - two fetches, or a fetch beside a push that fetches, run at once again and again: each exits 0
//!   or names the fetch lock, and no skip the remote holds is ever deleted.
//!
//! Every repository of every test passes `git fsck --strict` at the end.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Evidence, Key, NOTES_REF, PRINCIPAL, Run, SPECKIT_UNIT};
use serde_json::Value;

/// The second writer's principal.
pub(crate) const BOB: &str = "bob@example.com";
/// Where the project keeps its trust, on main.
const ALLOWED: &str = ".github/allowed_signers";

/// `<unit>/<task>` of the Spec Kit fixture.
pub(crate) fn task(id: &str) -> String {
    format!("{SPECKIT_UNIT}/{id}")
}

/// A bare remote whose main holds the Spec Kit fixture and the trust file, and the keys of two
/// writers.
pub(crate) struct Team {
    pub(crate) tmp: tempfile::TempDir,
    pub(crate) home: PathBuf,
    pub(crate) remote: PathBuf,
    pub(crate) ada: Key,
    pub(crate) bob: Key,
    /// A key nobody trusts.
    pub(crate) mallory: Key,
}

/// One clone of the remote.
pub(crate) struct Clone<'t> {
    pub(crate) team: &'t Team,
    pub(crate) dir: PathBuf,
}

impl Team {
    pub(crate) fn new() -> Team {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let keys = tmp.path().join("keys");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&keys).unwrap();
        let ada = common::ed25519(&keys, "ada");
        let bob = common::ed25519(&keys, "bob");
        let mallory = common::ed25519(&keys, "mallory");
        let remote = tmp.path().join("remote.git");
        let team = Team { remote, home, ada, bob, mallory, tmp };
        team.run_git(team.tmp.path(), &["init", "-q", "--bare", "-b", "main", "remote.git"]);
        // What GitHub offers: filters for partial clones.
        team.run_git(&team.remote, &["config", "uploadpack.allowFilter", "true"]);
        let seed = team.tmp.path().join("seed");
        common::copy_dir(&common::crate_root().join("fixtures/speckit"), &seed);
        std::fs::create_dir_all(seed.join(".github")).unwrap();
        common::allowed_signers(&seed.join(ALLOWED), &[(PRINCIPAL, &team.ada), (BOB, &team.bob)]);
        team.run_git(&seed, &["init", "-q", "-b", "main"]);
        team.identity(&seed, "Maintainer", "maintainer@example.com");
        team.run_git(&seed, &["add", "-A"]);
        team.run_git(&seed, &["commit", "-q", "-m", "The project, and whom it trusts"]);
        let url = team.url();
        team.run_git(&seed, &["remote", "add", "origin", &url]);
        team.run_git(&seed, &["push", "-q", "origin", "main"]);
        team
    }

    pub(crate) fn url(&self) -> String {
        format!("file://{}", self.remote.display())
    }

    #[track_caller]
    pub(crate) fn run_git(&self, dir: &Path, args: &[&str]) -> String {
        let out = common::run(common::git_command(dir, &self.home, args));
        assert!(out.status.success(), "git {args:?} in {}\n{out}", dir.display());
        out.stdout
    }

    pub(crate) fn identity(&self, dir: &Path, name: &str, email: &str) {
        for (k, v) in [("user.name", name), ("user.email", email), ("commit.gpgsign", "false")] {
            self.run_git(dir, &["config", k, v]);
        }
    }

    /// A clone of the remote (`extra`: `--depth 1`, `--filter=blob:none`, `-b <branch>`).
    pub(crate) fn clone(&self, name: &str, extra: &[&str]) -> Clone<'_> {
        let clone = self.clone_without_identity(name, extra);
        self.identity(&clone.dir, name, &format!("{name}@example.com"));
        clone
    }

    /// A clone with no `user.name` or `user.email` anywhere, as a fresh CI checkout is.
    pub(crate) fn clone_without_identity(&self, name: &str, extra: &[&str]) -> Clone<'_> {
        let mut args = vec!["clone", "-q"];
        args.extend(extra);
        let url = self.url();
        args.push(&url);
        args.push(name);
        self.run_git(self.tmp.path(), &args);
        Clone { team: self, dir: self.tmp.path().join(name) }
    }

    /// A writer's clone: their identity and their SSH signing key in git's config, as for signed
    /// commits, and whom they trust (Ada and Bob) in git's `gpg.ssh.allowedSignersFile`, a file
    /// outside the clone, as for `git verify-commit`: what `attest carry` checks evidence against.
    pub(crate) fn writer(&self, name: &str, key: &Key) -> Clone<'_> {
        let clone = self.clone(name, &[]);
        clone.git(&["config", "gpg.format", "ssh"]);
        clone.git(&["config", "user.signingKey", key.private.to_str().unwrap()]);
        let trust = self.trust_file(&format!("trust-{name}"), &[(PRINCIPAL, &self.ada), (BOB, &self.bob)]);
        clone.git(&["config", "gpg.ssh.allowedSignersFile", trust.to_str().unwrap()]);
        clone
    }

    /// An allowed-signers file outside every clone.
    pub(crate) fn trust_file(&self, name: &str, entries: &[(&str, &Key)]) -> PathBuf {
        std::fs::create_dir_all(self.tmp.path().join(name)).unwrap();
        common::allowed_signers(&self.tmp.path().join(name).join("allowed_signers"), entries)
    }

    /// Moves main on the remote by one commit that touches no spec.
    pub(crate) fn move_main(&self, what: &str) {
        let dir = self.tmp.path().join("seed");
        self.run_git(&dir, &["pull", "-q", "--ff-only", "origin", "main"]);
        std::fs::write(dir.join(format!("{what}.txt")), what).unwrap();
        self.run_git(&dir, &["add", "-A"]);
        self.run_git(&dir, &["commit", "-q", "-m", what]);
        self.run_git(&dir, &["push", "-q", "origin", "main"]);
    }

    /// `git fsck --strict` of the remote and of every clone given.
    #[track_caller]
    pub(crate) fn fsck(&self, clones: &[&Clone<'_>]) {
        self.run_git(&self.remote, &["fsck", "--strict"]);
        for clone in clones {
            clone.git(&["fsck", "--strict"]);
        }
    }

    /// The remote's note of `commit`, as `git notes show` prints it.
    pub(crate) fn remote_note(&self, commit: &str) -> Option<Vec<u8>> {
        let out =
            common::git_command(&self.remote, &self.home, &["notes", "--ref", NOTES_REF, "show", commit])
                .stdin(Stdio::null())
                .output()
                .unwrap();
        out.status.success().then_some(out.stdout)
    }
}

impl Clone<'_> {
    #[track_caller]
    pub(crate) fn git(&self, args: &[&str]) -> String {
        self.team.run_git(&self.dir, args)
    }

    pub(crate) fn git_run(&self, args: &[&str]) -> Run {
        common::run(common::git_command(&self.dir, &self.team.home, args))
    }

    pub(crate) fn rev(&self, rev: &str) -> String {
        self.git(&["rev-parse", "--verify", rev]).trim().to_owned()
    }

    pub(crate) fn speccoder<S: AsRef<OsStr>>(&self, args: &[S]) -> Run {
        common::run(self.speccoder_command(args))
    }

    pub(crate) fn speccoder_command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        common::speccoder_command(&self.dir, &self.team.home, args)
    }

    /// `speccoder attest <task>` with verified evidence, on the current branch.
    #[track_caller]
    pub(crate) fn attest(&self, id: &str, extra: &[&str]) -> String {
        let dir = self
            .team
            .tmp
            .path()
            .join(format!("evidence-{}-{id}", self.dir.file_name().unwrap().to_string_lossy()));
        let evidence = common::write_evidence(&dir, &task(id), Evidence::Verified);
        let target = task(id);
        let mut args: Vec<&OsStr> = vec!["attest".as_ref(), target.as_ref(), "--evidence".as_ref()];
        args.push(evidence.as_os_str());
        args.extend(extra.iter().map(OsStr::new));
        self.speccoder(&args).success();
        self.rev("HEAD")
    }

    /// `attest verify --branch` against main's trust file, as CI runs it.
    pub(crate) fn verify(&self, extra: &[&str]) -> Run {
        let mut args = vec![
            "attest",
            "verify",
            "--branch",
            "HEAD",
            "--base",
            "refs/remotes/origin/main",
            "--allowed-signers-rev",
            "refs/remotes/origin/main:.github/allowed_signers",
        ];
        args.extend(extra);
        self.speccoder(&args)
    }

    /// The verify report as JSON; every tick must be `evidenced`, and there must be `ticks`.
    #[track_caller]
    pub(crate) fn assert_evidenced(&self, ticks: usize) -> Value {
        let out = self.verify(&["--json"]);
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
        let rows = report["ticks"].as_array().unwrap();
        assert_eq!(rows.len(), ticks, "{out}");
        for row in rows {
            assert_eq!(row["outcome"], "evidenced", "{}", serde_json::to_string_pretty(row).unwrap());
        }
        assert_eq!(out.code(), Some(0), "{out}");
        report
    }

    /// Replaces `rev`'s note with `text` byte for byte (`git notes add -f --no-stripspace`).
    pub(crate) fn replace_note(&self, rev: &str, text: &str) {
        let file = self.team.tmp.path().join(format!("note-of-{rev}"));
        std::fs::write(&file, text).unwrap();
        let file = file.to_str().unwrap();
        self.git(&["notes", "--ref", NOTES_REF, "add", "-f", "--no-stripspace", "-F", file, rev]);
    }

    pub(crate) fn note(&self, rev: &str) -> Option<Vec<u8>> {
        let out =
            common::git_command(&self.dir, &self.team.home, &["notes", "--ref", NOTES_REF, "show", rev])
                .stdin(Stdio::null())
                .output()
                .unwrap();
        out.status.success().then_some(out.stdout)
    }

    #[track_caller]
    pub(crate) fn note_lines(&self, rev: &str) -> Vec<common::NoteLine> {
        common::parse_bundle(&self.note(rev).unwrap_or_else(|| panic!("{rev} has no note")))
    }

    /// Sets task `id`'s box in the Spec Kit unit's task list by hand (`X` ticked, ` ` open) and
    /// commits that with `message`, as a person editing `tasks.md` would.
    pub(crate) fn set_box_by_hand(&self, id: &str, ticked: bool, message: &str) {
        let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
        let (from, to) = if ticked { ("- [ ] ", "- [X] ") } else { ("- [X] ", "- [ ] ") };
        let text = std::fs::read_to_string(self.dir.join(&tasks)).unwrap();
        self.write(&tasks, &text.replacen(&format!("{from}{id}"), &format!("{to}{id}"), 1));
        self.git(&["commit", "-q", "-am", message]);
    }

    pub(crate) fn write(&self, rela: &str, text: &str) {
        let path = self.dir.join(rela);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Every ref with its value, to see that a command changed nothing.
    pub(crate) fn refs(&self) -> String {
        self.git(&["for-each-ref", "--format=%(refname) %(objectname)"])
    }

    /// The allowed-signers file of main, in a scratch place (for `ssh-keygen -Y verify`).
    pub(crate) fn allowed_file(&self) -> PathBuf {
        let path = self.team.tmp.path().join("allowed_signers_for_peers");
        std::fs::write(&path, self.git(&["show", "origin/main:.github/allowed_signers"])).unwrap();
        path
    }
}

/// The task verification's `predicateType`.
const TASK_VERIFICATION_TYPE: &str = "https://speccoder.dev/task-verification/v0";
/// The summary's `predicateType`.
const SUMMARY_TYPE: &str = "https://slsa.dev/verification_summary/v1";

/// The task-verification statement of a note.
pub(crate) fn task_verification(lines: &[common::NoteLine]) -> &Value {
    &lines.iter().find(|l| l.predicate_type() == TASK_VERIFICATION_TYPE).unwrap().statement
}

/// Fails unless every line carries one signature that `ssh-keygen -Y verify` accepts for
/// `principal`.
#[track_caller]
pub(crate) fn assert_signed_by(dir: &Path, allowed: &Path, principal: &str, lines: &[common::NoteLine]) {
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line.signatures.len(), 1, "line {} should carry one signature", i + 1);
        let out = common::ssh_verify(dir, allowed, principal, &line.signatures[0].1, &line.pae());
        assert!(out.status.success(), "line {} does not verify for {principal}\n{out}", i + 1);
    }
}

#[test]
fn two_writers_push_at_the_same_time_and_ci_verifies_every_tick_of_both() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    let t003 = ada.attest("T003", &[]);
    bob.git(&["checkout", "-q", "-b", "feature-b"]);
    let t002 = bob.attest("T002", &[]);

    // Both push at the same instant: one is overtaken, fetches, merges and pushes again.
    let spawn = |c: &Clone<'_>| {
        c.speccoder_command(&["attest", "push", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(&ada), spawn(&bob));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    for out in [&a, &b] {
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let reports: Vec<Value> = [&a, &b].iter().map(|o| serde_json::from_slice(&o.stdout).unwrap()).collect();
    let attempts: Vec<u64> = reports.iter().map(|r| r["attempts"].as_u64().unwrap()).collect();
    assert!(attempts.contains(&1), "one push went through at once: {attempts:?}");
    assert!(attempts.iter().any(|n| *n > 1), "the other was overtaken and pushed again: {attempts:?}");

    // The remote holds every note, each exactly as its writer wrote it.
    for (clone, commit) in [(&ada, &t001), (&ada, &t003), (&bob, &t002)] {
        assert_eq!(team.remote_note(commit), clone.note(commit), "{commit}");
    }
    // The overtaken writer's notes are a merge with both parents, which git reads as notes.
    let merged = reports.iter().position(|r| r["attempts"].as_u64() > Some(1)).unwrap();
    let overtaken = if merged == 0 { &ada } else { &bob };
    let parents = overtaken.git(&["rev-list", "--parents", "-n", "1", NOTES_REF]);
    assert_eq!(parents.split_whitespace().count(), 3, "a notes commit with two parents: {parents}");
    assert!(overtaken.note(&t001).is_some() && overtaken.note(&t002).is_some());

    // CI: fetch the evidence, check both branches against main's trust.
    let ci = team.clone("ci", &[]);
    let fetched = ci.speccoder(&["attest", "fetch"]).success();
    assert!(fetched.stdout.contains("fast-forward"), "{fetched}");
    let refs = ci.refs();
    let again = ci.speccoder(&["attest", "fetch", "--json"]).success();
    assert_eq!(ci.refs(), refs, "fetching again changes nothing");
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(again["notes"]["outcome"], "up_to_date");
    ci.git(&["checkout", "-q", "feature-a"]);
    let report = ci.assert_evidenced(2);
    assert_eq!(report["ticks"][0]["signers"][0]["principals"][0], PRINCIPAL);
    ci.git(&["checkout", "-q", "feature-b"]);
    let report = ci.assert_evidenced(1);
    assert_eq!(report["ticks"][0]["signers"][0]["principals"][0], BOB);
    let allowed = ci.allowed_file();
    assert_signed_by(team.tmp.path(), &allowed, BOB, &ci.note_lines(&t002));
    assert_signed_by(team.tmp.path(), &allowed, PRINCIPAL, &ci.note_lines(&t001));

    // Pushing again sends nothing new.
    let out = ada.speccoder(&["attest", "push", "--dry-run", "--json"]).success();
    let dry: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(dry["dry_run"], true);
    team.fsck(&[&ada, &bob, &ci]);
}

#[test]
fn a_rebase_onto_a_moved_main_is_carried_and_verifies_again() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();

    team.move_main("main-moves");
    ada.git(&["fetch", "-q", "origin"]);
    ada.git(&["rebase", "-q", "origin/main"]);
    let new = ada.rev("HEAD");
    assert_ne!(old, new);

    // The verifier says to carry the evidence, not to fetch it.
    let out = ada.verify(&[]).failure(26);
    assert!(out.stdout.contains("run `speccoder attest carry`"), "{out}");
    assert!(out.stdout.contains(&old), "names the commit the evidence is on: {out}");
    assert!(!out.stdout.contains("attest fetch"), "{out}");

    let carried = ada.speccoder(&["attest", "carry", "--json"]).success();
    let carried: Value = serde_json::from_str(&carried.stdout).unwrap();
    assert_eq!(carried["carried"][0]["from"], old.as_str());
    assert_eq!(carried["carried"][0]["to"], new.as_str());
    ada.assert_evidenced(1);

    // The new note: every statement about the new commit, the task verification naming its tree
    // and where it came from, each line signed afresh; the old note is untouched.
    let lines = ada.note_lines(&new);
    for line in &lines {
        assert_eq!(line.statement["subject"][0]["digest"]["gitCommit"], new.as_str());
    }
    let tv = &task_verification(&lines)["predicate"];
    assert_eq!(tv["tree"], ada.rev("HEAD^{tree}").as_str());
    assert_eq!(tv["revision"], 4);
    assert_eq!(tv["carried"]["from"], old.as_str());
    assert_eq!(tv["carried"]["time"], task_verification(&ada.note_lines(&old))["predicate"]["time"]);
    assert_eq!(tv["carried"]["patch_id"], change_identity(&ada, &new).as_str());
    common::schema_validator("task-verification-v0.schema.json")
        .validate(tv)
        .unwrap_or_else(|e| panic!("the carried predicate follows the schema: {e}"));
    assert_signed_by(team.tmp.path(), &ada.allowed_file(), PRINCIPAL, &lines);
    assert!(ada.note(&old).is_some(), "the old evidence stays where it was");

    // Carrying again changes nothing.
    let refs = ada.refs();
    let again = ada.speccoder(&["attest", "carry"]).success();
    assert!(again.stdout.contains("nothing to carry"), "{again}");
    assert_eq!(ada.refs(), refs);

    // The rebased branch goes to the remote (forced by the user, never by speccoder), then its
    // evidence; CI verifies it.
    let refused = ada.speccoder(&["attest", "push"]).failure(14);
    assert!(refused.stderr.contains("--force-with-lease"), "{refused}");
    ada.git(&["push", "-q", "--force-with-lease", "origin", "feature-a"]);
    ada.speccoder(&["attest", "push"]).success();
    let ci = team.clone("ci", &["-b", "feature-a"]);
    ci.speccoder(&["attest", "fetch"]).success();
    ci.assert_evidenced(1);
    team.fsck(&[&ada, &ci]);
}

/// `attest push` and `attest` on a branch whose name is not UTF-8 refuse it before anything is sent
/// or written, naming it escaped and how to rename it: its lossy text (U+FFFD for each byte) names
/// another branch, here one that exists at another commit, which would go in its place.
#[cfg(unix)]
#[test]
fn a_branch_whose_name_is_not_utf8_is_refused_by_push_and_attest_and_never_taken_for_another() {
    use std::os::unix::ffi::OsStrExt as _;
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["branch", "br\u{fffd}\u{fffd}"]);
    let mut checkout = common::git_command(&ada.dir, &team.home, &["checkout", "-q", "-b"]);
    checkout.arg(OsStr::from_bytes(b"br\xff\xfe"));
    common::run(checkout).success();
    ada.write("mine.txt", "mine\n");
    ada.git(&["add", "-A"]);
    ada.git(&["commit", "-q", "-m", "mine"]);
    let before = ada.refs();
    let said = ["refs/heads/br\\xFF\\xFE", "not UTF-8", "`git branch -m <new-name>`", "nothing was changed"];
    let pushed = ada.speccoder(&["attest", "push"]).failure(14);
    for part in said {
        assert!(pushed.stderr.contains(part), "push says {part:?}\n{pushed}");
    }
    let remote_branches = team.run_git(&team.remote, &["for-each-ref", "--format=%(refname)", "refs/heads/"]);
    assert_eq!(remote_branches, "refs/heads/main\n", "nothing was pushed");
    let evidence = common::write_evidence(&team.tmp.path().join("ev"), &task("T001"), Evidence::Verified);
    let ticked = ada.speccoder(&[
        OsStr::new("attest"),
        task("T001").as_ref(),
        "--evidence".as_ref(),
        evidence.as_os_str(),
    ]);
    let ticked = ticked.failure(14);
    for part in said {
        assert!(ticked.stderr.contains(part), "attest says {part:?}\n{ticked}");
    }
    assert_eq!(ada.refs(), before, "nothing was written");
}

/// A branch whose upstream (or push) remote has a name that is not UTF-8 (git keeps a remote's
/// name as bytes): `attest push` and `attest fetch` refuse it, naming the key and the name
/// escaped, with the `git remote rename` that fixes it, and never take another remote in its
/// place; named on the command line, another remote is pushed to, as `git push` pushes to it.
#[cfg(unix)]
#[test]
fn a_configured_remote_whose_name_is_not_utf8_is_refused_by_push_and_fetch_naming_its_key() {
    use std::os::unix::ffi::OsStrExt as _;
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let odd = OsStr::from_bytes(b"o\xff");
    let url = team.url();
    for args in [&["remote", "add"][..], &["config", "branch.main.remote"]] {
        let mut git = common::git_command(&ada.dir, &team.home, args);
        git.arg(odd);
        if args[0] == "remote" {
            git.arg(&url);
        }
        common::run(git).success();
    }
    ada.attest("T001", &[]);
    let before = team.run_git(&team.remote, &["for-each-ref"]);
    let advice = r#"`git remote rename -- "$(printf 'o\377')" <new-name>`"#;
    for command in ["push", "fetch"] {
        let out = ada.speccoder(&["attest", command]).failure(14);
        for part in ["`branch.main.remote` names the remote o\\xFF", "not UTF-8", advice] {
            assert!(out.stderr.contains(part), "attest {command} says {part:?}\n{out}");
        }
    }
    ada.git(&["config", "branch.main.pushRemote", "origin"]);
    ada.speccoder(&["attest", "fetch", "origin"]).success();
    assert_eq!(team.run_git(&team.remote, &["for-each-ref"]), before, "nothing was sent");
    ada.speccoder(&["attest", "push"]).success();
    assert!(team.remote_note(&ada.rev("HEAD")).is_some(), "pushed to origin, as git pushes there");
    // git's advice renames the remote in the branch's configuration too.
    let mut rename = common::git_command(&ada.dir, &team.home, &["remote", "rename", "--"]);
    rename.arg(odd).arg("other");
    common::run(rename).success();
    ada.git(&["config", "--unset", "branch.main.pushRemote"]);
    ada.speccoder(&["attest", "fetch"]).success();
}

/// `ada` ticks T001 on a new branch `feature-a`, main moves, and she rebases onto it: the tick's
/// commit before the rebase and after.
pub(crate) fn tick_rebased_onto_a_moved_main(team: &Team, ada: &Clone<'_>) -> (String, String) {
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &[]);
    team.move_main("main-moves");
    ada.git(&["fetch", "-q", "origin"]);
    ada.git(&["rebase", "-q", "origin/main"]);
    (old, ada.rev("HEAD"))
}

#[test]
fn a_note_git_copied_on_rebase_is_re_issued_by_carry() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["config", "notes.rewriteRef", NOTES_REF]);
    let (old, new) = tick_rebased_onto_a_moved_main(&team, &ada);
    assert_eq!(ada.note(&new), ada.note(&old), "git copied the note");

    let out = ada.verify(&[]).failure(26);
    assert!(out.stdout.contains("subject_mismatch"), "{out}");
    assert!(
        out.stdout.contains("notes.rewriteRef") && out.stdout.contains("speccoder attest carry"),
        "{out}"
    );

    ada.speccoder(&["attest", "carry"]).success();
    ada.assert_evidenced(1);
    assert_ne!(ada.note(&new), ada.note(&old));
    team.fsck(&[&ada]);
}

/// Two carries of the same evidence at once (git's post-rewrite hook and a person) whose
/// re-issues fall in different seconds: the later finds the other's note, the statements it would
/// write at that note's time, signed with the same key, and keeps it as there already (exit 0). A
/// note that differs in anything more (here the old evidence's time it names) is the commit's own:
/// refused, `note_exists`, and left as it is.
#[test]
fn a_carry_keeps_another_carry_s_note_of_the_same_evidence_made_at_another_time_as_there_already() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let (old, new) = tick_rebased_onto_a_moved_main(&team, &ada);
    ada.speccoder(&["attest", "carry"]).success();
    let carry = || ada.speccoder(&["attest", "carry", "--from", &old, "--to", &new, "--json"]);

    let other = re_signed(&ada, &new, |p| p["time"] = "2030-01-01T00:00:00Z".into());
    ada.replace_note(&new, &other);
    let out = carry().success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["refused"].as_array().map(Vec::len), Some(0), "{out}");
    assert_eq!(report["carried"][0]["unchanged"], true, "{out}");
    let reported: Vec<&str> = report["carried"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["sha256"].as_str().unwrap())
        .collect();
    let kept: Vec<String> = ada.note_lines(&new).iter().map(common::NoteLine::digest).collect();
    assert_eq!(reported, kept, "the rows are the lines of the note kept: {out}");
    assert_eq!(ada.note(&new).unwrap(), other.as_bytes(), "the other carry's note is kept as it is");
    ada.assert_evidenced(1);

    let own = re_signed(&ada, &new, |p| p["carried"]["time"] = "2001-01-01T00:00:00Z".into());
    ada.replace_note(&new, &own);
    let row = refused_row(&carry().failure(26));
    assert_eq!(row["code"], "note_exists", "{row:#}");
    assert_eq!(ada.note(&new).unwrap(), own.as_bytes(), "a note of its own is never replaced");
}

/// `rev`'s carried note as another carry could have written it: its task verification's predicate
/// edited by `edit`, the summary's `timeVerified` that predicate's `time` and its digests those of
/// the new lines, every line signed afresh with Ada's key.
pub(crate) fn re_signed(clone: &Clone<'_>, rev: &str, edit: impl Fn(&mut Value)) -> String {
    use speccoder_attest::model::canonical::value_to_canonical;
    use speccoder_attest::model::dsse::{Envelope, Signature};
    let lines = clone.note_lines(rev);
    let mut statements: Vec<Value> = lines.iter().map(|l| l.statement.clone()).collect();
    let at = |kind: &str| lines.iter().position(|l| l.predicate_type() == kind).unwrap();
    let (tv, summary) = (at(TASK_VERIFICATION_TYPE), at(SUMMARY_TYPE));
    edit(&mut statements[tv]["predicate"]);
    let time = statements[tv]["predicate"]["time"].clone();
    let digests: std::collections::HashMap<String, String> = lines
        .iter()
        .zip(&statements)
        .map(|(l, s)| (l.digest(), common::sha256(&value_to_canonical(s))))
        .collect();
    let predicate = &mut statements[summary]["predicate"];
    predicate["timeVerified"] = time;
    for input in predicate["inputAttestations"].as_array_mut().unwrap() {
        let named = digests[input["digest"]["sha256"].as_str().unwrap()].clone();
        input["digest"]["sha256"] = named.into();
    }
    let team = clone.team;
    let mut note = String::new();
    for statement in &statements {
        let mut env = Envelope::unsigned(value_to_canonical(statement));
        let sig = common::ssh_sign(team.tmp.path(), &team.home, &team.ada, &env.pae());
        env.signatures.push(Signature { keyid: "ada".into(), sig });
        note.push_str(std::str::from_utf8(&env.to_line()).unwrap());
        note.push('\n');
    }
    note
}

/// Bob amends Ada's task commit with `notes.rewriteRef` set and pushes the copy git made, whose
/// statements name the commit before the amend; Ada carries her evidence to the amended commit.
#[test]
fn a_pushed_copy_git_made_on_amend_gives_way_to_the_carried_note_in_push_and_fetch() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();

    bob.git(&["fetch", "-q", "origin"]);
    bob.git(&["checkout", "-q", "-b", "feature-a", "origin/feature-a"]);
    bob.speccoder(&["attest", "fetch"]).success();
    bob.git(&["config", "notes.rewriteRef", NOTES_REF]);
    bob.git(&["commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00Z"]);
    let new = bob.rev("HEAD");
    assert_eq!(bob.note(&new), bob.note(&old), "git copied the note");
    bob.git(&["push", "-q", "-f", "origin", "feature-a"]);
    bob.speccoder(&["attest", "push"]).success();

    ada.git(&["fetch", "-q", "origin"]);
    ada.git(&["reset", "-q", "--hard", "origin/feature-a"]);
    ada.speccoder(&["attest", "carry"]).success();
    let carried = ada.note(&new);
    assert_ne!(carried, ada.note(&old), "carried, not the copy");
    ada.speccoder(&["attest", "push"]).success();
    assert_eq!(team.remote_note(&new), carried, "the carried note replaced the copy there");
    assert_eq!(team.remote_note(&old), ada.note(&old), "the old commit keeps its evidence");

    bob.speccoder(&["attest", "fetch"]).success();
    assert_eq!(bob.note(&new), carried, "and in Bob's clone");
    ada.assert_evidenced(1);
    team.fsck(&[&ada, &bob]);
}

/// The same copy in Bob's clone, and on the remote a note for the amended commit that Mallory,
/// whom Bob does not trust, carried and signed: it does not take the copy's place in Bob's clone,
/// which keeps what it holds and says why.
#[test]
fn a_copy_gives_way_only_to_a_note_that_holds_for_the_clone_that_fetches_it() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let mallory = team.writer("mallory", &team.mallory);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();
    for clone in [&bob, &mallory] {
        clone.git(&["fetch", "-q", "origin"]);
        clone.git(&["checkout", "-q", "-b", "feature-a", "origin/feature-a"]);
        clone.speccoder(&["attest", "fetch"]).success();
    }

    bob.git(&["config", "notes.rewriteRef", NOTES_REF]);
    bob.git(&["commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00Z"]);
    let new = bob.rev("HEAD");
    let copy = bob.note(&new);
    assert_eq!(copy, bob.note(&old), "git copied the note");
    bob.git(&["push", "-q", "-f", "origin", "feature-a"]);

    mallory.git(&["fetch", "-q", "origin"]);
    mallory.git(&["reset", "-q", "--hard", "origin/feature-a"]);
    mallory.speccoder(&["attest", "carry"]).success();
    mallory.speccoder(&["attest", "push"]).success();
    assert_ne!(team.remote_note(&new), copy, "Mallory's note is on the remote");

    let fetched = bob.speccoder(&["attest", "fetch"]);
    assert_ne!(fetched.code(), Some(0), "{fetched}");
    assert_eq!(bob.note(&new), copy, "Bob's clone keeps the copy: {fetched}");
    team.fsck(&[&bob]);
}

#[test]
fn carry_rewritten_refuses_a_line_that_is_no_pair_by_its_number_and_carries_git_s_pairs() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let (old, new) = tick_rebased_onto_a_moved_main(&team, &ada);
    let carry = |stdin: &[u8]| {
        let cmd = common::speccoder_command(&ada.dir, &team.home, &["attest", "carry", "--rewritten"]);
        common::run_with_stdin(cmd, stdin)
    };
    let unknown = "1".repeat(40);
    for (stdin, says) in [
        (
            format!("{old} {new}\nnot a pair\n").into_bytes(),
            "line 2 of the rewritten commits on stdin, `not a pair`",
        ),
        (format!("\n{old} {unknown}\n").into_bytes(), "line 2 of the rewritten commits on stdin"),
        (vec![0xff, 0xfe, b'\n'], "it is not UTF-8 text"),
    ] {
        let out = carry(&stdin);
        assert_eq!(out.code(), Some(2), "{out}");
        assert!(out.stderr.contains(says) && out.stderr.contains("<old> <new>"), "{out}");
    }
    assert_eq!(ada.note(&new), None, "nothing carried while the input is refused");
    // git's own lines (with extra words after the pair, as a rebase may give) are carried.
    let out = carry(format!("{old} {new} extra\n").as_bytes());
    assert_eq!(out.code(), Some(0), "{out}");
    ada.assert_evidenced(1);
}

#[test]
fn a_cherry_pick_is_carried_with_from_and_to() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "first-try"]);
    let old = ada.attest("T001", &[]);
    ada.git(&["checkout", "-q", "-b", "second-try", "main"]);
    ada.write("notes.txt", "unrelated\n");
    ada.git(&["add", "notes.txt"]);
    ada.git(&["commit", "-q", "-m", "Something else first"]);
    ada.git(&["cherry-pick", &old]);
    let new = ada.rev("HEAD");
    ada.speccoder(&["attest", "carry", "--from", &old, "--to", "HEAD"]).success();
    ada.assert_evidenced(1);
    assert_eq!(task_verification(&ada.note_lines(&new))["predicate"]["carried"]["from"], old.as_str());
    team.fsck(&[&ada]);
}

#[test]
fn carry_reads_a_replaced_commit_as_its_id_says_and_refuses_a_changed_change_behind_it() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "first-try"]);
    let old = ada.attest("T001", &[]);
    ada.git(&["checkout", "-q", "-b", "second-try", "main"]);
    ada.git(&["cherry-pick", &old]);
    let honest = ada.rev("HEAD");
    ada.write("src/tags/mod.rs", "pub mod evil;\n");
    ada.git(&["add", "src/tags/mod.rs"]);
    ada.git(&["commit", "-q", "--amend", "--no-edit"]);
    let changed = ada.rev("HEAD");
    // git now shows the honest cherry-pick under the changed commit's id.
    ada.git(&["replace", &changed, &honest]);
    let refs = ada.refs();
    let out = ada.speccoder(&["attest", "carry", "--from", &old, "--to", &changed, "--json"]).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["refused"][0]["code"], "change_differs", "{report:#}");
    assert_eq!(ada.refs(), refs, "nothing was written");
    assert!(ada.note(&changed).is_none());
}

#[test]
fn hooks_install_carries_after_a_plain_rebase_and_an_amend() {
    let team = Team::new();
    let bob = team.writer("bob", &team.bob);
    // The hook goes where core.hooksPath says, relative to the work tree (here outside it: one
    // inside, which the repository may share, runs the speccoder on PATH, which the tests' is not).
    bob.git(&["config", "core.hooksPath", "../bob-hooks"]);
    let installed = bob.speccoder(&["hooks", "install", "--json"]).success();
    let installed: Value = serde_json::from_str(&installed.stdout).unwrap();
    let hook = bob.dir.join("../bob-hooks/post-rewrite");
    assert_eq!(installed["action"], "installed");
    assert_eq!(Path::new(installed["path"].as_str().unwrap()), hook);
    assert!(!installed["program"].as_str().unwrap().contains("on PATH"), "{installed}");
    let again = bob.speccoder(&["hooks", "install"]).success();
    assert!(again.stdout.contains("unchanged"), "{again}");

    bob.git(&["checkout", "-q", "-b", "feature-b"]);
    let attested = bob.attest("T002", &[]);
    team.move_main("main-moves");
    bob.git(&["fetch", "-q", "origin"]);
    let rebase = bob.git_run(&["rebase", "origin/main"]);
    assert!(rebase.status.success(), "{rebase}");
    assert!(
        rebase.stdout.contains("carried") || rebase.stderr.contains("carried"),
        "the hook ran carry: {rebase}"
    );
    let rebased = bob.rev("HEAD");
    assert_ne!(attested, rebased);
    bob.assert_evidenced(1);
    assert_eq!(
        task_verification(&bob.note_lines(&rebased))["predicate"]["carried"]["from"],
        attested.as_str()
    );

    // An amend that changes only the message is the same change.
    let message = bob.git(&["log", "-1", "--format=%B"]);
    let (_, rest) = message.split_once('\n').unwrap();
    bob.git(&["commit", "-q", "--amend", "-m", &format!("Reworded subject\n{rest}")]);
    let amended = bob.rev("HEAD");
    assert_ne!(amended, rebased);
    bob.assert_evidenced(1);
    assert_signed_by(team.tmp.path(), &bob.allowed_file(), BOB, &bob.note_lines(&amended));

    // A hook speccoder did not write is never overwritten.
    std::fs::write(&hook, "#!/bin/sh\necho mine\n").unwrap();
    let refused = bob.speccoder(&["hooks", "install"]).failure(14);
    assert!(refused.stderr.contains("not written by speccoder"), "{refused}");
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), "#!/bin/sh\necho mine\n");
    team.fsck(&[&bob]);
}

/// The hook runs the very program that installed it, whatever bytes its path holds: here in a
/// directory whose name is not UTF-8, under a file name that ends in a newline. It never runs the
/// program named without that newline (which a command substitution would leave), here a decoy.
#[cfg(unix)]
#[test]
fn the_hook_runs_the_program_that_installed_it_at_a_path_not_utf8_whose_name_ends_in_a_newline() {
    use std::os::unix::ffi::OsStrExt as _;
    use std::os::unix::fs::PermissionsExt as _;
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bin = team.tmp.path().join(OsStr::from_bytes(b"bin-\xff"));
    std::fs::create_dir(&bin).unwrap();
    let program = bin.join(OsStr::from_bytes(b"speccoder\n"));
    if std::fs::hard_link(common::speccoder_bin(), &program).is_err() {
        std::fs::copy(common::speccoder_bin(), &program).unwrap();
    }
    let (decoy, decoy_ran) = (bin.join("speccoder"), team.tmp.path().join("decoy-ran"));
    std::fs::write(&decoy, format!("#!/bin/sh\ntouch '{}'\n", decoy_ran.display())).unwrap();
    std::fs::set_permissions(&decoy, std::fs::Permissions::from_mode(0o755)).unwrap();
    common::run(common::binary_command(&program, &ada.dir, &team.home, &["hooks", "install"])).success();

    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let attested = ada.attest("T001", &[]);
    let message = ada.git(&["log", "-1", "--format=%B"]);
    let amend = ada.git_run(&["commit", "-q", "--amend", "-m", &format!("Reworded: {message}")]);
    assert!(amend.status.success(), "{amend}");
    assert!(!decoy_ran.exists(), "the hook ran {}: {amend}", decoy.display());
    assert_ne!(ada.rev("HEAD"), attested);
    ada.assert_evidenced(1);
}

/// `git rebase --exec 'git commit --amend'` (re-signing every commit): git's list for the
/// rebase names the commits before each amend, which the branch no longer holds; the hook carries
/// each task's evidence to the commit the branch holds, never to a commit it does not.
#[test]
fn the_hook_carries_to_the_commits_the_branch_holds_after_a_rebase_whose_exec_amends_each() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    ada.attest("T002", &[]);
    team.move_main("main-moves");
    ada.git(&["fetch", "-q", "origin"]);
    let amend = "git -c user.name=Re-signer commit -q --amend --no-edit";
    let rebase = ada.git_run(&["rebase", "--exec", amend, "origin/main"]);
    assert!(rebase.status.success(), "{rebase}");
    let said = format!("{}{}", rebase.stdout, rebase.stderr);
    for carried in said.lines().filter_map(|l| l.trim().strip_prefix("carried ")) {
        let to = carried.split(" to ").nth(1).and_then(|t| t.split(':').next()).unwrap();
        let on_branch = ada.git_run(&["merge-base", "--is-ancestor", to, "HEAD"]);
        assert!(on_branch.status.success(), "carried to {to}, which the branch does not hold: {said}");
    }
    ada.assert_evidenced(2);
}

/// A hook run that carried nothing (no trust configured yet) leaves the task commit without its
/// evidence; the next amend's hook finds that evidence on the commit before, as a plain `attest
/// carry` does, instead of saying that nothing lacks it. A lock left on the notes ref makes the
/// hook name the command to run once it is removed.
#[test]
fn the_hook_after_one_that_carried_nothing_carries_what_the_task_commit_lacks() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    let reword = |prefix: &str| {
        let message = ada.git(&["log", "-1", "--format=%B"]);
        ada.git_run(&["commit", "-q", "--amend", "-m", &format!("{prefix}{message}")])
    };
    let trust = ada.git(&["config", "gpg.ssh.allowedSignersFile"]);
    ada.git(&["config", "--unset", "gpg.ssh.allowedSignersFile"]);
    let first = reword("A: ");
    assert!(first.stderr.contains("you trust no signer"), "{first}");
    ada.git(&["config", "gpg.ssh.allowedSignersFile", trust.trim()]);

    let lock = ada.dir.join(".git/refs/notes/speccoder.lock");
    std::fs::write(&lock, "").unwrap();
    let locked = reword("B: ");
    assert!(locked.stderr.contains("speccoder.lock exists"), "{locked}");
    assert!(
        locked.stderr.contains("git does not run again: when that is resolved, run `speccoder attest carry`"),
        "{locked}"
    );
    std::fs::remove_file(&lock).unwrap();

    let second = reword("C: ");
    let said = format!("{}{}", second.stdout, second.stderr);
    assert!(said.contains("1 carried") && !said.contains("nothing to carry"), "{said}");
    ada.assert_evidenced(1);
}

/// A repository that commits its shared hooks directory as a link leading out of the work tree
/// (`core.hooksPath .githooks`, as its README says) gets no hook written through it: `hooks
/// install` refuses it as every output reached through such a link is refused (exit 13).
#[cfg(unix)]
#[test]
fn hooks_install_never_writes_through_a_hooks_directory_link_the_repository_committed() {
    let p = common::Project::speckit();
    let victim = p.scratch_dir("victim");
    std::os::unix::fs::symlink(&victim, p.root.join(".githooks")).unwrap();
    p.git(&["add", ".githooks"]);
    p.git(&["commit", "-q", "-m", "shared hooks (a link)"]);
    p.git(&["config", "core.hooksPath", ".githooks"]);
    let refused = p.speccoder(&["hooks", "install"]).failure(13);
    assert!(refused.stderr.contains(".githooks on the way to it is a symbolic link"), "{refused}");
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0, "nothing written where the link leads");
}

/// A `hooks install` killed before its rename leaves, in the hooks directory, only its hidden
/// directory (the hook written whole in it) and that directory's mark; killed after, the mark
/// alone. The next install removes both, so that a hooks directory in the work tree is left with
/// no untracked file of ours; a user's files of like names (`.tmp...`, an unmarked
/// `.post-rewrite.partial-...`) are left as they are.
#[cfg(unix)]
#[test]
fn what_a_killed_hooks_install_leaves_in_the_hooks_directory_the_next_install_removes() {
    use std::os::unix::fs::PermissionsExt as _;
    let p = common::Project::speckit();
    p.git(&["config", "core.hooksPath", ".githooks"]);
    let hooks = p.root.join(".githooks");
    std::fs::create_dir(&hooks).unwrap();
    let left = hooks.join(".post-rewrite.partial-k1ll3d");
    std::fs::create_dir(&left).unwrap();
    std::fs::write(left.join("post-rewriteAbC123"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(left.join("post-rewriteAbC123"), std::fs::Permissions::from_mode(0o755))
        .unwrap();
    for mark in [".post-rewrite.partial-k1ll3d", ".post-rewrite.partial-r3nam3"] {
        std::fs::write(hooks.join(format!("{mark}.speccoder-partial")), "").unwrap();
    }
    std::fs::write(hooks.join(".tmpAbC123"), "mine").unwrap();
    std::fs::create_dir(hooks.join(".post-rewrite.partial-us3r00")).unwrap();
    std::fs::write(hooks.join(".post-rewrite.partial-us3r00/notes"), "mine").unwrap();

    p.speccoder(&["hooks", "install"]).success();
    let mut names: Vec<String> =
        std::fs::read_dir(&hooks).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, [".post-rewrite.partial-us3r00", ".tmpAbC123", "post-rewrite"]);
    let status = p.git(&["status", "--porcelain", "--untracked-files=all", ".githooks"]);
    assert_eq!(
        status.lines().collect::<Vec<_>>(),
        [
            "?? .githooks/.post-rewrite.partial-us3r00/notes",
            "?? .githooks/.tmpAbC123",
            "?? .githooks/post-rewrite"
        ]
    );
}

/// Every work tree of a repository shares its `core.hooksPath`: run in a linked work tree,
/// `hooks install` looks at the main one as well. A hooks directory there reached through a
/// committed link is refused (exit 13) and nothing is written where the link leads; a plain one
/// there gets a hook naming no one's own path, as from the main work tree.
#[cfg(unix)]
#[test]
fn hooks_install_in_a_linked_work_tree_looks_at_the_main_work_tree_too() {
    let p = common::Project::speckit();
    let victim = p.scratch_dir("victim");
    std::os::unix::fs::symlink(&victim, p.root.join(".githooks")).unwrap();
    p.git(&["add", ".githooks"]);
    p.git(&["commit", "-q", "-m", "shared hooks (a link)"]);
    let linked = p.tmp().join("linked");
    p.git(&["worktree", "add", "-q", "-b", "linked", linked.to_str().unwrap()]);
    let hooks = p.root.join(".githooks");
    p.git(&["config", "core.hooksPath", hooks.to_str().unwrap()]);
    let refused = p.speccoder_in(&linked, &["hooks", "install"]).failure(13);
    assert!(refused.stderr.contains(".githooks on the way to it is a symbolic link"), "{refused}");
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0, "nothing written where the link leads");

    p.git(&["rm", "-q", ".githooks"]);
    p.git(&["commit", "-q", "-m", "no hooks link"]);
    std::fs::create_dir(&hooks).unwrap();
    let installed = p.speccoder_in(&linked, &["hooks", "install", "--json"]).success();
    let installed: Value = serde_json::from_str(&installed.stdout).unwrap();
    assert!(installed["program"].as_str().unwrap().contains("on PATH"), "{installed}");
    let hook = std::fs::read_to_string(hooks.join("post-rewrite")).unwrap();
    assert!(hook.contains("speccoder=$(command -v speccoder) ||"), "{hook}");
}

/// The committed hooks link is refused however `core.hooksPath` spells the way to it: through the
/// git directory and `..` (relative or in full), or out of the work tree and back in.
#[cfg(unix)]
#[test]
fn hooks_install_never_writes_through_a_committed_hooks_link_a_path_through_dot_dot_reaches() {
    let p = common::Project::speckit();
    let victim = p.scratch_dir("victim");
    std::os::unix::fs::symlink(&victim, p.root.join(".githooks")).unwrap();
    p.git(&["add", ".githooks"]);
    p.git(&["commit", "-q", "-m", "shared hooks (a link)"]);
    let name = p.root.file_name().unwrap().to_str().unwrap();
    for hooks_path in [
        ".git/../.githooks".to_owned(),
        format!("{}/.git/../.githooks", p.root.display()),
        format!("../{name}/.githooks"),
    ] {
        p.git(&["config", "core.hooksPath", &hooks_path]);
        let refused = p.speccoder(&["hooks", "install"]).failure(13);
        assert!(
            refused.stderr.contains(".githooks on the way to it is a symbolic link"),
            "{hooks_path}: {refused}"
        );
    }
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0, "nothing written where the link leads");
}

#[test]
fn an_amended_task_change_is_refused_by_carry_naming_both_commits() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &[]);
    ada.write("src/tags/mod.rs", "pub mod tag;\n");
    ada.git(&["add", "src/tags/mod.rs"]);
    ada.git(&["commit", "-q", "--amend", "--no-edit"]);
    let new = ada.rev("HEAD");
    let refs = ada.refs();

    let out = ada.speccoder(&["attest", "carry"]).failure(26);
    let expected = format!(
        "the task's change differs from the attested one (attested: {old}, now: {new}); to attest it again, run its checks, clear its box in tasks.md in a commit of its own, then run `speccoder attest {} --evidence <the new evidence>`",
        task("T001")
    );
    assert!(out.stdout.contains(&expected), "{out}");
    let out = ada.speccoder(&["attest", "carry", "--from", &old, "--to", &new, "--json"]).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["refused"][0]["code"], "change_differs");
    assert_eq!(report["exit_code"], 26, "the report carries the exit code: {report:#}");
    assert_eq!(ada.refs(), refs, "nothing was written");
    assert!(ada.note(&new).is_none());

    // The advice, followed as given, gives the changed change evidence of its own.
    ada.set_box_by_hand("T001", false, "Untick T001 to attest the amended change");
    ada.attest("T001", &[]);
    ada.assert_evidenced(1);
    team.fsck(&[&ada]);
}

/// `clone` implements a task on a new branch `branch` in a commit of its own (`text` in
/// src/tags/store.rs), then ticks T001 in a commit that only ticks its box: that task commit.
/// Rebases `clone` interactively onto `onto` with `editor` as the sequence editor: the rebase
/// succeeds, its post-rewrite hook says `series_differs` and carries nothing. Returns the new
/// task commit.
fn rebase_the_hook_refuses(team: &Team, clone: &Clone<'_>, onto: &str, editor: &str) -> String {
    let mut rebase = common::git_command(&clone.dir, &team.home, &["rebase", "-i", onto]);
    rebase.env("GIT_SEQUENCE_EDITOR", editor);
    let rebase = common::run(rebase);
    assert!(rebase.status.success(), "{rebase}");
    assert!(
        rebase.stdout.contains("series_differs") || rebase.stderr.contains("series_differs"),
        "the hook says why: {rebase}"
    );
    let new = clone.rev("HEAD");
    assert!(clone.note(&new).is_none(), "the hook carried nothing");
    new
}

/// The reasons `attest carry` gives, alone and from `old` to `new`, for refusing `new` as
/// `series_differs`.
fn series_refusals(clone: &Clone<'_>, old: &str, new: &str) -> Vec<String> {
    let forms =
        [vec!["attest", "carry", "--json"], vec!["attest", "carry", "--from", old, "--to", new, "--json"]];
    let reason = |args: Vec<&str>| {
        let row = refused_row(&clone.speccoder(&args).failure(26));
        assert_eq!(row["code"], "series_differs", "{args:?}: {row:#}");
        row["reason"].as_str().unwrap().to_owned()
    };
    forms.into_iter().map(reason).collect()
}

fn implement_and_tick(clone: &Clone<'_>, branch: &str, text: &str) -> String {
    clone.git(&["checkout", "-q", "-b", branch]);
    clone.write("src/tags/store.rs", text);
    clone.git(&["add", "src/tags/store.rs"]);
    clone.git(&["commit", "-q", "-m", "Implement the tag store"]);
    clone.attest("T001", &[])
}

#[test]
fn carry_takes_the_evidence_of_the_branch_s_own_series_never_another_writer_s_newer_one() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let ada_old = implement_and_tick(&ada, "feature-a", "pub fn add() { /* Ada's way */ }\n");
    ada.speccoder(&["attest", "push"]).success();
    // Bob ticks the same task with the same tick, over code of his own, a second later: his task
    // commit is the newest with that change.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let bob_old = implement_and_tick(&bob, "feature-b", "pub fn add() { /* Bob's, entirely other */ }\n");
    bob.git(&["push", "-q", "origin", "feature-b"]);
    bob.speccoder(&["attest", "push"]).success();

    let ada_new = rebase_onto_moved_main(&team, &ada);
    ada.speccoder(&["attest", "fetch"]).success();
    assert!(ada.note(&bob_old).is_some(), "Bob's evidence and commit are in Ada's clone");
    let out = ada.speccoder(&["attest", "carry", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["carried"][0]["from"], ada_old.as_str(), "{report:#}");
    assert_eq!(
        task_verification(&ada.note_lines(&ada_new))["predicate"]["carried"]["from"],
        ada_old.as_str()
    );
    ada.assert_evidenced(1);

    // Bob's evidence, named explicitly, is refused: his series is not Ada's.
    let out = ada.speccoder(&["attest", "carry", "--from", &bob_old, "--to", &ada_new, "--json"]);
    let row = refused_row(&out.failure(26));
    assert_eq!(row["code"], "series_differs", "{row:#}");
    assert!(row["reason"].as_str().unwrap().contains(&bob.rev("feature-b^")), "names Bob's commit: {row:#}");
    team.fsck(&[&ada, &bob]);
}

#[test]
fn an_implementation_dropped_under_the_task_commit_is_refused_by_the_hook_and_by_carry() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    let old = implement_and_tick(&ada, "feature-a", "pub fn add() {}\n");
    let implementation = ada.rev("HEAD^");
    let new = rebase_the_hook_refuses(&team, &ada, "main", "sed -i '1s/^pick/drop/'");
    assert_eq!(ada.rev("HEAD^"), ada.rev("main"), "the implementation is gone");

    let refs = ada.refs();
    for reason in series_refusals(&ada, &old, &new) {
        assert!(reason.contains(&implementation) && reason.contains("Implement the tag store"), "{reason}");
        assert!(reason.contains("to attest it again"), "{reason}");
    }
    assert_eq!(ada.refs(), refs, "nothing was written");
    assert!(ada.verify(&[]).code() != Some(0));
}

#[test]
fn a_task_ticked_again_after_its_tick_and_implementation_were_reverted_is_refused_by_carry() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let text = "pub fn add() { /* the tested code */ }\n";
    let old = implement_and_tick(&ada, "feature-a", text);
    ada.git(&["revert", "--no-edit", "HEAD"]);
    let untick = ada.rev("HEAD");
    ada.git(&["revert", "--no-edit", "HEAD~2"]);
    ada.git(&["cherry-pick", &old]);
    let new = ada.rev("HEAD");
    let store = std::fs::read_to_string(ada.dir.join("src/tags/store.rs")).ok();
    assert_ne!(store.as_deref(), Some(text), "the tested code is gone");

    let refs = ada.refs();
    let out = ada.speccoder(&["attest", "carry", "--from", &old, "--to", &new, "--json"]);
    let row = refused_row(&out.failure(26));
    assert_eq!(row["code"], "series_differs", "{row:#}");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.starts_with(&format!("{untick} (`Revert ")), "names the commit that undoes: {reason}");
    assert!(reason.contains(&format!("undoes the attested task commit {old} (")), "and what: {reason}");
    assert!(reason.contains("to attest it again"), "{reason}");
    assert_eq!(ada.refs(), refs, "nothing was written");
    assert!(ada.note(&new).is_none());
    assert_ne!(ada.verify(&[]).code(), Some(0));
}

#[test]
fn a_revert_of_the_implementation_a_rebase_inserts_is_refused_by_the_hook_and_by_carry() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    let old = implement_and_tick(&ada, "feature-a", "pub fn add() {}\n");
    let implementation = ada.rev("HEAD^");
    team.move_main("main-moves");
    ada.git(&["fetch", "-q", "origin"]);
    // Onto the moved main, with a revert of the rebased implementation before the tick.
    let new =
        rebase_the_hook_refuses(&team, &ada, "origin/main", "sed -i '1a exec git revert --no-edit HEAD'");
    let revert = ada.rev("HEAD^");
    assert_ne!(ada.rev("HEAD~2"), implementation, "the implementation was rebased");

    let refs = ada.refs();
    for reason in series_refusals(&ada, &old, &new) {
        let undoes = format!("undoes {implementation} (`Implement the tag store`), a commit of the series");
        assert!(reason.starts_with(&format!("{revert} (`Revert ")) && reason.contains(&undoes), "{reason}");
    }
    assert_eq!(ada.refs(), refs, "nothing was written");
    assert_ne!(ada.verify(&[]).code(), Some(0));
}

/// `clone` implements and ticks T001 on `feature-a`; main moves; then `feature-a` is made again on
/// the moved main by `again` (run on it checked out there), and the old task commit cherry-picked
/// on top. The old task commit, the implementation and the new task commit.
fn tick_made_again(team: &Team, clone: &Clone<'_>, again: impl Fn(&str)) -> (String, String, String) {
    let text = "pub fn add() { /* the tested code */ }\n";
    let old = implement_and_tick(clone, "feature-a", text);
    let implementation = clone.rev("HEAD^");
    team.move_main("main-moves");
    clone.git(&["fetch", "-q", "origin"]);
    clone.git(&["checkout", "-q", "-B", "feature-a", "origin/main"]);
    again(&implementation);
    clone.git(&["cherry-pick", &old]);
    (old, implementation, clone.rev("HEAD"))
}

/// The implementation, brought by a branch of its own, dropped by the merge of that branch
/// (`git merge -s ours`, or a resolution that removes it): the merge's change of its own undoes
/// it, so carry refuses naming the merge and verify finds no evidence for the new head.
#[test]
fn a_merge_that_drops_the_implementation_its_branch_brought_is_refused_by_carry() {
    let shapes: [&[&str]; 2] =
        [&["merge", "-q", "-s", "ours", "--no-edit"], &["merge", "-q", "--no-ff", "--no-commit"]];
    for merge in shapes {
        let team = Team::new();
        let ada = team.writer("ada", &team.ada);
        let (old, implementation, new) = tick_made_again(&team, &ada, |implementation| {
            ada.git(&["checkout", "-q", "-b", "side", "origin/main"]);
            ada.git(&["cherry-pick", implementation]);
            ada.git(&["checkout", "-q", "feature-a"]);
            ada.git(&[merge, &["side"]].concat());
            if ada.git_run(&["rev-parse", "-q", "--verify", "MERGE_HEAD"]).status.success() {
                ada.git(&["rm", "-q", "-f", "src/tags/store.rs"]);
                ada.git(&["commit", "-q", "-m", "Merge side, its store left out"]);
            }
        });
        let merge_commit = ada.rev("HEAD^");
        assert_eq!(ada.git(&["rev-list", "--parents", "-1", &merge_commit]).split_whitespace().count(), 3);
        assert!(!ada.dir.join("src/tags/store.rs").exists(), "{merge:?}: the tested code is gone");

        let refs = ada.refs();
        for reason in series_refusals(&ada, &old, &new) {
            let undoes =
                format!("undoes {implementation} (`Implement the tag store`), a commit of the series");
            assert!(reason.starts_with(&format!("{merge_commit} (`Merge ")), "{merge:?}: {reason}");
            assert!(
                reason.contains(&undoes) && reason.contains("its change of its own"),
                "{merge:?}: {reason}"
            );
        }
        assert_eq!(ada.refs(), refs, "nothing was written");
        assert_ne!(ada.verify(&[]).code(), Some(0));
    }
}

/// The implementation, reverted and the revert reverted, under the tick of a series of one
/// commit: which of the two commits with its change is the series' own cannot be told, so carry
/// refuses naming the revert.
#[test]
fn a_revert_reverted_under_a_tick_whose_series_is_one_commit_is_refused_by_carry() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let (old, implementation, new) = tick_made_again(&team, &ada, |implementation| {
        ada.git(&["cherry-pick", implementation]);
        ada.git(&["revert", "--no-edit", "HEAD"]);
        ada.git(&["revert", "--no-edit", "HEAD"]);
    });
    let revert = ada.rev("HEAD~2");
    assert_eq!(
        ada.git(&["rev-list", "--count", &format!("origin/main..{old}")]).trim(),
        "2",
        "a series of one"
    );

    let refs = ada.refs();
    for reason in series_refusals(&ada, &old, &new) {
        let undoes = format!("undoes {implementation} (`Implement the tag store`), a commit of the series");
        assert!(reason.starts_with(&format!("{revert} (`Revert ")) && reason.contains(&undoes), "{reason}");
    }
    assert_eq!(ada.refs(), refs, "nothing was written");
    assert_ne!(ada.verify(&[]).code(), Some(0));
}

/// `clone` ticks T001 on a new branch `feature-<name>` over a merge of a side branch that guards
/// the store; the merge's resolution writes the store as `resolved` (`None`: as git merged it).
/// The merge and the task commit.
fn tick_over_a_merge(clone: &Clone<'_>, name: &str, resolved: Option<&str>) -> (String, String) {
    clone.git(&["checkout", "-q", "-b", &format!("side-{name}"), "main"]);
    clone.write("src/tags/store.rs", "pub fn add() { guard(); }\n");
    clone.git(&["add", "-A"]);
    clone.git(&["commit", "-q", "-m", "Guard the store"]);
    clone.git(&["checkout", "-q", "-b", &format!("feature-{name}"), "main"]);
    clone.write("src/tags/list.rs", "pub fn list() {}\n");
    clone.git(&["add", "-A"]);
    clone.git(&["commit", "-q", "-m", "List the tags"]);
    clone.git(&["merge", "-q", "--no-ff", "--no-commit", &format!("side-{name}")]);
    if let Some(text) = resolved {
        clone.write("src/tags/store.rs", text);
        clone.git(&["add", "-A"]);
    }
    clone.git(&["commit", "-q", "-m", "Merge the guard"]);
    let merge = clone.rev("HEAD");
    (merge, clone.attest("T001", &[]))
}

/// A plain rebase flattens merges: a merge whose resolution edited the store (its tree is not what
/// merging its parents gives) loses that edit, which the evidence judged, so carry refuses naming
/// the merge; a merge that changed nothing of its own is carried.
#[test]
fn a_merge_s_own_change_a_rebase_flattened_away_is_refused_and_a_clean_merge_is_carried() {
    let rebased = |name: &str, resolved: Option<&str>| {
        let team = Team::new();
        let ada = team.writer("ada", &team.ada);
        let (merge, old) = tick_over_a_merge(&ada, name, resolved);
        team.move_main("main-moves");
        ada.git(&["fetch", "-q", "origin"]);
        ada.git(&["rebase", "-q", "origin/main"]);
        let dir = ada.dir.clone();
        drop(ada);
        (team, dir, merge, old)
    };
    let (team, dir, _, clean_old) = rebased("clean", None);
    let ada = Clone { team: &team, dir };
    let out = ada.speccoder(&["attest", "carry", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["carried"][0]["from"], clean_old.as_str(), "{report:#}");

    let (team, dir, evil_merge, evil_old) = rebased("evil", Some("pub fn add() { /* unguarded */ }\n"));
    let ada = Clone { team: &team, dir };
    assert!(ada.git(&["show", "HEAD:src/tags/store.rs"]).contains("guard();"), "the edit is gone");
    let refs = ada.refs();
    let row = refused_row(&ada.speccoder(&["attest", "carry", "--json"]).failure(26));
    assert_eq!(row["code"], "series_differs", "{row:#}");
    assert_eq!(row["from"], evil_old.as_str(), "{row:#}");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.contains(&evil_merge) && reason.contains("a merge of the series"), "{reason}");
    assert!(reason.contains("--rebase-merges") && reason.contains("to attest it again"), "{reason}");
    assert_eq!(ada.refs(), refs, "nothing was written");
}

/// A reword of a task commit's `Verdict:` leaves evidence that names another verdict: carry
/// refuses it naming the trailer, both values and how to restore it.
#[test]
fn a_reworded_verdict_is_refused_naming_the_trailer_its_old_value_and_the_restore() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let (old, _) = tick_rebased_onto_a_moved_main(&team, &ada);
    let message = ada.git(&["log", "-1", "--format=%B"]).replace("Verdict: verified", "Verdict: attested");
    ada.git(&["commit", "-q", "--amend", "-m", &message]);
    let row = refused_row(
        &ada.speccoder(&["attest", "carry", "--from", &old, "--to", "HEAD", "--json"]).failure(26),
    );
    assert_eq!(row["code"], "not_the_same_task", "{row:#}");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.contains("Verdict: `attested` where") && reason.contains("says `verified`"), "{reason}");
    assert!(reason.contains("restore the trailer"), "{reason}");
    assert!(!reason.contains("Spec-Task:"), "the task trailer is the same: {reason}");
    // Verify says the same, rather than sending the user to a carry that refuses it.
    let out = ada.speccoder(&["attest", "verify", "HEAD"]).failure(26);
    assert!(
        out.stdout.contains("with `Verdict: verified` where this commit says `Verdict: attested`"),
        "{out}"
    );
    assert!(out.stdout.contains("restore the trailer"), "{out}");
    assert!(!out.stdout.contains("rebased, amended or cherry-picked"), "{out}");
}

/// Carry takes no `--allowed-signers-rev`: a trust file of the branch's own tree that git's
/// configuration names is refused with advice carry accepts (the base's copy outside the
/// repository, given with `--allowed-signers`), saying where the path came from; verify, which
/// takes the flag, still advises it.
#[test]
fn carry_refuses_a_configured_trust_file_of_the_tree_with_advice_carry_takes() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    tick_rebased_onto_a_moved_main(&team, &ada);
    let in_tree = ada.dir.join(".github/allowed_signers");
    ada.git(&["config", "gpg.ssh.allowedSignersFile", in_tree.to_str().unwrap()]);
    let refs = ada.refs();
    let out = ada.speccoder(&["attest", "carry"]).failure(13);
    assert!(out.stderr.contains("(from git's gpg.ssh.allowedSignersFile setting)"), "{out}");
    assert!(out.stderr.contains("`git show <base>:.github/allowed_signers > FILE`"), "{out}");
    assert!(out.stderr.contains("then --allowed-signers FILE"), "{out}");
    assert!(!out.stderr.contains("--allowed-signers-rev"), "carry takes no such flag: {out}");
    assert_eq!(ada.refs(), refs, "nothing was written");
    let out = ada.speccoder(&["attest", "verify", "--branch", "HEAD", "--base", "refs/remotes/origin/main"]);
    assert!(out.stderr.contains("--allowed-signers-rev <base>:.github/allowed_signers"), "{out}");
}

#[test]
fn a_series_rebased_onto_a_moved_main_reordered_and_joined_by_another_commit_is_carried() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    for (file, subject) in [("src/tags/store.rs", "Implement the tag store"), ("docs.txt", "Document it")] {
        ada.write(file, &format!("{subject}\n"));
        ada.git(&["add", file]);
        ada.git(&["commit", "-q", "-m", subject]);
    }
    let old = ada.attest("T001", &[]);
    team.move_main("main-moves");
    ada.git(&["fetch", "-q", "origin"]);
    // Onto the moved main: the two commits swapped, and one more inserted before the task commit.
    let editor = team.tmp.path().join("reorder.sh");
    std::fs::write(
        &editor,
        "grep '^pick' \"$1\" >\"$1.picks\"\n{ sed -n 2p \"$1.picks\"; sed -n 1p \"$1.picks\"; echo 'exec echo more >more.txt && git add more.txt && git commit -q -m More'; sed -n 3p \"$1.picks\"; } >\"$1\"\n",
    )
    .unwrap();
    let mut rebase = common::git_command(&ada.dir, &team.home, &["rebase", "-q", "-i", "origin/main"]);
    rebase.env("GIT_SEQUENCE_EDITOR", format!("sh {}", editor.display()));
    let out = common::run(rebase);
    assert!(out.status.success(), "{out}");
    let subjects = ada.git(&["log", "--format=%s", "origin/main..HEAD^"]);
    assert_eq!(subjects, "More\nImplement the tag store\nDocument it\n");
    let new = ada.rev("HEAD");

    let out = ada.speccoder(&["attest", "carry", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["carried"][0]["from"], old.as_str(), "{report:#}");
    assert_eq!(report["carried"][0]["to"], new.as_str(), "{report:#}");
    ada.assert_evidenced(1);
    team.fsck(&[&ada]);
}

/// The identity of `commit`'s change as docs/task-verification-v0.md defines `carried.patch_id`:
/// the sha256 of git's patch against the parent with three lines of context, without the
/// `index` lines of text files, the function names of hunk headers and, on a task list's context
/// lines, the state of the boxes.
fn change_identity(clone: &Clone<'_>, commit: &str) -> String {
    let patch =
        clone.git(&["diff-tree", "-p", "-U3", "--binary", "--no-renames", &format!("{commit}^"), commit]);
    let mut kept = String::new();
    let mut task_list = false;
    for line in patch.lines() {
        if line.starts_with("diff --git ") {
            task_list = line.ends_with("/tasks.md");
        }
        let line = match line {
            l if l.starts_with("index ") => continue,
            l if l.starts_with("@@ ") => {
                let end = l[3..].find("@@").unwrap() + 5;
                l[..end].to_owned()
            }
            l if task_list && l.starts_with(' ') => l.replace("[X]", "[ ]").replace("[x]", "[ ]"),
            l => l.to_owned(),
        };
        kept.push_str(&line);
        kept.push('\n');
    }
    common::sha256(kept.as_bytes())
}

/// Rebases `clone`'s branch onto main moved by one commit; the new HEAD.
pub(crate) fn rebase_onto_moved_main(team: &Team, clone: &Clone<'_>) -> String {
    team.move_main("main-moves");
    clone.git(&["fetch", "-q", "origin"]);
    clone.git(&["rebase", "-q", "origin/main"]);
    clone.rev("HEAD")
}

/// The single refused row of a `carry --json` that exited 26.
#[track_caller]
pub(crate) fn refused_row(out: &Run) -> Value {
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(report["carried"].as_array().map(Vec::len), Some(0), "{out}");
    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{out}");
    refused[0].clone()
}

#[test]
fn carry_and_its_hook_refuse_evidence_of_an_untrusted_signer_instead_of_re_signing_it() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    // Ada trusts only herself.
    let only_ada = team.trust_file("only-ada", &[(PRINCIPAL, &team.ada)]);
    ada.git(&["config", "gpg.ssh.allowedSignersFile", only_ada.to_str().unwrap()]);
    ada.speccoder(&["hooks", "install"]).success();
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &["--key", team.mallory.private.to_str().unwrap()]);
    let verify = |c: &Clone<'_>| {
        c.speccoder(&[
            "attest",
            "verify",
            "--branch",
            "--all",
            "--allowed-signers",
            only_ada.to_str().unwrap(),
        ])
    };
    let out = verify(&ada).failure(26);
    assert!(out.stdout.contains("untrusted_signer"), "{out}");

    // A plain rebase: the hook runs carry, which refuses; nothing is re-signed with Ada's key.
    team.move_main("main-moves");
    ada.git(&["fetch", "-q", "origin"]);
    let rebase = ada.git_run(&["rebase", "origin/main"]);
    assert!(rebase.status.success(), "the rebase itself goes through: {rebase}");
    let said = format!("{}{}", rebase.stdout, rebase.stderr);
    assert!(said.contains("refused") && said.contains("untrusted_signer"), "the hook says why: {rebase}");
    let new = ada.rev("HEAD");
    assert_ne!(old, new);
    assert!(ada.note(&new).is_none(), "nothing was re-signed: {rebase}");
    let out = verify(&ada).failure(26);
    assert!(out.stdout.contains(&format!("unverifiable {}", task("T001"))), "{out}");

    // Run by hand: the same refusal, naming the setting that decides whom carry trusts.
    let refs = ada.refs();
    let out = ada.speccoder(&["attest", "carry", "--json"]).failure(26);
    let row = refused_row(&out);
    assert_eq!(row["code"], "untrusted_signer", "{out}");
    assert_eq!(row["from"], old.as_str());
    let reason = row["reason"].as_str().unwrap();
    assert!(
        reason.contains("gpg.ssh.allowedSignersFile") && reason.contains("--allowed-signers"),
        "{reason}"
    );
    assert!(reason.contains(only_ada.to_str().unwrap()), "names the file read: {reason}");
    assert!(reason.contains(&format!("speccoder attest {}", task("T001"))), "{reason}");
    assert_eq!(ada.refs(), refs, "nothing was written");

    // The advice, followed: whoever does trust that signer carries it (and signs it as Ada).
    let with_mallory =
        team.trust_file("with-mallory", &[(PRINCIPAL, &team.ada), ("mallory@example.com", &team.mallory)]);
    ada.speccoder(&["attest", "carry", "--allowed-signers", with_mallory.to_str().unwrap()]).success();
    assert_signed_by(team.tmp.path(), &only_ada, PRINCIPAL, &ada.note_lines(&new));
    team.fsck(&[&ada]);
}

#[test]
fn carry_refuses_a_note_edited_after_it_was_signed_whatever_the_trust() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &[]);
    // A claim of the task verification is edited, and the summary made to name the edited line,
    // every signature kept: the evidence agrees with its commit, but changed after it was signed.
    let text = String::from_utf8(ada.note(&old).unwrap()).unwrap();
    let mut envelopes: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let payload = |env: &Value| base64_decode(env["payload"].as_str().unwrap());
    let encode = |statement: &Value| {
        use base64::Engine as _;
        Value::from(base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(statement).unwrap()))
    };
    let (mut old_digest, mut new_digest) = (String::new(), String::new());
    for env in &mut envelopes {
        let mut statement: Value = serde_json::from_slice(&payload(env)).unwrap();
        if statement["predicateType"] == TASK_VERIFICATION_TYPE {
            old_digest = common::sha256(&payload(env));
            statement["predicate"]["context"] = Value::from("reviewed and approved by the security team");
            env["payload"] = encode(&statement);
            new_digest = common::sha256(&payload(env));
        }
    }
    for env in &mut envelopes {
        let text = String::from_utf8(payload(env)).unwrap();
        if text.contains(&old_digest) {
            let statement: Value = serde_json::from_str(&text.replace(&old_digest, &new_digest)).unwrap();
            env["payload"] = encode(&statement);
        }
    }
    let forged: String =
        envelopes.iter().map(|e| format!("{}\n", serde_json::to_string(e).unwrap())).collect();
    assert!(!old_digest.is_empty() && forged != text, "the note has a task verification to forge");
    ada.replace_note(&old, &forged);
    // To the verifier the forgery is a bad signature, and nothing else.
    let out = ada.speccoder(&["attest", "verify", &old, "--json"]).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let codes: Vec<&str> = report["ticks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(!codes.is_empty() && codes.iter().all(|c| *c == "bad_signature"), "{out}");
    let new = rebase_onto_moved_main(&team, &ada);
    let refs = ada.refs();

    for args in
        [vec!["attest", "carry", "--json"], vec!["attest", "carry", "--from", &old, "--to", &new, "--json"]]
    {
        let out = ada.speccoder(&args).failure(26);
        let row = refused_row(&out);
        assert_eq!(row["code"], "bad_signature", "{out}");
        assert!(row["reason"].as_str().unwrap().contains("changed after it was signed"), "{out}");
    }
    // Not even a trust that accepts every key of the team re-signs it.
    let everyone = team.trust_file(
        "everyone",
        &[(PRINCIPAL, &team.ada), (BOB, &team.bob), ("mallory@example.com", &team.mallory)],
    );
    let out = ada
        .speccoder(&["attest", "carry", "--allowed-signers", everyone.to_str().unwrap(), "--json"])
        .failure(26);
    assert_eq!(refused_row(&out)["code"], "bad_signature", "{out}");
    assert_eq!(ada.refs(), refs, "nothing was written");
    assert!(ada.note(&new).is_none());
    team.fsck(&[&ada]);
}

#[test]
fn carry_refuses_unsigned_evidence_and_carries_nothing_for_a_carrier_who_trusts_nobody() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &["--signer", "none"]);
    let new = rebase_onto_moved_main(&team, &ada);
    let refs = ada.refs();

    let out = ada.speccoder(&["attest", "carry", "--json"]).failure(26);
    let row = refused_row(&out);
    assert_eq!(row["code"], "evidence_unsigned", "{out}");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("speccoder attest sign {old}")), "{reason}");
    assert_eq!(ada.refs(), refs, "nothing was written");

    // No trust at all: refused before anything is checked or signed (exit 13), saying what to set.
    ada.git(&["config", "--unset", "gpg.ssh.allowedSignersFile"]);
    let out = ada.speccoder(&["attest", "carry"]).failure(13);
    assert!(
        out.stderr.contains("git config gpg.ssh.allowedSignersFile")
            && out.stderr.contains("--allowed-signers FILE"),
        "{out}"
    );
    assert_eq!(ada.refs(), refs, "nothing was written");

    // The advice, followed: sign the old evidence where it is, then carry with a trust.
    ada.speccoder(&["attest", "sign", &old]).success();
    let trust = team.trust_file("ada-by-flag", &[(PRINCIPAL, &team.ada)]);
    ada.speccoder(&["attest", "carry", "--allowed-signers", trust.to_str().unwrap()]).success();
    assert_signed_by(team.tmp.path(), &trust, PRINCIPAL, &ada.note_lines(&new));
    ada.assert_evidenced(1);
    team.fsck(&[&ada]);
}

#[test]
fn carry_from_and_to_the_same_commit_is_refused_its_own_note_stays_and_an_unknown_revision_is_named_as_given()
{
    let team = Team::new();
    let bob = team.writer("bob", &team.bob);
    bob.git(&["checkout", "-q", "-b", "feature-b"]);
    let t002 = bob.attest("T002", &[]);
    let note = bob.note(&t002).unwrap();
    let refs = bob.refs();

    // Whoever runs it, with whatever key: the commit's own note is never replaced.
    let ada_key = team.ada.private.to_str().unwrap();
    for to in [t002.as_str(), "HEAD"] {
        let out = bob
            .speccoder(&["attest", "carry", "--from", &t002, "--to", to, "--key", ada_key, "--json"])
            .failure(26);
        let row = refused_row(&out);
        assert_eq!(row["code"], "same_commit", "{out}");
        assert_eq!(row["target"], task("T002").as_str());
    }
    // An unknown revision is named as it was given, with the command that checks it.
    let out = bob.speccoder(&["attest", "carry", "--from", "nosuch", "--to", "HEAD"]).failure(2);
    assert!(out.stderr.contains("unknown revision `nosuch`"), "{out}");
    assert!(!out.stderr.contains("^{commit}"), "{out}");
    assert_eq!(bob.note(&t002), Some(note), "Bob's note, his signatures and time, stay");
    assert_eq!(bob.refs(), refs, "nothing was written");
    assert_signed_by(team.tmp.path(), &bob.allowed_file(), BOB, &bob.note_lines(&t002));
    bob.assert_evidenced(1);
    team.fsck(&[&bob]);
}

#[test]
fn a_line_signed_later_in_one_clone_merges_over_its_unsigned_copy_in_the_other() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &["--signer", "none"]);
    ada.speccoder(&["attest", "push"]).success();

    // Bob has the unsigned copy, and a note of his own the remote does not have.
    bob.speccoder(&["attest", "fetch"]).success();
    let unsigned = bob.note_lines(&t001);
    assert!(unsigned.iter().all(|l| l.signatures.is_empty()));
    bob.git(&["checkout", "-q", "-b", "feature-b"]);
    let t002 = bob.attest("T002", &[]);

    // Ada signs later and pushes; Bob fetches: one envelope per line, with Ada's signature.
    ada.speccoder(&["attest", "sign", &t001]).success();
    ada.speccoder(&["attest", "push"]).success();
    let out = bob.speccoder(&["attest", "fetch", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["notes"]["outcome"], "merged", "{out}");
    assert_eq!(report["notes"]["joined"], 1);
    let merged = bob.note_lines(&t001);
    assert_eq!(merged.len(), unsigned.len(), "no line twice");
    assert_eq!(bob.note(&t001), ada.note(&t001), "exactly Ada's signed note");
    for (m, u) in merged.iter().zip(&unsigned) {
        assert_eq!(m.payload, u.payload);
    }
    assert_signed_by(team.tmp.path(), &bob.allowed_file(), PRINCIPAL, &merged);
    assert!(bob.note(&t002).is_some(), "Bob's own note stays");
    let parents = bob.git(&["rev-list", "--parents", "-n", "1", NOTES_REF]);
    assert_eq!(parents.split_whitespace().count(), 3, "{parents}");

    bob.speccoder(&["attest", "push"]).success();
    assert_eq!(team.remote_note(&t002), bob.note(&t002));
    team.fsck(&[&ada, &bob]);
}

/// Ada attests T001 and pushes; Bob fetches it and rewrites his copy of its note with `edit`
/// (the note's text in, the new text out); Ada attests T003 and pushes. Bob's next fetch is a
/// conflict (14) naming T001's commit, and changes nothing: its run, and T001's first line as
/// Ada wrote it.
fn fetch_over_an_edited_copy(edit: impl Fn(&str) -> String) -> (Run, Value) {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();
    bob.speccoder(&["attest", "fetch"]).success();
    let text = String::from_utf8(bob.note(&t001).unwrap()).unwrap();
    bob.replace_note(&t001, &edit(&text));
    ada.attest("T003", &[]);
    ada.speccoder(&["attest", "push"]).success();

    let before = bob.rev(NOTES_REF);
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    assert!(out.stderr.contains(&t001), "names the commit: {out}");
    assert_eq!(bob.rev(NOTES_REF), before, "nothing changed");
    team.fsck(&[&ada, &bob]);
    (out, serde_json::from_str(text.lines().next().unwrap()).unwrap())
}

#[test]
fn different_statements_on_one_commit_are_a_conflict_naming_them_and_nothing_changes() {
    // Bob's copy loses its first line; Ada's stays whole and gains another note.
    let (out, dropped) =
        fetch_over_an_edited_copy(|text| text.lines().skip(1).map(|l| format!("{l}\n")).collect());
    let payload = base64_decode(dropped["payload"].as_str().unwrap());
    assert!(out.stderr.contains(&common::sha256(&payload)), "names the statement: {out}");
    assert!(out.stderr.contains("test-result"), "{out}");
}

#[test]
fn a_copy_whose_payload_type_alone_differs_is_a_conflict_naming_that_field_and_nothing_changes() {
    // Bob's copy of the first line carries another payloadType; its statement is the same.
    let retype = |text: &str| {
        let mut first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        first["payloadType"] = Value::from("application/vnd.in-toto+json; x");
        std::iter::once(first.to_string())
            .chain(text.lines().skip(1).map(str::to_owned))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let (out, first) = fetch_over_an_edited_copy(retype);
    let payload = base64_decode(first["payload"].as_str().unwrap());
    assert!(
        out.stderr
            .contains(&format!("sha256:{} differ in their `payloadType` field", common::sha256(&payload))),
        "{out}"
    );
    assert!(!out.stderr.contains("only here") && !out.stderr.contains("only there"), "{out}");
}

/// `attest approve REV` and `attest sign REV`, each signed with Bob's key; the approval trusts
/// `allowed`.
fn approve_and_sign_as_bob(team: &Team, rev: &str, allowed: &Path) -> [Vec<String>; 2] {
    let key = team.bob.private.to_str().unwrap();
    let allowed = allowed.to_str().unwrap();
    let signer = ["--signer", "ssh", "--key", key];
    [
        ["attest", "approve", rev, "--allowed-signers", allowed]
            .iter()
            .chain(&signer)
            .map(|a| (*a).to_owned())
            .collect(),
        ["attest", "sign", rev].iter().chain(&signer).map(|a| (*a).to_owned()).collect(),
    ]
}

#[test]
fn approve_and_sign_in_a_depth_one_clone_are_told_to_fetch_the_whole_history_and_write_nothing() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();

    let shallow = team.clone("shallow", &["--depth", "1", "-b", "feature-a"]);
    shallow.speccoder(&["attest", "fetch"]).success();
    let before = shallow.refs();
    let [approve, sign] = approve_and_sign_as_bob(&team, "HEAD", &ada.allowed_file());
    for args in [&approve, &sign] {
        let out = shallow.speccoder(args).failure(14);
        assert!(out.stderr.contains("this clone is shallow"), "{out}");
        assert!(out.stderr.contains("git fetch --unshallow"), "{out}");
        assert!(!out.stderr.contains("policy_unreadable") && !out.stderr.contains("missing"), "{out}");
        assert_eq!(shallow.refs(), before, "nothing written");
    }
    // As the advice says: with the whole history, the same approval is made.
    shallow.git(&["fetch", "-q", "--unshallow"]);
    shallow.speccoder(&approve).success();
    team.fsck(&[&ada, &shallow]);
}

#[test]
fn approve_and_sign_in_a_blob_less_partial_clone_fetch_what_they_check_first() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    ada.attest("T003", &[]);
    ada.speccoder(&["attest", "push"]).success();
    // The first tick's tasks.md (T001 ticked, T003 not) is not what the head checked out.
    let old_tasks = format!("{t001}:specs/{SPECKIT_UNIT}/tasks.md");
    let commands = approve_and_sign_as_bob(&team, &t001, &ada.allowed_file());
    let approving = team.clone("approving", &["--filter=blob:none", "-b", "feature-a"]);
    let signing = team.clone("signing", &["--filter=blob:none", "-b", "feature-a"]);
    for (clone, args) in [(&approving, &commands[0]), (&signing, &commands[1])] {
        clone.speccoder(&["attest", "fetch"]).success();
        let tasks = clone.rev(&old_tasks);
        let missing = clone.git(&["rev-list", "--objects", "--missing=print", "--all"]);
        assert!(missing.contains(&format!("?{tasks}")), "the old tasks.md is on the promisor only");
        let out = clone.speccoder(args).success();
        let lines = clone.note_lines(&t001);
        assert!(lines.iter().any(|l| l.signatures.len() == 2), "Bob's signature joined Ada's: {out}");
    }
    team.fsck(&[&ada, &approving, &signing]);
}

pub(crate) fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

#[test]
fn a_depth_one_clone_is_told_to_fetch_the_whole_history_and_a_clone_without_notes_to_fetch_them() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    ada.attest("T003", &[]);
    ada.speccoder(&["attest", "push"]).success();

    // What actions/checkout does by default.
    let shallow = team.clone("shallow", &["--depth", "1", "-b", "feature-a"]);
    shallow.speccoder(&["attest", "fetch"]).success();
    let out = shallow
        .speccoder(&[
            "attest",
            "verify",
            "--branch",
            "--allowed-signers",
            ada.allowed_file().to_str().unwrap(),
        ])
        .failure(14);
    assert!(out.stderr.contains("this clone is shallow") && out.stderr.contains("fetch-depth: 0"), "{out}");
    assert!(out.stderr.contains("git fetch --unshallow"), "{out}");
    assert!(!out.stderr.contains("object") || !out.stderr.contains("missing"), "{out}");
    // As CI runs it: the base branch was never fetched into the shallow clone, which is said as
    // the shallow clone it is, not as an unknown name.
    let out = shallow.verify(&[]).failure(14);
    assert!(out.stderr.contains("the base `refs/remotes/origin/main` is not in it"), "{out}");
    assert!(out.stderr.contains("fetch-depth: 0"), "{out}");
    // A base that is not there even in the whole history is a wrong name, and the message says so
    // before the fetch; after it (below), the name is unknown (exit 2).
    let allowed = ada.allowed_file();
    let typo = [
        "attest",
        "verify",
        "--branch",
        "--base",
        "refs/remotes/origin/mian",
        "--allowed-signers",
        allowed.to_str().unwrap(),
    ];
    let out = shallow.speccoder(&typo).failure(14);
    assert!(out.stderr.contains("once the whole history is fetched, the name is wrong"), "{out}");

    // A complete clone that never fetched the notes: fetch them, or (if none) push them.
    let ci = team.clone("ci", &["-b", "feature-a"]);
    let out = ci.verify(&[]).failure(14);
    assert!(out.stderr.contains("run `speccoder attest fetch origin`"), "{out}");
    assert!(out.stderr.contains("its author runs `speccoder attest push`"), "{out}");
    ci.speccoder(&["attest", "fetch"]).success();
    ci.assert_evidenced(2);

    // Deepened, the shallow clone verifies.
    shallow.git(&["fetch", "-q", "--unshallow", "origin", "+refs/heads/*:refs/remotes/origin/*"]);
    shallow.assert_evidenced(2);
    let out = shallow.speccoder(&typo).failure(2);
    assert!(out.stderr.contains("unknown revision `refs/remotes/origin/mian`: check the name"), "{out}");
    team.fsck(&[&ada, &ci, &shallow]);
}

#[test]
fn a_shallow_clone_checked_by_range_or_every_commit_is_told_to_fetch_the_whole_history() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "t5plus"]);
    for id in ["T001", "T002", "T003"] {
        ada.attest(id, &[]);
    }
    ada.git(&["commit", "-q", "--allow-empty", "-m", "A plain commit on top"]);
    ada.git(&["push", "-q", "origin", "t5plus"]);
    ada.speccoder(&["attest", "push"]).success();
    let allowed = ada.allowed_file();
    let allowed = allowed.to_str().unwrap();

    // The history below the tip, and with it the three task commits, was never fetched.
    let shallow = team.clone("shallow", &["--depth", "1", "-b", "t5plus"]);
    shallow.speccoder(&["attest", "fetch"]).success();
    shallow.git(&["fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main"]);
    let fetch_all = |out: &Run| {
        assert!(
            out.stderr.contains("this clone is shallow") && out.stderr.contains("git fetch --unshallow"),
            "{out}"
        );
    };
    let verify = |clone: &Clone<'_>, extra: &[&str]| {
        let mut args = vec!["attest", "verify"];
        args.extend(extra);
        args.extend(["--allowed-signers", allowed]);
        clone.speccoder(&args)
    };
    let by_range = verify(&shallow, &["origin/main..HEAD", "--allow-empty"]).failure(14);
    fetch_all(&by_range);
    assert!(!by_range.stdout.contains("0 checked"), "{by_range}");
    fetch_all(&verify(&shallow, &[]).failure(14));
    fetch_all(&verify(&shallow, &["--allow-empty"]).failure(14));
    fetch_all(&verify(&shallow, &["--branch", "--base", "origin/main"]).failure(14));

    // Deepened by two, the shallow boundary is the second task commit: a range that starts there
    // (present, and where the walk ends) is whole and checks; one that goes on below it is not.
    shallow.git(&["fetch", "-q", "--deepen", "2", "origin", "t5plus"]);
    let whole = verify(&shallow, &["HEAD~2..HEAD", "--json"]);
    assert_eq!(whole.code(), Some(0), "{whole}");
    let report: Value = serde_json::from_str(&whole.stdout).unwrap();
    assert_eq!(report["ticks"].as_array().unwrap().len(), 1, "{whole}");
    assert_eq!(report["ticks"][0]["outcome"], "evidenced", "{whole}");
    fetch_all(&verify(&shallow, &["origin/main..HEAD"]).failure(14));
    fetch_all(&verify(&shallow, &[]).failure(14));
    // A revision whose steps go past the boundary names the shallow clone, not a missing object.
    for past in [&["HEAD~3..HEAD"][..], &["HEAD~3"], &["--branch", "--base", "HEAD~3"]] {
        let out = verify(&shallow, past).failure(14);
        fetch_all(&out);
        assert!(!out.stderr.contains("git fsck"), "{out}");
    }

    // With the whole history, every range checks.
    shallow.git(&["fetch", "-q", "--unshallow", "origin", "t5plus"]);
    assert_eq!(verify(&shallow, &["origin/main..HEAD"]).code(), Some(0));
    team.fsck(&[&ada, &shallow]);
}

#[test]
fn a_shallow_boundary_on_a_merged_side_branch_is_told_to_fetch_not_blamed_for_the_tick() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T002", &[]);
    // A side branch from the task commit, merged back: its commits hold the tick they inherited.
    ada.git(&["checkout", "-q", "-b", "side"]);
    for n in 1..=5 {
        ada.git(&["commit", "-q", "--allow-empty", "-m", &format!("side {n}")]);
    }
    ada.git(&["checkout", "-q", "feature-a"]);
    ada.git(&["commit", "-q", "--allow-empty", "-m", "main 1"]);
    ada.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    ada.git(&["commit", "-q", "--allow-empty", "-m", "main 2"]);
    ada.git(&["push", "-q", "origin", "feature-a"]);
    ada.speccoder(&["attest", "push"]).success();
    let allowed = ada.allowed_file();
    let verify = |clone: &Clone<'_>| {
        clone.speccoder(&[
            "attest",
            "verify",
            "--branch",
            "--all",
            "--allowed-signers",
            allowed.to_str().unwrap(),
        ])
    };
    // Cut at the fifth commit: the task commit is here on the first-parent line, and the
    // boundary is a side commit whose parents were not fetched.
    let shallow = team.clone("shallow", &["--depth", "5", "-b", "feature-a"]);
    shallow.speccoder(&["attest", "fetch"]).success();
    let out = verify(&shallow).failure(14);
    assert!(
        out.stderr.contains("this clone is shallow") && out.stderr.contains("git fetch --unshallow"),
        "{out}"
    );
    assert!(out.stderr.contains(&task("T002")) && !out.stdout.contains("ticked_again"), "{out}");
    shallow.git(&["fetch", "-q", "--unshallow", "origin", "feature-a"]);
    assert_eq!(verify(&shallow).code(), Some(0));
}

/// A shallow clone whose checked branch is whole (only another branch was cut, `--depth N
/// --no-single-branch`) checks a hand tick as a complete clone does (`ticked_without_evidence`,
/// 26): a boundary its history never reaches cut nothing off. A branch whose history does reach
/// the boundary is still told to fetch the whole history (14).
#[test]
fn a_shallow_boundary_the_checked_history_never_reaches_is_not_blamed_for_a_hand_tick() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    ada.set_box_by_hand("T003", true, "Tick T003 by hand");
    let depth = ada.git(&["rev-list", "--count", "HEAD"]).trim().to_owned();
    // A branch on top, longer than the depth: the clone's boundary is one of its commits.
    ada.git(&["checkout", "-q", "-b", "long"]);
    for n in 0..depth.parse::<usize>().unwrap() + 3 {
        ada.git(&["commit", "-q", "--allow-empty", "-m", &format!("long {n}")]);
    }
    ada.git(&["push", "-q", "origin", "feature-a", "long"]);
    ada.speccoder(&["attest", "push"]).success();
    let allowed = ada.allowed_file();
    let verify = |clone: &Clone<'_>| {
        clone.speccoder(&[
            "attest",
            "verify",
            "--branch",
            "--all",
            "--allowed-signers",
            allowed.to_str().unwrap(),
        ])
    };

    let shallow = team.clone("shallow", &["--depth", &depth, "--no-single-branch", "-b", "feature-a"]);
    shallow.speccoder(&["attest", "fetch"]).success();
    assert!(!shallow.git(&["rev-parse", "--is-shallow-repository"]).contains("false"));
    let out = verify(&shallow).failure(26);
    assert!(out.stdout.contains("ticked_without_evidence") && out.stdout.contains(&task("T003")), "{out}");
    assert!(!out.stderr.contains("this clone is shallow"), "{out}");

    // The long branch's history reaches the boundary: its ticks may lie beyond it.
    shallow.git(&["checkout", "-q", "--detach", "origin/long"]);
    let out = verify(&shallow).failure(14);
    assert!(
        out.stderr.contains("this clone is shallow") && out.stderr.contains("git fetch --unshallow"),
        "{out}"
    );
    team.fsck(&[&ada, &shallow]);
}

/// A clone of depth 20 of every branch, as GitLab makes one, where the pull request branched off
/// main below main's shallow boundary: `--branch` with no `--base` finds no merge base with the
/// default branch, which this clone cannot tell from none at all, and says to fetch the whole
/// history (14) rather than check every unit and fail a hand tick of a unit the branch never
/// touched (26). The whole history checks as a complete clone does (0).
#[test]
fn a_default_base_whose_merge_base_lies_beyond_the_shallow_boundary_is_told_to_fetch_the_whole_history() {
    let team = Team::new();
    let seed = team.tmp.path().join("seed");
    // A second unit, ticked by hand on main long before the pull request.
    common::copy_dir(&seed.join("specs").join(SPECKIT_UNIT), &seed.join("specs/002-other"));
    let tasks = seed.join("specs/002-other/tasks.md");
    let text = std::fs::read_to_string(&tasks).unwrap();
    std::fs::write(&tasks, text.replacen("- [ ] T001", "- [x] T001", 1)).unwrap();
    team.run_git(&seed, &["add", "-A"]);
    team.run_git(&seed, &["commit", "-q", "-m", "A legacy hand tick in another unit"]);
    team.run_git(&seed, &["push", "-q", "origin", "main"]);
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    ada.git(&["push", "-q", "origin", "feature-a"]);
    ada.speccoder(&["attest", "push"]).success();
    for n in 0..25 {
        team.run_git(&seed, &["commit", "-q", "--allow-empty", "-m", &format!("main {n}")]);
    }
    team.run_git(&seed, &["push", "-q", "origin", "main"]);
    let allowed = ada.allowed_file();
    let verify = |clone: &Clone<'_>| {
        clone.speccoder(&["attest", "verify", "--branch", "--allowed-signers", allowed.to_str().unwrap()])
    };

    let complete = team.clone("complete", &["-b", "feature-a"]);
    complete.speccoder(&["attest", "fetch"]).success();
    assert_eq!(verify(&complete).code(), Some(0));

    let shallow = team.clone("shallow", &["--depth", "20", "--no-single-branch", "-b", "feature-a"]);
    shallow.speccoder(&["attest", "fetch"]).success();
    let out = verify(&shallow).failure(14);
    for says in [
        "this clone is shallow",
        "the merge base of the head and the default branch `refs/remotes/origin/HEAD` lies beyond it",
        "git fetch --unshallow",
    ] {
        assert!(out.stderr.contains(says), "should say {says}\n{out}");
    }
    assert!(!out.stdout.contains("002-other"), "{out}");

    shallow.git(&["fetch", "-q", "--unshallow", "origin"]);
    assert_eq!(verify(&shallow).code(), Some(0));
    team.fsck(&[&ada, &complete, &shallow]);
}

/// A pull request from a fork: its task commits' notes were pushed to the fork, not to origin,
/// whose notes hold evidence for one of its tasks only on a commit origin never had (an earlier
/// attempt, whose note went out with another branch's `attest push`). CI, having fetched origin's
/// notes, is told that each task commit's note is not among them, and to push it or fetch the
/// notes of the remote the commit came from, never that a rewrite left a commit behind and git
/// removed it; once the fork's notes are fetched, the branch verifies.
#[test]
fn a_fork_pull_request_whose_notes_origin_lacks_is_told_to_push_or_fetch_them_not_that_git_removed_a_commit()
{
    let team = Team::new();
    team.run_git(team.tmp.path(), &["init", "-q", "--bare", "fork.git"]);
    let fork_url = format!("file://{}", team.tmp.path().join("fork.git").display());
    let ada = team.writer("ada", &team.ada);
    ada.git(&["remote", "add", "fork", &fork_url]);
    ada.git(&["checkout", "-q", "-b", "try1"]);
    let try1 = ada.attest("T001", &[]);
    ada.git(&["checkout", "-q", "-b", "other", "main"]);
    ada.git(&["commit", "-q", "--allow-empty", "-m", "Another branch"]);
    ada.git(&["push", "-q", "-u", "origin", "other"]);
    ada.speccoder(&["attest", "push", "origin"]).success();
    ada.git(&["checkout", "-q", "-b", "pr", "main"]);
    // A commit of its own first: made in the same second from the same parent, the pull
    // request's T001 commit would be try1's very commit, whose note origin holds.
    ada.git(&["commit", "-q", "--allow-empty", "-m", "Start the pull request"]);
    ada.attest("T001", &[]);
    ada.attest("T003", &[]);
    ada.git(&["push", "-q", "-u", "fork", "pr"]);
    ada.speccoder(&["attest", "push", "fork"]).success();
    // What GitHub keeps of a fork's pull request in the base repository.
    ada.git(&["push", "-q", "origin", "pr:refs/pull/1/head"]);

    let ci = team.clone("ci", &[]);
    ci.git(&["fetch", "-q", "origin", "+refs/pull/1/head:refs/remotes/pull/1/head"]);
    ci.git(&["checkout", "-q", "--detach", "refs/remotes/pull/1/head"]);
    ci.speccoder(&["attest", "fetch", "origin"]).success();
    let out = ci.verify(&["--json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    let message = |id: &str| {
        let row = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == task(id));
        let row = row.unwrap_or_else(|| panic!("{report:#}"));
        assert_eq!(row["findings"][0]["code"], "note_missing", "{row:#}");
        row["findings"][0]["message"].as_str().unwrap().to_owned()
    };
    for id in ["T001", "T003"] {
        let said = message(id);
        for says in [
            "the task commit has no note in refs/notes/speccoder, nor in the notes fetched from `origin`",
            "for a pull request from a fork, to the fork",
            "push it from that clone (`speccoder attest push <remote>`)",
            "fetch the notes of the remote the commit came from (`speccoder attest fetch <remote>`)",
        ] {
            assert!(said.contains(says), "{id} should say {says}: {said}");
        }
        assert!(!said.contains("git removed it") && !said.contains("no longer in the repository"), "{said}");
    }
    let t001 = message("T001");
    assert!(t001.contains(&format!("only on {try1}, a commit this clone does not hold")), "{t001}");
    assert!(!message("T003").contains(&try1), "no evidence elsewhere names T003");

    ci.git(&["remote", "add", "fork", &fork_url]);
    ci.speccoder(&["attest", "fetch", "fork"]).success();
    ci.assert_evidenced(2);
    team.fsck(&[&ada, &ci]);
}

#[test]
fn a_blob_less_partial_clone_verifies_after_attest_fetch_in_one_batch() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    ada.attest("T003", &[]);
    ada.speccoder(&["attest", "push"]).success();

    let partial = team.clone("partial", &["--filter=blob:none", "-b", "feature-a"]);
    let missing = |c: &Clone<'_>| {
        c.git(&["rev-list", "--objects", "--missing=print", "--all"])
            .lines()
            .filter(|l| l.starts_with('?'))
            .count()
    };
    // The first tick's tasks.md (T001 ticked, T003 not) is not what the head checked out.
    let old_tasks = partial.git(&["rev-parse", &format!("{t001}:specs/{SPECKIT_UNIT}/tasks.md")]);
    assert!(
        partial
            .git(&["rev-list", "--objects", "--missing=print", "--all"])
            .contains(&format!("?{}", old_tasks.trim()))
    );
    let out = partial.verify(&[]).failure(14);
    assert!(out.stderr.contains("speccoder attest fetch"), "{out}");

    partial.speccoder(&["attest", "fetch"]).success();
    let notes_missing = partial.git(&["rev-list", "--objects", "--missing=print", NOTES_REF]);
    assert!(!notes_missing.lines().any(|l| l.starts_with('?')), "the notes came with their contents");
    let before = missing(&partial);
    let trace = team.tmp.path().join("git-trace");
    let mut cmd = partial.speccoder_command(&[
        "attest",
        "verify",
        "--branch",
        "HEAD",
        "--base",
        "origin/main",
        "--allowed-signers-rev",
        "origin/main:.github/allowed_signers",
    ]);
    cmd.env("GIT_TRACE", &trace);
    let out = common::run(cmd).success();
    assert!(out.stdout.contains("2 evidenced"), "{out}");
    let fetches = std::fs::read_to_string(&trace).unwrap_or_default();
    let fetches: Vec<&str> = fetches.lines().filter(|l| l.contains("built-in: git fetch")).collect();
    assert_eq!(fetches.len(), 1, "one batch: {fetches:#?}");
    assert!(fetches[0].contains("--stdin"), "{fetches:?}");
    assert!(missing(&partial) < before, "the blobs verify reads were fetched");
    partial.assert_evidenced(2);
    team.fsck(&[&ada, &partial]);
}

/// A partial clone that checked out the pull request's head only (`--no-checkout`, then the
/// branch) never read the base's trust and policy files when the branch changed both: verify
/// fetches each from the promisor remote where it reads it (`--allowed-signers-rev`,
/// `--policy-rev`), and the branch verifies, never told its clone needs repair.
#[test]
fn a_blob_less_partial_clone_fetches_the_base_s_trust_and_policy_files_the_branch_changed() {
    const POLICY: &str = ".github/speccoder-policy.toml";
    let team = Team::new();
    let seed = team.tmp.path().join("seed");
    std::fs::write(seed.join(POLICY), "version = 1\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\n").unwrap();
    team.run_git(&seed, &["add", "-A"]);
    team.run_git(&seed, &["commit", "-q", "-m", "The verifier policy"]);
    team.run_git(&seed, &["push", "-q", "origin", "main"]);
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    for path in [ALLOWED, POLICY] {
        let text = std::fs::read_to_string(ada.dir.join(path)).unwrap();
        ada.write(path, &format!("{text}# changed by the branch\n"));
    }
    ada.git(&["commit", "-q", "-am", "Touch the trust and the policy"]);
    ada.attest("T001", &[]);
    ada.git(&["push", "-q", "origin", "feature-a"]);
    ada.speccoder(&["attest", "push"]).success();

    let partial = team.clone("partial", &["--filter=blob:none", "--no-checkout"]);
    partial.git(&["checkout", "-q", "feature-a"]);
    let missing = partial.git(&["rev-list", "--objects", "--missing=print", "refs/remotes/origin/main"]);
    for path in [ALLOWED, POLICY] {
        let blob = partial.git(&["rev-parse", &format!("refs/remotes/origin/main:{path}")]);
        assert!(missing.contains(&format!("?{}", blob.trim())), "{path} is not here yet: {missing}");
    }
    partial.speccoder(&["attest", "fetch"]).success();
    let policy = format!("refs/remotes/origin/main:{POLICY}");
    let out = partial.verify(&["--policy-rev", &policy, "--json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(out.code(), Some(0), "{out}");
    assert_eq!(report["ticks"][0]["outcome"], "evidenced", "{report:#}");
    assert!(report["verifier_policy"]["source"].as_str().unwrap().starts_with(&policy), "{report:#}");
    team.fsck(&[&ada, &partial]);
}

/// A clone made with `--filter=tree:0` holds the trees of its checked-out commit only: verify
/// fetches the files it reads, not the trees of every commit of the history, so a missing tree
/// is said as that filter, with the commands that fetch the trees once and keep them; followed,
/// the branch verifies.
#[test]
fn a_tree_less_partial_clone_is_said_as_its_filter_and_verifies_once_the_trees_are_fetched_as_advised() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    ada.attest("T003", &[]);
    ada.speccoder(&["attest", "push"]).success();

    let treeless = team.clone("treeless", &["--filter=tree:0", "-b", "feature-a"]);
    treeless.speccoder(&["attest", "fetch"]).success();
    let out = treeless.verify(&[]).failure(14);
    for says in [
        "is missing from this partial clone, whose filter `tree:0`",
        "`git config remote.origin.partialCloneFilter blob:none`",
        "`git fetch --refetch origin`",
    ] {
        assert!(out.stderr.contains(says), "should say {says}\n{out}");
    }

    treeless.git(&["config", "remote.origin.partialCloneFilter", "blob:none"]);
    treeless.git(&["fetch", "-q", "--refetch", "origin"]);
    treeless.assert_evidenced(2);
    team.fsck(&[&ada, &treeless]);
}

#[test]
fn github_output_annotates_each_failing_tick_at_its_line_and_appends_the_summary() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    // T002 ticked by hand: no evidence.
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let mut text = std::fs::read_to_string(ada.dir.join(&tasks)).unwrap().replace("- [ ] T002", "- [X] T002");
    // And a checked box that is no task (a `+` bullet): an unrecognized tick.
    text.push_str("\n+ [x] T009 not a task line\n");
    ada.write(&tasks, &text);
    ada.git(&["commit", "-q", "-am", "Tick T002 by hand"]);
    ada.speccoder(&["attest", "push"]).success();
    let line = text.lines().position(|l| l.starts_with("- [X] T002")).unwrap() + 1;
    let odd = text.lines().position(|l| l.starts_with("+ [x] T009")).unwrap() + 1;

    let ci = team.clone("ci", &["-b", "feature-a"]);
    ci.speccoder(&["attest", "fetch"]).success();
    let summary = team.tmp.path().join("step-summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let plain = ci.verify(&[]).failure(26);
    let mut cmd = ci.speccoder_command(&[
        "attest",
        "verify",
        "--branch",
        "HEAD",
        "--base",
        "refs/remotes/origin/main",
        "--allowed-signers-rev",
        "refs/remotes/origin/main:.github/allowed_signers",
        "--github",
    ]);
    cmd.env("GITHUB_STEP_SUMMARY", &summary);
    let out = common::run(cmd).failure(26);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let token = lines[0].strip_prefix("::stop-commands::").unwrap_or_else(|| panic!("{out}"));
    assert!(token.len() > 32 && token.starts_with("speccoder-"), "{token}");
    let body: Vec<&str> = plain.stdout.lines().collect();
    assert_eq!(&lines[1..=body.len()], body.as_slice(), "the report, fenced off");
    assert_eq!(lines[body.len() + 1], format!("::{token}::"));
    let annotations = &lines[body.len() + 2..];
    assert_eq!(annotations.len(), 2, "one annotation per failing tick: {annotations:#?}");
    let expected = format!(
        "::error file={tasks},line={line},title=speccoder%3A {t} is unverifiable (ticked_without_evidence)::the task is ticked, but no commit reachable from the head carries Spec-Task: for it with a Verdict:; to back it with evidence, clear its box in a commit of its own and run `speccoder attest {t} --evidence FILE` (or `speccoder accept {t} --reason TEXT` for a task with nothing to test); boxes ticked by hand before speccoder was adopted are held by a verifier policy's [baseline] (`speccoder attest policy init` writes one)",
        t = task("T002")
    );
    assert_eq!(annotations[0], expected);
    // The unrecognized tick, at its own line too.
    let at = format!(
        "::error file={tasks},line={odd},title=speccoder%3A {SPECKIT_UNIT}/tasks.md%3A{odd} is unverifiable (unrecognized_tick)::"
    );
    assert!(annotations[1].starts_with(&at), "{}", annotations[1]);

    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("# earlier step\n### speccoder attest verify\n"), "appended: {written}");
    assert!(written.contains(&format!("| unverifiable | ` {} ` |", task("T002"))), "{written}");
    assert!(written.contains(&format!("| evidenced | ` {} ` |", task("T001"))), "{written}");

    // A pull request that ticks nothing: 15, or 0 with --allow-empty and the same line.
    ci.git(&["checkout", "-q", "-b", "docs-only", "origin/main"]);
    ci.write("README.md", "Words only.\n");
    ci.git(&["add", "README.md"]);
    ci.git(&["commit", "-q", "-m", "Words"]);
    let empty = ci.verify(&[]).failure(15);
    assert!(empty.stderr.contains("nothing to check"), "{empty}");
    let allowed = ci.verify(&["--allow-empty"]).success();
    assert!(allowed.stderr.contains("nothing to check"), "{allowed}");
    team.fsck(&[&ada, &ci]);
}

#[test]
fn skips_and_held_out_sets_travel_and_two_publishers_sets_are_joined() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    // Each publishes the held-out set its closed task names.
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let a_key = close_with_held_out_set(&team, &ada, "T001", "a.rs");
    bob.git(&["checkout", "-q", "-b", "feature-b"]);
    let b_key = close_with_held_out_set(&team, &bob, "T002", "b.rs");
    bob.speccoder(&["skip", &task("T006"), "--reason", "covered by T005"]).success();

    bob.speccoder(&["attest", "push"]).success();
    let out = ada.speccoder(&["attest", "push", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["attempts"], 2, "{out}");
    let held_out = format!("refs/speccoder/held-out/{SPECKIT_UNIT}");
    let joined =
        report["fetches"][0]["refs"].as_array().unwrap().iter().find(|r| r["name"] == held_out.as_str());
    assert_eq!(joined.unwrap()["outcome"], "merged", "{out}");

    // Every set and the skip reach CI, which reads them as git does.
    let ci = team.clone("ci", &[]);
    ci.speccoder(&["attest", "fetch"]).success();
    let files = ci.git(&["ls-tree", "-r", "--name-only", &held_out]);
    for key in [&a_key, &b_key] {
        assert!(files.contains(&format!("{key}/manifest.json")), "{files}");
    }
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T006");
    assert_eq!(ci.rev(&skip), bob.rev(&skip));
    let parents = ci.git(&["rev-list", "--parents", "-n", "1", &held_out]);
    assert_eq!(parents.split_whitespace().count(), 3, "{parents}");

    // Two different skips of one task cannot be joined: the push stops and names the ref.
    bob.speccoder(&["skip", &task("T007"), "--reason", "not needed"]).success();
    bob.speccoder(&["attest", "push"]).success();
    ada.speccoder(&["skip", &task("T007"), "--reason", "later"]).success();
    let mine = ada.rev(&format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007"));
    let out = ada.speccoder(&["attest", "push"]).failure(14);
    // Named by its reference and by the task it skips, as written.
    let named = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007 (the skip of {})", task("T007"));
    assert!(out.stderr.contains(&format!("{named} differ here and on origin")), "{out}");
    assert_eq!(
        ada.rev(&format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007")),
        mine,
        "ours is left as it was"
    );
    team.fsck(&[&ada, &bob, &ci]);
}

/// Stores the held-out set `file` for task `id` in `c`, closes the task with evidence naming it,
/// and publishes it; the set's key (hex).
fn close_with_held_out_set(team: &Team, c: &Clone<'_>, id: &str, file: &str) -> String {
    let dir = team.tmp.path().join(format!("held-{}-{id}", c.dir.file_name().unwrap().to_str().unwrap()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), format!("#[test] fn {id}() {{}}\n")).unwrap();
    let stored = c.speccoder(&["held-out", "store", &task(id), dir.to_str().unwrap()]).success();
    let manifest = stored.stdout.trim().to_owned();
    let mut evidence = common::evidence_json(&task(id), Evidence::Verified);
    evidence["phases"].as_array_mut().unwrap().push(serde_json::json!({
        "phase": "held_out", "result": "PASSED", "manifest": manifest, "passed": 1, "total": 1
    }));
    let red = std::fs::read(common::crate_root().join("fixtures/evidence/red.log")).unwrap();
    let path = common::write_evidence_value(&team.tmp.path().join(format!("ev-{id}")), &evidence, &red);
    c.speccoder(&[OsStr::new("attest"), OsStr::new(&task(id)), OsStr::new("--evidence"), path.as_os_str()])
        .success();
    c.speccoder(&["held-out", "publish"]).success();
    manifest.trim_start_matches("sha256:").to_owned()
}

/// A remote's held-out ref moved forward to a commit that dropped a published set, or changed
/// its bytes under the same key, is no fast-forward to take: the first is joined (the set kept),
/// the second is a conflict that moves nothing.
#[test]
fn a_held_out_ref_the_remote_moved_forward_without_a_set_or_with_its_bytes_changed_keeps_the_set() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let held_out = format!("refs/speccoder/held-out/{SPECKIT_UNIT}");
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let a_key = close_with_held_out_set(&team, &ada, "T001", "a.rs");
    ada.speccoder(&["attest", "push"]).success();
    bob.speccoder(&["attest", "fetch"]).success();
    let files = |c: &Clone<'_>| c.git(&["ls-tree", "-r", "--name-only", &held_out]);
    let remote_git = |args: &[&str]| team.run_git(&team.remote, args).trim().to_owned();
    team.identity(&team.remote, "Mallory", "mallory@example.com");
    let child = |tree: &str| remote_git(&["commit-tree", tree, "-p", &held_out, "-m", "by hand"]);

    let published = remote_git(&["rev-parse", &held_out]);
    // A child whose set holds other bytes under the same key: a conflict, nothing moves.
    let before = bob.rev(&held_out);
    let index = team.tmp.path().join("by-hand.index");
    let with_index = |args: &[&str]| {
        let mut cmd = common::git_command(&team.remote, &team.home, args);
        cmd.env("GIT_INDEX_FILE", &index);
        let out = common::run(cmd);
        assert!(out.status.success(), "git {args:?}: {out}");
        out.stdout.trim().to_owned()
    };
    let evil_file = team.tmp.path().join("evil.rs");
    std::fs::write(&evil_file, "evil\n").unwrap();
    let evil = remote_git(&["hash-object", "-w", evil_file.to_str().unwrap()]);
    with_index(&["read-tree", &held_out]);
    with_index(&["update-index", "--cacheinfo", &format!("100644,{evil},{a_key}/files/a.rs")]);
    let changed = with_index(&["write-tree"]);
    remote_git(&["update-ref", &held_out, &child(&changed)]);
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    assert!(out.stdout.contains(&a_key) || out.stderr.contains(&a_key), "names the set: {out}");
    assert_eq!(bob.rev(&held_out), before, "nothing moved");

    // Back to what was published, then a child with an empty tree: every set dropped.
    remote_git(&["update-ref", &held_out, &published]);
    let empty = remote_git(&["mktree"]);
    remote_git(&["update-ref", &held_out, &child(&empty)]);
    let out = bob.speccoder(&["attest", "fetch", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let row = report["refs"].as_array().unwrap().iter().find(|r| r["name"] == held_out.as_str());
    assert_eq!(row.unwrap()["outcome"], "merged", "{out}");
    assert!(files(&bob).contains(&format!("{a_key}/manifest.json")), "{}", files(&bob));

    team.fsck(&[&ada, &bob]);
}

#[test]
fn a_held_out_ref_the_remote_replaced_or_deleted_never_loses_a_published_set_in_any_clone() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let held_out = format!("refs/speccoder/held-out/{SPECKIT_UNIT}");
    let holds = |c: &Clone<'_>, keys: &[&String]| {
        let files = c.git(&["ls-tree", "-r", "--name-only", &held_out]);
        for key in keys {
            assert!(files.contains(&format!("{key}/manifest.json")), "{key} in {files}");
        }
    };
    // Ada publishes set A and pushes it; Bob fetches it.
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let a_key = close_with_held_out_set(&team, &ada, "T001", "a.rs");
    ada.speccoder(&["attest", "push"]).success();
    bob.speccoder(&["attest", "fetch"]).success();
    holds(&bob, &[&a_key]);

    // Carol's clone never fetched the ref: she publishes set B and replaces the remote's ref by
    // force, so that it holds set B only.
    let carol = team.writer("carol", &team.bob);
    carol.git(&["checkout", "-q", "-b", "feature-c"]);
    let b_key = close_with_held_out_set(&team, &carol, "T002", "b.rs");
    carol.git(&["push", "-q", "--force", "origin", "feature-c", &held_out]);

    // Each clone that held set A joins the two histories instead of taking the remote's, and a
    // push gives the remote both sets again, as a fast-forward.
    for clone in [&bob, &ada] {
        let ours = clone.rev(&held_out);
        let out = clone.speccoder(&["attest", "fetch", "--json"]).success();
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        let row = report["refs"].as_array().unwrap().iter().find(|r| r["name"] == held_out.as_str());
        assert_eq!(row.unwrap()["outcome"], "merged", "{out}");
        holds(clone, &[&a_key, &b_key]);
        let parents = clone.git(&["rev-list", "--parents", "-n", "1", &held_out]);
        assert!(parents.contains(&ours), "ours is a parent of the join: {parents}");
    }
    bob.speccoder(&["attest", "push"]).success();
    ada.speccoder(&["attest", "fetch"]).success();
    ada.speccoder(&["attest", "push"]).success();
    let remote_files = team.run_git(&team.remote, &["ls-tree", "-r", "--name-only", &held_out]);
    for key in [&a_key, &b_key] {
        assert!(remote_files.contains(&format!("{key}/manifest.json")), "{remote_files}");
    }

    // The remote's ref deleted: a fetch keeps ours, and a push sends it again.
    let ours = ada.rev(&held_out);
    team.run_git(&team.remote, &["update-ref", "-d", &held_out]);
    let out = ada.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{held_out}: kept ours")), "{out}");
    assert_eq!(ada.rev(&held_out), ours);
    ada.speccoder(&["attest", "push"]).success();
    assert_eq!(team.run_git(&team.remote, &["rev-parse", &held_out]).trim(), ours);
    team.fsck(&[&ada, &bob, &carol]);
}

#[test]
fn a_clone_without_an_identity_fetches_and_pushes_the_evidence() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();

    // A fresh CI checkout: no identity. Moving a reference needs none (git logs it under a
    // fallback identity); only a merge commit would.
    let ci = team.clone_without_identity("ci", &[]);
    assert!(!ci.git_run(&["config", "user.email"]).status.success(), "no identity in ci");
    let out = ci.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains("fast-forward"), "{out}");
    assert_eq!(ci.rev(NOTES_REF), ada.rev(NOTES_REF));
    let logged = ci.git(&["reflog", "show", "--format=%gs", NOTES_REF]);
    assert!(logged.contains("notes: fast-forward"), "the move is logged: {logged}");
    let again = ci.speccoder(&["attest", "fetch"]).success();
    assert!(again.stdout.contains(&format!("{NOTES_REF}: up to date")), "{again}");

    // Only a merge commit needs an identity: notes that moved on both sides are refused (13),
    // saying how to set one, and ours stay.
    let note = ["-c", "user.name=CI", "-c", "user.email=ci@example.com", "notes", "--ref", NOTES_REF];
    ci.git(&[&note[..], &["add", "-m", "ci's own note", "HEAD~1"]].concat());
    let ours = ci.rev(NOTES_REF);
    ada.attest("T002", &[]);
    ada.speccoder(&["attest", "push"]).success();
    let out = ci.speccoder(&["attest", "fetch"]).failure(13);
    assert!(out.stderr.contains("git config user.name"), "{out}");
    assert_eq!(ci.rev(NOTES_REF), ours);

    // A clone that fetched the notes with git alone pushes them; its remote-tracking copy
    // then says what the remote holds.
    let other = team.clone_without_identity("other", &[]);
    other.git(&["fetch", "-q", "origin", &format!("{NOTES_REF}:{NOTES_REF}")]);
    let out = other.speccoder(&["attest", "push"]).success();
    assert!(out.stdout.contains("pushed refs/heads/main as refs/heads/main"), "{out}");
    assert_eq!(other.rev("refs/notes/remotes/origin/speccoder"), ada.rev(NOTES_REF));
    team.fsck(&[&ada, &ci, &other]);
}

/// A remote whose name git takes (`git remote add`, `git clone -o`) though no Windows path may
/// hold it: push and fetch carry the notes and the skips under it, as under any name, and the
/// fetch a clone without notes is told to run works as given.
#[test]
fn a_remote_named_as_git_allows_but_no_windows_path_may_be_is_pushed_to_and_fetched_from() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    let url = team.url();
    let skip = |id: &str| format!("refs/speccoder/skipped/{SPECKIT_UNIT}/{id}");
    for (remote, id) in [("a|b", "T004"), ("a<b", "T005"), ("a\"b", "T006"), ("a.", "T007"), ("aux", "T008")]
    {
        ada.speccoder(&["skip", &task(id), "--reason", "not needed"]).success();
        ada.git(&["remote", "add", remote, &url]);
        ada.speccoder(&["attest", "push", remote]).success();
        let out = ada.speccoder(&["attest", "fetch", remote]).success();
        assert!(out.stdout.contains(&format!("{NOTES_REF}: up to date")), "{out}");
        let copy = format!("refs/speccoder-remotes/{remote}/skipped/{SPECKIT_UNIT}/{id}");
        assert_eq!(ada.rev(&copy), ada.rev(&skip(id)), "{remote}");
    }

    // A clone whose remote has such a name is told to fetch from it, which works as given.
    let ci = team.clone("ci", &["-o", "x|y", "-b", "feature-a"]);
    let allowed = ada.allowed_file();
    let verify = ["attest", "verify", "--branch", "--allowed-signers", allowed.to_str().unwrap()];
    let out = ci.speccoder(&verify).failure(14);
    assert!(out.stderr.contains("run `speccoder attest fetch 'x|y'`"), "{out}");
    ci.speccoder(&["attest", "fetch", "x|y"]).success();
    ci.speccoder(&verify).success();
    assert_eq!(ci.rev(&skip("T008")), ada.rev(&skip("T008")));

    // A skip undone on the remote is followed by the next fetch: the remote-tracking copies under
    // the name are read back.
    ada.git(&["push", "-q", "a|b", "--delete", &skip("T004")]);
    let out = ci.speccoder(&["attest", "fetch", "x|y"]).success();
    assert!(out.stdout.contains("deleted"), "{out}");
    assert!(ci.git_run(&["rev-parse", "--verify", "-q", &skip("T004")]).stdout.is_empty(), "{out}");
    team.fsck(&[&ada, &ci]);
}

/// A remote configured under a name git pushes to but no reference name can hold is refused up
/// front (exit 2), nothing written, with the rename that makes it work; verify's advice names the
/// same rename.
#[test]
fn a_remote_whose_name_no_reference_can_hold_is_refused_before_anything_with_the_rename_that_fixes_it() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();

    let ci = team.clone("ci", &[]);
    ci.git(&["remote", "remove", "origin"]);
    ci.git(&["config", "remote.a b.url", &team.url()]);
    ci.git(&["config", "remote.a b.fetch", "+refs/heads/*:refs/remotes/ab/*"]);
    ci.git(&["fetch", "-q", "a b"]);
    let allowed = ada.allowed_file();
    let verify = ["attest", "verify", "--branch", "--allowed-signers", allowed.to_str().unwrap()];
    let out = ci.speccoder(&verify).failure(14);
    assert!(out.stderr.contains("`git remote rename -- 'a b' <new-name>`"), "{out}");
    assert!(out.stderr.contains("then `speccoder attest fetch <new-name>`"), "{out}");
    let before = ci.refs();
    for command in ["fetch", "push"] {
        let out = ci.speccoder(&["attest", command, "a b"]).failure(2);
        assert!(
            out.stderr
                .contains("the remote `a b` is configured, but its name cannot be part of a reference name"),
            "{out}"
        );
        assert!(out.stderr.contains("`git remote rename -- 'a b' <new-name>`"), "{out}");
        assert_eq!(ci.refs(), before, "{command} changed nothing");
    }
    ci.git(&["remote", "rename", "--", "a b", "ab"]);
    ci.speccoder(&["attest", "fetch", "ab"]).success();
    ci.speccoder(&verify).success();
    team.fsck(&[&ada, &ci]);
}

/// Every fetch in `clone` reports the conflict of the skip ref `skip` (the remote's `theirs`
/// against `ours`), naming both and both ways out, and leaves ours; push stops with the same
/// advice, never as "overtaken", and sends nothing.
#[track_caller]
fn assert_skip_conflict(team: &Team, clone: &Clone<'_>, skip: &str, theirs: &str, ours: &str) {
    for _ in 0..2 {
        let out = clone.speccoder(&["attest", "fetch"]).failure(14);
        assert!(out.stdout.contains(&format!("{skip}: CONFLICT")), "{out}");
        assert!(out.stdout.contains(&theirs[..12]) && out.stdout.contains(&ours[..12]), "{out}");
        assert!(out.stdout.contains(&format!("git update-ref --no-deref {skip} {theirs}")), "{out}");
        assert!(out.stdout.contains(&format!("git push origin --delete {skip}")), "{out}");
        assert_eq!(clone.rev(skip), ours);
    }
    let out = clone.speccoder(&["attest", "push"]).failure(14);
    assert!(out.stderr.contains(skip) && !out.stderr.contains("overtaken"), "{out}");
    assert!(out.stderr.contains(&format!("git update-ref --no-deref {skip} {theirs}")), "{out}");
    assert!(out.stderr.contains(&format!("git push origin --delete {skip}")), "{out}");
    assert_eq!(team.run_git(&team.remote, &["rev-parse", skip]).trim(), theirs);
    assert_eq!(clone.rev(skip), ours);
}

#[test]
fn a_skip_conflict_is_reported_by_every_fetch_and_by_push_until_one_is_kept() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    ada.speccoder(&["skip", &task("T007"), "--reason", "covered by T006"]).success();
    bob.speccoder(&["skip", &task("T007"), "--reason", "not needed"]).success();
    ada.speccoder(&["attest", "push"]).success();
    let (theirs, ours) = (ada.rev(&skip), bob.rev(&skip));

    assert_skip_conflict(&team, &bob, &skip, &theirs, &ours);

    // Keeping theirs, as advised, ends it.
    bob.git(&["update-ref", &skip, &theirs]);
    bob.speccoder(&["attest", "fetch"]).success();
    bob.speccoder(&["attest", "push"]).success();
    assert_eq!(bob.rev(&skip), theirs);
    team.fsck(&[&ada, &bob]);
}

#[test]
fn a_skip_made_again_after_a_push_is_a_conflict_for_fetch_and_push_until_one_is_kept() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    // A skip made here and never pushed is pushed.
    ada.speccoder(&["skip", &task("T007"), "--reason", "a"]).success();
    ada.speccoder(&["attest", "push"]).success();
    let theirs = ada.rev(&skip);
    assert_eq!(team.run_git(&team.remote, &["rev-parse", &skip]).trim(), theirs);

    // Undone here (deleted locally only, as documented): fetch keeps it deleted, push succeeds
    // and leaves the remote's.
    ada.speccoder(&["skip", &task("T007"), "--undo"]).success();
    let out = ada.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: deleted here only")), "{out}");
    assert!(out.stdout.contains(&format!("git push origin --delete {skip}")), "{out}");
    assert!(ada.git_run(&["rev-parse", "--verify", "-q", &skip]).stdout.trim().is_empty());
    ada.speccoder(&["attest", "push"]).success();
    assert_eq!(team.run_git(&team.remote, &["rev-parse", &skip]).trim(), theirs);

    // Made again, differently: a push cannot replace the remote's skip without forcing, so it is
    // the same conflict as two clones' skips, reported by every fetch, ours left as it is.
    ada.speccoder(&["skip", &task("T007"), "--reason", "b"]).success();
    let ours = ada.rev(&skip);
    assert_ne!(ours, theirs);
    assert_skip_conflict(&team, &ada, &skip, &theirs, &ours);

    // Keeping ours, as advised, ends it: the remote's is deleted, then fetch and push send ours.
    ada.git(&["push", "-q", "origin", "--delete", &skip]);
    ada.speccoder(&["attest", "fetch"]).success();
    ada.speccoder(&["attest", "push"]).success();
    assert_eq!(team.run_git(&team.remote, &["rev-parse", &skip]).trim(), ours);
    assert_eq!(ada.rev(&skip), ours);
    ada.speccoder(&["attest", "fetch"]).success();
    team.fsck(&[&ada]);
}

#[test]
fn a_skip_the_remote_replaced_is_taken_by_another_clone_with_the_one_it_had_named_and_recoverable() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    // Ada settles a skip her way, as documented: her new one replaces the remote's.
    let replace = |reason: &str| {
        ada.speccoder(&["skip", &task("T007"), "--undo"]).success();
        ada.speccoder(&["skip", &task("T007"), "--reason", reason]).success();
        ada.git(&["push", "-q", "origin", "--delete", &skip]);
        ada.speccoder(&["attest", "fetch"]).success();
        ada.speccoder(&["attest", "push"]).success();
        ada.rev(&skip)
    };
    ada.speccoder(&["skip", &task("T007"), "--reason", "a"]).success();
    ada.speccoder(&["attest", "push"]).success();
    let first = ada.rev(&skip);
    let out = bob.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: now {}\n", &first[..12])), "{out}");

    // Bob takes the replacement, told which decision it replaced and how to take it back.
    let second = replace("b");
    let out = bob.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: now {}, replaced", &second[..12])), "{out}");
    let keep = format!("To keep the one here: `git update-ref --no-deref {skip} {first}`");
    assert!(out.stdout.contains(&keep), "{out}");
    assert_eq!(bob.rev(&skip), second);

    // The advice, followed, brings his back as a conflict that fetch reports.
    bob.git(&["update-ref", &skip, &first]);
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    assert!(out.stdout.contains(&format!("{skip}: CONFLICT")), "{out}");
    bob.git(&["update-ref", &skip, &second]);
    bob.speccoder(&["attest", "fetch"]).success();

    // For machines: the outcome `replaced`, with both values.
    let third = replace("c");
    let out = bob.speccoder(&["attest", "fetch", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    let row = report["refs"].as_array().unwrap().iter().find(|r| r["name"] == skip.as_str()).unwrap();
    assert_eq!(row["outcome"], "replaced", "{out}");
    assert_eq!(
        (row["from"].as_str(), row["to"].as_str()),
        (Some(second.as_str()), Some(third.as_str())),
        "{out}"
    );
    team.fsck(&[&ada, &bob]);
}

impl Clone<'_> {
    /// `speccoder args…` with a `git` first on `PATH` that runs the real one and, after the `git
    /// fetch` of `refs/speccoder/*`, kills speccoder (SIGKILL): a fetch stopped after git wrote
    /// what it fetched and before any of it was merged.
    #[cfg(unix)]
    fn speccoder_killed_after_git_fetch(&self, args: &[&str]) -> Run {
        self.speccoder_signalled_after_git_fetch("KILL", args)
    }

    /// `speccoder args…` with a `git` first on `PATH` that runs the real one and, after the `git
    /// fetch` that stages `refs/speccoder/*` (its refspecs on its standard input; the notes come
    /// by a fetch before it), sends speccoder `signal` (`KILL`, `TERM`, `INT`).
    #[cfg(unix)]
    fn speccoder_signalled_after_git_fetch(&self, signal: &str, args: &[&str]) -> Run {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.team.tmp.path().join(format!("git-that-sends-{signal}-after-fetch"));
        std::fs::create_dir_all(&bin).unwrap();
        let wrapper = bin.join("git");
        let script = format!(
            "#!/bin/sh\ncase \" $* \" in *\" fetch \"*) ;; *) exec '{real}' \"$@\";; esac\ncat > \"$0.stdin\"\n'{real}' \"$@\" < \"$0.stdin\"\nrc=$?\ngrep -q speccoder-fetching \"$0.stdin\" && kill -{signal} $PPID\nexit $rc\n",
            real = common::on_path("git").display()
        );
        std::fs::write(&wrapper, script).unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths(
            std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .unwrap();
        let mut cmd = self.speccoder_command(args);
        cmd.env("PATH", path);
        let out = common::run(cmd);
        assert_eq!(out.code(), None, "killed by the wrapper: {out}");
        out
    }
}

impl Clone<'_> {
    /// The fetch lock a killed `attest fetch` left: the next fetch (and push) waits for it, then
    /// stops with exit 14, changing nothing, naming the lock and saying to remove it when no
    /// command runs; removed as told.
    #[track_caller]
    fn remove_the_fetch_lock_as_told(&self) {
        let lock = self.dir.join(".git/speccoder-fetch.lock");
        assert!(lock.exists(), "a killed fetch leaves its lock");
        let refs = self.refs();
        for command in ["fetch", "push"] {
            let out = self.speccoder(&["attest", command]).failure(14);
            assert!(out.stderr.contains("another speccoder attest fetch or push"), "{out}");
            assert!(out.stderr.contains("If no such command is running"), "{out}");
            assert!(
                out.stderr.contains("remove /") && out.stderr.contains(".git/speccoder-fetch.lock"),
                "{out}"
            );
            assert_eq!(self.refs(), refs, "nothing changed");
        }
        std::fs::remove_file(&lock).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn a_fetch_killed_between_gits_fetch_and_the_merge_takes_the_remotes_new_skip_and_held_out_set_when_run_again()
 {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    let held_out = format!("refs/speccoder/held-out/{SPECKIT_UNIT}");
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let key = close_with_held_out_set(&team, &ada, "T001", "a.rs");
    ada.speccoder(&["skip", &task("T007"), "--reason", "covered by T006"]).success();
    ada.speccoder(&["attest", "push"]).success();

    bob.speccoder_killed_after_git_fetch(&["attest", "fetch"]);
    bob.remove_the_fetch_lock_as_told();
    let out = bob.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: now {}\n", &ada.rev(&skip)[..12])), "{out}");
    assert!(out.stdout.contains(&format!("{held_out}: now {}\n", &ada.rev(&held_out)[..12])), "{out}");
    assert!(!out.stdout.contains("deleted here only"), "{out}");
    assert_eq!(bob.rev(&skip), ada.rev(&skip));
    assert_eq!(bob.rev(&held_out), ada.rev(&held_out));
    assert!(bob.git(&["ls-tree", "-r", "--name-only", &held_out]).contains(&format!("{key}/manifest.json")));

    // Run again, it changes nothing, and the staged copies are the remote's references.
    let refs = bob.refs();
    let again = bob.speccoder(&["attest", "fetch"]).success();
    assert!(again.stdout.contains(&format!("{skip}: up to date")), "{again}");
    assert_eq!(bob.refs(), refs);
    assert_staged_as_on_the_remote(&team, &bob);
    team.fsck(&[&ada, &bob]);
}

#[cfg(unix)]
#[test]
fn a_skip_the_remote_deleted_is_deleted_by_a_fetch_run_again_after_a_kill_and_push_does_not_make_it_again() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    ada.speccoder(&["skip", &task("T007"), "--reason", "covered by T006"]).success();
    ada.speccoder(&["attest", "push"]).success();
    bob.speccoder(&["attest", "fetch"]).success();
    assert_eq!(bob.rev(&skip), ada.rev(&skip));

    // Ada undoes it, on the remote too, as documented.
    ada.speccoder(&["skip", &task("T007"), "--undo"]).success();
    ada.git(&["push", "-q", "origin", "--delete", &skip]);

    bob.speccoder_killed_after_git_fetch(&["attest", "fetch"]);
    bob.remove_the_fetch_lock_as_told();
    let out = bob.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: deleted (deleted on the remote)")), "{out}");
    assert!(bob.git_run(&["rev-parse", "--verify", "-q", &skip]).stdout.trim().is_empty());
    bob.speccoder(&["attest", "push"]).success();
    let remote = team.run_git(&team.remote, &["for-each-ref", "--format=%(refname)", "refs/speccoder/"]);
    assert!(remote.trim().is_empty(), "the remote holds no skip again: {remote}");
    team.fsck(&[&ada, &bob]);
}

#[test]
fn a_push_deletes_here_a_skip_another_clone_deleted_on_the_remote_and_sends_one_changed_here_since() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let skip = |id: &str| format!("refs/speccoder/skipped/{SPECKIT_UNIT}/{id}");
    for id in ["T006", "T007"] {
        ada.speccoder(&["skip", &task(id), "--reason", "covered by T005"]).success();
    }
    ada.speccoder(&["attest", "push"]).success();
    // Bob undoes both, on the remote too, as the undo says.
    bob.speccoder(&["attest", "fetch"]).success();
    for id in ["T006", "T007"] {
        bob.speccoder(&["skip", &task(id), "--undo"]).success();
        bob.git(&["push", "-q", "origin", "--delete", &skip(id)]);
    }
    // Ada has since made T007's skip again; T006's she never touched.
    ada.speccoder(&["skip", &task("T007"), "--undo"]).success();
    ada.speccoder(&["skip", &task("T007"), "--reason", "not needed after all"]).success();
    let remade = ada.rev(&skip("T007"));

    // She pushes without fetching first. A dry run names both and changes nothing.
    let refs = ada.refs();
    let out = ada.speccoder(&["attest", "push", "--dry-run"]).success();
    for id in ["T006", "T007"] {
        assert!(out.stdout.contains(&format!("origin no longer holds {}", skip(id))), "{out}");
    }
    assert_eq!(ada.refs(), refs, "a dry run writes nothing");
    // The push decides them as fetch does: the one unchanged here is deleted here, not made on
    // the remote again; the one changed here since is sent.
    let out = ada.speccoder(&["attest", "push"]).success();
    assert!(out.stdout.contains(&format!("{}: deleted (deleted on the remote)", skip("T006"))), "{out}");
    assert!(out.stdout.contains(&format!("{}: kept ours (push sends it)", skip("T007"))), "{out}");
    assert!(ada.git_run(&["rev-parse", "--verify", "-q", &skip("T006")]).stdout.trim().is_empty());
    let remote =
        team.run_git(&team.remote, &["for-each-ref", "--format=%(refname) %(objectname)", "refs/speccoder/"]);
    assert_eq!(remote.trim(), format!("{} {remade}", skip("T007")), "{out}");
    // Nothing more to decide: the next push fetches nothing.
    let out = ada.speccoder(&["attest", "push", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["fetches"].as_array().map(Vec::len), Some(0), "{out}");
    team.fsck(&[&ada, &bob]);
}

#[test]
fn a_note_the_remote_removed_is_named_as_removed_with_commands_that_keep_ours_or_accept_the_removal() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let t001 = ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();
    // Bob removes the note and pushes his notes, a fast-forward of the remote's.
    let notes = format!("--ref={NOTES_REF}");
    let removed_by_bob = || {
        bob.speccoder(&["attest", "fetch"]).success();
        bob.git(&["notes", &notes, "remove", &t001]);
        bob.git(&["push", "-q", "origin", NOTES_REF]);
    };
    removed_by_bob();
    let blob = ada.git(&["notes", &notes, "list", &t001]).trim().to_owned();
    let repair = "refs/notes/speccoder-repair";
    let keep = [
        format!("git fetch origin +{NOTES_REF}:{repair}"),
        format!("git notes --ref={repair} add -C {blob} {t001}"),
        format!("git push origin {repair}:{NOTES_REF}"),
    ];
    let accept = format!("git notes --ref={NOTES_REF} remove {t001}");
    let run_as_said = |command: &str| ada.git(&command.split(' ').skip(1).collect::<Vec<_>>());
    for command in ["fetch", "push"] {
        let out = ada.speccoder(&["attest", command]).failure(14);
        assert!(out.stderr.contains(&format!("origin removed the note of {t001}")), "{out}");
        for said in keep.iter().chain([&accept]) {
            assert!(out.stderr.contains(&format!("`{said}`")), "{out}");
        }
        assert!(!out.stderr.contains("show <commit>"), "there is no copy of theirs to compare: {out}");
        assert!(!out.stderr.contains("remove theirs"), "nor one to remove: {out}");
    }

    // Ours kept, as told: the note is back on the remote.
    for said in &keep {
        run_as_said(said);
    }
    ada.speccoder(&["attest", "fetch"]).success();
    ada.speccoder(&["attest", "push"]).success();
    assert_eq!(team.remote_note(&t001), ada.note(&t001));
    assert!(ada.note(&t001).is_some());

    // The removal accepted, as told.
    removed_by_bob();
    ada.speccoder(&["attest", "fetch"]).failure(14);
    run_as_said(&accept);
    ada.speccoder(&["attest", "fetch"]).success();
    ada.speccoder(&["attest", "push"]).success();
    assert_eq!((ada.note(&t001), team.remote_note(&t001)), (None, None));
    team.fsck(&[&ada, &bob]);
}

#[cfg(unix)]
#[test]
fn a_fetch_ended_by_sigterm_or_ctrl_c_after_gits_fetch_removes_its_lock_and_the_next_takes_the_remotes_skip()
{
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    ada.speccoder(&["skip", &task("T007"), "--reason", "covered by T006"]).success();
    ada.speccoder(&["attest", "push"]).success();

    for signal in ["TERM", "INT"] {
        bob.speccoder_signalled_after_git_fetch(signal, &["attest", "fetch"]);
        assert!(!bob.dir.join(".git/speccoder-fetch.lock").exists(), "SIG{signal} removes the lock");
    }
    let out = bob.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: now {}\n", &ada.rev(&skip)[..12])), "{out}");
    team.fsck(&[&ada, &bob]);
}

/// Fails unless `clone`'s staged copies of origin's `refs/speccoder/*`
/// (`refs/speccoder-fetching/origin/*`) are the remote's references, each at its value.
#[track_caller]
fn assert_staged_as_on_the_remote(team: &Team, clone: &Clone<'_>) {
    let staged = clone.git(&[
        "for-each-ref",
        "--format=%(refname:lstrip=3) %(objectname)",
        "refs/speccoder-fetching/origin/",
    ]);
    let remote = ["for-each-ref", "--format=%(refname:lstrip=2) %(objectname)", "refs/speccoder/"];
    assert_eq!(staged, team.run_git(&team.remote, &remote));
}

/// A fetch with nothing new writes no reference: git's staged copies of the remote's references
/// stay, so that its next fetch rewrites only those the remote changed, and no merge that changes
/// nothing moves one. A fetch of thousands of references then costs a listing, not a rewrite of
/// each.
#[cfg(unix)]
#[test]
fn a_fetch_with_nothing_new_writes_no_reference() {
    use std::os::unix::fs::MetadataExt as _;
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    for id in ["T006", "T007", "T008"] {
        ada.speccoder(&["skip", &task(id), "--reason", "not now"]).success();
    }
    ada.speccoder(&["attest", "push"]).success();
    bob.speccoder(&["attest", "fetch"]).success();
    assert_staged_as_on_the_remote(&team, &bob);
    let written = || {
        let mut files = Vec::new();
        let mut pending = vec![bob.dir.join(".git/refs")];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    pending.push(path);
                } else {
                    files.push((path, meta.ino(), meta.mtime(), meta.mtime_nsec()));
                }
            }
        }
        files.sort();
        files
    };
    let before = written();
    assert!(before.iter().any(|(path, ..)| path.to_string_lossy().contains("speccoder-fetching")));
    let out = bob.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T008: up to date")), "{out}");
    assert_eq!(written(), before, "no reference file was written again");
}

/// `speccoder a…` and `speccoder b…` in `clone`, started at the same instant.
fn at_once(clone: &Clone<'_>, a: &[&str], b: &[&str]) -> [Run; 2] {
    std::thread::scope(|s| {
        let a = s.spawn(|| clone.speccoder(a));
        let b = s.spawn(|| clone.speccoder(b));
        [a.join().unwrap(), b.join().unwrap()]
    })
}

/// Fails unless each run exited 0, or 14 naming the fetch lock (the other run held it for longer
/// than a writer waits), and `clone` holds every reference of `refs/speccoder/` the remote holds,
/// each at the remote's value.
#[track_caller]
fn assert_none_lost(team: &Team, clone: &Clone<'_>, runs: &[Run; 2], round: usize) {
    for out in runs {
        if out.code() != Some(0) {
            let told = out.code() == Some(14) && out.stderr.contains(".git/speccoder-fetch.lock");
            assert!(told, "round {round}: exit 0, or 14 naming the lock\n{out}");
        }
    }
    assert!(runs.iter().any(|out| out.code() == Some(0)), "round {round}: one of them ran");
    let list = ["for-each-ref", "--format=%(refname) %(objectname)", "refs/speccoder/"];
    let here = clone.git(&list);
    assert_eq!(here, team.run_git(&team.remote, &list), "round {round}\n{}\n{}", runs[0], runs[1]);
}

#[test]
fn two_fetches_or_a_fetch_beside_a_push_at_once_never_delete_a_skip_the_remote_holds() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    for id in ["T001", "T002", "T003", "T004", "T005", "T006"] {
        ada.speccoder(&["skip", &task(id), "--reason", "not now"]).success();
    }
    ada.speccoder(&["attest", "push"]).success();
    ada.speccoder(&["attest", "fetch"]).success();

    for round in 0..20 {
        let runs = at_once(&ada, &["attest", "fetch"], &["attest", "fetch"]);
        assert_none_lost(&team, &ada, &runs, round);
    }

    // Each round Bob replaces his skip on the remote, so Ada's push is refused, fetches and
    // merges, and pushes again, while her fetch does the same.
    let t008 = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T008");
    for round in 0..20 {
        if round > 0 {
            bob.speccoder(&["skip", &task("T008"), "--undo"]).success();
        }
        bob.speccoder(&["skip", &task("T008"), "--reason", &format!("round {round}")]).success();
        bob.git(&["push", "-q", "--force", "origin", &t008]);
        let runs = at_once(&ada, &["attest", "fetch"], &["attest", "push"]);
        assert_none_lost(&team, &ada, &runs, round);
    }
    // Whatever the last run merged, a fetch leaves git's copies of the remote's references as the
    // remote holds them, and nothing else staged.
    let settled = ada.speccoder(&["attest", "fetch"]);
    assert!(matches!(settled.code(), Some(0 | 14)), "{settled}");
    assert_staged_as_on_the_remote(&team, &ada);
    team.fsck(&[&ada, &bob]);
}

#[test]
fn a_fetch_stopped_for_want_of_an_identity_takes_the_remotes_new_skip_once_one_is_set() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();
    // A clone without an identity, with a note of its own: the next notes merge needs a commit.
    let ci = team.clone_without_identity("ci", &[]);
    ci.speccoder(&["attest", "fetch"]).success();
    let note = ["-c", "user.name=CI", "-c", "user.email=ci@example.com", "notes", "--ref", NOTES_REF];
    ci.git(&[&note[..], &["add", "-m", "ci's own note", "HEAD~1"]].concat());
    ada.attest("T002", &[]);
    ada.speccoder(&["skip", &task("T007"), "--reason", "covered by T006"]).success();
    ada.speccoder(&["attest", "push"]).success();

    let out = ci.speccoder(&["attest", "fetch"]).failure(13);
    assert!(out.stderr.contains("git config user.name"), "{out}");
    // As the message says.
    team.identity(&ci.dir, "CI", "ci@example.com");
    let out = ci.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: now {}\n", &ada.rev(&skip)[..12])), "{out}");
    assert_eq!(ci.rev(&skip), ada.rev(&skip));
    let again = ci.speccoder(&["attest", "fetch"]).success();
    assert!(again.stdout.contains(&format!("{skip}: up to date")), "{again}");
    team.fsck(&[&ada, &ci]);
}

#[test]
fn a_fetch_stopped_by_a_notes_conflict_takes_the_remotes_new_skip_once_the_conflict_is_resolved_as_told() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T007");
    let t001 = ada.attest("T001", &[]);
    ada.speccoder(&["skip", &task("T007"), "--reason", "covered by T006"]).success();
    ada.speccoder(&["attest", "push"]).success();
    // Bob's own, different note of the same commit.
    bob.git(&["pull", "-q", "--ff-only"]);
    let first = String::from_utf8(ada.note(&t001).unwrap()).unwrap().lines().next().unwrap().to_owned();
    bob.replace_note(&t001, &format!("{first}\n"));

    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    let remove = format!("git notes --ref={NOTES_REF} remove <commit>");
    assert!(out.stderr.contains(&t001) && out.stderr.contains(&remove), "{out}");
    // As the message says: remove ours, keeping theirs, and fetch again.
    bob.git(&["notes", &format!("--ref={NOTES_REF}"), "remove", &t001]);
    let out = bob.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains(&format!("{skip}: now {}\n", &ada.rev(&skip)[..12])), "{out}");
    assert_eq!(bob.rev(&skip), ada.rev(&skip));
    assert_eq!(bob.note(&t001), ada.note(&t001));
    team.fsck(&[&ada, &bob]);
}

#[test]
fn a_branch_goes_where_push_default_sends_it_and_every_advice_names_that_ref() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let main = ada.rev("origin/main");
    // `git switch -c feature origin/main` makes origin/main its upstream.
    ada.git(&["switch", "-q", "-c", "feature", "origin/main"]);
    ada.attest("T001", &[]);

    // push.default unset (simple): git refuses to push feature onto main, and so does speccoder.
    assert!(!ada.git_run(&["push", "origin"]).status.success());
    let out = ada.speccoder(&["attest", "push"]).failure(14);
    assert!(out.stderr.contains("git push origin HEAD:main"), "{out}");
    assert!(out.stderr.contains("push.default"), "{out}");
    assert_eq!(team.run_git(&team.remote, &["rev-parse", "main"]).trim(), main, "nothing was pushed");
    assert!(!team.run_git(&team.remote, &["for-each-ref"]).contains("refs/heads/feature"));
    ada.git(&["config", "push.default", "simple"]);
    ada.speccoder(&["attest", "push"]).failure(14);

    // push.default=upstream: feature goes to main.
    ada.git(&["config", "push.default", "upstream"]);
    let out = ada.speccoder(&["attest", "push"]).success();
    assert!(out.stdout.contains("pushed refs/heads/feature as refs/heads/main"), "{out}");
    assert_eq!(team.run_git(&team.remote, &["rev-parse", "main"]).trim(), ada.rev("HEAD"));

    // When main moves on, the advice names main, the ref actually pushed.
    team.move_main("main-moves");
    ada.attest("T002", &[]);
    let out = ada.speccoder(&["attest", "push"]).failure(14);
    assert!(out.stderr.contains("`git pull --rebase origin main`"), "{out}");
    assert!(out.stderr.contains("`git push --force-with-lease origin feature:main`"), "{out}");

    // push.default=current: feature goes to feature.
    ada.git(&["config", "push.default", "current"]);
    let out = ada.speccoder(&["attest", "push"]).success();
    assert!(out.stdout.contains("pushed refs/heads/feature as refs/heads/feature"), "{out}");
    assert_eq!(team.run_git(&team.remote, &["rev-parse", "feature"]).trim(), ada.rev("HEAD"));
    team.fsck(&[&ada]);
}

#[test]
fn a_branch_name_in_the_advice_is_one_shell_word_that_pasted_runs_nothing_and_works() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    // A name git accepts (and `gh pr checkout` can make from a contributor's branch).
    let branch = "pr$(touch${IFS}PWNED)";
    ada.git(&["switch", "-q", "-c", branch]);
    ada.git(&["config", "push.default", "upstream"]);
    let out = ada.speccoder(&["attest", "push"]).failure(14);
    let advised = out.stderr.split("Set one with `").nth(1).and_then(|rest| rest.split('`').next());
    let advised = advised.unwrap_or_else(|| panic!("no command advised: {out}"));
    assert!(advised.contains("'pr$(touch${IFS}PWNED)'"), "the name quoted: {advised}");

    // Pasted into a shell, as a person follows it: it sets the upstream, and runs nothing.
    let mut sh = Command::new("sh");
    let pasted = sh.args(["-c", advised]).current_dir(&ada.dir).env("HOME", &team.home).output().unwrap();
    assert!(pasted.status.success(), "{}", String::from_utf8_lossy(&pasted.stderr));
    assert!(!ada.dir.join("PWNED").exists(), "the branch name ran as a command");
    assert_eq!(ada.git(&["rev-parse", "--abbrev-ref", "@{upstream}"]).trim(), format!("origin/{branch}"));
    ada.speccoder(&["attest", "push"]).success();
}

#[test]
fn the_advice_for_a_refused_branch_without_upstream_names_the_branch_and_works() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    for c in [&ada, &bob] {
        c.git(&["switch", "-q", "-c", "feat"]);
    }
    ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();
    bob.attest("T006", &[]);
    let out = bob.speccoder(&["attest", "push"]).failure(14);
    assert!(out.stderr.contains("`git pull --rebase origin feat`"), "{out}");
    assert!(out.stderr.contains("`git push --force-with-lease origin feat`"), "{out}");

    // The advice, followed as given, works.
    bob.git(&["pull", "-q", "--rebase", "origin", "feat"]);
    bob.speccoder(&["attest", "carry"]).success();
    bob.speccoder(&["attest", "push"]).success();
    team.fsck(&[&ada, &bob]);
}

/// One step of a workflow: its name (or `uses:`), its `env:` keys and its `run:` script.
#[derive(Debug, Default)]
struct Step {
    name: String,
    with: Vec<String>,
    env: Vec<String>,
    run: Option<String>,
}

/// The steps of a GitHub workflow or composite action, read from its YAML just far enough for
/// these files: `- name:`/`- uses:` items, their `with:`/`env:` keys and block `run: |` scripts.
fn workflow_steps(yaml: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let lines: Vec<&str> = yaml.lines().collect();
    let mut i = 0;
    let mut section: Option<&str> = None;
    let mut section_indent = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if let Some(item) =
            trimmed.strip_prefix("- ").filter(|t| t.starts_with("name:") || t.starts_with("uses:"))
        {
            steps.push(Step { name: item.to_owned(), ..Step::default() });
            section = None;
        } else if let Some(step) = steps.last_mut() {
            if trimmed == "run: |" {
                let base = indent(line);
                let mut script = String::new();
                while i + 1 < lines.len() && (lines[i + 1].trim().is_empty() || indent(lines[i + 1]) > base) {
                    i += 1;
                    script.push_str(lines[i].get(base + 2..).unwrap_or(""));
                    script.push('\n');
                }
                step.run = Some(script);
            } else if trimmed == "with:" || trimmed == "env:" {
                section = Some(if trimmed == "with:" { "with" } else { "env" });
                section_indent = indent(line);
            } else if let (Some(which), Some((key, _))) = (section, trimmed.split_once(':'))
                && indent(line) > section_indent
            {
                let list = if which == "with" { &mut step.with } else { &mut step.env };
                list.push(key.to_owned());
            } else if trimmed.starts_with("name:") {
                step.name = trimmed.to_owned();
            } else {
                section = None;
            }
        }
        i += 1;
    }
    steps
}

/// The YAML block of `docs/ci.md` and its top-level `env:` as (key, value).
fn ci_workflow() -> (String, Vec<(String, String)>) {
    let doc = std::fs::read_to_string(common::crate_root().join("docs/ci.md")).unwrap();
    let start = doc.find("```yaml\n").expect("docs/ci.md holds a yaml block") + 8;
    let yaml = doc[start..start + doc[start..].find("```").unwrap()].to_owned();
    let env = yaml
        .lines()
        .skip_while(|l| *l != "env:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.trim().split_once(": ").map(|(k, v)| (k.to_owned(), v.to_owned())))
        .collect();
    (yaml, env)
}

/// Runs the `run:` scripts of `steps` (all but the install step) in `dir` as GitHub's runner runs
/// them (`bash -eo pipefail`), with `env`; the result of the last one that ran.
fn run_steps(team: &Team, dir: &Path, steps: &[Step], env: &[(String, String)], summary: &Path) -> Run {
    let bin = common::speccoder_bin().parent().unwrap().to_owned();
    let mut last = None;
    for step in steps.iter().filter(|s| s.run.is_some() && !s.name.contains("Install speccoder")) {
        let script = step.run.clone().unwrap();
        let mut cmd = Command::new("bash");
        common::isolate(&mut cmd, &team.home);
        let path = std::env::join_paths(
            std::iter::once(bin.clone())
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .unwrap();
        cmd.current_dir(dir)
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .env("PATH", path)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_BASE_REF", "main")
            .env("GITHUB_STEP_SUMMARY", summary)
            .envs(env.iter().map(|(k, v)| (k, v)));
        let out = common::run(cmd);
        let failed = !out.status.success();
        last = Some(out);
        if failed {
            break;
        }
    }
    last.expect("a step ran")
}

#[test]
fn the_ci_workflow_and_the_action_run_their_steps_against_a_local_remote() {
    let team = Team::new();
    // The verifier policy on main, which the workflow and the action read from the base.
    let seed = team.tmp.path().join("seed");
    let policy = format!(
        "version = 1\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\nsigners = [\"{PRINCIPAL}\", \"{BOB}\"]\n"
    );
    std::fs::write(seed.join(".github/speccoder-policy.toml"), policy).unwrap();
    team.run_git(&seed, &["add", "-A"]);
    team.run_git(&seed, &["commit", "-q", "-m", "The verifier policy"]);
    team.run_git(&seed, &["push", "-q", "origin", "main"]);
    let (yaml, env) = ci_workflow();
    let steps = workflow_steps(&yaml);
    let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "uses: actions/checkout@v4",
            "name: Install speccoder",
            "name: Fetch the evidence",
            "name: Verify the ticks of the pull request"
        ]
    );
    assert!(
        yaml.contains("fetch-depth: 0") && yaml.contains("ref: ${{ github.event.pull_request.head.sha }}")
    );
    assert!(steps[1].run.as_deref().unwrap().contains("cargo install --locked"));
    let action = std::fs::read_to_string(common::crate_root().join("action.yml")).unwrap();
    let action_steps = workflow_steps(&action);
    assert_eq!(action_steps.len(), 3);
    assert!(
        action_steps[0]
            .run
            .as_deref()
            .unwrap()
            .contains("cargo install --locked --path \"$GITHUB_ACTION_PATH\"")
    );
    // The action's inputs, as the runner would pass them for a pull request into main.
    let action_env: Vec<(String, String)> = [
        ("SPECCODER_REMOTE", "origin"),
        ("SPECCODER_BASE", "main"),
        ("SPECCODER_ALLOWED_SIGNERS", ".github/allowed_signers"),
        ("SPECCODER_POLICY", ".github/speccoder-policy.toml"),
    ]
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .into();
    for step in &action_steps[1..] {
        assert!(step.env.iter().all(|k| action_env.iter().any(|(e, _)| e == k)), "{step:?}");
    }

    // Pull requests: one whose ticks hold, one with a tick by hand, one that ticks nothing.
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "good"]);
    ada.attest("T001", &[]);
    ada.attest("T003", &[]);
    ada.speccoder(&["attest", "push"]).success();
    let good = ada.rev("HEAD");
    ada.git(&["checkout", "-q", "-b", "bad"]);
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let text = std::fs::read_to_string(ada.dir.join(&tasks)).unwrap().replace("- [ ] T004", "- [X] T004");
    ada.write(&tasks, &text);
    ada.git(&["commit", "-q", "-am", "Tick T004 by hand"]);
    ada.speccoder(&["attest", "push"]).success();
    let bad = ada.rev("HEAD");
    ada.git(&["checkout", "-q", "-b", "words", "main"]);
    ada.write("README.md", "Words.\n");
    ada.git(&["add", "README.md"]);
    ada.git(&["commit", "-q", "-m", "Words"]);
    ada.git(&["push", "-q", "origin", "words"]);
    let words = ada.rev("HEAD");

    // actions/checkout with fetch-depth 0 and the pull request's head.
    let ci = |name: &str, head: &str| -> Clone<'_> {
        let clone = team.clone(name, &[]);
        clone.git(&["checkout", "-q", "--detach", head]);
        clone
    };
    for (flavour, steps, env) in [("workflow", &steps, &env), ("action", &action_steps, &action_env)] {
        let summary = team.tmp.path().join(format!("summary-{flavour}.md"));
        let out = run_steps(&team, &ci(&format!("{flavour}-good"), &good).dir, steps, env, &summary);
        assert_eq!(out.code(), Some(0), "{flavour}: {out}");
        assert!(out.stdout.contains("2 evidenced"), "{out}");
        let markdown = std::fs::read_to_string(&summary).unwrap();
        assert!(markdown.contains("| evidenced |") && markdown.contains("` all ` |"), "{markdown}");

        let out = run_steps(&team, &ci(&format!("{flavour}-bad"), &bad).dir, steps, env, &summary);
        assert_eq!(out.code(), Some(26), "{flavour}: {out}");
        let line = text.lines().position(|l| l.starts_with("- [X] T004")).unwrap() + 1;
        assert!(out.stdout.contains(&format!("::error file={tasks},line={line},")), "{out}");

        let out = run_steps(&team, &ci(&format!("{flavour}-words"), &words).dir, steps, env, &summary);
        assert_eq!(out.code(), Some(0), "{flavour}: a pull request that ticks nothing passes: {out}");
        assert!(out.stderr.contains("nothing to check"), "{out}");
    }
    team.fsck(&[&ada]);
}

/// With no remote named, push goes where `git push` would: `branch.<name>.pushRemote`, else
/// `remote.pushDefault`, before the upstream's remote; fetch still fetches from the upstream.
#[test]
fn push_goes_to_the_push_remote_git_would_choose_and_fetch_to_the_upstream() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let mirror = team.tmp.path().join("mirror.git");
    let mirror_str = mirror.to_str().unwrap();
    team.run_git(team.tmp.path(), &["init", "-q", "--bare", "-b", "main", mirror_str]);
    ada.git(&["remote", "add", "mirror", mirror_str]);
    ada.git(&["config", "remote.pushDefault", "mirror"]);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);

    let out = ada.speccoder(&["attest", "push"]).success();
    assert!(out.stdout.contains("mirror"), "{out}");
    assert_eq!(team.run_git(&mirror, &["rev-parse", "refs/heads/feature-a"]).trim(), t001);
    assert!(team.run_git(&mirror, &["rev-parse", NOTES_REF]).trim().len() == 40);
    let origin_refs = team.run_git(&team.remote, &["for-each-ref", "--format=%(refname)"]);
    assert!(!origin_refs.contains("feature-a") && !origin_refs.contains(NOTES_REF), "{origin_refs}");

    // The branch's own push remote wins over remote.pushDefault.
    ada.git(&["config", "branch.feature-a.pushRemote", "origin"]);
    ada.speccoder(&["attest", "push"]).success();
    assert_eq!(team.run_git(&team.remote, &["rev-parse", "refs/heads/feature-a"]).trim(), t001);

    // Fetch reads the upstream remote (origin here, main's), never the push remote.
    ada.git(&["branch", "-q", "--set-upstream-to", "origin/main"]);
    let out = ada.speccoder(&["attest", "fetch"]).success();
    assert!(out.stdout.contains("origin") && !out.stdout.contains("mirror"), "{out}");
    team.fsck(&[&ada]);
}

/// A tag pushed as `origin/main` comes before the remote-tracking branch in git's lookup order,
/// so a short `--base origin/main` or `--allowed-signers-rev origin/main:…` would take the base and
/// the trust from whatever the tag names. Such a name is refused as ambiguous; named in full, as
/// docs/ci.md does, the base and the trust come from the real main, and the hand tick fails.
#[test]
fn a_pushed_tag_named_like_the_base_is_refused_as_ambiguous_and_the_full_name_holds() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature"]);
    ada.set_box_by_hand("T001", true, "tick by hand");
    ada.git(&["push", "-q", "origin", "feature", "feature:refs/tags/origin/main"]);

    let ci = team.clone("ci", &[]);
    ci.git(&["checkout", "-q", "--detach", "origin/feature"]);
    ci.git(&["fetch", "-q", "--tags", "origin"]);
    let short = ci.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "HEAD",
        "--base",
        "origin/main",
        "--allowed-signers-rev",
        "origin/main:.github/allowed_signers",
        "--allow-empty",
    ]);
    let short = short.failure(2);
    assert!(short.stderr.contains("`origin/main` is ambiguous"), "{short}");
    assert!(short.stderr.contains("refs/tags/origin/main and refs/remotes/origin/main"), "{short}");

    let out = ci.verify(&["--allow-empty", "--json"]).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["ticks"][0]["reason"], "ticked_without_evidence", "{report:#}");
}

/// A pull request that takes back a tick the base holds claims nothing unproven, so it does not
/// fail the gate, but the report says so, for the reviewer.
#[test]
fn a_branch_that_unticks_a_task_of_its_base_is_named_in_a_warning() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &[]);
    ada.git(&["checkout", "-q", "main"]);
    ada.git(&["merge", "-q", "--ff-only", "feature-a"]);
    ada.git(&["push", "-q", "origin", "main"]);
    ada.speccoder(&["attest", "push"]).success();
    ada.git(&["fetch", "-q", "origin"]);

    ada.git(&["checkout", "-q", "-b", "feature-b"]);
    ada.set_box_by_hand("T001", false, "Untick T001");
    let out = ada.verify(&["--allow-empty"]).success();
    let says = format!(
        "warning: {} is ticked at the base and not at the head: this branch unticks it",
        task("T001")
    );
    assert!(out.stdout.contains(&says), "{out}");
    let json = ada.verify(&["--allow-empty", "--json"]).success();
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(report["warnings"].to_string().contains("this branch unticks it"), "{report:#}");

    // The unit removed, or renamed, takes the tick back with it: said the same way (renamed, its
    // tick is one no task commit names).
    let says = format!(
        "warning: {} is ticked at the base, and the head has no `specs/{SPECKIT_UNIT}` (the unit was removed or renamed): this branch takes the tick back",
        task("T001")
    );
    ada.git(&["checkout", "-q", "-b", "feature-c", "origin/main"]);
    ada.git(&["rm", "-q", "-r", &format!("specs/{SPECKIT_UNIT}")]);
    ada.git(&["commit", "-q", "-m", "Remove the unit"]);
    let out = ada.verify(&["--allow-empty"]).success();
    assert!(out.stdout.contains(&says), "{out}");
    ada.git(&["checkout", "-q", "-b", "feature-d", "origin/main"]);
    ada.git(&["mv", &format!("specs/{SPECKIT_UNIT}"), "specs/001-renamed"]);
    ada.git(&["commit", "-q", "-m", "Rename the unit"]);
    let out = ada.verify(&["--allow-empty"]).failure(26);
    assert!(out.stdout.contains(&says) && out.stdout.contains("001-renamed/T001"), "{out}");
}

/// Points `count` new references `<prefix><long name>-<n>` of `clone` at `target`, in one
/// `git update-ref --stdin`.
fn many_refs(clone: &Clone<'_>, prefix: &str, count: usize, target: &str) {
    let long = "a".repeat(200);
    let lines: String = (0..count).map(|n| format!("create {prefix}{long}-{n} {target}\n")).collect();
    let mut cmd = common::git_command(&clone.dir, &clone.team.home, &["update-ref", "--stdin"]);
    let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), lines.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_push_of_more_evidence_references_than_one_command_line_holds_sends_them_all() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    // Names of over 200 bytes, enough of them that one argument each for git would pass the
    // system's limit on a command line (Linux's ARG_MAX).
    let count = 6_000;
    many_refs(&ada, "refs/speccoder/skipped/many/", count, &ada.rev("HEAD"));
    ada.speccoder(&["attest", "push"]).success();
    let remote = team.run_git(&team.remote, &["for-each-ref", "--format=x", "refs/speccoder/"]);
    assert_eq!(remote.lines().count(), count);
}
