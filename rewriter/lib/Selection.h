//===- Selection.h - which critical sections the user asked to convert -----===//
#ifndef RCL_REWRITER_SELECTION_H
#define RCL_REWRITER_SELECTION_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// What the command line (or a config file, or RCL_CC_* variables) asked for.
struct SelectionOptions {
    bool All = false;
    std::vector<std::string> LockPatterns;      ///< `cache_lock`, `item_locks[*]`, `*->mutex`
    std::string ProfilePath;                    ///< profile.json from rcl-prof
    std::optional<double> MinCsPercent;         ///< with a profile: cs_percent threshold
    std::optional<unsigned> Hottest;            ///< with a profile: the N hottest locks
    std::vector<std::string> ProfileLocks;      ///< with a profile: these locks (names, patterns)
    std::vector<std::string> ProfilePrefixMaps; ///< `OLD=NEW`: a site under OLD is under NEW
    std::vector<std::string> At;                ///< `file:line`
};

/// Decides whether the critical section whose lock call is at File:Line (the call's spelling
/// in the file, i.e. a macro's use), locking LockName, is to be converted. A section is
/// selected when any one criterion matches it.
///
/// This is also the one place that decides which locks of a profile are converted (rcl, rcl-cc
/// and the benchmarks pass options here, `--print-selection` shows the outcome). Of the locks
/// the profile tracked one by one and that were acquired (not the summary of untracked locks):
///  - `--profile-lock NAME`: those whose name, or whose group (the name without its `+offset`
///    and `#generation`: every element of an array, every incarnation), matches NAME;
///  - `--hottest N`: the N with the largest share of thread time in critical sections;
///  - `--min-cs-percent X`: those with at least X % of thread time in critical sections;
///  - otherwise: those rcl-prof recommends (`"recommendation": "convert"`).
/// The share is hold_ns.total over the profile's thread time when both are there (cs_percent
/// is rounded), else cs_percent.
class Selection {
  public:
    static llvm::Expected<Selection> create(const SelectionOptions &Options);

    bool selects(llvm::StringRef LockName, llvm::StringRef File, unsigned Line,
                 unsigned LastLine) const;

    /// The profile's selected locks and the rule that chose them, and which of Files hold one
    /// of their call sites: `{"rule": ..., "locks": [...], "files": [...]}`. Each lock is the
    /// profile's object with "group" and "cs_share" (the share used for ranking) added.
    llvm::json::Value describeProfileSelection(const std::vector<std::string> &Files) const;

    /// A call site of a selected profile lock, with the acquisitions the profile counted there.
    struct WeightedSite {
        std::string Lock; ///< the profile's name of the lock
        std::string File; ///< mapped with --profile-prefix-map
        unsigned Line = 0;
        std::string Function;
        std::string Kind; ///< lock, trylock, timedlock, delegate
        uint64_t Count = 0;
    };
    /// Every site of the selected profile locks, of every kind, in the profile's order.
    const std::vector<WeightedSite> &weightedSites() const { return Weighted; }

  private:
    struct Site {
        std::string File;
        unsigned Line;
    };
    SelectionOptions Options;
    std::string ProfileRule;
    std::vector<llvm::json::Object> ProfileLocks;
    std::vector<Site> ProfileSites;
    std::vector<WeightedSite> Weighted;
    std::vector<Site> AtSites;
};

/// Glob match where `*` is any run of characters and `?` any one character; spaces are
/// ignored on both sides so `item_locks[*]` matches `item_locks[hv & mask]`.
bool globMatch(llvm::StringRef Pattern, llvm::StringRef Name);

/// Whether a path recorded elsewhere (profile, --at) names File: same real path, or the
/// recorded path's components are a suffix of File's (basename at least).
bool samePath(llvm::StringRef Recorded, llvm::StringRef File);

/// The group of a profile lock name: `lru_locks+3040` -> `lru_locks`, `cache_lock#2` ->
/// `cache_lock`, `site:items.c:120#3` -> `site:items.c:120`.
std::string lockGroup(llvm::StringRef Name);

} // namespace rcl

#endif
