//===- LockApi.h - which calls lock, unlock or wait on a mutex --------------===//
#ifndef RCL_REWRITER_LOCKAPI_H
#define RCL_REWRITER_LOCKAPI_H

#include "WrapperModel.h"
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

/// A user-declared pair of wrapper functions (e.g. `--lock-fn=my_lock --unlock-fn=my_unlock`).
/// The mutex is their first argument when that is a `pthread_mutex_t *`; otherwise it is found
/// through the lock wrapper's definition (`pthread_mutex_lock(&locks[h & mask])`, from any of its
/// parameters and file-scope names), or, when the definition is in another translation unit,
/// through the pair's mutex getter (remoteMutexGetter) that rcl-rewrite adds to that unit.
/// A declared timed lock wrapper (`--timedlock-fn`, APR's `apr_thread_mutex_timedlock(m,
/// timeout)`) is a pair too, Timed set: Lock names it, Unlock the unlock wrapper that releases
/// what it takes. Its sections are timed sections; other units delegate them through its
/// delegating copy (timedWrapperCopy), which the unit that defines it writes.
struct WrapperPair {
    std::string Lock;
    std::string Unlock;
    bool Timed = false;
};

/// Whether T is a pointer to `pthread_mutex_t` or C11's `mtx_t` (through typedefs).
bool isMutexPointer(clang::QualType T);
/// Whether T is a pointer to C11's `mtx_t`: the runtime takes it as the `pthread_mutex_t` it is
/// (rcl/threads.h), cast.
bool isC11Mutex(clang::QualType T);
/// Whether Callee is the C library's operation Op on a mutex (`pthread_mutex_lock`,
/// `mtx_lock`; `pthread_mutex_unlock`, `mtx_unlock`; `pthread_mutex_trylock`, `mtx_trylock`),
/// not a wrapper.
bool isPthreadOperation(const clang::FunctionDecl *Callee, LockOp Op);

/// Whether a declared wrapper defined in another unit reaches its mutex through its pair's
/// getter (remoteMutexGetter): it takes no argument, or a first one that is not the mutex.
bool reachedThroughGetter(const clang::FunctionDecl *Wrapper);

/// Call arguments as a C argument list: `a, b, c`.
std::string joinArguments(const std::vector<std::string> &Args);

/// Which mutex a lock, unlock or wait operates on. Operand: the call's mutex argument (for a
/// declared wrapper, its first argument; null for a wrapper without arguments, `STATS_LOCK()`).
/// Call: the operation's call. Through: for a wrapper whose definition reaches the mutex from
/// its arguments or file-scope names (`pthread_mutex_lock(&l->mutex)`, memcached's
/// `pthread_mutex_lock(&item_locks[hv & hashmask(item_lock_hashpower)])`,
/// `pthread_mutex_lock(&stats_lock)`), the pthread call's operand in the wrapper's body, written
/// in terms of its parameters; null when the first argument is the mutex pointer itself.
/// Remote: for a declared wrapper defined in another translation unit whose first parameter is
/// not a mutex pointer, the name of its pair's lock wrapper (the mutex is what that unit's
/// getter returns, remoteMutexGetter).
struct MutexRef {
    const clang::Expr *Operand = nullptr;
    const clang::CallExpr *Call = nullptr;
    const clang::Expr *Through = nullptr;
    /// A declared wrapper defined in another unit whose first parameter is not the mutex: its
    /// name, and the names of the wrappers declared in a pair with it (the unlocks of a lock
    /// wrapper, the locks of an unlock wrapper). Two such operations name the same mutex when
    /// they are one wrapper or partners, with the same arguments where either could choose the
    /// mutex (sameMutex).
    std::string Remote;
    std::vector<std::string> Partners;
    /// The condition an operation of a section is written under (`if (p->lock)
    /// apr_thread_mutex_lock(p->lock);`, APR's file_lock): the section's lock and every unlock
    /// of it must be written under the same condition; the converted section delegates when it
    /// holds and runs in place when not. Null when unconditional. Not part of the mutex's
    /// identity (sameMutex ignores it).
    const clang::Expr *Guard = nullptr;
    /// The condition under which a wrapper performs its operation (WrapperSummary::Guard, alsa's
    /// `if (pcm->lock_enabled && pcm->need_lock) pthread_mutex_lock(&pcm->lock);`), written in
    /// the wrapper's parameters. Part of the identity: a lock wrapper and an unlock wrapper pair
    /// up when their conditions are the same expression of the same arguments.
    const clang::Expr *WrapperGuard = nullptr;
    /// A wrapper of this unit with internal linkage (a header's `static inline`, MIT Kerberos's
    /// `k5_mutex_lock`) that passes its parameters on, in order, to a declared pair defined in
    /// another unit (a chain no other unit can write a getter for): that pair, whose facts
    /// decide whether the section delegates, and the inner wrapper called. The operation then
    /// stands for the inner pair's: on its first argument, or through its getter (Remote names
    /// the inner wrapper), with the call's arguments.
    std::string ChainLock, ChainUnlock;
    const clang::FunctionDecl *ChainInner = nullptr;
    /// A call of a declared timed lock wrapper (WrapperPair::Timed), always Remote: its mutex
    /// is chosen by its first arguments, as many as its unlock wrapper takes (the rest are
    /// its timeout).
    bool Timed = false;
    /// Where the operation is written (for diagnostics).
    clang::SourceLocation loc() const {
        return Operand ? Operand->getBeginLoc()
               : Call  ? Call->getBeginLoc()
                       : clang::SourceLocation();
    }
};

/// The name of the function, with external linkage and hidden visibility, that rcl-rewrite adds
/// next to a declared wrapper pair's definitions when they are exactly a lock and an unlock of
/// one mutex expression (LockApi::pairMutex): it takes the lock wrapper's parameters and
/// returns the mutex the pair locks. Other translation units delegate through it (declared
/// weak: when the defining unit was not rewritten, the section runs under the wrappers). One
/// per pair, not per lock wrapper: a lock wrapper declared with several unlock wrappers
/// (`possess` with `release` and with `twist`) has a getter only for the pairs that are exact.
/// The names carry each wrapper's length, so no two pairs share one.
std::string remoteMutexGetter(llvm::StringRef LockWrapper, llvm::StringRef UnlockWrapper);
/// The name of the delegating copy of a declared timed lock wrapper that the unit defining it
/// adds beside it (LockApi::timedWrapperProblem): the wrapper's parameters, then `rcl_cs_fn
/// rcl_fn, void *rcl_ctx, size_t rcl_size, int *rcl_result, int *rcl_ran`; its lock calls
/// delegate the section (rcl_delegate_timed, rcl_delegate_trylock, rcl_delegate_ctx) and set
/// *rcl_ran when it ran; it returns what the wrapper returns.
std::string timedWrapperCopy(llvm::StringRef TimedWrapper, llvm::StringRef UnlockWrapper);
/// The unlock wrapper of the pair whose getter a section through Mutex calls (Mutex.Remote the
/// lock wrapper): the inner pair's for a static wrapper chaining to it (MutexRef::ChainLock),
/// else the wrapper UnlockCall calls.
llvm::StringRef remoteUnlockWrapper(const MutexRef &Mutex, const clang::CallExpr *UnlockCall);
/// The `const unsigned` that rcl-rewrite adds beside a pair's getter: bit I set when the mutex
/// depends on the lock wrapper's parameter I. A section whose lock and unlock differ in
/// constant arguments (`possess_(l, __FILE__, __LINE__)`) delegates only when none of those
/// positions chooses the mutex.
std::string remoteMutexParameters(llvm::StringRef LockWrapper, llvm::StringRef UnlockWrapper);

/// The argument positions at which two calls of wrappers of one pair differ. They pair up
/// (sameMutex) only when each such position holds a constant in both (a string, integer or
/// character literal, `__func__`: a `__FILE__`/`__LINE__` that a wrapper takes for its messages).
std::vector<unsigned> differingArguments(const clang::CallExpr *A, const clang::CallExpr *B,
                                         const clang::ASTContext &Ctx);
/// Whether E is such a constant.
bool isLocationConstant(const clang::Expr *E);
/// The indices of the parameters (of the function it is written in) that E uses.
std::vector<unsigned> parametersUsed(const clang::Expr *E);
/// Whether two calls call one function with structurally the same arguments.
bool sameCall(const clang::CallExpr *A, const clang::CallExpr *B, const clang::ASTContext &Ctx);

/// Recognises calls to the pthread mutex API and to declared wrappers, after macro
/// expansion: `mutex_lock(x)` defined as `pthread_mutex_lock(x)` is just a call here.
class LockApi {
  public:
    explicit LockApi(std::vector<WrapperPair> Wrappers) : Wrappers(std::move(Wrappers)) {}

    /// The operation `Call` performs, or nothing when it is no mutex operation.
    std::optional<LockOp> classify(const clang::CallExpr *Call) const;

    /// The `pthread_mutex_t *` operand of a mutex operation (the second argument of a
    /// condition wait), with parentheses and implicit casts stripped; null for a wrapper called
    /// without arguments.
    const clang::Expr *mutexOperand(const clang::CallExpr *Call, LockOp Op) const;

    /// The mutex of a mutex operation, through a wrapper's definition where it has one.
    MutexRef mutexOf(const clang::CallExpr *Call, LockOp Op) const;

    /// If `S` is a statement that only performs a mutex operation (`f(&m);`, `(void)f(&m);`,
    /// or a macro's `{ f(&m); }`), that call.
    const clang::CallExpr *asOperationStatement(const clang::Stmt *S) const;

    /// If `S` is `if (G) op;` (no else; `op` a statement that only performs a mutex
    /// operation, possibly checked), also braced or inside a macro's `do { ... } while (0)`, G
    /// without side effects: the operation's call, and G in Guard. An optional lock (APR's
    /// `if (f->thlock) apr_thread_mutex_lock(f->thlock);`).
    const clang::CallExpr *guardedOperationStatement(const clang::Stmt *S,
                                                     const clang::Expr *&Guard,
                                                     bool *Checked = nullptr) const;

    /// If `S` is a statement that performs a mutex operation and, only when the operation
    /// fails (returns non-zero), something else, that call. The forms real code writes, also
    /// from its lock macros: `if (op(&m)) F;`, `if (op(&m) != 0) F;` (no else, no label in F),
    /// `(void)(op(&m) && F)`, `op(&m) == 0 || F`, `!op(&m) || F`, and any of these with the
    /// result stored in a variable declared in the same macro block, `do { int e; if ((e =
    /// op(m)) != 0) F; } while (0)` (or `{ ... }`). A delegated operation does not fail, so
    /// such a statement is the operation alone. With Assigned, also a test that assigns the
    /// result to another variable, `if ((rc = op(&m)) != 0) return rc;`: Assigned gets each
    /// such variable with the value it holds on success (ResultSource::Assigned), which the
    /// caller must set in place of the dropped statement; without it such a test is no check.
    const clang::CallExpr *checkedOperationStatement(
        const clang::Stmt *S,
        std::vector<std::pair<const clang::VarDecl *, int64_t>> *Assigned = nullptr) const;

    /// For a call of a declared wrapper: why the call cannot be treated as a plain lock or
    /// unlock of its first argument (the first parameter is not a `pthread_mutex_t *`, or the
    /// definition, when this translation unit has it, does more than that one operation on
    /// it). Nothing for a pthread call or a wrapper that is only that.
    std::optional<std::string> wrapperProblem(const clang::CallExpr *Call) const;

    /// For a call of a declared unlock wrapper that does other things before it unlocks
    /// (`l->value += by; pthread_cond_broadcast(&l->c); pthread_mutex_unlock(&l->m);`), and
    /// nothing that cannot run as a function of its own (return, goto, a mutex operation or
    /// wait, a static local, __func__): its definition. Inside a converted section the call
    /// becomes a call of a copy of those statements, before the section's end.
    const clang::FunctionDecl *unlockEffects(const clang::CallExpr *Call) const;

    /// For a declared pair whose two definitions are in this translation unit: why other units'
    /// sections through it cannot delegate (the wrappers do more than lock and unlock one mutex
    /// expression of their parameters and file-scope names, without side effects, under the same
    /// condition if any, or through one other declared pair), or nothing.
    std::optional<std::string> pairProblem(const clang::FunctionDecl *LockDef,
                                           const clang::FunctionDecl *UnlockDef) const;
    /// For such a pair that delegates and is not a chain: the mutex expression, in terms of the
    /// lock wrapper's parameters, (Guard) the condition it is locked under, if any, and (Checks)
    /// the wrappers' checks of their parameters (WrapperSummary::Checks). Other units delegate
    /// through a getter that runs the checks and returns the mutex.
    const clang::Expr *pairMutex(const clang::FunctionDecl *LockDef,
                                 const clang::FunctionDecl *UnlockDef,
                                 const clang::Expr **Guard = nullptr,
                                 std::vector<const clang::Stmt *> *Checks = nullptr) const;
    /// For a pair whose wrappers go through another declared pair (`my_lock(l) { plat_lock(l); }`
    /// / `my_unlock(l) { plat_unlock(l); }`), with the same arguments: the inner unlock wrapper's
    /// name, and the lock wrapper's inner call in Inner. Its getter calls the inner pair's.
    std::optional<std::string> pairChain(const clang::FunctionDecl *LockDef,
                                         const clang::FunctionDecl *UnlockDef,
                                         const clang::CallExpr **Inner = nullptr) const;

    /// For a declared timed lock wrapper and its unlock wrapper, both defined in this unit: why
    /// other units' timed sections through it cannot delegate through its delegating copy
    /// (timedWrapperCopy), or nothing, with its lock calls (pthread_mutex_timedlock, _clocklock,
    /// _trylock or _lock of the mutex the unlock wrapper releases) in Ops. The copy runs the
    /// section where the wrapper took the lock, and what the wrapper does after that only once
    /// the section ran: that must compute nothing but its locals and its result (no call, no
    /// memory but its locals), on every path, outside any loop or switch.
    std::optional<std::string> timedWrapperProblem(const clang::FunctionDecl *TimedDef,
                                                   const clang::FunctionDecl *UnlockDef,
                                                   std::vector<const clang::CallExpr *> &Ops) const;

    /// What a declared wrapper's definition does (WrapperModel), as a wrapper of Op.
    WrapperSummary summary(const clang::FunctionDecl *Def, LockOp Op) const;

    /// The first declared pair a wrapper name belongs to, or null.
    const WrapperPair *pairOf(llvm::StringRef Name) const;
    /// Whether Lock and Unlock are declared as a pair.
    bool isPair(llvm::StringRef Lock, llvm::StringRef Unlock) const;

    const std::vector<WrapperPair> &wrappers() const { return Wrappers; }
    /// The definitions of W's lock and unlock wrappers written in Ctx's main file (null where
    /// the main file has none): the unit that defines a pair writes its getter and its facts.
    static std::pair<const clang::FunctionDecl *, const clang::FunctionDecl *>
    definitionsInMainFile(clang::ASTContext &Ctx, const WrapperPair &W);
    /// Adds pairs (inferred for one unit: inferWrapperPairs) after the declared ones.
    void addPairs(const std::vector<std::pair<std::string, std::string>> &Pairs) {
        for (const auto &[Lock, Unlock] : Pairs)
            if (!isPair(Lock, Unlock)) Wrappers.push_back({Lock, Unlock});
    }

    /// Functions the user declares `__attribute__((const))` (--const-fn): a memoising test
    /// that a wrapper's guard calls (MIT Kerberos's `krb5int_pthread_loaded()`), whose result
    /// never changes and whose repeated calls do nothing more, though its definition (which
    /// finds the answer once) says otherwise to the compiler.
    void setConstFunctions(std::vector<std::string> Names) { ConstFunctions = std::move(Names); }
    /// Gives the functions of Ctx named by setConstFunctions the const attribute, as if the
    /// file declared them so; the analyses then read their calls as a compiler would (free of
    /// side effects, allowed in a wrapper's guard).
    void markConstFunctions(clang::ASTContext &Ctx) const;

  private:
    std::vector<WrapperPair> Wrappers;
    std::vector<std::string> ConstFunctions;
};

/// The name a lock is reported and selected by: the mutex lvalue as written, without the
/// leading `&` (`cache_lock`, `item_locks[hv & mask]`, `q->mutex`).
std::string lockName(const clang::Expr *MutexOperand, const clang::ASTContext &Ctx);
/// The same for a mutex reached through a wrapper: its body's operand with the wrapper's
/// parameters replaced by the call's arguments (`L.mutex`, `stats_lock`); for a remote wrapper,
/// the lock wrapper's call (`item_lock(hv)`).
std::string lockName(const MutexRef &Mutex, const clang::ASTContext &Ctx);

/// The condition under which Mutex's wrapper operates (MutexRef::WrapperGuard), to evaluate at
/// a call site given the call's arguments as written there.
std::string wrapperGuardExpression(const MutexRef &Mutex, const std::vector<std::string> &ArgTexts,
                                   const clang::ASTContext &Ctx);

/// The pointer expression of Mutex, to evaluate at a call site, given the call's arguments as
/// written there: the first argument, or the wrapper body's operand printed with each parameter
/// replaced by `(argument)`. (A remote wrapper's mutex is its pair's getter: the section's
/// emitter calls it, since it depends on the unlock too.)
std::string mutexExpression(const MutexRef &Mutex, const std::vector<std::string> &ArgTexts,
                            const clang::ASTContext &Ctx);

/// Whether two operations name the same mutex: the same operand (structurally) reached the
/// same way; through wrappers, the same body expression and the same arguments for the
/// parameters it uses; through remote wrappers, one wrapper or a declared pair, and the same
/// arguments except constants (differingArguments).
bool sameMutex(const MutexRef &A, const MutexRef &B, const clang::ASTContext &Ctx);

/// Structural equality of two lvalue expressions, ignoring parentheses and implicit casts:
/// the same variables, members, operators and literals.
bool sameLvalue(const clang::Expr *A, const clang::Expr *B, const clang::ASTContext &Ctx);

} // namespace rcl

#endif
