//! Why a revision whose leading name resolves does not: the steps after that name (`~N`, `^N`,
//! `^{}`) taken one at a time, to find a commit or tag on the way the repository lacks or cannot
//! read, or a step past a shallow clone's boundary. gix says only that such a step is "out of
//! range", naming no object. And the history a revision that searches commit messages
//! (`^{/<text>}`, `:/<text>`) would search, walked before gix searches it.

use gix::ObjectId;

use super::error::{GitError, ShallowCut};
use super::repo::{Head, Repo};

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

/// Where a revision that searches commit messages searches.
#[derive(Debug, PartialEq, Eq)]
enum Search<'a> {
    /// `:/<text>`: the history of every reference and of HEAD.
    Everywhere,
    /// `<rev>^{/<text>}`: the history of the commit `<rev>` (up to the first `^{/`) names.
    Below(&'a str),
}

/// Where `spec` searches commit messages; `None` when it holds no search. A `^{/` after a path
/// (`HEAD:a^{/b}`) is found too: what comes before it then names no commit, and nothing is walked.
fn search(spec: &str) -> Option<Search<'_>> {
    if spec.starts_with(":/") {
        return Some(Search::Everywhere);
    }
    let before = &spec[..spec.find("^{/")?];
    Some(if before.is_empty() { Search::Everywhere } else { Search::Below(before) })
}

impl Repo {
    /// Refuses a revision that searches commit messages (`:/<text>`, `<rev>^{/<text>}`) through
    /// a history holding a commit the repository lacks or cannot read, before gix is asked to
    /// search it: gix 0.90 panics when a `^{/<text>}` search meets such a commit, and says
    /// "unknown revision" when a `:/<text>` one does. The whole history the search may walk is
    /// walked (a shallow clone's missing parents are not part of it); such revisions are rare.
    ///
    /// # Errors
    /// As [`Repo::walk`], naming the commit; the failure to resolve the part before `^{/`,
    /// unless it is an unknown name, which gix then says of the whole revision.
    pub(super) fn searched_history_reads(&self, spec: &str) -> Result<(), GitError> {
        let starts = match search(spec) {
            None => return Ok(()),
            Some(Search::Everywhere) => self.every_tip()?,
            Some(Search::Below(rev)) => match self.rev_parse(rev) {
                Ok(id) => self.commit_it_leads_to(id)?.into_iter().collect(),
                Err(GitError::UnknownRevision { .. }) => return Ok(()),
                Err(e) => return Err(e),
            },
        };
        self.walk_from_all(&starts, &[], usize::MAX).map(|_| ())
    }

    /// The commits HEAD and every reference lead to, as `:/<text>` searches from them; a
    /// reference to an object that cannot be read, or to no commit, is passed over, as git does.
    fn every_tip(&self) -> Result<Vec<ObjectId>, GitError> {
        let head = match self.head()? {
            Head::Branch { commit, .. } | Head::Detached(commit) => Some(commit),
            Head::Unborn(_) => None,
        };
        let refs = self.targets_with_prefix("refs/")?.into_iter().map(|(_, id)| id);
        let tips = head.into_iter().chain(refs).filter_map(|id| self.commit_it_leads_to(id).ok().flatten());
        Ok(tips.collect())
    }

    /// The commit `id` leads to through its tags; `None` when it leads to a tree or a blob.
    fn commit_it_leads_to(&self, id: ObjectId) -> Result<Option<ObjectId>, GitError> {
        let id = self.peeled(id)?;
        Ok((self.header(id)?.kind() == gix::object::Kind::Commit).then_some(id))
    }

    /// Why the steps `rest` of the revision `spec` (after its leading name, which resolves to
    /// `from`) cannot be taken: the first commit or tag on the way the repository lacks
    /// ([`GitError::ObjectMissing`]) or cannot read ([`GitError::CorruptObject`]), as
    /// [`Repo::commit`] says it, or a parent step from a commit at a shallow clone's boundary,
    /// whose parents this clone does not have ([`GitError::Shallow`]). `None` when every object
    /// on the way reads: a step beyond the history, or from a tree or a blob, is a name to
    /// correct.
    pub(super) fn unreadable_on_the_way(&self, from: ObjectId, spec: &str, rest: &str) -> Option<GitError> {
        let boundary = self.shallow_boundary().unwrap_or_default();
        let way = Way { repo: self, boundary: &boundary, spec };
        let mut at = from;
        for step in steps(rest) {
            let next = match step {
                Step::Peel => self.peeled(at).map(Some),
                Step::Parent(0) => self.peeled(at).and_then(|id| self.commit(id)).map(|c| Some(c.id)),
                Step::Parent(n) => way.parents(at).map(|p| nth(&p, n)),
                Step::Ancestor(n) => way.first_parent_after(at, n),
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
}

/// The parent steps of the revision `spec`, taken in `repo`, whose shallow `boundary` (sorted)
/// they do not cross.
struct Way<'a> {
    /// The repository.
    repo: &'a Repo,
    /// The commits at its shallow boundary, sorted; empty in a complete clone.
    boundary: &'a [ObjectId],
    /// The revision whose steps these are.
    spec: &'a str,
}

impl Way<'_> {
    /// The parents of the commit `id` leads to through its tags; [`GitError::Shallow`] for one at
    /// the shallow boundary, whose parents are not here.
    fn parents(&self, id: ObjectId) -> Result<Vec<ObjectId>, GitError> {
        let commit = self.repo.commit(self.repo.peeled(id)?)?;
        if self.boundary.binary_search(&commit.id).is_ok() {
            return Err(GitError::Shallow(ShallowCut {
                boundary: commit.id.to_string(),
                why: format!(
                    "`{}` goes past it (if it is still unknown once the whole history is fetched, the name is wrong)",
                    self.spec
                ),
            }));
        }
        Ok(commit.parents)
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
    use super::{Search, Step, search, steps};

    #[test]
    fn the_steps_of_a_revision_are_read_up_to_the_first_not_taken() {
        use Step::{Ancestor, Parent, Peel};
        assert_eq!(steps("~2^2^{}^~"), [Ancestor(2), Parent(2), Peel, Parent(1), Ancestor(1)]);
        assert_eq!(steps("^0^{commit}:a.txt~1"), [Parent(0), Peel]);
        assert_eq!(steps("~1@{1}"), [Ancestor(1)]);
        assert_eq!(steps("^{/fix}~1"), []);
        assert_eq!(steps("~99999999999999999999999~1"), []);
    }

    #[test]
    fn a_search_starts_where_git_starts_it_and_a_revision_without_one_walks_nothing() {
        assert_eq!(search(":/fix^{/x}"), Some(Search::Everywhere));
        assert_eq!(search("^{/fix}"), Some(Search::Everywhere));
        assert_eq!(search("v1~2^{/fix}^{/more}"), Some(Search::Below("v1~2")));
        assert_eq!(search("HEAD~2^{tree}"), None);
        assert_eq!(search("HEAD:a/b"), None);
    }
}
