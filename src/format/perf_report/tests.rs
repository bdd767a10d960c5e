//! Unit tests over real perf 6.1.187 output (kernel 6.18, x86_64), recorded
//! with `perf record -e cpu-clock -F N [-g]` of `perf bench sched messaging`
//! and of a small `-O2 -g` C loop (`inl`, `inl2`); trailing padding trimmed.

use super::*;
use crate::format::ParseOptions;
use regex::Regex;

/// The header every variant starts with (23 samples: exact `23  `).
const TINY_HEAD: &str = "\
# To display the perf.data header info, please use --header/--header-only options.
#
#
# Total Lost Samples: 0
#
# Samples: 23  of event 'cpu-clock'
# Event count (approx.): 23069207
#
";

/// `perf report --stdio -n` (default sort comm,dso,symbol).
const TINY_DEFAULT: &str = "\
# Overhead       Samples  Command          Shared Object         Symbol
# ........  ............  ...............  ....................  ..........................................
#
    13.04%             3  sched-messaging  [kernel.kallsyms]     [k] _raw_spin_unlock_irqrestore
     8.70%             2  perf             ld-linux-x86-64.so.2  [.] do_lookup_x
     8.70%             2  sched-messaging  [kernel.kallsyms]     [k] _copy_to_iter
     8.70%             2  sched-messaging  [kernel.kallsyms]     [k] mutex_lock
     4.35%             1  perf             [kernel.kallsyms]     [k] _raw_spin_unlock_irqrestore
     4.35%             1  perf             ld-linux-x86-64.so.2  [.] _dl_map_object_from_fd
     4.35%             1  perf             libstdc++.so.6.0.30   [.] std::has_facet<std::num_put<char, std::ostreambuf_iterator<char, std::char_traits<char> > > >
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] ___slab_alloc
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] __list_del_entry_valid_or_report
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] __rb_insert_augmented
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] _copy_from_iter
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] anon_pipe_read
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] finish_task_switch.isra.0
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] get_page_from_freelist
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] prepare_creds
     4.35%             1  sched-messaging  [kernel.kallsyms]     [k] vma_interval_tree_augment_rotate
     4.35%             1  sched-messaging  ld-linux-x86-64.so.2  [.] _dl_runtime_resolve_xsavec
     4.35%             1  sched-messaging  libc.so.6             [.] read
#
# (Tip: To record callchains for each sample: perf record -g)
#
";

/// `perf report --stdio -n --sort sym` of the same recording.
const TINY_SYM: &str = "\
# Overhead       Samples  Symbol
# ........  ............  ..........................................
#
    17.39%             4  [k] _raw_spin_unlock_irqrestore
     8.70%             2  [k] _copy_to_iter
     8.70%             2  [.] do_lookup_x
     8.70%             2  [k] mutex_lock
     4.35%             1  [k] ___slab_alloc
     4.35%             1  [k] __list_del_entry_valid_or_report
     4.35%             1  [k] __rb_insert_augmented
     4.35%             1  [k] _copy_from_iter
     4.35%             1  [.] _dl_map_object_from_fd
     4.35%             1  [.] _dl_runtime_resolve_xsavec
     4.35%             1  [k] anon_pipe_read
     4.35%             1  [k] finish_task_switch.isra.0
     4.35%             1  [k] get_page_from_freelist
     4.35%             1  [k] prepare_creds
     4.35%             1  [.] read
     4.35%             1  [.] std::has_facet<std::num_put<char, std::ostreambuf_iterator<char, std::char_traits<char> > > >
     4.35%             1  [k] vma_interval_tree_augment_rotate
";

/// `perf report --stdio -n --sort dso,sym` of the same recording.
const TINY_DSO_SYM: &str = "\
# Overhead       Samples  Shared Object         Symbol
# ........  ............  ....................  ..........................................
#
    17.39%             4  [kernel.kallsyms]     [k] _raw_spin_unlock_irqrestore
     8.70%             2  [kernel.kallsyms]     [k] _copy_to_iter
     8.70%             2  [kernel.kallsyms]     [k] mutex_lock
     8.70%             2  ld-linux-x86-64.so.2  [.] do_lookup_x
     4.35%             1  [kernel.kallsyms]     [k] ___slab_alloc
     4.35%             1  [kernel.kallsyms]     [k] __list_del_entry_valid_or_report
     4.35%             1  [kernel.kallsyms]     [k] __rb_insert_augmented
     4.35%             1  [kernel.kallsyms]     [k] _copy_from_iter
     4.35%             1  [kernel.kallsyms]     [k] anon_pipe_read
     4.35%             1  [kernel.kallsyms]     [k] finish_task_switch.isra.0
     4.35%             1  [kernel.kallsyms]     [k] get_page_from_freelist
     4.35%             1  [kernel.kallsyms]     [k] prepare_creds
     4.35%             1  [kernel.kallsyms]     [k] vma_interval_tree_augment_rotate
     4.35%             1  ld-linux-x86-64.so.2  [.] _dl_map_object_from_fd
     4.35%             1  ld-linux-x86-64.so.2  [.] _dl_runtime_resolve_xsavec
     4.35%             1  libc.so.6             [.] read
     4.35%             1  libstdc++.so.6.0.30   [.] std::has_facet<std::num_put<char, std::ostreambuf_iterator<char, std::char_traits<char> > > >
";

/// 2704 samples of `inl` and `inl2` (`# Samples: 2K`).
const SMALL_HEAD: &str = "\
# To display the perf.data header info, please use --header/--header-only options.
#
#
# Total Lost Samples: 0
#
# Samples: 2K of event 'cpu-clock'
# Event count (approx.): 5418837632
#
";

const SMALL_DEFAULT_N: &str = "\
# Overhead       Samples  Command  Shared Object         Symbol
# ........  ............  .......  ....................  ................................
#
    50.07%          1354  inl2     inl2                  [.] outer
    49.74%          1345  inl      inl                   [.] outer
     0.07%             2  inl      [kernel.kallsyms]     [k] handle_softirqs
     0.04%             1  inl      [kernel.kallsyms]     [k] finish_task_switch.isra.0
     0.04%             1  inl2     [kernel.kallsyms]     [k] irqentry_exit_to_user_mode
     0.04%             1  inl2     ld-linux-x86-64.so.2  [.] intel_check_word.constprop.0
";

/// `perf report --stdio` (no `-n`): percentages only.
const SMALL_DEFAULT: &str = "\
# Overhead  Command  Shared Object         Symbol
# ........  .......  ....................  ................................
#
    50.07%  inl2     inl2                  [.] outer
    49.74%  inl      inl                   [.] outer
     0.07%  inl      [kernel.kallsyms]     [k] handle_softirqs
     0.04%  inl      [kernel.kallsyms]     [k] finish_task_switch.isra.0
     0.04%  inl2     [kernel.kallsyms]     [k] irqentry_exit_to_user_mode
     0.04%  inl2     ld-linux-x86-64.so.2  [.] intel_check_word.constprop.0
";

/// `--show-total-period --sort sym`.
const SMALL_PERIOD: &str = "\
# Overhead        Period  Symbol
# ........  ............  ................................
#
    50.07%    2713426832  [.] outer
    49.74%    2695390760  [.] outer
     0.07%       4008016  [k] handle_softirqs
     0.04%       2004008  [k] finish_task_switch.isra.0
     0.04%       2004008  [.] intel_check_word.constprop.0
     0.04%       2004008  [k] irqentry_exit_to_user_mode
";

/// `-F overhead,sample,period,sym`.
const SMALL_FIELDS: &str = "\
# Overhead       Samples        Period  Symbol
# ........  ............  ............  ................................
#
    50.07%          1354    2713426832  [.] outer
    49.74%          1345    2695390760  [.] outer
     0.07%             2       4008016  [k] handle_softirqs
     0.04%             1       2004008  [k] finish_task_switch.isra.0
     0.04%             1       2004008  [.] intel_check_word.constprop.0
     0.04%             1       2004008  [k] irqentry_exit_to_user_mode
";

/// `-n --percent-limit 1 --sort sym`: no footer says rows were dropped.
const SMALL_PERCENT_LIMIT: &str = "\
# Overhead       Samples  Symbol
# ........  ............  ................................
#
    50.07%          1354  [.] outer
    49.74%          1345  [.] outer
#
# (Tip: Create an archive with symtabs to analyse on other machine: perf archive)
#
";

/// 2603 samples recorded with `-g` (`# Samples: 2K`).
const SMALLG_HEAD: &str = "\
# To display the perf.data header info, please use --header/--header-only options.
#
#
# Total Lost Samples: 0
#
# Samples: 2K of event 'cpu-clock'
# Event count (approx.): 5216432824
#
";

/// `--children -n --sort sym`: Samples holds the *self* samples.
const SMALLG_CHILDREN: &str = "\
# Children      Self       Samples  Symbol
# ........  ........  ............  ...................................
#
    51.79%    51.71%          1346  [.] outer
    48.21%    48.10%          1252  [.] outer
     0.19%     0.00%             0  [k] asm_sysvec_apic_timer_interrupt
     0.15%     0.12%             3  [k] irqentry_exit_to_user_mode
     0.04%     0.04%             1  [k] finish_task_switch.isra.0
     0.04%     0.04%             1  [k] handle_softirqs
     0.04%     0.00%             0  [k] schedule
     0.04%     0.00%             0  [k] sysvec_apic_timer_interrupt
     0.04%     0.00%             0  [k] __irq_exit_rcu
     0.04%     0.00%             0  [k] __schedule
";

/// `--no-children -n --sort dso,sym` with its call graph, plus graph lines
/// of the big `--children` report (`|--55.94%--`, indented frames).
const SMALLG_GRAPH: &str = concat!(
    "# Overhead       Samples  Shared Object      Symbol\n",
    "# ........  ............  .................  ..............................\n",
    "#\n",
    "    51.71%          1346  inl                [.] outer\n",
    "            |\n",
    "            ---outer\n",
    "               0x556d7b6e9d41\n",
    "               |          \n",
    "               |--55.94%--0x556d7b6afbe0\n",
    "               |          |          \n",
    "               |           --55.08%--read\n",
    "\n",
    "    48.10%          1252  inl2               [.] outer\n",
    "            |\n",
    "            ---outer\n",
    "\n",
    "     0.12%             3  [kernel.kallsyms]  [k] irqentry_exit_to_user_mode\n",
    "     0.04%             1  [kernel.kallsyms]  [k] finish_task_switch.isra.0\n",
    "     0.04%             1  [kernel.kallsyms]  [k] handle_softirqs\n",
);

/// `--children --sort sym -g folded` (percentages only).
const SMALLG_FOLDED: &str = "\
# Children      Self  Symbol
# ........  ........  ...................................
#
    51.79%    51.71%  [.] outer
51.71% outer
    48.21%    48.10%  [.] outer
48.10% outer
     0.19%     0.00%  [k] asm_sysvec_apic_timer_interrupt
     0.15%     0.12%  [k] irqentry_exit_to_user_mode
     0.04%     0.04%  [k] finish_task_switch.isra.0
     0.04%     0.04%  [k] handle_softirqs
     0.04%     0.00%  [k] schedule
     0.04%     0.00%  [k] sysvec_apic_timer_interrupt
     0.04%     0.00%  [k] __irq_exit_rcu
     0.04%     0.00%  [k] __schedule
";

/// `-n --sort sym,srcline --no-children`: Symbol is not the last column.
const SRCLINE: &str = "\
# Samples: 5K of event 'cpu-clock'
# Event count (approx.): 2822910750
#
# Overhead       Samples  Symbol                            Source:Line
# ........  ............  ................................  ..............................
#
    99.47%          5613  [.] outer                         inl.c:2
     0.18%            10  [k] irqentry_exit_to_user_mode    irqentry_exit_to_user_mode+261
     0.14%             8  [k] finish_task_switch.isra.0     finish_task_switch.isra.0+147
     0.12%             7  [k] handle_softirqs               handle_softirqs+114
     0.04%             2  [k] _raw_spin_unlock_irqrestore   _raw_spin_unlock_irqrestore+25
     0.02%             1  [k] __schedule                    __schedule+994
     0.02%             1  [k] _raw_spin_unlock_irq          _raw_spin_unlock_irq+17
     0.02%             1  [.] intel_check_word.constprop.0  dl-cacheinfo.h:158
";

/// `-e cpu-clock -e task-clock`, `-n --sort sym` (first rows of each section).
const TWO_EVENTS: &str = "\
# Total Lost Samples: 0
#
# Samples: 8K of event 'cpu-clock'
# Event count (approx.): 4193095500
#
# Overhead       Samples  Symbol
# ........  ............  ......................................................................
#
     5.79%           485  [k] _raw_spin_lock
     5.75%           482  [k] _copy_to_iter
     5.75%           482  [k] skb_release_data


# Samples: 8K of event 'task-clock'
# Event count (approx.): 4193095500
#
# Overhead       Samples  Symbol
# ........  ............  ......................................................................
#
     5.75%           482  [k] skb_release_data
     5.74%           481  [k] _copy_to_iter
     5.73%           480  [k] _raw_spin_lock
";

/// `-e cpu-clock:u -e cpu-clock:k` (exact headers below 1001 samples).
const MODIFIERS: &str = "\
# Samples: 77  of event 'cpu-clock:u'
# Event count (approx.): 38519250
#
# Overhead       Samples  Symbol
# ........  ............  ..............................................................................................
#
    23.38%            18  [.] read
    22.08%            17  [.] __GI___libc_write
     3.90%             3  [.] _dl_relocate_object


# Samples: 800  of event 'cpu-clock:k'
# Event count (approx.): 400200000
#
# Overhead       Samples  Symbol
# ........  ............  .............................................
#
     7.12%            57  [k] _raw_spin_lock
     6.50%            52  [k] _raw_spin_unlock_irqrestore
";

/// `-e '{cpu-clock,task-clock}'`: one section, one value per member.
const GROUP: &str = "\
# Samples: 1K of events 'anon group { cpu-clock, task-clock }'
# Event count (approx.): 866433000
#
#         Overhead                   Samples  Symbol
# ................  ........................  ...................................................
#
     5.77%   5.77%            50          50  [k] __raw_callee_save___pv_queued_spin_unlock
     4.73%   4.62%            41          40  [k] _copy_to_iter
";

/// `perf report --stdio -n --comms nosuch`: header only.
const HEADER_ONLY: &str = "\
# To display the perf.data header info, please use --header/--header-only options.
#
# comm: nosuch
#
# Total Lost Samples: 0
#
# Samples: 9K of event 'cpu-clock'
# Event count (approx.): 4629813750
#
# Overhead       Samples  Shared Object  Symbol
# ........  ............  .............  ......
#
#
# (Tip: To add Node.js USDT(User-Level Statically Defined Tracing): perf buildid-cache --add `which node`)
#
";

fn parse_with(text: &[u8], opts: &ParseOptions) -> Result<Profile, ParseError> {
    parse(&mut &text[..], "t.txt", opts)
}

fn ok(text: &str) -> Profile {
    match parse_with(text.as_bytes(), &ParseOptions::default()) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn err(text: &str, opts: &ParseOptions) -> String {
    match parse_with(text.as_bytes(), opts) {
        Ok(p) => panic!("parsed: {p:?}"),
        Err(e) => e.to_string(),
    }
}

fn event(name: &str) -> ParseOptions {
    ParseOptions {
        event: Some(name.to_string()),
        ..ParseOptions::default()
    }
}

/// Counts by (name, mode), dso aside.
fn by_name(p: &Profile) -> BTreeMap<(String, Option<Mode>), f64> {
    let mut out = BTreeMap::new();
    for (k, v) in &p.counts {
        *out.entry((k.name.to_string(), k.mode)).or_insert(0.0) += v;
    }
    out
}

fn count(p: &Profile, name: &str, dso: Option<&str>) -> f64 {
    p.counts
        .iter()
        .filter(|(k, _)| k.name == name && k.dso.as_deref() == dso)
        .map(|(_, v)| v)
        .sum()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn three_sorts_of_one_recording_agree_and_total_is_exact() {
    let default = ok(&format!("{TINY_HEAD}{TINY_DEFAULT}"));
    let sym = ok(&format!("{TINY_HEAD}{TINY_SYM}"));
    let dso_sym = ok(&format!("{TINY_HEAD}{TINY_DSO_SYM}"));
    for p in [&default, &sym, &dso_sym] {
        // perf recorded 23 samples (perf report -D | grep -c PERF_RECORD_SAMPLE).
        assert_eq!(p.total, 23.0);
        assert_eq!(p.symbol_sum(), 23.0);
        assert_eq!(p.total_approximate, None);
        assert_eq!(p.weight, Weight::Samples);
        assert_eq!(p.event.as_deref(), Some("cpu-clock"));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }
    assert_eq!(by_name(&default), by_name(&sym));
    assert_eq!(by_name(&dso_sym), by_name(&sym));
    // Summed over comm: 3 (sched-messaging) + 1 (perf).
    let kallsyms = Some("[kernel.kallsyms]");
    assert_eq!(
        count(&default, "_raw_spin_unlock_irqrestore", kallsyms),
        4.0
    );
    assert_eq!(
        count(&dso_sym, "_raw_spin_unlock_irqrestore", kallsyms),
        4.0
    );
    assert_eq!(count(&sym, "_raw_spin_unlock_irqrestore", None), 4.0);
    let facet = "std::has_facet<std::num_put<char, std::ostreambuf_iterator<char, \
                 std::char_traits<char> > > >";
    let key = SymbolKey::new(facet)
        .with_dso(Some("libstdc++.so.6.0.30".into()))
        .with_mode(Some(Mode::User));
    assert_eq!(default.counts.get(&key), Some(&1.0));
}

#[test]
fn default_sort_keeps_dsos_apart() {
    let p = ok(&format!("{SMALL_HEAD}{SMALL_DEFAULT_N}"));
    assert_eq!(p.total, 2704.0);
    assert_eq!(count(&p, "outer", Some("inl")), 1345.0);
    assert_eq!(count(&p, "outer", Some("inl2")), 1354.0);
    assert_eq!(p.counts.len(), 6);
    assert!(p.warnings.is_empty());
}

#[test]
fn percentages_only_scale_the_rounded_header() {
    let p = ok(&format!("{SMALL_HEAD}{SMALL_DEFAULT}"));
    assert_eq!(p.weight, Weight::Percent);
    assert_eq!(p.total, 2000.0);
    assert!(close(count(&p, "outer", Some("inl2")), 1001.4));
    assert!(close(
        count(&p, "handle_softirqs", Some("[kernel.kallsyms]")),
        1.4
    ));
    let why = p.total_approximate.as_deref().unwrap_or_default();
    assert!(
        why.contains("percentages only") && why.contains("'# Samples: 2K'"),
        "{why}"
    );
    assert!(
        p.warnings.iter().any(|w| w.contains("-n")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn period_column_without_samples() {
    let p = ok(&format!("{SMALL_HEAD}{SMALL_PERIOD}"));
    assert_eq!(p.weight, Weight::Period);
    assert_eq!(p.total, 5_418_837_632.0); // = `# Event count (approx.)`
    assert_eq!(count(&p, "outer", None), 5_408_817_592.0);
    assert_eq!(p.total_approximate, None);
}

#[test]
fn explicit_fields_prefer_samples_over_period() {
    let p = ok(&format!("{SMALL_HEAD}{SMALL_FIELDS}"));
    assert_eq!(p.weight, Weight::Samples);
    assert_eq!(p.total, 2704.0);
    assert_eq!(count(&p, "outer", None), 2699.0);
}

#[test]
fn percent_limit_estimates_the_total() {
    let p = ok(&format!("{SMALL_HEAD}{SMALL_PERCENT_LIMIT}"));
    assert_eq!(p.symbol_sum(), 2699.0);
    // 2699 / 99.81% = 2704.1: the recorded 2704.
    assert_eq!(p.total, 2704.0);
    let why = p.total_approximate.as_deref().unwrap_or_default();
    assert!(why.contains("0.19%"), "{why}");
    assert!(p.warnings.iter().any(|w| w.contains("missing")));
}

#[test]
fn percent_limit_with_exact_header_keeps_it() {
    let first_rows: String = TINY_SYM
        .lines()
        .take(10)
        .map(|l| format!("{l}\n"))
        .collect();
    let text = format!("{TINY_HEAD}{first_rows}");
    let p = ok(&text);
    assert!(p.symbol_sum() < 23.0);
    assert_eq!(p.total, 23.0);
    assert_eq!(p.total_approximate, None);
    assert!(p.warnings.iter().any(|w| w.contains("missing")));
}

#[test]
fn children_use_self_samples() {
    let p = ok(&format!("{SMALLG_HEAD}{SMALLG_CHILDREN}"));
    assert_eq!(p.total, 2603.0); // the samples perf recorded
    assert_eq!(count(&p, "outer", None), 2598.0);
    // Callers with no self samples are no symbol's count.
    assert!(!p.counts.keys().any(|k| k.name == "schedule"));
    let graph = ok(&format!("{SMALLG_HEAD}{SMALLG_GRAPH}"));
    assert_eq!(by_name(&p), by_name(&graph));
    assert_eq!(graph.total, 2603.0);
    assert_eq!(count(&graph, "outer", Some("inl2")), 1252.0);
}

#[test]
fn folded_call_graph_lines_are_skipped() {
    let p = ok(&format!("{SMALLG_HEAD}{SMALLG_FOLDED}"));
    assert_eq!(p.weight, Weight::Percent);
    assert_eq!(p.total, 2000.0);
    assert!(close(count(&p, "outer", None), 1996.2)); // Self 99.81%
    assert_eq!(p.counts.len(), 4);
}

#[test]
fn symbol_need_not_be_the_last_column() {
    let p = ok(SRCLINE);
    assert_eq!(p.total, 5643.0);
    let key = SymbolKey::new("irqentry_exit_to_user_mode").with_mode(Some(Mode::Kernel));
    assert_eq!(p.counts.get(&key), Some(&10.0));
}

#[test]
fn several_events_need_a_choice() {
    let e = err(TWO_EVENTS, &ParseOptions::default());
    assert_eq!(
        e,
        "t.txt: holds several events (cpu-clock, task-clock); choose one with --event"
    );
    let p =
        parse_with(TWO_EVENTS.as_bytes(), &event("task-clock")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.event.as_deref(), Some("task-clock"));
    assert_eq!(count(&p, "skb_release_data", None), 482.0);
    assert_eq!(count(&p, "_raw_spin_lock", None), 480.0);
    let e = err(TWO_EVENTS, &event("cycles"));
    assert_eq!(
        e,
        "t.txt: has no event 'cycles' (present: cpu-clock, task-clock)"
    );
}

#[test]
fn event_modifiers() {
    let p =
        parse_with(MODIFIERS.as_bytes(), &event("cpu-clock:k")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.event.as_deref(), Some("cpu-clock:k"));
    // `# Samples: 800  of event`: exact, so rows missing keep it exactly.
    assert_eq!(p.total, 800.0);
    assert_eq!(p.total_approximate, None);
    let e = err(MODIFIERS, &event("cpu-clock"));
    assert!(
        e.contains("matches several events (cpu-clock:u, cpu-clock:k)"),
        "{e}"
    );
    // A single `cpu-clock:u` section is found by its bare name.
    let user_only = &MODIFIERS[..MODIFIERS.find("\n\n\n").unwrap_or(0)];
    let p = parse_with(user_only.as_bytes(), &event("cpu-clock")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.event.as_deref(), Some("cpu-clock:u"));
    assert_eq!(count(&p, "read", None), 18.0);
}

#[test]
fn event_group_members() {
    let e = err(GROUP, &ParseOptions::default());
    assert!(e.contains("several events (cpu-clock, task-clock)"), "{e}");
    let p = parse_with(GROUP.as_bytes(), &event("task-clock")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.event.as_deref(), Some("task-clock"));
    assert_eq!(count(&p, "_copy_to_iter", None), 40.0);
    let p = parse_with(GROUP.as_bytes(), &event("cpu-clock")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&p, "_copy_to_iter", None), 41.0);
}

#[test]
fn filters_keep_the_whole_total() {
    let text = format!("{TINY_HEAD}{TINY_DEFAULT}");
    let opts = ParseOptions {
        kernel_only: true,
        ..ParseOptions::default()
    };
    let p = parse_with(text.as_bytes(), &opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(p.counts.keys().all(|k| k.mode == Some(Mode::Kernel)));
    assert_eq!(p.symbol_sum(), 17.0);
    assert_eq!(p.total, 23.0);

    let opts = ParseOptions {
        comm: crate::format::filter::CommFilter::parse("perf").ok(),
        ..ParseOptions::default()
    };
    let p = parse_with(text.as_bytes(), &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.symbol_sum(), 5.0);
    assert_eq!(
        count(&p, "_raw_spin_unlock_irqrestore", Some("[kernel.kallsyms]")),
        1.0
    );
    assert_eq!(p.total, 23.0);

    let opts = ParseOptions {
        dso: Regex::new(r"^ld-linux").ok(),
        ..ParseOptions::default()
    };
    let p = parse_with(text.as_bytes(), &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.symbol_sum(), 4.0);
    assert_eq!(p.total, 23.0);
}

#[test]
fn filters_need_their_column() {
    let opts = ParseOptions {
        dso: Regex::new("kallsyms").ok(),
        ..ParseOptions::default()
    };
    let e = err(&format!("{TINY_HEAD}{TINY_SYM}"), &opts);
    assert!(e.contains("--dso needs a Shared Object column"), "{e}");
    assert!(e.contains("(columns: Overhead, Samples, Symbol)"), "{e}");
    let opts = ParseOptions {
        comm: crate::format::filter::CommFilter::parse("perf").ok(),
        ..ParseOptions::default()
    };
    let e = err(&format!("{TINY_HEAD}{TINY_DSO_SYM}"), &opts);
    assert!(e.contains("--comm needs a Command column"), "{e}");
}

const BAD_ROWS: &str = concat!(
    "# Overhead       Samples  Symbol\n",
    "# ........  ............  ..........................................\n",
    "#\n",
    "    17.39%             4  [k] _raw_spin_unlock_irqrestore\n",
    "     8.7x%             2  [k] _copy_to_iter\n",
    "     8.70%            2a  [.] do_lookup_x\n",
    "     8.70%\n",
    "     8.70%             2  [k] mutex_lock\n",
);

#[test]
fn malformed_rows_point_at_the_line() {
    let text = format!("{TINY_HEAD}{BAD_ROWS}");
    let e = err(&text, &ParseOptions::default());
    assert_eq!(
        e,
        "t.txt:13: expected a perf report row `OVERHEAD SAMPLES [k] SYMBOL` (the Overhead \
         field is not a percentage), found \"     8.7x%             2  [k] _copy_to_iter\""
    );
    let count_bad = text.replace("8.7x%", "8.70%");
    let e = err(&count_bad, &ParseOptions::default());
    assert!(
        e.starts_with("t.txt:14: ") && e.contains("Samples field is not a count"),
        "{e}"
    );
    let short = count_bad.replace("2a", " 2");
    let e = err(&short, &ParseOptions::default());
    assert!(
        e.starts_with("t.txt:15: ") && e.contains("too few columns"),
        "{e}"
    );
}

#[test]
fn lenient_skips_and_counts() {
    let opts = ParseOptions {
        lenient: true,
        ..ParseOptions::default()
    };
    let p = parse_with(format!("{TINY_HEAD}{BAD_ROWS}").as_bytes(), &opts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.skipped_lines, 3);
    assert_eq!(p.symbol_sum(), 6.0);
    let skipped: Vec<_> = p
        .warnings
        .iter()
        .filter(|w| w.contains("skipped"))
        .collect();
    assert_eq!(
        skipped,
        ["t.txt: skipped 3 malformed perf report line(s), the first at line 13"]
    );
}

#[test]
fn header_only_is_invalid() {
    assert_eq!(
        err(HEADER_ONLY, &ParseOptions::default()),
        "t.txt: no sample rows"
    );
    assert_eq!(err("", &ParseOptions::default()), "t.txt: no sample rows");
}

#[test]
fn rows_without_a_column_title_line() {
    let text = format!(
        "{TINY_HEAD}{}",
        TINY_SYM.split_once("#\n").map_or("", |x| x.1)
    );
    let e = err(&text, &ParseOptions::default());
    assert!(e.starts_with("t.txt:9: expected a `# Overhead"), "{e}");
}

#[test]
fn crlf_and_trailing_padding() {
    let plain = ok(&format!("{TINY_HEAD}{TINY_DEFAULT}"));
    let crlf = format!("{TINY_HEAD}{TINY_DEFAULT}")
        .replace("Symbol\n", "Symbol          \n")
        .replace('\n', "\r\n");
    let p = ok(&crlf);
    assert_eq!(p.counts, plain.counts);
    assert_eq!(p.total, 23.0);
}

#[test]
fn invalid_utf8_and_duplicates() {
    let mut text = format!(
        "{TINY_HEAD}{}",
        &TINY_SYM[..TINY_SYM.find("    17").unwrap_or(0)]
    )
    .into_bytes();
    text.extend_from_slice(b"    50.00%             4  [k] caf\xe9_\xff\n");
    text.extend_from_slice(b"    50.00%             4  [k] caf\xe9_\xff\n");
    let p = parse_with(&text, &ParseOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&p, "caf\\xe9_\\xff", None), 8.0);
    assert_eq!(p.total, 8.0);
}

#[test]
fn symbol_markers_and_unresolved_addresses() {
    let rows = concat!(
        "# Overhead       Samples  Symbol\n",
        "# ........  ............  ......\n",
        "    20.00%             1  [.] 0x00000000000f582a\n",
        "    20.00%             1  [k] 0xffffffff81e0019b\n",
        "    20.00%             1  [g] guest_fn\n",
        "    10.00%             1  [u] guest_user_fn\n",
        "    10.00%             1  [H] hv_fn\n",
        "    20.00%             1  [.] hot (inlined)\n",
    );
    let p = ok(rows);
    let modes: BTreeMap<&str, Option<Mode>> =
        p.counts.keys().map(|k| (k.name.as_str(), k.mode)).collect();
    // Unresolved addresses are `[unknown]`, one per mode here (no dso column).
    let unknown: Vec<Option<Mode>> = p
        .counts
        .keys()
        .filter(|k| k.name == "[unknown]")
        .map(|k| k.mode)
        .collect();
    assert_eq!(unknown, [Some(Mode::Kernel), Some(Mode::User)]);
    let w = crate::format::unresolved::summary(&[&p], true).unwrap_or_default();
    assert!(w.contains("2 samples not resolved to a symbol"), "{w}");
    assert_eq!(modes["guest_fn"], Some(Mode::GuestKernel));
    assert_eq!(modes["guest_user_fn"], Some(Mode::GuestUser));
    assert_eq!(modes["hv_fn"], Some(Mode::Hypervisor));
    assert_eq!(modes["hot"], Some(Mode::User));
    // No `# Samples:` header: the rows' sum, no event.
    assert_eq!(p.total, 6.0);
    assert_eq!(p.event, None);
    let opts = ParseOptions {
        kernel_only: true,
        ..ParseOptions::default()
    };
    let p = parse_with(rows.as_bytes(), &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.counts.len(), 1); // host kernel only: not [g]
}

#[test]
fn lost_samples_warn() {
    let text = format!("{TINY_HEAD}{TINY_SYM}").replace("Lost Samples: 0", "Lost Samples: 12");
    let p = ok(&text);
    assert!(p.warnings.iter().any(|w| w.contains("lost 12 samples")));
}

#[test]
fn sniff_decides_on_perf_report_headers() {
    let full = format!("{TINY_HEAD}{TINY_SYM}");
    assert_eq!(sniff(full.as_bytes(), true), Sniff::Yes);
    assert_eq!(
        sniff(
            b"# To display the perf.data header info, please use --header\n",
            false
        ),
        Sniff::Yes
    );
    assert_eq!(
        sniff(b"#\n# Samples: 9K of event 'cpu-clock'\n", false),
        Sniff::Yes
    );
    assert_eq!(sniff(b"# Overhead  Command  Symbol\n", false), Sniff::Yes);
    assert_eq!(sniff(b"# Children      Self  Symbol\n", false), Sniff::Yes);
    assert_eq!(
        sniff(b"#\n#\n# Total Lost Samples: 0\n", false),
        Sniff::NeedMore
    );
    assert_eq!(sniff(b"#\n#\n# Total Lost Samples: 0\n", true), Sniff::No);
    // The partial last line counts only at EOF.
    assert_eq!(sniff(b"#\n# Samples: 9K of ev", false), Sniff::NeedMore);
    assert_eq!(sniff(b"#\n# Overhead", true), Sniff::Yes);
    // Other formats.
    assert_eq!(
        sniff(
            b"  1234 default_idle                          12.3456\n",
            false
        ),
        Sniff::No
    );
    assert_eq!(
        sniff(
            b"sched-messaging  1234 [001]  245.148369:     500250 cpu-clock:  ffffffff8\n",
            false
        ),
        Sniff::No
    );
    assert_eq!(sniff(b"main;foo;bar 12\n", false), Sniff::No);
    assert_eq!(
        sniff(
            b"CPU: Intel Skylake microarchitecture, speed 2600 MHz\n",
            false
        ),
        Sniff::No
    );
    // perf script --header: `#` lines, then samples.
    assert_eq!(
        sniff(b"# ========\n# captured on    : Mon Nov 30\n# ========\n#\nperf 1 [000] 1.0: 1 cpu-clock:\n", false),
        Sniff::No
    );
}

/// perf sizes the Symbol column without the ` (inlined)` mark, so an
/// inlined function's row pushes its Shared Object right (as perf 6.1 prints
/// `perf report --children --sort sym,dso -n` of a `--call-graph dwarf`
/// recording whose widest plain name is shorter): read, the mark kept in the
/// name, the dso whole.
#[test]
fn an_inlined_mark_spilling_into_the_next_column_is_read() {
    let text = format!(
        "{TINY_HEAD}\
# Children      Self       Samples  Symbol                      Shared Object
# ........  ........  ............  ..........................  .............
#
    60.00%    60.00%            14  [.] main                    prog
    40.00%    40.00%             9  [.] __libc_start_main_impl (inlined)  libc.so.6
"
    );
    let p = ok(&text);
    assert_eq!(count(&p, "main", Some("prog")), 14.0);
    assert_eq!(
        count(&p, "__libc_start_main_impl (inlined)", Some("libc.so.6")),
        9.0
    );
}
