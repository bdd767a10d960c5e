//! Possible renames: a function gone on one side and one new on the other
//! that may be the same code under another name. Shown, never merged
//! (`--alias` merges). A pair must be
//!
//! - a `gone` row and a `new` row, both marked significant (enough samples
//!   to matter), in the same DSO or module (a user function never pairs
//!   with a kernel one);
//! - similar in name ([`similarity`] at least [`MIN_SIMILARITY`]: shared
//!   name tokens or a small edit distance, after `do_`/`sys_` prefixes and
//!   leading underscores);
//! - similar in size: their Δ intervals overlap once the falling one is
//!   negated.
//!
//! Pairs are matched greedily, most similar names first, each row at most
//! once, and at most [`MAX_PAIRS`] are kept, in that order.

use super::{RenamePair, Row, Status};
use std::borrow::Borrow;

/// At most this many pairs per comparison.
pub const MAX_PAIRS: usize = 5;

/// Names less similar than this never pair.
pub const MIN_SIMILARITY: f64 = 0.6;

/// Candidates considered per side (the largest changes come first in any
/// realistic report; this bounds the quadratic pairing).
const CAP: usize = 500;

pub fn possible_renames<R: Borrow<Row>>(rows: &[R]) -> Vec<RenamePair> {
    // Unresolved addresses and pseudo-rows are not function names.
    let named = |r: &&Row| {
        !(r.symbol.starts_with("0x") || r.symbol.starts_with('[') || r.symbol.starts_with('*'))
    };
    let pick = |status: Status| -> Vec<&Row> {
        // (The status first: it settles most rows without their name.)
        rows.iter()
            .map(Borrow::borrow)
            .filter(|r| r.status == status)
            .filter(named)
            .filter(|r| r.significant() && r.delta_ci().is_some())
            .take(CAP)
            .collect()
    };
    let (down, up) = (pick(Status::Gone), pick(Status::New));
    // (similarity, closeness of the two changes, down index, up index)
    let mut pairs: Vec<(f64, f64, usize, usize)> = Vec::new();
    for (i, a) in down.iter().enumerate() {
        for (j, b) in up.iter().enumerate() {
            if a.dso != b.dso {
                continue;
            }
            let (Some((alo, ahi)), Some((blo, bhi))) = (a.delta_ci(), b.delta_ci()) else {
                continue;
            };
            // a's interval negated: [-ahi, -alo]
            if !(-ahi <= bhi && blo <= -alo) {
                continue;
            }
            let sim = similarity(&a.symbol, &b.symbol);
            if sim < MIN_SIMILARITY {
                continue;
            }
            let closeness = (a.delta + b.delta).abs() / a.delta.abs().max(b.delta);
            pairs.push((sim, closeness, i, j));
        }
    }
    pairs.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then(x.1.total_cmp(&y.1))
            .then_with(|| down[x.2].symbol.cmp(&down[y.2].symbol))
            .then_with(|| up[x.3].symbol.cmp(&up[y.3].symbol))
    });
    let (mut used_down, mut used_up) = (vec![false; down.len()], vec![false; up.len()]);
    let mut out = Vec::new();
    for (_, _, i, j) in pairs {
        if used_down[i] || used_up[j] {
            continue;
        }
        used_down[i] = true;
        used_up[j] = true;
        out.push(RenamePair {
            old_symbol: down[i].symbol,
            new_symbol: up[j].symbol,
            old_delta: down[i].delta,
            new_delta: up[j].delta,
        });
        if out.len() == MAX_PAIRS {
            break;
        }
    }
    out
}

/// A name without leading underscores and the `do_`, `sys_`, `ksys_`,
/// `__x64_sys_` prefixes that wrappers of one function add.
fn stem(s: &str) -> String {
    let s = s.trim_start_matches('_');
    let s = ["x64_sys_", "do_", "sys_", "ksys_"]
        .iter()
        .find_map(|p| s.strip_prefix(p))
        .unwrap_or(s);
    s.trim_start_matches('_').to_ascii_lowercase()
}

/// How alike two function names are, from 0 to 1: the larger of the share
/// of name tokens (split at `_`, `.`, `:` and digits) they have in common
/// (Jaccard) and one minus their edit distance over the longer length,
/// both on the stems. `schedule`/`do_schedule` 1; `d_lookup`/`__d_lookup_rcu`
/// 0.67; `read`/`unix_stream_read_generic` 0.25; `do_sys_poll`/`put_pid` 0.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (x, y) = (stem(a), stem(b));
    if x.is_empty() || y.is_empty() {
        return 0.0;
    }
    let tokens = |s: &str| -> std::collections::BTreeSet<String> {
        s.split(|c: char| !c.is_ascii_alphabetic())
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (tx, ty) = (tokens(&x), tokens(&y));
    let union = tx.union(&ty).count();
    let jaccard = if union == 0 {
        0.0
    } else {
        tx.intersection(&ty).count() as f64 / union as f64
    };
    let (cx, cy): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
    let edit = 1.0 - levenshtein(&cx, &cy) as f64 / cx.len().max(cy.len()) as f64;
    jaccard.max(edit)
}

/// Edit distance (insertions, deletions, substitutions), two rows of the
/// classic table.
fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::super::tests::row;
    use super::*;

    #[test]
    fn similarity_of_real_pairs() {
        assert_eq!(similarity("schedule", "do_schedule"), 1.0);
        assert!(similarity("d_lookup", "__d_lookup_rcu") >= 0.6);
        assert!(similarity("copy_page_range", "copy_pte_range") >= 0.6);
        // Pairs "possible renames" printed between two workloads before.
        assert!(similarity("read", "unix_stream_read_generic") < MIN_SIMILARITY);
        assert!(similarity("do_sys_poll", "put_pid") < MIN_SIMILARITY);
        assert!(similarity("touch_atime", "copy_page_from_iter") < MIN_SIMILARITY);
        assert!(similarity("__rcu_read_unlock", "read") < MIN_SIMILARITY);
        assert_eq!(levenshtein(&['a', 'b'], &['b']), 1);
    }

    #[test]
    fn only_gone_with_new_of_one_dso_and_similar_names() {
        let mut rows = vec![
            // changed rows never pair, however related
            row("schedule", -2.0, Status::Changed, Some((-2.4, -1.6)), true),
            row("do_schedule", 2.1, Status::Changed, Some((1.7, 2.5)), true),
            row("old_fn", -1.0, Status::Gone, Some((-1.2, -0.8)), true),
            row("old_fn_v2", 1.05, Status::New, Some((0.8, 1.3)), true),
            row("unrelated_new", 1.0, Status::New, Some((0.8, 1.2)), true),
            row(
                "0x00000000000f582a",
                -1.0,
                Status::Gone,
                Some((-1.2, -0.8)),
                true,
            ),
            // not significant: too few samples to matter
            row("tiny_gone", -0.1, Status::Gone, Some((-0.3, 0.1)), false),
            row("tiny_gone2", 0.1, Status::New, Some((-0.1, 0.3)), false),
            // same name shape, other dso
            row("read", -1.0, Status::Gone, Some((-1.2, -0.8)), true),
            row("read_iter", 1.0, Status::New, Some((0.8, 1.2)), true),
        ];
        rows[8].dso = Some("libc.so.6".into());
        let got: Vec<(String, String)> = possible_renames(&rows)
            .into_iter()
            .map(|p| (p.old_symbol.to_string(), p.new_symbol.to_string()))
            .collect();
        assert_eq!(got, [("old_fn".to_string(), "old_fn_v2".to_string())]);
    }

    #[test]
    fn at_most_a_handful_most_similar_first() {
        let mut rows = Vec::new();
        for i in 0..8 {
            let ci = Some((-1.2, -0.8));
            rows.push(row(&format!("func_{i}_old"), -1.0, Status::Gone, ci, true));
            let ci = Some((0.8, 1.2));
            rows.push(row(&format!("func_{i}_new"), 1.0, Status::New, ci, true));
        }
        rows.push(row("exact", -1.0, Status::Gone, Some((-1.2, -0.8)), true));
        rows.push(row("__exact", 1.0, Status::New, Some((0.8, 1.2)), true));
        let pairs = possible_renames(&rows);
        assert_eq!(pairs.len(), MAX_PAIRS);
        assert_eq!(pairs[0].old_symbol, "exact");
    }
}
