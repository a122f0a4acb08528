//! Why an authoring action makes no edit: one reason per refusal, in words for the Viewport and
//! the Provenance tab.

/// Why an authoring action makes no edit.
#[derive(Clone, Debug, PartialEq)]
pub enum AuthoringRefusal {
    /// Nothing generated is shown yet.
    NoContent,
    /// The stage is not a scatter stage (only placements can be overridden).
    UnsupportedStage {
        /// The stage.
        stage: u32,
    },
    /// The stage's family is not among the project's families.
    NoFamily {
        /// The family id.
        family: String,
    },
    /// The object has no rotation and scale (no select-and-place stage placed it).
    NoTransform,
    /// The base draws of the target are exhausted, so it has no base revision.
    NoBase,
    /// The recipe's set is bound to another seed; its edits would not apply until a rebase.
    SetNotBound {
        /// The set.
        set: String,
        /// The seed it is bound to, in words.
        bound: String,
        /// The content's seed.
        seed: u64,
    },
    /// The variant id is not one of the family's.
    UnknownVariant {
        /// The id given.
        variant: String,
    },
    /// The object already has this variant.
    SameVariant {
        /// Its variant.
        variant: String,
    },
    /// A position is not a finite ground point.
    NotOnGround,
    /// The position lies outside every layer's region.
    OutsideRegion {
        /// Position, meters.
        x_m: f64,
        /// Position, meters.
        y_m: f64,
    },
    /// The position lies inside a keep-out (or an exclusion).
    InsideKeepOut {
        /// Position, meters.
        x_m: f64,
        /// Position, meters.
        y_m: f64,
        /// Index in the layer's keep-outs (authored, then exclusions).
        keep_out: usize,
    },
    /// Every authored candidate index of the cell is taken (or the cell does not fit an identity).
    NoFreeIdentity,
    /// The rectangle is empty once snapped to the lattice.
    EmptyRectangle,
    /// The object is already deleted by an override of the set.
    AlreadyDeleted {
        /// The set.
        set: String,
    },
    /// A regrow of a placement that is not harvested.
    NotHarvested,
    /// A regrow whose ordinal would pass `u32::MAX`; the placement stays harvested.
    OrdinalExhausted,
}

impl std::fmt::Display for AuthoringRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthoringRefusal::NoContent => write!(f, "nothing is generated yet"),
            AuthoringRefusal::UnsupportedStage { stage } => write!(f, "stage {stage} is not a scatter stage; only placements can be overridden"),
            AuthoringRefusal::NoFamily { family } => write!(f, "the asset family `{family}` is not loaded"),
            AuthoringRefusal::NoTransform => write!(f, "the object has no transform to lock (no select-and-place stage placed it)"),
            AuthoringRefusal::NoBase => write!(f, "the target has no generated base"),
            AuthoringRefusal::SetNotBound { set, bound, seed } => write!(f, "override set `{set}` is bound to {bound}, the content to seed {seed}: rebase it first"),
            AuthoringRefusal::UnknownVariant { variant } => write!(f, "the family has no variant `{variant}`"),
            AuthoringRefusal::SameVariant { variant } => write!(f, "the object already is `{variant}`"),
            AuthoringRefusal::NotOnGround => write!(f, "the pointer is not over the ground"),
            AuthoringRefusal::OutsideRegion { x_m, y_m } => write!(f, "({x_m:.2}, {y_m:.2}) m is outside the layer's region"),
            AuthoringRefusal::InsideKeepOut { x_m, y_m, keep_out } => write!(f, "({x_m:.2}, {y_m:.2}) m is inside keep-out {keep_out}"),
            AuthoringRefusal::NoFreeIdentity => write!(f, "no free identity for an authored object in this cell"),
            AuthoringRefusal::EmptyRectangle => write!(f, "the rectangle is empty"),
            AuthoringRefusal::AlreadyDeleted { set } => write!(f, "the object is already deleted by {set}"),
            AuthoringRefusal::NotHarvested => write!(f, "the placement is not harvested"),
            AuthoringRefusal::OrdinalExhausted => write!(f, "the regrow ordinal would pass {}; the placement stays harvested", u32::MAX),
        }
    }
}

impl std::error::Error for AuthoringRefusal {}
