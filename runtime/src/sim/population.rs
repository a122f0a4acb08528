//! The Population phase (Control): each source below its target attempts one birth at a drawn
//! distance along its route, refused inside the no-spawn box; births take a slot and a handle.

use std::num::NonZeroU32;

use super::agents::{AgentHandle, AgentId, AgentRow, AgentState, Agents};
use super::motion::scale;
use super::slots::Slots;
use super::walk::WalkDecision;
use super::world::{Log, SpawnRejection, WorldConfig};
use crate::project::Vec2;
use crate::rng::{Address, Domain, DomainKey};

/// The population sets the Control phase changes.
pub(super) struct Population<'a> {
    pub(super) slots: &'a mut Slots,
    pub(super) births: &'a mut [Vec<AgentHandle>],
    pub(super) attempts: &'a mut [u32],
}

/// Control: each source below its target attempts one birth.
pub(super) fn control_phase(
    config: &WorldConfig,
    p: Population<'_>,
    agents: &mut Agents,
    log: &mut Log<'_>,
) {
    let key = DomainKey::new(config.seed, Domain::Population);
    for (source_index, source) in config.sources.iter().enumerate() {
        if p.births[source_index].len() as u64 >= u64::from(source.target_count) {
            continue;
        }
        let attempt = p.attempts[source_index];
        p.attempts[source_index] = attempt.wrapping_add(1);
        let route = &config.space.routes[source.route as usize];
        let address = |dimension| Address::new(source_index as u64, attempt, dimension);
        let length_cm = (route.length_m() * 100.0)
            .floor()
            .clamp(1.0, u32::MAX as f64) as u32;
        let draws = (
            NonZeroU32::new(length_cm).map(|n| key.sample_bounded(address(0), n)),
            NonZeroU32::new(201).map(|n| key.sample_bounded(address(2), n)),
        );
        let (Some(Ok(distance_cm)), Some(Ok(speed_permille))) = draws else {
            log.reject(source_index, SpawnRejection::SamplerExhausted);
            continue;
        };
        let distance_m = f64::from(distance_cm) / 100.0;
        let (position, along) = route.sample(distance_m);
        if let Some(bounds) = &config.scenario.no_spawn_box {
            // Births stand on the ground (z = 0).
            if bounds.contains([position.x, position.y, 0.0]) {
                log.reject(source_index, SpawnRejection::NoSpawnBox);
                continue;
            }
        }
        let direction: i8 = if key.sample_u32(address(1)) & 1 == 0 {
            1
        } else {
            -1
        };
        let Ok(handle) = p.slots.allocate() else {
            log.reject(source_index, SpawnRejection::NoSlot);
            continue;
        };
        let ordinal = p.births[source_index].len() as u32;
        agents.push(AgentRow {
            id: AgentId::new(source_index as u16, ordinal).bits(),
            generation: handle.generation,
            source: source_index as u16,
            route: source.route,
            distance_m,
            speed_m_s: source.walk_speed_m_s * (900.0 + f64::from(speed_permille)) / 1000.0,
            position,
            facing: scale(along, f64::from(direction)),
            safe_distance_m: 0.0,
            direction,
            state: AgentState::Walking,
            resume: AgentState::Walking,
            kind: source.kind,
            target: None,
            owner: None,
            steps: 0,
            velocity_m_s: Vec2::default(),
            window_origin: position,
            window_steps: 0,
            walk_decision: WalkDecision::Idle,
        });
        p.births[source_index].push(handle);
        log.counters.births += 1;
    }
}
