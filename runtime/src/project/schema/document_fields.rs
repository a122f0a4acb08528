//! Field schemas of the manifest, recipe, override set and asset family documents (the
//! scenario's are in `scenario_fields`): what `stagecraft schema` prints for every document.

use super::family::FAMILY_SCHEMA;
use super::fields::{DocumentSchema, FieldDefault as D, FieldSchema, SectionSchema, POSITIVE};
use super::manifest::MANIFEST_SCHEMA;
use super::motion::MOTION_SCHEMA;
use super::overrides::OVERRIDES_SCHEMA;
use super::recipe::RECIPE_SCHEMA;
use super::scenario::NumberRange;

const fn f(
    name: &'static str,
    label: &'static str,
    ty: &'static str,
    unit: &'static str,
    rule: &'static str,
    default: D,
    help: &'static str,
) -> FieldSchema {
    FieldSchema {
        name,
        label,
        ty,
        unit,
        range: None,
        rule,
        default,
        help,
    }
}

const U32: &str = "integer (u32)";
const U64: &str = "integer (u64)";
const HEX: &str = "16 lowercase hex digits, or `\"\"`";

const MANIFEST_FIELDS: [FieldSchema; 6] = [
    f(
        "name",
        "Name",
        "string",
        "",
        "non-empty",
        D::Required,
        "display name of the project",
    ),
    f(
        "root_seed",
        "Root seed",
        U64,
        "",
        "",
        D::Required,
        "root seed of every generation and simulation",
    ),
    f(
        "asset_paths",
        "Asset paths",
        "list of strings",
        "",
        "relative folders inside the project or its repository",
        D::Text("[]"),
        "folders holding asset families (`*.family.ron`)",
    ),
    f(
        "recipes",
        "Recipes",
        "list of ids",
        "",
        "each unique, each with its file",
        D::Text("[]"),
        "`recipes/<id>.recipe.ron`",
    ),
    f(
        "scenarios",
        "Scenarios",
        "list of ids",
        "",
        "each unique, each with its file",
        D::Text("[]"),
        "`scenarios/<id>.scenario.ron`",
    ),
    f(
        "overrides",
        "Overrides",
        "list of ids",
        "",
        "each unique, each with its file",
        D::Text("[]"),
        "`overrides/<id>.overrides.ron`",
    ),
];

const RECIPE_FIELDS: [FieldSchema; 6] = [
    f(
        "id",
        "Id",
        "id",
        "",
        "the file's name",
        D::Required,
        "persistent recipe id",
    ),
    f(
        "label",
        "Label",
        "string",
        "",
        "",
        D::Text("\"\""),
        "display label",
    ),
    f(
        "address_schema",
        "Address schema",
        U32,
        "",
        "1",
        D::Required,
        "the random-address layout version",
    ),
    f(
        "inputs",
        "Inputs",
        "map of name → `Family(\"id\")`, `Value(…)` or `Product(\"kind\")` (a subrecipe input)",
        "",
        "",
        D::Text("{}"),
        "named recipe inputs stages can read",
    ),
    f(
        "stages",
        "Stages",
        "list of `Stage(…)`",
        "",
        "at most 128 stages; no cycles",
        D::Required,
        "the generation graph",
    ),
    f(
        "outputs",
        "Outputs",
        "list of stage ids",
        "",
        "at least one, each an existing stage",
        D::Required,
        "the stages whose products the recipe publishes",
    ),
];

const STAGE_FIELDS: [FieldSchema; 6] = [
    f(
        "id",
        "Id",
        U32,
        "",
        "unique in the recipe",
        D::Required,
        "persistent stage id, kept across reordering",
    ),
    f(
        "label",
        "Label",
        "string",
        "",
        "",
        D::Text("\"\""),
        "display label",
    ),
    f(
        "operator",
        "Operator",
        "string",
        "",
        "a registered operator",
        D::Required,
        "what the stage runs",
    ),
    f(
        "algorithm",
        "Algorithm",
        U32,
        "",
        "≥ 1, the operator's version",
        D::Required,
        "algorithm version of the operator",
    ),
    f(
        "inputs",
        "Inputs",
        "list of stage ids or recipe input names",
        "",
        "bound to the operator's input ports in order",
        D::Text("[]"),
        "where the stage's inputs come from",
    ),
    f(
        "parameters",
        "Parameters",
        "map of name → value",
        "",
        "the operator's parameter schema (`stagecraft ops`)",
        D::Text("{}"),
        "operator parameters; absent ones take the schema's default",
    ),
];

const OVERRIDE_SET_FIELDS: [FieldSchema; 6] = [
    f(
        "id",
        "Id",
        "id",
        "",
        "the file's name",
        D::Required,
        "persistent override set id",
    ),
    f(
        "recipe",
        "Recipe",
        "id",
        "",
        "a recipe of the project",
        D::Required,
        "the recipe instance the overrides edit",
    ),
    f(
        "base_seed",
        "Base seed",
        "`None` or `Some(u64)`",
        "",
        "",
        D::Text("None"),
        "the root seed the set was authored or last rebased against",
    ),
    f(
        "base_revision",
        "Base revision",
        "string",
        "",
        "",
        D::Text("\"\""),
        "digest of the generated base at the last rebase",
    ),
    f(
        "overrides",
        "Overrides",
        "list of `Override(…)`",
        "",
        "",
        D::Text("[]"),
        "the overrides, in authored order",
    ),
    f(
        "mutations",
        "Mutations",
        "list of `Mutation(…)`",
        "",
        "",
        D::Text("[]"),
        "world mutations (harvest, regrow), applied after every override",
    ),
];

const OVERRIDE_FIELDS: [FieldSchema; 6] = [
    f(
        "stage",
        "Stage",
        U32,
        "",
        "a scatter stage of the recipe",
        D::Required,
        "the stage that emitted the target",
    ),
    f(
        "target",
        "Target",
        U64,
        "",
        "a packed scatter identity",
        D::Required,
        "the target's persistent identity (`0` for `Exclude`)",
    ),
    f(
        "precedence",
        "Precedence",
        U32,
        "",
        "",
        D::Number(0.0),
        "higher wins when two overrides of one target touch the same property",
    ),
    f(
        "base",
        "Base",
        "string",
        "",
        HEX,
        D::Text("\"\""),
        "the target's expected base revision",
    ),
    f(
        "action",
        "Action",
        "an action",
        "",
        "one of the override actions (`ACTION_SCHEMA`)",
        D::Required,
        "what the override does",
    ),
    f(
        "nested",
        "Nested",
        "list of stage ids",
        "",
        "stage ids of the child runs below `stage`, a subrecipe stage",
        D::Text("[]"),
        "for an object of a subrecipe stage's child run: the stage ids from the child of `stage` down to the stage that emitted the target; empty for the recipe's own stages",
    ),
];

const MUTATION_FIELDS: [FieldSchema; 6] = [
    f(
        "stage",
        "Stage",
        U32,
        "",
        "a scatter stage of the recipe",
        D::Required,
        "the stage that emitted the placement",
    ),
    f(
        "target",
        "Target",
        U64,
        "",
        "a packed scatter identity",
        D::Required,
        "the placement; the tombstone's key",
    ),
    f(
        "base",
        "Base",
        "string",
        "",
        HEX,
        D::Text("\"\""),
        "the placement's expected base revision",
    ),
    f(
        "harvested",
        "Harvested",
        "bool",
        "",
        "",
        D::Required,
        "whether it is harvested now",
    ),
    f(
        "ordinal",
        "Ordinal",
        U32,
        "",
        "",
        D::Number(0.0),
        "the ordinal of the last committed regrow",
    ),
    f(
        "nested",
        "Nested",
        "list of stage ids",
        "",
        "stage ids of the child runs below `stage`, a subrecipe stage",
        D::Text("[]"),
        "for a placement of a subrecipe stage's child run: the stage ids from the child of `stage` down to the scatter stage that emitted it; empty for the recipe's own stages",
    ),
];

const FAMILY_FIELDS: [FieldSchema; 3] = [
    f(
        "id",
        "Id",
        "id",
        "",
        "the file's name",
        D::Required,
        "persistent family id",
    ),
    f(
        "name",
        "Name",
        "string",
        "",
        "",
        D::Text("\"\""),
        "display name",
    ),
    f(
        "variants",
        "Variants",
        "list of `Variant(…)`",
        "",
        "at least one",
        D::Required,
        "what a placement of the family can be",
    ),
];

const VARIANT_FIELDS: [FieldSchema; 8] = [
    f(
        "id",
        "Id",
        "id",
        "",
        "unique in the family",
        D::Required,
        "persistent variant id",
    ),
    f(
        "weight",
        "Weight",
        U32,
        "",
        "≥ 1",
        D::Number(1.0),
        "relative selection weight",
    ),
    f(
        "exclusion_radius",
        "Exclusion radius",
        "integer (i64)",
        "lattice units",
        "≥ 0, at most the scatter layer's `cell_size`",
        D::Required,
        "no other placement's centre within this radius",
    ),
    f(
        "collision_radius_m",
        "Collision radius",
        "float",
        "m",
        "≥ 0",
        D::Required,
        "collision radius (static blocker for pedestrians)",
    ),
    f(
        "height_m",
        "Height",
        "float",
        "m",
        "≥ 0",
        D::Required,
        "height",
    ),
    f(
        "shape",
        "Shape",
        "`Cone`, `Box` or `Cylinder`",
        "",
        "",
        D::Text("Box"),
        "preview shape in the viewport",
    ),
    f(
        "colour",
        "Colour",
        "(r, g, b)",
        "",
        "each 0..=255",
        D::Text("(160, 160, 160)"),
        "preview colour in the viewport",
    ),
    f(
        "sockets",
        "Sockets",
        "list of socket type ids",
        "",
        "written only when non-empty",
        D::Text("[]"),
        "socket types the variant fits as a module of an `assembly` stage",
    ),
];

const M_S: &str = "m/s";
const DEG: &str = "°";

/// Degrees from 0 to a half turn.
pub const HALF_TURN_DEG: NumberRange = NumberRange {
    min: 0.0,
    min_open: false,
    max: 180.0,
    text: "0..=180",
};

/// [`f`] with the range the loader checks (`MotionProfileDoc::problems` reads it).
#[allow(clippy::too_many_arguments)]
const fn ranged(
    range: NumberRange,
    name: &'static str,
    label: &'static str,
    ty: &'static str,
    unit: &'static str,
    rule: &'static str,
    default: D,
    help: &'static str,
) -> FieldSchema {
    FieldSchema {
        range: Some(range),
        ..f(name, label, ty, unit, rule, default, help)
    }
}

const MOTION_FIELDS: [FieldSchema; 11] = [
    f(
        "id",
        "Id",
        "id",
        "",
        "the file's name",
        D::Required,
        "persistent profile id; tasks pick a profile by it (`walking`, `running` replace the standard ones)",
    ),
    ranged(
        POSITIVE,
        "reference_speed_m_s",
        "Reference speed",
        "float",
        M_S,
        "",
        D::Required,
        "the speed the clips were authored at; play rate = speed / this, clamped to 0.1..=2.5",
    ),
    ranged(
        POSITIVE,
        "speed_m_s",
        "Speed",
        "float",
        M_S,
        "",
        D::Required,
        "the speed a task walks at with this profile; the step budget is speed × dt",
    ),
    ranged(
        HALF_TURN_DEG,
        "turn_clip_above_deg",
        "Turn clip above",
        "float",
        DEG,
        "",
        D::Number(60.0),
        "a heading change beyond this plays the turn clip (rotation only)",
    ),
    ranged(
        POSITIVE,
        "turn_rate_deg_s",
        "Turn rate",
        "float",
        "°/s",
        "",
        D::Number(360.0),
        "smaller turns turn at most this fast",
    ),
    ranged(
        HALF_TURN_DEG,
        "align_deg",
        "Alignment",
        "float",
        DEG,
        "",
        D::Number(45.0),
        "a step still misaligned beyond this after turning only rotates",
    ),
    ranged(
        POSITIVE,
        "turn_angle_deg",
        "Turn clip angle",
        "float",
        DEG,
        "",
        D::Number(180.0),
        "the turn the turn clip was authored for (progress is scaled to the actual difference)",
    ),
    f(
        "start",
        "Start clip",
        "`Clip(…)`",
        "m",
        "",
        D::Required,
        "root distance of the start clip from its first frame",
    ),
    f(
        "cycle",
        "Loop clip",
        "`Clip(…)`",
        "m",
        "",
        D::Required,
        "the loop clip; its duration is the cycle, advanced by accepted distance / reference speed",
    ),
    f(
        "stop",
        "Stop clip",
        "`Clip(…)`",
        "m",
        "",
        D::Required,
        "the stop clip; its whole distance is the goal-stop range, its tail (remaining ≤ 1 mm) the command-stop pose",
    ),
    f(
        "turn",
        "Turn clip",
        "`Clip(…)`",
        "",
        "",
        D::Required,
        "accumulated turn, normalized by its last sample",
    ),
];

const CLIP_FIELDS: [FieldSchema; 2] = [
    ranged(
        POSITIVE,
        "duration_s",
        "Duration",
        "float",
        "s",
        "",
        D::Required,
        "the clip's length",
    ),
    f(
        "samples",
        "Samples",
        "list of floats",
        "",
        "exactly 121, finite",
        D::Required,
        "the curve at i × duration / 120; made monotone by a running maximum when loaded",
    ),
];

const fn section(
    name: &'static str,
    path: &'static str,
    help: &'static str,
    fields: &'static [FieldSchema],
) -> SectionSchema {
    SectionSchema {
        name,
        path,
        label: name,
        help,
        fields,
    }
}

const MANIFEST_SECTIONS: [SectionSchema; 1] = [section(
    "Manifest",
    "",
    "`stagecraft.ron`",
    &MANIFEST_FIELDS,
)];
const RECIPE_SECTIONS: [SectionSchema; 2] = [
    section("Recipe", "", "`recipes/<id>.recipe.ron`", &RECIPE_FIELDS),
    section(
        "Stage",
        "stages[…]",
        "one entry of a recipe's `stages`",
        &STAGE_FIELDS,
    ),
];
const OVERRIDE_SECTIONS: [SectionSchema; 3] = [
    section(
        "OverrideSet",
        "",
        "`overrides/<id>.overrides.ron`",
        &OVERRIDE_SET_FIELDS,
    ),
    section(
        "Override",
        "overrides[…]",
        "one entry of an override set",
        &OVERRIDE_FIELDS,
    ),
    section(
        "Mutation",
        "mutations[…]",
        "one entry of a set's `mutations`",
        &MUTATION_FIELDS,
    ),
];
const FAMILY_SECTIONS: [SectionSchema; 2] = [
    section(
        "AssetFamily",
        "",
        "`<asset path>/<id>.family.ron`",
        &FAMILY_FIELDS,
    ),
    section(
        "Variant",
        "variants[…]",
        "one entry of a family's `variants`",
        &VARIANT_FIELDS,
    ),
];

const MOTION_SECTIONS: [SectionSchema; 2] = [
    section(
        "MotionProfile",
        "",
        "`<asset path>/<id>.motion.ron`",
        &MOTION_FIELDS,
    ),
    section(
        "Clip",
        "start, cycle, stop, turn",
        "one clip of a motion profile as a sampled curve",
        &CLIP_FIELDS,
    ),
];

/// The motion profile document (`docs/format.md` has its tables as generated).
pub const MOTION_DOCUMENT: DocumentSchema = DocumentSchema {
    kind: "motion",
    file: "<asset path>/<id>.motion.ron",
    version: MOTION_SCHEMA,
    sections: &MOTION_SECTIONS,
};

/// Every document kind with its sections: manifest, recipe, scenario, override set, family,
/// motion profile.
pub const DOCUMENT_SCHEMAS: &[DocumentSchema] = &[
    DocumentSchema {
        kind: "manifest",
        file: "stagecraft.ron",
        version: MANIFEST_SCHEMA,
        sections: &MANIFEST_SECTIONS,
    },
    DocumentSchema {
        kind: "recipe",
        file: "recipes/<id>.recipe.ron",
        version: RECIPE_SCHEMA,
        sections: &RECIPE_SECTIONS,
    },
    super::scenario_fields::SCENARIO_DOCUMENT,
    DocumentSchema {
        kind: "overrides",
        file: "overrides/<id>.overrides.ron",
        version: OVERRIDES_SCHEMA,
        sections: &OVERRIDE_SECTIONS,
    },
    DocumentSchema {
        kind: "family",
        file: "<asset path>/<id>.family.ron",
        version: FAMILY_SCHEMA,
        sections: &FAMILY_SECTIONS,
    },
    MOTION_DOCUMENT,
];
