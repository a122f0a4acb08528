//! Canonical bytes of a compiled scenario (floats by their bits): part of the world
//! configuration's digest, so a snapshot restores only into the configuration it came from.
//! The byte layout is frozen: golden digests depend on it.

use crate::content::encode::ByteWriter;
use crate::sim::config::{
    BarrierSpec, Command, CompiledScenario, DirectiveSpec, DirectiveTarget, Factions, MotionConfig,
    ObserverSpec, PopulationParams, SceneObjectSpec, SimBox, SourceSpec,
};

impl CompiledScenario {
    /// Canonical bytes of the compiled scenario (floats by their bits).
    pub fn write_canonical(&self, w: &mut ByteWriter) {
        w.str(&self.id)
            .str(&self.recipe)
            .f64(self.fixed_step_s)
            .u64(self.duration_frames);
        w.count(self.observers.len());
        for o in &self.observers {
            write_observer(w, o);
        }
        w.count(self.sources.len());
        for s in &self.sources {
            write_source(w, s);
        }
        for bounds in [&self.no_spawn_box, &self.no_removal_box] {
            write_box(w, bounds.as_ref());
        }
        w.count(self.directives.len());
        for d in &self.directives {
            write_directive(w, d);
        }
        w.count(self.vehicle_sources.len());
        for v in &self.vehicle_sources {
            w.str(&v.id)
                .str(&v.lane)
                .u32(v.target_count)
                .f64(v.speed_m_s);
        }
        w.count(self.families.len());
        for f in &self.families {
            w.str(f);
        }
        write_population(w, &self.population);
        write_motion(w, &self.motion);
        self.crossings.write_canonical(w);
        write_geometry(w, &self.objects, &self.barriers);
        write_lifecycle_settings(w, self);
    }
}

/// The spawn ranges, law-enforcement classification, removal scales and world-start flag:
/// written only when one differs from its default, so scenarios without them keep the bytes
/// they had before these settings existed.
fn write_lifecycle_settings(w: &mut ByteWriter, scenario: &CompiledScenario) {
    let population = &scenario.population;
    let defaults = PopulationParams::default();
    let unchanged = scenario.observers.iter().all(|o| o.spawn.is_default())
        && scenario.sources.iter().all(|s| !s.law_enforcement)
        && population.removal_scales == defaults.removal_scales
        && population.startup_at_world_start == defaults.startup_at_world_start;
    if unchanged {
        return;
    }
    w.bytes(b"POPLIFE1");
    for o in &scenario.observers {
        let r = o.spawn;
        w.f64(r.normal_min_m)
            .f64(r.normal_max_m.unwrap_or(-1.0))
            .f64(r.hidden_min_m)
            .f64(r.hidden_max_m.unwrap_or(-1.0));
    }
    for s in &scenario.sources {
        w.bool(s.law_enforcement);
    }
    w.f64(population.removal_scales.special)
        .f64(population.removal_scales.cops)
        .bool(population.startup_at_world_start);
}

fn write_observer(w: &mut ByteWriter, o: &ObserverSpec) {
    w.str(&o.id);
    for value in o.position_m {
        w.f64(value);
    }
    for value in [
        o.yaw_rad,
        o.pitch_rad,
        o.fov_y_rad,
        o.near_m,
        o.far_m,
        o.retain_radius_m,
        o.remove_radius_m,
        o.close_m,
        o.fade,
    ] {
        w.f64(value);
    }
    w.bool(o.valid);
    match o.center_m {
        Some(c) => {
            w.u8(1).f64(c[0]).f64(c[1]).f64(c[2]);
        }
        None => {
            w.u8(0);
        }
    }
    w.count(o.path.len());
    for k in &o.path {
        w.u64(k.frame);
        for v in k.position_m {
            w.f64(v);
        }
    }
    w.count(o.aim.len());
    for (frame, yaw, pitch) in &o.aim {
        w.u64(*frame).f64(*yaw).f64(*pitch);
    }
}

fn write_source(w: &mut ByteWriter, s: &SourceSpec) {
    w.str(&s.id)
        .u8(s.kind as u8)
        .str(&s.route)
        .u32(s.target_count)
        .f64(s.walk_speed_m_s)
        .u32(s.capacity)
        .u32(s.batch_size)
        .u32(s.family.map_or(u32::MAX, u32::from))
        .f64(s.removal_multiplier)
        .bool(s.stops_at_route_end);
    w.count(s.candidates_m.len());
    for c in &s.candidates_m {
        w.f64(*c);
    }
    // Only when named, so sources that name no profile keep their bytes.
    if let Some(profile) = &s.motion_profile {
        w.u8(0xd6).str(profile);
    }
}

fn write_population(w: &mut ByteWriter, p: &PopulationParams) {
    for c in [p.clocks.ped, p.clocks.vehicle] {
        w.f64(c.frame_rate).f64(c.cycles_per_frame);
    }
    w.f64(p.clocks.max_frame_time_s)
        .u32(p.pool_capacity)
        .bool(p.aggressive_cleanup);
    match p.fault {
        Some(f) => {
            w.u8(1).u64(f.batch).u32(f.item).bool(f.fail_restore);
        }
        None => {
            w.u8(0);
        }
    }
}

/// Canonical bytes of the motion settings.
fn write_motion(w: &mut ByteWriter, m: &MotionConfig) {
    for value in [
        m.full_enter_m,
        m.full_exit_m,
        m.simulated_enter_m,
        m.simulated_exit_m,
    ] {
        w.f64(value);
    }
    for value in [
        m.full_capacity,
        m.simulated_capacity,
        m.promotions_per_step,
        m.demotions_per_step,
        m.avoidance_budget.unwrap_or(u32::MAX),
    ] {
        w.u32(value);
    }
    w.bool(m.avoidance_budget.is_some())
        .bool(m.crowd_governor)
        .f64(m.crowd_budget_ms)
        .f64(m.default_relevance);
    w.count(m.exits.len());
    for exit in &m.exits {
        w.str(&exit.id)
            .f64(exit.position.x)
            .f64(exit.position.y)
            .f64(exit.position.z)
            .u32(exit.capacity);
    }
    // A project's own profiles only: worlds on the standard ones keep their bytes.
    if !m.profiles.is_standard() {
        let mut profiles = b"PROFILE1".to_vec();
        m.profiles.write_canonical(&mut profiles);
        w.bytes(&profiles);
    }
    // A tier policy other than the default, or relevance thresholds of its own, only: worlds
    // of the default policy keep their bytes (its bands and capacities are written above).
    let standard = crate::project::default_tier_policy().values;
    if m.tier_policy != crate::project::DEFAULT_TIER_POLICY
        || m.hero_relevance.to_bits() != standard.hero_relevance.to_bits()
        || m.medium_relevance.to_bits() != standard.medium_relevance.to_bits()
    {
        w.bytes(b"TIERPOL1")
            .str(m.tier_policy)
            .f64(m.hero_relevance)
            .f64(m.medium_relevance);
    }
}

fn write_box(w: &mut ByteWriter, bounds: Option<&SimBox>) {
    match bounds {
        Some(bounds) => {
            w.u8(1);
            for value in bounds.min_m.iter().chain(&bounds.max_m) {
                w.f64(*value);
            }
        }
        None => {
            w.u8(0);
        }
    }
}

fn write_target(w: &mut ByteWriter, target: &DirectiveTarget) {
    match *target {
        DirectiveTarget::Born { source, ordinal } => {
            w.u8(0).u16(source).u32(ordinal);
        }
        DirectiveTarget::Handle(h) => {
            w.u8(1).u32(h.index).u32(h.generation);
        }
        DirectiveTarget::NearestAmbient { x_bits, y_bits } => {
            w.u8(2).u64(x_bits).u64(y_bits);
        }
        DirectiveTarget::World => {
            w.u8(3);
        }
    }
}

fn write_directive(w: &mut ByteWriter, d: &DirectiveSpec) {
    w.u64(d.frame).u32(d.index);
    write_target(w, &d.target);
    w.u8(d.command.code());
    write_command(w, &d.command);
    // Written only when named, so directives of the script with no session keep their bytes.
    if d.source != crate::project::DEFAULT_DIRECTIVE_SOURCE || d.session != 0 {
        w.u8(0xd5).str(&d.source).u32(d.session);
    }
    // Likewise a motion profile.
    if let Some(profile) = &d.motion_profile {
        w.u8(0xd6).str(profile);
    }
}

/// A command's values after its code (world commands in [`write_world_command`]).
fn write_command(w: &mut ByteWriter, command: &Command) {
    match command {
        Command::Claim {
            owner,
            allow_transfer,
        } => {
            w.str(owner).bool(*allow_transfer);
        }
        Command::Release { owner } => {
            w.str(owner);
        }
        Command::ForcedInit { duration_s }
        | Command::Stand { duration_s }
        | Command::QueueEvent { duration_s }
        | Command::PausePopulation { duration_s } => {
            w.f64(*duration_s);
        }
        Command::SetRemovalMultiplier { multiplier } => {
            w.f64(*multiplier);
        }
        Command::SetVehicleRelation { relation } => {
            // `None` and `Intent` write the bytes the former intent flag wrote.
            w.u8(relation.code());
        }
        Command::Panic {
            center,
            radius_m,
            strength,
        } => {
            w.f64(center.x).f64(center.y).f64(*radius_m).f64(*strength);
        }
        Command::SetRelevance { relevance } => {
            w.f64(*relevance);
        }
        Command::ExtendRemovalDistance { task } => {
            w.bool(*task);
        }
        Command::LineOfSight {
            presented,
            factions,
        } => write_line_of_sight(w, presented, factions),
        Command::Rendezvous { goal } | Command::Redirect { goal } => {
            w.f64(goal.x).f64(goal.y);
        }
        Command::Escape {
            threat,
            safe_distance_m,
            endpoint,
            restore_interrupted,
        } => {
            w.f64(threat.x).f64(threat.y).f64(*safe_distance_m);
            // The optional parts only when given (earlier escapes keep their bytes).
            if let Some(endpoint) = endpoint {
                w.u8(1).f64(endpoint.x).f64(endpoint.y);
            }
            if *restore_interrupted {
                w.u8(2);
            }
        }
        Command::RendezvousWith { object, offset } | Command::RedirectTo { object, offset } => {
            w.u16(*object);
            for v in offset {
                w.f64(*v);
            }
        }
        Command::Knockdown { impulse_n_s } => {
            for v in impulse_n_s {
                w.f64(*v);
            }
        }
        Command::Hold | Command::Continue | Command::Cancel | Command::Destroy => {}
        _ => write_world_command(w, command),
    }
}

/// A world command's values: boxes, observers, families, obstacles (the rest write none).
fn write_world_command(w: &mut ByteWriter, command: &Command) {
    match command {
        Command::SetBox { slot, bounds } => {
            w.u8(*slot as u8);
            write_box(w, Some(bounds));
        }
        Command::ClearBox { slot } => {
            w.u8(*slot as u8);
        }
        Command::SetObserverFade { observer, fade } => {
            w.u16(*observer).f64(*fade);
        }
        Command::SetObserverValid { observer, valid } => {
            w.u16(*observer).bool(*valid);
        }
        Command::SetFamilyAvailable { family, available } => {
            w.u16(*family).bool(*available);
        }
        Command::PlaceObstacle { id, footprint } => {
            w.str(id);
            let mut bytes = Vec::new();
            footprint.write_canonical(&mut bytes);
            w.bytes(&bytes);
        }
        Command::RemoveObstacle { id } => {
            w.str(id);
        }
        Command::ClearEvents { kind, source, tag } => {
            w.u8(kind.map_or(255, |k| k as u8))
                .str(source.as_deref().unwrap_or(""))
                .u32(*tag);
        }
        // SuppressCleanup and InstantFill carry no values; `write_command` wrote the others.
        _ => {}
    }
}

fn write_line_of_sight(w: &mut ByteWriter, presented: &str, factions: &Factions) {
    w.str(presented).str(&factions.own);
    for list in [
        &factions.allied,
        &factions.hostile,
        &factions.accepted_disguises,
    ] {
        w.count(list.len());
        for name in list {
            w.str(name);
        }
    }
}

/// Objects and barriers (written only when the scenario has any, so a scenario without them
/// keeps the configuration digest it had before they existed).
fn write_geometry(w: &mut ByteWriter, objects: &[SceneObjectSpec], barriers: &[BarrierSpec]) {
    if objects.is_empty() && barriers.is_empty() {
        return;
    }
    w.count(objects.len());
    for o in objects {
        w.str(&o.id);
        for v in o.position.iter().chain(&o.scale).chain(&o.half_extents_m) {
            w.f64(*v);
        }
        w.f64(o.yaw_rad);
    }
    w.count(barriers.len());
    for b in barriers {
        w.str(&b.id);
        for v in b.from.iter().chain(&b.to) {
            w.f64(*v);
        }
        w.f64(b.thickness_m).bool(b.in_navigation);
    }
}
