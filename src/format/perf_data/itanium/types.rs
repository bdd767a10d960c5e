//! Types, template arguments and substitutions (libiberty's
//! `cplus_demangle_type`, `d_template_args`, `d_substitution`).

use super::parse::Parser;
use super::tables::{builtin, d_builtin};
use super::{Id, Node, Qual};

/// The standard abbreviations: code, simple form, full form (before a
/// constructor or destructor), the name a constructor takes.
const STANDARD_SUBS: [(u8, &str, &str, Option<&str>); 7] = [
    (b't', "std", "std", None),
    (b'a', "std::allocator", "std::allocator", Some("allocator")),
    (
        b'b',
        "std::basic_string",
        "std::basic_string",
        Some("basic_string"),
    ),
    (
        b's',
        "std::string",
        "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        Some("basic_string"),
    ),
    (
        b'i',
        "std::istream",
        "std::basic_istream<char, std::char_traits<char> >",
        Some("basic_istream"),
    ),
    (
        b'o',
        "std::ostream",
        "std::basic_ostream<char, std::char_traits<char> >",
        Some("basic_ostream"),
    ),
    (
        b'd',
        "std::iostream",
        "std::basic_iostream<char, std::char_traits<char> >",
        Some("basic_iostream"),
    ),
];

impl<'a> Parser<'a> {
    pub fn ty(&mut self) -> Option<Id> {
        self.enter()?;
        let r = self.ty_inner();
        self.leave();
        r
    }

    fn next_is_type_qual(&self) -> bool {
        match self.peek() {
            b'r' | b'V' | b'K' => true,
            b'D' => matches!(self.peek_next(), b'x' | b'o' | b'O' | b'w'),
            _ => false,
        }
    }

    /// `[r] [V] [K]` and the function qualifiers `Dx`, `Do`, `DO…E`,
    /// `Dw…E`, outermost first.
    pub fn cv_qualifiers(&mut self, member_fn: bool) -> Option<Vec<(Qual, Option<Id>)>> {
        let mut quals = Vec::new();
        while self.next_is_type_qual() {
            let c = self.next();
            let pick = |plain, this| if member_fn { this } else { plain };
            let q = match c {
                b'r' => (pick(Qual::Restrict, Qual::RestrictThis), None),
                b'V' => (pick(Qual::Volatile, Qual::VolatileThis), None),
                b'K' => (pick(Qual::Const, Qual::ConstThis), None),
                _ => match self.next() {
                    b'x' => (Qual::TxSafe, None),
                    b'o' => (Qual::Noexcept, None),
                    b'O' => {
                        let e = self.expression()?;
                        if !self.eat(b'E') {
                            return None;
                        }
                        (Qual::Noexcept, Some(e))
                    }
                    _ => {
                        let l = self.parmlist()?;
                        if !self.eat(b'E') {
                            return None;
                        }
                        (Qual::Throw, Some(l))
                    }
                },
            };
            quals.push(q);
        }
        if !member_fn && self.peek() == b'F' {
            for q in &mut quals {
                q.0 = match q.0 {
                    Qual::Restrict => Qual::RestrictThis,
                    Qual::Volatile => Qual::VolatileThis,
                    Qual::Const => Qual::ConstThis,
                    other => other,
                };
            }
        }
        Some(quals)
    }

    fn qualified_type(&mut self) -> Option<Id> {
        let quals = self.cv_qualifiers(false)?;
        let inner = if self.peek() == b'F' {
            self.function_type()?
        } else {
            self.ty()?
        };
        // A ref-qualifier goes outside the cv-qualifiers.
        let ret = match self.nodes[inner] {
            Node::Mod(q @ (Qual::RefThis | Qual::RRefThis), f, None) => {
                let w = self.wrap(&quals, f);
                self.add(Node::Mod(q, w, None))
            }
            _ => self.wrap(&quals, inner),
        };
        self.add_sub(ret);
        Some(ret)
    }

    fn ty_inner(&mut self) -> Option<Id> {
        if self.next_is_type_qual() {
            return self.qualified_type();
        }
        let peek = self.peek();
        if let Some(b) = builtin(peek) {
            self.pos += 1;
            return Some(self.add(Node::Builtin(b)));
        }
        let ret = match peek {
            b'u' => {
                self.pos += 1;
                let n = self.source_name()?;
                self.add(Node::VendorType(n))
            }
            b'F' => self.function_type()?,
            b'A' => self.array_type()?,
            b'M' => {
                self.pos += 1;
                let class = self.ty()?;
                let member = self.ty()?;
                self.add(Node::PtrMem(class, member))
            }
            b'T' => self.template_template_param()?,
            b'O' | b'P' | b'R' | b'C' | b'G' => {
                self.pos += 1;
                let q = match peek {
                    b'O' => Qual::RRef,
                    b'P' => Qual::Pointer,
                    b'R' => Qual::Ref,
                    b'C' => Qual::Complex,
                    _ => Qual::Imaginary,
                };
                let inner = self.ty()?;
                self.add(Node::Mod(q, inner, None))
            }
            b'U' => {
                self.pos += 1;
                let mut n = self.source_name()?;
                if self.peek() == b'I' {
                    let args = self.template_args()?;
                    n = self.add(Node::Template(n, args));
                }
                let inner = self.ty()?;
                self.add(Node::VendorQual(inner, n))
            }
            b'S' => return self.substitution_type(),
            b'D' => return self.d_type(),
            _ => self.name(false)?,
        };
        self.add_sub(ret);
        Some(ret)
    }

    /// A type starting with `S`: a substitution (maybe with template
    /// arguments) or a name in `std`.
    fn substitution_type(&mut self) -> Option<Id> {
        let next = self.peek_next();
        if next.is_ascii_digit() || next == b'_' || next.is_ascii_uppercase() {
            let s = self.substitution(false)?;
            if self.peek() != b'I' {
                return Some(s);
            }
            let args = self.template_args()?;
            let ret = self.add(Node::Template(s, args));
            self.add_sub(ret);
            return Some(ret);
        }
        let ret = self.name(false)?;
        if !matches!(self.nodes[ret], Node::Sub(_)) {
            self.add_sub(ret);
        }
        Some(ret)
    }

    /// The `D` types: decltype, pack expansions, `auto`, the extra
    /// builtins, vectors.
    fn d_type(&mut self) -> Option<Id> {
        self.pos += 1;
        let c = self.next();
        if let Some(b) = d_builtin(c) {
            return Some(self.add(Node::Builtin(b)));
        }
        let (ret, subst) = match c {
            b'T' | b't' => {
                let e = self.expression()?;
                if self.next() != b'E' {
                    return None;
                }
                (self.add(Node::Decltype(e)), true)
            }
            b'p' => {
                let t = self.ty()?;
                (self.add(Node::Pack(t)), true)
            }
            b'a' => (self.add(Node::Text("auto")), false),
            b'c' => (self.add(Node::Text("decltype(auto)")), false),
            b'v' => (self.vector_type()?, true),
            _ => return None,
        };
        if subst {
            self.add_sub(ret);
        }
        Some(ret)
    }

    fn vector_type(&mut self) -> Option<Id> {
        let dim = if self.eat(b'_') {
            self.expression()?
        } else {
            let n = self.number()?;
            self.add(Node::Number(n))
        };
        if !self.eat(b'_') {
            return None;
        }
        let elem = self.ty()?;
        Some(self.add(Node::Vector(dim, elem)))
    }

    /// `T_` and a template template parameter's arguments.
    fn template_template_param(&mut self) -> Option<Id> {
        let mut ret = self.template_param()?;
        if self.peek() != b'I' {
            return Some(ret);
        }
        if !self.is_conversion {
            self.add_sub(ret);
            let args = self.template_args()?;
            ret = self.add(Node::Template(ret, args));
            return Some(ret);
        }
        let (pos, nodes, subs, last) =
            (self.pos, self.nodes.len(), self.subs.len(), self.last_name);
        let args = self.template_args()?;
        if self.peek() == b'I' {
            self.add_sub(ret);
            ret = self.add(Node::Template(ret, args));
        } else {
            self.pos = pos;
            self.nodes.truncate(nodes);
            self.subs.truncate(subs);
            self.last_name = last;
        }
        Some(ret)
    }

    pub fn function_type(&mut self) -> Option<Id> {
        self.enter()?;
        let r = self.function_type_inner();
        self.leave();
        r
    }

    fn function_type_inner(&mut self) -> Option<Id> {
        if !self.eat(b'F') {
            return None;
        }
        self.eat(b'Y');
        let mut ret = self.bare_function_type(true)?;
        let rq = match self.peek() {
            b'R' => Some(Qual::RefThis),
            b'O' => Some(Qual::RRefThis),
            _ => None,
        };
        if let Some(q) = rq {
            self.pos += 1;
            ret = self.add(Node::Mod(q, ret, None));
        }
        self.eat(b'E').then_some(ret)
    }

    pub fn bare_function_type(&mut self, mut has_return: bool) -> Option<Id> {
        if self.eat(b'J') {
            has_return = true;
        }
        let ret = if has_return { Some(self.ty()?) } else { None };
        let params = self.parmlist()?;
        Some(self.add(Node::Function(ret, params)))
    }

    /// Parameter types up to `E`, `.` or the end; a lone `void` is none.
    pub fn parmlist(&mut self) -> Option<Id> {
        let mut list = Vec::new();
        loop {
            let peek = self.peek();
            if matches!(peek, 0 | b'E' | b'.' | b'Q') {
                break;
            }
            if matches!(peek, b'R' | b'O') && self.peek_next() == b'E' {
                break;
            }
            list.push(self.ty()?);
        }
        if list.is_empty() {
            return None;
        }
        if list.len() == 1 {
            if let Node::Builtin(b) = self.nodes[list[0]] {
                if b.name == "void" {
                    list.clear();
                }
            }
        }
        Some(self.add(Node::List(list)))
    }

    fn array_type(&mut self) -> Option<Id> {
        self.pos += 1;
        let dim = if self.peek() == b'_' {
            None
        } else if self.peek().is_ascii_digit() {
            let start = self.pos;
            while self.peek().is_ascii_digit() {
                self.pos += 1;
            }
            let digits = self.slice(start)?;
            Some(self.add(Node::Name(digits)))
        } else {
            Some(self.expression()?)
        };
        if !self.eat(b'_') {
            return None;
        }
        let elem = self.ty()?;
        Some(self.add(Node::Array(dim, elem)))
    }

    pub fn template_param(&mut self) -> Option<Id> {
        if !self.eat(b'T') {
            return None;
        }
        let n = self.compact_number()?;
        Some(self.add(Node::TParam(n)))
    }

    pub fn template_args(&mut self) -> Option<Id> {
        if !matches!(self.peek(), b'I' | b'J') {
            return None;
        }
        self.pos += 1;
        self.template_args_1()
    }

    fn template_args_1(&mut self) -> Option<Id> {
        let hold = self.last_name;
        let mut args = Vec::new();
        if !self.eat(b'E') {
            loop {
                args.push(self.template_arg()?);
                if self.peek() == b'E' {
                    break;
                }
            }
            self.pos += 1;
        }
        self.last_name = hold;
        Some(self.add(Node::Args(args)))
    }

    pub fn template_arg(&mut self) -> Option<Id> {
        match self.peek() {
            b'X' => {
                self.pos += 1;
                let e = self.expression()?;
                self.eat(b'E').then_some(e)
            }
            b'L' => self.expr_primary(),
            b'I' | b'J' => self.template_args(),
            _ => self.ty(),
        }
    }

    /// `S_`, `S<seq-id>_` or a standard abbreviation; `prefix`: in a
    /// nested name, where a constructor or destructor after it asks for
    /// the full form.
    pub fn substitution(&mut self, prefix: bool) -> Option<Id> {
        if !self.eat(b'S') {
            return None;
        }
        let c = self.next();
        if c == b'_' || c.is_ascii_digit() || c.is_ascii_uppercase() {
            let mut id: usize = 0;
            if c != b'_' {
                let mut c = c;
                loop {
                    let d = match c {
                        b'0'..=b'9' => c - b'0',
                        b'A'..=b'Z' => c - b'A' + 10,
                        _ => return None,
                    };
                    id = id.checked_mul(36)?.checked_add(usize::from(d))?;
                    c = self.next();
                    if c == b'_' {
                        break;
                    }
                }
                id += 1;
            }
            return self.subs.get(id).copied();
        }
        let verbose = prefix && matches!(self.peek(), b'C' | b'D');
        let &(_, simple, full, last) = STANDARD_SUBS.iter().find(|s| s.0 == c)?;
        if let Some(l) = last {
            self.last_name = Some(self.add(Node::Sub(l)));
        }
        let mut dc = self.add(Node::Sub(if verbose { full } else { simple }));
        if self.peek() == b'B' {
            let hold = self.last_name;
            while self.eat(b'B') {
                let tag = self.source_name()?;
                dc = self.add(Node::Tagged(dc, tag));
            }
            self.last_name = hold;
            self.add_sub(dc);
        }
        Some(dc)
    }
}
