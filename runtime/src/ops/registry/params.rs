//! Operator parameter schemas: name, type, unit, range, default and a one-line doc per parameter,
//! and the checked, default-filled [`ParamSet`] kernels decode their typed parameters from.
//!
//! One schema serves three readers: the recipe compiler (which reports every problem with the
//! parameter's name), the editor's Inspector (widgets from type, unit and range) and `stagecraft
//! ops` (documentation). Integers are accepted where a number is expected and stored as floats, so
//! `4` and `4.0` compile to the same parameters and the same cache key.

use std::collections::BTreeMap;

use crate::content::encode::ByteWriter;
use crate::content::ChunkRole;
use crate::ops::grid_mission::ChunkDefinition;
use crate::ops::scatter::Rect;
use crate::project::chunk_library::ChunkLibrary;
use crate::project::ParamValue;

/// The type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `true` / `false`.
    Bool,
    /// An integer.
    Int,
    /// A number (integers are accepted).
    Float,
    /// A string.
    Str,
    /// A list of strings.
    StrList,
    /// A non-empty half-open integer rectangle `(x0, y0, x1, y1)` with `x0 < x1`, `y0 < y1`.
    Rect,
    /// A list of [`ParamType::Rect`].
    RectList,
    /// A point `(x, y)` of numbers.
    Point,
    /// A chunk library: a list of `("id", "role", npc_spawn_tag)`.
    ChunkList,
    /// The id of a chunk library of the project (`chunks/<id>.chunks.ron`), resolved by the
    /// compiler to the library's rows ([`super::library_value`]).
    ChunkLibrary,
}

impl ParamType {
    /// How a value of this type is written, for "expected" texts and documentation.
    pub const fn describe(self) -> &'static str {
        match self {
            ParamType::Bool => "a boolean",
            ParamType::Int => "an integer",
            ParamType::Float => "a number",
            ParamType::Str => "a string",
            ParamType::StrList => "a list of strings",
            ParamType::Rect => {
                "a rectangle `(x0, y0, x1, y1)` of integers with x0 < x1 and y0 < y1"
            }
            ParamType::RectList => "a list of rectangles `(x0, y0, x1, y1)`",
            ParamType::Point => "a point `(x, y)` of numbers",
            ParamType::ChunkList => "a list of chunks `(\"id\", \"role\", npc_spawn_tag)`",
            ParamType::ChunkLibrary => {
                "the id of a chunk library in the project's `chunks/` folder"
            }
        }
    }

    /// The type's short name.
    pub const fn name(self) -> &'static str {
        match self {
            ParamType::Bool => "bool",
            ParamType::Int => "int",
            ParamType::Float => "float",
            ParamType::Str => "string",
            ParamType::StrList => "string list",
            ParamType::Rect => "rect",
            ParamType::RectList => "rect list",
            ParamType::Point => "point",
            ParamType::ChunkList => "chunk list",
            ParamType::ChunkLibrary => "chunk library",
        }
    }
}

/// The allowed range of every scalar in a value (inclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamRange {
    /// Anything the type allows.
    Any,
    /// Integers (and each coordinate of rectangles) in `min..=max`.
    Int {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// Numbers (and each coordinate of points) in `min..=max`.
    Float {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
    /// A string that is one of these names (the names of an operator's presets).
    Choice(&'static [&'static str]),
}

impl ParamRange {
    /// The range as text, such as `1..=256`.
    pub fn describe(&self) -> String {
        match self {
            ParamRange::Any => "any".to_owned(),
            ParamRange::Int { min, max } => format!("{min}..={max}"),
            ParamRange::Float { min, max } => format!("{min:?}..={max:?}"),
            ParamRange::Choice(names) => format!("one of: {}", names.join(", ")),
        }
    }
}

/// What happens when a recipe leaves a parameter out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamDefault {
    /// It must be given.
    Required,
    /// It may be absent (the operator says what absence means, usually "from an input").
    Optional,
    /// A boolean default.
    Bool(bool),
    /// An integer default.
    Int(i64),
    /// A number default.
    Float(f64),
    /// An empty list.
    EmptyList,
}

impl ParamDefault {
    /// The default as a value, if there is one.
    pub fn value(&self) -> Option<ParamValue> {
        match *self {
            ParamDefault::Required | ParamDefault::Optional => None,
            ParamDefault::Bool(value) => Some(ParamValue::Bool(value)),
            ParamDefault::Int(value) => Some(ParamValue::Int(value)),
            ParamDefault::Float(value) => Some(ParamValue::Float(value)),
            ParamDefault::EmptyList => Some(ParamValue::List(Vec::new())),
        }
    }
}

/// The schema of one parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec {
    /// The name used in recipes.
    pub name: &'static str,
    /// Its type.
    pub ty: ParamType,
    /// Its unit (`m`, `lattice units`, `‰`…; empty when unitless).
    pub unit: &'static str,
    /// The allowed range of each scalar.
    pub range: ParamRange,
    /// What absence means.
    pub default: ParamDefault,
    /// One line of documentation.
    pub doc: &'static str,
}

/// One problem with a stage's parameters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ParamProblem {
    /// The parameter (empty when the problem is about the parameter map as a whole).
    pub field: String,
    /// The item of a list parameter at fault, when one is.
    pub item: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// What was expected instead.
    pub expected: String,
}

impl ParamProblem {
    /// A problem with parameter `field`.
    pub fn new(field: &str, message: impl Into<String>, expected: impl Into<String>) -> Self {
        ParamProblem {
            field: field.to_owned(),
            item: None,
            message: message.into(),
            expected: expected.into(),
        }
    }

    /// The same problem, placed at item `index` of the list parameter.
    pub fn at_item(mut self, index: usize) -> Self {
        self.item = Some(index);
        self
    }
}

/// Checked parameters: every given value has its declared type and range, and defaults are filled
/// in. Only [`ParamSet::check`] makes one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParamSet {
    values: BTreeMap<&'static str, ParamValue>,
}

impl ParamSet {
    /// Checks `given` against `specs`: unknown names, types, ranges, missing required parameters.
    /// Every problem is reported, in parameter-name order.
    pub fn check(
        specs: &[ParamSpec],
        given: &BTreeMap<String, ParamValue>,
    ) -> Result<ParamSet, Vec<ParamProblem>> {
        let mut problems = Vec::new();
        for name in given.keys() {
            if !specs.iter().any(|spec| spec.name == name) {
                let known: Vec<&str> = specs.iter().map(|spec| spec.name).collect();
                problems.push(ParamProblem::new(
                    name,
                    format!("unknown parameter `{name}`"),
                    format!("one of: {}", known.join(", ")),
                ));
            }
        }
        let mut values = BTreeMap::new();
        for spec in specs {
            match given.get(spec.name) {
                Some(value) => match normalize(spec, value) {
                    Ok(value) => {
                        values.insert(spec.name, value);
                    }
                    Err(problem) => problems.push(problem),
                },
                None => match spec.default {
                    ParamDefault::Required => problems.push(ParamProblem::new(
                        spec.name,
                        format!("missing parameter `{}`", spec.name),
                        format!("`{}`: {}", spec.name, spec.ty.describe()),
                    )),
                    default => {
                        if let Some(value) = default.value() {
                            values.insert(spec.name, value);
                        }
                    }
                },
            }
        }
        problems.sort();
        if problems.is_empty() {
            Ok(ParamSet { values })
        } else {
            Err(problems)
        }
    }

    /// Whether `name` has a value (given or defaulted).
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// The value of `name`, if any.
    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.values.get(name)
    }

    /// Every value, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &ParamValue)> {
        self.values.iter().map(|(name, value)| (*name, value))
    }

    fn missing(name: &str) -> ParamProblem {
        ParamProblem::new(name, format!("parameter `{name}` has no value"), "a value")
    }

    /// An integer parameter.
    pub fn int(&self, name: &str) -> Result<i64, ParamProblem> {
        self.get(name)
            .and_then(ParamValue::as_int)
            .ok_or_else(|| Self::missing(name))
    }

    /// An integer parameter converted to `u32` (its range must fit).
    pub fn u32(&self, name: &str) -> Result<u32, ParamProblem> {
        let value = self.int(name)?;
        u32::try_from(value).map_err(|_| {
            ParamProblem::new(name, format!("{value} does not fit u32"), "0..=4294967295")
        })
    }

    /// A string parameter.
    pub fn str(&self, name: &str) -> Result<&str, ParamProblem> {
        match self.get(name) {
            Some(ParamValue::Str(value)) => Ok(value),
            _ => Err(Self::missing(name)),
        }
    }

    /// A number parameter.
    pub fn float(&self, name: &str) -> Result<f64, ParamProblem> {
        self.get(name)
            .and_then(ParamValue::as_f64)
            .ok_or_else(|| Self::missing(name))
    }

    /// An optional rectangle parameter.
    pub fn opt_rect(&self, name: &str) -> Result<Option<Rect>, ParamProblem> {
        self.get(name)
            .map(|v| as_rect(v).ok_or_else(|| Self::missing(name)))
            .transpose()
    }

    /// A rectangle-list parameter.
    pub fn rects(&self, name: &str) -> Result<Vec<Rect>, ParamProblem> {
        match self.get(name) {
            Some(ParamValue::List(items)) => items
                .iter()
                .map(|item| as_rect(item).ok_or_else(|| Self::missing(name)))
                .collect(),
            _ => Err(Self::missing(name)),
        }
    }

    /// An optional point parameter, as `(x, y)`.
    pub fn opt_point(&self, name: &str) -> Result<Option<(f64, f64)>, ParamProblem> {
        self.get(name)
            .map(|v| as_point(v).ok_or_else(|| Self::missing(name)))
            .transpose()
    }

    /// A chunk-library parameter.
    pub fn chunks(&self, name: &str) -> Result<Vec<ChunkDefinition>, ParamProblem> {
        match self.get(name) {
            Some(ParamValue::List(items)) => items
                .iter()
                .map(|item| as_chunk(item).ok_or_else(|| Self::missing(name)))
                .collect(),
            _ => Err(Self::missing(name)),
        }
    }

    /// A resolved chunk-library parameter's library, if given.
    pub fn library(&self, name: &str) -> Result<Option<ChunkLibrary>, ParamProblem> {
        self.get(name)
            .map(|value| super::library_of(value).ok_or_else(|| Self::missing(name)))
            .transpose()
    }

    /// The canonical encoding: per parameter in name order, its name and tagged value.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::tagged(b"PARAMS01");
        w.count(self.values.len());
        for (name, value) in &self.values {
            w.str(name);
            encode_value(&mut w, value);
        }
        w.finish()
    }
}

fn encode_value(w: &mut ByteWriter, value: &ParamValue) {
    match value {
        ParamValue::Bool(v) => {
            w.u8(0).bool(*v);
        }
        ParamValue::Int(v) => {
            w.u8(1).i64(*v);
        }
        ParamValue::Float(v) => {
            w.u8(2).f64(*v);
        }
        ParamValue::Str(v) => {
            w.u8(3).str(v);
        }
        ParamValue::List(items) | ParamValue::Tuple(items) => {
            w.u8(if matches!(value, ParamValue::List(_)) {
                4
            } else {
                5
            });
            w.count(items.len());
            for item in items {
                encode_value(w, item);
            }
        }
    }
}

fn as_rect(value: &ParamValue) -> Option<Rect> {
    match value {
        ParamValue::Tuple(items) => match items.as_slice() {
            [a, b, c, d] => Some(Rect::new(
                a.as_int()?,
                b.as_int()?,
                c.as_int()?,
                d.as_int()?,
            )),
            _ => None,
        },
        _ => None,
    }
}

fn as_point(value: &ParamValue) -> Option<(f64, f64)> {
    match value {
        ParamValue::Tuple(items) => match items.as_slice() {
            [x, y] => Some((x.as_f64()?, y.as_f64()?)),
            _ => None,
        },
        _ => None,
    }
}

fn as_chunk(value: &ParamValue) -> Option<ChunkDefinition> {
    match value {
        ParamValue::Tuple(items) => match items.as_slice() {
            [ParamValue::Str(id), ParamValue::Str(role), ParamValue::Bool(tag)] => {
                Some(ChunkDefinition::new(
                    id.clone(),
                    ChunkRole::ALL.into_iter().find(|r| r.name() == role)?,
                    *tag,
                ))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Checks one given value and returns it in normal form (numbers as floats).
fn normalize(spec: &ParamSpec, value: &ParamValue) -> Result<ParamValue, ParamProblem> {
    let wrong = |found: &ParamValue| wrong_type(spec, found);
    let out_of_range = |shown: String| out_of_range(spec, shown);
    let int_ok = |v: i64| int_in_range(spec, v);
    let float_ok = |v: f64| float_in_range(spec, v);
    match spec.ty {
        ParamType::Bool => match value {
            ParamValue::Bool(_) => Ok(value.clone()),
            other => Err(wrong(other)),
        },
        ParamType::Str => match value {
            ParamValue::Str(text) => match spec.range {
                ParamRange::Choice(names) if !names.contains(&text.as_str()) => {
                    Err(out_of_range(format!("\"{text}\"")))
                }
                _ => Ok(value.clone()),
            },
            other => Err(wrong(other)),
        },
        ParamType::StrList => match value {
            ParamValue::List(items) if items.iter().all(|i| matches!(i, ParamValue::Str(_))) => {
                Ok(value.clone())
            }
            other => Err(wrong(other)),
        },
        ParamType::Int => match value {
            ParamValue::Int(v) if int_ok(*v) => Ok(value.clone()),
            ParamValue::Int(v) => Err(out_of_range(v.to_string())),
            other => Err(wrong(other)),
        },
        ParamType::Float => match value.as_f64() {
            Some(v) if float_ok(v) => Ok(ParamValue::Float(v)),
            Some(v) => Err(out_of_range(format!("{v:?}"))),
            None => Err(wrong(value)),
        },
        ParamType::Rect => check_rect(value, &int_ok).map_err(|bad| match bad {
            BadRect::NotARect => wrong(value),
            BadRect::OutOfRange(shown) => out_of_range(shown),
            BadRect::Empty(shown) => empty_rect(spec, None, &shown),
        }),
        ParamType::RectList => match value {
            ParamValue::List(items) => normalize_rect_list(spec, items),
            other => Err(wrong(other)),
        },
        ParamType::Point => match as_point(value) {
            Some((x, y)) if float_ok(x) && float_ok(y) => Ok(ParamValue::Tuple(vec![
                ParamValue::Float(x),
                ParamValue::Float(y),
            ])),
            Some((x, y)) => Err(out_of_range(format!("({x:?}, {y:?})"))),
            None => Err(wrong(value)),
        },
        ParamType::ChunkList => match value {
            ParamValue::List(items) if items.iter().all(|item| as_chunk(item).is_some()) => {
                Ok(value.clone())
            }
            ParamValue::List(items) => Err(invalid_chunk(spec, items)),
            other => Err(wrong(other)),
        },
        ParamType::ChunkLibrary => match value {
            ParamValue::Tuple(_) if super::library_of(value).is_some() => Ok(value.clone()),
            ParamValue::Str(id) => Err(ParamProblem::new(
                spec.name,
                format!("chunk library `{id}` was not resolved against a project"),
                spec.ty.describe(),
            )),
            other => Err(wrong(other)),
        },
    }
}

/// `spec`'s value is of the wrong type.
fn wrong_type(spec: &ParamSpec, found: &ParamValue) -> ParamProblem {
    ParamProblem::new(
        spec.name,
        format!("parameter `{}` is {}", spec.name, describe_value(found)),
        spec.ty.describe(),
    )
}

/// `spec`'s value (shown as `shown`) is outside its range.
fn out_of_range(spec: &ParamSpec, shown: String) -> ParamProblem {
    ParamProblem::new(
        spec.name,
        format!("parameter `{}` is {shown}, out of range", spec.name),
        format!(
            "{} in {}{}",
            spec.ty.describe(),
            spec.range.describe(),
            unit_suffix(spec)
        ),
    )
}

/// Whether `v` is in `spec`'s integer range (any integer when it has none).
fn int_in_range(spec: &ParamSpec, v: i64) -> bool {
    match spec.range {
        ParamRange::Int { min, max } => (min..=max).contains(&v),
        _ => true,
    }
}

/// Whether `v` is finite and in `spec`'s float range, if it has one.
fn float_in_range(spec: &ParamSpec, v: f64) -> bool {
    match spec.range {
        ParamRange::Float { min, max } => v.is_finite() && min <= v && v <= max,
        _ => v.is_finite(),
    }
}

/// Checks every rectangle of a list; the first bad one is the problem, located at its item.
fn normalize_rect_list(spec: &ParamSpec, items: &[ParamValue]) -> Result<ParamValue, ParamProblem> {
    let int_ok = |v: i64| int_in_range(spec, v);
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            check_rect(item, &int_ok).map_err(|bad| match bad {
                BadRect::NotARect => ParamProblem::new(
                    spec.name,
                    format!(
                        "item {index} of `{}` is {}",
                        spec.name,
                        describe_value(item)
                    ),
                    ParamType::Rect.describe(),
                )
                .at_item(index),
                BadRect::OutOfRange(shown) => ParamProblem::new(
                    spec.name,
                    format!("item {index} of `{}` is {shown}, out of range", spec.name),
                    format!(
                        "coordinates in {}{}",
                        spec.range.describe(),
                        unit_suffix(spec)
                    ),
                )
                .at_item(index),
                BadRect::Empty(shown) => empty_rect(spec, Some(index), &shown),
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(ParamValue::List)
}

/// The first item of a chunk list that is not a valid chunk.
fn invalid_chunk(spec: &ParamSpec, items: &[ParamValue]) -> ParamProblem {
    let roles: Vec<&str> = ChunkRole::ALL.iter().map(|r| r.name()).collect();
    let index = items
        .iter()
        .position(|item| as_chunk(item).is_none())
        .unwrap_or(0);
    ParamProblem::new(
        spec.name,
        format!("chunk {index} of `{}` is not a valid chunk", spec.name),
        format!(
            "(\"id\", \"role\", npc_spawn_tag) with role one of {}",
            roles.join(", ")
        ),
    )
}

/// Why a value is not an acceptable rectangle (with the rectangle as written, when it is one).
enum BadRect {
    NotARect,
    OutOfRange(String),
    Empty(String),
}

fn check_rect(value: &ParamValue, int_ok: &dyn Fn(i64) -> bool) -> Result<ParamValue, BadRect> {
    let rect = as_rect(value).ok_or(BadRect::NotARect)?;
    let shown = format!(
        "({}, {}, {}, {})",
        rect.min_x, rect.min_y, rect.max_x, rect.max_y
    );
    let coordinates = [rect.min_x, rect.min_y, rect.max_x, rect.max_y];
    if !coordinates.iter().all(|v| int_ok(*v)) {
        Err(BadRect::OutOfRange(shown))
    } else if rect.min_x >= rect.max_x || rect.min_y >= rect.max_y {
        Err(BadRect::Empty(shown))
    } else {
        Ok(value.clone())
    }
}

/// A zero-width, zero-height or inverted rectangle, at item `index` of a list when it is one.
fn empty_rect(spec: &ParamSpec, index: Option<usize>, shown: &str) -> ParamProblem {
    let what = match index {
        Some(index) => format!("item {index} of `{}`", spec.name),
        None => format!("parameter `{}`", spec.name),
    };
    let problem = ParamProblem::new(
        spec.name,
        format!("{what} is {shown}, which is empty or inverted: a rectangle (x0, y0, x1, y1) needs x0 < x1 and y0 < y1"),
        "a rectangle `(x0, y0, x1, y1)` with x0 < x1 and y0 < y1",
    );
    match index {
        Some(index) => problem.at_item(index),
        None => problem,
    }
}

fn unit_suffix(spec: &ParamSpec) -> String {
    if spec.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", spec.unit)
    }
}

fn describe_value(value: &ParamValue) -> String {
    match value {
        ParamValue::Bool(v) => format!("boolean `{v}`"),
        ParamValue::Int(v) => format!("integer `{v}`"),
        ParamValue::Float(v) => format!("number `{v:?}`"),
        ParamValue::Str(v) => format!("string {v:?}"),
        ParamValue::List(_) => "a list".to_owned(),
        ParamValue::Tuple(_) => "a tuple".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: [ParamSpec; 3] = [
        ParamSpec {
            name: "count",
            ty: ParamType::Int,
            unit: "",
            range: ParamRange::Int { min: 1, max: 8 },
            default: ParamDefault::Int(2),
            doc: "How many.",
        },
        ParamSpec {
            name: "length_m",
            ty: ParamType::Float,
            unit: "m",
            range: ParamRange::Float {
                min: 1.0,
                max: 10.0,
            },
            default: ParamDefault::Required,
            doc: "How long.",
        },
        ParamSpec {
            name: "region",
            ty: ParamType::Rect,
            unit: "lattice units",
            range: ParamRange::Any,
            default: ParamDefault::Optional,
            doc: "Where.",
        },
    ];

    fn given(items: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn defaults_fill_and_integers_count_as_numbers() {
        let set = ParamSet::check(&SPECS, &given(&[("length_m", ParamValue::Int(4))]))
            .unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(set.int("count"), Ok(2));
        assert_eq!(set.float("length_m"), Ok(4.0));
        assert!(!set.has("region"));
        let explicit = ParamSet::check(
            &SPECS,
            &given(&[
                ("length_m", ParamValue::Float(4.0)),
                ("count", ParamValue::Int(2)),
            ]),
        )
        .unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(set.canonical_bytes(), explicit.canonical_bytes());
    }

    #[test]
    fn every_problem_is_reported_by_name() {
        let problems = ParamSet::check(
            &SPECS,
            &given(&[
                ("count", ParamValue::Int(9)),
                ("colour", ParamValue::Str("red".into())),
                ("region", ParamValue::Tuple(vec![ParamValue::Int(0); 4])),
            ]),
        )
        .err()
        .unwrap_or_default();
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["colour", "count", "length_m", "region"]);
        assert!(problems[1].expected.contains("1..=8"), "{:?}", problems[1]);
    }
}
