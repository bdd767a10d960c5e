//! What the HTML report and the SVG flame graph share: escaping text for
//! markup, and clipping labels.

/// Escape text for HTML/SVG element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML (the SVG is XML);
            // bidirectional controls would reorder what is shown.
            c if (c.is_control() && c != '\n' && c != '\t') || super::is_bidi(c) => {
                out.push('\u{fffd}')
            }
            c => out.push(c),
        }
    }
    out
}

/// Shorten a label to `max` characters (with an ellipsis).
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('\u{2026}');
        t
    }
}
