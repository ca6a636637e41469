//! Why a revision whose leading name resolves does not: the steps after that name (`~N`, `^N`,
//! `^{}`) taken one at a time, to find a commit or tag on the way the repository lacks or cannot
//! read. gix says only that such a step is "out of range", naming no object.

use gix::ObjectId;

use super::error::GitError;
use super::repo::Repo;

/// One step of a revision after its leading name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// `~N` (`~` is `~1`): the first parent, N times.
    Ancestor(u64),
    /// `^N` (`^` is `^1`): the N-th parent; `^0` is the commit itself.
    Parent(u64),
    /// `^{}` or `^{<kind>}`: the object its tags lead to.
    Peel,
}

/// The steps `rest` (a revision after its leading name) begins with, up to the first step not
/// taken here (`:<path>`, `@{...}`, a search `^{/<text>}`, a count too large to be one).
fn steps(mut rest: &str) -> Vec<Step> {
    let mut out = Vec::new();
    loop {
        let (step, after) = if let Some(after) = rest.strip_prefix("^{") {
            match after.find('}') {
                Some(end) if !after.starts_with('/') => (Some(Step::Peel), &after[end + 1..]),
                _ => break,
            }
        } else if let Some(after) = rest.strip_prefix('~') {
            let (count, after) = count(after);
            (count.map(Step::Ancestor), after)
        } else if let Some(after) = rest.strip_prefix('^') {
            let (count, after) = count(after);
            (count.map(Step::Parent), after)
        } else {
            break;
        };
        let Some(step) = step else { break };
        out.push(step);
        rest = after;
    }
    out
}

/// The `n`-th of `parents`, counted from 1.
fn nth(parents: &[ObjectId], n: u64) -> Option<ObjectId> {
    usize::try_from(n - 1).ok().and_then(|i| parents.get(i)).copied()
}

/// The count that `text` begins with (1 when it begins with no digit; `None` when it is too
/// large), and the text after it.
fn count(text: &str) -> (Option<u64>, &str) {
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let count = if digits == 0 { Some(1) } else { text[..digits].parse().ok() };
    (count, &text[digits..])
}

impl Repo {
    /// Why the steps `rest` of a revision (after its leading name, which resolves to `from`)
    /// cannot be taken: the first commit or tag on the way the repository lacks
    /// ([`GitError::ObjectMissing`]) or cannot read ([`GitError::CorruptObject`]), as
    /// [`Repo::commit`] says it. `None` when every object on the way reads: a step beyond the
    /// history, or from a tree or a blob, is a name to correct.
    pub(super) fn unreadable_on_the_way(&self, from: ObjectId, rest: &str) -> Option<GitError> {
        let mut at = from;
        for step in steps(rest) {
            let next = match step {
                Step::Peel => self.peeled(at).map(Some),
                Step::Parent(0) => self.peeled(at).and_then(|id| self.commit(id)).map(|c| Some(c.id)),
                Step::Parent(n) => self.parents(at).map(|p| nth(&p, n)),
                Step::Ancestor(n) => self.first_parent_after(at, n),
            };
            match next {
                Ok(Some(next)) => at = next,
                // Beyond the history, or a commit's step from a tree or a blob: a name to correct.
                Ok(None) | Err(GitError::WrongKind { .. }) => return None,
                Err(unreadable) => return Some(unreadable),
            }
        }
        self.header(at).err()
    }

    /// The object `id` leads to through its tags (`id` itself when it is no tag).
    fn peeled(&self, mut id: ObjectId) -> Result<ObjectId, GitError> {
        while self.header(id)?.kind() == gix::object::Kind::Tag {
            let data = self.read_kind(id, gix::object::Kind::Tag)?;
            let tag = gix::objs::TagRef::from_bytes(&data, self.object_hash());
            id =
                tag.map_err(|e| GitError::CorruptObject { id, kind: "tag", reason: e.to_string() })?.target();
        }
        Ok(id)
    }

    /// The parents of the commit `id` leads to through its tags.
    fn parents(&self, id: ObjectId) -> Result<Vec<ObjectId>, GitError> {
        Ok(self.commit(self.peeled(id)?)?.parents)
    }

    /// The commit `n` first parents below the one `id` leads to; `None` when the history ends
    /// sooner.
    fn first_parent_after(&self, mut id: ObjectId, n: u64) -> Result<Option<ObjectId>, GitError> {
        for _ in 0..n {
            match self.parents(id)?.first() {
                Some(parent) => id = *parent,
                None => return Ok(None),
            }
        }
        Ok(Some(id))
    }
}

#[cfg(test)]
mod tests {
    use super::{Step, steps};

    #[test]
    fn the_steps_of_a_revision_are_read_up_to_the_first_not_taken() {
        use Step::{Ancestor, Parent, Peel};
        assert_eq!(steps("~2^2^{}^~"), [Ancestor(2), Parent(2), Peel, Parent(1), Ancestor(1)]);
        assert_eq!(steps("^0^{commit}:a.txt~1"), [Parent(0), Peel]);
        assert_eq!(steps("~1@{1}"), [Ancestor(1)]);
        assert_eq!(steps("^{/fix}~1"), []);
        assert_eq!(steps("~99999999999999999999999~1"), []);
    }
}
