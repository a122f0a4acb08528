//! Provenance: for every generated object, what made it — parent, asset variant, the random draws it
//! used and the constraints it passed — and for every rejected candidate, why it was rejected.
//!
//! Records are plain data built by the operators while they run. They are never needed to
//! reproduce a product (the product digests do not include them), and reading them never advances
//! a random stream: each draw is recorded with its full address, so an inspector can recompute it.

use crate::content::RejectReason;
use crate::identity::ChildKey;
use crate::rng::Domain;

/// One random draw an object used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawRecord {
    /// The domain drawn from.
    pub domain: Domain,
    /// The seed the domain key was derived from (the root seed, or a solver's attempt seed).
    pub seed: u64,
    /// Address scope.
    pub scope: u64,
    /// Address event.
    pub event: u32,
    /// Address dimension.
    pub dimension: u16,
    /// The value the draw produced (bounded draws: the bounded value; raw draws: the word).
    pub value: u32,
    /// What the draw decided.
    pub purpose: DrawPurpose,
}

/// What a draw decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DrawPurpose {
    /// Scatter x offset within the cell.
    OffsetX,
    /// Scatter y offset within the cell.
    OffsetY,
    /// Scatter thinning priority.
    Priority,
    /// Variant choice (the bounded draw below the total weight).
    Variant,
    /// Rotation word (its high 16 bits are the rotation).
    Rotation,
    /// Scale offset above the minimum.
    Scale,
    /// The choice of a chunk among the library's chunks for a cell's role.
    Chunk,
}

impl DrawPurpose {
    /// The purpose's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            DrawPurpose::OffsetX => "offset-x",
            DrawPurpose::OffsetY => "offset-y",
            DrawPurpose::Priority => "priority",
            DrawPurpose::Variant => "variant",
            DrawPurpose::Rotation => "rotation",
            DrawPurpose::Scale => "scale",
            DrawPurpose::Chunk => "chunk",
        }
    }
}

/// A constraint an object (or a whole product) was checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Constraint {
    /// The position lies inside the layer's region.
    InsideRegion,
    /// The position lies outside every keep-out (`count` were checked).
    OutsideKeepOuts {
        /// Keep-outs checked.
        count: u32,
    },
    /// No conflicting eligible candidate has a higher (priority, packed id).
    NoStrongerConflict,
    /// The scale lies in the stage's range.
    ScaleInRange,
    /// The pedestrian space is one connected network.
    SpaceConnected,
    /// Every crosswalk has two sides on two sidewalks (`count` crosswalks).
    CrosswalksHaveTwoSides {
        /// Crosswalks checked.
        count: u32,
    },
    /// Spawn → objectives → extraction are reachable (BFS proof).
    Playable,
    /// Enough cells admit NPCs.
    NpcPlacement {
        /// The minimum required.
        minimum: u32,
    },
    /// The HLOD set fits its memory budget.
    WithinBudget {
        /// The budget in megabytes.
        budget_mb: u64,
    },
}

/// The result of checking one constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstraintCheck {
    /// The constraint.
    pub constraint: Constraint,
    /// Whether it passed.
    pub passed: bool,
}

impl ConstraintCheck {
    /// A constraint that passed.
    pub const fn passed(constraint: Constraint) -> ConstraintCheck {
        ConstraintCheck {
            constraint,
            passed: true,
        }
    }
}

/// The object another object was generated under: its emitting stage and key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParentRef {
    /// The parent's emitting stage.
    pub stage: u32,
    /// The parent's key within that stage.
    pub key: ChildKey,
}

/// The provenance of one generated object.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectProvenance {
    /// The object's key within its emitting stage (the identity tuple's last part).
    pub key: ChildKey,
    /// The object it was generated under, if any.
    pub parent: Option<ParentRef>,
    /// Index of the chosen variant in the stage's asset family, for objects that have one.
    pub variant: Option<u32>,
    /// The draws it used, in the order they were made.
    pub draws: Vec<DrawRecord>,
    /// The constraints it was checked against.
    pub constraints: Vec<ConstraintCheck>,
}

/// The provenance of one rejected candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectionProvenance {
    /// The candidate's key.
    pub key: ChildKey,
    /// Why it was rejected.
    pub reason: RejectReason,
    /// The draws it used before it was rejected.
    pub draws: Vec<DrawRecord>,
}

/// The provenance of everything one stage produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StageProvenance {
    /// The asset family the stage drew variants from, if any.
    pub family: Option<String>,
    /// Constraints checked on the product as a whole.
    pub constraints: Vec<ConstraintCheck>,
    /// One record per generated object, in the product's object order.
    pub objects: Vec<ObjectProvenance>,
    /// One record per rejected candidate, in the product's order.
    pub rejected: Vec<RejectionProvenance>,
}

impl StageProvenance {
    /// The record of the object with key `key`, if the stage produced it.
    pub fn object(&self, key: &ChildKey) -> Option<&ObjectProvenance> {
        self.objects.iter().find(|object| &object.key == key)
    }

    /// The record of the rejected candidate with key `key`, if the stage rejected it.
    pub fn rejection(&self, key: &ChildKey) -> Option<&RejectionProvenance> {
        self.rejected.iter().find(|rejected| &rejected.key == key)
    }
}
