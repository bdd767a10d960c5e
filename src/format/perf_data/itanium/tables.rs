//! libiberty's tables: operators (code, name, operand count) and the
//! builtin types (name, how their literals print).

use super::{Builtin, Lit, Op};

/// libiberty's `cplus_demangle_operators`.
pub(super) static OPERATORS: [Op; 73] = {
    const fn op(code: &'static str, name: &'static str, args: u8) -> Op {
        Op { code, name, args }
    }
    [
        op("aN", "&=", 2),
        op("aS", "=", 2),
        op("aa", "&&", 2),
        op("ad", "&", 1),
        op("an", "&", 2),
        op("at", "alignof ", 1),
        op("aw", "co_await ", 1),
        op("az", "alignof ", 1),
        op("cc", "const_cast", 2),
        op("cl", "()", 2),
        op("cm", ",", 2),
        op("co", "~", 1),
        op("dV", "/=", 2),
        op("dX", "[...]=", 3),
        op("da", "delete[] ", 1),
        op("dc", "dynamic_cast", 2),
        op("de", "*", 1),
        op("di", "=", 2),
        op("dl", "delete ", 1),
        op("ds", ".*", 2),
        op("dt", ".", 2),
        op("dv", "/", 2),
        op("dx", "]=", 2),
        op("eO", "^=", 2),
        op("eo", "^", 2),
        op("eq", "==", 2),
        op("fL", "...", 3),
        op("fR", "...", 3),
        op("fl", "...", 2),
        op("fr", "...", 2),
        op("ge", ">=", 2),
        op("gs", "::", 1),
        op("gt", ">", 2),
        op("ix", "[]", 2),
        op("lS", "<<=", 2),
        op("le", "<=", 2),
        op("li", "operator\"\" ", 1),
        op("ls", "<<", 2),
        op("lt", "<", 2),
        op("mI", "-=", 2),
        op("mL", "*=", 2),
        op("mi", "-", 2),
        op("ml", "*", 2),
        op("mm", "--", 1),
        op("na", "new[]", 3),
        op("ne", "!=", 2),
        op("ng", "-", 1),
        op("nt", "!", 1),
        op("nw", "new", 3),
        op("nx", "noexcept", 1),
        op("oR", "|=", 2),
        op("oo", "||", 2),
        op("or", "|", 2),
        op("pL", "+=", 2),
        op("pl", "+", 2),
        op("pm", "->*", 2),
        op("pp", "++", 1),
        op("ps", "+", 1),
        op("pt", "->", 2),
        op("qu", "?", 3),
        op("rM", "%=", 2),
        op("rS", ">>=", 2),
        op("rc", "reinterpret_cast", 2),
        op("rm", "%", 2),
        op("rs", ">>", 2),
        op("sP", "sizeof...", 1),
        op("sZ", "sizeof...", 1),
        op("sc", "static_cast", 2),
        op("ss", "<=>", 2),
        op("st", "sizeof ", 1),
        op("sz", "sizeof ", 1),
        op("tr", "throw", 0),
        op("tw", "throw ", 1),
    ]
};

/// libiberty's `cplus_demangle_builtin_types`, by letter.
pub(super) fn builtin(c: u8) -> Option<&'static Builtin> {
    const fn b(name: &'static str, lit: Lit) -> Builtin {
        Builtin { name, lit }
    }
    static LETTERS: [(u8, Builtin); 21] = [
        (b'a', b("signed char", Lit::Default)),
        (b'b', b("bool", Lit::Bool)),
        (b'c', b("char", Lit::Default)),
        (b'd', b("double", Lit::Float)),
        (b'e', b("long double", Lit::Float)),
        (b'f', b("float", Lit::Float)),
        (b'g', b("__float128", Lit::Float)),
        (b'h', b("unsigned char", Lit::Default)),
        (b'i', b("int", Lit::Int)),
        (b'j', b("unsigned int", Lit::Unsigned)),
        (b'l', b("long", Lit::Long)),
        (b'm', b("unsigned long", Lit::UnsignedLong)),
        (b'n', b("__int128", Lit::Default)),
        (b'o', b("unsigned __int128", Lit::Default)),
        (b's', b("short", Lit::Default)),
        (b't', b("unsigned short", Lit::Default)),
        (b'v', b("void", Lit::Void)),
        (b'w', b("wchar_t", Lit::Default)),
        (b'x', b("long long", Lit::LongLong)),
        (b'y', b("unsigned long long", Lit::UnsignedLongLong)),
        (b'z', b("...", Lit::Default)),
    ];
    LETTERS.iter().find(|(l, _)| *l == c).map(|(_, b)| b)
}

/// The `D` builtins: `Dd`, `De`, `Df`, `Dh`, `Du`, `Ds`, `Di`, `Dn`.
pub(super) fn d_builtin(c: u8) -> Option<&'static Builtin> {
    static D: [(u8, Builtin); 8] = [
        (
            b'f',
            Builtin {
                name: "decimal32",
                lit: Lit::Default,
            },
        ),
        (
            b'd',
            Builtin {
                name: "decimal64",
                lit: Lit::Default,
            },
        ),
        (
            b'e',
            Builtin {
                name: "decimal128",
                lit: Lit::Default,
            },
        ),
        (
            b'h',
            Builtin {
                name: "half",
                lit: Lit::Float,
            },
        ),
        (
            b'u',
            Builtin {
                name: "char8_t",
                lit: Lit::Default,
            },
        ),
        (
            b's',
            Builtin {
                name: "char16_t",
                lit: Lit::Default,
            },
        ),
        (
            b'i',
            Builtin {
                name: "char32_t",
                lit: Lit::Default,
            },
        ),
        (
            b'n',
            Builtin {
                name: "decltype(nullptr)",
                lit: Lit::Default,
            },
        ),
    ];
    D.iter().find(|(l, _)| *l == c).map(|(_, b)| b)
}
