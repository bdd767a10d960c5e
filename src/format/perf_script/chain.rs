//! Skipping the callchain lines that self cost does not need, at memory
//! speed: one branch-free pass over the bytes (which the compiler
//! vectorises) that counts line breaks, finds the blank line closing the
//! sample and checks on the way that every line up to it starts like a frame.

/// Longest chain skipped in one go; longer ones take the line-by-line path.
const WINDOW: usize = 1 << 16;

/// May `b` follow a frame line's tab? (Spaces pad the address, then it is
/// hexadecimal.)
fn addr(b: u8) -> bool {
    (b == b' ') | b.is_ascii_digit() | ((b | 0x20).wrapping_sub(b'a') < 6)
}

/// Over the triples `(x, y, z)` of consecutive bytes: (line breaks, line
/// breaks followed by a blank line, line breaks followed by a line that
/// neither is blank nor starts with a tab and an address character).
fn tally(x: &[u8], y: &[u8], z: &[u8]) -> (u8, u8, u8) {
    let (mut lines, mut blanks, mut bad) = (0u8, 0u8, 0u8);
    for ((&x, &y), &z) in x.iter().zip(y).zip(z) {
        let nl = x == b'\n';
        let blank = y == b'\n';
        lines += u8::from(nl);
        blanks += u8::from(nl & blank);
        bad += u8::from(nl & !blank & !((y == b'\t') & addr(z)));
    }
    (lines, blanks, bad)
}

/// `rest` starts with a callchain line (a tab). When every line up to the
/// blank line closing the sample starts like a frame (a tab, then a space or
/// a hexadecimal digit), returns `(offset of the blank line, frame lines)`.
/// `None` (a line that does not look like a frame, no blank line within
/// [`WINDOW`], `\r\n` line ends) sends the caller to the line-by-line path,
/// which parses each line and names the faulty one.
pub fn skip_chain(rest: &[u8]) -> Option<(usize, u64)> {
    const CHUNK: usize = 128; // the u8 counters cannot overflow
    let w = &rest[..rest.len().min(WINDOW)];
    if w.len() < 3 || w[0] != b'\t' || !addr(w[1]) {
        return None;
    }
    let n = w.len();
    let (x, y, z) = (&w[..n - 2], &w[1..n - 1], &w[2..]);
    let mut lines = 0u64;
    let mut base = 0;
    for ((cx, cy), cz) in x.chunks(CHUNK).zip(y.chunks(CHUNK)).zip(z.chunks(CHUNK)) {
        let (l, blanks, bad) = tally(cx, cy, cz);
        if blanks == 0 {
            if bad > 0 {
                return None;
            }
            lines += u64::from(l);
            base += cx.len();
            continue;
        }
        // The blank line is in this chunk: count up to it.
        let i = cx
            .iter()
            .zip(cy)
            .position(|(&a, &b)| a == b'\n' && b == b'\n')?;
        let (l, _, bad) = tally(&cx[..=i], &cy[..=i], &cz[..=i]);
        return (bad == 0).then_some((base + i + 1, lines + u64::from(l)));
    }
    // The last pair of bytes has no third: the blank line may end the window.
    (w[n - 2] == b'\n' && w[n - 1] == b'\n').then_some((n - 1, lines + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same contract, line by line.
    fn reference(rest: &[u8]) -> Option<(usize, u64)> {
        let window = &rest[..rest.len().min(WINDOW)];
        let mut pos = 0;
        let mut lines = 0;
        loop {
            let end = pos + memchr::memchr(b'\n', &window[pos..])?;
            let line = &window[pos..end];
            if line.is_empty() {
                return (lines > 0).then_some((pos, lines));
            }
            let addr = |b: u8| b == b' ' || b.is_ascii_hexdigit();
            if line[0] != b'\t' || !line.get(1).is_some_and(|&b| addr(b)) {
                return None;
            }
            lines += 1;
            pos = end + 1;
        }
    }

    #[test]
    fn skips_a_chain_to_its_blank_line() {
        let text = b"\tffffffff8160f87c __mmap_region+0xb6c ([kernel.kallsyms])\n\t           20ca3 mmap64+0x13 (/usr/lib/ld.so)\n\nperf 1 2.0: 1 cpu-clock: \n";
        let blank = text.windows(2).position(|w| w == b"\n\n").unwrap() + 1;
        assert_eq!(skip_chain(text), Some((blank, 2)));
        assert_eq!(skip_chain(b"\tnot a frame\n\n"), None);
        assert_eq!(skip_chain(b"\tff a (b)\r\n\r\n"), None);
        assert_eq!(skip_chain(b"\tff a (b)\n"), None);
        assert_eq!(skip_chain(b"\t\n\n"), None);
    }

    #[test]
    fn agrees_with_the_line_by_line_reading() {
        // Random chains of frame-like and damaged lines, at every offset
        // against the 64-byte chunks.
        let pieces: [&[u8]; 9] = [
            b"\tffffffff81000130 entry+0x76 ([kernel.kallsyms])\n",
            b"\t           20ca3 mmap64+0x13 (/lib/ld.so)\n",
            b"\t1\n",
            b"\n",
            b"\tx bad\n",
            b"perf 1 2.0: 1 cpu-clock: \n",
            b"\t\n",
            b"\r\n",
            b"\ta\tb\n",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let mut text = b"\t".to_vec();
            let n = next() % 12;
            text.extend_from_slice(b"ffff a (b)\n");
            for _ in 0..n {
                // Mostly good frames, now and then anything.
                let r = next();
                let p = if r % 4 == 0 {
                    (r >> 8) as usize % 9
                } else {
                    (r >> 8) as usize % 3
                };
                text.extend_from_slice(pieces[p]);
            }
            if next() % 3 > 0 {
                text.extend_from_slice(b"\n");
            }
            let cut = (next() as usize) % (text.len() + 1);
            let text = &text[..cut.max(1)];
            assert_eq!(
                skip_chain(text),
                reference(text),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
