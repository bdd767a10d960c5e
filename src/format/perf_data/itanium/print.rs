//! Printing the component tree as libiberty's `d_print_comp` does:
//! names, templates and their parameters, pack expansions, lambdas.
//! Types with modifiers are in [`super::modifiers`], expressions in
//! [`super::print_expr`].

use super::{Id, Node};

/// Deepest recursion while printing (then the name is refused, as
/// libiberty refuses it past its own limit).
const MAX_DEPTH: usize = 1024;

/// An entry of the modifier list (libiberty's `d_print_mod`).
pub(super) struct ModEntry {
    pub node: Id,
    pub printed: bool,
    pub templates: Option<usize>,
    pub next: Option<usize>,
}

/// The printer's state (libiberty's `d_print_info`).
pub(super) struct Printer<'p, 'a> {
    pub nodes: &'p [Node<'a>],
    pub out: String,
    pub failed: bool,
    /// Template scopes: (template component, enclosing scope).
    pub frames: Vec<(Id, Option<usize>)>,
    pub templates: Option<usize>,
    pub mods: Vec<ModEntry>,
    pub modifiers: Option<usize>,
    pub pack_index: usize,
    pub is_lambda_arg: u32,
    pub current_template: Option<Id>,
    /// Where an empty pack's `, ` was taken back: libiberty's last
    /// character is still the space there.
    taken_back: Option<usize>,
    /// The components being printed, innermost last.
    pub stack: Vec<Id>,
    /// How often each component is being printed (libiberty refuses a
    /// component printed inside itself more than once).
    printing: Vec<u8>,
    /// The template scope a template parameter under a reference was
    /// first printed in (libiberty's saved scopes).
    pub saved_scopes: Vec<(Id, Option<usize>)>,
}

impl<'p, 'a> Printer<'p, 'a> {
    pub fn new(nodes: &'p [Node<'a>]) -> Printer<'p, 'a> {
        Printer {
            nodes,
            out: String::new(),
            failed: false,
            frames: Vec::new(),
            templates: None,
            mods: Vec::new(),
            modifiers: None,
            pack_index: 0,
            is_lambda_arg: 0,
            current_template: None,
            taken_back: None,
            stack: Vec::new(),
            printing: vec![0; nodes.len()],
            saved_scopes: Vec::new(),
        }
    }

    pub fn last(&self) -> u8 {
        if self.taken_back == Some(self.out.len()) {
            return b' ';
        }
        self.out.as_bytes().last().copied().unwrap_or(0)
    }

    pub fn push_mod(&mut self, node: Id) -> usize {
        self.mods.push(ModEntry {
            node,
            printed: false,
            templates: self.templates,
            next: self.modifiers,
        });
        self.modifiers = Some(self.mods.len() - 1);
        self.mods.len() - 1
    }

    pub fn push_template(&mut self, decl: Id) {
        self.frames.push((decl, self.templates));
        self.templates = Some(self.frames.len() - 1);
    }

    pub fn pop_template(&mut self) {
        if let Some(t) = self.templates {
            self.templates = self.frames[t].1;
        }
    }

    pub fn is_fnqual(&self, id: Id) -> Option<Id> {
        match self.nodes[id] {
            Node::Mod(q, inner, _) if q.is_fnqual() => Some(inner),
            _ => None,
        }
    }

    pub fn print(&mut self, dc: Id) {
        if self.failed {
            return;
        }
        if self.stack.len() >= MAX_DEPTH || self.printing[dc] > 1 {
            self.failed = true;
            return;
        }
        self.printing[dc] += 1;
        self.stack.push(dc);
        self.print_inner(dc);
        self.stack.pop();
        self.printing[dc] -= 1;
    }

    fn print_inner(&mut self, dc: Id) {
        let nodes = self.nodes;
        match nodes[dc] {
            Node::Name(s) => self.out.push_str(s),
            Node::Text(s) | Node::Sub(s) => self.out.push_str(s),
            Node::Builtin(b) => self.out.push_str(b.name),
            Node::Qual(l, r) | Node::Local(l, r) => {
                self.print(l);
                self.out.push_str("::");
                self.local_part(r);
            }
            Node::Typed(l, r) => self.typed_name(l, r),
            Node::Template(l, r) => self.template(dc, l, r),
            Node::Args(ref v) | Node::List(ref v) => self.list(v),
            Node::TParam(n) => self.template_param(n),
            Node::Ctor(n) => self.print(n),
            Node::Dtor(n) => {
                self.out.push('~');
                self.print(n);
            }
            Node::Special(what, x) => {
                self.out.push_str(what);
                self.print(x);
            }
            Node::CtorVtable(base, derived) => {
                self.out.push_str("construction vtable for ");
                self.print(base);
                self.out.push_str("-in-");
                self.print(derived);
            }
            Node::RefTemp(name, num) => {
                self.out.push_str("reference temporary #");
                self.print(num);
                self.out.push_str(" for ");
                self.print(name);
            }
            Node::Pack(x) => self.pack_expansion(x),
            Node::Lambda(params, num) => {
                self.out.push_str("{lambda(");
                self.is_lambda_arg += 1;
                self.print(params);
                self.is_lambda_arg -= 1;
                self.out.push_str(&format!(")#{}}}", num + 1));
            }
            Node::Unnamed(n) => self.out.push_str(&format!("{{unnamed type#{}}}", n + 1)),
            Node::Tagged(l, r) => {
                self.print(l);
                self.out.push_str("[abi:");
                self.print(r);
                self.out.push(']');
            }
            Node::Number(n) => self.out.push_str(&n.to_string()),
            Node::DefaultArg(..) => self.failed = true,
            _ => self.print_type_or_expr(dc),
        }
    }

    /// The right side of a qualified or local name (`{default arg#N}::`
    /// before a default argument's entity).
    fn local_part(&mut self, r: Id) {
        let mut r = r;
        if let Node::DefaultArg(n, sub) = self.nodes[r] {
            self.out.push_str(&format!("{{default arg#{}}}::", n + 1));
            r = sub;
        }
        self.print(r);
    }

    fn template(&mut self, dc: Id, name: Id, args: Id) {
        let hold_current = self.current_template.replace(dc);
        let hold_mods = self.modifiers.take();
        self.print(name);
        if self.last() == b'<' {
            self.out.push(' ');
        }
        self.out.push('<');
        self.print(args);
        if self.last() == b'>' {
            self.out.push(' ');
        }
        self.out.push('>');
        self.modifiers = hold_mods;
        self.current_template = hold_current;
    }

    /// Comma-separated, an element that prints nothing (an empty pack)
    /// taking its comma back when it ends the list.
    fn list(&mut self, items: &[Id]) {
        let Some((&first, rest)) = items.split_first() else {
            return;
        };
        self.print(first);
        if !rest.is_empty() {
            self.out.push_str(", ");
            let len = self.out.len();
            self.list(rest);
            if self.out.len() == len {
                self.out.truncate(len - 2);
                self.taken_back = Some(len - 2);
            }
        }
    }

    /// The argument of the current template that `T<n>_` names.
    pub fn lookup_template_argument(&mut self, n: usize) -> Option<Id> {
        let Some(t) = self.templates else {
            self.failed = true;
            return None;
        };
        let Node::Template(_, args) = self.nodes[self.frames[t].0] else {
            return None;
        };
        match self.nodes[args] {
            Node::Args(ref v) => v.get(n).copied(),
            _ => None,
        }
    }

    /// An argument, or the current element of a pack argument.
    pub fn resolve_param(&mut self, n: usize) -> Option<Id> {
        let a = self.lookup_template_argument(n)?;
        match self.nodes[a] {
            Node::Args(ref v) => v.get(self.pack_index).copied(),
            _ => Some(a),
        }
    }

    fn template_param(&mut self, n: usize) {
        if self.is_lambda_arg > 0 {
            self.out.push_str(&format!("auto:{}", n + 1));
            return;
        }
        let Some(a) = self.resolve_param(n) else {
            self.failed = true;
            return;
        };
        // The argument may name a parameter of an outer template.
        let hold = self.templates;
        self.pop_template();
        self.print(a);
        self.templates = hold;
    }

    fn pack_expansion(&mut self, inner: Id) {
        let Some(pack) = self.find_pack(inner) else {
            self.subexpr(inner);
            self.out.push_str("...");
            return;
        };
        let len = match self.nodes[pack] {
            Node::Args(ref v) => v.len(),
            _ => 0,
        };
        for i in 0..len {
            self.pack_index = i;
            self.print(inner);
            if i + 1 < len {
                self.out.push_str(", ");
            }
        }
    }

    /// The first argument pack a pattern refers to (`d_find_pack`).
    pub fn find_pack(&mut self, dc: Id) -> Option<Id> {
        let nodes = self.nodes;
        let pair = |l: Id, r: Option<Id>| (Some(l), r);
        let (l, r) = match nodes[dc] {
            Node::TParam(_) if self.is_lambda_arg > 0 => return None,
            Node::TParam(n) => {
                let a = self.lookup_template_argument(n)?;
                return matches!(nodes[a], Node::Args(_)).then_some(a);
            }
            Node::Args(ref v) | Node::List(ref v) => {
                return v.iter().find_map(|&x| self.find_pack(x));
            }
            Node::Qual(l, r)
            | Node::Local(l, r)
            | Node::Typed(l, r)
            | Node::Template(l, r)
            | Node::CtorVtable(l, r)
            | Node::RefTemp(l, r)
            | Node::VendorQual(l, r)
            | Node::PtrMem(l, r)
            | Node::Vector(l, r)
            | Node::Unary(l, r, _)
            | Node::Literal(l, r, _) => pair(l, Some(r)),
            Node::Mod(_, l, r) => pair(l, r),
            Node::Function(l, r) | Node::Array(l, r) => (l, Some(r)),
            Node::Binary(_, l, r) => pair(l, Some(r)),
            Node::Ctor(n) | Node::Dtor(n) | Node::ExtOperator(n) => (Some(n), None),
            Node::Special(_, x)
            | Node::Conversion(x)
            | Node::Cast(x)
            | Node::Decltype(x)
            | Node::Nullary(x) => (Some(x), None),
            _ => (None, None),
        };
        if let Some(a) = l.and_then(|l| self.find_pack(l)) {
            return Some(a);
        }
        r.and_then(|r| self.find_pack(r))
    }

    /// An operand, in parentheses unless it is a name.
    pub fn subexpr(&mut self, dc: Id) {
        let simple = matches!(
            self.nodes[dc],
            Node::Name(_) | Node::Text(_) | Node::Qual(..) | Node::FnParam(_)
        );
        if !simple {
            self.out.push('(');
        }
        self.print(dc);
        if !simple {
            self.out.push(')');
        }
    }
}
