//! Tests of the structured event log: names, every detail type, positions and dropped counts.

use super::*;
use crate::content::StreamingCell;
use crate::sim::state::events::{
    BoxChange, BoxSlot, EventKind, EventPosition, RemovalCause, Unresolved, EVENTS_PER_KIND,
};
use crate::sim::state::MoveFailure;
use crate::sim::state::PathFailure;
use crate::sim::state::TaskChange;
use crate::sim::state::{RetireRefusal, RetireRule, SpawnRejection};
use crate::sim::AgentHandle;

#[test]
fn variant_names_are_snake_case_with_payloads_after_a_dot() {
    assert_eq!(
        variant_name(&SpawnRejection::OccupiedByPed),
        "occupied_by_ped"
    );
    assert_eq!(
        variant_name(&RetireRule::ExplicitDestroy),
        "explicit_destroy"
    );
    assert_eq!(
        variant_name(&MoveFailure::Query(PathFailure::NoPath)),
        "query.no_path"
    );
    assert_eq!(
        variant_name(&TaskChange::MoveFailed(MoveFailure::Query(
            PathFailure::StartOffGrid
        ))),
        "move_failed.query.start_off_grid"
    );
    assert_eq!(kind_name(EventKind::RolledBack.name()), "rolled_back");
    assert_eq!(kind_name(EventKind::RetireRefused.name()), "retire_refused");
}

#[test]
fn every_detail_is_an_object_with_its_fields() {
    let check = |detail: EventDetail, expected: serde_json::Value| {
        let json = serde_json::to_value(detail_json(detail)).unwrap_or_default();
        assert_eq!(json, expected, "{detail:?}");
    };
    check(EventDetail::None, serde_json::Value::Null);
    check(
        EventDetail::Rejection(SpawnRejection::InsideFrustum),
        serde_json::json!({"type": "rejection", "reason": "inside_frustum",
            "text": SpawnRejection::InsideFrustum.describe()}),
    );
    check(
        EventDetail::Refusal(RetireRefusal::WithinRetainRadius),
        serde_json::json!({"type": "retire_refusal", "reason": "within_retain_radius"}),
    );
    check(
        EventDetail::Batch {
            items: 3,
            reused: 1,
        },
        serde_json::json!({"type": "batch", "items": 3, "reused": 1}),
    );
    check(
        EventDetail::Retirement {
            pooled: true,
            rule: RetireRule::Range,
        },
        serde_json::json!({"type": "retirement", "pooled": true, "rule": "range",
            "text": RetireRule::Range.describe()}),
    );
    check(
        EventDetail::Removal(RemovalCause::Evicted),
        serde_json::json!({"type": "removal", "cause": "evicted",
            "text": RemovalCause::Evicted.describe()}),
    );
    check(
        EventDetail::Box(BoxSlot::NoSpawn, BoxChange::Cleared),
        serde_json::json!({"type": "box", "slot": "no_spawn", "change": "cleared"}),
    );
    check(
        EventDetail::Directive {
            index: 4,
            unresolved: Some(Unresolved::NotBorn),
        },
        serde_json::json!({"type": "directive", "index": 4, "unresolved": "not_born"}),
    );
    check(
        EventDetail::Flee {
            exit: NO_EXIT,
            arrival_ms: 2500,
            panic_milli: 750,
        },
        serde_json::json!({"type": "flee", "exit": null, "arrival_ms": 2500, "panic": 0.75}),
    );
    check(
        EventDetail::Task {
            session: 2,
            generation: 5,
            change: TaskChange::MoveFailed(MoveFailure::Query(PathFailure::NoPath)),
        },
        serde_json::json!({"type": "task", "session": 2, "generation": 5,
            "change": "move_failed", "reason": "query.no_path"}),
    );
    check(
        EventDetail::Task {
            session: 1,
            generation: 1,
            change: TaskChange::Arrived,
        },
        serde_json::json!({"type": "task", "session": 1, "generation": 1,
            "change": "arrived", "reason": null}),
    );
    check(
        EventDetail::Ring {
            outside: true,
            cell: Some(StreamingCell::new(-2, 3)),
        },
        serde_json::json!({"type": "ring", "outside": true, "cell": [-2, 3]}),
    );
}

#[test]
fn events_carry_their_positions_sources_and_per_kind_drops() {
    let mut log = EventLog::default();
    let at = EventPosition {
        x_m: 3.5,
        y_m: -1.25,
    };
    log.push_at(
        2,
        EventKind::Admitted,
        None,
        Some(1),
        EventDetail::None,
        Some(at),
    );
    for frame in 0..(EVENTS_PER_KIND as u64 + 3) {
        log.push(
            frame,
            EventKind::RolledBack,
            Some(AgentHandle::first(4)),
            Some(0),
            EventDetail::Rollback {
                complete: true,
                undone: 1,
            },
        );
    }
    let json = events_json(&log, &["north", "south"]);
    assert_eq!(json.schema, "stagecraft.events/1");
    assert_eq!(json.logged, EVENTS_PER_KIND as u64 + 4);
    assert_eq!(json.dropped, 3);
    assert_eq!(json.dropped_by_kind.get("rolled_back"), Some(&3));
    assert_eq!(json.dropped_by_kind.get("admitted"), Some(&0));
    assert_eq!(json.dropped_by_kind.len(), EVENT_KINDS.len());
    assert_eq!(json.events.len(), EVENTS_PER_KIND + 1);
    let admitted = &json.events[0];
    assert_eq!(admitted.kind, "admitted");
    assert_eq!(admitted.position_m, Some([3.5, -1.25]));
    assert_eq!(admitted.source.as_deref(), Some("south"));
    assert_eq!(admitted.detail, None);
    let rolled = &json.events[1];
    assert_eq!(rolled.handle.as_deref(), Some("4:0"));
    assert_eq!(rolled.position_m, None);
    assert_eq!(rolled.frame, 3, "the three oldest were dropped");
}

#[test]
fn positions_stay_out_of_the_canonical_bytes() {
    let push = |position| {
        let mut log = EventLog::default();
        log.push_at(
            1,
            EventKind::Retired,
            Some(AgentHandle::first(0)),
            Some(0),
            EventDetail::Retirement {
                pooled: true,
                rule: RetireRule::Band,
            },
            position,
        );
        let mut bytes = Vec::new();
        log.write_canonical(&mut bytes);
        bytes
    };
    let at = EventPosition {
        x_m: 10.0,
        y_m: 2.0,
    };
    assert_eq!(push(Some(at)), push(None));
}
