//! One run ⇄ its rows in the counts table. Export: a parsed [`Profile`]
//! and the identity options → one row per input symbol, named by its row
//! (`symbol`, `dso`) with the input's own name kept where it differs
//! (`input_symbol`, `input_dso`), a NULL `symbol` for what a filter removed,
//! and the run's pseudo rows (`*unknown*`, `*unlisted*`). Reading: those rows
//! → the same `Profile` (every count, total and warning bit for bit) and each
//! symbol's placement ([`Placed`]), so that aggregation names rows exactly as
//! it would have from the files.

use super::schema::{UNKNOWN_ROW, UNLISTED_ROW};
use crate::aggregate;
use crate::identity::{Identity, Placed, Placement};
use crate::profile::{Format, Mode, Name, Profile, SymbolKey, Weight};
use anyhow::{bail, Result};
use std::collections::btree_map::Entry;

/// One row of a run, as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Row<'a> {
    /// The row it counts in; `None`: removed by a symbol filter (or, with
    /// no `input_symbol`, the marker row of a run without any symbol).
    pub symbol: Option<&'a str>,
    pub dso: Option<&'a str>,
    pub mode: Option<Mode>,
    pub count: f64,
    /// The name as the profile gave it, when it is not `symbol`.
    pub input_symbol: Option<&'a str>,
    /// The dso as the profile gave it, when it is not `dso` (grouped rows).
    pub input_dso: Option<&'a str>,
}

/// A parsed run with every symbol placed, ready to be written.
#[derive(Debug)]
pub struct Prepared {
    pub profile: Profile,
    placements: Vec<Placement>,
    unknown_kept: bool,
    unlisted: Option<(f64, bool)>,
}

/// Place every symbol of `profile` as aggregation would (`identity`).
/// Refuses a symbol named like a pseudo row, which the table could not
/// tell apart from one.
pub fn prepare(profile: Profile, identity: &Identity) -> Result<Prepared> {
    let mut placements = Vec::with_capacity(profile.counts.len());
    for key in profile.counts.keys() {
        if is_pseudo(&key.name, key.dso.as_deref()) {
            bail!(
                "{}: a symbol is named {}, the name the counts table gives a run's pseudo row; it cannot be exported",
                profile.source,
                key.name
            );
        }
        placements.push(identity.place(key));
    }
    let rest = aggregate::remainder(&profile);
    let unlisted = (rest > 0.0 && profile.total_approximate.is_some())
        .then(|| (rest, identity.keeps(UNLISTED_ROW)));
    Ok(Prepared {
        unknown_kept: identity.keeps(UNKNOWN_ROW),
        unlisted,
        placements,
        profile,
    })
}

fn is_pseudo(name: &str, dso: Option<&str>) -> bool {
    dso.is_none() && (name == UNKNOWN_ROW || name == UNLISTED_ROW)
}

impl Prepared {
    /// The rows, in symbol order, pseudo rows last; a run without any has
    /// one marker row, so that no run is lost.
    pub fn rows(&self) -> Vec<Row<'_>> {
        let p = &self.profile;
        let mut rows = Vec::with_capacity(p.counts.len() + 2);
        for ((key, &count), placement) in p.counts.iter().zip(&self.placements) {
            rows.push(match placement {
                Placement::Dropped => Row {
                    symbol: None,
                    dso: key.dso.as_deref(),
                    mode: key.mode,
                    count,
                    input_symbol: Some(&key.name),
                    input_dso: None,
                },
                Placement::Row { name, grouped } => Row {
                    symbol: Some(name),
                    dso: if *grouped { None } else { key.dso.as_deref() },
                    mode: key.mode,
                    count,
                    input_symbol: (*name != key.name).then_some(key.name.as_str()),
                    input_dso: if *grouped { key.dso.as_deref() } else { None },
                },
            });
        }
        let pseudo = |name: &'static str, mode, count, kept: bool| Row {
            symbol: kept.then_some(name),
            dso: None,
            mode,
            count,
            input_symbol: (!kept).then_some(name),
            input_dso: None,
        };
        if p.unattributed > 0.0 {
            rows.push(pseudo(
                UNKNOWN_ROW,
                Some(Mode::Kernel),
                p.unattributed,
                self.unknown_kept,
            ));
        }
        if let Some((rest, kept)) = self.unlisted {
            rows.push(pseudo(UNLISTED_ROW, None, rest, kept));
        }
        if rows.is_empty() {
            rows.push(Row {
                symbol: None,
                dso: None,
                mode: None,
                count: 0.0,
                input_symbol: None,
                input_dso: None,
            });
        }
        rows
    }
}

/// The name of a weight, as the `weight` column writes it.
pub fn weight_name(w: Weight) -> &'static str {
    match w {
        Weight::Samples => "samples",
        Weight::Period => "period",
        Weight::Percent => "percent",
    }
}

pub fn parse_weight(s: &str) -> Option<Weight> {
    match s {
        "samples" => Some(Weight::Samples),
        "period" => Some(Weight::Period),
        "percent" => Some(Weight::Percent),
        _ => None,
    }
}

pub fn parse_format(s: &str) -> Option<Format> {
    Format::ALL.into_iter().find(|f| f.name() == s)
}

pub fn parse_mode(s: &str) -> Option<Mode> {
    [
        Mode::Kernel,
        Mode::User,
        Mode::GuestKernel,
        Mode::GuestUser,
        Mode::Hypervisor,
    ]
    .into_iter()
    .find(|m| m.as_str() == s)
}

/// Add one row read back to its run (`profile`) and to the placements of
/// the whole table; `Err` says what is wrong with the row.
pub fn add_row(
    profile: &mut Profile,
    placed: &mut Placed,
    row: &Row<'_>,
) -> std::result::Result<(), String> {
    let (Some(name), dso) = (row.input_symbol.or(row.symbol), row.input_dso.or(row.dso)) else {
        // The marker row of a run without symbols counts nothing: any
        // other row without a name would lose its samples.
        if row.count != 0.0 {
            return Err(format!(
                "a row without a symbol (symbol and input_symbol both null) counts {} samples; \
                 only the marker row of a run without symbols (count 0) has no symbol: the \
                 table was edited or written by another tool",
                row.count
            ));
        }
        return Ok(());
    };
    if is_pseudo(name, dso) {
        if name == UNKNOWN_ROW {
            profile.unattributed = row.count;
        }
        // `*unlisted*` is recomputed from the run's total, as from the files.
        if row.symbol.is_none() && !placed.dropped.iter().any(|d| d == name) {
            placed.dropped.push(name.to_string());
        }
        return Ok(());
    }
    let key = SymbolKey {
        name: Name::new(name),
        dso: dso.map(Name::new),
        mode: row.mode,
    };
    let placement = match row.symbol {
        None => Placement::Dropped,
        Some(s) => Placement::Row {
            name: Name::new(s),
            grouped: row.dso.is_none() && row.input_dso.is_some(),
        },
    };
    match placed.rows.get(&key) {
        Some(p) if *p != placement => {
            return Err(format!(
                "symbol {name} is {} in one run and {} in another: the table mixes exports made with different identity options",
                describe(p),
                describe(&placement)
            ))
        }
        Some(_) => {}
        None => {
            placed.rows.insert(key, placement);
        }
    }
    match profile.counts.entry(key) {
        Entry::Occupied(_) => Err(format!(
            "symbol {name}{} appears twice (is a file in the table twice?)",
            dso.map(|d| format!(" of {d}")).unwrap_or_default()
        )),
        Entry::Vacant(v) => {
            v.insert(row.count);
            Ok(())
        }
    }
}

fn describe(p: &Placement) -> String {
    match p {
        Placement::Dropped => "removed by a filter".to_string(),
        Placement::Row { name, .. } => format!("row {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::GroupBy;

    fn profile() -> Profile {
        let mut p = Profile::new("k/b/run1.txt", Format::PerfReport);
        let key = |n: &str, d: Option<&str>| {
            SymbolKey::new(n)
                .with_dso(d.map(Name::new))
                .with_mode(Some(Mode::Kernel))
        };
        p.add(key("schedule", Some("[kernel.kallsyms]")), 5.0);
        p.add(key("schedule.isra.0", Some("[kernel.kallsyms]")), 2.0);
        p.add(key("intel_idle", Some("[kernel.kallsyms]")), 7.0);
        p.add(key("ext4_write", Some("[ext4]")), 1.5);
        p.unattributed = 3.0;
        p.total = 20.0;
        p.total_approximate = Some("rows below --percent-limit".into());
        p
    }

    /// Rows written and read back give the same profile and placements.
    fn round_trip(identity: &Identity) -> (Vec<String>, Profile, Placed) {
        let prepared = prepare(profile(), identity).unwrap();
        let rows = prepared.rows();
        let shown = rows
            .iter()
            .map(|r| {
                format!(
                    "{:?} {:?} {} {:?} {:?}",
                    r.symbol, r.dso, r.count, r.input_symbol, r.input_dso
                )
            })
            .collect();
        let mut back = Profile::new("k/b/run1.txt", Format::PerfReport);
        back.total = 20.0;
        back.total_approximate = Some("rows below --percent-limit".into());
        let mut placed = Placed::default();
        for r in &rows {
            add_row(&mut back, &mut placed, r).unwrap();
        }
        assert_eq!(back, prepared.profile);
        for key in back.counts.keys() {
            let want = identity.place(key);
            let got = placed.rows[key].clone();
            match (&want, &got) {
                (
                    Placement::Row {
                        name: a,
                        grouped: g,
                    },
                    Placement::Row {
                        name: b,
                        grouped: h,
                    },
                ) => {
                    assert_eq!(a, b);
                    assert_eq!(*g && key.dso.is_some(), *h);
                }
                _ => assert_eq!(want, got),
            }
        }
        (shown, back, placed)
    }

    #[test]
    fn folded_filtered_and_pseudo_rows_round_trip() {
        let id = Identity {
            fold: true,
            exclude_idle: true,
            exclude: Some(regex::Regex::new(r"^\*unlisted\*$").unwrap()),
            ..Default::default()
        };
        let (rows, _, placed) = round_trip(&id);
        assert_eq!(
            rows,
            [
                r#"Some("ext4_write") Some("[ext4]") 1.5 None None"#,
                r#"None Some("[kernel.kallsyms]") 7 Some("intel_idle") None"#,
                r#"Some("schedule") Some("[kernel.kallsyms]") 5 None None"#,
                r#"Some("schedule") Some("[kernel.kallsyms]") 2 Some("schedule.isra.0") None"#,
                r#"Some("*unknown*") None 3 None None"#,
                r#"None None 1.5 Some("*unlisted*") None"#,
            ]
        );
        assert_eq!(placed.dropped, ["*unlisted*"]);
    }

    #[test]
    fn grouped_rows_keep_their_input_dso() {
        let id = Identity {
            group: Some(GroupBy::Module),
            ..Default::default()
        };
        let (rows, _, _) = round_trip(&id);
        assert_eq!(
            rows[0],
            r#"Some("ext4") None 1.5 Some("ext4_write") Some("[ext4]")"#
        );
    }

    #[test]
    fn a_run_without_symbols_has_a_marker_row_and_pseudo_names_are_refused() {
        let empty = prepare(Profile::new("e", Format::Folded), &Identity::default()).unwrap();
        assert_eq!(empty.rows().len(), 1);
        assert_eq!(empty.rows()[0].symbol, None);
        let mut bad = Profile::new("f.folded", Format::Folded);
        bad.add(SymbolKey::new("*unknown*"), 1.0);
        let e = prepare(bad, &Identity::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("f.folded: a symbol is named *unknown*"),
            "{e}"
        );
    }

    #[test]
    fn conflicting_placements_and_duplicates_are_errors() {
        let mut p = Profile::new("r", Format::Folded);
        let mut placed = Placed::default();
        let row = |symbol| Row {
            symbol,
            dso: None,
            mode: None,
            count: 1.0,
            input_symbol: Some("a.isra.0"),
            input_dso: None,
        };
        add_row(&mut p, &mut placed, &row(Some("a"))).unwrap();
        let e = add_row(&mut p, &mut placed, &row(Some("a"))).unwrap_err();
        assert!(e.contains("appears twice"), "{e}");
        let mut q = Profile::new("s", Format::Folded);
        let e = add_row(&mut q, &mut placed, &row(None)).unwrap_err();
        assert!(
            e.contains("row a in one run and removed by a filter"),
            "{e}"
        );
    }
}
