//! `-o json`: the version-1 object of interface.md. Field order is fixed by
//! the structs below; non-finite numbers (infinite ratios and bounds) are
//! `null`; counts are integers when whole. With more than two sides each
//! row carries the baseline fields plus one `vs` object per compared side.

use super::RenderOptions;
use super::RowKey;
use crate::diff::{Comparison, Cv, Report, Row};
use crate::names::Name;
use rayon::prelude::*;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use serde_json::ser::Formatter;
use std::collections::BTreeMap;
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
    /// The samples the sample filters kept of `total` (when one was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    kept: Option<Num>,
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

impl JFields<'_> {
    const LEN: usize = 18;

    /// The fields, in order, into the object of a row or of a `vs` entry
    /// (by hand: `#[serde(flatten)]` would go through serde's map path).
    fn put<K: Obj>(&self, k: &mut K) -> Result<(), K::Error> {
        k.field("status", self.status)?;
        k.field("old", &self.old)?;
        k.field("new", &self.new)?;
        k.field("delta", &self.delta)?;
        k.field("delta_pct", &self.delta_pct)?;
        k.field("delta_ci", &self.delta_ci)?;
        k.field("ratio", &self.ratio)?;
        k.field("ratio_ci", &self.ratio_ci)?;
        k.field("p", &self.p)?;
        k.field("q", &self.q)?;
        k.field("significant", &self.significant)?;
        k.field("old_cv", &self.old_cv)?;
        k.field("new_cv", &self.new_cv)?;
        k.field("cv_kind", self.cv_kind)?;
        k.field("old_counts", &self.old_counts)?;
        k.field("new_counts", &self.new_counts)?;
        k.field("dispersion", &self.dispersion)?;
        k.field("df", &self.df)
    }
}

/// Where the fields of an object go: a serde struct ([`Struct`]) or an
/// object written by hand ([`Hand`]).
trait Obj {
    type Error;
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T)
        -> Result<(), Self::Error>;
    /// A field left out, as `skip_serializing_if` does.
    fn skip(&mut self, key: &'static str) -> Result<(), Self::Error>;
}

/// A field left out when absent.
fn put_some<K: Obj, T: Serialize>(
    k: &mut K,
    key: &'static str,
    v: Option<T>,
) -> Result<(), K::Error> {
    match v {
        Some(v) => k.field(key, &v),
        None => k.skip(key),
    }
}

/// An object made of the fields `put` lists (`len` of them).
trait Fields {
    const NAME: &'static str;
    fn len(&self) -> usize;
    fn put<K: Obj>(&self, k: &mut K) -> Result<(), K::Error>;
}

/// A serde struct as an [`Obj`].
struct Struct<S>(S);

impl<S: SerializeStruct> Obj for Struct<S> {
    type Error = S::Error;
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), S::Error> {
        self.0.serialize_field(key, v)
    }
    fn skip(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }
}

/// [`Fields`] serialised as a serde struct.
fn serialize_fields<F: Fields, S: Serializer>(f: &F, s: S) -> Result<S::Ok, S::Error> {
    let mut st = Struct(s.serialize_struct(F::NAME, f.len())?);
    f.put(&mut st)?;
    st.0.end()
}

/// A row of a two-sided report: its name, then its fields.
struct JRow<'a> {
    symbol: &'a str,
    dso: Option<&'a str>,
    mode: Option<&'a str>,
    members: &'a [Name],
    fields: JFields<'a>,
}

impl Fields for JRow<'_> {
    const NAME: &'static str = "JRow";
    fn len(&self) -> usize {
        1 + usize::from(self.dso.is_some())
            + usize::from(self.mode.is_some())
            + usize::from(!self.members.is_empty())
            + JFields::LEN
    }
    fn put<K: Obj>(&self, k: &mut K) -> Result<(), K::Error> {
        k.field("symbol", self.symbol)?;
        put_some(k, "dso", self.dso)?;
        put_some(k, "mode", self.mode)?;
        put_some(k, "members", Some(self.members).filter(|m| !m.is_empty()))?;
        self.fields.put(k)
    }
}

/// One compared side of a row of a multi-way report.
struct JVs<'a> {
    side: &'a str,
    fields: JFields<'a>,
}

impl Fields for JVs<'_> {
    const NAME: &'static str = "JVs";
    fn len(&self) -> usize {
        1 + JFields::LEN
    }
    fn put<K: Obj>(&self, k: &mut K) -> Result<(), K::Error> {
        k.field("side", self.side)?;
        self.fields.put(k)
    }
}

impl Serialize for JVs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_fields(self, s)
    }
}

struct JMultiRow<'a> {
    symbol: &'a str,
    dso: Option<&'a str>,
    mode: Option<&'a str>,
    old: Float,
    old_counts: Counts<'a>,
    vs: Vec<JVs<'a>>,
}

impl Fields for JMultiRow<'_> {
    const NAME: &'static str = "JMultiRow";
    fn len(&self) -> usize {
        4 + usize::from(self.dso.is_some()) + usize::from(self.mode.is_some())
    }
    fn put<K: Obj>(&self, k: &mut K) -> Result<(), K::Error> {
        k.field("symbol", self.symbol)?;
        put_some(k, "dso", self.dso)?;
        put_some(k, "mode", self.mode)?;
        k.field("old", &self.old)?;
        k.field("old_counts", &self.old_counts)?;
        k.field("vs", &self.vs)
    }
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
    /// statistics §5.5: each run of a side of three or more against its
    /// siblings (absent when there is none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    runs: Vec<JRunCheck<'a>>,
    /// statistics §8.3: the independent filter of the family (null when
    /// nothing was tested).
    filter: Option<JFilter>,
}

#[derive(Serialize)]
struct JFilter {
    /// Rows whose mean count per run is below it are not tested.
    threshold: Float,
    /// The quantile of the tested rows' mean counts it is (0: none left out).
    quantile: Float,
    /// Rows rejected at it, over every row tested.
    rejections: usize,
    /// Rows it left out, shown or not.
    filtered: usize,
}

#[derive(Serialize)]
struct JRunCheck<'a> {
    side: &'a str,
    run: usize,
    scale: Float,
    /// statistics §5.5: the scale over its siblings' (floored at 1).
    relative: Float,
    extremes: usize,
    weight: Float,
    unlike: bool,
}

#[derive(Serialize)]
struct JModeration {
    symbols: usize,
    trend_c: Float,
    trend_r: Float,
    /// The range the trend is held in (statistics §5.2 step 2).
    trend_lo: Float,
    trend_hi: Float,
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
            trend_lo: Float(p.trend_lo),
            trend_hi: Float(p.trend_hi),
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
        runs: n
            .runs
            .iter()
            .map(|(side, c)| JRunCheck {
                side: if *side == 0 { "old" } else { "new" },
                run: c.run + 1,
                scale: Float(c.scale),
                relative: Float(c.relative),
                extremes: c.extremes,
                weight: Float(c.weight),
                unlike: c.unlike(),
            })
            .collect(),
        filter: n.filter.map(|f| JFilter {
            threshold: Float(f.threshold),
            quantile: Float(f.quantile),
            rejections: f.rejections,
            filtered: f.filtered,
        }),
    }
}

#[derive(Serialize)]
struct JSummary<'a> {
    side: &'a str,
    noise: String,
    noise_method: JNoise<'a>,
    tested: usize,
    untested: usize,
    /// Of the untested shown rows, those below the independent filter.
    filtered: usize,
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

struct JReport<'a, R> {
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

/// Where the fields of a report go: a serde struct (a report nested in
/// another document) or the output itself (`render`, rows in parallel).
trait Sink<R>: Obj {
    fn rows(&mut self, key: &'static str, rows: &R) -> Result<(), Self::Error>;
}

impl<R> JReport<'_, R> {
    const LEN: usize = 15;

    /// The fields of the object, in order (the one list of them).
    fn fields<K: Sink<R>>(&self, k: &mut K) -> Result<(), K::Error> {
        k.field("version", &self.version)?;
        k.field("normalize", self.normalize)?;
        k.field("unit", self.unit)?;
        k.field("event", &self.event)?;
        k.field("alpha", &self.alpha)?;
        k.field("adjust", self.adjust)?;
        k.field("noise", &self.noise)?;
        k.field("sides", &self.sides)?;
        k.rows("rows", &self.rows)?;
        k.field("total", &self.total)?;
        k.field("untested", &self.untested)?;
        k.field("possible_renames", &self.possible_renames)?;
        k.field("comparisons", &self.comparisons)?;
        k.field("notes", self.notes)?;
        k.field("warnings", self.warnings)
    }
}

/// In a serde struct the rows are a sequence like any other.
impl<S: SerializeStruct, R: RowList> Sink<R> for Struct<S> {
    fn rows(&mut self, key: &'static str, rows: &R) -> Result<(), S::Error> {
        self.0.serialize_field(key, &Seq(rows))
    }
}

impl<R: RowList> Serialize for JReport<'_, R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = Struct(s.serialize_struct("JReport", Self::LEN)?);
        self.fields(&mut st)?;
        st.0.end()
    }
}

/// The rows of a report, each made as it is serialised (a million rows
/// are never held twice), from items that can be split in chunks.
trait RowList: Sync {
    type Item: Sync;
    type Row<'r>: Fields
    where
        Self: 'r;
    fn items(&self) -> &[Self::Item];
    fn row<'r>(&'r self, item: &'r Self::Item) -> Self::Row<'r>;
}

/// The rows as one serde sequence.
struct Seq<'r, L>(&'r L);

struct Item<'r, L: RowList>(&'r L, &'r L::Item);

impl<L: RowList> Serialize for Item<'_, L> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_fields(&self.0.row(self.1), s)
    }
}

impl<L: RowList> Serialize for Seq<'_, L> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.items().iter().map(|i| Item(self.0, i)))
    }
}

fn pair(ci: Option<(f64, f64)>) -> Option<[Float; 2]> {
    ci.map(|(a, b)| [Float(a), Float(b)])
}

fn cv_value(c: Option<Cv>) -> Option<Float> {
    c.map(|c| match c {
        Cv::Runs(v) | Cv::Sampling(v) => Float(v),
    })
}

/// A row as JSON: the one place the fields of a [`Row`] are read.
fn row_json(r: &Row) -> JRow<'_> {
    let v = r.verdict();
    JRow {
        symbol: &r.symbol,
        dso: r.dso.as_deref(),
        mode: r.mode.map(|m| m.as_str()),
        members: &r.members,
        fields: JFields {
            status: r.status.name(),
            old: Float(r.old),
            new: Float(r.new),
            delta: Float(r.delta),
            delta_pct: r.delta_pct().map(Float),
            delta_ci: pair(v.delta_ci),
            ratio: Float(r.ratio()),
            ratio_ci: pair(v.ratio_ci),
            p: v.p.map(Float),
            q: v.q.map(Float),
            significant: v.significant,
            old_cv: cv_value(r.old_cv()),
            new_cv: cv_value(r.new_cv()),
            cv_kind: match r.old_cv().or(r.new_cv()) {
                Some(Cv::Sampling(_)) => "sampling",
                _ => "runs",
            },
            old_counts: Counts(r.old_counts()),
            new_counts: Counts(r.new_counts()),
            dispersion: v.dispersion.map(Float),
            df: v.df.map(Float),
        },
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
    // Written as it is serialised: no tree of JSON values in memory, the
    // rows in parallel chunks, a few at a time.
    let mut w = io::BufWriter::with_capacity(1 << 16, &mut *out);
    match &doc(report).0 {
        Rows::One(d) => write_doc(d, &mut w)?,
        Rows::Multi(d) => write_doc(d, &mut w)?,
    }
    w.write_all(b"\n")?;
    w.flush()
}

/// The version-1 object of a report, one row type or the other, ready to
/// serialise (for documents that nest reports without building them as
/// values first).
pub struct Doc<'a>(Rows<'a>);

enum Rows<'a> {
    One(JReport<'a, OneRows<'a>>),
    Multi(JReport<'a, MultiRows<'a>>),
}

/// The rows of a two-sided report.
struct OneRows<'a>(&'a [Row]);

impl RowList for OneRows<'_> {
    type Item = Row;
    type Row<'r>
        = JRow<'r>
    where
        Self: 'r;
    fn items(&self) -> &[Row] {
        self.0
    }
    fn row<'r>(&'r self, r: &'r Row) -> JRow<'r> {
        row_json(r)
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
                    kept: r.kept.map(Num),
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
            filtered: c.filtered,
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
fn multi_rows(report: &Report) -> MultiRows<'_> {
    let (order, by_side) = super::union_rows(report);
    MultiRows {
        report,
        order,
        by_side,
    }
}

struct MultiRows<'a> {
    report: &'a Report,
    order: Vec<RowKey<'a>>,
    by_side: Vec<BTreeMap<RowKey<'a>, &'a Row>>,
}

impl<'a> RowList for MultiRows<'a> {
    type Item = RowKey<'a>;
    type Row<'r>
        = JMultiRow<'r>
    where
        Self: 'r;
    fn items(&self) -> &[RowKey<'a>] {
        &self.order
    }
    fn row<'r>(&'r self, k: &'r RowKey<'a>) -> JMultiRow<'r> {
        let any = self
            .by_side
            .iter()
            .find_map(|m| m.get(k))
            .map(|r| row_json(r));
        let vs = self
            .report
            .comparisons
            .iter()
            .zip(&self.by_side)
            .filter_map(|(c, m)| {
                m.get(k).map(|r| JVs {
                    side: self.report.sides.get(c.side).map_or("", |s| &s.name),
                    fields: row_json(r).fields,
                })
            })
            .collect();
        JMultiRow {
            symbol: k.0,
            dso: k.1,
            mode: any.as_ref().and_then(|r| r.mode),
            old: any.as_ref().map_or(Float(0.0), |r| r.fields.old),
            old_counts: any.as_ref().map_or(Counts(&[]), |r| r.fields.old_counts),
            vs,
        }
    }
}

/// A serde_json formatter that prints as `PrettyFormatter` (two spaces)
/// does, but from `depth` levels in: a row alone prints as it would inside
/// the document.
struct Pretty {
    depth: usize,
    has_value: bool,
}

impl Pretty {
    fn at(depth: usize) -> Self {
        Pretty {
            depth,
            has_value: false,
        }
    }
}

/// `,` then a new line and up to 32 levels of indentation, to be sliced.
const BREAK: &[u8; 66] = b",\n                                                                ";

/// A new line (after a comma unless `first`) indented `depth` levels, in
/// one write when it is not deeper than [`BREAK`].
fn line<W: ?Sized + Write>(w: &mut W, first: bool, depth: usize) -> io::Result<()> {
    let from = usize::from(first);
    match BREAK.get(from..2 + 2 * depth) {
        Some(s) => w.write_all(s),
        None => {
            w.write_all(&BREAK[from..2])?;
            (0..depth).try_for_each(|_| w.write_all(b"  "))
        }
    }
}

impl Pretty {
    /// `[` or `{`: one level deeper, nothing in it yet.
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// `]` or `}`: on a line of its own when something was in it.
    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        if self.has_value {
            line(w, true, self.depth)?;
        }
        w.write_all(bracket)
    }
}

impl Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        line(w, first, self.depth)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        line(w, first, self.depth)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Serialise `v` into `w` as pretty JSON from `depth` levels in.
fn put_value<T: Serialize + ?Sized, W: Write>(w: W, depth: usize, v: &T) -> serde_json::Result<()> {
    v.serialize(&mut serde_json::Serializer::with_formatter(
        w,
        Pretty::at(depth),
    ))
}

/// An object written by hand as `PrettyFormatter` would write it, at
/// `depth` (its fields one deeper): keys as they are (they need no escape),
/// values through serde_json.
struct Hand<W> {
    w: W,
    depth: usize,
    first: bool,
}

/// [`Fields`] written by hand (faster than serde's struct path).
fn write_object<F: Fields, W: Write>(w: W, depth: usize, f: &F) -> io::Result<()> {
    let mut h = Hand {
        w,
        depth,
        first: true,
    };
    h.w.write_all(b"{")?;
    f.put(&mut h)?;
    h.close()
}

impl<W: Write> Hand<W> {
    fn key(&mut self, key: &str) -> io::Result<()> {
        line(&mut self.w, self.first, self.depth + 1)?;
        self.first = false;
        self.w.write_all(b"\"")?;
        self.w.write_all(key.as_bytes())?;
        self.w.write_all(b"\": ")
    }
    fn close(&mut self) -> io::Result<()> {
        if !self.first {
            line(&mut self.w, true, self.depth)?;
        }
        self.w.write_all(b"}")
    }
}

impl<W: Write> Obj for Hand<W> {
    type Error = io::Error;
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> io::Result<()> {
        self.key(key)?;
        put_value(&mut self.w, self.depth + 1, v).map_err(io::Error::from)
    }
    fn skip(&mut self, _key: &'static str) -> io::Result<()> {
        Ok(())
    }
}

/// The report written by hand: the rows in parallel chunks.
impl<W: Write, R: RowList> Sink<R> for Hand<W> {
    fn rows(&mut self, key: &'static str, rows: &R) -> io::Result<()> {
        self.key(key)?;
        let window = (4 * rayon::current_num_threads()).clamp(8, 64);
        write_rows(&mut self.w, self.depth + 1, rows, (CHUNK, window))
    }
}

/// The report object at depth 0, as [`serde_json::to_writer_pretty`]
/// writes it.
fn write_doc<R: RowList, W: Write>(d: &JReport<R>, w: W) -> io::Result<()> {
    let mut h = Hand {
        w,
        depth: 0,
        first: true,
    };
    h.w.write_all(b"{")?;
    d.fields(&mut h)?;
    h.close()
}

/// Rows serialised by one task: about 0.7 MB of JSON with two counts a
/// side. A window (chunks serialised at once) is 4 a thread, 8 to 64.
const CHUNK: usize = 1024;

/// The rows array at `depth`, exactly as serde_json would print it:
/// windows of `window` chunks of `chunk` rows are serialised in parallel,
/// each chunk into its own buffer, and written in order while the next
/// window is serialised. Output does not depend on the number of threads.
fn write_rows<L: RowList, W: Write>(
    w: &mut W,
    depth: usize,
    rows: &L,
    (chunk, window): (usize, usize),
) -> io::Result<()> {
    let items = rows.items();
    if items.is_empty() {
        return w.write_all(b"[]");
    }
    w.write_all(b"[")?;
    let chunk = chunk.max(1);
    let mut windows = items.chunks(chunk * window.max(1));
    let (mut ready, mut spare) = (Vec::new(), Vec::new());
    let mut n = match windows.next() {
        Some(first) => fill(rows, first, (depth + 1, chunk), &mut ready, true)?,
        None => 0,
    };
    loop {
        let next = windows.next();
        let mut filled = None;
        let wrote = rayon::in_place_scope(|s| {
            if let Some(items) = next {
                let (spare, filled) = (&mut spare, &mut filled);
                s.spawn(move |_| {
                    *filled = Some(fill(rows, items, (depth + 1, chunk), spare, false));
                });
            }
            ready
                .iter()
                .take(n)
                .try_for_each(|b: &Vec<u8>| w.write_all(b))
        });
        wrote?;
        match filled {
            Some(r) => n = r?,
            None => break,
        }
        std::mem::swap(&mut ready, &mut spare);
    }
    line(w, true, depth)?;
    w.write_all(b"]")
}

/// Serialise `items`, the rows at `depth`, into `bufs`, a chunk of `chunk`
/// rows a buffer (reused), in parallel; the number of buffers filled.
/// `first`: these are the array's first rows.
fn fill<L: RowList>(
    rows: &L,
    items: &[L::Item],
    (depth, chunk): (usize, usize),
    bufs: &mut Vec<Vec<u8>>,
    first: bool,
) -> io::Result<usize> {
    let n = items.len().div_ceil(chunk);
    if bufs.len() < n {
        bufs.resize_with(n, Vec::new);
    }
    bufs.par_iter_mut()
        .zip(items.par_chunks(chunk))
        .enumerate()
        .try_for_each(|(c, (buf, part))| {
            buf.clear();
            for (j, item) in part.iter().enumerate() {
                line(&mut *buf, first && c == 0 && j == 0, depth)?;
                write_object(&mut *buf, depth, &rows.row(item))?;
            }
            Ok::<(), io::Error>(())
        })?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows made from (name, value) pairs, with names that need escapes.
    struct TestRows(Vec<(String, f64)>);

    impl RowList for TestRows {
        type Item = (String, f64);
        type Row<'r>
            = JRow<'r>
        where
            Self: 'r;
        fn items(&self) -> &[(String, f64)] {
            &self.0
        }
        fn row<'r>(&'r self, (name, x): &'r (String, f64)) -> JRow<'r> {
            let counts: &'static [f64] = &[0.0, 1.5, 3.0, f64::NAN, 1e300];
            let odd = name.len() % 2 == 1;
            JRow {
                symbol: name,
                dso: odd.then_some("[kernel.kallsyms]"),
                mode: None,
                members: &[],
                fields: JFields {
                    status: "worse",
                    old: Float(*x),
                    new: Float(x * 3.0),
                    delta: Float(f64::INFINITY),
                    delta_pct: odd.then_some(Float(-0.1)),
                    delta_ci: Some([Float(0.1), Float(f64::NEG_INFINITY)]),
                    ratio: Float(2.0),
                    ratio_ci: None,
                    p: Some(Float(1e-300)),
                    q: None,
                    significant: odd,
                    old_cv: None,
                    new_cv: Some(Float(0.25)),
                    cv_kind: "runs",
                    old_counts: Counts(if odd { &counts[..0] } else { counts }),
                    new_counts: Counts(&counts[1..2]),
                    dispersion: None,
                    df: Some(Float(3.0)),
                },
            }
        }
    }

    struct Wrap<'r>(&'r TestRows);

    impl Serialize for Wrap<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("Wrap", 1)?;
            st.serialize_field("rows", &Seq(self.0))?;
            st.end()
        }
    }

    /// Rows written in chunks and windows of any size, and objects written
    /// by hand, print as serde_json's pretty printer prints them.
    #[test]
    fn chunked_rows_are_serde_jsons() {
        let names = [
            "a",
            "b\"q\\",
            "c\u{1}\u{1f}\u{7f}",
            "函数_ü",
            "e\u{2028}",
            "fg",
        ];
        for n in [0, 1, 2, 5, 17] {
            let rows = TestRows(
                (0..n)
                    .map(|i| (names[i % names.len()].repeat(i / 3 + 1), i as f64 * 0.7))
                    .collect(),
            );
            let want = serde_json::to_string_pretty(&Wrap(&rows)).unwrap();
            for chunk in [1, 2, 3, 64] {
                for window in [1, 2, 5] {
                    let mut got = b"{\n  \"rows\": ".to_vec();
                    write_rows(&mut got, 1, &rows, (chunk, window)).unwrap();
                    got.extend_from_slice(b"\n}");
                    assert_eq!(
                        String::from_utf8(got).unwrap(),
                        want,
                        "{n} {chunk} {window}"
                    );
                }
            }
        }
    }

    /// The formatter prints as `PrettyFormatter` from any depth, empty
    /// arrays and objects included, and deeper than [`BREAK`] is long.
    #[test]
    fn pretty_is_serde_jsons() {
        let mut v =
            serde_json::json!({"a": [], "b": {}, "c": [[], [1, {"d": null}], {}], "e": "x"});
        for _ in 0..40 {
            v = serde_json::json!([{"k": [v, []], "z": {}}]);
        }
        let want = serde_json::to_string_pretty(&v).unwrap();
        let mut got = Vec::new();
        put_value(&mut got, 0, &v).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), want);
        let mut got = b"[\n  ".to_vec();
        put_value(&mut got, 1, &v).unwrap();
        got.extend_from_slice(b"\n]");
        let want = serde_json::to_string_pretty(&[&v]).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), want);
    }
}
