//! Ranking and trimming of one comparison's rows: `--sort` orders them,
//! `--min-delta` hides small ones and `--top N` keeps the N rows of each
//! sign that rank highest **by the sort key** (the largest Δ, ratio or
//! impact; with `--sort name` the first N of each sign), counting the rest.

use super::{Elided, Row, SortBy};
use rayon::slice::ParallelSliceMut;

/// The `--sort impact` key: the bound of Δ's interval nearest zero (0 when
/// the interval spans zero or is unknown).
pub fn impact(row: &Row) -> f64 {
    match row.delta_ci() {
        Some((lo, _)) if lo > 0.0 => lo,
        Some((_, hi)) if hi < 0.0 => hi,
        _ => 0.0,
    }
}

/// Rank rows: signed, worse first; ties by Δ, then by name, then by dso.
///
/// The keys are computed once per row and an index permutation is sorted,
/// so names are compared only when the rows do not already come in name
/// order (the matrix's rows do: they are sorted by identity), and the rows
/// themselves are moved once.
pub fn rank(rows: &mut [Row], sort: SortBy) {
    let by_name = |a: &Row, b: &Row| a.symbol.cmp(&b.symbol).then_with(|| a.dso.cmp(&b.dso));
    if !rows.is_sorted_by(|a, b| by_name(a, b).is_le()) {
        rows.sort_by(by_name);
    }
    if sort == SortBy::Name {
        return;
    }
    // (primary, secondary) keys, larger first; equal keys keep name order.
    // (The same keys as `by_values` for the rows it ranks.)
    let key = |r: &Row| match sort {
        SortBy::Delta => (r.delta, 0.0),
        SortBy::Impact => (impact(r), r.delta),
        SortBy::Ratio => (r.ratio(), r.delta),
        SortBy::Name => (0.0, 0.0), // (returned above)
    };
    let mut order: Vec<(f64, f64, u32)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (a, b) = key(r);
            (a, b, i as u32)
        })
        .collect();
    sort_keys(&mut order);
    permute(
        rows,
        order.into_iter().map(|(_, _, i)| i as usize).collect(),
    );
}

/// (old, new) → (primary, secondary) ranking key.
pub(super) type ValueKey = fn(f64, f64) -> (f64, f64);

/// A ranking key (primary, secondary; larger first) from a row's old and
/// new values alone, when `sort` ranks by them: Δ, or the ratio then Δ
/// (as [`Row::delta`] and [`Row::ratio`] compute them).
pub(super) fn by_values(sort: SortBy) -> Option<ValueKey> {
    match sort {
        SortBy::Delta => Some(|old, new| (new - old, 0.0)),
        SortBy::Ratio => Some(|old, new| {
            let ratio = if old > 0.0 { new / old } else { f64::INFINITY };
            (ratio, new - old)
        }),
        SortBy::Impact | SortBy::Name => None,
    }
}

/// Keys (primary, secondary, name-order index) in rank order: larger keys
/// first, equal keys in name order. Keys are unique (the index breaks
/// ties): any sort gives one order.
pub(super) fn sort_keys(keys: &mut [(f64, f64, u32)]) {
    keys.par_sort_unstable_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| y.1.total_cmp(&x.1))
            .then(x.2.cmp(&y.2))
    });
}

/// Reorder `rows` so that position k holds the row that was at `from[k]`,
/// following the permutation's cycles (each row moved once). Only
/// `--sort impact` and `name` come here: rows ranked by values are made in
/// rank order.
fn permute(rows: &mut [Row], mut from: Vec<usize>) {
    for start in 0..from.len() {
        let mut k = start;
        while from[k] != start {
            let next = from[k];
            rows.swap(k, next);
            from[k] = k;
            k = next;
        }
        from[k] = k;
    }
}

/// Apply `--min-delta` and `--top N` to rows already in `sort` order: the N
/// regressions ranked first and the N improvements ranked last (their key
/// is the most negative: Δ, impact, ratio below 1), or with `--sort name`
/// the first N of each sign. Shown rows keep their order; the others are
/// counted in [`Elided`] and returned as the second vector (in order).
pub fn trim(
    rows: Vec<Row>,
    top: Option<usize>,
    min_delta: f64,
    sort: SortBy,
) -> (Vec<Row>, Vec<Row>, Elided) {
    trim_keeping(rows, top, min_delta, sort, true)
}

/// [`trim`], in place; the rows left out are returned only when
/// `keep_hidden` (else they are counted and freed as they go: a million
/// rows are never held twice).
pub fn trim_keeping(
    rows: Vec<Row>,
    top: Option<usize>,
    min_delta: f64,
    sort: SortBy,
    keep_hidden: bool,
) -> (Vec<Row>, Vec<Row>, Elided) {
    let mut elided = Elided::default();
    let mut kept = rows;
    let mut hidden: Vec<Row> = Vec::new();
    for r in kept.extract_if(.., |r| r.delta.abs() < min_delta) {
        elided.small += 1;
        if keep_hidden {
            hidden.push(r);
        }
    }
    let Some(n) = top else {
        return (kept, hidden, elided);
    };
    let worse: Vec<usize> = (0..kept.len()).filter(|&i| kept[i].delta > 0.0).collect();
    let better: Vec<usize> = (0..kept.len()).filter(|&i| kept[i].delta < 0.0).collect();
    let better_shown = if sort == SortBy::Name {
        &better[..n.min(better.len())]
    } else {
        &better[better.len().saturating_sub(n)..]
    };
    let mut show = vec![false; kept.len()];
    for &i in worse.iter().take(n).chain(better_shown) {
        show[i] = true;
    }
    let mut at = 0;
    let dropped = kept.extract_if(.., |_| {
        at += 1;
        !show[at - 1]
    });
    for r in dropped {
        if r.delta > 0.0 {
            elided.worse += 1;
            elided.worse_delta += r.delta;
        } else if r.delta < 0.0 {
            elided.better += 1;
            elided.better_delta += r.delta;
        } else {
            elided.unchanged += 1;
        }
        if keep_hidden {
            hidden.push(r);
        }
    }
    (kept, hidden, elided)
}

#[cfg(test)]
mod tests {
    use super::super::tests::row;
    use super::*;
    use crate::diff::Status;

    fn names(rows: &[Row]) -> Vec<&str> {
        rows.iter().map(|r| r.symbol.as_str()).collect()
    }

    /// Every position gets the row `from` names, each row once (rows with
    /// members own an allocation: a row copied twice would be freed twice).
    #[test]
    fn permute_moves_every_row_once() {
        for n in [0usize, 1, 2, 7, 100] {
            let rows: Vec<Row> = (0..n)
                .map(|i| {
                    let mut r = row(&format!("p{i}"), i as f64, Status::Changed, None, false);
                    r.members = vec![crate::names::Name::new(&format!("m{i}"))].into();
                    r
                })
                .collect();
            // A few cycles of different lengths, and fixed points.
            let from: Vec<usize> = (0..n).map(|k| (k * 37 + 11) % n.max(1)).collect();
            let mut seen = vec![false; n];
            let from: Vec<usize> = if from.iter().all(|&i| !std::mem::replace(&mut seen[i], true)) {
                from
            } else {
                (0..n).rev().collect()
            };
            let mut moved = rows.clone();
            permute(&mut moved, from.clone());
            for (k, r) in moved.iter().enumerate() {
                assert_eq!(r, &rows[from[k]]);
            }
        }
    }

    #[test]
    fn rank_is_signed_worse_first_ties_by_name() {
        let mut rows = vec![
            row("b", -1.0, Status::Changed, None, false),
            row("z", 2.0, Status::Changed, None, false),
            row("a", 2.0, Status::Changed, None, false),
            row("c", 0.0, Status::Same, None, false),
        ];
        rank(&mut rows, SortBy::Delta);
        assert_eq!(names(&rows), ["a", "z", "c", "b"]);
        rank(&mut rows, SortBy::Name);
        assert_eq!(names(&rows), ["a", "b", "c", "z"]);
    }

    #[test]
    fn impact_ranks_big_and_certain_first() {
        let mut rows = vec![
            row(
                "big-uncertain",
                5.0,
                Status::Changed,
                Some((-1.0, 11.0)),
                false,
            ),
            row(
                "small-certain",
                1.0,
                Status::Changed,
                Some((0.8, 1.2)),
                true,
            ),
            row("better", -3.0, Status::Changed, Some((-4.0, -2.0)), true),
        ];
        rank(&mut rows, SortBy::Impact);
        assert_eq!(names(&rows), ["small-certain", "big-uncertain", "better"]);
        assert_eq!(impact(&rows[2]), -2.0);
    }

    #[test]
    fn top_keeps_n_of_each_sign_and_counts_the_rest() {
        let rows: Vec<Row> = [3.0, 2.0, 1.0, 0.0, -0.5, -1.0, -4.0]
            .iter()
            .enumerate()
            .map(|(i, &d)| row(&format!("s{i}"), d, Status::Changed, None, false))
            .collect();
        let (shown, hidden, e) = trim(rows.clone(), Some(1), 0.0, SortBy::Delta);
        assert_eq!(names(&shown), ["s0", "s6"]);
        assert_eq!(names(&hidden), ["s1", "s2", "s3", "s4", "s5"]);
        assert_eq!((e.worse, e.better, e.unchanged), (2, 2, 1));
        assert_eq!(e.worse_delta, 3.0);
        assert_eq!(e.better_delta, -1.5);
        let (shown, hidden, e) = trim(rows, None, 1.0, SortBy::Delta);
        assert_eq!(shown.len(), 5, "|delta| < 1.0 hides 0 and -0.5 only");
        assert_eq!(names(&hidden), ["s3", "s4"]);
        assert_eq!(e.small, 2);
    }

    /// `--top` takes the top by the sort key: with `--sort ratio` a new
    /// symbol (ratio ∞) with a small Δ is shown before a large Δ of ratio
    /// 1.1, and the improvement with the smallest ratio is kept.
    #[test]
    fn top_follows_the_sort_key() {
        let mut rows = vec![
            row("big_small_ratio", 5.0, Status::Changed, None, false),
            row("fell_most", -3.0, Status::Changed, None, false),
            row("halved", -0.8, Status::Changed, None, false),
            row("brand_new", 0.2, Status::New, None, false),
        ];
        // (old, new) giving Δ and the ratios 1.1, 0.7, 0.5 and ∞.
        for (r, (old, new)) in
            rows.iter_mut()
                .zip([(50.0, 55.0), (10.0, 7.0), (1.6, 0.8), (0.0, 0.2)])
        {
            (r.old, r.new) = (old, new);
        }
        assert_eq!(rows[3].ratio(), f64::INFINITY);
        let mut by_ratio = rows.clone();
        rank(&mut by_ratio, SortBy::Ratio);
        let (shown, _, e) = trim(by_ratio, Some(1), 0.0, SortBy::Ratio);
        assert_eq!(names(&shown), ["brand_new", "halved"]);
        assert_eq!((e.worse, e.better), (1, 1));
        let mut by_delta = rows.clone();
        rank(&mut by_delta, SortBy::Delta);
        let (shown, _, _) = trim(by_delta, Some(1), 0.0, SortBy::Delta);
        assert_eq!(names(&shown), ["big_small_ratio", "fell_most"]);
        let mut by_name = rows;
        rank(&mut by_name, SortBy::Name);
        let (shown, _, _) = trim(by_name, Some(1), 0.0, SortBy::Name);
        assert_eq!(names(&shown), ["big_small_ratio", "fell_most"]);
    }
}
