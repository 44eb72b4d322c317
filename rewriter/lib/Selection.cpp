//===- Selection.cpp - which critical sections the user asked to convert ----===//
#include "Selection.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace llvm;

namespace rcl {

bool globMatch(StringRef Pattern, StringRef Name) {
    std::string P, N;
    for (char C : Pattern)
        if (C != ' ' && C != '\t') P += C;
    for (char C : Name)
        if (C != ' ' && C != '\t') N += C;
    // Iterative matcher with single-star backtracking.
    size_t PI = 0, NI = 0, Star = std::string::npos, Mark = 0;
    while (NI < N.size()) {
        if (PI < P.size() && (P[PI] == '?' || P[PI] == N[NI])) {
            ++PI;
            ++NI;
        } else if (PI < P.size() && P[PI] == '*') {
            Star = PI++;
            Mark = NI;
        } else if (Star != std::string::npos) {
            PI = Star + 1;
            NI = ++Mark;
        } else {
            return false;
        }
    }
    while (PI < P.size() && P[PI] == '*')
        ++PI;
    return PI == P.size();
}

bool samePath(StringRef Recorded, StringRef File) {
    SmallString<256> A, B;
    if (!sys::fs::real_path(Recorded, A) && !sys::fs::real_path(File, B)) return A == B;
    SmallString<256> FileAbs(File);
    sys::fs::make_absolute(FileAbs);
    sys::path::remove_dots(FileAbs, /*remove_dot_dot=*/true);
    auto RI = sys::path::rbegin(Recorded), RE = sys::path::rend(Recorded);
    auto FI = sys::path::rbegin(FileAbs), FE = sys::path::rend(FileAbs);
    bool Any = false;
    for (; RI != RE && FI != FE; ++RI, ++FI) {
        if (*RI == "." || *RI != *FI) break;
        Any = true;
    }
    return Any;
}

std::string lockGroup(StringRef Name) {
    Name = Name.split('#').first;
    if (Name.starts_with("site:")) return Name.str();
    return Name.split('+').first.str();
}

namespace {

/// A lock's share of thread time in critical sections, unrounded when the profile allows.
double csShare(const json::Object &Lock, double ThreadTimeS) {
    if (const json::Object *Hold = Lock.getObject("hold_ns"))
        if (std::optional<double> Total = Hold->getNumber("total"); Total && ThreadTimeS > 0)
            return *Total / (ThreadTimeS * 1e9) * 100;
    return Lock.getNumber("cs_percent").value_or(0);
}

/// A recorded site path read through the first matching `OLD=NEW` map.
std::string mapPath(StringRef File, const std::vector<std::string> &Maps) {
    for (StringRef Map : Maps) {
        auto [Old, New] = Map.split('=');
        Old = Old.rtrim('/');
        if (!Old.empty() && File.starts_with(Old) &&
            (File.size() == Old.size() || File[Old.size()] == '/'))
            return (New.rtrim('/') + File.substr(Old.size())).str();
    }
    return File.str();
}

} // namespace

Expected<Selection> Selection::create(const SelectionOptions &Options) {
    Selection S;
    S.Options = Options;
    auto Fail = [](const Twine &Message) {
        return createStringError(inconvertibleErrorCode(), Message);
    };
    for (const std::string &At : Options.At) {
        StringRef Ref(At);
        auto [File, LineText] = Ref.rsplit(':');
        unsigned Line = 0;
        if (File.empty() || LineText.getAsInteger(10, Line) || Line == 0)
            return Fail("--at expects file:line, got '" + At + "'");
        S.AtSites.push_back({File.str(), Line});
    }
    for (StringRef Map : Options.ProfilePrefixMaps)
        if (!Map.contains('=') || Map.starts_with("="))
            return Fail("--profile-prefix-map expects OLD=NEW, got '" + Map + "'");
    unsigned Rules = Options.MinCsPercent.has_value() + Options.Hottest.has_value() +
                     !Options.ProfileLocks.empty();
    if (Rules > 1)
        return Fail("--hottest, --min-cs-percent and --profile-lock are different rules for "
                    "choosing a profile's locks: give one");
    if ((Rules || !Options.ProfilePrefixMaps.empty()) && Options.ProfilePath.empty())
        return Fail("--hottest, --min-cs-percent, --profile-lock and --profile-prefix-map "
                    "choose from a profile: add --profile");
    if (Options.ProfilePath.empty()) return S;

    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Options.ProfilePath);
    if (!Buffer)
        return createStringError(Buffer.getError(),
                                 "cannot read profile '" + Options.ProfilePath + "'");
    Expected<json::Value> Root = json::parse((*Buffer)->getBuffer());
    if (!Root)
        return Fail("profile '" + Options.ProfilePath +
                    "' is not JSON: " + toString(Root.takeError()));
    const json::Object *Object = Root->getAsObject();
    std::optional<StringRef> Schema = Object ? Object->getString("schema") : std::nullopt;
    if (!Schema || !Schema->starts_with("rcl-profile/1"))
        return Fail("profile '" + Options.ProfilePath + "' has no schema \"rcl-profile/1\"");
    double ThreadTimeS = Object->getNumber("thread_time_s").value_or(0);

    // The candidates: locks tracked one by one that were acquired, in the profile's order.
    std::vector<json::Object> Candidates;
    if (const json::Array *Locks = Object->getArray("locks"))
        for (const json::Value &LockValue : *Locks) {
            const json::Object *Lock = LockValue.getAsObject();
            if (!Lock || Lock->getString("identity").value_or("") == "overflow" ||
                Lock->getInteger("acquisitions").value_or(1) <= 0)
                continue;
            json::Object Copy = *Lock;
            Copy["group"] = lockGroup(Lock->getString("name").value_or(""));
            Copy["cs_share"] = csShare(*Lock, ThreadTimeS);
            Candidates.push_back(std::move(Copy));
        }
    auto Share = [](const json::Object &Lock) { return *Lock.getNumber("cs_share"); };
    if (!Options.ProfileLocks.empty()) {
        S.ProfileRule = "profile-lock";
        for (json::Object &Lock : Candidates) {
            StringRef Name = Lock.getString("name").value_or("");
            StringRef Group = *Lock.getString("group");
            for (const std::string &Pattern : Options.ProfileLocks)
                if (globMatch(Pattern, Name) || globMatch(Pattern, Group)) {
                    S.ProfileLocks.push_back(std::move(Lock));
                    break;
                }
        }
    } else if (Options.Hottest) {
        S.ProfileRule = "hottest " + std::to_string(*Options.Hottest);
        // By share, ties in the profile's order.
        std::vector<size_t> Order(Candidates.size());
        for (size_t I = 0; I < Order.size(); ++I)
            Order[I] = I;
        std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
            double SA = Share(Candidates[A]), SB = Share(Candidates[B]);
            return SA != SB ? SA > SB : A < B;
        });
        for (size_t I : Order)
            if (S.ProfileLocks.size() < *Options.Hottest)
                S.ProfileLocks.push_back(std::move(Candidates[I]));
    } else if (Options.MinCsPercent) {
        raw_string_ostream(S.ProfileRule)
            << "min-cs-percent " << format("%g", *Options.MinCsPercent);
        for (json::Object &Lock : Candidates)
            if (Share(Lock) >= *Options.MinCsPercent) S.ProfileLocks.push_back(std::move(Lock));
    } else {
        S.ProfileRule = "recommendation";
        for (json::Object &Lock : Candidates)
            if (Lock.getString("recommendation").value_or("") == "convert")
                S.ProfileLocks.push_back(std::move(Lock));
    }
    for (const json::Object &Lock : S.ProfileLocks)
        if (const json::Array *Sites = Lock.getArray("sites"))
            for (const json::Value &SiteValue : *Sites) {
                const json::Object *Site = SiteValue.getAsObject();
                std::optional<StringRef> File = Site ? Site->getString("file") : std::nullopt;
                std::optional<int64_t> Line = Site ? Site->getInteger("line") : std::nullopt;
                if (!File || !Line || *Line <= 0) continue;
                std::string Path = mapPath(*File, Options.ProfilePrefixMaps);
                StringRef Kind = Site->getString("kind").value_or("lock");
                S.Weighted.push_back(
                    {Lock.getString("name").value_or("").str(), Path, (unsigned)*Line,
                     Site->getString("function").value_or("").str(), Kind.str(),
                     (uint64_t)std::max<int64_t>(0, Site->getInteger("count").value_or(0))});
                if (Kind == "lock") S.ProfileSites.push_back({Path, (unsigned)*Line});
            }
    return S;
}

json::Value Selection::describeProfileSelection(const std::vector<std::string> &Files) const {
    json::Array Locks, Holding;
    for (const json::Object &Lock : ProfileLocks)
        Locks.push_back(json::Object(Lock));
    for (const std::string &File : Files)
        for (const Site &S : ProfileSites)
            if (samePath(S.File, File)) {
                Holding.push_back(File);
                break;
            }
    return json::Object{
        {"rule", ProfileRule}, {"locks", std::move(Locks)}, {"files", std::move(Holding)}};
}

bool Selection::selects(StringRef LockName, StringRef File, unsigned Line,
                        unsigned LastLine) const {
    if (Options.All) return true;
    for (const std::string &Pattern : Options.LockPatterns)
        if (globMatch(Pattern, LockName)) return true;
    for (const Site &S : ProfileSites)
        if (S.Line == Line && samePath(S.File, File)) return true;
    for (const Site &S : AtSites)
        if (S.Line >= Line && S.Line <= LastLine && samePath(S.File, File)) return true;
    return false;
}

} // namespace rcl
