//! `stagecraft.Simulation`: one scenario's world, built by `stagecraft_io::scenario` as
//! `stagecraft simulate` and the editor's session build it (the scenario's recipe generated at the
//! manifest's seed with its override sets, the world built by the runtime), so after the same
//! frames its state digest is the command's. Agents are read through the Motion Frames only, as NumPy structured arrays.

use std::time::Instant;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stagecraft_io::scenario::{find_scenario, ScenarioError};
use stagecraft_runtime::export::events::events_json_text;
use stagecraft_runtime::export::snake_key;
use stagecraft_runtime::sim::{AgentState, MotionFrame, Snapshot as RuntimeSnapshot, Tier, World};

use crate::errors::{error, project_error};
use crate::project::Project;
use crate::records::{dtype, structured, Field};

/// A running scenario: `Simulation(project, scenario)`.
#[pyclass(module = "stagecraft")]
pub struct Simulation {
    world: World,
    scenario: String,
    /// The pool its steps run on (`threads=`; `None`: rayon's global pool, every core).
    pool: Option<rayon::ThreadPool>,
}

/// A captured world state (`Simulation.snapshot()`), restorable into a simulation of the same
/// scenario and content.
#[pyclass(module = "stagecraft", frozen)]
pub struct Snapshot {
    snapshot: RuntimeSnapshot,
}

#[pymethods]
impl Snapshot {
    /// The frame it was taken at.
    #[getter]
    fn frame(&self) -> u64 {
        self.snapshot.frame()
    }

    fn __repr__(&self) -> String {
        format!("<stagecraft.Snapshot at frame {}>", self.snapshot.frame())
    }
}

/// The agent states, indexed by their code (the `state` field of `agents()`).
pub fn state_names() -> Vec<&'static str> {
    let all = [
        (AgentState::Walking, "walking"),
        (AgentState::Holding, "holding"),
        (AgentState::Travelling, "travelling"),
        (AgentState::Arrived, "arrived"),
        (AgentState::Fleeing, "fleeing"),
        (AgentState::KnockedDown, "knocked_down"),
        (AgentState::Pooled, "pooled"),
    ];
    by_code(all.map(|(state, name)| (state.code(), name)))
}

/// The tiers, indexed by their code (the `tier` field of `agents()`).
pub fn tier_names() -> Vec<&'static str> {
    let all = [
        (Tier::Full, "full"),
        (Tier::Simulated, "simulated"),
        (Tier::Stub, "stub"),
    ];
    by_code(all.map(|(tier, name)| (tier.code(), name)))
}

fn by_code<const N: usize>(mut named: [(u8, &'static str); N]) -> Vec<&'static str> {
    named.sort_by_key(|(code, _)| *code);
    named.iter().map(|(_, name)| *name).collect()
}

/// The packed record of one agent in `agents()`; see [`agent_fields`].
const AGENT_RECORD_BYTES: usize = 47;

fn agent_fields() -> [Field; 15] {
    [
        Field::new("id", "<u8"),
        Field::new("source", "<u2"),
        Field::new("ordinal", "<u4"),
        Field::new("x", "<f4"),
        Field::new("y", "<f4"),
        Field::new("vx", "<f4"),
        Field::new("vy", "<f4"),
        Field::new("speed", "<f4"),
        Field::new("heading", "<f4"),
        Field::new("panic", "<f4"),
        Field::new("state", "|u1"),
        Field::new("tier", "|u1"),
        Field::new("moving", "|b1"),
        Field::new("updated", "|b1"),
        Field::new("pooled", "|b1"),
    ]
}

fn agent_record(f: &MotionFrame) -> [u8; AGENT_RECORD_BYTES] {
    let mut r = [0u8; AGENT_RECORD_BYTES];
    r[0..8].copy_from_slice(&f.id.bits().to_le_bytes());
    r[8..10].copy_from_slice(&(f.id.source() as u16).to_le_bytes());
    r[10..14].copy_from_slice(&f.id.ordinal().to_le_bytes());
    let floats = [
        f.location.x,
        f.location.y,
        f.velocity.x,
        f.velocity.y,
        f.animation.speed_m_s,
        f.animation.facing_yaw_rad,
        f.panic,
    ];
    for (i, value) in floats.iter().enumerate() {
        r[14 + 4 * i..18 + 4 * i].copy_from_slice(&value.to_le_bytes());
    }
    r[42] = f.behaviour.code();
    r[43] = f.tier.code();
    r[44] = u8::from(f.animation.moving);
    r[45] = u8::from(f.updated);
    r[46] = u8::from(f.tags.pooled);
    r
}

#[pymethods]
impl Simulation {
    /// The world of `scenario` (its id) of `project`, at frame 0; `seed` seeds the world
    /// instead of the manifest's root seed (`stagecraft simulate --seed`; the content is still
    /// generated at the manifest's seed); `threads` steps it on that many threads (default:
    /// every core; `stagecraft simulate --threads`), with the same digests on any number.
    #[new]
    #[pyo3(signature = (project, scenario, seed=None, threads=None))]
    fn new(
        py: Python<'_>,
        project: PyRef<'_, Project>,
        scenario: &str,
        seed: Option<u64>,
        threads: Option<usize>,
    ) -> PyResult<Simulation> {
        let pool = match threads {
            Some(0) => return Err(error("threads must be at least 1".to_owned())),
            Some(threads) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| error(format!("cannot start {threads} threads: {e}")))?,
            ),
            None => None,
        };
        let documents = project.documents("nothing simulated")?;
        let scenario = find_scenario(documents, scenario).map_err(|e| error(e.to_string()))?;
        // As `stagecraft simulate` and the editor's session: `stagecraft-io`'s one constructor
        // (the recipe generated with its override sets, the world built by the runtime); the
        // content is generated once per project and scenario (`Project::scenario_content`).
        let content = project
            .scenario_content(py, scenario)
            .and_then(|mut content| {
                content.seed = seed.unwrap_or(content.seed);
                py.detach(|| content.world())
            });
        let world = match content {
            Ok(world) => world,
            Err(ScenarioError::RecipeErrors {
                recipe,
                diagnostics,
            }) => {
                let message = format!("the recipe `{recipe}` does not compile");
                return Err(project_error(&message, &diagnostics));
            }
            Err(other) => return Err(error(other.to_string())),
        };
        Ok(Simulation {
            world,
            scenario: scenario.id.clone(),
            pool,
        })
    }

    /// Steps the world `n` frames (the GIL released meanwhile).
    #[pyo3(signature = (n=1))]
    fn step(&mut self, py: Python<'_>, n: u64) {
        let (world, pool) = (&mut self.world, self.pool.as_ref());
        py.detach(|| match pool {
            Some(pool) => pool.install(|| (0..n).for_each(|_| world.step())),
            None => (0..n).for_each(|_| world.step()),
        });
    }

    /// The current frame.
    #[getter]
    fn frame(&self) -> u64 {
        self.world.frame()
    }

    /// Simulated time, seconds.
    #[getter]
    fn time_s(&self) -> f64 {
        self.world.time_s()
    }

    /// The scenario's id.
    #[getter]
    fn scenario(&self) -> String {
        self.scenario.clone()
    }

    /// The world's seed (the manifest's root seed unless `seed=` was given).
    #[getter]
    fn seed(&self) -> u64 {
        self.world.config().seed
    }

    /// The fixed step, seconds.
    #[getter]
    fn fixed_step_s(&self) -> f64 {
        self.world.config().fixed_step_s
    }

    fn __len__(&self) -> usize {
        self.world.agent_count()
    }

    /// The Motion Frames of the last step, one per agent in row order, as a NumPy structured
    /// array: `id` (u64), `source`, `ordinal`, `x`, `y` (m), `vx`, `vy` (m/s), `speed` (m/s),
    /// `heading` (facing yaw, rad), `panic` (0..1), `state` (index into
    /// `stagecraft.AGENT_STATES`), `tier` (index into `stagecraft.TIERS`), `moving`, `updated`,
    /// `pooled`.
    fn agents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let frames = self.world.motion_frames();
        let mut bytes = Vec::with_capacity(frames.len() * AGENT_RECORD_BYTES);
        for frame in frames.iter() {
            bytes.extend_from_slice(&agent_record(&frame));
        }
        structured(py, bytes, &dtype(py, &agent_fields())?)
    }

    /// The event log the world holds, in the order the events happened: dicts with `seq`,
    /// `frame`, `kind`, `handle`, `source` (its id), `position_m` and a structured `detail`,
    /// exactly as `stagecraft simulate --events` writes them (`docs/events.md`).
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // The same document `simulate --events` writes (`docs/events.md`), read by Python's own
        // JSON reader so the dicts are equal key for key.
        let sources: Vec<&str> = self
            .world
            .config()
            .sources
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        let text = events_json_text(self.world.events(), &sources);
        let document = py.import("json")?.call_method1("loads", (text,))?;
        document.get_item("events")
    }

    /// The counters of the last step (`stagecraft simulate --json`'s `final`).
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counters = self.world.counters();
        let dict = PyDict::new(py);
        for (name, value) in counters
            .rows()
            .iter()
            .chain(counters.population_rows().iter())
        {
            // The keys `stagecraft simulate --json` gives the same counters.
            dict.set_item(snake_key(name), *value)?;
        }
        Ok(dict)
    }

    /// Captures the current state.
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            snapshot: self.world.snapshot(),
        }
    }

    /// Restores `snapshot` (all or nothing: on error the world is unchanged).
    fn restore(&mut self, snapshot: &Snapshot) -> PyResult<()> {
        self.world
            .restore(&snapshot.snapshot)
            .map_err(|e| error(format!("the snapshot cannot be restored: {e}")))
    }

    /// The state digest (hex), the one `stagecraft simulate` prints.
    fn state_digest(&self) -> String {
        self.world.state_digest_hex()
    }

    /// Benchmarks only: steps `n` frames and returns the seconds the Rust loop took.
    fn _timed_steps(&mut self, py: Python<'_>, n: u64) -> f64 {
        let world = &mut self.world;
        py.detach(|| {
            let start = Instant::now();
            for _ in 0..n {
                world.step();
            }
            start.elapsed().as_secs_f64()
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<stagecraft.Simulation {} at frame {}, {} agents>",
            self.scenario,
            self.world.frame(),
            self.world.agent_count()
        )
    }
}

impl Simulation {
    /// A simulation over an already built `world` (the benchmark worlds).
    pub fn of_world(world: World, scenario: &str) -> Simulation {
        Simulation {
            world,
            scenario: scenario.to_owned(),
            pool: None,
        }
    }
}
