//===- WrapperModel.cpp - what a lock or unlock wrapper's definition does ---===//
#include "WrapperModel.h"
#include "LockApi.h"
#include "ResultCheck.h"
#include "StmtWalk.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include <set>

using namespace clang;

namespace rcl {

bool reachableFromParameters(const Expr *E, const FunctionDecl *Def, bool ConstCalls) {
    if (E->HasSideEffects(Def->getASTContext())) return false;
    bool Ok = true;
    walk(E, [&](const Stmt *S) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
            const ValueDecl *D = Ref->getDecl();
            if (const auto *Param = dyn_cast<ParmVarDecl>(D))
                Ok &= Param->getDeclContext() == Def;
            else if (const auto *Var = dyn_cast<VarDecl>(D))
                Ok &= Var->hasGlobalStorage() && !Var->isStaticLocal() &&
                      Var->getTLSKind() == VarDecl::TLS_None;
        }
        if (const auto *Call = dyn_cast<CallExpr>(S)) {
            const FunctionDecl *Callee = Call->getDirectCallee();
            // A builtin the compiler knows to be const (`__builtin_expect` in a likely/unlikely
            // macro) computes from its arguments only.
            unsigned Builtin = Callee ? Callee->getBuiltinID() : 0;
            Ok &= (ConstCalls && Callee && Callee->hasAttr<ConstAttr>()) ||
                  (Builtin && Def->getASTContext().BuiltinInfo.isConst(Builtin));
        }
        if (isa<StmtExpr>(S)) Ok = false;
    });
    return Ok;
}

namespace {

bool sideEffectsBeyondAccessors(const Expr *E, const ASTContext &Ctx, unsigned Depth);

/// R, for a function of the unit whose body is only `return R;`; null otherwise (Def gets the
/// definition).
const Expr *onlyReturned(const FunctionDecl *F, const FunctionDecl *&Def) {
    Def = nullptr;
    if (!F || !F->hasBody(Def)) return nullptr;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
    const auto *Return =
        Body && Body->size() == 1 ? dyn_cast<ReturnStmt>(Body->body_front()) : nullptr;
    return Return ? Return->getRetValue() : nullptr;
}

/// A function whose body is only `return R;`, R reading only its parameters, without side
/// effects beyond calls of such functions (Depth levels deep).
bool isAccessor(const FunctionDecl *F, const ASTContext &Ctx, unsigned Depth) {
    const FunctionDecl *Def = nullptr;
    if (!F || Depth == 0 || F->isVariadic()) return false;
    const Expr *Returned = onlyReturned(F, Def);
    if (!Returned) return false;
    bool Own = true;
    walk(Returned, [&](const Stmt *N) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(N))
            if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
                Own &= isa<ParmVarDecl>(Var) && Var->getDeclContext() == Def;
    });
    return Own && !sideEffectsBeyondAccessors(Returned, Ctx, Depth - 1);
}

bool sideEffectsBeyondAccessors(const Expr *E, const ASTContext &Ctx, unsigned Depth) {
    if (!E->HasSideEffects(Ctx)) return false;
    bool Effects = false;
    walk(E, [&](const Stmt *N) {
        if (Effects) return;
        if (const auto *Call = dyn_cast<CallExpr>(N)) {
            const FunctionDecl *F = Call->getDirectCallee();
            unsigned Builtin = F ? F->getBuiltinID() : 0;
            bool Pure = F && (F->hasAttr<ConstAttr>() || F->hasAttr<PureAttr>() ||
                              (Builtin && Ctx.BuiltinInfo.isConst(Builtin)));
            Effects = !Pure && !isAccessor(F, Ctx, Depth);
        } else if (const auto *Bin = dyn_cast<BinaryOperator>(N)) {
            Effects = Bin->isAssignmentOp();
        } else if (const auto *Un = dyn_cast<UnaryOperator>(N)) {
            Effects = Un->isIncrementDecrementOp();
        } else if (const auto *Cast = dyn_cast<ImplicitCastExpr>(N)) {
            Effects = Cast->getCastKind() == CK_LValueToRValue &&
                      Cast->getSubExpr()->getType().isVolatileQualified();
        } else if (const auto *X = dyn_cast<Expr>(N);
                   X && !isa<DeclRefExpr, MemberExpr, ParenExpr, ExplicitCastExpr,
                             ArraySubscriptExpr, IntegerLiteral, CharacterLiteral, FloatingLiteral,
                             StringLiteral, AbstractConditionalOperator, UnaryExprOrTypeTraitExpr,
                             PredefinedExpr, ConstantExpr>(X)) {
            // Anything else counts as it does for Clang, whatever it holds.
            Effects = X->HasSideEffects(Ctx);
        }
    });
    return Effects;
}

/// E, an expression of Callee's parameters that reachableFromParameters accepts, with Call's
/// arguments in place of the parameters: new nodes where a parameter is read below them, the
/// same nodes elsewhere. Null for a form it does not rebuild (a parameter whose address is
/// taken, say).
Expr *substituteArguments(const Expr *E, const FunctionDecl *Callee, const CallExpr *Call) {
    ASTContext &AC = Callee->getASTContext();
    auto parameter = [&](const Expr *X) -> const ParmVarDecl * {
        const auto *Ref = dyn_cast<DeclRefExpr>(X->IgnoreParens());
        const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
        return P && P->getDeclContext() == Callee ? P : nullptr;
    };
    bool Uses = false;
    walk(E, [&](const Stmt *N) {
        if (const auto *X = dyn_cast<Expr>(N)) Uses |= parameter(X) != nullptr;
    });
    if (!Uses) return const_cast<Expr *>(E);
    SourceLocation None;
    // `p`, read: `(argument)`.
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E);
        Cast && Cast->getCastKind() == CK_LValueToRValue)
        if (const ParmVarDecl *P = parameter(Cast->getSubExpr()))
            return P->getFunctionScopeIndex() < Call->getNumArgs()
                       ? new (AC)
                             ParenExpr(None, None,
                                       const_cast<Expr *>(Call->getArg(P->getFunctionScopeIndex())))
                       : nullptr;
    auto sub = [&](const Expr *X) { return substituteArguments(X, Callee, Call); };
    FPOptionsOverride FP;
    if (const auto *Paren = dyn_cast<ParenExpr>(E)) {
        Expr *Inner = sub(Paren->getSubExpr());
        return Inner ? new (AC) ParenExpr(Paren->getLParen(), Paren->getRParen(), Inner) : nullptr;
    }
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E)) {
        Expr *Inner = sub(Cast->getSubExpr());
        return Inner ? ImplicitCastExpr::Create(AC, Cast->getType(), Cast->getCastKind(), Inner,
                                                nullptr, Cast->getValueKind(), FP)
                     : nullptr;
    }
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E)) {
        Expr *Inner = sub(Cast->getSubExpr());
        return Inner ? CStyleCastExpr::Create(AC, Cast->getType(), Cast->getValueKind(),
                                              Cast->getCastKind(), Inner, nullptr, FP,
                                              Cast->getTypeInfoAsWritten(), Cast->getLParenLoc(),
                                              Cast->getRParenLoc())
                     : nullptr;
    }
    if (const auto *Un = dyn_cast<UnaryOperator>(E)) {
        Expr *Inner = sub(Un->getSubExpr());
        return Inner ? UnaryOperator::Create(AC, Inner, Un->getOpcode(), Un->getType(),
                                             Un->getValueKind(), Un->getObjectKind(),
                                             Un->getOperatorLoc(), Un->canOverflow(), FP)
                     : nullptr;
    }
    if (const auto *Bin = dyn_cast<BinaryOperator>(E); Bin && !isa<CompoundAssignOperator>(Bin)) {
        Expr *L = sub(Bin->getLHS()), *R = sub(Bin->getRHS());
        return L && R ? BinaryOperator::Create(AC, L, R, Bin->getOpcode(), Bin->getType(),
                                               Bin->getValueKind(), Bin->getObjectKind(),
                                               Bin->getOperatorLoc(), FP)
                      : nullptr;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(E)) {
        Expr *Base = sub(Member->getBase());
        return Base ? MemberExpr::Create(AC, Base, Member->isArrow(), Member->getOperatorLoc(),
                                         Member->getQualifierLoc(), Member->getTemplateKeywordLoc(),
                                         Member->getMemberDecl(), Member->getFoundDecl(),
                                         Member->getMemberNameInfo(), nullptr, Member->getType(),
                                         Member->getValueKind(), Member->getObjectKind(),
                                         Member->isNonOdrUse())
                    : nullptr;
    }
    if (const auto *Index = dyn_cast<ArraySubscriptExpr>(E)) {
        Expr *L = sub(Index->getLHS()), *R = sub(Index->getRHS());
        return L && R ? new (AC) ArraySubscriptExpr(L, R, Index->getType(), Index->getValueKind(),
                                                    Index->getObjectKind(), Index->getRBracketLoc())
                      : nullptr;
    }
    return nullptr;
}

/// The mutex a trylock call tries, in the terms of the function the call is written in:
/// `pthread_mutex_trylock(E)` (or `mtx_trylock`), or a call of a function of the unit whose body
/// is only `return R;`, R a test of such a trylock that is 0 when it succeeds (jemalloc's
/// `malloc_mutex_trylock_final(m)`: `return pthread_mutex_trylock(&(m)->lock) != 0;`), with the
/// call's arguments (without side effects) in place of its parameters. Null otherwise.
const Expr *trylockOf(const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee(), *Def = nullptr;
    if (!Callee) return nullptr;
    if (isPthreadOperation(Callee, LockOp::TryLock))
        return Call->getNumArgs() == 1 ? Call->getArg(0)->IgnoreParenImpCasts() : nullptr;
    const Expr *Returned = onlyReturned(Callee, Def);
    if (!Returned) return nullptr;
    ResultSource Src;
    std::optional<int64_t> V = valueOnSuccess(Returned, Src);
    if (!V || *V != 0 || !Src.Call ||
        !isPthreadOperation(Src.Call->getDirectCallee(), LockOp::TryLock) ||
        Src.Call->getNumArgs() != 1)
        return nullptr;
    // With its conversions: `pthread_mutex_trylock(m)` reads the parameter m (an lvalue-to-rvalue
    // conversion), which is what the argument stands for.
    const Expr *Tried = Src.Call->getArg(0);
    if (!reachableFromParameters(Tried, Def)) return nullptr;
    for (const Expr *Arg : Call->arguments())
        if (Arg->HasSideEffects(Def->getASTContext())) return nullptr;
    const Expr *Out = substituteArguments(Tried, Def, Call);
    return Out ? Out->IgnoreParenImpCasts() : nullptr;
}

/// Follows a wrapper's body along its success path (ResultCheck: the pthread call returns 0),
/// statement by statement, and fills the summary.
class SuccessPath {
  public:
    SuccessPath(const FunctionDecl *Def, LockOp Op, const LockApi &Api, WrapperSummary &Out)
        : Def(Def), Ctx(Def->getASTContext()), Op(Op), Api(Api), Out(Out) {}

    void run() {
        const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
        if (!Body) return fail("its body is not a block");
        llvm::ArrayRef<Stmt *> All(Body->body_begin(), Body->body_end());
        for (size_t I = 0; I < All.size() && !Out.Problem; ++I) {
            Rest = llvm::ArrayRef<const Stmt *>(All.data() + I + 1, All.size() - I - 1);
            statement(All[I]);
        }
        Rest = {};
        // jemalloc's malloc_mutex_lock: a trylock and a slow path in functions it calls.
        if (!Out.Problem && !Out.Operation)
            fail("it calls no pthread_mutex_" + kind() + " nor declared " + kind() +
                 " wrapper itself (the " + kind() +
                 " happens in functions it calls, an acquisition of its own that a delegated "
                 "section cannot stand for)");
    }

  private:
    std::string kind() const { return Op == LockOp::Lock ? "lock" : "unlock"; }

    /// "lock wrapper 'w' does more than lock its first argument[, and Why]".
    void fail(std::string Why) {
        if (Out.Problem) return;
        Out.Problem = kind() + " wrapper '" + Def->getNameAsString() + "' does more than " +
                      kind() + " its first argument" +
                      (Why.empty() ? " (its definition would have to run inside the delegated "
                                     "section; write the extra statements next to the call)"
                                   : ", and " + Why);
    }

    unsigned lineOf(const Stmt *S) const {
        const SourceManager &SM = Ctx.getSourceManager();
        return SM.getExpansionLineNumber(S->getBeginLoc());
    }

    /// The pthread call of this wrapper's kind, if E is one (through parentheses, a `(void)`),
    /// a call of another declared wrapper of the same kind that this unit only declares (a
    /// chain), or one of a wrapper of this unit that only performs its operation (inner()).
    const CallExpr *expectedCall(const Expr *E) const {
        const auto *Call = dyn_cast_or_null<CallExpr>(E ? E->IgnoreParenCasts() : nullptr);
        const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
        if (!Callee || !Callee->getIdentifier()) return nullptr;
        if (isPthreadOperation(Callee, Op)) return Call->getNumArgs() == 1 ? Call : nullptr;
        return isChain(Call) || inner(Call) ? Call : nullptr;
    }

    /// A wrapper of this unit, declared or inferred, of the same kind, whose definition does
    /// nothing but its operation (possibly checked, possibly under a guard), called with
    /// arguments free of side effects: a layer over a layer in one file (`q_lock(q) {
    /// mutex_lock(&q->m); }` over `mutex_lock(m) { if (pthread_mutex_lock(m)) abort(); }`, MIT
    /// Kerberos's `k5_mutex_lock` over `k5_os_mutex_lock` in threads.c). Its summary, or
    /// nothing.
    std::optional<WrapperSummary> inner(const CallExpr *Call) const {
        const FunctionDecl *Callee = Call->getDirectCallee(), *InnerDef = nullptr;
        if (!Callee || !Callee->hasBody(InnerDef) || InnerDef == Def || Depth >= 4 ||
            !Api.pairOf(Callee->getName()) || Api.classify(Call) != Op)
            return std::nullopt;
        for (const Expr *Arg : Call->arguments())
            if (hasSideEffects(Arg, Ctx)) return std::nullopt;
        ++Depth;
        WrapperSummary S = summarizeWrapper(InnerDef, Op, Api);
        --Depth;
        if (S.Problem || S.Chain || !S.Mutex || S.hasEffects() ||
            !reachableFromParameters(S.Mutex, InnerDef) ||
            (S.Guard && !reachableFromParameters(S.Guard, InnerDef, /*ConstCalls=*/true)))
            return std::nullopt;
        return S;
    }
    bool isChain(const CallExpr *Call) const {
        const FunctionDecl *Callee = Call->getDirectCallee();
        return Callee && Callee != Def && Api.pairOf(Callee->getName()) &&
               Api.classify(Call) == Op && !Callee->hasBody();
    }

    /// Whether S contains a mutex operation or wait: the one this wrapper performs (Mine) or
    /// any other (Other: a trylock first, another mutex, a declared wrapper).
    void operations(const Stmt *S, bool &Mine, bool &Other) const {
        walk(S, [&](const Stmt *N) {
            const auto *Call = dyn_cast<CallExpr>(N);
            if (!Call) return;
            if (expectedCall(Call))
                Mine = true;
            else if (Api.classify(Call))
                Other = true;
        });
    }

    /// Whether the wrapper's body reads Var anywhere but inside S.
    bool readOutside(const VarDecl *Var, const Stmt *S) const {
        std::set<const Stmt *> Inside;
        walk(S, [&](const Stmt *N) { Inside.insert(N); });
        bool Read = false;
        walk(Def->getBody(), [&](const Stmt *N) {
            if (const auto *Ref = dyn_cast<DeclRefExpr>(N))
                Read |= Ref->getDecl() == Var && !Inside.count(N);
        });
        return Read;
    }

    /// The statement that performs the operation, in one of the forms a wrapper writes it:
    /// `op(E);`, `(void)op(E);`, `r = op(E);` (r a local of the wrapper), a check of the result
    /// that fails when the call succeeds in any spelling (`if (op(E)) fail;`, an assert, `op(E)
    /// == 0 || fail`, a macro block `do { int e; if ((e = op(E)) != 0) fail; } while (0)`), or
    /// `return op(E);`. Null for anything else.
    const CallExpr *operationForm(const Stmt *S) {
        if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
            if (const CallExpr *Call = expectedCall(Return->getRetValue())) {
                Returned = true;
                return Call;
            }
            return nullptr;
        }
        if (const auto *Set = dyn_cast<BinaryOperator>(S); Set && Set->getOpcode() == BO_Assign) {
            const auto *Ref = dyn_cast<DeclRefExpr>(Set->getLHS()->IgnoreParenImpCasts());
            const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
            const CallExpr *Call = expectedCall(Set->getRHS());
            if (!Var || !Call || !llvm::is_contained(Locals, Var)) return nullptr;
            Stored = Var;
            return Call;
        }
        if (const auto *E = dyn_cast<Expr>(S))
            if (const CallExpr *Call = expectedCall(E)) return Call;
        std::vector<std::pair<const VarDecl *, int64_t>> Assigned;
        if (const CallExpr *Call = Api.checkedOperationStatement(S, &Assigned)) {
            if (!expectedCall(Call)) return nullptr;
            // The test assigns the result to a variable, which keeps it: a file-scope one (not
            // thread-local) is set where the operation was (SetOnSuccess); one of the wrapper's
            // locals only where nothing but the test's own failure branch reads it
            // (PulseAudio's `if ((err = pthread_mutex_unlock(m)) != 0) { pa_log(...,
            // strerror(err)); abort...; }`), else it is not followed.
            std::vector<std::pair<const VarDecl *, int64_t>> Kept;
            for (const auto &[Var, Value] : Assigned) {
                if (Var->hasLocalStorage() && llvm::is_contained(Locals, Var) &&
                    !readOutside(Var, S))
                    continue;
                if (Var->hasLocalStorage() || Var->getTLSKind() != VarDecl::TLS_None ||
                    !Var->isFileVarDecl())
                    return nullptr;
                Kept.push_back({Var, Value});
            }
            Out.SetOnSuccess = std::move(Kept);
            return Call;
        }
        return nullptr;
    }

    /// Whether S (a statement that does not operate on the mutex) may run elsewhere than in the
    /// wrapper: a copy of it, in a function with the wrapper's parameters, does the same.
    void effect(const Stmt *S) {
        if (const auto *E = dyn_cast<Expr>(S); E && !E->HasSideEffects(Ctx))
            return; // `(void)file;`: nothing to run
        std::string Where = " (line " + std::to_string(lineOf(S)) + ")";
        std::string What =
            std::string("what it does ") + (Out.Operation ? "after" : "before") + " the " + kind();
        std::optional<std::string> Why;
        walk(S, [&](const Stmt *N) {
            if (Why) return;
            if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt, LabelStmt, AddrLabelExpr, SwitchCase>(
                    N))
                Why = What + " returns or jumps" + Where;
            else if (isa<VAArgExpr>(N) || (isa<PredefinedExpr>(N) && Ctx.getLangOpts().CPlusPlus))
                // (C: a copy says the wrapper's name, SectionEmitter's functionNameMacros)
                Why = What + " uses __func__ or its variable arguments" + Where;
            else if (const auto *Decl = dyn_cast<DeclStmt>(N)) {
                for (const clang::Decl *D : Decl->decls())
                    if (const auto *Var = dyn_cast<VarDecl>(D); Var && Var->isStaticLocal())
                        Why = What + " declares a static variable" + Where;
            } else if (const auto *Ref = dyn_cast<DeclRefExpr>(N)) {
                const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
                if (Var && llvm::is_contained(Locals, Var))
                    Why = What + " uses its local '" + Var->getNameAsString() + "'" + Where;
            }
        });
        if (isa<DeclStmt>(S)) Why = What + " declares a variable" + Where;
        if (Why) return fail(*Why);
        (Out.Operation ? Out.After : Out.Before).push_back(S);
        if (parameterCheck(S)) Out.Checks.push_back(S);
    }

    /// `if (C) F;` (no else), alone or as the body of a macro's `do { ... } while (0)` or
    /// `(void) ({ ... })`, C reading only the parameters and file-scope names without side
    /// effects, F never completing (WrapperSummary::Checks).
    bool parameterCheck(const Stmt *S) const {
        // GNU C's statement-expression form of the macro block (Tor's `STMT_BEGIN`, `(void) ({`).
        if (const auto *E = dyn_cast<Expr>(S))
            if (const auto *Block = dyn_cast<StmtExpr>(E->IgnoreParenCasts()))
                S = Block->getSubStmt();
        if (const auto *Do = dyn_cast<DoStmt>(S)) {
            Expr::EvalResult Value;
            if (!Do->getCond()->EvaluateAsInt(Value, Ctx) || Value.Val.getInt() != 0) return false;
            S = Do->getBody();
        }
        const auto *If = dyn_cast<IfStmt>(onlyStatement(S));
        if (!If || If->getElse() || If->getInit() || If->getConditionVariable()) return false;
        return !readsLocal(If->getCond()) && reachableFromParameters(If->getCond(), Def) &&
               neverCompletes(If->getThen());
    }

    /// The one statement of a block that holds only it (`{ S }`), else S itself.
    static const Stmt *onlyStatement(const Stmt *S) {
        if (const auto *Block = dyn_cast_or_null<CompoundStmt>(S); Block && Block->size() == 1)
            return Block->body_front();
        return S;
    }

    /// Whether E reads one of the wrapper's locals declared so far.
    bool readsLocal(const Expr *E) const {
        bool Reads = false;
        walk(E, [&](const Stmt *N) {
            if (const auto *Ref = dyn_cast<DeclRefExpr>(N))
                Reads |= llvm::is_contained(Locals, dyn_cast<VarDecl>(Ref->getDecl()));
        });
        return Reads;
    }

    void statement(const Stmt *S) {
        if (Returned || isa<NullStmt>(S)) return; // after a return: reached by failures only
        if (const auto *Label = dyn_cast<LabelStmt>(S)) {
            // `error: return result;`, where failure branches jump: on the success path, only a
            // place control passes through.
            if (!Out.Operation) return fail("it has a label before the " + kind());
            return statement(Label->getSubStmt());
        }
        if (const auto *Decl = dyn_cast<DeclStmt>(S)) return declaration(Decl);
        if (earlyReturn(S)) return;
        // `if (1) { ... }`, `if (isthreaded)` with `#define isthreaded true`: the branch taken.
        // And a lock with a fast path, `if (trylock(E) != 0) { slow path }` (jemalloc's
        // `if (malloc_mutex_trylock_final(mutex)) { malloc_mutex_lock_slow(mutex); ... }`): the
        // wrapper is read along the path where the trylock succeeds at once, which it may take
        // whenever the mutex is free; the slow path (spinning, contention statistics, a
        // blocking lock) only runs when another thread holds it. A converted section's lock is
        // always that path, so what it does is one of the original's executions.
        if (const auto *If = dyn_cast<IfStmt>(S);
            If && !If->getInit() && !If->getConditionVariable()) {
            ResultSource Constant;
            std::optional<int64_t> V = valueOnSuccess(If->getCond(), Constant);
            const Expr *Tried = V && Constant.Call && Op == LockOp::Lock && !Out.Operation
                                    ? trylockOf(Constant.Call)
                                    : nullptr;
            if (Tried) {
                bool Labels = false;
                walk(*V ? If->getElse() : If->getThen(),
                     [&](const Stmt *N) { Labels |= isa<LabelStmt, SwitchCase>(N); });
                if (Labels)
                    return fail("its slow path after the trylock has a label (line " +
                                std::to_string(lineOf(S)) + ")");
                Out.Operation = Constant.Call;
                Out.Mutex = Tried;
            }
            if (V && (!Constant.Call || Tried)) {
                if (const Stmt *Taken = *V ? If->getThen() : If->getElse()) {
                    Rest = {}; // the statements after the if are not the branch's
                    if (const auto *Block = dyn_cast<CompoundStmt>(Taken)) {
                        for (const Stmt *Child : Block->body())
                            if (!Out.Problem) statement(Child);
                    } else {
                        statement(Taken);
                    }
                }
                return;
            }
        }
        bool Mine = false, Other = false;
        operations(S, Mine, Other);
        if (Other)
            return fail("it operates on another mutex or waits (line " + std::to_string(lineOf(S)) +
                        ")");
        if (Mine) {
            if (Out.Operation) return fail("it operates on the mutex twice");
            if (const CallExpr *Call = operationForm(S)) return found(Call);
            if (const CallExpr *Call = guarded(S)) return found(Call);
            return fail("it uses the result of the " + kind() + " (line " +
                        std::to_string(lineOf(S)) + ")");
        }
        if (const auto *Return = dyn_cast<ReturnStmt>(S)) return returns(Return);
        if (Out.Operation && Stored &&
            (onlyChecksResult(S, Stored, Ctx) || reportsBeforeEnding(S, Rest, Stored, Ctx)))
            return;
        effect(S);
    }

    /// `if (C) return;` before the operation (libxml2's `if (tok == NULL) return;`), C without
    /// side effects and reached from the parameters and file-scope names alone: the wrapper
    /// does nothing when C holds, so C folds into its condition (finish()). A wrapper that
    /// returns a value returns 0 there, what the operation's success would.
    bool earlyReturn(const Stmt *S) {
        const auto *If = dyn_cast<IfStmt>(S);
        if (Out.Operation || !If || If->getElse() || If->getInit() || If->getConditionVariable())
            return false;
        const auto *Return = dyn_cast<ReturnStmt>(onlyStatement(If->getThen()));
        if (!Return) return false;
        if (const Expr *V = Return->getRetValue()) {
            Expr::EvalResult Value;
            if (V->HasSideEffects(Ctx) || !V->EvaluateAsInt(Value, Ctx) || Value.Val.getInt() != 0)
                return false;
        }
        const Expr *Cond = If->getCond()->IgnoreParenImpCasts();
        if (readsLocal(Cond) || Cond->HasSideEffects(Ctx) || !reachableFromParameters(Cond, Def))
            return false;
        EarlyExits.push_back(Cond);
        return true;
    }

  public:
    /// The early returns folded into the condition: `!(C1) && ... && (G)`, built in the AST
    /// (printed and compared like a condition written in the file).
    void finish() {
        if (Out.Problem || !Out.Operation || EarlyExits.empty()) return;
        if (Out.Chain) return fail("it returns before the " + kind() + " through another wrapper");
        // Its other statements would run whatever the condition (their copies do not test it).
        if (Out.hasEffects())
            return fail("it returns early (line " + std::to_string(lineOf(EarlyExits.front())) +
                        ") and does other things besides the " + kind());
        ASTContext &AC = Def->getASTContext();
        SourceLocation None;
        Expr *Guard = nullptr;
        auto paren = [&](const Expr *E) {
            return new (AC) ParenExpr(None, None, const_cast<Expr *>(E));
        };
        for (const Expr *C : EarlyExits) {
            Expr *Not = UnaryOperator::Create(AC, paren(C), UO_LNot, AC.IntTy, VK_PRValue,
                                              OK_Ordinary, None, false, FPOptionsOverride());
            Guard = Guard ? BinaryOperator::Create(AC, Guard, Not, BO_LAnd, AC.IntTy, VK_PRValue,
                                                   OK_Ordinary, None, FPOptionsOverride())
                          : Not;
        }
        if (Out.Guard)
            Guard = BinaryOperator::Create(AC, Guard, paren(Out.Guard), BO_LAnd, AC.IntTy,
                                           VK_PRValue, OK_Ordinary, None, FPOptionsOverride());
        Out.Guard = Guard;
    }

  private:
    void found(const CallExpr *Call) {
        Out.Operation = Call;
        if (isChain(Call)) Out.Chain = Call;
        Out.Mutex = Call->getNumArgs() ? Call->getArg(0)->IgnoreParenImpCasts() : nullptr;
        std::optional<WrapperSummary> Inner = isChain(Call) ? std::nullopt : inner(Call);
        if (!Inner) return;
        // Through the inner wrapper: its mutex and its guard, the call's arguments in place of
        // its parameters.
        const FunctionDecl *InnerDef = Inner->Def;
        // (From the operation's argument as written, conversions included: a parameter read.)
        const Expr *InnerMutex = Inner->Operation && Inner->Operation->getNumArgs() && !Inner->Chain
                                     ? Inner->Operation->getArg(0)
                                     : Inner->Mutex;
        Expr *Mutex = substituteArguments(InnerMutex, InnerDef, Call);
        Expr *Guard = Inner->Guard ? substituteArguments(Inner->Guard, InnerDef, Call) : nullptr;
        if (!Mutex || (Inner->Guard && !Guard))
            return fail("the mutex of '" + InnerDef->getNameAsString() +
                        "' cannot be written with its arguments");
        Out.Mutex = Mutex->IgnoreParenImpCasts();
        if (Guard) {
            ASTContext &AC = Def->getASTContext();
            SourceLocation None;
            Out.Guard = Out.Guard
                            ? BinaryOperator::Create(
                                  AC, new (AC) ParenExpr(None, None, const_cast<Expr *>(Out.Guard)),
                                  new (AC) ParenExpr(None, None, Guard), BO_LAnd, AC.IntTy,
                                  VK_PRValue, OK_Ordinary, None, FPOptionsOverride())
                            : Guard->IgnoreParenImpCasts();
        }
    }

    /// `if (G) op(E);` (no else; the branch braced or not), or `if (G) return op(E); else
    /// return 0;` (MIT Kerberos's `k5_os_mutex_lock`, whose G is `krb5int_pthread_loaded()`;
    /// also without the else, `return 0;` the body's last statement): G, when the wrapper does
    /// nothing else; the operation. G reads the parameters and file-scope names, and may call
    /// functions declared `__attribute__((const))` (or --const-fn), whose calls may be merged or
    /// left out as a compiler does: the getter evaluates G once for the lock and the unlock.
    /// Null for anything else.
    const CallExpr *guarded(const Stmt *S) {
        const auto *If = dyn_cast<IfStmt>(S);
        if (!If || If->getInit() || If->getConditionVariable()) return nullptr;
        auto returnsZero = [&](const Stmt *B) {
            const auto *Return = dyn_cast_or_null<ReturnStmt>(onlyStatement(B));
            Expr::EvalResult Value;
            return Return && Return->getRetValue() && !Return->getRetValue()->HasSideEffects(Ctx) &&
                   Return->getRetValue()->EvaluateAsInt(Value, Ctx) && Value.Val.getInt() == 0;
        };
        const Stmt *Then = onlyStatement(If->getThen());
        const CallExpr *Call = nullptr;
        bool Returns = false;
        if (const auto *Return = dyn_cast<ReturnStmt>(Then)) {
            // Both paths return: the operation's result, or 0 when G does not hold.
            bool ZeroOtherwise = If->getElse() ? returnsZero(If->getElse())
                                               : Rest.size() == 1 && returnsZero(Rest.front());
            if (!ZeroOtherwise || !Def->getReturnType()->isIntegerType()) return nullptr;
            Call = expectedCall(Return->getRetValue());
            Returns = true;
        } else if (If->getElse()) {
            return nullptr;
        } else {
            if (const auto *E = dyn_cast<Expr>(Then)) Call = expectedCall(E);
            if (!Call) Call = Api.checkedOperationStatement(Then);
        }
        if (!Call || !expectedCall(Call)) return nullptr;
        if (readsLocal(If->getCond())) return nullptr;
        if (!reachableFromParameters(If->getCond(), Def, /*ConstCalls=*/true)) {
            // A guard that calls a function the user has not declared const: say which.
            const FunctionDecl *Called = nullptr;
            walk(If->getCond(), [&](const Stmt *N) {
                if (const auto *C = dyn_cast<CallExpr>(N);
                    C && !Called && C->getDirectCallee() &&
                    !C->getDirectCallee()->hasAttr<ConstAttr>())
                    Called = C->getDirectCallee();
            });
            if (Called && !If->getCond()->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
                fail("it " + kind() + "s only when '" + Called->getNameAsString() +
                     "()' says so, a call that is not declared const (rcl-rewrite --const-fn, "
                     "`const-fn=` in .rcl-cc.conf, names a function whose result never changes "
                     "and whose repeated calls do nothing more) (line " +
                     std::to_string(lineOf(S)) + ")");
            return nullptr;
        }
        Out.Guard = If->getCond()->IgnoreParenImpCasts();
        if (Returns) Returned = true;
        return Call;
    }

    void declaration(const DeclStmt *Decl) {
        for (const clang::Decl *D : Decl->decls()) {
            const auto *Var = dyn_cast<VarDecl>(D);
            if (!Var || !Var->hasLocalStorage() || Var->getType()->isVariablyModifiedType())
                return fail("it declares '" + (Var ? Var->getNameAsString() : std::string("?")) +
                            "'");
            Locals.push_back(Var);
            const Expr *Init = Var->getInit();
            if (!Init) continue;
            if (const CallExpr *Call = expectedCall(Init)) {
                // `int r = pthread_mutex_lock(E);`
                if (Out.Operation || !Decl->isSingleDecl() || !Var->getType()->isIntegerType())
                    return fail("it uses the result of the " + kind());
                Stored = Var;
                found(Call);
                continue;
            }
            // `PaError result = paNoError;`: a constant the success path may return.
            Expr::EvalResult Value;
            if (Init->HasSideEffects(Ctx) || !Init->EvaluateAsInt(Value, Ctx))
                return fail("it initialises '" + Var->getNameAsString() +
                            "' with something else than a constant");
            Known.push_back({Var, Value.Val.getInt().getExtValue()});
        }
    }

    void returns(const ReturnStmt *Return) {
        if (!Out.Operation) return fail("it returns before the " + kind());
        Returned = true;
        // Callers check the result as a pthread call's: it must be 0 on success.
        if (!Return->getRetValue()) return;
        ResultSource Src;
        Src.Stored = Stored;
        Src.Known = Known;
        std::optional<int64_t> V = valueOnSuccess(Return->getRetValue(), Src);
        if (!V || *V != 0 || Src.Call)
            fail("it returns something else than 0 when the " + kind() + " succeeds");
    }

    const FunctionDecl *Def;
    const ASTContext &Ctx;
    LockOp Op;
    const LockApi &Api;
    WrapperSummary &Out;
    const VarDecl *Stored = nullptr; ///< the local the operation's result went to
    /// The statements of the body after the one being read (none inside a branch).
    llvm::ArrayRef<const Stmt *> Rest;
    std::vector<const VarDecl *> Locals; ///< the wrapper's locals declared so far
    std::vector<std::pair<const VarDecl *, int64_t>> Known; ///< locals with a constant value
    std::vector<const Expr *> EarlyExits; ///< `if (C) return;` before the operation: each C
    static inline thread_local unsigned Depth = 0; ///< inner wrappers being read (inner())
    bool Returned = false;
};

} // namespace

WrapperSummary summarizeWrapper(const FunctionDecl *Def, LockOp Op, const LockApi &Api) {
    WrapperSummary Out;
    Out.Def = Def;
    SuccessPath Path(Def, Op, Api, Out);
    Path.run();
    Path.finish();
    if (Out.Problem) {
        Out.Operation = nullptr;
        Out.Mutex = nullptr;
        Out.Chain = nullptr;
        Out.Guard = nullptr;
        Out.Before.clear();
        Out.After.clear();
        Out.Checks.clear();
        Out.SetOnSuccess.clear();
    }
    return Out;
}

namespace {

/// Layers: read the functions that call a wrapper of the unit (Api's, with a body here) instead
/// of those that name the pthread call.
std::vector<std::pair<std::string, std::string>> inferOnce(ASTContext &Ctx, const LockApi &Api,
                                                           const std::set<std::string> *Only,
                                                           bool Layers = false) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::vector<WrapperSummary> Locks, Unlocks;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        const auto *Fn = dyn_cast<FunctionDecl>(D);
        if (!Fn || !Fn->getIdentifier() || !Fn->doesThisDeclarationHaveABody() ||
            Fn->isVariadic() ||
            (Only ? !Only->count(Fn->getNameAsString()) : Api.pairOf(Fn->getName()) != nullptr) ||
            !SM.isWrittenInMainFile(SM.getExpansionLoc(Fn->getBeginLoc())))
            continue;
        // Only a function that names the pthread call (or, for Layers, a wrapper) is worth
        // reading.
        bool Lock = false, Unlock = false, Pthread = false;
        walk(Fn->getBody(), [&](const Stmt *S) {
            const auto *Call = dyn_cast<CallExpr>(S);
            const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
            bool L = isPthreadOperation(Callee, LockOp::Lock),
                 U = isPthreadOperation(Callee, LockOp::Unlock);
            Pthread |= L || U;
            if (Layers && Callee && Callee->hasBody() && Api.pairOf(Callee->getName())) {
                L = Api.classify(Call) == LockOp::Lock;
                U = Api.classify(Call) == LockOp::Unlock;
            }
            Lock |= L;
            Unlock |= U;
        });
        if (Lock == Unlock || (Layers && Pthread))
            continue; // neither, or both (a section, not a wrapper); a layer calls no pthread
        WrapperSummary S = summarizeWrapper(Fn, Lock ? LockOp::Lock : LockOp::Unlock, Api);
        if (S.Problem || S.Chain || !S.Mutex || !reachableFromParameters(S.Mutex, Fn)) continue;
        (Lock ? Locks : Unlocks).push_back(S);
    }
    std::vector<std::pair<std::string, std::string>> Out;
    for (const WrapperSummary &L : Locks)
        for (const WrapperSummary &U : Unlocks) {
            if (L.Def->getNumParams() != U.Def->getNumParams()) continue;
            bool Same = true;
            for (unsigned I = 0; I < L.Def->getNumParams(); ++I)
                Same &= Ctx.hasSameUnqualifiedType(L.Def->getParamDecl(I)->getType(),
                                                   U.Def->getParamDecl(I)->getType());
            if (!Same || !sameLvalue(L.Mutex, U.Mutex, Ctx) ||
                (L.Guard != nullptr) != (U.Guard != nullptr) ||
                (L.Guard && !sameLvalue(L.Guard, U.Guard, Ctx)))
                continue;
            Out.push_back({L.Def->getNameAsString(), U.Def->getNameAsString()});
        }
    return Out;
}

} // namespace

std::vector<std::pair<std::string, std::string>> inferWrapperPairs(ASTContext &Ctx,
                                                                   const LockApi &Api) {
    // Read once more knowing the first reading's wrappers: a function that calls one of them
    // besides its own operation (`sleep_one() { sched_lock(); n--; pthread_mutex_unlock(&m); }`)
    // is a section, not a wrapper.
    std::vector<std::pair<std::string, std::string>> First = inferOnce(Ctx, Api, nullptr);
    if (First.empty()) return First;
    LockApi Knowing = Api;
    Knowing.addPairs(First);
    std::set<std::string> Names;
    for (const auto &[Lock, Unlock] : First) {
        Names.insert(Lock);
        Names.insert(Unlock);
    }
    std::vector<std::pair<std::string, std::string>> Out = inferOnce(Ctx, Knowing, &Names);
    // A layer over them (`q_lock(q) { mutex_lock(&q->m); }` over `mutex_lock(m) { if
    // (pthread_mutex_lock(m)) abort(); }`): a wrapper of the mutex the inner one locks.
    LockApi Inner = Api;
    Inner.addPairs(Out);
    for (const auto &Pair : inferOnce(Ctx, Inner, nullptr, /*Layers=*/true))
        if (!llvm::is_contained(Out, Pair)) Out.push_back(Pair);
    return Out;
}

bool hasSideEffects(const Expr *E, const ASTContext &Ctx) {
    return sideEffectsBeyondAccessors(E, Ctx, 3);
}

} // namespace rcl
