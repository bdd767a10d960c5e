//! `--layout PATTERN`: where the kernel and the benchmark sit in the
//! `/`-separated paths of a results tree. Components are `{kernel}`,
//! `{bench}`, `*` (any one component) or a fixed word; a final `**` takes
//! every file below (one or more components), otherwise the last component
//! is the file itself. Input: the pattern text and relative member paths;
//! output: the (kernel, benchmark) of a path, or no match.

use anyhow::{bail, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Kernel,
    Bench,
    Any,
    Word(String),
}

/// A parsed `--layout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    parts: Vec<Part>,
    /// Ends in `**`: every file below the matched directory.
    rest: bool,
    text: String,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            parts: vec![Part::Kernel, Part::Bench],
            rest: true,
            text: "{kernel}/{bench}/**".to_string(),
        }
    }
}

impl Layout {
    pub fn parse(text: &str) -> Result<Layout> {
        let comps: Vec<&str> = text.trim_matches('/').split('/').collect();
        let mut parts = Vec::new();
        let mut rest = false;
        for (i, c) in comps.iter().enumerate() {
            let part = match *c {
                "{kernel}" => Part::Kernel,
                "{bench}" => Part::Bench,
                "*" => Part::Any,
                "**" if i + 1 == comps.len() => {
                    rest = true;
                    continue;
                }
                "**" => bail!("--layout {text}: `**` may only be the last component"),
                "" | "." | ".." => bail!("--layout {text}: empty, `.` or `..` component"),
                w if w.contains(['{', '}', '*']) => bail!(
                    "--layout {text}: component {w:?} is neither {{kernel}}, {{bench}}, `*`, `**` nor a fixed word"
                ),
                w => Part::Word(w.to_string()),
            };
            parts.push(part);
        }
        for (p, name) in [(Part::Kernel, "{kernel}"), (Part::Bench, "{bench}")] {
            let n = parts.iter().filter(|q| **q == p).count();
            if n != 1 {
                bail!("--layout {text}: needs {name} exactly once (found {n})");
            }
        }
        if !rest && matches!(parts.last(), Some(Part::Kernel | Part::Bench)) {
            bail!("--layout {text}: the last component names the file; end with `/**` or `/*`");
        }
        Ok(Layout {
            parts,
            rest,
            text: text.to_string(),
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The kernel and benchmark of a relative path (`a/b/c`), if it matches.
    pub fn matches<'a>(&self, path: &'a str) -> Option<(&'a str, &'a str)> {
        let comps: Vec<&'a str> = path.split('/').filter(|c| !c.is_empty()).collect();
        let enough = if self.rest {
            comps.len() > self.parts.len()
        } else {
            comps.len() == self.parts.len()
        };
        if !enough {
            return None;
        }
        let (mut kernel, mut bench) = (None, None);
        for (part, comp) in self.parts.iter().zip(&comps) {
            match part {
                Part::Kernel => kernel = Some(*comp),
                Part::Bench => bench = Some(*comp),
                Part::Any => {}
                Part::Word(w) if w == comp => {}
                Part::Word(_) => return None,
            }
        }
        Some((kernel?, bench?))
    }

    /// What tells the runs of one kernel and benchmark apart in a path the
    /// layout matches: the components `*` and `**` matched, joined by `/`
    /// (the file name when the layout fixes every component).
    pub fn run_name(&self, path: &str) -> String {
        let comps: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
        let mut run: Vec<&str> = self
            .parts
            .iter()
            .zip(&comps)
            .filter(|(p, _)| **p == Part::Any)
            .map(|(_, c)| *c)
            .collect();
        if self.rest {
            run.extend(comps.iter().skip(self.parts.len()));
        }
        if run.is_empty() {
            comps.last().copied().unwrap_or_default().to_string()
        } else {
            run.join("/")
        }
    }

    /// The pattern with kernel and benchmark filled in, naming a side's runs.
    pub fn label(&self, kernel: &str, bench: &str) -> String {
        let mut comps: Vec<&str> = self
            .parts
            .iter()
            .map(|p| match p {
                Part::Kernel => kernel,
                Part::Bench => bench,
                Part::Any => "*",
                Part::Word(w) => w.as_str(),
            })
            .collect();
        if self.rest {
            comps.push("**");
        }
        comps.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_layout() {
        let l = Layout::parse("{kernel}/{bench}/**").unwrap();
        assert_eq!(l, Layout::default());
        assert_eq!(l.matches("v6.1/pipes/run1.txt"), Some(("v6.1", "pipes")));
        assert_eq!(l.matches("v6.1/pipes/1/perf.txt"), Some(("v6.1", "pipes")));
        assert_eq!(l.matches("v6.1/pipes"), None);
        assert_eq!(l.label("v6.1", "pipes"), "v6.1/pipes/**");
        assert_eq!(l.run_name("v6.1/pipes/1/perf.txt"), "1/perf.txt");
    }

    #[test]
    fn other_orders_words_and_any() {
        let l = Layout::parse("results/{bench}/*/{kernel}/profile.txt").unwrap();
        assert_eq!(
            l.matches("results/pipes/3/v6.2/profile.txt"),
            Some(("v6.2", "pipes"))
        );
        assert_eq!(l.matches("results/pipes/3/v6.2/other.txt"), None);
        assert_eq!(l.matches("other/pipes/3/v6.2/profile.txt"), None);
        let l = Layout::parse("{bench}/{kernel}/*").unwrap();
        assert_eq!(l.matches("pipes/v6.2/run1"), Some(("v6.2", "pipes")));
        assert_eq!(l.matches("pipes/v6.2/1/run1"), None);
        assert_eq!(l.run_name("pipes/v6.2/run1"), "run1");
        let l = Layout::parse("results/{bench}/*/{kernel}/profile.txt").unwrap();
        assert_eq!(l.run_name("results/pipes/3/v6.2/profile.txt"), "3");
        let l = Layout::parse("{bench}/{kernel}/profile.txt").unwrap();
        assert_eq!(l.run_name("pipes/v6.2/profile.txt"), "profile.txt");
    }

    #[test]
    fn bad_layouts() {
        for bad in [
            "{kernel}/**",
            "{kernel}/{kernel}/{bench}/**",
            "**/{kernel}/{bench}",
            "{kernel}/{bench}",
            "{kernel}/x{bench}/**",
            "{kernel}/../{bench}/**",
        ] {
            assert!(Layout::parse(bad).is_err(), "{bad}");
        }
    }
}
