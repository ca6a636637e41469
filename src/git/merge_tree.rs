//! What merging two commits gives, as git merges them (`git merge-tree`, the `ort` strategy),
//! for many pairs from one process: the tree a merge commit would hold had nothing been changed
//! by hand.

use gix::ObjectId;

use super::error::GitError;
use super::repo::Repo;

impl Repo {
    /// The tree git's merge of each `(first, second)` of `pairs` gives, in the order given: the
    /// merged tree, or, where the merge conflicts, the tree git writes with the conflicts marked
    /// in the files. One `git merge-tree --stdin` does them all (it writes the trees it makes into
    /// the object store, as `git merge` would, unreferenced). It is git's own three-way merge as
    /// every clone makes it ([`Repo::history_command`]): no merge driver or attribute of the work
    /// tree, the commits or the user picks another merge for a file, and the settings that would
    /// change the tree are git's defaults (renames followed, conflicts marked in the `merge`
    /// style, no renormalizing).
    ///
    /// # Errors
    /// git cannot run or fails (a commit is missing), or its output is not a tree for each pair.
    pub fn merged_trees(&self, pairs: &[(ObjectId, ObjectId)]) -> Result<Vec<ObjectId>, GitError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let action = format!("merging the parents of {} merge commit(s)", pairs.len());
        let input: String = pairs.iter().map(|(a, b)| format!("{a} {b}\n")).collect();
        let args =
            ["merge-tree", "--stdin", "--name-only", "--no-messages", "-z", "--allow-unrelated-histories"];
        let out = self.run_history_git(&action, &args, Some(input.as_bytes()))?.succeeded(&action)?;
        let trees = read_merged_trees(&out.stdout);
        match trees {
            Some(trees) if trees.len() == pairs.len() => Ok(trees),
            _ => Err(GitError::GitCommand {
                action,
                status: out.status.code(),
                stderr: "git's output is not a merged tree for each pair asked for".to_owned(),
            }),
        }
    }
}

/// The trees of `git merge-tree --stdin --name-only --no-messages -z`'s output: for each merge,
/// its status (`1` clean, `0` conflicts), the tree, the conflicted paths, and an empty field;
/// `None` when it is not that.
fn read_merged_trees(out: &[u8]) -> Option<Vec<ObjectId>> {
    // Each merge ends with an empty field: the whole ends with two NULs.
    let mut fields = out.strip_suffix(b"\0\0")?.split(|b| *b == 0);
    let mut trees = Vec::new();
    while let Some(status) = fields.next() {
        if status != b"0" && status != b"1" {
            return None;
        }
        trees.push(ObjectId::from_hex(fields.next()?).ok()?);
        // The conflicted paths, up to the empty field that ends the merge (the last one's was cut).
        while fields.next().is_some_and(|path| !path.is_empty()) {}
    }
    Some(trees)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;

    #[test]
    fn a_clean_merge_gives_both_sides_and_a_conflicted_one_its_marked_tree() {
        let fx = Fixture::new();
        let base = fx.commit_file("f.txt", "base\n", "base");
        let ours = fx.commit_file("a.txt", "a\n", "ours");
        fx.git(&["checkout", "-q", "-b", "theirs", &base.to_string()]);
        let theirs = fx.commit_file("b.txt", "b\n", "theirs");
        let clash = fx.commit_file("f.txt", "theirs\n", "clash");
        fx.git(&["checkout", "-q", "-b", "ours2", &ours.to_string()]);
        let ours2 = fx.commit_file("f.txt", "ours\n", "clash too");
        let repo = fx.repo();
        let trees = repo.merged_trees(&[(ours, theirs), (ours2, clash)]).unwrap();
        assert_eq!(trees.len(), 2);
        fx.git(&["checkout", "-q", &ours.to_string()]);
        fx.git(&["merge", "-q", "--no-edit", &theirs.to_string()]);
        assert_eq!(trees[0], fx.rev("HEAD^{tree}"), "the tree `git merge` writes");
        let marked = fx.git(&["cat-file", "-p", &format!("{}:f.txt", trees[1])]);
        assert!(marked.contains("<<<<<<<"), "{marked}");
    }

    #[test]
    fn output_that_is_not_a_tree_per_merge_is_not_read() {
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let clean = format!("1\0{tree}\0\0");
        let conflicted = format!("0\0{tree}\0f\0g\0\0");
        assert_eq!(read_merged_trees(format!("{clean}{conflicted}").as_bytes()).map(|t| t.len()), Some(2));
        assert_eq!(read_merged_trees(b"2\0x\0\0"), None);
        assert_eq!(read_merged_trees(format!("0\0{tree}\0f\0").as_bytes()), None, "cut off");
    }
}
