//! Scope compatibility: regional, cell and object data flow down the world hierarchy.
//!
//! Every operator declares the level it works at ([`DataScope`](crate::ops::registry::DataScope): a region plan, generation cells,
//! content objects). A stage may read the product of a stage at its own level or a coarser one —
//! a region plan feeds the cells refining it, cells feed their objects — but finer data reaches a
//! coarser stage only through a port its operator declares as an explicit conversion
//! ([`ScopeContract::converts`](crate::ops::registry::ScopeContract)); otherwise a regional plan
//! would depend on the local refinements it is meant to constrain. Asset families are inputs, not
//! generated data, and feed any level. A refused input is a located error at the stage's
//! `inputs[i]`.

use super::plan::{BoundInput, InputSource};
use super::report::{stage_path, Reporter};
use crate::ops::registry::OperatorDescriptor;

/// One stage as the scope check reads it.
pub(super) struct ScopedStage<'a> {
    /// Its index in the recipe's stage list.
    pub(super) index: usize,
    /// Its id.
    pub(super) id: u32,
    /// Its operator.
    pub(super) operator: &'a OperatorDescriptor,
    /// Its bound inputs.
    pub(super) inputs: &'a [BoundInput],
    /// Each bound port and the input slot bound to it.
    pub(super) ports: &'a [(&'static str, usize)],
}

/// Reports every input of `stage` reading finer data than the stage works at without a
/// converting port; `upstream` gives the operator of a stage it reads (sealed before it).
pub(super) fn check_scope_flow(
    stage: &ScopedStage<'_>,
    upstream: &dyn Fn(u32) -> Option<OperatorDescriptor>,
    r: &mut Reporter<'_>,
) {
    let contract = stage.operator.data_scope;
    let consumer = contract.works_at;
    for bound in stage.inputs {
        let InputSource::Stage(dep) = bound.source else {
            continue;
        };
        let Some(producer) = upstream(dep) else {
            continue;
        };
        let read = producer.data_scope.works_at;
        if read.feeds(consumer) || contract.converts(bound.port) {
            continue;
        }
        let slot = stage
            .ports
            .iter()
            .find(|(port, _)| *port == bound.port)
            .map(|(_, slot)| *slot);
        let path = match slot {
            Some(slot) => stage_path(stage.index).field("inputs").index(slot),
            None => stage_path(stage.index).field("inputs"),
        };
        r.error(
            path,
            format!(
                "stage {} (`{}`, {} scope) reads {} data of stage {dep} (`{}`) on port `{}`: finer data reaches a coarser stage only through an explicit conversion",
                stage.id,
                stage.operator.id,
                consumer.name(),
                read.name(),
                producer.id,
                bound.port
            ),
            format!(
                "a stage of {} scope or coarser (regional, then cell, then object), or an operator whose port converts {} data",
                consumer.name(),
                read.name()
            ),
        );
    }
}

#[cfg(test)]
mod tests;
