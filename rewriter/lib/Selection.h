//===- Selection.h - which critical sections the user asked to convert -----===//
#ifndef RCL_REWRITER_SELECTION_H
#define RCL_REWRITER_SELECTION_H

#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// What the command line (or a config file, or RCL_CC_* variables) asked for.
struct SelectionOptions {
    bool All = false;
    std::vector<std::string> LockPatterns; ///< `cache_lock`, `item_locks[*]`, `*->mutex`
    std::string ProfilePath;               ///< profile.json from rcl-prof
    std::optional<double> MinCsPercent;    ///< with a profile: cs_percent threshold
    std::vector<std::string> At;           ///< `file:line`
};

/// Decides whether the critical section whose lock call is at File:Line (the call's spelling
/// in the file, i.e. a macro's use), locking LockName, is to be converted. A section is
/// selected when any one criterion matches it.
class Selection {
  public:
    static llvm::Expected<Selection> create(const SelectionOptions &Options);

    bool selects(llvm::StringRef LockName, llvm::StringRef File, unsigned Line,
                 unsigned LastLine) const;

  private:
    struct Site {
        std::string File;
        unsigned Line;
    };
    SelectionOptions Options;
    std::vector<Site> ProfileSites;
    std::vector<Site> AtSites;
};

/// Glob match where `*` is any run of characters and `?` any one character; spaces are
/// ignored on both sides so `item_locks[*]` matches `item_locks[hv & mask]`.
bool globMatch(llvm::StringRef Pattern, llvm::StringRef Name);

/// Whether a path recorded elsewhere (profile, --at) names File: same real path, or the
/// recorded path's components are a suffix of File's (basename at least).
bool samePath(llvm::StringRef Recorded, llvm::StringRef File);

} // namespace rcl

#endif
