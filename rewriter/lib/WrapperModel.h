//===- WrapperModel.h - what a lock or unlock wrapper's definition does -----===//
//
// A declared wrapper (`--lock-fn=my_lock`) stands for a pthread lock or unlock, but real
// wrappers do more: they check the result (and report through a helper that exits), keep the
// result in a local and return it, lock only when a lock is configured (`if (p->lock_enabled)
// lock(&p->m)`), count, record the owner, assert. This file reads a wrapper's definition along
// its success path (the pthread call returns 0) and summarises it in the terms the rewriter can
// move: the mutex, the condition under which it is taken, the statements before and after the
// operation, and what the wrapper returns. Which of those a converted section can carry, and
// where each runs (on the client or on the server), is decided by the section's emitter; this
// file only says what the definition does, or why it cannot be summarised.
//
//===----------------------------------------------------------------------===//
#ifndef RCL_REWRITER_WRAPPERMODEL_H
#define RCL_REWRITER_WRAPPERMODEL_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <string>
#include <vector>

namespace rcl {

class LockApi;
enum class LockOp;

/// A wrapper's definition along its success path.
struct WrapperSummary {
    const clang::FunctionDecl *Def = nullptr;
    /// The pthread call (pthread_mutex_lock or pthread_mutex_unlock) and its operand, stripped of
    /// parentheses and implicit casts, in terms of the wrapper's parameters.
    const clang::CallExpr *Operation = nullptr;
    const clang::Expr *Mutex = nullptr;
    /// A wrapper that operates through another declared wrapper of the same kind, defined in
    /// another unit (`my_lock(l) { plat_lock(l); }`, a portable layer over a platform layer): that
    /// call (then Operation is it too, and Mutex its first argument). Its mutex is what that
    /// pair's getter returns.
    const clang::CallExpr *Chain = nullptr;
    /// `if (G) pthread_mutex_lock(E);`: G, with no side effects and reached from the parameters
    /// and file-scope names alone. The wrapper does nothing else when G is false.
    const clang::Expr *Guard = nullptr;
    /// Statements of the success path before and after the operation (a lock wrapper's before
    /// run before the lock is held, its after with the lock held; an unlock wrapper's before
    /// with the lock held, its after once it is released). Each is a whole statement of the
    /// body that uses only the parameters and file-scope names, neither returns nor jumps, and
    /// operates on no mutex.
    std::vector<const clang::Stmt *> Before, After;
    /// File-scope variables that the wrapper's check of its operation assigns the result to
    /// (PortAudio's `PA_ENSURE_SYSTEM(pthread_mutex_lock(&self->mtx), 0)`, whose test is
    /// `(paUtilErr_ = pthread_mutex_lock(...)) != 0`), with the value each gets on success: set
    /// right after the operation, before After (SectionEmitter::effectsFunction).
    std::vector<std::pair<const clang::VarDecl *, int64_t>> SetOnSuccess;
    /// Those of Before and After that only check the parameters and end the program when the
    /// check fails (Tor's `raw_assert(m)`: `do { if (!(m)) { report(...); abort(); } } while
    /// (0)`): a check that reads nothing but the parameters and file-scope names, without side
    /// effects, whose failing branch never completes. Where they run does not matter (the
    /// parameters are the same before, inside and after the section), so a pair defined in
    /// another file may run them in its getter.
    std::vector<const clang::Stmt *> Checks;
    /// Why the definition cannot stand for a lock or an unlock of Mutex ("does more than lock its
    /// first argument ..."), or nothing.
    std::optional<std::string> Problem;

    bool hasEffects() const { return !Before.empty() || hasAfter(); }
    /// Whether all it does besides its operation is Checks.
    bool onlyChecks() const {
        return SetOnSuccess.empty() && Before.size() + After.size() == Checks.size();
    }
    /// Whether the wrapper does anything after its operation.
    bool hasAfter() const { return !After.empty() || !SetOnSuccess.empty(); }
};

/// Reads Def, a declared wrapper of operation Op (LockOp::Lock or LockOp::Unlock).
WrapperSummary summarizeWrapper(const clang::FunctionDecl *Def, LockOp Op, const LockApi &Api);

/// The lock and unlock wrappers nobody declared: the functions of the unit's main file whose
/// definition reads (summarizeWrapper) as a lock of one mutex expression of their parameters
/// and file-scope names, without its unlock (`static void sched_lock(void) {
/// pthread_mutex_lock(&sched_m); }`, a monitor-enter helper, libmicrohttpd's
/// `MHD_ip_count_lock(daemon)`), each paired with every function that reads as the unlock of
/// the same expression from parameters of the same types, under the same condition if any.
/// Declared wrappers (Api) are left out; they are the user's.
std::vector<std::pair<std::string, std::string>> inferWrapperPairs(clang::ASTContext &Ctx,
                                                                   const LockApi &Api);

/// Whether E reads only Def's parameters and file-scope names (not thread-local), without
/// calls or side effects: it can be evaluated at a call site with the arguments in place of
/// the parameters, or in a getter. With ConstCalls, calls of functions declared
/// `__attribute__((const))` (or named by --const-fn) are allowed too (a wrapper's guard).
bool reachableFromParameters(const clang::Expr *E, const clang::FunctionDecl *Def,
                             bool ConstCalls = false);

/// Whether evaluating E may have side effects, as Expr::HasSideEffects says, except that a call
/// of a plain accessor counts as none: a function of the unit whose body is only `return R;`,
/// R reading nothing but its parameters and free of side effects itself (jemalloc's
/// `tsd_tsdn(tsd)`: `return (tsdn_t *)tsd;`, passed to every malloc_mutex_lock). A lock call's
/// arguments are evaluated more than once in a converted section (its wrapper's copied
/// statements, the context, the mutex expression), which only such expressions allow.
bool hasSideEffects(const clang::Expr *E, const clang::ASTContext &Ctx);

} // namespace rcl

#endif
