//! The world's published counters (one frame's totals and running counts).

/// Counters the world publishes every frame; each is distinct, never a sum of others.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Agents alive now.
    pub alive: u64,
    /// Births so far.
    pub births: u64,
    /// Birth attempts rejected by the no-spawn box so far.
    pub rejected_no_spawn_box: u64,
    /// Birth attempts rejected by sampler exhaustion so far.
    pub rejected_sampler: u64,
    /// Directives applied so far.
    pub directives_applied: u64,
    /// Directives whose agent was not born yet so far.
    pub directives_missed: u64,
    /// Agents walking now.
    pub walking: u64,
    /// Agents holding now.
    pub holding: u64,
    /// Agents travelling to a goal now.
    pub travelling: u64,
    /// Agents owned by a script now.
    pub mission: u64,
    /// Rejections of every gate so far.
    pub rejected: u64,
    /// Peds in the reuse pool now.
    pub pooled: u64,
    /// Sources with a pending demand now.
    pub pending_demands: u64,
    /// Ped cycles planned so far.
    pub ped_cycles: u64,
    /// Pooled peds readmitted so far.
    pub reused: u64,
    /// Retirements so far.
    pub retired: u64,
    /// Vehicles on the road now.
    pub vehicles: u64,
}

impl Counters {
    /// Every counter with its name, in a fixed order (for plots and logs).
    pub fn rows(&self) -> [(&'static str, u64); 10] {
        [
            ("alive", self.alive),
            ("births", self.births),
            ("rejected: no-spawn box", self.rejected_no_spawn_box),
            ("rejected: sampler", self.rejected_sampler),
            ("directives applied", self.directives_applied),
            ("directives missed", self.directives_missed),
            ("walking", self.walking),
            ("holding", self.holding),
            ("travelling", self.travelling),
            ("mission", self.mission),
        ]
    }

    /// The population lifecycle's counters with their names, in a fixed order (a panel's
    /// second plot; [`Counters::rows`] keeps the motion counters).
    pub fn population_rows(&self) -> [(&'static str, u64); 7] {
        [
            ("rejected", self.rejected),
            ("pooled", self.pooled),
            ("pending demands", self.pending_demands),
            ("ped cycles", self.ped_cycles),
            ("reused", self.reused),
            ("retired", self.retired),
            ("vehicles", self.vehicles),
        ]
    }
}
