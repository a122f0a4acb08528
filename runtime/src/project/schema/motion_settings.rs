//! A scenario's `motion` settings (`Motion(…)`): the tier policy with the fields a scenario
//! overrides of it, the avoidance budget, the crowd governor and the exits.
//!
//! The tier fields (bands, capacities, transition budgets, relevance thresholds) are
//! *authored or not*: a field the file gives overrides the named policy's value
//! ([`super::tier_policies`]); a field it leaves out takes the policy's. So they are written only
//! when given — and bare (`full_enter_m: 25.0`), as they always were, so every file written
//! before policies existed reads and writes byte for byte as before. `tier_policy` is written
//! only when it is not the default.

use super::scenario::ExitNode;
use super::tier_policies::{tier_policy, TierPreset, TierValues, DEFAULT_TIER_POLICY};
use crate::project::decode::{Decode, Decoder, Encode};
use crate::project::node::Node;
use crate::project::write::Doc;

/// Motion at scale: LOD tiers (the tier policy, overridden field by field), the avoidance
/// budget, and the crowd governor (motion specification and crowd specification).
#[derive(Clone, Debug, PartialEq)]
pub struct MotionSettings {
    /// The named tier policy (`motion-bands`, `crowd-radii`; see [`super::tier_policies`]).
    pub tier_policy: String,
    /// Within this distance of the nearest observer an agent becomes Full, meters (`None`: the
    /// policy's).
    pub full_enter_m: Option<f64>,
    /// Beyond this distance a Full agent leaves Full, meters (≥ `full_enter_m`).
    pub full_exit_m: Option<f64>,
    /// Within this distance an agent becomes Simulated, meters.
    pub simulated_enter_m: Option<f64>,
    /// Beyond this distance a Simulated agent becomes Stub, meters (≥ `simulated_enter_m`).
    pub simulated_exit_m: Option<f64>,
    /// Agents that may be Full at once (forced-full agents may exceed it).
    pub full_capacity: Option<u32>,
    /// Agents that may be Simulated at once.
    pub simulated_capacity: Option<u32>,
    /// Tier promotions applied per step.
    pub promotions_per_step: Option<u32>,
    /// Tier demotions applied per step.
    pub demotions_per_step: Option<u32>,
    /// At or above this relevance an agent asks for Full.
    pub hero_relevance: Option<f64>,
    /// At or above this relevance an agent asks for at least Simulated.
    pub medium_relevance: Option<f64>,
    /// Walkers whose avoidance (the steering fan) runs per step; `None` is unlimited.
    pub avoidance_budget: Option<u32>,
    /// Whether the crowd governor demotes agents when the estimate exceeds its budget (the
    /// estimate is computed and published either way).
    pub crowd_governor: bool,
    /// The crowd governor's budget, milliseconds per step.
    pub crowd_budget_ms: f64,
    /// Agents' relevance when no directive sets it, 0..1.
    pub default_relevance: f64,
    /// Exits that fleeing agents run to, besides the street block's portals.
    pub exits: Vec<ExitNode>,
}

impl Default for MotionSettings {
    /// The default policy with nothing overridden.
    fn default() -> Self {
        MotionSettings {
            tier_policy: DEFAULT_TIER_POLICY.to_owned(),
            full_enter_m: None,
            full_exit_m: None,
            simulated_enter_m: None,
            simulated_exit_m: None,
            full_capacity: None,
            simulated_capacity: None,
            promotions_per_step: None,
            demotions_per_step: None,
            hero_relevance: None,
            medium_relevance: None,
            avoidance_budget: Some(128),
            crowd_governor: false,
            crowd_budget_ms: 8.0,
            default_relevance: 0.0,
            exits: Vec::new(),
        }
    }
}

/// The tier fields a policy sets and a scenario may override, in canonical order.
pub const TIER_FIELDS: [&str; 10] = [
    "full_enter_m",
    "full_exit_m",
    "simulated_enter_m",
    "simulated_exit_m",
    "full_capacity",
    "simulated_capacity",
    "promotions_per_step",
    "demotions_per_step",
    "hero_relevance",
    "medium_relevance",
];

impl MotionSettings {
    /// The struct's name as written in RON.
    pub const RON_NAME: &'static str = "Motion";
    /// Every field name a file may write, in canonical order.
    pub const FIELD_NAMES: &'static [&'static str] = &[
        "tier_policy",
        "full_enter_m",
        "full_exit_m",
        "simulated_enter_m",
        "simulated_exit_m",
        "full_capacity",
        "simulated_capacity",
        "promotions_per_step",
        "demotions_per_step",
        "hero_relevance",
        "medium_relevance",
        "avoidance_budget",
        "crowd_governor",
        "crowd_budget_ms",
        "default_relevance",
        "exits",
    ];

    /// The named policy, if it ships (an unknown name is the compiler's located error).
    pub fn policy(&self) -> Option<&'static TierPreset> {
        tier_policy(&self.tier_policy)
    }

    /// The named policy, or the default one for a name that ships no policy.
    pub fn policy_or_default(&self) -> &'static TierPreset {
        self.policy()
            .unwrap_or_else(super::tier_policies::default_tier_policy)
    }

    /// The tier values the scenario runs with: its policy's, each overridden by the field the
    /// scenario gives.
    pub fn tier_values(&self) -> TierValues {
        let p = self.policy_or_default().values;
        TierValues {
            full_enter_m: self.full_enter_m.unwrap_or(p.full_enter_m),
            full_exit_m: self.full_exit_m.unwrap_or(p.full_exit_m),
            simulated_enter_m: self.simulated_enter_m.unwrap_or(p.simulated_enter_m),
            simulated_exit_m: self.simulated_exit_m.unwrap_or(p.simulated_exit_m),
            full_capacity: self.full_capacity.unwrap_or(p.full_capacity),
            simulated_capacity: self.simulated_capacity.unwrap_or(p.simulated_capacity),
            promotions_per_step: self.promotions_per_step.unwrap_or(p.promotions_per_step),
            demotions_per_step: self.demotions_per_step.unwrap_or(p.demotions_per_step),
            hero_relevance: self.hero_relevance.unwrap_or(p.hero_relevance),
            medium_relevance: self.medium_relevance.unwrap_or(p.medium_relevance),
        }
    }

    /// Whether the scenario gives tier field `name` itself (rather than taking the policy's).
    pub fn is_given(&self, name: &str) -> bool {
        match name {
            "full_enter_m" => self.full_enter_m.is_some(),
            "full_exit_m" => self.full_exit_m.is_some(),
            "simulated_enter_m" => self.simulated_enter_m.is_some(),
            "simulated_exit_m" => self.simulated_exit_m.is_some(),
            "full_capacity" => self.full_capacity.is_some(),
            "simulated_capacity" => self.simulated_capacity.is_some(),
            "promotions_per_step" => self.promotions_per_step.is_some(),
            "demotions_per_step" => self.demotions_per_step.is_some(),
            "hero_relevance" => self.hero_relevance.is_some(),
            "medium_relevance" => self.medium_relevance.is_some(),
            _ => false,
        }
    }

    /// Chooses policy `name` and clears every tier override, so the scenario runs exactly the
    /// policy (what picking a policy in the Inspector does).
    pub fn choose_policy(&mut self, name: &str) {
        self.tier_policy = name.to_owned();
        self.full_enter_m = None;
        self.full_exit_m = None;
        self.simulated_enter_m = None;
        self.simulated_exit_m = None;
        self.full_capacity = None;
        self.simulated_capacity = None;
        self.promotions_per_step = None;
        self.demotions_per_step = None;
        self.hero_relevance = None;
        self.medium_relevance = None;
    }
}

impl Decode for MotionSettings {
    fn expected() -> String {
        "a `Motion(…)` struct".to_owned()
    }

    fn decode(node: &Node, cx: &mut Decoder) -> Option<Self> {
        let record = cx.record(node, Self::RON_NAME, Self::FIELD_NAMES)?;
        let d = MotionSettings::default();
        let tier_policy = cx.defaulted(&record, "tier_policy", d.tier_policy);
        let full_enter_m = cx.optional(&record, "full_enter_m");
        let full_exit_m = cx.optional(&record, "full_exit_m");
        let simulated_enter_m = cx.optional(&record, "simulated_enter_m");
        let simulated_exit_m = cx.optional(&record, "simulated_exit_m");
        let full_capacity = cx.optional(&record, "full_capacity");
        let simulated_capacity = cx.optional(&record, "simulated_capacity");
        let promotions_per_step = cx.optional(&record, "promotions_per_step");
        let demotions_per_step = cx.optional(&record, "demotions_per_step");
        let hero_relevance = cx.optional(&record, "hero_relevance");
        let medium_relevance = cx.optional(&record, "medium_relevance");
        let avoidance_budget = cx.defaulted(&record, "avoidance_budget", d.avoidance_budget);
        let crowd_governor = cx.defaulted(&record, "crowd_governor", d.crowd_governor);
        let crowd_budget_ms = cx.defaulted(&record, "crowd_budget_ms", d.crowd_budget_ms);
        let default_relevance = cx.defaulted(&record, "default_relevance", d.default_relevance);
        let exits = cx.defaulted(&record, "exits", d.exits);
        Some(MotionSettings {
            tier_policy: tier_policy?,
            full_enter_m: full_enter_m?,
            full_exit_m: full_exit_m?,
            simulated_enter_m: simulated_enter_m?,
            simulated_exit_m: simulated_exit_m?,
            full_capacity: full_capacity?,
            simulated_capacity: simulated_capacity?,
            promotions_per_step: promotions_per_step?,
            demotions_per_step: demotions_per_step?,
            hero_relevance: hero_relevance?,
            medium_relevance: medium_relevance?,
            avoidance_budget: avoidance_budget?,
            crowd_governor: crowd_governor?,
            crowd_budget_ms: crowd_budget_ms?,
            default_relevance: default_relevance?,
            exits: exits?,
        })
    }
}

impl Encode for MotionSettings {
    /// `tier_policy` only when not the default; each tier field only when given, bare.
    fn encode(&self) -> Doc {
        let mut fields = Vec::with_capacity(Self::FIELD_NAMES.len());
        if self.tier_policy != DEFAULT_TIER_POLICY {
            fields.push(("tier_policy", self.tier_policy.encode()));
        }
        let given: [(&'static str, Option<Doc>); 10] = [
            ("full_enter_m", self.full_enter_m.map(|v| v.encode())),
            ("full_exit_m", self.full_exit_m.map(|v| v.encode())),
            (
                "simulated_enter_m",
                self.simulated_enter_m.map(|v| v.encode()),
            ),
            (
                "simulated_exit_m",
                self.simulated_exit_m.map(|v| v.encode()),
            ),
            ("full_capacity", self.full_capacity.map(|v| v.encode())),
            (
                "simulated_capacity",
                self.simulated_capacity.map(|v| v.encode()),
            ),
            (
                "promotions_per_step",
                self.promotions_per_step.map(|v| v.encode()),
            ),
            (
                "demotions_per_step",
                self.demotions_per_step.map(|v| v.encode()),
            ),
            ("hero_relevance", self.hero_relevance.map(|v| v.encode())),
            (
                "medium_relevance",
                self.medium_relevance.map(|v| v.encode()),
            ),
        ];
        fields.extend(
            given
                .into_iter()
                .filter_map(|(name, doc)| Some((name, doc?))),
        );
        fields.extend([
            ("avoidance_budget", self.avoidance_budget.encode()),
            ("crowd_governor", self.crowd_governor.encode()),
            ("crowd_budget_ms", self.crowd_budget_ms.encode()),
            ("default_relevance", self.default_relevance.encode()),
            ("exits", self.exits.encode()),
        ]);
        Doc::Struct(Self::RON_NAME, fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::canonical_text;
    use crate::project::parse::parse;

    fn decode(text: &str) -> MotionSettings {
        let root = parse(text).root.expect("parses");
        let mut cx = Decoder::new("s.scenario.ron");
        let settings = MotionSettings::decode(&root, &mut cx);
        assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
        settings.expect("decodes")
    }

    #[test]
    fn a_file_written_before_policies_reads_and_writes_byte_for_byte() {
        let text = "Motion(\n    full_enter_m: 60.0,\n    full_exit_m: 70.0,\n    \
                    simulated_enter_m: 120.0,\n    simulated_exit_m: 140.0,\n    \
                    full_capacity: 400,\n    simulated_capacity: 400,\n    \
                    promotions_per_step: 400,\n    demotions_per_step: 400,\n    \
                    avoidance_budget: Some(128),\n    crowd_governor: true,\n    \
                    crowd_budget_ms: 8.0,\n    default_relevance: 0.9,\n    exits: [],\n)\n";
        let m = decode(text);
        assert_eq!(m.tier_policy, "motion-bands");
        assert_eq!(m.full_enter_m, Some(60.0));
        assert_eq!(m.hero_relevance, None);
        assert_eq!(canonical_text(&m), text);
        let v = m.tier_values();
        assert_eq!((v.full_enter_m, v.full_capacity), (60.0, 400));
        assert_eq!((v.hero_relevance, v.medium_relevance), (0.85, 0.35));
    }

    #[test]
    fn a_policy_fills_what_the_scenario_leaves_out_and_one_field_overrides_it() {
        let m = decode("Motion(tier_policy: \"crowd-radii\", simulated_exit_m: 20.0)");
        let v = m.tier_values();
        assert_eq!(
            (
                v.full_enter_m,
                v.full_exit_m,
                v.simulated_enter_m,
                v.simulated_exit_m
            ),
            (6.0, 6.0, 18.0, 20.0)
        );
        assert_eq!(v.full_capacity, u32::MAX);
        assert!(m.is_given("simulated_exit_m") && !m.is_given("full_enter_m"));
        let text = canonical_text(&m);
        assert!(
            text.starts_with("Motion(\n    tier_policy: \"crowd-radii\",\n    simulated_exit_m: 20.0,\n    avoidance_budget"),
            "{text}"
        );
        // The default policy with nothing given writes neither.
        let plain = canonical_text(&MotionSettings::default());
        assert!(!plain.contains("tier_policy") && !plain.contains("full_enter_m"));
        assert_eq!(decode(&plain), MotionSettings::default());
        assert_eq!(
            MotionSettings::default().tier_values(),
            crate::project::default_tier_policy().values
        );
    }

    #[test]
    fn choosing_a_policy_clears_the_overrides() {
        let mut m = decode("Motion(full_enter_m: 20.0, medium_relevance: 0.5)");
        m.choose_policy("crowd-radii");
        assert_eq!(m.tier_policy, "crowd-radii");
        assert!(TIER_FIELDS.iter().all(|f| !m.is_given(f)));
        assert_eq!(m.tier_values().medium_relevance, 0.35);
    }
}
