//! The sample filters by process: `--comm LIST` and `--pid LIST`.
//!
//! `--comm` matches perf's `--comms`: a comma-separated list of command
//! names, each matched whole (`addr` keeps `addr`, never `addr2line`).
//! An item may also be a regular expression, matched against the whole
//! name (`kworker/.*`, `python3(\.\d+)?`); an item that is not a valid
//! one is a plain name (`(sd-pam)`). The kernel keeps 15 bytes of a
//! command name (`TASK_COMM_LEN`), so a longer plain item also matches its
//! first 15 bytes, the name perf recorded.
//!
//! `--pid` is a comma-separated list of process IDs: a sample is kept when
//! its process is one of them or was forked from one of them during the
//! recording (perf.data's fork records), so the PID of a workload keeps
//! the processes it started.

use regex::Regex;
use std::fmt;

/// The bytes of a command name the kernel keeps.
pub const COMM_LEN: usize = 15;

/// `--comm LIST`, compiled.
#[derive(Clone, Debug)]
pub struct CommFilter {
    /// As given, for the header and messages.
    text: String,
    re: Regex,
}

impl CommFilter {
    pub fn parse(text: &str) -> Result<CommFilter, String> {
        let items = split_items(text);
        if items.iter().all(|i| i.is_empty()) {
            return Err(format!(
                "--comm {text:?}: give one or more command names, comma-separated"
            ));
        }
        let mut alts = Vec::new();
        for item in items.iter().filter(|i| !i.is_empty()) {
            alts.push(regex::escape(item));
            let raw = unescape(item);
            let plain = !raw.iter().any(|c| b"\\.+*?()|[]{}^$".contains(c));
            if raw.len() > COMM_LEN && plain {
                // The kernel cuts bytes, a character too: shown as the
                // recording's name is (`\xNN` for a byte not UTF-8).
                alts.push(regex::escape(&crate::text::decode(&raw[..COMM_LEN])));
            }
            if Regex::new(item).is_ok() {
                alts.push(format!("(?:{item})"));
            }
        }
        let re = Regex::new(&format!("^(?:{})$", alts.join("|")))
            .map_err(|e| format!("--comm {text:?}: {}", crate::text::regex_error(&e)))?;
        Ok(CommFilter {
            text: text.to_string(),
            re,
        })
    }

    /// Whether command name `comm` is kept.
    pub fn is_match(&self, comm: &str) -> bool {
        self.re.is_match(comm)
    }
}

impl fmt::Display for CommFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The bytes of a name as shown (`\xNN` for a byte that is not UTF-8, as
/// [`crate::text::decode`] writes it): the command name the kernel holds.
fn unescape(item: &str) -> Vec<u8> {
    let b = item.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 2..i + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
        match hex {
            Some(h) if b[i] == b'\\' && b[i + 1] == b'x' => {
                let d = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                out.push(d(h[0]) << 4 | d(h[1]));
                i += 4;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    out
}

/// `a,b{1,2},c` → `a`, `b{1,2}`, `c`: commas inside `{}`, `[]` or `()`, or
/// escaped with `\`, belong to their item.
fn split_items(text: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start, mut escaped) = (Vec::new(), 0i32, 0, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth <= 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// `--pid LIST`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PidFilter {
    pids: Vec<i32>,
}

impl PidFilter {
    pub fn parse(text: &str) -> Result<PidFilter, String> {
        let mut pids = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            match item.parse::<i32>() {
                Ok(p) if p >= 0 => pids.push(p),
                _ => {
                    return Err(format!(
                        "--pid {text:?}: expected process IDs, comma-separated (--pid 4242,4250), \
                         found {item:?}"
                    ))
                }
            }
        }
        if pids.is_empty() {
            return Err(format!(
                "--pid {text:?}: give one or more process IDs, comma-separated"
            ));
        }
        pids.sort_unstable();
        pids.dedup();
        Ok(PidFilter { pids })
    }

    /// Whether `pid` is one of the listed processes (not its ancestors).
    pub fn lists(&self, pid: i32) -> bool {
        self.pids.binary_search(&pid).is_ok()
    }
}

impl fmt::Display for PidFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s: Vec<String> = self.pids.iter().map(i32::to_string).collect();
        f.write_str(&s.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comm(t: &str) -> CommFilter {
        CommFilter::parse(t).unwrap()
    }

    /// A workload called `addr` keeps `addr`, not `addr2line` (the
    /// unanchored regex kept both).
    #[test]
    fn names_match_whole() {
        let f = comm("addr");
        assert!(f.is_match("addr"));
        assert!(!f.is_match("addr2line"));
        assert!(!f.is_match("xaddr"));
    }

    #[test]
    fn lists_and_regexes() {
        let f = comm("perf,sched-messaging");
        assert!(f.is_match("perf") && f.is_match("sched-messaging"));
        assert!(!f.is_match("perf-exec"));
        let r = comm("kworker/.*,python3(\\.\\d+)?");
        assert!(r.is_match("kworker/u4:1-events") && r.is_match("python3.11"));
        assert!(!r.is_match("xkworker/1"));
        // A comma inside a repetition belongs to the regex.
        let b = comm("cc1{1,2},ld");
        assert!(b.is_match("cc11") && b.is_match("ld") && !b.is_match("cc111"));
        // Not a valid regex: a plain name.
        let p = comm("(sd-pam");
        assert!(p.is_match("(sd-pam") && !p.is_match("sd-pam"));
        assert!(comm("(sd-pam)").is_match("(sd-pam)"));
        assert_eq!(comm("a,b").to_string(), "a,b");
        assert!(CommFilter::parse(",").is_err());
    }

    /// perf records 15 bytes of a name: a longer name given whole still
    /// matches what was recorded.
    #[test]
    fn long_names_match_the_recorded_prefix() {
        let f = comm("my-long-workload-name");
        assert!(f.is_match("my-long-workloa"));
        assert!(f.is_match("my-long-workload-name"));
        assert!(!f.is_match("my-long-workl"));
        // The 15th byte inside a character: the kernel kept half of it,
        // a byte that is not UTF-8, shown `\xNN` as every reader shows it.
        let u = comm("fourteen-bytesé-and-more");
        assert!(u.is_match("fourteen-bytes\\xc3"), "{:?}", u.re);
        // A name that is not UTF-8, given as diffprofile shows it.
        let x = comm("spin\\xff\\xfe-and-then-more");
        assert!(x.is_match("spin\\xff\\xfe-and-then"), "{:?}", x.re);
        assert!(!x.is_match("spin\\xff\\xfe-and-the"));
        assert!(x.is_match("spin\\xff\\xfe-and-then-more"));
        assert_eq!(unescape("a\\xffb\\xzz"), b"a\xffb\\xzz");
    }

    #[test]
    fn pid_lists() {
        let f = PidFilter::parse("4250, 4242,4242").unwrap();
        assert!(f.lists(4242) && f.lists(4250) && !f.lists(42));
        assert_eq!(f.to_string(), "4242,4250");
        let e = PidFilter::parse("42,x").unwrap_err();
        assert!(e.contains("found \"x\""), "{e}");
        assert!(PidFilter::parse("").is_err());
        assert!(PidFilter::parse("-3").is_err());
    }
}
