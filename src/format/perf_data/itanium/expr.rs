//! Expressions in template arguments and `decltype` (libiberty's
//! `d_expression_1`, `d_expr_primary`). Initializer lists, fold
//! expressions, designated initializers, `new`, `?:` and vendor
//! expressions are left to the other demangler (they are rare in
//! symbol names).

use super::parse::Parser;
use super::{Id, Node};

impl<'a> Parser<'a> {
    pub fn expression(&mut self) -> Option<Id> {
        self.enter()?;
        let was = self.is_expression;
        self.is_expression = true;
        let r = self.expression_1();
        self.is_expression = was;
        self.leave();
        r
    }

    fn expression_1(&mut self) -> Option<Id> {
        let peek = self.peek();
        let next = self.peek_next();
        match (peek, next) {
            (b'L', _) => self.expr_primary(),
            (b'T', _) => self.template_param(),
            (b's', b'r') => {
                self.pos += 2;
                let ty = self.ty()?;
                let mut name = self.unqualified_name(None)?;
                if self.peek() == b'I' {
                    let args = self.template_args()?;
                    name = self.add(Node::Template(name, args));
                }
                Some(self.add(Node::Qual(ty, name)))
            }
            (b's', b'p') => {
                self.pos += 2;
                let e = self.expression()?;
                Some(self.add(Node::Pack(e)))
            }
            (b'f', b'p') => {
                self.pos += 2;
                let index = if self.eat(b'T') {
                    0
                } else {
                    self.compact_number()? + 1
                };
                Some(self.add(Node::FnParam(index)))
            }
            (b'0'..=b'9', _) | (b'o', b'n') => {
                if peek == b'o' {
                    self.pos += 2;
                }
                let name = self.unqualified_name(None)?;
                if self.peek() != b'I' {
                    return Some(name);
                }
                let args = self.template_args()?;
                Some(self.add(Node::Template(name, args)))
            }
            (b'i' | b't', b'l') | (b'u', _) => None,
            _ => self.operation(),
        }
    }

    /// An operator and its operands.
    fn operation(&mut self) -> Option<Id> {
        let op = self.operator_name()?;
        let (code, args) = match self.nodes[op] {
            Node::Operator(o) => (o.code, o.args),
            Node::Cast(_) => ("", 1),
            _ => return None,
        };
        if code == "st" {
            let t = self.ty()?;
            return Some(self.add(Node::Unary(op, t, false)));
        }
        match args {
            0 => Some(self.add(Node::Nullary(op))),
            1 => {
                let prefix_form = matches!(code, "pp" | "mm");
                let suffix = prefix_form && !self.eat(b'_');
                let operand = if code.is_empty() && self.eat(b'_') {
                    self.exprlist(b'E')?
                } else if code == "sP" {
                    return None;
                } else {
                    self.expression_1()?
                };
                Some(self.add(Node::Unary(op, operand, suffix)))
            }
            2 => self.binary(op, code),
            _ => {
                // A fold expression starts with an operator: libiberty
                // refuses the name when none follows (`fL0p_`, a
                // function parameter of an outer scope).
                if matches!(code, "fL" | "fR") && self.operator_name().is_none() {
                    self.invalid = true;
                }
                None
            }
        }
    }

    fn binary(&mut self, op: Id, code: &str) -> Option<Id> {
        if code.starts_with('f') || matches!(code, "di" | "dx") {
            return None;
        }
        let left = if matches!(code, "dc" | "sc" | "cc" | "rc") {
            self.ty()?
        } else {
            self.expression_1()?
        };
        let right = if code == "cl" {
            self.exprlist(b'E')?
        } else if matches!(code, "dt" | "pt") {
            let (p, n) = (self.peek(), self.peek_next());
            if (p == b'g' && n == b's') || (p == b's' && n == b'r') {
                self.expression_1()?
            } else {
                let mut r = self.unqualified_name(None)?;
                if self.peek() == b'I' {
                    let args = self.template_args()?;
                    r = self.add(Node::Template(r, args));
                }
                r
            }
        } else {
            self.expression_1()?
        };
        Some(self.add(Node::Binary(op, left, right)))
    }

    fn exprlist(&mut self, end: u8) -> Option<Id> {
        let mut list = Vec::new();
        while !self.eat(end) {
            list.push(self.expression_1()?);
        }
        Some(self.add(Node::List(list)))
    }

    /// `L <type> <value> E`, `L _Z <encoding> E`.
    pub fn expr_primary(&mut self) -> Option<Id> {
        if !self.eat(b'L') {
            return None;
        }
        let ret = if matches!(self.peek(), b'_' | b'Z') {
            self.mangled_name(false)?
        } else {
            let ty = self.ty()?;
            if let Node::Builtin(b) = self.nodes[ty] {
                if b.name == "decltype(nullptr)" && self.eat(b'E') {
                    return Some(ty);
                }
            }
            let neg = self.eat(b'n');
            let start = self.pos;
            while self.peek() != b'E' {
                if self.peek() == 0 {
                    return None;
                }
                self.pos += 1;
            }
            let digits = self.slice(start)?;
            let digits = self.add(Node::Name(digits));
            self.add(Node::Literal(ty, digits, neg))
        };
        self.eat(b'E').then_some(ret)
    }
}
