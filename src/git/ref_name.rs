//! A reference's name exactly as git keeps it: bytes, which git does not require to be UTF-8.
//! Shown escaped, acted on only exactly: a text with U+FFFD in place of each byte that is not
//! UTF-8 is the name of another reference (`git checkout -b $'br\xff'` and a branch literally
//! named `br��` are two branches).

use gix::bstr::{BStr, ByteSlice};
use gix::refs::{FullName, FullNameRef};

use super::error::GitError;
use crate::model::shown::{bytes_shown, shell_bytes_word};

/// A branch's full reference name (`refs/heads/main`) exactly as git keeps it. Shown with each
/// byte that is not UTF-8 escaped (its [`Display`](std::fmt::Display)); acted on as text only
/// when it is UTF-8 ([`BranchName::text`]), else by its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchName(FullName);

impl BranchName {
    pub(super) fn new(name: FullName) -> Self {
        BranchName(name)
    }

    /// The name as text, to act on (a refspec, a reference to write, a lookup by name).
    ///
    /// # Errors
    /// [`GitError::RefNameNotUtf8`] for a name that is not UTF-8, saying how to rename the branch.
    pub fn text(&self) -> Result<&str, GitError> {
        self.0.as_bstr().to_str().map_err(|_| GitError::RefNameNotUtf8 {
            what: "HEAD's branch",
            name: self.to_string(),
            remedy: "rename it (`git branch -m <new-name>` renames the branch checked out), then run the command again"
                .to_owned(),
        })
    }

    /// The name's bytes, for a lookup that takes them exactly (`branch.<name>.remote`).
    pub(crate) fn as_ref(&self) -> &FullNameRef {
        self.0.as_ref()
    }

    /// Whether this is the branch `name` (a full reference name), byte for byte.
    #[must_use]
    pub fn is(&self, name: &str) -> bool {
        self.0.as_bstr() == name.as_bytes()
    }
}

impl std::fmt::Display for BranchName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&bytes_shown(self.0.as_bstr()))
    }
}

#[cfg(test)]
impl From<&str> for BranchName {
    fn from(name: &str) -> Self {
        BranchName(FullName::try_from(name).expect("a valid reference name"))
    }
}

#[cfg(test)]
impl From<String> for BranchName {
    fn from(name: String) -> Self {
        BranchName::from(name.as_str())
    }
}

/// The reference name `name`, listed or read from the repository, as text to act on.
///
/// # Errors
/// [`GitError::RefNameNotUtf8`] for a name that is not UTF-8, saying how to delete it.
pub(super) fn listed_name(name: &BStr) -> Result<&str, GitError> {
    name.to_str().map_err(|_| GitError::RefNameNotUtf8 {
        what: "the reference",
        name: bytes_shown(name),
        remedy: format!(
            "rename or delete it (`git update-ref -d {}`; one a remote sent comes back with each fetch until it is deleted there), then run the command again",
            shell_bytes_word(name)
        ),
    })
}

#[cfg(all(test, unix))]
mod tests {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;

    use crate::git::test_support::{Fixture, run};
    use crate::git::{Direction, GitError, Head};

    /// A branch whose name is not UTF-8, and the branch its lossy text would name.
    const SHORT: &[u8] = b"br\xff\xfe";
    const LOSSY: &str = "refs/heads/br\u{fffd}\u{fffd}";

    /// git `args` followed by the words `bytes`, whatever bytes they hold.
    fn git_with(fx: &Fixture, args: &[&str], bytes: &[&[u8]]) {
        let mut cmd = fx.command(args);
        cmd.args(bytes.iter().map(|b| OsStr::from_bytes(b)));
        let out = run(cmd, None);
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// A repository on the branch [`SHORT`], one commit ahead of the branch its lossy text names.
    fn on_undecodable_branch() -> Fixture {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "one");
        fx.git(&["branch", &LOSSY["refs/heads/".len()..]]);
        git_with(&fx, &["checkout", "-q", "-b"], &[SHORT]);
        fx.commit_file("b.txt", "b\n", "two");
        fx
    }

    #[test]
    fn a_branch_whose_name_is_not_utf8_is_shown_escaped_and_refused_as_text_never_taken_for_another() {
        let fx = on_undecodable_branch();
        let repo = fx.repo();
        let Head::Branch { name, commit } = repo.head().unwrap() else { panic!("on a branch") };
        assert_eq!(commit, fx.rev("HEAD"));
        assert!(!name.is(LOSSY), "the branch its lossy text names is another");
        assert_eq!(name.to_string(), "refs/heads/br\\xFF\\xFE");
        let refused = name.text().unwrap_err();
        assert!(matches!(refused, GitError::RefNameNotUtf8 { .. }), "{refused:?}");
        assert!(refused.to_string().contains("`git branch -m <new-name>`"), "{refused}");
        // A writer that read the other branch finds HEAD moved, not the same.
        assert!(matches!(repo.ensure_head_names(LOSSY), Err(GitError::HeadMoved { .. })));
        // Listed as text, the name is refused with a command that names it exactly; listed for
        // its target only, it is there as git keeps it.
        let listed = repo.refs_with_prefix("refs/heads/").unwrap_err();
        assert!(
            listed.to_string().contains(r#"`git update-ref -d "$(printf 'refs/heads/br\377\376')"`"#),
            "{listed}"
        );
        let exact = repo.targets_with_prefix("refs/heads/").unwrap();
        assert!(exact.iter().any(|(name, id)| name == b"refs/heads/br\xff\xfe".as_slice() && *id == commit));
    }

    #[test]
    fn a_branch_whose_name_is_not_utf8_finds_its_own_remote_and_a_remote_so_named_is_none() {
        let fx = on_undecodable_branch();
        fx.git(&["remote", "add", "origin", "/nowhere/origin.git"]);
        fx.git(&["remote", "add", "other", "/nowhere/other.git"]);
        git_with(&fx, &["config"], &[b"branch.br\xff\xfe.remote", b"other"]);
        fx.git(&["config", "branch.br\u{fffd}\u{fffd}.remote", "origin"]);
        let repo = fx.repo();
        let Head::Branch { name, .. } = repo.head().unwrap() else { panic!("on a branch") };
        assert_eq!(repo.default_remote(Some(&name), Direction::Fetch).unwrap(), "other");
        // A remote whose name is not UTF-8 is none speccoder names, nor its lossy text.
        git_with(&fx, &["remote", "add"], &[b"o\xff", b"/nowhere/o.git"]);
        let repo = fx.repo();
        assert_eq!(fx.git_bytes(&["remote"], None), b"origin\nother\no\xff\n");
        assert_eq!(repo.remote_names(), ["origin", "other"]);
        assert!(matches!(repo.require_remote("o\u{fffd}"), Err(GitError::UnknownRemote { .. })));
        // An upstream branch whose name is not UTF-8 is refused, never pushed to by its lossy text.
        fx.git(&["config", "branch.main.remote", "origin"]);
        git_with(&fx, &["config", "branch.main.merge"], &[b"refs/heads/up\xff"]);
        let upstream = fx.repo().upstream_on("refs/heads/main", "origin").unwrap_err();
        assert!(upstream.to_string().contains("refs/heads/up\\xFF"), "{upstream}");
    }

    /// git's choice of a branch's remote, whose name it keeps as bytes: the first of
    /// `branch.<name>.pushRemote`, `remote.pushDefault` and `branch.<name>.remote` that is set.
    #[test]
    fn a_configured_remote_whose_name_is_not_utf8_is_refused_naming_its_key_and_never_passed_over() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "one");
        fx.git(&["remote", "add", "origin", "/nowhere/origin.git"]);
        git_with(&fx, &["remote", "add"], &[b"o\xff", b"/nowhere/o.git"]);
        git_with(&fx, &["config", "branch.main.remote"], &[b"o\xff"]);
        fx.git(&["config", "branch.main.merge", "refs/heads/main"]);
        let refused = |direction, key: &str| {
            let repo = fx.repo();
            let Head::Branch { name, .. } = repo.head().unwrap() else { panic!("on a branch") };
            let err = repo.default_remote(Some(&name), direction).unwrap_err();
            assert!(matches!(&err, GitError::RemoteNameNotUtf8 { .. }), "{err:?}");
            let said = err.to_string();
            for part in [
                &format!("`{key}` names the remote o\\xFF"),
                r#"`git remote rename -- "$(printf 'o\377')" <new-name>`"#,
            ] {
                assert!(said.contains(part), "{part}: {said}");
            }
        };
        refused(Direction::Fetch, "branch.main.remote");
        refused(Direction::Push, "branch.main.remote");
        // Named on the command line, another remote is pushed to as git pushes to it: the
        // upstream is on another remote.
        assert_eq!(fx.repo().upstream_on("refs/heads/main", "origin").unwrap(), None);
        fx.git(&["config", "branch.main.remote", "origin"]);
        assert_eq!(
            fx.repo().upstream_on("refs/heads/main", "origin").unwrap().as_deref(),
            Some("refs/heads/main")
        );
        git_with(&fx, &["config", "remote.pushDefault"], &[b"o\xff"]);
        refused(Direction::Push, "remote.pushdefault");
        git_with(&fx, &["config", "branch.main.pushRemote"], &[b"o\xff"]);
        refused(Direction::Push, "branch.main.pushremote");
        let repo = fx.repo();
        let Head::Branch { name, .. } = repo.head().unwrap() else { panic!("on a branch") };
        assert_eq!(repo.default_remote(Some(&name), Direction::Fetch).unwrap(), "origin");
    }
}
