//! The level of the world hierarchy an operator's data covers — a region plan, a generation cell,
//! a content object — and which of its ports convert finer data explicitly. The recipe compiler
//! checks every stage input against it (`recipe::scope_flow`).

/// A level of the world hierarchy, coarse to fine: region plans are refined into generation cells,
/// cells into content objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DataScope {
    /// A bounded region solved as a whole: roads, blocks, routes, mission layouts.
    Regional,
    /// Generation cells refining a region: scatter candidates, streaming cells.
    Cell,
    /// Individual content objects: placed objects, assembled modules.
    Object,
}

impl DataScope {
    /// The scope's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            DataScope::Regional => "regional",
            DataScope::Cell => "cell",
            DataScope::Object => "object",
        }
    }

    /// Whether data of this scope may feed a stage working at `consumer` without a conversion:
    /// decisions flow down the hierarchy (regional → cell → object) or stay at their level.
    pub fn feeds(self, consumer: DataScope) -> bool {
        self <= consumer
    }
}

/// An operator's scope contract: the level it works at (and its product covers), and the input
/// ports through which it explicitly converts finer data into its level (aggregating objects into
/// cell occupancy, say). Asset families are not generated data and feed any level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeContract {
    /// The level it works at.
    pub works_at: DataScope,
    /// The ports that read finer data as an explicit conversion.
    pub converts: &'static [&'static str],
}

impl ScopeContract {
    /// Works at `scope`, converting nothing.
    pub const fn at(scope: DataScope) -> ScopeContract {
        ScopeContract {
            works_at: scope,
            converts: &[],
        }
    }

    /// Whether port `port` converts finer data explicitly.
    pub fn converts(&self, port: &str) -> bool {
        self.converts.contains(&port)
    }

    /// Why the contract cannot be an operator's of `locality` with the input ports `ports`, if it
    /// cannot: a converting port it does not have, or a parent-planned operator (which refines a
    /// regional plan) working at regional scope.
    pub fn malformed(&self, locality: super::Locality, ports: &[&str]) -> Option<&'static str> {
        if self.converts.iter().any(|port| !ports.contains(port)) {
            return Some("a converting port that is not an input port");
        }
        if locality == super::Locality::ParentPlanned && self.works_at == DataScope::Regional {
            return Some("a parent-planned operator refines a regional plan, so it works below regional scope");
        }
        None
    }
}
