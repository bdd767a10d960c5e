//! An Itanium C++ demangler that prints names as libiberty does without
//! parameter lists (`cplus_demangle(name, 0)`, what perf report and
//! `c++filt -p -i` show).
//!
//! Input: a linker name starting with `_Z`. Output: [`Outcome`]: the
//! name, or that libiberty would refuse it (then perf shows it raw), or
//! that it uses a production this demangler does not know (then the
//! caller falls back to `cpp_demangle`). It follows libiberty's
//! `cp-demangle.c` closely: [`parse`] (with [`types`], [`expr`],
//! [`special`] and [`tables`]) builds
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
mod special;
mod tables;
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

#[cfg(test)]
mod tests {
    use crate::format::perf_data::itanium::{demangle, Outcome};

    /// (mangled, `c++filt -p -i`): the shapes cpp_demangle got wrong
    /// (a reference inside a nested name, pack expansions of references,
    /// a lambda's `operator()` in a template's scope, function types,
    /// default arguments, local types and lambdas as template arguments,
    /// mixed-reference packs, an empty pack before `>`, function addresses)
    /// from rustc's libLLVM-22 and Debian's libraries.
    #[test]
    fn names_as_cxxfilt_prints_them() {
        for (m, want) in [
            (
                "_ZN4llvm11PassManagerINS_6ModuleENS_15AnalysisManagerIS1_JEEEJEE3runERS1_RS3_",
                "llvm::PassManager<llvm::Module, llvm::AnalysisManager<llvm::Module>>::run",
            ),
            (
                "_ZZN4llvm21DevirtSCCRepeatedPass3runERNS_13LazyCallGraph3SCCERNS_15AnalysisManagerIS2_JRS1_EEES5_RNS_17CGSCCUpdateResultEENK3$_0clES3_RNS_14SmallMapVectorIPNS_5ValueENS_14WeakTrackingVHELj16EEE",
                "llvm::DevirtSCCRepeatedPass::run(llvm::LazyCallGraph::SCC&, llvm::AnalysisManager<llvm::LazyCallGraph::SCC, llvm::LazyCallGraph&>&, llvm::LazyCallGraph&, llvm::CGSCCUpdateResult&)::$_0::operator()",
            ),
            (
                "_ZN4llvm13slpvectorizer7BoUpSLP18processBuildVectorINS1_20ShuffleCostEstimatorENS_15InstructionCostEJNS_19TargetTransformInfoENS_8ArrayRefIPNS_5ValueEEES1_NS_15SmallPtrSetImplIS8_EEEEET0_PKNS1_9TreeEntryEPNS_4TypeEDpRT1_",
                "llvm::slpvectorizer::BoUpSLP::processBuildVector<llvm::slpvectorizer::BoUpSLP::ShuffleCostEstimator, llvm::InstructionCost, llvm::TargetTransformInfo, llvm::ArrayRef<llvm::Value*>, llvm::slpvectorizer::BoUpSLP, llvm::SmallPtrSetImpl<llvm::Value*> >",
            ),
            (
                "_ZN4llvm12function_refIFvRPNS_5ValueERNS_15SmallVectorImplIiEENS0_IFS2_S2_S2_NS_8ArrayRefIiEEEEEEE11callback_fnIZNS_13slpvectorizer7BoUpSLP18processBuildVectorINSF_25ShuffleInstructionBuilderES2_JNS_9IRBuilderINS_12TargetFolderENS_24IRBuilderDefaultInserterEEESF_EEET0_PKNSF_9TreeEntryEPNS_4TypeEDpRT1_EUlS3_S6_T_E_EEvlS3_S6_SA_",
                "llvm::function_ref<void (llvm::Value*&, llvm::SmallVectorImpl<int>&, llvm::function_ref<llvm::Value* (llvm::Value*, llvm::Value*, llvm::ArrayRef<int>)>)>::callback_fn<llvm::slpvectorizer::BoUpSLP::processBuildVector<llvm::slpvectorizer::BoUpSLP::ShuffleInstructionBuilder, llvm::Value*, llvm::IRBuilder<llvm::TargetFolder, llvm::IRBuilderDefaultInserter>, llvm::slpvectorizer::BoUpSLP>(llvm::slpvectorizer::BoUpSLP::TreeEntry const*, llvm::Type*, llvm::IRBuilder<llvm::TargetFolder, llvm::IRBuilderDefaultInserter>&, llvm::slpvectorizer::BoUpSLP&)::{lambda(llvm::Value*&, llvm::SmallVectorImpl<int>&, auto:1)#1}>",
            ),
            (
                "_ZZN4llvm13slpvectorizer7BoUpSLP15BlockScheduling8scheduleISt3setIPNS1_14ScheduleEntityEZNS1_13scheduleBlockERKS1_PS2_E19ScheduleDataCompareSaIS6_EEEEvS8_RKN12_GLOBAL__N_117InstructionsStateERKNS1_8EdgeInfoES6_RT_ENKUlS6_NS_8ArrayRefIPNS1_14ScheduleBundleEEEE_clES6_SP_",
                "llvm::slpvectorizer::BoUpSLP::BlockScheduling::schedule<std::set<llvm::slpvectorizer::BoUpSLP::ScheduleEntity*, llvm::slpvectorizer::BoUpSLP::scheduleBlock(llvm::slpvectorizer::BoUpSLP const&, llvm::slpvectorizer::BoUpSLP::BlockScheduling*)::ScheduleDataCompare, std::allocator<llvm::slpvectorizer::BoUpSLP::ScheduleEntity*> > >(llvm::slpvectorizer::BoUpSLP const&, (anonymous namespace)::InstructionsState const&, llvm::slpvectorizer::BoUpSLP::EdgeInfo const&, llvm::slpvectorizer::BoUpSLP::ScheduleEntity*, std::set<llvm::slpvectorizer::BoUpSLP::ScheduleEntity*, llvm::slpvectorizer::BoUpSLP::scheduleBlock(llvm::slpvectorizer::BoUpSLP const&, llvm::slpvectorizer::BoUpSLP::BlockScheduling*)::ScheduleDataCompare, std::allocator<llvm::slpvectorizer::BoUpSLP::ScheduleEntity*> >&)::{lambda(llvm::slpvectorizer::BoUpSLP::ScheduleEntity*, llvm::ArrayRef<llvm::slpvectorizer::BoUpSLP::ScheduleBundle*>)#1}::operator()",
            ),
            (
                "_ZN4llvm12function_refIFNS_14PrevailingTypeEmEE11callback_fnIZL25computeDeadSymbolsInIndexRNS_18ModuleSummaryIndexERKNS_8DenseSetImNS_12DenseMapInfoImvEEEEE3$_0EES1_lm",
                "llvm::function_ref<llvm::PrevailingType (unsigned long)>::callback_fn<computeDeadSymbolsInIndex(llvm::ModuleSummaryIndex&, llvm::DenseSet<unsigned long, llvm::DenseMapInfo<unsigned long, void> > const&)::$_0>",
            ),
            (
                "_ZN4llvm12function_refIFbPKNS_3UseEEE11callback_fnIZNS_5Value17dropDroppableUsesES5_Ed_UlS3_E_EEblS3_",
                "llvm::function_ref<bool (llvm::Use const*)>::callback_fn<llvm::Value::dropDroppableUses(llvm::function_ref<bool (llvm::Use const*)>)::{default arg#1}::{lambda(llvm::Use const*)#1}>",
            ),
            (
                "_ZNSt8__detail9__variant12__gen_vtableILb1EPKvOZN4llvm12DenseMapInfoISt7variantIJNS4_9StringRefEmEEvE7isEqualERKS8_SB_EUlRKT_E_JSB_EE9_S_vtableE",
                "std::__detail::__variant::__gen_vtable<true, void const*, llvm::DenseMapInfo<std::variant<llvm::StringRef, unsigned long>, void>::isEqual(std::variant<llvm::StringRef, unsigned long> const&, std::variant<llvm::StringRef, unsigned long> const&)::{lambda(auto:1 const&)#1}&&, std::variant<llvm::StringRef, unsigned long> const&>::_S_vtable",
            ),
            (
                "_ZN4llvm6detail18UniqueFunctionBaseIvJNS_9StringRefENS_3AnyEEE15CallbacksHolderIZNS_14ChangeReporterINS_7IRDataTINS_6DCDataEEEE25registerRequiredCallbacksERNS_28PassInstrumentationCallbacksEEUlS2_S3_E_SD_vE9CallbacksE",
                "llvm::detail::UniqueFunctionBase<void, llvm::StringRef, llvm::Any>::CallbacksHolder<llvm::ChangeReporter<llvm::IRDataT<llvm::DCData> >::registerRequiredCallbacks(llvm::PassInstrumentationCallbacks&)::{lambda(llvm::StringRef, llvm::Any)#1}, llvm::ChangeReporter<llvm::IRDataT<llvm::DCData> >::registerRequiredCallbacks(llvm::PassInstrumentationCallbacks&)::{lambda(llvm::StringRef, llvm::Any)#1}, void>::Callbacks",
            ),
            (
                "_ZSt13__invoke_implIbZN4llvm14SDPatternMatch23ReassociatableOpc_matchIJNS1_10Value_bindES3_NS1_10Ones_matchEEE5matchINS1_17BasicMatchContextEEEbRKT_NS0_7SDValueEEUlDpRT_E_JRS3_SG_RS4_EES8_St14__invoke_otherOT0_DpOT1_",
                "std::__invoke_impl<bool, llvm::SDPatternMatch::ReassociatableOpc_match<llvm::SDPatternMatch::Value_bind, llvm::SDPatternMatch::Value_bind, llvm::SDPatternMatch::Ones_match>::match<llvm::SDPatternMatch::BasicMatchContext>(llvm::SDPatternMatch::BasicMatchContext const&, llvm::SDValue)::{lambda((auto:1&)...)#1}, llvm::SDPatternMatch::Value_bind&, llvm::SDPatternMatch::Value_bind&, llvm::SDPatternMatch::Ones_match&>",
            ),
            (
                "_ZNSt3mapIN4llvm11logicalview10LVLineKindEMNS1_6LVLineEKFbvESt4lessIS2_ESaISt4pairIKS2_S5_EEED2Ev",
                "std::map<llvm::logicalview::LVLineKind, bool (llvm::logicalview::LVLine::*)() const, std::less<llvm::logicalview::LVLineKind>, std::allocator<std::pair<llvm::logicalview::LVLineKind const, bool (llvm::logicalview::LVLine::*)() const> > >::~map",
            ),
            (
                "_ZN4node10BaseObject16InternalFieldSetILi3EXadL_ZNK2v85Value10IsFunctionEvEEEEvNS2_5LocalINS2_6StringEEENS4_IS3_EERKNS2_20PropertyCallbackInfoIvEE",
                "node::BaseObject::InternalFieldSet<3, &(v8::Value::IsFunction() const)>",
            ),
            (
                "_ZN10hash_tableI13cselib_hasherLb0E11xcallocatorE8traverseIP8_IO_FILEXadL_Z15dump_cselib_valPP10cselib_valS5_EEEEvT_",
                "hash_table<cselib_hasher, false, xcallocator>::traverse<_IO_FILE*, &(dump_cselib_val(cselib_val**, _IO_FILE*))>",
            ),
            (
                "_ZN4node10StreamBase8JSMethodIXadL_ZNS0_11WriteStringILNS_8encodingE0EEEiRKN2v820FunctionCallbackInfoINS4_5ValueEEEEEEEvS9_",
                "node::StreamBase::JSMethod<&(int node::StreamBase::WriteString<(node::encoding)0>(v8::FunctionCallbackInfo<v8::Value> const&))>",
            ),
            (
                "_ZN4llvm25OptimizationRemarkEmitter4emitIZN12_GLOBAL__N_118LoopIdiomRecognize17processLoopMemCpyEPNS_10MemCpyInstEPKNS_4SCEVEE3$_0EEvT_PDTclfL0p_EE",
                "llvm::OptimizationRemarkEmitter::emit<(anonymous namespace)::LoopIdiomRecognize::processLoopMemCpy(llvm::MemCpyInst*, llvm::SCEV const*)::$_0>",
            ),
        ] {
            assert_eq!(demangle(m), Outcome::Name(want.to_string()), "{m}");
        }
    }

    /// libiberty refuses a fold expression without its operator
    /// (`fL0p_`, a parameter of an outer scope): perf shows it raw, and
    /// the other demangler is not asked (`demangle.rs` checks that).
    #[test]
    fn refused_as_libiberty_refuses() {
        let m = "_ZN4llvm3orc16ExecutionSession16runSessionLockedIZNS0_8JITDylib15withLinkOrderDoIZNS0_21LinkGraphLinkingLayer10JITLinkCtx6lookupERKNS_8DenseMapINS0_15SymbolStringPtrENS_7jitlink17SymbolLookupFlagsENS_12DenseMapInfoIS8_vEENS_6detail12DenseMapPairIS8_SA_EEEESt10unique_ptrINS9_30JITLinkAsyncLookupContinuationESt14default_deleteISK_EEEUlRKSt6vectorISt4pairIPS3_NS0_19JITDylibLookupFlagsEESaISS_EEE_EEDTclfL0p_clL_ZSt7declvalISW_EDTcl9__declvalIT_ELi0EEEvEEEEOSZ_EUlvE_EEDcS12_";
        assert_eq!(demangle(m), Outcome::Invalid);
    }

    /// Deeply nested names are refused or left to the other demangler,
    /// never a stack overflow (on a thread's 2 MB stack, as in rayon).
    #[test]
    fn deep_names_do_not_overflow() {
        let names = [
            format!("_Z1fI{}iEv", "P".repeat(5000)),
            format!("_Z{}1fv{}E1g", "Z".repeat(3000), "E1gv".repeat(2999)),
            format!("_Z1fI{}i{}Ev", "St6vectorI".repeat(2000), "EE".repeat(2000)),
            format!("_Z1fIXplL_Z1gv{}EEEv", "plL_Z1gv".repeat(3000)),
        ];
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                for n in &names {
                    assert_eq!(demangle(n), Outcome::Unsupported, "{}", &n[..20]);
                }
                // Within the limits, the same shapes are demangled.
                let p = format!("_Z1fI{}iEv", "P".repeat(200));
                assert_eq!(
                    demangle(&p),
                    Outcome::Name(format!("f<int{}>", "*".repeat(200)))
                );
            })
            .unwrap()
            .join()
            .unwrap();
    }

    /// A production this parser does not know is left to cpp_demangle.
    #[test]
    fn unknown_productions_are_unsupported() {
        // A C++20 module name (`W`).
        assert_eq!(demangle("_ZW3foo3barv"), Outcome::Unsupported);
        assert_eq!(demangle("_Z"), Outcome::Unsupported);
    }
}
