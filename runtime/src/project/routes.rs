//! The pedestrian routes a recipe publishes, by id, so scenarios can be checked without generating.
//!
//! This is the naming contract of the `street.block` operator: a block publishes its two
//! sidewalks and one route per crosswalk. The operator and this list must agree (a test of the
//! operator checks it).

use std::collections::BTreeSet;

use super::schema::Recipe;

/// The operator id of street blocks.
pub const STREET_BLOCK_OPERATOR: &str = "street.block";

/// The parameter of `street.block` that counts its crosswalks, and its default.
pub const CROSSWALKS_PARAMETER: (&str, i64) = ("crosswalks", 1);

/// The route ids a street block with `crosswalks` crosswalks publishes, sorted.
pub fn street_block_routes(crosswalks: i64) -> BTreeSet<String> {
    let mut routes: BTreeSet<String> = ["sidewalk.north", "sidewalk.south"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    for index in 0..crosswalks.clamp(0, 64) {
        routes.insert(format!("crosswalk.{index}"));
    }
    routes
}

/// Every route id the recipe's street-block stages publish, sorted.
pub fn published_routes(recipe: &Recipe) -> BTreeSet<String> {
    recipe
        .stages
        .iter()
        .filter(|stage| stage.operator == STREET_BLOCK_OPERATOR)
        .flat_map(|stage| {
            let crosswalks = stage
                .parameters
                .get(CROSSWALKS_PARAMETER.0)
                .and_then(|value| value.as_int())
                .unwrap_or(CROSSWALKS_PARAMETER.1);
            street_block_routes(crosswalks)
        })
        .collect()
}
