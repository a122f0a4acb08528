//! Where each band of the banded walking loop (`motion::parallel`) steps its rows: the *home*
//! band in the world's rows and the world's grid; a band whose rows are one unbroken range of
//! rows above every home row *in place*, in that range of the world's rows (a [`WalkRows`]
//! view split off the world's, so no two bands hold the same row) with a grid of its own; any
//! other band on copies of its rows, written back after the loop.
//!
//! Two ways to place the bands are weighed, and the one with fewer copied rows is taken: the
//! busiest band at home and every other on copies; or the band whose last row is lowest at
//! home and every unbroken band above it in place (the two-way street's sidewalks are two
//! such ranges: neither copies). Where a band steps never changes a row's step.

use crate::sim::walk::WalkRows;

/// A band's own rows: the first, the last and how many (ascending, so the band's rows are one
/// unbroken range when `last − first + 1 == rows`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub first: usize,
    pub last: usize,
    pub rows: usize,
}

impl Span {
    fn unbroken(&self) -> bool {
        self.last + 1 - self.first == self.rows
    }
}

/// How a band steps its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// In the world's rows and grid (one band).
    Home,
    /// In the world's rows from its first row on (a view of its range), with its own grid.
    Range,
    /// On copies of its rows, with its own grid.
    Copies,
}

/// Each band's place (see the module doc), given each band's span (`None`: no rows), into
/// `places`; returns the home band.
pub(super) fn place(spans: &[Option<Span>], places: &mut Vec<Place>) -> usize {
    let rows = |band: usize| spans[band].map_or(0, |s| s.rows);
    let busiest = (0..spans.len()).fold(0, |best, b| if rows(b) > rows(best) { b } else { best });
    let lowest = (0..spans.len())
        .filter_map(|b| spans[b].map(|s| (s.last, b)))
        .min()
        .map(|(_, b)| b);
    places.clear();
    places.resize(spans.len(), Place::Copies);
    let Some(lowest) = lowest else {
        places[busiest] = Place::Home;
        return busiest;
    };
    let home_last = spans[lowest].map_or(0, |s| s.last);
    let in_place =
        |b: usize| b != lowest && spans[b].is_some_and(|s| s.unbroken() && s.first > home_last);
    let kept: usize = rows(lowest)
        + (0..spans.len())
            .filter(|b| in_place(*b))
            .map(rows)
            .sum::<usize>();
    // Fewer rows copied: those outside the home band and the bands in place.
    if kept > rows(busiest) {
        for (band, place) in places.iter_mut().enumerate() {
            if band == lowest {
                *place = Place::Home;
            } else if in_place(band) {
                *place = Place::Range;
            }
        }
        lowest
    } else {
        places[busiest] = Place::Home;
        busiest
    }
}

/// The world's rows `rows` split among the bands [`place`] placed: the home band's view from
/// row 0 (up to the first band in place), each band in place its own range's, with the row
/// its view starts at; `None` for a band on copies.
pub(super) fn views<'a>(
    rows: WalkRows<'a>,
    spans: &[Option<Span>],
    places: &[Place],
) -> Vec<Option<(WalkRows<'a>, usize)>> {
    let mut ranges: Vec<(usize, usize, usize)> = places
        .iter()
        .enumerate()
        .filter(|(_, place)| **place == Place::Range)
        .filter_map(|(band, _)| spans[band].map(|s| (s.first, s.rows, band)))
        .collect();
    ranges.sort_unstable();
    let mut views: Vec<Option<(WalkRows<'a>, usize)>> = places.iter().map(|_| None).collect();
    let mut home = None;
    let (mut rest, mut offset) = (rows, 0);
    for (first, count, band) in ranges {
        let (before, after) = rest.split_at(first - offset);
        // The home band's rows all lie below the first band in place; the gaps between
        // bands in place hold no row any band steps in place.
        home.get_or_insert(before);
        let (own, after) = after.split_at(count);
        views[band] = Some((own, first));
        (rest, offset) = (after, first + count);
    }
    if let Some(band) = places.iter().position(|p| *p == Place::Home) {
        views[band] = Some((home.unwrap_or(rest), 0));
    }
    views
}

#[cfg(test)]
mod tests {
    use super::{place, views, Place, Span};
    use crate::sim::walk::rows::test_agents;
    use crate::sim::walk::WalkRows;

    fn span(first: usize, last: usize, rows: usize) -> Option<Span> {
        Some(Span { first, last, rows })
    }

    #[test]
    fn two_unbroken_ranges_step_in_place() {
        // The two-way street: one sidewalk's rows 0..5000, the other's 5000..10000.
        let spans = [span(5000, 9999, 5000), span(0, 4999, 5000)];
        let mut places = Vec::new();
        assert_eq!(place(&spans, &mut places), 1);
        assert_eq!(places, vec![Place::Range, Place::Home]);
    }

    #[test]
    fn interleaved_rows_copy_all_but_the_busiest() {
        // The long street: its sidewalks' rows alternate.
        let spans = [span(0, 9998, 4000), span(1, 9999, 6000)];
        let mut places = Vec::new();
        assert_eq!(place(&spans, &mut places), 1);
        assert_eq!(places, vec![Place::Copies, Place::Home]);
    }

    #[test]
    fn only_ranges_above_the_home_band_step_in_place() {
        // Band 2's last row is the lowest; band 0 is broken, band 1 unbroken above band 2's
        // rows, band 3 has no rows: 12 rows copied against 20 with band 0 at home.
        let spans = [span(0, 40, 12), span(50, 59, 10), span(10, 19, 10), None];
        let mut places = Vec::new();
        assert_eq!(place(&spans, &mut places), 2);
        assert_eq!(
            places,
            vec![Place::Copies, Place::Range, Place::Home, Place::Copies]
        );
        // Fewer copies with the busiest band at home (12 rows) than with band 2 (30).
        let spans = [span(0, 40, 30), span(50, 51, 2), span(10, 19, 10)];
        assert_eq!(place(&spans, &mut places), 0);
        assert_eq!(places, vec![Place::Home, Place::Copies, Place::Copies]);
    }

    #[test]
    fn each_view_starts_at_its_bands_first_row() {
        let mut agents = test_agents(20);
        let spans = [
            span(12, 15, 4),
            span(0, 9, 6),
            span(5, 17, 4),
            span(16, 19, 4),
        ];
        let places = [Place::Range, Place::Home, Place::Copies, Place::Range];
        let views = views(WalkRows::of(&mut agents), &spans, &places);
        let (first_rows, starts): (Vec<Option<u64>>, Vec<Option<usize>>) = views
            .iter()
            .map(|v| match v {
                Some((rows, start)) => (rows.steps.first().copied(), Some(*start)),
                None => (None, None),
            })
            .unzip();
        assert_eq!(first_rows, vec![Some(12), Some(0), None, Some(16)]);
        assert_eq!(starts, vec![Some(12), Some(0), None, Some(16)]);
        let lens: Vec<usize> = views.iter().flatten().map(|(v, _)| v.len()).collect();
        assert_eq!(lens, vec![4, 12, 4]);
    }
}
