//! What an observer recognises of a presented faction (the rules live in `sim::motion::disguise`).

/// What an observer recognises.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum Recognition {
    /// The presented faction is a disguise the observer accepts.
    Disguised,
    /// The observer's own or an allied faction.
    Friendly,
    /// A faction the observer is hostile to.
    Hostile,
    /// None of those.
    Neutral,
}
