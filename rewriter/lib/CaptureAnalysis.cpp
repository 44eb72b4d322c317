//===- CaptureAnalysis.cpp - what a critical section's body needs to move ---===//
//
// Capture rules (docs/rewriter.md, "Captures"):
//  - file-scope variables are named directly; thread-local ones refuse the section;
//  - a local or parameter that the body only reads, that is a scalar, not volatile and whose
//    address is never taken anywhere in the function is copied into the context (by value);
//  - every other local (written, address-taken, array, struct, function-local static) is
//    reached through a pointer in the context, and each use becomes `(*rcl_ctx->x)`;
//  - a declaration at the top level of the section whose variable is used after it is hoisted
//    before the call site (its initializer stays in the body as an assignment).
//
//===----------------------------------------------------------------------===//
#include "CaptureAnalysis.h"
#include "SectionEmitter.h"
#include "CalleeFacts.h"
#include "CallerState.h"
#include "StmtWalk.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace rcl {

std::optional<std::string> delegatedConditionWait(const CallExpr *Wait, LockOp Op) {
    // librcl's forms hand the server's polling role to a spare servicing thread before they
    // block, so only the waiting section waits (runtime/include/rcl/rcl.h; C11's cnd_wait and
    // cnd_timedwait: rcl/threads.h).
    bool C11 = Wait->getDirectCallee()->getName().contains("cnd_");
    switch (Op) {
    case LockOp::CondWait:
        return C11 ? "rcl_cnd_wait" : "rcl_cond_wait";
    case LockOp::CondTimedWait:
        return C11 ? "rcl_cnd_timedwait" : "rcl_cond_timedwait";
    case LockOp::CondClockWait:
        return "rcl_cond_clockwait";
    default:
        return std::nullopt;
    }
}

CaptureAnalysis::CaptureAnalysis(ASTContext &Ctx, const LockApi &Api, const SourceText &Text,
                                 CalleeFacts &Callees, bool NoNestedLocks, const FunctionDecl *Fn)
    : Ctx(Ctx), Api(Api), Text(Text), Callees(Callees), NoNestedLocks(NoNestedLocks) {
    walk(Fn->getBody(), [&](const Stmt *S) {
        if (const auto *Goto = dyn_cast<GotoStmt>(S)) GotosTo[Goto->getLabel()].push_back(Goto);
        if (const auto *Address = dyn_cast<AddrLabelExpr>(S))
            LabelAddressTaken.insert(Address->getLabel());
        const auto *Ref = dyn_cast<DeclRefExpr>(S);
        if (!Ref) return;
        const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
        if (!Var) return;
        if (std::optional<unsigned> Offset = this->Text.expansionOffset(Ref->getLocation()))
            UsesInFunction[Var].push_back({Ref, *Offset});
        const Stmt *P = parent(Ref);
        while (P && isa<ParenExpr>(P))
            P = parent(P);
        if (const auto *Op = dyn_cast_or_null<UnaryOperator>(P))
            if (Op->getOpcode() == UO_AddrOf) AddressTaken.insert(Var);
    });
}

const Stmt *CaptureAnalysis::parent(const Stmt *S) const {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    return Parents.empty() ? nullptr : Parents[0].get<Stmt>();
}

void CaptureAnalysis::refuse(CriticalSection &CS, std::string Reason, SourceLocation Loc,
                             Resolution Resolve) {
    // A use of the caller's state in the C library does not refuse: the section runs as its
    // caller (CallerState.h).
    if (Resolve == Resolution::None && usesCallerState(Reason)) {
        if (!CS.CallerState) CS.CallerState = Note{std::move(Reason), Loc};
        return;
    }
    // The first reason stands, except a wait for other files' facts, which a reason no facts
    // could lift replaces (the section then needs no second compile).
    if (!CS.Refused || CS.Refused->WaitsForFacts) {
        CS.Refused = Refusal{std::move(Reason), Loc};
        CS.Refused->Resolve = Resolve;
    }
}

bool CaptureAnalysis::excluded(const CriticalSection &CS, unsigned Offset) const {
    // An unlock through a wrapper with effects stays in the body as a call (with the lock held).
    for (const EffectsUnlock &U : CS.EffectsUnlocks)
        if (U.Statement.contains(Offset)) return false;
    for (const Exit &E : CS.Exits)
        if (E.Removed.contains(Offset)) return true;
    return CS.FinalUnlock && CS.FinalUnlock->contains(Offset);
}

bool CaptureAnalysis::inTail(const CriticalSection &CS, unsigned Offset) const {
    for (const Exit &E : CS.Exits)
        if (E.Tail && E.Tail->contains(Offset)) return true;
    return false;
}

bool CaptureAnalysis::declaredInBody(const CriticalSection &CS, const Decl *D) const {
    std::optional<unsigned> Offset = Text.expansionOffset(D->getLocation());
    return Offset && CS.Body.contains(*Offset);
}

bool CaptureAnalysis::isRead(const DeclRefExpr *Ref) const {
    const Stmt *P = parent(Ref);
    while (P && isa<ParenExpr>(P))
        P = parent(P);
    const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(P);
    return Cast && Cast->getCastKind() == CK_LValueToRValue;
}

bool CaptureAnalysis::addressOnly(const DeclRefExpr *Ref) const {
    const Stmt *Child = Ref;
    for (const Stmt *P = parent(Ref); P; Child = P, P = parent(P)) {
        if (const auto *Op = dyn_cast<UnaryOperator>(P)) return Op->getOpcode() == UO_AddrOf;
        const auto *Member = dyn_cast<MemberExpr>(P);
        const auto *Cast = dyn_cast<ImplicitCastExpr>(P);
        const auto *Subscript = dyn_cast<ArraySubscriptExpr>(P);
        if (!isa<ParenExpr>(P) && !(Member && !Member->isArrow() && Member->getBase() == Child) &&
            !(Cast && Cast->getCastKind() == CK_ArrayToPointerDecay) &&
            !(Subscript && Subscript->getBase() == Child))
            return false;
    }
    return false;
}

bool CaptureAnalysis::usesLocalType(QualType T, const CriticalSection &CS) const {
    for (int Depth = 0; !T.isNull() && Depth < 32; ++Depth) {
        if (const auto *Typedef = T->getAs<TypedefType>()) {
            const TypedefNameDecl *D = Typedef->getDecl();
            if (D->getDeclContext()->isFunctionOrMethod() && !declaredInBody(CS, D)) return true;
        }
        if (const TagDecl *Tag = T->getAsTagDecl())
            if (Tag->getDeclContext()->isFunctionOrMethod() && !declaredInBody(CS, Tag))
                return true;
        if (const auto *Fun = T->getAs<FunctionProtoType>()) {
            for (QualType Param : Fun->getParamTypes())
                if (usesLocalType(Param, CS)) return true;
            T = Fun->getReturnType();
        } else if (T->isPointerType()) {
            T = T->getPointeeType();
        } else if (const ArrayType *Array = T->getAsArrayTypeUnsafe()) {
            T = Array->getElementType();
        } else {
            return false;
        }
    }
    return false;
}

void CaptureAnalysis::analyse(CriticalSection &CS) {
    BodyUses.clear();
    Written.clear();
    NotedWaits.clear();
    Held.clear();
    for (unsigned K = CS.FirstIndex; K <= CS.LastIndex; ++K)
        scanBody(CS, CS.Block->body_begin()[K]);
    // What the lock wrapper does after its lock runs on the server, before the body: the same
    // checks of the thread's identity and of the functions it calls.
    for (const WrapperEffects &P : CS.Parts) {
        if (P.Part != WrapperPart::AfterLock) continue;
        for (const Stmt *S : Api.summary(P.Wrapper, LockOp::Lock).After)
            walk(S, [&](const Stmt *N) {
                if (CS.Refused && !CS.Refused->WaitsForFacts) return;
                if (std::optional<std::string> Why = threadHazard(N, /*InCallee=*/true))
                    return refuse(CS,
                                  "lock wrapper '" + P.Wrapper->getNameAsString() +
                                      "', after it locks, " + *Why,
                                  CS.LockCall->getBeginLoc());
                if (const auto *Call = dyn_cast<CallExpr>(N))
                    if (const FunctionDecl *Callee = Call->getDirectCallee())
                        calleeHazards(CS, Callee, CS.LockCall->getBeginLoc());
            });
    }
    if (CS.Refused) return;
    checkTails(CS);
    if (CS.Refused) return;

    // Other mutexes: a pair fully inside the section stays in the body; a lock that crosses
    // the boundary (taken before and released inside, or the reverse) refuses it.
    {
        std::vector<std::pair<MutexRef, int>> Balance;
        bool NegativeSeen = false;
        SourceLocation Where;
        for (unsigned K = CS.FirstIndex; K <= CS.LastIndex; ++K)
            walk(CS.Block->body_begin()[K], [&](const Stmt *S) {
                const auto *Call = dyn_cast<CallExpr>(S);
                std::optional<unsigned> Offset = Text.expansionOffset(S->getBeginLoc());
                if (!Call || (Offset && excluded(CS, *Offset))) return;
                std::optional<LockOp> Op = Api.classify(Call);
                if (!Op || (*Op != LockOp::Lock && *Op != LockOp::Unlock && *Op != LockOp::TryLock))
                    return;
                MutexRef M = Api.mutexOf(Call, *Op);
                if (sameMutex(M, CS.Mutex, Ctx)) return;
                auto It = std::find_if(Balance.begin(), Balance.end(),
                                       [&](auto &P) { return sameMutex(P.first, M, Ctx); });
                if (It == Balance.end()) {
                    Balance.push_back({M, 0});
                    It = Balance.end() - 1;
                }
                It->second += (*Op == LockOp::Unlock) ? -1 : 1;
                if (It->second < 0 && !NegativeSeen) {
                    NegativeSeen = true;
                    Where = Call->getBeginLoc();
                }
            });
        if (NegativeSeen)
            return refuse(CS,
                          "another lock, taken before the critical section, is released inside it",
                          Where);
        for (auto &[M, Count] : Balance)
            if (Count > 0)
                return refuse(CS,
                              "another lock ('" + lockName(M, Ctx) +
                                  "') is taken inside the critical section and released after it",
                              M.loc());
    }

    // The lock expression is evaluated once, before the section: nothing it reads may change.
    // Only the values it loads count: `&m`, `&s.m` and `&locks[i]` do not depend on what m, s
    // or locks hold (a section may well pass `&m` to a function).
    // A wrapper's body adds what it reads on the way from its argument to the mutex
    // (`item_locks`, `item_lock_hashpower`); its parameter stands for the operand.
    SourceLocation LockAt = CS.Mutex.loc();
    std::vector<const Expr *> Parts;
    if (CS.Mutex.Through || !CS.Mutex.Remote.empty()) {
        // Every argument of the wrapper call is evaluated at the call site.
        for (const Expr *Arg : CS.Mutex.Call->arguments())
            Parts.push_back(Arg);
    } else {
        Parts.push_back(CS.Mutex.Operand);
    }
    if (CS.Mutex.Through) Parts.push_back(CS.Mutex.Through);
    // An optional lock's condition is tested once, before the section (and decides whether it
    // delegates): the unlock's test must see the same value, so nothing it reads may change.
    if (CS.Mutex.Guard) Parts.push_back(CS.Mutex.Guard);
    if (CS.Mutex.WrapperGuard) Parts.push_back(CS.Mutex.WrapperGuard);
    for (const Expr *Part : Parts) {
        if (!Part) continue;
        if (hasSideEffects(Part, Ctx))
            return refuse(CS, "the lock expression has side effects", LockAt);
        std::string Changed;
        walk(Part, [&](const Stmt *S) {
            if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
                if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
                    if (!isa<ParmVarDecl>(Var) ||
                        (Part != CS.Mutex.Through && Part != CS.Mutex.WrapperGuard))
                        if (!addressOnly(Ref) && Written.count(Var) && Changed.empty())
                            Changed = Var->getNameAsString();
        });
        if (!Changed.empty())
            return refuse(CS,
                          "the lock expression depends on '" + Changed +
                              "', which the critical section may modify",
                          LockAt);
    }
    // A condition may also read memory through a pointer (`pcm->lock_enabled`, `f->thlock`): a
    // section that assigns such a field (of any object: the tool does not follow pointers)
    // could make the unlock's test disagree with the lock's.
    for (const Expr *Guard : {CS.Mutex.Guard, CS.Mutex.WrapperGuard}) {
        if (!Guard) continue;
        std::set<const ValueDecl *> Fields;
        walk(Guard, [&](const Stmt *S) {
            if (const auto *Member = dyn_cast<MemberExpr>(S))
                Fields.insert(Member->getMemberDecl());
        });
        std::string Changed;
        auto assigned = [&](const Expr *Target) {
            const auto *Member = dyn_cast<MemberExpr>(Target->IgnoreParenImpCasts());
            if (Member && Fields.count(Member->getMemberDecl()) && Changed.empty())
                Changed = Member->getMemberDecl()->getNameAsString();
        };
        for (unsigned K = CS.FirstIndex; K <= CS.LastIndex; ++K)
            walk(CS.Block->body_begin()[K], [&](const Stmt *S) {
                if (const auto *Op = dyn_cast<BinaryOperator>(S); Op && Op->isAssignmentOp())
                    assigned(Op->getLHS());
                if (const auto *Op = dyn_cast<UnaryOperator>(S);
                    Op && (Op->isIncrementDecrementOp() || Op->getOpcode() == UO_AddrOf))
                    assigned(Op->getSubExpr());
            });
        if (!Changed.empty())
            return refuse(CS,
                          "the lock's condition depends on '" + Changed +
                              "', which the critical section may modify",
                          LockAt);
    }
    // The wrapper body's expression is printed at the call site: every name it uses must be
    // declared before the section (a wrapper may use a table declared after this function).
    if (CS.Mutex.Through) {
        const SourceManager &SM = Ctx.getSourceManager();
        std::string Later;
        auto seen = [&](const NamedDecl *D) {
            if (Later.empty() && !SM.isBeforeInTranslationUnit(D->getLocation(), LockAt))
                Later = D->getNameAsString();
        };
        walk(CS.Mutex.Through, [&](const Stmt *S) {
            if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
                if (!isa<ParmVarDecl>(Ref->getDecl()))
                    seen(cast<NamedDecl>(Ref->getDecl()->getCanonicalDecl()));
            if (const auto *Cast = dyn_cast<ExplicitCastExpr>(S)) {
                if (const auto *Typedef = Cast->getTypeAsWritten()->getAs<TypedefType>())
                    seen(Typedef->getDecl());
                if (const TagDecl *Tag = Cast->getTypeAsWritten()->getAsTagDecl()) seen(Tag);
            }
        });
        if (!Later.empty())
            return refuse(CS,
                          "the lock expression of the wrapper uses '" + Later +
                              "', which is declared after the critical section",
                          LockAt);
    }

    // Hoists: declarations of the section whose variables must outlive it: those at its top
    // level used after it (or in an exit's tail, which runs in the caller) or whose address it
    // takes, and those of nested blocks used in an exit's tail. They are declared before the
    // call site and assigned in place.
    std::set<const VarDecl *> Hoisted;
    // A nested block's variable moves to the section's level: no other variable of the
    // function may have its name (it could be hidden, or hide, after the call site).
    auto hidesAnother = [&](const VarDecl *Var) {
        bool Clash = false;
        walk(CS.Function->getBody(), [&](const Stmt *S) {
            if (const auto *Other = dyn_cast<DeclStmt>(S))
                for (const Decl *D : Other->decls())
                    if (const auto *V = dyn_cast<VarDecl>(D))
                        Clash |= V != Var && V->getName() == Var->getName();
        });
        for (const ParmVarDecl *P : CS.Function->parameters())
            Clash |= P->getName() == Var->getName();
        return Clash;
    };
    std::vector<std::pair<const DeclStmt *, bool>> Declarations; // (declaration, top level)
    for (unsigned K = CS.FirstIndex; K <= CS.LastIndex; ++K) {
        // The final unlock, also `int r = pthread_mutex_unlock(&m);`, is no declaration of
        // the section: the call site declares r again (CallSiteSuffix).
        if (std::optional<unsigned> At =
                Text.expansionOffset(CS.Block->body_begin()[K]->getBeginLoc());
            At && excluded(CS, *At))
            continue;
        if (const auto *DS = dyn_cast<DeclStmt>(CS.Block->body_begin()[K]))
            Declarations.push_back({DS, true});
        else
            walk(CS.Block->body_begin()[K], [&](const Stmt *S) {
                if (const auto *DS = dyn_cast<DeclStmt>(S))
                    if (std::optional<unsigned> At = Text.expansionOffset(DS->getBeginLoc());
                        At && heldAt(CS, At))
                        Declarations.push_back({DS, false});
            });
    }
    for (const auto &Declaration : Declarations) {
        const DeclStmt *DS = Declaration.first;
        const bool TopLevel = Declaration.second;
        auto usedAfter = [&](const VarDecl *Var) {
            for (const Use &U : UsesInFunction[Var])
                if ((TopLevel && U.Offset >= CS.Body.End) || inTail(CS, U.Offset)) return true;
            return false;
        };
        // A variable whose address is taken in the section (`&v`, or an array decaying to a
        // pointer) may be reached through that address after it -- stored in a hoisted
        // variable, a global, through a parameter -- so it must outlive the outlined function:
        // it is hoisted like a variable used after the section. (Found by the differential
        // campaign: `int *p = &g; int **pp = &p;` with pp used after the unlock left pp
        // pointing into the outlined function's dead frame.) A nested block's variable is dead
        // after its block in the original too.
        auto addressTaken = [&](const VarDecl *Var) {
            bool Taken = false;
            for (unsigned J = CS.FirstIndex; J <= CS.LastIndex && !Taken; ++J)
                walk(CS.Block->body_begin()[J], [&](const Stmt *S) {
                    const Expr *Sub = nullptr;
                    if (const auto *U = dyn_cast<UnaryOperator>(S);
                        U && U->getOpcode() == UO_AddrOf)
                        Sub = U->getSubExpr();
                    else if (const auto *C = dyn_cast<ImplicitCastExpr>(S);
                             C && C->getCastKind() == CK_ArrayToPointerDecay)
                        Sub = C->getSubExpr();
                    if (!Sub) return;
                    if (const auto *R = dyn_cast<DeclRefExpr>(Sub->IgnoreParenImpCasts()))
                        Taken |= R->getDecl()->getCanonicalDecl() == Var->getCanonicalDecl();
                });
            return Taken;
        };
        auto mustOutlive = [&](const VarDecl *Var) {
            return usedAfter(Var) || (TopLevel && addressTaken(Var));
        };
        // `int i, j, k;` or `int a[2] = {1, 2};`: nothing in the section can change what such a
        // declaration computes, so it moves whole, before the call site.
        bool AnyUsedAfter = false, MovesWhole = true;
        for (const Decl *D : DS->decls()) {
            const auto *Var = dyn_cast<VarDecl>(D);
            if (!Var) {
                MovesWhole = false;
                continue;
            }
            AnyUsedAfter |= mustOutlive(Var);
            MovesWhole &= !Var->isStaticLocal() && !Var->getType()->isVariablyModifiedType() &&
                          (!Var->hasInit() || Var->getInit()->isConstantInitializer(Ctx, false));
        }
        std::optional<TextRange> WholeRange = Text.statement(DS);
        if (AnyUsedAfter && MovesWhole && WholeRange && !TopLevel)
            for (const Decl *D : DS->decls())
                if (hidesAnother(cast<VarDecl>(D)))
                    return refuse(CS,
                                  "hoisting '" + cast<VarDecl>(D)->getNameAsString() +
                                      "' would hide another variable of that name",
                                  D->getLocation());
        if (AnyUsedAfter && MovesWhole && WholeRange) {
            CS.BodyEdits.push_back({WholeRange->Begin, WholeRange->End - WholeRange->Begin, ""});
            bool First = true;
            for (const Decl *D : DS->decls()) {
                const auto *Var = cast<VarDecl>(D);
                Hoist H{Var, *WholeRange};
                H.MovesWhole = true;
                H.EmitsText = First;
                if (First)
                    H.InPlace = {{WholeRange->Begin, WholeRange->End - WholeRange->Begin, ""}};
                First = false;
                CS.Hoists.push_back(H);
                Hoisted.insert(Var);
            }
            continue;
        }
        for (const Decl *D : DS->decls()) {
            const auto *Var = dyn_cast<VarDecl>(D);
            if (!Var || !mustOutlive(Var)) continue;
            std::string Name = Var->getNameAsString();
            // why it must outlive the section, for the refusals below
            const bool After = usedAfter(Var);
            const std::string Is = After ? " is used after the critical section"
                                         : " has its address taken in the critical section";
            const std::string Used = After ? ", used after the critical section,"
                                           : ", whose address is taken in the critical section,";
            if (Var->isStaticLocal())
                return refuse(CS, "static variable '" + Name + "'" + Is, Var->getLocation());
            if (!DS->isSingleDecl())
                return refuse(
                    CS, "declaration of '" + Name + "'" + Used + " declares several variables",
                    Var->getLocation());
            QualType T = Var->getType();
            std::optional<TextRange> DeclRange = Text.statement(DS);
            if (!DeclRange)
                return refuse(CS, "declaration written inside a macro", Var->getLocation(),
                              Resolution::ExpandMacros);
            Hoist H{Var, *DeclRange};
            // `const` goes (the hoisted variable is assigned once, in place; nothing else writes
            // it, or the original would not have compiled). A const array stays refused.
            QualType Element = T->isArrayType() ? Ctx.getBaseElementType(T) : T;
            if (T->isArrayType() && Element.isConstQualified())
                return refuse(CS, "const array '" + Name + "'" + Is, Var->getLocation());
            if (!Var->hasInit()) /* beside a type declaration: the whole does not move */
                return refuse(CS,
                              "declaration of '" + Name + "'" + Used +
                                  " has no initializer to assign in place",
                              Var->getLocation());
            std::optional<TextRange> Init = Text.node(Var->getInit()->getSourceRange());
            if (!Init || Init->Begin <= DeclRange->Begin || Init->End >= DeclRange->End)
                return refuse(CS, "declaration written inside a macro", Var->getLocation(),
                              Resolution::ExpandMacros);
            // A compound literal of the variable's type holds a brace initializer where an
            // assignment cannot: `s = (struct p){x, y};`, an array copied with
            // `__builtin_memcpy(a, (int[3]){x, y, z}, sizeof a)`. (An array's other initializer,
            // a string, is constant: the declaration moves whole, above.)
            bool Braced = isa<InitListExpr>(Var->getInit()->IgnoreImplicit()) &&
                          Text.code()[Init->Begin] == '{';
            std::optional<std::string> Type;
            if (Braced) {
                Type = declaration(T.getUnqualifiedType(), "", Ctx);
                if (!Type)
                    return refuse(CS, "the type of '" + Name + "' cannot be named",
                                  Var->getLocation());
            } else if (T->isArrayType()) {
                return refuse(CS, "initialised array '" + Name + "'" + Is, Var->getLocation());
            }
            // What replaces the declaration around its initializer, assigning Target: the
            // context's field in the outlined body; the variable itself in the body's own text,
            // which a timed section also runs in place (Hoist::InPlace).
            auto assignment =
                [&](const std::string &Target) -> std::pair<std::string, std::string> {
                if (!Braced) return {Target + " = ", ";"};
                if (T->isArrayType())
                    return {"__builtin_memcpy(" + Target + ", (" + *Type + ")",
                            ", sizeof " + Target + ");"};
                return {Target + " = (" + *Type + ")", ";"};
            };
            auto [Prefix, Suffix] = assignment("(*rcl_ctx->" + Name + ")");
            auto [Own, OwnSuffix] = assignment(Name);
            if (!TopLevel && hidesAnother(Var))
                return refuse(CS,
                              "hoisting '" + Name + "' would hide another variable of that name",
                              Var->getLocation());
            H.WithoutConst = true;
            CS.BodyEdits.push_back({DeclRange->Begin, Init->Begin - DeclRange->Begin, Prefix});
            CS.BodyEdits.push_back({Init->End, DeclRange->End - Init->End, Suffix});
            H.InPlace = {{DeclRange->Begin, Init->Begin - DeclRange->Begin, Own},
                         {Init->End, DeclRange->End - Init->End, OwnSuffix}};
            CS.Hoists.push_back(H);
            Hoisted.insert(Var);
        }
    }

    // Captures, in order of first use.
    llvm::StringSet<> Names;
    std::vector<const VarDecl *> Order;
    for (auto &[Var, Refs] : BodyUses)
        Order.push_back(Var);
    std::sort(Order.begin(), Order.end(), [&](const VarDecl *A, const VarDecl *B) {
        return BodyUses[A].front()->getBeginLoc() < BodyUses[B].front()->getBeginLoc();
    });
    for (const VarDecl *Var : Order) {
        bool Local = Var->getDeclContext()->isFunctionOrMethod();
        if (!Local || (declaredInBody(CS, Var) && !Hoisted.count(Var))) continue;
        if (Var->hasGlobalStorage() && !Var->isStaticLocal() && !Var->hasExternalStorage())
            continue;
        if (Var->getType()->isVariablyModifiedType())
            return refuse(CS, "uses variable-length array '" + Var->getNameAsString() + "'",
                          BodyUses[Var].front()->getLocation());
        if (usesLocalType(Var->getType(), CS))
            return refuse(CS,
                          "'" + Var->getNameAsString() +
                              "' has a type declared inside the "
                              "function",
                          BodyUses[Var].front()->getLocation());
        bool ByValue = !Hoisted.count(Var) && !Var->hasGlobalStorage() && !Written.count(Var) &&
                       !AddressTaken.count(Var) && Var->getType()->isScalarType() &&
                       !Var->getType().isVolatileQualified();
        // C forbids the address of a `register` variable, so one reached by pointer loses its
        // `register` in the rewritten file (a hint only: nothing else changes; legacy loop
        // counters). A hoisted one moves with its declaration's text: refused.
        if (!ByValue && Var->getStorageClass() == SC_Register) {
            std::optional<unsigned> From = Text.offset(Var->getBeginLoc()),
                                    To = Text.offset(Var->getLocation());
            std::optional<TextRange> Keyword =
                From && To ? Text.keyword(*From, *To, "register") : std::nullopt;
            if (Hoisted.count(Var) || !Keyword)
                return refuse(CS,
                              "register variable '" + Var->getNameAsString() +
                                  "' would be reached by address" +
                                  (Hoisted.count(Var) ? ", and its declaration moves with it"
                                                      : ", and its 'register' is not written "
                                                        "in this file"),
                              Var->getLocation());
            // value_or: GCC's -Wmaybe-uninitialized cannot see that the refusal above
            // returns whenever Keyword is empty.
            TextRange Register = Keyword.value_or(TextRange{});
            CS.CalleeEdits.push_back(
                {TextEdit{Register.Begin, Register.End - Register.Begin, ""}, CS.Function});
        }
        Capture C{Var, ByValue ? CaptureKind::ByValue : CaptureKind::ByPointer,
                  Var->getNameAsString()};
        for (int Suffix = 2; Names.count(C.Field); ++Suffix)
            C.Field = Var->getNameAsString() + "_" + std::to_string(Suffix);
        Names.insert(C.Field);
        if (!ByValue)
            for (const DeclRefExpr *Ref : BodyUses[Var]) {
                std::optional<unsigned> Offset = Text.offset(Ref->getLocation());
                if (!Offset)
                    return refuse(CS,
                                  "'" + Var->getNameAsString() + "' is used inside a macro body",
                                  Ref->getLocation(), Resolution::ExpandMacros);
                unsigned Length = Var->getName().size();
                // `s.f` reads better as `rcl_ctx->s->f` than as `(*rcl_ctx->s).f`.
                const auto *Member = dyn_cast_or_null<MemberExpr>(parent(Ref));
                if (Member && !Member->isArrow() && Member->getBase() == Ref &&
                    Text.code().substr(*Offset + Length, 1) == ".")
                    CS.BodyEdits.push_back({*Offset, Length + 1, "rcl_ctx->" + C.Field + "->"});
                else
                    CS.BodyEdits.push_back({*Offset, Length, "(*rcl_ctx->" + C.Field + ")"});
            }
        CS.Captures.push_back(C);
    }
    if (CS.Labelled && !CS.Hoists.empty())
        return refuse(CS, "a declaration would have to move after the lock's label",
                      CS.Hoists.front().Var->getLocation());
    for (const Hoist &H : CS.Hoists)
        if (!H.MovesWhole && !BodyUses.count(H.Var)) {
            CS.Captures.push_back({H.Var, CaptureKind::ByPointer, H.Var->getNameAsString()});
            Names.insert(H.Var->getName());
        }
    for (const Hoist &H : CS.Hoists)
        for (const Capture &C : CS.Captures)
            if (C.Var != H.Var && C.Field == H.Var->getName())
                return refuse(CS,
                              "hoisting '" + C.Field + "' would hide another variable of that name",
                              H.Var->getLocation());

    // Each unlock (and an exit's tail) becomes `return N;`. An unlock through a wrapper with
    // effects stays as a call of the copy of its statements before the unlock
    // (`twist(&L, 1);` -> `rcl_twist_before_unlock(&L, 1); return 0;`).
    auto endSection = [&](TextRange Removed, unsigned Number) {
        std::string Return = "return " + std::to_string(Number) + ";";
        for (const EffectsUnlock &U : CS.EffectsUnlocks) {
            if (U.Statement.Begin != Removed.Begin) continue;
            const auto *Name = dyn_cast<DeclRefExpr>(U.Call->getCallee()->IgnoreParenImpCasts());
            std::optional<unsigned> At = Name ? Text.offset(Name->getLocation()) : std::nullopt;
            if (!At)
                return refuse(CS,
                              "the name of unlock wrapper '" + U.Wrapper->getNameAsString() +
                                  "' is written inside a macro body",
                              U.Call->getBeginLoc(), Resolution::ExpandMacros);
            calleeHazards(CS, U.Wrapper, U.Call->getBeginLoc());
            CS.BodyEdits.push_back({*At, static_cast<unsigned>(U.Wrapper->getName().size()),
                                    effectsFunctionName(U.Wrapper)});
            CS.BodyEdits.push_back({U.Statement.End, Removed.End - U.Statement.End, " " + Return});
            return;
        }
        CS.BodyEdits.push_back({Removed.Begin, Removed.End - Removed.Begin, Return});
    };
    for (const Exit &E : CS.Exits)
        endSection(E.Removed, E.Number);
    if (CS.FinalUnlock) endSection(*CS.FinalUnlock, 0);
}

} // namespace rcl
