//! `stagecraft repro`: reproduction packages. `repro PROJECT --out FILE` writes one JSON file
//! holding every input byte generation reads (manifest, recipes, scenarios, override sets and the
//! asset families, exactly as read, each with its BLAKE3 digest), the root seed, the build's
//! version and the expected digests (per recipe: bundle, recipe source and every stage with its
//! operator and algorithm version). `repro --check FILE` regenerates from the package alone — in
//! memory, no project folder — and compares: each input digest, then each recipe's stages and
//! bundle digest, naming what differs (exit 1 on any difference). A package that is not one
//! (damaged JSON, a missing field, a malformed digest) is an `invalid_package` error (exit 2)
//! located at the line and column where reading stopped. The format is in `docs/cli-json.md`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stagecraft_runtime::content::encode::hex;
use stagecraft_runtime::generate::GeneratedBundle;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::{has_errors, ProjectSources};
use stagecraft_runtime::recipe::{compile_project_recipe, load_and_check};

use super::diagnostics::escape_controls;
use super::error::CliError;
use crate::cook::generate_plan;

/// The `schema` of a package file (its own version, independent of the reports').
pub const PACKAGE_SCHEMA: &str = "stagecraft.repro-package/1";

/// Arguments of `stagecraft repro`.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["project", "check"])))]
pub struct ReproArgs {
    /// The project folder to package (with --out).
    #[arg(requires = "out")]
    pub project: Option<PathBuf>,
    /// The package file to write (a new path, a regular file, a pipe or a character device).
    #[arg(long, value_name = "FILE", requires = "project")]
    pub out: Option<PathBuf>,
    /// Regenerate from this package alone and compare with its expected digests.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["project", "out"])]
    pub check: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// A reproduction package, as written to and read from its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Package {
    /// [`PACKAGE_SCHEMA`].
    pub schema: String,
    /// The `stagecraft` version that wrote it.
    pub stagecraft_version: String,
    /// The project's name (its manifest's).
    pub project: String,
    /// The root seed of the generation.
    pub root_seed: u64,
    /// Every input file generation reads, by project-relative path, in path order.
    pub inputs: Vec<InputFile>,
    /// What generating the inputs gave, per recipe in manifest order.
    pub expected: Vec<RecipeDigests>,
}

/// One input file: its path, digest and bytes (project files are UTF-8 text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputFile {
    /// Project-relative path (`recipes/x.recipe.ron`, `../../assets/trees.family.ron`).
    pub path: String,
    /// BLAKE3 of the text's bytes (hex).
    pub blake3: String,
    /// The file's text.
    pub text: String,
}

/// The digests of one recipe's generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecipeDigests {
    /// Recipe id.
    pub recipe: String,
    /// The bundle digest.
    pub digest: String,
    /// BLAKE3 of the recipe's canonical text.
    pub source_digest: String,
    /// Address schema version.
    pub address_schema: u32,
    /// Every stage in plan order.
    pub stages: Vec<StageDigest>,
}

/// One stage's product digest with what made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageDigest {
    /// Persistent stage id.
    pub stage: u32,
    /// Operator id.
    pub operator: String,
    /// Algorithm version.
    pub algorithm: u32,
    /// Product digest (hex).
    pub digest: String,
}

/// `stagecraft repro`: writes a package (exit 0) or checks one (exit 0 when everything matches,
/// 1 when anything differs).
pub fn repro(args: &ReproArgs, out: &mut dyn Write) -> anyhow::Result<i32> {
    match (&args.check, &args.project, &args.out) {
        (Some(file), _, _) => check_command(file, args.json, out),
        (None, Some(project), Some(file)) => write_command(project, file, args.json, out),
        _ => anyhow::bail!("give PROJECT --out FILE, or --check FILE"),
    }
}

fn write_command(
    project: &Path,
    file: &Path,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    crate::output_file::output_file_kind(file)?;
    let (sources, _) = super::load(project)?;
    let package = package_of(&sources).map_err(|error| {
        CliError::new(
            1,
            "project_errors",
            format!("{}: {error}", project.display()),
        )
        .in_file(project.display().to_string())
    })?;
    let mut text = serde_json::to_string_pretty(&package)?;
    text.push('\n');
    crate::output_file::write_output_file(file, text.as_bytes())?;
    let stages: usize = package.expected.iter().map(|r| r.stages.len()).sum();
    if json {
        let report = serde_json::json!({
            "project": project.display().to_string(),
            "package": file.display().to_string(),
            "bytes": text.len(),
            "root_seed": package.root_seed,
            "inputs": package.inputs.iter().map(|i| serde_json::json!({"path": i.path, "blake3": i.blake3, "bytes": i.text.len()})).collect::<Vec<_>>(),
            "recipes": package.expected,
        });
        super::json_out::write_document(out, "repro", &report)?;
    } else {
        writeln!(
            out,
            "{}: {} input files, {} recipes, {stages} stage digests, seed {} → {} ({} bytes)",
            escape_controls(&project.display().to_string()),
            package.inputs.len(),
            package.expected.len(),
            package.root_seed,
            escape_controls(&file.display().to_string()),
            text.len()
        )?;
    }
    Ok(0)
}

/// The package of a project's sources: every file with its digest, and what generating them
/// gives. An error when the project does not load, compile or generate cleanly.
pub fn package_of(sources: &ProjectSources) -> anyhow::Result<Package> {
    if let Some((path, problem)) = sources.unreadable.iter().next() {
        anyhow::bail!("{path}: {}", problem.message);
    }
    let inputs = sources
        .files
        .iter()
        .map(|(path, text)| InputFile {
            path: path.clone(),
            blake3: blake3::hash(text.as_bytes()).to_hex().to_string(),
            text: text.clone(),
        })
        .collect();
    let (project, root_seed) = manifest_of(sources)?;
    let expected = regenerate(sources, root_seed)?
        .into_iter()
        .map(|(id, result)| result.map_err(|e| anyhow::anyhow!("recipe `{id}`: {e}")))
        .collect::<anyhow::Result<_>>()?;
    Ok(Package {
        schema: PACKAGE_SCHEMA.to_owned(),
        stagecraft_version: env!("CARGO_PKG_VERSION").to_owned(),
        project,
        root_seed,
        inputs,
        expected,
    })
}

/// The project's name and root seed, when its documents load without errors.
fn manifest_of(sources: &ProjectSources) -> anyhow::Result<(String, u64)> {
    let loaded = load_and_check(sources, &Registry::standard());
    match loaded.project.as_ref() {
        Some(doc) if !has_errors(&loaded.diagnostics) => {
            Ok((doc.manifest.name.clone(), doc.manifest.root_seed))
        }
        _ => anyhow::bail!("the project has errors; `stagecraft check` lists them"),
    }
}

/// Per recipe of the manifest (in its order): the digests of generating it at `root_seed` with
/// its override sets, or why it did not generate. An error when the project has errors.
pub fn regenerate(
    sources: &ProjectSources,
    root_seed: u64,
) -> anyhow::Result<Vec<(String, Result<RecipeDigests, String>)>> {
    let registry = Registry::standard();
    let loaded = load_and_check(sources, &registry);
    let doc = match loaded.project.as_ref() {
        Some(doc) if !has_errors(&loaded.diagnostics) => doc,
        _ => {
            let first = loaded.diagnostics.iter().find(|d| d.is_error());
            let why = first.map_or("no manifest".to_owned(), |d| {
                format!("{}:{}:{}: {}", d.file, d.line, d.column, d.message)
            });
            anyhow::bail!("the inputs do not load: {why}");
        }
    };
    let mut recipes = Vec::new();
    for id in &doc.manifest.recipes {
        let result = match compile_project_recipe(&loaded, id, &registry).and_then(|o| o.plan) {
            None => Err("the recipe does not compile".to_owned()),
            Some(plan) => generate_plan(&plan, root_seed, &Overrides::of_recipe(doc, id))
                .map(|bundle| digests_of(&bundle))
                .map_err(|e| format!("{e:#}")),
        };
        recipes.push((id.clone(), result));
    }
    Ok(recipes)
}

fn digests_of(bundle: &GeneratedBundle) -> RecipeDigests {
    RecipeDigests {
        recipe: bundle.recipe_id.clone(),
        digest: bundle.digest_hex(),
        source_digest: hex(&bundle.source_digest),
        address_schema: bundle.address_schema,
        stages: bundle
            .stages
            .iter()
            .map(|s| StageDigest {
                stage: s.stage,
                operator: s.operator.to_owned(),
                algorithm: s.algorithm,
                digest: hex(&s.digest),
            })
            .collect(),
    }
}

/// Reads a package file: an `invalid_package` error (exit 2) located where reading stopped when
/// it is not one.
pub fn read_package(file: &Path) -> anyhow::Result<Package> {
    let shown = file.display().to_string();
    let bytes = std::fs::read(file)
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot read {shown}")))?;
    parse_package(&bytes).map_err(|error| {
        let mut located =
            CliError::new(2, "invalid_package", format!("{shown}: {}", error.message))
                .in_file(shown.clone());
        located.line = error.line;
        located.column = error.column;
        located.into()
    })
}

/// Why bytes are not a package, with the 1-based line and column where known.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageError {
    /// What is wrong.
    pub message: String,
    /// 1-based line.
    pub line: Option<u32>,
    /// 1-based column.
    pub column: Option<u32>,
}

/// Parses and validates package bytes (schema, digests spelled as 64 hex digits, paths unique).
pub fn parse_package(bytes: &[u8]) -> Result<Package, PackageError> {
    let package: Package = serde_json::from_slice(bytes).map_err(|e| PackageError {
        message: format!("not a reproduction package: {e}"),
        line: u32::try_from(e.line()).ok().filter(|l| *l > 0),
        column: u32::try_from(e.column()).ok().filter(|c| *c > 0),
    })?;
    let unlocated = |message: String| PackageError {
        message,
        line: None,
        column: None,
    };
    if package.schema != PACKAGE_SCHEMA {
        return Err(unlocated(format!(
            "schema is `{}`, expected `{PACKAGE_SCHEMA}`",
            package.schema
        )));
    }
    let mut paths = std::collections::BTreeSet::new();
    for (i, input) in package.inputs.iter().enumerate() {
        check_hex(&input.blake3, &format!("inputs[{i}].blake3")).map_err(unlocated)?;
        if !paths.insert(input.path.as_str()) {
            return Err(unlocated(format!(
                "inputs[{i}].path `{}` appears twice",
                input.path
            )));
        }
    }
    for (r, recipe) in package.expected.iter().enumerate() {
        check_hex(&recipe.digest, &format!("expected[{r}].digest")).map_err(unlocated)?;
        check_hex(
            &recipe.source_digest,
            &format!("expected[{r}].source_digest"),
        )
        .map_err(unlocated)?;
        for (s, stage) in recipe.stages.iter().enumerate() {
            check_hex(&stage.digest, &format!("expected[{r}].stages[{s}].digest"))
                .map_err(unlocated)?;
        }
    }
    Ok(package)
}

fn check_hex(text: &str, field: &str) -> Result<(), String> {
    let ok = text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{field} is `{text}`, expected a BLAKE3 digest (64 lowercase hex digits)"
        ))
    }
}

/// One compared digest: what it is and whether it matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// `input`, `stage` or `bundle`.
    pub kind: &'static str,
    /// The recipe (empty for an input).
    pub recipe: String,
    /// The stage id (stages only).
    pub stage: Option<u32>,
    /// The input path, or the stage's operator and version, or the recipe.
    pub what: String,
    /// The digest the package expects (`None`: the package has no such stage).
    pub expected: Option<String>,
    /// The digest found (`None`: regeneration gave no such stage, or failed).
    pub actual: Option<String>,
    /// Whether they are equal.
    pub ok: bool,
    /// Why there is no `actual`, when generation failed.
    pub error: Option<String>,
}

/// Compares a package with regenerating its inputs: every input digest, then every stage and
/// bundle of every recipe the package expects or regeneration gives.
pub fn compare(package: &Package) -> Vec<Comparison> {
    let mut rows: Vec<Comparison> = package.inputs.iter().map(input_row).collect();
    let sources = ProjectSources {
        files: package
            .inputs
            .iter()
            .map(|i| (i.path.clone(), i.text.clone()))
            .collect(),
        ..ProjectSources::default()
    };
    let regenerated: BTreeMap<String, Result<RecipeDigests, String>> =
        match regenerate(&sources, package.root_seed) {
            Ok(recipes) => recipes.into_iter().collect(),
            Err(error) => package
                .expected
                .iter()
                .map(|r| (r.recipe.clone(), Err(format!("{error:#}"))))
                .collect(),
        };
    for expected in &package.expected {
        let actual = regenerated
            .get(&expected.recipe)
            .cloned()
            .unwrap_or_else(|| Err("the regenerated manifest has no such recipe".to_owned()));
        rows.extend(recipe_rows(&expected.recipe, Some(expected), &actual));
    }
    for (id, actual) in &regenerated {
        if !package.expected.iter().any(|r| &r.recipe == id) {
            rows.extend(recipe_rows(id, None, actual));
        }
    }
    rows
}

fn input_row(input: &InputFile) -> Comparison {
    let actual = blake3::hash(input.text.as_bytes()).to_hex().to_string();
    Comparison {
        kind: "input",
        recipe: String::new(),
        stage: None,
        what: input.path.clone(),
        ok: actual == input.blake3,
        expected: Some(input.blake3.clone()),
        actual: Some(actual),
        error: None,
    }
}

/// The stage rows (union of expected and regenerated stages, expected order first) and the
/// bundle row of one recipe.
fn recipe_rows(
    recipe: &str,
    expected: Option<&RecipeDigests>,
    actual: &Result<RecipeDigests, String>,
) -> Vec<Comparison> {
    let error = actual.as_ref().err().cloned();
    let actual = actual.as_ref().ok();
    let mut ids: Vec<u32> =
        expected.map_or(Vec::new(), |r| r.stages.iter().map(|s| s.stage).collect());
    for stage in actual.map_or(&[][..], |r| &r.stages[..]) {
        if !ids.contains(&stage.stage) {
            ids.push(stage.stage);
        }
    }
    let find = |r: Option<&RecipeDigests>, id: u32| {
        r.and_then(|r| r.stages.iter().find(|s| s.stage == id))
            .cloned()
    };
    let mut rows = Vec::new();
    for id in ids {
        let (want, got) = (find(expected, id), find(actual, id));
        let made = |s: &StageDigest| format!("{} v{}", s.operator, s.algorithm);
        let what = want.as_ref().or(got.as_ref()).map(made).unwrap_or_default();
        let same_maker = want.as_ref().map(made) == got.as_ref().map(made);
        let (want, got) = (want.map(|s| s.digest), got.map(|s| s.digest));
        rows.push(Comparison {
            kind: "stage",
            recipe: recipe.to_owned(),
            stage: Some(id),
            what,
            ok: want.is_some() && want == got && same_maker,
            expected: want,
            actual: got,
            error: error.clone(),
        });
    }
    let (want, got) = (
        expected.map(|r| r.digest.clone()),
        actual.map(|r| r.digest.clone()),
    );
    rows.push(Comparison {
        kind: "bundle",
        recipe: recipe.to_owned(),
        stage: None,
        what: format!("recipe {recipe}"),
        ok: want.is_some() && want == got,
        expected: want,
        actual: got,
        error,
    });
    rows
}

fn check_command(file: &Path, json: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    let package = read_package(file)?;
    let rows = compare(&package);
    let differing = rows.iter().filter(|r| !r.ok).count();
    if json {
        let report = serde_json::json!({
            "package": file.display().to_string(),
            "project": package.project,
            "root_seed": package.root_seed,
            "stagecraft_version": package.stagecraft_version,
            "ok": differing == 0,
            "compared": rows.len(),
            "differing": differing,
            "comparisons": rows,
        });
        super::json_out::write_document(out, "repro_check", &report)?;
    } else {
        out.write_all(check_text(file, &package, &rows).as_bytes())?;
    }
    Ok(i32::from(differing > 0))
}

fn check_text(file: &Path, package: &Package, rows: &[Comparison]) -> String {
    let mut text = format!(
        "{}: project \"{}\", seed {}, {} inputs, {} recipes (written by stagecraft {})\n",
        escape_controls(&file.display().to_string()),
        escape_controls(&package.project),
        package.root_seed,
        package.inputs.len(),
        package.expected.len(),
        escape_controls(&package.stagecraft_version)
    );
    for row in rows {
        let subject = match (row.kind, row.stage) {
            ("input", _) => format!("input {}", row.what),
            (_, Some(stage)) => format!("recipe {} stage {stage} {}", row.recipe, row.what),
            _ => format!("recipe {} bundle", row.recipe),
        };
        let verdict = match (&row.expected, &row.actual, &row.error) {
            _ if row.ok => "ok".to_owned(),
            (_, None, Some(error)) => format!("DIFFERS: regeneration failed: {error}"),
            (None, Some(got), _) => format!("DIFFERS: not in the package (regenerated {got})"),
            (Some(want), None, _) => format!("DIFFERS: expected {want}, regenerated nothing"),
            (Some(want), Some(got), _) if want == got => {
                "DIFFERS: same digest, another operator or version".to_owned()
            }
            (want, got, _) => format!(
                "DIFFERS: expected {}, got {}",
                want.as_deref().unwrap_or("-"),
                got.as_deref().unwrap_or("-")
            ),
        };
        text.push_str(&format!("  {}: {verdict}\n", escape_controls(&subject)));
    }
    let differing = rows.iter().filter(|r| !r.ok).count();
    if differing == 0 {
        text.push_str(&format!("reproduced: all {} digests match\n", rows.len()));
    } else {
        text.push_str(&format!(
            "NOT reproduced: {differing} of {} digests differ\n",
            rows.len()
        ));
    }
    text
}
