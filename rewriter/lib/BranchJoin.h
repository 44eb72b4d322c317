//===- BranchJoin.h - a lock taken in the branches of an if, released after it ===//
//
// A section whose lock is taken in a branch of an `if` and released after the `if`, in the
// enclosing block (APR's lock tests, a "blocking or timed" choice, `lock` or `trylock` by a
// flag):
//
//     if (C) {                         if (C) {
//         A                                A
//         timedlock(m);                    timedlock(m);
//     } else {                             T
//         B                    ==>         unlock(m);
//         lock(m);                     } else {
//     }                                    B
//     T                                    lock(m);
//     unlock(m);                           T
//                                          unlock(m);
//                                      }
//
// Its section is no block's run of statements: it starts inside a branch and ends outside. The
// statements from the `if` to the unlock (the tail, T and the unlock) written at the end of
// every branch instead (tail duplication, as a compiler does) run in the same order, with the
// same locks held, on every path: each branch then holds a section of its own, which converts or
// is refused on its own (a timed lock stays as written). An `else if` chain counts as one `if`
// whose branches are its leaves; a missing last `else` gets one holding the tail. What must
// hold (checked here, else nothing):
//   - the lock statement is a statement of a braced branch, and the `if` (the top of its chain)
//     is a statement of a block, unlabelled;
//   - a later statement of that block ends the section (the finder's rule: an unlock, checked or
//     stored, or a statement whose every path releases the mutex), and the statements between
//     do not take it (they may release it on a path that leaves: the section's exits);
//   - the tail has no label, no `case` of an enclosing switch and no static or extern local (each
//     would be written twice),
//     no preprocessor directive that cannot move, and declares nothing that the block uses after
//     the unlock (its declarations end with the branch);
//   - no braced branch declares, at its top level, a name that the tail spells (the tail would
//     read the branch's instead of the one it read);
//   - a missing `else` is added only after a braced `then` (no dangling `else`); at most four
//     branches (the tail is written once per branch);
//   - every piece edited is written outside macro bodies.
// Every edit keeps the file's line numbers: the tail is written with `#line` directives naming
// its own lines, then the branch's. rcl-cc's copy only (CopyResolution): `rcl convert`, whose
// output a person keeps, refuses the section with the reason instead.
//===----------------------------------------------------------------------------------------===//
#ifndef RCL_REWRITER_BRANCHJOIN_H
#define RCL_REWRITER_BRANCHJOIN_H

#include "LockApi.h"
#include "SourceText.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// The `if` chain a branch belongs to: its top `if`, the block that `if` stands in and its
/// index there.
struct BranchJoin {
    const clang::IfStmt *If = nullptr;
    const clang::CompoundStmt *Block = nullptr;
    unsigned Index = 0;
};

/// The `if` chain whose branch (a `then`, an `else`, the `then` of an `else if`) Branch is, where
/// the chain's top `if` is an unlabelled statement of a block and declares nothing; nothing
/// otherwise.
std::optional<BranchJoin> branchJoinOf(clang::ASTContext &Ctx, const clang::CompoundStmt *Branch);

/// The copy's edits that write the statements of Join's block after its `if`, up to statement
/// Until (the one that releases Mutex, none before it taking Mutex: SectionFinder::tailEnd's
/// rule, which the finder checked), into each branch, or nothing
/// when that cannot be done (the conditions above). LineDirective(Offset): a `#line` directive
/// naming the line of the original text at Offset (empty without them).
std::optional<std::vector<TextEdit>>
joinBranches(clang::ASTContext &Ctx, const SourceText &Text, const LockApi &Api,
             const BranchJoin &Join, unsigned Until, const MutexRef &Mutex,
             const std::function<std::string(unsigned)> &LineDirective);

} // namespace rcl

#endif
