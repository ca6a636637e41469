//! Which commit of a history descends from which, answered from the history read once: every
//! commit numbered by its generation (one more than its highest parent's), so that a question is
//! a search in memory that never goes below the generation of the commit asked about, instead of
//! a walk of the repository per question.

use std::collections::{BinaryHeap, HashMap, HashSet};

use gix::ObjectId;

/// The parents and generation of every commit of a history (all commits reachable from a head).
pub(super) struct Ancestry {
    /// The commits, by position.
    ids: Vec<ObjectId>,
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
        Ancestry { ids: history.to_vec(), at, parents, generation }
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
        self.reaches(a, d)
    }

    /// The best common ancestors of `a` and `b`, as `git merge-base --all` finds them: the
    /// common ancestors no other common ancestor descends from (one, or several after a
    /// criss-cross merge; none when their histories share no commit, or the history a shallow
    /// clone holds does not reach one, or either is outside the history). Painted down from both
    /// in generation order, so only the commits above the bases are visited.
    pub(super) fn merge_bases(&self, a: ObjectId, b: ObjectId) -> Vec<ObjectId> {
        let (Some(&a), Some(&b)) = (self.at.get(&a), self.at.get(&b)) else {
            return Vec::new();
        };
        let found = self.paint_down_to_common(a, b);
        let bases: Vec<usize> =
            found.iter().copied().filter(|c| !found.iter().any(|d| d != c && self.reaches(*d, *c))).collect();
        bases.into_iter().map(|c| self.ids[c]).collect()
    }

    /// The common ancestors of `a` and `b` reached first from both (positions), some of which
    /// may descend from others.
    fn paint_down_to_common(&self, a: usize, b: usize) -> Vec<usize> {
        const FROM_A: u8 = 1;
        const FROM_B: u8 = 2;
        const STALE: u8 = 4;
        if a == b {
            return vec![a];
        }
        let mut flags: HashMap<usize, u8> = HashMap::from([(a, FROM_A), (b, FROM_B)]);
        let mut queue = BinaryHeap::from([(self.generation[a], a), (self.generation[b], b)]);
        let mut found = Vec::new();
        // Until every commit left to visit is below a common ancestor already found.
        while queue.iter().any(|(_, c)| flags[c] & STALE == 0) {
            let Some((_, c)) = queue.pop() else { break };
            let mut paint = flags[&c];
            if paint & (FROM_A | FROM_B) == FROM_A | FROM_B && paint & STALE == 0 {
                if !found.contains(&c) {
                    found.push(c);
                }
                paint |= STALE;
            }
            for &p in &self.parents[c] {
                let had = flags.entry(p).or_insert(0);
                if *had & paint != paint {
                    *had |= paint;
                    queue.push((self.generation[p], p));
                }
            }
        }
        found
    }

    /// Whether the commit at position `ancestor` is reachable from the one at `descendant`.
    fn reaches(&self, ancestor: usize, descendant: usize) -> bool {
        let floor = self.generation[ancestor];
        let mut seen = HashSet::new();
        let mut stack = vec![descendant];
        while let Some(c) = stack.pop() {
            if c == ancestor {
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

    #[test]
    fn a_criss_cross_merge_has_both_bases_and_unrelated_histories_none() {
        // 1 <- 2, 1 <- 3; 4 merges 2 and 3, 5 merges 3 and 2; 6 <- 4, 7 <- 5; 8 is another root.
        let history = [id(7), id(6), id(5), id(4), id(3), id(2), id(1), id(8)];
        let parents = [
            vec![id(5)],
            vec![id(4)],
            vec![id(3), id(2)],
            vec![id(2), id(3)],
            vec![id(1)],
            vec![id(1)],
            vec![],
            vec![],
        ];
        let a = Ancestry::new(&history, &parents);
        for (x, y) in [(id(6), id(7)), (id(4), id(5))] {
            let mut bases = a.merge_bases(x, y);
            bases.sort();
            assert_eq!(bases, vec![id(2), id(3)], "two bases, neither above the other");
        }
        assert_eq!(a.merge_bases(id(2), id(3)), vec![id(1)]);
        assert_eq!(a.merge_bases(id(6), id(2)), vec![id(2)], "an ancestor is its own merge base");
        assert_eq!(a.merge_bases(id(4), id(4)), vec![id(4)]);
        assert!(a.merge_bases(id(6), id(8)).is_empty());
        assert!(a.merge_bases(id(6), id(9)).is_empty(), "a commit outside the history has none");
    }
}
