//! Tests of the named tier policies in a running world: `crowd-radii` classifies by the crowd
//! specification's numbers (6 m / 18 m, relevance 0.85 / 0.35, no hysteresis), `motion-bands`
//! by the motion document's bands with hysteresis, a field the scenario gives overrides its
//! policy's, and only a non-default policy adds to the configuration's canonical bytes.

use super::governor::classify;
use super::tests::observed_world;
use super::tiers::TierPolicy;
use crate::content::encode::ByteWriter;
use crate::project::{MotionSettings, Scenario};
use crate::sim::scenario::compile_motion;
use crate::sim::state::Tier;
use crate::sim::{AgentId, CompiledScenario, World};

/// Half the length of the fixture's route (`tests::observed_world`), meters.
const HALF_ROUTE_M: f64 = 1000.0;

/// Motion settings of policy `name` with nothing overridden.
fn policy(name: &str) -> MotionSettings {
    let mut settings = MotionSettings::default();
    settings.choose_policy(name);
    settings
}

/// A world of `policy` with one standing agent per `(x, relevance)`, in rows 0.., the observer
/// over the origin (so `|x|` is each agent's distance); agents alternate sides.
fn standing(settings: MotionSettings, agents: &[(f64, f64)]) -> World {
    let mut world = observed_world(agents.len() as u32, settings);
    for (row, (x, relevance)) in agents.iter().enumerate() {
        world
            .place_walker(0, 0, x + HALF_ROUTE_M, 1, 0.0, 0.0)
            .expect("placed");
        world.agents.relevance[row] = *relevance;
    }
    world
}

fn tiers(world: &World) -> Vec<Tier> {
    world.agents().tier.clone()
}

#[test]
fn crowd_radii_classifies_by_the_crowd_specifications_numbers() {
    let agents = [
        (5.9, 0.0),
        (-6.1, 0.0),
        (17.9, 0.0),
        (-18.1, 0.0),
        (50.0, 0.85),
        (-50.0, 0.35),
        (80.0, 0.34),
    ];
    let mut world = standing(policy("crowd-radii"), &agents);
    world.step();
    use Tier::{Full, Simulated, Stub};
    assert_eq!(
        tiers(&world),
        [Full, Simulated, Simulated, Stub, Full, Simulated, Stub]
    );
    // Why names the policy that classified the agent.
    let id = AgentId::from_bits(world.agents().id[0]);
    let why = world.tier_why(id).expect("a live agent");
    assert_eq!(why.policy, "crowd-radii");
    // The same agents under the default policy: the near four within its 25 m Full band, the
    // far ones by their relevance or its 55 m Simulated band.
    let mut world = standing(MotionSettings::default(), &agents);
    world.step();
    assert_eq!(
        tiers(&world),
        [Full, Full, Full, Full, Full, Simulated, Stub]
    );
    let why = world
        .tier_why(AgentId::from_bits(world.agents().id[0]))
        .expect("live");
    assert_eq!(why.policy, "motion-bands");
}

#[test]
fn crowd_radii_has_no_hysteresis_and_motion_bands_has() {
    use Tier::{Full, Simulated, Stub};
    // Full at 7 m and Simulated at 19 m: the crowd radii demote both at once.
    let mut world = standing(policy("crowd-radii"), &[(7.0, 0.0), (-19.0, 0.0)]);
    world.agents.tier.copy_from_slice(&[Full, Simulated]);
    world.step();
    assert_eq!(tiers(&world), [Simulated, Stub]);
    // The motion bands keep a Full agent to 32 m and a Simulated one to 65 m, and promote
    // only within 25 m and 55 m.
    let mut world = standing(
        MotionSettings::default(),
        &[
            (30.0, 0.0),
            (-60.0, 0.0),
            (-30.0, 0.0),
            (60.0, 0.0),
            (24.0, 0.0),
        ],
    );
    world
        .agents
        .tier
        .copy_from_slice(&[Full, Simulated, Stub, Stub, Stub]);
    world.step();
    assert_eq!(tiers(&world), [Full, Simulated, Simulated, Stub, Full]);
}

#[test]
fn a_field_the_scenario_gives_overrides_its_policys() {
    let mut settings = policy("crowd-radii");
    settings.simulated_exit_m = Some(20.0);
    settings.simulated_enter_m = Some(20.0);
    let mut world = standing(settings, &[(19.0, 0.0), (-21.0, 0.0), (5.0, 0.0)]);
    world.step();
    assert_eq!(tiers(&world), [Tier::Simulated, Tier::Stub, Tier::Full]);
    let config = world.config().scenario.motion.clone();
    assert_eq!((config.full_enter_m, config.simulated_exit_m), (6.0, 20.0));
    assert_eq!(config.full_capacity, u32::MAX);
}

#[test]
fn the_crowd_radii_policy_is_the_crowd_specifications_classify_at_every_tier() {
    let policy = TierPolicy::of(&compile_motion(&policy("crowd-radii")));
    let distances = [
        0.0,
        5.9,
        6.0,
        6.1,
        12.0,
        17.9,
        18.0,
        18.1,
        40.0,
        f64::INFINITY,
    ];
    let relevances = [0.0, 0.34, 0.35, 0.5, 0.84, 0.85, 1.0];
    let mut checked = 0;
    for distance_m in distances {
        for relevance in relevances {
            for current in Tier::ALL {
                let requested = policy
                    .by_distance(current, distance_m)
                    .min(policy.by_relevance(relevance, 0.0, false));
                assert_eq!(
                    requested,
                    classify(distance_m, relevance),
                    "{distance_m} m, relevance {relevance}, from {current:?}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 210);
}

/// The canonical bytes of a scenario with `motion`.
fn canonical(motion: MotionSettings) -> Vec<u8> {
    let scenario = Scenario {
        id: "s".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        motion,
        ..Scenario::default()
    };
    let compiled = CompiledScenario::compile(&scenario).expect("compiles");
    let mut w = ByteWriter::default();
    compiled.write_canonical(&mut w);
    w.finish()
}

#[test]
fn only_a_non_default_policy_adds_to_the_canonical_bytes() {
    let plain = canonical(MotionSettings::default());
    // The default policy spelled out field by field is the same configuration, byte for byte.
    let spelled = MotionSettings {
        full_enter_m: Some(25.0),
        full_exit_m: Some(32.0),
        simulated_enter_m: Some(55.0),
        simulated_exit_m: Some(65.0),
        full_capacity: Some(12),
        simulated_capacity: Some(12),
        promotions_per_step: Some(12),
        demotions_per_step: Some(24),
        hero_relevance: Some(0.85),
        medium_relevance: Some(0.35),
        ..MotionSettings::default()
    };
    assert_eq!(canonical(spelled), plain);
    let crowd = canonical(policy("crowd-radii"));
    assert_ne!(crowd, plain);
    assert!(crowd.windows(8).any(|w| w == b"TIERPOL1"));
    assert!(!plain.windows(8).any(|w| w == b"TIERPOL1"));
}

#[test]
fn an_override_that_breaks_the_policys_order_is_located_at_the_field_given() {
    use crate::sim::problems::SimProblem;
    let mut motion = policy("crowd-radii");
    // Full entered within 10 m but left beyond the policy's 6 m; Medium above Hero.
    motion.full_enter_m = Some(10.0);
    motion.medium_relevance = Some(0.9);
    motion.hero_relevance = Some(1.5);
    let scenario = Scenario {
        id: "s".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        motion,
        ..Scenario::default()
    };
    let error = CompiledScenario::compile(&scenario).expect_err("refused");
    let found: Vec<(String, SimProblem)> = error
        .diagnostics
        .iter()
        .map(|d| (d.path.to_string(), d.problem.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "motion.hero_relevance".to_owned(),
                SimProblem::OutOfRange {
                    value: 1.5,
                    range: "a value in [0, 1]"
                }
            ),
            (
                "motion.full_enter_m".to_owned(),
                SimProblem::OutOfRange {
                    value: 10.0,
                    range: "a distance of at most full_exit_m (the tier policy's)"
                }
            ),
        ]
    );
    // Medium at 0.9 is below Hero's 1.5: only the range is wrong there. Within range, it is
    // reported at the field given.
    let mut motion = policy("crowd-radii");
    motion.medium_relevance = Some(0.9);
    let scenario = Scenario {
        id: "s".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        motion,
        ..Scenario::default()
    };
    let error = CompiledScenario::compile(&scenario).expect_err("refused");
    assert_eq!(error.diagnostics.len(), 1);
    assert_eq!(
        error.diagnostics[0].path.to_string(),
        "motion.medium_relevance"
    );
    assert_eq!(
        error.diagnostics[0].problem.expected(),
        "a relevance of at most hero_relevance (the tier policy's)"
    );
}
