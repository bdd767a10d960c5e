//! Demangling of user-space symbol names, as perf report shows them.
//!
//! Input: a symbol name from an ELF symbol table (or a synthesised PLT
//! entry's target). Output: the name perf 6.1 prints by default, or `None`
//! when the name is not mangled. perf asks libiberty's `cplus_demangle` with
//! no options: Rust first (legacy `_ZN…17h<hash>E` and v0 `_R…`, hash and
//! crate disambiguators hidden, any `.suffix` such as `.llvm.123` or `.cold`
//! dropped), then C++ (Itanium) without parameter lists, return types or
//! clone suffixes. The demangling itself is done by the `rustc-demangle`
//! and `cpp_demangle` crates; [`cxx`] only maps cpp_demangle's spelling onto
//! libiberty's where the two differ (the standard abbreviations `Si`, `So`,
//! `Sd`, `Ss`, qualifiers printed after a parameterless name, thunks and
//! transaction clones), checked against `c++filt -p -i` on the 190 k C++
//! names of a Debian system's libraries.

/// The demangled form of `name`, or `None` when it is not a mangled name
/// (or not one the demanglers accept: then perf too shows it raw).
pub fn demangle(name: &str) -> Option<String> {
    if let Some(r) = rust(name) {
        return Some(r);
    }
    cxx(name)
}

/// Rust, when libiberty would take the name as Rust: `_R` + an upper-case
/// letter (v0; a `.suffix` is ignored), or `_ZN…E` ending in a
/// `17h<16 hex digits>` hash segment (legacy; a `.suffix` after the `E` is
/// ignored).
fn rust(name: &str) -> Option<String> {
    if let Some(target) = name.strip_suffix("@plt") {
        return Some(format!("{}@plt", rust(target)?));
    }
    let mangled = if let Some(rest) = name.strip_prefix("_R") {
        if !rest.starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        name.split('.').next()?
    } else if name.starts_with("_ZN") {
        legacy_rust_part(name)?
    } else {
        return None;
    };
    let d = rustc_demangle::try_demangle(mangled).ok()?;
    Some(format!("{d:#}"))
}

/// The `_ZN…E` part of a legacy Rust name (libiberty's rule: the last `E`
/// that ends the name or is followed by `.`), when its last path segment is
/// the `17h` + 16 hex digits hash.
fn legacy_rust_part(name: &str) -> Option<&str> {
    let b = name.as_bytes();
    let mut end = b.len();
    let mut after_dot = true;
    while end > 0 && !(after_dot && b[end - 1] == b'E') {
        after_dot = b[end - 1] == b'.';
        end -= 1;
    }
    let body = name.get(3..end.checked_sub(1)?)?;
    let hash = body.get(body.len().checked_sub(19)?..)?;
    let ok = hash.starts_with("17h") && hash[3..].bytes().all(|c| c.is_ascii_hexdigit());
    ok.then(|| &name[..end])
}

/// C++ (Itanium ABI) as libiberty prints it without `DMGL_PARAMS`.
fn cxx(name: &str) -> Option<String> {
    if let Some(rest) = name.strip_prefix("_GLOBAL_") {
        // `_GLOBAL_[._$][ID]_<rest>`: constructors/destructors of a unit.
        let b = rest.as_bytes();
        if b.len() > 3 && matches!(b[0], b'.' | b'_' | b'$') && b[2] == b'_' {
            let what = match b[1] {
                b'I' => "constructors",
                b'D' => "destructors",
                _ => return None,
            };
            let inner = &rest[3..];
            let inner = cxx(inner).unwrap_or_else(|| inner.to_string());
            return Some(format!("global {what} keyed to {inner}"));
        }
        return None;
    }
    if !name.starts_with("_Z") {
        return None;
    }
    // A PLT entry's name is its target's, demangled, plus `@plt`.
    if let Some(target) = name.strip_suffix("@plt") {
        return Some(format!("{}@plt", cxx(target)?));
    }
    // Special names whose inner encoding libiberty prints with parameters.
    for (prefix, what, offsets) in [
        ("_ZTh", "non-virtual thunk to ", 1),
        ("_ZTv", "virtual thunk to ", 1),
        ("_ZTc", "covariant return thunk to ", 2),
        ("_ZGTt", "transaction clone for ", 0),
    ] {
        if let Some(rest) = name.strip_prefix(prefix) {
            // `h`/`v` of the first call offset belong to the prefix.
            let rest = if offsets > 0 {
                skip_call_offsets(&name[3..], offsets)?
            } else {
                rest
            };
            let inner = format!("_Z{rest}");
            // The clone suffix belongs to the whole name, printed only with
            // parameters at the top level.
            let inner = cxx_with_params(&inner)?;
            let inner = match inner.find(" [clone ") {
                Some(i) => &inner[..i],
                None => &inner,
            };
            return Some(format!("{what}{inner}"));
        }
    }
    // Without parameters libiberty ignores whatever follows the encoding
    // (a `@@GLIBCXX_3.4` version of a debug file's .symtab name).
    let (sym, _tail) = cpp_demangle::BorrowedSymbol::with_tail(name.as_bytes()).ok()?;
    let opts = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    let out = sym.demangle_with_options(&opts).ok()?;
    Some(libiberty_spelling(&out, false))
}

/// A whole encoding with its parameters (no return type), for the inner
/// name of a thunk or transaction clone.
fn cxx_with_params(name: &str) -> Option<String> {
    let sym = cpp_demangle::Symbol::new(name.as_bytes()).ok()?;
    let opts = cpp_demangle::DemangleOptions::new().no_return_type();
    let out = sym.demangle_with_options(&opts).ok()?;
    Some(libiberty_spelling(&out, true))
}

/// Skip `n` call offsets (`h<number>_` or `v<number>_<number>_`, numbers
/// optionally negative with `n`).
fn skip_call_offsets(mut s: &str, n: usize) -> Option<&str> {
    fn number(s: &str) -> Option<&str> {
        let s = s.strip_prefix('n').unwrap_or(s);
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0).then(|| &s[digits..])?.strip_prefix('_')
    }
    for _ in 0..n {
        s = if let Some(r) = s.strip_prefix('h') {
            number(r)?
        } else if let Some(r) = s.strip_prefix('v') {
            number(number(r)?)?
        } else {
            return None;
        };
    }
    Some(s)
}

/// The standard abbreviations as cpp_demangle and libiberty spell them:
/// (cpp_demangle's form, libiberty's simple form, libiberty's full form,
/// the class name used for constructors and destructors).
const ABBREVIATIONS: [(&str, &str, &str, &str); 4] = [
    (
        "std::basic_istream<char, std::char_traits<char> >",
        "std::istream",
        "std::basic_istream<char, std::char_traits<char> >",
        "basic_istream",
    ),
    (
        "std::basic_iostream<char, std::char_traits<char> >",
        "std::iostream",
        "std::basic_iostream<char, std::char_traits<char> >",
        "basic_iostream",
    ),
    (
        "std::ostream",
        "std::ostream",
        "std::basic_ostream<char, std::char_traits<char> >",
        "basic_ostream",
    ),
    (
        "std::string",
        "std::string",
        "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        "basic_string",
    ),
];

/// Rewrite cpp_demangle's output in libiberty's (non-verbose) spelling.
fn libiberty_spelling(out: &str, params: bool) -> String {
    let mut s = out.to_string();
    for (cpp, simple, full, class) in ABBREVIATIONS {
        // libiberty writes the full form before a constructor or destructor
        // (`std::basic_ostream<…>::basic_ostream`), the simple one elsewhere.
        let short = &simple[5..];
        for dtor in ["", "~"] {
            let from = format!("{cpp}::{dtor}{}", if cpp == full { class } else { short });
            if s.contains(&from) {
                s = s.replace(&from, &format!("{full}::{dtor}{class}"));
            }
        }
        if cpp != simple {
            s = replace_not_before(
                &s,
                cpp,
                simple,
                &[format!("::{class}"), format!("::~{class}")],
            );
        }
    }
    // Empty template argument packs: cpp_demangle leaves their separator
    // (`<bool, >`), libiberty takes it back (and then writes `>>`).
    while s.contains(", >") {
        s = s.replace(", >", ">");
    }
    // Integer literals of the builtin types: `(unsigned int)4` is `4u`.
    if s.contains(')') {
        s = literal_suffixes(&s);
    }
    if !params {
        // Qualifiers of the function itself: libiberty prints them only with
        // the parameter list.
        loop {
            let t = s.trim_end();
            let cut = [" const", " volatile", " &&", " &"]
                .iter()
                .find_map(|q| t.strip_suffix(q));
            match cut {
                Some(c) if !c.is_empty() => s = c.to_string(),
                _ => break,
            }
        }
    }
    s
}

/// `(unsigned int)4` → `4u`, `(long)-1` → `-1l`, … as libiberty prints
/// template arguments of the builtin integer types (`int` has no cast in
/// either spelling).
fn literal_suffixes(s: &str) -> String {
    const CASTS: [(&str, &str); 5] = [
        ("(unsigned long long)", "ull"),
        ("(unsigned long)", "ul"),
        ("(unsigned int)", "u"),
        ("(long long)", "ll"),
        ("(long)", "l"),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'scan: while let Some(i) = rest.find('(') {
        out.push_str(&rest[..i]);
        let at = &rest[i..];
        for (cast, suffix) in CASTS {
            if let Some(num) = at.strip_prefix(cast) {
                let sign = usize::from(num.starts_with('-'));
                let digits = num[sign..].bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    out.push_str(&num[..sign + digits]);
                    out.push_str(suffix);
                    rest = &num[sign + digits..];
                    continue 'scan;
                }
            }
        }
        out.push('(');
        rest = &at[1..];
    }
    out.push_str(rest);
    out
}

/// Replace `from` by `to` except where `from` is followed by one of `keep`.
fn replace_not_before(s: &str, from: &str, to: &str, keep: &[String]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(from) {
        let after = &rest[i + from.len()..];
        out.push_str(&rest[..i]);
        if keep.iter().any(|k| after.starts_with(k.as_str())) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (mangled, what perf 6.1 shows): rows of `perf report` on a real
    /// recording, and `c++filt -p -i` (libiberty, as perf calls it) for the
    /// special cases.
    #[test]
    fn names_as_perf_shows_them() {
        for (m, want) in [
            ("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write"),
            ("_ZN4core3fmt5write17h0123456789abcdefE.llvm.123456", "core::fmt::write"),
            ("_ZN4core3fmt5write17h0123456789abcdefE.cold", "core::fmt::write"),
            (
                "_ZN52_$LT$rustprog..Circle$u20$as$u20$rustprog..Shape$GT$4area17h9b6a11d1f600f5a7E",
                "<rustprog::Circle as rustprog::Shape>::area",
            ),
            ("_RNvNtCsgEmfK2I1SDS_4core3fmt5write", "core::fmt::write"),
            ("_RNvNtCsgEmfK2I1SDS_4core3fmt5write.cold", "core::fmt::write"),
            (
                "_RINvNtNtNtNtCsgEmfK2I1SDS_4core5slice4sort8unstable9quicksort9quicksortNtNtCslNYArtu3iFV_5alloc6string6StringNvYB17_NtNtBa_3cmp10PartialOrd2ltECslJxvM8I8iJi_8rustprog",
                "core::slice::sort::unstable::quicksort::quicksort::<alloc::string::String, <alloc::string::String as core::cmp::PartialOrd>::lt>",
            ),
            ("_ZNK6shapes6Square4areaEi", "shapes::Square::area"),
            ("_ZN6shapes6Square4areaEi.constprop.0.isra.0", "shapes::Square::area"),
            ("_ZN12_GLOBAL__N_118accumulate_squaresIlEET_RKSt6vectorIS1_SaIS1_EE", "(anonymous namespace)::accumulate_squares<long>"),
            ("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()"),
            ("_ZNSi6sentryC1ERSib", "std::istream::sentry::sentry"),
            ("_ZNSiC1Ev", "std::basic_istream<char, std::char_traits<char> >::basic_istream"),
            ("_ZNSoC1Ev", "std::basic_ostream<char, std::char_traits<char> >::basic_ostream"),
            ("_ZNSoD0Ev", "std::basic_ostream<char, std::char_traits<char> >::~basic_ostream"),
            ("_ZNSo5flushEv", "std::ostream::flush"),
            ("_ZNSd4swapERSd", "std::iostream::swap"),
            ("_ZNSsC1EPKcRKSaIcE", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string"),
            ("_ZNSs6appendEPKc", "std::string::append"),
            ("_ZNKRSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv", "std::__cxx11::basic_stringbuf<char, std::char_traits<char>, std::allocator<char> >::str"),
            ("_ZTv0_n24_NSoD0Ev", "virtual thunk to std::basic_ostream<char, std::char_traits<char> >::~basic_ostream()"),
            ("_ZThn16_NSdD1Ev", "non-virtual thunk to std::basic_iostream<char, std::char_traits<char> >::~basic_iostream()"),
            ("_ZGTtNKSt11logic_error4whatEv", "transaction clone for std::logic_error::what() const"),
            ("_ZGVZ4mainE1x", "guard variable for main::x"),
            (
                "_ZThn8_N12_GLOBAL__N_113MPPassManagerD0Ev.llvm.123",
                "non-virtual thunk to (anonymous namespace)::MPPassManager::~MPPassManager()",
            ),
            ("_ZNSo5flushEv@@GLIBCXX_3.4", "std::ostream::flush"),
            ("_ZNSo5flushEv@plt", "std::ostream::flush@plt"),
            ("_ZN4core3fmt5write17h0123456789abcdefE@plt", "core::fmt::write@plt"),
        ] {
            assert_eq!(demangle(m).as_deref(), Some(want), "{m}");
        }
        for plain in ["write", "__GI___libc_write", "_init", "_ZN", "_Rx", "caml"] {
            assert_eq!(demangle(plain), None, "{plain}");
        }
    }

    proptest::proptest! {
        /// Names come from files: any text, mangled-looking or not, gives a
        /// name or `None`, never a panic.
        #[test]
        fn never_panics(
            prefix in proptest::sample::select(vec![
                "", "_Z", "_ZN", "_ZTh", "_ZTv", "_ZTc", "_ZGTt", "_R", "_RN", "_GLOBAL__I_",
            ]),
            body in "[A-Za-z0-9_.$@<>()&,: \u{e9}-]{0,40}",
            suffix in proptest::sample::select(vec!["", "E", "17h0123456789abcdefE", "@plt", ".cold"]),
        ) {
            let _ = demangle(&format!("{prefix}{body}{suffix}"));
        }
    }
}
