//! The small pieces every history output shares: numbers in the output
//! unit, symbol labels, sparklines and words folded into 80 columns.

use super::Symbol;

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/// A sparkline is at most this wide; longer series are averaged in buckets.
pub const SPARK_MAX: usize = 40;

/// Words folded into lines of at most `width` columns (a longer word
/// alone); continuation lines indented two more than the first.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let cont = format!("{indent}  ");
    let mut lines = Vec::new();
    let mut line = indent.clone();
    for word in text.split_whitespace() {
        let empty = line.trim().is_empty();
        if !empty && crate::render::width(&line) + 1 + crate::render::width(word) > width {
            lines.push(std::mem::replace(&mut line, cont.clone()));
        } else if !empty {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.trim().is_empty() {
        lines.push(line);
    }
    lines
}

/// A sparkline of `levels` (bucket means past [`SPARK_MAX`]), min to max.
pub fn sparkline(levels: &[f64]) -> String {
    let n = levels.len();
    let cells: Vec<f64> = if n <= SPARK_MAX {
        levels.to_vec()
    } else {
        (0..SPARK_MAX)
            .map(|j| {
                let (a, b) = (
                    j * n / SPARK_MAX,
                    ((j + 1) * n / SPARK_MAX).max(j * n / SPARK_MAX + 1),
                );
                levels[a..b].iter().sum::<f64>() / (b - a) as f64
            })
            .collect()
    };
    let lo = cells.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = cells.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    cells
        .iter()
        .map(|&v| {
            if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
                BARS[0]
            } else {
                let i = ((v - lo) / (hi - lo) * 7.0).round() as usize;
                BARS[i.min(7)]
            }
        })
        .collect()
}

/// A symbol's label as the comparison shows it: `name`, or `name [dso]`
/// with the dso shortened (`libc.so.6`), none for the core kernel
/// (`[kernel.kallsyms]`) and none given.
pub fn label(s: &Symbol) -> String {
    let name = crate::render::printable(&s.name);
    match s.dso.as_deref() {
        Some(d) if !d.is_empty() && d != "[kernel.kallsyms]" => {
            format!(
                "{name} [{}]",
                crate::render::printable(crate::render::short_dso(d))
            )
        }
        _ => name,
    }
}

/// A value in the output unit, 3 decimals.
pub fn value(v: f64) -> String {
    if v.is_finite() {
        let s = format!("{v:.3}");
        if s == "-0.000" {
            "0.000".to_string()
        } else {
            s
        }
    } else if v > 0.0 {
        "inf".to_string()
    } else {
        "-inf".to_string()
    }
}

/// A signed value: `+1.234`, `-0.500`.
pub fn signed(v: f64) -> String {
    let s = value(v);
    if s.starts_with('-') || s == "0.000" {
        s
    } else {
        format!("+{s}")
    }
}
