//===- UnlockWindow.h - a section's unlocked stretches run by its caller ----===//
//
// A section may let its lock go for a while and take it again, nested in its own statements:
//
//     lock(m);                                 { int rcl_stage_N = 0; T v; rcl_top_N:; lock(m);
//     A                                        if (rcl_stage_N == 1) goto rcl_resume_N_1;
//     if (c) {                                 A
//         T v = e;                             if (c) {
//         B1                                       v = e;
//         unlock(m);                    ==>        B1
//         W                                        rcl_stage_N = 1; unlock(m); goto rcl_window_N_1;
//         lock(m);                                 rcl_resume_N_1: rcl_stage_N = 0;
//         B2                                       B2
//     }                                        }
//     C                                        C
//     unlock(m);                               unlock(m); if (0) { rcl_window_N_1: { W }
//                                                                  goto rcl_top_N; } }
//
// (fuse's open_auto_cache, unbound's log_init, a queue drained one job at a time: `lock; while
// (q) { take; unlock; run; lock; } unlock`.) Its stretches (the "window" W between an unlock and
// the lock that takes the mutex again, both statements of one block nested in the section) run
// with the lock released, so they are no part of any section. Rewritten, the section leaves at
// the unlock through a goto (an exit, run by its caller as any other), the caller runs W, and
// takes the lock again at the section's top, whence a goto resumes where the original took it
// again. The statements run in the same order with the lock in the same state at each of them:
// lock A c B1 unlock W lock B2 C unlock. Delegated, each stretch between a lock and an unlock
// runs on the server, and W on the caller, as the original's threads would run it unlocked.
//
// What must hold (checked here, else nothing):
//   - the lock statement is a plain statement of the section's block, and each relock is a
//     statement written the same (re-run at the top instead, with the same mutex expression
//     evaluated at the same point of the run: after W);
//   - W has no label, no `case` of an enclosing switch, no goto, no break or continue that
//     leaves W (it runs elsewhere), no preprocessor directive, and is written outside macro
//     bodies; W may return (the lock is not held, in both places);
//   - the variables declared in the section whose scope holds a resume point (its goto jumps
//     over their declarations, and their values must outlive each stretch) are declared before
//     the lock instead, each the only variable of its declaration, with a name no other
//     declaration of the function has and no other entity the section or W names, not static,
//     register, variably modified or cleaned up (`__attribute__((cleanup))`, which would run
//     at the section's end), and without an initializer list; their initializers stay where
//     they were, as assignments (a const one is declared without its const, its type printed);
//   - the section declares no type.
// rcl-cc's copy only (CopyResolution): `rcl convert`, whose output a person keeps, refuses the
// section with the reason instead.
//===----------------------------------------------------------------------------------------===//
#ifndef RCL_REWRITER_UNLOCKWINDOW_H
#define RCL_REWRITER_UNLOCKWINDOW_H

#include "LockApi.h"
#include "SourceText.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// What the labels of the resume points begin with (`rcl_resume_N_k`): RewriteAction records
/// each as a section of its own.
inline constexpr llvm::StringLiteral ResumeLabel = "rcl_resume_";

/// The edits that let the section of Mutex from statement LockIndex to statement Last of Block
/// (of function Fn) run its windows on its caller (above), or nothing when it has none or they
/// cannot be moved. LineDirective(Offset): a `#line` directive naming the line of the original
/// text at Offset (empty without them), written before each moved window and after it.
std::optional<std::vector<TextEdit>>
splitUnlockWindows(clang::ASTContext &Ctx, const SourceText &Text, const LockApi &Api,
                   const clang::FunctionDecl *Fn, const clang::CompoundStmt *Block,
                   unsigned LockIndex, unsigned Last, const MutexRef &Mutex,
                   const std::function<std::string(unsigned)> &LineDirective);

} // namespace rcl

#endif
