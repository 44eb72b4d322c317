//===- ResultCheck.h - code that only reacts to a mutex operation's failure -===//
//
// A pthread mutex operation returns 0 on success and a positive error number on failure. Real
// code checks that result in many spellings (`if (lock(&m))`, `!= 0`, `< 0`, `!(!(lock(m)))`
// through two macros, `int e = lock(&m); if (e < 0) return e;`, an assert, `lock(&m) == 0 ||
// abort()`), and a delegated operation does not fail that way (the runtime takes or releases the
// mutex itself). This file decides, whatever the spelling, whether a test of the result is false
// when the operation succeeds: then what the test guards runs only on failure (or never) and
// goes with the operation. It is the one place of that rule; LockApi and SectionFinder call it.
//
//===----------------------------------------------------------------------===//
#ifndef RCL_REWRITER_RESULTCHECK_H
#define RCL_REWRITER_RESULTCHECK_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <vector>

namespace rcl {

/// Where a test reads the operation's result from. In: the locals that may hold it (a macro
/// block's `int e;` assigned inside the test, `(e = lock(m)) != 0`) and the local it was stored
/// in before the test (`int rc = lock(&m); if (rc < 0) ...`). Out: the call the test makes (at
/// most one; none when it only reads Stored).
struct ResultSource {
    ResultSource() = default;
    explicit ResultSource(std::vector<const clang::VarDecl *> Locals,
                          const clang::VarDecl *Stored = nullptr)
        : Locals(std::move(Locals)), Stored(Stored) {}

    std::vector<const clang::VarDecl *> Locals;
    const clang::VarDecl *Stored = nullptr;
    /// Locals known to hold a constant (a wrapper's `PaError result = paNoError;`).
    std::vector<std::pair<const clang::VarDecl *, int64_t>> Known;
    /// Variables other than Locals that the test assigns the result to, with the value each
    /// gets on success (PortAudio's `if ((paUtilErr_ = lock(m)) < paNoError)`, a file-scope
    /// static; `if ((rc = lock(m)) != 0) return rc;`, a local of the function): a caller that
    /// drops the test sets each to its value instead. Only with AllowAssigned.
    std::vector<std::pair<const clang::VarDecl *, int64_t>> Assigned;
    bool AllowAssigned = false;
    const clang::CallExpr *Call = nullptr;
    bool ReadsStored = false;
};

/// The value E has when the operation succeeds (its call, or Stored, is 0): E combines that
/// result with integer constants through `!`, `~`, unary `-`, comparisons, arithmetic, `&&`,
/// `||`, `?:`, casts, parentheses and `__builtin_expect`. Nothing when E reads anything else, or
/// calls more than one function (the call found, unclassified, is in Src.Call: the caller checks
/// that it is a mutex operation).
std::optional<int64_t> valueOnSuccess(const clang::Expr *E, ResultSource &Src);

/// Whether E, a test of an operation's result, is false when the operation succeeds (so what it
/// guards runs only on failure), with the call or the stored local found in Src.
bool falseOnSuccess(const clang::Expr *E, ResultSource &Src);
/// Whether E is true when the operation succeeds (an assertion of success: `assert(!lock(m))`,
/// `lock(m) == 0 || fail()`).
bool trueOnSuccess(const clang::Expr *E, ResultSource &Src);

/// Whether S, a statement after `T r = op(E);` (r is Stored) in a wrapper's body, only checks r:
/// it reads no other local, assigns nothing, and calls only side-effect-free builtins
/// (`__builtin_expect`); what runs only when r says the operation failed (`if (r) abort();`,
/// `assert(r == 0);`, `if (r < 0) { log(...); exit(1); }`) must end the program (or only
/// check). A delegated operation does not fail, so with r == 0 such a statement does nothing.
bool onlyChecksResult(const clang::Stmt *S, const clang::VarDecl *Stored,
                      const clang::ASTContext &Ctx);

/// Whether S, a statement after `T r = op(E);` in a wrapper's body, is `if (C) F;` (no else),
/// C true only when r says the operation failed, F neither returning nor jumping nor assigning
/// r, and a later statement of Rest (the statements after S in its block, those before it only
/// checking r) ends the program when r says so: MIT Kerberos's `if (r != 0) { fprintf(stderr,
/// ...); } assert(r == 0);`. F runs only on a path that ends the program, as the failure branch
/// of a check that ends it at once (onlyChecksResult); with r == 0 it does nothing.
bool reportsBeforeEnding(const clang::Stmt *S, llvm::ArrayRef<const clang::Stmt *> Rest,
                         const clang::VarDecl *Stored, const clang::ASTContext &Ctx);

/// `if (C) F;` with no else, no init, no condition variable and no label in F (F is dropped with
/// the check, and a goto's target or a case inside it would go with it): C. Null otherwise.
const clang::Expr *conditionWithoutElse(const clang::Stmt *S);

/// Whether a call of F never returns: F is declared noreturn (exit, abort, __assert_fail), or F is
/// defined in this translation unit and no path of its body returns (every path ends in such a
/// call or loops forever): `static void fail(int e) { fprintf(stderr, ...); exit(e); }`, which
/// real code seldom declares noreturn.
bool neverReturns(const clang::FunctionDecl *F);

/// Whether statement S is a call of a function that never returns.
bool isNeverReturningCall(const clang::Stmt *S);

/// Whether no path through S completes: each ends in a call that never returns or loops forever
/// (`{ fprintf(stderr, ...); abort(); }`, a `do { ...; exit(1); } while (0)` macro). What a
/// failure branch must be to count as a check: it ends the program.
bool neverCompletes(const clang::Stmt *S);

} // namespace rcl

#endif
