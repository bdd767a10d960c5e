//! Types that wrap others, printed as libiberty does: qualifiers,
//! pointers and references wait on a modifier list until the type they
//! apply to is printed, so that a function or array type can place them
//! (`void (*)(int)`, `int (&) [4]`, `void (A::*)() const`); typed names
//! (a function with its parameters) put the name itself on that list.

use super::print::Printer;
use super::{Id, Node, Qual};

impl<'p, 'a> Printer<'p, 'a> {
    pub(super) fn print_type_or_expr(&mut self, dc: Id) {
        let nodes = self.nodes;
        match nodes[dc] {
            Node::Mod(q @ (Qual::Ref | Qual::RRef), sub, _) => self.reference(dc, q, sub),
            Node::Mod(_, inner, _) | Node::VendorQual(inner, _) => self.modifier(dc, inner),
            Node::VendorType(n) => self.print(n),
            Node::Function(ret, _) => self.function(dc, ret),
            Node::Array(..) => self.array(dc),
            Node::PtrMem(_, inner) | Node::Vector(_, inner) => {
                let m = self.push_mod(dc);
                self.print(inner);
                if !self.mods[m].printed {
                    self.print_mod(dc);
                }
                self.modifiers = self.mods[m].next;
            }
            Node::Conversion(t) => {
                self.out.push_str("operator ");
                self.conversion(t);
            }
            Node::Cast(t) => {
                self.out.push_str("operator ");
                self.print(t);
            }
            _ => self.print_expr(dc),
        }
    }

    /// `&` and `&&`, collapsing with a reference that a template
    /// argument stands for (`T&` with `T = int&&` is `int&`).
    fn reference(&mut self, dc: Id, q: Qual, sub: Id) {
        let mut dc = dc;
        let mut sub = sub;
        let mut restore = None;
        if self.is_lambda_arg == 0 {
            if let Node::TParam(n) = self.nodes[sub] {
                restore = self.enter_saved_scope(dc, sub);
                let Some(a) = self.resolve_param(n) else {
                    self.failed = true;
                    return;
                };
                sub = a;
            }
        }
        let mut inner = None;
        match self.nodes[sub] {
            Node::Mod(Qual::Ref, ..) => dc = sub,
            Node::Mod(s, ..) if s == q => dc = sub,
            Node::Mod(Qual::RRef, i, _) => inner = Some(i),
            _ => {}
        }
        let inner = inner.or(match self.nodes[dc] {
            Node::Mod(_, i, _) => Some(i),
            _ => None,
        });
        if let Some(inner) = inner {
            self.modifier(dc, inner);
        }
        if let Some(t) = restore {
            self.templates = t;
        }
    }

    /// The first time a template parameter under a reference is printed,
    /// remember the template scope; when it comes back as a substitution
    /// elsewhere (not inside itself), print it in that scope again. The
    /// scope to restore afterwards, if it was changed.
    fn enter_saved_scope(&mut self, dc: Id, sub: Id) -> Option<Option<usize>> {
        let Some(&(_, scope)) = self.saved_scopes.iter().find(|s| s.0 == sub) else {
            self.saved_scopes.push((sub, self.templates));
            return None;
        };
        let top = self.stack.len().saturating_sub(1);
        let inside = self
            .stack
            .iter()
            .enumerate()
            .any(|(i, &c)| c == sub || (c == dc && i != top));
        if inside {
            return None;
        }
        let hold = self.templates;
        self.templates = scope;
        Some(hold)
    }

    fn modifier(&mut self, dc: Id, inner: Id) {
        let m = self.push_mod(dc);
        self.print(inner);
        if !self.mods[m].printed {
            self.print_mod(dc);
        }
        self.modifiers = self.mods[m].next;
    }

    /// A modifier after the type it applies to (`d_print_mod`).
    pub(super) fn print_mod(&mut self, m: Id) {
        let nodes = self.nodes;
        match nodes[m] {
            Node::Mod(q, _, extra) => {
                let s = match q {
                    Qual::Restrict | Qual::RestrictThis => " restrict",
                    Qual::Volatile | Qual::VolatileThis => " volatile",
                    Qual::Const | Qual::ConstThis => " const",
                    Qual::TxSafe => " transaction_safe",
                    Qual::Noexcept => " noexcept",
                    Qual::Throw => " throw",
                    Qual::Pointer => "*",
                    Qual::RefThis => " &",
                    Qual::Ref => "&",
                    Qual::RRefThis => " &&",
                    Qual::RRef => "&&",
                    Qual::Complex => " _Complex",
                    Qual::Imaginary => " _Imaginary",
                };
                self.out.push_str(s);
                if let (Qual::Noexcept | Qual::Throw, Some(e)) = (q, extra) {
                    self.out.push('(');
                    self.print(e);
                    self.out.push(')');
                }
            }
            Node::VendorQual(_, name) => {
                self.out.push(' ');
                self.print(name);
            }
            Node::PtrMem(class, _) => {
                if self.last() != b'(' {
                    self.out.push(' ');
                }
                self.print(class);
                self.out.push_str("::*");
            }
            Node::Typed(l, _) => self.print(l),
            Node::Vector(dim, _) => {
                self.out.push_str(" __vector(");
                self.print(dim);
                self.out.push(')');
            }
            _ => self.print(m),
        }
    }

    /// Print the modifiers of the list from `mods` not yet printed: the
    /// prefix ones, or (`suffix`) the member function qualifiers too.
    pub(super) fn print_mod_list(&mut self, mods: Option<usize>, suffix: bool) {
        let Some(m) = mods else { return };
        if self.failed {
            return;
        }
        let node = self.mods[m].node;
        if self.mods[m].printed || (!suffix && self.is_fnqual(node).is_some()) {
            return self.print_mod_list(self.mods[m].next, suffix);
        }
        self.mods[m].printed = true;
        let hold = self.templates;
        self.templates = self.mods[m].templates;
        let next = self.mods[m].next;
        match self.nodes[node] {
            Node::Function(..) => self.function_type(node, next),
            Node::Array(..) => self.array_type(node, next),
            Node::Local(l, r) => {
                let hold_mods = self.modifiers.take();
                self.print(l);
                self.modifiers = hold_mods;
                self.out.push_str("::");
                let mut dc = r;
                if let Node::DefaultArg(n, sub) = self.nodes[dc] {
                    self.out.push_str(&format!("{{default arg#{}}}::", n + 1));
                    dc = sub;
                }
                while let Some(inner) = self.is_fnqual(dc) {
                    dc = inner;
                }
                self.print(dc);
            }
            _ => {
                self.print_mod(node);
                self.templates = hold;
                return self.print_mod_list(next, suffix);
            }
        }
        self.templates = hold;
    }

    /// A function type: its return type (which may place the modifiers
    /// itself, for a function returning a function pointer), then the
    /// rest.
    fn function(&mut self, dc: Id, ret: Option<Id>) {
        if let Some(r) = ret {
            let m = self.push_mod(dc);
            self.print(r);
            self.modifiers = self.mods[m].next;
            if self.mods[m].printed {
                return;
            }
            self.out.push(' ');
        }
        self.function_type(dc, self.modifiers);
    }

    /// `(modifiers)(parameters) qualifiers` (`d_print_function_type`).
    pub(super) fn function_type(&mut self, dc: Id, mods: Option<usize>) {
        let mut need_paren = false;
        let mut need_space = false;
        let mut p = mods;
        while let Some(i) = p {
            if self.mods[i].printed {
                break;
            }
            match self.nodes[self.mods[i].node] {
                Node::Mod(Qual::Pointer | Qual::Ref | Qual::RRef, ..) => need_paren = true,
                Node::Mod(
                    Qual::Restrict | Qual::Volatile | Qual::Const | Qual::Complex | Qual::Imaginary,
                    ..,
                )
                | Node::VendorQual(..)
                | Node::PtrMem(..) => {
                    need_space = true;
                    need_paren = true;
                }
                _ => {}
            }
            if need_paren {
                break;
            }
            p = self.mods[i].next;
        }
        if need_paren {
            if !need_space && self.last() != b'(' && self.last() != b'*' {
                need_space = true;
            }
            if need_space && self.last() != b' ' {
                self.out.push(' ');
            }
            self.out.push('(');
        }
        let hold = self.modifiers.take();
        self.print_mod_list(mods, false);
        if need_paren {
            self.out.push(')');
        }
        self.out.push('(');
        if let Node::Function(_, params) = self.nodes[dc] {
            self.print(params);
        }
        self.out.push(')');
        self.print_mod_list(mods, true);
        self.modifiers = hold;
    }

    /// An array type: the qualifiers of its elements stay with them.
    fn array(&mut self, dc: Id) {
        let Node::Array(_, elem) = self.nodes[dc] else {
            return;
        };
        let hold = self.modifiers;
        let own = self.push_mod(dc);
        let mut copied = Vec::new();
        let mut p = self.mods[own].next;
        while let Some(i) = p {
            let node = self.mods[i].node;
            let cv = matches!(
                self.nodes[node],
                Node::Mod(Qual::Restrict | Qual::Volatile | Qual::Const, ..)
            );
            if !cv {
                break;
            }
            if !self.mods[i].printed {
                self.mods[i].printed = true;
                copied.push(self.push_mod(node));
            }
            p = self.mods[i].next;
        }
        self.print(elem);
        self.modifiers = hold;
        if self.mods[own].printed {
            return;
        }
        for &c in copied.iter().rev() {
            let node = self.mods[c].node;
            self.print_mod(node);
        }
        self.array_type(dc, self.modifiers);
    }

    /// ` (modifiers) [dimension]` (`d_print_array_type`).
    fn array_type(&mut self, dc: Id, mods: Option<usize>) {
        let mut need_space = true;
        if mods.is_some() {
            let mut need_paren = false;
            let mut p = mods;
            while let Some(i) = p {
                if !self.mods[i].printed {
                    if matches!(self.nodes[self.mods[i].node], Node::Array(..)) {
                        need_space = false;
                    } else {
                        need_paren = true;
                        need_space = true;
                    }
                    break;
                }
                p = self.mods[i].next;
            }
            if need_paren {
                self.out.push_str(" (");
            }
            self.print_mod_list(mods, false);
            if need_paren {
                self.out.push(')');
            }
        }
        if need_space {
            self.out.push(' ');
        }
        self.out.push('[');
        if let Node::Array(Some(dim), _) = self.nodes[dc] {
            self.print(dim);
        }
        self.out.push(']');
    }

    /// A function with its parameters: the name (and its qualifiers) go
    /// on the modifier list so the function type places them.
    pub(super) fn typed_name(&mut self, left: Id, right: Id) {
        let hold_mods = self.modifiers.take();
        let mut pushed = Vec::new();
        let mut typed = left;
        loop {
            pushed.push(self.push_mod(typed));
            match self.is_fnqual(typed) {
                Some(inner) => typed = inner,
                None => break,
            }
        }
        if let Node::Local(_, r) = self.nodes[typed] {
            let local = *pushed.last().unwrap_or(&0);
            typed = r;
            if let Node::DefaultArg(_, sub) = self.nodes[typed] {
                typed = sub;
            }
            while let Some(inner) = self.is_fnqual(typed) {
                self.mods.push(super::print::ModEntry {
                    node: typed,
                    printed: false,
                    templates: self.templates,
                    next: self.mods[local].next,
                });
                let f = self.mods.len() - 1;
                self.mods[local].next = Some(f);
                pushed.insert(pushed.len() - 1, f);
                typed = inner;
            }
        }
        let template = matches!(self.nodes[typed], Node::Template(..));
        if template {
            self.push_template(typed);
        }
        self.print(right);
        if template {
            self.pop_template();
        }
        for &i in pushed.iter().rev() {
            if !self.mods[i].printed {
                self.out.push(' ');
                let node = self.mods[i].node;
                self.print_mod(node);
            }
        }
        self.modifiers = hold_mods;
    }

    /// A conversion operator's type, in the scope of the template being
    /// printed (`d_print_conversion`).
    fn conversion(&mut self, t: Id) {
        let pushed = self
            .current_template
            .inspect(|&c| self.push_template(c))
            .is_some();
        match self.nodes[t] {
            Node::Template(name, args) => {
                self.print(name);
                if pushed {
                    self.pop_template();
                }
                if self.last() == b'<' {
                    self.out.push(' ');
                }
                self.out.push('<');
                self.print(args);
                if self.last() == b'>' {
                    self.out.push(' ');
                }
                self.out.push('>');
            }
            _ => {
                self.print(t);
                if pushed {
                    self.pop_template();
                }
            }
        }
    }
}
