//! `stagecraft daily dispatch|show|generate`: the daily-seed ladder over the project's
//! `daily-seeds.ron` (cell, UTC date, seed, server signature, dispatch time).
//!
//! `dispatch` stores (or replaces) a seed; `show` lists the records; `generate` solves the
//! project's `layout.grid-mission` stage with the seed dispatched for a cell and day, as every
//! client would, and prints the layout and its signature. The runtime solves; this module reads
//! and writes the file and reads the clock (a dispatch without `--at` is stamped now).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use stagecraft_runtime::content::MissionLayout;
use stagecraft_runtime::ops::grid_mission::solve_daily_mission;
use stagecraft_runtime::ops::registry::{Registry, StageParams};
use stagecraft_runtime::project::daily_seeds::{
    read_daily_seeds, DailySeed, DailySeeds, DAILY_SEEDS_FILE,
};
use stagecraft_runtime::recipe::compile_project_recipe;

use super::error::CliError;

/// Arguments of `stagecraft daily`.
#[derive(Debug, Clone, clap::Args)]
pub struct DailyArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: DailyAction,
    /// Print the result as JSON (`stagecraft.daily/1`).
    #[arg(long, global = true)]
    pub json: bool,
}

/// The `daily` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum DailyAction {
    /// Store the seed of a cell and UTC day in the project's daily-seed file (replacing one).
    Dispatch {
        /// The project folder.
        project: PathBuf,
        /// The procedural cell (graph) id, such as `PCG_Tactical`.
        #[arg(long)]
        cell: String,
        /// The UTC calendar day, `YYYY-MM-DD`.
        #[arg(long)]
        date: String,
        /// The seed every client uses that day.
        #[arg(long)]
        seed: u64,
        /// The issuing server's signature (stored verbatim).
        #[arg(long, default_value = "")]
        signature: String,
        /// The dispatch time, `YYYY-MM-DDTHH:MM:SSZ` (default: now).
        #[arg(long, value_name = "UTC")]
        at: Option<String>,
    },
    /// List the dispatched seeds (or one cell and day).
    Show {
        /// The project folder.
        project: PathBuf,
        /// Only this cell.
        #[arg(long)]
        cell: Option<String>,
        /// Only this day.
        #[arg(long)]
        date: Option<String>,
    },
    /// Solve the day's mission with its dispatched seed.
    Generate {
        /// The project folder.
        project: PathBuf,
        /// The procedural cell (graph) id.
        #[arg(long)]
        cell: String,
        /// The UTC calendar day, `YYYY-MM-DD`.
        #[arg(long)]
        date: String,
        /// The recipe holding the `layout.grid-mission` stage (default: the first that has one).
        #[arg(long)]
        recipe: Option<String>,
    },
}

impl DailyArgs {
    /// Whether JSON was asked for.
    pub fn json(&self) -> bool {
        self.json
    }
}

/// Runs `stagecraft daily`.
pub fn daily(args: &DailyArgs, out: &mut dyn Write) -> anyhow::Result<i32> {
    match &args.action {
        DailyAction::Dispatch {
            project,
            cell,
            date,
            seed,
            signature,
            at,
        } => {
            let record = DailySeed {
                cell_id: cell.clone(),
                date_id: date.clone(),
                seed: *seed,
                server_signature: signature.clone(),
                dispatch_utc: match at {
                    Some(at) => checked_utc(at)?,
                    None => now_utc(),
                },
            };
            dispatch(project, record, args.json, out)
        }
        DailyAction::Show {
            project,
            cell,
            date,
        } => show(project, cell.as_deref(), date.as_deref(), args.json, out),
        DailyAction::Generate {
            project,
            cell,
            date,
            recipe,
        } => generate(project, cell, date, recipe.as_deref(), args.json, out),
    }
}

/// The project's daily seeds (empty when it has no file yet); a broken file is an error naming
/// where.
fn read_seeds(project: &Path) -> anyhow::Result<DailySeeds> {
    let path = project.join(DAILY_SEEDS_FILE);
    let text = match stagecraft_io::read_project_file(&path) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(DailySeeds::default()),
        Err(problem) => bail!("{}", problem.message),
    };
    let (seeds, diagnostics) = read_daily_seeds(DAILY_SEEDS_FILE, &text);
    match seeds {
        Some(seeds) => Ok(seeds),
        None => {
            let first = diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(ToString::to_string)
                .unwrap_or_else(|| format!("{DAILY_SEEDS_FILE}: unreadable"));
            Err(anyhow!(CliError::new(1, "daily-seeds", first)))
        }
    }
}

fn dispatch(
    project: &Path,
    record: DailySeed,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let mut seeds = read_seeds(project)?;
    let replaced = seeds
        .dispatch(record.clone())
        .map_err(|error| anyhow!(CliError::new(2, "usage", error.to_string())))?;
    crate::project_io::atomic_write(&project.join(DAILY_SEEDS_FILE), seeds.to_text().as_bytes())
        .with_context(|| format!("cannot write {}", project.join(DAILY_SEEDS_FILE).display()))?;
    if json {
        let report = serde_json::json!({
            "layout": null,
            "record": record_json(&record),
            "replaced": replaced.as_ref().map(record_json),
            "seeds": seeds.seeds.iter().map(record_json).collect::<Vec<_>>(),
        });
        super::json_out::write_document(out, "daily", &report)?;
    } else {
        let verb = if replaced.is_some() {
            "replaced"
        } else {
            "dispatched"
        };
        writeln!(out, "{verb} {}", record_line(&record))?;
    }
    Ok(0)
}

fn show(
    project: &Path,
    cell: Option<&str>,
    date: Option<&str>,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let seeds = read_seeds(project)?;
    let shown: Vec<&DailySeed> = seeds
        .seeds
        .iter()
        .filter(|s| cell.is_none_or(|c| s.cell_id == c) && date.is_none_or(|d| s.date_id == d))
        .collect();
    if json {
        let report = serde_json::json!({
            "layout": null,
            "record": null,
            "replaced": null,
            "seeds": shown.iter().map(|s| record_json(s)).collect::<Vec<_>>(),
        });
        super::json_out::write_document(out, "daily", &report)?;
    } else {
        for seed in &shown {
            writeln!(out, "{}", record_line(seed))?;
        }
        writeln!(out, "{} daily seeds", shown.len())?;
    }
    Ok(if shown.is_empty() && (cell.is_some() || date.is_some()) {
        1
    } else {
        0
    })
}

fn generate(
    project: &Path,
    cell: &str,
    date: &str,
    recipe: Option<&str>,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let seeds = read_seeds(project)?;
    let record = seeds.get(cell, date).cloned();
    let template = mission_template(project, recipe)?;
    let layout = solve_daily_mission(&seeds.book(), cell, date, &template)
        .map_err(|error| anyhow!(CliError::new(1, "daily", error.to_string())))?;
    let record = record.ok_or_else(|| anyhow!("no daily seed for {cell}:{date}"))?;
    if json {
        let report = serde_json::json!({
            "layout": layout_json(&layout),
            "record": record_json(&record),
            "replaced": null,
            "seeds": [record_json(&record)],
        });
        super::json_out::write_document(out, "daily", &report)?;
    } else {
        write!(out, "{}", layout_text(&record, &layout))?;
    }
    Ok(0)
}

/// The grid-mission request of the project's recipe (the first stage of that operator).
fn mission_template(
    project: &Path,
    recipe: Option<&str>,
) -> anyhow::Result<stagecraft_runtime::ops::grid_mission::MissionRequest> {
    let registry = Registry::standard();
    let (_, loaded) = super::load_with(project, &registry)?;
    let ids: Vec<String> = loaded
        .project
        .as_ref()
        .map(|p| p.recipes.keys().cloned().collect())
        .unwrap_or_default();
    let candidates: Vec<&String> = match recipe {
        Some(id) => ids.iter().filter(|r| r.as_str() == id).collect(),
        None => ids.iter().collect(),
    };
    for id in candidates {
        let Some(plan) = compile_project_recipe(&loaded, id, &registry).and_then(|o| o.plan) else {
            continue;
        };
        for stage in plan.stages() {
            if let StageParams::GridMission(params) = stage.params() {
                return Ok(params.request(0));
            }
        }
    }
    Err(anyhow!(CliError::new(
        1,
        "daily",
        format!(
            "no recipe of {} compiles with a `layout.grid-mission` stage{}",
            project.display(),
            recipe
                .map(|r| format!(" (asked: `{r}`)"))
                .unwrap_or_default()
        )
    )))
}

fn record_line(seed: &DailySeed) -> String {
    format!(
        "{}:{} seed {} signature {:?} dispatched {}",
        seed.cell_id, seed.date_id, seed.seed, seed.server_signature, seed.dispatch_utc
    )
}

fn record_json(seed: &DailySeed) -> serde_json::Value {
    serde_json::json!({
        "cell": seed.cell_id,
        "date": seed.date_id,
        "seed": seed.seed,
        "signature": seed.server_signature,
        "dispatch_utc": seed.dispatch_utc,
    })
}

fn layout_json(layout: &MissionLayout) -> serde_json::Value {
    let cell = |c: &stagecraft_runtime::content::GridCell| [c.x, c.y];
    serde_json::json!({
        "seed": layout.seed,
        "date": layout.daily.as_ref().map(|d| d.date_id.clone()),
        "attempt": layout.attempt,
        "width": layout.width,
        "height": layout.height,
        "spawn": cell(&layout.spawn),
        "extraction": cell(&layout.extraction),
        "objectives": layout.objectives.iter().map(cell).collect::<Vec<_>>(),
        "critical_path_steps": layout.bot_path.len().saturating_sub(1),
        "signature": layout.signature(),
    })
}

/// The day's mission as text: the record, the layout's numbers, a grid map and the signature.
pub fn layout_text(record: &DailySeed, layout: &MissionLayout) -> String {
    let mut text = format!(
        "{}\nseed {} attempt {} grid {}×{} spawn ({}, {}) extraction ({}, {}) objectives {} critical path {} steps\n",
        record_line(record),
        layout.seed,
        layout.attempt,
        layout.width,
        layout.height,
        layout.spawn.x,
        layout.spawn.y,
        layout.extraction.x,
        layout.extraction.y,
        layout.objectives.len(),
        layout.bot_path.len().saturating_sub(1),
    );
    text.push_str(&layout.ascii_map());
    text.push_str(&format!("signature {}\n", layout.signature()));
    text
}

/// `at` when it is `YYYY-MM-DDTHH:MM:SSZ` with a valid day and time.
fn checked_utc(at: &str) -> anyhow::Result<String> {
    let valid = at.len() == 20
        && at.get(10..11) == Some("T")
        && at.get(19..20) == Some("Z")
        && at
            .get(0..10)
            .is_some_and(|day| stagecraft_runtime::ops::grid_mission::parse_date_id(day).is_ok())
        && at.get(11..19).is_some_and(|time| {
            let parts: Vec<Option<u32>> = time.split(':').map(|p| p.parse().ok()).collect();
            matches!(parts.as_slice(), [Some(h), Some(m), Some(s)] if *h < 24 && *m < 60 && *s < 60)
                && time.len() == 8
        });
    if valid {
        Ok(at.to_owned())
    } else {
        Err(anyhow!(CliError::new(
            2,
            "usage",
            format!("--at {at:?} is not a UTC time YYYY-MM-DDTHH:MM:SSZ")
        )))
    }
}

/// The current time, UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    utc_text(secs)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (Howard Hinnant's civil-from-days).
fn utc_text(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_text_formats_known_instants() {
        assert_eq!(utc_text(0), "1970-01-01T00:00:00Z");
        // 2026-05-23T00:00:00Z.
        assert_eq!(utc_text(1_779_494_400), "2026-05-23T00:00:00Z");
        assert_eq!(utc_text(951_782_400 + 3_723), "2000-02-29T01:02:03Z");
    }

    #[test]
    fn dispatch_times_are_checked() {
        assert!(checked_utc("2026-05-23T00:00:00Z").is_ok());
        assert!(checked_utc("2026-02-30T00:00:00Z").is_err());
        assert!(checked_utc("2026-05-23T24:00:00Z").is_err());
        assert!(checked_utc("2026-05-23 00:00:00Z").is_err());
    }
}
