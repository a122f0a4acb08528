//! The directive parent: persistent intent — who issued it (source), its session, its goal, how
//! many commands it accepted and how many failures it consumed, and its state. It outlives any
//! one path: hold, continue and redirect keep its session; only a new task starts a new one.

use crate::sim::state::{Canonical, MoveFailure};

/// What a parent's state is.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum ParentState {
    /// Its movement executes (or waits for a path).
    Travelling,
    /// Held by a `Hold`; waits for `Continue`.
    WaitingForSignal,
    /// Its movement failed; waits for a new directive (a redirect).
    AwaitingDecision,
    /// Arrived (and, for escape, safe): done.
    Completed,
    /// Cancelled by a directive.
    Cancelled,
}

impl ParentState {
    /// A stable small number.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Whether the parent still holds intent (not completed or cancelled).
    pub fn is_active(self) -> bool {
        matches!(
            self,
            ParentState::Travelling | ParentState::WaitingForSignal | ParentState::AwaitingDecision
        )
    }
}

/// What the parent intends.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum ParentKind {
    /// Meet at a goal.
    Rendezvous,
    /// Escape from a threat to a selected endpoint.
    Escape {
        /// The threat, meters.
        threat: [f64; 3],
        /// Safe distance, meters.
        safe_distance_m: f64,
        /// How often the response started (stays 1 through a knockdown).
        start_count: u32,
    },
}

/// A directive parent task.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct DirectiveParent {
    /// Who issued it.
    pub source: String,
    /// Its session (unique in the world, from 1).
    pub session: u32,
    /// What it intends.
    pub kind: ParentKind,
    /// Its goal, meters.
    pub goal: [f64; 3],
    /// Commands accepted (the installing one included).
    pub commands: u32,
    /// Failures consumed.
    pub failures: u32,
    /// Its state.
    pub state: ParentState,
    /// The last failure consumed.
    pub last_failure: Option<MoveFailure>,
    /// The movement generation it last observed (diagnostics only, never a token).
    pub last_child_generation: u32,
}

impl ParentKind {
    /// Its priority: a safety response (escape) outranks a rendezvous, so installing one over a
    /// rendezvous suspends the rendezvous (a higher-priority task stop) instead of replacing it.
    pub fn priority(&self) -> u8 {
        match self {
            ParentKind::Rendezvous => 0,
            ParentKind::Escape { .. } => 1,
        }
    }
}

impl DirectiveParent {
    /// `"rendezvous"` or `"escape"`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            ParentKind::Rendezvous => "rendezvous",
            ParentKind::Escape { .. } => "escape",
        }
    }
}

impl Canonical for DirectiveParent {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(self.source.as_bytes());
        bytes.push(0);
        self.session.write_canonical(bytes);
        match self.kind {
            ParentKind::Rendezvous => bytes.push(0),
            ParentKind::Escape {
                threat,
                safe_distance_m,
                start_count,
            } => {
                bytes.push(1);
                for v in threat {
                    v.write_canonical(bytes);
                }
                safe_distance_m.write_canonical(bytes);
                start_count.write_canonical(bytes);
            }
        }
        for v in self.goal {
            v.write_canonical(bytes);
        }
        self.commands.write_canonical(bytes);
        self.failures.write_canonical(bytes);
        bytes.push(self.state.code());
        let (kind, detail) = self.last_failure.map_or((255, 0), MoveFailure::code);
        bytes.extend_from_slice(&[kind, detail]);
        self.last_child_generation.write_canonical(bytes);
    }
}
