//! Numbers with a fixed number of decimals, exactly as `format!("{v:.d$}")`
//! and `format!("{v:+.d$}")` write them, several times faster: a table of a
//! million rows formats four million of them, twice (widths, then lines).
//!
//! The value times 10^d is rounded to an integer in floating point; that
//! is the correctly rounded result unless the product lies so near a half
//! that its own rounding error could have moved it across (an exact tie,
//! such as 0.125 at two decimals, is one): those, and values too large,
//! too precise or not finite, are left to `format!`.

use std::fmt::Write;

/// 10^d, exact in an f64 for every d here.
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// `|v|` times 10^d rounded to the nearest integer, when that is certain.
fn scaled(v: f64, d: usize) -> Option<u64> {
    let p = *POW10.get(d)?;
    let a = v.abs() * p;
    if a.is_nan() || a >= 4.0e15 {
        return None;
    }
    // Exact: a and its floor are below 2^53.
    let frac = a - a.floor();
    // The product is within a relative 2^-53 of |v|·10^d: only a half that
    // close is in doubt (a margin of eight times that).
    if (frac - 0.5).abs() <= a * f64::EPSILON * 4.0 {
        return None;
    }
    Some(a.round() as u64)
}

/// Append `v` with `d` decimals (and a `+` before positive values when
/// `plus`), as `format!` would.
pub fn push(out: &mut String, v: f64, d: usize, plus: bool) {
    let Some(n) = scaled(v, d) else {
        let _ = if plus {
            write!(out, "{v:+.d$}")
        } else {
            write!(out, "{v:.d$}")
        };
        return;
    };
    // format! writes the sign of the value itself: -0.0 and -0.001 at two
    // decimals are "-0.00".
    if v.is_sign_negative() {
        out.push('-');
    } else if plus {
        out.push('+');
    }
    // Digits from the last; a point after the d-th; at least one digit
    // before the point.
    let mut buf = [0u8; 24];
    let mut at = buf.len();
    let mut rest = n;
    let mut written = 0;
    while rest > 0 || written <= d {
        if written == d && d > 0 {
            at -= 1;
            buf[at] = b'.';
        }
        at -= 1;
        buf[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        written += 1;
    }
    // (Only ASCII digits and a point were written.)
    out.push_str(std::str::from_utf8(&buf[at..]).unwrap_or_default());
}

/// `format!("{v:.d$}")`.
pub fn fixed(v: f64, d: usize) -> String {
    let mut s = String::with_capacity(24);
    push(&mut s, v, d, false);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `format!("{v:+.d$}")`.
    fn signed(v: f64, d: usize) -> String {
        let mut s = String::with_capacity(24);
        push(&mut s, v, d, true);
        s
    }

    /// A small xorshift: many values of every magnitude, reproducibly.
    fn values() -> Vec<f64> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut v = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            0.125,
            0.375,
            1.0005,
            0.0005,
            -0.0004,
            -0.04,
            9.9995,
            99.5,
            1e15,
            4.0e15,
            1e300,
            -1e-300,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            0.1 + 0.2,
        ];
        for _ in 0..20_000 {
            let r = next();
            // Random bits (any magnitude), small counts over exposures
            // (what tables print), and exact halves at some decimals.
            v.push(f64::from_bits(r));
            v.push((r % 100_000) as f64 / ((next() % 1_000_000) + 1) as f64 * 100.0);
            v.push((r % 2_000_000) as f64 / 2f64.powi((next() % 12) as i32) - 1000.0);
        }
        v
    }

    #[test]
    fn every_value_as_format_writes_it() {
        for v in values() {
            for d in 0..12 {
                assert_eq!(fixed(v, d), format!("{v:.d$}"), "{v:e} at {d}");
                assert_eq!(signed(v, d), format!("{v:+.d$}"), "{v:e} at {d}");
            }
        }
    }
}
