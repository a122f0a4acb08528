//! The `assembly` kernel: modules of a module family placed in the sockets of a frame repeated
//! along a row, by socket type, with a seeded choice among the fitting modules.
//!
//! Addressing follows the scatter's (`CONTRACTS.md`, P0 scatter): module (frame f, slot s) has the
//! packed identity `pack(room, layer, candidate = s, cell x = f, cell y = 0)`; its module is
//! `sample_bounded(total weight of the modules fitting slot s's socket)` at (variant domain 2,
//! scope = packed id, event 0, dimension 0), mapped through the cumulative weights of the fitting
//! modules in family order; its rotation is `k · 65536 / rotation_steps` turns/65536 with
//! `k = sample_bounded(rotation_steps)` at (transform domain 3, packed id, 0, dimension 0), drawn
//! only when `rotation_steps > 1`. A slot's centre is
//! `origin + f·(slots·pitch + gap) + s·pitch + pitch/2` along x, `origin_y` across. Every module
//! depends only on its own address, so any split of the frames (threads) gives the same plan.

use std::num::NonZeroU32;

use rayon::prelude::*;

use crate::content::{AssemblyModule, AssemblyPlan, FamilyData};
use crate::identity::{pack_scatter_id, ScatterId};
use crate::ops::scatter::address::{DrawSlot, VARIANT};
use crate::rng::{sample_within, Bound, Domain, DomainKey, SamplerExhausted};

/// The rotation draw of a module, `sample_bounded(rotation_steps)`.
pub const ROTATION: DrawSlot = DrawSlot {
    domain: Domain::Transform,
    dimension: 0,
};

/// Most slots in a frame (slot indices are the identity's generated candidate indices).
pub const MAX_SLOTS: usize = 128;
/// Most frames along a row (frame indices are the identity's non-negative cell columns).
pub const MAX_FRAMES: u32 = i16::MAX as u32 + 1;

/// Typed, checked parameters of an assembly (lengths in lattice units).
#[derive(Debug, Clone, PartialEq)]
pub struct AssemblyParams {
    /// The socket type of each slot of a frame.
    pub sockets: Vec<String>,
    /// Frames along the row.
    pub frames: u32,
    /// Distance between slot centres.
    pub slot_pitch: i64,
    /// Gap between consecutive frames.
    pub frame_gap: i64,
    /// Start of the row, x.
    pub origin_x: i64,
    /// The row's line, y.
    pub origin_y: i64,
    /// Rotations a module may take (1: none; 4: quarter turns).
    pub rotation_steps: u32,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// Room (recipe instance) ordinal packed into identities.
    pub room: u32,
    /// Layer id packed into identities.
    pub layer: u32,
}

/// Why an assembly cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssemblyError {
    /// No module of the family fits a socket type of the frame.
    #[error("no module of family `{family}` fits socket `{socket}` (slot {slot})")]
    NoFittingModule {
        /// The family.
        family: String,
        /// The socket type.
        socket: String,
        /// Its slot.
        slot: usize,
    },
    /// A value does not fit the identity or the lattice.
    #[error("{0}")]
    OutOfRange(String),
    /// A draw exhausted its attempts.
    #[error("the module draw of {id:#018x} exhausted its attempts")]
    Exhausted {
        /// The module's identity.
        id: u64,
    },
}

/// The modules fitting one socket type: `(cumulative weight end, variant index)` in family order.
#[derive(Debug, Clone)]
pub struct SocketChoice {
    ends: Vec<(u32, u32)>,
    bound: Bound,
}

impl SocketChoice {
    /// The fitting modules of `socket` in `family`, or `None` when none fits.
    pub fn new(family: &FamilyData, socket: &str) -> Option<SocketChoice> {
        let mut total = 0u32;
        let mut ends = Vec::new();
        for (index, variant) in family.variants.iter().enumerate() {
            if variant.fits(socket) && variant.weight > 0 {
                total = total.saturating_add(variant.weight);
                ends.push((total, index as u32));
            }
        }
        let bound = Bound::new(NonZeroU32::new(total)?);
        Some(SocketChoice { ends, bound })
    }

    /// The variant a draw `value` below the total weight picks.
    pub fn pick(&self, value: u32) -> u32 {
        let at = self.ends.partition_point(|(end, _)| *end <= value);
        self.ends.get(at).map_or(0, |(_, variant)| *variant)
    }

    /// The total weight of the fitting modules.
    pub fn total(&self) -> NonZeroU32 {
        self.bound.get()
    }
}

/// What every module of one assembly shares: keys, bounds and the fitting modules per slot.
pub struct Assembler<'a> {
    params: &'a AssemblyParams,
    choices: Vec<SocketChoice>,
    variant_key: DomainKey,
    rotation_key: DomainKey,
    rotation_bound: Option<Bound>,
}

impl<'a> Assembler<'a> {
    /// Prepares the assembly of `params` over `family` at `seed`.
    pub fn new(
        params: &'a AssemblyParams,
        family: &FamilyData,
        seed: u64,
    ) -> Result<Assembler<'a>, AssemblyError> {
        if params.sockets.is_empty() || params.sockets.len() > MAX_SLOTS {
            return Err(AssemblyError::OutOfRange(format!(
                "a frame has 1 to {MAX_SLOTS} slots, not {}",
                params.sockets.len()
            )));
        }
        if params.frames > MAX_FRAMES {
            return Err(AssemblyError::OutOfRange(format!(
                "at most {MAX_FRAMES} frames, not {}",
                params.frames
            )));
        }
        let choices = params
            .sockets
            .iter()
            .enumerate()
            .map(|(slot, socket)| {
                SocketChoice::new(family, socket).ok_or_else(|| AssemblyError::NoFittingModule {
                    family: family.id.clone(),
                    socket: socket.clone(),
                    slot,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let rotation_bound = NonZeroU32::new(params.rotation_steps)
            .filter(|n| n.get() > 1)
            .map(Bound::new);
        Ok(Assembler {
            params,
            choices,
            variant_key: DomainKey::new(seed, Domain::Variant),
            rotation_key: DomainKey::new(seed, Domain::Transform),
            rotation_bound,
        })
    }

    /// The fitting modules of slot `slot`.
    pub fn choice(&self, slot: usize) -> Option<&SocketChoice> {
        self.choices.get(slot)
    }

    /// The packed identity of (frame, slot).
    pub fn id(&self, frame: u32, slot: usize) -> Result<ScatterId, AssemblyError> {
        pack_scatter_id(
            self.params.room,
            self.params.layer,
            slot as u32,
            i64::from(frame),
            0,
        )
        .map_err(|e| AssemblyError::OutOfRange(e.to_string()))
    }

    /// The centre of (frame, slot), lattice units.
    pub fn position(&self, frame: u32, slot: usize) -> (i64, i64) {
        let p = self.params;
        let stride = p.sockets.len() as i64 * p.slot_pitch + p.frame_gap;
        let x =
            p.origin_x + i64::from(frame) * stride + slot as i64 * p.slot_pitch + p.slot_pitch / 2;
        (x, p.origin_y)
    }

    /// The raw variant draw of `id` (below the slot's total weight).
    pub fn variant_draw(&self, id: ScatterId, slot: usize) -> Result<u32, SamplerExhausted> {
        let choice = &self.choices[slot.min(self.choices.len() - 1)];
        sample_within(&self.variant_key, VARIANT.address(id), &choice.bound)
    }

    /// The raw rotation draw of `id` (below `rotation_steps`), `None` without rotations.
    pub fn rotation_draw(&self, id: ScatterId) -> Option<Result<u32, SamplerExhausted>> {
        let bound = self.rotation_bound.as_ref()?;
        Some(sample_within(
            &self.rotation_key,
            ROTATION.address(id),
            bound,
        ))
    }

    /// The rotation of step `k`, 1/65536 turns.
    pub fn rotation_of(&self, k: u32) -> u16 {
        let steps = u64::from(self.params.rotation_steps.max(1));
        (u64::from(k) * 65_536 / steps) as u16
    }

    /// The module of (frame, slot).
    pub fn module(&self, frame: u32, slot: usize) -> Result<AssemblyModule, AssemblyError> {
        let id = self.id(frame, slot)?;
        let exhausted = |_| AssemblyError::Exhausted { id: id.bits() };
        let variant = self.choices[slot].pick(self.variant_draw(id, slot).map_err(exhausted)?);
        let rotation = match self.rotation_draw(id) {
            Some(draw) => self.rotation_of(draw.map_err(exhausted)?),
            None => 0,
        };
        let (x, y) = self.position(frame, slot);
        Ok(AssemblyModule {
            id,
            x,
            y,
            variant,
            rotation_turns_65536: rotation,
        })
    }

    /// The modules of `frame`, in slot order, into `out` (one per slot).
    fn frame_into(&self, frame: u32, out: &mut [AssemblyModule]) -> Result<(), AssemblyError> {
        for (slot, module) in out.iter_mut().enumerate() {
            *module = self.module(frame, slot)?;
        }
        Ok(())
    }

    /// Every module, by (frame, slot); with `parallel`, frames are spread over the current rayon
    /// pool (the result is the same).
    pub fn assemble(&self, parallel: bool) -> Result<Vec<AssemblyModule>, AssemblyError> {
        let slots = self.params.sockets.len();
        let blank = AssemblyModule {
            id: self.id(0, 0)?,
            x: 0,
            y: 0,
            variant: 0,
            rotation_turns_65536: 0,
        };
        let mut modules = vec![blank; slots * self.params.frames as usize];
        if parallel {
            modules
                .par_chunks_mut(slots)
                .enumerate()
                .try_for_each(|(frame, out)| self.frame_into(frame as u32, out))?;
        } else {
            for (frame, out) in modules.chunks_mut(slots).enumerate() {
                self.frame_into(frame as u32, out)?;
            }
        }
        Ok(modules)
    }
}

/// Assembles `params` over `family` at `seed` into a plan.
pub fn assemble(
    params: &AssemblyParams,
    family: &FamilyData,
    seed: u64,
    parallel: bool,
) -> Result<AssemblyPlan, AssemblyError> {
    let modules = Assembler::new(params, family, seed)?.assemble(parallel)?;
    Ok(AssemblyPlan {
        family: family.id.clone(),
        variant_ids: family.variant_ids(),
        sockets: params.sockets.clone(),
        lattice_unit_m: params.lattice_unit_m,
        modules,
    })
}

#[cfg(test)]
pub(crate) mod tests;
