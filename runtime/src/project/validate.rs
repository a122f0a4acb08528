//! Semantic validation of a decoded project: the rules of each document on its own and the
//! references between documents (manifest lists, scenario and override targets, families).
//!
//! The structural rules of a recipe (limits, stage ids, inputs, outputs, cycles, operators,
//! families it reads) and everything that needs an operator (such as the routes a scenario walks)
//! are the recipe compiler's: `recipe::check_project` applies them, and nothing here repeats them.

use std::collections::{BTreeMap, BTreeSet};

use crate::boxes::{inverted_axes, AXIS_NAMES};

use super::diagnostic::{Diagnostic, Severity};
use super::migrate::DocKind;
use super::model::{
    classify, overrides_file, recipe_file, scenario_file, Project, ProjectSources, MANIFEST_FILE,
};
use super::names::{asset_path_problem, id_problem, normal_asset_path, ID_EXPECTED};
use super::node::{FieldPath, Locator, Node};
use super::schema::{
    AssetFamily, Box3, Directive, DirectiveCommand, OverrideAction, OverrideSet, Recipe, Scenario,
};

/// Places diagnostics found on typed data back onto the source positions of their field paths.
struct Reporter<'a> {
    trees: &'a BTreeMap<String, Node>,
    /// Ids of documents whose files exist but could not be read: references to them are not
    /// reported again, since their own diagnostics already explain the problem.
    unreadable: BTreeSet<(DocKind, String)>,
    diagnostics: Vec<Diagnostic>,
    /// A path index per file, built at its first diagnostic, so many diagnostics in one large
    /// file stay linear.
    locators: BTreeMap<String, Locator>,
}

impl Reporter<'_> {
    fn is_unreadable(&self, kind: DocKind, id: &str) -> bool {
        self.unreadable.contains(&(kind, id.to_owned()))
    }

    fn report(
        &mut self,
        severity: Severity,
        file: &str,
        path: FieldPath,
        message: String,
        expected: &str,
    ) {
        let (line, column) = match self.trees.get(file) {
            Some(tree) => {
                let locator = self
                    .locators
                    .entry(file.to_owned())
                    .or_insert_with(|| Locator::new(tree));
                let span = locator.deepest_at(tree, &path).span;
                (span.line, span.column)
            }
            None => (1, 1),
        };
        self.diagnostics.push(Diagnostic {
            severity,
            file: file.to_owned(),
            line,
            column,
            path,
            message,
            expected: expected.to_owned(),
        });
    }

    fn error(&mut self, file: &str, path: FieldPath, message: String, expected: &str) {
        self.report(Severity::Error, file, path, message, expected);
    }

    fn warning(&mut self, file: &str, path: FieldPath, message: String, expected: &str) {
        self.report(Severity::Warning, file, path, message, expected);
    }
}

/// Ids of the manifest's lists are names, not paths; asset paths are relative and lead nowhere the
/// reader refused.
fn validate_names_and_paths(
    project: &Project,
    sources: &ProjectSources,
    reporter: &mut Reporter<'_>,
) {
    let manifest = &project.manifest;
    let lists = [
        ("recipes", &manifest.recipes),
        ("scenarios", &manifest.scenarios),
        ("overrides", &manifest.overrides),
    ];
    for (field, ids) in lists {
        for (index, id) in ids.iter().enumerate() {
            if let Some(problem) = id_problem(id) {
                let path = FieldPath::root().field(field).index(index);
                let message = format!("{problem}: {id:?} (ids are names, not paths)");
                reporter.error(MANIFEST_FILE, path, message, ID_EXPECTED);
            }
        }
    }
    // Each folder's first entry, by its one spelling.
    let mut first_entry: BTreeMap<String, usize> = BTreeMap::new();
    for (index, asset_path) in manifest.asset_paths.iter().enumerate() {
        let path = FieldPath::root().field("asset_paths").index(index);
        let normal = normal_asset_path(asset_path);
        if let Some(problem) = asset_path_problem(asset_path) {
            let message = format!("{problem}: {asset_path:?}");
            let expected = "a folder relative to the project folder, such as `../../assets`";
            reporter.error(MANIFEST_FILE, path, message, expected);
        } else if let Some(first) = first_entry.get(&normal) {
            let message = format!(
                "asset path {asset_path:?} names the same folder as asset_paths[{first}] {:?}, so its families would count twice",
                manifest.asset_paths[*first]
            );
            reporter.error(
                MANIFEST_FILE,
                path,
                message,
                "each asset folder listed once",
            );
        } else if let Some(problem) = sources.asset_path_problems.get(&normal) {
            let expected = "a folder inside the project or its repository";
            if problem.refused {
                let message = format!("asset path {asset_path:?} is not read: {}", problem.reason);
                reporter.error(MANIFEST_FILE, path, message, expected);
            } else {
                let message = format!("asset path {asset_path:?}: {}", problem.reason);
                reporter.warning(MANIFEST_FILE, path, message, expected);
            }
        }
        first_entry.entry(normal).or_insert(index);
    }
}

/// Validates the cross-file and semantic rules of a project whose files decoded.
pub fn validate_project(
    project: &Project,
    sources: &ProjectSources,
    trees: &BTreeMap<String, Node>,
) -> Vec<Diagnostic> {
    let unreadable = sources
        .files
        .keys()
        .chain(sources.unreadable.keys())
        .filter_map(|path| classify(path))
        .filter(|(kind, id)| match kind {
            DocKind::Recipe => !project.recipes.contains_key(id),
            DocKind::Family => !project.families.contains_key(id),
            DocKind::Motion => !project.motions.contains_key(id),
            _ => false,
        })
        .collect();
    let mut reporter = Reporter {
        trees,
        unreadable,
        diagnostics: Vec::new(),
        locators: BTreeMap::new(),
    };
    validate_manifest(project, sources, &mut reporter);
    for (id, scenario) in &project.scenarios {
        validate_scenario(project, &scenario_file(id), scenario, &mut reporter);
    }
    for (id, set) in &project.overrides {
        let file = overrides_file(id);
        match project.recipes.get(&set.recipe) {
            None if reporter.is_unreadable(DocKind::Recipe, &set.recipe) => {}
            None => reporter.error(
                &file,
                FieldPath::root().field("recipe"),
                format!("override set names the missing recipe `{}`", set.recipe),
                "the id of a recipe listed in the manifest",
            ),
            Some(recipe) => {
                validate_override_values(&file, set, project.manifest.root_seed, &mut reporter);
                for (index, item) in set.mutations.iter().enumerate() {
                    let at = FieldPath::root().field("mutations").index(index);
                    check_nested(
                        &file,
                        recipe,
                        at,
                        "mutation",
                        item.stage,
                        &item.nested,
                        &mut reporter,
                    );
                    if !recipe.stages.iter().any(|stage| stage.id == item.stage) {
                        reporter.error(
                            &file,
                            FieldPath::root()
                                .field("mutations")
                                .index(index)
                                .field("stage"),
                            format!(
                                "mutation names stage {}, which recipe `{}` does not have",
                                item.stage, recipe.id
                            ),
                            "the id of a stage of the recipe",
                        );
                    }
                }
                for (index, item) in set.overrides.iter().enumerate() {
                    let at = FieldPath::root().field("overrides").index(index);
                    check_nested(
                        &file,
                        recipe,
                        at,
                        "override",
                        item.stage,
                        &item.nested,
                        &mut reporter,
                    );
                    if !recipe.stages.iter().any(|stage| stage.id == item.stage) {
                        reporter.error(
                            &file,
                            FieldPath::root()
                                .field("overrides")
                                .index(index)
                                .field("stage"),
                            format!(
                                "override names stage {}, which recipe `{}` does not have",
                                item.stage, recipe.id
                            ),
                            "the id of a stage of the recipe",
                        );
                    }
                }
            }
        }
    }
    for (id, family) in &project.families {
        if let Some(file) = project.family_files.get(id) {
            validate_family(file, family, &mut reporter);
        }
    }
    for (id, profile) in &project.motions {
        if let Some(file) = project.motion_files.get(id) {
            for (path, message, expected) in profile.problems() {
                reporter.error(file, path, message, expected);
            }
        }
    }
    reporter.diagnostics
}

fn check_unique_ids<'a>(
    reporter: &mut Reporter<'_>,
    file: &str,
    what: &str,
    ids: impl Iterator<Item = (FieldPath, &'a str)>,
) {
    let mut seen = BTreeSet::new();
    for (path, id) in ids {
        if id.is_empty() {
            reporter.error(file, path, format!("empty {what} id"), "a non-empty id");
        } else if !seen.insert(id) {
            reporter.error(
                file,
                path,
                format!("duplicate {what} id `{id}`"),
                "each id at most once",
            );
        }
    }
}

fn validate_manifest(project: &Project, sources: &ProjectSources, reporter: &mut Reporter<'_>) {
    let manifest = &project.manifest;
    validate_names_and_paths(project, sources, reporter);
    if manifest.name.trim().is_empty() {
        reporter.error(
            MANIFEST_FILE,
            FieldPath::root().field("name"),
            "empty project name".into(),
            "a non-empty name",
        );
    }
    type DocumentList<'a> = (&'a str, &'a Vec<String>, fn(&str) -> String, DocKind);
    let lists: [DocumentList<'_>; 3] = [
        ("recipes", &manifest.recipes, recipe_file, DocKind::Recipe),
        (
            "scenarios",
            &manifest.scenarios,
            scenario_file,
            DocKind::Scenario,
        ),
        (
            "overrides",
            &manifest.overrides,
            overrides_file,
            DocKind::Overrides,
        ),
    ];
    for (field, ids, file_of, kind) in lists {
        let list_path = FieldPath::root().field(field);
        check_unique_ids(
            reporter,
            MANIFEST_FILE,
            field.trim_end_matches('s'),
            ids.iter()
                .enumerate()
                .map(|(i, id)| (list_path.index(i), id.as_str())),
        );
        for (index, id) in ids.iter().enumerate() {
            let file = file_of(id);
            if !sources.files.contains_key(&file) && !sources.unreadable.contains_key(&file) {
                reporter.error(
                    MANIFEST_FILE,
                    list_path.index(index),
                    format!("`{id}` is listed but `{file}` does not exist"),
                    "a listed id to have its file in the project",
                );
            }
        }
        // A recipe file another recipe runs as a subrecipe is part of that recipe, not listed.
        let subrecipes: BTreeSet<&str> = project
            .recipes
            .values()
            .flat_map(Recipe::subrecipe_files)
            .collect();
        for path in sources.files.keys() {
            if let Some((found_kind, id)) = classify(path) {
                let subrecipe = kind == DocKind::Recipe && subrecipes.contains(path.as_str());
                if found_kind == kind && !ids.contains(&id) && !subrecipe {
                    reporter.warning(
                        MANIFEST_FILE,
                        list_path.clone(),
                        format!("`{path}` is not listed in the manifest's `{field}`"),
                        "every document file to be listed",
                    );
                }
            }
        }
    }
}

fn check_box(reporter: &mut Reporter<'_>, file: &str, path: FieldPath, bounds: &Box3) {
    let min_m = [bounds.min.x, bounds.min.y, bounds.min.z];
    let max_m = [bounds.max.x, bounds.max.y, bounds.max.z];
    for axis in inverted_axes(min_m, max_m) {
        let (name, min, max) = (AXIS_NAMES[axis], min_m[axis], max_m[axis]);
        reporter.error(
            file,
            path.field("min"),
            format!("box minimum {name} {min} is above its maximum {max}"),
            "min ≤ max on every axis",
        );
    }
}

fn validate_scenario(
    project: &Project,
    file: &str,
    scenario: &Scenario,
    reporter: &mut Reporter<'_>,
) {
    let root = FieldPath::root();
    let recipe = project.recipes.get(&scenario.recipe);
    if recipe.is_none() && !reporter.is_unreadable(DocKind::Recipe, &scenario.recipe) {
        reporter.error(
            file,
            root.field("recipe"),
            format!("scenario names the missing recipe `{}`", scenario.recipe),
            "the id of a recipe listed in the manifest",
        );
    }
    check_unique_ids(
        reporter,
        file,
        "observer",
        scenario
            .observers
            .iter()
            .enumerate()
            .map(|(i, o)| (root.field("observers").index(i).field("id"), o.id.as_str())),
    );
    for (index, observer) in scenario.observers.iter().enumerate() {
        let path = root.field("observers").index(index);
        validate_observer(file, &path, observer, reporter);
    }
    // Duplicate source ids, speeds, boxes, batches and every directive's target and numbers are
    // the simulation's rules (`sim::problems`), reported by `recipe::check_project`.
    for (index, source) in scenario.sources.iter().enumerate() {
        if source.id.is_empty() {
            let path = root.field("sources").index(index).field("id");
            reporter.error(file, path, "empty source id".into(), "a non-empty id");
        }
    }
    let named = scenario
        .sources
        .iter()
        .enumerate()
        .map(|(i, s)| (root.field("sources").index(i), &s.motion_profile))
        .chain(
            scenario
                .directives
                .iter()
                .enumerate()
                .map(|(i, d)| (root.field("directives").index(i), &d.motion_profile)),
        );
    for (path, profile) in named {
        if let Some(name) = profile {
            check_motion_profile(project, file, path.field("motion_profile"), name, reporter);
        }
    }
    for (index, directive) in scenario.directives.iter().enumerate() {
        let path = root.field("directives").index(index);
        validate_directive_boxes(reporter, file, path.clone(), directive);
        // `docs/format.md`: a directive's frame is ≤ `duration_frames`; one past the end would
        // never run, so the file is wrong.
        if directive.frame > scenario.duration_frames {
            reporter.error(
                file,
                path.field("frame"),
                format!(
                    "directive at frame {} is after the scenario's end (frame {})",
                    directive.frame, scenario.duration_frames
                ),
                "a frame within `duration_frames`",
            );
        }
    }
}

/// A `motion_profile` a source or directive names: a standard profile or one of the project's
/// `*.motion.ron` (an unreadable one is reported where it is).
fn check_motion_profile(
    project: &Project,
    file: &str,
    path: FieldPath,
    name: &str,
    reporter: &mut Reporter<'_>,
) {
    use super::schema::motion::STANDARD_MOTION_PROFILES;
    let known = STANDARD_MOTION_PROFILES.contains(&name)
        || project.motions.contains_key(name)
        || reporter.is_unreadable(DocKind::Motion, name);
    if !known {
        let mut ids: Vec<&str> = STANDARD_MOTION_PROFILES.to_vec();
        ids.extend(project.motions.keys().map(String::as_str));
        ids.sort_unstable();
        ids.dedup();
        reporter.error(
            file,
            path,
            format!("unknown motion profile `{name}`"),
            &format!("one of the project's motion profiles: {}", ids.join(", ")),
        );
    }
}

/// An observer's frustum (0 < near < far, a field of view in (0, π)) and its radii (retain
/// within remove).
fn validate_observer(
    file: &str,
    path: &FieldPath,
    observer: &crate::project::Observer,
    reporter: &mut Reporter<'_>,
) {
    if !(observer.near_m > 0.0 && observer.near_m < observer.far_m) {
        reporter.error(
            file,
            path.field("near_m"),
            format!(
                "near plane {} m is not between 0 and the far plane {} m",
                observer.near_m, observer.far_m
            ),
            "0 < near_m < far_m",
        );
    }
    if !(observer.fov_y_rad > 0.0 && observer.fov_y_rad < std::f64::consts::PI) {
        reporter.error(
            file,
            path.field("fov_y_rad"),
            format!("field of view {} rad is out of range", observer.fov_y_rad),
            "a field of view in (0, π) radians",
        );
    }
    if observer.retain_radius_m > observer.remove_radius_m {
        reporter.error(
            file,
            path.field("retain_radius_m"),
            format!(
                "retain radius {} m is beyond the remove radius {} m",
                observer.retain_radius_m, observer.remove_radius_m
            ),
            "retain_radius_m ≤ remove_radius_m",
        );
    }
}

/// A directive's boxes: the world refuses an inverted box at run time and keeps its old one (the
/// specification's rule, so the simulation's compiler accepts it), but the file is still wrong.
fn validate_directive_boxes(
    reporter: &mut Reporter<'_>,
    file: &str,
    path: FieldPath,
    directive: &Directive,
) {
    if let DirectiveCommand::SetNoSpawnBox { bounds }
    | DirectiveCommand::SetNoRemovalBox { bounds } = &directive.command
    {
        check_box(
            reporter,
            file,
            path.field("command").field("bounds"),
            bounds,
        );
    }
}

/// A module's socket types: ids an assembly's `frame` can name (letters, digits, `-`, `_`), each
/// once.
fn validate_sockets(file: &str, path: &FieldPath, sockets: &[String], reporter: &mut Reporter<'_>) {
    for (index, socket) in sockets.iter().enumerate() {
        let at = path.field("sockets").index(index);
        let spelled = !socket.is_empty()
            && socket
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !spelled {
            reporter.error(
                file,
                at,
                format!("{socket:?} is not a socket type id"),
                "letters, digits, `-` and `_` (what an assembly's `frame` names)",
            );
        } else if sockets[..index].contains(socket) {
            reporter.error(
                file,
                at,
                format!("socket type `{socket}` is listed twice"),
                "each socket type once",
            );
        }
    }
}

fn validate_family(file: &str, family: &AssetFamily, reporter: &mut Reporter<'_>) {
    let variants = FieldPath::root().field("variants");
    if family.variants.is_empty() {
        reporter.error(
            file,
            variants.clone(),
            "asset family has no variants".into(),
            "at least one variant",
        );
    }
    check_unique_ids(
        reporter,
        file,
        "variant",
        family
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| (variants.index(i).field("id"), v.id.as_str())),
    );
    let mut total_weight: u64 = 0;
    let mut weight_reported = false;
    for (index, variant) in family.variants.iter().enumerate() {
        let path = variants.index(index);
        if variant.weight == 0 {
            reporter.error(
                file,
                path.field("weight"),
                "weight 0".into(),
                "a weight of at least 1",
            );
        }
        if variant.exclusion_radius < 0 {
            reporter.error(
                file,
                path.field("exclusion_radius"),
                format!("negative exclusion radius {}", variant.exclusion_radius),
                "a radius ≥ 0 in lattice units",
            );
        }
        validate_sockets(file, &path, &variant.sockets, reporter);
        total_weight += u64::from(variant.weight);
        if total_weight > u64::from(u32::MAX) && !weight_reported {
            weight_reported = true;
            reporter.error(
                file,
                path.field("weight"),
                format!(
                    "the variant weights reach {total_weight} at variant `{}`, past {}",
                    variant.id,
                    u32::MAX
                ),
                "weights that sum to at most 4294967295",
            );
        }
        for (field, value) in [
            ("collision_radius_m", variant.collision_radius_m),
            ("height_m", variant.height_m),
        ] {
            if value < 0.0 {
                reporter.error(
                    file,
                    path.field(field),
                    format!("negative {field} {value}"),
                    "a length ≥ 0 in meters",
                );
            }
        }
    }
}

/// An edit of a generated object (not an `Add` or an `Exclude`, and not one naming an authored
/// object, which has no generated base) with an empty base revision: nothing ties it to the
/// object it was authored on, so after an upstream change it would apply to whatever object has
/// that identity. `stagecraft rebase --write` records the revision of every edit that applies.
fn warn_no_base(file: &str, at: FieldPath, target: u64, reporter: &mut Reporter<'_>) {
    let authored = crate::identity::ScatterId::from_bits(target).is_ok_and(|id| id.is_authored());
    if authored {
        return;
    }
    reporter.warning(
        file,
        at,
        format!(
            "the edit of generated object {target} records no base revision, so after an upstream change it would apply to whatever object has that identity"
        ),
        "the target's base revision (`stagecraft rebase PROJECT --write`, or Edit → Rebase overrides…, records it for every edit that applies)",
    );
}

/// An edit's (`what`: override or mutation, at `at`) `nested` path is only below a subrecipe
/// stage of the recipe: below any other stage it is a located error.
fn check_nested(
    file: &str,
    recipe: &Recipe,
    at: FieldPath,
    what: &str,
    stage: u32,
    nested: &[u32],
    reporter: &mut Reporter<'_>,
) {
    let named = recipe.stages.iter().find(|s| s.id == stage);
    let subrecipe = crate::project::schema::recipe::SUBRECIPE_OPERATOR;
    if named.is_some_and(|s| s.operator != subrecipe) && !nested.is_empty() {
        reporter.error(
            file,
            at.field("nested"),
            format!(
                "{what} has a nested path below stage {stage}, which is not a subrecipe stage of recipe `{}`",
                recipe.id
            ),
            "no `nested` path, or `stage` naming a `subrecipe` stage",
        );
    }
}

/// The rules of an override set's own values: base revisions are 16 lowercase hex digits (or empty),
/// an exclusion is a non-empty rectangle with target 0, and a mutation is harvested or regrown. A
/// set with edits that is bound to another seed than the project's is a warning: none of its edits
/// applies until a rebase; so is an edit of a generated object without a base revision.
fn validate_override_values(file: &str, set: &OverrideSet, seed: u64, reporter: &mut Reporter<'_>) {
    let has_edits = !set.overrides.is_empty() || !set.mutations.is_empty();
    if has_edits && set.base_seed != Some(seed) {
        let bound = match set.base_seed {
            Some(base) => format!("seed {base}"),
            None => "no seed".to_owned(),
        };
        reporter.warning(
            file,
            FieldPath::root().field("base_seed"),
            format!(
                "the set is bound to {bound} and the project's seed is {seed}: none of its edits applies until it is rebased"
            ),
            "`stagecraft rebase PROJECT --write` (or the editor's rebase), or the seed it was authored against",
        );
    }
    for (index, item) in set.overrides.iter().enumerate() {
        let at = FieldPath::root().field("overrides").index(index);
        let generated_target = !matches!(
            item.action,
            OverrideAction::Add { .. } | OverrideAction::Exclude { .. }
        );
        if generated_target && item.base.is_empty() {
            warn_no_base(file, at.clone().field("base"), item.target, reporter);
        }
        check_base_revision(file, at.clone().field("base"), &item.base, reporter);
        if let OverrideAction::Exclude { min, max } = &item.action {
            if !(min.x < max.x && min.y < max.y) {
                reporter.error(
                    file,
                    at.clone().field("action"),
                    "the exclusion rectangle is empty".to_owned(),
                    "`min` below `max` on both axes",
                );
            }
            if item.target != 0 {
                reporter.error(
                    file,
                    at.field("target"),
                    format!("an exclusion has no target, but names {}", item.target),
                    "target: 0",
                );
            }
        }
    }
    for (index, item) in set.mutations.iter().enumerate() {
        let at = FieldPath::root().field("mutations").index(index);
        if item.base.is_empty() {
            warn_no_base(file, at.clone().field("base"), item.target, reporter);
        }
        check_base_revision(file, at.clone().field("base"), &item.base, reporter);
        if !item.harvested && item.ordinal == 0 {
            reporter.error(
                file,
                at.field("harvested"),
                "a mutation that is neither harvested nor regrown changes nothing".to_owned(),
                "harvested: true, or a regrow ordinal of at least 1",
            );
        }
    }
}

/// A base revision is 16 lowercase hex digits, or empty.
fn check_base_revision(file: &str, at: FieldPath, base: &str, reporter: &mut Reporter<'_>) {
    let is_base = base.is_empty()
        || (base.len() == 16
            && base
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    if !is_base {
        reporter.error(
            file,
            at,
            format!("base revision {base:?} is not 16 lowercase hex digits"),
            "the target's base revision as `stagecraft rebase` prints it, or \"\"",
        );
    }
}
