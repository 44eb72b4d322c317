//===- Selection.cpp - which critical sections the user asked to convert ----===//
#include "Selection.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

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

Expected<Selection> Selection::create(const SelectionOptions &Options) {
    Selection S;
    S.Options = Options;
    for (const std::string &At : Options.At) {
        StringRef Ref(At);
        auto [File, LineText] = Ref.rsplit(':');
        unsigned Line = 0;
        if (File.empty() || LineText.getAsInteger(10, Line) || Line == 0)
            return createStringError(inconvertibleErrorCode(),
                                     "--at expects file:line, got '" + At + "'");
        S.AtSites.push_back({File.str(), Line});
    }
    if (!Options.ProfilePath.empty()) {
        ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Options.ProfilePath);
        if (!Buffer)
            return createStringError(Buffer.getError(),
                                     "cannot read profile '" + Options.ProfilePath + "'");
        Expected<json::Value> Root = json::parse((*Buffer)->getBuffer());
        if (!Root)
            return createStringError(inconvertibleErrorCode(),
                                     "profile '" + Options.ProfilePath +
                                         "' is not JSON: " + toString(Root.takeError()));
        const json::Object *Object = Root->getAsObject();
        std::optional<StringRef> Schema = Object ? Object->getString("schema") : std::nullopt;
        if (!Schema || !Schema->starts_with("rcl-profile/1"))
            return createStringError(inconvertibleErrorCode(),
                                     "profile '" + Options.ProfilePath +
                                         "' has no schema \"rcl-profile/1\"");
        if (const json::Array *Locks = Object->getArray("locks"))
            for (const json::Value &LockValue : *Locks) {
                const json::Object *Lock = LockValue.getAsObject();
                if (!Lock) continue;
                bool Chosen;
                if (Options.MinCsPercent)
                    Chosen = Lock->getNumber("cs_percent").value_or(-1) >= *Options.MinCsPercent;
                else
                    Chosen = Lock->getString("recommendation").value_or("") == "convert";
                const json::Array *Sites = Lock->getArray("sites");
                if (!Chosen || !Sites) continue;
                for (const json::Value &SiteValue : *Sites) {
                    const json::Object *Site = SiteValue.getAsObject();
                    if (!Site || Site->getString("kind").value_or("lock") != "lock") continue;
                    std::optional<StringRef> File = Site->getString("file");
                    std::optional<int64_t> Line = Site->getInteger("line");
                    if (File && Line && *Line > 0)
                        S.ProfileSites.push_back({File->str(), (unsigned)*Line});
                }
            }
    }
    return S;
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
