//! Compiled factions: what a line-of-sight directive says about the observing ped.

/// An observer's factions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Factions {
    /// Its own faction.
    pub own: String,
    /// Allied factions.
    pub allied: Vec<String>,
    /// Hostile factions.
    pub hostile: Vec<String>,
    /// Disguises it accepts (a presented disguise it accepts hides the wearer).
    pub accepted_disguises: Vec<String>,
}
