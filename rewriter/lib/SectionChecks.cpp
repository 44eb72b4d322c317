//===- SectionChecks.cpp - what makes a critical section unsafe to move ---===//
//
// The checks of CaptureAnalysis that decide whether a section may run on the server at all:
// thread hazards in the body and in callees (CalleeFacts), condition waits and their renaming,
// exits, tails and labels, gotos to releasing labels. Captures and hoists are in
// CaptureAnalysis.cpp.
//
//===----------------------------------------------------------------------===//
#include "CaptureAnalysis.h"
#include "CalleeFacts.h"
#include "StmtWalk.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace clang;

namespace rcl {

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
    for (const auto &[Def, Facts] : Callees.reachable(Callee))
        for (const CallExpr *Wait : Facts->Waits) {
            if (!NotedWaits.insert(Wait).second) continue;
            CS.Waits = true;
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
            std::string Replacement = *delegatedConditionWait(Wait, Op), Why;
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
    // An unlock wrapper's statements after its unlock would be jumped over.
    const FunctionDecl *Def = Call ? Call->getDirectCallee()->getDefinition() : nullptr;
    if (Def && Api.pairOf(Def->getName()) && Api.summary(Def, LockOp::Unlock).hasAfter())
        return false;
    if (!Call || Api.classify(Call) != LockOp::Unlock ||
        !sameMutex(Api.mutexOf(Call, LockOp::Unlock), CS.Mutex, Ctx) || Api.unlockEffects(Call) ||
        // a remote pair releases through the section's own unlock where it runs locally
        (!CS.Mutex.Remote.empty() && (!CS.UnlockCall || !sameCall(Call, CS.UnlockCall, Ctx))) ||
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
                                    SourceLocation Loc, const CallExpr *Call) {
    // The branches of Callee that the call's constant arguments rule out are not followed.
    std::optional<Refusal> Why = Callees.hazard(Callee, Call ? Callees.callConstants(Call, Callee)
                                                             : CalleeFacts::Constants());
    if (!Why) return;
    if (!Why->WaitsForFacts) return refuse(CS, Why->Reason, Loc);
    waitForFacts(CS, *Why, Loc);
}

void CaptureAnalysis::waitForFacts(CriticalSection &CS, const Refusal &Why, SourceLocation Loc) {
    if (!CS.Refused) {
        CS.Refused = Refusal{Why.Reason, Loc};
        CS.Refused->WaitsForFacts = true;
    }
    // A section that waits for facts names every function without facts that any of its
    // callees reaches (the scan goes on past a wait, scanBody), so that `rcl build` records
    // all of them before compiling it again.
    if (CS.Refused->WaitsForFacts) {
        std::vector<std::string> &All = CS.Refused->UnknownCallees;
        All.insert(All.end(), Why.UnknownCallees.begin(), Why.UnknownCallees.end());
        std::sort(All.begin(), All.end());
        All.erase(std::unique(All.begin(), All.end()), All.end());
    }
}

void CaptureAnalysis::calleeEffects(CriticalSection &CS, const CallExpr *Call, SourceLocation Loc) {
    CalleeFacts::Verdict V = Callees.judge(Call, Callees.mutexPath(CS.Mutex), CS.LockName, Held,
                                           Callees.plainMutex(CS.Mutex));
    for (const std::string &Text : V.Notes)
        if (llvm::none_of(CS.Notes, [&](const Note &N) { return N.Text == Text; }))
            CS.Notes.push_back({Text, Loc});
    // A function of this file that a pointer may reach: its waits become rcl_cond_* as a
    // callee's do.
    for (const FunctionDecl *Target : V.LocalTargets)
        calleeWaits(CS, Target, Loc);
    CS.Waits |= V.Waits;
    if (V.CallerState) refuse(CS, *V.CallerState, Loc);
    if (!V.Refused) return;
    if (!V.Refused->WaitsForFacts) return refuse(CS, V.Refused->Reason, Loc);
    waitForFacts(CS, *V.Refused, Loc);
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
        // Inside the dropped check of the lock or of the final unlock (PortAudio's
        // `PA_ENSURE(lock(m)); ... error: PA_ENSURE(unlock(m));`, whose failure branches jump to
        // that label): gone with the check, since a delegated lock and unlock do not fail.
        if (At && ((*At >= CS.Whole.Begin && *At < CS.Body.Begin) ||
                   (CS.FinalUnlock && CS.FinalUnlock->contains(*At))))
            continue;
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
    if (CS.Sync && isa<BreakStmt, ContinueStmt>(S)) {
        // Out of a synchronized block the way its end goes: the macro's loops unlock next.
        const Stmt *Target = jumpTarget(S);
        bool Ends = isa<BreakStmt>(S) ? Target == CS.Sync->Break
                                      : llvm::is_contained(CS.Sync->Continues, Target);
        if (Ends) {
            std::optional<TextRange> Jump = Text.statement(S);
            if (!Jump)
                return refuse(CS, "a jump out of the synchronized block is written inside a macro",
                              Loc);
            CS.BodyEdits.push_back({Jump->Begin, Jump->End - Jump->Begin, "return 0;"});
            return;
        }
    }
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
    // The enclosing function's variable arguments: `va_start(ap, last)` becomes a copy of a list
    // that the call site starts before it delegates and ends after (VaStart); va_arg and va_end
    // work on the list's memory, the register save area and the arguments in the caller's
    // frame, which stays alive while the section runs (libmicrohttpd's
    // MHD_set_connection_option).
    if (const auto *Call = dyn_cast<CallExpr>(S))
        if (const FunctionDecl *Callee = Call->getDirectCallee();
            Callee && (Callee->getBuiltinID() == Builtin::BI__builtin_va_start ||
                       Callee->getBuiltinID() == Builtin::BI__va_start))
            return vaStartCopy(CS, Call);
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
                CS.Waits = true;
                std::optional<std::string> Replacement = delegatedConditionWait(Call, *Op);
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
            // Another mutex taken inside the section: a callee may release it (calleeEffects).
            Held.push_back(Callees.mutexPath(Api.mutexOf(Call, *Op)).key());
        }
        if (const FunctionDecl *Callee = Call->getDirectCallee()) {
            calleeWaits(CS, Callee, Loc);
            if (NoNestedLocks && Callees.reachesLock(Callee))
                return refuse(CS,
                              "calls '" + Callee->getNameAsString() +
                                  "', which takes a mutex (--no-nested-locks)",
                              Loc);
            calleeHazards(CS, Callee, Loc, Call);
            if (CS.Refused && !CS.Refused->WaitsForFacts) return;
            if (Callee->getLexicalDeclContext()->isFunctionOrMethod())
                return refuse(
                    CS, "calls '" + Callee->getNameAsString() + "', declared inside the function",
                    Loc);
            // A library function given functions of the program (qsort's comparator) runs
            // them inside the section.
            for (const FunctionDecl *Callback : Callees.callbacks(Call)) {
                calleeWaits(CS, Callback, Loc);
                calleeHazards(CS, Callback, Loc);
                if (CS.Refused && !CS.Refused->WaitsForFacts) return;
            }
        }
        if (!Api.classify(Call)) calleeEffects(CS, Call, Loc);
    }
}

void CaptureAnalysis::vaStartCopy(CriticalSection &CS, const CallExpr *Call) {
    SourceLocation Loc = Call->getBeginLoc();
    const FunctionDecl *Fn = CS.Function;
    if (!Fn->isVariadic() || Fn->getNumParams() == 0 || Call->getNumArgs() == 0)
        return refuse(CS, "uses variable arguments it does not have", Loc);
    // The list's own text stays (its capture edits it); the rest of the call goes: `va_start
    // (ap, last)` -> `__builtin_va_copy(ap, *rcl_ctx->rcl_va)`.
    const SourceManager &SM = Text.sourceManager();
    CharSourceRange Whole = SM.getExpansionRange(Call->getSourceRange());
    // (the list is a variable, written as the macro's argument: its spelling)
    const auto *List = dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts());
    std::optional<unsigned> Begin = Text.offset(Whole.getBegin());
    std::optional<unsigned> End = Text.offset(Whole.getEnd());
    std::optional<unsigned> At =
        List ? Text.offset(SM.getSpellingLoc(List->getLocation())) : std::nullopt;
    std::optional<TextRange> ListText;
    if (At) ListText = TextRange{*At, *At + (unsigned)List->getDecl()->getName().size()};
    if (!Begin || !End || !ListText || ListText->Begin < *Begin || ListText->End > *End + 1)
        return refuse(CS, "starts the enclosing function's variable arguments inside a macro", Loc,
                      Resolution::ExpandMacros);
    unsigned Last = *End + (Whole.isTokenRange() ? 1 : 0); // (after the use's `)`)
    // `va_start(ap, last)` -> `(__builtin_va_copy(ap, *rcl_ctx->rcl_va), (void)(last))`: the
    // argument texts stay where they are (their captures edit them), the rest around them.
    const Expr *LastArg = Call->getNumArgs() > 1 ? Call->getArg(1)->IgnoreParenImpCasts() : nullptr;
    std::optional<unsigned> LastAt =
        LastArg ? Text.offset(SM.getSpellingLoc(LastArg->getBeginLoc())) : std::nullopt;
    std::optional<unsigned> LastEnd =
        LastArg ? Text.offset(SM.getSpellingLoc(LastArg->getEndLoc())) : std::nullopt;
    if (LastArg && (!LastAt || !LastEnd || *LastAt < ListText->End || *LastEnd >= Last))
        return refuse(CS, "starts the enclosing function's variable arguments inside a macro", Loc,
                      Resolution::ExpandMacros);
    CS.BodyEdits.push_back({*Begin, ListText->Begin - *Begin, "(__builtin_va_copy("});
    if (LastArg) {
        unsigned LastStop =
            *LastEnd + Lexer::MeasureTokenLength(SM.getSpellingLoc(LastArg->getEndLoc()), SM,
                                                 Text.langOptions());
        CS.BodyEdits.push_back(
            {ListText->End, *LastAt - ListText->End, ", *rcl_ctx->rcl_va), (void)("});
        CS.BodyEdits.push_back({LastStop, Last - LastStop, "))"});
    } else {
        CS.BodyEdits.push_back({ListText->End, Last - ListText->End, ", *rcl_ctx->rcl_va))"});
    }
    CS.VaStart = Fn->parameters().back()->getNameAsString();
}

void CaptureAnalysis::scanBody(CriticalSection &CS, const Stmt *S) {
    // Past a wait for facts the scan goes on: for the other functions without facts, and for a
    // reason no facts could lift, which replaces the wait (refuse).
    if (!S || (CS.Refused && !CS.Refused->WaitsForFacts)) return;
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
            });
    }
}

} // namespace rcl
