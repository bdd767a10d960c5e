//! `-o json`: the version-1 object of interface.md. Field order is fixed by
//! the structs below; non-finite numbers (infinite ratios and bounds) are
//! `null`; counts are integers when whole. With more than two sides each
//! row carries the baseline fields plus one `vs` object per compared side.

use super::RenderOptions;
use crate::diff::{Comparison, Cv, Report, Row};
use crate::names::Name;
use serde::{Serialize, Serializer};
use std::io::{self, Write};

/// A number that prints as an integer when it is whole, `null` when not finite.
#[derive(Clone, Copy, Debug)]
pub struct Num(pub f64);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if !x.is_finite() {
            s.serialize_none()
        } else if x.fract() == 0.0 && x.abs() < 9.0e15 {
            s.serialize_i64(x as i64)
        } else {
            s.serialize_f64(x)
        }
    }
}

/// A float that is `null` when not finite (kept as a float when whole).
#[derive(Clone, Copy, Debug)]
pub struct Float(pub f64);

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f64(self.0)
        } else {
            s.serialize_none()
        }
    }
}

#[derive(Serialize)]
struct JRun<'a> {
    source: &'a str,
    format: &'a str,
    total: Num,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_approximate: Option<&'a str>,
    /// What the run's counts were divided by: `total` in share mode, 1 in
    /// ticks mode, the duration, work count or size factor otherwise.
    exposure: Num,
}

#[derive(Serialize)]
struct JSide<'a> {
    name: &'a str,
    runs: Vec<JRun<'a>>,
}

/// The per-comparison fields of a row.
#[derive(Serialize)]
struct JFields<'a> {
    status: &'a str,
    old: Float,
    new: Float,
    delta: Float,
    delta_pct: Option<Float>,
    delta_ci: Option<[Float; 2]>,
    ratio: Float,
    ratio_ci: Option<[Float; 2]>,
    p: Option<Float>,
    q: Option<Float>,
    significant: bool,
    old_cv: Option<Float>,
    new_cv: Option<Float>,
    cv_kind: &'a str,
    old_counts: Counts<'a>,
    new_counts: Counts<'a>,
    /// φ the row was tested with; ν its degrees of freedom (`null`: ∞).
    dispersion: Option<Float>,
    df: Option<Float>,
}

#[derive(Serialize)]
struct JRow<'a> {
    symbol: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dso: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'a str>,
    #[serde(skip_serializing_if = "<[Name]>::is_empty")]
    members: &'a [Name],
    #[serde(flatten)]
    fields: JFields<'a>,
}

#[derive(Serialize)]
struct JVs<'a> {
    side: &'a str,
    #[serde(flatten)]
    fields: JFields<'a>,
}

#[derive(Serialize)]
struct JMultiRow<'a> {
    symbol: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dso: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'a str>,
    old: Float,
    old_counts: Counts<'a>,
    vs: Vec<JVs<'a>>,
}

#[derive(Serialize)]
struct JTotal {
    old: Float,
    new: Float,
    delta: Float,
}

/// How noise was judged (docs/statistics.md §5), for scripts.
#[derive(Serialize)]
struct JNoise<'a> {
    method: &'a str,
    residual_df: Float,
    interval_level: Float,
    moderation: Option<JModeration>,
    one_run: Option<JOneRun>,
    model: Option<JModel<'a>>,
    noise_cv: Option<Float>,
}

#[derive(Serialize)]
struct JModeration {
    symbols: usize,
    trend_c: Float,
    trend_r: Float,
    /// d0, `null` when infinite; `prior_df_cap` = min(d0, 2d).
    prior_df: Float,
    prior_df_cap: Float,
}

#[derive(Serialize)]
struct JOneRun {
    symbols: usize,
    shift: Float,
    kappa: Float,
    reference_df: Float,
}

#[derive(Serialize)]
struct JModel<'a> {
    source: &'a str,
    runs: usize,
    residual_df: Float,
}

fn noise(c: &Comparison) -> JNoise<'_> {
    let n = &c.noise;
    JNoise {
        method: n.method.name(),
        residual_df: Float(n.residual_df),
        interval_level: Float(n.interval_level),
        moderation: n.moderation.map(|p| JModeration {
            symbols: p.symbols,
            trend_c: Float(p.trend_c),
            trend_r: Float(p.trend_r),
            prior_df: Float(p.d0),
            prior_df_cap: Float(p.d_cap),
        }),
        one_run: n.one_run.map(|o| JOneRun {
            symbols: o.symbols,
            shift: Float(o.shift),
            kappa: Float(o.kappa),
            reference_df: Float(crate::stats::ONE_RUN_DF),
        }),
        model: n.model.as_ref().map(|m| JModel {
            source: &m.source,
            runs: m.runs,
            residual_df: Float(m.residual_df),
        }),
        noise_cv: n.noise_cv.map(Float),
    }
}

#[derive(Serialize)]
struct JSummary<'a> {
    side: &'a str,
    noise: String,
    noise_method: JNoise<'a>,
    tested: usize,
    untested: usize,
    significant_regressions: usize,
    significant_improvements: usize,
    hidden: usize,
    total: JTotal,
    possible_renames: Vec<JRename<'a>>,
}

#[derive(Serialize)]
struct JRename<'a> {
    old_symbol: &'a str,
    new_symbol: &'a str,
    old_delta: Float,
    new_delta: Float,
}

#[derive(Serialize)]
struct JReport<'a, R: Serialize> {
    version: u32,
    normalize: &'a str,
    unit: &'a str,
    event: Option<&'a str>,
    alpha: f64,
    adjust: &'a str,
    /// The first (with two sides, the only) comparison's noise method.
    noise: Option<JNoise<'a>>,
    sides: Vec<JSide<'a>>,
    rows: R,
    total: JTotal,
    untested: usize,
    possible_renames: Vec<JRename<'a>>,
    comparisons: Vec<JSummary<'a>>,
    notes: &'a [String],
    warnings: &'a [String],
}

fn pair(ci: Option<(f64, f64)>) -> Option<[Float; 2]> {
    ci.map(|(a, b)| [Float(a), Float(b)])
}

fn cv_value(c: Option<Cv>) -> Option<Float> {
    c.map(|c| match c {
        Cv::Runs(v) | Cv::Sampling(v) => Float(v),
    })
}

fn fields(r: &Row) -> JFields<'_> {
    JFields {
        status: r.status.name(),
        old: Float(r.old),
        new: Float(r.new),
        delta: Float(r.delta),
        delta_pct: r.delta_pct.map(Float),
        delta_ci: pair(r.delta_ci()),
        ratio: Float(r.ratio),
        ratio_ci: pair(r.ratio_ci()),
        p: r.p().map(Float),
        q: r.q().map(Float),
        significant: r.significant(),
        old_cv: cv_value(r.old_cv),
        new_cv: cv_value(r.new_cv),
        cv_kind: match r.old_cv.or(r.new_cv) {
            Some(Cv::Sampling(_)) => "sampling",
            _ => "runs",
        },
        old_counts: Counts(&r.old_counts),
        new_counts: Counts(&r.new_counts),
        dispersion: r.dispersion().map(Float),
        df: r.df().map(Float),
    }
}

fn renames(c: &Comparison) -> Vec<JRename<'_>> {
    c.renames
        .iter()
        .map(|r| JRename {
            old_symbol: &r.old_symbol,
            new_symbol: &r.new_symbol,
            old_delta: Float(r.old_delta),
            new_delta: Float(r.new_delta),
        })
        .collect()
}

fn total(c: &Comparison) -> JTotal {
    JTotal {
        old: Float(c.total.old),
        new: Float(c.total.new),
        delta: Float(c.total.delta),
    }
}

pub fn render(report: &Report, _opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    // Written as it is serialised: no tree of JSON values in memory.
    let mut w = io::BufWriter::new(&mut *out);
    serde_json::to_writer_pretty(&mut w, &doc(report)).map_err(io::Error::from)?;
    writeln!(w)?;
    w.flush()
}

/// The version-1 object of a report, one row type or the other, ready to
/// serialise (for documents that nest reports without building them as
/// values first).
pub struct Doc<'a>(Rows<'a>);

enum Rows<'a> {
    One(JReport<'a, OneRows<'a>>),
    Multi(JReport<'a, Vec<JMultiRow<'a>>>),
}

/// The rows of a two-sided report, each made as it is serialised (a
/// million rows are never held twice).
struct OneRows<'a>(&'a [Row]);

impl Serialize for OneRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|r| JRow {
            symbol: &r.symbol,
            dso: r.dso.as_deref(),
            mode: r.mode.map(|m| m.as_str()),
            members: &r.members,
            fields: fields(r),
        }))
    }
}

/// A row's counts per run, serialised as [`Num`]s from the row's own slice.
#[derive(Clone, Copy, Debug)]
struct Counts<'a>(&'a [f64]);

impl Serialize for Counts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|&c| Num(c)))
    }
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Rows::One(d) => d.serialize(s),
            Rows::Multi(d) => d.serialize(s),
        }
    }
}

pub fn doc(report: &Report) -> Doc<'_> {
    let sides = report
        .sides
        .iter()
        .map(|s| JSide {
            name: &s.name,
            runs: s
                .runs
                .iter()
                .map(|r| JRun {
                    source: &r.source,
                    format: r.format.name(),
                    total: Num(r.total),
                    total_approximate: r.approximate.as_deref(),
                    exposure: Num(r.exposure),
                })
                .collect(),
        })
        .collect();
    let summaries = report
        .comparisons
        .iter()
        .map(|c| JSummary {
            side: &report.sides[c.side].name,
            noise: super::noise_sentence(c),
            noise_method: noise(c),
            tested: c.tested,
            untested: c.untested,
            significant_regressions: c.regressions,
            significant_improvements: c.improvements,
            hidden: c.elided.worse + c.elided.better + c.elided.unchanged + c.elided.small,
            total: total(c),
            possible_renames: renames(c),
        })
        .collect();
    let first = report.comparisons.first();
    let head_total = first.map(total).unwrap_or(JTotal {
        old: Float(0.0),
        new: Float(0.0),
        delta: Float(0.0),
    });
    let untested = report.comparisons.iter().map(|c| c.untested).sum();
    macro_rules! emit {
        ($rows:expr) => {{
            JReport {
                version: 1,
                normalize: report.normalize.name(),
                unit: report.normalize.unit(),
                event: report.event.as_deref(),
                alpha: report.alpha,
                adjust: super::adjust_name(report.adjust),
                noise: first.map(noise),
                sides,
                rows: $rows,
                total: head_total,
                untested,
                possible_renames: first.map(renames).unwrap_or_default(),
                comparisons: summaries,
                notes: &report.notes,
                warnings: &report.warnings,
            }
        }};
    }
    if report.comparisons.len() <= 1 {
        let rows = OneRows(first.map_or(&[], |c| &c.rows));
        Doc(Rows::One(emit!(rows)))
    } else {
        Doc(Rows::Multi(emit!(multi_rows(report))))
    }
}

/// Rows of a multi-way report: the union of the shown rows of every
/// comparison, in the first comparison's order, then the others' by name.
fn multi_rows(report: &Report) -> Vec<JMultiRow<'_>> {
    let (order, by_side) = super::union_rows(report);
    order
        .into_iter()
        .map(|k| {
            let any = by_side.iter().find_map(|m| m.get(&k)).copied();
            let vs = report
                .comparisons
                .iter()
                .zip(&by_side)
                .filter_map(|(c, m)| {
                    m.get(&k).map(|r| JVs {
                        side: &report.sides[c.side].name,
                        fields: fields(r),
                    })
                })
                .collect();
            JMultiRow {
                symbol: k.0,
                dso: k.1,
                mode: any.and_then(|r| r.mode.map(|m| m.as_str())),
                old: Float(any.map_or(0.0, |r| r.old)),
                old_counts: Counts(any.map_or(&[], |r| &r.old_counts)),
                vs,
            }
        })
        .collect()
}
