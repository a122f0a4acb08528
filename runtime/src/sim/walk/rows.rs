//! The agent rows one walker's step sees: the columns the walking loop reads or writes, as
//! slices of one range of rows ([`WalkRows`]), so that disjoint ranges of the world's rows can
//! step at once, each in place (`sim::motion::parallel`), without copying them out and back.
//!
//! A step of row `r` reads and writes only row `r` of these columns (its neighbours' bodies
//! come from the neighbour grid), so a view of a range holds everything its rows' steps need.
//!
//! Bands whose rows interleave (the long street's sidewalks alternate rows) cannot split the
//! columns into ranges: they share the world's rows through [`SharedRows`], which hands out a
//! view of one row at a time (an `unsafe` call whose callers keep the rows they view
//! disjoint); the copying path it replaces (`sim::motion::parallel`) stays, and the thread
//! count tests step both and compare them.

use std::marker::PhantomData;

use crate::project::Vec2;
use crate::sim::state::{AgentState, Agents, Liveness, WalkDecision};

/// Declares [`WalkRows`] over the listed columns of [`Agents`]: the `read` ones shared, the
/// `write` ones exclusive.
macro_rules! walk_rows {
    (
        read { $($(#[$rdoc:meta])* $read:ident: $rty:ty,)* }
        write { $($(#[$wdoc:meta])* $write:ident: $wty:ty,)* }
    ) => {
        /// One range of agent rows as the walking loop sees them (row 0 of the view is the
        /// range's first row): the columns a walker's step reads, and those it writes.
        #[derive(Debug)]
        pub struct WalkRows<'a> {
            $($(#[$rdoc])* pub $read: &'a [$rty],)*
            $($(#[$wdoc])* pub $write: &'a mut [$wty],)*
        }

        /// The rows of a [`WalkRows`] shared by bands that step disjoint rows of it at once,
        /// one row's view at a time ([`SharedRows::row`]): the read columns as shared slices,
        /// the written ones as pointers taken from the view's exclusive slices.
        #[derive(Debug)]
        pub struct SharedRows<'a> {
            $($read: &'a [$rty],)*
            $($write: *mut $wty,)*
            len: usize,
            /// The exclusive borrow of the written columns the pointers come from.
            _written: PhantomData<&'a mut [u8]>,
        }

        impl<'a> SharedRows<'a> {
            /// Shares `rows` (every column must hold as many rows as its positions; panics
            /// otherwise).
            pub fn of(rows: WalkRows<'a>) -> SharedRows<'a> {
                let len = rows.len();
                $(assert_eq!(rows.$read.len(), len, stringify!($read));)*
                $(assert_eq!(rows.$write.len(), len, stringify!($write));)*
                SharedRows {
                    $($read: rows.$read,)*
                    $($write: rows.$write.as_mut_ptr(),)*
                    len,
                    _written: PhantomData,
                }
            }

            /// Rows shared.
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether no row is shared.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// A view of row `row` alone (its row 0); panics when `row` is out of the rows.
            ///
            /// # Safety
            ///
            /// While the view lives, no other view of row `row` (from this or any other call)
            /// may be used: views of different rows may live at once, on any threads.
            #[allow(unsafe_code)]
            #[inline]
            pub unsafe fn row(&self, row: usize) -> WalkRows<'_> {
                assert!(row < self.len, "row {row} of {}", self.len);
                WalkRows {
                    $($read: &self.$read[row..=row],)*
                    // SAFETY: `row < len` and each pointer starts a column of `len` rows that
                    // `'a` borrows exclusively (`of`), so the slice lies inside that column;
                    // the caller keeps every live view of this row to this one, so nothing
                    // else reads or writes the element while the slice lives.
                    $($write: unsafe { std::slice::from_raw_parts_mut(self.$write.add(row), 1) },)*
                }
            }
        }

        // SAFETY: the pointers are the exclusive borrows of `'a` split into rows; a row's
        // element is only reached through `SharedRows::row`, whose callers keep the views of
        // one row from overlapping, so sharing the rows among threads gives each element one
        // user at a time. Every column's type is plain data (`Send` and `Sync`).
        #[allow(unsafe_code)]
        unsafe impl Sync for SharedRows<'_> {}
        // SAFETY: as for `Sync`: the struct only holds the borrow `'a` split into rows.
        #[allow(unsafe_code)]
        unsafe impl Send for SharedRows<'_> {}

        impl<'a> WalkRows<'a> {
            /// Every row of `agents`.
            #[inline]
            pub fn of(agents: &'a mut Agents) -> WalkRows<'a> {
                WalkRows {
                    $($read: &agents.$read,)*
                    $($write: &mut agents.$write,)*
                }
            }

            /// The view's rows before `mid` and from `mid` on (`mid` at most [`WalkRows::len`]).
            #[inline]
            pub fn split_at(self, mid: usize) -> (WalkRows<'a>, WalkRows<'a>) {
                $(let $read = self.$read.split_at(mid);)*
                $(let $write = self.$write.split_at_mut(mid);)*
                (
                    WalkRows { $($read: $read.0,)* $($write: $write.0,)* },
                    WalkRows { $($read: $read.1,)* $($write: $write.1,)* },
                )
            }
        }
    };
}

walk_rows! {
    read {
        /// The route each walks.
        route: u16,
        /// Its route's span in the flat route-point table.
        route_offset: u32,
        /// Its route's number of points.
        route_len: u32,
        /// Its own path's offset from its route's line, meters.
        path_offset_m: f64,
        /// Whether it stops at its route's goal.
        stops_at_route_end: bool,
        /// Walking speed, meters per second.
        speed_m_s: f64,
        /// Progress watch.
        liveness: Liveness,
        /// Whether its motion updates this step.
        updated: bool,
        /// Exit it flees to.
        flee_exit: u16,
        /// Goal of a traveller, threat of a fleer.
        target: Option<Vec2>,
    }
    write {
        /// Distance along its route, meters.
        distance_m: f64,
        /// Its walking direction along its route.
        direction: i8,
        /// Ground position, meters.
        position: Vec2,
        /// Unit facing direction.
        facing: Vec2,
        /// The point it walked towards.
        goal: Vec2,
        /// Fan angle of its last avoidance, degrees.
        steer_deg: i8,
        /// Steps since its last update.
        skipped_steps: u32,
        /// Fixed steps it was updated.
        steps: u64,
        /// What its step decided.
        walk_decision: WalkDecision,
        /// Its state.
        state: AgentState,
    }
}

impl WalkRows<'_> {
    /// Rows in the view.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether the view has no rows.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }
}

/// `rows` agents with every column a view holds filled: row `r` at (r, −r), speed r / 2,
/// `r` steps (for tests of views).
#[cfg(test)]
pub(crate) fn test_agents(rows: usize) -> Agents {
    let mut agents = Agents::default();
    for row in 0..rows {
        let value = row as f64;
        agents.position.push(Vec2 {
            x: value,
            y: -value,
        });
        agents.speed_m_s.push(value * 0.5);
        agents.steps.push(row as u64);
    }
    agents.route.resize(rows, 0);
    agents.route_offset.resize(rows, 0);
    agents.route_len.resize(rows, 0);
    agents.path_offset_m.resize(rows, 0.0);
    agents.stops_at_route_end.resize(rows, false);
    agents.liveness.resize(rows, Liveness::default());
    agents.updated.resize(rows, false);
    agents.flee_exit.resize(rows, 0);
    agents.target.resize(rows, None);
    agents.distance_m.resize(rows, 0.0);
    agents.direction.resize(rows, 1);
    agents.facing.resize(rows, Vec2::default());
    agents.goal.resize(rows, Vec2::default());
    agents.steer_deg.resize(rows, 0);
    agents.skipped_steps.resize(rows, 0);
    agents.walk_decision.resize(rows, WalkDecision::Idle);
    agents.state.resize(rows, AgentState::Walking);
    agents
}

#[cfg(test)]
mod tests {
    use super::{test_agents as agents, SharedRows, WalkRows};
    use crate::project::Vec2;

    #[test]
    #[allow(unsafe_code)]
    fn shared_rows_view_one_row_each_and_write_it_in_place() {
        let mut agents = agents(6);
        {
            let shared = SharedRows::of(WalkRows::of(&mut agents));
            assert_eq!(shared.len(), 6);
            // Two bands' rows interleaved, stepped from two threads at once.
            std::thread::scope(|scope| {
                for first in 0..2 {
                    let shared = &shared;
                    scope.spawn(move || {
                        for row in (first..6).step_by(2) {
                            // SAFETY: each thread views its own rows (even or odd), one at a
                            // time.
                            let view = unsafe { shared.row(row) };
                            assert_eq!(view.len(), 1);
                            assert_eq!(view.speed_m_s[0], row as f64 * 0.5);
                            view.steps[0] += 100 * (first as u64 + 1);
                            view.position[0].x += 10.0;
                        }
                    });
                }
            });
        }
        assert_eq!(agents.steps, vec![100, 201, 102, 203, 104, 205]);
        assert_eq!(agents.position[5], Vec2 { x: 15.0, y: -5.0 });
    }

    #[test]
    #[should_panic(expected = "row 3 of 3")]
    #[allow(unsafe_code)]
    fn a_shared_row_out_of_the_rows_panics() {
        let mut agents = agents(3);
        let shared = SharedRows::of(WalkRows::of(&mut agents));
        // SAFETY: no other view exists.
        let _view = unsafe { shared.row(3) };
    }

    #[test]
    fn a_split_view_writes_each_half_in_place() {
        let mut agents = agents(5);
        {
            let (low, high) = WalkRows::of(&mut agents).split_at(2);
            assert_eq!((low.len(), high.len()), (2, 3));
            // Row 0 of the upper view is row 2 of the agents.
            assert_eq!(high.speed_m_s[0], 1.0);
            assert_eq!(high.position[0], Vec2 { x: 2.0, y: -2.0 });
            low.steps[1] += 10;
            high.position[2] = Vec2 { x: 40.0, y: 41.0 };
        }
        assert_eq!(agents.steps, vec![0, 11, 2, 3, 4]);
        assert_eq!(agents.position[4], Vec2 { x: 40.0, y: 41.0 });
        assert_eq!(agents.position[3], Vec2 { x: 3.0, y: -3.0 });
    }

    #[test]
    fn an_empty_split_keeps_every_row_on_one_side() {
        let mut agents = agents(3);
        let (low, high) = WalkRows::of(&mut agents).split_at(0);
        assert!(low.is_empty());
        assert_eq!(high.len(), 3);
        assert_eq!(high.speed_m_s, &[0.0, 0.5, 1.0]);
    }
}
