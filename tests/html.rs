//! `-o html` and `-o flamegraph`: static checks that always run (no external
//! references, escaping of hostile symbol names, deterministic bytes,
//! `--jobs 1` = `--jobs 2`, perf.data callchains, batch index) and a check
//! in a real browser (headless Chromium, Debian's `chromium` package) that
//! skips with a message when `chromium` is not on PATH, and fails then under
//! `CI=true` (`.ci/run` installs Chromium where it is missing). The browser check
//! renders the committed multi-run callchain recordings (testdata/raw/),
//! reads the DOM after the page's script ran, proves no network request
//! left the browser (an unreachable proxy, a resolver that resolves
//! nothing, and Chromium's own net log) and saves a screenshot to
//! `target/browser-check/report.png` (`scripts/browser-check.sh` copies it
//! to `docs/report.png`).

use super::cli::diffprofile;
use clap::Parser;
use diffprofile::aggregate::Side;
use diffprofile::cli::Cli;
use diffprofile::config::Config;
use diffprofile::format::{self, ParseOptions};
use diffprofile::input;
use diffprofile::profile::{Format, Profile, SymbolKey};
use diffprofile::render::{self, OutputFormat};
use diffprofile::symmap::SymbolMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const KALLSYMS: &str = "testdata/raw/kallsyms-g.gz";

/// The real multi-run comparison with callchains: 3 sockets runs vs 3 pipes runs.
fn real_args(output: &str) -> Vec<String> {
    let mut a = vec!["-o".to_string(), output.to_string()];
    a.extend(["--kallsyms".to_string(), KALLSYMS.to_string()]);
    a.push("--old".into());
    a.extend((1..=3).map(|r| format!("testdata/raw/sockets-run{r}-g.perf.data.gz")));
    a.push("--new".into());
    a.extend((1..=3).map(|r| format!("testdata/raw/pipes-run{r}-g.perf.data.gz")));
    a
}

fn run_ok(args: &[String]) -> Vec<u8> {
    let o = diffprofile().args(args).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// References that would make a browser fetch something.
fn external_refs(doc: &str) -> Vec<String> {
    let lower = doc.to_ascii_lowercase();
    let mut bad = Vec::new();
    for pat in [
        "src=",
        "href=",
        "@import",
        "http://",
        "https://",
        "//fonts",
        "<link",
        "<iframe",
        "<object",
        "<embed",
        "<img",
        "fetch(",
        "xmlhttprequest",
        "url(",
    ] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(pat) {
            let at = from + i;
            let tail: String = lower[at..].chars().take(60).collect();
            // Allowed: the SVG namespace (an identifier, never fetched) and
            // in-document fragment references `url(#…)`.
            let ok = tail.starts_with("http://www.w3.org/2000/svg") || tail.starts_with("url(#");
            if !ok {
                bad.push(tail.to_string());
            }
            from = at + pat.len();
        }
    }
    bad
}

#[test]
fn html_of_real_callchains_is_self_contained_and_complete() {
    let doc = String::from_utf8(run_ok(&real_args("html"))).unwrap();
    assert!(doc.starts_with("<!DOCTYPE html>"));
    let bad = external_refs(&doc);
    assert!(bad.is_empty(), "external references: {bad:#?}");
    for want in [
        "<svg class=\"chart\"",
        "<table class=\"rows\"",
        "<svg class=\"flamegraph\"",
        "sockets-run3-g.perf.data.gz",
        "pipes-run1-g.perf.data.gz",
        "cpu-clock",
        "share (% of each run",
        "Warnings",
        "do_syscall_64",
    ] {
        assert!(doc.contains(want), "missing {want:?}");
    }
    // The table is a plain table: every row is there without script.
    assert!(doc.matches("<tr class=").count() > 100);
    // Exactly one inline script, no script loaded from anywhere.
    assert_eq!(doc.matches("<script").count(), 1);
}

#[test]
fn html_and_flamegraph_bytes_are_deterministic_across_jobs() {
    for output in ["html", "flamegraph"] {
        let mut a1 = real_args(output);
        a1.extend(["--jobs".into(), "1".into()]);
        let mut a2 = real_args(output);
        a2.extend(["--jobs".into(), "2".into()]);
        let one = run_ok(&a1);
        assert_eq!(one, run_ok(&a1), "{output}: same run twice");
        assert_eq!(one, run_ok(&a2), "{output}: --jobs 1 vs --jobs 2");
    }
}

#[test]
fn flamegraph_is_one_standalone_svg() {
    let svg = String::from_utf8(run_ok(&real_args("flamegraph"))).unwrap();
    assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(external_refs(&svg).is_empty());
    assert!(!svg.contains("<script"));
    // Frames gone on NEW (socket paths) are drawn hatched; pipe paths are new.
    assert!(svg.contains("\ngone on NEW</title>"));
    assert!(svg.contains("\nonly on NEW</title>"));
    assert!(svg.contains("fill=\"url(#fg1-gone)\""));
    assert!(svg.contains("<title>unix_stream_recvmsg\ninclusive: "));
}

#[test]
fn without_callchains_flamegraph_is_an_error_and_html_a_note() {
    let args = |o: &str| {
        vec![
            "-o".to_string(),
            o.to_string(),
            "testdata/readprofile/default/sockets".to_string(),
            "testdata/readprofile/default/pipes".to_string(),
        ]
    };
    let o = diffprofile().args(args("flamegraph")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("-o flamegraph: no input has callchains")
            && err.contains("perf.data recorded with -g")
            && err.contains("testdata/readprofile/default/sockets/run1.txt"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    let doc = String::from_utf8(run_ok(&args("html"))).unwrap();
    assert!(doc.contains("No flame graph: no input has callchains"));
    assert!(!doc.contains("<svg class=\"flamegraph\""));
    assert!(doc.contains("<svg class=\"chart\""));
}

/// One run whose symbol names and stacks try to inject markup.
fn hostile(scale: f64) -> Profile {
    let mut p = Profile::new("evil<b>\"run\".txt", Format::Folded);
    let evil = "<script>alert(1)</script>";
    for (name, c) in [(evil, 400.0), ("a&b", 300.0), ("plain", 300.0 * scale)] {
        p.add(SymbolKey::new(name), c);
        let stack = vec!["root'\"".to_string(), name.to_string()];
        p.stacks.insert(stack, c);
    }
    p.total = p.symbol_sum();
    p
}

#[test]
fn hostile_symbol_names_are_escaped_everywhere() {
    let cli = Cli::parse_from(["diffprofile", "-o", "html", "a", "b"]);
    let config = Config::from_cli(cli).unwrap();
    assert!(config.load.parse.stacks, "-o html asks parsers for stacks");
    let sides = vec![
        Side {
            name: "old".into(),
            label: "<i>old</i>".into(),
            runs: vec![hostile(1.0), hostile(1.1)],
        },
        Side {
            name: "new".into(),
            label: "new".into(),
            runs: vec![hostile(3.0), hostile(3.2)],
        },
    ];
    let mut done = diffprofile::app::compare_sides(&sides, &config).unwrap();
    done.report
        .warnings
        .push("warning <script>alert(2)</script>".into());
    for fmt in [OutputFormat::Html, OutputFormat::Flamegraph] {
        let mut out = Vec::new();
        let flames = done.flames.as_ref();
        render::render(fmt, &done.report, flames, &config.render, &mut out).unwrap();
        let doc = String::from_utf8(out).unwrap();
        assert!(!doc.contains("<script>alert"), "{fmt:?}: unescaped");
        assert!(!doc.contains("<b>") && !doc.contains("<i>old"), "{fmt:?}");
        assert!(
            doc.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{fmt:?}: the name is shown, escaped"
        );
        assert!(doc.contains("root&#39;&quot;"), "{fmt:?}");
        if fmt == OutputFormat::Html {
            assert!(doc.contains("a&amp;b"));
            assert!(doc.contains("&lt;script&gt;alert(2)"));
            assert!(doc.contains("<svg class=\"flamegraph\""));
        }
    }
}

fn open(path: &str) -> Box<dyn std::io::BufRead> {
    let raw: Box<dyn std::io::BufRead> =
        Box::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    input::decompress(raw).unwrap().1
}

#[test]
fn perf_data_stacks_end_in_the_self_cost_symbols() {
    let map = Arc::new(SymbolMap::read_path(KALLSYMS).unwrap());
    let path = "testdata/raw/sockets-run1-g.perf.data.gz";
    let plain = ParseOptions {
        kallsyms: Some(map.clone()),
        ..ParseOptions::default()
    };
    let with = ParseOptions {
        stacks: true,
        ..plain.clone()
    };
    let a = format::parse(Format::PerfData, &mut *open(path), path, &plain).unwrap();
    let b = format::parse(Format::PerfData, &mut *open(path), path, &with).unwrap();
    assert!(a.stacks.is_empty(), "stacks only when asked for");
    assert_eq!(a.counts, b.counts, "stacks do not change the self cost");
    // Leaf of every stack, summed by name = self counts summed by name.
    let mut leaves: BTreeMap<&str, f64> = BTreeMap::new();
    for (s, w) in &b.stacks {
        *leaves.entry(s.last().unwrap().as_str()).or_default() += w;
    }
    let mut selfs: BTreeMap<&str, f64> = BTreeMap::new();
    for (k, c) in &b.counts {
        *selfs.entry(k.name.as_str()).or_default() += c;
    }
    assert_eq!(leaves, selfs);
    assert_eq!(b.stacks.values().sum::<f64>(), b.total);
    // Real callchains: deep stacks through the syscall entry, root first.
    let deep = b
        .stacks
        .keys()
        .filter(|s| s.len() >= 8 && s.iter().any(|f| f == "entry_SYSCALL_64_after_hwframe"))
        .count();
    assert!(deep > 50, "{deep}");
    assert!(b
        .stacks
        .keys()
        .any(|s| s.first().is_some_and(|f| f == "_start" || f == "[unknown]")));
}

#[test]
fn batch_html_writes_a_page_per_benchmark_and_a_linking_index() {
    let d = crate::scratch::Scratch::new("diffprofile-html-batch", "t");
    let _ = std::fs::remove_dir_all(&d);
    for (k, w) in [("base", "sockets"), ("next", "pipes")] {
        for r in 1..=3 {
            for b in ["msg", "msg#2"] {
                let to = d.join(format!("tree/{k}/{b}/run{r}.perf.data.gz"));
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(format!("testdata/raw/{w}-run{r}-g.perf.data.gz"), &to).unwrap();
            }
        }
    }
    let tree = d.join("tree");
    let out = d.join("out");
    let o = diffprofile()
        .args(["batch", &tree.to_string_lossy(), "--baseline", "base"])
        .args(["--kallsyms", KALLSYMS, "-o", "html", "--out-dir"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<a href=\"msg.html\">msg</a>"), "{index}");
    assert!(
        index.contains("<a href=\"msg%232.html\">msg#2</a>"),
        "{index}"
    );
    assert!(external_refs(&index.replace("href=\"msg", "")).is_empty());
    for f in ["msg.html", "msg#2.html"] {
        let page = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(page.contains("<svg class=\"flamegraph\""), "{f}");
    }
    // On stdout: one page with the index and every report.
    let o = diffprofile()
        .args(["batch", &tree.to_string_lossy(), "--baseline", "base"])
        .args(["--kallsyms", KALLSYMS, "-o", "html"])
        .output()
        .unwrap();
    let page = String::from_utf8_lossy(&o.stdout);
    assert_eq!(page.matches("<!DOCTYPE html>").count(), 1);
    assert!(page.contains("<a href=\"#b-msg_232\">msg#2</a>"));
    assert!(page.contains("id=\"b-msg_232\""));
    // -o flamegraph: one SVG per benchmark, so a directory is required.
    let o = diffprofile()
        .args(["batch", &tree.to_string_lossy(), "--baseline", "base"])
        .args(["-o", "flamegraph"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give --out-dir DIR"));
    let _ = std::fs::remove_dir_all(&d);
}

/// URLs of requests a page started, from a Chromium net log (JSON).
fn page_requests(netlog: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(netlog).unwrap();
    let log: serde_json::Value = serde_json::from_str(&text).unwrap();
    let start = &log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"];
    assert!(start.is_u64(), "net log without event types");
    log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == *start)
        .filter(|e| e["params"]["url"].is_string())
        .filter(|e| e["params"]["initiator"] != "not an origin")
        .map(|e| e["params"]["url"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `chromium` on PATH, if any.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file())
}

fn headless(bin: &Path, profile: &Path) -> Command {
    let mut c = Command::new(bin);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        // Any request would have to go through an unreachable proxy, and
        // no host name resolves.
        "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--virtual-time-budget=3000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

#[test]
fn browser_check_in_headless_chromium() {
    let Some(bin) = chromium() else {
        let why = "`chromium` is not on PATH (apt-get install chromium; then \
                   scripts/browser-check.sh)";
        crate::skip::skip(
            "browser_check_in_headless_chromium",
            &format!("needs chromium: {why}"),
            Some("bash .ci/run installs chromium"),
        );
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-check");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    std::fs::write(&page, run_ok(&real_args("html"))).unwrap();
    let url = format!("file://{}", page.display());

    // The DOM after the script ran.
    let netlog = dir.join("netlog.json");
    let o = headless(&bin, &dir.join("profile-dom"))
        .arg(format!("--log-net-log={}", netlog.display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dom = String::from_utf8_lossy(&o.stdout);
    std::fs::write(dir.join("dom.html"), dom.as_bytes()).unwrap();
    for want in [
        "<svg class=\"chart\"",
        "<table class=\"rows\"",
        "<svg class=\"flamegraph\"",
        // Inserted by the page's script: it ran.
        "<div class=\"filter\">",
        "class=\"count\">",
        " rows</span>",
    ] {
        assert!(dom.contains(want), "DOM after scripts lacks {want:?}");
    }
    assert!(
        dom.contains("<html lang=\"en\" class=\" js\">"),
        "script ran"
    );
    // Chromium's net log: no request started by the page. (Chromium's own
    // background requests, update checks and the like, have no initiating
    // origin: "not an origin"; a file:// page's requests have "null".)
    let mine = page_requests(&netlog);
    assert!(mine.is_empty(), "the page made requests: {mine:?}");
    // Control: the same check catches a page that does fetch.
    let control = dir.join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><img src=\"http://example.com/x.png\"><script>fetch('https://example.org/y')</script>",
    )
    .unwrap();
    let control_log = dir.join("control-netlog.json");
    let o = headless(&bin, &dir.join("profile-control"))
        .arg(format!("--log-net-log={}", control_log.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", control.display()))
        .output()
        .unwrap();
    assert!(o.status.success());
    let caught = page_requests(&control_log);
    assert!(
        caught.iter().any(|u| u.starts_with("http://example.com/"))
            && caught.iter().any(|u| u.starts_with("https://example.org/")),
        "the net-log check must see a page's requests: {caught:?}"
    );

    // The screenshot docs/reference.md shows.
    let shot = dir.join("report.png");
    let o = headless(&bin, &dir.join("profile-shot"))
        .arg("--window-size=1200,1900")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000);
    eprintln!("browser check passed; screenshot {}", shot.display());
}

/// perf script with callchains and the folded stacks collapsed from the same
/// recording draw the same flame graph, byte for byte, whatever `--jobs`.
#[test]
fn perf_script_and_folded_stacks_give_one_flame_graph() {
    let svg = |old: &str, new: &str, jobs: &str| {
        super::cli::stdout_of(&[old, new, "-o", "flamegraph", "-j", jobs])
    };
    let script = svg(
        "testdata/perf-script/sockets-g.txt.gz",
        "testdata/perf-script/pipes-g.txt.gz",
        "1",
    );
    let folded = svg(
        "testdata/folded/sockets.folded.gz",
        "testdata/folded/pipes.folded.gz",
        "2",
    );
    assert!(String::from_utf8_lossy(&script).contains("entry_SYSCALL_64_after_hwframe"));
    assert_eq!(script, folded);
    assert_eq!(
        script,
        svg(
            "testdata/perf-script/sockets-g.txt.gz",
            "testdata/perf-script/pipes-g.txt.gz",
            "2"
        )
    );
}

/// A temporary directory for one test, removed first if it is there.
fn scratch(name: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("diffprofile-html", name)
}

/// The real deep samples of `testdata/deep/` (perf script of a recursion
/// about 5,000 and 3,000 frames deep), each chain's recursion frame
/// repeated until the chain has `frames` frames.
fn deepened(path: &str, frames: usize) -> String {
    let text = String::from_utf8(super::cli::gunzip(path)).unwrap();
    let mut out = String::new();
    for sample in text.split("\n\n").filter(|s| !s.trim().is_empty()) {
        let lines: Vec<&str> = sample.lines().collect();
        let rec = lines
            .iter()
            .position(|l| l.contains(" down+0x25 "))
            .expect("a recursion frame");
        let extra = frames.saturating_sub(lines.len() - 1);
        for (i, l) in lines.iter().enumerate() {
            out.push_str(l);
            out.push('\n');
            if i == rec {
                for _ in 0..extra {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        out.push('\n');
    }
    out
}

/// No walk over the call tree recurses (issue 24): a real `perf record -g`
/// chain 5,000 frames deep, the same samples deepened to 100,000 frames
/// (perf script) and a folded stack of 100,000 frames are drawn by
/// `-o html` and `-o flamegraph` (before: stack overflow, SIGABRT), and the
/// graph says that levels below 1,000 are cut.
#[test]
fn callchains_of_100000_frames_are_drawn() {
    let d = scratch("deep");
    let real = |o: &str| {
        run_ok(&[
            "testdata/deep/deep-5000.perf-script.txt.gz".into(),
            "testdata/deep/deep-3000.perf-script.txt.gz".into(),
            "-o".into(),
            o.into(),
        ])
    };
    let svg = String::from_utf8(real("flamegraph")).unwrap();
    assert!(
        svg.contains("<title>down\ninclusive: "),
        "real frames drawn"
    );
    assert!(svg.contains("stacks deeper than 1000 frames cut there"));
    let (old, new) = (d.join("old.txt"), d.join("new.txt"));
    std::fs::write(
        &old,
        deepened("testdata/deep/deep-5000.perf-script.txt.gz", 100_000),
    )
    .unwrap();
    std::fs::write(
        &new,
        deepened("testdata/deep/deep-3000.perf-script.txt.gz", 60_000),
    )
    .unwrap();
    let chain: Vec<String> = (0..100_000).map(|i| format!("f{i}")).collect();
    let (fo, fnew) = (d.join("old.folded"), d.join("new.folded"));
    std::fs::write(&fo, format!("{} 90\nmain;work 10\n", chain.join(";"))).unwrap();
    std::fs::write(&fnew, format!("{} 50\nmain;work 50\n", chain.join(";"))).unwrap();
    for (a, b) in [(&old, &new), (&fo, &fnew)] {
        for o in ["flamegraph", "html"] {
            let out = diffprofile()
                .arg(a)
                .arg(b)
                .args(["-o", o])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{o} of {}: {}",
                a.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let doc = String::from_utf8_lossy(&out.stdout);
            assert!(doc.contains("frame(s) not drawn"), "{o}");
            assert!(doc.matches("<g><title>").count() <= 10_000 + 60);
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Copies of the real readprofile runs (testdata/readprofile/default/
/// {sockets,pipes}/run{1,2,3}.txt) `k` times, as
/// `scripts/synth-many-symbols.py flat` makes them: copy c of symbol s is
/// `s.c` with its count times a factor of its copy (the same on every run),
/// so the real noise and the real change are kept at every scale.
fn many_symbols(dir: &Path, k: usize) {
    let mut seed: u64 = 20261202;
    let factors: Vec<f64> = (0..k)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0).exp()
        })
        .collect();
    for side in ["sockets", "pipes"] {
        std::fs::create_dir_all(dir.join(side)).unwrap();
        for r in 1..=3 {
            let src = format!("testdata/readprofile/default/{side}/run{r}.txt");
            let text = std::fs::read_to_string(src).unwrap();
            let rows: Vec<(f64, &str, &str)> = text
                .lines()
                .filter_map(|l| {
                    let p: Vec<&str> = l.split_whitespace().collect();
                    (p.len() == 3 && p[1] != "total").then(|| (p[0].parse().unwrap(), p[1], p[2]))
                })
                .collect();
            let mut out = String::new();
            let mut total = 0.0;
            for (c, f) in factors.iter().enumerate() {
                for (n, name, load) in &rows {
                    let m = (n * f).round();
                    total += m;
                    out.push_str(&format!("{m:>6} {name}.{c:<30} {load}\n"));
                }
            }
            out.push_str(&format!("{total:>6} total {:>40}\n", "0.0001"));
            std::fs::write(dir.join(side).join(format!("run{r}.txt")), out).unwrap();
        }
    }
}

/// A page of many rows is bounded (issue 24): 2,000 rows of largest |Δ|
/// and every significant row, at most 10,000, the rest counted on the page
/// with a pointer to -o json / -o csv (before: every row, 310 MB at
/// 450,000 symbols); memory stays bounded too.
#[test]
fn html_of_many_symbols_keeps_the_top_rows_and_says_so() {
    let d = scratch("many");
    many_symbols(&d, 80); // 14,240 and 11,920 symbols a side
    let args = |o: &str| {
        let mut c = diffprofile();
        c.arg(d.join("sockets"))
            .arg(d.join("pipes"))
            .args(["-o", o]);
        c
    };
    let (out, rss) =
        super::bounds::run_measured(&mut args("html"), std::time::Duration::from_secs(300))
            .expect("in time");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = String::from_utf8(out.stdout).unwrap();
    let json = diffprofile_json(args("json"));
    let csv = json["rows"].as_array().unwrap().len();
    let shown = page.matches("<tr class=").count();
    assert!(
        (2_000..=10_000).contains(&shown) && shown < csv,
        "{shown} of {csv} rows"
    );
    let note = format!(
        "{shown} of {csv} rows shown: the 2000 largest |\u{394}| and every significant row"
    );
    assert!(page.contains(&note), "no {note:?}");
    assert!(page.contains("For every row use -o json or -o csv"));
    assert!(page.len() < 8 << 20, "page of {} bytes", page.len());
    assert!(rss < 400 << 10, "peak RSS {rss} KiB");
    // The rows kept: the 2,000 largest |Δ| are all there.
    let mut deltas: Vec<(f64, String)> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["delta"].as_f64().unwrap_or(0.0).abs(),
                r["symbol"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    deltas.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (_, sym) in deltas
        .iter()
        .take(2_000)
        .filter(|(v, _)| *v > deltas[2_000].0)
    {
        assert!(page.contains(&format!("<td>{sym}</td>")), "{sym} missing");
    }
    let _ = std::fs::remove_dir_all(&d);
}

fn diffprofile_json(mut c: Command) -> serde_json::Value {
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The page's title names the sides as given (not `OLD vs NEW`), escaped;
/// one far bar (a 45 pp `[unknown]`, as a stripped binary gives) does not
/// set the chart's scale: it is clipped, marked, and the page says so.
#[test]
fn title_names_the_sides_and_one_far_bar_is_clipped() {
    let d = scratch("clip");
    let folded = String::from_utf8(super::cli::gunzip("testdata/folded/pipes.folded.gz")).unwrap();
    let total: f64 = folded
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    let (old, new) = (d.join("v6.1<b>.folded"), d.join("v6.2.folded"));
    std::fs::write(&old, &folded).unwrap();
    std::fs::write(
        &new,
        format!("{folded}[unknown] {}\n", (total * 0.9).round()),
    )
    .unwrap();
    let doc = String::from_utf8(run_ok(&[
        old.display().to_string(),
        new.display().to_string(),
        "-o".into(),
        "html".into(),
    ]))
    .unwrap();
    let title = doc
        .split("<title>")
        .nth(1)
        .unwrap()
        .split("</title>")
        .next()
        .unwrap();
    assert!(
        title.contains("v6.1&lt;b&gt;.folded (1 run) vs ")
            && title.ends_with("v6.2.folded (1 run)"),
        "{title}"
    );
    assert!(!title.contains("OLD"), "{title}");
    let chart = doc.split("<svg class=\"chart\"").nth(1).unwrap();
    let chart = chart.split("</svg>").next().unwrap();
    let unknown = chart
        .split("<g><title>[unknown]")
        .nth(1)
        .expect("[unknown] bar");
    let unknown = unknown.split("</g>").next().unwrap();
    assert!(
        unknown.contains("clipped: beyond the chart&#39;s scale")
            || unknown.contains("clipped: beyond the chart's scale"),
        "{unknown}"
    );
    assert!(unknown.contains("(clipped)") && unknown.contains("class=\"brk\""));
    // One run a side: the new symbol's 45 pp is far beyond the others'
    // common shift (docs/statistics.md §5.4): marked, its interval a
    // share's (within ±100 pp) and clear of 0.
    assert!(unknown.contains(" * (clipped)"), "{unknown}");
    let ci = unknown
        .split("interval [")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap();
    let ci: Vec<f64> = ci.split(", ").map(|b| b.parse().unwrap()).collect();
    assert!(ci[0] > 0.0 && ci[1] <= 100.0, "{ci:?}");
    assert!(
        doc.contains("bar(s) reaching more than 4"),
        "the page says so"
    );
    // The scale is set by the other bars: far below the [unknown] bar's Δ.
    let scale: f64 = chart
        .split("text-anchor=\"end\">+")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!(scale < 20.0, "scale {scale}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `-o html` and `-o flamegraph` to a terminal (a pty, by util-linux
/// `script`) exit 2 with a message that says how to get the page, and
/// write nothing; with -O the page is written.
#[test]
fn html_to_a_terminal_exits_2_and_says_how() {
    if !Path::new("/usr/bin/script").is_file() {
        crate::skip::skip(
            "html_to_a_terminal_exits_2_and_says_how",
            "no /usr/bin/script to give it a terminal (util-linux)",
            Some("apt-get install bsdutils (util-linux's script)"),
        );
        return;
    }
    let bin = assert_cmd_bin();
    for (o, ext) in [("html", "html"), ("flamegraph", "svg")] {
        let cmd = format!(
            "{} testdata/folded/sockets.folded.gz testdata/folded/pipes.folded.gz -o {o}",
            bin.display()
        );
        let out = Command::new("/usr/bin/script")
            .args(["-qefc", &cmd, "/dev/null"])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{o}: {said}");
        assert!(
            said.contains(&format!("-o {o}: not writing"))
                && said.contains(&format!("give -O report.{ext}")),
            "{said}"
        );
        assert!(!said.contains("<svg"), "nothing written: {said}");
    }
}

fn assert_cmd_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_diffprofile"))
}

/// Run in the browser after a page rendered: every frame of every flame
/// graph, its computed fill (what the browser paints, after any CSS) read
/// against the mark and Δ its tooltip states; the result as JSON in
/// `<pre id="marks">`.
const MARK_CHECK: &str = r#"<script>
(function(){
var res={frames:0,red:0,blue:0,grey:0,bad:[]};
document.querySelectorAll('svg.flamegraph > g').forEach(function(g){
  var t=g.querySelector('title'),r=g.querySelector('rect');
  if(!t||!r){return;}
  var text=t.textContent,name=text.split('\n')[0];
  var m=/\nmark: (\*|~|untested)/.exec(text);
  var d=/\ninclusive: [^\n]*? \(([-+]?)[0-9.]+ pp\)/.exec(text);
  var c=getComputedStyle(r).fill.match(/[0-9.]+/g)||[];
  var R=+c[0],G=+c[1],B=+c[2];
  var kind=(R>G+30&&R>B+30)?'red':(B>R+30&&B>G)?'blue':
    (Math.max(R,G,B)-Math.min(R,G,B)<10)?'grey':'other';
  var want='grey';
  if(m&&m[1]==='*'&&d&&d[1]==='+'){want='red';}
  if(m&&m[1]==='*'&&d&&d[1]==='-'){want='blue';}
  res.frames++;res[kind]=(res[kind]||0)+1;
  if(!m||!d||kind!==want){res.bad.push(name+': '+kind+' fill, mark '+(m&&m[1])+', delta sign '+(d&&d[1]));}
});
var pre=document.createElement('pre');pre.id='marks';
pre.textContent=JSON.stringify(res);document.body.appendChild(pre);
})();
</script>"#;

/// The frames' colours agree with their marks in what headless Chromium
/// renders, in `-o html`'s flame graph and in `-o flamegraph`'s SVG, on the
/// committed multi-run callchain recordings: significant frames red (grew)
/// or blue (shrank), every `~` and untested frame grey.
#[test]
fn flame_colours_agree_with_marks_in_headless_chromium() {
    let Some(bin) = chromium() else {
        crate::skip::skip(
            "flame_colours_agree_with_marks_in_headless_chromium",
            "`chromium` is not on PATH (apt-get install chromium)",
            Some(".ci/run installs chromium"),
        );
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-marks");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let page = String::from_utf8(run_ok(&real_args("html"))).unwrap();
    let svg = String::from_utf8(run_ok(&real_args("flamegraph"))).unwrap();
    let svg = svg.split_once("?>\n").map_or(svg.as_str(), |(_, s)| s);
    let check = |name: &str, doc: String| -> serde_json::Value {
        let file = dir.join(format!("{name}.html"));
        std::fs::write(&file, doc).unwrap();
        let o = headless(&bin, &dir.join(format!("profile-{name}")))
            .arg("--dump-dom")
            .arg(format!("file://{}", file.display()))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let dom = String::from_utf8_lossy(&o.stdout);
        let json = dom
            .split("<pre id=\"marks\">")
            .nth(1)
            .and_then(|s| s.split("</pre>").next())
            .unwrap_or_else(|| panic!("{name}: the check did not run"));
        let json = json
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        serde_json::from_str(&json).unwrap()
    };
    let docs = [
        (
            "html",
            page.replace("</body>", &format!("{MARK_CHECK}</body>")),
        ),
        (
            "flamegraph",
            format!("<!DOCTYPE html><html><body>{svg}{MARK_CHECK}</body></html>"),
        ),
    ];
    for (name, doc) in docs {
        let res = check(name, doc);
        let count = |k: &str| res[k].as_u64().unwrap_or(0);
        assert_eq!(
            res["bad"].as_array().map(Vec::len),
            Some(0),
            "{name}: {res}"
        );
        assert!(count("frames") > 300, "{name}: {res}");
        assert!(
            count("red") > 0 && count("blue") > 0 && count("grey") > 0,
            "{name}: {res}"
        );
        eprintln!("{name}: {res}");
    }
    // Control: the check sees what is painted (a style sheet that paints
    // every frame red is caught).
    let red = "<style>svg.flamegraph rect{fill:rgb(214,47,39)!important}</style>";
    let res = check(
        "control",
        page.replace("</body>", &format!("{red}{MARK_CHECK}</body>")),
    );
    let bad = res["bad"].as_array().map_or(0, Vec::len);
    assert!(bad > 300, "the control must fail: {res}");
}
