//===- CaptureAnalysis.h - what a critical section's body needs to move -----===//
#ifndef RCL_REWRITER_CAPTUREANALYSIS_H
#define RCL_REWRITER_CAPTUREANALYSIS_H

#include "CriticalSection.h"
#include "LockApi.h"
#include "clang/AST/ASTContext.h"
#include <map>
#include <set>

namespace rcl {

/// Whether a condition wait on the section's own mutex can run inside a delegated section.
/// The one switch to flip when the runtime offers `rcl_cond_wait`/`rcl_cond_timedwait`:
/// returning the replacement function's name turns such waits into edits instead of refusals.
std::optional<std::string> delegatedConditionWait(LockOp Op);

/// Decides, for one critical section found by SectionFinder, how every variable its body uses
/// reaches the outlined function (by value or by pointer), which declarations move before the
/// call site, and which constructs make the section unsafe to run on another thread. Fills
/// Captures, Hoists and BodyEdits, or sets Refused.
class CaptureAnalysis {
  public:
    /// NoNestedLocks: also refuse sections that take another mutex, directly or through a
    /// function of this translation unit (see docs/rewriter.md, "Nested locks").
    CaptureAnalysis(clang::ASTContext &Ctx, const LockApi &Api, const SourceText &Text,
                    bool NoNestedLocks, const clang::FunctionDecl *Fn);

    void analyse(CriticalSection &CS);

  private:
    struct Use {
        const clang::DeclRefExpr *Ref;
        unsigned Offset;
    };
    bool excluded(const CriticalSection &CS, unsigned Offset) const;
    bool inTail(const CriticalSection &CS, unsigned Offset) const;
    void scanBody(CriticalSection &CS, const clang::Stmt *S);
    void checkTails(CriticalSection &CS);
    void checkHazard(CriticalSection &CS, const clang::Stmt *S);
    bool isRead(const clang::DeclRefExpr *Ref) const;
    bool usesLocalType(clang::QualType T, const CriticalSection &CS) const;
    bool declaredInBody(const CriticalSection &CS, const clang::Decl *D) const;
    const clang::Stmt *jumpTarget(const clang::Stmt *Jump) const;
    const clang::Stmt *parent(const clang::Stmt *S) const;
    /// Whether Fn, or a function of this translation unit that it calls, waits on a condition
    /// variable: run on a server, such a wait would block every section the server serves.
    enum class Reach { ConditionWait, MutexLock };
    /// Whether Fn, or a function of this translation unit that it calls, waits on a condition
    /// variable (run on a server, the wait would block every section the server serves) or
    /// takes a mutex.
    bool reaches(const clang::FunctionDecl *Fn, Reach What, unsigned Depth);
    void refuse(CriticalSection &CS, std::string Reason, clang::SourceLocation Loc);

    clang::ASTContext &Ctx;
    const LockApi &Api;
    const SourceText &Text;
    std::map<const clang::VarDecl *, std::vector<Use>> UsesInFunction;
    std::set<const clang::VarDecl *> AddressTaken;
    std::map<const clang::FunctionDecl *, bool> Waits, Locks;
    bool NoNestedLocks;
    // Per section being analysed:
    std::map<const clang::VarDecl *, std::vector<const clang::DeclRefExpr *>> BodyUses;
    std::set<const clang::VarDecl *> Written;
};

} // namespace rcl

#endif
