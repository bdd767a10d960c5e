//! perf.data as perf record leaves it (testdata/perfdata/): recordings
//! without build-ids (`-z`, pipe mode, `--no-buildid`) named as perf
//! report names them, a `cpu-clock:u` recording and a full one whose
//! samples all landed in the kernel compared by their events' scope, a
//! killed recording, damaged compressed records, and two kernels pooled on
//! one side.

use super::cli::{diffprofile, gunzip};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

const D: &str = "testdata/perfdata";
const KALLSYMS: &str = "testdata/perfdata/kallsyms.gz";

/// Run the binary with an empty home (no perf build-id cache: the
/// oracles were made without one).
pub fn run(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    diffprofile()
        .args(args)
        .env("HOME", home.path())
        .env_remove("PERF_BUILDID_DIR")
        .output()
        .unwrap()
}

/// The JSON report of `args` (`-o json` added); it must exit 0.
fn json_of(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// testdata/user/symfs (the binaries these recordings mapped), unpacked.
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
        let to = tmp
            .path()
            .join(f.strip_prefix(root).unwrap().with_extension(""));
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, gunzip(f.to_str().unwrap())).unwrap();
    }
    tmp
}

/// (dso's short name, symbol) → samples.
type Rows = BTreeMap<(String, String), u64>;

fn short(dso: &str) -> String {
    dso.rsplit('/').next().unwrap_or(dso).to_string()
}

/// The user-space rows of a `perf report --sort dso,sym -n` text, with
/// its `0x…` rows (one per address) summed into `[unknown]` per dso.
fn perf_rows(report: &str) -> Rows {
    let re = regex::Regex::new(r"^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[([.kgHu])\] (.*?)\s*$").unwrap();
    let mut rows = Rows::new();
    for line in report.lines().filter(|l| !l.starts_with('#')) {
        let Some(c) = re.captures(line) else { continue };
        if &c[3] != "." {
            continue;
        }
        let name = if c[4].starts_with("0x") {
            "[unknown]"
        } else {
            &c[4]
        };
        *rows
            .entry((c[2].to_string(), name.to_string()))
            .or_default() += c[1].parse::<u64>().unwrap();
    }
    rows
}

/// diffprofile's user-space rows of one recording.
fn our_rows(data: &str, extra: &[&str]) -> (Rows, Vec<String>) {
    let mut args = vec![
        "-n",
        "ticks",
        "--keep-suffixes",
        "--sort",
        "name",
        "--kallsyms",
        KALLSYMS,
    ];
    args.extend(extra);
    args.extend([data, data]);
    let j = json_of(&args);
    let mut rows = Rows::new();
    for r in j["rows"].as_array().unwrap() {
        if r["mode"] != "user" {
            continue;
        }
        let n = r["old_counts"][0].as_f64().unwrap() as u64;
        let key = (
            short(r["dso"].as_str().unwrap_or("[unknown]")),
            r["symbol"].as_str().unwrap().to_string(),
        );
        *rows.entry(key).or_default() += n;
    }
    let warnings = j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    (rows, warnings)
}

/// The rows that differ, less those perf 6.1's PLT naming explains (per
/// dso, our extra `.plt` / `name@plt` samples are perf's extra `_init`,
/// `[unknown]` and `name@plt` ones: README, "Rows that still differ").
fn unexplained(ours: &Rows, perf: &Rows) -> Vec<String> {
    let keys: Vec<&(String, String)> = ours.keys().chain(perf.keys()).collect();
    let get = |m: &Rows, k: &(String, String)| m.get(k).copied().unwrap_or(0);
    let mut out = Vec::new();
    let dsos: std::collections::BTreeSet<&String> = keys.iter().map(|k| &k.0).collect();
    for dso in dsos {
        let differ: Vec<&(String, String)> = keys
            .iter()
            .copied()
            .filter(|k| &k.0 == dso && get(ours, k) != get(perf, k))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let plt = |n: &str| n == ".plt" || n.ends_with("@plt");
        let extra: u64 = differ
            .iter()
            .filter(|k| get(ours, k) > get(perf, k) && plt(&k.1))
            .map(|k| get(ours, k) - get(perf, k))
            .sum();
        let theirs: u64 = differ
            .iter()
            .filter(|k| {
                get(perf, k) > get(ours, k) && (plt(&k.1) || k.1 == "_init" || k.1 == "[unknown]")
            })
            .map(|k| get(perf, k) - get(ours, k))
            .sum();
        if extra > 0
            && extra == theirs
            && differ
                .iter()
                .all(|k| plt(&k.1) || k.1 == "_init" || k.1 == "[unknown]")
        {
            continue;
        }
        out.extend(differ.iter().map(|k| {
            format!(
                "{} {}: ours {} perf {}",
                k.0,
                k.1,
                get(ours, k),
                get(perf, k)
            )
        }));
    }
    out
}

#[test]
fn recordings_without_build_ids_are_named_as_perf_report_names_them() {
    let s = symfs();
    let symfs = s.path().to_str().unwrap();
    // ld-linux's debug file is only under .build-id/ (what its binary's
    // build-id note names) and rustprog's too: without a recorded
    // build-id, the one of the binary on disk finds them, as in perf.
    for r in ["plain", "z", "pipe", "nobid"] {
        let data = format!("{D}/{r}.perf.data.gz");
        let (ours, warnings) = our_rows(&data, &["--symfs", symfs]);
        let perf =
            perf_rows(&String::from_utf8(gunzip(&format!("{D}/{r}.report.txt.gz"))).unwrap());
        let bad = unexplained(&ours, &perf);
        assert!(bad.is_empty(), "{r}: {bad:#?}\n{warnings:#?}");
        let ld = ours
            .keys()
            .filter(|k| k.0 == "ld-linux-x86-64.so.2" && k.1 != "[unknown]")
            .count();
        assert!(ld >= 10, "{r}: {ld} ld-linux names");
        let rust = ours
            .keys()
            .filter(|k| k.0 == "rustprog" && k.1 != "[unknown]")
            .count();
        assert!(rust >= 1, "{r}: {ours:?}");
    }
}

#[test]
fn plain_and_compressed_recordings_of_one_workload_name_the_same_functions() {
    let s = symfs();
    let symfs = s.path().to_str().unwrap();
    let j = json_of(&[
        "--symfs",
        symfs,
        "--kallsyms",
        KALLSYMS,
        &format!("{D}/plain.perf.data.gz"),
        &format!("{D}/z.perf.data.gz"),
    ]);
    // Every ld-linux function either side names, the other names too (with
    // 1,400 samples a side, the rarest ones may miss one side, not the hot
    // ones): nothing gone or new above 10 samples.
    for r in j["rows"].as_array().unwrap() {
        let dso = r["dso"].as_str().unwrap_or("");
        let (old, new) = (
            r["old_counts"][0].as_f64().unwrap(),
            r["new_counts"][0].as_f64().unwrap(),
        );
        if dso.ends_with("ld-linux-x86-64.so.2") && (old == 0.0 || new == 0.0) {
            assert!(
                old + new < 10.0,
                "{} is {} only",
                r["symbol"],
                if old == 0.0 { "new" } else { "old" }
            );
        }
    }
    let w = j["warnings"].to_string();
    assert!(!w.contains("recorded no build-id"), "{w}");
}

#[test]
fn a_binary_on_disk_that_is_not_the_recorded_one_is_said() {
    // ld-linux replaced on "disk" by another binary (cprog-ibt, with its
    // symbols and another build-id): the plain recording, which holds ld-linux's build-id,
    // refuses it; the -z one, which holds none, has only the file on disk.
    let s = symfs();
    let ld = s
        .path()
        .join("usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
    std::fs::copy(s.path().join("tmp/diffprofile-user/bin/cprog-ibt"), &ld).unwrap();
    let symfs = s.path().to_str().unwrap();
    let plain = format!("{D}/plain.perf.data.gz");
    let z = format!("{D}/z.perf.data.gz");
    let j = json_of(&["--symfs", symfs, "--kallsyms", KALLSYMS, &plain, &z]);
    let w: Vec<&str> = j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let hit = w
        .iter()
        .find(|w| w.starts_with("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2: "))
        .unwrap_or_else(|| panic!("{w:#?}"));
    assert!(
        hit.contains(&format!("{z} recorded no build-id for it"))
            && hit.contains("build-id ab39b85c54eef7143948369ff74240ccfc5303f2")
            && hit.contains(&format!(
                "recorded build-id 7ebc65e52f2bbea498b4040fa92f7238377aaba9 ({plain})"
            )),
        "{hit}"
    );
}

/// (symbol, dso) → (old, new) samples.
type Table = BTreeMap<(String, String), (f64, f64)>;

/// The report's rows, its notes, and the whole report.
fn table(args: &[&str]) -> (Table, Vec<String>, serde_json::Value) {
    let mut all = vec!["-n", "ticks"];
    all.extend(args);
    let j = json_of(&all);
    let rows = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let key = (
                r["symbol"].as_str().unwrap().to_string(),
                r["dso"].as_str().unwrap_or("").to_string(),
            );
            (
                key,
                (
                    r["old_counts"][0].as_f64().unwrap(),
                    r["new_counts"][0].as_f64().unwrap(),
                ),
            )
        })
        .collect();
    let notes = j["notes"].as_array().map_or(Vec::new(), |n| {
        n.iter().map(|x| x.as_str().unwrap().to_string()).collect()
    });
    (rows, notes, j)
}

#[test]
fn a_full_recording_with_only_kernel_samples_stays_full() {
    let kernel = format!("{D}/kernel.perf.data.gz");
    let plain = format!("{D}/plain.perf.data.gz");
    let (rows, notes, j) = table(&["--kallsyms", KALLSYMS, &kernel, &plain]);
    assert!(!notes.iter().any(|n| n.starts_with("scope:")), "{notes:?}");
    // NEW keeps its user-space samples: its total is the whole recording.
    assert_eq!(j["sides"][1]["runs"][0]["total"], 1261.0);
    assert!(rows.keys().any(|(_, dso)| dso.ends_with("libc.so.6")));
}

#[test]
fn a_user_space_recording_restricts_a_full_one_to_user_space() {
    let u = format!("{D}/u.perf.data.gz");
    let plain = format!("{D}/plain.perf.data.gz");
    let u_script = format!("{D}/u.perf-script.txt.gz");
    let u_report = format!("{D}/u.report-sym.txt.gz");
    let plain_report = format!("{D}/plain.report-sym.txt.gz");
    for (old, new) in [
        (&u, &plain),
        (&u_script, &plain),
        (&u_report, &plain_report),
        (&plain, &u),
    ] {
        let (rows, notes, _) = table(&["--kallsyms", KALLSYMS, old, new]);
        let note = notes
            .iter()
            .find(|n| n.starts_with("scope: user-space samples only"))
            .unwrap_or_else(|| panic!("{old} {new}: {notes:?}"));
        assert!(
            note.contains("cpu-clock:u runs hold nothing else"),
            "{note}"
        );
        let kernel: Vec<_> = rows
            .iter()
            .filter(|((_, dso), _)| dso == "[kernel.kallsyms]")
            .collect();
        assert!(kernel.is_empty(), "{old} {new}: kernel rows {kernel:?}");
    }
    // Kernel ticks only against user space only: nothing in common.
    let o = run(&["testdata/readprofile/default/sockets/run1.txt", &u]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to compare"), "{}", stderr(&o));
}

#[test]
fn a_killed_recording_is_read_as_far_as_it_goes() {
    let killed = format!("{D}/killed.perf.data.gz");
    let (rows, _, j) = table(&[
        "--kallsyms",
        KALLSYMS,
        "--kernel-only",
        "--keep-suffixes",
        &killed,
        &killed,
    ]);
    let w = j["warnings"].to_string();
    assert!(
        w.contains("not terminated properly (perf record killed?)"),
        "{w}"
    );
    assert_eq!(j["sides"][0]["runs"][0]["total"], 402.0);
    assert_eq!(j["event"], "cpu-clock");
    // perf report of the same file with its data size mended.
    let oracle = String::from_utf8(gunzip(&format!("{D}/killed-sized.report.txt.gz"))).unwrap();
    let re =
        regex::Regex::new(r"^\s*[\d.]+%\s+(\d+)\s+\[kernel\.kallsyms\]\s+\[k\] (\S+)").unwrap();
    let mut n = 0;
    for c in oracle.lines().filter_map(|l| re.captures(l)) {
        let got = rows
            .get(&(c[2].to_string(), "[kernel.kallsyms]".to_string()))
            .map(|r| r.0);
        assert_eq!(got, Some(c[1].parse::<f64>().unwrap()), "{}", &c[2]);
        n += 1;
    }
    assert!(n > 10);
}

/// testdata's `-z` recording with one more compressed record at the end of
/// its data section (the feature sections moved after it): a zstd raw
/// block of `content`, whose header claims `claim` bytes. perf's stream
/// never ends its frame, so a raw block continues it.
fn with_compressed_record(content: &[u8], claim: usize) -> Vec<u8> {
    let b = gunzip(&format!("{D}/z.perf.data.gz"));
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let (offset, size) = (u64_at(&b, 40), u64_at(&b, 48));
    let end = (offset + size) as usize;
    let features: u32 = (0..4).map(|i| u64_at(&b, 72 + 8 * i).count_ones()).sum();
    let mut body = ((claim as u32) << 3).to_le_bytes()[..3].to_vec();
    body.extend_from_slice(content);
    let mut rec = 81u32.to_le_bytes().to_vec();
    rec.extend_from_slice(&0u16.to_le_bytes());
    rec.extend_from_slice(&((8 + body.len()) as u16).to_le_bytes());
    rec.extend_from_slice(&body);
    let mut out = b[..end].to_vec();
    out.extend_from_slice(&rec);
    out.extend_from_slice(&b[end..]);
    out[48..56].copy_from_slice(&(size + rec.len() as u64).to_le_bytes());
    let table = end + rec.len();
    for k in 0..features as usize {
        let at = table + 16 * k;
        let moved = u64_at(&out, at) + rec.len() as u64;
        out[at..at + 8].copy_from_slice(&moved.to_le_bytes());
    }
    out
}

#[test]
fn damaged_compressed_records_are_errors_or_counted_warnings() {
    let dir = tempfile::tempdir().unwrap();
    // A sample record's first bytes: its header claims 40.
    let mut sample = 9u32.to_le_bytes().to_vec();
    sample.extend_from_slice(&2u16.to_le_bytes());
    sample.extend_from_slice(&40u16.to_le_bytes());
    sample.extend_from_slice(&[0; 12]);
    let cases = [
        (
            "leftover",
            with_compressed_record(&sample, sample.len()),
            "its decompressed data ends 20 bytes into an event record of 40 bytes, after \
             2529 whole records: 1 event record (20 bytes) is lost",
        ),
        (
            "cut",
            with_compressed_record(&sample[..10], 64),
            "its zstd data ends inside a block (54 bytes of it missing: the data is cut \
             short)",
        ),
    ];
    for (name, bytes, what) in cases {
        let path = dir.path().join(format!("{name}.data"));
        std::fs::write(&path, &bytes).unwrap();
        let p = path.to_str().unwrap();
        let o = run(&["--kallsyms", KALLSYMS, p, p]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert!(
            e.contains(&format!(
                "{p}: record 12 (compressed) at offset 31695: corrupt perf.data: {what}"
            )) && e.contains("--lenient reads what is left with a warning"),
            "{name}: {e}"
        );
        // --lenient: every whole sample counted, the loss said.
        let j = json_of(&["--lenient", "--kallsyms", KALLSYMS, p, p]);
        assert_eq!(j["sides"][0]["runs"][0]["total"], 1449.0, "{name}");
        let w = j["warnings"].to_string();
        assert!(
            w.contains(&format!(
                "--lenient: record 12 (compressed) at offset 31695 is damaged: {what}"
            )),
            "{name}: {w}"
        );
    }
    // The intact file reads without a word about it.
    let z = format!("{D}/z.perf.data.gz");
    let j = json_of(&["--kallsyms", KALLSYMS, &z, &z]);
    assert!(!j["warnings"].to_string().contains("compressed"));
}

#[test]
fn damaged_compressed_pipe_and_killed_recordings_never_panic() {
    use diffprofile::format::{self, ParseOptions};
    use diffprofile::profile::Format;
    let opts = ParseOptions {
        kallsyms: Some(std::sync::Arc::new(
            diffprofile::symmap::SymbolMap::read_path(KALLSYMS).unwrap(),
        )),
        lenient: true,
        ..ParseOptions::default()
    };
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in ["z", "pipe", "killed"] {
        let bytes = gunzip(&format!("{D}/{name}.perf.data.gz"));
        let mut cases: Vec<Vec<u8>> = [8, 16, 104, 300, 1000, bytes.len() / 2, bytes.len() - 3]
            .iter()
            .map(|&n| bytes[..n.min(bytes.len())].to_vec())
            .collect();
        for _ in 0..60 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 8 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = (next() >> 32) as u8;
            }
            cases.push(b);
        }
        for (i, case) in cases.iter().enumerate() {
            // Ok (a flipped count or period) or an error naming the file,
            // never a panic (which the reader would report as the decoder's).
            if let Err(e) = format::parse(Format::PerfData, &mut &case[..], "bad.data", &opts) {
                let e = e.to_string();
                assert!(e.starts_with("bad.data"), "{name} case {i}: {e}");
                assert!(
                    !e.contains("the record decoder failed"),
                    "{name} case {i}: {e}"
                );
            }
        }
    }
}
