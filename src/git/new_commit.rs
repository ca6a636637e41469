//! Creating commits: the object alone, or the object plus a compare-and-swap of a branch.

use gix::ObjectId;
use gix::refs::transaction::{LogChange, RefEdit, RefLog};

use super::error::{GitError, GixResultExt};
use super::identity::Role;
use super::refs::{full_name, one_line, previous};
use super::repo::Repo;

/// A commit made but not yet written, so that its bytes can be signed first (`commit.gpgsign`).
pub struct NewCommit(gix::objs::Commit);

impl NewCommit {
    /// The commit object's bytes as git stores them (without the `object` header): what
    /// `git commit -S` signs.
    #[must_use]
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = gix::objs::WriteTo::write_to(&self.0, &mut out);
        out
    }
}

impl Repo {
    /// Write a commit object with `parents`, `tree` and `message` (stored byte for byte), author
    /// and committer as git would take them; no reference moves.
    pub fn create_commit_detached(
        &self,
        parents: &[ObjectId],
        tree: ObjectId,
        message: &str,
    ) -> Result<ObjectId, GitError> {
        let commit = self.new_commit(parents, tree, message)?;
        self.write_commit(commit, None)
    }

    /// A commit of `tree` with `parents` and `message`, author and committer as git would take
    /// them, not yet written ([`Repo::write_commit`]).
    pub fn new_commit(
        &self,
        parents: &[ObjectId],
        tree: ObjectId,
        message: &str,
    ) -> Result<NewCommit, GitError> {
        if !self.inner.has_object(tree) {
            return Err(self.missing(tree));
        }
        Ok(NewCommit(gix::objs::Commit {
            tree,
            parents: parents.iter().copied().collect(),
            author: self.signature(Role::Author)?,
            committer: self.signature(Role::Committer)?,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        }))
    }

    /// Writes `commit`, with `gpgsig` (an armored signature over [`NewCommit::bytes`]) as its
    /// signature header when given, as `git commit -S` writes it; no reference moves.
    pub fn write_commit(&self, commit: NewCommit, gpgsig: Option<String>) -> Result<ObjectId, GitError> {
        let mut commit = commit.0;
        if let Some(signature) = gpgsig {
            commit.extra_headers.push(("gpgsig".into(), signature.into()));
        }
        self.inner.write_object(&commit).map(gix::Id::detach).during(|| "write a commit".into())
    }

    /// Commit `tree` with `message` on top of `expected_head` and move `branch_ref` to it, only if
    /// the branch still points at `expected_head` ([`GitError::RefMoved`] otherwise). The reflog of
    /// the branch (and of HEAD when it is checked out here) records `commit: <subject>`.
    pub fn create_commit_on_branch(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        tree: ObjectId,
        message: &str,
    ) -> Result<ObjectId, GitError> {
        let found = self.ref_target(branch_ref)?;
        if found != Some(expected_head) {
            return Err(GitError::RefMoved {
                name: branch_ref.to_owned(),
                expected: Some(expected_head),
                found,
            });
        }
        let id = self.create_commit_detached(&[expected_head], tree, message)?;
        self.advance_branch(branch_ref, expected_head, id, message)?;
        Ok(id)
    }

    /// Move `branch_ref` from `expected_head` to the commit `new` (written already, with
    /// `message`) by compare-and-swap ([`GitError::RefMoved`] when it moved meanwhile). The reflog
    /// of the branch, and of HEAD when the branch is checked out here, records `commit: <subject>`.
    pub fn advance_branch(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        new: ObjectId,
        message: &str,
    ) -> Result<(), GitError> {
        let branch = full_name(branch_ref)?;
        let checked_out_here =
            self.inner.head_name().during(|| "read HEAD".into())?.is_some_and(|name| name == branch);
        let edit = self.branch_edit(branch_ref, expected_head, new, message, checked_out_here)?;
        self.apply_ref_edit(edit, branch_ref, Some(expected_head))
    }

    /// The edit that moves `branch_ref` from `expected_head` to `new`, logged as
    /// [`Repo::advance_branch`] logs it; `through_head` when HEAD names the branch.
    pub(crate) fn branch_edit(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        new: ObjectId,
        message: &str,
        through_head: bool,
    ) -> Result<RefEdit, GitError> {
        let subject = message.lines().next().unwrap_or("");
        let log = LogChange {
            mode: RefLog::AndReference,
            force_create_reflog: false,
            message: one_line(&format!("commit: {subject}")).into(),
        };
        // Going through HEAD lets the transaction log the move in HEAD's reflog too, as git does,
        // and holds HEAD's lock while it runs.
        let name = full_name(if through_head { "HEAD" } else { branch_ref })?;
        Ok(RefEdit::update_with_log(name, new, previous(Some(expected_head)), log).with_deref(true))
    }
}

#[cfg(test)]
mod tests {
    //! Commits and references: compare-and-swap, reflogs, and identities exactly as git forms them.

    use std::process::Command;

    use crate::git::test_support::{Fixture, isolate, run};
    use crate::git::{GitError, Head, ObjectId, Repo};

    /// Set in a child copy of this test binary: the repository to commit in.
    const CHILD_REPO: &str = "SPECCODER_GIT_TEST_CHILD_REPO";
    const CHILD_MARK: &str = "SPECCODER-CHILD-COMMIT ";

    #[test]
    fn a_commit_on_the_branch_moves_it_and_is_logged_in_the_branch_and_head_reflogs() {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let tree = fx.rev("HEAD^{tree}");
        let commit =
            repo.create_commit_on_branch("refs/heads/main", base, tree, "Tick T001\n\nBody.\n").unwrap();
        assert_eq!(fx.rev("refs/heads/main"), commit);
        assert_eq!(fx.rev(&format!("{commit}^")), base);
        assert_eq!(fx.git(&["log", "-1", "--format=%B", "main"]), "Tick T001\n\nBody.\n\n");
        assert_eq!(
            fx.git(&["reflog", "show", "-1", "--format=%gs", "refs/heads/main"]).trim(),
            "commit: Tick T001"
        );
        assert_eq!(fx.git(&["reflog", "show", "-1", "--format=%gs", "HEAD"]).trim(), "commit: Tick T001");
        let parsed = repo.commit(commit).unwrap();
        assert_eq!(parsed.parents, vec![base]);
        assert_eq!(parsed.tree, tree);
        assert_eq!(parsed.author.name, "Test Person");
        assert_eq!(parsed.committer.email, "test@example.com");
        fx.assert_fsck_clean();
    }

    #[test]
    fn a_branch_that_moved_meanwhile_is_reported_and_not_overwritten() {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let moved = fx.commit_file("b.txt", "b\n", "someone else");
        let tree = fx.rev("HEAD^{tree}");
        match repo.create_commit_on_branch("refs/heads/main", base, tree, "ours\n") {
            Err(GitError::RefMoved { name, expected, found }) => {
                assert_eq!(name, "refs/heads/main");
                assert_eq!(expected, Some(base));
                assert_eq!(found, Some(moved));
            }
            other => panic!("expected RefMoved, got {other:?}"),
        }
        assert_eq!(fx.rev("refs/heads/main"), moved);
    }

    #[test]
    fn a_branch_that_moves_between_the_check_and_the_swap_is_not_overwritten() {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let tree = fx.rev("HEAD^{tree}");
        let ours = repo.create_commit_detached(&[base], tree, "ours\n").unwrap();
        let moved = fx.commit_file("b.txt", "b\n", "someone else");
        let result = repo.update_ref_cas("refs/heads/main", Some(base), ours, "commit: ours");
        assert!(matches!(result, Err(GitError::RefMoved { found: Some(f), .. }) if f == moved));
        assert_eq!(fx.rev("refs/heads/main"), moved);
    }

    #[test]
    fn a_branch_not_checked_out_is_committed_to_without_touching_head() {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "a\n", "base");
        fx.git(&["branch", "side"]);
        let repo = fx.repo();
        let commit = repo
            .create_commit_on_branch("refs/heads/side", base, fx.rev("HEAD^{tree}"), "on side\n")
            .unwrap();
        assert_eq!(fx.rev("side"), commit);
        assert_eq!(fx.rev("HEAD"), base);
        assert_eq!(fx.git(&["reflog", "show", "-1", "--format=%gs", "side"]).trim(), "commit: on side");
    }

    #[test]
    fn refs_are_created_updated_listed_and_deleted_only_from_the_expected_value() {
        let fx = Fixture::new();
        let a = fx.commit_file("a.txt", "a\n", "a");
        let b = fx.commit_file("b.txt", "b\n", "b");
        let repo = fx.repo();
        let name = "refs/speccoder/held-out/001-x";
        assert_eq!(repo.ref_target(name).unwrap(), None);
        repo.update_ref_cas(name, None, a, "held-out: publish").unwrap();
        assert_eq!(fx.rev(name), a);
        assert!(matches!(
            repo.update_ref_cas(name, None, b, "again"),
            Err(GitError::RefMoved { expected: None, found: Some(f), .. }) if f == a
        ));
        repo.update_ref_cas(name, Some(a), b, "forward").unwrap();
        repo.update_ref_cas("refs/speccoder/held-out/002-y", None, a, "x").unwrap();
        assert_eq!(
            repo.refs_with_prefix("refs/speccoder/held-out/").unwrap(),
            vec![(name.to_owned(), b), ("refs/speccoder/held-out/002-y".to_owned(), a)]
        );
        assert!(matches!(repo.delete_ref_cas(name, a), Err(GitError::RefMoved { .. })));
        repo.delete_ref_cas(name, b).unwrap();
        assert_eq!(repo.ref_target(name).unwrap(), None);
        assert!(fx.git_output(&["rev-parse", "--verify", "-q", name], None).stdout.is_empty());
        assert!(matches!(repo.ref_target("not a ref"), Err(GitError::InvalidRefName { .. })));
    }

    #[test]
    fn refs_below_a_prefix_git_takes_but_windows_forbids_as_a_path_are_listed_loose_and_packed() {
        let fx = Fixture::new();
        let a = fx.commit_file("a.txt", "a\n", "a").to_string();
        let remotes = ["a|b", "a<b", "a\"b", "a.", "aux", "CON"];
        for remote in remotes {
            fx.git(&["update-ref", &format!("refs/speccoder-remotes/{remote}/skipped/x/T1"), &a]);
        }
        fx.git(&["update-ref", "refs/speccoder-remotes/a|bc/skipped/x/T1", &a]);
        fx.git(&["pack-refs", "--all"]);
        fx.git(&["update-ref", "refs/speccoder-remotes/a|b/skipped/x/T2", &a]);
        let repo = fx.repo();
        for remote in remotes {
            let prefix = format!("refs/speccoder-remotes/{remote}/");
            let names: Vec<String> =
                repo.refs_with_prefix(&prefix).unwrap().into_iter().map(|(name, _)| name).collect();
            let mut expected = vec![format!("{prefix}skipped/x/T1")];
            if remote == "a|b" {
                expected.push(format!("{prefix}skipped/x/T2"));
            }
            assert_eq!(names, expected, "{prefix}");
        }
    }

    #[test]
    fn head_is_reported_as_branch_detached_or_unborn() {
        let fx = Fixture::new();
        assert_eq!(fx.repo().head().unwrap(), Head::Unborn("refs/heads/main".into()));
        let first = fx.commit_file("a.txt", "a\n", "a");
        assert_eq!(fx.repo().head().unwrap(), Head::Branch { name: "refs/heads/main".into(), commit: first });
        fx.git(&["checkout", "-q", "--detach"]);
        assert_eq!(fx.repo().head().unwrap(), Head::Detached(first));
    }

    #[test]
    fn an_unknown_revision_is_a_clear_error() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "a");
        let repo = fx.repo();
        assert_eq!(repo.rev_parse("HEAD").unwrap(), fx.rev("HEAD"));
        let err = repo.rev_parse("no-such-branch").unwrap_err();
        assert!(matches!(err, GitError::UnknownRevision { .. }));
        assert!(err.to_string().contains("unknown revision `no-such-branch`"), "{err}");
    }

    #[test]
    fn a_commit_message_that_is_not_utf8_keeps_its_raw_bytes() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "a");
        let message: &[u8] = b"caf\xe9 subject\n\nSpec-Task: x/T1\n";
        // git commit-tree would re-encode the message as UTF-8; write the object as it is instead.
        let mut raw = format!(
        "tree {}\nparent {}\nauthor A <a@example.com> 1700000000 +0000\ncommitter C <c@example.com> 1700000000 +0000\n\n",
        fx.rev("HEAD^{tree}"),
        fx.rev("HEAD")
    )
    .into_bytes();
        raw.extend_from_slice(message);
        let id = fx.git_bytes(&["hash-object", "-t", "commit", "-w", "--stdin"], Some(&raw));
        let id = ObjectId::from_hex(String::from_utf8(id).unwrap().trim().as_bytes()).unwrap();
        let commit = fx.repo().commit(id).unwrap();
        assert_eq!(commit.message_bytes, message);
        assert_eq!(commit.subject(), "caf\u{fffd} subject");
        assert!(matches!(fx.repo().commit(fx.rev("HEAD^{tree}")), Err(GitError::WrongKind { .. })));
    }

    /// The child side of the identity test: commit in the given repository and print the id.
    fn child_commit(repo_path: &str) {
        let repo = Repo::discover(repo_path).unwrap();
        let head = repo.rev_parse("HEAD").unwrap();
        let tree = repo.commit(head).unwrap().tree;
        match repo.create_commit_detached(&[head], tree, "Subject\n\nBody line.\n") {
            Ok(id) => println!("{CHILD_MARK}{id}"),
            Err(err) => println!("{CHILD_MARK}error: {err}"),
        }
    }

    /// Run the identity test's child side in `fx` with `env`; return what it printed after the mark.
    fn commit_in_child(fx: &Fixture, env: &[(&str, &str)]) -> String {
        let test_name =
            concat!(module_path!(), "::a_commit_is_identical_to_git_commit_tree_under_the_same_environment");
        let test_name = test_name.split_once("::").unwrap().1;
        let mut child = Command::new(std::env::current_exe().unwrap());
        child.args([test_name, "--exact", "--nocapture", "--test-threads=1"]);
        isolate(&mut child, fx.home());
        child.envs(env.iter().copied()).env(CHILD_REPO, fx.path());
        let out = run(child, None);
        let stdout = String::from_utf8_lossy(&out.stdout);
        stdout
            .lines()
            .find_map(|l| l.split_once(CHILD_MARK).map(|(_, rest)| rest.trim().to_owned()))
            .unwrap_or_else(|| {
                panic!("the child printed its commit: {stdout}\n{}", String::from_utf8_lossy(&out.stderr))
            })
    }

    #[test]
    fn a_commit_is_identical_to_git_commit_tree_under_the_same_environment() {
        if let Ok(path) = std::env::var(CHILD_REPO) {
            return child_commit(&path);
        }
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "base");
        std::fs::write(fx.path().join(".git/msg"), "Subject\n\nBody line.\n").unwrap();
        let env: &[(&str, &str)] = &[
            ("GIT_AUTHOR_NAME", "  Ada, Lovelace; "),
            ("GIT_AUTHOR_EMAIL", "<ada@example.com>"),
            ("GIT_AUTHOR_DATE", "@1700000000 +0200"),
            ("GIT_COMMITTER_DATE", "Tue, 14 Nov 2023 22:13:20 -0130"),
        ];
        let mut git = fx.command(&["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-F", ".git/msg"]);
        git.envs(env.iter().copied());
        let by_git = run(git, None);
        assert!(by_git.status.success());
        let by_git = String::from_utf8(by_git.stdout).unwrap();

        let ours = commit_in_child(&fx, env);
        assert_eq!(
            ours,
            by_git.trim(),
            "ours:\n{}\ngit's:\n{}",
            fx.git(&["cat-file", "-p", &ours]),
            fx.git(&["cat-file", "-p", by_git.trim()])
        );
    }

    #[test]
    fn a_missing_identity_is_an_error_that_says_how_to_set_it() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "base");
        fx.git(&["config", "--unset", "user.name"]);
        fx.git(&["config", "--unset", "user.email"]);
        let printed = commit_in_child(&fx, &[]);
        assert!(printed.starts_with("error: no author identity configured"), "{printed}");
        assert!(printed.contains("git config user.name"), "{printed}");
        let printed = commit_in_child(
            &fx,
            &[
                ("GIT_AUTHOR_NAME", "<>"),
                ("GIT_AUTHOR_EMAIL", "a@b"),
                ("GIT_COMMITTER_NAME", "C"),
                ("GIT_COMMITTER_EMAIL", "c@d"),
            ],
        );
        assert!(printed.starts_with("error: the author name is empty"), "{printed}");
        let printed = commit_in_child(
            &fx,
            &[
                ("GIT_AUTHOR_NAME", "A"),
                ("GIT_AUTHOR_EMAIL", "a@b"),
                ("GIT_COMMITTER_NAME", "C"),
                ("GIT_COMMITTER_EMAIL", "c@d"),
                ("GIT_AUTHOR_DATE", "not a date"),
            ],
        );
        assert!(printed.starts_with("error: invalid date `not a date` in GIT_AUTHOR_DATE"), "{printed}");
    }

    #[test]
    fn without_a_date_in_the_environment_each_commit_is_dated_when_it_is_made() {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let opened = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        std::thread::sleep(std::time::Duration::from_millis(2100));
        let id = repo.create_commit_detached(&[base], fx.rev("HEAD^{tree}"), "later\n").unwrap();
        let commit = repo.commit(id).unwrap();
        assert!(
            commit.committer.seconds >= i64::try_from(opened).unwrap() + 2,
            "dated at the commit, not at open"
        );
        assert!(commit.author.seconds >= i64::try_from(opened).unwrap() + 2);
    }

    /// The offset in the committer line of `commit` as git prints it (`+0545`).
    fn committer_offset(fx: &Fixture, commit: &str) -> String {
        let raw = fx.git(&["cat-file", "commit", commit]);
        let line = raw.lines().find(|l| l.starts_with("committer ")).expect("a committer line");
        line.rsplit(' ').next().unwrap().to_owned()
    }

    #[test]
    fn without_a_date_in_the_environment_commits_carry_the_offset_git_takes_from_tz() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "base");
        std::fs::write(fx.path().join(".git/msg"), "Subject\n\nBody line.\n").unwrap();
        // Zone names, a name with the optional colon, POSIX rules, empty (UTC) and an unknown name
        // (UTC for both). Zones without summer time keep the test independent of the date.
        for tz in ["Asia/Kathmandu", ":Asia/Kolkata", "<+0330>-3:30", "XYZ+7", "UTC0", "", "No/Such_Zone"] {
            let mut git = fx.command(&["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-F", ".git/msg"]);
            git.env("TZ", tz);
            let by_git = run(git, None);
            assert!(by_git.status.success());
            let by_git = String::from_utf8(by_git.stdout).unwrap();
            let ours = commit_in_child(&fx, &[("TZ", tz)]);
            assert_eq!(committer_offset(&fx, &ours), committer_offset(&fx, by_git.trim()), "TZ={tz:?}");
        }
    }
}
