//===- ProjectFacts.cpp - what the functions of other files do -------------===//
#include "ProjectFacts.h"
#include "CallerState.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <tuple>
#include <unistd.h>

namespace json = llvm::json;

namespace rcl {

/// At most this many effects are kept per function: beyond, the facts of a function say less
/// than it does (docs/rewriter.md, "Known gaps").
static const size_t MaxEffects = 256;

Effect Effect::substitute(const std::vector<MutexPath> &CallArgs) const {
    Effect Out = *this;
    if (!Out.Mutex.empty()) Out.Mutex = Mutex.substitute(CallArgs);
    for (MutexPath &A : Out.Args)
        if (!A.empty()) A = A.substitute(CallArgs);
    return Out;
}

std::string Effect::key() const {
    std::string Out = std::to_string(static_cast<int>(K)) + "\x1e" + Mutex.key() + "\x1e" + Name +
                      "\x1e" + In + "\x1e" + Where;
    for (const MutexPath &A : Args)
        Out += "\x1e" + A.key();
    return Out;
}

static std::string returnOf(const std::string &Sig) {
    return Sig.substr(0, Sig.find('|'));
}
static bool unprototyped(const std::string &Sig) {
    return Sig.size() >= 2 && Sig.compare(Sig.size() - 2, 2, "|?") == 0;
}

bool compatibleSignatures(const std::string &A, const std::string &B) {
    if (A == B) return true;
    return (unprototyped(A) || unprototyped(B)) && returnOf(A) == returnOf(B);
}

std::string ProjectFacts::unitKey(const std::string &RealPath) {
    std::string Name = RealPath;
    for (char &C : Name)
        if (!isalnum(static_cast<unsigned char>(C)) && C != '.' && C != '-' && C != '_') C = '_';
    return Name;
}

std::string ProjectFacts::functionKey(const std::string &Name, bool Internal,
                                      const std::string &Unit) {
    return Internal ? Name + "@" + Unit : Name;
}

/// A function's name for messages (a static function's key without its unit).
static std::string shown(const std::string &Key) {
    return Key.substr(0, Key.find('@'));
}

static const char *kindName(Effect::Kind K) {
    switch (K) {
    case Effect::Kind::Take:
        return "take";
    case Effect::Kind::TryTake:
        return "trytake";
    case Effect::Kind::Release:
        return "release";
    case Effect::Kind::Wait:
        return "wait";
    case Effect::Kind::Call:
        return "call";
    case Effect::Kind::IndirectCall:
        return "icall";
    }
    return "call";
}

static json::Array pathJson(const MutexPath &P) {
    json::Array A;
    for (const std::string &S : P.Steps)
        A.push_back(S);
    return A;
}

static MutexPath pathFrom(const json::Value *V) {
    MutexPath P;
    if (const json::Array *A = V ? V->getAsArray() : nullptr)
        for (const json::Value &S : *A)
            if (std::optional<llvm::StringRef> Str = S.getAsString()) P.Steps.push_back(Str->str());
    return P;
}

static json::Object effectJson(const Effect &E) {
    json::Object O{{"k", kindName(E.K)}, {"in", E.In}, {"at", E.Where}};
    if (!E.Mutex.empty()) O["m"] = pathJson(E.Mutex);
    if (!E.Name.empty()) O["n"] = E.Name;
    if (!E.Pointer.empty()) O["p"] = E.Pointer;
    if (E.K == Effect::Kind::Call || E.K == Effect::Kind::IndirectCall) {
        json::Array Args;
        for (const MutexPath &A : E.Args)
            Args.push_back(pathJson(A));
        O["a"] = std::move(Args);
    }
    return O;
}

static std::optional<Effect> effectFrom(const json::Object &O) {
    static const std::map<std::string, Effect::Kind> Kinds{
        {"take", Effect::Kind::Take},       {"trytake", Effect::Kind::TryTake},
        {"release", Effect::Kind::Release}, {"wait", Effect::Kind::Wait},
        {"call", Effect::Kind::Call},       {"icall", Effect::Kind::IndirectCall}};
    std::optional<llvm::StringRef> K = O.getString("k");
    auto It = K ? Kinds.find(K->str()) : Kinds.end();
    if (It == Kinds.end()) return std::nullopt;
    Effect E;
    E.K = It->second;
    E.Mutex = pathFrom(O.get("m"));
    E.Name = O.getString("n").value_or("").str();
    E.Pointer = O.getString("p").value_or("").str();
    E.In = O.getString("in").value_or("").str();
    E.Where = O.getString("at").value_or("").str();
    if (const json::Array *Args = O.getArray("a"))
        for (const json::Value &A : *Args)
            E.Args.push_back(pathFrom(&A));
    return E;
}

void ProjectFacts::merge(const std::string &Key, const Entry &E, bool Replace) {
    auto [It, New] = Functions.try_emplace(Key, E);
    if (New || Replace) {
        if (!New) It->second = E;
        return;
    }
    // One name defined by two units (two programs of one build): what either does.
    Entry &Old = It->second;
    if (Old.Hazard.empty() || (!E.Hazard.empty() && harderHazard(E.Hazard, Old.Hazard)))
        Old.Hazard = E.Hazard;
    for (const std::string &C : E.Calls)
        if (std::find(Old.Calls.begin(), Old.Calls.end(), C) == Old.Calls.end())
            Old.Calls.push_back(C);
    for (const Effect &X : E.Effects)
        if (Old.Effects.size() < MaxEffects) Old.Effects.push_back(X);
}

// File format: one JSON object a line: a function, {"fn": key, "name": ..., "unit": ...,
// "hazard": ..., "calls": [keys], "effects": [...], "library": true?, "allocator": true?}, an
// address-taken function, {"taken": key, "sig": signature, "unit": the unit that takes its
// address}, a mutex the unit initializes, {"mutex": key, "plain": bool}, or a declared wrapper pair
// it defines, {"pair": "lock/unlock", "why_not": ..., "via": ...} (PairFacts).

/// Each line of a facts file that is a JSON object, with its text.
template <typename Fn> static void eachRecord(llvm::StringRef Buffer, Fn &&Visit) {
    while (!Buffer.empty()) {
        llvm::StringRef Line;
        std::tie(Line, Buffer) = Buffer.split('\n');
        llvm::Expected<json::Value> V = json::parse(Line);
        if (!V) {
            llvm::consumeError(V.takeError());
            continue;
        }
        if (const json::Object *O = V->getAsObject()) Visit(*O, Line);
    }
}

void ProjectFacts::load(const std::string &Dir) {
    Complete = llvm::sys::fs::exists(Dir + "/complete");
    if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
            llvm::MemoryBuffer::getFile(Dir + "/programs.json")) {
        llvm::Expected<json::Value> V = json::parse((*Buf)->getBuffer());
        if (!V) llvm::consumeError(V.takeError());
        const json::Object *O = V ? V->getAsObject() : nullptr;
        if (const json::Object *Units = O ? O->getObject("units") : nullptr)
            for (const auto &[Unit, Group] : *Units)
                if (const json::Array *A = Group.getAsArray())
                    for (const json::Value &G : *A)
                        if (std::optional<llvm::StringRef> S = G.getAsString())
                            Programs[Unit.str()].insert(S->str());
    }
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
        if (llvm::sys::path::extension(It->path()) != ".facts") continue;
        llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
            llvm::MemoryBuffer::getFile(It->path());
        if (!Buf) continue;
        eachRecord((*Buf)->getBuffer(), [&](const json::Object &Record, llvm::StringRef) {
            const json::Object *O = &Record;
            if (std::optional<llvm::StringRef> Key = O->getString("mutex")) {
                bool Plain = O->getBoolean("plain").value_or(false);
                auto [It, New] = Mutexes.try_emplace(Key->str(), Plain);
                if (!New) It->second = It->second && Plain;
                return;
            }
            if (std::optional<llvm::StringRef> Key = O->getString("pair")) {
                mergePair(Key->str(), {O->getString("why_not").value_or("").str(),
                                       O->getString("via").value_or("").str()});
                return;
            }
            if (std::optional<llvm::StringRef> Key = O->getString("taken")) {
                if (std::optional<llvm::StringRef> Sig = O->getString("sig"))
                    Taken[Sig->str()].insert({Key->str(), O->getString("unit").value_or("").str()});
                return;
            }
            std::optional<llvm::StringRef> Key = O->getString("fn");
            if (!Key || Key->empty()) return;
            Entry E;
            E.Name = O->getString("name").value_or(*Key).str();
            E.Unit = O->getString("unit").value_or("").str();
            E.Hazard = O->getString("hazard").value_or("").str();
            E.Library = O->getBoolean("library").value_or(false);
            E.Allocator = O->getBoolean("allocator").value_or(false);
            if (const json::Array *Calls = O->getArray("calls"))
                for (const json::Value &C : *Calls)
                    if (std::optional<llvm::StringRef> S = C.getAsString())
                        E.Calls.push_back(S->str());
            if (const json::Array *Effects = O->getArray("effects"))
                for (const json::Value &X : *Effects)
                    if (const json::Object *XO = X.getAsObject())
                        if (std::optional<Effect> Fx = effectFrom(*XO))
                            if (E.Effects.size() < MaxEffects) E.Effects.push_back(*Fx);
            merge(Key->str(), E, /*Replace=*/false);
        });
    }
}

void ProjectFacts::add(const UnitFacts &Unit) {
    for (const auto &[Key, E] : Unit.Functions)
        merge(Key, E, /*Replace=*/true);
    for (const auto &[Key, Sig] : Unit.Taken)
        Taken[Sig].insert({Key, Unit.Unit});
    for (const auto &[Key, Plain] : Unit.Mutexes) {
        auto [It, New] = Mutexes.try_emplace(Key, Plain);
        if (!New) It->second = It->second && Plain;
    }
    for (const auto &[Key, P] : Unit.Pairs)
        mergePair(Key, P);
}

void ProjectFacts::mergePair(const std::string &Key, const PairFacts &P) {
    // Two units of the build may define one pair (memcached's thread.c, and testapp.c's stubs
    // for another program). Sections through it delegate where the delegating unit is linked
    // (its getter is there) and run under the wrappers elsewhere (the weak getter is null), as
    // the original: a unit that delegates wins. The rest is by order, never by the order in
    // which the facts are read.
    auto [It, New] = Pairs.try_emplace(Key, P);
    if (New) return;
    auto Rank = [](const PairFacts &F) {
        return std::make_tuple(!F.WhyNot.empty(), F.WhyNot, F.Via);
    };
    if (Rank(P) < Rank(It->second)) It->second = P;
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

bool ProjectFacts::plainMutex(const std::string &Key) const {
    auto It = Key.empty() ? Mutexes.end() : Mutexes.find(Key);
    return It != Mutexes.end() && It->second;
}

bool ProjectFacts::save(const std::string &Dir, const std::string &Unit, const UnitFacts &Facts,
                        std::string &Error) {
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
        Error = "cannot create " + Dir + ": " + EC.message();
        return false;
    }
    // One file per unit, named after its real path, replaced atomically (parallel builds).
    std::string Path = Dir + "/" + unitKey(Unit) + ".facts";
    std::string Tmp = Path + ".tmp" + std::to_string(getpid());
    // Read, merged and replaced under the directory's lock: two compiles of one unit at once (a
    // parallel make, rcl build reading a unit with each of its compiles) would each keep the
    // records of neither, and the last rename would lose the other's.
    int LockFD = -1;
    if (std::error_code EC = llvm::sys::fs::openFileForWrite(
            Dir + "/.save.lock", LockFD, llvm::sys::fs::CD_OpenAlways, llvm::sys::fs::OF_None)) {
        Error = "cannot open " + Dir + "/.save.lock: " + EC.message();
        return false;
    }
    struct Unlock {
        int FD;
        ~Unlock() {
            llvm::sys::fs::unlockFile(FD);
            ::close(FD);
        }
    } Held{LockFD};
    if (std::error_code EC = llvm::sys::fs::lockFile(LockFD)) {
        Error = "cannot lock " + Dir + "/.save.lock: " + EC.message();
        return false;
    }
    // A unit compiled again with other flags (libtool's PIC and static objects: libxml2's
    // elfgcchack.h renames every wrapper of the PIC compile to `x__internal_alias`) keeps what
    // the other compile recorded under names, pairs and mutexes this one does not have: each
    // object links into its own product, whose sections look its names up.
    std::vector<std::string> Kept;
    if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Old = llvm::MemoryBuffer::getFile(Path))
        eachRecord((*Old)->getBuffer(), [&](const json::Object &O, llvm::StringRef Line) {
            bool Known = false;
            if (std::optional<llvm::StringRef> K = O.getString("fn"))
                Known = Facts.Functions.count(K->str()) != 0;
            else if (std::optional<llvm::StringRef> K = O.getString("pair"))
                Known = Facts.Pairs.count(K->str()) != 0;
            else if (std::optional<llvm::StringRef> K = O.getString("mutex"))
                Known = Facts.Mutexes.count(K->str()) != 0;
            else if (std::optional<llvm::StringRef> K = O.getString("taken"))
                Known = llvm::any_of(Facts.Taken, [&](const auto &T) { return T.first == *K; });
            if (!Known) Kept.push_back(Line.str());
        });
    {
        std::error_code EC;
        llvm::raw_fd_ostream OS(Tmp, EC);
        if (EC) {
            Error = "cannot write " + Tmp + ": " + EC.message();
            return false;
        }
        for (const auto &[Key, E] : Facts.Functions) {
            json::Array Calls, Effects;
            for (const std::string &C : E.Calls)
                Calls.push_back(C);
            for (const Effect &X : E.Effects)
                Effects.push_back(effectJson(X));
            json::Object O{{"fn", Key},
                           {"name", E.Name},
                           {"unit", E.Unit},
                           {"hazard", E.Hazard},
                           {"calls", std::move(Calls)},
                           {"effects", std::move(Effects)}};
            if (E.Library) O["library"] = true;
            if (E.Allocator) O["allocator"] = true;
            OS << json::Value(std::move(O)) << "\n";
        }
        for (const auto &[Key, Sig] : Facts.Taken)
            OS << json::Value(json::Object{{"taken", Key}, {"sig", Sig}, {"unit", Facts.Unit}})
               << "\n";
        for (const auto &[Key, Plain] : Facts.Mutexes)
            OS << json::Value(json::Object{{"mutex", Key}, {"plain", Plain}}) << "\n";
        for (const auto &[Key, P] : Facts.Pairs)
            OS << json::Value(json::Object{{"pair", Key}, {"why_not", P.WhyNot}, {"via", P.Via}})
               << "\n";
        for (const std::string &Line : Kept)
            OS << Line << "\n";
    }
    if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
        Error = "cannot write " + Path + ": " + EC.message();
        return false;
    }
    return true;
}

const ProjectFacts::Entry *ProjectFacts::find(const std::string &Key) const {
    auto It = Functions.find(Key);
    return It == Functions.end() ? nullptr : &It->second;
}

bool ProjectFacts::mayShareProgram(const std::string &From, const std::string &Other) const {
    auto Program = Programs.find(From);
    return Program == Programs.end() || Other.empty() || Program->second.count(Other);
}

std::vector<std::string> ProjectFacts::targets(const std::string &Sig,
                                               const std::string &From) const {
    std::set<std::string> Out;
    for (const auto &[S, Keys] : Taken)
        if (compatibleSignatures(S, Sig))
            for (const auto &[Key, Unit] : Keys)
                if (mayShareProgram(From, Unit)) Out.insert(Key);
    return {Out.begin(), Out.end()};
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
        const Entry *E = find(Work[I].first);
        if (std::optional<std::string> Found = Stop(Work[I].first, E, Work[I].second)) return Found;
        if (!E) continue;
        for (const std::string &C : E->Calls)
            if (Seen.insert(C).second) Work.push_back({C, Work[I].first});
    }
    return std::nullopt;
}

std::optional<std::string> ProjectFacts::hazard(const std::string &Name) const {
    // A hazard that refuses first (the walk stops there); a use of the caller's state, the
    // first one met, only where none is reached.
    std::optional<std::string> CallerState;
    std::optional<std::string> Found =
        search(Name,
               [&](const std::string &Fn, const Entry *E,
                   const std::string &) -> std::optional<std::string> {
                   if (!E || E->Hazard.empty()) return std::nullopt;
                   std::string Why =
                       Fn == Name ? E->Hazard : "through '" + shown(Fn) + "' " + E->Hazard;
                   if (!usesCallerState(E->Hazard)) return Why;
                   if (!CallerState) CallerState = std::move(Why);
                   return std::nullopt;
               });
    return Found ? Found : CallerState;
}

std::optional<std::string> ProjectFacts::unknown(const std::string &Name) const {
    return search(Name,
                  [&](const std::string &Fn, const Entry *E,
                      const std::string &Caller) -> std::optional<std::string> {
                      if (E) return std::nullopt;
                      if (Fn == Name)
                          return std::string(
                              "is defined in another file whose facts are not known");
                      // Name's own call: "calls 'h'", not "through 'f' calls 'h'" after
                      // "calls 'f', which".
                      return (Caller == Name ? std::string() : "through '" + shown(Caller) + "' ") +
                             "calls '" + shown(Fn) + "', whose facts are not known";
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
