//! The pure parts of the on-disk stage cache: what a key was made of (a [`KeyRecord`], stored
//! next to the entries so a later miss can say which input changed), why a lookup missed
//! ([`StoreMiss`]), and which entries a byte budget evicts ([`plan_eviction`]) — never one in use.

use std::collections::BTreeSet;
use std::fmt;

use super::manifest::{manifest_error, parse_stage, stage_doc, CookedStage, Fields};
use super::CookError;
use crate::content::encode::hex;
use crate::generate::KeyParts;
use crate::project::node::{Node, NodeKind};
use crate::project::parse::parse;
use crate::project::write::{to_canonical_string, Doc};

/// The parts of a stage cache key, as stored (parameters by digest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    /// The key, hex.
    pub key: String,
    /// Operator id.
    pub operator: String,
    /// Algorithm version.
    pub algorithm: u32,
    /// Output product kind name.
    pub output: String,
    /// Scope (recipe instance).
    pub scope: String,
    /// Stage id.
    pub stage: u32,
    /// BLAKE3 of the canonical parameter bytes, hex.
    pub params: String,
    /// Root seed.
    pub seed: u64,
    /// Address schema.
    pub address_schema: u32,
    /// (port, input digest hex), in port order.
    pub inputs: Vec<(String, String)>,
}

impl KeyRecord {
    /// The record of `parts`.
    pub fn of(parts: &KeyParts) -> KeyRecord {
        KeyRecord {
            key: hex(&parts.key().0),
            operator: parts.operator.to_owned(),
            algorithm: parts.algorithm,
            output: parts.output.name().to_owned(),
            scope: parts.scope.clone(),
            stage: parts.stage,
            params: blake3::hash(&parts.params).to_hex().to_string(),
            seed: parts.seed,
            address_schema: parts.address_schema,
            inputs: parts
                .inputs
                .iter()
                .map(|(port, digest)| ((*port).to_owned(), hex(digest)))
                .collect(),
        }
    }

    /// Canonical RON text.
    pub fn to_text(&self) -> String {
        to_canonical_string(&self.doc())
    }

    /// Reads [`KeyRecord::to_text`] back.
    pub fn parse(text: &str) -> Result<KeyRecord, CookError> {
        KeyRecord::from_node(&parse_root(text)?)
    }

    fn doc(&self) -> Doc {
        let inputs = self
            .inputs
            .iter()
            .map(|(p, d)| Doc::Tuple(vec![Doc::Str(p.clone()), Doc::Str(d.clone())]))
            .collect();
        Doc::Struct(
            "KeyRecord",
            vec![
                ("key", Doc::Str(self.key.clone())),
                ("operator", Doc::Str(self.operator.clone())),
                ("algorithm", Doc::Int(self.algorithm.into())),
                ("output", Doc::Str(self.output.clone())),
                ("scope", Doc::Str(self.scope.clone())),
                ("stage", Doc::Int(self.stage.into())),
                ("params", Doc::Str(self.params.clone())),
                ("seed", Doc::Int(self.seed.into())),
                ("address_schema", Doc::Int(self.address_schema.into())),
                ("inputs", Doc::List(inputs)),
            ],
        )
    }

    fn from_node(root: &Node) -> Result<KeyRecord, CookError> {
        let f = Fields::of(root, "KeyRecord")?;
        let mut inputs = Vec::new();
        for item in f.list("inputs")? {
            match &item.kind {
                NodeKind::Tuple(pair) => match pair.as_slice() {
                    [a, b] => match (&a.kind, &b.kind) {
                        (NodeKind::Str(p), NodeKind::Str(d)) => inputs.push((p.clone(), d.clone())),
                        _ => return Err(manifest_error(Some(item), "bad input".to_owned())),
                    },
                    _ => return Err(manifest_error(Some(item), "bad input".to_owned())),
                },
                _ => return Err(manifest_error(Some(item), "bad input".to_owned())),
            }
        }
        let record = KeyRecord {
            key: f.digest("key")?,
            operator: f.string("operator")?,
            algorithm: f.u32("algorithm")?,
            output: f.string("output")?,
            scope: f.string("scope")?,
            stage: f.u32("stage")?,
            params: f.digest("params")?,
            seed: f.uint("seed", u64::MAX)?,
            address_schema: f.u32("address_schema")?,
            inputs,
        };
        f.no_others(&[
            "key",
            "operator",
            "algorithm",
            "output",
            "scope",
            "stage",
            "params",
            "seed",
            "address_schema",
            "inputs",
        ])?;
        Ok(record)
    }
}

fn parse_root(text: &str) -> Result<Node, CookError> {
    let parsed = parse(text);
    if let Some(error) = parsed.errors.first() {
        return Err(CookError::Manifest {
            line: error.span.line,
            column: error.span.column,
            message: error.message.clone(),
        });
    }
    parsed
        .root
        .ok_or_else(|| manifest_error(None, "empty document".to_owned()))
}

/// The completion manifest of one on-disk cache entry, written after its product file: the key
/// record it was stored under and the product's size, digests and counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    /// The key's parts.
    pub record: KeyRecord,
    /// The product file's entry (its `file` is the name it takes in a bundle).
    pub product: CookedStage,
}

impl CacheEntry {
    /// Canonical RON text.
    pub fn to_text(&self) -> String {
        to_canonical_string(&Doc::Struct(
            "CacheEntry",
            vec![
                ("schema", Doc::Int(CACHE_ENTRY_SCHEMA.into())),
                ("record", self.record.doc()),
                ("product", stage_doc(&self.product)),
            ],
        ))
    }

    /// Reads [`CacheEntry::to_text`] back, strictly.
    pub fn parse(text: &str) -> Result<CacheEntry, CookError> {
        let root = parse_root(text)?;
        let f = Fields::of(&root, "CacheEntry")?;
        let schema = f.uint("schema", u64::from(u32::MAX))?;
        if schema != u64::from(CACHE_ENTRY_SCHEMA) {
            return Err(CookError::UnsupportedVersion {
                what: "cache entry schema".to_owned(),
                found: schema,
                supported: CACHE_ENTRY_SCHEMA.into(),
            });
        }
        let entry = CacheEntry {
            record: KeyRecord::from_node(f.get("record")?)?,
            product: parse_stage(f.get("product")?)?,
        };
        f.no_others(&["schema", "record", "product"])?;
        Ok(entry)
    }
}

/// The cache entry schema this build writes and reads.
pub const CACHE_ENTRY_SCHEMA: u32 = 1;

/// One part of a key that differs from the last time the stage was cooked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyChange {
    /// Operator id or algorithm version.
    Operator,
    /// Output schema (product kind).
    Output,
    /// The canonical parameters.
    Parameters,
    /// Root seed.
    Seed,
    /// Address schema.
    AddressSchema,
    /// The digest of the input bound to this port (an upstream product or a family).
    Input(String),
}

impl fmt::Display for KeyChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyChange::Operator => write!(f, "operator or algorithm version"),
            KeyChange::Output => write!(f, "output schema"),
            KeyChange::Parameters => write!(f, "parameters"),
            KeyChange::Seed => write!(f, "root seed"),
            KeyChange::AddressSchema => write!(f, "address schema"),
            KeyChange::Input(port) => write!(f, "input `{port}`"),
        }
    }
}

/// Why a stage was not served from the on-disk cache.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum StoreMiss {
    /// No entry under the key: never cooked here, or evicted.
    NoEntry,
    /// The key differs from the last cook of this stage, in these parts.
    KeyChanged(Vec<KeyChange>),
    /// The entry failed verification and was discarded.
    Corrupt(String),
    /// Its entry is intact, but an input had to be re-cooked first, so its key was known only
    /// after it ran.
    InputRecooked,
    /// Author overrides or world mutations name the stage and a stage reading it must run: the
    /// reader needs the edits' outcomes, which live in the stage's provenance, which the cache
    /// does not hold, so the stage is run again (when every reader hits, it hits too).
    Edited,
}

impl StoreMiss {
    /// The reason's stable short name.
    pub fn name(&self) -> &'static str {
        match self {
            StoreMiss::NoEntry => "no-entry",
            StoreMiss::KeyChanged(_) => "key-changed",
            StoreMiss::Corrupt(_) => "corrupt",
            StoreMiss::InputRecooked => "input-recooked",
            StoreMiss::Edited => "edited",
        }
    }
}

impl fmt::Display for StoreMiss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreMiss::NoEntry => write!(f, "no entry"),
            StoreMiss::KeyChanged(changes) => {
                let parts: Vec<String> = changes.iter().map(ToString::to_string).collect();
                write!(f, "key changed: {}", parts.join(", "))
            }
            StoreMiss::Corrupt(why) => write!(f, "corrupt entry discarded: {why}"),
            StoreMiss::InputRecooked => write!(f, "an input was re-cooked first"),
            StoreMiss::Edited => write!(
                f,
                "author overrides name it and a reader runs: its edit outcomes are needed"
            ),
        }
    }
}

/// Why `current` missed, given the record of the stage's previous cook (if any) and that its
/// entry is absent.
pub fn explain_miss(previous: Option<&KeyRecord>, current: &KeyRecord) -> StoreMiss {
    let Some(old) = previous.filter(|old| old.key != current.key) else {
        return StoreMiss::NoEntry;
    };
    let mut changes = Vec::new();
    if old.operator != current.operator || old.algorithm != current.algorithm {
        changes.push(KeyChange::Operator);
    }
    if old.output != current.output {
        changes.push(KeyChange::Output);
    }
    if old.params != current.params {
        changes.push(KeyChange::Parameters);
    }
    if old.seed != current.seed {
        changes.push(KeyChange::Seed);
    }
    if old.address_schema != current.address_schema {
        changes.push(KeyChange::AddressSchema);
    }
    for (port, digest) in &current.inputs {
        let before = old.inputs.iter().find(|(p, _)| p == port).map(|(_, d)| d);
        if before != Some(digest) {
            changes.push(KeyChange::Input(port.clone()));
        }
    }
    for (port, _) in &old.inputs {
        if !current.inputs.iter().any(|(p, _)| p == port) {
            changes.push(KeyChange::Input(port.clone()));
        }
    }
    changes.sort();
    changes.dedup();
    StoreMiss::KeyChanged(changes)
}

/// One cache entry, as the eviction plan sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntryInfo {
    /// Its key, hex.
    pub key: String,
    /// Bytes it occupies.
    pub bytes: u64,
    /// When it was last used (any monotonic count; ties are broken by key).
    pub last_use: u64,
}

/// The keys to evict so the entries fit `budget_bytes`: least recently used first (ties by key),
/// never a key in `in_use` — so the result may leave the cache over budget. Sorted by eviction
/// order.
pub fn plan_eviction(
    entries: &[CacheEntryInfo],
    budget_bytes: u64,
    in_use: &BTreeSet<String>,
) -> Vec<String> {
    let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
    let mut order: Vec<&CacheEntryInfo> = entries.iter().collect();
    order.sort_by(|a, b| (a.last_use, &a.key).cmp(&(b.last_use, &b.key)));
    let mut evicted = Vec::new();
    for entry in order {
        if total <= budget_bytes {
            break;
        }
        if in_use.contains(&entry.key) {
            continue;
        }
        total -= entry.bytes;
        evicted.push(entry.key.clone());
    }
    evicted
}
