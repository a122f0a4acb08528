//! The compiler's diagnostics collector: every rule it checks pushes a [`SimProblem`] at the
//! field path of the value, and compiling fails with all of them at once.

use crate::project::{scenario_field, FieldPath, FieldSchema, NumberRange, Vec2, Vec3};
use crate::sim::config::is_directive_duration;
use crate::sim::problems::{SimDiagnostic, SimProblem};

/// Collects diagnostics while compiling.
pub(super) struct Problems {
    pub(super) diagnostics: Vec<SimDiagnostic>,
}

impl Problems {
    pub(super) fn push(&mut self, path: FieldPath, problem: SimProblem) {
        self.diagnostics.push(SimDiagnostic { path, problem });
    }

    pub(super) fn finite(&mut self, path: FieldPath, values: &[f64]) {
        if values.iter().any(|v| !v.is_finite()) {
            self.push(path, SimProblem::NonFinite);
        }
    }

    pub(super) fn positive(&mut self, path: FieldPath, value: f64) {
        if !value.is_finite() {
            self.push(path, SimProblem::NonFinite);
        } else if value <= 0.0 {
            self.push(path, SimProblem::NotPositive { value });
        }
    }

    /// `value` against the range of its field schema (`project::SCENARIO_SECTIONS`): a
    /// positive range is reported as "not a positive number", any other as out of range.
    fn field(&mut self, path: FieldPath, field: &FieldSchema, value: f64) {
        match field.range {
            Some(range) if range.is_positive() => self.positive(path, value),
            Some(range) => self.in_range(path, value, &range),
            None => {}
        }
    }

    /// Each of `fields` (name, value) of scenario section `section`, against its schema.
    pub(super) fn section(&mut self, path: &FieldPath, section: &str, fields: &[(&str, f64)]) {
        for (name, value) in fields {
            self.field(path.field(name), scenario_field(section, name), *value);
        }
    }

    /// A number outside its documented range (`project::SCENARIO_SECTIONS`).
    pub(super) fn in_range(&mut self, path: FieldPath, value: f64, range: &NumberRange) {
        if !value.is_finite() {
            self.push(path, SimProblem::NonFinite);
        } else if !range.contains(value) {
            self.push(
                path,
                SimProblem::OutOfRange {
                    value,
                    range: range.text,
                },
            );
        }
    }
}

/// A value that must lie in [0, 1].
pub(super) fn unit_interval(problems: &mut Problems, path: FieldPath, value: f64) {
    if !(0.0..=1.0).contains(&value) {
        problems.push(
            path,
            SimProblem::OutOfRange {
                value,
                range: "a value in [0, 1]",
            },
        );
    }
}

/// A directive's duration, which must lie in (0, 3600] seconds.
pub(super) fn directive_duration(problems: &mut Problems, path: FieldPath, duration_s: f64) {
    if !is_directive_duration(duration_s) {
        problems.push(
            path,
            SimProblem::OutOfRange {
                value: duration_s,
                range: crate::project::DIRECTIVE_DURATION_RANGE.text,
            },
        );
    }
}

pub(super) fn xyz(v: Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// Keys must ascend by frame: the first that does not is a problem at its `frame` field.
pub(super) fn ascending_frames(problems: &mut Problems, keys: FieldPath, frames: &[u64]) {
    if let Some(index) = frames.windows(2).position(|f| f[0] >= f[1]) {
        problems.push(
            keys.index(index + 1).field("frame"),
            SimProblem::UnorderedKeyframe {
                frame: frames[index + 1],
                previous: frames[index],
            },
        );
    }
}

pub(super) fn ground(v: Vec3) -> Vec2 {
    Vec2 { x: v.x, y: v.y }
}
