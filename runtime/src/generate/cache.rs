//! The in-memory stage cache: pure stage products keyed by a BLAKE3 digest of everything that
//! decides them.
//!
//! Key = BLAKE3 over `"STAGEKEY"`, operator id, algorithm version, output product kind, recipe
//! instance (scope), stage id, the canonical parameter bytes, root seed, address schema, and each
//! bound input as (port, input digest) in port order — for a family, the digest of the variant fields
//! its operator declares it reads (`OperatorDescriptor::family_reads`, `FamilyData::digest_for`), so
//! editing a field it does not read (a height, for the scatter) keeps the key; an upstream product's
//! digest, then — only when author overrides or world mutations name the stage — their digest.
//! Never a path, a timestamp or a pointer. Editing one stage's parameters changes its key
//! and, through its product digest, the keys of its dependents only.
//!
//! A hit is verified: an entry remembers the product it was sealed with, and a product that is not
//! that one is re-hashed and compared with its recorded digest; a corrupt entry is discarded and
//! rebuilt. (Products are immutable behind `Arc`, so a hit of an untouched entry costs a pointer
//! comparison, not a re-hash of megabytes.) Every miss records why (first run, which part of the key
//! changed, eviction, corruption). Eviction is least-recently-used by a use counter, so it is
//! deterministic.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::content::encode::ByteWriter;
use crate::content::{Product, ProductKind, ProductSummary, StageProvenance};

/// The digest that keys a cached stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CacheKey(pub [u8; 32]);

/// Everything that decides a stage's product, before hashing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyParts {
    /// Operator id.
    pub operator: &'static str,
    /// Algorithm version.
    pub algorithm: u32,
    /// Output product kind (the output schema).
    pub output: ProductKind,
    /// Recipe instance (the scope).
    pub scope: String,
    /// Persistent stage id.
    pub stage: u32,
    /// Canonical parameter bytes.
    pub params: Vec<u8>,
    /// Root seed.
    pub seed: u64,
    /// Address schema version.
    pub address_schema: u32,
    /// Each bound input: port name and digest, in port order.
    pub inputs: Vec<(&'static str, [u8; 32])>,
    /// The digest of the author overrides and world mutations that decide the product, if any.
    pub edits: Option<[u8; 32]>,
}

impl KeyParts {
    /// The cache key of these parts.
    pub fn key(&self) -> CacheKey {
        let mut w = ByteWriter::tagged(b"STAGEKEY");
        w.str(self.operator)
            .u32(self.algorithm)
            .str(self.output.name())
            .str(&self.scope)
            .u32(self.stage)
            .bytes(&self.params)
            .u64(self.seed)
            .u32(self.address_schema)
            .count(self.inputs.len());
        for (port, digest) in &self.inputs {
            w.str(port).bytes(digest);
        }
        // Only present when edits name the stage, so keys without them are unchanged.
        if let Some(edits) = &self.edits {
            w.str("EDITS").bytes(edits);
        }
        CacheKey(w.digest())
    }
}

/// A finished stage: product, provenance, digest and summary, shared between bundles.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedStage {
    /// The product.
    pub product: Arc<Product>,
    /// Its provenance.
    pub provenance: Arc<StageProvenance>,
    /// BLAKE3 of the product's canonical bytes.
    pub digest: [u8; 32],
    /// Counts and bounds.
    pub summary: ProductSummary,
}

impl CachedStage {
    /// Wraps a freshly produced stage, computing its digest and summary.
    pub fn new(product: Product, provenance: StageProvenance) -> CachedStage {
        CachedStage {
            digest: product.digest(),
            summary: product.summary(),
            product: Arc::new(product),
            provenance: Arc::new(provenance),
        }
    }

    /// [`CachedStage::new`] with the digest hashed on the current rayon pool
    /// ([`Product::digest_par`]) while the summary is counted: the same values.
    pub fn new_par(product: Product, provenance: StageProvenance) -> CachedStage {
        let (digest, summary) = rayon::join(|| product.digest_par(), || product.summary());
        CachedStage {
            digest,
            summary,
            product: Arc::new(product),
            provenance: Arc::new(provenance),
        }
    }
}

/// Why a stage was not served from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MissReason {
    /// The stage has not run in this cache before.
    FirstRun,
    /// Its operator or algorithm version changed.
    OperatorChanged,
    /// Its parameters changed.
    ParametersChanged,
    /// An input's digest changed (an upstream stage or a family changed).
    InputsChanged,
    /// The root seed or the address schema changed.
    SeedChanged,
    /// The author overrides or world mutations naming the stage changed.
    OverridesChanged,
    /// The same key was cached before but has been evicted.
    Evicted,
    /// The entry failed verification and was discarded.
    Corrupt,
    /// The cache holds nothing (capacity 0).
    Disabled,
}

impl MissReason {
    /// The reason's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            MissReason::FirstRun => "first-run",
            MissReason::OperatorChanged => "operator-changed",
            MissReason::ParametersChanged => "parameters-changed",
            MissReason::InputsChanged => "inputs-changed",
            MissReason::SeedChanged => "seed-changed",
            MissReason::OverridesChanged => "overrides-changed",
            MissReason::Evicted => "evicted",
            MissReason::Corrupt => "corrupt",
            MissReason::Disabled => "disabled",
        }
    }
}

/// Whether a stage came from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CacheOutcome {
    /// Served from the cache.
    Hit,
    /// Run, for this reason.
    Miss(MissReason),
}

/// Counters since the cache was made (or cleared).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups served.
    pub hits: u64,
    /// Lookups that ran the stage.
    pub misses: u64,
    /// Entries discarded by verification.
    pub corrupt: u64,
    /// Entries evicted for capacity.
    pub evictions: u64,
}

#[derive(Debug, Clone)]
struct Entry {
    stage: Arc<CachedStage>,
    last_use: u64,
    /// The product whose digest was computed when the entry was stored.
    sealed: Arc<Product>,
    /// The product's approximate heap bytes when stored ([`Product::approx_heap_bytes`]).
    bytes: usize,
}

impl Entry {
    /// Whether the entry still holds the product it was sealed with, or one with the same digest.
    fn is_intact(&self) -> bool {
        Arc::ptr_eq(&self.stage.product, &self.sealed)
            || self.stage.product.digest() == self.stage.digest
    }
}

/// Default number of entries a cache keeps.
pub const DEFAULT_CACHE_ENTRIES: usize = 256;

/// Default byte budget of a cache's products (approximate heap bytes): 1 GiB, so an editor
/// session trying many values of a large scatter does not keep hundreds of them alive.
pub const DEFAULT_CACHE_BYTES: usize = 1 << 30;

/// An in-memory stage cache (the editor holds one per session).
#[derive(Debug, Clone)]
pub struct StageCache {
    entries: BTreeMap<CacheKey, Entry>,
    /// The key parts each (scope, stage) last ran or hit with, to explain misses.
    last: BTreeMap<(String, u32), KeyParts>,
    capacity: usize,
    /// Most approximate product bytes kept (the newest entry is kept even when alone above it).
    byte_budget: usize,
    /// Approximate product bytes held.
    bytes: usize,
    clock: u64,
    stats: CacheStats,
}

impl Default for StageCache {
    fn default() -> Self {
        StageCache::new(DEFAULT_CACHE_ENTRIES)
    }
}

impl StageCache {
    /// A cache keeping at most `capacity` entries (0 disables caching) and about
    /// [`DEFAULT_CACHE_BYTES`] of products.
    pub fn new(capacity: usize) -> StageCache {
        StageCache::with_budget(capacity, DEFAULT_CACHE_BYTES)
    }

    /// A cache keeping at most `capacity` entries and `byte_budget` approximate product bytes
    /// (least recently used evicted first; the newest entry always stays).
    pub fn with_budget(capacity: usize, byte_budget: usize) -> StageCache {
        StageCache {
            entries: BTreeMap::new(),
            last: BTreeMap::new(),
            capacity,
            byte_budget,
            bytes: 0,
            clock: 0,
            stats: CacheStats::default(),
        }
    }

    /// Approximate product bytes held (see [`Product::approx_heap_bytes`]).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Counters.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drops every entry and resets the counters.
    pub fn clear(&mut self) {
        *self = StageCache::with_budget(self.capacity, self.byte_budget);
    }

    /// Looks `parts` up: the verified entry, or why there is none. Counts the hit or miss.
    pub fn lookup(&mut self, parts: &KeyParts) -> (CacheKey, Result<Arc<CachedStage>, MissReason>) {
        let key = parts.key();
        self.clock += 1;
        let previous = self
            .last
            .insert((parts.scope.clone(), parts.stage), parts.clone());
        let result = match self.entries.get_mut(&key) {
            Some(entry) if entry.is_intact() => {
                entry.last_use = self.clock;
                Ok(Arc::clone(&entry.stage))
            }
            Some(_) => {
                self.remove(&key);
                self.stats.corrupt += 1;
                Err(MissReason::Corrupt)
            }
            None if self.capacity == 0 => Err(MissReason::Disabled),
            None => Err(match previous {
                None => MissReason::FirstRun,
                Some(old) if old.operator != parts.operator || old.algorithm != parts.algorithm => {
                    MissReason::OperatorChanged
                }
                Some(old) if old.params != parts.params => MissReason::ParametersChanged,
                Some(old)
                    if old.seed != parts.seed || old.address_schema != parts.address_schema =>
                {
                    MissReason::SeedChanged
                }
                Some(old) if old.inputs != parts.inputs => MissReason::InputsChanged,
                Some(old) if old.edits != parts.edits => MissReason::OverridesChanged,
                Some(_) => MissReason::Evicted,
            }),
        };
        match result {
            Ok(_) => self.stats.hits += 1,
            Err(_) => self.stats.misses += 1,
        }
        (key, result)
    }

    /// Stores a finished stage under `key`, evicting the least recently used entry when full.
    pub fn insert(&mut self, key: CacheKey, stage: Arc<CachedStage>) {
        if self.capacity == 0 {
            return;
        }
        self.clock += 1;
        let sealed = Arc::clone(&stage.product);
        let bytes = stage.product.approx_heap_bytes();
        self.remove(&key);
        self.bytes += bytes;
        self.entries.insert(
            key,
            Entry {
                stage,
                last_use: self.clock,
                sealed,
                bytes,
            },
        );
        while self.entries.len() > self.capacity
            || (self.bytes > self.byte_budget && self.entries.len() > 1)
        {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(key, entry)| (entry.last_use, **key))
                .map(|(key, _)| *key);
            match oldest {
                Some(oldest) => {
                    self.remove(&oldest);
                    self.stats.evictions += 1;
                }
                None => break,
            }
        }
    }

    /// Removes the entry under `key`, if any, and its bytes.
    fn remove(&mut self, key: &CacheKey) {
        if let Some(entry) = self.entries.remove(key) {
            self.bytes -= entry.bytes;
        }
    }

    /// Replaces the product of the entry under `key` without updating its digest, as a damaged
    /// entry would look; returns whether there was one. For tests of verification.
    #[doc(hidden)]
    pub fn damage(&mut self, key: CacheKey, product: Product) -> bool {
        match self.entries.get_mut(&key) {
            Some(entry) => {
                let mut stage = (*entry.stage).clone();
                stage.product = Arc::new(product);
                entry.stage = Arc::new(stage);
                true
            }
            None => false,
        }
    }
}
