//===- StmtWalk.h - pre-order walk over a statement tree -------------------===//
#ifndef RCL_REWRITER_STMTWALK_H
#define RCL_REWRITER_STMTWALK_H

#include "clang/AST/Stmt.h"

namespace rcl {

/// Pre-order walk over a statement tree, skipping null children.
template <typename Fn> void walk(const clang::Stmt *S, Fn &&Visit) {
    if (!S) return;
    Visit(S);
    for (const clang::Stmt *Child : S->children())
        walk(Child, Visit);
}

} // namespace rcl

#endif
