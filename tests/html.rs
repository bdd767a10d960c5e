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
            let tail = &lower[at..(at + 60).min(lower.len())];
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
    let d = std::env::temp_dir().join(format!("diffprofile-html-batch-{}", std::process::id()));
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
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true and the browser check cannot run: {why}"
        );
        eprintln!("SKIPPED browser_check_in_headless_chromium: {why}");
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

    // The screenshot the README shows.
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
