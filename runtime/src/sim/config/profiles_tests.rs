//! Tests of the motion-profile maths with the specification's numbers.

use super::*;

const RUN_REFERENCE: f64 = 5.94324;
const TASK_SPEED: f64 = 3.30;
const DT: f64 = 1.0 / 60.0;

/// A straight curve at `speed_m_s` over `duration_s`.
fn linear(duration_s: f64, speed_m_s: f64) -> DistanceCurve {
    DistanceCurve::sampled(duration_s, |u| speed_m_s * duration_s * u)
}

#[test]
fn the_play_rate_is_speed_over_reference_clamped() {
    let rate = play_rate(TASK_SPEED, RUN_REFERENCE);
    assert!((rate - 0.555253).abs() < 1e-6, "{rate}");
    assert_eq!(play_rate(0.2, RUN_REFERENCE), MIN_PLAY_RATE);
    assert_eq!(play_rate(20.0, RUN_REFERENCE), MAX_PLAY_RATE);
    assert_eq!(play_rate(-1.0, RUN_REFERENCE), MIN_PLAY_RATE);
    assert_eq!(play_rate(1.0, 0.0), 1.0);
}

#[test]
fn the_budget_is_speed_times_dt() {
    // 330 cm/s at dt = 1/60 s: 5.5 cm.
    let step = budgeted_step(&linear(1.0, 1.0), 0.0, DT, TASK_SPEED, RUN_REFERENCE, 1.0);
    assert!((step.budget_m - 0.055).abs() < 1e-12);
    // A curve slower than the budget is not searched: the proposal is t + dt × rate.
    assert!(!step.searched);
    assert!((step.time_s - DT * 0.5552527).abs() < 1e-9);
    assert!((step.distance_m - DT * 0.5552527).abs() < 1e-9);
    // A negative speed has no budget.
    let none = budgeted_step(&linear(1.0, 1.0), 0.0, DT, -2.0, RUN_REFERENCE, 1.0);
    assert_eq!(none.budget_m, 0.0);
}

#[test]
fn the_binary_search_shortens_a_proposal_beyond_the_budget() {
    // 10 m/s of curve distance: the proposal (0.4 + dt × 0.5553) covers 9.25 cm > 5.5 cm.
    let curve = linear(1.0, 10.0);
    let step = budgeted_step(&curve, 0.4, DT, TASK_SPEED, RUN_REFERENCE, 1.0);
    assert!(step.searched);
    let proposal = DT * play_rate(TASK_SPEED, RUN_REFERENCE);
    assert!((step.proposed_m - 10.0 * proposal).abs() < 1e-9);
    // The exact fit is 0.4 + 0.0055 s; 12 halvings of the proposal land below it, within
    // proposal / 4096.
    let exact = 0.4 + 0.0055;
    assert!(step.time_s <= exact + 1e-12, "{}", step.time_s);
    assert!(exact - step.time_s < proposal / 4096.0, "{}", step.time_s);
    assert!(step.distance_m <= 0.055 + 1e-12);
    assert!(step.distance_m > 0.055 - 10.0 * proposal / 4096.0);
    // Replaying the 12 halvings gives the same time bit for bit.
    let (mut lo, mut hi) = (0.4, 0.4 + proposal);
    for _ in 0..SEARCH_ITERATIONS {
        let mid = 0.5 * (lo + hi);
        if (curve.at(mid) - curve.at(0.4)) <= 0.055 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    assert_eq!(step.time_s, lo);
}

#[test]
fn a_stop_scale_shrinks_the_curve_distance() {
    let stop = standard_profile(RUNNING).expect("running").stop;
    // Authored stop distance: 5.94324 m/s slowing to rest over 0.7 s = 2.080134 m.
    assert!(
        (stop.total_m() - 2.080134).abs() < 1e-6,
        "{}",
        stop.total_m()
    );
    // One meter left: scale 1 / 2.080134; the whole scaled clip covers exactly that meter.
    let scale = 1.0 / stop.total_m();
    let mut t = 0.0;
    let mut covered = 0.0;
    let mut steps = 0;
    while t < stop.duration_s {
        let step = budgeted_step(&stop, t, DT, TASK_SPEED, RUN_REFERENCE, scale);
        assert!(step.distance_m <= step.budget_m + 1e-12);
        covered += step.distance_m;
        t = step.time_s;
        steps += 1;
    }
    assert!((covered - 1.0).abs() < 1e-9, "{covered}");
    // 1.0 s of clip at play rate 0.5553 and dt 1/60: ⌈108.06⌉ = 109 steps.
    assert_eq!(steps, 109);
}

#[test]
fn curves_are_monotone_by_a_running_maximum_and_need_121_samples() {
    let mut samples = vec![0.0; CURVE_SAMPLES];
    samples[1] = 1.0;
    samples[2] = 0.5;
    samples[3] = 2.0;
    let curve = DistanceCurve::new(1.0, &samples).expect("curve");
    assert_eq!(&curve.samples_m[..5], &[0.0, 1.0, 1.0, 2.0, 2.0]);
    assert_eq!(curve.total_m(), 2.0);
    assert_eq!(
        DistanceCurve::new(1.0, &samples[..120]),
        Err(CurveProblem::SampleCount(120))
    );
    assert_eq!(
        DistanceCurve::new(0.0, &samples),
        Err(CurveProblem::Duration)
    );
    samples[7] = f64::NAN;
    assert_eq!(
        DistanceCurve::new(1.0, &samples),
        Err(CurveProblem::NotFinite)
    );
}

#[test]
fn the_loop_advances_by_accepted_distance_over_reference_speed() {
    let cycle = advance_cycle(0.65, 0.055, RUN_REFERENCE, 0.7);
    assert!((cycle - (0.65 + 0.055 / RUN_REFERENCE)).abs() < 1e-12);
    let wrapped = advance_cycle(0.695, 0.055, RUN_REFERENCE, 0.7);
    assert!((wrapped - (0.695 + 0.055 / RUN_REFERENCE - 0.7)).abs() < 1e-12);
    // No accepted travel, no loop travel.
    assert_eq!(advance_cycle(0.3, 0.0, RUN_REFERENCE, 0.7), 0.3);
}

#[test]
fn the_running_stop_tail_starts_near_0_7_s() {
    let running = standard_profile(RUNNING).expect("running");
    // Remaining ≤ 1 mm from sample 83 of 120 of the 1.0 s clip: 0.6917 s.
    assert!((running.stop_tail_start_s() - 83.0 / 120.0).abs() < 1e-12);
    assert_eq!(running.reference_speed_m_s, RUN_REFERENCE);
    assert_eq!(running.speed_m_s, TASK_SPEED);
}

#[test]
fn project_profiles_replace_the_standard_ones_of_their_id() {
    let mut brisk = standard_profile(WALKING).expect("walking");
    brisk.speed_m_s = 1.8;
    let mut crawl = standard_profile(WALKING).expect("walking");
    crawl.id = "crawl".into();
    let table = ProfileTable::with_project(vec![brisk, crawl]);
    assert!(!table.is_standard());
    assert_eq!(table.index_of(WALKING), Some(0));
    assert_eq!(table.index_of(RUNNING), Some(1));
    assert_eq!(table.index_of("crawl"), Some(2));
    assert_eq!(table.get(0).speed_m_s, 1.8);
    assert_eq!(table.get(99).id, WALKING);
    assert!(ProfileTable::standard().is_standard());
}
