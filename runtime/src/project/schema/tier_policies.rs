//! Named tier policies of a scenario's `motion` (`tier_policy`): the values that classify agents
//! into Full / Simulated / Stub (the crowd specification's Hero / Medium / Background) — the
//! distance bands, the relevance thresholds, the capacities and the transition budgets.
//!
//! Two policies ship, one per source document:
//! - `motion-bands` (the default; the motion document's LOD policy): Full within 25 m, left
//!   beyond 32 m; Simulated within 55 m, left beyond 65 m (the different enter and exit
//!   distances are its hysteresis); 12 Full and 12 Simulated at once; 12 promotions and 24
//!   demotions per step. Relevance ≥ 0.85 / ≥ 0.35 raises the request (the crowd
//!   specification's thresholds, which the running world has always applied).
//! - `crowd-radii` (the crowd specification's `EvaluateTierForAgent`): Hero within 6 m or at
//!   relevance ≥ 0.85, Medium within 18 m or at ≥ 0.35, else Background — no hysteresis (each
//!   band's enter and exit distances are equal), no capacities and no transition budgets (the
//!   crowd governor's budget is what limits the cost).
//!
//! Precedence, field by field: a value the scenario gives > the policy's value. A scenario that
//! names no policy gets `motion-bands`, so files written before policies existed keep their
//! meaning (and their canonical bytes: `tier_policy` is written only when it is not the default).

/// The values a tier policy sets (every field a scenario may override).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierValues {
    /// Within this distance of the nearest observer an agent becomes Full, meters.
    pub full_enter_m: f64,
    /// Beyond this distance a Full agent leaves Full, meters.
    pub full_exit_m: f64,
    /// Within this distance an agent becomes Simulated, meters.
    pub simulated_enter_m: f64,
    /// Beyond this distance a Simulated agent becomes Stub, meters.
    pub simulated_exit_m: f64,
    /// Agents that may be Full at once.
    pub full_capacity: u32,
    /// Agents that may be Simulated at once.
    pub simulated_capacity: u32,
    /// Tier promotions applied per step.
    pub promotions_per_step: u32,
    /// Tier demotions applied per step.
    pub demotions_per_step: u32,
    /// At or above this relevance an agent asks for Full (Hero).
    pub hero_relevance: f64,
    /// At or above this relevance an agent asks for at least Simulated (Medium).
    pub medium_relevance: f64,
}

/// One named tier policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierPreset {
    /// The name a scenario's `tier_policy` gives.
    pub name: &'static str,
    /// Its name in the Inspector.
    pub label: &'static str,
    /// One line of documentation.
    pub doc: &'static str,
    /// The values it sets.
    pub values: TierValues,
}

/// The policy a scenario gets when it names none.
pub const DEFAULT_TIER_POLICY: &str = "motion-bands";

/// "No limit" for a capacity or a transition budget.
pub const UNLIMITED: u32 = u32::MAX;

/// The shipped policies, the default first (the `tier_policy` field's choices).
pub const TIER_POLICIES: &[TierPreset] = &[
    TierPreset {
        name: DEFAULT_TIER_POLICY,
        label: "Motion bands (25/32 m, 55/65 m)",
        doc: "The motion document's LOD policy: Full within 25 m (left beyond 32 m), Simulated \
              within 55 m (left beyond 65 m) — hysteresis between enter and exit; 12 Full and 12 \
              Simulated at once, 12 promotions and 24 demotions per step; relevance ≥ 0.85 / ≥ \
              0.35 raises the request.",
        values: TierValues {
            full_enter_m: 25.0,
            full_exit_m: 32.0,
            simulated_enter_m: 55.0,
            simulated_exit_m: 65.0,
            full_capacity: 12,
            simulated_capacity: 12,
            promotions_per_step: 12,
            demotions_per_step: 24,
            hero_relevance: 0.85,
            medium_relevance: 0.35,
        },
    },
    TierPreset {
        name: "crowd-radii",
        label: "Crowd radii (6 m, 18 m)",
        doc: "The crowd specification's classification: Hero within 6 m or at relevance ≥ 0.85, \
              Medium within 18 m or at ≥ 0.35, else Background; no hysteresis, no capacities, no \
              transition budgets (the crowd governor's budget limits the cost).",
        values: TierValues {
            full_enter_m: 6.0,
            full_exit_m: 6.0,
            simulated_enter_m: 18.0,
            simulated_exit_m: 18.0,
            full_capacity: UNLIMITED,
            simulated_capacity: UNLIMITED,
            promotions_per_step: UNLIMITED,
            demotions_per_step: UNLIMITED,
            hero_relevance: 0.85,
            medium_relevance: 0.35,
        },
    },
];

/// The policy named `name`, if one ships.
pub fn tier_policy(name: &str) -> Option<&'static TierPreset> {
    TIER_POLICIES.iter().find(|p| p.name == name)
}

/// The default policy.
pub fn default_tier_policy() -> &'static TierPreset {
    &TIER_POLICIES[0]
}

/// The policy names, quoted and joined (`` `motion-bands`, `crowd-radii` ``), as diagnostics and
/// the docs list them.
pub fn tier_policy_names() -> String {
    TIER_POLICIES
        .iter()
        .map(|p| format!("`{}`", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

impl TierValues {
    /// Every value by field name, in the `Motion(…)` record's order, as a file writes it
    /// (integers without a decimal point).
    pub fn fields(&self) -> [(&'static str, String); 10] {
        let float = |v: f64| format!("{v:?}");
        [
            ("full_enter_m", float(self.full_enter_m)),
            ("full_exit_m", float(self.full_exit_m)),
            ("simulated_enter_m", float(self.simulated_enter_m)),
            ("simulated_exit_m", float(self.simulated_exit_m)),
            ("full_capacity", self.full_capacity.to_string()),
            ("simulated_capacity", self.simulated_capacity.to_string()),
            ("promotions_per_step", self.promotions_per_step.to_string()),
            ("demotions_per_step", self.demotions_per_step.to_string()),
            ("hero_relevance", float(self.hero_relevance)),
            ("medium_relevance", float(self.medium_relevance)),
        ]
    }

    /// The value of field `name` as a number, if the policy sets it.
    pub fn number(&self, name: &str) -> Option<f64> {
        Some(match name {
            "full_enter_m" => self.full_enter_m,
            "full_exit_m" => self.full_exit_m,
            "simulated_enter_m" => self.simulated_enter_m,
            "simulated_exit_m" => self.simulated_exit_m,
            "full_capacity" => f64::from(self.full_capacity),
            "simulated_capacity" => f64::from(self.simulated_capacity),
            "promotions_per_step" => f64::from(self.promotions_per_step),
            "demotions_per_step" => f64::from(self.demotions_per_step),
            "hero_relevance" => self.hero_relevance,
            "medium_relevance" => self.medium_relevance,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policies_carry_their_documents_numbers() {
        let bands = tier_policy("motion-bands").expect("the default");
        assert_eq!(bands, default_tier_policy());
        let v = bands.values;
        assert_eq!(
            (
                v.full_enter_m,
                v.full_exit_m,
                v.simulated_enter_m,
                v.simulated_exit_m
            ),
            (25.0, 32.0, 55.0, 65.0)
        );
        assert_eq!(
            (
                v.full_capacity,
                v.simulated_capacity,
                v.promotions_per_step,
                v.demotions_per_step
            ),
            (12, 12, 12, 24)
        );
        let crowd = tier_policy("crowd-radii").expect("the crowd policy").values;
        assert_eq!(
            (
                crowd.full_enter_m,
                crowd.full_exit_m,
                crowd.simulated_enter_m,
                crowd.simulated_exit_m
            ),
            (6.0, 6.0, 18.0, 18.0)
        );
        assert_eq!((crowd.hero_relevance, crowd.medium_relevance), (0.85, 0.35));
        assert_eq!(crowd.full_capacity, u32::MAX);
        assert_eq!(tier_policy("crowd"), None);
        assert_eq!(tier_policy_names(), "`motion-bands`, `crowd-radii`");
    }

    #[test]
    fn every_field_is_listed_and_readable_as_a_number() {
        let v = default_tier_policy().values;
        for (name, text) in v.fields() {
            let number = v.number(name).expect("a policy field");
            assert_eq!(text.parse::<f64>().expect("a number"), number, "{name}");
        }
        assert_eq!(v.number("crowd_budget_ms"), None);
    }
}
