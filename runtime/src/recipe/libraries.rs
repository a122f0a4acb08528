//! Chunk library parameters resolved against the project: a stage naming a library by id gets the
//! library's rows as the parameter's value, so the operator decodes them and the stage's cache
//! key covers their content (an edited library re-runs the stage).

use std::collections::BTreeMap;

use crate::ops::registry::{library_value, OperatorDescriptor, ParamProblem, ParamType};
use crate::project::chunk_library::{ChunkLibrary, CHUNK_LIBRARY_FOLDER, CHUNK_LIBRARY_SUFFIX};
use crate::project::ParamValue;

/// `given` with every chunk-library parameter of `operator` that names a library of `libraries`
/// replaced by its rows; a name the project has no library for is a problem at the parameter.
pub fn resolve_libraries(
    operator: &OperatorDescriptor,
    given: &BTreeMap<String, ParamValue>,
    libraries: &BTreeMap<String, ChunkLibrary>,
) -> Result<BTreeMap<String, ParamValue>, Vec<ParamProblem>> {
    let mut resolved = given.clone();
    let mut problems = Vec::new();
    for spec in operator.params {
        if spec.ty != ParamType::ChunkLibrary {
            continue;
        }
        let Some(ParamValue::Str(id)) = given.get(spec.name) else {
            continue;
        };
        match libraries.get(id) {
            Some(library) => {
                resolved.insert(spec.name.to_owned(), library_value(library));
            }
            None => {
                let known: Vec<&str> = libraries.keys().map(String::as_str).collect();
                problems.push(ParamProblem::new(
                    spec.name,
                    format!(
                        "no chunk library `{id}` in the project (`{CHUNK_LIBRARY_FOLDER}/{id}{CHUNK_LIBRARY_SUFFIX}`, read without errors)"
                    ),
                    if known.is_empty() {
                        format!("a library file in `{CHUNK_LIBRARY_FOLDER}/`; the project has none")
                    } else {
                        format!("one of: {}", known.join(", "))
                    },
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(resolved)
    } else {
        Err(problems)
    }
}
