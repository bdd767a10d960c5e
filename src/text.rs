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

/// `s` shortened to `max` characters by cutting its middle, marked with
/// `ellipsis` (`...` in ASCII outputs, `…` elsewhere): both ends of a
/// name, where kernel names differ, stay readable.
pub fn truncate_middle(s: &str, max: usize, ellipsis: &str) -> String {
    let n = s.chars().count();
    let e = ellipsis.chars().count();
    if n <= max || max <= e + 2 {
        return s.to_string();
    }
    let keep = max - e;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push_str(ellipsis);
    out.extend(s.chars().skip(n - tail));
    out
}

/// `n` and a noun, singular for one: `1 sample`, `2 samples` (`word` is
/// the singular; an `s` is added).
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A name as every text output prints it (symbols, events, side and
/// benchmark names): valid UTF-8 as it is (`函数_ünïcödé`), control
/// characters (C0, DEL, C1) and the bidirectional controls escaped as
/// `\u{..}`, so a crafted name can neither break the layout nor send escape
/// sequences to a terminal nor reorder what is shown.
pub fn printable(s: &str) -> String {
    let bidi = |c: char| matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(|c| c.is_control() || bidi(c)) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() || is_bidi(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The Unicode bidirectional controls, which reorder how text is shown.
pub fn is_bidi(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// A path for a message: invalid UTF-8 as `\xNN` ([`decode`]), control
/// and bidirectional characters escaped ([`printable`]), so that a file
/// name can neither change the terminal (an ESC sequence) nor hide.
pub fn shown_path(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    printable(&decode(path.as_os_str().as_bytes()))
}

/// A writer for messages (stderr) that escapes the control characters a
/// message may carry from a file name or a file's text: C0 controls but
/// tab, DEL and the C1 controls (U+0080 to U+009F, two bytes in UTF-8)
/// become `\u{1b}`; so does a newline, unless it ends the write (the line
/// end of `writeln!`, written on its own); everything else passes
/// unchanged.
pub struct Escaping<W> {
    inner: W,
    /// A `0xc2` byte that ended the previous write (the first byte of a C1
    /// control, or of another character).
    pending: bool,
}

impl<W> Escaping<W> {
    pub fn new(inner: W) -> Self {
        Escaping {
            inner,
            pending: false,
        }
    }
}

impl<W: std::io::Write> std::io::Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len() + 8);
        let mut pending = self.pending;
        let last = buf.len().saturating_sub(1);
        for (i, &b) in buf.iter().enumerate() {
            if pending {
                pending = false;
                if (0x80..0xa0).contains(&b) {
                    out.extend_from_slice(format!("\\u{{{b:x}}}").as_bytes());
                    continue;
                }
                out.push(0xc2);
            }
            match b {
                // A message's own line end comes last in its write (a
                // newline inside one comes from a name).
                b'\n' if i == last => out.push(b),
                b'\t' => out.push(b),
                0..=0x1f | 0x7f => out.extend_from_slice(format!("\\u{{{b:x}}}").as_bytes()),
                0xc2 => pending = true,
                _ => out.push(b),
            }
        }
        self.inner.write_all(&out)?;
        self.pending = pending;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if std::mem::take(&mut self.pending) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod escaping_tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn controls_are_escaped_in_messages() {
        let mut w = Escaping::new(Vec::new());
        write!(w, "a\u{1b}[31mb\tc\nd\u{7f}").unwrap();
        writeln!(w).unwrap();
        // A C1 control split across two writes, and a two-byte letter.
        w.write_all(&[b'x', 0xc2]).unwrap();
        w.write_all(&[0x9b, b'y', 0xc2]).unwrap();
        w.write_all(&[0xa9]).unwrap();
        w.flush().unwrap();
        let got = String::from_utf8(w.inner).unwrap();
        assert_eq!(got, "a\\u{1b}[31mb\tc\\u{a}d\\u{7f}\nx\\u{9b}y\u{a9}");
        assert_eq!(
            shown_path(std::path::Path::new("r\u{1b}n.txt")),
            "r\\u{1b}n.txt"
        );
    }
}

/// A regular expression's error in one line, for a message that names the
/// flag and pattern: the regex crate's multi-line syntax error (the
/// pattern, a caret line, `error: …`) as its reason and where
/// (`unclosed character class (at character 1)`); too large a pattern as
/// its limit.
pub fn regex_error(e: &regex::Error) -> String {
    match e {
        regex::Error::Syntax(text) => {
            let reason = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("error: "))
                .unwrap_or(text.trim());
            // The caret line is indented as the pattern line is (4 spaces).
            let at = text.lines().find_map(|l| {
                let t = l.trim_end();
                (t.ends_with('^') && t.trim_start().chars().all(|c| c == '^'))
                    .then(|| t.find('^').unwrap_or(0).saturating_sub(4) + 1)
            });
            match at {
                Some(at) => format!("{reason} (at character {at})"),
                None => reason.to_string(),
            }
        }
        regex::Error::CompiledTooBig(limit) => format!(
            "the pattern compiles to more than {limit} bytes, the limit (a large repetition such as a{{99999}}?)"
        ),
        e => e.to_string().lines().collect::<Vec<_>>().join(" "),
    }
}

#[cfg(test)]
mod regex_error_tests {
    #[test]
    fn one_line_with_reason_and_place() {
        // (Built at run time: clippy checks literal patterns.)
        let bad = ["ab", "[[:alpha:]"].concat();
        let e = regex::Regex::new(&bad).unwrap_err();
        let got = super::regex_error(&e);
        assert!(!got.contains('\n'), "{got}");
        assert!(
            got.starts_with("unclosed character class (at character 3)"),
            "{got}"
        );
        let e = regex::Regex::new(&["a", "{99999999}"].concat()).unwrap_err();
        assert!(super::regex_error(&e).contains("the limit"));
    }
}

/// A side as messages name it: the default names in capitals (`OLD`, `NEW`,
/// `NEW2`, `REPLICATES`), any other name (a `batch` kernel, `v6.1`) as given.
pub fn side_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let default = lower == "old"
        || lower == "replicates"
        || lower
            .strip_prefix("new")
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
    if default {
        name.to_uppercase()
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod side_name_tests {
    use super::side_name;

    #[test]
    fn default_names_in_capitals_kernels_as_given() {
        assert_eq!(side_name("old"), "OLD");
        assert_eq!(side_name("new"), "NEW");
        assert_eq!(side_name("new2"), "NEW2");
        assert_eq!(side_name("replicates"), "REPLICATES");
        assert_eq!(side_name("v6.1"), "v6.1");
        assert_eq!(side_name("newer-tree"), "newer-tree");
    }
}
