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
#include "CalleeFacts.h"
#include "StmtWalk.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include <sys/syscall.h>

using namespace clang;

namespace rcl {

std::optional<std::string> delegatedConditionWait(LockOp Op) {
    // librcl's forms hand the server's polling role to a spare servicing thread before they
    // block, so only the waiting section waits (runtime/include/rcl/rcl.h).
    switch (Op) {
    case LockOp::CondWait:
        return "rcl_cond_wait";
    case LockOp::CondTimedWait:
        return "rcl_cond_timedwait";
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

void CaptureAnalysis::refuse(CriticalSection &CS, std::string Reason, SourceLocation Loc) {
    if (!CS.Refused) CS.Refused = Refusal{std::move(Reason), Loc};
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

std::optional<TextEdit> CaptureAnalysis::renameWait(const CallExpr *Wait, StringRef Replacement,
                                                    std::string &Why) const {
    const auto *Callee = dyn_cast<DeclRefExpr>(Wait->getCallee()->IgnoreParenImpCasts());
    if (!Callee) {
        Why = "the condition wait is not a direct call";
        return std::nullopt;
    }
    if (Callee->getDecl()->getName() == Replacement) return std::nullopt;
    SourceLocation Loc = Callee->getLocation();
    // The name as written in the file: directly, as a macro argument, or as the whole expansion
    // of a macro that only renames it (`#define cond_wait pthread_cond_wait`).
    if (std::optional<TextRange> Name = Text.node(SourceRange(Loc, Loc)))
        return TextEdit{Name->Begin, Name->End - Name->Begin, Replacement.str()};
    const SourceManager &SM = Ctx.getSourceManager();
    if (Loc.isMacroID()) {
        SourceLocation Use = SM.getExpansionLoc(Loc);
        std::string Macro =
            Lexer::getSourceText(CharSourceRange::getTokenRange(Use), SM, Ctx.getLangOpts()).str();
        Why = "the condition wait is written inside macro '" + Macro +
              "', whose definition the tool does not edit (write the call out, or call " +
              Replacement.str() + " in the macro)";
    } else {
        Why = "the condition wait is in another file, which the tool does not edit";
    }
    return std::nullopt;
}

void CaptureAnalysis::calleeWaits(CriticalSection &CS, const FunctionDecl *Callee,
                                  SourceLocation Loc) {
    const SourceManager &SM = Ctx.getSourceManager();
    for (const FunctionDecl *Def : Callees.reachable(Callee))
        for (const CallExpr *Wait : Callees.facts(Def).Waits) {
            if (!NotedWaits.insert(Wait).second) continue;
            LockOp Op = *Api.classify(Wait);
            std::string Name = Wait->getDirectCallee()->getNameAsString();
            PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Wait->getBeginLoc()));
            std::string What = "calls '" + Callee->getNameAsString() +
                               "', which waits on a condition variable (" + Name;
            if (Def != Callee->getDefinition()) What += " in '" + Def->getNameAsString() + "'";
            if (P.isValid())
                What += ", " + llvm::sys::path::filename(P.getFilename()).str() + ":" +
                        std::to_string(P.getLine());
            What += ")";
            // Whatever the mutex: on a server, rcl_cond_* hands the polling role over before it
            // blocks; anywhere else it is the pthread call.
            std::string Replacement = *delegatedConditionWait(Op), Why;
            std::optional<TextEdit> Rename = renameWait(Wait, Replacement, Why);
            if (Rename) {
                CS.CalleeEdits.push_back({*Rename, Def});
                CS.Notes.push_back({What + ": renamed to " + Replacement, Loc});
            } else if (!Why.empty()) {
                CS.Notes.push_back({What + ": left as is (" + Why +
                                        "); the runtime's blocking detector hands the server "
                                        "over while it blocks",
                                    Loc});
            }
        }
}

bool CaptureAnalysis::gotoReleasingLabel(CriticalSection &CS, const GotoStmt *Goto) {
    // `goto fail;` ... after the section: `fail: pthread_mutex_unlock(&m); return -1;`. The
    // label's code releases the lock first, so the goto is an exit: the outlined function
    // returns, the runtime releases the mutex, and the call site jumps past that unlock.
    const LabelStmt *Target = Goto->getLabel()->getStmt();
    if (!Target || LabelAddressTaken.count(Goto->getLabel())) return false;
    const Stmt *Unlock = Target->getSubStmt();
    while (const auto *More = dyn_cast<LabelStmt>(Unlock))
        Unlock = More->getSubStmt();
    const CallExpr *Call = Api.asOperationStatement(Unlock);
    std::optional<unsigned> At = Text.expansionOffset(Target->getBeginLoc());
    std::optional<TextRange> UnlockText = Text.statement(Unlock);
    std::optional<TextRange> GotoText = Text.statement(Goto);
    if (!Call || Api.classify(Call) != LockOp::Unlock ||
        !sameMutex(Api.mutexOf(Call, LockOp::Unlock), CS.Mutex, Ctx) || Api.unlockEffects(Call) ||
        !At || *At < CS.Whole.End || !UnlockText || !GotoText || !isa<CompoundStmt>(parent(Target)))
        return false;
    std::string Label = "rcl_" + Goto->getLabel()->getNameAsString() + "_unlocked";
    unsigned Number = 1;
    for (const Exit &E : CS.Exits)
        Number = std::max(Number, E.Number + 1);
    Exit E;
    E.Number = Number;
    E.Removed = *GotoText;
    E.Jump = "goto " + Label + ";";
    CS.Exits.push_back(E);
    std::optional<unsigned> Colon = Text.expansionOffset(Target->getSubStmt()->getBeginLoc());
    if (!Colon) return false;
    CS.UnlockedLabels.push_back({Label, UnlockText->End, *Colon});
    return true;
}

void CaptureAnalysis::calleeHazards(CriticalSection &CS, const FunctionDecl *Callee,
                                    SourceLocation Loc) {
    if (std::optional<Refusal> Why = Callees.hazard(Callee)) return refuse(CS, Why->Reason, Loc);
}

const Stmt *CaptureAnalysis::jumpTarget(const Stmt *Jump) const {
    bool IsBreak = isa<BreakStmt>(Jump);
    for (const Stmt *P = parent(Jump); P; P = parent(P)) {
        if (isa<ForStmt, WhileStmt, DoStmt>(P)) return P;
        if (IsBreak && isa<SwitchStmt>(P)) return P;
    }
    return nullptr;
}

bool CaptureAnalysis::heldAt(const CriticalSection &CS, std::optional<unsigned> Offset) const {
    return Offset && CS.Body.contains(*Offset) && !excluded(CS, *Offset);
}

void CaptureAnalysis::checkLabel(CriticalSection &CS, const LabelStmt *Label) {
    std::string Name = Label->getDecl()->getNameAsString();
    // The label in front of the section's last unlock (`out: pthread_mutex_unlock(&m);`).
    bool BeforeUnlock = false;
    for (const Stmt *S = CS.Block->body_begin()[CS.LastIndex]; isa<LabelStmt, SwitchCase>(S);
         S = isa<LabelStmt>(S) ? cast<LabelStmt>(S)->getSubStmt()
                               : cast<SwitchCase>(S)->getSubStmt())
        BeforeUnlock |= S == Label && CS.FinalUnlock;
    std::string What = BeforeUnlock ? "the unlock is behind label '" + Name + "', which"
                                    : "contains label '" + Name + "', which";
    if (LabelAddressTaken.count(Label->getDecl()))
        return refuse(CS,
                      What + " has its address taken (a computed goto could jump into the "
                             "critical section)",
                      Label->getBeginLoc());
    for (const GotoStmt *Goto : GotosTo[Label->getDecl()]) {
        std::optional<unsigned> At = Text.expansionOffset(Goto->getGotoLoc());
        if (heldAt(CS, At)) continue;
        std::string Where = At ? " (goto at line " + std::to_string(Text.line(*At)) : " (goto";
        if (At && CS.Body.contains(*At)) Where += ", after an unlock";
        return refuse(CS, What + " is also reached from outside the critical section" + Where + ")",
                      Label->getBeginLoc());
    }
}

void CaptureAnalysis::checkHazard(CriticalSection &CS, const Stmt *S) {
    SourceLocation Loc = S->getBeginLoc();
    auto insideBody = [&](const Stmt *N) {
        std::optional<unsigned> Offset = N ? Text.expansionOffset(N->getBeginLoc()) : std::nullopt;
        return Offset && CS.Body.contains(*Offset);
    };
    if (isa<ReturnStmt>(S)) return refuse(CS, "returns while holding the lock", Loc);
    if (isa<BreakStmt, ContinueStmt>(S) && !insideBody(jumpTarget(S)))
        return refuse(CS,
                      std::string(isa<BreakStmt>(S) ? "break" : "continue") +
                          " leaves the critical section while holding the lock",
                      Loc);
    if (const auto *Goto = dyn_cast<GotoStmt>(S)) {
        // A goto to a label of the section stays in the outlined body (checkLabel makes sure
        // nothing outside jumps to that label).
        const LabelStmt *Target = Goto->getLabel()->getStmt();
        std::optional<unsigned> At =
            Target ? Text.expansionOffset(Target->getBeginLoc()) : std::nullopt;
        if (heldAt(CS, At)) return;
        std::string Name = Goto->getLabel()->getNameAsString();
        if (At && CS.Body.contains(*At))
            return refuse(CS, "goto '" + Name + "' jumps past an unlock of the critical section",
                          Loc);
        if (gotoReleasingLabel(CS, Goto)) return;
        return refuse(CS, "goto '" + Name + "' leaves the critical section while holding the lock",
                      Loc);
    }
    if (isa<IndirectGotoStmt>(S)) return refuse(CS, "contains a computed goto", Loc);
    if (isa<AddrLabelExpr>(S)) return refuse(CS, "takes the address of a label", Loc);
    if (const auto *Label = dyn_cast<LabelStmt>(S)) {
        checkLabel(CS, Label);
        if (CS.Refused) return;
        if (isa<DeclStmt>(Label->getSubStmt()))
            return refuse(CS,
                          "a declaration follows label '" + Label->getDecl()->getNameAsString() +
                              "' inside the critical section",
                          Loc);
        return;
    }
    if (const auto *Case = dyn_cast<SwitchCase>(S)) {
        const Stmt *Switch = parent(Case);
        while (Switch && !isa<SwitchStmt>(Switch))
            Switch = parent(Switch);
        if (!insideBody(Switch))
            return refuse(CS, "a case label of an enclosing switch is inside the critical section",
                          Loc);
    }
    if (std::optional<std::string> Reason = threadHazard(S, /*InCallee=*/false))
        return refuse(CS, *Reason, isa<DeclRefExpr>(S) ? cast<DeclRefExpr>(S)->getLocation() : Loc);
    if (isa<VAArgExpr>(S))
        return refuse(CS, "uses the enclosing function's variable arguments", Loc);
    if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
        for (const clang::Decl *D : Decl->decls()) {
            if (isa<TagDecl, TypedefNameDecl>(D))
                return refuse(CS, "declares a type inside the critical section", D->getLocation());
            if (const auto *Var = dyn_cast<VarDecl>(D)) {
                if (Var->getType()->isVariableArrayType())
                    return refuse(CS, "declares a variable-length array", D->getLocation());
                if (usesLocalType(Var->getType(), CS))
                    return refuse(CS, "uses a type declared inside the function", D->getLocation());
            }
            if (const auto *Fun = dyn_cast<FunctionDecl>(D))
                return refuse(CS,
                              "declares function '" + Fun->getNameAsString() +
                                  "' inside the critical section",
                              D->getLocation());
        }
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(S))
        if (usesLocalType(Cast->getTypeAsWritten(), CS))
            return refuse(CS, "uses a type declared inside the function", Loc);
    if (const auto *Trait = dyn_cast<UnaryExprOrTypeTraitExpr>(S))
        if (Trait->isArgumentType() && usesLocalType(Trait->getArgumentType(), CS))
            return refuse(CS, "uses a type declared inside the function", Loc);
    if (isa<CompoundLiteralExpr, OffsetOfExpr>(S) && usesLocalType(cast<Expr>(S)->getType(), CS))
        return refuse(CS, "uses a type declared inside the function", Loc);
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
        if (std::optional<LockOp> Op = Api.classify(Call)) {
            if (isConditionWait(*Op)) {
                if (!sameMutex(Api.mutexOf(Call, *Op), CS.Mutex, Ctx))
                    return refuse(
                        CS, "waits on a condition with a different mutex than the section's", Loc);
                std::optional<std::string> Replacement = delegatedConditionWait(*Op);
                if (!Replacement)
                    return refuse(CS, "contains a condition wait; not supported by the runtime",
                                  Loc);
                std::string Why;
                std::optional<TextEdit> Rename = renameWait(Call, *Replacement, Why);
                if (Rename) {
                    CS.BodyEdits.push_back(*Rename);
                } else if (const auto *Name =
                               dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts());
                           !Why.empty() && Name && Name->getLocation().isMacroID() &&
                           Text.expansionOffset(Name->getLocation())) {
                    // Written inside a macro body (`#define WAIT_FOR(c, m) pthread_cond_wait(
                    // &(c), &(m))`): the definition stays as it is, the outlined function is
                    // compiled with the name defined as the rcl_cond_* call instead.
                    std::string Function = Name->getDecl()->getNameAsString();
                    CS.MacroRenames[Function] = *Replacement;
                    CS.Notes.push_back({"has a condition wait written inside a macro (" + Function +
                                            "): the outlined function is compiled "
                                            "with '#define " +
                                            Function + " " + *Replacement + "'",
                                        Loc});
                } else if (!Why.empty()) {
                    return refuse(CS, Why, Loc);
                }
                return;
            }
            if (NoNestedLocks && *Op != LockOp::Unlock)
                return refuse(CS,
                              "takes another mutex ('" + lockName(Api.mutexOf(Call, *Op), Ctx) +
                                  "') inside the critical section (--no-nested-locks)",
                              Loc);
            if (*Op == LockOp::Unlock) {
                // An unlock of another mutex: fine only when its lock is inside the section too,
                // which the per-mutex balance check below establishes.
                return;
            }
        }
        if (const FunctionDecl *Callee = Call->getDirectCallee()) {
            calleeWaits(CS, Callee, Loc);
            if (NoNestedLocks && Callees.reachesLock(Callee))
                return refuse(CS,
                              "calls '" + Callee->getNameAsString() +
                                  "', which takes a mutex (--no-nested-locks)",
                              Loc);
            calleeHazards(CS, Callee, Loc);
            if (CS.Refused) return;
            if (Callee->getLexicalDeclContext()->isFunctionOrMethod())
                return refuse(
                    CS, "calls '" + Callee->getNameAsString() + "', declared inside the function",
                    Loc);
        }
    }
}

void CaptureAnalysis::scanBody(CriticalSection &CS, const Stmt *S) {
    if (!S || CS.Refused) return;
    std::optional<unsigned> Offset = Text.expansionOffset(S->getBeginLoc());
    if (Offset && excluded(CS, *Offset)) return;
    checkHazard(CS, S);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl())) {
            BodyUses[Var].push_back(Ref);
            if (!isRead(Ref)) Written.insert(Var);
        } else if (const auto *Fun = dyn_cast<FunctionDecl>(Ref->getDecl())) {
            if (Fun->getLexicalDeclContext()->isFunctionOrMethod())
                return refuse(CS,
                              "uses '" + Fun->getNameAsString() + "', declared inside the function",
                              Ref->getLocation());
        } else if (const auto *Enum = dyn_cast<EnumConstantDecl>(Ref->getDecl())) {
            if (Enum->getDeclContext()->getParent()->isFunctionOrMethod() &&
                !declaredInBody(CS, Enum))
                return refuse(CS, "uses an enumerator declared inside the function",
                              Ref->getLocation());
        }
    }
    for (const Stmt *Child : S->children())
        scanBody(CS, Child);
}

void CaptureAnalysis::checkTails(CriticalSection &CS) {
    for (const Exit &E : CS.Exits) {
        if (!E.Tail) continue;
        for (unsigned K = CS.FirstIndex; K <= CS.LastIndex && !CS.Refused; ++K)
            walk(CS.Block->body_begin()[K], [&](const Stmt *S) {
                std::optional<unsigned> Offset = Text.expansionOffset(S->getBeginLoc());
                if (!Offset || !E.Tail->contains(*Offset)) return;
                if (isa<BreakStmt, ContinueStmt>(S)) {
                    std::optional<unsigned> Target =
                        jumpTarget(S) ? Text.expansionOffset(jumpTarget(S)->getBeginLoc())
                                      : std::nullopt;
                    if (Target && CS.Body.contains(*Target))
                        refuse(CS, "after an unlock, a jump continues inside the critical section",
                               S->getBeginLoc());
                }
                if (isa<SwitchCase>(S)) {
                    // A case of a switch that starts before the unlock would move to the caller
                    // without its switch.
                    const Stmt *Switch = parent(S);
                    while (Switch && !isa<SwitchStmt>(Switch))
                        Switch = parent(Switch);
                    std::optional<unsigned> At =
                        Switch ? Text.expansionOffset(Switch->getBeginLoc()) : std::nullopt;
                    if (!At || !E.Tail->contains(*At))
                        refuse(CS,
                               "a case label of the switch follows an unlock inside the "
                               "critical section",
                               S->getBeginLoc());
                }
                if (const auto *Label = dyn_cast<LabelStmt>(S))
                    refuse(CS,
                           "label '" + Label->getDecl()->getNameAsString() +
                               "' follows an unlock inside the critical section (a goto to it "
                               "would skip or repeat the unlock)",
                           S->getBeginLoc());
                if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
                    const Decl *D = Ref->getDecl();
                    if (!declaredInBody(CS, D)) return;
                    bool TopLevel = false;
                    for (unsigned I = CS.FirstIndex; I <= CS.LastIndex; ++I)
                        if (const auto *DS = dyn_cast<DeclStmt>(CS.Block->body_begin()[I]))
                            for (const clang::Decl *Top : DS->decls())
                                TopLevel |= Top == D;
                    if (!TopLevel)
                        refuse(
                            CS,
                            "'" + Ref->getDecl()->getNameAsString() +
                                "', declared inside the critical section, is used after an unlock",
                            Ref->getLocation());
                }
            });
    }
}

void CaptureAnalysis::analyse(CriticalSection &CS) {
    BodyUses.clear();
    Written.clear();
    NotedWaits.clear();
    for (unsigned K = CS.FirstIndex; K <= CS.LastIndex; ++K)
        scanBody(CS, CS.Block->body_begin()[K]);
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
    for (const Expr *Part : Parts) {
        if (!Part) continue;
        if (Part->HasSideEffects(Ctx))
            return refuse(CS, "the lock expression has side effects", LockAt);
        std::string Changed;
        walk(Part, [&](const Stmt *S) {
            if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
                if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
                    if (!isa<ParmVarDecl>(Var) || Part != CS.Mutex.Through)
                        if (!addressOnly(Ref) && Written.count(Var) && Changed.empty())
                            Changed = Var->getNameAsString();
        });
        if (!Changed.empty())
            return refuse(CS,
                          "the lock expression depends on '" + Changed +
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

    // Hoists: top-level declarations of the section whose variables are used after it.
    std::set<const VarDecl *> Hoisted;
    for (unsigned K = CS.FirstIndex; K <= CS.LastIndex; ++K) {
        const auto *DS = dyn_cast<DeclStmt>(CS.Block->body_begin()[K]);
        if (!DS) continue;
        auto usedAfter = [&](const VarDecl *Var) {
            for (const Use &U : UsesInFunction[Var])
                if (U.Offset >= CS.Body.End || inTail(CS, U.Offset)) return true;
            return false;
        };
        // A variable whose address is taken in the section (`&v`, or an array decaying to a
        // pointer) may be reached through that address after it -- stored in a hoisted
        // variable, a global, through a parameter -- so it must outlive the outlined function:
        // it is hoisted like a variable used after the section. (Found by the differential
        // campaign: `int *p = &g; int **pp = &p;` with pp used after the unlock left pp
        // pointing into the outlined function's dead frame.)
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
        auto mustOutlive = [&](const VarDecl *Var) { return usedAfter(Var) || addressTaken(Var); };
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
        if (AnyUsedAfter && MovesWhole && WholeRange) {
            CS.BodyEdits.push_back({WholeRange->Begin, WholeRange->End - WholeRange->Begin, ""});
            bool First = true;
            for (const Decl *D : DS->decls()) {
                const auto *Var = cast<VarDecl>(D);
                Hoist H{Var, *WholeRange};
                H.MovesWhole = true;
                H.EmitsText = First;
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
                return refuse(CS, "declaration written inside a macro", Var->getLocation());
            Hoist H{Var, *DeclRange};
            if (T.isConstQualified())
                return refuse(CS, "const variable '" + Name + "'" + Is, Var->getLocation());
            if (T->isArrayType())
                return refuse(CS, "initialised array '" + Name + "'" + Is, Var->getLocation());
            if (!Var->hasInit()) /* beside a type declaration: the whole does not move */
                return refuse(CS,
                              "declaration of '" + Name + "'" + Used +
                                  " has no initializer to assign in place",
                              Var->getLocation());
            if (isa<InitListExpr>(Var->getInit()->IgnoreImplicit()))
                return refuse(CS, "'" + Name + "'" + Used + " has a brace initializer",
                              Var->getLocation());
            std::optional<unsigned> Init = Text.expansionOffset(Var->getInit()->getBeginLoc());
            if (!Init || *Init <= DeclRange->Begin)
                return refuse(CS, "declaration written inside a macro", Var->getLocation());
            CS.BodyEdits.push_back(
                {DeclRange->Begin, *Init - DeclRange->Begin, "(*rcl_ctx->" + Name + ") = "});
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
                                  Ref->getLocation());
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
                              U.Call->getBeginLoc());
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
