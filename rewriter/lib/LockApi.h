//===- LockApi.h - which calls lock, unlock or wait on a mutex --------------===//
#ifndef RCL_REWRITER_LOCKAPI_H
#define RCL_REWRITER_LOCKAPI_H

#include "clang/AST/Expr.h"
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// The operations on a mutex that the rewriter distinguishes. The condition waits are
/// pthread_cond_wait/timedwait/clockwait and librcl's rcl_cond_* forms of the same calls.
enum class LockOp { Lock, Unlock, TryLock, TimedLock, CondWait, CondTimedWait, CondClockWait };

/// Whether Op waits on a condition variable (its mutex is the second argument).
inline bool isConditionWait(LockOp Op) {
    return Op == LockOp::CondWait || Op == LockOp::CondTimedWait || Op == LockOp::CondClockWait;
}

/// A user-declared pair of wrapper functions (e.g. `--lock-fn=my_lock --unlock-fn=my_unlock`)
/// whose first argument is the `pthread_mutex_t *` they lock and unlock.
struct WrapperPair {
    std::string Lock;
    std::string Unlock;
};

/// Recognises calls to the pthread mutex API and to declared wrappers, after macro
/// expansion: `mutex_lock(x)` defined as `pthread_mutex_lock(x)` is just a call here.
class LockApi {
  public:
    explicit LockApi(std::vector<WrapperPair> Wrappers) : Wrappers(std::move(Wrappers)) {}

    /// The operation `Call` performs, or nothing when it is no mutex operation.
    std::optional<LockOp> classify(const clang::CallExpr *Call) const;

    /// The `pthread_mutex_t *` operand of a mutex operation (the second argument of a
    /// condition wait), with parentheses and implicit casts stripped.
    const clang::Expr *mutexOperand(const clang::CallExpr *Call, LockOp Op) const;

    /// If `S` is a statement that only performs a mutex operation (`f(&m);`, `(void)f(&m);`,
    /// or a macro's `{ f(&m); }`), that call.
    const clang::CallExpr *asOperationStatement(const clang::Stmt *S) const;

    /// For a call of a declared wrapper: why the call cannot be treated as a plain lock or
    /// unlock of its first argument (the first parameter is not a `pthread_mutex_t *`, or the
    /// definition, when this translation unit has it, does more than that one operation on
    /// it). Nothing for a pthread call or a wrapper that is only that.
    std::optional<std::string> wrapperProblem(const clang::CallExpr *Call) const;

    const std::vector<WrapperPair> &wrappers() const { return Wrappers; }

  private:
    std::vector<WrapperPair> Wrappers;
};

/// The name a lock is reported and selected by: the mutex lvalue as written, without the
/// leading `&` (`cache_lock`, `item_locks[hv & mask]`, `q->mutex`).
std::string lockName(const clang::Expr *MutexOperand, const clang::ASTContext &Ctx);

/// Structural equality of two lvalue expressions, ignoring parentheses and implicit casts:
/// the same variables, members, operators and literals.
bool sameLvalue(const clang::Expr *A, const clang::Expr *B, const clang::ASTContext &Ctx);

} // namespace rcl

#endif
