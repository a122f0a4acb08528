//! The scenario's settings sections in the Inspector — crossings (signal timings, lanes, queue
//! rows, groups, the hazard vehicle), population (clocks, pool, fault), motion (tier bands,
//! capacities, the avoidance budget, the crowd governor, exits) and vehicle sources — every
//! row drawn from the runtime's section schema (`project::SCENARIO_SECTIONS`).

use egui::collapsing_header::CollapsingState;
use egui::{RichText, Ui};
use stagecraft_runtime::project::{
    scenario_section, AttachFaultSpec, CrossingsSettings, ExitNode, HazardVehicle, MotionSettings,
    PopulationSettings, SectionSchema, Vec3, VehicleSource, TIER_POLICIES,
};

use super::form::{section_colour, Form};
use super::list::{fresh_id, record_list_ui};
use super::schema_rows::schema_help;

/// A collapsible settings section at field `name`, closed until it (or a field inside it) is
/// selected; its header is the section's label.
pub fn section_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    name: &str,
    section: &SectionSchema,
    body: impl FnOnce(&mut Form<'_>, &mut Ui),
) {
    form.field(name, |form| {
        let colour = section_colour(ui, form.worst_below());
        let id = ui.make_persistent_id(form.path().to_string());
        let mut state = CollapsingState::load_with_default_open(ui.ctx(), id, false);
        if form.is_focused() {
            state.set_open(true);
        }
        // Scrolled to when selected, and again each frame while it unfolds (its rows are laid
        // out over a few frames).
        let unfolding = egui::Id::new(("section-unfolding", id));
        let pending = ui.data(|d| d.get_temp::<bool>(unfolding)).unwrap_or(false);
        let scroll_here = form.scrolls_here() || (pending && form.is_exact_focus());
        let opening = state.openness(ui.ctx()) < 1.0;
        ui.data_mut(|d| d.insert_temp(unfolding, scroll_here && opening));
        let (_, header, _) = state
            .show_header(ui, |ui| {
                ui.label(RichText::new(section.label).strong().color(colour))
                    .on_hover_text(section.help);
            })
            .body(|ui| body(form, ui));
        // A selected section comes to the top of the Inspector, so its rows fill the view
        // below its header (`stagecraft --inspect crossings`).
        if scroll_here {
            header.response.scroll_to_me(Some(egui::Align::TOP));
        }
    });
}

/// An optional record row (`None` / `Some(…)`): a checkbox named after the field, then the
/// record's rows when set.
fn optional_record_ui<T>(
    form: &mut Form<'_>,
    ui: &mut Ui,
    field: &stagecraft_runtime::project::FieldSchema,
    value: &mut Option<T>,
    initial: impl FnOnce() -> T,
    rows: impl FnOnce(&mut Form<'_>, &mut Ui, &mut T),
) {
    let help = schema_help(field);
    form.field(field.name, |form| {
        form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
            let mut set = value.is_some();
            let response = ui.checkbox(&mut set, "");
            let label = format!("Set {}", field.label);
            response.widget_info(|| {
                egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, set, &label)
            });
            match (set, value.is_some()) {
                (true, false) => *value = Some(initial()),
                (false, true) => *value = None,
                _ => {}
            }
            response
        });
        if let Some(record) = value.as_mut() {
            ui.indent(form.path().to_string(), |ui| rows(form, ui, record));
        }
    });
}

/// The crossings section: lanes, queue rows, entry range, query budget, signal timings, the
/// liveness thresholds, groups and the hazard vehicle.
pub fn crossings_ui(form: &mut Form<'_>, ui: &mut Ui, c: &mut CrossingsSettings) {
    let s = scenario_section("Crossings");
    section_ui(form, ui, "crossings", s, |form, ui| {
        form.schema_number_ui(ui, s.get("lanes"), &mut c.lanes);
        form.schema_number_ui(ui, s.get("queue_rows"), &mut c.queue_rows);
        form.schema_number_ui(ui, s.get("entry_range_m"), &mut c.entry_range_m);
        form.schema_number_ui(ui, s.get("queries_per_step"), &mut c.queries_per_step);
        ui.label(RichText::new("Signal timings").weak());
        form.schema_number_ui(ui, s.get("vehicle_green_s"), &mut c.vehicle_green_s);
        form.schema_number_ui(ui, s.get("all_stop_s"), &mut c.all_stop_s);
        form.schema_number_ui(ui, s.get("pedestrian_s"), &mut c.pedestrian_s);
        ui.label(RichText::new("Liveness and groups").weak());
        form.schema_number_ui(ui, s.get("stuck_after_s"), &mut c.stuck_after_s);
        form.schema_number_ui(
            ui,
            s.get("forced_clear_after_s"),
            &mut c.forced_clear_after_s,
        );
        form.schema_number_ui(ui, s.get("group_share"), &mut c.group_share);
        form.schema_number_ui(ui, s.get("max_group_size"), &mut c.max_group_size);
        let hazard = scenario_section("Hazard");
        optional_record_ui(
            form,
            ui,
            s.get("hazard"),
            &mut c.hazard,
            || HazardVehicle {
                y_m: 0.0,
                speed_m_s: 4.0,
            },
            |form, ui, h| {
                form.schema_number_ui(ui, hazard.get("y_m"), &mut h.y_m);
                form.schema_number_ui(ui, hazard.get("speed_m_s"), &mut h.speed_m_s);
            },
        );
    });
}

/// The population section: the ped and vehicle clocks, the frame-time cap, the reuse pool,
/// cleanup and a provoked attachment fault.
pub fn population_ui(form: &mut Form<'_>, ui: &mut Ui, p: &mut PopulationSettings) {
    let s = scenario_section("Population");
    section_ui(form, ui, "population", s, |form, ui| {
        form.schema_number_ui(ui, s.get("ped_frame_rate"), &mut p.ped_frame_rate);
        form.schema_number_ui(
            ui,
            s.get("ped_cycles_per_frame"),
            &mut p.ped_cycles_per_frame,
        );
        form.schema_number_ui(ui, s.get("vehicle_frame_rate"), &mut p.vehicle_frame_rate);
        form.schema_number_ui(
            ui,
            s.get("vehicle_cycles_per_frame"),
            &mut p.vehicle_cycles_per_frame,
        );
        form.schema_number_ui(ui, s.get("max_frame_time_s"), &mut p.max_frame_time_s);
        form.schema_number_ui(ui, s.get("pool_capacity"), &mut p.pool_capacity);
        form.schema_bool_ui(ui, s.get("aggressive_cleanup"), &mut p.aggressive_cleanup);
        let special = s.get("special_removal_scale");
        form.schema_number_ui(ui, special, &mut p.special_removal_scale);
        form.schema_number_ui(ui, s.get("cops_removal_scale"), &mut p.cops_removal_scale);
        let startup = s.get("startup_at_world_start");
        form.schema_bool_ui(ui, startup, &mut p.startup_at_world_start);
        let fault = scenario_section("AttachFault");
        optional_record_ui(
            form,
            ui,
            s.get("fault"),
            &mut p.fault,
            AttachFaultSpec::default,
            |form, ui, f| {
                form.schema_number_ui(ui, fault.get("batch"), &mut f.batch);
                form.schema_number_ui(ui, fault.get("item"), &mut f.item);
                form.schema_bool_ui(ui, fault.get("fail_restore"), &mut f.fail_restore);
            },
        );
    });
}

/// The motion section: the tier policy and the fields the scenario overrides of it (bands,
/// capacities, transition budgets, relevance thresholds), the avoidance budget, the crowd
/// governor and the exits fleeing agents run to.
pub fn motion_ui(form: &mut Form<'_>, ui: &mut Ui, m: &mut MotionSettings) {
    let s = scenario_section("Motion");
    section_ui(form, ui, "motion", s, |form, ui| {
        tier_policy_ui(form, ui, m);
        let p = m.policy_or_default().values;
        ui.label(RichText::new("Tier bands").weak());
        form.schema_policy_number_ui(
            ui,
            s.get("full_enter_m"),
            &mut m.full_enter_m,
            p.full_enter_m,
        );
        form.schema_policy_number_ui(ui, s.get("full_exit_m"), &mut m.full_exit_m, p.full_exit_m);
        form.schema_policy_number_ui(
            ui,
            s.get("simulated_enter_m"),
            &mut m.simulated_enter_m,
            p.simulated_enter_m,
        );
        form.schema_policy_number_ui(
            ui,
            s.get("simulated_exit_m"),
            &mut m.simulated_exit_m,
            p.simulated_exit_m,
        );
        ui.label(RichText::new("Capacities").weak());
        form.schema_policy_number_ui(
            ui,
            s.get("full_capacity"),
            &mut m.full_capacity,
            p.full_capacity,
        );
        form.schema_policy_number_ui(
            ui,
            s.get("simulated_capacity"),
            &mut m.simulated_capacity,
            p.simulated_capacity,
        );
        form.schema_policy_number_ui(
            ui,
            s.get("promotions_per_step"),
            &mut m.promotions_per_step,
            p.promotions_per_step,
        );
        form.schema_policy_number_ui(
            ui,
            s.get("demotions_per_step"),
            &mut m.demotions_per_step,
            p.demotions_per_step,
        );
        ui.label(RichText::new("Relevance").weak());
        form.schema_policy_number_ui(
            ui,
            s.get("hero_relevance"),
            &mut m.hero_relevance,
            p.hero_relevance,
        );
        form.schema_policy_number_ui(
            ui,
            s.get("medium_relevance"),
            &mut m.medium_relevance,
            p.medium_relevance,
        );
        form.schema_optional_number_ui(ui, s.get("avoidance_budget"), &mut m.avoidance_budget, 128);
        form.schema_bool_ui(ui, s.get("crowd_governor"), &mut m.crowd_governor);
        form.schema_number_ui(ui, s.get("crowd_budget_ms"), &mut m.crowd_budget_ms);
        form.schema_number_ui(ui, s.get("default_relevance"), &mut m.default_relevance);
        let exit = scenario_section("Exit");
        record_list_ui(
            form,
            ui,
            "exits",
            &mut m.exits,
            |exits| ExitNode {
                id: fresh_id("exit", exits.iter().map(|e| e.id.as_str())),
                position: Vec3::default(),
                capacity: 1,
            },
            |index, e| format!("{index}: {}", e.id),
            |form, ui, e| {
                form.schema_text_ui(ui, exit.get("id"), &mut e.id);
                form.schema_vec3_ui(ui, exit.get("position"), &mut e.position);
                form.schema_number_ui(ui, exit.get("capacity"), &mut e.capacity);
            },
        );
    });
}

/// The vehicle sources: a lane of the recipe's street block each, with a count and a speed.
pub fn vehicle_sources_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    sources: &mut Vec<VehicleSource>,
    lanes: &[String],
) {
    let s = scenario_section("VehicleSource");
    record_list_ui(
        form,
        ui,
        "vehicle_sources",
        sources,
        |sources| VehicleSource {
            id: fresh_id("vehicles", sources.iter().map(|v| v.id.as_str())),
            lane: lanes.first().cloned().unwrap_or_default(),
            target_count: 2,
            speed_m_s: 8.0,
        },
        |index, v| format!("{index}: {} on {}", v.id, v.lane),
        |form, ui, v| {
            form.schema_text_ui(ui, s.get("id"), &mut v.id);
            let lane = s.get("lane");
            form.id_picker_ui(ui, lane.name, &schema_help(lane), &mut v.lane, lanes);
            form.schema_number_ui(ui, s.get("target_count"), &mut v.target_count);
            form.schema_number_ui(ui, s.get("speed_m_s"), &mut v.speed_m_s);
        },
    );
}

/// The tier policy row: a combo of the shipped policies (an unknown name stays visible, marked).
/// Picking one clears every tier override, so the scenario runs exactly that policy (one edit).
fn tier_policy_ui(form: &mut Form<'_>, ui: &mut Ui, m: &mut MotionSettings) {
    let field = scenario_section("Motion").get("tier_policy");
    let chosen = m.policy();
    let help = format!(
        "{}\nPicking a policy clears the tier fields the scenario gives.\n{}",
        schema_help(field),
        chosen.map_or("", |p| p.doc)
    );
    form.field(field.name, |form| {
        let salt = form.path().to_string();
        form.labelled_row_here_ui(ui, field.name, field.label, &help, |ui| {
            let shown = match chosen {
                Some(policy) => RichText::new(policy.label),
                None => RichText::new(format!("{} (unknown)", m.tier_policy))
                    .color(ui.visuals().error_fg_color),
            };
            let mut picked = None;
            let mut response = egui::ComboBox::from_id_salt(egui::Id::new(&salt))
                .selected_text(shown)
                .show_ui(ui, |ui| {
                    for policy in TIER_POLICIES {
                        let selected = policy.name == m.tier_policy;
                        if ui
                            .selectable_label(selected, policy.label)
                            .on_hover_text(policy.doc)
                            .clicked()
                            && !selected
                        {
                            picked = Some(policy.name);
                        }
                    }
                })
                .response;
            if let Some(name) = picked {
                m.choose_policy(name);
                response.mark_changed();
            }
            response
        })
    });
}
