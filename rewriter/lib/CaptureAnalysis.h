//===- CaptureAnalysis.h - what a critical section's body needs to move -----===//
#ifndef RCL_REWRITER_CAPTUREANALYSIS_H
#define RCL_REWRITER_CAPTUREANALYSIS_H

#include "CalleeFacts.h"
#include "CriticalSection.h"
#include "LockApi.h"
#include "clang/AST/ASTContext.h"
#include <map>
#include <set>

namespace rcl {

/// The librcl call that replaces a condition wait on the section's own mutex inside a delegated
/// section (rcl_cond_wait, rcl_cond_timedwait, rcl_cond_clockwait): the one switch that turns
/// such waits into edits. Returning nothing would refuse every section that waits.
std::optional<std::string> delegatedConditionWait(const clang::CallExpr *Wait, LockOp Op);

/// Decides, for one critical section found by SectionFinder, how every variable its body uses
/// reaches the outlined function (by value or by pointer), which declarations move before the
/// call site, and which constructs make the section unsafe to run on another thread. Fills
/// Captures, Hoists and BodyEdits, or sets Refused. Its definitions live in two files by
/// concern: CaptureAnalysis.cpp (captures, hoists, the lock expression) and SectionChecks.cpp
/// (hazards, waits, exits, tails, labels); what callees do is CalleeFacts.
class CaptureAnalysis {
  public:
    /// NoNestedLocks: also refuse sections that take another mutex, directly or through a
    /// function of this translation unit (see docs/rewriter.md, "Nested locks").
    /// Callees: the facts of the unit's functions (shared by its sections' analyses).
    CaptureAnalysis(clang::ASTContext &Ctx, const LockApi &Api, const SourceText &Text,
                    CalleeFacts &Callees, bool NoNestedLocks, const clang::FunctionDecl *Fn);

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
    /// `va_start(ap, last)` inside the section: a copy of the list the call site starts
    /// (CriticalSection::VaStart), or a refusal.
    void vaStartCopy(CriticalSection &CS, const clang::CallExpr *Call);
    void checkHazard(CriticalSection &CS, const clang::Stmt *S);
    /// Whether Offset lies in the part of the section that runs with the lock held (the body
    /// without its exits' unlocks and tails).
    bool heldAt(const CriticalSection &CS, std::optional<unsigned> Offset) const;
    /// A label inside the section: every goto to it must come from where the lock is held.
    void checkLabel(CriticalSection &CS, const clang::LabelStmt *Label);
    bool isRead(const clang::DeclRefExpr *Ref) const;
    /// Whether only Ref's address is used (`&m`, `&s.m`, `&locks[i]`), not its value.
    bool addressOnly(const clang::DeclRefExpr *Ref) const;
    bool usesLocalType(clang::QualType T, const CriticalSection &CS) const;
    bool declaredInBody(const CriticalSection &CS, const clang::Decl *D) const;
    const clang::Stmt *jumpTarget(const clang::Stmt *Jump) const;
    const clang::Stmt *parent(const clang::Stmt *S) const;
    /// The edit that renames Wait's callee to Replacement; nothing with Why empty when it is
    /// already that call, nothing with Why set when the name cannot be edited.
    std::optional<TextEdit> renameWait(const clang::CallExpr *Wait, llvm::StringRef Replacement,
                                       std::string &Why) const;
    /// The section calls Callee, which may reach condition waits: the section converts anyway
    /// (a blocked servicing thread hands the server's polling role over), the waits are
    /// renamed to rcl_cond_* where they can be edited, and a note says what happened.
    void calleeWaits(CriticalSection &CS, const clang::FunctionDecl *Callee,
                     clang::SourceLocation Loc);
    /// The section calls Callee, which (directly, through further calls of the translation
    /// unit, or through the project's facts of other units) uses thread-local state or acts on
    /// the calling thread: refused.
    void calleeHazards(CriticalSection &CS, const clang::FunctionDecl *Callee,
                       clang::SourceLocation Loc, const clang::CallExpr *Call = nullptr);
    /// What the call does to the section's lock, through its callees, the facts of other
    /// files and calls through pointers (CalleeFacts::judge): a callee that releases or
    /// retakes the lock, waits with it in another file, or a pointer whose targets are unsafe
    /// or not known refuses the section.
    void calleeEffects(CriticalSection &CS, const clang::CallExpr *Call, clang::SourceLocation Loc);
    /// A refusal that waits for other files' facts: recorded unless a definite reason came
    /// first, with every function without facts it names.
    void waitForFacts(CriticalSection &CS, const Refusal &Why, clang::SourceLocation Loc);
    /// A goto from the section to a label after it whose first statement unlocks the
    /// section's mutex: recorded as an exit (CriticalSection::UnlockedLabels).
    bool gotoReleasingLabel(CriticalSection &CS, const clang::GotoStmt *Goto);
    void refuse(CriticalSection &CS, std::string Reason, clang::SourceLocation Loc,
                Resolution Resolve = Resolution::None);

    clang::ASTContext &Ctx;
    const LockApi &Api;
    const SourceText &Text;
    std::map<const clang::VarDecl *, std::vector<Use>> UsesInFunction;
    std::set<const clang::VarDecl *> AddressTaken;
    /// Every goto of the function, by target; labels whose address is taken (`&&l`).
    std::map<const clang::LabelDecl *, std::vector<const clang::GotoStmt *>> GotosTo;
    std::set<const clang::LabelDecl *> LabelAddressTaken;
    CalleeFacts &Callees;
    bool NoNestedLocks;
    // Per section being analysed:
    std::map<const clang::VarDecl *, std::vector<const clang::DeclRefExpr *>> BodyUses;
    std::set<const clang::VarDecl *> Written;
    std::set<const clang::CallExpr *> NotedWaits;
    /// Mutexes taken so far in the section's text (CalleeFacts::judge).
    std::vector<std::string> Held;
};

} // namespace rcl

#endif
