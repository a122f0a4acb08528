//! The checked-in JSON Schemas (`docs/schemas/*.schema.json`) are exactly the ones generated
//! from the runtime's document types, so the published schema is the one the exports follow.
//! `STAGECRAFT_BLESS=1 cargo test --workspace --test json_schemas` rewrites them after a
//! deliberate change of a document type.

use std::path::PathBuf;

use stagecraft_runtime::export::events::events_schema_text;
use stagecraft_runtime::export::json::bundle_schema_text;

fn check(name: &str, generated: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("docs")
        .join("schemas")
        .join(name);
    if std::env::var_os("STAGECRAFT_BLESS").is_some() {
        std::fs::write(&path, generated).expect("schema written");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} differs from the schema generated from the document types; after a deliberate \
         change run `STAGECRAFT_BLESS=1 cargo test --workspace --test json_schemas`",
        path.display()
    );
    let schema: serde_json::Value = serde_json::from_str(&checked_in).expect("a JSON schema");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[test]
fn the_bundle_schema_is_the_generated_one() {
    let generated = bundle_schema_text();
    check("bundle.schema.json", &generated);
    let schema: serde_json::Value = serde_json::from_str(&generated).expect("JSON");
    // Every placement must carry its identity, variant, transform and provenance.
    let required = &schema["$defs"]["PlacementJson"]["required"];
    for field in ["id", "variant", "variant_id", "transform", "provenance"] {
        assert!(
            required
                .as_array()
                .is_some_and(|r| r.iter().any(|f| f == field)),
            "{field}: {required}"
        );
    }
}

#[test]
fn the_events_schema_is_the_generated_one() {
    let generated = events_schema_text();
    check("events.schema.json", &generated);
    let schema: serde_json::Value = serde_json::from_str(&generated).expect("JSON");
    let details = schema["$defs"]["DetailJson"]["oneOf"]
        .as_array()
        .map(Vec::len);
    assert_eq!(
        details,
        Some(15),
        "one detail type per EventDetail variant but None"
    );
}
