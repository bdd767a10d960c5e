//! Names: `<encoding>`, `<name>`, nested and local names, unqualified
//! names, special names (libiberty's `d_encoding` … `d_special_name`).
//! Types are in [`super::types`], expressions in [`super::expr`].

use super::tables::OPERATORS;
use super::{Id, Node, Qual};

/// Deepest nesting of types and expressions parsed (deeper names fall
/// back to the other demangler).
const MAX_DEPTH: u32 = 300;

/// The parser's state (libiberty's `d_info`).
pub(super) struct Parser<'a> {
    text: &'a str,
    pub pos: usize,
    pub nodes: Vec<Node<'a>>,
    pub subs: Vec<Id>,
    pub last_name: Option<Id>,
    pub is_expression: bool,
    pub is_conversion: bool,
    /// The name is one libiberty refuses (not merely one this parser
    /// does not know).
    pub invalid: bool,
    depth: u32,
}

impl<'a> Parser<'a> {
    pub fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            pos: 0,
            nodes: Vec::new(),
            subs: Vec::new(),
            last_name: None,
            is_expression: false,
            is_conversion: false,
            invalid: false,
            depth: 0,
        }
    }

    pub fn add(&mut self, n: Node<'a>) -> Id {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    pub fn peek(&self) -> u8 {
        self.text.as_bytes().get(self.pos).copied().unwrap_or(0)
    }

    pub fn peek_next(&self) -> u8 {
        if self.peek() == 0 {
            return 0;
        }
        self.text.as_bytes().get(self.pos + 1).copied().unwrap_or(0)
    }

    pub fn next(&mut self) -> u8 {
        let c = self.peek();
        if c != 0 {
            self.pos += 1;
        }
        c
    }

    pub fn eat(&mut self, c: u8) -> bool {
        let ok = self.peek() == c;
        if ok {
            self.pos += 1;
        }
        ok
    }

    /// The text from `start` to here.
    pub fn slice(&self, start: usize) -> Option<&'a str> {
        self.text.get(start..self.pos)
    }

    pub fn add_sub(&mut self, id: Id) {
        self.subs.push(id);
    }

    /// Guard against names nested too deeply for the stack.
    pub fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth < MAX_DEPTH).then_some(())
    }

    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Whether `id` is a member function's qualifier, and what it wraps.
    pub fn fnqual_inner(&self, id: Id) -> Option<Id> {
        match self.nodes[id] {
            Node::Mod(q, inner, _) if q.is_fnqual() => Some(inner),
            _ => None,
        }
    }

    /// `_Z <encoding>` (at the top level without parameters).
    pub fn mangled_name(&mut self, top: bool) -> Option<Id> {
        if !self.eat(b'_') && top {
            return None;
        }
        if !self.eat(b'Z') {
            return None;
        }
        self.encoding(top)
    }

    pub fn encoding(&mut self, top: bool) -> Option<Id> {
        if matches!(self.peek(), b'G' | b'T') {
            return self.special_name();
        }
        let mut dc = self.name(false)?;
        if top {
            // Without parameters the function's own qualifiers go too.
            while let Some(inner) = self.fnqual_inner(dc) {
                dc = inner;
            }
            if let Node::Local(f, mut r) = self.nodes[dc] {
                while let Some(inner) = self.fnqual_inner(r) {
                    r = inner;
                }
                self.nodes[dc] = Node::Local(f, r);
            }
            return Some(dc);
        }
        if !matches!(self.peek(), 0 | b'E') {
            let has_return = self.has_return_type(dc);
            let ftype = self.bare_function_type(has_return)?;
            if let (Node::Local(..), Node::Function(_, params)) =
                (&self.nodes[dc], &self.nodes[ftype])
            {
                let params = *params;
                self.nodes[ftype] = Node::Function(None, params);
            }
            dc = self.add(Node::Typed(dc, ftype));
        }
        Some(dc)
    }

    fn has_return_type(&self, dc: Id) -> bool {
        match self.nodes[dc] {
            Node::Local(_, r) => self.has_return_type(r),
            Node::Template(l, _) => !self.is_ctor_dtor_or_conversion(l),
            Node::Mod(q, inner, _) if q.is_fnqual() => self.has_return_type(inner),
            _ => false,
        }
    }

    fn is_ctor_dtor_or_conversion(&self, dc: Id) -> bool {
        match self.nodes[dc] {
            Node::Qual(_, r) | Node::Local(_, r) => self.is_ctor_dtor_or_conversion(r),
            Node::Ctor(_) | Node::Dtor(_) | Node::Conversion(_) => true,
            _ => false,
        }
    }

    /// `<name>`; `substable`: the whole name is a substitution candidate.
    pub fn name(&mut self, substable: bool) -> Option<Id> {
        let mut subst = false;
        let dc = match self.peek() {
            b'N' => self.nested_name()?,
            b'Z' => self.local_name()?,
            b'U' => self.unqualified_name(None)?,
            peek => {
                let mut scope = None;
                let mut found = None;
                if peek == b'S' {
                    if self.peek_next() == b't' {
                        self.pos += 2;
                        scope = Some(self.add(Node::Text("std")));
                    }
                    if self.peek() == b'S' {
                        if scope.is_some() {
                            return None;
                        }
                        found = Some(self.substitution(false)?);
                        subst = true;
                    }
                }
                let mut dc = match found {
                    Some(d) => d,
                    None => self.unqualified_name(scope)?,
                };
                if self.peek() == b'I' {
                    if !subst {
                        self.add_sub(dc);
                    }
                    let args = self.template_args()?;
                    dc = self.add(Node::Template(dc, args));
                    subst = false;
                }
                dc
            }
        };
        if substable && !subst {
            self.add_sub(dc);
        }
        Some(dc)
    }

    fn nested_name(&mut self) -> Option<Id> {
        if !self.eat(b'N') || self.peek() == b'H' {
            return None;
        }
        let quals = self.cv_qualifiers(true)?;
        let rqual = match self.peek() {
            b'R' => Some(Qual::RefThis),
            b'O' => Some(Qual::RRefThis),
            _ => None,
        };
        if rqual.is_some() {
            self.pos += 1;
        }
        let prefix = self.prefix(true)?;
        let mut ret = self.wrap(&quals, prefix);
        if let Some(q) = rqual {
            ret = self.add(Node::Mod(q, ret, None));
        }
        self.eat(b'E').then_some(ret)
    }

    /// Qualifiers as parsed (outermost first) around `inner`.
    pub fn wrap(&mut self, quals: &[(Qual, Option<Id>)], mut inner: Id) -> Id {
        for &(q, extra) in quals.iter().rev() {
            inner = self.add(Node::Mod(q, inner, extra));
        }
        inner
    }

    fn prefix(&mut self, substable: bool) -> Option<Id> {
        let mut ret: Option<Id> = None;
        loop {
            let peek = self.peek();
            if peek == 0 {
                return None;
            }
            if peek == b'D' && matches!(self.peek_next(), b'T' | b't') {
                if ret.is_some() {
                    return None;
                }
                ret = Some(self.ty()?);
            } else if peek == b'I' {
                let r = ret?;
                let args = self.template_args()?;
                ret = Some(self.add(Node::Template(r, args)));
            } else if peek == b'T' {
                if ret.is_some() {
                    return None;
                }
                ret = Some(self.template_param()?);
            } else if peek == b'M' {
                ret?;
                self.pos += 1;
                continue;
            } else if peek == b'S' {
                let s = self.substitution(true)?;
                if ret.is_some() {
                    return None;
                }
                ret = Some(s);
                continue;
            } else {
                ret = Some(self.unqualified_name(ret)?);
            }
            if self.peek() == b'E' {
                break;
            }
            if substable {
                self.add_sub(ret?);
            }
        }
        ret
    }

    pub fn unqualified_name(&mut self, scope: Option<Id>) -> Option<Id> {
        let peek = self.peek();
        let mut ret = if peek.is_ascii_digit() {
            self.source_name()?
        } else if peek.is_ascii_lowercase() {
            let was = self.is_expression;
            if peek == b'o' && self.peek_next() == b'n' {
                self.pos += 2;
                self.is_expression = false;
            }
            let r = self.operator_name();
            self.is_expression = was;
            let mut r = r?;
            if let Node::Operator(op) = self.nodes[r] {
                if op.code == "li" {
                    let n = self.source_name()?;
                    r = self.add(Node::Unary(r, n, false));
                }
            }
            r
        } else if peek == b'D' && self.peek_next() == b'C' {
            return None;
        } else if peek == b'C' || peek == b'D' {
            self.ctor_dtor_name()?
        } else if peek == b'L' {
            self.pos += 1;
            let r = self.source_name()?;
            self.discriminator()?;
            r
        } else if peek == b'U' {
            match self.peek_next() {
                b't' => self.unnamed_type()?,
                b'l' => self.lambda()?,
                _ => return None,
            }
        } else {
            return None;
        };
        if self.peek() == b'B' {
            ret = self.abi_tags(ret)?;
        }
        if let Some(s) = scope {
            ret = self.add(Node::Qual(s, ret));
        }
        Some(ret)
    }

    /// `<number>`: optionally negative (`n`); no digits is 0.
    pub fn number(&mut self) -> Option<i64> {
        let negative = self.eat(b'n');
        let mut ret: i64 = 0;
        while self.peek().is_ascii_digit() {
            ret = ret
                .checked_mul(10)?
                .checked_add(i64::from(self.next() - b'0'))?;
            if ret > i64::from(i32::MAX) {
                return None;
            }
        }
        Some(if negative { -ret } else { ret })
    }

    /// `_` (0) or `<number> _` (number + 1).
    pub fn compact_number(&mut self) -> Option<usize> {
        let num = if self.peek() == b'_' {
            0
        } else if self.peek() == b'n' {
            return None;
        } else {
            usize::try_from(self.number()?).ok()? + 1
        };
        self.eat(b'_').then_some(num)
    }

    pub fn source_name(&mut self) -> Option<Id> {
        let len = usize::try_from(self.number()?).ok().filter(|&l| l > 0)?;
        let name = self.text.get(self.pos..self.pos.checked_add(len)?)?;
        self.pos += len;
        let b = name.as_bytes();
        let anonymous = name.len() >= 10
            && name.starts_with("_GLOBAL_")
            && matches!(b[8], b'.' | b'_' | b'$')
            && b[9] == b'N';
        let ret = if anonymous {
            self.add(Node::Text("(anonymous namespace)"))
        } else {
            self.add(Node::Name(name))
        };
        self.last_name = Some(ret);
        Some(ret)
    }

    pub fn discriminator(&mut self) -> Option<()> {
        if !self.eat(b'_') {
            return Some(());
        }
        let two = self.eat(b'_');
        let d = self.number()?;
        if d < 0 {
            return None;
        }
        if two && d >= 10 && !self.eat(b'_') {
            return None;
        }
        Some(())
    }

    fn ctor_dtor_name(&mut self) -> Option<Id> {
        let name = self.last_name;
        if self.peek() == b'C' {
            let inheriting = self.peek_next() == b'I';
            if inheriting {
                self.pos += 1;
            }
            if !matches!(self.peek_next(), b'1'..=b'5') {
                return None;
            }
            self.pos += 2;
            if inheriting {
                self.ty()?;
            }
            return Some(self.add(Node::Ctor(name?)));
        }
        if !matches!(self.peek_next(), b'0' | b'1' | b'2' | b'4' | b'5') {
            return None;
        }
        self.pos += 2;
        Some(self.add(Node::Dtor(name?)))
    }

    fn unnamed_type(&mut self) -> Option<Id> {
        self.pos += 2;
        let num = self.compact_number()?;
        let ret = self.add(Node::Unnamed(num));
        self.add_sub(ret);
        Some(ret)
    }

    fn lambda(&mut self) -> Option<Id> {
        self.pos += 2;
        let params = self.parmlist()?;
        if !self.eat(b'E') {
            return None;
        }
        let num = self.compact_number()?;
        Some(self.add(Node::Lambda(params, num)))
    }

    fn abi_tags(&mut self, mut dc: Id) -> Option<Id> {
        let hold = self.last_name;
        while self.eat(b'B') {
            let tag = self.source_name()?;
            dc = self.add(Node::Tagged(dc, tag));
        }
        self.last_name = hold;
        Some(dc)
    }

    fn local_name(&mut self) -> Option<Id> {
        if !self.eat(b'Z') {
            return None;
        }
        self.enter()?;
        let function = self.encoding(false);
        self.leave();
        let function = function?;
        if !self.eat(b'E') {
            return None;
        }
        let name = if self.eat(b's') {
            self.discriminator()?;
            self.add(Node::Text("string literal"))
        } else {
            let default_arg = if self.eat(b'd') {
                Some(self.compact_number()?)
            } else {
                None
            };
            let mut name = self.name(false)?;
            if !matches!(self.nodes[name], Node::Lambda(..) | Node::Unnamed(_)) {
                self.discriminator()?;
            }
            if let Some(n) = default_arg {
                name = self.add(Node::DefaultArg(n, name));
            }
            name
        };
        // The containing function's return type is not printed.
        if let Node::Typed(_, f) = self.nodes[function] {
            if let Node::Function(_, params) = self.nodes[f] {
                self.nodes[f] = Node::Function(None, params);
            }
        }
        Some(self.add(Node::Local(function, name)))
    }

    pub fn operator_name(&mut self) -> Option<Id> {
        let c1 = self.next();
        let c2 = self.next();
        if c1 == b'v' && c2.is_ascii_digit() {
            let n = self.source_name()?;
            return Some(self.add(Node::ExtOperator(n)));
        }
        if c1 == b'c' && c2 == b'v' {
            let was = self.is_conversion;
            self.is_conversion = !self.is_expression;
            let ty = self.ty();
            let conversion = self.is_conversion;
            self.is_conversion = was;
            let ty = ty?;
            return Some(self.add(if conversion {
                Node::Conversion(ty)
            } else {
                Node::Cast(ty)
            }));
        }
        let code = [c1, c2];
        let op = OPERATORS.iter().find(|o| o.code.as_bytes() == code)?;
        Some(self.add(Node::Operator(op)))
    }
}
