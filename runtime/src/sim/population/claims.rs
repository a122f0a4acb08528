//! Script claims: Ambient → Mission with an owner id; the same owner again is idempotent;
//! another owner needs explicit transfer permission (a refused claim keeps the old owner); only
//! the current owner releases (→ Ambient); pooled peds cannot be claimed. The checks run before
//! any mutation.

use crate::project::PopulationKind;
use crate::sim::state::{Agents, ClaimRefusal};

/// What a successful claim did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// Ambient → Mission.
    Claimed,
    /// The same owner claimed again: nothing changed.
    AlreadyOwned,
    /// Another owner's claim moved here with permission.
    Transferred,
}

/// Claims row `row` for `owner`.
pub fn claim(
    agents: &mut Agents,
    row: usize,
    owner: &str,
    allow_transfer: bool,
) -> Result<ClaimOutcome, ClaimRefusal> {
    if agents.pooled[row] {
        return Err(ClaimRefusal::Pooled);
    }
    let outcome = match agents.owner[row].as_deref() {
        Some(current) if current == owner => return Ok(ClaimOutcome::AlreadyOwned),
        Some(_) if !allow_transfer => return Err(ClaimRefusal::OtherOwner),
        Some(_) => ClaimOutcome::Transferred,
        None => ClaimOutcome::Claimed,
    };
    agents.kind[row] = PopulationKind::Mission;
    agents.owner[row] = Some(owner.to_owned());
    Ok(outcome)
}

/// Releases row `row` by `owner` back to the ambient population.
pub fn release(agents: &mut Agents, row: usize, owner: &str) -> Result<(), ClaimRefusal> {
    match agents.owner[row].as_deref() {
        None => Err(ClaimRefusal::NotClaimed),
        Some(current) if current != owner => Err(ClaimRefusal::NotOwner),
        Some(_) => {
            agents.kind[row] = PopulationKind::Ambient;
            agents.owner[row] = None;
            Ok(())
        }
    }
}
