//! The line grammar of `perf script` text: sample header lines and callchain
//! frame lines, split into borrowed byte slices without allocating.
//!
//! Header: `COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT: [IP SYM+OFF (DSO)]`
//! where every field but the event may be missing under `-F`, COMM may hold
//! spaces (and is empty without `comm`), EVENT may hold colons
//! (`cycles:uppp`, `sched:sched_switch`). Frame: `\tIP [SYM[+0xOFF]] [(DSO)]`.

use crate::profile::Mode;

/// A sample header line, split.
#[derive(Debug, Clone, PartialEq)]
pub struct Header<'a> {
    pub comm: &'a [u8],
    /// The timestamp as printed (`249.307147`, colon removed); see
    /// [`Stamp`] and [`parse_time`].
    pub time: Option<&'a [u8]>,
    pub period: Option<u64>,
    /// Empty when the output has no event field.
    pub event: &'a [u8],
    /// What follows the event (the sample's own ip/sym/dso without
    /// callchains, tracepoint payload, or nothing), trimmed.
    pub rest: &'a [u8],
    /// The timestamp's colon, when the line has the common shape (see
    /// [`before_colon`] and [`after_colon`]).
    pub colon: Option<usize>,
}

/// What a non-frame line is.
#[derive(Debug, PartialEq)]
pub enum LineKind<'a> {
    Sample(Header<'a>),
    /// `PERF_RECORD_*` side-band events, `#` comments.
    NonSample,
    Malformed,
}

fn is_digits(t: &[u8]) -> bool {
    !t.is_empty() && t.iter().all(u8::is_ascii_digit)
}

/// `123.456789` (the colon already removed).
fn is_time(t: &[u8]) -> bool {
    match t.iter().position(|&c| c == b'.') {
        Some(dot) => is_digits(&t[..dot]) && is_digits(&t[dot + 1..]),
        None => false,
    }
}

/// `1234`, `-1`, `1234/1240`, `-1/-1`.
fn is_pid(t: &[u8]) -> bool {
    let one = |p: &[u8]| is_digits(p.strip_prefix(b"-").unwrap_or(p));
    match t.iter().position(|&c| c == b'/') {
        Some(slash) => one(&t[..slash]) && one(&t[slash + 1..]),
        None => one(t),
    }
}

/// `[003]`.
fn is_cpu(t: &[u8]) -> bool {
    t.len() >= 3 && t[0] == b'[' && t[t.len() - 1] == b']' && is_digits(&t[1..t.len() - 1])
}

/// The first byte of `s` that is not a space, tab or `\r` (perf pads comm
/// to 16 columns: whole words of spaces are skipped first).
pub fn first_non_blank(mut s: &[u8]) -> Option<u8> {
    while let [b' ', b' ', b' ', b' ', b' ', b' ', b' ', b' ', rest @ ..] = s {
        s = rest;
    }
    s.iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r'))
}

pub fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t' | b'\r', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\r'] = s {
        s = rest;
    }
    s
}

/// A timestamp as printed (`digits.digits`) with the length of its integer
/// part, for comparing without parsing.
#[derive(Debug, Clone, Copy)]
pub struct Stamp<'a> {
    pub text: &'a [u8],
    int: usize,
}

impl<'a> Stamp<'a> {
    pub fn new(text: &'a [u8]) -> Self {
        // From the end: the fraction is short.
        let int = text.iter().rposition(|&c| c == b'.').unwrap_or(text.len());
        Stamp { text, int }
    }

    /// Is `self` earlier? perf pads with spaces, never zeros: a shorter
    /// integer part is smaller, then the digits compare as text.
    pub fn before(&self, other: &Stamp<'_>) -> bool {
        if self.int != other.int {
            return self.int < other.int;
        }
        // Equal integer parts: the text order is the numeric order.
        self.text < other.text
    }
}

/// Parse `digits.digits` as seconds.
pub fn parse_time(t: &[u8]) -> Option<f64> {
    let dot = t.iter().position(|&c| c == b'.')?;
    let (int, frac) = (&t[..dot], &t[dot + 1..]);
    let mut i = 0u64;
    for &c in int {
        i = i
            .checked_mul(10)?
            .checked_add(u64::from(c.wrapping_sub(b'0')))?;
    }
    const POW10: [f64; 19] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18,
    ];
    let frac = &frac[..frac.len().min(18)];
    let mut f = 0u64;
    for &c in frac {
        f = f * 10 + u64::from(c.wrapping_sub(b'0'));
    }
    Some(i as f64 + f as f64 / POW10[frac.len()])
}

pub fn parse_u64(t: &[u8]) -> Option<u64> {
    if t.is_empty() || t.len() > 19 {
        return None;
    }
    let mut v = 0u64;
    for &c in t {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(c - b'0');
    }
    Some(v)
}

/// Classify and split a line that is neither blank nor a `\t` frame line.
pub fn classify(line: &[u8]) -> LineKind<'_> {
    // A `#` comment that happens to parse as a header has a comm that
    // starts with `#` (the pid cannot), so the check waits for the parse.
    match header(line) {
        Some(h) if h.comm.first() != Some(&b'#') => LineKind::Sample(h),
        Some(_) => LineKind::NonSample,
        None if trim(line).first() == Some(&b'#') => LineKind::NonSample,
        None if memchr::memmem::find(line, b"PERF_RECORD_").is_some() => LineKind::NonSample,
        None => LineKind::Malformed,
    }
}

/// Split a sample header. Tokens are read left to right; the event is the
/// first token ending in `:` (the end of a token) that is not a timestamp and
/// follows a pid, cpu, timestamp or period token. The fields before it are
/// read backwards from there, so that COMM may contain anything.
pub fn header(line: &[u8]) -> Option<Header<'_>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if let Some(h) = header_at_time(line) {
        return Some(h);
    }
    header_tokens(line).or_else(|| header_bare(line))
}

/// A sample line without time and event fields (`-F comm,tid,ip,sym,dso`,
/// `-F ip,sym,dso`, `-F comm,ip,sym`, `-F ip,sym`):
/// `[COMM] [PID[/TID]] [CPU] [PERIOD]  IP SYM [(DSO)]`. perf prints the
/// address right-aligned in 16 columns after a space, so the address is
/// the first hexadecimal token with 17 − its length spaces before it at
/// the start of the line, 18 − its length after another field (a command
/// name is padded to 16 columns, a pid to 5: neither has as many).
fn header_bare(line: &[u8]) -> Option<Header<'_>> {
    let mut i = 0;
    let n = line.len();
    while i < n {
        let sp = i;
        while i < n && line[i] == b' ' {
            i += 1;
        }
        let start = i;
        while i < n && line[i] != b' ' {
            i += 1;
        }
        let tok = &line[start..i];
        let spaces = start - sp;
        // One space (or two after a field) before 16 columns.
        if tok.is_empty() || tok.len() > 16 || !(17..=18).contains(&(spaces + tok.len())) {
            continue;
        }
        if !tok.iter().all(u8::is_ascii_hexdigit) {
            continue;
        }
        let rest = trim(&line[start..]);
        if !frame_like(rest) {
            return None;
        }
        let (comm, period) = fields_before_ip(&line[..sp]);
        return Some(Header {
            comm,
            time: None,
            period,
            event: b"",
            rest,
            colon: None,
        });
    }
    None
}

/// `[COMM] [PID[/TID]] [CPU] [PERIOD]` before a frame or a callchain, read
/// backwards: (COMM, PERIOD).
fn fields_before_ip(head: &[u8]) -> (&[u8], Option<u64>) {
    let toks: Vec<&[u8]> = head
        .split(|&c| c == b' ')
        .filter(|t| !t.is_empty())
        .collect();
    let mut k = toks.len();
    let mut period = None;
    if k >= 2 && is_digits(toks[k - 1]) && (is_cpu(toks[k - 2]) || is_pid(toks[k - 2])) {
        period = parse_u64(toks[k - 1]);
        k -= 1;
    }
    if k >= 1 && is_cpu(toks[k - 1]) {
        k -= 1;
    }
    if k >= 1 && is_pid(toks[k - 1]) {
        k -= 1;
    }
    let comm = match k.checked_sub(1) {
        Some(last) => {
            let t = toks[last];
            let end = t.as_ptr() as usize - head.as_ptr() as usize + t.len();
            trim(&head[..end])
        }
        None => b"",
    };
    (comm, period)
}

/// The header of a sample whose callchain follows (the next line is a
/// frame) when it has neither time nor event (`-g` with `-F
/// comm,tid,ip,sym,dso` prints `perf  9145 `, with `-F comm,ip,sym` only
/// `perf `, with `-F ip,sym` an empty line).
pub fn header_before_chain(line: &[u8]) -> Header<'_> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (comm, period) = fields_before_ip(line);
    Header {
        comm,
        time: None,
        period,
        event: b"",
        rest: b"",
        colon: None,
    }
}

/// The common shape, read from the first colon when it ends the
/// timestamp: `COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT: …`. `None` means
/// "not this shape" and sends the caller to [`header_tokens`]. Every line of
/// a profile goes through here, so each field is validated in the same pass
/// that finds its end.
fn header_at_time(line: &[u8]) -> Option<Header<'_>> {
    let c = memchr::memchr(b':', line)?;
    if line.get(c + 1).is_some_and(|&b| b != b' ') {
        return None;
    }
    let (p, s) = before_colon(line, c)?;
    let (period, event, rest) = after_colon(line, c)?;
    Some(Header {
        comm: trim(&line[..p]),
        time: Some(&line[s..c]),
        period,
        event,
        rest,
        colon: Some(c),
    })
}

/// The fields before the first colon `c` of the common shape, `COMM
/// PID[/TID] [CPU] TIME`, read backwards: (where COMM ends, where TIME
/// starts).
pub fn before_colon(line: &[u8], c: usize) -> Option<(usize, usize)> {
    // Backwards over TIME (`digits.digits`): exactly one dot, digits both sides.
    let mut s = c;
    let mut dot = usize::MAX;
    while s > 0 {
        match line[s - 1] {
            b'0'..=b'9' => {}
            b'.' if dot == usize::MAX => dot = s - 1,
            _ => break,
        }
        s -= 1;
    }
    if s == 0 || line[s - 1] != b' ' || dot == usize::MAX || dot == s || dot + 1 == c {
        return None;
    }
    // Backwards: spaces, optional MISC (`-F misc`: `K`, `U`…), spaces,
    // optional [CPU], spaces, PID[/TID]; or nothing at all (`-F time,…`).
    let mut e = s - 1;
    while e > 0 && line[e - 1] == b' ' {
        e -= 1;
    }
    if e == 0 {
        return Some((0, s));
    }
    if line[e - 1].is_ascii_alphabetic() {
        let mut o = e - 1;
        while o > 0 && line[o - 1].is_ascii_alphabetic() {
            o -= 1;
        }
        if e - o <= 4 && o > 0 && line[o - 1] == b' ' {
            let mut m = o;
            while m > 0 && line[m - 1] == b' ' {
                m -= 1;
            }
            if m > 0 && (line[m - 1].is_ascii_digit() || line[m - 1] == b']') {
                e = m;
            }
        }
    }
    if e > 0 && line[e - 1] == b']' {
        let mut o = e - 1;
        while o > 0 && line[o - 1].is_ascii_digit() {
            o -= 1;
        }
        if o == 0 || o == e - 1 || line[o - 1] != b'[' {
            return None;
        }
        e = o - 1;
        while e > 0 && line[e - 1] == b' ' {
            e -= 1;
        }
    }
    Some((pid_start(line, e)?, s))
}

/// What follows the first colon `c` of the common shape (the timestamp's):
/// `[PERIOD] EVENT: REST` (period, event, rest). A function of the bytes
/// after `c` alone (with `line` ending at the line's end, `\r` removed).
pub fn after_colon(line: &[u8], c: usize) -> Option<(Option<u64>, &[u8], &[u8])> {
    // Forwards: spaces, optional PERIOD, spaces, EVENT:.
    let n = line.len();
    let mut i = c + 1;
    while i < n && line[i] == b' ' {
        i += 1;
    }
    let mut period = None;
    let mut d = i;
    let mut v = Some(0u64);
    while d < n && line[d].is_ascii_digit() {
        v = v.and_then(|v| v.checked_mul(10)?.checked_add(u64::from(line[d] - b'0')));
        d += 1;
    }
    if d > i && d < n && line[d] == b' ' {
        period = Some(v?);
        i = d;
        while i < n && line[i] == b' ' {
            i += 1;
        }
    }
    // The event ends at the first `:` followed by a space or the line's end;
    // it holds no space.
    let mut k = i;
    let colon = loop {
        match line.get(k)? {
            b' ' => return None,
            b':' if line.get(k + 1).is_none_or(|&b| b == b' ') => break k,
            _ => k += 1,
        }
    };
    let event = &line[i..colon];
    if event.is_empty() || event.starts_with(b"PERF_RECORD_") {
        return None;
    }
    Some((period, event, trim(&line[colon + 1..])))
}

/// Where the PID[/TID] field ending at `e` starts (`1234`, `-1`,
/// `1234/1240`, `-1/-1`), preceded by a space or the line's start.
fn pid_start(line: &[u8], e: usize) -> Option<usize> {
    // Each part: digits, optionally after one `-`.
    let part = |mut j: usize| -> Option<usize> {
        let end = j;
        while j > 0 && line[j - 1].is_ascii_digit() {
            j -= 1;
        }
        if j == end {
            return None;
        }
        if j > 0 && line[j - 1] == b'-' {
            j -= 1;
        }
        Some(j)
    };
    let mut p = part(e)?;
    if p > 0 && line[p - 1] == b'/' {
        p = part(p - 1)?;
    }
    (p == 0 || line[p - 1] == b' ').then_some(p)
}

/// Any header shape: tokens left to right (see [`header`]).
fn header_tokens(line: &[u8]) -> Option<Header<'_>> {
    const MAX_TOKENS: usize = 24;
    let mut toks = [(0usize, 0usize); MAX_TOKENS];
    let mut nt = 0;
    let mut time_at = None;
    let (len, mut i) = (line.len(), 0);
    while i < len {
        while i < len && line[i] == b' ' {
            i += 1;
        }
        if i == len || nt == MAX_TOKENS {
            break;
        }
        let start = i;
        while i < len && line[i] != b' ' {
            i += 1;
        }
        toks[nt] = (start, i);
        nt += 1;
        if line[i - 1] != b':' {
            continue;
        }
        let body = &line[start..i - 1];
        if is_time(body) {
            if trim(&line[i..]).starts_with(b"PERF_RECORD_") {
                return None;
            }
            time_at = Some(nt - 1);
        } else if nt >= 2 && !body.is_empty() {
            if let Some(h) = fields_before(line, &toks[..nt - 1], body, i) {
                return Some(h);
            }
        }
    }
    // No event field (`-F` without `event`): the timestamp ends the fields,
    // but for a period printed after it (`-F …,time,period,ip,…`).
    let t = time_at?;
    let mut h = fields_before(line, &toks[..=t], b"", toks[t].1)?;
    if let Some((period, rest)) = period_before_ip(h.rest) {
        h.period = Some(period);
        h.rest = rest;
    } else if line.ends_with(b" ") && is_digits(h.rest) {
        // `-g -F …,time,period,ip,sym`: the header of a callchain ends
        // with the period (and perf's trailing space).
        h.period = parse_u64(h.rest);
        h.rest = b"";
    }
    Some(h)
}

/// `PERIOD  IP …`: a decimal period, then an address printed as perf prints
/// it, right-aligned in 16 columns after a space (so spaces and digits make
/// 17 or 18 columns); (the period, the text from the address on).
fn period_before_ip(rest: &[u8]) -> Option<(u64, &[u8])> {
    let end = rest.iter().position(|&b| b == b' ')?;
    let period = parse_u64(&rest[..end]).filter(|_| is_digits(&rest[..end]))?;
    let after = &rest[end..];
    let spaces = after.iter().take_while(|&&b| b == b' ').count();
    let ip = &after[spaces..];
    let len = ip.iter().position(|&b| b == b' ').unwrap_or(ip.len());
    let hex = len > 0 && ip[..len].iter().all(u8::is_ascii_hexdigit);
    (hex && (17..=18).contains(&(spaces + len)) && frame_like(ip)).then_some((period, ip))
}

/// `123.456:`
fn is_time_token(t: &[u8]) -> bool {
    t.last() == Some(&b':') && is_time(&t[..t.len() - 1])
}

/// Read PERIOD, TIME, CPU and PID backwards from the tokens `before` the
/// event; the rest of the line starts at `after`.
fn fields_before<'a>(
    line: &'a [u8],
    before: &[(usize, usize)],
    event: &'a [u8],
    after: usize,
) -> Option<Header<'a>> {
    let tok = |k: usize| &line[before[k].0..before[k].1];
    let mut k = before.len();
    let mut period = None;
    let mut time = None;
    if k >= 2 && is_digits(tok(k - 1)) {
        // A period, or the pid when neither time nor cpu nor period exist.
        let b = tok(k - 2);
        if is_time_token(b) || is_cpu(b) || is_pid(b) {
            period = parse_u64(tok(k - 1));
            k -= 1;
        }
    }
    if k >= 1 && is_time_token(tok(k - 1)) {
        let t = tok(k - 1);
        time = Some(&t[..t.len() - 1]);
        k -= 1;
    }
    if k >= 1 && is_cpu(tok(k - 1)) {
        k -= 1;
    }
    if k == 0 || !is_pid(tok(k - 1)) {
        return None;
    }
    Some(Header {
        comm: trim(&line[..before[k - 1].0]),
        time,
        period,
        event,
        rest: trim(&line[after.min(line.len())..]),
        colon: None,
    })
}

/// A frame: `IP [SYM[+0xOFF]] [(DSO)]`, as on a `\t` callchain line or after
/// the event of a sample without callchains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    pub sym: &'a [u8],
    pub dso: Option<&'a [u8]>,
    /// The address is in the x86-64 kernel half.
    pub kernel_ip: bool,
}

impl Frame<'_> {
    /// See [`mode_of`]; computed on demand (once per distinct symbol).
    pub fn mode(&self) -> Mode {
        mode_of(self.dso, self.kernel_ip)
    }
}

pub const UNKNOWN: &[u8] = b"[unknown]";

/// Quick check that a frame line starts like one (`\t` then spaces, hex).
pub fn looks_like_frame(line: &[u8]) -> bool {
    let body = trim(line);
    body.first().is_some_and(u8::is_ascii_hexdigit)
}

/// A frame's text, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed<'a> {
    Frame(Frame<'a>),
    /// Not a frame (no hexadecimal address first).
    NotFrame,
    /// A frame followed by text that is no field diffprofile knows (the
    /// text after the dso's closing parenthesis).
    Trailing(&'a [u8]),
    /// An address alone (`perf script -F ip` without `sym`).
    NoSymbol,
}

/// Does `text` start like a frame (an address, then anything)?
pub fn frame_like(text: &[u8]) -> bool {
    !matches!(parse_frame(text), Parsed::NotFrame)
}

/// Split a frame (leading whitespace allowed). `None` when it does not start
/// with a hexadecimal address, or when unknown text follows its dso.
pub fn frame(text: &[u8]) -> Option<Frame<'_>> {
    match parse_frame(text) {
        Parsed::Frame(f) => Some(f),
        _ => None,
    }
}

/// Split a frame: `IP [SYM[+0xOFF]] [(DSO)] [FIELDS]`, where FIELDS are the
/// ones perf script prints after the dso on the same line (`ilen: 4`,
/// `insn: 89 c7`, `IPC: 1.20 (12/10)`, branch stacks, registers; see
/// [`strip_fields`]): they are dropped.
pub fn parse_frame(text: &[u8]) -> Parsed<'_> {
    let text = trim(text);
    let sp = text.iter().position(|&c| c == b' ').unwrap_or(text.len());
    let ip = &text[..sp];
    if ip.is_empty() || ip.len() > 16 || !ip.iter().all(u8::is_ascii_hexdigit) {
        return Parsed::NotFrame;
    }
    let rest = strip_fields(trim(&text[sp..]));
    if rest.is_empty() {
        return Parsed::NoSymbol;
    }
    let (sym, dso) = match split_dso(rest) {
        Split::Dso(sym, dso) => (sym, Some(jit_map(dso))),
        Split::NoDso(sym) => (sym, None),
        Split::Trailing(extra) => return Parsed::Trailing(extra),
    };
    let sym = strip_offset(sym);
    let sym = if sym.is_empty() { UNKNOWN } else { sym };
    let kernel_ip = ip.len() == 16 && ip[..4].eq_ignore_ascii_case(b"ffff") && ip[4] >= b'8';
    Parsed::Frame(Frame {
        sym,
        dso,
        kernel_ip,
    })
}

/// The dso every run gives to the symbols of a JIT's `/tmp/perf-PID.map`
/// (the PID differs from run to run; the code is the same program's).
pub const JIT_MAP: &[u8] = b"/tmp/perf-PID.map";

/// `/tmp/perf-1234.map` → [`JIT_MAP`] (see [`super::jit_map_dso`]); any
/// other dso as it is.
pub fn jit_map(dso: &[u8]) -> &[u8] {
    if !dso.ends_with(b".map") {
        return dso;
    }
    match std::str::from_utf8(dso).ok().and_then(super::jit_map_dso) {
        Some(_) => JIT_MAP,
        None => dso,
    }
}

enum Split<'a> {
    Dso(&'a [u8], &'a [u8]),
    NoDso(&'a [u8]),
    Trailing(&'a [u8]),
}

/// `SYM (DSO)` → (SYM, DSO). The dso is the parenthesised group that ends
/// the text, parentheses balanced (`(/memfd:doublemapper (deleted))`), and
/// opens at the start or after a space, so that `foo(int)` stays a symbol.
/// Text after a group that looks like a dso (`(/…)` or `([…)`) is a field
/// diffprofile does not know: [`Split::Trailing`].
fn split_dso(rest: &[u8]) -> Split<'_> {
    if rest.last() == Some(&b')') {
        if let Some(open) = group_start(rest, rest.len() - 1) {
            if open == 0 || rest[open - 1] == b' ' {
                return Split::Dso(trim(&rest[..open]), &rest[open + 1..rest.len() - 1]);
            }
            return Split::NoDso(rest);
        }
        // Unbalanced: the last `(` after a space opens the dso.
        let mut end = rest.len() - 1;
        while let Some(open) = rest[..end].iter().rposition(|&c| c == b'(') {
            if open == 0 || rest[open - 1] == b' ' {
                return Split::Dso(trim(&rest[..open]), &rest[open + 1..rest.len() - 1]);
            }
            end = open;
        }
        return Split::NoDso(rest);
    }
    // ` (/path) more` or ` ([kernel.kallsyms]) more`: unknown fields follow.
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&rest[from..], b" (") {
        let open = from + i + 1;
        from = open;
        if !matches!(rest.get(open + 1), Some(b'/' | b'[')) {
            continue;
        }
        if let Some(close) = group_end(rest, open) {
            if rest.get(close + 1) == Some(&b' ') {
                return Split::Trailing(trim(&rest[close + 1..]));
            }
        }
    }
    Split::NoDso(rest)
}

/// The `(` that the `)` at `close` closes, parentheses balanced.
fn group_start(text: &[u8], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        match text[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `)` that closes the `(` at `open`, parentheses balanced.
fn group_end(text: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in text.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Drop the fields perf script prints after a sample's frame, on its line
/// (no callchain) or on a line of their own after the callchain (see
/// [`is_continuation`]), last first: `IPC: 1.20 (12/10)` (ipc),
/// `ilen: 4` (insnlen), `insn: 89 c7` (insn), branch stack entries
/// `0x4005d0/0x4005e0/P/-/-/0` (brstack, brstacksym, brstackoff), register
/// dumps `ABI:2 AX:0x1f …` (iregs, uregs).
pub fn strip_fields(mut s: &[u8]) -> &[u8] {
    loop {
        let before = s.len();
        s = trim(s);
        if let Some(i) = memchr::memmem::rfind(s, b"IPC: ") {
            if at_word(s, i) && is_ipc(&s[i + 5..]) {
                s = &s[..i];
            }
        }
        if let Some(i) = memchr::memmem::rfind(s, b"ilen: ") {
            if at_word(s, i) && is_digits(&s[i + 6..]) {
                s = &s[..i];
            }
        }
        if let Some(i) = memchr::memmem::rfind(s, b"insn:") {
            let bytes = &s[i + 5..];
            if at_word(s, i)
                && bytes
                    .split(|&c| c == b' ')
                    .filter(|t| !t.is_empty())
                    .all(|t| t.len() == 2 && t.iter().all(u8::is_ascii_hexdigit))
            {
                s = &s[..i];
            }
        }
        // Whole tokens from the end: branch entries and registers.
        loop {
            let t = trim(s);
            let (head, tok) = match t.iter().rposition(|&c| c == b' ') {
                Some(sp) => (&t[..sp], &t[sp + 1..]),
                None => (&t[..0], t),
            };
            if tok.is_empty() || !(is_branch(tok) || is_register(tok)) {
                break;
            }
            s = head;
        }
        s = trim(s);
        if s.len() == before {
            return s;
        }
    }
}

/// `s[i..]` starts a word (at the start or after a space).
fn at_word(s: &[u8], i: usize) -> bool {
    i == 0 || s[i - 1] == b' '
}

/// `1.20 (12/10)`
fn is_ipc(t: &[u8]) -> bool {
    let t = trim(t);
    let Some(sp) = t.iter().position(|&c| c == b' ') else {
        return false;
    };
    let (v, rest) = (&t[..sp], trim(&t[sp..]));
    is_time(v)
        && rest.len() > 2
        && rest[0] == b'('
        && rest[rest.len() - 1] == b')'
        && is_pid(&rest[1..rest.len() - 1])
}

/// `FROM/TO/P/-/-/0` (perf 6.1; later versions add fields): the
/// misprediction, in-transaction and abort flags, then the cycles.
fn is_branch(tok: &[u8]) -> bool {
    let parts: Vec<&[u8]> = tok.split(|&c| c == b'/').collect();
    parts.len() >= 6
        && !parts[0].is_empty()
        && !parts[1].is_empty()
        && matches!(parts[2], b"P" | b"M" | b"-")
        && matches!(parts[3], b"X" | b"-")
        && matches!(parts[4], b"A" | b"-")
        && is_digits(parts[5])
}

/// `ABI:2`, `AX:0x1f`, `R10:0x0`
fn is_register(tok: &[u8]) -> bool {
    let Some(c) = tok.iter().position(|&c| c == b':') else {
        return false;
    };
    let (name, value) = (&tok[..c], &tok[c + 1..]);
    let upper = !name.is_empty()
        && name
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    upper
        && (value
            .strip_prefix(b"0x")
            .is_some_and(|h| !h.is_empty() && h.iter().all(u8::is_ascii_hexdigit))
            || (name == b"ABI" && is_digits(value)))
}

/// A line that belongs to the sample before it rather than starting one:
/// the fields perf script prints after a callchain on a line of their own
/// (` ilen: 4`, ` insn: 89 c7`, ` IPC: …`), or a `srcline` line (two
/// spaces, then `file.c:123` or `[kernel.kallsyms][ffffffff81000000]`),
/// which follows the frame it locates. Only asked of lines that are no
/// sample header.
pub fn is_continuation(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Some(body) = line.strip_prefix(b" ") else {
        return false;
    };
    if matches!(body.first(), Some(b' ')) {
        // srcline: exactly two spaces, then no address.
        let src = &body[1..];
        return !src.is_empty() && src[0] != b' ' && frame(src).is_none();
    }
    !body.is_empty() && strip_fields(body).is_empty()
}

/// `name+0x1f` → `name` (only a hexadecimal offset is stripped).
fn strip_offset(sym: &[u8]) -> &[u8] {
    let hex = sym
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_hexdigit())
        .count();
    let p = sym.len() - hex;
    if hex > 0 && p >= 3 && &sym[p - 3..p] == b"+0x" {
        &sym[..p - 3]
    } else {
        sym
    }
}

/// Pseudo-dsos of user space that look like modules (`[name]`).
const USER_PSEUDO: &[&[u8]] = &[
    b"unknown",
    b"vdso",
    b"vsyscall",
    b"vvar",
    b"vvar_vclock",
    b"heap",
    b"stack",
    b"uprobes",
    b"vectors",
    b"sigpage",
    b"jit",
];

/// Kernel when the dso is `[kernel.kallsyms]` (or a section of it), a
/// module `[name]`, a vmlinux or `.ko` file, or when the address is in the
/// x86-64 kernel half (≥ 0xffff800000000000, which also catches unresolved
/// kernel addresses); guest kernel for `[guest.kernel.kallsyms…]`.
pub fn mode_of(dso: Option<&[u8]>, kernel_ip: bool) -> Mode {
    if let Some(d) = dso {
        if d.starts_with(b"[kernel.kallsyms]") {
            return Mode::Kernel;
        }
        if d.starts_with(b"[guest.kernel") {
            return Mode::GuestKernel;
        }
        if let [b'[', inner @ .., b']'] = d {
            let module = !inner.is_empty()
                && inner
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.');
            if module && !USER_PSEUDO.contains(&inner) {
                return Mode::Kernel;
            }
        } else {
            let base = d.rsplit(|&c| c == b'/').next().unwrap_or(d);
            if base.starts_with(b"vmlinux")
                || base.ends_with(b".ko")
                || base.windows(4).any(|w| w == b".ko.")
            {
                return Mode::Kernel;
            }
        }
    }
    if kernel_ip {
        Mode::Kernel
    } else {
        Mode::User
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(line: &str) -> Header<'_> {
        header(line.as_bytes()).unwrap_or_else(|| panic!("no header: {line:?}"))
    }

    #[test]
    fn headers() {
        // perf 6.1, -g, default fields (note the trailing space)
        let x = h("perf  6648   249.307147:     500250 cpu-clock: ");
        assert_eq!(x.comm, b"perf");
        assert_eq!(x.period, Some(500250));
        assert_eq!(x.event, b"cpu-clock");
        assert_eq!(x.time.and_then(parse_time), Some(249.307147));
        assert_eq!(x.rest, b"");
        // no callchain: the sample's frame follows the event
        let x = h("            perf  7498   255.362425:     500250 cpu-clock:  ffffffff821e5ae3 xas_load+0x53 ([kernel.kallsyms])");
        assert_eq!(
            x.rest,
            b"ffffffff821e5ae3 xas_load+0x53 ([kernel.kallsyms])"
        );
        // comm with spaces, -a (cpu), events padded to one width
        let x = h("my prog  9984 [001]   267.219280:    1001001  cpu-clock: ");
        assert_eq!((x.comm, x.event), (&b"my prog"[..], &b"cpu-clock"[..]));
        // exiting task
        let x = h(":-1    -1 [000]   267.531498:    1001001 task-clock: ");
        assert_eq!((x.comm, x.event), (&b":-1"[..], &b"task-clock"[..]));
        // -F comm,pid,tid,cpu,time,period,event,ip,sym,dso
        let x = h("pip  6662/6662  [000]   267.218168:    1001001  cpu-clock: ");
        assert_eq!(x.comm, b"pip");
        // -F comm,tid,cpu,time,event,ip,sym,dso,symoff: no period
        let x = h("pip  6662 [000]   267.218168:  cpu-clock: ");
        assert_eq!((x.period, x.event), (None, &b"cpu-clock"[..]));
        // -F comm,pid,event,ip,sym: neither time nor period
        let x = h("perf  6648 cpu-clock: ");
        assert_eq!((x.comm, x.period, x.time), (&b"perf"[..], None, None));
        // -F comm,tid,time,period,ip,sym,dso: no event, the period after the time
        let x = header(
            b"              dd 26457  7907.023005:     100000  ffffffff82252cd7 exc_page_fault ([kernel.kallsyms])",
        )
        .unwrap();
        assert_eq!(x.period, Some(100000));
        assert_eq!(
            x.rest,
            &b"ffffffff82252cd7 exc_page_fault ([kernel.kallsyms])"[..]
        );
        let x = header(b"  dd 26457  7907.023091:     100000      7f339574f736 _dl_x86_init_cpu_features (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)").unwrap();
        assert_eq!((x.period, x.comm), (Some(100000), &b"dd"[..]));
        // -F comm,pid,period,event
        let x = h("            perf  7498     500250 cpu-clock: ");
        assert_eq!(x.period, Some(500250));
        // event modifiers, tracepoints (inferno's examples)
        assert_eq!(
            h("vote   913    72.176760:     257597 cycles:uppp:").event,
            b"cycles:uppp"
        );
        assert_eq!(
            h("V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:").comm,
            b"V8 WorkerThread"
        );
        let x =
            h("kworker/u4:1-ev  101 [000] 1.000001: sched:sched_switch: prev_comm=x prev_pid=1");
        assert_eq!(
            (x.comm, x.event),
            (&b"kworker/u4:1-ev"[..], &b"sched:sched_switch"[..])
        );
        // no event field
        let x = h("perf  7498   255.361927:  ffffffff821e5ae3 xas_load+0x53 ([kernel.kallsyms])");
        assert_eq!((x.event, x.time), (&b""[..], Some(&b"255.361927"[..])));
        assert_eq!(
            x.rest,
            b"ffffffff821e5ae3 xas_load+0x53 ([kernel.kallsyms])"
        );
    }

    #[test]
    fn non_samples() {
        for l in [
            "         swapper     0     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text",
            "            perf  7498   255.361423: PERF_RECORD_COMM exec: perf:7498/7498",
            "# ========",
        ] {
            assert_eq!(classify(l.as_bytes()), LineKind::NonSample, "{l}");
        }
        for l in [
            "samples  %        image name               symbol name",
            "   153 finish_task_switch.isra.0                  0.2224",
            "CPU: Core 2, speed 2.534e+06 MHz (estimated)",
            "a;b;c 12",
            "\u{1}\u{2}garbage: 12:",
        ] {
            assert_eq!(classify(l.as_bytes()), LineKind::Malformed, "{l}");
        }
    }

    #[test]
    fn frames() {
        let f = frame(b"\tffffffff81567085 __perf_addr_filters_adjust+0x5 ([kernel.kallsyms])")
            .unwrap();
        assert_eq!(f.sym, b"__perf_addr_filters_adjust");
        assert_eq!(f.dso, Some(&b"[kernel.kallsyms]"[..]));
        assert_eq!(f.mode(), Mode::Kernel);
        let f = frame(b"\t           14f38 intel_check_word.constprop.0+0x158 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)").unwrap();
        assert_eq!(
            (f.sym, f.mode()),
            (&b"intel_check_word.constprop.0"[..], Mode::User)
        );
        let f = frame(b"\t    7f15d474f8a8 [unknown] ([unknown])").unwrap();
        assert_eq!(
            (f.sym, f.dso, f.mode()),
            (UNKNOWN, Some(UNKNOWN), Mode::User)
        );
        let f = frame(b"\tffffffffc0a1b2c3 [unknown] ([unknown])").unwrap();
        assert_eq!(f.mode(), Mode::Kernel);
        // inferno's examples: module, vmlinux file, no symbol, C++
        let f = frame(b"7d8 ipv4_conntrack_local+0x7f8f80b8 ([nf_conntrack_ipv4])").unwrap();
        assert_eq!(
            (f.sym, f.mode()),
            (&b"ipv4_conntrack_local"[..], Mode::Kernel)
        );
        let f =
            frame(b"8c3453 tcp_sendmsg (/lib/modules/4.3.0-rc1-virtual/build/vmlinux)").unwrap();
        assert_eq!(f.mode(), Mode::Kernel);
        let f = frame(b"ffffffff81aebbfe start_kernel ([kernel.kallsyms].init.text)").unwrap();
        assert_eq!(f.mode(), Mode::Kernel);
        let f = frame(b"7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)").unwrap();
        assert_eq!(
            (f.sym, f.dso),
            (UNKNOWN, Some(&b"/lib/x86_64-linux-gnu/libc-2.15.so"[..]))
        );
        let f = frame(b"4005d0 std::vector<int>::push_back(int const&)+0x10 (/tmp/a.out)").unwrap();
        assert_eq!(f.sym, b"std::vector<int>::push_back(int const&)");
        let f = frame(b"4005d0 operator()(int)").unwrap();
        assert_eq!((f.sym, f.dso), (&b"operator()(int)"[..], None));
        let f = frame(b"7fff12345 __vdso_clock_gettime+0x4 ([vdso])").unwrap();
        assert_eq!(f.mode(), Mode::User);
        // -F ...,ip,sym without dso or offset
        let f = frame(b"\t           14f38 intel_check_word.constprop.0").unwrap();
        assert_eq!((f.sym, f.dso), (&b"intel_check_word.constprop.0"[..], None));
        assert!(frame(b"\tnot a frame").is_none());
        assert!(frame(b"").is_none());
    }
}
