//! Tests of the registry and the built-in descriptors.

use std::collections::BTreeMap;

use super::*;
use crate::project::ParamValue;

#[test]
fn standard_registers_the_eight_operators_in_id_order() {
    let registry = Registry::standard();
    let ids: Vec<(&str, u32)> = registry.operators().map(|d| (d.id, d.algorithm)).collect();
    assert_eq!(
        ids,
        [
            ("assembly", 1),
            ("environment.scatter", 1),
            ("environment.select-and-place", 1),
            ("layout.grid-mission", 1),
            ("streaming.plan", 1),
            ("street.block", 1),
            ("subrecipe", 1),
            ("subrecipe.output", 1),
        ]
    );
    assert_eq!(registry.versions("environment.scatter"), [1]);
    // Only the subrecipe operators have no fixed output kind (their stages publish their
    // child's).
    let open: Vec<&str> = registry
        .operators()
        .filter(|d| d.output_kind().is_none())
        .map(|d| d.id)
        .collect();
    assert_eq!(open, ["subrecipe", "subrecipe.output"]);
    assert!(registry.get("environment.scatter", 2).is_none());
}

#[test]
fn registering_twice_or_malformed_is_an_error() {
    let mut registry = Registry::standard();
    let scatter = *registry
        .get("environment.scatter", 1)
        .unwrap_or_else(|| panic!("scatter"));
    assert!(matches!(
        registry.register(scatter),
        Err(RegistryError::Duplicate { algorithm: 1, .. })
    ));
    let zero = OperatorDescriptor {
        algorithm: 0,
        ..scatter
    };
    assert!(matches!(
        registry.register(zero),
        Err(RegistryError::Malformed { .. })
    ));
}

#[test]
fn every_schema_is_documented_and_defaults_are_in_range() {
    for descriptor in Registry::standard().operators() {
        assert!(!descriptor.summary.is_empty());
        for spec in descriptor.params {
            assert!(!spec.doc.is_empty(), "{}.{}", descriptor.id, spec.name);
            if let Some(default) = spec.default.value() {
                let given: BTreeMap<String, ParamValue> =
                    [(spec.name.to_owned(), default)].into_iter().collect();
                let problems = ParamSet::check(std::slice::from_ref(spec), &given).err();
                assert_eq!(problems, None, "{}.{}", descriptor.id, spec.name);
            }
        }
        for port in descriptor.inputs {
            assert!(!port.doc.is_empty());
        }
    }
}

#[test]
fn scatter_needs_exactly_one_source_of_regions() {
    let registry = Registry::standard();
    let scatter = registry
        .get("environment.scatter", 1)
        .unwrap_or_else(|| panic!("scatter"));
    let empty = ParamSet::check(scatter.params, &BTreeMap::new()).unwrap_or_default();
    let problems = (scatter.decode)(&empty, &["family"])
        .err()
        .unwrap_or_default();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].field, "region");
    assert!((scatter.decode)(&empty, &["family", "areas"]).is_ok());
}

#[test]
fn lattice_conversion_rounds_and_rejects_non_finite() {
    assert_eq!(meters_to_lattice(1.234, 0.01), Some(123));
    assert_eq!(meters_to_lattice(-1.235, 0.01), Some(-124));
    assert_eq!(meters_to_lattice(f64::NAN, 0.01), None);
    assert_eq!(meters_to_lattice(1e30, 0.01), None);
}
