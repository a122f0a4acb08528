//! The templates a new project starts from (the same for File → New project and `stagecraft
//! new`), and the minimal street block project the editor's own tests and "add recipe" use.

use std::collections::BTreeMap;

use stagecraft_runtime::project::{
    has_errors, load_project, Manifest, Observer, ParamValue, PopulationKind, PopulationSource,
    Project, ProjectSources, Recipe, Scenario, Stage, Vec3,
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
            // Births are allowed within 60 m of the camera and outside its view: the sidewalk's
            // ends (|x| > 35 m on the 80 m block, about 50 m away) are offscreen and in range,
            // so the scenario spawns from frame 0 without a hidden-startup fade; with 40 m every
            // in-range candidate was inside the view and the source starved.
            retain_radius_m: 60.0,
            remove_radius_m: 100.0,
            ..Observer::with_defaults(String::new())
        }],
        sources: vec![PopulationSource {
            id: "walkers".to_owned(),
            kind: PopulationKind::Ambient,
            route: "sidewalk.north".to_owned(),
            target_count: 12,
            walk_speed_m_s: 1.4,
            ..Default::default()
        }],
        no_spawn_box: None,
        no_removal_box: None,
        vehicle_sources: Vec::new(),
        crossings: Default::default(),
        population: Default::default(),
        motion: Default::default(),
        directives: Vec::new(),
        objects: Vec::new(),
        barriers: Vec::new(),
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

/// A template for a new project: an example project made self-contained, or an empty one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Template {
    /// The street-block example: a block with crosswalks, props and a pedestrian scenario.
    StreetBlock,
    /// The pine-clearing example: a forest scatter around a clearing.
    PineClearing,
    /// The tactical-mission example: a grid mission layout with streaming cells.
    TacticalMission,
    /// A manifest and nothing else.
    Empty,
}

impl Template {
    /// Every template, in menu order.
    pub const ALL: [Template; 4] = [
        Template::StreetBlock,
        Template::PineClearing,
        Template::TacticalMission,
        Template::Empty,
    ];

    /// The name shown in menus and accepted by `--template`.
    pub fn id(self) -> &'static str {
        match self {
            Template::StreetBlock => "street-block",
            Template::PineClearing => "pine-clearing",
            Template::TacticalMission => "tactical-mission",
            Template::Empty => "empty",
        }
    }

    /// One line on what the template holds.
    pub fn description(self) -> &'static str {
        match self {
            Template::StreetBlock => "a street block with crosswalks, props and pedestrians",
            Template::PineClearing => "a pine forest scattered around a clearing",
            Template::TacticalMission => "a grid mission layout with streaming cells",
            Template::Empty => "a manifest without recipes or scenarios",
        }
    }

    /// The example's files (path → text) as they are in `projects/` and `assets/`.
    fn example_files(self) -> Vec<(&'static str, &'static str)> {
        macro_rules! file {
            ($path:literal) => {
                ($path, include_str!(concat!("../../../projects/", $path)))
            };
        }
        const FAMILIES: [(&str, &str); 2] = [
            (
                "assets/alpine-trees.family.ron",
                include_str!("../../../assets/alpine-trees.family.ron"),
            ),
            (
                "assets/street-props.family.ron",
                include_str!("../../../assets/street-props.family.ron"),
            ),
        ];
        let mut files = match self {
            Template::StreetBlock => vec![
                (
                    "stagecraft.ron",
                    include_str!("../../../projects/street-block/stagecraft.ron"),
                ),
                file!("street-block/recipes/street-block.recipe.ron"),
                file!("street-block/scenarios/crosswalk-rush.scenario.ron"),
                file!("street-block/scenarios/panic-flee.scenario.ron"),
                file!("street-block/overrides/street-block-edits.overrides.ron"),
            ],
            Template::PineClearing => vec![
                (
                    "stagecraft.ron",
                    include_str!("../../../projects/pine-clearing/stagecraft.ron"),
                ),
                file!("pine-clearing/recipes/pine-clearing.recipe.ron"),
                file!("pine-clearing/overrides/pine-clearing-edits.overrides.ron"),
            ],
            Template::TacticalMission => vec![
                (
                    "stagecraft.ron",
                    include_str!("../../../projects/tactical-mission/stagecraft.ron"),
                ),
                file!("tactical-mission/recipes/tactical-mission.recipe.ron"),
                file!("tactical-mission/chunks/launch.chunks.ron"),
            ],
            Template::Empty => Vec::new(),
        };
        // Paths inside the example folder, relative to the new project.
        for (path, _) in files.iter_mut().skip(1) {
            *path = path.split_once('/').map_or(*path, |(_, rest)| rest);
        }
        if matches!(self, Template::StreetBlock | Template::PineClearing) {
            files.extend(FAMILIES);
        }
        files
    }

    /// The canonical files of a new project named `name` from this template, self-contained:
    /// the asset families it uses live in its own `assets/` folder.
    pub fn files(self, name: &str) -> Result<BTreeMap<String, String>, String> {
        let mut project = if self == Template::Empty {
            Project::default()
        } else {
            let mut sources = ProjectSources {
                files: self
                    .example_files()
                    .into_iter()
                    .map(|(path, text)| (path.to_owned(), text.to_owned()))
                    .collect(),
                ..ProjectSources::default()
            };
            // The example's manifest names the shared folder; the copy has its own.
            let manifest = sources
                .files
                .get("stagecraft.ron")
                .cloned()
                .unwrap_or_default();
            let local = manifest.replace("\"../../assets\"", "\"assets\"");
            sources.files.insert("stagecraft.ron".to_owned(), local);
            let loaded = load_project(&sources);
            if has_errors(&loaded.diagnostics) {
                return Err(format!(
                    "the {} template does not load: {:?}",
                    self.id(),
                    loaded.diagnostics.first()
                ));
            }
            loaded.project.ok_or("the template has no manifest")?
        };
        project.manifest.name = name.to_owned();
        if self == Template::Empty {
            project.manifest.root_seed = 1;
        }
        Ok(project.canonical_files())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_is_valid_and_round_trips() {
        let project = new_project("New");
        let sources = ProjectSources {
            files: project.canonical_files(),
            ..ProjectSources::default()
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

#[cfg(test)]
mod template_tests {
    use super::*;

    #[test]
    fn every_template_is_valid_canonical_and_self_contained() {
        for template in Template::ALL {
            let files = template.files("Fresh").expect("template files");
            let sources = ProjectSources {
                files: files.clone(),
                ..ProjectSources::default()
            };
            let loaded = load_project(&sources);
            assert!(
                !has_errors(&loaded.diagnostics),
                "{}: {:#?}",
                template.id(),
                loaded.diagnostics
            );
            let project = loaded.project.expect("project");
            assert_eq!(project.manifest.name, "Fresh");
            assert_eq!(
                project.canonical_files(),
                files,
                "{} is canonical",
                template.id()
            );
            for family_file in project.family_files.values() {
                assert!(
                    project
                        .manifest
                        .asset_paths
                        .iter()
                        .any(|p| family_file.starts_with(p.as_str())),
                    "{}: {family_file} is in no asset path",
                    template.id()
                );
            }
            assert!(
                project
                    .manifest
                    .asset_paths
                    .iter()
                    .all(|p| !p.starts_with("..")),
                "{} must not reach outside its folder: {:?}",
                template.id(),
                project.manifest.asset_paths
            );
        }
        let street = Template::StreetBlock.files("s").expect("files");
        assert_eq!(
            street.keys().map(String::as_str).collect::<Vec<_>>(),
            vec![
                "assets/alpine-trees.family.ron",
                "assets/street-props.family.ron",
                "overrides/street-block-edits.overrides.ron",
                "recipes/street-block.recipe.ron",
                "scenarios/crosswalk-rush.scenario.ron",
                "scenarios/panic-flee.scenario.ron",
                "stagecraft.ron",
            ]
        );
        let empty = Template::Empty.files("e").expect("files");
        assert_eq!(empty.keys().collect::<Vec<_>>(), vec!["stagecraft.ron"]);
    }
}
