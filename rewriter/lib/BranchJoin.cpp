//===- BranchJoin.cpp - a lock taken in the branches of an if, released after it ===//
#include "BranchJoin.h"

#include "StmtWalk.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include <algorithm>

using namespace clang;

namespace rcl {

namespace {

/// The leaves of an `if` chain, in order: each `then`, the last `else` (null where it is
/// missing: the chain's last `if` is returned as Open).
void leavesOf(const IfStmt *If, std::vector<const Stmt *> &Leaves, const IfStmt *&Open) {
    Leaves.push_back(If->getThen());
    if (const auto *Next = dyn_cast_or_null<IfStmt>(If->getElse()))
        return leavesOf(Next, Leaves, Open);
    if (If->getElse())
        Leaves.push_back(If->getElse());
    else
        Open = If;
}

} // namespace

std::optional<BranchJoin> branchJoinOf(ASTContext &Ctx, const CompoundStmt *Branch) {
    const auto *If = dyn_cast_or_null<IfStmt>(parentOf(Ctx, Branch));
    if (!If || (If->getThen() != Branch && If->getElse() != Branch)) return std::nullopt;
    const Stmt *Up = parentOf(Ctx, If);
    while (const auto *Outer = dyn_cast_or_null<IfStmt>(Up)) {
        if (Outer->getElse() != If) return std::nullopt; // (an `if` in a `then`)
        If = Outer;
        Up = parentOf(Ctx, If);
    }
    const auto *Block = dyn_cast_or_null<CompoundStmt>(Up);
    if (!Block || If->getConditionVariable() || If->getInit()) return std::nullopt;
    for (unsigned I = 0; I < Block->size(); ++I)
        if (Block->body_begin()[I] == If) return BranchJoin{If, Block, I};
    return std::nullopt;
}

std::optional<std::vector<TextEdit>>
joinBranches(ASTContext &Ctx, const SourceText &Text, const LockApi &Api, const BranchJoin &Join,
             unsigned Until, const MutexRef &Mutex,
             const std::function<std::string(unsigned)> &LineDirective) {
    const IfStmt *If = Join.If;
    const CompoundStmt *Block = Join.Block;
    const unsigned I = Join.Index;
    if (Mutex.Guard || Until <= I || Until >= Block->size()) return std::nullopt;
    std::optional<TextRange> IfRange = Text.statement(If);
    std::optional<TextRange> UnlockRange = Text.statement(Block->body_begin()[Until]);
    if (!IfRange || !UnlockRange) return std::nullopt;
    for (unsigned K = I + 1; K <= Until; ++K) // (each written outside macro bodies)
        if (!Text.statement(Block->body_begin()[K])) return std::nullopt;
    const TextRange Tail{IfRange->End, UnlockRange->End};
    if (Text.immovableDirective(Tail)) return std::nullopt;

    // Labels, cases and static locals would be written twice; declarations end with their
    // branch.
    std::vector<const NamedDecl *> Declared;
    for (unsigned K = I + 1; K <= Until; ++K) {
        const Stmt *S = Block->body_begin()[K];
        if (hasJumpTargetInside(S)) return std::nullopt;
        if (const auto *D = dyn_cast<DeclStmt>(S))
            for (const Decl *One : D->decls())
                if (const auto *Named = dyn_cast<NamedDecl>(One)) Declared.push_back(Named);
        bool StaticLocal = false;
        walk(S, [&](const Stmt *N) {
            if (const auto *D = dyn_cast<DeclStmt>(N))
                for (const Decl *One : D->decls())
                    if (const auto *V = dyn_cast<VarDecl>(One); V && !V->hasLocalStorage())
                        StaticLocal = true; // (two variables, written twice)
        });
        if (StaticLocal) return std::nullopt;
    }
    if (!Declared.empty()) {
        std::optional<unsigned> BlockEnd = Text.offset(Block->getRBracLoc());
        if (!BlockEnd || *BlockEnd < Tail.End) return std::nullopt;
        for (const NamedDecl *D : Declared)
            if (Text.hasIdentifier({Tail.End, *BlockEnd}, D->getName())) return std::nullopt;
    }

    // The branches: braced ones get the tail before their `}`, the others are braced.
    std::vector<const Stmt *> Leaves;
    const IfStmt *Open = nullptr;
    leavesOf(If, Leaves, Open);
    if (Leaves.size() + (Open ? 1 : 0) > 4) return std::nullopt;
    if (Open && !isa<CompoundStmt>(Open->getThen())) return std::nullopt; // (a dangling else)
    const llvm::StringRef Code = Text.code();
    const std::string Moved = Code.slice(Tail.Begin, Tail.End).str();
    auto written = [&](unsigned Back) { // the tail, then the branch's own line again
        return LineDirective(Tail.Begin) + Moved + "\n" + LineDirective(Back);
    };
    std::vector<TextEdit> Out;
    for (const Stmt *Leaf : Leaves) {
        if (const auto *Braced = dyn_cast<CompoundStmt>(Leaf)) {
            std::optional<unsigned> RBrac = Text.offset(Braced->getRBracLoc());
            if (!RBrac) return std::nullopt;
            for (const Stmt *S : Braced->body())
                if (const auto *D = dyn_cast<DeclStmt>(S))
                    for (const Decl *One : D->decls()) {
                        if (const auto *Named = dyn_cast<NamedDecl>(One);
                            Named && !Named->getName().empty() &&
                            Text.hasIdentifier(Tail, Named->getName()))
                            return std::nullopt; // (the tail would read the branch's)
                        // A cleanup runs at the branch's `}`: after the tail, which releases
                        // the lock, where the original ran it before, the lock held.
                        if (One->hasAttr<CleanupAttr>()) return std::nullopt;
                    }
            Out.push_back({*RBrac, 0, written(*RBrac)});
            continue;
        }
        std::optional<TextRange> R = Text.statement(Leaf);
        if (!R) return std::nullopt;
        Out.push_back({R->Begin, 0, "{ "});
        Out.push_back({R->End, 0, written(R->End) + "}"});
    }
    if (Open) {
        std::optional<TextRange> Then = Text.statement(Open->getThen());
        if (!Then) return std::nullopt;
        Out.push_back({Then->End, 0, " else {" + written(Then->End) + "}"});
    }
    // The tail where it was: gone, its line breaks kept. What a branch ending there gets is
    // written first (one edit: two at one offset would apply in either order).
    TextEdit Gone{Tail.Begin, Tail.End - Tail.Begin, std::string(newlines(Moved), '\n')};
    for (auto E = Out.begin(); E != Out.end();)
        if (E->Offset == Tail.Begin) {
            Gone.Text = E->Text + Gone.Text;
            E = Out.erase(E);
        } else {
            ++E;
        }
    Out.push_back(std::move(Gone));
    return Out;
}

} // namespace rcl
