//! Expressions and literals as libiberty prints them: operands in
//! parentheses unless they are names, `(type)value` for literals of
//! types without a suffix, the address of a function without its
//! parameters when it is a qualified name.

use super::print::Printer;
use super::{Id, Lit, Node};

impl<'p, 'a> Printer<'p, 'a> {
    pub(super) fn print_expr(&mut self, dc: Id) {
        let nodes = self.nodes;
        match nodes[dc] {
            Node::Operator(op) => {
                self.out.push_str("operator");
                if op.name.as_bytes()[0].is_ascii_lowercase() {
                    self.out.push(' ');
                }
                self.out
                    .push_str(op.name.strip_suffix(' ').unwrap_or(op.name));
            }
            Node::ExtOperator(name) => {
                self.out.push_str("operator ");
                self.print(name);
            }
            Node::FnParam(0) => self.out.push_str("this"),
            Node::FnParam(n) => self.out.push_str(&format!("{{parm#{n}}}")),
            Node::Decltype(e) => {
                self.out.push_str("decltype (");
                self.print(e);
                self.out.push(')');
            }
            Node::Nullary(op) => self.expr_op(op),
            Node::Unary(op, operand, suffix) => self.unary(op, operand, suffix),
            Node::Binary(op, l, r) => self.binary(op, l, r),
            Node::Literal(ty, digits, neg) => self.literal(ty, digits, neg),
            _ => self.failed = true,
        }
    }

    fn expr_op(&mut self, op: Id) {
        match self.nodes[op] {
            Node::Operator(o) => self.out.push_str(o.name),
            _ => self.print(op),
        }
    }

    fn op_code(&self, op: Id) -> &'static str {
        match self.nodes[op] {
            Node::Operator(o) => o.code,
            _ => "",
        }
    }

    fn unary(&mut self, op: Id, operand: Id, suffix: bool) {
        let code = self.op_code(op);
        let mut operand = operand;
        if code == "ad" {
            // The address of a member function: no parameter list.
            if let Node::Typed(l, r) = self.nodes[operand] {
                if matches!(self.nodes[l], Node::Qual(..))
                    && matches!(self.nodes[r], Node::Function(..))
                {
                    operand = l;
                }
            }
        }
        if suffix {
            self.subexpr(operand);
            self.expr_op(op);
            return;
        }
        if code == "sZ" {
            let len = match self.find_pack(operand).map(|p| &self.nodes[p]) {
                Some(Node::Args(v)) => v.len(),
                _ => 0,
            };
            self.out.push_str(&len.to_string());
            return;
        }
        match self.nodes[op] {
            Node::Cast(t) => {
                self.out.push('(');
                self.print(t);
                self.out.push(')');
            }
            _ => self.expr_op(op),
        }
        if code == "gs" {
            self.print(operand);
        } else if code == "st" || code == "nx" {
            self.out.push('(');
            self.print(operand);
            self.out.push(')');
        } else {
            self.subexpr(operand);
        }
    }

    fn binary(&mut self, op: Id, left: Id, right: Id) {
        let code = self.op_code(op);
        if matches!(code, "dc" | "sc" | "cc" | "rc") {
            self.expr_op(op);
            self.out.push('<');
            self.print(left);
            self.out.push_str(">(");
            self.print(right);
            self.out.push(')');
            return;
        }
        // `>` in parentheses, not to end the template arguments.
        let gt = code == "gt";
        if gt {
            self.out.push('(');
        }
        match self.nodes[left] {
            Node::Typed(f, ty) if code == "cl" => {
                if !matches!(self.nodes[ty], Node::Function(..)) {
                    self.failed = true;
                }
                self.subexpr(f);
            }
            _ => self.subexpr(left),
        }
        if code == "ix" {
            self.out.push('[');
            self.print(right);
            self.out.push(']');
        } else {
            if code != "cl" {
                self.expr_op(op);
            }
            self.subexpr(right);
        }
        if gt {
            self.out.push(')');
        }
    }

    fn literal(&mut self, ty: Id, digits: Id, neg: bool) {
        let lit = match self.nodes[ty] {
            Node::Builtin(b) => b.lit,
            _ => Lit::Default,
        };
        let suffix = match lit {
            Lit::Int => Some(""),
            Lit::Unsigned => Some("u"),
            Lit::Long => Some("l"),
            Lit::UnsignedLong => Some("ul"),
            Lit::LongLong => Some("ll"),
            Lit::UnsignedLongLong => Some("ull"),
            _ => None,
        };
        if let Some(suffix) = suffix {
            if neg {
                self.out.push('-');
            }
            self.print(digits);
            self.out.push_str(suffix);
            return;
        }
        if let (Lit::Bool, false, Node::Name(d)) = (lit, neg, &self.nodes[digits]) {
            match *d {
                "0" => return self.out.push_str("false"),
                "1" => return self.out.push_str("true"),
                _ => {}
            }
        }
        self.out.push('(');
        self.print(ty);
        self.out.push(')');
        if neg {
            self.out.push('-');
        }
        let float = lit == Lit::Float;
        if float {
            self.out.push('[');
        }
        self.print(digits);
        if float {
            self.out.push(']');
        }
    }
}
