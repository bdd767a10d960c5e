//! Where a mapped binary's symbols come from: the binary, its separate
//! debug file, or perf's build-id cache, found as perf finds them
//! (tools/perf/util/symbol.c `dso__load`, dso.c
//! `dso__read_binary_type_filename`).
//!
//! Input: the path an `MMAP` record names, its recorded build-id (if any)
//! and [`Places`] (`--symfs`, `--debug-dir`, the build-id cache). Output: a
//! [`Found`] with the file whose `.symtab` to read (else `.dynsym`) and the
//! runtime binary (program headers, PLT), or why none fits. Candidates, in
//! perf's order (`S` is `--symfs`, default `/`; every `/usr/lib/debug` path
//! is also tried under each `--debug-dir`):
//!
//! 1. the `.gnu_debuglink` name next to the binary, in its `.debug/`, and
//!    under `S/usr/lib/debug/<dir>/`;
//! 2. the build-id cache, `~/.debug/.build-id/xx/yyyy…` (or its `elf`, or
//!    `vdso` for `[vdso]`), then its `debug`;
//! 3. `S/usr/lib/debug/<path>.debug`, `S/usr/lib/debug/<path>`,
//!    `S/usr/lib/debug/.build-id/xx/yyyy….debug`;
//! 4. `S/<path>` itself, then `S/<dir>/.debug/<name>` and, for
//!    `/usr/lib/…`, `S/usr/lib/debug/lib/…`.
//!
//! A file must be a regular ELF file and carry the build-id that names the
//! binary (a rebuilt binary would give wrong names): the one the recording
//! holds for the path, or, when it holds none (`perf record -z` and pipe
//! mode in perf 6.1, `--no-buildid`), that of the binary on disk, as perf's
//! `dso__load` reads it; the `.build-id/` candidates need it too. The first
//! file with a `.symtab` gives the symbols, the first with a `.dynsym` is
//! the runtime binary; [`Found::build_id`] says which build-id chose them.

use super::elf::{Image, Probe, Why};
use std::path::PathBuf;

/// Where to look, besides the binary's own path.
#[derive(Clone, Debug, Default)]
pub struct Places {
    /// `--symfs DIR`: every path is looked up under this root.
    pub symfs: Option<PathBuf>,
    /// `--debug-dir DIR` (repeatable): laid out like `/usr/lib/debug`.
    pub debug_dirs: Vec<PathBuf>,
    /// perf's build-id cache (`$PERF_BUILDID_DIR`, else `~/.debug`).
    pub buildid_dir: Option<PathBuf>,
}

impl Places {
    /// `path` under `--symfs` (perf joins the two strings).
    fn symfs(&self, path: &str) -> PathBuf {
        match &self.symfs {
            Some(root) => root.join(path.trim_start_matches('/')),
            None => PathBuf::from(path),
        }
    }

    /// The `/usr/lib/debug` roots: under `--symfs`, then every `--debug-dir`.
    fn debug_roots(&self) -> Vec<PathBuf> {
        let mut v = vec![self.symfs("/usr/lib/debug")];
        v.extend(self.debug_dirs.iter().cloned());
        v
    }
}

/// The chosen files: symbols from `images[syms]`, runtime `images[runtime]`.
pub struct Found {
    images: Vec<Image>,
    syms: usize,
    runtime: usize,
    /// The build-id the files were chosen by (the recorded one, else the
    /// binary's on disk), if any.
    pub build_id: Option<Vec<u8>>,
}

impl Found {
    pub fn syms(&self) -> &Image {
        &self.images[self.syms]
    }
    pub fn runtime(&self) -> &Image {
        &self.images[self.runtime]
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The candidate files for `dso`, in perf's order.
fn candidates(dso: &str, build_id: Option<&[u8]>, places: &Places) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let roots = places.debug_roots();
    let (dir, base) = match dso.rfind('/') {
        Some(i) => (&dso[..i], &dso[i + 1..]),
        None => ("", dso),
    };
    let file = is_file_path(dso);
    if file {
        let bin = places.symfs(dso);
        if bin.is_file() {
            if let Some(link) = Image::open(&bin)
                .ok()
                .and_then(|i| i.probe().ok()?.debuglink)
            {
                let bindir = places.symfs(dir);
                out.push(bindir.join(&link));
                out.push(bindir.join(".debug").join(&link));
                for r in &roots {
                    out.push(r.join(dir.trim_start_matches('/')).join(&link));
                }
            }
        }
    }
    let id = build_id.map(hex).filter(|h| h.len() > 2);
    if let (Some(id), Some(cache)) = (&id, &places.buildid_dir) {
        let link = cache.join(".build-id").join(&id[..2]).join(&id[2..]);
        if link.is_file() {
            out.push(link);
        } else {
            out.push(link.join(if dso == "[vdso]" { "vdso" } else { "elf" }));
            out.push(link.join("debug"));
        }
    }
    if !file {
        return out;
    }
    let rel = dso.trim_start_matches('/');
    for r in &roots {
        out.push(r.join(format!("{rel}.debug")));
    }
    for r in &roots {
        out.push(r.join(rel));
    }
    if let Some(id) = &id {
        for r in &roots {
            out.push(
                r.join(".build-id")
                    .join(&id[..2])
                    .join(format!("{}.debug", &id[2..])),
            );
        }
    }
    out.push(places.symfs(dso));
    out.push(places.symfs(dir).join(".debug").join(base));
    if let Some(rest) = dso.strip_prefix("/usr/lib/") {
        for r in &roots {
            out.push(r.join("lib").join(rest));
        }
    }
    out
}

/// The build-id of the binary at `dso` on disk (under `--symfs`), if it is
/// a regular ELF file with one.
fn disk_build_id(dso: &str, places: &Places) -> Option<Vec<u8>> {
    let bin = places.symfs(dso);
    if !is_file_path(dso) || !bin.is_file() {
        return None;
    }
    Image::open(&bin).ok()?.probe().ok()?.build_id
}

/// Find the files that give `dso` its symbols; `recorded` is the build-id
/// the recording holds for it.
pub fn find(dso: &str, recorded: Option<&[u8]>, places: &Places) -> Result<Found, Why> {
    let disk = match recorded {
        Some(_) => None,
        None => disk_build_id(dso, places),
    };
    let build_id = recorded.or(disk.as_deref());
    let mut images = Vec::new();
    let (mut syms, mut runtime) = (None, None);
    let mut mismatched = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for path in candidates(dso, build_id, places) {
        if !seen.insert(path.clone()) || !path.is_file() {
            continue;
        }
        let Ok(img) = Image::open(&path) else {
            continue;
        };
        let Ok(probe) = img.probe() else {
            continue;
        };
        if !same_build_id(build_id, &probe) {
            mismatched.push(img.path.clone());
            continue;
        }
        let s = syms.is_none() && probe.symtab;
        let r = runtime.is_none() && probe.dynsym;
        if !(s || r) {
            continue;
        }
        if s {
            syms = Some(images.len());
        }
        if r {
            runtime = Some(images.len());
        }
        images.push(img);
        if syms.is_some() && runtime.is_some() {
            break;
        }
    }
    match (syms.or(runtime), runtime.or(syms)) {
        (Some(syms), Some(runtime)) => Ok(Found {
            images,
            syms,
            runtime,
            build_id: build_id.map(<[u8]>::to_vec),
        }),
        _ if recorded.is_some() && !mismatched.is_empty() => Err(format!(
            "{dso}: build-id differs from the recorded one in {} (the file changed since \
             the recording)",
            mismatched.join(", ")
        )),
        _ if !is_file_path(dso) => Err(format!("{dso}: not a file")),
        _ if !places.symfs(dso).is_file() => Err(format!(
            "{}: no such file{}",
            places.symfs(dso).display(),
            if recorded.is_some() {
                " and no copy in the build-id cache"
            } else {
                ""
            }
        )),
        _ => Err(format!("{dso}: no symbol table")),
    }
}

/// A path of a file (not `//anon`, `[heap]`, …).
pub fn is_file_path(dso: &str) -> bool {
    dso.starts_with('/') && !dso.starts_with("//")
}

/// When the recording names a build-id, the file must carry the same one
/// (perf pads recorded build-ids to 20 bytes).
fn same_build_id(want: Option<&[u8]>, probe: &Probe) -> bool {
    match (want, probe.build_id.as_deref()) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(want), Some(have)) => {
            let n = want.len().min(have.len());
            want[..n] == have[..n] && want[n..].iter().all(|&b| b == 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_order_follows_perf() {
        let places = Places {
            symfs: Some("/sym".into()),
            debug_dirs: vec!["/dbg".into()],
            buildid_dir: Some("/home/u/.debug".into()),
        };
        let c = candidates("/usr/lib/libx.so", Some(&[0xab, 0xcd, 0xef]), &places);
        let c: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            c,
            [
                "/home/u/.debug/.build-id/ab/cdef/elf",
                "/home/u/.debug/.build-id/ab/cdef/debug",
                "/sym/usr/lib/debug/usr/lib/libx.so.debug",
                "/dbg/usr/lib/libx.so.debug",
                "/sym/usr/lib/debug/usr/lib/libx.so",
                "/dbg/usr/lib/libx.so",
                "/sym/usr/lib/debug/.build-id/ab/cdef.debug",
                "/dbg/.build-id/ab/cdef.debug",
                "/sym/usr/lib/libx.so",
                "/sym/usr/lib/.debug/libx.so",
                "/sym/usr/lib/debug/lib/libx.so",
                "/dbg/lib/libx.so",
            ]
        );
        let c = candidates("[vdso]", Some(&[0xab, 0xcd]), &places);
        assert_eq!(
            c,
            [
                PathBuf::from("/home/u/.debug/.build-id/ab/cd/vdso"),
                PathBuf::from("/home/u/.debug/.build-id/ab/cd/debug")
            ]
        );
        assert!(candidates("//anon", None, &places).is_empty());
    }

    #[test]
    fn build_ids_compare_padded() {
        let p = |b: Option<Vec<u8>>| Probe {
            build_id: b,
            symtab: true,
            dynsym: true,
            debuglink: None,
        };
        assert!(same_build_id(None, &p(None)));
        assert!(!same_build_id(Some(&[1, 2]), &p(None)));
        assert!(same_build_id(Some(&[1, 2, 0, 0]), &p(Some(vec![1, 2]))));
        assert!(!same_build_id(Some(&[1, 3]), &p(Some(vec![1, 2]))));
        assert!(!same_build_id(Some(&[1, 2, 5]), &p(Some(vec![1, 2]))));
    }
}
