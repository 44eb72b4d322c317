//===- CalleeFacts.h - what the functions a critical section calls do ------===//
#ifndef RCL_REWRITER_CALLEEFACTS_H
#define RCL_REWRITER_CALLEEFACTS_H

#include "CriticalSection.h"
#include "LockApi.h"
#include "ProjectFacts.h"
#include "clang/AST/ASTContext.h"
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
    /// Unit: this unit's key (ProjectFacts::unitKey).
    CalleeFacts(clang::ASTContext &Ctx, const LockApi &Api, const ProjectFacts *Project,
                bool RequireFacts, std::string Unit)
        : Ctx(Ctx), Api(Api), Project(Project), RequireFacts(RequireFacts), Unit(std::move(Unit)),
          Changed([this](const clang::VarDecl *V) { return changed(V); }) {}

    /// Constant arguments a function is called with, by parameter index (sorted): the branches
    /// they decide are left out of its facts (jemalloc's `arena_get(tsdn, ind, false)`, whose
    /// `if (init_if_missing) arena_init(...)` never runs from such a call).
    using Constants = std::vector<std::pair<unsigned, int64_t>>;
    /// What one function of the translation unit does directly (called with some constants).
    struct FunctionFacts {
        std::vector<const clang::CallExpr *> Waits; ///< condition waits
        bool Locks = false;                         ///< locks, trylocks or timedlocks a mutex
        /// The first thing it does that acts on or depends on the calling thread (the first
        /// one that usesCallerState does not cover, when there is one).
        std::optional<Refusal> Hazard;
        /// Defined in this TU: called, or passed to a library function that may call them (a
        /// comparator given to qsort runs inside it: callbacks).
        /// With the constants each is called with.
        std::vector<std::pair<const clang::FunctionDecl *, Constants>> Callees;
        /// The same for functions of the program defined elsewhere (isProgramFunction), with
        /// where they are called or passed.
        std::vector<std::pair<const clang::FunctionDecl *, clang::SourceLocation>> External;
    };
    const FunctionFacts &facts(const clang::FunctionDecl *Def, const Constants &Args = {});
    /// A function reached, and its facts as it is reached (called with constants).
    struct Reached {
        const clang::FunctionDecl *Def;
        const FunctionFacts *Facts;
    };
    /// Fn's definition and every function of the translation unit it calls, transitively
    /// (breadth first, at most 16 calls deep), each with its facts for the constants it is
    /// called with (one function may be there several times).
    /// Args: the constants Fn is called with (callConstants).
    const std::vector<Reached> &reachable(const clang::FunctionDecl *Fn,
                                          const Constants &Args = {});
    /// The constant arguments of Call to Callee (literals, null pointers), and those of the
    /// calling function's parameters that hold constants (CallerArgs of Caller).
    Constants callConstants(const clang::CallExpr *Call, const clang::FunctionDecl *Callee,
                            const clang::FunctionDecl *Caller = nullptr,
                            const Constants &CallerArgs = {}) const;
    bool reachesLock(const clang::FunctionDecl *Fn);
    /// Why calling Callee makes a section unsafe on the server: the first thread hazard it
    /// reaches in this unit, or through the project's facts in another one ("calls 'f', which
    /// through 'g' ..."), or (RequireFacts) a function of another file whose facts are not
    /// known. Nothing when none is known.
    std::optional<Refusal> hazard(const clang::FunctionDecl *Callee, const Constants &Args = {});
    /// Whether this unit is part of the program's memory allocator, and why: it defines
    /// `malloc`, `free` or another allocation function of the C library (with external linkage,
    /// so the program's calls reach it), or the project's facts say a unit that may share a
    /// program with it does. librcl allocates while it starts, so the sections of such a unit
    /// call rcl_delegate_allocator, which never starts it, and the unit starts it from a
    /// constructor (SectionEmitter, RewriteAction). Nothing for any other unit. Computed once.
    struct AllocatorUnit {
        std::string Where; ///< "this file defines 'malloc' (line N)", "another file of ..."
        bool Defines;      ///< this unit defines the function (not known from the facts)
    };
    const std::optional<AllocatorUnit> &allocatorUnit();
    /// This unit's facts for ProjectFacts::save: each function with external linkage defined
    /// in the main file and each address-taken function it defines, and the address-taken
    /// functions with their types.
    ProjectFacts::UnitFacts exported();

    /// The mutex of a mutex operation (through a wrapper's definition where it has one), in
    /// the terms of the function the call is written in.
    MutexPath mutexPath(const MutexRef &Mutex) const;
    /// What Def does (Effect), the functions of this unit that it calls included, in its
    /// terms: its parameters, its locals, the program's globals.
    const std::vector<Effect> &effects(const clang::FunctionDecl *Def);
    /// What one call does, in the terms of the function In that makes it.
    std::vector<Effect> callEffects(const clang::CallExpr *Call, const std::string &In);
    /// The functions of the program that Call, a call of a library function, is given as
    /// arguments (a comparator given to qsort): they may run inside it.
    std::vector<const clang::FunctionDecl *> callbacks(const clang::CallExpr *Call) const;

    /// What a section whose lock is Lock (in the terms of the section's function; LockName as
    /// reported) must know about one call of its body: a callee, transitively through this
    /// unit, the facts of other units and calls through pointers (whose targets are the
    /// program's address-taken functions of a compatible type), that takes the section's lock
    /// again, releases it (or a mutex it did not take that may be it), waits on a condition
    /// with it in another file (where it cannot become rcl_cond_wait), or reaches a thread
    /// hazard through a pointer; or, with RequireFacts, one whose facts are not known yet.
    struct Verdict {
        std::optional<Refusal> Refused;
        std::vector<std::string> Notes; ///< to add to a conversion ("converted critical section
                                        ///< calls ...")
        /// Functions of this unit that the call may reach through a pointer (their waits are
        /// renamed as a callee's are).
        std::vector<const clang::FunctionDecl *> LocalTargets;
        /// The first use of the calling thread's state in the C library (usesCallerState)
        /// that the effects reach, when nothing refuses.
        std::optional<std::string> CallerState;
        bool Waits = false; ///< a function it reaches waits on a condition variable
    };
    /// Held: the mutexes (MutexPath::key) taken so far in the section, in the order of its
    /// text, by its own lock calls and its callees; a callee's unlock of one of them pairs
    /// with it. PlainLock: the section's mutex is a plain one (plainMutex), which a callee
    /// cannot take again without deadlocking the original: such a take is no reason to refuse.
    Verdict judge(const clang::CallExpr *Call, const MutexPath &Lock, const std::string &LockName,
                  std::vector<std::string> &Held, bool PlainLock);
    /// Whether the facts say Mutex is plain (ProjectFacts::plainMutex).
    bool plainMutex(const MutexRef &Mutex) const;
    /// What names a mutex across the program for its initializations: a variable's path
    /// (`g:stats_lock`, `g:item_locks []` for an array's elements), a member of a structure
    /// (`field:struct mosquitto.callback_mutex`), a declared wrapper pair (`w:item_lock`).
    /// Empty for anything else. Pointer: the mutex's address (`&x`, `&p->m`).
    std::string mutexKey(const clang::Expr *Pointer) const;

    /// A function type in the facts' form (compatibleSignatures); empty for anything else.
    static std::string signature(clang::QualType T);
    /// The signature Fn may be called through: its type's, or for a definition without a
    /// prototype (K&R) its parameters after the default argument promotions.
    static std::string signature(const clang::FunctionDecl *Fn);
    /// This unit's key.
    const std::string &unit() const { return Unit; }

  private:
    struct Judgement;
    /// Whether V's function assigns it after its declaration or takes its address.
    bool changed(const clang::VarDecl *V);
    /// The mutexes this unit initializes, and whether as plain ones (UnitFacts::Mutexes).
    std::map<std::string, bool> mutexInits();
    /// The address-taken functions of the unit, with the signatures they may be called as
    /// (their own, and the function pointer types they are cast to).
    const std::map<const clang::FunctionDecl *, std::set<std::string>> &taken();
    /// The first thread hazard Fn reaches in this unit, described as "[through 'g' ]<reason>
    /// (file:line)", at the hazard's location.
    std::optional<Refusal> localHazard(const clang::FunctionDecl *Fn, const Constants &Args = {});

    clang::ASTContext &Ctx;
    const LockApi &Api;
    const ProjectFacts *Project;
    bool RequireFacts;
    std::map<std::pair<const clang::FunctionDecl *, Constants>, FunctionFacts> Facts;
    std::map<std::pair<const clang::FunctionDecl *, Constants>, std::vector<Reached>> Reachable;
    std::string Unit;
    std::optional<std::optional<AllocatorUnit>> Allocator; ///< allocatorUnit, once computed
    std::map<const clang::FunctionDecl *, std::vector<Effect>> Effects;
    std::set<const clang::FunctionDecl *> InProgress; ///< effects being computed (recursion)
    std::optional<std::map<const clang::FunctionDecl *, std::set<std::string>>> Taken;
    ChangedVariables Changed;
    std::map<const clang::DeclContext *, std::set<const clang::VarDecl *>> ChangedIn;
};

/// The hint appended to a refusal that waits for other files' facts.
extern const char *const FactsHint;

} // namespace rcl

#endif
