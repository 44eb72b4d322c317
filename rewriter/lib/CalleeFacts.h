//===- CalleeFacts.h - what the functions a critical section calls do ------===//
#ifndef RCL_REWRITER_CALLEEFACTS_H
#define RCL_REWRITER_CALLEEFACTS_H

#include "CriticalSection.h"
#include "LockApi.h"
#include "clang/AST/ASTContext.h"
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// What in S would behave differently on the server's thread (a call acting on or depending on
/// the calling thread, a thread-local variable), with the reason. InCallee: S is in a function
/// the section calls, whose own frame (alloca, va_start, a setjmp it returns to) stays its own.
std::optional<std::string> threadHazard(const clang::Stmt *S, bool InCallee);

/// What functions of other translation units do, as far as a section that calls them must
/// know: their thread hazards and the functions of other units they call. Written by
/// rcl-rewrite --facts-dir for every function with external linkage of each unit it reads
/// (DIR/<main file>.facts), read back for calls of functions that a unit only declares, so that
/// a section calling into another file that uses pthread_getspecific (memcached's LOGGER_LOG)
/// is refused instead of crashing on the server. Facts of units not yet read are unknown:
/// rcl-rewrite --dry-run --facts-dir over all sources first makes them complete.
class ProjectFacts {
  public:
    struct Entry {
        std::string Hazard;             ///< reason, with where (empty: none)
        std::vector<std::string> Calls; ///< functions of other units it may call
    };
    /// A declared wrapper pair whose two definitions are in one unit, keyed `lock/unlock`: what
    /// the other units' sections through it may do. WhyNot: empty when they delegate (the unit
    /// writes the pair's mutex getter, or the pair is exactly a lock and an unlock of its first
    /// argument), else why they cannot (the wrappers do more than lock and unlock). Via: a pair
    /// (`lock/unlock` of other wrappers) whose getter this pair's getter calls (a wrapper chain:
    /// `my_lock(l) { plat_lock(l); }`); empty when none.
    struct PairFacts {
        std::string WhyNot;
        std::string Via;
    };
    /// Reads every *.facts file of Dir (a missing directory is no facts).
    void load(const std::string &Dir);
    /// Adds (or replaces) the facts of one unit just read.
    void add(const std::map<std::string, Entry> &Entries,
             const std::map<std::string, PairFacts> &UnitPairs = {});
    /// Replaces Unit's facts file in Dir with Entries and UnitPairs (written atomically).
    static bool save(const std::string &Dir, const std::string &Unit,
                     const std::map<std::string, Entry> &Entries,
                     const std::map<std::string, PairFacts> &UnitPairs, std::string &Error);
    /// For a declared pair defined in another unit: nothing when no unit's facts hold it (or
    /// a pair it chains to: its `lock/unlock` in Missing); "" when its sections delegate; else
    /// why they cannot ("through 'plat_lock/plat_unlock': ..." for a chain).
    std::optional<std::string> pairDelegates(const std::string &Lock, const std::string &Unlock,
                                             std::string *Missing = nullptr) const;
    /// Whether Name's facts are known (a function of a unit that was read).
    bool knows(const std::string &Name) const { return Functions.count(Name) != 0; }
    /// For a function defined in another unit: the first hazard it reaches through the facts,
    /// as "through 'g' <reason>" (or "<reason>" when it is its own); nothing when none is known.
    std::optional<std::string> hazard(const std::string &Name) const;
    /// For a function defined in another unit: the first function it reaches through the facts
    /// (itself included) whose facts are not known, as "is defined in another file whose facts
    /// are not known" or "through 'g' calls 'h', whose facts are not known"; nothing when all
    /// are known.
    std::optional<std::string> unknown(const std::string &Name) const;
    /// Every function reached from Name through the facts (itself included) whose facts are
    /// not known, added to Out.
    void unknownAll(const std::string &Name, std::set<std::string> &Out) const;
    bool empty() const { return Functions.empty(); }

  private:
    /// Breadth first over the facts from Name: the first function for which Stop says
    /// something, with the first step of the way there (empty when it is Name itself).
    std::optional<std::string>
    search(const std::string &Name,
           const std::function<std::optional<std::string>(const std::string &Fn, const Entry *Facts,
                                                          const std::string &Via)> &Stop) const;

    std::map<std::string, Entry> Functions;
    std::map<std::string, PairFacts> Pairs;
};

/// Whether Fn is a function of the program, whose facts another unit may hold: not a builtin,
/// not declared in a system header (libc's and other libraries' functions are judged by name
/// where they are called, threadHazard).
bool isProgramFunction(const clang::FunctionDecl *Fn);

/// The facts of one translation unit's functions, computed once per unit and shared by the
/// analyses of its sections.
class CalleeFacts {
  public:
    /// RequireFacts: a call into another file whose facts Project does not hold is a hazard
    /// (Refusal::WaitsForFacts).
    CalleeFacts(clang::ASTContext &Ctx, const LockApi &Api, const ProjectFacts *Project,
                bool RequireFacts)
        : Ctx(Ctx), Api(Api), Project(Project), RequireFacts(RequireFacts) {}

    /// What one function of the translation unit does directly.
    struct FunctionFacts {
        std::vector<const clang::CallExpr *> Waits; ///< condition waits
        bool Locks = false;                         ///< locks, trylocks or timedlocks a mutex
        /// The first thing it does that acts on or depends on the calling thread.
        std::optional<Refusal> Hazard;
        std::vector<const clang::FunctionDecl *> Callees; ///< defined in this TU
        /// calls of functions of the program defined elsewhere (isProgramFunction)
        std::vector<const clang::CallExpr *> External;
    };
    const FunctionFacts &facts(const clang::FunctionDecl *Def);
    /// Fn's definition and every function of the translation unit it calls, transitively
    /// (breadth first, at most 16 calls deep).
    const std::vector<const clang::FunctionDecl *> &reachable(const clang::FunctionDecl *Fn);
    bool reachesLock(const clang::FunctionDecl *Fn);
    /// Why calling Callee makes a section unsafe on the server: the first thread hazard it
    /// reaches in this unit, or through the project's facts in another one ("calls 'f', which
    /// through 'g' ..."), or (RequireFacts) a function of another file whose facts are not
    /// known. Nothing when none is known.
    std::optional<Refusal> hazard(const clang::FunctionDecl *Callee);
    /// This unit's facts for ProjectFacts::save: each function with external linkage defined
    /// in the main file.
    std::map<std::string, ProjectFacts::Entry> exported();

  private:
    /// The first thread hazard Fn reaches in this unit, described as "[through 'g' ]<reason>
    /// (file:line)", at the hazard's location.
    std::optional<Refusal> localHazard(const clang::FunctionDecl *Fn);

    clang::ASTContext &Ctx;
    const LockApi &Api;
    const ProjectFacts *Project;
    bool RequireFacts;
    std::map<const clang::FunctionDecl *, FunctionFacts> Facts;
    std::map<const clang::FunctionDecl *, std::vector<const clang::FunctionDecl *>> Reachable;
};

} // namespace rcl

#endif
