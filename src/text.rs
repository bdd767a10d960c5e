//! Bytes as text, shared by the parsers ([`crate::format`]) and the map
//! reader ([`crate::symmap`]): lossless decoding, the excerpt an error
//! message quotes, the longest line a text reader accepts, and a count
//! with its noun (`1 sample`, `2 samples`).

use std::borrow::Cow;

/// Bytes as text: valid UTF-8 borrowed as is; invalid bytes escaped as `\xNN`
/// so that a symbol name is never silently changed or merged with another.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            Cow::Owned(out)
        }
    }
}

/// The offending text for an error message: at most 80 characters, control
/// characters escaped, trailing newline dropped.
pub fn excerpt(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = decode(line);
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == 80 {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The longest line a text parser accepts (4 MiB). Real lines are far
/// shorter (a deep folded stack of long C++ names is a few hundred KiB); the
/// cap keeps memory bounded on a file with no newlines, such as a gzip bomb
/// of zeros forced through a text parser.
pub const MAX_LINE: usize = 4 << 20;

/// `n` and a noun, singular for one: `1 sample`, `2 samples` (`word` is
/// the singular; an `s` is added).
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
