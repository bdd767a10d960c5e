//! Fitting a report into a reviewer's 80 columns: names cut in the middle,
//! a side's paths said once, words folded into lines, interval levels
//! printed with the digits they need. Pure string functions.

use crate::diff::Row;

/// Widest a default (not `--wide`) line of text, classic or markdown
/// output may be, so that a report pastes into an email unwrapped.
pub const MAX_WIDTH: usize = 80;

pub use crate::text::truncate_middle;

/// The paths of one side in one short label: a single path as it is;
/// several as their common beginning and end once with the differing
/// middles in braces, in order (`a/run{1..4}.txt`, `a/{x,y}/p.txt`), or,
/// when that is still long, the common directory and a count.
pub fn compact_paths(paths: &[String]) -> String {
    const LONG: usize = 60;
    let Some(first) = paths.first() else {
        return String::new();
    };
    if paths.len() == 1 {
        return first.clone();
    }
    let chars: Vec<Vec<char>> = paths.iter().map(|p| p.chars().collect()).collect();
    let shortest = chars.iter().map(Vec::len).min().unwrap_or(0);
    let mut pre = (0..shortest)
        .take_while(|&i| chars.iter().all(|c| c[i] == chars[0][i]))
        .count();
    // Never split a number: `run1{0,1}` reads worse than `run{10,11}`.
    while pre > 0 && chars[0][pre - 1].is_ascii_digit() {
        pre -= 1;
    }
    let mut suf = (0..shortest - pre)
        .take_while(|&i| {
            chars
                .iter()
                .all(|c| c[c.len() - 1 - i] == chars[0][chars[0].len() - 1 - i])
        })
        .count();
    while suf > 0 && chars[0][chars[0].len() - suf].is_ascii_digit() {
        suf -= 1;
    }
    let middles: Vec<String> = chars
        .iter()
        .map(|c| c[pre..c.len() - suf].iter().collect())
        .collect();
    let numbers: Option<Vec<u64>> = middles
        .iter()
        .map(|m| {
            (!m.starts_with('0') || m == "0")
                .then(|| m.parse().ok())
                .flatten()
        })
        .collect();
    let inner = match numbers {
        Some(n) if n.len() > 2 && n.windows(2).all(|w| w[1] == w[0] + 1) => {
            format!("{}..{}", n[0], n[n.len() - 1])
        }
        _ => middles.join(","),
    };
    let head: String = chars[0][..pre].iter().collect();
    let tail: String = chars[0][chars[0].len() - suf..].iter().collect();
    let braced = format!("{head}{{{inner}}}{tail}");
    if braced.chars().count() <= LONG {
        return braced;
    }
    let dir = head.rfind('/').map_or("", |i| &head[..=i]);
    if dir.is_empty() {
        format!("{} paths", paths.len())
    } else {
        format!("{} paths in {dir}", paths.len())
    }
}

/// [`symbol_label`] in at most `max` characters (escaped by `esc`): a long
/// name is cut in the middle with `ellipsis`, keeping its `[dso]` whole
/// while the name keeps 12 characters or more.
pub fn fitted_label(row: &Row, max: usize, ellipsis: &str, esc: &dyn Fn(&str) -> String) -> String {
    fit(row, max, ellipsis, esc, truncate_middle)
}

/// [`fitted_label`] for every row of a table, each with its own width. A
/// name cut in the middle could hide what tells it from another row's
/// name (`__GI___pthread_disable_asynccancel` and `…_enable_…` both read
/// `__GI___pthre…_asynccancel`): when another row's name has the same kept
/// beginning and end, the name is cut at its end instead.
pub fn fitted_labels(
    rows: &[(&Row, usize)],
    ellipsis: &str,
    esc: &(dyn Fn(&str) -> String + Sync),
) -> Vec<String> {
    let labels = Labels::new(rows, ellipsis, esc);
    (0..rows.len()).map(|i| labels.get(i)).collect()
}

/// [`fitted_labels`] one at a time, from any thread (a table of a million
/// rows makes its lines in parallel and never holds every label).
pub struct Labels<'a> {
    rows: &'a [(&'a Row, usize)],
    ellipsis: &'a str,
    esc: &'a (dyn Fn(&str) -> String + Sync),
    /// Every name, escaped and sorted, made only once a name is cut (a
    /// million short names are never sorted).
    sorted: std::sync::OnceLock<Vec<String>>,
}

impl<'a> Labels<'a> {
    pub fn new(
        rows: &'a [(&'a Row, usize)],
        ellipsis: &'a str,
        esc: &'a (dyn Fn(&str) -> String + Sync),
    ) -> Labels<'a> {
        Labels {
            rows,
            ellipsis,
            esc,
            sorted: std::sync::OnceLock::new(),
        }
    }

    /// The label of row `i`.
    pub fn get(&self, i: usize) -> String {
        let (r, max) = self.rows[i];
        let (ellipsis, esc) = (self.ellipsis, self.esc);
        let label = fitted_label(r, max, ellipsis, esc);
        let name = esc(&r.symbol);
        let sfx = suffix(r, esc, max, ellipsis);
        let Some((head, tail)) = kept(&name, &sfx, max, ellipsis) else {
            return label;
        };
        let sorted = self.sorted.get_or_init(|| {
            let mut all: Vec<String> = self.rows.iter().map(|(r, _)| esc(&r.symbol)).collect();
            all.sort_unstable();
            all.dedup();
            all
        });
        // Another name that begins with `head` and passes `also`.
        let starting = |head: &str, also: &dyn Fn(&str) -> bool| -> bool {
            let from = sorted.partition_point(|n| n.as_str() < head);
            sorted[from..]
                .iter()
                .take_while(|n| n.starts_with(head))
                .any(|n| *n != name && also(n))
        };
        let alike = starting(&head, &|n: &str| {
            n.ends_with(tail.as_str()) && n.len() >= head.len() + tail.len()
        });
        if !alike {
            return label;
        }
        // Cut at the end, unless another name begins as this one keeps it;
        // then at the beginning, unless another name ends so too.
        let keep = head.chars().count() + tail.chars().count();
        let begins: String = name.chars().take(keep).collect();
        if !starting(&begins, &|_: &str| true) {
            return fit(r, max, ellipsis, esc, truncate_end);
        }
        let n = name.chars().count();
        let ends: String = name.chars().skip(n - keep).collect();
        if !sorted
            .iter()
            .any(|o| *o != name && o.ends_with(ends.as_str()))
        {
            return fit(r, max, ellipsis, esc, truncate_start);
        }
        // Both ends are shared: keep a short beginning and the part from
        // where the name parts from its nearest names in sorted order.
        let at = sorted.partition_point(|o| o.as_str() < name.as_str());
        let common = |o: &String| {
            name.chars()
                .zip(o.chars())
                .take_while(|(a, b)| a == b)
                .count()
        };
        let parts = [at.checked_sub(1), Some(at + 1), Some(at)]
            .into_iter()
            .flatten()
            .filter_map(|i| sorted.get(i))
            .filter(|o| **o != name)
            .map(common)
            .max()
            .unwrap_or(0);
        let lead = keep / 3;
        if parts < lead + 4 {
            return fit(r, max, ellipsis, esc, truncate_end);
        }
        let from = parts - 2;
        let shown: String = name
            .chars()
            .take(lead)
            .chain(ellipsis.chars())
            .chain(name.chars().skip(from))
            .collect();
        truncate_end(&shown, keep + ellipsis.chars().count(), ellipsis) + &sfx
    }
}

/// The ` [dso]` a label ends with (none for the core kernel), for a label
/// of at most `max` characters: whole when it fits, or when the name
/// could keep 12 characters beside it; else (a long dso: every row of a
/// big library reads `…-rust-1.95.0-stable]`) cut in the middle to a third
/// of the label, so that the name, which tells rows apart, keeps the rest.
fn suffix(row: &Row, esc: &dyn Fn(&str) -> String, max: usize, ellipsis: &str) -> String {
    let Some(d) = super::shown_dso(row) else {
        return String::new();
    };
    let full = format!(" [{}]", esc(d));
    let (n, k) = (esc(&row.symbol).chars().count(), full.chars().count());
    let budget = max / 3;
    if n + k <= max || k + 12 <= max || budget < 10 {
        return full;
    }
    format!(" [{}]", truncate_middle(&esc(d), budget - 3, ellipsis))
}

/// The beginning and end of `name` that [`fitted_label`] keeps when it cuts
/// the name alone (None when the name is whole or the whole label is cut).
fn kept(name: &str, suffix: &str, max: usize, ellipsis: &str) -> Option<(String, String)> {
    let (n, k, e) = (
        name.chars().count(),
        suffix.chars().count(),
        ellipsis.chars().count(),
    );
    if n + k <= max || k + 12 > max || max - k <= e + 2 {
        return None;
    }
    let keep = max - k - e;
    let head_len = keep.div_ceil(2);
    let head: String = name.chars().take(head_len).collect();
    let tail: String = name.chars().skip(n - (keep - head_len)).collect();
    Some((head, tail))
}

/// `s` shortened to `max` characters by cutting its beginning.
fn truncate_start(s: &str, max: usize, ellipsis: &str) -> String {
    let (n, e) = (s.chars().count(), ellipsis.chars().count());
    if n <= max || max <= e + 2 {
        return s.to_string();
    }
    let mut out = ellipsis.to_string();
    out.extend(s.chars().skip(n - (max - e)));
    out
}

/// `s` shortened to `max` characters by cutting its end.
fn truncate_end(s: &str, max: usize, ellipsis: &str) -> String {
    let e = ellipsis.chars().count();
    if s.chars().count() <= max || max <= e + 2 {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - e).collect();
    out.push_str(ellipsis);
    out
}

fn fit(
    row: &Row,
    max: usize,
    ellipsis: &str,
    esc: &dyn Fn(&str) -> String,
    cut: fn(&str, usize, &str) -> String,
) -> String {
    let name = esc(&row.symbol);
    let suffix = suffix(row, esc, max, ellipsis);
    let (n, k) = (name.chars().count(), suffix.chars().count());
    if n + k <= max {
        name + &suffix
    } else if k + 12 <= max {
        cut(&name, max - k, ellipsis) + &suffix
    } else {
        cut(&(name + &suffix), max, ellipsis)
    }
}

/// Words of `text` in lines of at most `width` characters (a longer word
/// has a line of its own).
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// An interval level `1 − t` in percent: whole when it is (`95%`), else
/// with as many decimals (one or more) as it takes not to read as 100%:
/// `97.9%`, `99.96%`.
pub fn level_pct(level: f64) -> String {
    let p = level * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        return format!("{p:.0}%");
    }
    for d in 1..4 {
        let s = format!("{p:.d$}");
        if !s.starts_with("100") {
            return format!("{s}%");
        }
    }
    format!("{p:.4}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_in_the_middle() {
        assert_eq!(truncate_middle("abcdefghij", 7, "..."), "ab...ij");
        assert_eq!(truncate_middle("abcdefghij", 6, "…"), "abc…ij");
        assert_eq!(truncate_middle("short", 7, "..."), "short");
        use crate::diff::{tests::row, Status};
        let mut r = row(
            "__GI___pthread_disable_asynccancel",
            1.0,
            Status::New,
            None,
            false,
        );
        r.dso = Some("/usr/lib/x86_64-linux-gnu/libc.so.6".into());
        let id = |s: &str| s.to_string();
        // The name is cut, the dso kept.
        let fitted = fitted_label(&r, 39, "...", &id);
        assert_eq!(fitted, "__GI___pthre..._asynccancel [libc.so.6]");
        assert_eq!(fitted.len(), 39);
        let whole = "__GI___pthread_disable_asynccancel [libc.so.6]";
        assert_eq!(fitted_label(&r, 99, "...", &id), whole);
        // Too narrow to keep the dso whole: the whole label is cut.
        assert_eq!(fitted_label(&r, 20, "...", &id), "__GI___pt...bc.so.6]");
        // Two names that differ in the cut middle are cut at the end instead.
        let mut e = row(
            "__GI___pthread_enable_asynccancel",
            1.0,
            Status::New,
            None,
            false,
        );
        e.dso = r.dso;
        let short = row("fput", 1.0, Status::New, None, false);
        let got = fitted_labels(&[(&r, 39), (&e, 39), (&short, 39)], "...", &id);
        assert_eq!(
            got,
            [
                "__GI___pthread_disable_a... [libc.so.6]",
                "__GI___pthread_enable_as... [libc.so.6]",
                "fput"
            ]
        );
    }

    #[test]
    fn cut_names_stay_distinct() {
        use crate::diff::{tests::row, Status};
        let id = |s: &str| s.to_string();
        let make = |name: &str, dso: &str| {
            let mut r = row(name, 1.0, Status::New, None, false);
            r.dso = Some(dso.into());
            r
        };
        // A dso too long to keep whole beside the name: cut too, so that
        // the name (not the dso every row shares) is what is kept.
        let llvm = "/usr/lib/libLLVM.so.20.1-rust-1.95.0-stable";
        let long: Vec<_> = [
            "InstCombinerImpl::visitAdd",
            "SROA::runOnAlloca",
            "FPS::run",
        ]
        .iter()
        .map(|n| make(&format!("(anonymous namespace)::{n}"), llvm))
        .collect();
        // Names alike at both ends, apart in the middle.
        let q =
            |m: &str| format!("rustc_query_impl::query_impl::{m}::dynamic_query::{{closure#0}}");
        let so = "librustc_driver-6108105cd7e839cf.so";
        let alike = [q("type_of"), q("mir_built"), q("adt_def")].map(|n| make(&n, so));
        for rows in [long, alike.to_vec()] {
            let fit: Vec<_> = rows.iter().map(|r| (r, 39)).collect();
            let got = fitted_labels(&fit, "...", &id);
            let mut unique = got.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), got.len(), "{got:?}");
            assert!(got.iter().all(|l| l.chars().count() <= 39), "{got:?}");
        }
    }

    #[test]
    fn paths_said_once() {
        let p = |v: &[&str]| compact_paths(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            p(&["a/run1.txt", "a/run2.txt", "a/run3.txt"]),
            "a/run{1..3}.txt"
        );
        assert_eq!(p(&["a/run10.txt", "a/run11.txt"]), "a/run{10,11}.txt");
        assert_eq!(p(&["d/x/p.txt", "d/y/p.txt"]), "d/{x,y}/p.txt");
        assert_eq!(p(&["only.txt"]), "only.txt");
        let long: Vec<String> = (0..5)
            .map(|i| format!("/results/2024-05-0{i}-some-long-run-name-{i}/profile.txt"))
            .collect();
        assert_eq!(compact_paths(&long), "5 paths in /results/");
    }

    #[test]
    fn words_fold_and_levels_keep_their_digits() {
        assert_eq!(wrap_words("aa bb cc dd", 5), ["aa bb", "cc dd"]);
        assert_eq!(level_pct(0.95), "95%");
        assert_eq!(level_pct(0.9789), "97.9%");
        assert_eq!(level_pct(0.99962), "99.96%");
    }
}
