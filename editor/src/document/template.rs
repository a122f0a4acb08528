//! The template a new project starts from: one street block recipe and one scenario on it.

use std::collections::BTreeMap;

use stagecraft_runtime::project::{
    Manifest, Observer, ParamValue, PopulationKind, PopulationSource, Project, Recipe, Scenario,
    Stage, Vec3,
};

/// The id of the template's recipe.
pub const TEMPLATE_RECIPE: &str = "block";
/// The id of the template's scenario.
pub const TEMPLATE_SCENARIO: &str = "crossing";

/// A new project named `name`: a street block recipe with one crosswalk and a scenario with one
/// observer and one ambient source on the north sidewalk.
pub fn new_project(name: &str) -> Project {
    let recipe = Recipe {
        id: TEMPLATE_RECIPE.to_owned(),
        label: "Street block".to_owned(),
        address_schema: 1,
        inputs: BTreeMap::new(),
        stages: vec![Stage {
            id: 1,
            label: "Block".to_owned(),
            operator: "street.block".to_owned(),
            algorithm: 1,
            inputs: Vec::new(),
            parameters: BTreeMap::from([("crosswalks".to_owned(), ParamValue::Int(1))]),
        }],
        outputs: vec![1],
    };
    let scenario = Scenario {
        id: TEMPLATE_SCENARIO.to_owned(),
        name: "Crossing".to_owned(),
        recipe: TEMPLATE_RECIPE.to_owned(),
        fixed_step_s: 0.05,
        duration_frames: 1200,
        observers: vec![Observer {
            id: "camera".to_owned(),
            position: Vec3 {
                x: 0.0,
                y: -30.0,
                z: 1.7,
            },
            yaw_rad: std::f64::consts::FRAC_PI_2,
            pitch_rad: -0.1,
            fov_y_rad: 1.0,
            near_m: 0.1,
            far_m: 200.0,
            retain_radius_m: 40.0,
            remove_radius_m: 80.0,
        }],
        sources: vec![PopulationSource {
            id: "walkers".to_owned(),
            kind: PopulationKind::Ambient,
            route: "sidewalk.north".to_owned(),
            target_count: 12,
            walk_speed_m_s: 1.4,
        }],
        no_spawn_box: None,
        no_removal_box: None,
        directives: Vec::new(),
    };
    Project {
        manifest: Manifest {
            name: name.to_owned(),
            root_seed: 1,
            asset_paths: Vec::new(),
            recipes: vec![TEMPLATE_RECIPE.to_owned()],
            scenarios: vec![TEMPLATE_SCENARIO.to_owned()],
            overrides: Vec::new(),
        },
        recipes: BTreeMap::from([(TEMPLATE_RECIPE.to_owned(), recipe)]),
        scenarios: BTreeMap::from([(TEMPLATE_SCENARIO.to_owned(), scenario)]),
        ..Project::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::project::{has_errors, load_project, ProjectSources};

    #[test]
    fn template_is_valid_and_round_trips() {
        let project = new_project("New");
        let sources = ProjectSources {
            files: project.canonical_files(),
        };
        let loaded = load_project(&sources);
        assert!(
            !has_errors(&loaded.diagnostics),
            "{:#?}",
            loaded.diagnostics
        );
        assert_eq!(loaded.project.as_ref(), Some(&project));
    }
}
