//! The typed schema of every project document, with its decoding and canonical encoding.

pub mod common;
pub mod family;
pub mod manifest;
pub mod overrides;
pub mod recipe;
pub mod scenario;

pub use common::{Box3, ParamValue, Rgb, Vec2, Vec3};
pub use family::{AssetFamily, AssetVariant, PreviewShape, FAMILY_SCHEMA};
pub use manifest::{Manifest, MANIFEST_SCHEMA};
pub use overrides::{
    action_schema, ActionField, ActionSchema, Mutation, Override, OverrideAction, OverrideSet,
    ACTION_SCHEMA, OVERRIDES_SCHEMA,
};
pub use recipe::{Recipe, RecipeInput, Stage, StageInput, RECIPE_SCHEMA};
pub use scenario::{
    AimKey, AttachFaultSpec, Barrier, CrossingsSettings, Directive, DirectiveCommand, ExitNode,
    HazardVehicle, Keyframe, MotionSettings, NumberRange, Observer, PopulationKind,
    PopulationSettings, PopulationSource, RouteEnd, Scenario, SceneObject, Target, VehicleRelation,
    VehicleSource, BATCH_SIZE_RANGE, CYCLES_PER_FRAME_RANGE, DEFAULT_DURATION_FRAMES,
    DEFAULT_FIXED_STEP_S, DEFAULT_FORCED_INIT_S, DEFAULT_OBSTACLE_THICKNESS_M,
    DURATION_FRAMES_RANGE, FRAME_RATE_RANGE, MAX_BATCH_SIZE, MAX_DURATION_FRAMES, MAX_FIXED_STEP_S,
    SCENARIO_RANGES, SCENARIO_SCHEMA, UNIT_SCALE,
};
