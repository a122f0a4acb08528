//! Picking a directive's target in the viewport: the Timeline arms a pick for one directive,
//! the next click in the Viewport says what it hit (a pedestrian, an authored scene object, or
//! the ground), and [`apply_pick`] fills the field that fits the directive's command — a
//! pedestrian becomes the target (`Born(source, ordinal)`), a scene object the object of
//! `RendezvousWith` / `RedirectTo` or the point of `Rendezvous` / `Redirect` / `Escape` /
//! `Panic`, the ground that point. The change is one undoable edit of the scenario.

use stagecraft_runtime::identity::AgentId;
use stagecraft_runtime::project::{Directive, DirectiveCommand, FieldPath, Scenario, Target, Vec3};

use super::picking::pick_nearest;
use super::{PickId, Preview, Ray};
use crate::edits::{DocId, DocValue, ProjectEdit, Selection};

/// How far outside a scene object's footprint a click still picks it, meters.
pub const OBJECT_PICK_MARGIN_M: f64 = 0.3;

/// The directive a viewport click will fill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectivePick {
    /// The scenario holding it.
    pub scenario: String,
    /// Its index in the scenario's directives.
    pub index: usize,
}

/// What a click hit.
#[derive(Clone, Debug, PartialEq)]
pub enum Picked {
    /// A pedestrian: its source, birth ordinal and position.
    Ped {
        /// The population source's id.
        source: String,
        /// Birth ordinal in that source.
        ordinal: u32,
        /// Where it stands, meters.
        position: Vec3,
    },
    /// An authored scene object: its id and position.
    Object {
        /// The object's id.
        id: String,
        /// Its position, meters.
        position: Vec3,
    },
    /// The ground at this point.
    Ground(Vec3),
}

/// What `ray` hits for a directive pick: the pedestrian it meets first, else the scene object
/// of `scenario` whose footprint (with [`OBJECT_PICK_MARGIN_M`]) holds the ground point (the
/// nearest centre), else the ground point; `None` when it misses the ground.
pub fn picked_by(preview: &Preview, scenario: &Scenario, ray: &Ray) -> Option<Picked> {
    if let Some((PickId::Agent { id }, _)) = pick_nearest(ray, preview.scene.picks()) {
        if let Some(ped) = ped_of(preview, id) {
            return Some(ped);
        }
    }
    let ground = ray.hit_plane_z(0.0)?;
    let point = Vec3 {
        x: f64::from(ground.x),
        y: f64::from(ground.y),
        z: 0.0,
    };
    let object = scenario
        .objects
        .iter()
        .filter(|o| footprint_clearance_m(o, point) <= OBJECT_PICK_MARGIN_M)
        .min_by(|a, b| {
            let d = |o: &stagecraft_runtime::project::SceneObject| {
                (o.position.x - point.x).hypot(o.position.y - point.y)
            };
            d(a).total_cmp(&d(b)).then_with(|| a.id.cmp(&b.id))
        });
    Some(match object {
        Some(o) => Picked::Object {
            id: o.id.clone(),
            position: o.position,
        },
        None => Picked::Ground(point),
    })
}

/// The pedestrian with agent id `id` in the preview's world.
fn ped_of(preview: &Preview, id: u64) -> Option<Picked> {
    let world = preview.session.world()?;
    let frame = world.motion_frame(stagecraft_runtime::sim::AgentId::from_bits(id))?;
    let agent = AgentId::from_bits(id);
    let source = world.config().sources.get(agent.source_index() as usize)?;
    let p = frame.location;
    Some(Picked::Ped {
        source: source.id.clone(),
        ordinal: agent.ordinal(),
        position: Vec3 {
            x: f64::from(p.x),
            y: f64::from(p.y),
            z: 0.0,
        },
    })
}

/// Horizontal distance from `p` to a scene object's footprint (scaled, turned by its yaw;
/// negative inside), meters.
fn footprint_clearance_m(object: &stagecraft_runtime::project::SceneObject, p: Vec3) -> f64 {
    let (hx, hy) = (
        object.half_extents_m.x * object.scale.x,
        object.half_extents_m.y * object.scale.y,
    );
    let (sin, cos) = object.yaw_rad.sin_cos();
    let (dx, dy) = (p.x - object.position.x, p.y - object.position.y);
    let local_x = (dx * cos + dy * sin).abs() - hx.abs();
    let local_y = (-dx * sin + dy * cos).abs() - hy.abs();
    let outside = local_x.max(0.0).hypot(local_y.max(0.0));
    outside + local_x.max(local_y).min(0.0)
}

/// The point field of a command (goal, threat or centre), if it has one.
fn point_of(command: &mut DirectiveCommand) -> Option<&mut Vec3> {
    match command {
        DirectiveCommand::Rendezvous { goal } | DirectiveCommand::Redirect { goal } => Some(goal),
        DirectiveCommand::Escape { threat, .. } => Some(threat),
        DirectiveCommand::Panic { center, .. } => Some(center),
        _ => None,
    }
}

/// `directive` with the field `picked` fills, or `None` when nothing about it fits (a ground
/// click for a command with no point, an object for a command with neither object nor point).
pub fn apply_pick(directive: &Directive, picked: &Picked) -> Option<Directive> {
    let mut changed = directive.clone();
    match picked {
        Picked::Ped {
            source, ordinal, ..
        } if !directive.command.is_world() => {
            changed.target = Target::Born {
                source: source.clone(),
                ordinal: *ordinal,
            };
        }
        Picked::Object { id, position } => match &mut changed.command {
            DirectiveCommand::RendezvousWith { object, .. }
            | DirectiveCommand::RedirectTo { object, .. } => *object = id.clone(),
            command => *point_of(command)? = *position,
        },
        Picked::Ped { position, .. } | Picked::Ground(position) => {
            *point_of(&mut changed.command)? = *position;
        }
    }
    (changed != *directive).then_some(changed)
}

/// The undoable edit that fills directive `index` of `scenario` from `picked`, if it changes
/// anything.
pub fn pick_edit(scenario: &Scenario, index: usize, picked: &Picked) -> Option<ProjectEdit> {
    let directive = scenario.directives.get(index)?;
    let changed = apply_pick(directive, picked)?;
    let mut next = scenario.clone();
    next.directives[index] = changed;
    let selection = Selection::field(
        DocId::Scenario(scenario.id.clone()),
        FieldPath::root().field("directives").index(index),
    );
    Some(ProjectEdit::replace(
        DocId::Scenario(scenario.id.clone()),
        Some(DocValue::Scenario(next)),
        selection,
        format!("Pick the target of directive {index}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directive(command: DirectiveCommand) -> Directive {
        Directive {
            frame: 5,
            target: Target::Born {
                source: "courier".into(),
                ordinal: 0,
            },
            command,
            ..Default::default()
        }
    }

    fn v3(x: f64, y: f64) -> Vec3 {
        Vec3 { x, y, z: 0.0 }
    }

    #[test]
    fn each_pick_fills_the_field_that_fits_the_command() {
        let ped = Picked::Ped {
            source: "walkers".into(),
            ordinal: 3,
            position: v3(1.0, 2.0),
        };
        let van = Picked::Object {
            id: "van-2".into(),
            position: v3(-25.0, 2.2),
        };
        let meet = directive(DirectiveCommand::RendezvousWith {
            object: "van-1".into(),
            offset: v3(0.0, -4.0),
        });
        let picked = apply_pick(&meet, &ped).expect("a ped fills the target");
        assert_eq!(
            picked.target,
            Target::Born {
                source: "walkers".into(),
                ordinal: 3
            }
        );
        assert_eq!(picked.command, meet.command);
        let picked = apply_pick(&meet, &van).expect("an object fills the object");
        assert_eq!(
            picked.command,
            DirectiveCommand::RendezvousWith {
                object: "van-2".into(),
                offset: v3(0.0, -4.0)
            }
        );
        assert_eq!(apply_pick(&meet, &Picked::Ground(v3(3.0, 4.0))), None);
        // The burning object is the escape's threat; the ground is a rendezvous point.
        let flee = directive(DirectiveCommand::Escape {
            threat: v3(0.0, 0.0),
            safe_distance_m: 6.0,
            endpoint: None,
            restore_interrupted: false,
        });
        let picked = apply_pick(&flee, &van).expect("threat");
        assert!(
            matches!(picked.command, DirectiveCommand::Escape { threat, .. } if threat == v3(-25.0, 2.2))
        );
        let go = directive(DirectiveCommand::Rendezvous { goal: v3(0.0, 0.0) });
        let picked = apply_pick(&go, &Picked::Ground(v3(3.0, 4.0))).expect("goal");
        assert_eq!(
            picked.command,
            DirectiveCommand::Rendezvous { goal: v3(3.0, 4.0) }
        );
        // A world command takes a ped's position, never the ped as its target.
        let panic = Directive {
            target: Target::World,
            ..directive(DirectiveCommand::Panic {
                center: v3(0.0, 0.0),
                radius_m: 5.0,
                strength: 1.0,
            })
        };
        let picked = apply_pick(&panic, &ped).expect("centre");
        assert_eq!(picked.target, Target::World);
        assert!(
            matches!(picked.command, DirectiveCommand::Panic { center, .. } if center == v3(1.0, 2.0))
        );
        // Nothing to fill: no edit.
        assert_eq!(apply_pick(&directive(DirectiveCommand::Hold), &van), None);
    }
}
