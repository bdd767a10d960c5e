//! Whole-binary snapshot tests (insta-cmd): exit code, stdout and stderr of
//! the real `diffprofile` on the real testdata, for help, each input format,
//! each output format, several runs per side, errors and the regression gate.

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use std::process::Command;

pub fn diffprofile() -> Command {
    let mut c = Command::new(get_cargo_bin("diffprofile"));
    c.env_remove("NO_COLOR").env("COLUMNS", "100");
    c
}

/// Run the binary with `args`; it must exit 0 (its stderr is shown
/// otherwise). Returns its stdout.
/// Run the binary with `args`.
pub fn run(args: &[&str]) -> std::process::Output {
    diffprofile().args(args).output().unwrap()
}

pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// Exit 2, saying `what` on stderr.
#[track_caller]
pub fn refused(o: &std::process::Output, what: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains(what), "{e}");
}

pub fn stdout_of(args: &[&str]) -> Vec<u8> {
    let out = diffprofile().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The bytes of a gzipped testdata file (a path from the crate root).
pub fn gunzip(path: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(file), &mut bytes)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
}

/// The JSON report of `args` (`-o json` is added).
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_slice(&stdout_of(&all)).unwrap()
}

const RP_OLD: &str = "testdata/readprofile/default/sockets";
const RP_NEW: &str = "testdata/readprofile/default/pipes";
const PR: &str = "testdata/perf-report";

#[test]
fn help() {
    assert_cmd_snapshot!(diffprofile().arg("--help"));
}

#[test]
fn readme_example() {
    assert_cmd_snapshot!(diffprofile().args([
        "testdata/perf-report/sym-n/pipes",
        "testdata/perf-report/sym-n/threads",
        "--top",
        "8"
    ]));
}

/// The README's quick-start output is what the binary prints today.
#[test]
fn readme_shows_the_real_output() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("<!-- readme-example-start -->\n```\n")
        .expect("start marker");
    let body = &readme[start + "<!-- readme-example-start -->\n```\n".len()..];
    let shown = &body[..body
        .find("```\n<!-- readme-example-end -->")
        .expect("end marker")];
    assert!(readme.contains(
        "cargo run --locked -- testdata/readprofile/default/pipes \\\n    testdata/readprofile/default/threads --top 6\n"
    ));
    let out = diffprofile()
        .args([
            "testdata/readprofile/default/pipes",
            "testdata/readprofile/default/threads",
            "--top",
            "6",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        shown,
        "README example is stale"
    );
}

#[test]
fn readprofile_default_one_run_each() {
    assert_cmd_snapshot!(diffprofile().args([
        "testdata/readprofile/default/sockets/run1.txt",
        "testdata/readprofile/default/pipes/run1.txt",
        "--top",
        "5"
    ]));
}

#[test]
fn readprofile_multi_run_wide() {
    assert_cmd_snapshot!(diffprofile().args([RP_OLD, RP_NEW, "--top", "5", "--wide"]));
}

#[test]
fn classic_output() {
    assert_cmd_snapshot!(diffprofile().args([
        "testdata/readprofile/default/sockets/run1.txt",
        "testdata/readprofile/default/pipes/run1.txt",
        "-o",
        "classic"
    ]));
}

#[test]
fn json_output() {
    assert_cmd_snapshot!(diffprofile().args([
        "--old",
        "testdata/perf-report/sym-n/pipes/run1.txt",
        "testdata/perf-report/sym-n/pipes/run2.txt",
        "--new",
        "testdata/perf-report/sym-n/threads/run1.txt",
        "testdata/perf-report/sym-n/threads/run2.txt",
        "-o",
        "json",
        "--top",
        "3"
    ]));
}

#[test]
fn csv_output() {
    assert_cmd_snapshot!(diffprofile().args([RP_OLD, RP_NEW, "-o", "csv", "--top", "4"]));
}

#[test]
fn markdown_output() {
    assert_cmd_snapshot!(diffprofile().args([RP_OLD, RP_NEW, "-o", "markdown", "--top", "4"]));
}

#[test]
fn perf_report_dso_sym() {
    assert_cmd_snapshot!(diffprofile().args([
        &format!("{PR}/dso-sym-n/sockets"),
        &format!("{PR}/dso-sym-n/pipes"),
        "--top",
        "4"
    ]));
}

#[test]
fn perf_report_default_sort_ticks() {
    assert_cmd_snapshot!(diffprofile().args([
        &format!("{PR}/default/sockets"),
        &format!("{PR}/default/pipes"),
        "-n",
        "ticks",
        "--top",
        "4"
    ]));
}

#[test]
fn perf_report_percent_only() {
    assert_cmd_snapshot!(diffprofile().args([
        &format!("{PR}/percent/sockets"),
        &format!("{PR}/percent/pipes"),
        "--top",
        "3"
    ]));
}

#[test]
fn perf_report_percent_limit() {
    assert_cmd_snapshot!(diffprofile().args([
        &format!("{PR}/variants/sockets-percent-limit-1.txt"),
        &format!("{PR}/sym-n/sockets/run2.txt"),
        "--top",
        "3"
    ]));
}

#[test]
fn perf_report_several_events_need_event() {
    assert_cmd_snapshot!(diffprofile().args([
        &format!("{PR}/variants/sockets-multi-event.txt"),
        &format!("{PR}/sym-n/sockets/run1.txt"),
    ]));
}

#[test]
fn perf_report_event_chosen() {
    assert_cmd_snapshot!(diffprofile().args([
        &format!("{PR}/variants/sockets-multi-event.txt"),
        &format!("{PR}/variants/sockets-multi-event.txt"),
        "--event",
        "task-clock",
        "--top",
        "0"
    ]));
}

#[test]
fn missing_file() {
    assert_cmd_snapshot!(diffprofile().args(["no/such/file.txt", RP_NEW]));
}

#[test]
fn malformed_readprofile() {
    assert_cmd_snapshot!(
        diffprofile().args(["testdata/malformed/readprofile-bad-count.txt", RP_NEW])
    );
}

#[test]
fn malformed_readprofile_lenient() {
    assert_cmd_snapshot!(diffprofile().args([
        "testdata/malformed/readprofile-bad-count.txt",
        "testdata/readprofile/default/pipes/run1.txt",
        "--lenient",
        "--top",
        "2"
    ]));
}

#[test]
fn malformed_perf_report() {
    assert_cmd_snapshot!(diffprofile().args(["testdata/malformed/perf-report-bad-row.txt", RP_NEW]));
}

#[test]
fn total_mismatch_is_a_warning() {
    assert_cmd_snapshot!(diffprofile().args([
        "testdata/malformed/readprofile-total-mismatch.txt",
        "testdata/readprofile/default/pipes/run1.txt",
        "-o",
        "classic",
        "--top",
        "2"
    ]));
}

#[test]
fn unknown_format() {
    assert_cmd_snapshot!(diffprofile().args(["testdata/malformed/unknown-format.txt", RP_NEW]));
}

#[test]
fn empty_file() {
    assert_cmd_snapshot!(diffprofile().args(["testdata/malformed/empty.txt", RP_NEW]));
}

#[test]
fn garbage() {
    assert_cmd_snapshot!(diffprofile().args(["testdata/malformed/garbage.bin", RP_NEW]));
}

#[test]
fn truncated_gzip() {
    assert_cmd_snapshot!(diffprofile().args(["testdata/malformed/truncated.txt.gz", RP_NEW]));
}

#[test]
fn one_side_only() {
    assert_cmd_snapshot!(diffprofile().args([RP_OLD]));
}

#[test]
fn regression_gate() {
    assert_cmd_snapshot!(diffprofile().args([
        RP_OLD,
        RP_NEW,
        "-o",
        "csv",
        "--top",
        "1",
        "--fail-on-regression"
    ]));
}

#[test]
fn no_regression_no_failure() {
    // A/A: the same runs on both sides never fail the gate.
    assert_cmd_snapshot!(diffprofile().args([
        "--old",
        "testdata/readprofile/default/pipes/run1.txt",
        "testdata/readprofile/default/pipes/run2.txt",
        "--new",
        "testdata/readprofile/default/pipes/run3.txt",
        "testdata/readprofile/default/pipes/run4.txt",
        "-o",
        "classic",
        "--top",
        "2",
        "--fail-on-regression"
    ]));
}

#[test]
fn stdin_input() {
    let data = std::fs::read("testdata/readprofile/default/pipes/run1.txt").unwrap();
    assert_cmd_snapshot!(diffprofile()
        .args([
            "testdata/readprofile/default/sockets/run1.txt",
            "-",
            "-o",
            "classic",
            "--top",
            "2"
        ])
        .pass_stdin(data));
}

#[test]
fn closed_pipe_is_success() {
    use std::process::Stdio;
    let mut child = diffprofile()
        .args([RP_OLD, RP_NEW, "--wide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once, like `| head -0`
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn color_always_paints_rows_and_never_or_a_pipe_does_not() {
    let args = [
        "testdata/readprofile/default/pipes",
        "testdata/readprofile/default/threads",
        "--top",
        "3",
    ];
    let colored = diffprofile()
        .args(args)
        .args(["--color", "always"])
        .output()
        .unwrap();
    let text = String::from_utf8(colored.stdout).unwrap();
    assert!(
        text.contains("\x1b[1;31m"),
        "significant regression bold red:\n{text}"
    );
    assert!(
        text.contains("\x1b[1;32m"),
        "significant improvement bold green:\n{text}"
    );
    assert!(text.contains("\x1b[0m"));
    // `--color always` wins over NO_COLOR; `auto` into a pipe and `never` are plain.
    let forced = diffprofile()
        .args(args)
        .args(["--color", "always"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(String::from_utf8(forced.stdout).unwrap().contains("\x1b["));
    for extra in [&["--color", "never"][..], &["--color", "auto"][..], &[][..]] {
        let out = diffprofile().args(args).args(extra).output().unwrap();
        assert!(
            !String::from_utf8(out.stdout).unwrap().contains('\x1b'),
            "{extra:?}"
        );
    }
    // Colour never reaches machine formats.
    let json = diffprofile()
        .args(args)
        .args(["--color", "always", "-o", "json"])
        .output()
        .unwrap();
    assert!(!String::from_utf8(json.stdout).unwrap().contains('\x1b'));
}

#[test]
fn use_color_decision() {
    use diffprofile::app::use_color;
    use diffprofile::cli::ColorArg;
    assert!(use_color(ColorArg::Auto, true, false));
    assert!(!use_color(ColorArg::Auto, true, true), "NO_COLOR");
    assert!(!use_color(ColorArg::Auto, false, false), "not a terminal");
    assert!(use_color(ColorArg::Always, false, true));
    assert!(!use_color(ColorArg::Never, true, false));
}

#[test]
fn man_page_and_completions_come_from_the_cli() {
    let man = diffprofile().arg("man").output().unwrap();
    assert_eq!(man.status.code(), Some(0));
    let page = String::from_utf8(man.stdout).unwrap();
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH diffprofile 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    assert!(page.contains("\\-\\-fail\\-on\\-regression"));
    let dir = crate::scratch::Scratch::new("dp-man", "t");
    let out = diffprofile()
        .args(["man", "--out-dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(dir.join("diffprofile.1").exists() && dir.join("diffprofile-batch.1").exists());
    std::fs::remove_dir_all(&dir).ok();
    for shell in ["bash", "zsh", "fish"] {
        let c = diffprofile().args(["completions", shell]).output().unwrap();
        assert_eq!(c.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(c.stdout).unwrap();
        assert!(
            script.contains("normalize") && script.contains("batch"),
            "{shell}"
        );
    }
}

#[test]
fn control_characters_in_names_never_reach_the_terminal() {
    let dir = crate::scratch::Scratch::new("dp-esc", "t");
    std::fs::create_dir_all(&dir).unwrap();
    let evil = dir.join("evil.txt");
    std::fs::write(
        &evil,
        "   500 do_syscall_64                              0.1000\n   300 evil\x1b]0;pwned\x07name  0.2000\n   800 total                                      0.0100\n",
    )
    .unwrap();
    for format in ["text", "classic", "markdown"] {
        let out = diffprofile()
            .args([
                RP_OLD,
                evil.to_str().unwrap(),
                "-o",
                format,
                "--color",
                "never",
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains('\x1b') && !text.contains('\x07'),
            "{format}: raw control characters"
        );
        assert!(
            text.contains("evil\\u{1b}]0;pwned\\u{7}name"),
            "{format}: name escaped:\n{text}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The classic example of docs/reference.md is what the binary prints today.
#[test]
fn readme_classic_example_is_current() {
    let readme = std::fs::read_to_string("docs/reference.md").unwrap();
    let out = diffprofile()
        .args([
            "testdata/readprofile/default/pipes",
            "testdata/readprofile/default/threads",
            "-o",
            "classic",
            "--top",
            "4",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let classic = String::from_utf8(out.stdout).unwrap();
    assert!(
        readme.contains(&format!("```\n{classic}```\n")),
        "docs/reference.md classic example is stale:\n{classic}"
    );
}

/// The header states every run's exposure where it is not the total: the
/// durations under `-n rate` (from perf script timestamps), size factors
/// under `-n robust`.
#[test]
fn header_states_each_runs_exposure() {
    let rate = String::from_utf8(stdout_of(&[
        "testdata/perf-script/pipes.txt.gz",
        "testdata/perf-script/threads.txt.gz",
        "-n",
        "rate",
        "--top",
        "0",
    ]))
    .unwrap();
    assert!(
        rate.contains("1 run, total 4424, duration 1.495 s"),
        "{rate}"
    );
    let robust =
        String::from_utf8(stdout_of(&[RP_OLD, RP_NEW, "-n", "robust", "--top", "0"])).unwrap();
    assert!(robust.contains("size factors 0."), "{robust}");
    let v = json_of(&[RP_OLD, RP_NEW, "-n", "robust"]);
    assert!(v["sides"][0]["runs"][0]["exposure"].is_number());
    // In share mode the exposure is the run's total; in ticks mode 1.
    let run = &json_of(&[RP_OLD, RP_NEW])["sides"][0]["runs"][0];
    assert_eq!(run["exposure"], run["total"]);
    let run = &json_of(&[RP_OLD, RP_NEW, "-n", "ticks"])["sides"][0]["runs"][0];
    assert_eq!(run["exposure"], 1);
}

/// `diffprofile -h` (or the short help of the subcommand a README command
/// runs) lists every option the README's commands use, and every option
/// the README's text names is in some short help: a reader of the README
/// finds them without `--help`'s pages.
#[test]
fn short_help_lists_every_option_the_readme_uses() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let short = |sub: Option<&str>| -> String {
        let mut args: Vec<&str> = sub.into_iter().collect();
        args.push("-h");
        String::from_utf8(stdout_of(&args)).unwrap()
    };
    let subs = ["batch", "history", "noise-model", "export"];
    let flags = |text: &str| -> Vec<String> {
        let re = regex::Regex::new(r"(^|[^\w-])(--[a-z][a-z-]*[a-z])").unwrap();
        re.captures_iter(text).map(|c| c[2].to_string()).collect()
    };
    // The README's commands, continuation lines joined.
    let joined = readme.replace("\\\n", " ");
    let mut checked = 0;
    for line in joined.lines().filter(|l| l.starts_with("diffprofile ")) {
        let sub = line.split_whitespace().nth(1).filter(|w| subs.contains(w));
        let help = short(sub);
        for f in flags(line) {
            assert!(
                help.contains(&f),
                "{f} (in `{line}`) is not in `-h`:\n{help}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 4, "no README command checked");
    // Every option the README names, in some short help (cargo's and
    // perf's own options are not ours).
    let all: String = std::iter::once(None)
        .chain(subs.iter().map(|s| Some(*s)))
        .map(short)
        .collect();
    for f in flags(&readme) {
        if ["--locked", "--path", "--comms"].contains(&f.as_str()) {
            continue;
        }
        assert!(
            all.contains(&format!("{f} ")) || all.contains(&format!("{f}\n")),
            "{f} is in no short help"
        );
    }
}

/// `--comm` says it takes perf's `--comms` list, regexes included, in the
/// short help and in docs/reference.md (which pastes `--help`).
#[test]
fn comm_help_says_it_is_perfs_comms_list() {
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = "perf's --comms list (names or regexes, comma-separated, each matched whole)";
    let short = String::from_utf8(stdout_of(&["-h"])).unwrap();
    assert!(flat(&short).contains(want), "{short}");
    let reference = std::fs::read_to_string("docs/reference.md").unwrap();
    assert!(flat(&reference).contains(want));
}
