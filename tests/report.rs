//! The report as a reviewer reads it (issue 17): lines that fit an 80-column
//! email, names printed as given, `--top` by the sort key, values instead
//! of `.` in multi-way tables, no meaningless total under `-n robust`,
//! compact headers and de-duplicated warnings, renames and the composition
//! warning only when they mean something. Real testdata throughout.

use crate::cli::{diffprofile, json_of, stdout_of};
use std::path::Path;

const RP: &str = "testdata/readprofile/default";

fn text_of(args: &[&str]) -> String {
    String::from_utf8(stdout_of(args)).unwrap()
}

/// Lines longer than 80 characters (columns: `…` is one).
fn long_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.chars().count() > 80)
        .map(str::to_string)
        .collect()
}

/// Every default line of text, classic and markdown output of real
/// comparisons fits 80 columns, long names cut in the middle (`...` in
/// ASCII output, `…` in markdown); `--wide` prints them whole.
#[test]
fn default_reports_fit_80_columns() {
    let comparisons: [&[&str]; 5] = [
        &[
            "testdata/perf-script/pipes.txt.gz",
            "testdata/perf-script/threads.txt.gz",
        ],
        &[
            "testdata/perf-report/dso-sym-n/sockets",
            "testdata/perf-report/dso-sym-n/pipes",
        ],
        &[&format!("{RP}/sockets"), &format!("{RP}/pipes")],
        &[
            "testdata/folded/pipes.folded.gz",
            "testdata/folded/threads.folded.gz",
        ],
        &[
            &format!("{RP}/pipes"),
            &format!("{RP}/sockets"),
            &format!("{RP}/threads"),
        ],
    ];
    let mut cut = 0;
    for args in comparisons {
        for format in ["text", "classic", "markdown"] {
            let out = text_of(&[args, &["-o", format]].concat());
            // Markdown tables print names whole: only their rows may be wider.
            let long: Vec<String> = long_lines(&out)
                .into_iter()
                .filter(|l| !(format == "markdown" && l.starts_with("| ")))
                .collect();
            assert_eq!(long, Vec::<String>::new(), "{args:?} -o {format}");
            cut += out.matches("...").count() + out.matches('…').count();
        }
    }
    assert!(cut > 0, "some real name was long enough to be cut");
    // Two libc names too long for the default columns, the dso kept: cut
    // at the end, as the middle is what tells them apart; whole with --wide.
    let args = [
        "testdata/perf-script/pipes.txt.gz",
        "testdata/perf-script/threads.txt.gz",
    ];
    let plain = text_of(&args);
    assert!(
        plain.contains("  __GI___pthread_disable_as... [libc.so.6]\n")
            && plain.contains("  __GI___pthread_enable_asy... [libc.so.6]\n"),
        "{plain}"
    );
    assert!(!plain.contains("__GI___pthread_disable_asynccancel"));
    let wide = text_of(&[&args[..], &["--wide"]].concat());
    assert!(wide.contains("  __GI___pthread_disable_asynccancel [libc.so.6]\n"));
    let md = text_of(&[&args[..], &["-o", "markdown"]].concat());
    // Markdown prints names whole.
    assert!(
        md.contains("| `__GI___pthread_disable_asynccancel [libc.so.6]` |"),
        "{md}"
    );
    // A name alone in its shape is cut in the middle.
    let one = text_of(&[
        &format!("{RP}/sockets/run1.txt")[..],
        &format!("{RP}/pipes/run1.txt"),
    ]);
    assert!(
        one.contains("  __raw_callee_save__...queued_spin_unlock\n"),
        "{one}"
    );
}

/// Batch prints kernel names exactly as given: no `6.8.0-RC1`, no `V6.2`.
#[test]
fn batch_keeps_kernel_names_case() {
    let dir = crate::scratch::Scratch::new("dp-case", "t");
    let _ = std::fs::remove_dir_all(&dir);
    for (kernel, workload) in [("v6.2", "pipes"), ("6.8.0-rc1", "threads")] {
        let to = dir.join(kernel).join("hackbench");
        std::fs::create_dir_all(&to).unwrap();
        for r in 1..=2 {
            let from = format!("{RP}/{workload}/run{r}.txt");
            std::fs::copy(from, to.join(format!("run{r}.txt"))).unwrap();
        }
    }
    let root = dir.to_str().unwrap();
    let text = text_of(&["batch", root, "--baseline", "v6.2"]);
    assert!(
        text.contains("v6.2 ") && text.contains("6.8.0-rc1"),
        "{text}"
    );
    assert!(!text.contains("RC1") && !text.contains("V6.2"), "{text}");
    let html = String::from_utf8(stdout_of(&[
        "batch",
        root,
        "--baseline",
        "v6.2",
        "-o",
        "html",
    ]))
    .unwrap();
    assert!(
        html.contains("<h1>diffprofile: v6.2 (2 runs) vs 6.8.0-rc1 (2 runs)</h1>"),
        "html title"
    );
    assert!(!html.contains("RC1") && !html.contains("V6.2"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--top N` takes the N rows of each sign that rank first by `--sort`:
/// with `--sort ratio` the highest ratios (new symbols first), not the
/// largest Δ re-sorted.
#[test]
fn top_follows_the_sort_key() {
    let args = [&format!("{RP}/pipes")[..], &format!("{RP}/threads")];
    for sort in ["ratio", "impact", "delta"] {
        let all = json_of(&[&args[..], &["--sort", sort]].concat());
        let top = json_of(&[&args[..], &["--sort", sort, "--top", "3"]].concat());
        let rows = |v: &serde_json::Value| -> Vec<(String, f64)> {
            v["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["symbol"].as_str().unwrap().to_string(),
                        r["delta"].as_f64().unwrap(),
                    )
                })
                .collect()
        };
        let (all, top) = (rows(&all), rows(&top));
        let worse: Vec<&str> = all
            .iter()
            .filter(|r| r.1 > 0.0)
            .take(3)
            .map(|r| &*r.0)
            .collect();
        let better: Vec<&str> = all.iter().filter(|r| r.1 < 0.0).map(|r| &*r.0).collect();
        let better = &better[better.len() - 3..];
        let shown: Vec<&str> = top.iter().map(|r| &*r.0).collect();
        assert_eq!(shown, [&worse[..], better].concat(), "--sort {sort}");
    }
    let ratio = text_of(&[&args[..], &["--sort", "ratio", "--top", "2"]].concat());
    assert!(
        ratio.contains("  new ") && ratio.contains("fput"),
        "{ratio}"
    );
}

/// Multi-way tables print a side's value even when that side does not
/// rank the row in its top N; `.` only where the symbol is absent.
#[test]
fn multi_way_shows_values_and_dots_only_for_absent() {
    let sides = [
        format!("{RP}/pipes"),
        format!("{RP}/sockets"),
        format!("{RP}/threads"),
    ];
    let args: Vec<&str> = sides.iter().map(String::as_str).collect();
    let text = text_of(&[&args[..], &["--top", "3"]].concat());
    assert!(text.contains(". absent from both"), "{text}");
    let full = json_of(&args);
    // Whether the full comparison has a row for `symbol` on side `side`
    // (0: new1, 1: new2): present on that side or the baseline.
    let present = |side: usize, symbol: &str| {
        let name = format!("new{}", side + 1);
        full["rows"].as_array().unwrap().iter().any(|r| {
            r["symbol"] == symbol
                && r["vs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|v| v["side"] == *name)
        })
    };
    let mut dots = 0;
    for line in text.lines().skip_while(|l| !l.contains("d new1")).skip(1) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() < 4 || cells[cells.len() - 1] == "total" {
            break;
        }
        let symbol = cells[cells.len() - 1];
        // old, then per side: delta and (when tested) a mark
        let rest = &cells[1..cells.len() - 1];
        let deltas: Vec<&str> = rest
            .iter()
            .copied()
            .filter(|c| !["*", "~"].contains(c))
            .collect();
        assert_eq!(deltas.len(), 2, "{line}");
        for (side, d) in deltas.iter().enumerate() {
            if *d == "." {
                dots += 1;
                assert!(
                    !present(side, symbol),
                    "{symbol} has a value for side {side}: {line}"
                );
            } else {
                assert!(present(side, symbol), "{line}");
            }
        }
    }
    assert!(
        dots > 0,
        "skb_release_data and fput are absent from one side each"
    );
    let md = text_of(&[&args[..], &["--top", "3", "-o", "markdown"]].concat());
    assert!(
        md.contains("| 4.003 | -2.741 | * | +3.162 | * | `fdget_pos` |"),
        "{md}"
    );
}

/// `-n robust`: no total row in text, classic and markdown, but a line
/// saying why (a sum of size-factor-scaled ticks over all symbols is +278%
/// on a real comparison, and means nothing).
#[test]
fn robust_mode_has_no_total_row() {
    let args = [
        &format!("{RP}/sockets")[..],
        &format!("{RP}/pipes"),
        "-n",
        "robust",
        "--top",
        "2",
    ];
    for format in ["text", "classic", "markdown"] {
        let out = text_of(&[&args[..], &["-o", format]].concat());
        assert!(
            out.contains("(no total row: under -n robust"),
            "{format}:\n{out}"
        );
        assert!(
            !out.lines()
                .any(|l| l.trim_end().ends_with(" total") || l.contains("**total**")),
            "{format}:\n{out}"
        );
    }
    let share = text_of(&args[..2]);
    assert!(share.lines().any(|l| l.ends_with(" total")));
}

/// The header names each side's paths once (`run{1..4}.txt`), puts the
/// totals on their own line when they do not fit, and says one warning
/// about what several runs share (their unresolved samples, summed).
#[test]
fn compact_header_and_warnings_said_once() {
    let runs: Vec<String> = (1..=4).map(|r| format!("{RP}/pipes/run{r}.txt")).collect();
    let new: Vec<String> = (1..=4)
        .map(|r| format!("{RP}/threads/run{r}.txt"))
        .collect();
    let mut args = vec!["--old"];
    args.extend(runs.iter().map(String::as_str));
    args.push("--new");
    args.extend(new.iter().map(String::as_str));
    args.extend(["--top", "1"]);
    let text = text_of(&args);
    assert!(
        text.starts_with(
            "OLD testdata/readprofile/default/pipes/run{1..4}.txt: 4 runs\n  totals 3552 3266 3233 4089\n"
        ),
        "{text}"
    );
    let raw = |w: &str, r: u32| format!("testdata/raw/{w}-run{r}-g.perf.data.gz");
    let (o, n): (Vec<String>, Vec<String>) = (
        (1..=3).map(|r| raw("sockets", r)).collect(),
        (1..=3).map(|r| raw("pipes", r)).collect(),
    );
    let mut args = vec![
        "--kallsyms",
        "testdata/raw/kallsyms-g.gz",
        "--top",
        "1",
        "--old",
    ];
    args.extend(o.iter().map(String::as_str));
    args.push("--new");
    args.extend(n.iter().map(String::as_str));
    let text = text_of(&args);
    // Every run has unresolved user samples: one warning sums them.
    assert_eq!(text.matches("not resolved").count(), 1, "{text}");
    assert!(
        text.contains("warning: 307 samples (")
            && text.contains("not resolved to a symbol ([unknown])"),
        "{text}"
    );
    assert!(text.contains("OLD testdata/raw/sockets-run{1..3}-g.perf.data.gz: 3 runs"));
    assert_eq!(long_lines(&text), Vec::<String>::new());
}

/// `-n work` prints as many digits as the values have meaning: ticks per
/// operation with a few hundred operations per run need 2 decimals, not 6.
#[test]
fn work_values_have_meaningful_digits() {
    let dir = crate::scratch::Scratch::new("dp-work", "t");
    std::fs::create_dir_all(&dir).unwrap();
    let info = dir.join("runs.csv");
    let mut csv = String::new();
    for w in ["pipes", "threads"] {
        for r in 1..=4 {
            csv.push_str(&format!("{RP}/{w}/run{r}.txt,1.0,{}\n", 40 + r));
        }
    }
    std::fs::write(&info, csv).unwrap();
    let info = info.to_str().unwrap();
    let args = [
        &format!("{RP}/pipes")[..],
        &format!("{RP}/threads"),
        "-n",
        "work",
        "--run-info",
        info,
    ];
    let text = text_of(&[&args[..], &["--top", "1"]].concat());
    // About 43 operations per run: one tick is 0.006 ticks per operation,
    // and the largest value shown is 9.5, so 3 decimals (4 digits), not 6.
    let row = text
        .lines()
        .find(|l| l.ends_with("fput"))
        .unwrap_or_default();
    assert_eq!(row, "+2.882     new   0.000   2.882  *  fput", "{text}");
    assert!(
        text.contains("  9.518   8.059  ~  finish_task_switch\n"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Possible renames pair only a gone symbol with a new one of similar name
/// and size: none between two workloads (14 unrelated pairs before), the
/// one real rename of the renamed testdata.
#[test]
fn renames_are_few_and_plausible() {
    for (a, b) in [
        ("sockets", "pipes"),
        ("pipes", "threads"),
        ("threads", "sockets"),
    ] {
        let v = json_of(&[&format!("{RP}/{a}")[..], &format!("{RP}/{b}")]);
        assert_eq!(v["possible_renames"], serde_json::json!([]), "{a} vs {b}");
    }
    let renamed = "testdata/identity/threads-renamed";
    assert!(Path::new(renamed).is_dir());
    let text = text_of(&[&format!("{RP}/threads")[..], renamed, "--top", "1"]);
    assert!(
        text.contains("\n  vfs_read -> do_vfs_read  (-1.534 / +1.534)\n"),
        "{text}"
    );
}

/// The composition warning needs a shift beyond its own run-to-run
/// scatter: not in A/A comparisons of real runs, yes between workloads
/// whose shares all moved.
#[test]
fn composition_warning_only_for_real_shifts() {
    let run = |w: &str, r: u32| format!("{RP}/{w}/run{r}.txt");
    for w in ["pipes", "threads", "sockets"] {
        let (a, b, c, d) = (run(w, 1), run(w, 2), run(w, 3), run(w, 4));
        for args in [
            vec!["--old", &a, &b, "--new", &c, &d],
            vec!["--old", &a, "--new", &b],
            vec!["--old", &c, "--new", &d],
        ] {
            let v = json_of(&args);
            let shifted: Vec<&serde_json::Value> = v["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|w| w.as_str().unwrap().contains("shifted"))
                .collect();
            assert!(shifted.is_empty(), "A/A {args:?}: {shifted:?}");
        }
    }
    let v = json_of(&[&format!("{RP}/sockets")[..], &format!("{RP}/pipes")]);
    let w = v["warnings"].to_string();
    assert!(w.contains("most symbols' shares shifted by"), "{w}");
    assert!(w.contains("beyond the runs' own scatter"), "{w}");
    // The README comparison (pipes vs threads): +7.5%, within its scatter.
    let v = json_of(&[&format!("{RP}/pipes")[..], &format!("{RP}/threads")]);
    assert!(!v["warnings"].to_string().contains("shifted"));
}

/// Without `--top`, a terminal gets at most 25 rows of each sign and is
/// told so; a pipe or a file gets every row.
#[test]
fn terminal_gets_25_rows_of_each_sign() {
    use clap::Parser;
    use diffprofile::{app, cli::Cli, config::Config};
    let argv = [
        "diffprofile",
        &format!("{RP}/pipes")[..],
        &format!("{RP}/threads"),
    ];
    let render = |terminal: bool, extra: &[&str]| {
        let mut config = Config::from_cli(Cli::parse_from([&argv[..], extra].concat())).unwrap();
        config.for_terminal(terminal);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        app::run(&config, &mut out, &mut err).unwrap();
        String::from_utf8(out).unwrap()
    };
    let term = render(true, &[]);
    assert!(term.contains("... 46 more regressions"), "{term}");
    assert!(term.contains("(on a terminal at most 25 rows of each sign are shown"));
    // Table rows start with a signed number (`+3.528`, `-1.578`).
    let rows = |t: &str| {
        t.lines()
            .filter(|l| {
                let mut c = l.chars();
                matches!(c.next(), Some('+' | '-')) && c.next().is_some_and(|d| d.is_ascii_digit())
            })
            .count()
    };
    assert_eq!(rows(&term), 50, "{term}");
    let pipe = render(false, &[]);
    assert!(!pipe.contains("more regressions") && !pipe.contains("on a terminal"));
    let top = render(true, &["--top", "2"]);
    assert!(top.contains("... 69 more regressions") && !top.contains("on a terminal"));
    let file = diffprofile().args(&argv[1..]).output().unwrap();
    assert_eq!(String::from_utf8(file.stdout).unwrap(), pipe);
}
