//! Which commit of a history descends from which, answered from the history read once: every
//! commit numbered by its generation (one more than its highest parent's), so that a question is
//! a search in memory that never goes below the generation of the commit asked about, instead of
//! a walk of the repository per question.

use std::collections::HashMap;

use gix::ObjectId;

/// The parents and generation of every commit of a history (all commits reachable from a head).
pub(super) struct Ancestry {
    /// Each commit's position.
    at: HashMap<ObjectId, usize>,
    /// Each commit's parents that are in the history, by position.
    parents: Vec<Vec<usize>>,
    /// Each commit's generation: 1 for a commit without parents in the history.
    generation: Vec<u32>,
}

impl Ancestry {
    /// The ancestry of `history`, whose commit `history[i]` has the parents `parents[i]`. A
    /// parent outside the history (one a shallow clone lacks) is left out, as the walk left it.
    pub(super) fn new(history: &[ObjectId], parents: &[Vec<ObjectId>]) -> Self {
        let at: HashMap<ObjectId, usize> = history.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        let parents: Vec<Vec<usize>> =
            parents.iter().map(|of| of.iter().filter_map(|p| at.get(p).copied()).collect()).collect();
        let mut generation = vec![0u32; history.len()];
        // Depth first, without recursion: a commit is numbered once all its parents are.
        let mut stack = Vec::new();
        for start in 0..history.len() {
            stack.push(start);
            while let Some(&c) = stack.last() {
                if generation[c] != 0 {
                    stack.pop();
                    continue;
                }
                let pending: Vec<usize> =
                    parents[c].iter().copied().filter(|p| generation[*p] == 0).collect();
                if pending.is_empty() {
                    generation[c] = 1 + parents[c].iter().map(|p| generation[*p]).max().unwrap_or(0);
                    stack.pop();
                } else {
                    stack.extend(pending);
                }
            }
        }
        Ancestry { at, parents, generation }
    }

    /// Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor). A commit
    /// outside the history is nobody's ancestor and has none.
    pub(super) fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> bool {
        if ancestor == descendant {
            return true;
        }
        let (Some(&a), Some(&d)) = (self.at.get(&ancestor), self.at.get(&descendant)) else {
            return false;
        };
        let floor = self.generation[a];
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![d];
        while let Some(c) = stack.pop() {
            if c == a {
                return true;
            }
            // Below the ancestor's generation nothing leads to it.
            if self.generation[c] <= floor {
                continue;
            }
            stack.extend(self.parents[c].iter().copied().filter(|p| seen.insert(*p)));
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    #[test]
    fn ancestry_follows_every_parent_and_nothing_else() {
        // 1 <- 2 <- 3 <- 5 (merge of 3 and 4), 1 <- 4; 6 is another root.
        let history = [id(5), id(4), id(3), id(2), id(1), id(6)];
        let parents = [vec![id(3), id(4)], vec![id(1)], vec![id(2)], vec![id(1)], vec![], vec![]];
        let a = Ancestry::new(&history, &parents);
        assert!(a.is_ancestor(id(1), id(5)));
        assert!(a.is_ancestor(id(4), id(5)));
        assert!(a.is_ancestor(id(2), id(3)));
        assert!(a.is_ancestor(id(3), id(3)));
        assert!(!a.is_ancestor(id(4), id(3)));
        assert!(!a.is_ancestor(id(5), id(1)));
        assert!(!a.is_ancestor(id(6), id(5)));
        assert!(!a.is_ancestor(id(7), id(5)));
    }
}
