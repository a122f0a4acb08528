//! The one validity rule of an axis-aligned box, below both the document (`project::validate`
//! warns about a directive's box) and the simulation (the scenario compiler rejects a bad
//! scenario box; the population refuses a bad box at run time): finite corners and
//! `min <= max` on every axis. Each caller keeps its own message; the rule lives only here.

/// The names of the axes, by index.
pub const AXIS_NAMES: [char; 3] = ['x', 'y', 'z'];

/// Why two corners do not make a box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxFault {
    /// A corner coordinate is NaN or infinite.
    NonFinite,
    /// The minimum exceeds the maximum on this axis (0 = x, 1 = y, 2 = z).
    Inverted(usize),
}

/// The axes on which `min_m` exceeds `max_m`, ascending (a NaN coordinate inverts no axis).
pub fn inverted_axes(min_m: [f64; 3], max_m: [f64; 3]) -> impl Iterator<Item = usize> {
    (0..3).filter(move |&axis| min_m[axis] > max_m[axis])
}

/// The first fault of the box `min_m..=max_m`: a non-finite corner, else its first inverted
/// axis; `None` for a valid box.
pub fn box_fault(min_m: [f64; 3], max_m: [f64; 3]) -> Option<BoxFault> {
    if min_m.iter().chain(&max_m).any(|v| !v.is_finite()) {
        return Some(BoxFault::NonFinite);
    }
    inverted_axes(min_m, max_m).next().map(BoxFault::Inverted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_checked_for_finite_corners_first_then_each_axis_in_order() {
        assert_eq!(box_fault([0.0; 3], [1.0, 0.0, 2.0]), None);
        assert_eq!(
            box_fault([0.0, 3.0, 5.0], [1.0, 2.0, 4.0]),
            Some(BoxFault::Inverted(1))
        );
        assert_eq!(
            box_fault([f64::NAN, 3.0, 0.0], [1.0, 2.0, 0.0]),
            Some(BoxFault::NonFinite)
        );
        assert_eq!(
            inverted_axes([2.0, 0.0, 5.0], [1.0, 0.0, 4.0]).collect::<Vec<_>>(),
            vec![0, 2]
        );
        assert_eq!(inverted_axes([f64::NAN; 3], [0.0; 3]).count(), 0);
    }
}
