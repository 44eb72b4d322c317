//===- CalleeFacts.cpp - what the functions a critical section calls do ----===//
#include "CalleeFacts.h"
#include "CallerState.h"
#include "StmtWalk.h"

#include "clang/AST/Attr.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <functional>
#include <set>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

using namespace clang;

namespace rcl {

static const char SignalState[] = "changes or uses the calling thread's signal state";

/// What calling the function Name does to or with the calling thread, judged by the name alone
/// (threadIdentityReason adds what depends on the arguments and the spelling). InCallee: see
/// threadIdentityReason. errno is not here: the runtime carries the client's errno into every
/// delegated call and the server's back out (docs/rewriter.md, "Thread identity").
static std::optional<std::string> namedHazard(StringRef Name, bool InCallee) {
    // What the C library keeps in the calling thread's control block: the server runs such a
    // section with its caller's (usesCallerState).
    if (Name == "pthread_self") return std::string("uses its thread's pthread_self");
    if (Name == "pthread_getspecific" || Name == "pthread_setspecific")
        return "uses its thread's thread-specific data (" + Name.str() + ")";
    // The kernel's: librcl answers it for a section run as its caller where the program's
    // links let it (setLibrclAnswersThreadQueries).
    if (Name == "gettid") return std::string("asks its thread's kernel id (gettid)");
    if (Name == "pthread_exit") return std::string("depends on the calling thread's identity");
    // A section run as its caller runs with the caller's cancellation disabled.
    if (Name == "pthread_setcancelstate" || Name == "pthread_setcanceltype" ||
        Name == "pthread_testcancel")
        return std::string("changes or uses the calling thread's cancellation state");
    // Attributes of the calling thread: its name, CPU affinity, priority, scheduling policy,
    // namespaces.
    if (Name == "prctl" || Name == "sched_setaffinity" || Name == "sched_getaffinity" ||
        Name == "setpriority" || Name == "getpriority" || Name == "nice" ||
        Name == "sched_setscheduler" || Name == "sched_getscheduler" || Name == "sched_setparam" ||
        Name == "sched_getparam" || Name == "sched_setattr" || Name == "sched_getattr" ||
        Name == "unshare" || Name == "setns" || Name == "ioprio_set" || Name == "ioprio_get" ||
        // (on its own thread, the C library names it with prctl, on the kernel's thread)
        Name == "pthread_setname_np" || Name == "pthread_getname_np")
        return "acts on the calling thread (" + Name.str() + "), which would be the server";
    if (Name == "pthread_sigmask" || Name == "sigprocmask" || Name == "sigsuspend" ||
        Name == "sigwait" || Name == "sigwaitinfo" || Name == "sigtimedwait" ||
        Name == "sigpending" || Name == "sigaltstack" || Name == "raise" || Name == "pause" ||
        Name == "sighold" || Name == "sigrelse" || Name == "sigpause" || Name == "siginterrupt")
        return std::string(SignalState);
    if (Name == "longjmp" || Name == "_longjmp" || Name == "siglongjmp" ||
        (!InCallee &&
         (Name == "setjmp" || Name == "_setjmp" || Name == "sigsetjmp" || Name == "__sigsetjmp")))
        return std::string("uses setjmp/longjmp, which cannot cross threads");
    if (!InCallee && (Name == "alloca" || Name == "__builtin_alloca"))
        return std::string("uses alloca, whose memory would live on the server's stack");
    if (Name == "pthread_create")
        return std::string("creates a thread, which would inherit the server's CPU affinity and "
                           "signal mask");
    if (Name == "fork" || Name == "vfork")
        return std::string("forks, and the child would be a copy of the server thread");
    if (Name == "syscall")
        return std::string("acts on the calling thread (syscall), which would be the server");
    return std::nullopt;
}

/// The value of Call's first argument when it is a constant (`SYS_gettid`,
/// `CLOCK_THREAD_CPUTIME_ID`).
static std::optional<int64_t> constantFirstArgument(const CallExpr *Call) {
    const Expr *Arg = Call->getNumArgs() ? Call->getArg(0) : nullptr;
    Expr::EvalResult Value;
    if (!Arg || Arg->isValueDependent() ||
        !Arg->EvaluateAsInt(Value, Call->getDirectCallee()->getASTContext()) || !Value.Val.isInt())
        return std::nullopt;
    return Value.Val.getInt().getExtValue();
}

/// Calls whose behaviour depends on the thread that makes them, with the reason. InCallee: the
/// call is in a function the section calls, whose own frame (alloca, va_start, a setjmp it
/// returns to) stays its own; what acts on the calling thread still acts on the server.
static std::optional<std::string> threadIdentityReason(const CallExpr *Call, bool InCallee) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier()) return std::nullopt;
    StringRef Name = Callee->getName();
    if (Name == "syscall") {
        // syscall(SYS_gettid) and the raw forms of the calls namedHazard knows.
        if (std::optional<int64_t> Number = constantFirstArgument(Call)) {
            int64_t N = *Number;
            if (N == SYS_gettid) return std::string("asks its thread's kernel id (gettid)");
            if (N == SYS_prctl || N == SYS_sched_setaffinity || N == SYS_sched_getaffinity ||
                N == SYS_setpriority || N == SYS_sched_setscheduler || N == SYS_sched_setparam)
                return std::string("acts on the calling thread (syscall), which would be the "
                                   "server");
            if (N == SYS_rt_sigprocmask || N == SYS_rt_sigsuspend || N == SYS_rt_sigtimedwait ||
                N == SYS_sigaltstack)
                return std::string(SignalState);
        }
        return std::nullopt;
    }
    // The calling thread's name, prctl(PR_GET_NAME, buf): librcl answers it for a section run as
    // its caller where the program's links let it (setLibrclAnswersThreadQueries); any other
    // prctl acts on the server (namedHazard).
    if (Name == "prctl" && constantFirstArgument(Call) == PR_GET_NAME)
        return std::string("asks its thread's name (prctl PR_GET_NAME)");
    // The calling thread's CPU time: clock_gettime(CLOCK_THREAD_CPUTIME_ID, ...),
    // getrusage(RUSAGE_THREAD, ...): the kernel's, the server's on a server.
    if ((Name == "clock_gettime" || Name == "getrusage") && Call->getNumArgs() == 2) {
        if (constantFirstArgument(Call) ==
            (Name == "clock_gettime" ? CLOCK_THREAD_CPUTIME_ID : RUSAGE_THREAD))
            return "measures the calling thread's CPU time (" + Name.str() +
                   "), which would be the server's";
        return std::nullopt;
    }
    // glibc's pthread_cleanup_push is a macro that calls __sigsetjmp: name what the user wrote.
    if (Name == "__sigsetjmp" || Name == "_setjmp" || Name == "setjmp")
        for (SourceLocation Loc = Call->getBeginLoc(); Loc.isMacroID();) {
            const SourceManager &SM = Callee->getASTContext().getSourceManager();
            if (Lexer::getImmediateMacroName(Loc, SM, Callee->getASTContext().getLangOpts()) ==
                "pthread_cleanup_push")
                return std::string("uses pthread_cleanup_push/pop, whose handlers are the calling "
                                   "thread's (run at its cancellation, with a jump buffer that "
                                   "would live on the server's stack)");
            Loc = SM.getImmediateMacroCallerLoc(Loc);
        }
    return namedHazard(Name, InCallee);
}

std::optional<std::string> threadHazard(const Stmt *S, bool InCallee) {
    if (const auto *Call = dyn_cast<CallExpr>(S)) return threadIdentityReason(Call, InCallee);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
            if (Var->getTLSKind() != VarDecl::TLS_None)
                return "uses thread-local variable '" + Var->getNameAsString() + "'";
    return std::nullopt;
}

/// `file:line` of Loc, as messages and facts give where something is.
static std::string whereOf(const SourceManager &SM, SourceLocation Loc) {
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
    if (!P.isValid()) return "";
    return llvm::sys::path::filename(P.getFilename()).str() + ":" + std::to_string(P.getLine());
}

/// Whether every path through Def ends the process: no return, jump or label, and its last
/// statement a call of exit, _exit, _Exit, quick_exit or abort (PulseAudio's `oom()`: write a
/// message, `raise(SIGQUIT)`, `_exit(1)`).
static bool endsTheProcess(const FunctionDecl *Def) {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
    if (!Body || Body->body_empty()) return false;
    bool Leaves = false;
    walk(Body, [&](const Stmt *S) {
        Leaves |= isa<ReturnStmt, GotoStmt, IndirectGotoStmt, LabelStmt, AsmStmt>(S);
    });
    const auto *Last = dyn_cast<Expr>(Body->body_back());
    const auto *Call = Last ? dyn_cast<CallExpr>(Last->IgnoreParenCasts()) : nullptr;
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (Leaves || !Callee || !Callee->getIdentifier() || !Callee->isNoReturn()) return false;
    StringRef Name = Callee->getName();
    return Name == "exit" || Name == "_exit" || Name == "_Exit" || Name == "quick_exit" ||
           Name == "abort";
}

namespace {
/// The value Cond has in Def when its parameters hold Args' constants, where they (or the
/// constants written in it) decide it: `p`, `!p`, `p == 3`, `p != 0`, `unlikely(p)`, `a && b`,
/// `a || b`, `(code) == paUnanticipatedHostError` with `code` a constant. Nothing otherwise.
std::optional<bool> decided(const Expr *Cond, const FunctionDecl *Def,
                            const CalleeFacts::Constants &Args, const ASTContext &Ctx) {
    std::function<std::optional<int64_t>(const Expr *)> value =
        [&](const Expr *E) -> std::optional<int64_t> {
        E = E->IgnoreParenImpCasts();
        Expr::EvalResult Constant;
        if (!E->isValueDependent() && E->getType()->isIntegralOrEnumerationType() &&
            !E->HasSideEffects(Ctx) && E->EvaluateAsInt(Constant, Ctx))
            return Constant.Val.getInt().getExtValue();
        if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
            const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl());
            if (!P || P->getDeclContext() != Def) return std::nullopt;
            for (const auto &[I, V] : Args)
                if (I == P->getFunctionScopeIndex()) return V;
            return std::nullopt;
        }
        if (E->isNullPointerConstant(const_cast<ASTContext &>(Ctx),
                                     Expr::NPC_ValueDependentIsNotNull))
            return 0;
        if (const auto *Call = dyn_cast<CallExpr>(E);
            Call && Call->getBuiltinCallee() == Builtin::BI__builtin_expect &&
            Call->getNumArgs() == 2)
            return value(Call->getArg(0));
        if (const auto *Un = dyn_cast<UnaryOperator>(E); Un && Un->getOpcode() == UO_LNot) {
            std::optional<int64_t> V = value(Un->getSubExpr());
            return V ? std::optional<int64_t>(*V == 0) : std::nullopt;
        }
        if (const auto *Bin = dyn_cast<BinaryOperator>(E)) {
            std::optional<int64_t> L = value(Bin->getLHS());
            if (Bin->getOpcode() == BO_LAnd && L && !*L) return 0;
            if (Bin->getOpcode() == BO_LOr && L && *L) return 1;
            std::optional<int64_t> R = value(Bin->getRHS());
            if (Bin->getOpcode() == BO_LAnd && R && !*R) return 0; // (the walk reads `a`)
            if (Bin->getOpcode() == BO_LOr && R && *R) return 1;
            if (!L || !R) return std::nullopt;
            switch (Bin->getOpcode()) {
            case BO_EQ:
                return *L == *R;
            case BO_NE:
                return *L != *R;
            case BO_LAnd:
                return *L && *R;
            case BO_LOr:
                return *L || *R;
            default:
                return std::nullopt;
            }
        }
        return std::nullopt;
    };
    std::optional<int64_t> V = value(Cond);
    return V ? std::optional<bool>(*V != 0) : std::nullopt;
}

/// Pre-order walk of Def's body as it runs with Args' constants in its parameters: an `if` or a
/// `?:` whose condition they decide has only its condition and the branch taken visited, and
/// `a && b` (`a || b`) whose `a` they decide false (true) only `a` (PortAudio's `if ((code) ==
/// paUnanticipatedHostError && pthread_self() == mainThread_)` with a constant `code`: the call
/// never runs).
template <typename Fn>
void walkTaken(const Stmt *S, const FunctionDecl *Def, const CalleeFacts::Constants &Args,
               const ASTContext &Ctx, Fn &&Visit) {
    if (!S) return;
    Visit(S);
    if (const auto *Bin = dyn_cast<BinaryOperator>(S);
        Bin && (Bin->getOpcode() == BO_LAnd || Bin->getOpcode() == BO_LOr))
        if (std::optional<bool> Left = decided(Bin->getLHS(), Def, Args, Ctx);
            Left && *Left == (Bin->getOpcode() == BO_LOr) && !hasJumpTargetInside(Bin->getRHS()))
            return walkTaken(Bin->getLHS(), Def, Args, Ctx, Visit);
    const Expr *Cond = nullptr;
    const Stmt *Then = nullptr, *Else = nullptr;
    if (const auto *If = dyn_cast<IfStmt>(S); If && !If->getInit() && !If->getConditionVariable())
        Cond = If->getCond(), Then = If->getThen(), Else = If->getElse();
    else if (const auto *C = dyn_cast<AbstractConditionalOperator>(S))
        Cond = C->getCond(), Then = C->getTrueExpr(), Else = C->getFalseExpr();
    if (std::optional<bool> Taken = Cond ? decided(Cond, Def, Args, Ctx) : std::nullopt) {
        // (No label inside the branch left out: a goto could enter it.)
        const Stmt *Skipped = *Taken ? Else : Then;
        if (!Skipped || !hasJumpTargetInside(Skipped)) {
            walkTaken(Cond, Def, Args, Ctx, Visit);
            walkTaken(*Taken ? Then : Else, Def, Args, Ctx, Visit);
            return;
        }
    }
    for (const Stmt *Child : S->children())
        walkTaken(Child, Def, Args, Ctx, Visit);
}
} // namespace

CalleeFacts::Constants CalleeFacts::callConstants(const CallExpr *Call, const FunctionDecl *Callee,
                                                  const FunctionDecl *Caller,
                                                  const Constants &CallerArgs) const {
    Constants Out;
    for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams(); ++I) {
        const Expr *Arg = Call->getArg(I);
        Expr::EvalResult Value;
        if (Arg->isValueDependent()) continue;
        if (!Arg->HasSideEffects(Ctx) && Arg->getType()->isIntegralOrEnumerationType() &&
            Arg->EvaluateAsInt(Value, Ctx))
            Out.push_back({I, Value.Val.getInt().getExtValue()});
        else if (Arg->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
            Out.push_back({I, 0});
        else if (const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts()))
            if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl());
                P && Caller && P->getDeclContext() == Caller)
                for (const auto &[J, V] : CallerArgs)
                    if (J == P->getFunctionScopeIndex()) Out.push_back({I, V});
    }
    return Out;
}

const CalleeFacts::FunctionFacts &CalleeFacts::facts(const FunctionDecl *Def,
                                                     const Constants &Args) {
    auto Key = std::make_pair(Def, Args);
    if (auto It = Facts.find(Key); It != Facts.end()) return It->second;
    if (!Args.empty()) {
        // Only the parameters Def never assigns nor takes the address of keep their constants.
        Constants Kept;
        for (const auto &[I, V] : Args)
            if (I < Def->getNumParams() && !changed(Def->getParamDecl(I))) Kept.push_back({I, V});
        if (Kept != Args) return Facts[Key] = facts(Def, Kept);
    }
    FunctionFacts F;
    // A function that ends the process may change or use the signal state on its way (raise a
    // signal, then _exit), as abort() itself does, which any section may call: the state goes
    // with the process. What else it does is judged as anywhere.
    bool Ends = endsTheProcess(Def);
    walkTaken(Def->getBody(), Def, Args, Ctx, [&](const Stmt *S) {
        if (!F.Hazard || !finalHazard(F.Hazard->Reason))
            if (std::optional<std::string> Reason = threadHazard(S, /*InCallee=*/true))
                if (!Ends || *Reason != SignalState)
                    if (!F.Hazard || harderHazard(*Reason, F.Hazard->Reason))
                        F.Hazard = Refusal{*Reason, S->getBeginLoc()};
        const auto *Call = dyn_cast<CallExpr>(S);
        if (!Call) return;
        std::optional<LockOp> Op = Api.classify(Call);
        if (Op && isConditionWait(*Op)) F.Waits.push_back(Call);
        if (Op == LockOp::Lock || Op == LockOp::TryLock || Op == LockOp::TimedLock) F.Locks = true;
        const FunctionDecl *Callee = Call->getDirectCallee(), *CalleeDef = nullptr;
        if (Op || !Callee) return;
        if (Callee->hasBody(CalleeDef))
            F.Callees.push_back({CalleeDef, callConstants(Call, CalleeDef, Def, Args)});
        else if (isProgramFunction(Callee))
            F.External.push_back({Callee, Call->getBeginLoc()});
        else
            for (const FunctionDecl *Callback : callbacks(Call)) {
                if (Callback->hasBody(CalleeDef))
                    F.Callees.push_back({CalleeDef, {}});
                else
                    F.External.push_back({Callback, Call->getBeginLoc()});
            }
    });
    return Facts[Key] = std::move(F);
}

const std::vector<CalleeFacts::Reached> &CalleeFacts::reachable(const FunctionDecl *Fn,
                                                                const Constants &Args) {
    const FunctionDecl *Def = nullptr;
    Fn->hasBody(Def);
    std::vector<Reached> &Out = Reachable[{Fn, Args}];
    if (!Def || !Out.empty()) return Out;
    std::vector<std::pair<const FunctionDecl *, Constants>> Nodes{{Def, Args}};
    std::set<std::pair<const FunctionDecl *, Constants>> Seen{Nodes.front()};
    std::map<const FunctionDecl *, unsigned> Versions;
    // Breadth first, one level at a time, at most 16 calls deep; a function called with more
    // than 8 sets of constants is read without them past the eighth (all of its branches).
    for (size_t Level = 0, Begin = 0; Level <= 16 && Begin < Nodes.size(); ++Level) {
        size_t End = Nodes.size();
        for (size_t I = Begin; I < End; ++I)
            for (auto [Callee, Args] : facts(Nodes[I].first, Nodes[I].second).Callees) {
                if (!Args.empty() && Versions[Callee] >= 8) Args.clear();
                if (Seen.insert({Callee, Args}).second) {
                    ++Versions[Callee];
                    Nodes.push_back({Callee, Args});
                }
            }
        Begin = End;
    }
    for (const auto &[Node, Args] : Nodes)
        Out.push_back({Node, &facts(Node, Args)});
    return Out;
}

bool CalleeFacts::reachesLock(const FunctionDecl *Fn) {
    for (const Reached &R : reachable(Fn))
        if (R.Facts->Locks) return true;
    return false;
}

std::optional<Refusal> CalleeFacts::localHazard(const FunctionDecl *Fn, const Constants &Args) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::optional<Refusal> Found;
    for (const auto &[Def, Facts] : reachable(Fn, Args)) {
        const std::optional<Refusal> &Hazard = Facts->Hazard;
        if (!Hazard || (Found && !harderHazard(Hazard->Reason, Found->Reason))) continue;
        std::string What;
        if (Def != Fn->getDefinition()) What = "through '" + Def->getNameAsString() + "' ";
        What += Hazard->Reason;
        if (std::string Where = whereOf(SM, Hazard->Loc); !Where.empty())
            What += " (" + Where + ")";
        Found = Refusal{What, Hazard->Loc};
        if (finalHazard(What)) break;
    }
    return Found;
}

bool isProgramFunction(const FunctionDecl *Fn) {
    if (!Fn->getIdentifier() || Fn->getBuiltinID()) return false;
    const SourceManager &SM = Fn->getASTContext().getSourceManager();
    for (const FunctionDecl *D : Fn->redecls())
        if (SM.isInSystemHeader(D->getLocation())) return false;
    return true;
}

std::optional<Refusal> CalleeFacts::hazard(const FunctionDecl *Callee, const Constants &Args) {
    std::string What = "calls '" + Callee->getNameAsString() + "', which ";
    // A use of the caller's state (usesCallerState) stands only where nothing else refuses
    // and no facts are missing.
    std::optional<Refusal> CallerState;
    if (std::optional<Refusal> Local = localHazard(Callee, Args)) {
        Refusal R{What + Local->Reason, Local->Loc};
        if (!usesCallerState(R.Reason)) return R;
        CallerState = std::move(R);
    }
    if (!Project) return CallerState;
    // Functions of other units, through the project's facts: first a hazard they are known to
    // reach, then (RequireFacts) one whose facts are not known.
    const std::vector<Reached> &Defs = reachable(Callee, Args);
    struct FarCall {
        const FunctionDecl *Def;   ///< the function here that calls it (null: Callee itself)
        const FunctionDecl *Other; ///< the function of another unit
        SourceLocation Loc;
    };
    std::vector<FarCall> Far;
    if (Defs.empty()) {
        if (!isProgramFunction(Callee)) return CallerState;
        Far.push_back({nullptr, Callee, SourceLocation()});
    }
    for (const auto &[Def, Facts] : Defs)
        for (auto [Other, Loc] : Facts->External)
            Far.push_back({Def, Other, Loc});
    for (int Pass = 0; Pass < (RequireFacts ? 2 : 1); ++Pass)
        for (auto [Def, Other, Loc] : Far) {
            std::string Name = Other->getName().str();
            bool Call = Def != nullptr;
            std::optional<std::string> Why =
                Pass == 0 ? Project->hazard(Name) : Project->unknown(Name);
            if (!Why) continue;
            std::string Text = What;
            if (Call) {
                if (Def != Callee->getDefinition())
                    Text += "through '" + Def->getNameAsString() + "' ";
                Text += "calls '" + Name + "', which ";
            }
            Refusal R{Text + *Why + (Pass == 0 ? " (another file)" : FactsHint), Loc};
            if (Pass == 0 && usesCallerState(*Why)) {
                if (!CallerState) CallerState = std::move(R);
                continue;
            }
            R.WaitsForFacts = Pass == 1;
            if (R.WaitsForFacts) {
                std::set<std::string> Unknown;
                for (const FarCall &F : Far)
                    Project->unknownAll(F.Other->getName().str(), Unknown);
                R.UnknownCallees.assign(Unknown.begin(), Unknown.end());
            }
            return R;
        }
    return CallerState;
}

const char *const FactsHint = " (record every file's facts first: `rcl build -- <build "
                              "command>`, or a --facts-dir scan; docs/rewriter.md, \"Functions "
                              "of other files\")";

/// The function an argument names (`cmp`, `&cmp`, `(cmp_fn)cmp`), or null.
static const FunctionDecl *functionNamed(const Expr *E) {
    E = E->IgnoreParenCasts();
    if (const auto *Op = dyn_cast<UnaryOperator>(E))
        if (Op->getOpcode() == UO_AddrOf) E = Op->getSubExpr()->IgnoreParenCasts();
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    return Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
}

/// Library functions that call the functions they are given inside the call only (a
/// comparator given to qsort): those run inside the section, as its callees.
static bool callsCallbacksInside(StringRef Name) {
    static const std::set<std::string> Names{
        "qsort",        "qsort_r",   "bsearch",        "lfind",     "lsearch",
        "tsearch",      "tfind",     "tdelete",        "twalk",     "twalk_r",
        "tdestroy",     "scandir",   "scandir64",      "scandirat", "nftw",
        "nftw64",       "ftw",       "ftw64",          "glob",      "glob64",
        "pthread_once", "call_once", "dl_iterate_phdr"};
    return Names.count(Name.str()) != 0;
}

/// Library functions that call the functions they are given inside the call, or on another
/// thread or at exit, and never hand them back to the program: a function passed to them is
/// not a target of the program's calls through pointers.
static bool keepsCallbacksToItself(StringRef Name) {
    // (dladdr only looks the address up: PulseAudio's `dladdr(&_main, ...)` of a weak
    // reference to main declared without a prototype.)
    static const std::set<std::string> Elsewhere{
        "pthread_create", "pthread_atfork", "pthread_key_create",
        "atexit",         "at_quick_exit",  "on_exit",
        "thrd_create",    "dladdr",         "dladdr1"};
    return callsCallbacksInside(Name) || Elsewhere.count(Name.str()) != 0;
}

std::vector<const FunctionDecl *> CalleeFacts::callbacks(const CallExpr *Call) const {
    std::vector<const FunctionDecl *> Out;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier() || isProgramFunction(Callee) ||
        !callsCallbacksInside(Callee->getName()))
        return Out;
    for (const Expr *Arg : Call->arguments())
        if (const FunctionDecl *Fn = functionNamed(Arg); Fn && isProgramFunction(Fn))
            Out.push_back(Fn);
    return Out;
}

std::string CalleeFacts::signature(QualType T) {
    T = T.getCanonicalType();
    if (const auto *Pointer = T->getAs<PointerType>()) T = Pointer->getPointeeType();
    const auto *F = T->getAs<FunctionType>();
    if (!F) return "";
    auto typeText = [](QualType P) {
        std::string S = P.getCanonicalType().getUnqualifiedType().getAsString();
        // `struct (unnamed struct at x.h:3:9)`: the place is spelled differently by units
        // that reach the header by different paths; without it, more types compare equal
        // (more targets, the safe side).
        for (size_t At; (At = S.find(" at ")) != std::string::npos;) {
            size_t Close = S.find(')', At);
            if (Close == std::string::npos) break;
            S.erase(At, Close - At);
        }
        return S;
    };
    std::string Out = typeText(F->getReturnType()) + "|";
    const auto *Proto = dyn_cast<FunctionProtoType>(F);
    if (!Proto) return Out + "?";
    for (unsigned I = 0; I < Proto->getNumParams(); ++I)
        Out += (I ? "," : "") + typeText(Proto->getParamType(I));
    if (Proto->isVariadic()) Out += Proto->getNumParams() ? ",..." : "...";
    return Out;
}

std::string CalleeFacts::signature(const FunctionDecl *Fn) {
    // A function can only be called, without undefined behaviour, through a pointer whose
    // parameters are those of its definition -- for one without a prototype (K&R, `static
    // void handler(signo) int signo; {...}`), after the default argument promotions (C11
    // 6.7.6.3p15): that is its signature, not "any parameters" (krb5's SIGINT handler in
    // ss/listen.c, which longjmps, was a possible target of every pointer to a function
    // returning void).
    // (The definition's type, not a declaration's: `static void h();` before it has none.)
    const FunctionDecl *Def = nullptr;
    if (!Fn->hasBody(Def)) return signature(Fn->getType()); // (an alias: its declared type)
    if (!isa<FunctionNoProtoType>(Def->getType())) return signature(Def->getType());
    ASTContext &C = Def->getASTContext();
    std::vector<QualType> Params;
    for (const ParmVarDecl *P : Def->parameters()) {
        QualType T = P->getType();
        if (C.isPromotableIntegerType(T)) T = C.getPromotedIntegerType(T);
        if (T->isSpecificBuiltinType(BuiltinType::Float)) T = C.DoubleTy;
        Params.push_back(T);
    }
    const auto *F = Def->getType()->getAs<FunctionType>();
    return signature(
        C.getFunctionType(F->getReturnType(), Params, FunctionProtoType::ExtProtoInfo()));
}

const std::map<const FunctionDecl *, std::set<std::string>> &CalleeFacts::taken() {
    if (Taken) return *Taken;
    Taken.emplace();
    // Every use of a function's name other than a call of it, and other than an argument of a
    // library function that keeps its callbacks to itself, lets the program call it through a
    // pointer. A cast to another function pointer type (`(GCompareFunc)cmp`) adds that type.
    std::set<const DeclRefExpr *> NotTaken;
    std::set<const ExplicitCastExpr *>
        Laundered; // casts cast again at once (pre-order: outer first)
    auto Visit = [&](const Stmt *S) {
        if (const auto *Call = dyn_cast<CallExpr>(S)) {
            if (const auto *Ref = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts()))
                NotTaken.insert(Ref);
            if (const FunctionDecl *Callee = Call->getDirectCallee();
                Callee && !isProgramFunction(Callee) && Callee->getIdentifier() &&
                keepsCallbacksToItself(Callee->getName()))
                for (const Expr *Arg : Call->arguments()) {
                    const Expr *E = Arg->IgnoreParenImpCasts();
                    if (const auto *Op = dyn_cast<UnaryOperator>(E);
                        Op && Op->getOpcode() == UO_AddrOf)
                        E = Op->getSubExpr()->IgnoreParenImpCasts();
                    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) NotTaken.insert(Ref);
                }
        }
        // (A cast to a pointer without a prototype, `(void (*)())handler`, krb5's comparison of
        // signal handlers, adds nothing: a call through it must match the function's own
        // parameters anyway, which its own signature, below, says. Nor does a cast whose
        // result is cast again at once: glib's `(GDestroyNotify) (void (*)(void)) func`, which
        // only silences -Wcast-function-type, is called as a GDestroyNotify.)
        if (const auto *Cast = dyn_cast<ExplicitCastExpr>(S))
            if (const FunctionDecl *Fn = functionNamed(Cast->getSubExpr())) {
                if (const auto *Inner =
                        dyn_cast<ExplicitCastExpr>(Cast->getSubExpr()->IgnoreParens()))
                    Laundered.insert(Inner);
                std::string Sig = signature(Cast->getType());
                if (!Sig.empty() && Sig.back() != '?' && !Laundered.count(Cast))
                    (*Taken)[Fn->getFirstDecl()].insert(Sig);
            }
        const auto *Ref = dyn_cast<DeclRefExpr>(S);
        const auto *Fn = Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
        if (!Fn || NotTaken.count(Ref) || Fn->getBuiltinID()) return;
        std::string Sig = signature(Fn);
        if (!Sig.empty()) (*Taken)[Fn->getFirstDecl()].insert(Sig);
    };
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        if (const auto *Fn = dyn_cast<FunctionDecl>(D); Fn && Fn->doesThisDeclarationHaveABody())
            walk(Fn->getBody(), Visit);
        if (const auto *Var = dyn_cast<VarDecl>(D); Var && Var->getInit())
            walk(Var->getInit(), Visit);
    }
    // A cast seen before the use it casts: the use's own type was added too; the casts of uses
    // that turned out to be calls are harmless (a call's callee is never cast).
    return *Taken;
}

bool CalleeFacts::changed(const VarDecl *V) {
    const DeclContext *Fn = V->getParentFunctionOrMethod();
    const auto *Def = dyn_cast_or_null<FunctionDecl>(Fn);
    if (!Def || !Def->hasBody()) return true;
    auto [It, New] = ChangedIn.try_emplace(Fn);
    std::set<const VarDecl *> &Vars = It->second;
    if (New)
        walk(Def->getBody(), [&](const Stmt *S) {
            const Expr *Target = nullptr;
            if (const auto *Bin = dyn_cast<BinaryOperator>(S); Bin && Bin->isAssignmentOp())
                Target = Bin->getLHS();
            if (const auto *Un = dyn_cast<UnaryOperator>(S);
                Un && (Un->isIncrementDecrementOp() || Un->getOpcode() == UO_AddrOf))
                Target = Un->getSubExpr();
            if (const auto *Ref =
                    Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()) : nullptr)
                if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl())) Vars.insert(Var);
        });
    return Vars.count(V) != 0;
}

/// Whether the expansion of Loc passes through macro Name.
static bool spelledBy(SourceLocation Loc, StringRef Name, const ASTContext &Ctx) {
    const SourceManager &SM = Ctx.getSourceManager();
    for (; Loc.isMacroID(); Loc = SM.getImmediateMacroCallerLoc(Loc))
        if (Lexer::getImmediateMacroName(Loc, SM, Ctx.getLangOpts()) == Name) return true;
    return false;
}

std::string CalleeFacts::mutexKey(const Expr *Pointer) const {
    if (!Pointer) return "";
    const Expr *E = Pointer->IgnoreParenImpCasts();
    if (const auto *Addr = dyn_cast<UnaryOperator>(E); Addr && Addr->getOpcode() == UO_AddrOf)
        E = Addr->getSubExpr()->IgnoreParenImpCasts();
    else
        return ""; // a pointer variable: which mutex it holds is not known here
    std::string Element;
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
        E = Sub->getBase()->IgnoreParenImpCasts();
        Element = "\x1f[]";
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()); Var && Var->hasGlobalStorage())
            return globalPath(Var, Unit).key() + Element;
    if (const auto *Member = dyn_cast<MemberExpr>(E); Member && Element.empty())
        if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
            return "field:" +
                   Ctx.getRecordType(Field->getParent()).getCanonicalType().getAsString() + "." +
                   Field->getNameAsString();
    return "";
}

bool CalleeFacts::plainMutex(const MutexRef &M) const {
    if (!Project) return false;
    if (!M.Remote.empty()) {
        const WrapperPair *Pair = Api.pairOf(M.Remote);
        return Project->plainMutex("w:" + (Pair ? Pair->Lock : M.Remote));
    }
    return Project->plainMutex(mutexKey(M.Through ? M.Through : M.Operand));
}

std::map<std::string, bool> CalleeFacts::mutexInits() {
    std::map<std::string, bool> Out;
    auto note = [&](const std::string &Key, bool Plain) {
        if (Key.empty()) return;
        auto [It, New] = Out.try_emplace(Key, Plain);
        if (!New) It->second = It->second && Plain;
    };
    auto isMutex = [](QualType T) {
        while (const ArrayType *A = T->getAsArrayTypeUnsafe())
            T = A->getElementType();
        return T.getUnqualifiedType().getAsString() == "pthread_mutex_t";
    };
    std::function<void(const Decl *)> Visit = [&](const Decl *D) {
        const auto *Var = dyn_cast<VarDecl>(D);
        if (!Var || !Var->hasGlobalStorage() || !isMutex(Var->getType()) || !Var->getInit()) return;
        // A variable (or array) initialized with PTHREAD_MUTEX_INITIALIZER (or zeros, what it
        // stands for: the elements an array's initializer leaves out).
        std::function<bool(const Expr *)> Plain = [&](const Expr *Init) {
            if (!Init || isa<ImplicitValueInitExpr>(Init)) return true;
            if (const auto *List = dyn_cast<InitListExpr>(Init);
                List && List->getType()->isArrayType()) {
                const InitListExpr *Semantic =
                    List->isSemanticForm() ? List : List->getSemanticForm();
                if (!Semantic) return false;
                for (const Expr *E : Semantic->inits())
                    if (!Plain(E)) return false;
                return !Semantic->hasArrayFiller() || Plain(Semantic->getArrayFiller());
            }
            return spelledBy(Init->getBeginLoc(), "PTHREAD_MUTEX_INITIALIZER", Ctx);
        };
        std::string Key = globalPath(Var, Unit).key();
        if (Var->getType()->isArrayType()) Key += "\x1f[]";
        note(Key, Plain(Var->getInit()));
    };
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        Visit(D);
        const auto *Fn = dyn_cast<FunctionDecl>(D);
        if (!Fn || !Fn->doesThisDeclarationHaveABody()) continue;
        walk(Fn->getBody(), [&](const Stmt *S) {
            if (const auto *Decls = dyn_cast<DeclStmt>(S))
                for (const Decl *Local : Decls->decls())
                    Visit(Local);
            const auto *Call = dyn_cast<CallExpr>(S);
            const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
            if (!Callee || !Callee->getIdentifier() || Callee->getName() != "pthread_mutex_init" ||
                Call->getNumArgs() != 2)
                return;
            note(mutexKey(Call->getArg(0)),
                 Call->getArg(1)->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull));
        });
    }
    // A declared pair defined here: what its getter returns is the mutex of its name.
    for (const WrapperPair &W : Api.wrappers()) {
        auto [LockDef, UnlockDef] = LockApi::definitionsInMainFile(Ctx, W);
        const Expr *Mutex = LockDef && UnlockDef ? Api.pairMutex(LockDef, UnlockDef) : nullptr;
        auto It = Out.find(mutexKey(Mutex));
        if (It != Out.end()) note("w:" + W.Lock, It->second);
    }
    return Out;
}

MutexPath CalleeFacts::mutexPath(const MutexRef &M) const {
    if (!M.Remote.empty()) {
        // A declared pair defined in another unit: its mutex is what that unit's getter
        // returns, the same for the lock and the unlock wrapper; which one, when the wrapper
        // takes arguments, is not known here (`item_lock(hv)`: some element of a family).
        const WrapperPair *Pair = Api.pairOf(M.Remote);
        MutexPath P{{"w:" + (Pair ? Pair->Lock : M.Remote)}};
        for (const Expr *Arg : M.Call->arguments())
            if (!isLocationConstant(Arg)) {
                P.Steps.push_back("[]");
                break;
            }
        return P;
    }
    if (!M.Through && !M.Operand) return MutexPath::unknown(lockName(M, Ctx));
    if (M.Through)
        return pathOf(M.Through, Ctx, Unit, &Changed)
            .substitute(argumentPaths(M.Call, Ctx, Unit, &Changed))
            .pointee();
    return pathOf(M.Operand, Ctx, Unit, &Changed).pointee();
}

std::vector<Effect> CalleeFacts::callEffects(const CallExpr *Call, const std::string &In) {
    std::vector<Effect> Out;
    Effect E;
    E.In = In;
    E.Where = whereOf(Ctx.getSourceManager(), Call->getBeginLoc());
    if (std::optional<LockOp> Op = Api.classify(Call)) {
        E.Mutex = mutexPath(Api.mutexOf(Call, *Op));
        switch (*Op) {
        case LockOp::Lock:
        case LockOp::TimedLock:
            E.K = Effect::Kind::Take;
            break;
        case LockOp::TryLock:
            E.K = Effect::Kind::TryTake;
            break;
        case LockOp::Unlock:
            E.K = Effect::Kind::Release;
            break;
        default:
            E.K = Effect::Kind::Wait;
            E.Name = Call->getDirectCallee()->getNameAsString();
        }
        Out.push_back(std::move(E));
        return Out;
    }
    const FunctionDecl *Callee = Call->getDirectCallee(), *Def = nullptr;
    if (!Callee) {
        E.K = Effect::Kind::IndirectCall;
        E.Name = signature(Call->getCallee()->getType());
        if (E.Name.empty()) return Out; // a block
        E.Args = argumentPaths(Call, Ctx, Unit, &Changed);
        const Expr *Pointer = Call->getCallee()->IgnoreParenImpCasts();
        if (const auto *Deref = dyn_cast<UnaryOperator>(Pointer);
            Deref && Deref->getOpcode() == UO_Deref)
            Pointer = Deref->getSubExpr()->IgnoreParenImpCasts();
        llvm::raw_string_ostream OS(E.Pointer);
        Pointer->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
        OS.flush();
        Out.push_back(std::move(E));
        return Out;
    }
    if (Callee->hasBody(Def)) {
        if (InProgress.count(Def)) return Out;
        std::vector<MutexPath> Args = argumentPaths(Call, Ctx, Unit, &Changed);
        for (const Effect &X : effects(Def))
            Out.push_back(X.substitute(Args));
        return Out;
    }
    if (isProgramFunction(Callee)) {
        E.K = Effect::Kind::Call;
        E.Name = Callee->getNameAsString();
        E.Args = argumentPaths(Call, Ctx, Unit, &Changed);
        Out.push_back(std::move(E));
        return Out;
    }
    // A library function given functions of the program (qsort's comparator): they may run
    // inside it, with arguments the library chooses.
    for (const FunctionDecl *Callback : callbacks(Call)) {
        if (Callback->hasBody(Def)) {
            if (InProgress.count(Def)) continue;
            for (const Effect &X : effects(Def))
                Out.push_back(X.substitute({}));
        } else {
            Effect C = E;
            C.K = Effect::Kind::Call;
            C.Name = Callback->getNameAsString();
            Out.push_back(std::move(C));
        }
    }
    return Out;
}

/// Whether a release pairs with a take that Held (the keys of the mutexes taken so far, in
/// the order of the text) holds: the same mutex, or for a mutex whose path is unknown
/// (`item_trylock_unlock(lock)` of the pointer that `item_trylock` returned) any. A take pairs
/// with every release after it: the unlocks of a function's several exits (`lock(&m); if (e) {
/// unlock(&m); return; } ...; unlock(&m);`) release what it took once.
static bool pairRelease(const std::vector<std::string> &Held, const MutexPath &Mutex) {
    if (!Mutex.known()) return !Held.empty();
    return llvm::is_contained(Held, Mutex.key());
}

const std::vector<Effect> &CalleeFacts::effects(const FunctionDecl *Def) {
    if (auto It = Effects.find(Def); It != Effects.end()) return It->second;
    InProgress.insert(Def);
    std::vector<Effect> All;
    std::string Name = Def->getNameAsString();
    walk(Def->getBody(), [&](const Stmt *S) {
        if (const auto *Call = dyn_cast<CallExpr>(S)) {
            std::vector<Effect> More = callEffects(Call, Name);
            All.insert(All.end(), std::make_move_iterator(More.begin()),
                       std::make_move_iterator(More.end()));
        }
    });
    InProgress.erase(Def);
    // An unlock of a mutex taken before it in the same function (its callees' effects
    // included) pairs with that take and is left out: what remains are the releases of
    // mutexes its callers hold. Takes stay (a take of a caller's lock is a relock).
    std::vector<Effect> Out;
    std::vector<std::string> Held;
    std::set<std::string> Seen;
    for (Effect &X : All) {
        if (X.K == Effect::Kind::Take || X.K == Effect::Kind::TryTake)
            Held.push_back(X.Mutex.key());
        if (X.K == Effect::Kind::Release && pairRelease(Held, X.Mutex)) continue;
        if (!Seen.insert(X.key()).second) continue;
        if (Out.size() >= 256) break;
        Out.push_back(std::move(X));
    }
    return Effects[Def] = std::move(Out);
}

/// The C library's allocation functions, which a program's allocator defines.
static const char *const AllocationFunctions[] = {
    "malloc",   "calloc", "realloc", "free",         "aligned_alloc",     "posix_memalign",
    "memalign", "valloc", "pvalloc", "reallocarray", "malloc_usable_size"};

/// Whether Fn is the program's own definition of one of them (external linkage: the program's
/// calls reach it).
static bool definesAllocationFunction(const FunctionDecl *Fn) {
    return Fn->getIdentifier() && Fn->doesThisDeclarationHaveABody() && Fn->isExternallyVisible() &&
           llvm::is_contained(AllocationFunctions, Fn->getName());
}

const std::optional<CalleeFacts::AllocatorUnit> &CalleeFacts::allocatorUnit() {
    if (Allocator) return *Allocator;
    Allocator.emplace();
    const SourceManager &SM = Ctx.getSourceManager();
    for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        const auto *Fn = dyn_cast<FunctionDecl>(D);
        if (!Fn || !definesAllocationFunction(Fn)) continue;
        *Allocator =
            AllocatorUnit{"this file defines '" + Fn->getNameAsString() + "' (line " +
                              std::to_string(SM.getExpansionLineNumber(Fn->getLocation())) + ")",
                          true};
        return *Allocator;
    }
    if (Project)
        for (const char *Name : AllocationFunctions)
            if (const ProjectFacts::Entry *E = Project->find(Name);
                E && E->Allocator && E->Unit != Unit && Project->mayShareProgram(Unit, E->Unit)) {
                *Allocator = AllocatorUnit{
                    "another file of the program defines '" + std::string(Name) + "'", false};
                break;
            }
    return *Allocator;
}

ProjectFacts::UnitFacts CalleeFacts::exported() {
    ProjectFacts::UnitFacts Out;
    Out.Unit = Unit;
    const SourceManager &SM = Ctx.getSourceManager();
    const std::map<const FunctionDecl *, std::set<std::string>> &Taken = taken();
    // What a function's facts say in terms other units can translate: its locals mean
    // nothing there.
    auto exportable = [](const MutexPath &P) {
        return P.local() ? MutexPath::unknown(P.display()) : P;
    };
    auto keyOf = [&](const FunctionDecl *Fn) {
        return ProjectFacts::functionKey(Fn->getNameAsString(), !Fn->isExternallyVisible(), Unit);
    };
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        const auto *Fn = dyn_cast<FunctionDecl>(D);
        if (!Fn || !Fn->getIdentifier() || !Fn->doesThisDeclarationHaveABody()) continue;
        // Defined here: in the main file, or in a file it includes that is not a header of
        // inline functions (Tor's `#include "ext/strlcpy.c"` where libc lacks strlcpy), which no
        // other unit defines too.
        SourceLocation At = SM.getExpansionLoc(Fn->getBeginLoc());
        bool Exported =
            Fn->isExternallyVisible() &&
            (SM.isWrittenInMainFile(At) ||
             (!Fn->isInlined() && !SM.isInSystemHeader(At) && !Fn->hasAttr<GNUInlineAttr>()));
        if (!Exported && !Taken.count(Fn->getFirstDecl())) continue;
        ProjectFacts::Entry E;
        E.Name = Fn->getNameAsString();
        E.Unit = Unit;
        E.Allocator = definesAllocationFunction(Fn);
        // The hazard within this unit (a project's hazard is found again from Calls).
        if (std::optional<Refusal> Local = localHazard(Fn)) E.Hazard = Local->Reason;
        std::set<std::string> Calls;
        for (const auto &[Def, Facts] : reachable(Fn))
            for (auto [Other, Loc] : Facts->External)
                Calls.insert(Other->getNameAsString());
        E.Calls.assign(Calls.begin(), Calls.end());
        for (const Effect &X : effects(Fn)) {
            Effect Y = X;
            if (!Y.Mutex.empty()) Y.Mutex = exportable(Y.Mutex);
            for (MutexPath &A : Y.Args)
                A = exportable(A);
            E.Effects.push_back(std::move(Y));
        }
        Out.Functions[keyOf(Fn)] = std::move(E);
    }
    for (const auto &[Fn, Sigs] : Taken) {
        std::string Key = Fn->getNameAsString();
        if (isProgramFunction(Fn)) {
            Key = keyOf(Fn);
        } else if (!Out.Functions.count(Key)) {
            // A library function whose address the program takes (`.free = free`): judged by
            // its name, as where it is called.
            ProjectFacts::Entry E;
            E.Name = Key;
            E.Library = true;
            if (std::optional<std::string> Why = namedHazard(Key, /*InCallee=*/true))
                E.Hazard = *Why;
            Out.Functions[Key] = std::move(E);
        }
        for (const std::string &Sig : Sigs)
            Out.Taken.push_back({Key, Sig});
    }
    Out.Mutexes = mutexInits();
    return Out;
}

/// The walk of CalleeFacts::judge over the effects of one call, through the facts of other
/// units and the targets of calls through pointers.
struct CalleeFacts::Judgement {
    Judgement(CalleeFacts &F, const MutexPath &Lock, const std::string &LockName,
              std::vector<std::string> &Held, bool PlainLock)
        : F(F), Lock(Lock), LockName(LockName), PlainLock(PlainLock), Held(Held) {}

    CalleeFacts &F;
    const MutexPath &Lock;
    const std::string &LockName;
    bool PlainLock;
    Verdict V;
    std::vector<std::string> &Held; ///< mutexes taken so far on this way (keys, in order)
    std::set<std::string> Seen;     ///< functions already followed, with their arguments
    std::set<std::string> Unknown;  ///< functions without facts ("*": a pointer's targets)
    std::string FirstUnknown;       ///< the reason the first of them gives
    size_t Budget = 4096;
    std::optional<std::string> Found;

    void refuse(std::string Why) {
        if (usesCallerState(Why)) {
            if (!V.CallerState) V.CallerState = std::move(Why);
            return;
        }
        if (!Found) Found = std::move(Why);
    }
    void note(std::string What) {
        if (llvm::find(V.Notes, What) == V.Notes.end()) V.Notes.push_back(std::move(What));
    }
    void waitFor(const std::string &Key, std::string Why) {
        if (!F.RequireFacts) return;
        if (Unknown.empty()) FirstUnknown = std::move(Why);
        Unknown.insert(Key);
    }

    /// Effects, in the terms of the function Current (Args translates them into the
    /// section's: null when they are already), reached as Prefix says ("calls 'f', which ").
    /// Far: they are facts of another unit.
    void follow(const std::vector<Effect> &Effects, const std::vector<MutexPath> *Args,
                const std::string &Prefix, const std::string &Current, bool Far, unsigned Depth) {
        for (const Effect &Raw : Effects) {
            if (Found || Budget == 0) return;
            --Budget;
            Effect X = Args ? Raw.substitute(*Args) : Raw;
            std::string Through = !X.In.empty() && X.In != Current ? "through '" + X.In + "' " : "";
            std::string At =
                " (" + X.Where + ")" + (Far ? std::string(" (another file)") : std::string());
            bool IsLock = Lock.known() && X.Mutex == Lock;
            switch (X.K) {
            case Effect::Kind::Take:
                // A take of a plain mutex its thread holds deadlocks the original: no run that
                // works goes there (memcached's accept_new_conns reaches itself again through
                // maxconns_handler, on a path its argument rules out). A recursive one would
                // work there, and not on the server (a nested section of the same lock).
                // An element of an array of mutexes ("[]": which one is not known) may be
                // another than the section's: only a take of the same mutex refuses.
                if (IsLock && !PlainLock && !llvm::is_contained(X.Mutex.Steps, "[]"))
                    refuse(Prefix + Through + "takes the section's lock '" + LockName + "' again" +
                           At);
                Held.push_back(X.Mutex.key());
                break;
            case Effect::Kind::TryTake:
                Held.push_back(X.Mutex.key());
                break;
            case Effect::Kind::Release: {
                if (pairRelease(Held, X.Mutex)) {
                } else if (IsLock) {
                    refuse(Prefix + Through + "releases the section's lock '" + LockName + "'" +
                           At);
                } else if (!X.Mutex.known()) {
                    refuse(Prefix + Through + "releases a mutex it did not take ('" +
                           X.Mutex.display() + "'), which may be the section's lock '" + LockName +
                           "'" + At);
                }
                break;
            }
            case Effect::Kind::Wait: {
                V.Waits = true;
                // A wait of this unit is renamed to rcl_cond_* (calleeWaits); another file's
                // text is not this unit's to edit.
                if (!Far) break;
                std::string What = Prefix + Through + "waits on a condition variable";
                std::string Rcl = X.Name.rfind("pthread_cond_", 0) == 0
                                      ? "rcl_cond_" + X.Name.substr(13)
                                      : "rcl_cond_wait";
                if (!Lock.known() || !X.Mutex.known() || IsLock)
                    refuse(What + " with the section's lock '" + LockName + "' (" + X.Name + ", " +
                           X.Where +
                           "), in another file: this file's rewrite cannot "
                           "make it " +
                           Rcl + " (another file)");
                else
                    note(What + " on another mutex (" + X.Name + ", " + X.Where +
                         "), in another file: unless that file's rewrite makes it " + Rcl +
                         ", the runtime's blocking detector hands the server "
                         "over while it blocks");
                break;
            }
            case Effect::Kind::Call:
                call(X, Prefix + Through, Current, Depth);
                break;
            case Effect::Kind::IndirectCall:
                indirect(X, Prefix + Through, Depth);
                break;
            }
        }
    }

    void call(const Effect &X, const std::string &Prefix, const std::string &Current,
              unsigned Depth) {
        const ProjectFacts::Entry *E = F.Project ? F.Project->find(X.Name) : nullptr;
        // The section's own callee, when it is of another unit, is named by Prefix already.
        std::string Via = X.Name == Current ? Prefix : Prefix + "calls '" + X.Name + "', which ";
        if (!E) {
            waitFor(X.Name, Via + "is defined in another file whose facts are not known");
            return;
        }
        bool Far = E->Unit != F.Unit;
        if (std::optional<std::string> Why = F.Project->hazard(X.Name))
            refuse(Via + *Why + (Far && !E->Library ? " (another file)" : ""));
        if (Depth >= 16 || !Seen.insert(X.key()).second) return;
        follow(E->Effects, &X.Args, Prefix, Current, Far, Depth + 1);
    }

    void indirect(const Effect &X, const std::string &Prefix, unsigned Depth) {
        const ProjectFacts *P = F.Project;
        std::vector<std::string> Targets =
            P ? P->targets(X.Name, F.Unit) : std::vector<std::string>();
        std::string Pointer = "through pointer '" + X.Pointer + "'";
        if (!P || !P->complete())
            waitFor("*", Prefix + "calls " + Pointer +
                             ", whose possible targets (the program's address-taken functions "
                             "of its type) are known only from every file's facts");
        else if (Targets.empty())
            // A function of a plugin (dlsym), or of a library's caller: outside the program,
            // judged as a library function is, by nothing it is known to do.
            note(Prefix + "calls " + Pointer + " (" + shownSignature(X.Name) + ", " + X.Where +
                 "), a type of which the program takes no function's address: its target lies "
                 "outside the program (a plugin, a library's caller) and is not judged");
        if (Depth >= 16) return;
        for (const std::string &T : Targets) {
            if (Found) return;
            const ProjectFacts::Entry *E = P->find(T);
            std::string Name = T.substr(0, T.find('@'));
            std::string Via = Prefix + "calls '" + Name + "' " + Pointer + ", which ";
            if (!E) {
                waitFor(T, Via + "is defined in another file whose facts are not known");
                continue;
            }
            bool Far = E->Unit != F.Unit;
            if (!Far && !E->Library)
                for (Decl *D : F.Ctx.getTranslationUnitDecl()->decls())
                    if (const auto *Fn = dyn_cast<FunctionDecl>(D);
                        Fn && Fn->doesThisDeclarationHaveABody() && Fn->getIdentifier() &&
                        Fn->getName() == E->Name)
                        V.LocalTargets.push_back(Fn);
            std::optional<std::string> Why =
                E->Library ? (E->Hazard.empty() ? std::nullopt : std::optional(E->Hazard))
                           : P->hazard(T);
            if (Why) {
                refuse(Via + *Why + (Far && !E->Library ? " (another file)" : ""));
                return;
            }
            if (!Seen.insert(T + "\x1d" + X.key()).second) continue;
            std::vector<std::string> Before = Held;
            follow(E->Effects, &X.Args, Via, E->Name, Far, Depth + 1);
            Held = std::move(Before);
        }
    }

    static std::string shownSignature(const std::string &Sig) {
        size_t Bar = Sig.find('|');
        if (Bar == std::string::npos) return Sig;
        std::string Params = Sig.substr(Bar + 1);
        return Sig.substr(0, Bar) + " (*)(" +
               (Params == "?"    ? ""
                : Params.empty() ? "void"
                                 : Params) +
               ")";
    }
};

CalleeFacts::Verdict CalleeFacts::judge(const CallExpr *Call, const MutexPath &Lock,
                                        const std::string &LockName, std::vector<std::string> &Held,
                                        bool PlainLock) {
    Judgement J(*this, Lock, LockName, Held, PlainLock);
    const FunctionDecl *Callee = Call->getDirectCallee();
    std::string Root = Callee ? Callee->getNameAsString() : "";
    // A call through a pointer names its targets itself ("calls 'f' through pointer 'p'").
    std::string Prefix = Callee ? "calls '" + Root + "', which " : "";
    J.follow(callEffects(Call, Root), nullptr, Prefix, Root, /*Far=*/false, 0);
    if (J.Found) {
        J.V.Refused = Refusal{*J.Found, Call->getBeginLoc()};
    } else if (!J.Unknown.empty()) {
        Refusal R{J.FirstUnknown + FactsHint, Call->getBeginLoc()};
        R.WaitsForFacts = true;
        R.UnknownCallees.assign(J.Unknown.begin(), J.Unknown.end());
        J.V.Refused = std::move(R);
    }
    return std::move(J.V);
}

} // namespace rcl
