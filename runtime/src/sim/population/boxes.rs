//! The two box slots: one no-spawn box (blocks future ambient births) and one no-removal box
//! (protects existing ambient members from automatic retirement, not from explicit
//! destruction). Setting a slot replaces its box, clearing is independent, containment is
//! inclusive in X, Y and Z; a non-finite box or one with min > max (`SimBox::fault`, the one rule)
//! is refused and the slot keeps its box. Only a world reset clears both.

use crate::boxes::BoxFault;
use crate::sim::config::SimBox;
use crate::sim::state::BoxSlot;

/// The world's two box slots.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Boxes {
    /// No ambient births inside.
    pub no_spawn: Option<SimBox>,
    /// Ambient members inside are not retired automatically.
    pub no_removal: Option<SimBox>,
}

impl Boxes {
    fn slot(&mut self, slot: BoxSlot) -> &mut Option<SimBox> {
        match slot {
            BoxSlot::NoSpawn => &mut self.no_spawn,
            BoxSlot::NoRemoval => &mut self.no_removal,
        }
    }

    /// Replaces `slot`'s box after validating it; on error nothing changes.
    pub fn set(&mut self, slot: BoxSlot, bounds: SimBox) -> Result<(), BoxFault> {
        if let Some(fault) = bounds.fault() {
            return Err(fault);
        }
        *self.slot(slot) = Some(bounds);
        Ok(())
    }

    /// Empties `slot` (the other slot is untouched).
    pub fn clear(&mut self, slot: BoxSlot) {
        *self.slot(slot) = None;
    }

    /// World reset: both slots empty.
    pub fn reset(&mut self) {
        *self = Boxes::default();
    }

    /// Whether a birth at `point_m` is blocked.
    pub fn blocks_spawn(&self, point_m: [f64; 3]) -> bool {
        self.no_spawn.is_some_and(|b| b.contains(point_m))
    }

    /// Whether a member at `point_m` is protected from automatic retirement.
    pub fn protects(&self, point_m: [f64; 3]) -> bool {
        self.no_removal.is_some_and(|b| b.contains(point_m))
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        for slot in [&self.no_spawn, &self.no_removal] {
            match slot {
                Some(b) => {
                    bytes.push(1);
                    for v in b.min_m.iter().chain(&b.max_m) {
                        bytes.extend_from_slice(&v.to_bits().to_le_bytes());
                    }
                }
                None => bytes.push(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> SimBox {
        SimBox {
            min_m: [0.0, 0.0, 0.0],
            max_m: [1.0, 2.0, 3.0],
        }
    }

    #[test]
    fn containment_is_inclusive_on_every_axis() {
        let mut boxes = Boxes::default();
        boxes.set(BoxSlot::NoSpawn, unit_box()).expect("valid box");
        for point in [
            [0.0, 1.0, 1.0],
            [1.0, 1.0, 1.0],
            [0.5, 0.0, 1.0],
            [0.5, 2.0, 1.0],
            [0.5, 1.0, 0.0],
            [0.5, 1.0, 3.0],
        ] {
            assert!(boxes.blocks_spawn(point), "{point:?} is on the boundary");
        }
        for point in [
            [-1e-9, 1.0, 1.0],
            [1.0 + 1e-9, 1.0, 1.0],
            [0.5, 2.0 + 1e-9, 1.0],
            [0.5, 1.0, 3.0 + 1e-9],
            [0.5, 1.0, -1e-9],
        ] {
            assert!(!boxes.blocks_spawn(point), "{point:?} is outside");
        }
        assert!(
            !boxes.protects([0.5, 1.0, 1.0]),
            "the slots are independent"
        );
    }

    #[test]
    fn an_invalid_box_leaves_the_old_box_and_clear_is_per_slot() {
        let mut boxes = Boxes::default();
        boxes.set(BoxSlot::NoSpawn, unit_box()).expect("valid");
        boxes.set(BoxSlot::NoRemoval, unit_box()).expect("valid");
        let inverted = SimBox {
            min_m: [0.0, 5.0, 0.0],
            max_m: [1.0, 2.0, 3.0],
        };
        assert_eq!(
            boxes.set(BoxSlot::NoSpawn, inverted),
            Err(BoxFault::Inverted(1))
        );
        let nan = SimBox {
            min_m: [f64::NAN, 0.0, 0.0],
            max_m: [1.0, 2.0, 3.0],
        };
        assert_eq!(boxes.set(BoxSlot::NoSpawn, nan), Err(BoxFault::NonFinite));
        assert_eq!(boxes.no_spawn, Some(unit_box()), "the old box stays");
        boxes.clear(BoxSlot::NoSpawn);
        assert_eq!(boxes.no_spawn, None);
        assert_eq!(boxes.no_removal, Some(unit_box()));
        boxes.reset();
        assert_eq!(boxes, Boxes::default());
    }
}
