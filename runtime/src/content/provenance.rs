//! Provenance: for every generated object, what made it — parent, asset variant, the random draws it
//! used and the constraints it passed — and for every rejected candidate, why it was rejected.
//!
//! Records are never needed to reproduce a product (the product digests do not include them), and
//! reading them never advances a random stream: each draw carries its full address. Operators with
//! few objects store their records; those with many (scatter, select-and-place) store only a
//! [`Derivation`] — the seed and the few numbers their draws were bounded by — and the record of one
//! object or rejected candidate is derived when asked, by re-evaluating its addressed draws
//! (`GeneratedBundle::provenance`, `StageRecord::object_provenance`). Deriving is deterministic and
//! never advances a stream, so a derived record equals the one an eager run would have stored.

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
    /// The whole HLOD donut, before pruning, fits the budget (fails when cells were pruned).
    HlodDemandWithinBudget {
        /// Megabytes the unpruned donut needs.
        requested_mb: u64,
        /// The budget in megabytes.
        budget_mb: u64,
    },
    /// An assembly module's variant fits the socket type of its slot.
    SocketFits {
        /// The slot of the frame.
        slot: u32,
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

/// How the records of a stage that does not store them are derived from its product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derivation {
    /// `environment.scatter`: offsets, priority and variant re-drawn at each candidate's address.
    Scatter {
        /// The root seed the domain keys were derived from.
        seed: u64,
        /// The family's total variant weight (the bound of the variant draw).
        total_weight: u32,
    },
    /// `environment.select-and-place`: rotation re-drawn at each object's address, scale read off
    /// the object.
    SelectPlace {
        /// The root seed the transform key was derived from.
        seed: u64,
        /// The bottom of the scale range (the scale draw is the offset above it).
        scale_min: u32,
        /// The scatter stage whose placements are the objects' parents.
        placements_stage: u32,
    },
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
    /// How records that are not stored above are derived on demand, if they are.
    pub derived: Option<Derivation>,
    /// What became of each author override and world mutation naming the stage, in precedence
    /// order (empty when none names it).
    pub edits: Vec<crate::overrides::EditOutcome>,
    /// The digest of the edits the stage applied (`None` when none names it); part of the
    /// bundle digest.
    pub edits_digest: Option<[u8; 32]>,
    /// What re-drawing the stage's candidates needs, for stages that edits name (rebase).
    pub edit_base: Option<crate::overrides::StageBase>,
    /// For a subrecipe stage: the child's run (instance, recipe path, its stages).
    pub nested: Option<std::sync::Arc<crate::content::NestedRun>>,
}

impl StageProvenance {
    /// The outcomes of the edits naming object `target` of the stage.
    pub fn edits_of(&self, target: u64) -> impl Iterator<Item = &crate::overrides::EditOutcome> {
        self.edits.iter().filter(move |e| e.target == target)
    }
}

impl StageProvenance {
    /// The stored record of the object with key `key`, if the stage stored one (see
    /// [`StageProvenance::derived`] for stages that derive them).
    pub fn object(&self, key: &ChildKey) -> Option<&ObjectProvenance> {
        self.objects.iter().find(|object| &object.key == key)
    }

    /// The stored record of the rejected candidate with key `key`, if the stage stored one.
    pub fn rejection(&self, key: &ChildKey) -> Option<&RejectionProvenance> {
        self.rejected.iter().find(|rejected| &rejected.key == key)
    }
}
