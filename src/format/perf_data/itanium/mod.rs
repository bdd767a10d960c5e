//! An Itanium C++ demangler that prints names as libiberty does without
//! parameter lists (`cplus_demangle(name, 0)`, what perf report and
//! `c++filt -p -i` show).
//!
//! Input: a linker name starting with `_Z`. Output: [`Outcome`]: the
//! name, or that libiberty would refuse it (then perf shows it raw), or
//! that it uses a production this demangler does not know (then the
//! caller falls back to `cpp_demangle`). It follows libiberty's
//! `cp-demangle.c` closely: [`parse`] (with [`types`] and [`expr`]) builds
//! a tree of components with the same substitution rules, and [`print`]
//! (with [`modifiers`] and [`print_expr`]) walks it the way
//! `d_print_comp` does: template parameters resolved while printing, in
//! the scope of the template being printed; pack expansions printed once
//! per element; qualifiers and references kept on a modifier list until
//! the type that places them (a function or array type) is printed.

mod expr;
mod modifiers;
mod parse;
mod print;
mod print_expr;
mod types;

/// Index of a component in the parser's arena.
pub(super) type Id = usize;

/// What [`demangle`] made of a name.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The name as libiberty prints it.
    Name(String),
    /// libiberty would fail on it (shown raw).
    Invalid,
    /// A production this demangler does not handle.
    Unsupported,
}

/// Demangle `name` (`_Z…`) as libiberty does without parameters:
/// whatever follows the encoding (clone suffixes, versions) is ignored.
pub fn demangle(name: &str) -> Outcome {
    let mut p = parse::Parser::new(name);
    let Some(dc) = p.mangled_name(true) else {
        return if p.invalid {
            Outcome::Invalid
        } else {
            Outcome::Unsupported
        };
    };
    let mut pr = print::Printer::new(&p.nodes);
    pr.print(dc);
    if pr.failed {
        Outcome::Invalid
    } else {
        Outcome::Name(pr.out)
    }
}

/// Qualifiers and type constructors that wrap one component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Qual {
    Const,
    Volatile,
    Restrict,
    ConstThis,
    VolatileThis,
    RestrictThis,
    RefThis,
    RRefThis,
    TxSafe,
    Noexcept,
    Throw,
    Pointer,
    Ref,
    RRef,
    Complex,
    Imaginary,
}

impl Qual {
    /// A qualifier of a member function (libiberty's
    /// `is_fnqual_component_type`).
    pub(super) fn is_fnqual(self) -> bool {
        matches!(
            self,
            Qual::ConstThis
                | Qual::VolatileThis
                | Qual::RestrictThis
                | Qual::RefThis
                | Qual::RRefThis
                | Qual::TxSafe
                | Qual::Noexcept
                | Qual::Throw
        )
    }
}

/// How a builtin type prints a literal of its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lit {
    Default,
    Int,
    Unsigned,
    Long,
    UnsignedLong,
    LongLong,
    UnsignedLongLong,
    Bool,
    Float,
    Void,
}

/// A builtin type: its name and how its literals print.
#[derive(Debug)]
pub(super) struct Builtin {
    pub name: &'static str,
    pub lit: Lit,
}

/// An operator: its code, its name and its number of operands.
#[derive(Debug)]
pub(super) struct Op {
    pub code: &'static str,
    pub name: &'static str,
    pub args: u8,
}

/// One component of a demangled name (libiberty's
/// `demangle_component`, fields in its left/right order).
#[derive(Clone, Debug)]
pub(super) enum Node<'a> {
    /// An identifier, a literal's digits, an array dimension.
    Name(&'a str),
    /// Fixed text that prints as a name (`std`, `auto`, …).
    Text(&'static str),
    Builtin(&'static Builtin),
    /// A standard abbreviation (`std::string`).
    Sub(&'static str),
    Qual(Id, Id),
    Local(Id, Id),
    Typed(Id, Id),
    Template(Id, Id),
    /// Template arguments (also an argument pack).
    Args(Vec<Id>),
    /// Function parameters, expression lists.
    List(Vec<Id>),
    TParam(usize),
    FnParam(usize),
    Ctor(Id),
    Dtor(Id),
    /// `vtable for T` and the other special names of one component.
    Special(&'static str, Id),
    /// Base, derived.
    CtorVtable(Id, Id),
    /// Name, number.
    RefTemp(Id, Id),
    /// A qualifier, what it qualifies, and a noexcept expression or a
    /// throw list.
    Mod(Qual, Id, Option<Id>),
    /// Type, vendor qualifier.
    VendorQual(Id, Id),
    VendorType(Id),
    /// Return type, parameter list.
    Function(Option<Id>, Id),
    /// Dimension, element type.
    Array(Option<Id>, Id),
    /// Class, member type.
    PtrMem(Id, Id),
    /// Dimension, element type.
    Vector(Id, Id),
    Pack(Id),
    /// Parameter list, number.
    Lambda(Id, usize),
    Unnamed(usize),
    DefaultArg(usize, Id),
    Tagged(Id, Id),
    Operator(&'static Op),
    ExtOperator(Id),
    Conversion(Id),
    Cast(Id),
    Decltype(Id),
    Nullary(Id),
    /// Operator, operand, whether it is a suffix (`x++`).
    Unary(Id, Id, bool),
    Binary(Id, Id, Id),
    /// Type, digits, negative.
    Literal(Id, Id, bool),
    Number(i64),
}
