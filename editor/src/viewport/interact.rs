//! Mouse and keyboard in the viewport (orbit, pan, zoom, pick, frame, top-down) and the identity
//! labels drawn over it.

use egui::{Align2, Color32, FontId, Key, PointerButton, Rect, Response, Ui};
use three_d::vec3;

use super::camera::{OrbitCamera, Projection};
use super::picking::{object_index, pick_nearest, rejected_index, Aabb, PickId};
use super::scene::{LayerKind, SceneBuilder};
use super::Preview;
use crate::session::Session;
use stagecraft_runtime::content::{Product, RejectReason};
use stagecraft_runtime::identity::AgentId;
use stagecraft_runtime::sim::AgentState;

/// Most identity labels drawn at once when labels are on.
const MAX_LABELS: usize = 150;

/// What happened in the viewport this frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interaction {
    /// The selection changed to this (`Some(None)`: cleared).
    pub select: Option<Option<PickId>>,
    /// The thing now under the cursor.
    pub hovered: Option<PickId>,
}

/// Applies drags, scrolling, clicks and keys on `response` to `camera`; picks with the scene.
/// With `tool_drags` an authoring tool owns primary drags: only the secondary and middle
/// buttons move the camera.
pub fn viewport_input(
    ui: &Ui,
    response: &Response,
    camera: &mut OrbitCamera,
    scene: &SceneBuilder,
    selected: Option<&PickId>,
    tool_drags: bool,
) -> Interaction {
    let rect = response.rect;
    let size = [rect.width(), rect.height()];
    let mut interaction = Interaction::default();
    let primary = response.dragged_by(PointerButton::Primary) && !tool_drags;
    let pan_drag = response.dragged_by(PointerButton::Secondary)
        || response.dragged_by(PointerButton::Middle)
        || (primary
            && (ui.input(|i| i.modifiers.shift) || camera.projection == Projection::TopDown));
    let delta = response.drag_delta();
    if pan_drag {
        camera.pan([delta.x, delta.y], rect.height());
    } else if primary {
        camera.orbit([delta.x, delta.y]);
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            camera.zoom((-scroll * 0.0015).exp());
        }
    }
    let pointer = response.hover_pos().filter(|p| rect.contains(*p));
    let hit_at = |point: egui::Pos2| {
        let local = [point.x - rect.min.x, point.y - rect.min.y];
        camera
            .ray(local, size)
            .and_then(|ray| pick_nearest(&ray, scene.picks()))
            .map(|(id, _)| id)
    };
    if let Some(point) = pointer {
        interaction.hovered = hit_at(point);
    }
    if response.clicked() {
        interaction.select = Some(response.interact_pointer_pos().and_then(hit_at));
    }
    let keys_free = !ui.ctx().egui_wants_keyboard_input();
    if keys_free && (response.hovered() || response.has_focus()) {
        if ui.input(|i| i.key_pressed(Key::F)) {
            let target = selected
                .and_then(|pick| scene.bounds_of(pick))
                .or_else(|| scene.content_bounds());
            if let Some(bounds) = target {
                camera.frame(&bounds);
            }
        }
        if ui.input(|i| i.key_pressed(Key::T)) {
            camera.toggle_top_down();
        }
    }
    interaction
}

/// A one-line identity of a picked thing, such as `street-props/bench 0x0001…` or
/// `north-walkers #3 walking`.
pub fn identity_label(session: &Session, pick: &PickId) -> Option<String> {
    match pick {
        PickId::Object { stage, id } => {
            let content = session.content()?;
            let stage_content = content.stage(*stage)?;
            let index = object_index(&stage_content.product, *id)?;
            let (family, variant, id) = match stage_content.product.as_ref() {
                Product::PlacedObjects(placed) => {
                    let object = placed.objects.get(index)?;
                    (
                        &placed.family,
                        placed.variant_ids.get(object.placement.variant as usize),
                        object.placement.id,
                    )
                }
                Product::Placements(scatter) => {
                    let placement = scatter.placements().nth(index)?;
                    (
                        &scatter.family,
                        scatter.variant_ids.get(placement.variant as usize),
                        placement.id,
                    )
                }
                _ => return None,
            };
            let variant = variant.map_or("?", String::as_str);
            Some(format!("{family}/{variant} {id} (stage {stage})"))
        }
        PickId::Rejected { stage, id } => {
            let content = session.content()?;
            let Product::Placements(scatter) = content.stage(*stage)?.product.as_ref() else {
                return None;
            };
            let (layer, index) = rejected_index(scatter, *id)?;
            let candidate = &scatter.layers[layer].output.rejected[index];
            Some(format!(
                "rejected {}: {}",
                candidate.id,
                reason_text(&candidate.reason())
            ))
        }
        PickId::Cell { stage, x, y } => {
            super::cells::cell_label(session.content()?, *stage, *x, *y)
        }
        PickId::Agent { id } => {
            let world = session.world()?;
            let agent = AgentId::from_bits(*id);
            let runtime_id = stagecraft_runtime::sim::AgentId::from_bits(*id);
            let frame = world.motion_frame(runtime_id)?;
            let source = agent.source_index() as usize;
            let ordinal = agent.ordinal();
            let source_id = world
                .config()
                .sources
                .get(source)
                .map_or("?", |s| s.id.as_str());
            let handle = world.handle_of_id(runtime_id).map_or(String::new(), |h| {
                format!(" {}", crate::text::handle_text(h))
            });
            let ownership =
                ownership_text(world, runtime_id).map_or(String::new(), |o| format!(" · {o}"));
            Some(format!(
                "{source_id} #{ordinal}{handle} {}{ownership}",
                state_name(frame.behaviour)
            ))
        }
        PickId::SpawnCandidate { frame, ordinal } => {
            let world = session.world()?;
            let mark = super::overlays::spawn_candidate(world, *frame, *ordinal)?;
            Some(candidate_text(world, &mark, *frame))
        }
    }
}

/// Who a ped belongs to, in words: `ambient`, `mission (owner …)`, or `pooled` (with
/// `quarantined` while its pool entry is younger than the quarantine). Read from its Motion
/// Frame's tags, its detail's owner and the pool's entries.
pub fn ownership_text(
    world: &stagecraft_runtime::sim::World,
    id: stagecraft_runtime::sim::AgentId,
) -> Option<String> {
    use stagecraft_runtime::project::PopulationKind;
    let tags = world.motion_frame(id)?.tags;
    if tags.pooled {
        let population = world.population();
        let handle = world.handle_of_id(id)?;
        let quarantined = population
            .pool
            .entries
            .iter()
            .any(|e| e.handle == handle && e.in_quarantine(population.control_frame));
        return Some(if quarantined {
            "pooled, quarantined".to_owned()
        } else {
            "pooled".to_owned()
        });
    }
    Some(match tags.kind {
        PopulationKind::Ambient => "ambient".to_owned(),
        PopulationKind::Mission => {
            let owner = world.agent_detail(id).and_then(|d| d.owner).unwrap_or("?");
            format!("mission (owner {owner})")
        }
    })
}

/// A spawn candidate in words: its source, frame, place and what admission said.
pub fn candidate_text(
    world: &stagecraft_runtime::sim::World,
    mark: &stagecraft_runtime::sim::CandidateMark,
    frame: u64,
) -> String {
    let source = world
        .config()
        .sources
        .get(usize::from(mark.source))
        .map_or("?", |s| s.id.as_str());
    let result = match mark.rejection {
        None => "admitted".to_owned(),
        Some(reason) => format!("refused: {reason:?}"),
    };
    format!(
        "{source} candidate at ({:.2}, {:.2}) m, frame {frame}: {result}",
        mark.position.x, mark.position.y
    )
}

/// Why a candidate was rejected, in words.
pub fn reason_text(reason: &RejectReason) -> String {
    match reason {
        RejectReason::OutsideRegion => "outside the layer's region".to_owned(),
        RejectReason::InKeepOut { keep_out } => format!("inside keep-out #{keep_out}"),
        RejectReason::Conflict { with } => format!("conflicts with stronger candidate {with}"),
    }
}

/// An agent state's name.
pub fn state_name(state: AgentState) -> &'static str {
    super::palette::AGENT_STATES
        .iter()
        .find(|(s, _)| *s == state)
        .map_or("?", |(_, name)| name)
}

/// Draws identity labels over the viewport: the hovered and selected things always (in full),
/// and with `all` short labels of the agents and objects nearest the camera target, skipping any
/// that would overlap a label already placed (at most [`MAX_LABELS`]).
pub fn labels_ui(ui: &Ui, rect: Rect, preview: &Preview, camera: &OrbitCamera, all: bool) {
    let painter = ui.painter_at(rect);
    let size = [rect.width(), rect.height()];
    let font = FontId::proportional(12.0);
    let anchor = |bounds: &Aabb| {
        let top = vec3(bounds.center().x, bounds.center().y, bounds.max.z + 0.2);
        let point = camera.project(top, size)?;
        let at = rect.min + egui::vec2(point[0], point[1]);
        rect.contains(at).then_some(at)
    };
    let mut placed: Vec<Rect> = Vec::new();
    let mut strong = Vec::new();
    for pick in [preview.hovered.as_ref(), preview.selected.as_ref()]
        .into_iter()
        .flatten()
    {
        let Some(at) = preview.scene.bounds_of(pick).and_then(|b| anchor(&b)) else {
            continue;
        };
        let Some(text) = identity_label(&preview.session, pick) else {
            continue;
        };
        let galley = painter.layout_no_wrap(text, font.clone(), Color32::WHITE);
        let text_rect = Align2::CENTER_BOTTOM.anchor_size(at, galley.size());
        placed.push(text_rect.expand(2.0));
        strong.push((galley, text_rect));
    }
    if all {
        let mut near: Vec<(f32, &PickId, &Aabb)> = [LayerKind::Agents, LayerKind::Placements]
            .iter()
            .flat_map(|kind| preview.scene.layer(*kind).picks.iter())
            .map(|(pick, bounds)| {
                let d = bounds.center() - camera.target;
                (d.x * d.x + d.y * d.y, pick, bounds)
            })
            .collect();
        let order = |a: &(f32, &PickId, &Aabb), b: &(f32, &PickId, &Aabb)| {
            a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1))
        };
        // Only the nearest few thousand are worth sorting and measuring.
        let considered = (MAX_LABELS * 16).min(near.len());
        if considered < near.len() {
            near.select_nth_unstable_by(considered, order);
            near.truncate(considered);
        }
        near.sort_by(order);
        let mut drawn = 0;
        for (_, pick, bounds) in near {
            if drawn == MAX_LABELS {
                break;
            }
            let Some(at) = anchor(bounds) else {
                continue;
            };
            let Some(text) = short_label(&preview.session, pick) else {
                continue;
            };
            let colour = Color32::from_gray(210);
            let galley = painter.layout_no_wrap(text, font.clone(), colour);
            let text_rect = Align2::CENTER_BOTTOM.anchor_size(at, galley.size());
            let padded = text_rect.expand(2.0);
            if placed.iter().any(|other| other.intersects(padded)) {
                continue;
            }
            placed.push(padded);
            painter.rect_filled(padded, 3.0, Color32::from_black_alpha(150));
            painter.galley(text_rect.min, galley, colour);
            drawn += 1;
        }
    }
    for (galley, text_rect) in strong {
        painter.rect_filled(text_rect.expand(2.0), 3.0, Color32::from_black_alpha(200));
        painter.galley(text_rect.min, galley, Color32::WHITE);
    }
}

/// A compact identity for bulk labels: `bench (−10, 1)#0`, `north-walkers #3`, `keep-out`.
pub fn short_label(session: &Session, pick: &PickId) -> Option<String> {
    match pick {
        PickId::Object { stage, id } => {
            let content = session.content()?;
            let product = &content.stage(*stage)?.product;
            let index = object_index(product, *id)?;
            let (variant, id) = match product.as_ref() {
                Product::PlacedObjects(placed) => {
                    let p = &placed.objects.get(index)?.placement;
                    (placed.variant_ids.get(p.variant as usize), p.id)
                }
                Product::Placements(scatter) => {
                    let p = scatter.placements().nth(index)?;
                    (scatter.variant_ids.get(p.variant as usize), p.id)
                }
                _ => return None,
            };
            let key = id.unpack();
            Some(format!(
                "{} ({}, {})#{}",
                variant.map_or("?", String::as_str),
                key.cell_x,
                key.cell_y,
                key.candidate
            ))
        }
        PickId::Rejected { .. } | PickId::Cell { .. } => identity_label(session, pick),
        PickId::Agent { id } => {
            let world = session.world()?;
            let agent = AgentId::from_bits(*id);
            let source = world.config().sources.get(agent.source_index() as usize)?;
            let handle = world
                .handle_of_id(stagecraft_runtime::sim::AgentId::from_bits(*id))
                .map_or(String::new(), |h| {
                    format!(" {}", crate::text::handle_text(h))
                });
            Some(format!("{} #{}{handle}", source.id, agent.ordinal()))
        }
        PickId::SpawnCandidate { frame, ordinal } => {
            let world = session.world()?;
            let mark = super::overlays::spawn_candidate(world, *frame, *ordinal)?;
            Some(match mark.rejection {
                None => "admitted".to_owned(),
                Some(reason) => format!("{reason:?}"),
            })
        }
    }
}
