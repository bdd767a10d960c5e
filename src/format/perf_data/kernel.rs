//! Which kernel symbols a perf.data file is read with.
//!
//! Input: the map given for its side or for every side (`--new-kallsyms`,
//! `--kallsyms`, …: `ParseOptions::kallsyms`), the maps beside the file
//! (`ParseOptions::beside`), the recording's release and kernel build-id
//! (perf.data header), the running kernel's (`/proc/sys/kernel/osrelease`,
//! the GNU build-id note of `/sys/kernel/notes`). Output: the
//! [`SymbolMap`] to use and how it was chosen, in that order of
//! precedence, or an error naming the kernel the file needs and the one
//! command that gives it ([`fix`]). `/proc/kallsyms` is used only for a
//! recording of the running kernel (same release, and same build-id when
//! both are known). Whether a map belongs to the recording is checked in
//! [`super::mapcheck`].

use super::super::ParseOptions;
use crate::symmap::{Reader, SymbolMap};
use std::sync::{Arc, OnceLock};

/// The running kernel's release and build-id, for the `/proc/kallsyms` default.
pub(super) fn running_kernel() -> (Option<String>, Option<Vec<u8>>) {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string());
    let build_id = std::fs::read("/sys/kernel/notes")
        .ok()
        .and_then(|n| gnu_build_id(&n));
    (release, build_id)
}

/// The `NT_GNU_BUILD_ID` note of an ELF note section (native byte order).
fn gnu_build_id(notes: &[u8]) -> Option<Vec<u8>> {
    let word = |at: usize| -> Option<usize> {
        let b = notes.get(at..at + 4)?;
        Some(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let align = |n: usize| n.checked_add(3).map(|n| n & !3);
    let mut at = 0;
    while at + 12 <= notes.len() {
        let (namesz, descsz, kind) = (word(at)?, word(at + 4)?, word(at + 8)?);
        let name_at = at + 12;
        let desc_at = name_at.checked_add(align(namesz)?)?;
        let end = desc_at.checked_add(align(descsz)?)?;
        if kind == 3 && notes.get(name_at..name_at + namesz)? == b"GNU\0" {
            return Some(notes.get(desc_at..desc_at + descsz)?.to_vec());
        }
        at = end;
    }
    None
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `/proc/kallsyms`, read once per process (the running kernel's symbols
/// do not change while it runs).
fn proc_kallsyms() -> Result<Arc<SymbolMap>, String> {
    static MAP: OnceLock<Result<Arc<SymbolMap>, String>> = OnceLock::new();
    MAP.get_or_init(|| {
        let map = SymbolMap::read_path("/proc/kallsyms").map_err(|e| format!("{e:#}"))?;
        if map.all_zero() {
            return Err(
                "/proc/kallsyms shows only zero addresses (kptr_restrict): run as root".into(),
            );
        }
        Ok(Arc::new(map))
    })
    .clone()
}

/// How the kernel map was chosen, as the header says it (a map beside the
/// run says it itself, [`crate::symmap::Beside::choose_said`]).
pub(super) const RUNNING: &str = "the running kernel's";

/// The kernel symbols to use and how they were chosen, or why there are
/// none (an error only once a kernel sample needs them).
pub(super) fn kernel_symbols(
    opts: &ParseOptions,
    release: Option<&str>,
    build_id: Option<&[u8]>,
) -> Result<(Arc<SymbolMap>, String), String> {
    if let Some(map) = &opts.kallsyms {
        let how = opts.map_origin.as_deref().unwrap_or("--kallsyms");
        return Ok((map.clone(), how.to_string()));
    }
    let (run_release, run_id) = running_kernel();
    let here = recorded_here(release, build_id, run_release.as_deref(), run_id.as_deref());
    let mut passed = String::new();
    if let Some(beside) = &opts.beside {
        match beside.choose_said(Reader::PerfData, release) {
            Ok(Some((map, how))) => return Ok((map, how)),
            Ok(None) => {
                passed = format!(
                    " (the maps beside it name other kernels: {})",
                    beside.names().join(", ")
                )
            }
            Err(e) => return Err(format!("{e}; {}", fix(opts, release, build_id, false))),
        }
    }
    if let Err(why) = here {
        return Err(format!(
            "kernel samples need the kallsyms of the kernel it was recorded on: {why}{passed}; {}",
            fix(opts, release, build_id, false)
        ));
    }
    let map =
        proc_kallsyms().map_err(|e| format!("{e}; {}", fix(opts, release, build_id, false)))?;
    Ok((map, RUNNING.to_string()))
}

/// The one command that gives this recording's side its kernel map:
/// `/proc/kallsyms` when the recorded kernel is the running one, else a
/// copy of the recorded kernel's, named by its release or build-id;
/// `instead` when the side's own flag gave the map being refused.
pub(super) fn fix(
    opts: &ParseOptions,
    release: Option<&str>,
    build_id: Option<&[u8]>,
    instead: bool,
) -> String {
    let (run_release, run_id) = running_kernel();
    let here = recorded_here(release, build_id, run_release.as_deref(), run_id.as_deref()).is_ok();
    let (file, what) = if here && proc_kallsyms().is_ok() {
        (
            "/proc/kallsyms".to_string(),
            "the recorded kernel is the one running".to_string(),
        )
    } else {
        let what = match (release, build_id) {
            (Some(r), _) => {
                format!("a copy of /proc/kallsyms saved while running {r}, or its System.map")
            }
            (None, Some(b)) => format!(
                "the kallsyms or System.map of the kernel with build-id {}",
                hex(b)
            ),
            (None, None) => "the kallsyms or System.map of the kernel it was recorded on".into(),
        };
        ("FILE".to_string(), what)
    };
    opts.advice.give(Reader::PerfData, &file, &what, instead)
}

/// Ok when a recording of kernel `release` / `build_id` was made on the
/// running kernel (`run_release` / `run_id`): same release, and the same
/// build-id when both are known. Otherwise the error says what differs.
pub(super) fn recorded_here(
    release: Option<&str>,
    build_id: Option<&[u8]>,
    run_release: Option<&str>,
    run_id: Option<&[u8]>,
) -> Result<(), String> {
    let recorded = match (release, build_id) {
        (Some(r), Some(b)) => format!("{r} (build-id {})", hex(b)),
        (Some(r), None) => r.to_string(),
        (None, Some(b)) => format!("build-id {}", hex(b)),
        (None, None) => "an unknown kernel (no release or build-id in the header)".to_string(),
    };
    let same_release = release.is_some() && release == run_release;
    let same_id = match (build_id, run_id) {
        (Some(a), Some(b)) => a[..a.len().min(b.len())] == *b,
        _ => true,
    };
    if !(same_release && same_id) {
        return Err(format!(
            "the recording was made on {recorded}, this machine runs {}{}",
            run_release.unwrap_or("an unknown kernel"),
            match run_id {
                Some(id) if !same_id => format!(" (build-id {})", hex(id)),
                _ => String::new(),
            }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_kallsyms_only_for_the_recording_kernel() {
        let id: &[u8] = &[0xab; 20];
        assert!(recorded_here(Some("6.1.0"), Some(id), Some("6.1.0"), Some(id)).is_ok());
        assert!(recorded_here(Some("6.1.0"), None, Some("6.1.0"), Some(id)).is_ok());
        let e = recorded_here(Some("6.1.0"), Some(id), Some("6.18.44"), Some(id)).unwrap_err();
        assert!(
            e.contains("made on 6.1.0 (build-id abab") && e.contains("runs 6.18.44"),
            "{e}"
        );
        // Same release, rebuilt kernel.
        let e = recorded_here(Some("6.1.0"), Some(id), Some("6.1.0"), Some(&[1; 20])).unwrap_err();
        assert!(e.contains("build-id"), "{e}");
        assert!(recorded_here(None, None, Some("6.1.0"), None).is_err());
    }

    #[test]
    fn build_id_note() {
        let mut n = Vec::new();
        for w in [4u32, 3, 1] {
            n.extend_from_slice(&w.to_ne_bytes());
        }
        n.extend_from_slice(b"Xen\0\x01\x02\x03\0");
        for w in [4u32, 4, 3] {
            n.extend_from_slice(&w.to_ne_bytes());
        }
        n.extend_from_slice(b"GNU\0\xaa\xbb\xcc\xdd");
        assert_eq!(gnu_build_id(&n), Some(vec![0xaa, 0xbb, 0xcc, 0xdd]));
        assert_eq!(gnu_build_id(&n[..20]), None);
    }
}
