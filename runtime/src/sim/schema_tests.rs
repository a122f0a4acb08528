//! The compiler checks every scenario field's range from its field schema
//! (`project::SCENARIO_SECTIONS`): a value outside it is a diagnostic located at the field,
//! expecting the schema's range in words.

use super::config::CompiledScenario;
use crate::project::{
    scenario_field, HazardVehicle, Scenario, VehicleSource, DEFAULT_DURATION_FRAMES,
    DEFAULT_FIXED_STEP_S,
};

fn scenario() -> Scenario {
    Scenario {
        id: "s".into(),
        recipe: "r".into(),
        fixed_step_s: DEFAULT_FIXED_STEP_S,
        duration_frames: DEFAULT_DURATION_FRAMES,
        ..Scenario::default()
    }
}

/// The (path, expected) of every diagnostic compiling `scenario` gives.
fn problems(scenario: &Scenario) -> Vec<(String, String)> {
    match CompiledScenario::compile(scenario) {
        Ok(_) => Vec::new(),
        Err(error) => error
            .diagnostics
            .iter()
            .map(|d| (d.path.to_string(), d.problem.expected()))
            .collect(),
    }
}

#[test]
fn the_defaults_compile() {
    assert_eq!(problems(&scenario()), Vec::new());
}

#[test]
fn each_settings_section_is_checked_against_its_schema_ranges() {
    let mut s = scenario();
    s.crossings.lanes = 9;
    s.crossings.group_share = 1.5;
    s.crossings.pedestrian_s = 0.0;
    s.crossings.hazard = Some(HazardVehicle {
        y_m: f64::NAN,
        speed_m_s: 4.0,
    });
    s.population.ped_frame_rate = 2000.0;
    s.motion.default_relevance = 2.0;
    s.motion.crowd_budget_ms = -1.0;
    s.vehicle_sources.push(VehicleSource {
        id: "v".into(),
        lane: "lane.0".into(),
        target_count: 1,
        speed_m_s: 0.0,
    });
    let range = |section: &str, field: &str| {
        scenario_field(section, field)
            .range
            .map(|r| r.text.to_owned())
            .unwrap_or_default()
    };
    let found = problems(&s);
    let expect = [
        ("crossings.lanes", range("Crossings", "lanes")),
        ("crossings.group_share", range("Crossings", "group_share")),
        ("crossings.pedestrian_s", "a positive number".to_owned()),
        ("crossings.hazard.y_m", "a finite number".to_owned()),
        (
            "population.ped_frame_rate",
            range("Population", "ped_frame_rate"),
        ),
        (
            "motion.default_relevance",
            range("Motion", "default_relevance"),
        ),
        ("motion.crowd_budget_ms", "a positive number".to_owned()),
        (
            "vehicle_sources[0].speed_m_s",
            "a positive number".to_owned(),
        ),
    ];
    for (path, expected) in &expect {
        assert!(
            found.iter().any(|(p, e)| p == path && e == expected),
            "{path} expecting {expected:?} in {found:?}"
        );
    }
    assert_eq!(found.len(), expect.len(), "{found:?}");
    assert_eq!(range("Crossings", "lanes"), "1 to 5 lateral lanes");
}

#[test]
fn spawn_ranges_and_removal_scales_are_checked_at_their_fields() {
    let mut s = scenario();
    let mut o = crate::project::Observer::with_defaults("cam".into());
    // The normal minimum above the retain radius (its maximum when none is given); a negative
    // hidden maximum.
    o.spawn_min_m = 50.0;
    o.hidden_spawn_max_m = Some(-1.0);
    s.observers.push(o);
    s.population.special_removal_scale = 0.5;
    s.population.cops_removal_scale = f64::NAN;
    let found = problems(&s);
    assert_eq!(
        found,
        [
            (
                "observers[0].hidden_spawn_max_m".to_owned(),
                "[0, 100000]".to_owned()
            ),
            (
                "observers[0].spawn_min_m".to_owned(),
                "at most the normal spawn maximum (`spawn_max_m`, else `retain_radius_m`)"
                    .to_owned()
            ),
            (
                "observers[0].hidden_spawn_min_m".to_owned(),
                "at most the hidden spawn maximum (`hidden_spawn_max_m`, else the normal maximum)"
                    .to_owned()
            ),
            (
                "population.special_removal_scale".to_owned(),
                "[1, 100]".to_owned()
            ),
            (
                "population.cops_removal_scale".to_owned(),
                "a finite number".to_owned()
            ),
        ]
    );
}
