//! The Tasks phase: the directives due this frame, in file order, applied to the agents their
//! targets resolve to (a target not born yet, or removed, counts as missed).

use super::agents::{AgentHandle, AgentState, Agents};
use super::scenario::{Command, DirectiveTarget};
use super::slots::Slots;
use super::world::{Log, WorldConfig};
use crate::project::PopulationKind;

/// Tasks: apply the directives due this frame, in file order.
pub(super) fn tasks_phase(
    config: &WorldConfig,
    frame: u64,
    slots: &Slots,
    births: &[Vec<AgentHandle>],
    agents: &mut Agents,
    log: &mut Log<'_>,
) {
    let directives = &config.scenario.directives;
    let start = directives.partition_point(|d| d.frame < frame);
    for directive in directives[start..].iter().take_while(|d| d.frame == frame) {
        let DirectiveTarget::Born { source, ordinal } = directive.target;
        let handle = births
            .get(usize::from(source))
            .and_then(|births| births.get(ordinal as usize));
        match handle.and_then(|handle| slots.resolve(*handle)) {
            Some(row) => {
                apply(agents, row, &directive.command);
                log.counters.directives_applied += 1;
            }
            None => log.counters.directives_missed += 1,
        }
    }
}

fn apply(agents: &mut Agents, row: usize, command: &Command) {
    match command {
        Command::Claim { owner } => {
            agents.kind[row] = PopulationKind::Mission;
            agents.owner[row] = Some(owner.clone());
        }
        Command::Release => {
            agents.kind[row] = PopulationKind::Ambient;
            agents.owner[row] = None;
        }
        Command::Rendezvous { goal } | Command::Redirect { goal } => {
            agents.target[row] = Some(*goal);
            agents.state[row] = AgentState::Travelling;
        }
        Command::Hold => {
            if agents.state[row] != AgentState::Holding {
                agents.resume[row] = agents.state[row];
                agents.state[row] = AgentState::Holding;
            }
        }
        Command::Continue => {
            if agents.state[row] == AgentState::Holding {
                agents.state[row] = agents.resume[row];
            }
        }
        Command::Cancel => {
            agents.target[row] = None;
            agents.state[row] = AgentState::Arrived;
        }
        Command::Escape {
            threat,
            safe_distance_m,
        } => {
            agents.target[row] = Some(*threat);
            agents.safe_distance_m[row] = *safe_distance_m;
            agents.state[row] = AgentState::Fleeing;
        }
    }
}
