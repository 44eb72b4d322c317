//===- LockApi.cpp - which calls lock, unlock or wait on a mutex ------------===//
#include "LockApi.h"
#include "ResultCheck.h"
#include "WrapperModel.h"
#include "StmtWalk.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace rcl {

std::optional<LockOp> LockApi::classify(const CallExpr *Call) const {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier()) return std::nullopt;
    StringRef Name = Callee->getName();
    // A declared wrapper may take no argument at all (`STATS_LOCK()`).
    for (const WrapperPair &W : Wrappers) {
        if (Name == W.Lock) return W.Timed ? LockOp::TimedLock : LockOp::Lock;
        if (Name == W.Unlock) return LockOp::Unlock;
    }
    if (Call->getNumArgs() == 0) return std::nullopt;
    // The pthread API, and C11's <threads.h> (mtx_t and cnd_t are the pthread objects in glibc:
    // rcl/threads.h).
    for (LockOp Op : {LockOp::Lock, LockOp::Unlock, LockOp::TryLock})
        if (isPthreadOperation(Callee, Op)) return Op;
    if (Name == "pthread_mutex_timedlock" || Name == "pthread_mutex_clocklock" ||
        Name == "mtx_timedlock")
        return LockOp::TimedLock;
    unsigned Args = Call->getNumArgs();
    if ((Name == "pthread_cond_wait" || Name == "rcl_cond_wait" || Name == "cnd_wait" ||
         Name == "rcl_cnd_wait") &&
        Args == 2)
        return LockOp::CondWait;
    if ((Name == "pthread_cond_timedwait" || Name == "rcl_cond_timedwait" ||
         Name == "cnd_timedwait" || Name == "rcl_cnd_timedwait") &&
        Args == 3)
        return LockOp::CondTimedWait;
    if ((Name == "pthread_cond_clockwait" || Name == "rcl_cond_clockwait") && Args == 4)
        return LockOp::CondClockWait;
    return std::nullopt;
}

bool isMutexPointer(QualType T) {
    if (!T->isPointerType()) return false;
    QualType Pointee = T->getPointeeType();
    while (const auto *Typedef = Pointee->getAs<TypedefType>()) {
        if (Typedef->getDecl()->getName() == "pthread_mutex_t" ||
            Typedef->getDecl()->getName() == "mtx_t")
            return true;
        Pointee = Typedef->getDecl()->getUnderlyingType();
    }
    return false;
}

bool isC11Mutex(QualType T) {
    if (!T->isPointerType()) return false;
    for (QualType Pointee = T->getPointeeType();
         const auto *Typedef = Pointee->getAs<TypedefType>();
         Pointee = Typedef->getDecl()->getUnderlyingType()) {
        if (Typedef->getDecl()->getName() == "mtx_t") return true;
        if (Typedef->getDecl()->getName() == "pthread_mutex_t") return false;
    }
    return false;
}

bool isPthreadOperation(const FunctionDecl *Callee, LockOp Op) {
    if (!Callee || !Callee->getIdentifier()) return false;
    StringRef Name = Callee->getName();
    return Op == LockOp::Lock      ? Name == "pthread_mutex_lock" || Name == "mtx_lock"
           : Op == LockOp::Unlock  ? Name == "pthread_mutex_unlock" || Name == "mtx_unlock"
           : Op == LockOp::TryLock ? Name == "pthread_mutex_trylock" || Name == "mtx_trylock"
                                   : false;
}

namespace {
const CallExpr *assertedOperation(const Expr *E);
} // namespace

std::vector<unsigned> parametersUsed(const Expr *E) {
    std::vector<unsigned> Used;
    std::vector<const Stmt *> Work{E};
    while (!Work.empty()) {
        const Stmt *S = Work.back();
        Work.pop_back();
        if (!S) continue;
        if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
            if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl()))
                if (std::find(Used.begin(), Used.end(), Param->getFunctionScopeIndex()) ==
                    Used.end())
                    Used.push_back(Param->getFunctionScopeIndex());
        for (const Stmt *Child : S->children())
            Work.push_back(Child);
    }
    return Used;
}

WrapperSummary LockApi::summary(const FunctionDecl *Def, LockOp Op) const {
    return summarizeWrapper(Def, Op, *this);
}

std::pair<const FunctionDecl *, const FunctionDecl *>
LockApi::definitionsInMainFile(ASTContext &Ctx, const WrapperPair &W) {
    const SourceManager &SM = Ctx.getSourceManager();
    const FunctionDecl *LockDef = nullptr, *UnlockDef = nullptr;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
        if (auto *Fn = dyn_cast<FunctionDecl>(D);
            Fn && Fn->getIdentifier() && Fn->doesThisDeclarationHaveABody() &&
            SM.isWrittenInMainFile(SM.getExpansionLoc(Fn->getBeginLoc()))) {
            if (Fn->getName() == W.Lock) LockDef = Fn;
            if (Fn->getName() == W.Unlock) UnlockDef = Fn;
        }
    return {LockDef, UnlockDef};
}

std::optional<std::string> LockApi::wrapperProblem(const CallExpr *Call) const {
    std::optional<LockOp> Op = classify(Call);
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Op || (*Op != LockOp::Lock && *Op != LockOp::Unlock)) return std::nullopt;
    StringRef Name = Callee->getName();
    if (!pairOf(Name)) return std::nullopt; /* a pthread call */
    std::string Kind = *Op == LockOp::Lock ? "lock" : "unlock";
    std::string What = Kind + " wrapper '" + Name.str() + "'";
    const FunctionDecl *Def = nullptr;
    // Only the declaration: with a `pthread_mutex_t *` first parameter, the user declared it as
    // exactly a lock or unlock of that argument; otherwise the mutex comes from the getter that
    // rcl-rewrite adds to the unit defining the pair (after checking the definitions there),
    // and where there is none the section runs under the wrappers themselves.
    if (!Callee->hasBody(Def)) return std::nullopt;
    // The definition, along its success path (WrapperModel): the operation on E, reached from
    // its parameters and file-scope names, possibly under a condition of the same kind; an
    // unlock wrapper may do other things first (unlockEffects).
    WrapperSummary S = summary(Def, *Op);
    if (S.Problem) return S.Problem;
    // Through another pair's wrappers: the section delegates through this pair's getter, as
    // in another unit (mutexOf); pairProblem tells whether it is written.
    if (S.Chain) return std::nullopt;
    if (!reachableFromParameters(S.Mutex, Def))
        return What + " " + Kind +
               "s a mutex that is not reached from its parameters and file-scope names alone, "
               "without calls or side effects";
    return std::nullopt;
}

MutexRef LockApi::mutexOf(const CallExpr *Call, LockOp Op) const {
    MutexRef M;
    M.Operand = mutexOperand(Call, Op);
    M.Call = Call;
    const FunctionDecl *Callee = Call->getDirectCallee(), *Def = nullptr;
    if (isConditionWait(Op)) return M;
    const WrapperPair *Pair = pairOf(Callee->getName());
    if (!Pair) return M; /* a pthread call: its operand is the mutex */
    auto remote = [&](const FunctionDecl *Through) {
        M.Remote = Through->getName().str();
        for (const WrapperPair &W : Wrappers) {
            if (W.Lock == M.Remote) M.Partners.push_back(W.Unlock);
            if (W.Unlock == M.Remote) M.Partners.push_back(W.Lock);
        }
        return M;
    };
    if (Pair->Timed) { // always through its delegating copy (timedWrapperCopy)
        M.Timed = true;
        return remote(Callee);
    }
    if (!Callee->hasBody(Def)) return reachedThroughGetter(Callee) ? remote(Callee) : M;
    WrapperSummary S = summary(Def, Op);
    if (S.Chain) {
        // A wrapper with internal linkage that passes its parameters on in order: the section
        // stands on the inner pair, as if it called it (the wrapper's checks of the result do
        // nothing when the operation succeeds, WrapperModel).
        const FunctionDecl *Inner = S.Chain->getDirectCallee();
        const WrapperPair *InnerPair = pairOf(Inner->getName());
        bool InOrder = S.Chain->getNumArgs() == Def->getNumParams();
        for (unsigned I = 0; InOrder && I < S.Chain->getNumArgs(); ++I) {
            const auto *Ref = dyn_cast<DeclRefExpr>(S.Chain->getArg(I)->IgnoreParenImpCasts());
            InOrder = Ref && Ref->getDecl() == Def->getParamDecl(I);
        }
        if (!Def->isExternallyVisible() && InnerPair && InOrder && !S.hasEffects() && !S.Guard) {
            M.ChainLock = InnerPair->Lock;
            M.ChainUnlock = InnerPair->Unlock;
            M.ChainInner = Inner;
            return reachedThroughGetter(Inner) ? remote(Inner) : M;
        }
        // A chain (`my_lock(l) { plat_lock(l); }`, plat_lock defined elsewhere): through the
        // pair's getter, which this unit writes (RewriteAction, pairChain).
        return remote(Callee);
    }
    if (!S.Mutex) return M;
    M.WrapperGuard = S.Guard;
    // `my_lock(pthread_mutex_t *m) { pthread_mutex_lock(m); }`: the argument is the mutex.
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S.Mutex))
        if (Def->getNumParams() > 0 && Ref->getDecl() == Def->getParamDecl(0)) return M;
    M.Through = S.Mutex;
    return M;
}

bool reachedThroughGetter(const FunctionDecl *Wrapper) {
    return Wrapper->getNumParams() == 0 || !isMutexPointer(Wrapper->getParamDecl(0)->getType());
}

const WrapperPair *LockApi::pairOf(StringRef Name) const {
    for (const WrapperPair &W : Wrappers)
        if (Name == W.Lock || Name == W.Unlock) return &W;
    return nullptr;
}

void LockApi::markConstFunctions(ASTContext &Ctx) const {
    if (ConstFunctions.empty()) return;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        auto *Fn = dyn_cast<FunctionDecl>(D);
        if (!Fn || !Fn->getIdentifier() || !llvm::is_contained(ConstFunctions, Fn->getName()) ||
            Fn->hasAttr<ConstAttr>())
            continue;
        Fn->addAttr(ConstAttr::CreateImplicit(Ctx));
    }
}

bool LockApi::isPair(StringRef Lock, StringRef Unlock) const {
    for (const WrapperPair &W : Wrappers)
        if (W.Lock == Lock && W.Unlock == Unlock) return true;
    return false;
}

std::optional<std::string> LockApi::pairProblem(const FunctionDecl *LockDef,
                                                const FunctionDecl *UnlockDef) const {
    const ASTContext &Ctx = LockDef->getASTContext();
    std::string Pair = "lock wrapper '" + LockDef->getNameAsString() + "' and unlock wrapper '" +
                       UnlockDef->getNameAsString() + "'";
    if (LockDef->getNumParams() != UnlockDef->getNumParams())
        return Pair + " take different parameters";
    for (unsigned I = 0; I < LockDef->getNumParams(); ++I)
        if (!Ctx.hasSameUnqualifiedType(LockDef->getParamDecl(I)->getType(),
                                        UnlockDef->getParamDecl(I)->getType()))
            return Pair + " take different parameters";
    WrapperSummary L = summary(LockDef, LockOp::Lock), U = summary(UnlockDef, LockOp::Unlock);
    if (L.Problem) return L.Problem;
    if (U.Problem) return U.Problem;
    // Checks of the parameters only (Tor's `raw_assert(m)`) go into the getter, written with
    // the lock wrapper's parameter names: the unlock wrapper's must be the same.
    bool SameNames = true;
    for (unsigned I = 0; I < LockDef->getNumParams(); ++I)
        SameNames &= LockDef->getParamDecl(I)->getName() == UnlockDef->getParamDecl(I)->getName();
    auto effects = [&](const WrapperSummary &S) {
        return S.hasEffects() && (!S.onlyChecks() || !SameNames);
    };
    if (effects(L) || effects(U))
        return (effects(L) ? "lock wrapper '" + LockDef->getNameAsString() + "' does more than lock"
                           : "unlock wrapper '" + UnlockDef->getNameAsString() +
                                 "' does more than unlock") +
               std::string(" its first argument, which other files' sections cannot run where "
                           "it would run");
    if (L.Chain || U.Chain) {
        if (!pairChain(LockDef, UnlockDef))
            return Pair + " do not go through one declared pair of other wrappers with the "
                          "same arguments";
        return std::nullopt;
    }
    if (!reachableFromParameters(L.Mutex, LockDef))
        return "lock wrapper '" + LockDef->getNameAsString() +
               "' locks a mutex that is not reached from its parameters and file-scope names "
               "alone, without calls or side effects";
    if (!sameLvalue(L.Mutex, U.Mutex, Ctx)) return Pair + " do not operate on the same mutex";
    if ((L.Guard != nullptr) != (U.Guard != nullptr) ||
        (L.Guard && !sameLvalue(L.Guard, U.Guard, Ctx)))
        return Pair + " do not operate under the same condition";
    return std::nullopt;
}

namespace {
/// Whether S computes with the function's locals only (Skip, a call inside it, as a value): no
/// call, no memory but local variables (no dereference, member, subscript or address), no
/// static local, no jump, label, loop, switch, statement expression or assembly.
bool localOnly(const Stmt *S, const Stmt *Skip) {
    if (!S || S == Skip) return true;
    if (isa<CallExpr, MemberExpr, ArraySubscriptExpr, GotoStmt, IndirectGotoStmt, LabelStmt,
            SwitchCase, ForStmt, WhileStmt, DoStmt, SwitchStmt, StmtExpr, AsmStmt, AtomicExpr,
            AddrLabelExpr, BreakStmt, ContinueStmt>(S))
        return false;
    if (const auto *U = dyn_cast<UnaryOperator>(S);
        U && (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf))
        return false;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()); Var && !Var->hasLocalStorage())
            return false;
    if (const auto *Decl = dyn_cast<DeclStmt>(S))
        for (const clang::Decl *D : Decl->decls())
            if (const auto *Var = dyn_cast<VarDecl>(D); !Var || !Var->hasLocalStorage())
                return false;
    for (const Stmt *Child : S->children())
        if (!localOnly(Child, Skip)) return false;
    return true;
}
} // namespace

std::optional<std::string> LockApi::timedWrapperProblem(const FunctionDecl *TimedDef,
                                                        const FunctionDecl *UnlockDef,
                                                        std::vector<const CallExpr *> &Ops) const {
    const ASTContext &Ctx = TimedDef->getASTContext();
    std::string Timed = "timed lock wrapper '" + TimedDef->getNameAsString() + "'";
    WrapperSummary U = summary(UnlockDef, LockOp::Unlock);
    if (U.Problem) return U.Problem;
    if (!U.Mutex || U.Chain || U.Guard || U.hasEffects())
        return "unlock wrapper '" + UnlockDef->getNameAsString() +
               "' does more than unlock a mutex of its parameters";
    if (isC11Mutex(U.Mutex->getType())) return Timed + " locks a C11 mutex";
    if (UnlockDef->getNumParams() > TimedDef->getNumParams())
        return Timed + " takes fewer parameters than its unlock wrapper";
    for (unsigned I = 0; I < UnlockDef->getNumParams(); ++I)
        if (!Ctx.hasSameUnqualifiedType(TimedDef->getParamDecl(I)->getType(),
                                        UnlockDef->getParamDecl(I)->getType()) ||
            TimedDef->getParamDecl(I)->getName().empty())
            return Timed + " and unlock wrapper '" + UnlockDef->getNameAsString() +
                   "' do not start with the same parameters";
    for (const ParmVarDecl *P : TimedDef->parameters())
        if (P->getName().empty()) return Timed + " has an unnamed parameter";
    const Stmt *Body = TimedDef->getBody();
    Ops.clear();
    std::optional<std::string> Problem;
    walk(Body, [&](const Stmt *S) {
        const auto *Call = dyn_cast<CallExpr>(S);
        std::optional<LockOp> Op = Call ? classify(Call) : std::nullopt;
        if (!Op || Problem) return;
        bool Pthread = isPthreadOperation(Call->getDirectCallee(), *Op) ||
                       (*Op == LockOp::TimedLock && !pairOf(Call->getDirectCallee()->getName()));
        if (!Pthread || *Op == LockOp::Unlock || isConditionWait(*Op))
            Problem = Timed + " calls " + Call->getDirectCallee()->getNameAsString() +
                      ", which its delegating copy cannot stand for";
        else if (Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID())
            Problem = Timed + " locks inside a macro";
        else if (!sameLvalue(mutexOperand(Call, *Op), U.Mutex, Ctx))
            Problem = Timed + " locks another mutex than unlock wrapper '" +
                      UnlockDef->getNameAsString() + "' releases";
        else
            Ops.push_back(Call);
    });
    if (Problem) return Problem;
    if (Ops.empty()) return Timed + " takes no lock of the mutex its unlock wrapper releases";
    // After each lock, only what the copy may run once the section ran.
    ParentMap PM(const_cast<Stmt *>(Body));
    for (const CallExpr *Call : Ops)
        for (const Stmt *Cur = Call; Cur != Body;) {
            const Stmt *P = PM.getParent(Cur);
            if (!P || isa<ForStmt, WhileStmt, DoStmt, SwitchStmt, SwitchCase, LabelStmt>(P))
                return Timed + " locks inside a loop or switch";
            if (const auto *Block = dyn_cast<CompoundStmt>(P)) {
                bool After = false;
                for (const Stmt *Child : Block->body()) {
                    if (After && !localOnly(Child, nullptr))
                        return Timed + " does more than compute its result after it locks";
                    After |= Child == Cur;
                }
            } else if (const auto *If = dyn_cast<IfStmt>(P)) {
                if (If->getCond() == Cur && !localOnly(If, Call))
                    return Timed + " does more than compute its result after it locks";
            } else if (!isa<Expr, ReturnStmt, DeclStmt>(P) || !localOnly(P, Call)) {
                return Timed + " does more than compute its result after it locks";
            }
            Cur = P;
        }
    return std::nullopt;
}

const Expr *LockApi::pairMutex(const FunctionDecl *LockDef, const FunctionDecl *UnlockDef,
                               const Expr **Guard, std::vector<const clang::Stmt *> *Checks) const {
    if (pairProblem(LockDef, UnlockDef)) return nullptr;
    WrapperSummary L = summary(LockDef, LockOp::Lock);
    if (L.Chain) return nullptr;
    if (Guard) *Guard = L.Guard;
    if (Checks) {
        WrapperSummary U = summary(UnlockDef, LockOp::Unlock);
        *Checks = L.Checks;
        Checks->insert(Checks->end(), U.Checks.begin(), U.Checks.end());
    }
    return L.Mutex;
}

std::optional<std::string> LockApi::pairChain(const FunctionDecl *LockDef,
                                              const FunctionDecl *UnlockDef,
                                              const CallExpr **Inner) const {
    WrapperSummary L = summary(LockDef, LockOp::Lock), U = summary(UnlockDef, LockOp::Unlock);
    if (!L.Chain || !U.Chain || L.Guard || U.Guard || L.hasEffects() || U.hasEffects())
        return std::nullopt;
    std::string InnerLock = L.Chain->getDirectCallee()->getName().str();
    std::string InnerUnlock = U.Chain->getDirectCallee()->getName().str();
    // The same arguments, parameters corresponding by position (sameLvalue).
    if (!isPair(InnerLock, InnerUnlock) || L.Chain->getNumArgs() != U.Chain->getNumArgs() ||
        !differingArguments(L.Chain, U.Chain, LockDef->getASTContext()).empty())
        return std::nullopt;
    for (const Expr *Arg : L.Chain->arguments())
        if (!reachableFromParameters(Arg, LockDef)) return std::nullopt;
    if (Inner) *Inner = L.Chain;
    return InnerUnlock;
}

namespace {
/// `7possess7release`: each name after its length, so that no two pairs give one string.
std::string pairKey(StringRef LockWrapper, StringRef UnlockWrapper) {
    return std::to_string(LockWrapper.size()) + LockWrapper.str() +
           std::to_string(UnlockWrapper.size()) + UnlockWrapper.str();
}
} // namespace

std::string timedWrapperCopy(StringRef TimedWrapper, StringRef UnlockWrapper) {
    return "rcl_timed_" + pairKey(TimedWrapper, UnlockWrapper);
}

std::string remoteMutexGetter(StringRef LockWrapper, StringRef UnlockWrapper) {
    return "rcl_mutex_of_" + pairKey(LockWrapper, UnlockWrapper);
}

StringRef remoteUnlockWrapper(const MutexRef &Mutex, const CallExpr *UnlockCall) {
    return Mutex.ChainInner ? StringRef(Mutex.ChainUnlock)
                            : UnlockCall->getDirectCallee()->getName();
}

std::string remoteMutexParameters(StringRef LockWrapper, StringRef UnlockWrapper) {
    return "rcl_mutex_parameters_of_" + pairKey(LockWrapper, UnlockWrapper);
}

bool sameCall(const CallExpr *A, const CallExpr *B, const ASTContext &Ctx) {
    return A->getDirectCallee() && B->getDirectCallee() &&
           A->getDirectCallee()->getCanonicalDecl() == B->getDirectCallee()->getCanonicalDecl() &&
           A->getNumArgs() == B->getNumArgs() && differingArguments(A, B, Ctx).empty();
}

bool isLocationConstant(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    return isa<StringLiteral, IntegerLiteral, CharacterLiteral, PredefinedExpr>(E);
}

std::vector<unsigned> differingArguments(const CallExpr *A, const CallExpr *B,
                                         const ASTContext &Ctx) {
    std::vector<unsigned> Out;
    for (unsigned I = 0; I < A->getNumArgs() && I < B->getNumArgs(); ++I)
        if (!sameLvalue(A->getArg(I), B->getArg(I), Ctx)) Out.push_back(I);
    return Out;
}

const FunctionDecl *LockApi::unlockEffects(const CallExpr *Call) const {
    const FunctionDecl *Callee = Call->getDirectCallee(), *Def = nullptr;
    if (classify(Call) != LockOp::Unlock || !Callee->hasBody(Def) || !pairOf(Callee->getName()))
        return nullptr;
    WrapperSummary S = summary(Def, LockOp::Unlock);
    if (S.Problem || S.Guard || S.Before.empty()) return nullptr;
    return Def;
}

namespace {

/// Prints a wrapper body's operand with its parameters replaced by given texts.
class SubstituteParameters : public PrinterHelper {
  public:
    SubstituteParameters(const std::vector<std::string> &Replacements)
        : Replacements(Replacements) {}
    bool handledStmt(Stmt *S, raw_ostream &OS) override {
        // `l->mutex` with `&L` for `l`: `L.mutex` rather than `(&L)->mutex`.
        if (const auto *Member = dyn_cast<MemberExpr>(S); Member && Member->isArrow()) {
            const std::string *Replacement = replacementOf(Member->getBase());
            if (Replacement && StringRef(*Replacement).starts_with("&")) {
                StringRef Object = StringRef(*Replacement).drop_front().trim();
                bool Simple = !Object.empty() && llvm::all_of(Object, [](char C) {
                    return isalnum(static_cast<unsigned char>(C)) || C == '_';
                });
                OS << (Simple ? Object.str() : "(" + Object.str() + ")") << "."
                   << Member->getMemberDecl()->getName();
                return true;
            }
        }
        const std::string *Replacement =
            isa<DeclRefExpr>(S) ? replacementOf(cast<Expr>(S)) : nullptr;
        if (!Replacement) return false;
        OS << "(" << *Replacement << ")";
        return true;
    }

  private:
    const std::string *replacementOf(const Expr *E) const {
        const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
        const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
        if (!Param || Param->getFunctionScopeIndex() >= Replacements.size()) return nullptr;
        return &Replacements[Param->getFunctionScopeIndex()];
    }
    const std::vector<std::string> &Replacements;
};

std::vector<std::string> printedArguments(const CallExpr *Call, const ASTContext &Ctx) {
    std::vector<std::string> Args;
    for (const Expr *Arg : Call->arguments()) {
        std::string Text;
        llvm::raw_string_ostream OS(Text);
        Arg->IgnoreParenImpCasts()->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
        Args.push_back(Text);
    }
    return Args;
}

} // namespace

std::string joinArguments(const std::vector<std::string> &Args) {
    std::string Out;
    for (size_t I = 0; I < Args.size(); ++I)
        Out += (I ? ", " : "") + Args[I];
    return Out;
}

std::string mutexExpression(const MutexRef &Mutex, const std::vector<std::string> &ArgTexts,
                            const ASTContext &Ctx) {
    if (!Mutex.Through) return ArgTexts.empty() ? std::string() : ArgTexts.front();
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    SubstituteParameters Helper(ArgTexts);
    Mutex.Through->printPretty(OS, &Helper, Ctx.getPrintingPolicy());
    return Out;
}

std::string wrapperGuardExpression(const MutexRef &Mutex, const std::vector<std::string> &ArgTexts,
                                   const ASTContext &Ctx) {
    if (!Mutex.WrapperGuard) return "";
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    SubstituteParameters Helper(ArgTexts);
    Mutex.WrapperGuard->printPretty(OS, &Helper, Ctx.getPrintingPolicy());
    return Out;
}

std::string lockName(const MutexRef &Mutex, const ASTContext &Ctx) {
    if (!Mutex.Remote.empty()) {
        // Constants a wrapper takes for its messages (`__FILE__`, `__LINE__`) name no lock.
        std::vector<std::string> Args;
        std::vector<std::string> Printed = printedArguments(Mutex.Call, Ctx);
        for (unsigned I = 0; I < Printed.size(); ++I)
            if (!isLocationConstant(Mutex.Call->getArg(I))) Args.push_back(Printed[I]);
        return Mutex.Remote + "(" + joinArguments(Args) + ")";
    }
    if (!Mutex.Through && !Mutex.Operand)
        return Mutex.Call->getDirectCallee()->getName().str() + "()";
    if (!Mutex.Through) return lockName(Mutex.Operand, Ctx);
    std::string Name = mutexExpression(Mutex, printedArguments(Mutex.Call, Ctx), Ctx);
    StringRef Trimmed = StringRef(Name).trim();
    if (Trimmed.starts_with("&")) Trimmed = Trimmed.drop_front().ltrim();
    return Trimmed.str();
}

bool sameMutex(const MutexRef &A, const MutexRef &B, const ASTContext &Ctx) {
    auto sameArgument = [&](unsigned I) {
        return A.Call && B.Call && I < A.Call->getNumArgs() && I < B.Call->getNumArgs() &&
               sameLvalue(A.Call->getArg(I), B.Call->getArg(I), Ctx);
    };
    // Wrappers that lock only under a condition pair up when it is the same condition of the
    // same arguments (the lock is released exactly when it was taken).
    if (A.WrapperGuard || B.WrapperGuard) {
        if (!A.WrapperGuard || !B.WrapperGuard || !sameLvalue(A.WrapperGuard, B.WrapperGuard, Ctx))
            return false;
        for (unsigned I : parametersUsed(A.WrapperGuard))
            if (!sameArgument(I)) return false;
    }
    if (!A.Remote.empty() || !B.Remote.empty()) {
        bool Paired = A.Remote == B.Remote ||
                      std::find(A.Partners.begin(), A.Partners.end(), B.Remote) != A.Partners.end();
        if (A.Remote.empty() || B.Remote.empty() || !Paired || !A.Call || !B.Call) return false;
        if (A.Timed || B.Timed) {
            // A timed wrapper's mutex: its first arguments, as many as the unlock's.
            unsigned N = std::min(A.Call->getNumArgs(), B.Call->getNumArgs());
            for (unsigned I = 0; I < N; ++I)
                if (!sameLvalue(A.Call->getArg(I), B.Call->getArg(I), Ctx)) return false;
            return N > 0;
        }
        if (A.Call->getNumArgs() != B.Call->getNumArgs()) return false;
        for (unsigned I : differingArguments(A.Call, B.Call, Ctx))
            if (!isLocationConstant(A.Call->getArg(I)) || !isLocationConstant(B.Call->getArg(I)))
                return false;
        return true;
    }
    // A wrapper whose mutex depends on no parameter (`sched_lock()`, `STATS_LOCK()`) names a
    // file-scope mutex: the same as a pthread call on it (`pthread_mutex_unlock(&sched_m)`).
    auto fixed = [](const MutexRef &M) {
        return M.Through && parametersUsed(M.Through).empty() ? M.Through : nullptr;
    };
    if ((fixed(A) && !B.Through && B.Operand) || (fixed(B) && !A.Through && A.Operand))
        return sameLvalue(fixed(A) ? fixed(A) : A.Operand, fixed(B) ? fixed(B) : B.Operand, Ctx);
    if (A.Through || B.Through) {
        if (!A.Through || !B.Through || !sameLvalue(A.Through, B.Through, Ctx)) return false;
        for (unsigned I : parametersUsed(A.Through))
            if (!sameArgument(I)) return false;
        return true;
    }
    return A.Operand && B.Operand && sameLvalue(A.Operand, B.Operand, Ctx);
}

const Expr *LockApi::mutexOperand(const CallExpr *Call, LockOp Op) const {
    unsigned Index = isConditionWait(Op) ? 1 : 0;
    if (Index >= Call->getNumArgs()) return nullptr;
    return Call->getArg(Index)->IgnoreParenImpCasts();
}

const CallExpr *LockApi::asOperationStatement(const Stmt *S) const {
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
        // `#define LOCK(l) { pthread_mutex_lock(&(l)); }`
        if (Block->size() != 1 || !Block->getBeginLoc().isMacroID()) return nullptr;
        S = Block->body_front();
    }
    const auto *E = dyn_cast<Expr>(S);
    if (!E) return nullptr;
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E))
        if (Cast->getType()->isVoidType()) E = Cast->getSubExpr()->IgnoreParens();
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || !classify(Call)) return nullptr;
    return Call;
}

const CallExpr *LockApi::guardedOperationStatement(const Stmt *S, const Expr *&Guard,
                                                   bool *Checked) const {
    // A macro's `do { if (G) op; } while (0)` or `{ if (G) op; }`.
    if (const auto *Do = dyn_cast_or_null<DoStmt>(S)) {
        const auto *Zero = dyn_cast<IntegerLiteral>(Do->getCond()->IgnoreParenImpCasts());
        if (!Zero || Zero->getValue() != 0) return nullptr;
        S = Do->getBody();
    }
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(S)) {
        if (Block->size() != 1) return nullptr;
        S = Block->body_front();
    }
    const auto *If = dyn_cast_or_null<IfStmt>(S);
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable()) return nullptr;
    const Stmt *Then = If->getThen();
    if (const auto *Block = dyn_cast<CompoundStmt>(Then); Block && Block->size() == 1)
        Then = Block->body_front();
    const CallExpr *Call = asOperationStatement(Then);
    if (Checked) *Checked = false;
    if (!Call && (Call = checkedOperationStatement(Then)) && Checked) *Checked = true;
    std::optional<LockOp> Op = Call ? classify(Call) : std::nullopt;
    if (!Op || (*Op != LockOp::Lock && *Op != LockOp::Unlock) ||
        If->getCond()->HasSideEffects(Call->getDirectCallee()->getASTContext()))
        return nullptr;
    // The condition must not read what the operation returns.
    bool Contains = false;
    walk(If->getCond(), [&](const Stmt *N) { Contains |= N == Call; });
    if (Contains) return nullptr;
    Guard = If->getCond()->IgnoreParenImpCasts();
    return Call;
}

namespace {

/// E without parentheses, implicit casts and a `(void)` cast.
const Expr *bare(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E); Cast && Cast->getType()->isVoidType())
        E = Cast->getSubExpr()->IgnoreParenImpCasts();
    return E;
}

bool isZero(const Expr *E) {
    const auto *K = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
    return K && K->getValue() == 0;
}

/// The operation of `assert(op(..) == 0)` or `assert(!op(..))`, as glibc spells assert in GNU C,
/// `(void)sizeof((X) ? 1 : 0), __extension__ ({ if (X) ; else __assert_fail(...); })`, or as a
/// conditional, `(X) ? (void)0 : fail(...)`, X true when the operation succeeds in any spelling
/// (ResultCheck): the failure branch must end the program. A delegated operation does not fail,
/// so the check always passes.
/// (libusb's `PTHREAD_CHECK(pthread_mutex_lock(m))` in a build with assertions.)
const CallExpr *assertedOperation(const Expr *E) {
    E = bare(E);
    if (const auto *Comma = dyn_cast<BinaryOperator>(E); Comma && Comma->getOpcode() == BO_Comma) {
        // The sizeof is not evaluated: it is there for the compiler's warnings.
        if (!isa<UnaryExprOrTypeTraitExpr>(bare(Comma->getLHS()))) return nullptr;
        E = bare(Comma->getRHS());
    }
    if (const auto *Ext = dyn_cast<UnaryOperator>(E); Ext && Ext->getOpcode() == UO_Extension)
        E = bare(Ext->getSubExpr());
    const Expr *Test = nullptr;
    const Stmt *Fail = nullptr;
    if (const auto *Block = dyn_cast<StmtExpr>(E)) {
        const CompoundStmt *Body = Block->getSubStmt();
        const auto *If = Body->size() == 1 ? dyn_cast<IfStmt>(Body->body_front()) : nullptr;
        if (!If || If->getInit() || If->getConditionVariable() || !If->getElse() ||
            !isa<NullStmt>(If->getThen()))
            return nullptr;
        Test = If->getCond();
        Fail = If->getElse();
    } else if (const auto *Cond = dyn_cast<ConditionalOperator>(E)) {
        if (!isZero(bare(Cond->getTrueExpr()))) return nullptr;
        Test = Cond->getCond();
        Fail = Cond->getFalseExpr();
    } else {
        return nullptr;
    }
    ResultSource Src;
    if (!trueOnSuccess(Test, Src) || !Src.Call || !neverCompletes(Fail)) return nullptr;
    return Src.Call;
}

} // namespace

const CallExpr *LockApi::checkedOperationStatement(
    const Stmt *S, std::vector<std::pair<const VarDecl *, int64_t>> *Assigned) const {
    std::vector<const VarDecl *> Locals;
    // `do { int e; X; } while (0)` or `{ int e; X; }`: locals without initializers, then X.
    if (const auto *Do = dyn_cast_or_null<DoStmt>(S); Do && isZero(Do->getCond()))
        S = Do->getBody();
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(S)) {
        // `do { int err = op(m); assert(err == 0); } while (0)` (PortAudio's ASSERT_CALL): a
        // local of the block initialised with the operation, then only checks of it
        // (onlyChecksResult: assertions, `(void)err;`, a branch that ends the program).
        const VarDecl *InitVar = nullptr;
        const CallExpr *InitCall = nullptr;
        std::vector<const Stmt *> Rest;
        for (const Stmt *Child : Block->body()) {
            if (isa<NullStmt>(Child)) continue;
            if (const auto *DS = dyn_cast<DeclStmt>(Child); DS && Rest.empty()) {
                for (const Decl *D : DS->decls()) {
                    const auto *Var = dyn_cast<VarDecl>(D);
                    if (!Var || !Var->hasLocalStorage()) return nullptr;
                    if (Var->hasInit()) {
                        const auto *Init =
                            dyn_cast<CallExpr>(Var->getInit()->IgnoreParenImpCasts());
                        // value_or: GCC's -Wmaybe-uninitialized does not see that *Op is
                        // read only when Op holds a value.
                        LockOp Op =
                            (Init ? classify(Init) : std::nullopt).value_or(LockOp::CondWait);
                        if (InitVar || !DS->isSingleDecl() || !Var->getType()->isIntegerType() ||
                            (Op != LockOp::Lock && Op != LockOp::Unlock))
                            return nullptr;
                        InitVar = Var;
                        InitCall = Init;
                        continue;
                    }
                    Locals.push_back(Var);
                }
                continue;
            }
            Rest.push_back(Child);
        }
        if (InitVar) {
            const ASTContext &Ctx = InitVar->getASTContext();
            for (const Stmt *R : Rest)
                if (!onlyChecksResult(R, InitVar, Ctx)) return nullptr;
            return InitCall->getType()->isIntegerType() ? InitCall : nullptr;
        }
        if (Rest.size() != 1) return nullptr;
        S = Rest.front();
    }
    const CallExpr *Call = nullptr;
    ResultSource Src{Locals};
    Src.AllowAssigned = Assigned != nullptr;
    if (isa_and_nonnull<IfStmt>(S)) {
        if (falseOnSuccess(conditionWithoutElse(S), Src)) Call = Src.Call;
    } else if (const auto *E = dyn_cast_or_null<Expr>(S)) {
        // `op(m) && F`: F runs when the test is true; `op(m) || F` when it is false.
        const auto *Logic = dyn_cast<BinaryOperator>(bare(E));
        if (Logic && Logic->getOpcode() == BO_LAnd) {
            if (falseOnSuccess(Logic->getLHS(), Src)) Call = Src.Call;
        } else if (Logic && Logic->getOpcode() == BO_LOr) {
            if (trueOnSuccess(Logic->getLHS(), Src)) Call = Src.Call;
        } else {
            Call = assertedOperation(E);
        }
    }
    std::optional<LockOp> Op = Call ? classify(Call) : std::nullopt;
    if (!Op || (*Op != LockOp::Lock && *Op != LockOp::Unlock && *Op != LockOp::TimedLock) ||
        !Call->getType()->isIntegerType())
        return nullptr;
    // An assigned variable that the operation's own arguments read would be set before they
    // are evaluated (`(i = lock(&m[i]))`): no check.
    for (const auto &A : Src.Assigned) {
        bool Read = false;
        walk(Call, [&](const Stmt *N) {
            if (const auto *Ref = dyn_cast<DeclRefExpr>(N)) Read |= Ref->getDecl() == A.first;
        });
        if (Read) return nullptr;
    }
    if (Assigned) *Assigned = Src.Assigned;
    return Call;
}

std::string lockName(const Expr *MutexOperand, const ASTContext &Ctx) {
    const Expr *E = MutexOperand->IgnoreParenImpCasts();
    if (const auto *Addr = dyn_cast<UnaryOperator>(E))
        if (Addr->getOpcode() == UO_AddrOf) E = Addr->getSubExpr()->IgnoreParens();
    std::string Name;
    llvm::raw_string_ostream OS(Name);
    E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    return Name;
}

bool sameLvalue(const Expr *A, const Expr *B, const ASTContext &Ctx) {
    A = A->IgnoreParenImpCasts();
    B = B->IgnoreParenImpCasts();
    if (A->getStmtClass() != B->getStmtClass()) return false;
    if (const auto *DA = dyn_cast<DeclRefExpr>(A)) {
        const auto *DB = cast<DeclRefExpr>(B);
        // The bodies of a lock and an unlock wrapper: their parameters correspond by position.
        const auto *PA = dyn_cast<ParmVarDecl>(DA->getDecl());
        const auto *PB = dyn_cast<ParmVarDecl>(DB->getDecl());
        if (PA && PB && PA->getDeclContext() != PB->getDeclContext())
            return PA->getFunctionScopeIndex() == PB->getFunctionScopeIndex();
        return DA->getDecl()->getCanonicalDecl() == DB->getDecl()->getCanonicalDecl();
    }
    if (const auto *MA = dyn_cast<MemberExpr>(A)) {
        const auto *MB = cast<MemberExpr>(B);
        return MA->getMemberDecl() == MB->getMemberDecl() && MA->isArrow() == MB->isArrow() &&
               sameLvalue(MA->getBase(), MB->getBase(), Ctx);
    }
    if (const auto *UA = dyn_cast<UnaryOperator>(A)) {
        if (UA->getOpcode() != cast<UnaryOperator>(B)->getOpcode()) return false;
    } else if (const auto *BA = dyn_cast<BinaryOperator>(A)) {
        if (BA->getOpcode() != cast<BinaryOperator>(B)->getOpcode()) return false;
    } else if (const auto *IA = dyn_cast<IntegerLiteral>(A)) {
        return IA->getValue() == cast<IntegerLiteral>(B)->getValue();
    } else if (!isa<ArraySubscriptExpr, CallExpr, CStyleCastExpr, ConditionalOperator>(A)) {
        // Anything else: fall back to Clang's structural profile.
        llvm::FoldingSetNodeID IA, IB;
        A->Profile(IA, Ctx, /*Canonical=*/true);
        B->Profile(IB, Ctx, /*Canonical=*/true);
        return IA == IB;
    }
    auto CA = A->children(), CB = B->children();
    auto IA = CA.begin(), IB = CB.begin();
    for (; IA != CA.end() && IB != CB.end(); ++IA, ++IB) {
        const auto *EA = dyn_cast_or_null<Expr>(*IA), *EB = dyn_cast_or_null<Expr>(*IB);
        if (!EA || !EB || !sameLvalue(EA, EB, Ctx)) return false;
    }
    return IA == CA.end() && IB == CB.end();
}

} // namespace rcl
