//! Bounded diagnostic sinks (`procedural-recipes.txt`: diagnostics have their own explicit byte
//! and count budgets; saturation records what was dropped without altering the result).
//!
//! A [`BoundedLog`] keeps records while both its count and its byte budget allow and counts the
//! ones it drops. The recipe compiler reports through one per checked file with
//! [`DiagnosticBudget::PER_FILE`] (the specification gives no numbers, so these are the
//! documented defaults): a file with more problems than that shows the first ones found and one
//! warning saying how many more (and how many bytes) were dropped. Dropping never changes a
//! verdict: whether a file has errors counts the dropped ones too.

/// Most diagnostics one checked file keeps.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 1000;

/// Most bytes of diagnostic text (file, message, expected) one checked file keeps: 256 KiB.
pub const MAX_DIAGNOSTIC_BYTES_PER_FILE: usize = 256 << 10;

/// The count and byte budgets of one sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiagnosticBudget {
    /// Most records kept.
    pub max_count: usize,
    /// Most bytes of records kept (as the caller measures a record).
    pub max_bytes: usize,
}

impl DiagnosticBudget {
    /// The compiler's budget per checked file.
    pub const PER_FILE: DiagnosticBudget = DiagnosticBudget {
        max_count: MAX_DIAGNOSTICS_PER_FILE,
        max_bytes: MAX_DIAGNOSTIC_BYTES_PER_FILE,
    };
}

/// Records kept within a [`DiagnosticBudget`], with what was dropped counted.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundedLog<T> {
    items: Vec<T>,
    bytes: usize,
    budget: DiagnosticBudget,
    dropped: u64,
    dropped_bytes: u64,
}

impl<T> BoundedLog<T> {
    /// An empty log with `budget`.
    pub fn new(budget: DiagnosticBudget) -> BoundedLog<T> {
        BoundedLog {
            items: Vec::new(),
            bytes: 0,
            budget,
            dropped: 0,
            dropped_bytes: 0,
        }
    }

    /// Keeps `item` (of `bytes` bytes) when both budgets still allow it; otherwise counts it as
    /// dropped. Returns whether it was kept.
    pub fn push(&mut self, item: T, bytes: usize) -> bool {
        let fits_bytes = self
            .bytes
            .checked_add(bytes)
            .is_some_and(|total| total <= self.budget.max_bytes);
        if self.items.len() < self.budget.max_count && fits_bytes {
            self.items.push(item);
            self.bytes += bytes;
            true
        } else {
            self.count_dropped(bytes);
            false
        }
    }

    /// Whether the count budget is spent (every further record is dropped), so a caller can skip
    /// building a record and [`BoundedLog::count_dropped`] it instead.
    pub fn is_full(&self) -> bool {
        self.items.len() >= self.budget.max_count
    }

    /// Counts a record of `bytes` bytes as dropped without building it.
    pub fn count_dropped(&mut self, bytes: usize) {
        self.dropped += 1;
        self.dropped_bytes = self.dropped_bytes.saturating_add(bytes as u64);
    }

    /// The records kept, in the order they came.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Bytes of the records kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Records dropped.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Bytes of the records dropped.
    pub fn dropped_bytes(&self) -> u64 {
        self.dropped_bytes
    }

    /// The budget.
    pub fn budget(&self) -> DiagnosticBudget {
        self.budget
    }

    /// The records kept.
    pub fn into_items(self) -> Vec<T> {
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_budget_keeps_the_first_records_and_counts_the_rest() {
        let budget = DiagnosticBudget {
            max_count: 3,
            max_bytes: 1000,
        };
        let mut log = BoundedLog::new(budget);
        let kept: Vec<bool> = (0..5).map(|i| log.push(i, 10)).collect();
        assert_eq!(kept, [true, true, true, false, false]);
        assert_eq!(log.items(), &[0, 1, 2]);
        assert_eq!(
            (log.bytes(), log.dropped(), log.dropped_bytes()),
            (30, 2, 20)
        );
        assert!(log.is_full());
        log.count_dropped(7);
        assert_eq!((log.dropped(), log.dropped_bytes()), (3, 27));
    }

    #[test]
    fn the_byte_budget_drops_a_record_that_would_pass_it() {
        let budget = DiagnosticBudget {
            max_count: 100,
            max_bytes: 25,
        };
        let mut log = BoundedLog::new(budget);
        assert!(log.push("a", 10));
        assert!(log.push("b", 10));
        assert!(!log.push("c", 10), "30 bytes would pass 25");
        assert!(log.push("d", 5), "a smaller record still fits");
        assert!(!log.push("e", usize::MAX), "no overflow");
        assert_eq!(log.items(), &["a", "b", "d"]);
        assert_eq!(log.bytes(), 25);
        assert_eq!(log.dropped(), 2);
        assert_eq!(log.dropped_bytes(), u64::MAX, "saturates");
    }
}
