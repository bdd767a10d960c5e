//! The order of a series' kernels: version-aware by default (`v6.9` <
//! `v6.10`, `6.8-rc1` < `6.8-rc7` < `6.8` < `6.8.1`; names that are not
//! versions after them, in natural order: digit runs compared as numbers),
//! one kernel a line from `--order FILE`, or by a table column. Also what
//! the version order says is missing between two kernels (the releases a
//! bisection would still have to measure).

pub use crate::names::version::{natural, version_cmp, Version};

/// How kernels are ordered, for the header and JSON's `order`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    Version,
    /// `--order FILE`: its kernels in its order.
    File {
        path: String,
        kernels: Vec<String>,
    },
    /// `--order-by COLUMN` of a counts table: kernels by the column's value.
    Column {
        name: String,
        rank: Vec<String>,
    },
}

impl Order {
    /// `version`, `file`, `column`.
    pub fn name(&self) -> &'static str {
        match self {
            Order::Version => "version",
            Order::File { .. } => "file",
            Order::Column { .. } => "column",
        }
    }

    /// The kernels in this order; kernels a file or column does not place
    /// are returned apart (the caller says so and leaves them out).
    pub fn sort(&self, kernels: &[String]) -> (Vec<String>, Vec<String>) {
        match self {
            Order::Version => {
                let mut k = kernels.to_vec();
                k.sort_by(|a, b| version_cmp(a, b));
                (k, Vec::new())
            }
            Order::File { kernels: list, .. } | Order::Column { rank: list, .. } => {
                let known: std::collections::BTreeSet<&String> = kernels.iter().collect();
                let placed: Vec<String> =
                    list.iter().filter(|k| known.contains(k)).cloned().collect();
                let listed: std::collections::BTreeSet<&String> = list.iter().collect();
                let unplaced = kernels
                    .iter()
                    .filter(|k| !listed.contains(k))
                    .cloned()
                    .collect();
                (placed, unplaced)
            }
        }
    }
}

impl Order {
    /// An `--order` file naming a kernel the results do not hold is
    /// refused (a misspelt `v6.10` or a kernel of another tree would drop
    /// out of the series without a word), naming it and the kernels found;
    /// `filtered`: the kernels were selected with `--where`.
    pub fn check_listed(&self, found: &[String], filtered: bool) -> anyhow::Result<()> {
        let Order::File { path, kernels } = self else {
            return Ok(());
        };
        let known: std::collections::BTreeSet<&String> = found.iter().collect();
        let absent: Vec<&str> = kernels
            .iter()
            .filter(|k| !known.contains(k))
            .map(String::as_str)
            .collect();
        if absent.is_empty() {
            return Ok(());
        }
        anyhow::bail!(
            "{path}: the --order file names {} kernel(s) that the results do not hold{}: {}; \
             the kernels found are: {}; list only those (a kernel left out of the file is \
             left out of the series)",
            absent.len(),
            if filtered {
                " (of those --where selects)"
            } else {
                ""
            },
            absent.join(", "),
            if found.is_empty() {
                "none".to_string()
            } else {
                found.join(", ")
            }
        )
    }
}

/// Kernel names of one series that read as one version (`v6.1`, `6.1`,
/// `linux-6.1`, `6.1.0`): each group, for a warning that they are taken
/// as different kernels (two steps of the series where one was meant).
pub fn aliases(kernels: &[String]) -> Vec<Vec<&str>> {
    type Key = (Vec<u64>, Option<u64>, String);
    let mut by: std::collections::BTreeMap<Key, Vec<&str>> = Default::default();
    let mut firsts: Vec<Key> = Vec::new();
    for k in kernels {
        if let Some(v) = Version::parse(k) {
            let key = (v.nums, v.rc, v.suffix);
            let names = by.entry(key.clone()).or_default();
            if names.is_empty() {
                firsts.push(key);
            }
            names.push(k);
        }
    }
    // In the order of the series.
    firsts
        .into_iter()
        .filter_map(|k| by.remove(&k).filter(|names| names.len() > 1))
        .collect()
}

/// Parse an `--order` file: one kernel a line; blank lines and `#` comments
/// passed over; a kernel named twice is an error naming both lines.
pub fn parse_order_file(text: &str, path: &str) -> anyhow::Result<Vec<String>> {
    let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let k = line.trim();
        if k.is_empty() || k.starts_with('#') {
            continue;
        }
        if let Some(first) = seen.insert(k.to_string(), i + 1) {
            anyhow::bail!(
                "{path}:{}: kernel {k:?} is listed twice (first on line {first}); \
                 expected one kernel a line, each once",
                i + 1
            );
        }
        out.push(k.to_string());
    }
    if out.is_empty() {
        anyhow::bail!("{path}: no kernels listed (expected one kernel name a line)");
    }
    Ok(out)
}

/// What the version order says lies between the last good kernel `good`
/// and the first bad `bad` that was not measured: `Some(text)` naming the
/// releases (or "releases") in between; None when they are adjacent
/// releases (then only commits lie between them).
pub fn unmeasured_between(good: &str, bad: &str) -> Option<String> {
    let (g, b) = (Version::parse(good)?, Version::parse(bad)?);
    let name = |nums: &[u64], rc: Option<u64>| {
        let v = if bad.starts_with('v') { "v" } else { "" };
        let n: Vec<String> = nums.iter().map(u64::to_string).collect();
        match rc {
            Some(r) => format!("{v}{}-rc{r}", n.join(".")),
            None => format!("{v}{}", n.join(".")),
        }
    };
    let list = |from: u64, to: u64, f: &dyn Fn(u64) -> String| -> Option<String> {
        match to.checked_sub(from)? {
            0 => None,
            1 => Some(f(from)),
            2 => Some(format!("{}, {}", f(from), f(from + 1))),
            _ => Some(format!("{} … {}", f(from), f(to - 1))),
        }
    };
    if !g.suffix.is_empty() || !b.suffix.is_empty() {
        return None;
    }
    if g.line() == b.line() && g.nums.len() <= 2 && b.nums.len() <= 2 {
        let line = [g.nums[0], g.nums[1]];
        return match (g.rc, b.rc) {
            (Some(x), Some(y)) => list(x + 1, y, &|r| name(&line, Some(r))),
            (Some(x), None) => Some(format!("any -rc after {}", name(&line, Some(x)))),
            _ => None,
        };
    }
    if g.line() == b.line() && g.rc.is_none() && b.rc.is_none() {
        // Point releases of one stable line.
        let at = |v: &Version| v.nums.get(2).copied().unwrap_or(0);
        let line = [g.nums[0], g.nums[1]];
        return list(at(&g) + 1, at(&b), &|p| name(&[line[0], line[1], p], None));
    }
    let next = g.nums[1] + 1;
    let follows = b.line() == (g.nums[0], next) || (b.nums[0] == g.nums[0] + 1 && b.nums[1] == 0);
    if follows && g.rc.is_none() && b.nums.len() <= 2 {
        let line = [b.nums[0], b.nums[1]];
        return match b.rc {
            Some(r) => list(1, r, &|x| name(&line, Some(x))),
            None => Some(format!("{} …", name(&line, Some(1)))),
        };
    }
    Some("releases".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        Order::Version.sort(&names).0
    }

    #[test]
    fn versions_sort_as_releases() {
        assert_eq!(
            sorted(&[
                "v6.10",
                "v6.9",
                "v6.8",
                "v6.8-rc7",
                "v6.8-rc1",
                "v6.8.1",
                "v6.10-rc2"
            ]),
            [
                "v6.8-rc1",
                "v6.8-rc7",
                "v6.8",
                "v6.8.1",
                "v6.9",
                "v6.10-rc2",
                "v6.10"
            ]
        );
        assert_eq!(
            sorted(&["6.8.0-rc1", "6.8-rc7", "6.8.0", "5.15.160", "6.1"]),
            ["5.15.160", "6.1", "6.8.0-rc1", "6.8-rc7", "6.8.0"]
        );
    }

    #[test]
    fn other_names_follow_in_natural_order() {
        assert_eq!(
            sorted(&["nightly-10", "v6.1", "nightly-9", "base", "nightly-09b"]),
            ["v6.1", "base", "nightly-9", "nightly-09b", "nightly-10"]
        );
    }

    #[test]
    fn what_lies_between_two_releases() {
        let u = |a, b| unmeasured_between(a, b);
        assert_eq!(u("v6.7", "v6.8").as_deref(), Some("v6.8-rc1 …"));
        assert_eq!(
            u("v6.7", "v6.8-rc4").as_deref(),
            Some("v6.8-rc1 … v6.8-rc3")
        );
        assert_eq!(
            u("v6.8-rc2", "v6.8-rc5").as_deref(),
            Some("v6.8-rc3, v6.8-rc4")
        );
        assert_eq!(u("v6.8-rc2", "v6.8-rc3"), None);
        assert_eq!(u("v6.7", "v6.8-rc1"), None);
        assert_eq!(u("6.6.3", "6.6.5").as_deref(), Some("6.6.4"));
        assert_eq!(u("6.6.3", "6.6.4"), None);
        assert_eq!(
            u("v6.8-rc7", "v6.8").as_deref(),
            Some("any -rc after v6.8-rc7")
        );
        assert_eq!(u("v6.1", "v6.5").as_deref(), Some("releases"));
        assert_eq!(u("base", "next"), None);
    }

    #[test]
    fn order_files_name_their_lines() {
        let e = parse_order_file("a\n\n# c\nb\na\n", "o.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "o.txt:5: kernel \"a\" is listed twice (first on line 1); expected one kernel a line, each once"
        );
        assert_eq!(parse_order_file("x\n y \n", "o").unwrap(), ["x", "y"]);
    }
}
