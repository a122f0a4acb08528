//! The typed schema of every project document, with its decoding and canonical encoding.

pub mod chunk_library;
pub mod common;
pub mod directive_table;
pub mod document_fields;
pub mod family;
pub mod fields;
pub mod manifest;
pub mod motion;
pub mod motion_settings;
pub mod overrides;
pub mod recipe;
pub mod scenario;
pub mod scenario_fields;
pub mod tier_policies;

pub use common::{Box3, ParamValue, Rgb, Vec2, Vec3};
pub use directive_table::{directive_schema, DirectiveSchema, DirectiveTargets, DIRECTIVE_SCHEMA};
pub use document_fields::{DOCUMENT_SCHEMAS, MOTION_DOCUMENT};
pub use family::{AssetFamily, AssetVariant, PreviewShape, FAMILY_SCHEMA};
pub use fields::{
    DocumentSchema, FieldDefault, FieldSchema, SectionSchema, FINITE, POSITIVE, UNIT_INTERVAL,
};
pub use manifest::{Manifest, MANIFEST_SCHEMA};
pub use motion::{Clip, MotionProfileDoc, MOTION_SCHEMA};
pub use overrides::{
    action_schema, ActionField, ActionSchema, Mutation, Override, OverrideAction, OverrideSet,
    ACTION_SCHEMA, OVERRIDES_SCHEMA,
};
pub use recipe::{Recipe, RecipeInput, Stage, StageInput, RECIPE_SCHEMA};
pub use scenario::{
    AimKey, AttachFaultSpec, Barrier, CrossingsSettings, Directive, DirectiveCommand, ExitNode,
    HazardVehicle, Keyframe, MotionSettings, NumberRange, Observer, PopulationKind,
    PopulationSettings, PopulationSource, RouteEnd, Scenario, SceneObject, Target, VehicleRelation,
    VehicleSource, BATCH_SIZE_RANGE, CYCLES_PER_FRAME_RANGE, DEFAULT_DIRECTIVE_SOURCE,
    DEFAULT_DURATION_FRAMES, DEFAULT_FIXED_STEP_S, DEFAULT_FORCED_INIT_S,
    DEFAULT_OBSTACLE_THICKNESS_M, DEFAULT_SPECIAL_REMOVAL_SCALE, DURATION_FRAMES_RANGE,
    FRAME_RATE_RANGE, MAX_BATCH_SIZE, MAX_DURATION_FRAMES, MAX_FIXED_STEP_S, SCENARIO_SCHEMA,
    UNIT_SCALE,
};
pub use scenario_fields::{
    scenario_field, scenario_section, DIRECTIVE_DURATION_RANGE, REMOVAL_SCALE_RANGE,
    SCENARIO_DOCUMENT, SCENARIO_SECTIONS, SPAWN_RANGE_M,
};
pub use tier_policies::{
    default_tier_policy, tier_policy, tier_policy_names, TierPreset, TierValues,
    DEFAULT_TIER_POLICY, TIER_POLICIES,
};
