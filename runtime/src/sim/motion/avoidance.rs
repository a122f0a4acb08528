//! Budgeted avoidance (motion seed): at most the budget of walkers run the steering fan per step,
//! taken in row order from a rotating cursor that wraps, so every walker gets its turn. A
//! deferred walker keeps its last reliable steering (`sim::walk::Avoidance::Reliable`), never a
//! zero velocity; processed and deferred are counted apart.

use super::super::agents::{AgentState, Agents};

/// The rows whose avoidance runs this step.
#[derive(Clone, Debug, Default)]
pub struct AvoidanceWindow {
    /// Per row: in the window this step.
    processed: Vec<bool>,
}

impl AvoidanceWindow {
    /// Heap bytes of the per-row flags.
    pub fn heap_bytes(&self) -> usize {
        self.processed.capacity()
    }

    /// Whether row `row` is in the window.
    pub fn contains(&self, row: usize) -> bool {
        self.processed.get(row).copied().unwrap_or(false)
    }

    /// Picks this step's window: the walkers (walking, not pooled) from `cursor` on, in row order
    /// and wrapping, at most `budget` of them (`None`: every walker). The cursor moves past the
    /// last one taken. Returns `(processed, deferred)`.
    pub fn select(&mut self, agents: &Agents, budget: Option<u32>, cursor: &mut u32) -> (u64, u64) {
        let rows = agents.len();
        self.processed.clear();
        self.processed.resize(rows, false);
        let is_walker =
            |row: usize| !agents.pooled[row] && agents.state[row] == AgentState::Walking;
        let walkers = (0..rows).filter(|r| is_walker(*r)).count() as u64;
        let limit = budget.map_or(walkers, |b| u64::from(b).min(walkers));
        if limit == walkers {
            for row in 0..rows {
                self.processed[row] = is_walker(row);
            }
            return (walkers, 0);
        }
        let start = (*cursor as usize).min(rows.saturating_sub(1));
        let mut taken = 0;
        let mut row = start;
        while taken < limit {
            if is_walker(row) {
                self.processed[row] = true;
                taken += 1;
            }
            row = (row + 1) % rows;
        }
        *cursor = row as u32;
        (taken, walkers - taken)
    }
}
