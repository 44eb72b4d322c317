//===- LoopRotation.h - a worker loop's sections made blocks of their own ---===//
//
// A worker loop takes its lock before the loop and drops it around each item's work:
//
//     lock(m);                         { int rcl_again_N = 0;
//     for (;;) {                       for (;;) {
//         S1                               lock(m);
//         unlock(m);            ==>        if (rcl_again_N) { S2 }
//         W                                rcl_again_N = 1;
//         lock(m);                         rcl_top_N:;
//         S2                               S1
//     }                                    unlock(m);
//                                          W
//                                      } }
//
// Its sections are the stretches from one lock to the next unlock, across the loop's back edge,
// so none of them is a block's run of statements. Rotated, each iteration's section is one
// (lock, S2 of the previous iteration, S1, unlock), and the statements run in the same order
// with the lock in the same state at each of them: lock S1 unlock W lock S2 S1 unlock W ...
// A `continue` of the loop in S1 or S2 (the lock held: the original goes on with S1, without a
// lock call) becomes `goto rcl_top_N`. What must hold for that (checked here, else nothing):
//   - the loop (`for (;;)` or `while (C)`, C a non-zero constant) is the statement right after
//     the lock statement, in the same block, and neither carries a label;
//   - its body has exactly one unlock statement of the mutex and, after it, exactly one lock
//     statement that is the same call as the one before the loop (evaluated at the same point
//     of the run: after W, or before the loop where nothing runs between);
//   - no label, no `case` of an enclosing switch and no preprocessor directive in the body, no
//     `continue` of the loop in W, and S2 uses no variable declared in S1 or W (it moves
//     before them in the text);
//   - the statements it edits and moves are written outside macro bodies.
// A `break` or `return` keeps the lock's state: both forms leave the loop holding what the
// original held there (a section whose break leaves holding the lock is then refused for that).
// rcl-cc's copy only (CopyResolution): `rcl convert`, whose output a person keeps, refuses the
// section with the reason instead.
//===----------------------------------------------------------------------------------------===//
#ifndef RCL_REWRITER_LOOPROTATION_H
#define RCL_REWRITER_LOOPROTATION_H

#include "LockApi.h"
#include "SourceText.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// The edits that rotate the worker loop right after statement LockIndex of Block (the lock of
/// Mutex), or nothing when it cannot be rotated (the conditions above). LineDirective(Offset):
/// a `#line` directive naming the line of the original text at Offset (empty without them),
/// written before the moved statements and after them.
std::optional<std::vector<TextEdit>>
rotateWorkerLoop(clang::ASTContext &Ctx, const SourceText &Text, const LockApi &Api,
                 const clang::CompoundStmt *Block, unsigned LockIndex, const MutexRef &Mutex,
                 const std::function<std::string(unsigned)> &LineDirective);

} // namespace rcl

#endif
