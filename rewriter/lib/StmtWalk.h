//===- StmtWalk.h - pre-order walk over a statement tree -------------------===//
#ifndef RCL_REWRITER_STMTWALK_H
#define RCL_REWRITER_STMTWALK_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace rcl {

/// Pre-order walk over a statement tree, skipping null children.
template <typename Fn> void walk(const clang::Stmt *S, Fn &&Visit) {
    if (!S) return;
    Visit(S);
    for (const clang::Stmt *Child : S->children())
        walk(Child, Visit);
}

/// Whether control can jump into S from outside it: S holds a label, or a `case` or `default` of
/// a switch that S does not hold. Such a statement cannot be moved or written twice.
/// The statement S is a child of, when it has exactly one (null for a function's body).
inline const clang::Stmt *parentOf(clang::ASTContext &Ctx, const clang::Stmt *S) {
    clang::DynTypedNodeList Parents = Ctx.getParents(*S);
    return Parents.size() == 1 ? Parents[0].get<clang::Stmt>() : nullptr;
}

inline bool hasJumpTargetInside(const clang::Stmt *S) {
    bool Labelled = false;
    llvm::SmallPtrSet<const clang::SwitchCase *, 8> Cases, Owned;
    walk(S, [&](const clang::Stmt *N) {
        Labelled |= llvm::isa<clang::LabelStmt>(N);
        if (const auto *C = llvm::dyn_cast<clang::SwitchCase>(N)) Cases.insert(C);
        if (const auto *Sw = llvm::dyn_cast<clang::SwitchStmt>(N))
            for (const clang::SwitchCase *C = Sw->getSwitchCaseList(); C;
                 C = C->getNextSwitchCase())
                Owned.insert(C);
    });
    if (Labelled) return true;
    for (const clang::SwitchCase *C : Cases)
        if (!Owned.count(C)) return true;
    return false;
}

} // namespace rcl

#endif
