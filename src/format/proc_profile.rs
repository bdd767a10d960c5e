//! Reader of raw kernel `/proc/profile` images, folded onto the kernel's
//! symbol map exactly as util-linux `readprofile -p IMAGE -m MAP` (2.38) does.
//!
//! Input: the decompressed image, `[u32 step][u32 counter × N]` in the
//! recording machine's byte order (counter `i` holds the ticks of text
//! addresses `_stext + i*step …`; the kernel puts every hit outside kernel
//! text into the last counter), and a [`SymbolMap`] (`ParseOptions::map`:
//! `--map`, `--old-map`/`--new-map`, or a `System.map*`/`kallsyms*` file
//! beside the image). Output: a [`Profile`] equal, symbol for symbol, to what
//! the readprofile text parser makes of readprofile's output for the same
//! pair: kernel symbols with their ticks, the last counter (`*unknown*`) as
//! `unattributed`, `total` = symbol ticks + unknown.
//!
//! readprofile's rules, reproduced on purpose (sys-utils/readprofile.c):
//! - byte order: over all counters (not the step), count those with bits in
//!   the high 16 (`big`) and in the low 16 (`small`); `big > small` means the
//!   image is byte-swapped;
//! - the map is walked in file order from the first `_stext`/`__stext` line;
//!   leading `A`/`?` symbols (and `__init_end`) are skipped, the walk stops
//!   at `_etext`/`__etext` or at the first symbol that is not `T t W w`;
//! - **the off-by-one**: its bin index starts at 1 (index 0 is the step), but
//!   the loop bound is `(next - _stext) / step`, so a function starting at
//!   `start` and ending at `end` is credited the counters of addresses
//!   `[start - step, end - step)`: a tick in the last `step` bytes of a
//!   function goes to the next symbol, and the last counter (`*unknown*`)
//!   never goes to a function;
//! - a symbol is listed only when its size (`next - start`, as a 32-bit
//!   unsigned) is non-zero, so of aliases at one address the last in map
//!   order gets the ticks.
//!
//! Differences: counts and totals are 64-bit (readprofile's 32-bit `total`
//! wraps); names are kept whole (readprofile cuts them at 127 bytes) and split
//! on any whitespace (readprofile only on spaces); a map address beyond the
//! image is an error (readprofile reads past its buffer).
//!
//! A map of another kernel is refused (unless `--force-map`): the kernel
//! allocates `(_etext - _stext) / step` counters, so an image of another
//! length is not this map's kernel's. Ticks that land in function padding
//! (`__pfx_*`, `__cfi_*`, never executed) are a warning: the map is doubtful.

use super::{ParseError, ParseOptions, Sniff};
use crate::profile::{Format, Mode, Profile, SymbolKey, Weight};
use crate::symmap::{is_padding, Reader, SymbolMap};
use std::io::BufRead;

/// Largest sampling step taken as plausible when sniffing (the kernel's
/// `profile=N` shift gives `1 << N`; 2^16 is far beyond any real setting).
const MAX_STEP: u32 = 1 << 16;

/// Binary, starting with a power-of-two step in either byte order, and
/// (at EOF) a whole number of u32 words, at least the step and one counter.
pub fn sniff(head: &[u8], eof: bool) -> Sniff {
    let Some(word) = head.get(..4) else {
        return if eof { Sniff::No } else { Sniff::NeedMore };
    };
    let word = [word[0], word[1], word[2], word[3]];
    let plausible = |s: u32| s.is_power_of_two() && s <= MAX_STEP;
    if !(plausible(u32::from_le_bytes(word)) || plausible(u32::from_be_bytes(word))) {
        return Sniff::No;
    }
    if eof && (head.len() < 8 || !head.len().is_multiple_of(4)) {
        return Sniff::No;
    }
    Sniff::Yes
}

/// Parse an image from a stream: read into memory, up to
/// [`super::MAX_IN_MEMORY`] bytes.
pub fn parse(
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let bytes = super::read_bounded(input, origin, "/proc/profile image")?;
    parse_bytes(&bytes, origin, opts)
}

/// Parse a whole image in memory (or mapped).
pub fn parse_bytes(bytes: &[u8], origin: &str, opts: &ParseOptions) -> Result<Profile, ParseError> {
    let Some(map) = opts.map.as_deref() else {
        return Err(ParseError::invalid(
            origin,
            format!(
                "a /proc/profile image needs the symbol map of the kernel it was taken on: {}",
                opts.advice.give(Reader::Image, "FILE", MAP_WHAT, false)
            ),
        ));
    };
    before_copy(bytes, map, origin, opts)?;
    cut_short(bytes, map, origin, opts)?;
    let buf = words(bytes, origin)?;
    let mut p = fold(&buf, map, origin, opts)?;
    p.idle = map.cpuidle_names();
    p.provenance.kernel_map = Some(match &opts.map_origin {
        Some(how) => format!("{} ({how})", map.source),
        None => map.source.clone(),
    });
    Ok(p)
}

/// What can be told of an image before it is copied into words (a mapped
/// file is not read yet, so a 10 GB file of zeros costs nothing): a step
/// of 0, an image larger than [`super::MAX_IN_MEMORY`] (the limit of a
/// streamed one; the kernel's is 4 bytes per `step` bytes of kernel text,
/// tens of MiB at most), and, unless `--force-map`, an image longer than
/// the map's text gives at either byte order's step: refused at once, with
/// the message the fold would give (a shorter one costs little, and the
/// fold says which symbol lies past it).
fn before_copy(
    bytes: &[u8],
    map: &SymbolMap,
    origin: &str,
    opts: &ParseOptions,
) -> Result<(), ParseError> {
    let Some(first) = bytes.first_chunk::<4>() else {
        return Ok(());
    };
    let step = u32::from_ne_bytes(*first);
    if step == 0 {
        return Err(ParseError::invalid(
            origin,
            "offset 0: expected a sampling step > 0, found 0: not a /proc/profile image",
        ));
    }
    if bytes.len() > super::MAX_IN_MEMORY {
        return Err(ParseError::invalid(
            origin,
            format!(
                "expected a /proc/profile image of at most {} MiB (the kernel's holds one \
                 4-byte counter per step of kernel text: tens of MiB), but it is {} bytes \
                 long: not an image",
                super::MAX_IN_MEMORY >> 20,
                bytes.len()
            ),
        ));
    }
    if opts.force_map || bytes.len() < 8 || !bytes.len().is_multiple_of(4) {
        return Ok(());
    }
    let Some(stext) = map
        .symbols
        .iter()
        .find(|s| (s.name == "_stext" || s.name == "__stext") && s.addr != 0)
    else {
        return Ok(());
    };
    let counters = bytes.len() / 4 - 1;
    // The step as the image's byte order reads it, most likely first.
    let mut steps = [step, step.swap_bytes()];
    steps.sort_by_key(|s| !(s.is_power_of_two() && *s <= MAX_STEP));
    let longer = |st: u32| {
        let etext = map.address_of("_etext").or(map.address_of("__etext"))?;
        let want = etext.checked_sub(stext.addr)? / u64::from(st);
        (counters as u64 > want)
            .then(|| length_mismatch(map, stext.addr, u64::from(st), counters))
            .flatten()
    };
    let why: Vec<String> = steps.into_iter().filter_map(longer).collect();
    if why.len() < 2 {
        return Ok(());
    }
    Err(map_not_the_images(map, &why[0], opts, origin))
}

/// An image shorter than the map's kernel text needs, at the step the
/// image gives (in the byte order that makes it plausible), and cut inside
/// a counter or to less than half: cut short, most likely (a copy that
/// stopped early, a size limit), which is said before the map is blamed;
/// `--force-map` folds what is there.
fn cut_short(
    bytes: &[u8],
    map: &SymbolMap,
    origin: &str,
    opts: &ParseOptions,
) -> Result<(), ParseError> {
    let Some(&first) = bytes.first_chunk::<4>() else {
        return Ok(());
    };
    let native = u32::from_ne_bytes(first);
    let Some(step) = [native, native.swap_bytes()]
        .into_iter()
        .find(|s| s.is_power_of_two() && *s <= MAX_STEP)
    else {
        return Ok(());
    };
    let stext = map.address_of("_stext").or(map.address_of("__stext"));
    let etext = map.address_of("_etext").or(map.address_of("__etext"));
    let (Some(stext), Some(etext)) = (stext, etext) else {
        return Ok(());
    };
    let Some(want) = etext.checked_sub(stext).map(|t| t / u64::from(step)) else {
        return Ok(());
    };
    let want_bytes = want.saturating_add(1).saturating_mul(4);
    // Shorter than a step and one counter: not an image ([`words`] says).
    // Kernels' texts differ by a few percent: a whole image a little shorter
    // than the map's is another kernel's (the fold says so); cut are those
    // cut inside a counter or to less than half.
    let len = bytes.len() as u64;
    let cut = !len.is_multiple_of(4) || len < want_bytes / 2;
    if opts.force_map || len < 8 || len >= want_bytes || !cut {
        return Ok(());
    }
    Err(ParseError::invalid(
        origin,
        format!(
            "the image is cut short: it is {} bytes, and the kernel text of the symbol map {} \
             (_stext {stext:#x} .. _etext {etext:#x}, step {step}) makes {want} counters, an \
             image of {want_bytes} bytes (a truncated copy or download? copy /proc/profile \
             again); if the image is whole, the map is another kernel's: {}",
            bytes.len(),
            map.source,
            map_advice(opts)
        ),
    ))
}

/// What to give instead of the map (the advice of every map error here).
fn map_advice(opts: &ParseOptions) -> String {
    opts.advice.give(
        Reader::Image,
        "FILE",
        MAP_WHAT,
        opts.advice.is_own(opts.map_origin.as_deref()),
    )
}

/// The error for a map whose kernel text is not the image's (`why`).
fn map_not_the_images(map: &SymbolMap, why: &str, opts: &ParseOptions, origin: &str) -> ParseError {
    ParseError::invalid(
        origin,
        format!(
            "the symbol map {} does not belong to this image: {why} (readprofile's \
             own check), and --force-map would use it anyway; {}",
            map.source,
            map_advice(opts)
        ),
    )
}

/// What a /proc/profile image's map is, for advice.
const MAP_WHAT: &str =
    "the System.map of the kernel the image was taken on, or a copy of its /proc/kallsyms";

/// The image as readprofile holds it: native words, byte-swapped when the
/// counters look swapped.
fn words(bytes: &[u8], origin: &str) -> Result<Vec<u32>, ParseError> {
    if bytes.len() < 8 || !bytes.len().is_multiple_of(4) {
        return Err(ParseError::invalid(
            origin,
            format!(
                "expected a /proc/profile image ([u32 step][u32 counter × N], N ≥ 1), \
                 but it is {} bytes long, not a multiple of 4 of at least 8",
                bytes.len()
            ),
        ));
    }
    let mut buf: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let (mut big, mut small) = (0usize, 0usize);
    for &w in &buf[1..] {
        big += usize::from(w & 0xffff_0000 != 0);
        small += usize::from(w & 0x0000_ffff != 0);
    }
    if big > small {
        for w in &mut buf {
            *w = w.swap_bytes();
        }
    }
    Ok(buf)
}

/// readprofile's main loop over `map` (see the module comment).
fn fold(
    buf: &[u32],
    map: &SymbolMap,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let step = u64::from(buf[0]);
    if step == 0 {
        return Err(ParseError::invalid(
            origin,
            "offset 0: expected a sampling step > 0, found 0: not a /proc/profile image",
        ));
    }
    let Some(why) = out_of_order(map, step, buf.len()) else {
        return fold_in_order(buf, map, step, origin, opts);
    };
    let mut p = fold_in_order(buf, &map.sorted_by_address(), step, origin, opts)?;
    p.warnings.insert(0, format!("{origin}: {why}"));
    Ok(p)
}

/// [`fold`] on a map whose kernel text is in address order.
fn fold_in_order(
    buf: &[u32],
    map: &SymbolMap,
    step: u64,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let force = opts.force_map;
    let entries = buf.len();
    let syms = &map.symbols;
    let start = syms
        .iter()
        .position(|s| (s.name == "_stext" || s.name == "__stext") && s.addr != 0);
    let Some(start) = start else {
        return Err(ParseError::invalid(
            origin,
            format!("cannot find \"_stext\" in the symbol map {}", map.source),
        ));
    };
    let add0 = syms[start].addr;
    let mismatch = length_mismatch(map, add0, step, entries - 1);
    let mut p = Profile::new(origin, Format::ProcProfile);
    // The kernel the image is of, as its text: what tells two apart.
    let counted = add0.saturating_add((entries as u64 - 1).saturating_mul(step));
    let etext = map.address_of("_etext").filter(|_| mismatch.is_none());
    p.provenance.kernel_text = Some(format!("{add0:#x}..{:#x}", etext.unwrap_or(counted)));
    p.weight = Weight::Samples;
    let (indx, hidden) = fold_symbols(buf, map, start, step, &mut p, origin)?;
    let unknown = u64::from(buf[entries - 1]);
    let past: u64 = buf
        .get(indx..entries - 1)
        .unwrap_or(&[])
        .iter()
        .map(|&w| u64::from(w))
        .sum();
    if past > 0 {
        p.warnings.push(format!(
            "{origin}: {past} tick(s) in counters past the last text symbol of {} \
             (readprofile ignores them too)",
            map.source
        ));
    }
    if let Some(w) = map.lacks_locals() {
        p.warnings.push(format!("{origin}: {w}"));
    }
    if hidden > 0 {
        p.warnings.push(format!(
            "{origin}: {hidden} tick(s) fell on zero-size symbols of {} (readprofile counts them \
             in its total but lists no symbol); counted as unattributed",
            map.source
        ));
    }
    p.unattributed = (unknown + hidden) as f64;
    p.total = p.symbol_sum() + p.unattributed;
    if let Some(why) = mismatch {
        if !force {
            return Err(map_not_the_images(map, &why, opts, origin));
        }
        p.warnings.push(format!(
            "{origin}: --force-map: ticks folded onto {} although it does not seem to \
             belong to this image ({why})",
            map.source
        ));
    }
    let padding: f64 = p
        .counts
        .iter()
        .filter(|(k, _)| is_padding(&k.name))
        .map(|(_, &c)| c)
        .sum();
    if padding > 0.0 {
        p.warnings.push(format!(
            "{origin}: {padding} of {} ticks ({:.1}%) land in function padding \
             (__pfx_*/__cfi_*): is {} the map of the kernel the image \
             was taken on?",
            p.total,
            100.0 * padding / p.total.max(1.0),
            map.source
        ));
    }
    Ok(p)
}

/// Why the map's kernel text is not in address order, if it is not (see
/// [`SymbolMap::text_out_of_order`]); the text's end is `_etext`, or as far
/// as the image's counters reach.
fn out_of_order(map: &SymbolMap, step: u64, entries: usize) -> Option<String> {
    let stext = map
        .address_of("_stext")
        .or_else(|| map.address_of("__stext"))?;
    let reach = stext.saturating_add((entries as u64).saturating_mul(step));
    let etext = map
        .address_of("_etext")
        .or_else(|| map.address_of("__etext"))
        .unwrap_or(reach);
    let (a, b) = map.text_out_of_order(stext, etext)?;
    let (a, b) = (&map.symbols[a], &map.symbols[b]);
    Some(format!(
        "the symbol map {} is not sorted by address ({} at {:#x} is listed before {} at \
         {:#x}); readprofile would fold ticks onto the wrong symbols: its lines were sorted by \
         address first, as `nm -n` writes System.map",
        map.source, a.name, a.addr, b.name, b.addr
    ))
}

/// The counters folded onto the text symbols from `_stext` (index
/// `start`) on, into `p`: where the counters of symbols end, and the ticks
/// of zero-size symbols (counted in no row).
fn fold_symbols(
    buf: &[u32],
    map: &SymbolMap,
    start: usize,
    step: u64,
    p: &mut Profile,
    origin: &str,
) -> Result<(usize, u64), ParseError> {
    let entries = buf.len();
    let syms = &map.symbols;
    let add0 = syms[start].addr;
    let mut fn_add = add0;
    let mut fn_name = syms[start].name.as_str();
    let mut indx: usize = 1;
    let mut total: u64 = 0;
    let mut hidden: u64 = 0;
    for next in &syms[start + 1..] {
        let done = next.name == "_etext" || next.name == "__etext";
        if !done {
            if matches!(next.kind, b'A' | b'?') && (total == 0 || next.name == "__init_end") {
                continue;
            }
            if !next.is_text() {
                break;
            }
        }
        if indx >= entries {
            return Err(ParseError::invalid(
                origin,
                format!(
                    "profile address out of range: {} at {:#x} lies past the image's {} counters \
                     (step {step} from _stext {add0:#x}); wrong map file {}, or an image cut short?",
                    next.name,
                    next.addr,
                    entries - 1,
                    map.source
                ),
            ));
        }
        let bound = next.addr.wrapping_sub(add0) / step;
        if bound > entries as u64 {
            return Err(ParseError::invalid(
                origin,
                format!(
                    "{} at {:#x} lies past the image's {} counters (step {step} from _stext \
                     {add0:#x}); wrong map file {}, or an image cut short?",
                    next.name,
                    next.addr,
                    entries - 1,
                    map.source
                ),
            ));
        }
        let mut this: u64 = 0;
        let bound = bound as usize;
        if indx < bound {
            this = buf[indx..bound].iter().map(|&w| u64::from(w)).sum();
            indx = bound;
        }
        total += this;
        if this > 0 {
            if next.addr.wrapping_sub(fn_add) as u32 != 0 {
                p.add(
                    SymbolKey::new(fn_name).with_mode(Some(Mode::Kernel)),
                    this as f64,
                );
            } else {
                hidden += this;
            }
        }
        fn_add = next.addr;
        fn_name = &next.name;
        if done {
            break;
        }
    }
    Ok((indx, hidden))
}

/// Why an image and a map disagree, if they do: the kernel allocates
/// `(_etext - _stext) / step` counters, so a map whose text is longer or
/// shorter than the image's is another kernel's.
fn length_mismatch(map: &SymbolMap, stext: u64, step: u64, counters: usize) -> Option<String> {
    let etext = map
        .symbols
        .iter()
        .find(|s| (s.name == "_etext" || s.name == "__etext") && s.addr > stext)?
        .addr;
    let want = (etext - stext) / step;
    (want != counters as u64).then(|| {
        format!(
            "the image holds {counters} counters, the map's _stext {stext:#x} .. _etext \
             {etext:#x} at step {step} make {want}"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const MAP: &str = "ffffffff80fff000 D before\n\
ffffffff81000000 T _stext\n\
ffffffff81000000 T startup_64\n\
ffffffff81000010 T alias_a\n\
ffffffff81000010 T alias_b\n\
ffffffff81000020 t f\n\
ffffffff81000030 T _etext\n";

    fn image(step: u32, counters: &[u32], swap: bool) -> Vec<u8> {
        let conv = |w: u32| {
            if swap {
                w.swap_bytes().to_ne_bytes()
            } else {
                w.to_ne_bytes()
            }
        };
        let mut out = conv(step).to_vec();
        for &c in counters {
            out.extend_from_slice(&conv(c));
        }
        out
    }

    fn run(img: &[u8]) -> Result<Profile, ParseError> {
        let map = SymbolMap::parse(MAP.as_bytes(), "System.map").unwrap();
        let opts = ParseOptions {
            map: Some(Arc::new(map)),
            ..ParseOptions::default()
        };
        parse(&mut &img[..], "img", &opts)
    }

    fn count(p: &Profile, name: &str) -> f64 {
        p.counts
            .get(&SymbolKey::new(name).with_mode(Some(Mode::Kernel)))
            .copied()
            .unwrap_or(0.0)
    }

    #[test]
    fn a_map_out_of_address_order_is_sorted_and_said() {
        let counters = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 7];
        let img = image(4, &counters, false);
        let sorted = run(&img).unwrap();
        assert!(sorted.warnings.iter().all(|w| !w.contains("not sorted")));
        // `f` listed first: sorted by address, the lines are MAP's again
        // (the order of aliases, which names the row, is kept).
        let mut lines: Vec<&str> = MAP.lines().collect();
        let f = lines.remove(5);
        lines.insert(0, f);
        let shuffled = SymbolMap::parse(lines.join("\n").as_bytes(), "System.map").unwrap();
        let opts = ParseOptions {
            map: Some(Arc::new(shuffled)),
            ..ParseOptions::default()
        };
        let p = parse(&mut &img[..], "img", &opts).unwrap();
        assert_eq!(p.counts, sorted.counts);
        assert_eq!(p.total, sorted.total);
        assert!(
            p.warnings
                .iter()
                .any(|w| w.contains("System.map is not sorted by address")),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn credits_bins_shifted_by_one_step_like_readprofile() {
        // step 4, (_etext - _stext) / 4 = 12 counters, the last of which
        // also takes every hit outside the text. Bins (by counter index):
        // startup_64 [0x00,0x10) gets counters 0..3 (bound (0x10)/4 = 4, from indx 1 → counters 0,1,2)
        let counters = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 7];
        let p = run(&image(4, &counters, false)).unwrap();
        // startup_64: buf[1..4] = counters 0..=2
        assert_eq!(count(&p, "startup_64"), 7.0);
        assert_eq!(count(&p, "alias_a"), 0.0);
        // alias_b: buf[4..8] = counters 3..=6
        assert_eq!(count(&p, "alias_b"), 8.0 + 16.0 + 32.0 + 64.0);
        // f: buf[8..12] = counters 7..=10; counter 11 is never credited
        assert_eq!(count(&p, "f"), 128.0 + 256.0 + 512.0 + 1024.0);
        assert_eq!(p.unattributed, 7.0);
        assert_eq!(p.total, p.symbol_sum() + 7.0);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn refuses_a_map_whose_text_is_not_the_images() {
        // 13 counters where the map's text makes 12: another kernel's map.
        let img = image(4, &[1; 13], false);
        let e = run(&img).unwrap_err().to_string();
        assert!(
            e.contains("does not belong to this image: the image holds 13 counters")
                && e.contains("make 12")
                && e.contains("--force-map"),
            "{e}"
        );
        let map = SymbolMap::parse(MAP.as_bytes(), "System.map").unwrap();
        let opts = ParseOptions {
            map: Some(Arc::new(map)),
            force_map: true,
            ..ParseOptions::default()
        };
        let p = parse(&mut &img[..], "img", &opts).unwrap();
        assert!(
            p.warnings.iter().any(|w| w.contains("--force-map")),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn ticks_in_function_padding_are_a_warning() {
        let map = "ffffffff81000000 T _stext\n\
ffffffff81000000 T startup_64\n\
ffffffff81000010 t __pfx_f\n\
ffffffff81000020 t f\n\
ffffffff81000030 T _etext\n";
        let opts = ParseOptions {
            map: Some(Arc::new(SymbolMap::parse(map.as_bytes(), "m").unwrap())),
            ..ParseOptions::default()
        };
        let img = image(4, &[0, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0], false);
        let p = parse(&mut &img[..], "img", &opts).unwrap();
        assert_eq!(count(&p, "__pfx_f"), 5.0);
        assert!(
            p.warnings
                .iter()
                .any(|w| w.starts_with("img: 5 of 8 ticks (62.5%) land in function padding")),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn detects_swapped_byte_order() {
        let counters = [1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 5];
        let a = run(&image(4, &counters, false)).unwrap();
        let b = run(&image(4, &counters, true)).unwrap();
        assert_eq!(a.counts, b.counts);
        assert_eq!(b.unattributed, 5.0);
    }

    #[test]
    fn refuses_without_map_and_bad_lengths() {
        let img = image(4, &[0; 13], false);
        let e = parse(&mut &img[..], "img", &ParseOptions::default()).unwrap_err();
        assert!(e.to_string().contains("give its map: --map FILE"), "{e}");
        assert!(run(&img[..7])
            .unwrap_err()
            .to_string()
            .contains("multiple of 4"));
        // An image too short for the map: cut short (said first), or
        // another kernel's map.
        let e = run(&image(4, &[0; 5], false)).unwrap_err().to_string();
        assert!(
            e.contains("img: the image is cut short: it is 24 bytes"),
            "{e}"
        );
        assert!(
            e.contains("if the image is whole, the map is another kernel's"),
            "{e}"
        );
        // A little shorter: another kernel's map, or cut.
        let e = run(&image(4, &[0; 10], false)).unwrap_err().to_string();
        assert!(
            e.contains("wrong map file System.map, or an image cut short?"),
            "{e}"
        );
        let e = run(&image(0, &[0; 13], false)).unwrap_err();
        assert!(e.to_string().contains("step"), "{e}");
    }

    #[test]
    fn sniffs_binary_step() {
        assert_eq!(sniff(&image(4, &[0; 3], false), true), Sniff::Yes);
        assert_eq!(sniff(&image(4, &[0; 3], true), false), Sniff::Yes);
        assert_eq!(sniff(b"   12 x64_sys_call    0.0022\n", false), Sniff::No);
        assert_eq!(sniff(&[4, 0], false), Sniff::NeedMore);
        assert_eq!(sniff(&[4, 0, 0, 0, 1], true), Sniff::No);
    }
}
