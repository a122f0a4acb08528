//! A simulation's event log as a structured JSON document (`stagecraft simulate --events`):
//! every held event with its frame, kind, agent, source, ground position and a typed detail
//! object, and how many events of each kind the bounded log dropped.
//!
//! Presentation only: reading the log changes nothing, and the positions it prints are outside
//! the state digest. The JSON Schema is `docs/schemas/events.schema.json`
//! ([`events_schema_text`]); `docs/events.md` explains every detail type.

use std::collections::BTreeMap;
use std::fmt::Debug;

use schemars::JsonSchema;
use serde::Serialize;

use crate::sim::motion::panic::NO_EXIT;
use crate::sim::state::events::{Event, EventDetail, EventLog, EVENT_KINDS};

/// The event log as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Stagecraft simulation event log")]
pub struct EventsJson {
    /// The document and the version of its layout.
    #[schemars(extend("const" = "stagecraft.events/1"))]
    pub schema: String,
    /// Events logged in the whole run (held and dropped).
    pub logged: u64,
    /// Events dropped by the bounded log, every kind.
    pub dropped: u64,
    /// Events dropped, per kind (every kind listed, 0 when none was dropped).
    pub dropped_by_kind: BTreeMap<String, u64>,
    /// Every event still held, in the order they happened (ascending `seq`).
    pub events: Vec<EventJson>,
}

/// One event.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventJson {
    /// Position in the whole log (ascending, never reused).
    pub seq: u64,
    /// The frame it happened in.
    pub frame: u64,
    /// What happened (`EventKind`'s name in snake_case).
    #[schemars(pattern(r"^[a-z]+(_[a-z]+)*$"))]
    pub kind: String,
    /// The agent's handle, `index:generation`, for events about one agent.
    #[schemars(pattern(r"^[0-9]+:[0-9]+$"))]
    pub handle: Option<String>,
    /// The population source's id, for events about one source.
    pub source: Option<String>,
    /// Where on the ground it happened, meters (x east, y north): the candidate's feet for
    /// admissions, refused candidates and realizations; the agent's position for retirements
    /// and refused retirements; `null` for other kinds and for refusals of a whole demand.
    pub position_m: Option<[f64; 2]>,
    /// What the kind needs to say more, as an object tagged by `type`; `null` when nothing.
    pub detail: Option<DetailJson>,
}

/// The detail of an event, by `type`. Reasons, rules, causes and phases are the runtime's
/// enum variant names in snake_case (a payload after a `.`, e.g. `query.no_path`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum DetailJson {
    /// The admission gate that refused a candidate or a demand.
    Rejection {
        /// The gate (`SpawnRejection`).
        reason: String,
        /// The gate in words.
        text: String,
    },
    /// Why a ped was not retired (`RetireRefusal`).
    RetireRefusal {
        /// The reason.
        reason: String,
    },
    /// Why a claim or release was refused (`ClaimRefusal`).
    ClaimRefusal {
        /// The reason.
        reason: String,
    },
    /// A realized batch.
    Batch {
        /// Peds in the batch.
        items: u32,
        /// Of which reused from the pool.
        reused: u32,
    },
    /// A batch rollback.
    Rollback {
        /// Whether every compensation step succeeded.
        complete: bool,
        /// Items undone.
        undone: u32,
    },
    /// A retirement: the rule and where the ped went.
    Retirement {
        /// True when the ped entered the pool, false when it was destroyed.
        pooled: bool,
        /// The rule (`RetireRule`).
        rule: String,
        /// The rule in words.
        text: String,
    },
    /// Why a ped was destroyed (`RemovalCause`).
    Removal {
        /// The cause.
        cause: String,
        /// The cause in words.
        text: String,
    },
    /// A box slot change.
    Box {
        /// `no_spawn` or `no_removal`.
        slot: String,
        /// `set`, `cleared` or `refused`.
        change: String,
    },
    /// A directive applied, by its index in the scenario's list.
    Directive {
        /// Index in the scenario's directive list.
        index: u32,
        /// Why its target could not be resolved (`Unresolved`); `null` when it was.
        unresolved: Option<String>,
    },
    /// A panic and the exit the ped flees to.
    Flee {
        /// Index of the exit (scenario exits, then portals); `null` for none.
        exit: Option<u16>,
        /// Estimated arrival, milliseconds from now.
        arrival_ms: u32,
        /// Panic level afterwards, 0 to 1 (to the thousandth).
        panic: f64,
    },
    /// What a line-of-sight check recognised (`Recognition`).
    Recognition {
        /// What the ped saw.
        recognised: String,
    },
    /// Why an agent is stuck (`StuckReason`).
    Stuck {
        /// The reason.
        reason: String,
    },
    /// A task transition.
    Task {
        /// The directive parent's session (0: none).
        session: u32,
        /// The movement's generation (0: none).
        generation: u32,
        /// What happened (`TaskChange`'s variant).
        change: String,
        /// Its reason, for the changes that have one; `null` otherwise.
        reason: Option<String>,
    },
    /// A knockdown or recovery transition.
    Knockdown {
        /// The knockdown session; `null` for a refused knockdown.
        session: Option<u32>,
        /// The recovery phase entered (`RecoveryPhase`); `null` when the phase did not change.
        phase: Option<String>,
        /// Why (`KnockdownReason`).
        reason: String,
    },
    /// The streaming ring.
    Ring {
        /// True when the agent left the loaded ring, false when it came back.
        outside: bool,
        /// Its streaming cell (x, y); `null` for a position without one.
        cell: Option<[i32; 2]>,
    },
}

/// The event log `log` as JSON, with each source index named by `sources` (the scenario's
/// population sources in order).
pub fn events_json(log: &EventLog, sources: &[&str]) -> EventsJson {
    EventsJson {
        schema: super::schema_id("events"),
        logged: log.logged_total(),
        dropped: log.dropped_total(),
        dropped_by_kind: EVENT_KINDS
            .iter()
            .map(|kind| (kind_name(kind.name()), log.dropped(*kind)))
            .collect(),
        events: log.all().iter().map(|e| event_json(e, sources)).collect(),
    }
}

/// [`events_json`] as pretty-printed JSON text with a final newline.
pub fn events_json_text(log: &EventLog, sources: &[&str]) -> String {
    // Strings, integers and finite floats (positions of finite candidates and rows): printing
    // cannot fail.
    serde_json::to_string_pretty(&events_json(log, sources)).unwrap_or_default() + "\n"
}

/// The JSON Schema of [`EventsJson`]: `docs/schemas/events.schema.json`.
pub fn events_schema_text() -> String {
    super::schema_text::<EventsJson>()
}

/// An event kind's name as a JSON value and key: snake_case (`rolled back` → `rolled_back`).
pub fn kind_name(name: &str) -> String {
    name.replace(' ', "_")
}

fn event_json(event: &Event, sources: &[&str]) -> EventJson {
    EventJson {
        seq: event.seq,
        frame: event.frame,
        kind: kind_name(event.kind.name()),
        handle: event
            .handle
            .map(|h| format!("{}:{}", h.index, h.generation)),
        source: event
            .source
            .and_then(|s| sources.get(usize::from(s)))
            .map(|s| (*s).to_owned()),
        position_m: event.position.map(|p| [p.x_m, p.y_m]),
        detail: detail_json(event.detail),
    }
}

/// A runtime enum value's name: its variant in snake_case, a payload after a `.`
/// (`Query(NoPath)` → `query.no_path`).
pub fn variant_name(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    let mut name = String::with_capacity(text.len() + 4);
    let mut previous_lower = false;
    for c in text.chars() {
        match c {
            '(' => {
                name.push('.');
                previous_lower = false;
            }
            ')' | ' ' => {}
            c if c.is_ascii_uppercase() => {
                if previous_lower {
                    name.push('_');
                }
                name.push(c.to_ascii_lowercase());
                previous_lower = false;
            }
            c => {
                name.push(c);
                previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            }
        }
    }
    name
}

fn detail_json(detail: EventDetail) -> Option<DetailJson> {
    let name = |value: &dyn Debug| variant_name(&value);
    Some(match detail {
        EventDetail::None => return None,
        EventDetail::Rejection(r) => DetailJson::Rejection {
            reason: name(&r),
            text: r.describe().to_owned(),
        },
        EventDetail::Refusal(r) => DetailJson::RetireRefusal { reason: name(&r) },
        EventDetail::Claim(r) => DetailJson::ClaimRefusal { reason: name(&r) },
        EventDetail::Batch { items, reused } => DetailJson::Batch { items, reused },
        EventDetail::Rollback { complete, undone } => DetailJson::Rollback { complete, undone },
        EventDetail::Retirement { pooled, rule } => DetailJson::Retirement {
            pooled,
            rule: name(&rule),
            text: rule.describe().to_owned(),
        },
        EventDetail::Removal(cause) => DetailJson::Removal {
            cause: name(&cause),
            text: cause.describe().to_owned(),
        },
        EventDetail::Box(slot, change) => DetailJson::Box {
            slot: name(&slot),
            change: name(&change),
        },
        EventDetail::Directive { index, unresolved } => DetailJson::Directive {
            index,
            unresolved: unresolved.map(|u| name(&u)),
        },
        EventDetail::Flee {
            exit,
            arrival_ms,
            panic_milli,
        } => DetailJson::Flee {
            exit: (exit != NO_EXIT).then_some(exit),
            arrival_ms,
            panic: f64::from(panic_milli) / 1000.0,
        },
        EventDetail::Recognition(r) => DetailJson::Recognition {
            recognised: name(&r),
        },
        EventDetail::Stuck(reason) => DetailJson::Stuck {
            reason: name(&reason),
        },
        EventDetail::Task {
            session,
            generation,
            change,
        } => {
            let full = name(&change);
            let (change, reason) = match full.split_once('.') {
                Some((change, reason)) => (change.to_owned(), Some(reason.to_owned())),
                None => (full, None),
            };
            DetailJson::Task {
                session,
                generation,
                change,
                reason,
            }
        }
        EventDetail::Knockdown {
            session,
            phase,
            reason,
        } => DetailJson::Knockdown {
            session: (session != u32::MAX).then_some(session),
            phase: phase.map(|p| name(&p)),
            reason: name(&reason),
        },
        EventDetail::Ring { outside, cell } => DetailJson::Ring {
            outside,
            cell: cell.map(|c| [c.x, c.y]),
        },
    })
}

#[cfg(test)]
mod tests;
