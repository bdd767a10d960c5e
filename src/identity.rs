//! Which row a symbol lands in: GCC/LTO clone-suffix folding, the user's
//! alias map, `--group-by`, and the symbol filters (`--include`,
//! `--exclude`, `--exclude-idle`). Folding, aliasing and grouping only move
//! counts between rows; they never change a total.

use crate::profile::{Mode, Name, SymbolKey};
use anyhow::{bail, Result};
use regex::Regex;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// The kernel's idle-loop functions (`--exclude-idle`); `mwait_idle*` is a
/// prefix (`mwait_idle_with_hints` and its clones). With a kernel map that
/// marks the idle text, every function in it is idle too
/// ([`Identity::with_idle_of`]).
pub const IDLE_FUNCTIONS: [&str; 30] = [
    // The idle routines (`__cpuidle`) of x86 kernels, and the generic loop.
    "acpi_idle_do_entry",
    "acpi_idle_enter",
    "acpi_safe_halt",
    "amd_e400_idle",
    "arch_cpu_idle",
    "cpu_do_idle",
    "cpu_idle_poll",
    "cpuidle_enter_state",
    "default_idle",
    "default_idle_call",
    "do_idle",
    "intel_idle",
    "intel_idle_ibrs",
    "intel_idle_irq",
    "intel_idle_xstate",
    "mwait_idle*",
    "native_safe_halt",
    "poll_idle",
    "pv_native_safe_halt",
    "xen_safe_halt",
    // perf's own list (tools/perf/util/symbol.c, `symbol__is_idle`).
    "acpi_processor_ffh_cstate_enter",
    "cpu_idle",
    "cpu_startup_entry",
    "enter_idle",
    "exit_idle",
    "idle_cpu",
    "ppc64_runlatch_off",
    "pseries_dedicated_idle_sleep",
    "psw_idle",
    "psw_idle_exit",
];

/// Strip compiler clone and versioning suffixes, repeatedly:
/// `.isra.N`, `.constprop.N`, `.part.N`, `.cold`, `.cold.N`, `.llvm.<digits>`,
/// `.localalias`, `.lto_priv.N` (so `foo.constprop.0.isra.0` → `foo`), and the
/// user-space `@plt`, `@GLIBC_2.2.5` / `@@GLIBC_2.2.5` version tags.
/// A name that is nothing but a suffix (`.text.lock.namei`) is kept.
pub fn fold_suffixes(name: &str) -> Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?:\.(?:isra|constprop|part|lto_priv)\.\d+|\.cold(?:\.\d+)?|\.llvm\.\d+|\.localalias(?:\.\d+)?|@plt|@@?[A-Za-z_][A-Za-z0-9_]*_[0-9][0-9.]*)$",
        )
        .expect("static regex")
    });
    // Every suffix starts with `.` or `@`: most names have neither.
    if memchr::memchr2(b'.', b'@', name.as_bytes()).is_none() {
        return Cow::Borrowed(name);
    }
    let mut end = name.len();
    while let Some(m) = re.find(&name[..end]) {
        if m.start() == 0 {
            break;
        }
        end = m.start();
    }
    if end == name.len() {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(name[..end].to_string())
    }
}

/// One alias rule: an exact name or an anchored regex, and the row name.
#[derive(Clone, Debug)]
enum Alias {
    Exact(String, String),
    Pattern(Regex, String),
}

/// `--alias FILE`: `old_name = new_name` or `re:PATTERN = NAME` per line
/// (`$1` in NAME refers to a capture group); `#` starts a comment.
#[derive(Clone, Debug, Default)]
pub struct AliasMap {
    rules: Vec<Alias>,
}

impl AliasMap {
    pub fn parse(text: &str, origin: &str) -> Result<AliasMap> {
        let mut rules = Vec::new();
        let mut exact: std::collections::BTreeMap<String, (String, usize)> = Default::default();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let Some((lhs, rhs)) = line.split_once('=') else {
                bail!("{origin}:{}: expected `old_name = new_name` or `re:PATTERN = NAME`, found \"{raw}\"", n + 1);
            };
            let (lhs, rhs) = (lhs.trim(), rhs.trim());
            if lhs.is_empty() || rhs.is_empty() || rhs.contains(char::is_whitespace) {
                bail!("{origin}:{}: expected `old_name = new_name` or `re:PATTERN = NAME`, found \"{raw}\"", n + 1);
            }
            if let Some(pat) = lhs.strip_prefix("re:") {
                // (The pattern alone first, so that an error's place is in it.)
                let re = Regex::new(pat)
                    .and_then(|_| Regex::new(&format!("^(?:{pat})$")))
                    .map_err(|e| {
                        anyhow::anyhow!(
                            "{origin}:{}: invalid regular expression \"{}\": {}",
                            n + 1,
                            crate::text::printable(pat),
                            crate::text::regex_error(&e)
                        )
                    })?;
                rules.push(Alias::Pattern(re, rhs.to_string()));
            } else if lhs.contains(char::is_whitespace) {
                bail!(
                    "{origin}:{}: expected one symbol name before `=`, found \"{lhs}\"",
                    n + 1
                );
            } else {
                // A name given twice: the first line would win without a
                // word; the same mapping again is harmless.
                if let Some((to, at)) = exact.get(lhs) {
                    if to != rhs {
                        bail!(
                            "{origin}:{}: `{lhs}` is renamed twice, to `{to}` (line {at}) and to `{rhs}`: keep one",
                            n + 1
                        );
                    }
                    continue;
                }
                exact.insert(lhs.to_string(), (rhs.to_string(), n + 1));
                rules.push(Alias::Exact(lhs.to_string(), rhs.to_string()));
            }
        }
        // A rename into a name that is renamed too (`a = b`, `b = a`):
        // rules apply once, so the rows would swap names (or `a` stop
        // half-way down a chain) without a word.
        for (from, (to, at)) in &exact {
            if let Some((next, at2)) = exact.get(to).filter(|(next, _)| next != to) {
                bail!(
                    "{origin}:{at}: `{from}` is renamed to `{to}`, which line {at2} renames to \
                     `{next}`: renames apply once, so rows would swap or stop half-way; \
                     rename each name straight to its final name"
                );
            }
        }
        Ok(AliasMap { rules })
    }

    /// The first rule that matches `name`, applied.
    pub fn apply<'a>(&self, name: &'a str) -> Cow<'a, str> {
        for rule in &self.rules {
            match rule {
                Alias::Exact(from, to) if from == name => return Cow::Owned(to.clone()),
                Alias::Pattern(re, to) if re.is_match(name) => {
                    return Cow::Owned(re.replace(name, to.as_str()).into_owned())
                }
                _ => {}
            }
        }
        Cow::Borrowed(name)
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// `--group-by`.
#[derive(Clone, Debug)]
pub enum GroupBy {
    Dso,
    /// Kernel module: `[kvm]` → `kvm`, the core kernel → `vmlinux`, user space → its dso.
    Module,
    /// Names starting with the prefix become one row `PREFIX*`.
    Prefix(String),
    /// Names matching become one row per match (capture group 1 if any).
    Regex(Regex),
}

impl GroupBy {
    pub fn parse(spec: &str) -> Result<GroupBy> {
        match spec {
            "dso" => Ok(GroupBy::Dso),
            "module" => Ok(GroupBy::Module),
            s if s.starts_with("prefix:") && s.len() > 7 => Ok(GroupBy::Prefix(s[7..].to_string())),
            s if s.starts_with("regex:") && s.len() > 6 => {
                Ok(GroupBy::Regex(Regex::new(&s[6..]).map_err(|e| {
                    anyhow::anyhow!(
                        "--group-by \"{}\": invalid regular expression: {}",
                        crate::text::printable(s),
                        crate::text::regex_error(&e)
                    )
                })?))
            }
            s => bail!("--group-by takes dso, module, prefix:STR or regex:RE, not \"{s}\""),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            GroupBy::Dso => "dso".into(),
            GroupBy::Module => "module".into(),
            GroupBy::Prefix(p) => format!("prefix:{p}"),
            GroupBy::Regex(r) => format!("regex:{}", r.as_str()),
        }
    }

    /// The group a symbol belongs to; `None` keeps the symbol as its own row.
    fn group(&self, name: &str, key: &SymbolKey) -> Option<String> {
        match self {
            GroupBy::Dso => Some(key.dso.map(|d| d.to_string()).unwrap_or_else(
                || match key.mode {
                    Some(Mode::Kernel) => "[kernel.kallsyms]".to_string(),
                    _ => "[unknown]".to_string(),
                },
            )),
            GroupBy::Module => Some(match key.dso.as_deref() {
                Some("[kernel.kallsyms]") => "vmlinux".to_string(),
                Some(d) if d.starts_with('[') && d.ends_with(']') && d != "[unknown]" => {
                    d[1..d.len() - 1].to_string()
                }
                Some(d) => d.to_string(),
                None if key.mode == Some(Mode::Kernel) || key.mode.is_none() => {
                    "vmlinux".to_string()
                }
                None => "[unknown]".to_string(),
            }),
            GroupBy::Prefix(p) => name.starts_with(p.as_str()).then(|| format!("{p}*")),
            // A match (or capture) of nothing names no group: the symbol
            // keeps its own row ([`GroupBy::matches_empty`] says so).
            GroupBy::Regex(re) => Self::regex_group(re, name).filter(|g| !g.is_empty()),
        }
    }

    /// What `regex:RE` makes of `name`: capture group 1 if it took part,
    /// else the whole match; `None` when it does not match.
    fn regex_group(re: &Regex, name: &str) -> Option<String> {
        re.captures(name).map(|c| {
            c.get(1)
                .or_else(|| c.get(0))
                .map_or(String::new(), |m| m.as_str().to_string())
        })
    }

    /// `regex:RE` matches `name` but takes nothing of it (`^(x)?` on a
    /// name without the `x`): a group without a name, which is none.
    pub fn matches_empty(&self, name: &str) -> bool {
        match self {
            GroupBy::Regex(re) => Self::regex_group(re, name).is_some_and(|g| g.is_empty()),
            _ => false,
        }
    }
}

/// Everything that decides a symbol's row, or drops it.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    /// Fold clone suffixes (default on; `--keep-suffixes` turns it off).
    pub fold: bool,
    pub aliases: AliasMap,
    pub group: Option<GroupBy>,
    pub include: Option<Regex>,
    pub exclude: Option<Regex>,
    pub exclude_idle: bool,
    /// Under `--exclude-idle`, the names the runs' kernel maps place in
    /// the kernel's idle text (clone suffixes folded), removed as the
    /// names of [`IDLE_FUNCTIONS`] are ([`Identity::with_idle_of`]).
    pub idle_names: Arc<std::collections::BTreeSet<String>>,
    /// `--kernel-only` as a view: rows of other modes are kept in the count
    /// matrix (the noise is learned from them) but not shown or tested
    /// (docs/statistics.md §8.2).
    pub kernel_only: bool,
    /// `--by-name`: rows are symbols by name alone, across binaries (as
    /// `perf diff --sort sym`), never split by dso.
    pub by_name: bool,
    /// Rows already named on export (a counts table): looked up, not
    /// recomputed; the other fields are then unused.
    pub placed: Option<Arc<Placed>>,
}

/// Where every input symbol of a counts table went when it was exported
/// (`diffprofile export` stores each symbol's row name beside its input
/// name), so that reading the table back places symbols exactly as the
/// export did, whatever options named them.
#[derive(Clone, Debug, Default)]
pub struct Placed {
    pub rows: FxHashMap<SymbolKey, Placement>,
    /// Pseudo rows (`*unknown*`, `*unlisted*`) a symbol filter removed.
    pub dropped: Vec<String>,
}

/// Where one input symbol goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Into the row of this name; `grouped` rows lose their dso identity
    /// unless grouped by dso.
    Row { name: Name, grouped: bool },
    /// Removed by a symbol filter.
    Dropped,
}

impl Identity {
    /// A call-graph frame's name: suffixes folded (when on) and aliases
    /// applied, as for a row; grouping and filters apply to rows only.
    pub fn frame_name<'a>(&self, name: &'a str) -> Cow<'a, str> {
        let folded = if self.fold {
            fold_suffixes(name)
        } else {
            Cow::Borrowed(name)
        };
        match self.aliases.apply(&folded) {
            Cow::Borrowed(_) => folded,
            Cow::Owned(named) => Cow::Owned(named),
        }
    }

    pub fn place(&self, key: &SymbolKey) -> Placement {
        if let Some(placed) = &self.placed {
            return placed.rows.get(key).cloned().unwrap_or(Placement::Row {
                name: key.name,
                grouped: false,
            });
        }
        let named = self.frame_name(key.name.as_str());
        if !self.keeps(&named) || (self.kernel_only && !is_kernel_mode(key.mode)) {
            return Placement::Dropped;
        }
        self.group_named(named, key)
    }

    /// Where `key` goes and whether its row is shown: a symbol that the
    /// filters (`--include`, `--exclude`, `--exclude-idle`, `--kernel-only`)
    /// leave out still gets its row, hidden, so that the noise is learned
    /// from every symbol of the runs; except when it would be grouped (a
    /// group's row holds its kept members only), or a counts table already
    /// placed it as removed (then its own name, hidden).
    pub fn place_all(&self, key: &SymbolKey) -> (Placement, bool) {
        let mode_ok = !self.kernel_only || is_kernel_mode(key.mode);
        if let Some(placed) = &self.placed {
            return match placed.rows.get(key) {
                Some(Placement::Dropped) => (
                    Placement::Row {
                        name: key.name,
                        grouped: false,
                    },
                    false,
                ),
                Some(p) => (p.clone(), mode_ok),
                None => (
                    Placement::Row {
                        name: key.name,
                        grouped: false,
                    },
                    mode_ok,
                ),
            };
        }
        let named = self.frame_name(key.name.as_str());
        let shown = mode_ok && self.keeps(&named);
        match self.group_named(named, key) {
            Placement::Row { grouped: true, .. } if !shown => (Placement::Dropped, false),
            p => (p, shown),
        }
    }

    fn group_named(&self, named: Cow<'_, str>, key: &SymbolKey) -> Placement {
        match self.group.as_ref().and_then(|g| g.group(&named, key)) {
            Some(group) => Placement::Row {
                name: Name::new(&group),
                grouped: true,
            },
            None => Placement::Row {
                name: match named {
                    Cow::Borrowed(_) => key.name,
                    Cow::Owned(n) => Name::new(&n),
                },
                grouped: false,
            },
        }
    }

    pub fn keeps(&self, name: &str) -> bool {
        if let Some(placed) = &self.placed {
            return !placed.dropped.iter().any(|d| d == name);
        }
        if self.include.as_ref().is_some_and(|re| !re.is_match(name)) {
            return false;
        }
        if self.exclude.as_ref().is_some_and(|re| re.is_match(name)) {
            return false;
        }
        !(self.exclude_idle && (is_idle(name) || self.idle_names.contains(name)))
    }

    /// This identity with the idle text of every run's kernel map
    /// (`Profile::idle`) removed as idle under `--exclude-idle`; itself
    /// when it does not exclude idle or no map marks an idle text.
    pub fn with_idle_of<'a>(
        &self,
        maps: impl IntoIterator<Item = &'a std::collections::BTreeSet<String>>,
    ) -> Identity {
        let mut names = (*self.idle_names).clone();
        if self.exclude_idle {
            for set in maps {
                names.extend(set.iter().map(|n| fold_suffixes(n).into_owned()));
            }
        }
        Identity {
            idle_names: Arc::new(names),
            ..self.clone()
        }
    }

    pub fn has_filters(&self) -> bool {
        self.include.is_some() || self.exclude.is_some() || self.exclude_idle
    }
}

/// A kernel sample's mode (host or guest kernel), as `--kernel-only` keeps.
pub fn is_kernel_mode(mode: Option<Mode>) -> bool {
    matches!(mode, Some(Mode::Kernel | Mode::GuestKernel))
}

pub fn is_idle(name: &str) -> bool {
    IDLE_FUNCTIONS.iter().any(|f| match f.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == *f,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_gcc_and_lto_suffixes() {
        for (from, to) in [
            ("finish_task_switch.isra.0", "finish_task_switch"),
            ("foo.constprop.0.isra.0", "foo"),
            ("bar.part.1", "bar"),
            ("baz.cold", "baz"),
            ("baz.cold.3", "baz"),
            ("qux.llvm.15251198824366928061", "qux"),
            ("x.localalias", "x"),
            ("memcpy@plt", "memcpy"),
            ("memcpy@GLIBC_2.14", "memcpy"),
            ("fopen@@GLIBC_2.2.5", "fopen"),
            ("do_schedule", "do_schedule"),
            (".text.lock.namei", ".text.lock.namei"),
            (".cold", ".cold"),
            ("a.isra", "a.isra"),
        ] {
            assert_eq!(fold_suffixes(from), to, "{from}");
        }
    }

    #[test]
    fn alias_map_exact_and_regex() {
        let m = AliasMap::parse(
            "# renames in 2.6.0\nschedule = do_schedule\nre:__?d_lookup = d_lookup # both\nre:(.*)_v2 = $1\n",
            "a.map",
        )
        .unwrap();
        assert_eq!(m.apply("schedule"), "do_schedule");
        assert_eq!(m.apply("__d_lookup"), "d_lookup");
        assert_eq!(m.apply("_d_lookup"), "d_lookup");
        assert_eq!(m.apply("xd_lookup"), "xd_lookup");
        assert_eq!(m.apply("foo_v2"), "foo");
    }

    #[test]
    fn alias_map_errors_name_the_line() {
        let e = AliasMap::parse("a = b\nnonsense\n", "x.map").unwrap_err();
        assert!(e.to_string().starts_with("x.map:2: expected"), "{e}");
        let e = AliasMap::parse("re:( = b\n", "x.map").unwrap_err();
        assert!(
            format!("{e:#}").starts_with("x.map:1: invalid regular expression"),
            "{e:#}"
        );
        let e = AliasMap::parse("a = b c\n", "x.map").unwrap_err();
        assert!(e.to_string().starts_with("x.map:1:"), "{e}");
        // One name renamed twice, differently: refused naming both lines.
        let e = AliasMap::parse("a = b\nc = d\na = e\n", "x.map").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.map:3: `a` is renamed twice, to `b` (line 1) and to `e`: keep one"
        );
        // A cycle (rows would swap names) or a chain: refused.
        let e = AliasMap::parse("fput = fdget_pos\nfdget_pos = fput\n", "x.map").unwrap_err();
        assert!(
            e.to_string().starts_with(
                "x.map:2: `fdget_pos` is renamed to `fput`, which line 1 renames to `fdget_pos`"
            ),
            "{e}"
        );
        assert!(AliasMap::parse("a = b\nb = c\n", "x.map").is_err());
        // The same rule twice is harmless.
        let m = AliasMap::parse("a = b\na = b\n", "x.map").unwrap();
        assert_eq!(m.apply("a"), "b");
        // A regex error in one line, with its place in the pattern.
        let e = AliasMap::parse("re:x[ = b\n", "x.map").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.map:1: invalid regular expression \"x[\": unclosed character class (at character 2)"
        );
    }

    #[test]
    fn groups() {
        let k = SymbolKey::new("x")
            .with_dso(Some("[kvm]".into()))
            .with_mode(Some(Mode::Kernel));
        assert_eq!(GroupBy::Module.group("x", &k), Some("kvm".into()));
        assert_eq!(GroupBy::Dso.group("x", &k), Some("[kvm]".into()));
        let core = SymbolKey::new("x").with_mode(Some(Mode::Kernel));
        assert_eq!(GroupBy::Module.group("x", &core), Some("vmlinux".into()));
        let p = GroupBy::parse("prefix:.text.lock.").unwrap();
        assert_eq!(
            p.group(".text.lock.namei", &core),
            Some(".text.lock.*".into())
        );
        assert_eq!(p.group("schedule", &core), None);
        let r = GroupBy::parse("regex:^(ext4|xfs)_").unwrap();
        assert_eq!(r.group("ext4_map_blocks", &core), Some("ext4".into()));
        assert!(GroupBy::parse("nonsense").is_err());
    }

    #[test]
    fn idle_functions() {
        assert!(is_idle("intel_idle"));
        assert!(is_idle("mwait_idle_with_hints"));
        assert!(!is_idle("intel_idle_ibrs_x"));
        let id = Identity {
            fold: true,
            exclude_idle: true,
            ..Default::default()
        };
        assert_eq!(
            id.place(&SymbolKey::new("intel_idle.cold")),
            Placement::Dropped
        );
    }
}
