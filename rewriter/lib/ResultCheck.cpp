//===- ResultCheck.cpp - code that only reacts to a mutex operation's failure ===//
#include "ResultCheck.h"
#include "StmtWalk.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/Builtins.h"

using namespace clang;

namespace rcl {

namespace {

std::optional<int64_t> evaluate(const Expr *E, ResultSource &Src);

std::optional<int64_t> binary(const BinaryOperator *B, ResultSource &Src) {
    BinaryOperatorKind Op = B->getOpcode();
    if (Op == BO_Assign) {
        // `(e = lock(m))`, e a local of the macro block that holds the test.
        const auto *Ref = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts());
        const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        if (!Var) return std::nullopt;
        if (llvm::is_contained(Src.Locals, Var)) return evaluate(B->getRHS(), Src);
        // Another variable: it keeps the value after the test, which the caller must recreate.
        if (!Src.AllowAssigned || !Var->getType()->isIntegerType() ||
            Var->getType().isVolatileQualified() || Var->getType().isConstQualified() ||
            llvm::any_of(Src.Assigned, [&](const auto &A) { return A.first == Var; }))
            return std::nullopt;
        std::optional<int64_t> V = evaluate(B->getRHS(), Src);
        if (V) Src.Assigned.push_back({Var, *V});
        return V;
    }
    if (Op == BO_Comma) {
        // glibc's assert: `(void)sizeof((X) ? 1 : 0), ...`; the sizeof is not evaluated.
        if (!isa<UnaryExprOrTypeTraitExpr>(B->getLHS()->IgnoreParenCasts())) return std::nullopt;
        return evaluate(B->getRHS(), Src);
    }
    std::optional<int64_t> L = evaluate(B->getLHS(), Src);
    if (!L) return std::nullopt;
    // Short circuits: what is not evaluated need not be understood (`lock(m) && (abort(), 0)`).
    if (Op == BO_LAnd && *L == 0) return 0;
    if (Op == BO_LOr && *L != 0) return 1;
    std::optional<int64_t> R = evaluate(B->getRHS(), Src);
    if (!R) return std::nullopt;
    switch (Op) {
    case BO_LAnd:
        return *R != 0;
    case BO_LOr:
        return *R != 0;
    case BO_EQ:
        return *L == *R;
    case BO_NE:
        return *L != *R;
    case BO_LT:
        return *L < *R;
    case BO_GT:
        return *L > *R;
    case BO_LE:
        return *L <= *R;
    case BO_GE:
        return *L >= *R;
    case BO_Add:
        return *L + *R;
    case BO_Sub:
        return *L - *R;
    case BO_Mul:
        return *L * *R;
    case BO_And:
        return *L & *R;
    case BO_Or:
        return *L | *R;
    case BO_Xor:
        return *L ^ *R;
    default:
        return std::nullopt;
    }
}

std::optional<int64_t> evaluate(const Expr *E, ResultSource &Src) {
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E)) {
        std::optional<int64_t> V = evaluate(Cast->getSubExpr(), Src);
        if (V && Cast->getCastKind() == CK_IntegralToBoolean) return *V != 0;
        return V;
    }
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E)) {
        if (!Cast->getType()->isIntegralOrEnumerationType()) return std::nullopt;
        std::optional<int64_t> V = evaluate(Cast->getSubExpr(), Src);
        if (V && Cast->getType()->isBooleanType()) return *V != 0;
        return V;
    }
    if (const auto *K = dyn_cast<IntegerLiteral>(E)) return K->getValue().getSExtValue();
    if (const auto *K = dyn_cast<CharacterLiteral>(E)) return K->getValue();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
        if (const auto *Enum = dyn_cast<EnumConstantDecl>(Ref->getDecl()))
            return Enum->getInitVal().getSExtValue();
        if (Src.Stored && Ref->getDecl() == Src.Stored) {
            Src.ReadsStored = true;
            return 0;
        }
        for (const auto &[Var, Value] : Src.Known)
            if (Ref->getDecl() == Var) return Value;
        return std::nullopt;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
        std::optional<int64_t> V = evaluate(U->getSubExpr(), Src);
        if (!V) return std::nullopt;
        switch (U->getOpcode()) {
        case UO_LNot:
            return *V == 0;
        case UO_Not:
            return ~*V;
        case UO_Minus:
            return -*V;
        case UO_Plus:
        case UO_Extension:
            return V;
        default:
            return std::nullopt;
        }
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) return binary(B, Src);
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
        std::optional<int64_t> V = evaluate(C->getCond(), Src);
        if (!V) return std::nullopt;
        return evaluate(*V ? C->getTrueExpr() : C->getFalseExpr(), Src);
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
        // `__builtin_expect(!!(x), 0)`, the `unlikely()` of many lock macros: x.
        if (Call->getBuiltinCallee() == Builtin::BI__builtin_expect && Call->getNumArgs() == 2)
            return evaluate(Call->getArg(0), Src);
        if (Src.Call && Src.Call != Call) return std::nullopt;
        Src.Call = Call;
        return 0;
    }
    return std::nullopt;
}

} // namespace

std::optional<int64_t> valueOnSuccess(const Expr *E, ResultSource &Src) {
    return E ? evaluate(E, Src) : std::nullopt;
}

bool falseOnSuccess(const Expr *E, ResultSource &Src) {
    std::optional<int64_t> V = valueOnSuccess(E, Src);
    return V && *V == 0 && (Src.Call || Src.ReadsStored);
}

bool trueOnSuccess(const Expr *E, ResultSource &Src) {
    std::optional<int64_t> V = valueOnSuccess(E, Src);
    return V && *V != 0 && (Src.Call || Src.ReadsStored);
}

bool onlyChecksResult(const Stmt *S, const VarDecl *Stored, const ASTContext &Ctx) {
    if (!S) return true;
    if (isa<DeclStmt, ReturnStmt, GotoStmt, IndirectGotoStmt, LabelStmt, SwitchCase, ForStmt,
            WhileStmt, DoStmt, SwitchStmt, BreakStmt, ContinueStmt, AsmStmt>(S))
        return false;
    if (const auto *Op = dyn_cast<BinaryOperator>(S); Op && Op->isAssignmentOp()) return false;
    if (const auto *Op = dyn_cast<UnaryOperator>(S); Op && Op->isIncrementDecrementOp())
        return false;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
            if (Var != Stored && Var->hasLocalStorage()) return false;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        unsigned Builtin = Callee ? Callee->getBuiltinID() : 0;
        if (!Callee || !(Builtin && Ctx.BuiltinInfo.isConst(Builtin))) return false;
    }
    // Not evaluated: the `sizeof` that glibc's assert writes for the compiler's warnings.
    if (isa<UnaryExprOrTypeTraitExpr>(S)) return true;
    // A branch on r: the side that runs only on failure must end the program (or only check),
    // the other only check.
    auto onFailure = [&](const Stmt *Side) {
        return !Side || neverCompletes(Side) || onlyChecksResult(Side, Stored, Ctx);
    };
    auto branches = [&](const Expr *Cond, const Stmt *Then, const Stmt *Else) {
        ResultSource OnThen{{}, Stored}, OnElse{{}, Stored};
        if (Stored && falseOnSuccess(Cond, OnThen) && !OnThen.Call)
            return onFailure(Then) && onlyChecksResult(Else, Stored, Ctx);
        if (Stored && trueOnSuccess(Cond, OnElse) && !OnElse.Call)
            return onlyChecksResult(Then, Stored, Ctx) && onFailure(Else);
        return onlyChecksResult(Cond, Stored, Ctx) && onlyChecksResult(Then, Stored, Ctx) &&
               onlyChecksResult(Else, Stored, Ctx);
    };
    if (const auto *If = dyn_cast<IfStmt>(S))
        return !If->getInit() && !If->getConditionVariable() &&
               branches(If->getCond(), If->getThen(), If->getElse());
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(S))
        return branches(Cond->getCond(), Cond->getTrueExpr(), Cond->getFalseExpr());
    for (const Stmt *Child : S->children())
        if (!onlyChecksResult(Child, Stored, Ctx)) return false;
    return true;
}

namespace {
/// Whether Cond, a test of Stored alone, reads `Stored != 0` (true) or `Stored == 0` (false), in
/// the spellings C writes it: `r`, `r != 0`, `0 != r`, `!r`, `r == 0`, `!(...)`,
/// `__builtin_expect(..., c)`. Nothing for any other test (`r < 0`, `r == EBUSY`).
std::optional<bool> testsNonZero(const Expr *Cond, const VarDecl *Stored) {
    Cond = Cond->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Cond))
        return Ref->getDecl() == Stored ? std::optional<bool>(true) : std::nullopt;
    if (const auto *Not = dyn_cast<UnaryOperator>(Cond); Not && Not->getOpcode() == UO_LNot) {
        std::optional<bool> Inner = testsNonZero(Not->getSubExpr(), Stored);
        return Inner ? std::optional<bool>(!*Inner) : std::nullopt;
    }
    if (const auto *Call = dyn_cast<CallExpr>(Cond);
        Call && Call->getBuiltinCallee() == Builtin::BI__builtin_expect && Call->getNumArgs() == 2)
        return testsNonZero(Call->getArg(0), Stored);
    const auto *Bin = dyn_cast<BinaryOperator>(Cond);
    if (!Bin || (Bin->getOpcode() != BO_NE && Bin->getOpcode() != BO_EQ)) return std::nullopt;
    auto zero = [](const Expr *E) {
        const auto *Lit = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
        return Lit && Lit->getValue() == 0;
    };
    const Expr *Other = zero(Bin->getRHS())   ? Bin->getLHS()
                        : zero(Bin->getLHS()) ? Bin->getRHS()
                                              : nullptr;
    std::optional<bool> Inner = Other ? testsNonZero(Other, Stored) : std::nullopt;
    if (!Inner) return std::nullopt;
    return Bin->getOpcode() == BO_NE ? *Inner : !*Inner;
}

/// Whether S, which only checks Stored (onlyChecksResult), holds a test of Stored whose side
/// taken when Stored != 0 ends the program: `assert(r == 0)` (glibc's `if (r == 0) ; else
/// __assert_fail(...)` inside a statement expression), `if (r) abort();`.
bool endsWhenNonZero(const Stmt *S, const VarDecl *Stored) {
    bool Ends = false;
    walk(S, [&](const Stmt *N) {
        const Expr *Cond = nullptr;
        const Stmt *Then = nullptr, *Else = nullptr;
        if (const auto *If = dyn_cast<IfStmt>(N))
            Cond = If->getCond(), Then = If->getThen(), Else = If->getElse();
        else if (const auto *C = dyn_cast<AbstractConditionalOperator>(N))
            Cond = C->getCond(), Then = C->getTrueExpr(), Else = C->getFalseExpr();
        if (!Cond) return;
        std::optional<bool> NonZero = testsNonZero(Cond, Stored);
        const Stmt *OnFailure = !NonZero ? nullptr : *NonZero ? Then : Else;
        Ends |= OnFailure && neverCompletes(OnFailure);
    });
    return Ends;
}
} // namespace

bool reportsBeforeEnding(const Stmt *S, llvm::ArrayRef<const Stmt *> Rest, const VarDecl *Stored,
                         const ASTContext &Ctx) {
    const auto *If = dyn_cast_or_null<IfStmt>(S);
    if (!Stored || !If || If->getElse() || If->getInit() || If->getConditionVariable() ||
        testsNonZero(If->getCond(), Stored) != std::optional<bool>(true))
        return false;
    bool Escapes = false;
    walk(If->getThen(), [&](const Stmt *N) {
        if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt, LabelStmt, SwitchCase, BreakStmt,
                ContinueStmt, AddrLabelExpr, AsmStmt>(N))
            Escapes = true;
        else if (const auto *Op = dyn_cast<BinaryOperator>(N); Op && Op->isAssignmentOp())
            Escapes = true;
        else if (const auto *Op = dyn_cast<UnaryOperator>(N))
            Escapes |= Op->getOpcode() == UO_AddrOf || Op->isIncrementDecrementOp();
    });
    if (Escapes) return false;
    // The statements after it only check r, and one of them ends the program when r != 0.
    for (const Stmt *Next : Rest) {
        if (!onlyChecksResult(Next, Stored, Ctx)) return false;
        if (endsWhenNonZero(Next, Stored)) return true;
    }
    return false;
}

const Expr *conditionWithoutElse(const Stmt *S) {
    const auto *If = dyn_cast_or_null<IfStmt>(S);
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable()) return nullptr;
    bool Labels = false;
    walk(If->getThen(), [&](const Stmt *N) { Labels |= isa<LabelStmt, SwitchCase>(N); });
    return Labels ? nullptr : If->getCond();
}

namespace {

bool neverReturns(const FunctionDecl *F, unsigned Depth);

bool isTrue(const Expr *Cond) {
    if (!Cond) return true; // `for (;;)`
    ResultSource None;
    std::optional<int64_t> V = valueOnSuccess(Cond, None);
    return V && *V != 0 && !None.Call;
}

/// Whether control can leave S normally (or by a break, continue or goto: anything but a call
/// that does not return or a loop without end).
bool completes(const Stmt *S, unsigned Depth) {
    if (!S) return true;
    if (const auto *E = dyn_cast<Expr>(S)) {
        // A statement expression, `(void)({ ...; abort(); })` (Tor's STMT_BEGIN/STMT_END under
        // GCC and Clang): its statements.
        if (const auto *Statements = dyn_cast<StmtExpr>(E->IgnoreParenCasts()))
            return completes(Statements->getSubStmt(), Depth);
        const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenCasts());
        const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
        return !(Callee && neverReturns(Callee, Depth + 1));
    }
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
        for (const Stmt *Child : Block->body())
            if (!completes(Child, Depth)) return false;
        return true;
    }
    if (const auto *If = dyn_cast<IfStmt>(S))
        return completes(If->getThen(), Depth) || !If->getElse() || completes(If->getElse(), Depth);
    if (const auto *Label = dyn_cast<LabelStmt>(S)) return completes(Label->getSubStmt(), Depth);
    const Stmt *LoopBody = nullptr;
    if (const auto *For = dyn_cast<ForStmt>(S); For && isTrue(For->getCond()))
        LoopBody = For->getBody();
    else if (const auto *While = dyn_cast<WhileStmt>(S); While && isTrue(While->getCond()))
        LoopBody = While->getBody();
    if (LoopBody) {
        // An endless loop completes only through a break of its own (or a goto out).
        bool Leaves = false;
        walk(LoopBody, [&](const Stmt *N) { Leaves |= isa<BreakStmt, GotoStmt>(N); });
        return Leaves;
    }
    if (const auto *Do = dyn_cast<DoStmt>(S)) return completes(Do->getBody(), Depth);
    return true;
}

bool neverReturns(const FunctionDecl *F, unsigned Depth) {
    if (F->isNoReturn()) return true;
    const FunctionDecl *Def = nullptr;
    if (Depth > 8 || !F->hasBody(Def) || !Def->getBody()) return false;
    bool Returns = false;
    walk(Def->getBody(), [&](const Stmt *N) { Returns |= isa<ReturnStmt>(N); });
    return !Returns && !completes(Def->getBody(), Depth);
}

} // namespace

bool neverReturns(const FunctionDecl *F) {
    return F && neverReturns(F, 0);
}

bool neverCompletes(const Stmt *S) {
    return S && !completes(S, 0);
}

bool isNeverReturningCall(const Stmt *S) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    const auto *Call = E ? dyn_cast<CallExpr>(E->IgnoreParenCasts()) : nullptr;
    return Call && neverReturns(Call->getDirectCallee());
}

} // namespace rcl
