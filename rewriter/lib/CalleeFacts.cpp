//===- CalleeFacts.cpp - what the functions a critical section calls do ----===//
#include "CalleeFacts.h"
#include "StmtWalk.h"

#include "clang/Lex/Lexer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <set>
#include <sys/syscall.h>
#include <unistd.h>

using namespace clang;

namespace rcl {

/// Calls whose behaviour depends on the thread that makes them, with the reason. InCallee: the
/// call is in a function the section calls, whose own frame (alloca, va_start, a setjmp it
/// returns to) stays its own; what acts on the calling thread still acts on the server.
/// errno is not here: the runtime carries the client's errno into every delegated call and the
/// server's back out (docs/rewriter.md, "Thread identity").
static std::optional<std::string> threadIdentityReason(const CallExpr *Call, bool InCallee) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier()) return std::nullopt;
    StringRef Name = Callee->getName();
    if (Name == "pthread_self" || Name == "gettid" || Name == "pthread_getspecific" ||
        Name == "pthread_setspecific" || Name == "pthread_exit")
        return std::string("depends on the calling thread's identity");
    if (Name == "syscall" && Call->getNumArgs() > 0) {
        // syscall(SYS_gettid) and the raw forms of the calls below.
        Expr::EvalResult Number;
        const Expr *Arg = Call->getArg(0);
        if (!Arg->isValueDependent() && Arg->EvaluateAsInt(Number, Callee->getASTContext()) &&
            Number.Val.isInt()) {
            int64_t N = Number.Val.getInt().getExtValue();
            if (N == SYS_gettid) return std::string("depends on the calling thread's identity");
            if (N == SYS_prctl || N == SYS_sched_setaffinity || N == SYS_sched_getaffinity ||
                N == SYS_setpriority || N == SYS_sched_setscheduler || N == SYS_sched_setparam)
                return std::string("acts on the calling thread (syscall), which would be the "
                                   "server");
            if (N == SYS_rt_sigprocmask || N == SYS_rt_sigsuspend || N == SYS_rt_sigtimedwait ||
                N == SYS_sigaltstack)
                return std::string("changes or uses the calling thread's signal state");
        }
    }
    // Attributes of the calling thread: its name, CPU affinity, priority, scheduling policy,
    // namespaces.
    if (Name == "prctl" || Name == "sched_setaffinity" || Name == "sched_getaffinity" ||
        Name == "setpriority" || Name == "getpriority" || Name == "nice" ||
        Name == "sched_setscheduler" || Name == "sched_getscheduler" || Name == "sched_setparam" ||
        Name == "sched_getparam" || Name == "sched_setattr" || Name == "sched_getattr" ||
        Name == "unshare" || Name == "setns" || Name == "ioprio_set" || Name == "ioprio_get")
        return "acts on the calling thread (" + Name.str() + "), which would be the server";
    if (Name == "pthread_sigmask" || Name == "sigprocmask" || Name == "sigsuspend" ||
        Name == "sigwait" || Name == "sigwaitinfo" || Name == "sigtimedwait" ||
        Name == "sigpending" || Name == "sigaltstack" || Name == "raise" || Name == "pause" ||
        Name == "sighold" || Name == "sigrelse" || Name == "sigpause" || Name == "siginterrupt")
        return std::string("changes or uses the calling thread's signal state");
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
    if (Name == "longjmp" || Name == "_longjmp" || Name == "siglongjmp" ||
        (!InCallee &&
         (Name == "setjmp" || Name == "_setjmp" || Name == "sigsetjmp" || Name == "__sigsetjmp")))
        return std::string("uses setjmp/longjmp, which cannot cross threads");
    if (!InCallee && (Name == "alloca" || Name == "__builtin_alloca"))
        return std::string("uses alloca, whose memory would live on the server's stack");
    if (!InCallee && (Name == "__builtin_va_start" || Name == "__builtin_va_end" ||
                      Name == "__builtin_va_copy" || Name == "__builtin_c23_va_start"))
        return std::string("uses the enclosing function's variable arguments");
    if (Name == "pthread_create")
        return std::string("creates a thread, which would inherit the server's CPU affinity and "
                           "signal mask");
    if (Name == "fork" || Name == "vfork")
        return std::string("forks, and the child would be a copy of the server thread");
    return std::nullopt;
}

std::optional<std::string> threadHazard(const Stmt *S, bool InCallee) {
    if (const auto *Call = dyn_cast<CallExpr>(S)) return threadIdentityReason(Call, InCallee);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
            if (Var->getTLSKind() != VarDecl::TLS_None)
                return "uses thread-local variable '" + Var->getNameAsString() + "'";
    return std::nullopt;
}

const CalleeFacts::FunctionFacts &CalleeFacts::facts(const FunctionDecl *Def) {
    auto [It, New] = Facts.try_emplace(Def);
    if (!New) return It->second;
    FunctionFacts F;
    walk(Def->getBody(), [&](const Stmt *S) {
        if (!F.Hazard)
            if (std::optional<std::string> Reason = threadHazard(S, /*InCallee=*/true))
                F.Hazard = Refusal{*Reason, S->getBeginLoc()};
        const auto *Call = dyn_cast<CallExpr>(S);
        if (!Call) return;
        std::optional<LockOp> Op = Api.classify(Call);
        if (Op && isConditionWait(*Op)) F.Waits.push_back(Call);
        if (Op == LockOp::Lock || Op == LockOp::TryLock || Op == LockOp::TimedLock) F.Locks = true;
        const FunctionDecl *Callee = Call->getDirectCallee(), *CalleeDef = nullptr;
        if (Op || !Callee) return;
        if (Callee->hasBody(CalleeDef))
            F.Callees.push_back(CalleeDef);
        else if (isProgramFunction(Callee))
            F.External.push_back(Call);
    });
    return Facts[Def] = std::move(F);
}

const std::vector<const FunctionDecl *> &CalleeFacts::reachable(const FunctionDecl *Fn) {
    const FunctionDecl *Def = nullptr;
    Fn->hasBody(Def);
    std::vector<const FunctionDecl *> &Out = Reachable[Fn];
    if (!Def || !Out.empty()) return Out;
    std::set<const FunctionDecl *> Seen{Def};
    Out.push_back(Def);
    // Breadth first, one level at a time, at most 16 calls deep.
    for (size_t Level = 0, Begin = 0; Level <= 16 && Begin < Out.size(); ++Level) {
        size_t End = Out.size();
        for (size_t I = Begin; I < End; ++I)
            for (const FunctionDecl *Callee : facts(Out[I]).Callees)
                if (Seen.insert(Callee).second) Out.push_back(Callee);
        Begin = End;
    }
    return Out;
}

bool CalleeFacts::reachesLock(const FunctionDecl *Fn) {
    for (const FunctionDecl *Def : reachable(Fn))
        if (facts(Def).Locks) return true;
    return false;
}

std::optional<Refusal> CalleeFacts::localHazard(const FunctionDecl *Fn) {
    const SourceManager &SM = Ctx.getSourceManager();
    for (const FunctionDecl *Def : reachable(Fn)) {
        const std::optional<Refusal> &Hazard = facts(Def).Hazard;
        if (!Hazard) continue;
        std::string What;
        if (Def != Fn->getDefinition()) What = "through '" + Def->getNameAsString() + "' ";
        What += Hazard->Reason;
        PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Hazard->Loc));
        if (P.isValid())
            What += " (" + llvm::sys::path::filename(P.getFilename()).str() + ":" +
                    std::to_string(P.getLine()) + ")";
        return Refusal{What, Hazard->Loc};
    }
    return std::nullopt;
}

bool isProgramFunction(const FunctionDecl *Fn) {
    if (!Fn->getIdentifier() || Fn->getBuiltinID()) return false;
    const SourceManager &SM = Fn->getASTContext().getSourceManager();
    for (const FunctionDecl *D : Fn->redecls())
        if (SM.isInSystemHeader(D->getLocation())) return false;
    return true;
}

std::optional<Refusal> CalleeFacts::hazard(const FunctionDecl *Callee) {
    std::string What = "calls '" + Callee->getNameAsString() + "', which ";
    if (std::optional<Refusal> Local = localHazard(Callee))
        return Refusal{What + Local->Reason, Local->Loc};
    if (!Project) return std::nullopt;
    // Functions of other units, through the project's facts: first a hazard they are known to
    // reach, then (RequireFacts) one whose facts are not known.
    const std::vector<const FunctionDecl *> &Defs = reachable(Callee);
    std::vector<std::pair<const FunctionDecl *, const CallExpr *>> Far; // (caller here, call)
    if (Defs.empty()) {
        if (!isProgramFunction(Callee)) return std::nullopt;
        Far.push_back({nullptr, nullptr});
    }
    for (const FunctionDecl *Def : Defs)
        for (const CallExpr *Call : facts(Def).External)
            Far.push_back({Def, Call});
    const std::string Hint = " (record every file's facts first: `rcl build -- <build "
                             "command>`, or a --facts-dir scan; docs/rewriter.md, \"Functions "
                             "of other files\")";
    for (int Pass = 0; Pass < (RequireFacts ? 2 : 1); ++Pass)
        for (auto [Def, Call] : Far) {
            std::string Name =
                Call ? Call->getDirectCallee()->getName().str() : Callee->getName().str();
            std::optional<std::string> Why =
                Pass == 0 ? Project->hazard(Name) : Project->unknown(Name);
            if (!Why) continue;
            std::string Text = What;
            if (Call) {
                if (Def != Callee->getDefinition())
                    Text += "through '" + Def->getNameAsString() + "' ";
                Text += "calls '" + Name + "', which ";
            }
            Refusal R{Text + *Why + (Pass == 0 ? " (another file)" : Hint),
                      Call ? Call->getBeginLoc() : SourceLocation()};
            R.WaitsForFacts = Pass == 1;
            if (R.WaitsForFacts) {
                std::set<std::string> Unknown;
                for (auto [D, C] : Far)
                    Project->unknownAll(C ? C->getDirectCallee()->getName().str()
                                          : Callee->getName().str(),
                                        Unknown);
                R.UnknownCallees.assign(Unknown.begin(), Unknown.end());
            }
            return R;
        }
    return std::nullopt;
}

std::map<std::string, ProjectFacts::Entry> CalleeFacts::exported() {
    std::map<std::string, ProjectFacts::Entry> Out;
    const SourceManager &SM = Ctx.getSourceManager();
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        const auto *Fn = dyn_cast<FunctionDecl>(D);
        if (!Fn || !Fn->getIdentifier() || !Fn->doesThisDeclarationHaveABody() ||
            !Fn->isExternallyVisible() ||
            !SM.isWrittenInMainFile(SM.getExpansionLoc(Fn->getBeginLoc())))
            continue;
        ProjectFacts::Entry E;
        // The hazard within this unit (a project's hazard is found again from Calls).
        if (std::optional<Refusal> Local = localHazard(Fn)) E.Hazard = Local->Reason;
        std::set<std::string> Calls;
        for (const FunctionDecl *Def : reachable(Fn))
            for (const CallExpr *Call : facts(Def).External)
                Calls.insert(Call->getDirectCallee()->getName().str());
        E.Calls.assign(Calls.begin(), Calls.end());
        Out[Fn->getName().str()] = std::move(E);
    }
    return Out;
}

// File format: one function a line, `name<TAB>hazard<TAB>call,call,...` (hazard may be empty);
// one declared wrapper pair a line, `=pair<TAB>lock/unlock<TAB>why not<TAB>via` (why not and
// via may be empty).

void ProjectFacts::load(const std::string &Dir) {
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
        if (llvm::sys::path::extension(It->path()) != ".facts") continue;
        llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
            llvm::MemoryBuffer::getFile(It->path());
        if (!Buf) continue;
        llvm::StringRef Rest = (*Buf)->getBuffer();
        while (!Rest.empty()) {
            llvm::StringRef Line;
            std::tie(Line, Rest) = Rest.split('\n');
            llvm::SmallVector<llvm::StringRef, 4> Parts;
            Line.split(Parts, '\t');
            if (Parts.size() == 4 && Parts[0] == "=pair") {
                Pairs[Parts[1].str()] = {Parts[2].str(), Parts[3].str()};
                continue;
            }
            if (Parts.size() != 3 || Parts[0].empty()) continue;
            Entry &E = Functions[Parts[0].str()];
            if (E.Hazard.empty()) E.Hazard = Parts[1].str();
            llvm::SmallVector<llvm::StringRef, 8> Calls;
            Parts[2].split(Calls, ',', -1, /*KeepEmpty=*/false);
            for (llvm::StringRef C : Calls)
                E.Calls.push_back(C.str());
        }
    }
}

void ProjectFacts::add(const std::map<std::string, Entry> &Entries,
                       const std::map<std::string, PairFacts> &UnitPairs) {
    for (const auto &[Fn, E] : Entries)
        Functions[Fn] = E;
    for (const auto &[Key, P] : UnitPairs)
        Pairs[Key] = P;
}

std::optional<std::string> ProjectFacts::pairDelegates(const std::string &Lock,
                                                       const std::string &Unlock,
                                                       std::string *Missing) const {
    std::string Key = Lock + "/" + Unlock, Through;
    for (unsigned Depth = 0; Depth < 8; ++Depth) {
        auto It = Pairs.find(Key);
        if (It == Pairs.end()) {
            if (Missing) *Missing = Key;
            return std::nullopt;
        }
        if (!It->second.WhyNot.empty())
            return Through.empty() ? It->second.WhyNot
                                   : "through '" + Through + "': " + It->second.WhyNot;
        if (It->second.Via.empty()) return std::string();
        Key = Through = It->second.Via;
    }
    return std::string("its wrappers chain to one another without end");
}

bool ProjectFacts::save(const std::string &Dir, const std::string &Unit,
                        const std::map<std::string, Entry> &Entries,
                        const std::map<std::string, PairFacts> &UnitPairs, std::string &Error) {
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
        Error = "cannot create " + Dir + ": " + EC.message();
        return false;
    }
    // One file per unit, named after its real path, replaced atomically (parallel builds).
    std::string Name = Unit;
    for (char &C : Name)
        if (!isalnum(static_cast<unsigned char>(C)) && C != '.' && C != '-' && C != '_') C = '_';
    std::string Path = Dir + "/" + Name + ".facts";
    std::string Tmp = Path + ".tmp" + std::to_string(getpid());
    {
        std::error_code EC;
        llvm::raw_fd_ostream OS(Tmp, EC);
        if (EC) {
            Error = "cannot write " + Tmp + ": " + EC.message();
            return false;
        }
        for (const auto &[Fn, E] : Entries) {
            std::string Hazard = E.Hazard;
            for (char &C : Hazard)
                if (C == '\t' || C == '\n') C = ' ';
            OS << Fn << "\t" << Hazard << "\t";
            for (size_t I = 0; I < E.Calls.size(); ++I)
                OS << (I ? "," : "") << E.Calls[I];
            OS << "\n";
        }
        for (const auto &[Key, P] : UnitPairs) {
            std::string WhyNot = P.WhyNot;
            for (char &C : WhyNot)
                if (C == '\t' || C == '\n') C = ' ';
            OS << "=pair\t" << Key << "\t" << WhyNot << "\t" << P.Via << "\n";
        }
    }
    if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
        Error = "cannot write " + Path + ": " + EC.message();
        return false;
    }
    return true;
}

std::optional<std::string> ProjectFacts::search(
    const std::string &Name,
    const std::function<std::optional<std::string>(const std::string &, const Entry *,
                                                   const std::string &)> &Stop) const {
    // Breadth first over the call graph of the other units, remembering the function from which
    // each was reached.
    std::set<std::string> Seen{Name};
    std::vector<std::pair<std::string, std::string>> Work{{Name, ""}}; // function, its caller
    for (size_t I = 0; I < Work.size() && I < 4096; ++I) {
        auto It = Functions.find(Work[I].first);
        const Entry *E = It == Functions.end() ? nullptr : &It->second;
        if (std::optional<std::string> Found = Stop(Work[I].first, E, Work[I].second)) return Found;
        if (!E) continue;
        for (const std::string &C : E->Calls)
            if (Seen.insert(C).second) Work.push_back({C, Work[I].first});
    }
    return std::nullopt;
}

std::optional<std::string> ProjectFacts::hazard(const std::string &Name) const {
    return search(Name,
                  [&](const std::string &Fn, const Entry *E,
                      const std::string &) -> std::optional<std::string> {
                      if (!E || E->Hazard.empty()) return std::nullopt;
                      if (Fn == Name) return E->Hazard;
                      return "through '" + Fn + "' " + E->Hazard;
                  });
}

std::optional<std::string> ProjectFacts::unknown(const std::string &Name) const {
    return search(
        Name,
        [&](const std::string &Fn, const Entry *E,
            const std::string &Caller) -> std::optional<std::string> {
            if (E) return std::nullopt;
            if (Fn == Name)
                return std::string("is defined in another file whose facts are not known");
            return "through '" + Caller + "' calls '" + Fn + "', whose facts are not known";
        });
}

void ProjectFacts::unknownAll(const std::string &Name, std::set<std::string> &Out) const {
    search(Name,
           [&](const std::string &Fn, const Entry *E,
               const std::string &) -> std::optional<std::string> {
               if (!E) Out.insert(Fn);
               return std::nullopt;
           });
}

} // namespace rcl
