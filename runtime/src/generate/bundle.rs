//! The generated bundle: every stage's product with its identity, digest, counts, bounds and
//! provenance, and one digest over all of it.
//!
//! Bundle digest = BLAKE3 over `"BUNDLE01"`, recipe id, root seed, address schema, then per stage
//! in plan order its id, operator, algorithm and product digest, then the output ids, then — only
//! when overrides or mutations name some stage — `"EDITS"` and each such stage's id and edits
//! digest. Labels, the recipe's source text, provenance records (other than that edits digest) and
//! cache hits are not part of it: they cannot change a product, so they must not change the digest.

use std::borrow::Cow;
use std::sync::Arc;

use crate::content::encode::{hex, ByteWriter};
use crate::content::{
    ObjectProvenance, Product, ProductKind, ProductSummary, RejectionProvenance, StageProvenance,
};
use crate::identity::{ChildKey, ObjectIdentity};
use crate::ops::registry::{derive_object, derive_rejection};

/// One stage's result inside a bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct StageRecord {
    /// Persistent stage id.
    pub stage: u32,
    /// Display label.
    pub label: String,
    /// Operator id.
    pub operator: &'static str,
    /// Algorithm version.
    pub algorithm: u32,
    /// Depth in the plan.
    pub depth: u32,
    /// The stage ids it read, ascending.
    pub dependencies: Vec<u32>,
    /// Its cache key.
    pub key: [u8; 32],
    /// BLAKE3 of the product's canonical bytes.
    pub digest: [u8; 32],
    /// Counts and bounds.
    pub summary: ProductSummary,
    /// The product.
    pub product: Arc<Product>,
    /// The provenance of everything in the product: stored records, or how to derive them.
    pub provenance: Arc<StageProvenance>,
}

impl StageRecord {
    /// The product's kind.
    pub fn kind(&self) -> ProductKind {
        self.product.kind()
    }

    /// The provenance record of object `key`: the stored one, or derived on demand from the
    /// product by re-evaluating its addressed draws (never advancing a stream).
    pub fn object_provenance(&self, key: &ChildKey) -> Option<Cow<'_, ObjectProvenance>> {
        if let Some(record) = self.provenance.object(key) {
            return Some(Cow::Borrowed(record));
        }
        let derivation = self.provenance.derived.as_ref()?;
        derive_object(&self.product, derivation, key).map(Cow::Owned)
    }

    /// Why candidate `key` was rejected, with its draws: the stored record, or derived on demand.
    pub fn rejection(&self, key: &ChildKey) -> Option<Cow<'_, RejectionProvenance>> {
        if let Some(record) = self.provenance.rejection(key) {
            return Some(Cow::Borrowed(record));
        }
        let derivation = self.provenance.derived.as_ref()?;
        derive_rejection(&self.product, derivation, key).map(Cow::Owned)
    }
}

/// What one object's provenance answers, assembled for an inspector.
#[derive(Debug, Clone, PartialEq)]
pub struct ProvenanceView<'a> {
    /// The recipe (instance) that generated the object.
    pub recipe: &'a str,
    /// The path of recipes from that recipe down to the one whose stage emitted the object
    /// (more than one id through subrecipe stages).
    pub recipes: Vec<String>,
    /// The emitting stage.
    pub stage: &'a StageRecord,
    /// The full identity tuple (recipe instance, parent chain, stage, key).
    pub identity: ObjectIdentity,
    /// The asset family and variant id, for objects that have one.
    pub asset: Option<(String, String)>,
    /// The record: draws, constraints, parent (derived on demand where the stage stores none).
    pub record: Cow<'a, ObjectProvenance>,
}

/// A complete, validated generation of one recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedBundle {
    /// Recipe id (the recipe instance).
    pub recipe_id: String,
    /// BLAKE3 of the recipe's canonical text.
    pub source_digest: [u8; 32],
    /// Root seed.
    pub root_seed: u64,
    /// Address schema version.
    pub address_schema: u32,
    /// Stages in plan order.
    pub stages: Vec<StageRecord>,
    /// The published stage ids.
    pub outputs: Vec<u32>,
    digest: [u8; 32],
}

impl GeneratedBundle {
    /// Assembles a bundle and computes its digest.
    pub fn new(
        recipe_id: String,
        source_digest: [u8; 32],
        root_seed: u64,
        address_schema: u32,
        stages: Vec<StageRecord>,
        outputs: Vec<u32>,
    ) -> GeneratedBundle {
        let mut w = ByteWriter::tagged(b"BUNDLE01");
        w.str(&recipe_id)
            .u64(root_seed)
            .u32(address_schema)
            .count(stages.len());
        for stage in &stages {
            w.u32(stage.stage)
                .str(stage.operator)
                .u32(stage.algorithm)
                .bytes(&stage.digest);
        }
        w.count(outputs.len());
        for output in &outputs {
            w.u32(*output);
        }
        // Edits enter only when some stage has them, so a bundle without overrides keeps the
        // digest it had before overrides existed.
        let edited: Vec<(u32, [u8; 32])> = stages
            .iter()
            .filter_map(|s| s.provenance.edits_digest.map(|d| (s.stage, d)))
            .collect();
        if !edited.is_empty() {
            w.str("EDITS").count(edited.len());
            for (stage, digest) in &edited {
                w.u32(*stage).bytes(digest);
            }
        }
        GeneratedBundle {
            digest: w.digest(),
            recipe_id,
            source_digest,
            root_seed,
            address_schema,
            stages,
            outputs,
        }
    }

    /// The bundle digest.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// The bundle digest as lowercase hex.
    pub fn digest_hex(&self) -> String {
        hex(&self.digest)
    }

    /// The outcomes of every author override and world mutation, stage by stage in plan order.
    pub fn edit_outcomes(&self) -> impl Iterator<Item = &crate::overrides::EditOutcome> {
        self.stages.iter().flat_map(|s| s.provenance.edits.iter())
    }

    /// The record of stage `id`.
    pub fn stage(&self, id: u32) -> Option<&StageRecord> {
        self.stages.iter().find(|stage| stage.stage == id)
    }

    /// Every stage's product with its stage id, in plan order (what `sim::SimSpace` is built
    /// from).
    pub fn products(&self) -> impl Iterator<Item = (u32, &Product)> {
        self.stages.iter().map(|s| (s.stage, s.product.as_ref()))
    }

    /// Total objects over every stage.
    pub fn object_count(&self) -> u64 {
        self.stages.iter().map(|s| s.summary.objects).sum()
    }

    /// The identity of the object `key` emitted by `stage`, with its parent chain; for a
    /// subrecipe stage, the child run's (its nested instance, its own stage and parents).
    pub fn identity(&self, stage: u32, key: &ChildKey) -> Option<ObjectIdentity> {
        let lookup = |id: u32| {
            self.stage(id)
                .map(|s| (Arc::clone(&s.product), Arc::clone(&s.provenance)))
        };
        let scope = super::nested::Scope {
            instance: &self.recipe_id,
            lookup: &lookup,
            outer: None,
        };
        super::nested::identity_in(&scope, stage, key)
    }

    /// The recipe ids from this bundle's recipe down to the one whose stage emitted stage
    /// `stage`'s objects: one id for an operator's stage, the path through its subrecipes for
    /// a subrecipe stage.
    pub fn recipe_path(&self, stage: u32) -> Vec<String> {
        match self
            .stage(stage)
            .and_then(|s| s.provenance.nested.as_deref())
        {
            Some(nested) => nested.innermost().recipes.clone(),
            None => vec![self.recipe_id.clone()],
        }
    }

    /// Everything provenance answers about object `key` of `stage`.
    pub fn provenance(&self, stage: u32, key: &ChildKey) -> Option<ProvenanceView<'_>> {
        let record_stage = self.stage(stage)?;
        let record = record_stage.object_provenance(key)?;
        let asset = match (&record_stage.provenance.family, record.variant) {
            (Some(family), Some(variant)) => {
                Some((family.clone(), variant_id(&record_stage.product, variant)))
            }
            _ => None,
        };
        Some(ProvenanceView {
            recipe: &self.recipe_id,
            recipes: self.recipe_path(stage),
            stage: record_stage,
            identity: self.identity(stage, key)?,
            asset,
            record,
        })
    }

    /// Why candidate `key` of scatter stage `stage` was rejected, if it was.
    pub fn rejection(&self, stage: u32, key: &ChildKey) -> Option<Cow<'_, RejectionProvenance>> {
        self.stage(stage)?.rejection(key)
    }
}

fn variant_id(product: &Product, variant: u32) -> String {
    let ids = match product {
        Product::Placements(scatter) => &scatter.variant_ids,
        Product::PlacedObjects(placed) => &placed.variant_ids,
        _ => return String::new(),
    };
    ids.get(variant as usize).cloned().unwrap_or_default()
}
