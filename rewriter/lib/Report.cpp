//===- Report.cpp - per-lock summary of what was converted and refused ------===//
#include "Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include <map>

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
            if (R.WaitsForFacts) S["waits_for_facts"] = true;
            if (R.Result == SectionRecord::Converted) {
                S["captures"] = R.Captures;
                S["exits"] = R.Exits;
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
                      {"wrappers", std::move(WrapperList)},
                      {"converted", count(SectionRecord::Converted)},
                      {"refused", count(SectionRecord::Refused)},
                      {"not_compiled", count(SectionRecord::NotCompiled)},
                      {"waiting_for_facts", waitingForFacts()},
                      {"locks", std::move(Locks)}};
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
    if (EC) return createStringError(EC, "cannot write report '" + Path + "'");
    OS << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
    return Error::success();
}

} // namespace rcl
