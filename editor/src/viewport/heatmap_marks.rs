//! The heatmap overlay: the runtime's bins ([`scatter_heatmap`]) of the shown content's last
//! scatter stage drawn as translucent coloured squares on the ground (the ground, surfaces and
//! object bases read through; [`palette::HEAT_ALPHA`]), and their legend in the same colours. The stage is the
//! last scatter stage in execution order among those shown, so stepping or isolating a stage
//! shows the heatmap of the scatter it reached.

use three_d::{vec3, Srgba};

use super::layer::LayerData;
use super::palette;
use crate::session::PreviewContent;
use stagecraft_runtime::content::heatmap::{scatter_heatmap, Heatmap, HeatmapMode, RejectionKind};
use stagecraft_runtime::content::Product;

/// Most bins a side: enough to read a block, few enough to draw a 16 km² forest at once.
pub const MAX_BINS: u32 = 96;

/// Height of the squares above the ground, meters: over sidewalks (0.15 m), under objects.
const HEAT_Z_M: f32 = 0.2;

/// Share of a bin's edge its square leaves empty, so neighbouring bins read apart.
const GAP: f64 = 0.06;

/// The heatmap of the last scatter stage of `content` in `mode`, with that stage's id.
pub fn heatmap(content: &PreviewContent, mode: HeatmapMode) -> Option<(u32, Heatmap)> {
    content
        .stages()
        .iter()
        .rev()
        .find_map(|stage| match stage.product.as_ref() {
            Product::Placements(scatter) => {
                scatter_heatmap(scatter, mode, MAX_BINS).map(|heat| (stage.stage, heat))
            }
            _ => None,
        })
}

/// The squares of `heat`: one per bin with a count, in its ramp colour.
pub fn layer(heat: &Heatmap) -> LayerData {
    let mut data = LayerData::default();
    let max = heat.max();
    let inset = heat.bin_size_m * GAP / 2.0;
    for row in 0..heat.rows {
        for column in 0..heat.columns {
            let Some(bucket) = palette::heat_bucket(heat.count(column, row), max) else {
                continue;
            };
            let (x, y) = heat.bin_origin_m(column, row);
            let (x0, y0) = ((x + inset) as f32, (y + inset) as f32);
            let (x1, y1) = (
                (x + heat.bin_size_m - inset) as f32,
                (y + heat.bin_size_m - inset) as f32,
            );
            let corners = [
                vec3(x0, y0, HEAT_Z_M),
                vec3(x1, y0, HEAT_Z_M),
                vec3(x1, y1, HEAT_Z_M),
                vec3(x0, y1, HEAT_Z_M),
            ];
            data.fill_convex(&corners, palette::heat_colour(bucket));
        }
    }
    data
}

/// What `mode` counts, in words.
pub fn mode_name(mode: HeatmapMode) -> String {
    match mode {
        HeatmapMode::Candidates => "candidates".to_owned(),
        HeatmapMode::Rejections(None) => "rejections".to_owned(),
        HeatmapMode::Rejections(Some(kind)) => format!("rejections ({})", kind.name()),
        HeatmapMode::Density => "placements".to_owned(),
    }
}

/// The modes `stagecraft --heatmap` takes, by name.
pub fn mode_of_name(name: &str) -> Option<HeatmapMode> {
    match name {
        "candidates" => Some(HeatmapMode::Candidates),
        "rejections" => Some(HeatmapMode::Rejections(None)),
        "density" => Some(HeatmapMode::Density),
        _ => {
            let kind = name.strip_prefix("rejections:")?;
            RejectionKind::ALL
                .into_iter()
                .find(|k| k.name() == kind)
                .map(|k| HeatmapMode::Rejections(Some(k)))
        }
    }
}

/// The names [`mode_of_name`] takes.
pub const MODE_NAMES: [&str; 6] = [
    "candidates",
    "rejections",
    "rejections:outside-region",
    "rejections:in-keep-out",
    "rejections:conflict",
    "density",
];

/// The legend of `heat` from stage `stage`: what is counted over which bins, then one entry per
/// ramp colour drawn, with its range of counts (and, for placements, per 100 m²).
pub fn legend(stage: u32, heat: &Heatmap) -> Vec<(String, Srgba)> {
    let max = heat.max();
    let mut entries = vec![(
        format!(
            "{} per {:.1} m bin, stage {stage}",
            mode_name(heat.mode),
            heat.bin_size_m
        ),
        palette::rgb(40, 40, 40),
    )];
    if max == 0 {
        entries.push(("none in the region".to_owned(), palette::rgb(40, 40, 40)));
        return entries;
    }
    let steps = palette::HEAT.len() as u64;
    let per_100_m2 = 100.0 / heat.bin_area_m2().max(f64::MIN_POSITIVE);
    for bucket in 0..palette::HEAT.len() {
        let colour = palette::heat_colour(bucket);
        let b = bucket as u64;
        let low = (b * u64::from(max)) / steps + 1;
        let high = ((b + 1) * u64::from(max)) / steps;
        if low > high {
            continue;
        }
        let range = if low == high {
            format!("{low}")
        } else {
            format!("{low}–{high}")
        };
        let text = match heat.mode {
            HeatmapMode::Density => format!(
                "{range} ({:.1}–{:.1} per 100 m²)",
                low as f64 * per_100_m2,
                high as f64 * per_100_m2
            ),
            _ => range,
        };
        entries.push((text, colour));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fixtures::example_content;

    #[test]
    fn mode_names_round_trip() {
        for name in MODE_NAMES {
            let mode = mode_of_name(name).unwrap_or_else(|| panic!("{name}"));
            let back = match mode {
                HeatmapMode::Candidates => "candidates".to_owned(),
                HeatmapMode::Rejections(None) => "rejections".to_owned(),
                HeatmapMode::Rejections(Some(kind)) => format!("rejections:{}", kind.name()),
                HeatmapMode::Density => "density".to_owned(),
            };
            assert_eq!(back, name);
        }
        assert_eq!(mode_of_name("rejections:teleported"), None);
    }

    /// Street block: the heatmap is stage 2's (the scatter), its squares are the bins with a
    /// count, and every colour drawn has a legend entry.
    #[test]
    fn the_street_blocks_scatter_is_binned_drawn_and_explained() {
        let content = example_content("street-block", "street-block").expect("generates");
        let (stage, heat) = heatmap(&content, HeatmapMode::Candidates).expect("a scatter");
        assert_eq!(stage, 2);
        let Product::Placements(scatter) = content.stage(2).expect("stage 2").product.as_ref()
        else {
            panic!("placements");
        };
        // Every candidate, accepted or rejected, is in some bin.
        assert_eq!(
            heat.total(),
            (scatter.placement_count() + scatter.rejected_count()) as u64
        );
        let filled = heat.counts.iter().filter(|c| **c > 0).count();
        let data = layer(&heat);
        assert_eq!(data.triangles.len(), filled * 6);
        let legend = legend(stage, &heat);
        for (_, colour) in &data.triangles {
            assert!(legend.iter().any(|(_, c)| c == colour), "{colour:?}");
        }
        assert!(
            legend[0].0.starts_with("candidates per 3.0 m bin, stage 2"),
            "{legend:?}"
        );
        // Density counts the accepted placements only.
        let (_, density) = heatmap(&content, HeatmapMode::Density).expect("a scatter");
        assert_eq!(density.total(), scatter.placement_count() as u64);
    }

    #[test]
    fn legend_ranges_split_the_counts_in_fifths() {
        let heat = Heatmap {
            mode: HeatmapMode::Density,
            first_cell: (0, 0),
            cells_per_bin: 1,
            columns: 2,
            rows: 1,
            bin_size_m: 10.0,
            origin_m: (0.0, 0.0),
            counts: vec![10, 3],
        };
        let names: Vec<String> = legend(7, &heat).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "placements per 10.0 m bin, stage 7",
                "1–2 (1.0–2.0 per 100 m²)",
                "3–4 (3.0–4.0 per 100 m²)",
                "5–6 (5.0–6.0 per 100 m²)",
                "7–8 (7.0–8.0 per 100 m²)",
                "9–10 (9.0–10.0 per 100 m²)",
            ]
        );
        assert_eq!(palette::heat_bucket(3, 10), Some(1));
        assert_eq!(palette::heat_bucket(10, 10), Some(4));
        assert_eq!(palette::heat_bucket(0, 10), None);
        let data = layer(&heat);
        assert_eq!(data.triangles.len(), 12);
        // Translucent ramp colours: the ground reads through, the legend shows the same paint.
        let (top, second) = (palette::HEAT[4], palette::HEAT[1]);
        assert_eq!(
            data.triangles[0].1,
            Srgba::new(top.r, top.g, top.b, palette::HEAT_ALPHA)
        );
        assert_eq!(
            data.triangles[6].1,
            Srgba::new(second.r, second.g, second.b, palette::HEAT_ALPHA)
        );
        assert_eq!(palette::HEAT_ALPHA, 110);
        let swatches: Vec<Srgba> = legend(7, &heat)
            .into_iter()
            .skip(1)
            .map(|(_, c)| c)
            .collect();
        assert_eq!(swatches.len(), 5);
        assert!(swatches.iter().all(|c| c.a == palette::HEAT_ALPHA));
        assert_eq!(swatches[4], data.triangles[0].1);
    }
}
