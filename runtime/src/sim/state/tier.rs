//! The agent's LOD tier (its cadence and policy live in `sim::motion::tiers`).

use super::agents::Canonical;

/// An agent's LOD tier. Ordered from most to least detailed.
#[derive(
    serde::Serialize,
    serde::Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
)]
pub enum Tier {
    /// Updated every step (crowd specification: Hero).
    Full,
    /// Updated every second step (crowd specification: Medium).
    Simulated,
    /// Updated every eighth step (crowd specification: Background). New agents start here.
    #[default]
    Stub,
}

impl Tier {
    /// All tiers, most detailed first.
    pub const ALL: [Tier; 3] = [Tier::Full, Tier::Simulated, Tier::Stub];

    /// Steps between two updates of an agent in this tier.
    pub fn interval(self) -> u64 {
        u64::from(self.cadence_mask()) + 1
    }

    /// [`Tier::interval`] − 1: every interval is a power of two, so a remainder by it is this
    /// mask (a select, not a lookup, so a pass over every row vectorises).
    #[inline(always)]
    pub fn cadence_mask(self) -> u32 {
        match self {
            Tier::Full => 0,
            Tier::Simulated => 1,
            Tier::Stub => 7,
        }
    }

    /// A stable small number for digests and colours.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The next less detailed tier (Stub stays Stub).
    pub fn demoted(self) -> Tier {
        match self {
            Tier::Full => Tier::Simulated,
            _ => Tier::Stub,
        }
    }

    /// The crowd specification's name of this rung.
    pub fn crowd_name(self) -> &'static str {
        match self {
            Tier::Full => "Hero",
            Tier::Simulated => "Medium",
            Tier::Stub => "Background",
        }
    }
}

impl Canonical for Tier {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(self.code());
    }
}
