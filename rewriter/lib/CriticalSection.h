//===- CriticalSection.h - one critical section and what the tool decided ---===//
#ifndef RCL_REWRITER_CRITICALSECTION_H
#define RCL_REWRITER_CRITICALSECTION_H

#include "CopyResolution.h"
#include "LockApi.h"
#include "SourceText.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// Why a critical section (or another mutex operation) is left as it was, and where.
struct Refusal {
    std::string Reason;
    clang::SourceLocation Loc;
    /// The section calls into another file whose facts are not known yet: a build that records
    /// every file's facts first (`rcl build`) may convert it.
    bool WaitsForFacts = false;
    /// With WaitsForFacts: every function of another file without facts that the section's
    /// callees reach (not only the one the reason names), for `rcl build` to find the files
    /// whose facts it still has to record.
    std::vector<std::string> UnknownCallees = {};
    /// What rcl-cc's copy could make explicit for the section to convert (CopyResolution).
    Resolution Resolve = Resolution::None;
    /// The index of the statement that ends the section: with Resolution::JoinBranches in the
    /// block of the `if` (BranchJoin.h), with Resolution::SplitWindows in the section's block;
    /// with Resolution::WrapEarlyExit, the index of the exit's last statement, whose first (the
    /// unlock) is at JoinFrom.
    unsigned JoinUntil = 0;
    unsigned JoinFrom = 0;
};

/// One way control leaves a critical section other than by its last statement: an unlock
/// nested in the body, and the statements after it (its tail), which run after the unlock and
/// therefore in the caller, selected by the exit number the outlined function returns.
struct Exit {
    unsigned Number = 0; ///< 0: nothing left to run, continue after the section
    TextRange Removed;   ///< the unlock and its tail, replaced by `return Number;`
    std::optional<TextRange> Tail;
    /// Instead of a tail from the file: what the call site runs (`goto rcl_fail_unlocked;`).
    std::string Jump;
};

/// A label after the section whose first statement unlocks the section's mutex (`fail:
/// pthread_mutex_unlock(&m);`), reached by a goto inside the section: the goto becomes an exit
/// and the call site jumps to a new label right after that unlock.
struct UnlockedLabel {
    std::string Name;   ///< the new label, `rcl_fail_unlocked`
    unsigned After = 0; ///< where it goes: the end of the unlock statement
    /// Right after the user's label's colon: `__attribute__((unused))` goes there, since the
    /// label may have no goto left once every goto to it is converted.
    unsigned Colon = 0;
};

/// How a variable used in the body reaches the outlined function.
enum class CaptureKind {
    ByValue,   ///< read-only scalar, never address-taken: copied into the context
    ByPointer, ///< written, address-taken, an array, a struct or a function-local static
};

/// A variable of the enclosing function that the body uses.
struct Capture {
    const clang::VarDecl *Var;
    CaptureKind Kind;
    std::string Field; ///< member name in the context struct
};

/// A declaration at the top level of the body whose variable is used after the section:
/// it moves before the call site and is captured by pointer.
struct Hoist {
    const clang::VarDecl *Var;
    TextRange Decl; ///< the whole declaration statement
    /// A declaration whose initializer is a constant moves whole, initializer included
    /// (nothing in the section can change what it computes).
    bool MovesWhole = false;
    bool EmitsText = true; ///< the first variable of a declaration that moves whole
    /// Declared without its `const` (assigned once in place, where a const cannot be).
    bool WithoutConst = false;
    /// What becomes of its declaration in the body's own text, which a timed section also runs
    /// in place (CriticalSection::Timed): removed (MovesWhole), or an assignment.
    std::vector<TextEdit> InPlace = {};
};

/// Something a converted section's report says without refusing it.
struct Note {
    std::string Text;
    clang::SourceLocation Loc;
};

/// An edit outside the section's text that its conversion asks for: a condition wait in a
/// function the body calls (transitively) becomes the rcl_cond_* call; a `register` variable
/// of the enclosing function that the section reaches by address loses its `register`.
struct CalleeEdit {
    TextEdit Edit;                       ///< offsets in the main file
    const clang::FunctionDecl *Function; ///< whose text holds the edit
};

/// An unlock of the section by a wrapper that does other things first (LockApi::unlockEffects):
/// the call stays in the body, renamed to a copy of the wrapper without its unlock.
struct EffectsUnlock {
    TextRange Statement;                ///< the unlock statement, kept in the body
    const clang::CallExpr *Call;        ///< the wrapper call
    const clang::FunctionDecl *Wrapper; ///< its definition
};

/// The name of the copy of an unlock wrapper's statements before its unlock.
inline std::string effectsFunctionName(const clang::FunctionDecl *Wrapper) {
    return "rcl_" + Wrapper->getNameAsString() + "_before_unlock";
}

/// Where the statements a wrapper runs besides its operation (WrapperSummary::Before, After) run
/// in a converted section, each copied once per file into a static function with the wrapper's
/// parameters: a lock wrapper's before the lock on the client, before the delegation; its
/// after the lock at the start of the outlined function, with the lock held; an unlock wrapper's
/// after the unlock on the client, once the delegation returned (its statements before the
/// unlock: EffectsUnlock).
enum class WrapperPart { BeforeLock, AfterLock, AfterUnlock };

/// The name of such a copy: `rcl_<wrapper>_before_lock`, `_after_lock`, `_after_unlock`.
inline std::string wrapperPartName(const clang::FunctionDecl *Wrapper, WrapperPart Part) {
    return "rcl_" + Wrapper->getNameAsString() +
           (Part == WrapperPart::BeforeLock  ? "_before_lock"
            : Part == WrapperPart::AfterLock ? "_after_lock"
                                             : "_after_unlock");
}

/// A wrapper part a converted section runs (the lock call's or CriticalSection::UnlockCall's
/// arguments are its arguments).
struct WrapperEffects {
    const clang::FunctionDecl *Wrapper;
    WrapperPart Part;
};

/// The loops of a synchronized-block macro (`for (i = 0; i ? (unlock(&m), 0) : (lock(&m), 1);
/// i = 1) for (j = 0; !j; j = 1) { ... }`, xz's mythread_sync). A `break` whose target is
/// Break, or a `continue` whose target is one of Continues, leaves the guarded block the way
/// its end does (the macro's loops unlock next): it becomes `return 0;`. Any other way out
/// keeps the lock and refuses the section.
struct SyncLoops {
    const clang::Stmt *Break = nullptr;
    std::vector<const clang::Stmt *> Continues;
};

/// A lock..unlock region of one block, found on the function's structure, with everything
/// the emitter needs. `Refused` set means the section stays exactly as written.
struct CriticalSection {
    const clang::FunctionDecl *Function = nullptr;
    const clang::CompoundStmt *Block = nullptr;
    unsigned LockIndex = 0;
    unsigned FirstIndex = 0; ///< first statement of the body (after a dropped result check)
    unsigned LastIndex = 0;
    const clang::CallExpr *LockCall = nullptr;
    /// An unlock of the section. For a wrapper pair defined in another unit (Mutex.Remote)
    /// every unlock of the section is this same call (wrapper and arguments): the code that
    /// runs when that unit has no getter releases with it.
    const clang::CallExpr *UnlockCall = nullptr;
    MutexRef Mutex; ///< the lock call's mutex (through a wrapper's definition if need be)
    std::string LockName;
    bool Labelled = false;   ///< the lock statement carries a case or goto label
    unsigned LockOffset = 0; ///< where the lock call is spelled (the macro's use for a macro)
    TextRange Whole;         ///< lock statement .. last statement: replaced by the call site
    TextRange Body;          ///< after the lock statement .. end of the last statement
    std::optional<TextRange> FinalUnlock; ///< the last statement, when it is the unlock
    /// No path reaches the end of the last statement (`if (c) { unlock; return 1; } else {
    /// unlock; return 2; }`): the outlined function never returns 0, and the call site's last
    /// exit needs no test (else `-Wreturn-type` would see a path falling off the function).
    bool EndsByExit = false;
    std::vector<Exit> Exits;
    std::vector<EffectsUnlock> EffectsUnlocks; ///< unlocks (final or exits) through such wrappers
    std::vector<WrapperEffects> Parts;         ///< the lock wrapper's effects, the unlock's after
    std::vector<UnlockedLabel> UnlockedLabels; ///< labels the call site's gotos need
    std::vector<Capture> Captures;
    std::vector<Hoist> Hoists;
    std::vector<TextEdit> BodyEdits;     ///< capture accesses, hoisted declarations, exits, waits
    std::vector<CalleeEdit> CalleeEdits; ///< waits renamed in functions the body calls
    std::vector<Note> Notes;             ///< reported with the conversion
    /// Emitted before the call site: `rc = 0;` for a lock whose result was stored in rc.
    std::string CallSitePrefix;
    /// Emitted after it: `rc = 0;` (or `int rc = 0;`) for an unlock whose result was stored.
    std::string CallSiteSuffix;
    /// Condition waits written inside macro bodies: the outlined function is compiled with
    /// `#define pthread_cond_wait rcl_cond_wait` (push_macro/pop_macro around it).
    std::map<std::string, std::string> MacroRenames;
    /// Macros defined or undefined inside the function before the section, which the section
    /// uses (directly or through another of them): the outlined function, written before the
    /// function, is compiled with the last such directive of each (push_macro/pop_macro
    /// around it). Each: the name and the directive's text, in the order of the file.
    std::vector<std::pair<std::string, std::string>> LocalMacros;
    /// A synchronized-block macro (SyncLoops): Block is the guarded block and Whole the
    /// macro's use with it.
    std::optional<SyncLoops> Sync;
    std::optional<Refusal> Refused;
    /// The section (its body, wrapper parts or callees) uses its thread's state in the C
    /// library (usesCallerState): the first such use. Converted, the server runs it as its
    /// caller (rcl_delegate_flags, RCL_AS_CALLER).
    std::optional<Note> CallerState;
    bool Waits = false; ///< it, or a function it reaches, waits on a condition variable
    /// It starts the enclosing function's variable arguments (`va_start(ap, last)`): the
    /// name of the function's last parameter. The call site starts a list of its own
    /// (`va_start(rcl_va, last)`) before it delegates and ends it after; the section's
    /// va_start copies it (`__builtin_va_copy(ap, *rcl_ctx->rcl_va)`).
    std::string VaStart;
    /// Entered with a timed lock (pthread_mutex_timedlock, _clocklock, mtx_timedlock): the
    /// lock's statement (and its check) stays at the call site, with the call made
    /// rcl_delegate_timed; when that returns non-zero the body's own text runs in place, as the
    /// original's did when its timed lock failed (SectionEmitter, "A timed section").
    bool Timed = false;
    unsigned Ordinal = 0; ///< 1-based number among converted sections of the function
};

/// A mutex operation that is not the start of a critical section the tool can consider
/// (trylock, timedlock, a lock whose result is used, a lock not released in its block).
struct OtherSite {
    std::string LockName;
    clang::SourceLocation Loc;
    unsigned Offset = 0;
    Refusal Why;
};

} // namespace rcl

#endif
