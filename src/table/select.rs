//! Which runs of a counts table a side takes: `--old 'kernel=v6.1'`,
//! `--new 'kernel=v6.2,event=cpu-clock'`, `--where 'benchmark=hackbench'`.
//! A selector is `column=value` terms joined by `,`, all of which must hold
//! (exact text; a NULL never matches); columns are the run-level ones
//! (`kernel`, `benchmark`, `run`, `source`, `format`, `event`). A [`Filter`]
//! keeps the runs any of its selectors accepts, and tells from a row
//! group's statistics when none can match, so that group is not read.

use super::schema::SELECTABLE;
use anyhow::{bail, Result};
use parquet::file::metadata::ParquetMetaData;

/// `column=value,…`: every term must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    /// (index in [`SELECTABLE`], value)
    terms: Vec<(usize, String)>,
}

impl Selector {
    /// Parse `text`, given with `flag` (for messages).
    pub fn parse(text: &str, flag: &str) -> Result<Selector> {
        let mut terms = Vec::new();
        for term in text.split(',') {
            let Some((col, value)) = term.split_once('=') else {
                bail!("{flag} {text}: expected column=value terms joined by `,`, found {term:?}");
            };
            let col = col.trim();
            let Some(i) = SELECTABLE.iter().position(|c| *c == col) else {
                bail!(
                    "{flag} {text}: no column {col:?} to select runs by (one of {})",
                    SELECTABLE.join(", ")
                );
            };
            terms.push((i, value.to_string()));
        }
        Ok(Selector { terms })
    }

    /// Both selectors' terms.
    pub fn and(&self, other: &Selector) -> Selector {
        let mut terms = self.terms.clone();
        terms.extend(other.terms.iter().cloned());
        Selector { terms }
    }

    /// Whether a run with these values of [`SELECTABLE`] is selected.
    pub fn matches(&self, fields: &[Option<&str>; 6]) -> bool {
        self.terms
            .iter()
            .all(|(i, v)| fields[*i] == Some(v.as_str()))
    }
}

/// The runs to read: those any selector accepts (every run without one).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    any: Option<Vec<Selector>>,
}

impl Filter {
    pub fn all() -> Filter {
        Filter { any: None }
    }

    pub fn any_of(selectors: Vec<Selector>) -> Filter {
        Filter {
            any: Some(selectors),
        }
    }

    pub fn keeps(&self, fields: &[Option<&str>; 6]) -> bool {
        match &self.any {
            None => true,
            Some(sels) => sels.iter().any(|s| s.matches(fields)),
        }
    }

    /// False only when row group `g` cannot hold a selected run: for every
    /// selector some term's value lies outside the column's min..max (or
    /// differs from the file's partition value).
    pub fn may_match(&self, meta: &ParquetMetaData, g: usize, parts: &[(String, String)]) -> bool {
        let Some(sels) = &self.any else {
            return true;
        };
        let rg = meta.row_group(g);
        let term_may_match = |(i, v): &(usize, String)| {
            let name = SELECTABLE[*i];
            if let Some((_, p)) = parts.iter().find(|(k, _)| k == name) {
                return p == v;
            }
            let Some(col) = rg
                .columns()
                .iter()
                .find(|c| c.column_path().string() == name)
            else {
                return true;
            };
            let Some(stats) = col.statistics() else {
                return true;
            };
            match (stats.min_bytes_opt(), stats.max_bytes_opt()) {
                (Some(min), Some(max)) => min <= v.as_bytes() && v.as_bytes() <= max,
                _ => true,
            }
        };
        sels.iter().any(|s| s.terms.iter().all(term_may_match))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        let s = Selector::parse("kernel=v6.1,benchmark=hack bench", "--old").unwrap();
        let w = Selector::parse("event=cpu-clock", "--where").unwrap();
        let f = [
            Some("v6.1"),
            Some("hack bench"),
            Some("run1"),
            Some("src"),
            Some("perf-report"),
            None,
        ];
        assert!(s.matches(&f));
        assert!(!s.and(&w).matches(&f));
        assert!(Filter::any_of(vec![w, s]).keeps(&f));
        let e = Selector::parse("kernel", "--old").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--old kernel: expected column=value terms joined by `,`, found \"kernel\""
        );
        let e = Selector::parse("symbol=x", "--where").unwrap_err();
        assert!(e.to_string().contains("no column \"symbol\""), "{e}");
    }
}
