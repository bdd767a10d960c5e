//! Kernel names in version order, for every part that lists kernels
//! (history's series, batch's kernels): `v6.9` < `v6.10`, `6.8-rc1` <
//! `6.8-rc7` < `6.8` < `6.8.1`; names that are not versions after them, in
//! natural order (digit runs compared as numbers).

use std::cmp::Ordering;

/// A kernel name read as a release: `[v|linux-]A.B[.C…][-rcN][suffix]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// A, B, C…, trailing zeros removed (6.8.0 is 6.8).
    pub nums: Vec<u64>,
    /// `-rcN`; None for a release.
    pub rc: Option<u64>,
    /// Whatever follows (`-45-generic`, `+`), compared naturally.
    pub suffix: String,
}

impl Version {
    pub fn parse(name: &str) -> Option<Version> {
        let s = name
            .strip_prefix("linux-")
            .or_else(|| name.strip_prefix('v'))
            .unwrap_or(name);
        let mut nums = Vec::new();
        let mut rest = s;
        loop {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 9 {
                return None;
            }
            nums.push(rest[..digits].parse().ok()?);
            rest = &rest[digits..];
            match rest.strip_prefix('.') {
                Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => rest = r,
                _ => break,
            }
        }
        if nums.len() < 2 {
            return None;
        }
        let mut rc = None;
        for pre in ["-rc", "rc", "~rc"] {
            if let Some(r) = rest.strip_prefix(pre) {
                let digits = r.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 && digits <= 9 {
                    rc = r[..digits].parse().ok();
                    rest = &r[digits..];
                    break;
                }
            }
        }
        while nums.len() > 2 && nums.last() == Some(&0) {
            nums.pop();
        }
        Some(Version {
            nums,
            rc,
            suffix: rest.to_string(),
        })
    }

    /// The release line `A.B`.
    pub fn line(&self) -> (u64, u64) {
        (self.nums[0], self.nums[1])
    }

    pub fn cmp_release(&self, other: &Version) -> Ordering {
        let n = self.nums.len().max(other.nums.len());
        for i in 0..n {
            let a = self.nums.get(i).copied().unwrap_or(0);
            let b = other.nums.get(i).copied().unwrap_or(0);
            if a != b {
                return a.cmp(&b);
            }
        }
        // An -rc comes before its release.
        match (self.rc, other.rc) {
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
        .then_with(|| natural(&self.suffix, &other.suffix))
    }
}

/// Natural order: runs of digits compare as numbers, the rest as text; the
/// plain text decides ties (so the order is total).
pub fn natural(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while !x.is_empty() && !y.is_empty() {
        if x[0].is_ascii_digit() && y[0].is_ascii_digit() {
            let dx = x.iter().take_while(|c| c.is_ascii_digit()).count();
            let dy = y.iter().take_while(|c| c.is_ascii_digit()).count();
            let (nx, ny) = (trim_zeros(&x[..dx]), trim_zeros(&y[..dy]));
            let o = nx.len().cmp(&ny.len()).then_with(|| nx.cmp(ny));
            if o != Ordering::Equal {
                return o;
            }
            x = &x[dx..];
            y = &y[dy..];
        } else {
            if x[0] != y[0] {
                return x[0].cmp(&y[0]);
            }
            x = &x[1..];
            y = &y[1..];
        }
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let z = d.iter().take_while(|&&c| c == b'0').count();
    &d[z.min(d.len().saturating_sub(1))..]
}

/// Version order: versions first (by release, then name), the other names
/// after them in natural order.
pub fn version_cmp(a: &str, b: &str) -> Ordering {
    match (Version::parse(a), Version::parse(b)) {
        (Some(x), Some(y)) => x.cmp_release(&y).then_with(|| a.cmp(b)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => natural(a, b),
    }
}
