//! Budgeted avoidance (motion specification): at most the budget of walkers run the steering fan
//! per step, taken in row order from a rotating cursor that wraps, so every walker gets its turn. A
//! deferred walker keeps its last reliable steering (`sim::walk::Avoidance::Reliable`), never a
//! zero velocity; processed and deferred are counted apart.

use crate::sim::state::{AgentState, Agents};

/// The rows whose avoidance runs this step.
#[derive(Clone, Debug, Default)]
pub struct AvoidanceWindow {
    /// Per row: in the window this step.
    processed: Vec<bool>,
    /// The rows set in `processed` (`None`: possibly any), so the next selection clears only
    /// them.
    marked: Option<Vec<u32>>,
}

impl AvoidanceWindow {
    /// Heap bytes of the per-row flags.
    pub fn heap_bytes(&self) -> usize {
        self.processed.capacity()
            + self
                .marked
                .as_ref()
                .map_or(0, |m| m.capacity() * std::mem::size_of::<u32>())
    }

    /// The rows of a budgeted window, ascending, into `out`; `false` (and `out` left empty)
    /// when every walker is processed (no budget held them back), so the window is every walker.
    pub fn sorted_rows(&self, out: &mut Vec<u32>) -> bool {
        out.clear();
        let Some(marked) = &self.marked else {
            return false;
        };
        out.extend_from_slice(marked);
        out.sort_unstable();
        true
    }

    /// Whether row `row` is in the window.
    pub fn contains(&self, row: usize) -> bool {
        self.processed.get(row).copied().unwrap_or(false)
    }

    /// Picks this step's window: the walkers (walking, not pooled) from `cursor` on, in row order
    /// and wrapping, at most `budget` of them (`None`: every walker). The cursor moves past the
    /// last one taken. Returns `(processed, deferred)`.
    pub fn select(&mut self, agents: &Agents, budget: Option<u32>, cursor: &mut u32) -> (u64, u64) {
        let walkers = (0..agents.len()).filter(|r| is_walker(agents, *r)).count() as u64;
        self.select_of(agents, walkers, budget, cursor)
    }

    /// [`AvoidanceWindow::select`] when the caller has counted the `walkers` already.
    pub fn select_of(
        &mut self,
        agents: &Agents,
        walkers: u64,
        budget: Option<u32>,
        cursor: &mut u32,
    ) -> (u64, u64) {
        let rows = agents.len();
        match self.marked.as_mut() {
            Some(marked) => {
                for row in marked.drain(..) {
                    if let Some(p) = self.processed.get_mut(row as usize) {
                        *p = false;
                    }
                }
            }
            None => self.processed.clear(),
        }
        self.processed.resize(rows, false);
        let limit = budget.map_or(walkers, |b| u64::from(b).min(walkers));
        if limit == walkers {
            for row in 0..rows {
                self.processed[row] = is_walker(agents, row);
            }
            self.marked = None;
            return (walkers, 0);
        }
        let marked = self.marked.get_or_insert_with(Vec::new);
        let start = (*cursor as usize).min(rows.saturating_sub(1));
        let mut taken = 0;
        let mut row = start;
        while taken < limit {
            if is_walker(agents, row) {
                self.processed[row] = true;
                marked.push(row as u32);
                taken += 1;
            }
            row = (row + 1) % rows;
        }
        *cursor = row as u32;
        (taken, walkers - taken)
    }
}

/// Whether row `row` walks (walking, not pooled): who avoidance may process.
#[inline]
pub fn is_walker(agents: &Agents, row: usize) -> bool {
    !agents.pooled[row] && agents.state[row] == AgentState::Walking
}
