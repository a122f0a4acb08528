//! Demands and batch spillover. A source short of its target holds at most one pending demand
//! (a batch of its batch size); a rejected attempt keeps it for a later cycle. An atomic batch of
//! N created in one cycle records N against its type, repays one for the current cycle and one
//! per later cycle, and blocks new generation of that type until repaid.

/// A pending demand of one source.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Demand {
    /// Peds the batch creates at once (all or nothing).
    pub batch: u32,
    /// The frame it was enqueued in.
    pub enqueued_frame: u64,
    /// Attempts made on it so far (each consumed a cycle).
    pub attempts: u32,
}

/// Creation spillover of one population type: creations already performed by a batch that
/// later cycles must offset.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spillover {
    /// Creations still to be repaid by later cycles.
    pub outstanding: u32,
}

impl Spillover {
    /// Whether new generation of this type is blocked.
    pub fn blocks(&self) -> bool {
        self.outstanding > 0
    }

    /// Records a batch of `created` made in the current cycle, which repays one of them.
    pub fn record_batch(&mut self, created: u32) {
        self.outstanding = self.outstanding.saturating_add(created).saturating_sub(1);
    }

    /// A later cycle repays one creation; true when there was one to repay.
    pub fn repay(&mut self) -> bool {
        if self.outstanding == 0 {
            return false;
        }
        self.outstanding -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_of_four_records_four_repays_one_now_and_three_later() {
        let mut ledger = Spillover::default();
        assert!(!ledger.blocks());
        ledger.record_batch(4);
        assert_eq!(
            ledger.outstanding, 3,
            "record 4, repay 1 for the current cycle"
        );
        let mut repaid_cycles = 0;
        while ledger.blocks() {
            assert!(ledger.repay());
            repaid_cycles += 1;
        }
        assert_eq!(repaid_cycles, 3, "three later cycles repay the rest");
        assert!(!ledger.repay(), "nothing left: generation may resume");
        // A single-agent demand leaves no spillover at all.
        ledger.record_batch(1);
        assert!(!ledger.blocks());
    }
}
