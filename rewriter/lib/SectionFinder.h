//===- SectionFinder.h - pair lock calls with their unlocks -----------------===//
#ifndef RCL_REWRITER_SECTIONFINDER_H
#define RCL_REWRITER_SECTIONFINDER_H

#include "CriticalSection.h"
#include "LockApi.h"
#include "clang/AST/ASTContext.h"

namespace rcl {

/// Finds the critical sections of one function. A section starts at a statement that only
/// locks a mutex and ends at the first later statement of the same block after which the
/// mutex is released on every path (the unlock itself, or e.g. an `if` whose branches all
/// unlock). Unlocks nested inside become exits; the statements that follow such an unlock
/// (its tail) must leave the section (return, break, goto...) or fall out of its last
/// statement. Jumps are followed on the function's structure rather than on a CFG: a label
/// inside a section is accepted only when every goto to it is in the section's body (checked by
/// CaptureAnalysis), so every way in or out is visible in the nesting of statements. A label in
/// front of the last unlock (`out: pthread_mutex_unlock(&m);`) ends the section there.
class SectionFinder {
  public:
    SectionFinder(clang::ASTContext &Ctx, const LockApi &Api, const SourceText &Text)
        : Ctx(Ctx), Api(Api), Text(Text) {}

    /// The text is rcl-cc's resolved copy, which is not resolved again: a refusal does not say
    /// that the copy would rotate or join it.
    void setResolvedCopy(bool Resolved) { ResolvedCopy = Resolved; }

    /// Every lock statement of `Fn` as a section (refused or not), in source order
    /// (outer sections before the sections nested in them), and the other mutex operations.
    void find(const clang::FunctionDecl *Fn, std::vector<CriticalSection> &Sections,
              std::vector<OtherSite> &Others);

    /// Whether control can reach the end of S normally, and, when `Released` is given,
    /// without passing an unlock of that mutex.
    bool fallsThrough(const clang::Stmt *S, const MutexRef *Released) const;

  private:
    CriticalSection build(const clang::FunctionDecl *Fn, const clang::CompoundStmt *Block,
                          unsigned LockIndex, const clang::CallExpr *LockCall,
                          const clang::Stmt *LockStmtNode, unsigned Skip = 0,
                          const clang::Expr *Guard = nullptr);
    /// For a section whose lock is written under a condition (MutexRef::Guard): the outermost
    /// statement around Unlock that is that unlock under the same condition (`if (G) unlock;`,
    /// braced, in a macro's do-while), or null.
    const clang::Stmt *guardedUnlock(const CriticalSection &CS,
                                     const clang::CallExpr *Unlock) const;
    void findExits(CriticalSection &CS);
    /// A synchronized-block macro's loop (CriticalSection::Sync): the section of its guarded
    /// block, or nothing when F is not one.
    std::optional<CriticalSection> syncBlock(const clang::FunctionDecl *Fn,
                                             const clang::ForStmt *F);
    /// A loop after the lock, in its block, whose body unlocks the mutex and then locks it
    /// again at its top level (a worker loop): its line.
    std::optional<unsigned> workerLoop(const CriticalSection &CS,
                                       const clang::CompoundStmt *Block) const;
    /// Its refusal: it asks rcl-cc's copy to rotate the loop where LoopRotation.h allows.
    Refusal workerLoopRefusal(const CriticalSection &CS, const clang::CompoundStmt *Block,
                              unsigned Line, clang::SourceLocation Where) const;
    /// The index of the first statement of Block from From on that ends a section of Mutex (as
    /// build reads it: an unlock, checked or stored, or a statement whose every path releases
    /// it), where the statements before it do not take Mutex (lock, trylock or timed lock; they
    /// may release it on a path that leaves: the section's exits); nothing otherwise.
    /// A goto of CS to a label after its last unlock's early return, which rcl-cc's copy makes
    /// an exit of the section (Resolution::WrapEarlyExit), refused with that note; or nothing.
    std::optional<Refusal> earlyExit(const CriticalSection &CS) const;
    std::optional<unsigned> tailEnd(const clang::CompoundStmt *Block, unsigned From,
                                    const MutexRef &Mutex) const;
    /// For a lock through a declared wrapper that no unlock of its block releases: "; the
    /// unlock 'w' at line N does not pair with it: argument I differs ('a' and 'b')" when an
    /// unlock wrapper of its pair is called there with other arguments, else "".
    std::string unpairedUnlock(const CriticalSection &CS, const clang::CompoundStmt *Block) const;
    /// Whether a wrapper whose statements are copied is written before Fn, in this file or in
    /// a header included before it.
    bool writtenBefore(const clang::FunctionDecl *Wrapper, const clang::FunctionDecl *Fn) const;
    /// Records an unlock by a wrapper with effects (LockApi::unlockEffects), or refuses CS
    /// when that wrapper's statements cannot be copied before the section's function.
    bool noteEffects(CriticalSection &CS, const clang::CallExpr *Unlock, TextRange Statement);
    /// Records what the section's lock wrapper does besides locking and its unlock wrapper after
    /// unlocking (CriticalSection::Parts), or refuses CS when that cannot be copied before the
    /// section's function or an unlock with such statements is not the section's only one.
    bool noteWrapperParts(CriticalSection &CS, const std::vector<const clang::CallExpr *> &Unlocks);
    /// Refuses CS when a preprocessor directive would be cut apart or moved by the rewrite.
    void checkDirectives(CriticalSection &CS) const;
    bool isOperationOn(const clang::Stmt *S, LockOp Op, MutexRef Mutex) const;
    void collectCalls(const clang::Stmt *S, LockOp Op, MutexRef Mutex,
                      std::vector<const clang::CallExpr *> &Out) const;
    const clang::Stmt *parent(const clang::Stmt *S) const;
    /// `if (pthread_mutex_lock(&m) != 0) fail;`: the lock call. A delegated lock does not fail
    /// that way: the whole statement starts a section and the branch is dropped, with a note.
    /// Also a timed lock's (`pthread_mutex_timedlock`), whose check stays (refuseTimedProblems).
    /// With Assigned, also a test that assigns the result to a variable (`if ((rc =
    /// lock(&m)) != 0) return rc;`): each such variable and the value it gets on success.
    const clang::CallExpr *
    checkedLock(const clang::Stmt *S,
                std::vector<std::pair<const clang::VarDecl *, int64_t>> *Assigned = nullptr) const;
    /// `if (pthread_mutex_unlock(&m) != 0) abort();` (or a declared unlock wrapper): the unlock
    /// call. Such a statement releases the lock like a plain unlock; delegated, the unlock does
    /// not fail, so the whole statement ends the section (or is an exit) and the branch goes.
    /// With Assigned, also a test that assigns the result to a variable (PortAudio's
    /// `PA_ENSURE(PaUnixMutex_Unlock(&m))`), which only a section's final unlock can carry.
    const clang::CallExpr *checkedUnlock(
        const clang::Stmt *S,
        std::vector<std::pair<const clang::VarDecl *, int64_t>> *Assigned = nullptr) const;
    /// The note of a converted section that drops the check of Call's result.
    void noteDroppedCheck(CriticalSection &CS, const clang::CallExpr *Call,
                          const clang::VarDecl *Stored = nullptr) const;
    /// `rc = pthread_mutex_lock(&m);` or `int rc = ...;` (rc a local integer): the lock call,
    /// and rc in Var. The section starts there (with the check `if (rc) fail;` right after it,
    /// when there is one); the call site sets rc to 0.
    const clang::CallExpr *storedLock(const clang::Stmt *S, const clang::VarDecl *&Var) const;
    /// The same for an operation Op (a stored unlock ends a section).
    const clang::CallExpr *storedOperation(const clang::Stmt *S, LockOp Op,
                                           const clang::VarDecl *&Var) const;
    /// A section entered with a timed lock: refuse it (CS.Refused) where its lock statement
    /// (LockStmt) cannot stay at the call site with the real result, or its body cannot also run
    /// in place (CriticalSection::Timed): a call written in a macro, a body that reads what the
    /// lock statement sets (its stored or assigned result) or that declares a static.
    void refuseTimedProblems(CriticalSection &CS, const clang::Stmt *LockStmt) const;
    /// The call site's `rc = 0;` (or `int rc = 0;`) for a stored lock result.
    void storeSuccess(CriticalSection &CS, const clang::Stmt *LockStmt, const clang::VarDecl *Var);
    /// The unlock Node (in P) is the first statement of a macro's `do { unlock; return v; }
    /// while (0)` followed only by return or goto: that do statement, with the printed
    /// statements after the unlock in Jump. Nothing, with Jump set to a reason, when other
    /// code follows the unlock in such a macro.
    const clang::DoStmt *unlockAndLeaveMacro(const clang::Stmt *Node, const clang::Stmt *P,
                                             std::string &Jump) const;
    /// Whether the value a lock call returns is used (not discarded by `(void)`, a statement
    /// or the left operand of a comma).
    bool resultUsed(const clang::CallExpr *Call) const;
    /// The line of Loc in the file (a macro's use for a location inside its expansion).
    unsigned lineOf(clang::SourceLocation Loc) const;
    /// "the critical section is written inside a macro expansion", naming the macro of Loc.
    std::string insideMacro(clang::SourceLocation Loc) const;
    /// " (in macro 'M')" when Loc comes from the expansion of macro M, else "".
    std::string macroNote(clang::SourceLocation Loc) const;
    /// The range of a statement (a mutex operation or another), also when a macro spells it
    /// with its own `;`, provided no sibling statement comes from the same expansion.
    std::optional<TextRange> operationRange(const clang::Stmt *S, const clang::Stmt *Parent) const;
    Refusal refuse(std::string Reason, clang::SourceLocation Loc) const {
        return Refusal{std::move(Reason), Loc};
    }
    /// A refusal for code written inside a macro use, which rcl-cc's copy may expand.
    Refusal refuseInMacro(std::string Reason, clang::SourceLocation Loc) const {
        Refusal R{std::move(Reason), Loc};
        R.Resolve = Resolution::ExpandMacros;
        return R;
    }

    clang::ASTContext &Ctx;
    const LockApi &Api;
    const SourceText &Text;
    bool ResolvedCopy = false;
};

} // namespace rcl

#endif
