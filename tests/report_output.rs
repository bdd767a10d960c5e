//! What reviewers ask for (issue 17): `-O FILE` with the format from its
//! extension, no HTML page dumped on a terminal, help in sections with
//! examples, flame graph views (`--kernel-only`, `--flame-reverse`,
//! `--flame-merge-roots`) and an HTML chart whose colours and intervals
//! agree, as its legend says. Real testdata throughout.

use crate::cli::{diffprofile, stdout_of};
use clap::Parser;
use diffprofile::{app, cli::Cli, config::Config};

const RP: &str = "testdata/readprofile/default";
const PIPES_G: &str = "testdata/perf-script/pipes-g.txt.gz";
const THREADS_G: &str = "testdata/perf-script/threads-g.txt.gz";

fn scratch(name: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("dp-out", name)
}

/// `-O FILE` writes the report there (stdout stays empty), in the format
/// its extension names unless `-o` says otherwise.
#[test]
fn output_file_and_format_from_its_extension() {
    let dir = scratch("ext");
    let sides = [format!("{RP}/pipes"), format!("{RP}/threads")];
    for (file, starts) in [
        ("r.json", "{"),
        ("r.csv", "side,symbol,"),
        ("r.md", "- OLD "),
        ("r.html", "<!DOCTYPE html>"),
        ("r.txt", "OLD "),
        ("r.report", "OLD "),
    ] {
        let path = dir.join(file);
        let p = path.to_str().unwrap();
        let out = stdout_of(&[&sides[0], &sides[1], "-O", p, "--top", "2"]);
        assert!(out.is_empty(), "{file}: nothing on stdout");
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(written.starts_with(starts), "{file}: {}", &written[..40]);
    }
    // -o wins over the extension.
    let path = dir.join("table.html");
    let p = path.to_str().unwrap();
    stdout_of(&[&sides[0], &sides[1], "-O", p, "-o", "classic", "--top", "1"]);
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .ends_with(" total\n"));
    // .svg is the flame graph.
    let svg = dir.join("f.svg");
    stdout_of(&[PIPES_G, THREADS_G, "-O", svg.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<?xml"));
    // An unwritable file is an error naming it.
    let bad = dir.join("no/such/dir/r.json");
    let out = diffprofile()
        .args([&sides[0], &sides[1], "-O", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir/r.json: cannot create"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `-o html` (or flamegraph) to a terminal is an error that says how to
/// get the page (exit 2, nothing written); into a pipe or with `-O` it is
/// written.
#[test]
fn html_is_not_dumped_on_a_terminal() {
    let argv = [
        "diffprofile",
        &format!("{RP}/pipes")[..],
        &format!("{RP}/threads"),
        "-o",
        "html",
    ];
    let config = Config::from_cli(Cli::parse_from(argv)).unwrap();
    let said = format!("{:#}", app::refuse_page(&config, true).unwrap_err());
    assert!(
        said.contains("-o html: not writing an HTML page to the terminal: give -O report.html"),
        "{said}"
    );
    assert!(app::refuse_page(&config, false).is_ok(), "a pipe gets it");
    let to_file =
        Config::from_cli(Cli::parse_from([&argv[..3], &["-O", "x.html"]].concat())).unwrap();
    assert!(app::refuse_page(&to_file, true).is_ok());
    let text = Config::from_cli(Cli::parse_from(&argv[..3])).unwrap();
    assert!(app::refuse_page(&text, true).is_ok());
    let svg = Config::from_cli(Cli::parse_from(
        [&argv[..3], &["-o", "flamegraph"]].concat(),
    ))
    .unwrap();
    let said = format!("{:#}", app::refuse_page(&svg, true).unwrap_err());
    assert!(
        said.contains("-o flamegraph: not writing an SVG image"),
        "{said}"
    );
}

/// `--help` groups the flags in sections, as ripgrep does, and ends with
/// real examples.
#[test]
fn help_is_in_sections_with_examples() {
    let help = String::from_utf8(stdout_of(&["--help"])).unwrap();
    let at = |heading: &str| {
        help.find(&format!("\n{heading}:\n"))
            .unwrap_or_else(|| panic!("no {heading} section:\n{help}"))
    };
    let (inputs, filters, stats, output) = (
        at("Inputs"),
        at("Filters and identity"),
        at("Statistics"),
        at("Output"),
    );
    assert!(inputs < stats && stats < filters && filters < output);
    let section = |flag: &str| {
        let i = help.find(flag).unwrap_or_else(|| panic!("{flag}"));
        [
            ("Inputs", inputs),
            ("Statistics", stats),
            ("Filters", filters),
            ("Output", output),
        ]
        .into_iter()
        .rfind(|(_, start)| *start < i)
        .map(|(name, _)| name)
    };
    assert_eq!(section("--format <FORMAT>"), Some("Inputs"));
    assert_eq!(section("--old <PATH>"), Some("Inputs"));
    assert_eq!(section("--kernel-only"), Some("Filters"));
    assert_eq!(section("--alias <FILE>"), Some("Filters"));
    assert_eq!(section("--normalize <NORMALIZE>"), Some("Statistics"));
    assert_eq!(section("--noise-model <FILE>"), Some("Statistics"));
    assert_eq!(section("--output-file <FILE>"), Some("Output"));
    assert_eq!(section("--flame-merge-roots"), Some("Output"));
    let examples = help.rfind("Examples:").expect("examples");
    assert!(examples > output);
    assert_eq!(
        help[examples..].matches("\n  diffprofile ").count(),
        4,
        "{help}"
    );
}

/// The titles of every frame at the top level of the flame graph SVG.
fn top_frames(svg: &str) -> Vec<String> {
    // Frames are `<g><title>NAME\n...` in drawing order: the root `all`
    // first, then its children (depth first); a child of the root starts
    // at the same x as the root or where its previous sibling ended, at
    // y = the root's y + 16.
    let mut out = Vec::new();
    let mut root_y = None;
    for part in svg.split("<g><title>").skip(1) {
        let name = part.split('\n').next().unwrap_or_default().to_string();
        let y: f64 = part
            .split("y=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0);
        match root_y {
            None => root_y = Some(y),
            Some(r) if (y - r - 16.0).abs() < 0.01 => out.push(name),
            _ => {}
        }
    }
    out
}

/// `--kernel-only` roots every stack at the kernel entry (no user frame
/// left), `--flame-merge-roots` joins the processes' and the threads'
/// trees, `--flame-reverse` puts the leaf functions at the root; the graph
/// says which view it is.
#[test]
fn flame_graph_views() {
    let svg = |extra: &[&str]| {
        String::from_utf8(stdout_of(
            &[&[PIPES_G, THREADS_G, "-o", "flamegraph"][..], extra].concat(),
        ))
        .unwrap()
    };
    let plain = top_frames(&svg(&[]));
    assert!(
        plain.iter().any(|f| f == "__libc_start_call_main"),
        "{plain:?}"
    );
    assert!(plain.iter().any(|f| f == "start_thread"), "{plain:?}");

    let kernel = svg(&["--kernel-only"]);
    assert!(kernel.contains("view: kernel frames only"));
    let top = top_frames(&kernel);
    assert!(
        top.iter().any(|f| f == "entry_SYSCALL_64_after_hwframe"),
        "{top:?}"
    );
    for user in [
        "__libc_start_call_main",
        "start_thread",
        "__GI___libc_write",
        "[unknown]",
    ] {
        assert!(
            !kernel.contains(&format!("<title>{user}\n")),
            "{user} in --kernel-only"
        );
    }

    let merged = svg(&["--flame-merge-roots"]);
    assert!(merged.contains("view: process and thread start frames removed"));
    let top = top_frames(&merged);
    assert!(!top
        .iter()
        .any(|f| f == "start_thread" || f == "__libc_start_call_main"));
    // The program's writes are one frame, on both sides.
    let write = merged
        .split("<g><title>__GI___libc_write\ninclusive: ")
        .nth(1)
        .and_then(|s| s.split(" (").next())
        .unwrap_or_default()
        .to_string();
    let (old, new) = write.split_once(" &#8594; ").unwrap_or_default();
    assert!(
        old != "0.000%" && new != "0.000%" && !old.is_empty(),
        "{write}"
    );

    let reversed = svg(&["--flame-reverse"]);
    assert!(reversed.contains("view: reversed"));
    let top = top_frames(&reversed);
    assert!(
        top.iter().any(|f| f == "_raw_spin_unlock_irqrestore"),
        "{top:?}"
    );
    assert!(!top.iter().any(|f| f == "start_thread"), "{top:?}");
}

/// In the HTML chart a bar is coloured exactly when its interval excludes
/// 0 (the statistics make marks and intervals agree), and the legend says
/// so with the interval's real level, not "95%".
#[test]
fn html_chart_colour_and_interval_agree() {
    let args = [
        &format!("{RP}/pipes")[..],
        &format!("{RP}/threads"),
        "-o",
        "html",
    ];
    let html = String::from_utf8(stdout_of(&args)).unwrap();
    assert!(!html.contains("95% confidence"));
    assert!(html.contains("a bar is coloured exactly when its interval excludes 0"));
    let chart = html.split("<svg class=\"chart\"").nth(1).unwrap();
    let chart = chart.split("</svg>").next().unwrap();
    let zero: f64 = chart
        .split("<line x1=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    let (mut coloured, mut grey) = (0, 0);
    for bar in chart.split("<g><title>").skip(1) {
        let class = bar
            .split("<rect class=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let Some(path) = bar.split("<path class=\"ci\" d=\"M").nth(1) else {
            assert_eq!(class, "untested", "{bar}");
            continue;
        };
        let lo: f64 = path.split(' ').next().unwrap().parse().unwrap();
        let hi: f64 = path
            .split('H')
            .nth(1)
            .unwrap()
            .split('M')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let excludes = lo > zero || hi < zero;
        let is_coloured = class == "worse" || class == "better";
        assert_eq!(
            excludes, is_coloured,
            "{class} bar with interval [{lo}, {hi}], 0 at {zero}"
        );
        if is_coloured {
            coloured += 1;
        } else {
            grey += 1;
        }
    }
    assert!(
        coloured > 0 && grey > 0,
        "both kinds drawn ({coloured}, {grey})"
    );
    let level = html.split("<text x=\"36\"").nth(1).unwrap();
    assert!(
        level.contains("98.0% interval of &#916; (FCR-adjusted)"),
        "{level}"
    );
}
