//! Tests of the assembly kernel: placements, sockets matched, draws re-derived independently,
//! and the same plan on any number of threads.

use std::num::NonZeroU32;

use super::*;
use crate::content::FamilyVariant;
use crate::ops::scatter::address::VARIANT;
use crate::rng::{sample_bounded, Domain, DomainKey};

fn module(id: &str, weight: u32, sockets: &[&str]) -> FamilyVariant {
    FamilyVariant {
        id: id.to_owned(),
        weight,
        exclusion_radius: 0,
        collision_radius_m: 1.0,
        height_m: 10.0,
        sockets: sockets.iter().map(|s| (*s).to_owned()).collect(),
    }
}

pub(crate) fn facade_family() -> FamilyData {
    FamilyData {
        id: "facade-modules".to_owned(),
        variants: vec![
            module("corner-brick", 2, &["corner"]),
            module("corner-stone", 1, &["corner"]),
            module("bay-window", 3, &["bay"]),
            module("bay-balcony", 1, &["bay"]),
            module("door-arched", 1, &["door"]),
            module("shopfront", 2, &["door", "bay"]),
        ],
    }
}

pub(crate) fn params(frames: u32, rotation_steps: u32) -> AssemblyParams {
    AssemblyParams {
        sockets: "corner bay door bay bay door bay corner"
            .split(' ')
            .map(str::to_owned)
            .collect(),
        frames,
        slot_pitch: 300,
        frame_gap: 100,
        origin_x: -7500,
        origin_y: 1000,
        rotation_steps,
        lattice_unit_m: 0.01,
        room: 1,
        layer: 0,
    }
}

#[test]
fn modules_sit_in_their_slots_with_packed_identities_and_exact_positions() {
    let plan = assemble(&params(3, 1), &facade_family(), 11, false).unwrap();
    assert_eq!(plan.modules.len(), 24);
    assert_eq!(plan.family, "facade-modules");
    for (index, m) in plan.modules.iter().enumerate() {
        let (frame, slot) = (index / 8, index % 8);
        assert_eq!((m.frame() as usize, m.slot() as usize), (frame, slot));
        assert_eq!(
            m.id.bits(),
            1u64 << 48 | (slot as u64) << 32 | (frame as u64) << 16
        );
        // Stride 8 × 300 + 100 = 2500; centre at half a pitch.
        assert_eq!(m.x, -7500 + 2500 * frame as i64 + 300 * slot as i64 + 150);
        assert_eq!(m.y, 1000);
        assert_eq!(m.rotation_turns_65536, 0);
    }
    assert_eq!(plan.modules[9].x, -7500 + 2500 + 300 + 150);
}

#[test]
fn every_module_fits_its_socket_and_equals_the_independent_draw() {
    let family = facade_family();
    let p = params(40, 4);
    let plan = assemble(&p, &family, 20261207, false).unwrap();
    let variant_key = DomainKey::new(20261207, Domain::Variant);
    let rotation_key = DomainKey::new(20261207, Domain::Transform);
    let mut matched = [0u32; 3];
    for m in &plan.modules {
        let socket = plan.socket_of(m);
        let variant = &family.variants[m.variant as usize];
        assert!(variant.fits(socket), "{} in {socket}", variant.id);
        // The fitting modules in family order with their weights, drawn by hand.
        let fitting: Vec<(usize, u32)> = family
            .variants
            .iter()
            .enumerate()
            .filter(|(_, v)| v.fits(socket))
            .map(|(i, v)| (i, v.weight))
            .collect();
        let total: u32 = fitting.iter().map(|(_, w)| w).sum();
        let draw = sample_bounded(
            &variant_key,
            VARIANT.address(m.id),
            NonZeroU32::new(total).unwrap(),
        )
        .unwrap();
        let mut end = 0;
        let expected = fitting
            .iter()
            .find(|(_, w)| {
                end += w;
                draw < end
            })
            .unwrap()
            .0;
        assert_eq!(m.variant as usize, expected);
        let k = sample_bounded(
            &rotation_key,
            crate::rng::Address::new(m.id.bits(), 0, 0),
            NonZeroU32::new(4).unwrap(),
        )
        .unwrap();
        assert_eq!(u32::from(m.rotation_turns_65536), k * 16384);
        matched[["corner", "bay", "door"]
            .iter()
            .position(|s| *s == socket)
            .unwrap()] += 1;
    }
    // 40 frames × (2 corners, 4 bays, 2 doors).
    assert_eq!(matched, [80, 160, 80]);
    // The shopfront fits doors and bays, so both kinds of slot chose it somewhere.
    let shop_sockets: std::collections::BTreeSet<&str> = plan
        .modules
        .iter()
        .filter(|m| m.variant == 5)
        .map(|m| plan.socket_of(m))
        .collect();
    assert_eq!(
        shop_sockets.into_iter().collect::<Vec<_>>(),
        ["bay", "door"]
    );
}

#[test]
fn the_plan_is_the_same_serial_parallel_and_on_any_number_of_threads() {
    let family = facade_family();
    let p = params(1250, 4);
    let serial = assemble(&p, &family, 7, false).unwrap();
    assert_eq!(serial.modules.len(), 10_000);
    let digest = crate::content::Product::AssemblyPlan(serial.clone()).digest();
    for threads in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let parallel = pool.install(|| assemble(&p, &family, 7, true).unwrap());
        assert_eq!(parallel, serial, "{threads} threads");
        assert_eq!(
            crate::content::Product::AssemblyPlan(parallel).digest(),
            digest
        );
    }
    // Another seed chooses other modules in the same slots.
    let other = assemble(&p, &family, 8, false).unwrap();
    let same = serial
        .modules
        .iter()
        .zip(&other.modules)
        .filter(|(a, b)| a.variant == b.variant)
        .count();
    assert!(same < 9_000, "{same}");
    assert!(serial
        .modules
        .iter()
        .zip(&other.modules)
        .all(|(a, b)| a.id == b.id && a.x == b.x));
}

#[test]
fn a_socket_no_module_fits_is_refused_by_name() {
    let mut p = params(2, 1);
    p.sockets[3] = "awning".to_owned();
    let error = assemble(&p, &facade_family(), 1, false).unwrap_err();
    assert_eq!(
        error,
        AssemblyError::NoFittingModule {
            family: "facade-modules".to_owned(),
            socket: "awning".to_owned(),
            slot: 3,
        }
    );
    p.sockets = vec!["bay".to_owned(); 129];
    assert!(matches!(
        assemble(&p, &facade_family(), 1, false),
        Err(AssemblyError::OutOfRange(_))
    ));
}

#[test]
fn choices_pick_through_cumulative_weights() {
    let choice = SocketChoice::new(&facade_family(), "bay").unwrap();
    // bay-window 3, bay-balcony 1, shopfront 2 → ends 3, 4, 6.
    assert_eq!(choice.total().get(), 6);
    let picks: Vec<u32> = (0..6).map(|v| choice.pick(v)).collect();
    assert_eq!(picks, [2, 2, 2, 3, 5, 5]);
    assert!(SocketChoice::new(&facade_family(), "roof").is_none());
}
