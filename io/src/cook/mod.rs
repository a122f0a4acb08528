//! Cooking on disk: the bundle folder (the swap into place with its recovery, the listing check,
//! reading back with every check), the on-disk stage cache, and the cook driver that `stagecraft
//! cook`, the editor's Cook dialog and the Python module (`stagecraft.farm`) share. The formats and checks over bytes are the runtime's (`runtime::cook`).

pub mod bundle_io;
pub mod driver;
pub mod listing;
pub mod store;
pub mod stores;
pub mod swap;
pub mod tiles;

pub use bundle_io::{read_bundle, CheckedProduct, ReadBundle, MANIFEST_NAME};
pub use driver::{
    compile_all, cook_project, default_cache, generate_plan, work_items, Compiled, CookOptions,
    CookReport, StageCook, StageOutcome,
};
pub use store::{DiskCache, StoreHit, DEFAULT_BUDGET_BYTES};
pub use swap::{
    prepare_out, recover_swap, write_bundle, write_bundle_with, ReplacePolicy, SwapStep,
};
pub use tiles::{TileCook, TiledStage};
