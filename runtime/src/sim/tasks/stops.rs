//! Stop causes: why a ped with a task does not move, kept apart so that each is released only by
//! its owner — a Continue releases the command hold and nothing else, a standing deadline clears
//! only its own timing, and body suspension belongs to the knockdown module alone.

use crate::sim::state::Canonical;

/// One reason a ped stands still.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StopCause {
    /// A `Hold` directive; released by `Continue` (or replaced by `Redirect`) of the same parent.
    CommandHold,
    /// Standing until a deadline frame; released by the runtime clock.
    TimedStanding,
    /// The body is physically suspended (knocked down); only the knockdown module sets and
    /// clears it.
    BodySuspension,
    /// A higher-priority task holds the ped's movement.
    HigherPriorityTask,
    /// A vehicle relation (a seat, an intent, entering or exiting) takes the ped out of its
    /// movement's control; only the relation's change back to none releases it.
    VehicleRelation,
}

/// Every cause, in code order.
pub const STOP_CAUSES: [StopCause; 5] = [
    StopCause::CommandHold,
    StopCause::TimedStanding,
    StopCause::BodySuspension,
    StopCause::HigherPriorityTask,
    StopCause::VehicleRelation,
];

impl StopCause {
    /// A stable small number (index into [`STOP_CAUSES`]).
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// Who set a stop cause (and so who may release it).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum StopOwner {
    /// The directive parent of this session.
    Directive {
        /// The parent's session.
        session: u32,
    },
    /// The runtime clock (timed standing), until this frame.
    Clock {
        /// The frame at which the standing ends.
        until_frame: u64,
    },
    /// The knockdown module, for this recovery session.
    Knockdown {
        /// The recovery session.
        session: u32,
    },
    /// Another task of this session.
    Task {
        /// That task's session.
        session: u32,
    },
    /// The ped's vehicle relation (`SetVehicleRelation`).
    Relation,
}

pub use crate::sim::state::ReleaseRefusal;

/// A ped's stop causes, one slot per cause.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StopCauses {
    slots: [Option<StopOwner>; 5],
}

impl StopCauses {
    /// Sets `cause` for `owner` (replacing an earlier owner of the same cause).
    pub fn set(&mut self, cause: StopCause, owner: StopOwner) {
        self.slots[cause.code() as usize] = Some(owner);
    }

    /// Releases `cause` when `owner` holds it.
    pub fn release(&mut self, cause: StopCause, owner: StopOwner) -> Result<(), ReleaseRefusal> {
        let slot = &mut self.slots[cause.code() as usize];
        match slot {
            None => Err(ReleaseRefusal::NotSet),
            Some(held) if *held != owner => Err(ReleaseRefusal::NotOwner),
            Some(_) => {
                *slot = None;
                Ok(())
            }
        }
    }

    /// The owner of `cause`, if set.
    pub fn owner(&self, cause: StopCause) -> Option<StopOwner> {
        self.slots[cause.code() as usize]
    }

    /// Whether any cause is set.
    pub fn any(&self) -> bool {
        self.slots.iter().any(Option::is_some)
    }

    /// The set causes with their owners, in code order.
    pub fn active(&self) -> Vec<(StopCause, StopOwner)> {
        STOP_CAUSES
            .iter()
            .filter_map(|c| self.owner(*c).map(|o| (*c, o)))
            .collect()
    }

    /// Releases a timed standing whose deadline has come (the clock is its owner); true when it
    /// released one.
    pub fn tick(&mut self, frame: u64) -> bool {
        if let Some(StopOwner::Clock { until_frame }) = self.owner(StopCause::TimedStanding) {
            if frame >= until_frame {
                self.slots[StopCause::TimedStanding.code() as usize] = None;
                return true;
            }
        }
        false
    }

    /// Whether a cause holds the movement of the parent of session `running`: every set cause
    /// does, except the suspension a higher-priority task puts on the task below it, which
    /// never holds that higher task's own movement (its owner is the running parent).
    pub fn hold_running(&self, running: Option<u32>) -> bool {
        self.slots
            .iter()
            .enumerate()
            .any(|(code, slot)| match slot {
                None => false,
                Some(StopOwner::Task { session })
                    if code == StopCause::HigherPriorityTask.code() as usize =>
                {
                    Some(*session) != running
                }
                Some(_) => true,
            })
    }
}

impl Canonical for StopCauses {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        let (first, later) = self.slots.split_at(4);
        // The causes added later are written only while set, so worlds that never had one
        // keep their bytes.
        let later = later.iter().flatten();
        for slot in first.iter().map(Option::as_ref).chain(later.map(Some)) {
            let (tag, value) = match slot {
                None => (0u8, 0u64),
                Some(StopOwner::Directive { session }) => (1, u64::from(*session)),
                Some(StopOwner::Clock { until_frame }) => (2, *until_frame),
                Some(StopOwner::Knockdown { session }) => (3, u64::from(*session)),
                Some(StopOwner::Task { session }) => (4, u64::from(*session)),
                Some(StopOwner::Relation) => (5, 0),
            };
            bytes.push(tag);
            value.write_canonical(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_released_only_by_its_owner() {
        let mut stops = StopCauses::default();
        let parent = StopOwner::Directive { session: 1 };
        let body = StopOwner::Knockdown { session: 4 };
        stops.set(StopCause::CommandHold, parent);
        stops.set(StopCause::BodySuspension, body);
        // Recovery does not issue Continue for the script, nor the script for the body.
        assert_eq!(
            stops.release(StopCause::CommandHold, body),
            Err(ReleaseRefusal::NotOwner)
        );
        assert_eq!(
            stops.release(StopCause::BodySuspension, parent),
            Err(ReleaseRefusal::NotOwner)
        );
        assert_eq!(stops.release(StopCause::CommandHold, parent), Ok(()));
        assert_eq!(
            stops.release(StopCause::CommandHold, parent),
            Err(ReleaseRefusal::NotSet)
        );
        assert_eq!(stops.active(), vec![(StopCause::BodySuspension, body)]);
        // A standing deadline clears only its own timing.
        stops.set(
            StopCause::TimedStanding,
            StopOwner::Clock { until_frame: 10 },
        );
        assert!(!stops.tick(9));
        assert!(stops.owner(StopCause::TimedStanding).is_some());
        assert!(stops.tick(10));
        assert_eq!(stops.owner(StopCause::TimedStanding), None);
        assert_eq!(stops.owner(StopCause::BodySuspension), Some(body));
    }

    #[test]
    fn a_higher_priority_suspension_holds_every_movement_but_its_owners() {
        let mut stops = StopCauses::default();
        let escape = StopOwner::Task { session: 3 };
        stops.set(StopCause::HigherPriorityTask, escape);
        assert!(
            !stops.hold_running(Some(3)),
            "the owner's own movement runs"
        );
        assert!(stops.hold_running(Some(2)));
        assert!(stops.hold_running(None));
        // Nothing but the owner releases it, and a timed standing still holds the owner.
        assert_eq!(
            stops.release(
                StopCause::HigherPriorityTask,
                StopOwner::Task { session: 2 }
            ),
            Err(ReleaseRefusal::NotOwner)
        );
        stops.set(
            StopCause::TimedStanding,
            StopOwner::Clock { until_frame: 5 },
        );
        assert!(stops.hold_running(Some(3)));
        assert!(stops.tick(5));
        assert!(!stops.hold_running(Some(3)));
        assert_eq!(stops.release(StopCause::HigherPriorityTask, escape), Ok(()));
        assert!(!stops.hold_running(Some(2)));
    }
}
