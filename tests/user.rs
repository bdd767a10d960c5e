//! User-space names of a real perf.data (testdata/user/): C, C++, Rust and
//! JIT workloads, libc and ld-linux, with the binaries and debug files that
//! name them kept as a `--symfs` tree. perf report's rows for the same file
//! and files (`perf report --symfs`) are in the fixture: diffprofile must
//! give every row the same name and count.

use super::cli::{diffprofile, gunzip};
use diffprofile::format::perf_data::UserSymbolOptions;
use diffprofile::format::{self, ParseOptions};
use diffprofile::profile::{Format, Mode, Profile};
use diffprofile::symmap::SymbolMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const DATA: &str = "testdata/user/user.perf.data.gz";
const JIT: &str = "testdata/user/jit";
/// The recorded paths of the test programs.
const BIN: &str = "tmp/diffprofile-user/bin";

/// The symfs tree, gunzipped into a temporary directory.
fn symfs() -> tempfile::TempDir {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let root = Path::new("testdata/user/symfs");
    let tmp = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    walk(root, &mut files);
    for f in files {
        let rel = f.strip_prefix(root).unwrap().with_extension("");
        let to = tmp.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, gunzip(f.to_str().unwrap())).unwrap();
    }
    tmp
}

fn read(format: Format, path: &str, opts: &ParseOptions) -> Profile {
    let raw = Box::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut input = diffprofile::input::decompress(raw).unwrap().1;
    format::parse(format, &mut *input, path, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// perf.data read with the kernel symbols of its boot and `user`.
fn data(user: UserSymbolOptions) -> Profile {
    let kallsyms = SymbolMap::read_path("testdata/user/kallsyms.gz").unwrap();
    let opts = ParseOptions {
        kallsyms: Some(Arc::new(kallsyms)),
        user,
        ..ParseOptions::default()
    };
    read(Format::PerfData, DATA, &opts)
}

/// A run's warnings and the report's one warning about its unresolved
/// samples (`format::unresolved::summary`), as a user reads them.
fn said(p: &Profile) -> String {
    let mut w = p.warnings.clone();
    w.extend(diffprofile::format::unresolved::summary(&[p], true));
    w.join("\n")
}

fn with_symfs(dir: &Path) -> UserSymbolOptions {
    UserSymbolOptions {
        symfs: Some(dir.to_path_buf()),
        jit_map_dirs: vec![JIT.into()],
        ..UserSymbolOptions::default()
    }
}

/// The pid of the JIT workload: its map is `testdata/user/jit/perf-PID.map`.
fn jit_pid() -> String {
    let e = std::fs::read_dir(JIT).unwrap().next().unwrap().unwrap();
    let name = e.file_name().into_string().unwrap();
    name["perf-".len()..name.len() - ".map".len()].to_string()
}

/// perf's short name of a dso: the file name; `[JIT] tid N` for JIT code.
fn short(dso: &str) -> String {
    if let Some(pid) = dso
        .strip_prefix("/tmp/perf-")
        .and_then(|s| s.strip_suffix(".map"))
    {
        return format!("[JIT] tid {pid}");
    }
    dso.rsplit('/').next().unwrap_or(dso).to_string()
}

type Rows = BTreeMap<(String, String), f64>;

/// (short dso, name) → count, of the rows in `modes`.
fn rows(p: &Profile, kernel: bool) -> Rows {
    let mut out = Rows::new();
    for (k, &c) in &p.counts {
        if (k.mode == Some(Mode::Kernel)) == kernel {
            let dso = short(k.dso.as_deref().unwrap_or("[unknown]"));
            *out.entry((dso, k.name.to_string())).or_default() += c;
        }
    }
    out
}

fn of(rows: &Rows, dso: &str) -> Vec<String> {
    rows.keys()
        .filter(|k| k.0 == dso)
        .map(|k| k.1.clone())
        .collect()
}

/// perf 6.1's PLT names differ from today's perf (6.3 and later), which
/// diffprofile follows: 6.1 has no `.plt` symbol for the lazy-binding
/// header (its samples are unresolved), no `.plt.sec`/`.plt.got` entries,
/// names `.rela.plt` entries in relocation order (x86 ifunc relocations are
/// out of order: libc's entries are shifted), and a zero-size `_init`
/// reaches over the PLT, where its symbol tree may find `_init` before the
/// entry (6.3 cuts `_init` at the PLT). So samples diffprofile names
/// `.plt` or `name@plt` (checked against objdump's labels,
/// testdata/user/plt.txt) may be `_init`, `[unknown]` or another `@plt` in
/// perf 6.1's rows of the same dso: those excesses are taken out of the
/// comparison when they balance exactly.
fn plt_rules(mut ours: Rows, mut perf: Rows) -> (Rows, Rows) {
    let labels = std::fs::read_to_string("testdata/user/plt.txt").unwrap();
    let plt = |n: &str| n == ".plt" || n.ends_with("@plt");
    let dsos: std::collections::BTreeSet<String> = ours.keys().map(|k| k.0.clone()).collect();
    for dso in dsos {
        let mut extra = 0.0;
        for (k, c) in ours.iter_mut() {
            let theirs = perf.get(k).copied().unwrap_or(0.0);
            if k.0 == dso && plt(&k.1) && *c > theirs {
                if k.1 != ".plt" && labels.contains(&format!("==> {dso}\n")) {
                    assert!(
                        labels.contains(&format!("<{}>:", k.1)),
                        "{k:?}: not a PLT label"
                    );
                }
                extra += *c - theirs;
                *c = theirs;
            }
        }
        for (k, c) in perf.iter_mut() {
            let mine = ours.get(k).copied().unwrap_or(0.0);
            if k.0 == dso && (plt(&k.1) || k.1 == "_init" || k.1 == "[unknown]") && *c > mine {
                let take = (*c - mine).min(extra);
                *c -= take;
                extra -= take;
            }
        }
        assert_eq!(
            extra, 0.0,
            "{dso}: PLT samples that perf 6.1 does not have elsewhere"
        );
    }
    ours.retain(|_, c| *c > 0.0);
    perf.retain(|_, c| *c > 0.0);
    (ours, perf)
}

#[test]
fn every_user_row_equals_perf_report_with_the_same_files() {
    let dir = symfs();
    let ours = data(with_symfs(dir.path()));
    let report = read(
        Format::PerfReport,
        "testdata/user/user.report.txt.gz",
        &ParseOptions::default(),
    );
    assert_eq!(ours.total, report.total);
    let (mine, perf) = plt_rules(rows(&ours, false), rows(&report, false));
    assert!(mine.len() > 40, "{} user rows", mine.len());
    assert_eq!(mine, perf);
    // What the rows show: names from a debug file found by .gnu_debuglink
    // (cprog), in .debug/ (cxxprog), by build-id (rustprog, ld-linux),
    // demangled C++ and Rust (legacy and v0), PLT entries, JIT code.
    let cxx = of(&mine, "cxxprog");
    assert!(
        cxx.iter().any(|n| n.starts_with("std::__introsort_loop<")),
        "{cxx:?}"
    );
    assert!(cxx.iter().any(|n| n == "memcpy@plt"), "{cxx:?}");
    assert!(of(&mine, "cprog").contains(&"checksum.constprop.0".to_string()));
    let area = "<rustprog::Circle as rustprog::Shape>::area".to_string();
    assert!(of(&mine, "rustprog").contains(&area));
    assert!(of(&mine, "rustprog-v0").contains(&area));
    assert!(of(&mine, "rustprog-v0").contains(&"rustprog::sum_squares::<u32>".to_string()));
    assert!(of(&mine, "ld-linux-x86-64.so.2").len() > 5);
    // One JIT dso name whatever the pid (/tmp/perf-PID.map, literally).
    assert_eq!(of(&mine, "[JIT] tid PID"), ["jit_hot_loop"]);
    // libc is not in the symfs: unresolved in both, one row.
    assert_eq!(of(&mine, "libc.so.6"), ["[unknown]"]);
    // perf report had no kernel symbols: its kernel rows are unresolved.
    let kernel = |p: &Profile| rows(p, true).values().sum::<f64>();
    assert_eq!(kernel(&ours), kernel(&report));
    assert!(said(&ours).contains("libc.so.6"), "{}", said(&ours));
}

#[test]
fn perf_script_perf_report_and_perf_data_agree_on_unresolved_samples() {
    // perf script and perf report of the same file and symfs: every row,
    // kernel included, with unresolved addresses as [unknown] per dso.
    let script = read(
        Format::PerfScript,
        "testdata/user/user.perf-script.txt.gz",
        &ParseOptions::default(),
    );
    let report = read(
        Format::PerfReport,
        "testdata/user/user.report.txt.gz",
        &ParseOptions::default(),
    );
    let all = |p: &Profile| {
        let mut r = rows(p, false);
        r.extend(rows(p, true));
        r
    };
    assert_eq!(all(&script), all(&report));
    let libc = ("libc.so.6".to_string(), "[unknown]".to_string());
    assert!(all(&script)[&libc] > 100.0);
    // perf.data without any of the files (an empty symfs): every user
    // sample is [unknown] in its dso, each dso with all its samples.
    let empty = tempfile::tempdir().unwrap();
    let none = data(UserSymbolOptions {
        symfs: Some(empty.path().to_path_buf()),
        ..UserSymbolOptions::default()
    });
    let per_dso = |r: &Rows| {
        let mut m: BTreeMap<String, f64> = BTreeMap::new();
        for (k, c) in r {
            *m.entry(k.0.clone()).or_default() += c;
        }
        m
    };
    let ours = rows(&none, false);
    assert_eq!(per_dso(&ours), per_dso(&rows(&report, false)));
    let jit_map_here = Path::new(&format!("/tmp/perf-{}.map", jit_pid())).exists();
    for k in ours.keys() {
        assert!(
            k.1 == "[unknown]" || (jit_map_here && k.0.starts_with("[JIT]")),
            "{k:?}"
        );
    }
    let w = diffprofile::format::unresolved::summary(&[&none], true).unwrap_or_default();
    assert!(
        w.contains("not resolved to a symbol, counted as [unknown]"),
        "{w}"
    );
}

#[test]
fn debug_files_by_build_id_from_debug_dir_or_build_id_cache() {
    let base = rows(&data(with_symfs(symfs().path())), false);
    // rustprog is stripped; its debug file is found by build-id only. (A
    // binary's table is built once per process and symfs: this is another
    // symfs, changed before it is read.)
    let dir = symfs();
    let ids = dir.path().join("usr/lib/debug/.build-id/79");
    let debug = std::fs::read_dir(&ids)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let name = debug.file_name().unwrap().to_str().unwrap().to_string();
    let bytes = std::fs::read(&debug).unwrap();
    std::fs::remove_file(&debug).unwrap();
    let gone = data(with_symfs(dir.path()));
    assert_eq!(of(&rows(&gone, false), "rustprog"), ["[unknown]"]);
    let w = said(&gone);
    assert!(
        w.contains(&format!("/{BIN}/rustprog")) && w.contains("--debug-dir"),
        "{w}"
    );
    // --debug-dir: laid out like /usr/lib/debug.
    let extra = tempfile::tempdir().unwrap();
    let at = extra.path().join(".build-id/79");
    std::fs::create_dir_all(&at).unwrap();
    std::fs::write(at.join(&name), &bytes).unwrap();
    let user = UserSymbolOptions {
        debug_dirs: vec![extra.path().to_path_buf()],
        ..with_symfs(dir.path())
    };
    assert_eq!(rows(&data(user), false), base);
    // perf's build-id cache: ~/.debug/.build-id/xx/yyyy/debug.
    let cache = tempfile::tempdir().unwrap();
    let at = cache
        .path()
        .join(".build-id/79")
        .join(name.trim_end_matches(".debug"));
    std::fs::create_dir_all(&at).unwrap();
    std::fs::write(at.join("debug"), &bytes).unwrap();
    let user = UserSymbolOptions {
        buildid_dir: Some(cache.path().to_path_buf()),
        ..with_symfs(dir.path())
    };
    assert_eq!(rows(&data(user), false), base);
}

#[test]
fn a_file_with_another_build_id_is_not_used() {
    let dir = symfs();
    // cprog and its debug file replaced by another program: names would
    // be wrong, so its samples stay [unknown] and the warning says why.
    let bin = dir.path().join(BIN);
    std::fs::copy(bin.join("jitprog"), bin.join("cprog")).unwrap();
    std::fs::copy(bin.join("jitprog"), bin.join("cprog.debug")).unwrap();
    let p = data(with_symfs(dir.path()));
    assert_eq!(of(&rows(&p, false), "cprog"), ["[unknown]"]);
    let w = said(&p);
    assert!(w.contains("build-id differs"), "{w}");
}

#[test]
fn no_demangle_keeps_linker_names() {
    let dir = symfs();
    let user = UserSymbolOptions {
        no_demangle: true,
        ..with_symfs(dir.path())
    };
    let raw = rows(&data(user), false);
    let names = |dso: &str| of(&raw, dso);
    assert!(names("cxxprog")
        .iter()
        .any(|n| n.starts_with("_ZSt16__introsort_loop")));
    assert!(names("rustprog")
        .iter()
        .any(|n| n.starts_with("_ZN52_$LT$rustprog..Circle")));
    assert!(names("rustprog-v0")
        .iter()
        .any(|n| n.starts_with("_RNvXCs")));
    // Same rows per dso, only the names differ.
    let per_dso = |r: &Rows| {
        let mut m: BTreeMap<String, f64> = BTreeMap::new();
        for (k, c) in r {
            *m.entry(k.0.clone()).or_default() += c;
        }
        m
    };
    let demangled = rows(&data(with_symfs(dir.path())), false);
    assert_eq!(per_dso(&raw), per_dso(&demangled));
}

#[test]
fn jit_code_needs_its_map() {
    let pid = jit_pid();
    if Path::new(&format!("/tmp/perf-{pid}.map")).exists() {
        crate::skip::skip(
            "jit_code_needs_its_map",
            &format!("/tmp/perf-{pid}.map exists here"),
            None,
        );
        return;
    }
    let dir = symfs();
    let user = UserSymbolOptions {
        jit_map_dirs: Vec::new(),
        ..with_symfs(dir.path())
    };
    let p = data(user);
    assert_eq!(of(&rows(&p, false), "[JIT] tid PID"), ["[unknown]"]);
    let w = said(&p);
    let missing = format!("/tmp/perf-{pid}.map: no such file");
    assert!(w.contains(&missing) && w.contains("--jit-map-dir"), "{w}");
}

#[test]
fn command_line_flags_reach_the_reader() {
    let dir = symfs();
    let sym = dir.path().to_str().unwrap();
    let out = diffprofile()
        .args(["-o", "json", "-n", "ticks", "--keep-suffixes"])
        .args(["--kallsyms", "testdata/user/kallsyms.gz", "--symfs", sym])
        .args(["--jit-map-dir", JIT, "--no-demangle", DATA, DATA])
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["symbol"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"jit_hot_loop"), "{names:?}");
    assert!(names
        .iter()
        .any(|n| n.starts_with("_ZSt16__introsort_loop")));
    let out = diffprofile()
        .args(["--symfs", "/nonexistent/symfs", DATA, DATA])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--symfs /nonexistent/symfs: not a directory"),
        "{err}"
    );
}

/// The system's libc and ld-linux with Debian's libc6-dbg debug files, as
/// perf report named them on the recording machine (no --symfs): only where
/// this machine has the recorded libc (same build-ids).
#[test]
fn system_libc_and_ld_linux_names_from_libc6_dbg() {
    let versions = std::fs::read_to_string("testdata/user/VERSIONS.txt").unwrap();
    let skip = |why: String| {
        crate::skip::skip(
            "system_libc_and_ld_linux_names_from_libc6_dbg",
            &why,
            Some(".ci/run installs libc6-dbg; a newer libc needs `bash scripts/testdata-user.sh testdata`"),
        );
    };
    for (path, line) in [
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", "libc:"),
        (
            "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            "ld-linux:",
        ),
    ] {
        let want = versions
            .lines()
            .find(|l| l.starts_with(line))
            .and_then(|l| l.rsplit(' ').next())
            .unwrap();
        let have = std::fs::read(path).ok().and_then(|b| {
            let f = object::File::parse(&*b).ok()?;
            let id = object::Object::build_id(&f).ok()??;
            Some(id.iter().map(|b| format!("{b:02x}")).collect::<String>())
        });
        if have.as_deref() != Some(want) {
            return skip(format!("{path} is not the recorded one (build-id {want})"));
        }
        let debug = format!(
            "/usr/lib/debug/.build-id/{}/{}.debug",
            &want[..2],
            &want[2..]
        );
        if !Path::new(&debug).is_file() {
            return skip(format!(
                "{debug} missing: the libc6-dbg package is not installed"
            ));
        }
    }
    let ours = rows(&data(UserSymbolOptions::default()), false);
    let report = read(
        Format::PerfReport,
        "testdata/user/user.system-report.txt.gz",
        &ParseOptions::default(),
    );
    let (ours, perf) = plt_rules(ours, rows(&report, false));
    let pick = |r: &Rows| -> Rows {
        r.iter()
            .filter(|(k, _)| k.0 == "libc.so.6" || k.0 == "ld-linux-x86-64.so.2")
            .map(|(k, c)| (k.clone(), *c))
            .collect()
    };
    assert_eq!(pick(&ours), pick(&perf));
    let libc = of(&ours, "libc.so.6");
    // Names only the debug file has, and a symbol version kept as perf does.
    assert!(libc.contains(&"__GI___libc_write".to_string()), "{libc:?}");
    assert!(libc.iter().any(|n| n.contains("@@GLIBC_")), "{libc:?}");
    assert!(of(&ours, "ld-linux-x86-64.so.2").contains(&"_dl_relocate_object".to_string()));
}

/// A perf report names a dso by its file name (`libc.so.6`), perf script
/// and perf.data by its path: a recording compared with its own report has
/// every row on both sides, with the same count.
#[test]
fn a_report_and_its_own_recording_have_the_same_rows() {
    use diffprofile::aggregate::{build, Side};
    use diffprofile::identity::Identity;
    let dir = symfs();
    let report = read(
        Format::PerfReport,
        "testdata/user/user.report.txt.gz",
        &ParseOptions::default(),
    );
    let script = read(
        Format::PerfScript,
        "testdata/user/user.perf-script.txt.gz",
        &ParseOptions::default(),
    );
    let identity = Identity {
        fold: true,
        ..Identity::default()
    };
    for other in [script, data(with_symfs(dir.path()))] {
        let sides = [
            Side::new("old", vec![report.clone()]),
            Side::new("new", vec![other]),
        ];
        let m = build(&sides, &identity);
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        // (perf.data is read with kernel symbols, the report had none)
        let user = m.symbols.iter().enumerate();
        let user: Vec<_> = user.filter(|(_, s)| s.mode == Some(Mode::User)).collect();
        assert!(user.len() > 10);
        for (i, s) in user {
            let (old, new) = (m.counts[0][0][i], m.counts[1][0][i]);
            assert_eq!(old, new, "{} [{:?}]", s.ident.name, s.ident.dso);
        }
        let libc = m.symbols.iter().find(|s| {
            s.ident.name == "[unknown]" && s.ident.dso.is_some_and(|d| d.ends_with("/libc.so.6"))
        });
        assert!(libc.is_some(), "libc's row has its path");
    }
}
