//===- Report.cpp - per-lock summary of what was converted and refused ------===//
#include "Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include <map>
#include <set>

using namespace llvm;

namespace rcl {

void Report::add(SectionRecord R) {
    for (const SectionRecord &Old : Records)
        if (Old.File == R.File && Old.Line == R.Line && Old.Column == R.Column) return;
    Records.push_back(std::move(R));
}

unsigned Report::count(SectionRecord::Outcome O) const {
    unsigned N = 0;
    for (const SectionRecord &R : Records)
        N += R.Result == O;
    return N;
}

namespace {
struct LockSummary {
    unsigned Converted = 0, Refused = 0, Nested = 0, NotCompiled = 0;
    std::map<std::string, unsigned> Reasons;
    std::map<std::string, unsigned> NotCompiledReasons;
};

std::map<std::string, LockSummary> summarise(const std::vector<SectionRecord> &Records) {
    std::map<std::string, LockSummary> Locks;
    for (const SectionRecord &R : Records) {
        LockSummary &L = Locks[R.Lock];
        if (R.Result == SectionRecord::Converted)
            ++L.Converted;
        else if (R.Result == SectionRecord::Nested)
            ++L.Nested;
        else if (R.Result == SectionRecord::NotCompiled) {
            ++L.NotCompiled;
            ++L.NotCompiledReasons[R.Reason];
        } else {
            ++L.Refused;
            ++L.Reasons[R.Reason];
        }
    }
    return Locks;
}
} // namespace

void Report::dropFile(StringRef File) {
    llvm::erase_if(Records, [&](const SectionRecord &R) { return R.File == File; });
}

void Report::markNotCompiled(StringRef File, StringRef Why) {
    for (SectionRecord &R : Records)
        if (R.File == File && R.Result == SectionRecord::Converted) {
            R.Result = SectionRecord::NotCompiled;
            R.Reason =
                ("the rewritten file did not compile, so it was left as it was: " + Why).str();
        }
}

unsigned Report::waitingForFacts() const {
    unsigned N = 0;
    for (const SectionRecord &R : Records)
        N += R.Result == SectionRecord::Refused && R.WaitsForFacts;
    return N;
}

json::Array Report::unknownCallees() const {
    std::set<std::string> All;
    for (const SectionRecord &R : Records)
        if (R.Result == SectionRecord::Refused && R.WaitsForFacts)
            All.insert(R.UnknownCallees.begin(), R.UnknownCallees.end());
    json::Array Out;
    for (const std::string &N : All)
        Out.push_back(N);
    return Out;
}

void Report::setCoverage(const std::vector<Selection::WeightedSite> &Sites,
                         const std::vector<std::string> &FilesRead) {
    CoverageSites = Sites;
    CoverageFiles = FilesRead;
}

/// What would make a site of a refused section convertible, from its reason (the reasons are
/// the rewriter's own, docs/rewriter.md "Refusals").
static std::string adviceFor(StringRef Status, StringRef Reason) {
    static const std::pair<const char *, const char *> Table[] = {
        {"whose facts are not known",
         "build with `rcl build -- <build command>` (or a --facts-dir scan) so the callee's "
         "file is known"},
        {"trylock", "none: a trylock section stays as written (mixed mode keeps it exclusive)"},
        {"timedlock", "take the timed lock as a statement before the section, its result checked "
                      "or stored there (`if (pthread_mutex_timedlock(&m, &t) != 0) return -1;`): "
                      "such a section converts (rcl_delegate_timed); one inside the `if` of its "
                      "timed lock stays as written"},
        {"a worker loop", "rotate the loop: lock at the top of each iteration, unlock before "
                          "its work"},
        {"still held at the end of its block",
         "release the lock in the block that takes it (a getter or pause/resume pair cannot "
         "be delegated), or declare its wrappers (--lock-fn/--unlock-fn)"},
        {"inside a macro expansion",
         "write the section out where the macro is used, or make the macro call a function "
         "that holds it"},
        {"returns while holding the lock", "release the lock before returning"},
        {"leaves the critical section while holding the lock",
         "release the lock before leaving the block"},
        {"the calling thread", "move what acts on the calling thread out of the section"},
        {"creates a thread", "create the thread after the unlock"},
        {"another lock", "take and release the other lock inside the section, or outside it"},
        {"released and taken again", "split the section at the unlock"},
        {"variable arguments", "start the variable arguments with va_start in the section itself "
                               "or before it, not through another macro"},
    };
    if (Status == "not-found")
        return "none found by the tool: the call is not a lock statement of a function of "
               "the files read (a header's inline function, a lock in an expression)";
    if (Status == "not-read") return "convert the file that holds it too";
    if (Status == "not-compiled")
        return "report the rewriter fault (the rewritten file did "
               "not compile)";
    for (const auto &[Key, Advice] : Table)
        if (Reason.contains(Key) || Status.contains(Key)) return Advice;
    return "see docs/rewriter.md, \"Refusals\"";
}

json::Array Report::coverage() const {
    // Sites by lock, in the profile's order.
    std::vector<std::string> Locks;
    for (const Selection::WeightedSite &S : CoverageSites)
        if (!llvm::is_contained(Locks, S.Lock)) Locks.push_back(S.Lock);
    json::Array Out;
    for (const std::string &Lock : Locks) {
        uint64_t Total = 0, Converted = 0;
        std::vector<std::pair<const Selection::WeightedSite *, json::Object>> Others;
        for (const Selection::WeightedSite &S : CoverageSites) {
            if (S.Lock != Lock) continue;
            Total += S.Count;
            const SectionRecord *Match = nullptr;
            for (const SectionRecord &R : Records)
                if (R.Line == S.Line && samePath(S.File, R.File)) Match = &R;
            std::string Status, Reason;
            if (S.Kind == "delegate" || (Match && (Match->Result == SectionRecord::Converted ||
                                                   Match->Result == SectionRecord::Nested))) {
                Converted += S.Count;
                continue;
            }
            if (Match) {
                Status = Match->Result == SectionRecord::Refused ? "refused" : "not-compiled";
                Reason = Match->Reason;
            } else if (S.Kind == "trylock" || S.Kind == "timedlock") {
                Status = S.Kind; // a trylock is never a section (case 15), nor a timed lock
                                 // that is not a statement of its own
            } else {
                bool Read = llvm::any_of(CoverageFiles,
                                         [&](const std::string &F) { return samePath(S.File, F); });
                Status = Read ? "not-found" : "not-read";
            }
            json::Object Site{{"file", S.File},
                              {"line", S.Line},
                              {"function", S.Function},
                              {"kind", S.Kind},
                              {"count", (int64_t)S.Count},
                              {"status", Status},
                              {"advice", adviceFor(Status, Reason)}};
            if (!Reason.empty()) Site["reason"] = Reason;
            Others.push_back({&S, std::move(Site)});
        }
        // By count, ties in the profile's order (the sites are one vector).
        std::sort(Others.begin(), Others.end(), [](const auto &A, const auto &B) {
            return A.first->Count != B.first->Count ? A.first->Count > B.first->Count
                                                    : A.first < B.first;
        });
        json::Array Sites;
        for (auto &[S, Site] : Others) {
            Site["share"] = Total ? (double)S->Count / Total : 0.0;
            Sites.push_back(std::move(Site));
        }
        double Share = Total ? (double)Converted / Total : 0.0;
        Out.push_back(json::Object{{"lock", Lock},
                                   {"acquisitions", (int64_t)Total},
                                   {"converted_share", Share},
                                   {"flagged", Total && 1.0 - Share > 0.10},
                                   {"unconverted_sites", std::move(Sites)}});
    }
    return Out;
}

void Report::noteWrapper(const std::string &Name, const std::string &Role,
                         const std::string &Seen) {
    auto [It, New] = Wrappers.try_emplace(Name, Role, Seen);
    // A function anywhere wins; then a macro.
    if (!New && (Seen == "function" || (Seen == "macro" && It->second.second == "unseen")))
        It->second.second = Seen;
}

/// The warning for a declared wrapper name that is no function of the files read, or "".
static std::string wrapperWarning(const std::string &Name, const std::string &Role,
                                  const std::string &Seen) {
    if (Seen == "macro")
        return "'" + Name + "', declared as " + (Role == "lock" ? "a" : "an") + " " + Role +
               " wrapper, is a macro: macros are matched after expansion and need no "
               "declaration (declare the functions it calls, if those are wrappers)";
    if (Seen == "unseen")
        return "'" + Name + "', declared as " + (Role == "lock" ? "a" : "an") + " " + Role +
               " wrapper, is not a function of any file read";
    return "";
}

void Report::printSummary(raw_ostream &OS) const {
    for (auto &[Name, What] : Wrappers)
        if (std::string W = wrapperWarning(Name, What.first, What.second); !W.empty())
            OS << "rcl: warning: " << W << "\n";
    if (Records.empty()) {
        OS << "rcl: no critical section matched the selection\n";
        return;
    }
    OS << "rcl: summary: " << count(SectionRecord::Converted) << " converted, "
       << count(SectionRecord::Refused) << " refused";
    if (unsigned N = count(SectionRecord::NotCompiled))
        OS << ", " << N << " not converted (the rewritten file did not compile)";
    OS << "\n";
    for (auto &[Name, L] : summarise(Records)) {
        OS << "rcl:   lock '" << Name << "': " << L.Converted << " converted, " << L.Refused
           << " refused";
        if (L.Nested) OS << ", " << L.Nested << " kept inside a converted section";
        if (L.NotCompiled) OS << ", " << L.NotCompiled << " not compiled";
        OS << "\n";
        for (auto &[Reason, N] : L.Reasons)
            OS << "rcl:     refused " << N << "x: " << Reason << "\n";
        for (auto &[Reason, N] : L.NotCompiledReasons)
            OS << "rcl:     not compiled " << N << "x: " << Reason << "\n";
    }
    for (const json::Value &V : coverage()) {
        const json::Object &C = *V.getAsObject();
        double Share = C.getNumber("converted_share").value_or(0);
        OS << "rcl: coverage of '" << *C.getString("lock") << "': " << format("%.1f", 100 * Share)
           << " % of its " << *C.getInteger("acquisitions")
           << " profiled acquisitions run through converted sections";
        if (*C.getBoolean("flagged"))
            OS << "; " << format("%.1f", 100 * (1 - Share))
               << " % do not (over 10 %: delegation would keep moving the lock's cache lines)";
        OS << "\n";
        for (const json::Value &SV : *C.getArray("unconverted_sites")) {
            const json::Object &S = *SV.getAsObject();
            OS << "rcl:     " << format("%5.1f", 100 * S.getNumber("share").value_or(0)) << " % at "
               << sys::path::filename(*S.getString("file")) << ":" << *S.getInteger("line") << " "
               << S.getString("function").value_or("") << "(): " << *S.getString("status");
            if (std::optional<StringRef> Reason = S.getString("reason")) OS << ": " << *Reason;
            OS << " -- to convert it: " << *S.getString("advice") << "\n";
        }
    }
}

Error Report::writeJson(StringRef Path) const {
    json::Array Locks;
    for (auto &[Name, L] : summarise(Records)) {
        json::Array Reasons;
        for (auto &[Reason, N] : L.Reasons)
            Reasons.push_back(json::Object{{"reason", Reason}, {"count", N}});
        json::Array Sections;
        for (const SectionRecord &R : Records) {
            if (R.Lock != Name) continue;
            json::Object S{{"file", R.File},
                           {"line", R.Line},
                           {"column", R.Column},
                           {"function", R.Function},
                           {"status", R.Result == SectionRecord::Converted     ? "converted"
                                      : R.Result == SectionRecord::Refused     ? "refused"
                                      : R.Result == SectionRecord::NotCompiled ? "not-compiled"
                                                                               : "nested"}};
            if (R.Result == SectionRecord::Refused || R.Result == SectionRecord::NotCompiled)
                S["reason"] = R.Reason;
            if (R.WaitsForFacts) {
                S["waits_for_facts"] = true;
                json::Array Unknown;
                for (const std::string &N : R.UnknownCallees)
                    Unknown.push_back(N);
                S["unknown_callees"] = std::move(Unknown);
            }
            if (R.Result == SectionRecord::Converted) {
                S["captures"] = R.Captures;
                S["exits"] = R.Exits;
                if (!R.AsCaller.empty()) S["as_caller"] = R.AsCaller;
                if (!R.Notes.empty()) {
                    json::Array Notes;
                    for (const std::string &N : R.Notes)
                        Notes.push_back(N);
                    S["notes"] = std::move(Notes);
                }
            }
            Sections.push_back(std::move(S));
        }
        Locks.push_back(json::Object{{"name", Name},
                                     {"converted", L.Converted},
                                     {"refused", L.Refused},
                                     {"nested", L.Nested},
                                     {"not_compiled", L.NotCompiled},
                                     {"refusals", std::move(Reasons)},
                                     {"sections", std::move(Sections)}});
    }
    json::Array WrapperList;
    for (auto &[Name, What] : Wrappers) {
        json::Object W{{"name", Name}, {"role", What.first}, {"seen", What.second}};
        if (std::string Warning = wrapperWarning(Name, What.first, What.second); !Warning.empty())
            W["warning"] = Warning;
        WrapperList.push_back(std::move(W));
    }
    json::Object Root{{"schema", "rcl-rewrite-report/1"},
                      {"coverage", coverage()},
                      {"wrappers", std::move(WrapperList)},
                      {"converted", count(SectionRecord::Converted)},
                      {"refused", count(SectionRecord::Refused)},
                      {"not_compiled", count(SectionRecord::NotCompiled)},
                      {"waiting_for_facts", waitingForFacts()},
                      {"unknown_callees", unknownCallees()},
                      {"locks", std::move(Locks)}};
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
    if (EC) return createStringError(EC, "cannot write report '" + Path + "'");
    OS << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
    return Error::success();
}

} // namespace rcl
