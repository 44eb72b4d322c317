//===- ProjectFacts.h - what the functions of other files do ---------------===//
#ifndef RCL_REWRITER_PROJECTFACTS_H
#define RCL_REWRITER_PROJECTFACTS_H

#include "MutexPath.h"
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rcl {

/// One thing a function does that a critical section calling it must know, in the function's
/// terms (MutexPath: its parameters, the program's globals), in the order of its text. A
/// function's effects include those of the functions of its file that it calls (translated
/// into its terms); a call of a function of another file, or through a pointer, is an effect
/// of its own, followed where the facts of the other file are known.
struct Effect {
    enum class Kind {
        Take,         ///< locks a mutex (blocking, or with a timeout)
        TryTake,      ///< trylocks one
        Release,      ///< unlocks one that it did not take itself (an unlock paired with a
                      ///< take before it in the same function is left out)
        Wait,         ///< waits on a condition variable with a mutex
        Call,         ///< calls a function of another file (Name: its facts key)
        IndirectCall, ///< calls through a pointer (Name: the pointer type's signature)
    };
    Kind K = Kind::Call;
    MutexPath Mutex;             ///< Take .. Wait
    std::string Name;            ///< Wait: the wait's function; Call, IndirectCall: see Kind
    std::vector<MutexPath> Args; ///< Call, IndirectCall: the arguments
    std::string Pointer;         ///< IndirectCall: the pointer as written (`t->run`)
    std::string In;              ///< the function whose text holds it
    std::string Where;           ///< `file:line`

    /// Mutex and Args with parameter I replaced by Args[I] (MutexPath::substitute).
    Effect substitute(const std::vector<MutexPath> &CallArgs) const;
    /// Identifies an effect among a function's (kind, paths, name, where).
    std::string key() const;
};

/// A function type as the facts compare it: `ret|param,param` with canonical, unqualified
/// types (`void|struct task *`), `,...` for a variadic one, `ret|?` for one without a
/// prototype (which any prototype with that return type may call, as C allows).
bool compatibleSignatures(const std::string &A, const std::string &B);

/// What functions of other translation units do, as far as a section that calls them must
/// know: their thread hazards, the functions of other units they call, their effects (the
/// mutexes they take, release and wait on, their calls with arguments, their calls through
/// pointers), whether the sections through the declared wrapper pairs they define delegate,
/// and which functions of the program have their address taken, with their type:
/// the possible targets of a call through a pointer. Written by rcl-rewrite --facts-dir for
/// every function with external linkage and every address-taken function of each unit it reads
/// (DIR/<unit>.facts, one JSON object a line), read back for calls of functions that a unit
/// only declares and for calls through pointers. Facts of units not yet read are unknown:
/// rcl-rewrite --dry-run --facts-dir over all sources first makes them complete, and a
/// directory whose file `complete` exists (`rcl build` writes it once every file of the build
/// has its facts, or --facts-complete) says that the address-taken functions it lists are all
/// the program's: only then is a call through a pointer judged by its targets. Its file
/// `programs.json` says which units may run in one program (of a build that links several).
class ProjectFacts {
  public:
    struct Entry {
        std::string Name;               ///< as written (a static function's key adds its unit)
        std::string Unit;               ///< the unit that defines it (unitKey)
        std::string Hazard;             ///< reason, with where (empty: none)
        std::vector<std::string> Calls; ///< keys of the functions of other units it may call
        std::vector<Effect> Effects;
        bool Library = false; ///< a library function whose address the program takes
        /// The program's own definition of one of the C library's allocation functions
        /// (`malloc`, `free`, ...: CalleeFacts::allocatorUnit).
        bool Allocator = false;
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
    /// What one unit's facts file holds: its functions by key, and the address-taken functions
    /// it saw (key, signature), its own and others'.
    struct UnitFacts {
        std::string Unit; ///< its key (unitKey)
        std::map<std::string, Entry> Functions;
        std::vector<std::pair<std::string, std::string>> Taken;
        /// The mutexes it initializes (CalleeFacts::mutexKey), and whether as plain mutexes
        /// (PTHREAD_MUTEX_INITIALIZER, pthread_mutex_init with no attributes).
        std::map<std::string, bool> Mutexes;
        /// The declared wrapper pairs it defines, by `lock/unlock`.
        std::map<std::string, PairFacts> Pairs;
    };

    /// The key of a unit (its main file's real path, as a file name).
    static std::string unitKey(const std::string &RealPath);
    /// The facts key of a function: its name, or for one with internal linkage
    /// `name@unit`.
    static std::string functionKey(const std::string &Name, bool Internal, const std::string &Unit);

    /// Reads every *.facts file of Dir (a missing directory is no facts), and whether the
    /// directory says it is complete.
    void load(const std::string &Dir);
    /// Adds (or replaces) the facts of one unit just read.
    void add(const UnitFacts &Unit);
    /// Replaces Unit's facts file in Dir with Facts (written atomically).
    static bool save(const std::string &Dir, const std::string &Unit, const UnitFacts &Facts,
                     std::string &Error);
    void setComplete(bool C) { Complete = C; }
    /// Whether the address-taken functions known are all those of the program.
    bool complete() const { return Complete; }

    const Entry *find(const std::string &Key) const;
    /// Whether every initialization of the mutex Key that the facts know makes a plain mutex
    /// (not recursive, not error-checking), and there is one.
    bool plainMutex(const std::string &Key) const;
    /// The keys of the address-taken functions whose type a call through a pointer of
    /// signature Sig may reach, in a program that holds the unit From: where the directory
    /// says which units the build links together (programs.json, written by `rcl build`), those
    /// whose address is taken in a unit that may share a program with From.
    std::vector<std::string> targets(const std::string &Sig, const std::string &From) const;
    /// Whether the units From and Other may be linked into one program (programs.json; any two
    /// when the directory does not say).
    bool mayShareProgram(const std::string &From, const std::string &Other) const;

    /// For a declared pair defined in another unit: nothing when no unit's facts hold it (or
    /// a pair it chains to: its `lock/unlock` in Missing); "" when its sections delegate; else
    /// why they cannot ("through 'plat_lock/plat_unlock': ..." for a chain).
    std::optional<std::string> pairDelegates(const std::string &Lock, const std::string &Unlock,
                                             std::string *Missing = nullptr) const;

    /// For a function defined in another unit: the first hazard it reaches through the facts,
    /// as "through 'g' <reason>" (or "<reason>" when it is its own); nothing when none is known.
    std::optional<std::string> hazard(const std::string &Name) const;
    /// For a function defined in another unit: the first function it reaches through the facts
    /// (itself included) whose facts are not known, as "is defined in another file whose facts
    /// are not known", "calls 'h', whose facts are not known" (Name calls it) or "through 'g'
    /// calls 'h', whose facts are not known"; nothing when all are known.
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
    void merge(const std::string &Key, const Entry &E, bool Replace);

    std::map<std::string, Entry> Functions;
    /// signature -> (key, the unit that takes its address)
    std::map<std::string, std::set<std::pair<std::string, std::string>>> Taken;
    /// unit -> the units that may share a program with it (programs.json)
    std::map<std::string, std::set<std::string>> Programs;
    std::map<std::string, bool> Mutexes;    ///< UnitFacts::Mutexes, of every unit
    std::map<std::string, PairFacts> Pairs; ///< UnitFacts::Pairs, of every unit (mergePair)
    /// Adds one unit's facts of a pair: where several units define it, the one whose sections
    /// delegate.
    void mergePair(const std::string &Key, const PairFacts &P);
    bool Complete = false;
};

} // namespace rcl

#endif
