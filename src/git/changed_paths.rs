//! Which paths commits change, and which commits of a history change given paths: what lets a
//! comparison of changes read only the commits that can hold one ([`Repo::change_patches`] costs
//! a patch per commit, a main that moved by thousands of commits holds thousands). Both run the
//! `git` program once: `git diff-tree --name-only` and `git rev-list --full-history`, whose
//! path-limited walk compares trees only along the paths asked for.

use std::collections::HashSet;

use gix::ObjectId;

use super::error::GitError;
use super::repo::Repo;

impl Repo {
    /// Every path one of `commits` changes against one of its parents (a root commit: every path
    /// it holds), each once, sorted: one `git diff-tree --stdin`. Renames are read as a path
    /// removed and one added.
    ///
    /// # Errors
    /// git cannot run or fails (a commit is missing).
    pub fn changed_paths(&self, commits: &[ObjectId]) -> Result<Vec<Vec<u8>>, GitError> {
        if commits.is_empty() {
            return Ok(Vec::new());
        }
        let action = format!("listing the paths {} commit(s) change", commits.len());
        let input: String = commits.iter().map(|c| format!("{c}\n")).collect();
        let args = [
            "diff-tree",
            "--stdin",
            "-r",
            "-m",
            "--root",
            "--name-only",
            "-z",
            "--no-commit-id",
            "--no-renames",
            "--ignore-submodules=none",
        ];
        let out = self.run_history_git(&action, &args, Some(input.as_bytes()))?.succeeded(&action)?;
        let mut paths: Vec<Vec<u8>> =
            out.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()).map(<[u8]>::to_vec).collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// The commits of `tip`'s history (`tip` too) that `hidden`'s does not hold and that change
    /// one of `paths` against one of their parents, as `git rev-list --full-history` lists them:
    /// a merge whose tree is its parents' at those paths is not one, a merge that kept one
    /// parent's there and dropped the other's is. A path git cannot read on a line of its input
    /// (one holding a line feed or a carriage return) is asked for as the directory above the
    /// first of its names that holds one, which holds it; `None` when there is no such directory
    /// (a first name with one): every commit may change it.
    ///
    /// # Errors
    /// git cannot run or fails (a commit is missing).
    pub fn commits_changing(
        &self,
        tip: ObjectId,
        hidden: ObjectId,
        paths: &[Vec<u8>],
    ) -> Result<Option<HashSet<ObjectId>>, GitError> {
        let Some(specs) = paths.iter().map(|p| sayable(p)).collect::<Option<HashSet<&[u8]>>>() else {
            return Ok(None);
        };
        if specs.is_empty() {
            return Ok(Some(HashSet::new()));
        }
        let action = format!("listing the commits that change {} path(s)", specs.len());
        let mut input = format!("{tip}\n^{hidden}\n--\n").into_bytes();
        for spec in specs {
            input.extend_from_slice(spec);
            input.push(b'\n');
        }
        let args = ["--literal-pathspecs", "rev-list", "--full-history", "--stdin"];
        let out = self.run_history_git(&action, &args, Some(&input))?.succeeded(&action)?;
        let ids = out.stdout.split(|b| *b == b'\n').filter(|line| !line.is_empty());
        let read = ids.map(|line| {
            std::str::from_utf8(line).ok().and_then(|hex| ObjectId::from_hex(hex.as_bytes()).ok())
        });
        match read.collect::<Option<HashSet<ObjectId>>>() {
            Some(ids) => Ok(Some(ids)),
            None => Err(GitError::GitCommand {
                action,
                status: out.status.code(),
                stderr: "git's output is not a list of commit ids".to_owned(),
            }),
        }
    }
}

/// `path`, or the directory above the first of its names git cannot read on a line of its input
/// (with a line feed or a carriage return); `None` when that is the first.
fn sayable(path: &[u8]) -> Option<&[u8]> {
    let bad = |b: &u8| *b == b'\n' || *b == b'\r';
    let Some(at) = path.iter().position(bad) else {
        return Some(path);
    };
    let dir_end = path[..at].iter().rposition(|b| *b == b'/')?;
    Some(&path[..dir_end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;

    #[test]
    fn the_paths_commits_change_are_listed_once_a_merge_s_against_each_parent() {
        let fx = Fixture::new();
        let base = fx.commit_file("f.txt", "base\n", "base");
        let side = fx.commit_file("dir/g.txt", "g\n", "side");
        fx.git(&["checkout", "-q", "-b", "feat", &base.to_string()]);
        let ours = fx.commit_file("h.txt", "h\n", "ours");
        fx.git(&["merge", "-q", "-s", "ours", "--no-edit", &side.to_string()]);
        let merge = fx.rev("HEAD");
        let repo = fx.repo();
        let paths = |ids: &[ObjectId]| repo.changed_paths(ids).unwrap();
        assert_eq!(paths(&[side, ours, side]), [b"dir/g.txt".to_vec(), b"h.txt".to_vec()]);
        assert_eq!(paths(&[base]), [b"f.txt".to_vec()], "a root commit holds what it changes");
        let against_each = [b"dir/g.txt".to_vec(), b"h.txt".to_vec()];
        assert_eq!(paths(&[merge]), against_each, "the same as its first parent, not as its second");
        assert!(paths(&[]).is_empty());
    }

    #[test]
    fn the_commits_changing_paths_are_those_of_the_range_a_merge_that_dropped_a_side_s_change_too() {
        let fx = Fixture::new();
        let base = fx.commit_file("f.txt", "base\n", "base");
        let side = fx.commit_file("f.txt", "side\n", "side");
        fx.git(&["checkout", "-q", "-b", "feat", &base.to_string()]);
        let other = fx.commit_file("g.txt", "g\n", "other");
        fx.git(&["merge", "-q", "-s", "ours", "--no-edit", &side.to_string()]);
        let dropped = fx.rev("HEAD");
        let repo = fx.repo();
        let changing = |paths: &[&[u8]]| {
            let paths: Vec<Vec<u8>> = paths.iter().map(|p| p.to_vec()).collect();
            repo.commits_changing(fx.rev("HEAD"), base, &paths).unwrap()
        };
        assert_eq!(changing(&[b"f.txt"]), Some(HashSet::from([side, dropped])));
        assert_eq!(changing(&[b"g.txt", b"f*"]), Some(HashSet::from([other, dropped])), "literal paths");
        assert_eq!(changing(&[]), Some(HashSet::new()));
        assert_eq!(changing(&[b"f.txt\nx"]), None, "no directory holds it");
    }

    #[test]
    fn a_path_git_cannot_read_on_a_line_is_asked_for_as_the_directory_above_it() {
        assert_eq!(sayable(b"a/b.txt"), Some(&b"a/b.txt"[..]));
        assert_eq!(sayable(b"a/b\nc/d"), Some(&b"a"[..]));
        assert_eq!(sayable(b"a/b/c\r"), Some(&b"a/b"[..]));
        assert_eq!(sayable(b"a\r/b"), None);
    }
}
