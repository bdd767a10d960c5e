//! Special names: vtables, typeinfo, thunks, guard variables, reference
//! temporaries, clones (libiberty's `d_special_name`).

use super::parse::Parser;
use super::{Id, Node};

impl<'a> Parser<'a> {
    pub fn special_name(&mut self) -> Option<Id> {
        if self.eat(b'T') {
            let (what, c) = match self.next() {
                b'V' => ("vtable for ", 't'),
                b'T' => ("VTT for ", 't'),
                b'I' => ("typeinfo for ", 't'),
                b'S' => ("typeinfo name for ", 't'),
                b'F' => ("typeinfo fn for ", 't'),
                b'J' => ("java Class for ", 't'),
                b'H' => ("TLS init function for ", 'n'),
                b'W' => ("TLS wrapper function for ", 'n'),
                b'A' => ("template parameter object for ", 'a'),
                b'h' => return self.thunk("non-virtual thunk to ", b"h"),
                b'v' => return self.thunk("virtual thunk to ", b"v"),
                b'c' => return self.thunk("covariant return thunk to ", b"\0\0"),
                b'C' => return self.construction_vtable(),
                _ => return None,
            };
            let inner = match c {
                't' => self.ty()?,
                'n' => self.name(false)?,
                _ => self.template_arg()?,
            };
            return Some(self.add(Node::Special(what, inner)));
        }
        if !self.eat(b'G') {
            return None;
        }
        match self.next() {
            b'V' => {
                let n = self.name(false)?;
                Some(self.add(Node::Special("guard variable for ", n)))
            }
            b'R' => {
                let n = self.name(false)?;
                let num = self.number()?;
                let num = self.add(Node::Number(num));
                Some(self.add(Node::RefTemp(n, num)))
            }
            b'A' => {
                let e = self.encoding(false)?;
                Some(self.add(Node::Special("hidden alias for ", e)))
            }
            b'T' => {
                let what = if self.next() == b'n' {
                    "non-transaction clone for "
                } else {
                    "transaction clone for "
                };
                let e = self.encoding(false)?;
                Some(self.add(Node::Special(what, e)))
            }
            _ => None,
        }
    }

    /// Call offsets (`h<n>_`, `v<n>_<n>_`; a `\0` reads the letter)
    /// and the encoding they lead to.
    fn thunk(&mut self, what: &'static str, offsets: &[u8]) -> Option<Id> {
        for &c in offsets {
            let c = if c == 0 { self.next() } else { c };
            match c {
                b'h' => {
                    self.number()?;
                }
                b'v' => {
                    self.number()?;
                    if !self.eat(b'_') {
                        return None;
                    }
                    self.number()?;
                }
                _ => return None,
            }
            if !self.eat(b'_') {
                return None;
            }
        }
        let e = self.encoding(false)?;
        Some(self.add(Node::Special(what, e)))
    }

    fn construction_vtable(&mut self) -> Option<Id> {
        let derived = self.ty()?;
        if self.number()? < 0 || !self.eat(b'_') {
            return None;
        }
        let base = self.ty()?;
        Some(self.add(Node::CtorVtable(base, derived)))
    }
}
