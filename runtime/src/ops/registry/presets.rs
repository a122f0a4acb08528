//! Named parameter presets of an operator: a choice parameter (such as `profile`) whose value fills
//! every parameter the stage leaves out with the preset's value, before the schema checks them.
//!
//! Precedence, field by field: a value the stage gives > the preset's value > the schema default.
//! A stage without the choice parameter compiles exactly as before (same parameter set, same cache
//! key); a preset is opt-in. The preset names are the choice parameter's [`ParamRange::Choice`],
//! so an unknown name is a located error like any value out of range.

use std::collections::BTreeMap;

use super::params::{ParamRange, ParamSpec};
use crate::project::ParamValue;

/// One value a preset sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PresetValue {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// A string.
    Str(&'static str),
}

impl PresetValue {
    /// The value as a parameter value.
    pub fn value(self) -> ParamValue {
        match self {
            PresetValue::Bool(v) => ParamValue::Bool(v),
            PresetValue::Int(v) => ParamValue::Int(v),
            PresetValue::Float(v) => ParamValue::Float(v),
            PresetValue::Str(v) => ParamValue::Str(v.to_owned()),
        }
    }

    /// The value as written in a recipe.
    pub fn describe(self) -> String {
        match self {
            PresetValue::Bool(v) => v.to_string(),
            PresetValue::Int(v) => v.to_string(),
            PresetValue::Float(v) => format!("{v:?}"),
            PresetValue::Str(v) => format!("\"{v}\""),
        }
    }
}

/// One named preset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// The name a stage gives the choice parameter.
    pub name: &'static str,
    /// One line of documentation.
    pub doc: &'static str,
    /// The parameters it sets, by name.
    pub values: &'static [(&'static str, PresetValue)],
}

/// The presets of an operator and the parameter that picks one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Presets {
    /// The choice parameter (empty when the operator has no presets).
    pub param: &'static str,
    /// The presets, in documentation order.
    pub rows: &'static [Preset],
}

impl Presets {
    /// No presets.
    pub const NONE: Presets = Presets {
        param: "",
        rows: &[],
    };

    /// The preset named `name`, if any.
    pub fn get(&self, name: &str) -> Option<&'static Preset> {
        self.rows.iter().find(|preset| preset.name == name)
    }

    /// `given` with the chosen preset's values filled in where `given` leaves a parameter out;
    /// `given` itself when no (known) preset is chosen.
    pub fn apply(&self, given: &BTreeMap<String, ParamValue>) -> BTreeMap<String, ParamValue> {
        let chosen = match given.get(self.param) {
            Some(ParamValue::Str(name)) if !self.param.is_empty() => self.get(name),
            _ => None,
        };
        let mut merged = given.clone();
        if let Some(preset) = chosen {
            for (name, value) in preset.values {
                merged
                    .entry((*name).to_owned())
                    .or_insert_with(|| value.value());
            }
        }
        merged
    }

    /// The preset `given` chooses, if it names a known one.
    pub fn chosen(&self, given: &BTreeMap<String, ParamValue>) -> Option<&'static Preset> {
        match given.get(self.param) {
            Some(ParamValue::Str(name)) => self.get(name),
            _ => None,
        }
    }

    /// Whether the choice parameter of `specs` lists exactly these presets' names (a test checks
    /// every built-in operator).
    pub fn matches_schema(&self, specs: &[ParamSpec]) -> bool {
        if self.param.is_empty() {
            return self.rows.is_empty();
        }
        let names: Vec<&str> = self.rows.iter().map(|p| p.name).collect();
        specs.iter().any(|spec| {
            spec.name == self.param && matches!(spec.range, ParamRange::Choice(c) if c == names)
        })
    }
}
