//! Author overrides and world mutations: which edits reach which stage, how they are applied in
//! the fixed precedence (generated base < author overrides < saved world mutations), the conflicts
//! they report, and rebase after a seed, parameter or family change.
//!
//! An [`Overrides`] holds the override sets of one recipe. The executor asks it, per stage, for the
//! [`StageEdits`] naming that stage (sets in id order, each in authored order, mutations after every
//! override); their digest enters the stage's cache key, so editing an override regenerates exactly
//! the stages it touches, and the bundle digest. A set whose `base_seed` is not the generation's seed
//! applies nothing: each of its edits is reported as [`ConflictReason::SeedNotBound`] until an
//! explicit rebase ([`rebase`]) binds it.
//!
//! An override or a world mutation with a `nested` path names an object of a subrecipe stage's
//! child run (its nested identity: the child instance's stage and key). The subrecipe stage's cache key holds every
//! edit below it ([`Overrides::for_subtree`]); its child run sees them through
//! [`Overrides::child`], a view in which each reaches the child stage its path ends at and is
//! applied there exactly like an edit of the recipe's own stage of that operator (bound, or not,
//! by the root seed). Their outcomes come back up to the subrecipe stage
//! (`stage::subrecipe_edits`), so one that stops applying is reported like any other.

pub mod apply;
pub mod assembly;
pub mod base;
pub mod diagnose;
mod materialize;
pub mod mutation;
pub mod rebase;
pub mod rebase_nested;
mod rethin;
pub mod stage;

#[cfg(test)]
mod nested_tests;
#[cfg(test)]
mod tests;

use crate::content::encode::ByteWriter;
use crate::project::schema::{Mutation, Override, OverrideAction, OverrideSet};

pub use apply::{apply_placed, apply_scatter, exclusions_lattice};
pub use base::{CandidateBase, StageBase};
pub use mutation::{harvest, regrow, regrow_variant, MutationSite, RegrowError};
pub use rebase::{
    rebase, rebase_report, Decision, RebaseEntry, RebaseError, RebaseReport, Standing,
};

/// Which list of its set an edit is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EditList {
    /// `overrides`.
    Override,
    /// `mutations`.
    Mutation,
}

/// Where one edit is written: its set, its list and its index there.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EditRef {
    /// The override set id.
    pub set: String,
    /// Which list.
    pub list: EditList,
    /// Index in that list.
    pub index: usize,
}

impl std::fmt::Display for EditRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = match self.list {
            EditList::Override => "overrides",
            EditList::Mutation => "mutations",
        };
        write!(f, "{}:{list}[{}]", self.set, self.index)
    }
}

/// Why an edit was not applied. It is never applied to another object instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConflictReason {
    /// The set is bound to another seed (or to none): a seed change needs an explicit rebase.
    SeedNotBound {
        /// The seed the set was authored against.
        base_seed: Option<u64>,
        /// The seed of this generation.
        seed: u64,
    },
    /// The target is not a candidate of the stage any more (or, for a delete or a mutation, not
    /// a placement of the result): the edit is orphaned.
    TargetGone,
    /// The target's base revision is not the one the edit expects.
    BaseRevisionMismatch {
        /// What the edit expects.
        expected: String,
        /// What the base is now.
        found: String,
    },
    /// The object would lie outside its layer's region (a hard constraint).
    OutsideRegion,
    /// The object would lie inside a keep-out or an exclusion (a hard constraint).
    InsideKeepOut {
        /// Index in the layer's keep-outs (authored, then exclusions, then upstream ones).
        keep_out: u32,
    },
    /// The object would overlap a stronger locked, moved or added object.
    OverlapsOccupant {
        /// The stronger object.
        with: u64,
    },
    /// Another edit of higher precedence (or, at equal precedence, later) touches the same
    /// property of the same target.
    Superseded {
        /// The winning edit.
        by: EditRef,
    },
    /// The variant id is not one of the family's.
    UnknownVariant {
        /// The id given.
        variant: String,
    },
    /// An added object's identity is not in the authored space (candidate indices 128..=255, which
    /// the generator never emits), or is not of a layer of the stage.
    IdentityCollision,
    /// The stage is not a scatter stage; only placements can be overridden.
    UnsupportedStage,
    /// A position or rectangle is not representable in the stage's lattice units.
    Unrepresentable,
    /// The regrow variant draw exhausted its attempts; the placement stays harvested.
    RegrowFailed,
    /// The chosen module does not fit the socket type of the assembly slot.
    SocketMismatch {
        /// The slot's socket type.
        socket: String,
    },
}

impl ConflictReason {
    /// The reason's stable name.
    pub fn name(&self) -> &'static str {
        match self {
            ConflictReason::SeedNotBound { .. } => "seed-not-bound",
            ConflictReason::TargetGone => "target-gone",
            ConflictReason::BaseRevisionMismatch { .. } => "base-revision-mismatch",
            ConflictReason::OutsideRegion => "outside-region",
            ConflictReason::InsideKeepOut { .. } => "inside-keep-out",
            ConflictReason::OverlapsOccupant { .. } => "overlaps-occupant",
            ConflictReason::Superseded { .. } => "superseded",
            ConflictReason::UnknownVariant { .. } => "unknown-variant",
            ConflictReason::IdentityCollision => "identity-collision",
            ConflictReason::UnsupportedStage => "unsupported-stage",
            ConflictReason::Unrepresentable => "unrepresentable",
            ConflictReason::RegrowFailed => "regrow-failed",
            ConflictReason::SocketMismatch { .. } => "socket-mismatch",
        }
    }
}

impl std::fmt::Display for ConflictReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConflictReason::SeedNotBound { base_seed, seed } => match base_seed {
                Some(base) => write!(
                    f,
                    "authored against seed {base}, generated with seed {seed}"
                ),
                None => write!(f, "not bound to a seed; generated with seed {seed}"),
            },
            ConflictReason::TargetGone => write!(f, "the target is gone"),
            ConflictReason::BaseRevisionMismatch { expected, found } => {
                write!(f, "expected base revision {expected}, found {found}")
            }
            ConflictReason::OutsideRegion => write!(f, "outside the layer's region"),
            ConflictReason::InsideKeepOut { keep_out } => write!(f, "inside keep-out {keep_out}"),
            ConflictReason::OverlapsOccupant { with } => {
                write!(
                    f,
                    "overlaps the stronger object {}",
                    crate::identity::identity_text(*with)
                )
            }
            ConflictReason::Superseded { by } => write!(f, "superseded by {by}"),
            ConflictReason::UnknownVariant { variant } => {
                write!(f, "the family has no variant `{variant}`")
            }
            ConflictReason::IdentityCollision => {
                write!(
                    f,
                    "the identity is not an authored identity of a layer of the stage"
                )
            }
            ConflictReason::UnsupportedStage => {
                write!(f, "the stage does not support this edit")
            }
            ConflictReason::Unrepresentable => write!(f, "not representable in lattice units"),
            ConflictReason::RegrowFailed => write!(f, "the regrow draw failed"),
            ConflictReason::SocketMismatch { socket } => {
                write!(f, "the module does not fit socket `{socket}`")
            }
        }
    }
}

/// What became of one edit in one generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    /// The edit.
    pub edit: EditRef,
    /// The stage it names.
    pub stage: u32,
    /// Its target (0 for an exclusion).
    pub target: u64,
    /// The action's name (`LockSelection`, …, `Harvest`, `Regrow`).
    pub action: &'static str,
    /// The target's base revision in this generation, when it has a generated target.
    pub found_base: Option<String>,
    /// Applied, or why not.
    pub result: Result<(), ConflictReason>,
    /// For an applied regrow: its ordinal and the variant it drew.
    pub regrow: Option<(u32, u32)>,
}

/// One edit as a stage sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// An author override.
    Override(Override),
    /// A world mutation.
    Mutation(Mutation),
}

impl Edit {
    /// Its `nested` path below its stage (empty for an edit of the recipe's own stage).
    pub fn nested(&self) -> &[u32] {
        match self {
            Edit::Override(o) => &o.nested,
            Edit::Mutation(m) => &m.nested,
        }
    }
}

/// The edits naming one stage, in precedence order: overrides (sets by id, authored order), then
/// mutations. `bound` says whether the edit's set is bound to the generation's seed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StageEdits {
    /// The edits, each with where it is written and whether its set is bound.
    pub edits: Vec<(EditRef, Edit, Result<(), ConflictReason>)>,
}

impl StageEdits {
    /// Whether no edit names the stage.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// BLAKE3 over `"EDITS001"` and each edit's place, binding, nested path (when it has one)
    /// and every field (strings with their length, numbers little-endian, each action with a
    /// tag): what enters the cache key of every stage the edits touch.
    pub fn digest(&self) -> [u8; 32] {
        let mut w = ByteWriter::tagged(b"EDITS001");
        w.count(self.edits.len());
        for (at, edit, bound) in &self.edits {
            w.str(&at.set).u8(at.list as u8).count(at.index);
            // An edit of a child run's object: its binding byte offset by 2, then its path (so an
            // edit without one encodes as it always has).
            let nested = edit.nested();
            if nested.is_empty() {
                w.bool(bound.is_ok());
            } else {
                w.u8(2 + u8::from(bound.is_ok())).count(nested.len());
                for id in nested {
                    w.u32(*id);
                }
            }
            match edit {
                Edit::Override(o) => {
                    w.u32(o.stage).u64(o.target).u32(o.precedence).str(&o.base);
                    encode_action(&mut w, &o.action);
                }
                Edit::Mutation(m) => {
                    w.u32(m.stage)
                        .u64(m.target)
                        .str(&m.base)
                        .bool(m.harvested)
                        .u32(m.ordinal);
                }
            }
        }
        w.digest()
    }
}

/// The override sets of one recipe, as one generation applies them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    sets: Vec<OverrideSet>,
    /// Evaluate sets bound to another seed as if bound to this one (for a rebase report).
    preview: bool,
    /// In a subrecipe's child run: where the run sits ([`Overrides::child`]).
    within: Option<Within>,
}

/// Where a child run's view of the overrides sits.
#[derive(Debug, Clone, PartialEq)]
struct Within {
    /// The subrecipe stage ids from the root recipe's down to the one running this child.
    path: Vec<u32>,
    /// The root generation's seed, which sets are bound against (a child draws under its own).
    root_seed: u64,
}

impl Overrides {
    /// No overrides: the generated base.
    pub fn none() -> Overrides {
        Overrides::default()
    }

    /// The given sets, applied in set id order.
    pub fn new(mut sets: Vec<OverrideSet>) -> Overrides {
        sets.sort_by(|a, b| a.id.cmp(&b.id));
        Overrides {
            sets,
            preview: false,
            within: None,
        }
    }

    /// The sets evaluated as if each were bound to the generation's seed: what they would do
    /// after a rebase that keeps everything. Only for reports, never for published content.
    pub fn preview(sets: Vec<OverrideSet>) -> Overrides {
        Overrides {
            preview: true,
            ..Overrides::new(sets)
        }
    }

    /// The view of the overrides the child run of subrecipe stage `stage` applies (this view's
    /// root seed being `seed` at the root): the edits whose path passes through `stage`, each
    /// reaching the child stage its path goes on to. No overrides when none does.
    pub fn child(&self, stage: u32, seed: u64) -> Overrides {
        // Only edits below `stage` reach its child run (not those naming `stage` itself).
        let below =
            self.for_subtree(stage, seed).edits.len() - self.for_stage(stage, seed).edits.len();
        if below == 0 {
            return Overrides::none();
        }
        let (mut path, root_seed) = match &self.within {
            Some(within) => (within.path.clone(), within.root_seed),
            None => (Vec::new(), seed),
        };
        path.push(stage);
        Overrides {
            sets: self.sets.clone(),
            preview: self.preview,
            within: Some(Within { path, root_seed }),
        }
    }

    /// The override sets of `project` that edit recipe `recipe` (what `stagecraft generate` and
    /// the editor's generation service both apply).
    pub fn of_recipe(project: &crate::project::Project, recipe: &str) -> Overrides {
        Overrides::new(
            project
                .overrides
                .values()
                .filter(|set| set.recipe == recipe)
                .cloned()
                .collect(),
        )
    }

    /// Whether there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.sets
            .iter()
            .all(|s| s.overrides.is_empty() && s.mutations.is_empty())
    }

    /// The sets.
    pub fn sets(&self) -> &[OverrideSet] {
        &self.sets
    }

    /// The edits naming `stage`, for a generation with root seed `seed` (in a child run's view:
    /// the edits whose nested path ends at child stage `stage`).
    pub fn for_stage(&self, stage: u32, seed: u64) -> StageEdits {
        self.edits_reaching(stage, seed, true)
    }

    /// The edits naming `stage` or, through its `nested` path, a stage of its child runs: what
    /// a subrecipe stage's cache key holds. The same as [`Overrides::for_stage`] for a stage no
    /// nested edit passes through.
    pub fn for_subtree(&self, stage: u32, seed: u64) -> StageEdits {
        self.edits_reaching(stage, seed, false)
    }

    /// The path from the root recipe's subrecipe stage down to this view's run (empty at the root).
    fn path(&self) -> &[u32] {
        self.within.as_ref().map_or(&[], |w| w.path.as_slice())
    }

    /// Whether an edit at `first` then `nested` reaches `stage` of this view: ends there when
    /// `exact`, ends there or below otherwise.
    fn reaches(&self, first: u32, nested: &[u32], stage: u32, exact: bool) -> bool {
        let path = self.path();
        let (full, target) = (1 + nested.len(), path.len() + 1);
        if full < target || (exact && full != target) {
            return false;
        }
        let at = |i: usize| if i == 0 { first } else { nested[i - 1] };
        path.iter()
            .chain(std::iter::once(&stage))
            .enumerate()
            .all(|(i, id)| at(i) == *id)
    }

    fn edits_reaching(&self, stage: u32, seed: u64, exact: bool) -> StageEdits {
        // Sets are bound against the root generation's seed, whatever a child run draws under.
        let seed = self.within.as_ref().map_or(seed, |w| w.root_seed);
        let mut edits = Vec::new();
        for set in &self.sets {
            let bound = self.binding(set, seed);
            for (index, o) in set.overrides.iter().enumerate() {
                if self.reaches(o.stage, &o.nested, stage, exact) {
                    let at = edit_ref(set, EditList::Override, index);
                    edits.push((at, Edit::Override(o.clone()), bound.clone()));
                }
            }
        }
        for set in &self.sets {
            let bound = self.binding(set, seed);
            for (index, m) in set.mutations.iter().enumerate() {
                if self.reaches(m.stage, &m.nested, stage, exact) {
                    let at = edit_ref(set, EditList::Mutation, index);
                    edits.push((at, Edit::Mutation(m.clone()), bound.clone()));
                }
            }
        }
        StageEdits { edits }
    }

    /// Whether `set` applies at root seed `seed`, or why not.
    fn binding(&self, set: &OverrideSet, seed: u64) -> Result<(), ConflictReason> {
        if self.preview || set.base_seed == Some(seed) {
            Ok(())
        } else {
            Err(ConflictReason::SeedNotBound {
                base_seed: set.base_seed,
                seed,
            })
        }
    }
}

fn encode_action(w: &mut ByteWriter, action: &OverrideAction) {
    let point = |w: &mut ByteWriter, p: &crate::project::schema::Vec2| {
        w.f64(p.x).f64(p.y);
    };
    match action {
        OverrideAction::LockSelection { variant } => {
            w.u8(1).str(variant);
        }
        OverrideAction::LockTransform {
            position,
            rotation,
            scale,
        } => {
            w.u8(2);
            point(w, position);
            w.u16(*rotation).u32(*scale);
        }
        OverrideAction::Delete => {
            w.u8(3);
        }
        OverrideAction::Move { position } => {
            w.u8(4);
            point(w, position);
        }
        OverrideAction::Rotate { rotation } => {
            w.u8(9).u16(*rotation);
        }
        OverrideAction::Replace { variant } => {
            w.u8(5).str(variant);
        }
        OverrideAction::Add { variant, position } => {
            w.u8(6).str(variant);
            point(w, position);
        }
        OverrideAction::Exclude { min, max } => {
            w.u8(7);
            point(w, min);
            point(w, max);
        }
        OverrideAction::FreezeSubtree {
            variant,
            position,
            rotation,
            scale,
        } => {
            w.u8(8).str(variant);
            point(w, position);
            w.u16(*rotation).u32(*scale);
        }
    }
}

fn edit_ref(set: &OverrideSet, list: EditList, index: usize) -> EditRef {
    EditRef {
        set: set.id.clone(),
        list,
        index,
    }
}

/// The stable name of an override action (its name in the file and in the action schema).
pub fn action_name(action: &OverrideAction) -> &'static str {
    action.name()
}

/// The properties of its target an override touches; two overrides of one target compete when
/// they share one (a delete touches all of them). A rotate touches only the rotation, so it
/// combines with a move or a replacement of the same target but competes with a transform lock
/// and a freeze; an added object can be rotated.
pub fn properties(action: &OverrideAction) -> &'static [Property] {
    match action {
        OverrideAction::LockSelection { .. } | OverrideAction::Replace { .. } => {
            &[Property::Selection]
        }
        OverrideAction::LockTransform { .. } => &[Property::Transform, Property::Rotation],
        OverrideAction::Move { .. } => &[Property::Transform],
        OverrideAction::Rotate { .. } => &[Property::Rotation],
        OverrideAction::FreezeSubtree { .. } => {
            &[Property::Selection, Property::Transform, Property::Rotation]
        }
        OverrideAction::Delete => &[
            Property::Selection,
            Property::Transform,
            Property::Existence,
            Property::Rotation,
        ],
        OverrideAction::Add { .. } => &[
            Property::Selection,
            Property::Transform,
            Property::Existence,
        ],
        OverrideAction::Exclude { .. } => &[Property::Region],
    }
}

/// A property of a generated object that overrides touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    /// The variant.
    Selection,
    /// Position (and, for a lock or a freeze, the scale they keep).
    Transform,
    /// The rotation about the up axis.
    Rotation,
    /// Whether it exists.
    Existence,
    /// The stage's eligible region (exclusions).
    Region,
}
