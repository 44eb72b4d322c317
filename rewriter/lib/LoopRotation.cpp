//===- LoopRotation.cpp - a worker loop's sections made blocks of their own -===//
#include "LoopRotation.h"

#include "StmtWalk.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include <algorithm>

using namespace clang;

namespace rcl {

namespace {

/// The loop's body when it runs until a jump leaves it: `for (;;)` or `while (C)` with C a
/// non-zero constant.
const CompoundStmt *endlessBody(const Stmt *S, const ASTContext &Ctx) {
    if (const auto *F = dyn_cast<ForStmt>(S)) {
        if (F->getInit() || F->getCond() || F->getInc()) return nullptr;
        return dyn_cast_or_null<CompoundStmt>(F->getBody());
    }
    if (const auto *W = dyn_cast<WhileStmt>(S)) {
        Expr::EvalResult R;
        if (W->getConditionVariable() || !W->getCond()->EvaluateAsInt(R, Ctx) ||
            R.Val.getInt().isZero())
            return nullptr;
        return dyn_cast_or_null<CompoundStmt>(W->getBody());
    }
    return nullptr;
}

/// The `continue` and `break` statements of S that continue or leave the loop S is in: not
/// those of a loop nested in S, nor a break of a switch nested in S (the rule of
/// CaptureAnalysis::jumpTarget, here from the loop down).
void jumpsOf(const Stmt *S, bool InSwitch, std::vector<const ContinueStmt *> &Continues,
             std::vector<const BreakStmt *> &Breaks) {
    if (!S || isa<ForStmt, WhileStmt, DoStmt>(S)) return; // its own jumps
    if (const auto *C = dyn_cast<ContinueStmt>(S)) return Continues.push_back(C);
    if (const auto *B = dyn_cast<BreakStmt>(S)) {
        if (!InSwitch) Breaks.push_back(B);
        return;
    }
    for (const Stmt *Child : S->children())
        jumpsOf(Child, InSwitch || isa<SwitchStmt>(S), Continues, Breaks);
}

} // namespace

std::optional<std::vector<TextEdit>>
rotateWorkerLoop(ASTContext &Ctx, const SourceText &Text, const LockApi &Api,
                 const CompoundStmt *Block, unsigned LockIndex, const MutexRef &Mutex,
                 const std::function<std::string(unsigned)> &LineDirective) {
    if (LockIndex + 1 >= Block->size()) return std::nullopt;
    const Stmt *LockStmt = Block->body_begin()[LockIndex];
    const Stmt *Loop = Block->body_begin()[LockIndex + 1];
    const CallExpr *Lock = Api.asOperationStatement(LockStmt); // (a labelled one is no call)
    const CompoundStmt *Body = endlessBody(Loop, Ctx);
    if (!Lock || Api.classify(Lock) != LockOp::Lock || !Body) return std::nullopt;

    // The one unlock and the one lock of the mutex at the body's top level, in that order.
    std::optional<unsigned> U, L;
    for (unsigned I = 0; I < Body->size(); ++I) {
        const CallExpr *Call = Api.asOperationStatement(Body->body_begin()[I]);
        std::optional<LockOp> Op = Call ? Api.classify(Call) : std::nullopt;
        if (!Op || (*Op != LockOp::Lock && *Op != LockOp::Unlock) ||
            !sameMutex(Api.mutexOf(Call, *Op), Mutex, Ctx))
            continue;
        std::optional<unsigned> &Slot = *Op == LockOp::Unlock ? U : L;
        if (Slot) return std::nullopt; // two of them
        Slot = I;
        if (*Op == LockOp::Lock && !sameCall(Call, Lock, Ctx)) return std::nullopt;
    }
    if (!U || !L || *L < *U) return std::nullopt;

    // Labels, and cases of a switch around the loop, would be jumped to in the wrong place.
    if (hasJumpTargetInside(Body)) return std::nullopt;

    // The pieces' text, outside macro bodies.
    std::optional<TextRange> LockRange = Text.statement(LockStmt);
    std::optional<TextRange> Relock = Text.statement(Body->body_begin()[*L]);
    std::optional<unsigned> LBrac = Text.offset(Body->getLBracLoc());
    std::optional<unsigned> RBrac = Text.offset(Body->getRBracLoc());
    if (!LockRange || !Relock || !LBrac || !RBrac || *RBrac < Relock->End) return std::nullopt;
    const TextRange Whole{*LBrac, *RBrac + 1};
    const TextRange S2{Relock->End, *RBrac};
    if (Text.immovableDirective(Whole) || Text.immovableDirective(S2)) return std::nullopt;

    // The continues: of S1 and S2 only (in W the lock is not held, and the original would run
    // S1 unlocked). The breaks, wherever they are.
    std::vector<const ContinueStmt *> InS1, InS2, Elsewhere;
    std::vector<const BreakStmt *> Breaks;
    for (unsigned I = 0; I < Body->size(); ++I)
        jumpsOf(Body->body_begin()[I], false, I < *U ? InS1 : I > *L ? InS2 : Elsewhere, Breaks);
    if (!Elsewhere.empty()) return std::nullopt;

    // S2 moves before S1 and W: it may use only variables declared outside the body, or in
    // itself. Those of the function it reads are made address-taken before the loop (`(void)&v;`):
    // the section's context then holds their address, not their value, which the first
    // iteration would read before the original ever assigns it (an indeterminate value).
    bool Moves = true;
    std::vector<const VarDecl *> Outer;
    for (unsigned I = *L + 1; I < Body->size(); ++I)
        walk(Body->body_begin()[I], [&](const Stmt *S) {
            const auto *Ref = dyn_cast<DeclRefExpr>(S);
            const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
            if (!Var || !Var->isLocalVarDeclOrParm()) return;
            // (where a macro declares it, its use: a variable LOGGER_LOG declares in S2 is S2's)
            std::optional<unsigned> At = Text.expansionOffset(Var->getLocation());
            if (!At || (Whole.contains(*At) && !S2.contains(*At))) Moves = false;
            if (At && !Whole.contains(*At) && !isa<ParmVarDecl>(Var) &&
                !llvm::is_contained(Outer, Var)) {
                if (Var->getStorageClass() == SC_Register) Moves = false; // (no address)
                Outer.push_back(Var);
            }
        });
    if (!Moves) return std::nullopt;

    std::optional<unsigned> LoopAt = Text.expansionOffset(Loop->getBeginLoc());
    if (!LoopAt) return std::nullopt;
    const std::string N = std::to_string(*LoopAt);
    const std::string Again = "rcl_again_" + N, Top = "rcl_top_" + N, BreakTo = "rcl_break_" + N;
    // A loop followed by the unlock (`lock; for (;;) { ...; if (stop) break; ...; lock; }
    // unlock;`): its breaks leave holding the lock, which that unlock releases. Each becomes
    // `goto rcl_break_N` to a label on that unlock, the same place (the rotation's block around
    // the loop runs nothing at its end), which a section converts as an exit to its unlock
    // (CriticalSection.h, UnlockedLabel). Elsewhere they stay breaks.
    std::optional<TextRange> After;
    if (LockIndex + 2 < Block->size()) {
        const Stmt *Next = Block->body_begin()[LockIndex + 2];
        const CallExpr *Call = Api.asOperationStatement(Next);
        if (Call && Api.classify(Call) == LockOp::Unlock &&
            sameMutex(Api.mutexOf(Call, LockOp::Unlock), Mutex, Ctx))
            After = Text.statement(Next);
    }
    if (!After) Breaks.clear();
    // The jumps made gotos: the continues to the label after S2, the breaks to the unlock's.
    std::vector<TextEdit> Jumps;
    auto jump = [&](SourceLocation Loc, unsigned Length, const std::string &Label) {
        std::optional<unsigned> At = Text.offset(Loc);
        if (At) Jumps.push_back({*At, Length, "goto " + Label});
        return At.has_value();
    };
    for (const std::vector<const ContinueStmt *> *Cs : {&InS1, &InS2})
        for (const ContinueStmt *C : *Cs)
            if (!jump(C->getContinueLoc(), 8 /* continue */, Top)) return std::nullopt;
    for (const BreakStmt *B : Breaks)
        if (!jump(B->getBreakLoc(), 5 /* break */, BreakTo)) return std::nullopt;
    std::sort(Jumps.begin(), Jumps.end(),
              [](const TextEdit &A, const TextEdit &B) { return A.Offset > B.Offset; });
    const llvm::StringRef Code = Text.code();
    const bool HasS2 = *L + 1 < Body->size();
    std::vector<TextEdit> Out;

    // The lock before the loop: gone (its line breaks kept), a block opens for the flag.
    llvm::StringRef LockText = Code.slice(LockRange->Begin, LockRange->End);
    if (LockText.contains('\n')) return std::nullopt; // (it moves onto the body's first line)
    std::string Open;
    if (HasS2) {
        Open = "{ int " + Again + " = 0;";
        for (const VarDecl *Var : Outer)
            Open += " (void)&" + Var->getNameAsString() + ";";
    }
    Out.push_back({LockRange->Begin, LockRange->End - LockRange->Begin,
                   Open + std::string(newlines(LockText), '\n')});
    // The top of each iteration: the lock, the previous iteration's S2 (its continues made
    // gotos), the label the continues go to.
    std::string Head = " " + LockText.str();
    if (HasS2) {
        std::string Moved = Code.slice(S2.Begin, S2.End).str();
        for (const TextEdit &E : Jumps) // (from the end: the offsets before stay)
            if (S2.contains(E.Offset)) Moved.replace(E.Offset - S2.Begin, E.Length, E.Text);
        Head += " if (" + Again + ") {" + LineDirective(S2.Begin) + Moved + "\n}" +
                LineDirective(*LBrac) + " " + Again + " = 1;";
    }
    if (!InS1.empty() || !InS2.empty()) Head += " " + Top + ":;";
    Out.push_back({*LBrac + 1, 0, Head});
    for (const TextEdit &E : Jumps)
        if (!S2.contains(E.Offset)) Out.push_back(E);
    if (!Breaks.empty()) Out.push_back({After->Begin, 0, BreakTo + ": "});
    // The lock at the bottom and S2: gone, their line breaks kept.
    Out.push_back({Relock->Begin, *RBrac - Relock->Begin,
                   std::string(newlines(Code.slice(Relock->Begin, *RBrac)), '\n')});
    if (HasS2) Out.push_back({*RBrac + 1, 0, " }"});
    return Out;
}

} // namespace rcl
