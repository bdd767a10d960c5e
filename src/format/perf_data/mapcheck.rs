//! Does a kernel map belong to a perf.data recording? The checks that
//! refuse a map of another kernel or boot (unless `--force-map`).
//!
//! Input: the map, what the recording knows about its kernel (the header's
//! release and kernel build-id, the `[kernel.kallsyms]_text` mmap record)
//! and its kernel samples as the map names them. Checks: the reference
//! symbol (`_text`) at the recorded address and `_etext` (or `_edata`) at
//! the end of the recorded kernel mapping ([`map_mismatch`]); the map's own
//! claims, being the running kernel's `/proc/kallsyms` or a release or
//! build-id in its path, against the header ([`identity_mismatch`]); the
//! kernel samples, which must not land in function padding or on recorded
//! kernel text the map names nothing ([`Fit`]). Output ([`judge`]): an
//! error with the reasons, or a warning (under `--force-map`, or for a few
//! doubtful samples).

use super::super::ParseError;
use super::kernel::{hex, recorded_here, running_kernel};
use crate::symmap::{is_padding, name_release, SymbolMap};

/// Why a map does not fit the recording's kernel mapping
/// (`[kernel.kallsyms]_text` with `_text` at `at`, mapped at `start`, `len`
/// bytes long), if it does not: the
/// reference symbol (`_text`) must sit at the recorded address, and the
/// mapping must end where the map's kernel text does (perf records
/// `_etext - _text`, newer perf `_edata - _text`, taken from the kallsyms of
/// the recording kernel).
pub(super) fn map_mismatch(
    map: &SymbolMap,
    reloc: &str,
    at: u64,
    start: u64,
    len: u64,
) -> Option<String> {
    match map.address_of(reloc) {
        Some(a) if a == at => {}
        Some(a) => {
            return Some(format!(
                "the recording's kernel has `{reloc}` at {at:#x}, the map at {a:#x}"
            ))
        }
        None => {
            return Some(format!(
                "the recording's kernel has `{reloc}` at {at:#x}, the map has no `{reloc}`"
            ))
        }
    }
    // Without an end symbol perf maps the kernel up to ~0: no check then.
    let end = start
        .checked_add(len)
        .filter(|&e| len > 0 && e < u64::MAX - 0xfff)?;
    let etext = map.address_of("_etext")?;
    // perf 6.5 and later take `_edata` when kallsyms has it (data symbols).
    let edata = map.address_of("_edata");
    let fits = end == etext || edata == Some(end);
    (!fits).then(|| {
        format!(
            "the recording's kernel text ends at {end:#x} (`[kernel.kallsyms]` mapping of \
             {len:#x} bytes), the map's `_etext` is at {etext:#x}{}",
            match edata {
                Some(d) => format!(" and its `_edata` at {d:#x}"),
                None => String::new(),
            }
        )
    })
}

/// Why a map is not of the recorded kernel, from what the map itself
/// claims: the running kernel's `/proc/kallsyms` (its release and build-id
/// against the header's), a release in its file name (`System.map-6.1.0`,
/// `kallsyms-6.1.0.gz`), or a build-id directory in its path (perf's
/// build-id cache: `~/.debug/[kernel.kallsyms]/<build-id>/kallsyms`).
pub(super) fn identity_mismatch(
    map: &SymbolMap,
    release: Option<&str>,
    build_id: Option<&[u8]>,
) -> Option<String> {
    let path = std::path::Path::new(&map.source);
    if std::fs::canonicalize(path).is_ok_and(|p| p == std::path::Path::new("/proc/kallsyms")) {
        let (run_release, run_id) = running_kernel();
        if let Err(why) =
            recorded_here(release, build_id, run_release.as_deref(), run_id.as_deref())
        {
            return Some(format!(
                "it is the running kernel's /proc/kallsyms, and {why}"
            ));
        }
    }
    if let (Some(named), Some(recorded)) = (name_release(&map.source), release) {
        if named != recorded {
            return Some(format!(
                "its file name says kernel {named}, the recording was made on {recorded}"
            ));
        }
    }
    if let (Some(dir), Some(id)) = (path_build_id(&map.source), build_id) {
        let recorded = hex(id);
        if !recorded.starts_with(&dir) && !dir.starts_with(&recorded) {
            return Some(format!(
                "its path names build-id {dir}, the recording's kernel has build-id {recorded}"
            ));
        }
    }
    None
}

/// A path component of 40 hexadecimal digits (a build-id directory).
fn path_build_id(path: &str) -> Option<String> {
    path.split('/')
        .find(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(|c| c.to_ascii_lowercase())
}

/// Kernel samples counted against what the map makes of them: those that
/// land in function padding, and those at an address of the recorded
/// kernel text that the map names nothing. With the recorded kernel's map
/// there are none; with another kernel's, many.
#[derive(Debug, Default)]
pub(super) struct Fit {
    pub kernel: f64,
    pub padding: f64,
    pub unnamed: f64,
    /// The recorded kernel text, `[start, end)`, from its mmap record.
    pub text: Option<(u64, u64)>,
}

/// What the samples say about the map.
pub(super) enum Verdict {
    Fits,
    /// A few samples in odd places: worth a warning.
    Doubtful(String),
    /// Too many: the map is not the recorded kernel's.
    Wrong(String),
}

impl Fit {
    /// Count one kernel sample: `name` is the symbol the map gives it.
    pub fn add(&mut self, name: Option<&str>, ip: u64, w: f64) {
        self.kernel += w;
        match name {
            Some(n) if is_padding(n) => self.padding += w,
            Some(_) => {}
            None => {
                if self.text.is_some_and(|(a, b)| ip >= a && ip < b) {
                    self.unnamed += w;
                }
            }
        }
    }

    /// Refuse at 10% of the kernel samples (and at least 5): with the
    /// recorded kernel's map there are none, unless the kernel executes its
    /// padding (call-depth tracking thunks, FineIBT's `__cfi_` preambles),
    /// which takes a few instructions per call; a map trimmed to another
    /// kernel's addresses puts most samples there. Fewer are a warning.
    pub fn verdict(&self) -> Verdict {
        let bad = self.padding + self.unnamed;
        if bad <= 0.0 || self.kernel <= 0.0 {
            return Verdict::Fits;
        }
        let share = 100.0 * bad / self.kernel;
        let padding = "in function padding (__pfx_*/__cfi_*)";
        let unnamed = "at addresses of the recorded kernel text that the map names nothing";
        let place = match (self.padding > 0.0, self.unnamed > 0.0) {
            (true, false) => padding.to_string(),
            (false, true) => unnamed.to_string(),
            _ => format!(
                "{padding} ({}) or {unnamed} ({})",
                self.padding, self.unnamed
            ),
        };
        let why = format!(
            "{bad} of {} kernel samples ({share:.1}%) land {place}",
            self.kernel
        );
        if bad >= 5.0 && share >= 10.0 {
            Verdict::Wrong(why)
        } else {
            Verdict::Doubtful(why)
        }
    }
}

/// How the map being judged was given, and what to do instead.
pub(super) struct Judged<'a> {
    /// `--force-map`.
    pub force: bool,
    /// How it was chosen (`--new-kallsyms`, `beside the run`).
    pub origin: &'a str,
    /// The one command that gives the side the right map ([`super::kernel::fix`]).
    pub fix: &'a str,
}

/// The map's sentence once every sample is read: `Ok(Some(warning))`,
/// or an error refusing the map (unless `--force-map`). A recording without
/// kernel samples never needed the map: nothing to say.
pub(super) fn judge(
    map: &SymbolMap,
    fit: &Fit,
    doubts: &[String],
    how: &Judged<'_>,
    origin: &str,
) -> Result<Option<String>, ParseError> {
    if fit.kernel <= 0.0 {
        return Ok(None);
    }
    let mut reasons = doubts.to_vec();
    let verdict = fit.verdict();
    match &verdict {
        Verdict::Wrong(why) => reasons.push(why.clone()),
        Verdict::Doubtful(why) if reasons.is_empty() => {
            return Ok(Some(format!(
                "{origin}: {why}: are the kernel symbols in {} those of the recorded kernel?",
                map.source
            )))
        }
        Verdict::Doubtful(why) => reasons.push(why.clone()),
        Verdict::Fits => {}
    }
    if reasons.is_empty() {
        return Ok(None);
    }
    let reasons = reasons.join("; ");
    if how.force {
        return Ok(Some(format!(
            "{origin}: --force-map: kernel symbols read from {} although they do not seem \
             to belong to this recording ({reasons})",
            map.source
        )));
    }
    let given = match how.origin {
        "" => String::new(),
        o if o.starts_with('-') => format!(" (the map given with {o})"),
        o => format!(" (the map {o})"),
    };
    Err(ParseError::invalid(
        origin,
        format!(
            "the kernel symbols in {} do not belong to this recording: {reasons}{given}, \
             and --force-map would use them anyway; {}",
            map.source, how.fix
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_ids_in_map_paths() {
        let id = "3f2a".repeat(10);
        assert_eq!(
            path_build_id(&format!("/root/.debug/[kernel.kallsyms]/{id}/kallsyms")),
            Some(id)
        );
        assert_eq!(path_build_id("/tmp/kallsyms"), None);
    }

    #[test]
    fn the_map_must_end_where_the_recorded_kernel_text_does() {
        let map = |text: &str| SymbolMap::parse(text.as_bytes(), "m").unwrap();
        let full =
            map("ffffffff81000000 T _text\nffffffff81000100 T f\nffffffff82209988 T _etext\n");
        assert_eq!(
            map_mismatch(
                &full,
                "_text",
                0xffffffff81000000,
                0xffffffff81000000,
                0x1209988
            ),
            None
        );
        let e = map_mismatch(
            &full,
            "_text",
            0xffffffff81000000,
            0xffffffff81000000,
            0x120bb08,
        )
        .unwrap();
        assert!(
            e.contains("ends at 0xffffffff8220bb08") && e.contains("_etext"),
            "{e}"
        );
        let e = map_mismatch(
            &full,
            "_text",
            0xffffffff81200000,
            0xffffffff81200000,
            0x1209988,
        )
        .unwrap();
        assert!(e.contains("at 0xffffffff81000000"), "{e}");
        // No `_etext` (a trimmed map), or a length perf could not compute: no verdict.
        let trimmed = map("ffffffff81000000 T _text\nffffffff81000100 T f\n");
        assert_eq!(
            map_mismatch(
                &trimmed,
                "_text",
                0xffffffff81000000,
                0xffffffff81000000,
                0x120bb08
            ),
            None
        );
        assert_eq!(
            map_mismatch(
                &full,
                "_text",
                0xffffffff81000000,
                0xffffffff81000000,
                u64::MAX - 0xffffffff81000000
            ),
            None
        );
        // With `_edata` in the map, the mapping may end there (newer perf).
        let data =
            map("ffffffff81000000 T _text\nffffffff82209988 T _etext\nffffffff83000000 D _edata\n");
        assert_eq!(
            map_mismatch(
                &data,
                "_text",
                0xffffffff81000000,
                0xffffffff81000000,
                0x2000000
            ),
            None
        );
        assert!(map_mismatch(
            &data,
            "_text",
            0xffffffff81000000,
            0xffffffff81000000,
            0x2000008
        )
        .is_some());
    }

    #[test]
    fn samples_in_padding_condemn_a_map() {
        let mut fit = Fit {
            text: Some((0x1000, 0x2000)),
            ..Fit::default()
        };
        assert!(matches!(fit.verdict(), Verdict::Fits));
        for _ in 0..100 {
            fit.add(Some("do_syscall_64"), 0x1100, 1.0);
        }
        fit.add(Some("__pfx_do_syscall_64"), 0x10f0, 1.0);
        fit.add(None, 0x5000, 1.0); // outside the kernel text: a module, BPF
        assert!(matches!(fit.verdict(), Verdict::Doubtful(_)));
        for _ in 0..8 {
            fit.add(None, 0x1800, 1.0);
        }
        // 9 of 110: 8.2%, still a doubt.
        assert!(matches!(fit.verdict(), Verdict::Doubtful(_)));
        for _ in 0..4 {
            fit.add(None, 0x1800, 1.0);
        }
        match fit.verdict() {
            Verdict::Wrong(why) => assert!(
                why.starts_with("13 of 114 kernel samples (11.4%) land in function padding")
                    && why.ends_with(
                        "(1) or at addresses of the recorded kernel text that the map names \
                         nothing (12)"
                    ),
                "{why}"
            ),
            _ => panic!("13 of 114 samples in padding or unnamed text"),
        }
    }
}
