//! The `git update-ref` commands a message advises, to delete a reference or point it elsewhere.
//!
//! Each names `--no-deref`: without it git follows a symbolic reference and deletes, or moves,
//! the reference it names (a branch, the notes), never the link itself. Every message that
//! advises either command writes it through here.

use crate::model::shown::shell_word;

/// `git update-ref --no-deref -d NAME`: deletes the reference `name` itself, a symbolic one
/// included, and never what it points at. `name` is written as one shell word.
#[must_use]
pub fn delete_ref_command(name: &str) -> String {
    format!("git update-ref --no-deref -d {}", shell_word(name))
}

/// `git update-ref --no-deref NAME VALUE`: points the reference `name` itself at `value` (a
/// symbolic one becomes a direct one), never what it points at. `name` is written as one shell
/// word; `value` as given (an object id, or a placeholder such as `<commit>`).
#[must_use]
pub fn set_ref_command(name: &str, value: &str) -> String {
    format!("git update-ref --no-deref {} {value}", shell_word(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;

    /// The words of an advised command after `git`, to run as the advice says.
    fn words(command: &str) -> Vec<&str> {
        command.strip_prefix("git ").unwrap().split(' ').collect()
    }

    #[test]
    fn the_advised_commands_change_a_symbolic_reference_and_keep_the_branch_it_names() {
        let fx = Fixture::new();
        let first = fx.commit_file("a", "1", "first").to_string();
        let second = fx.commit_file("a", "2", "second").to_string();
        fx.git(&["update-ref", "refs/heads/keep", &first]);
        let link = "refs/speccoder/skipped/u/T1";

        fx.git(&["symbolic-ref", link, "refs/heads/keep"]);
        fx.git(&words(&set_ref_command(link, &second)));
        assert_eq!(fx.git(&["rev-parse", "refs/heads/keep"]).trim(), first, "the branch stays");
        assert_eq!(fx.git(&["rev-parse", link]).trim(), second);
        let out = fx.git_output(&["symbolic-ref", "-q", link], None);
        assert!(!out.status.success(), "the link became a direct reference");

        fx.git(&["symbolic-ref", link, "refs/heads/keep"]);
        fx.git(&words(&delete_ref_command(link)));
        assert_eq!(fx.git(&["rev-parse", "refs/heads/keep"]).trim(), first, "the branch stays");
        assert!(fx.git(&["for-each-ref", link]).trim().is_empty(), "the link is gone");
        let out = fx.git_output(&["rev-parse", "--verify", "-q", link], None);
        assert!(!out.status.success(), "{link} is gone");
    }

    #[test]
    fn a_name_is_written_as_one_shell_word() {
        assert_eq!(delete_ref_command("refs/a b"), "git update-ref --no-deref -d 'refs/a b'");
        assert_eq!(set_ref_command("refs/x", "<commit>"), "git update-ref --no-deref refs/x <commit>");
    }
}
