//===- Report.h - per-lock summary of what was converted and refused --------===//
#ifndef RCL_REWRITER_REPORT_H
#define RCL_REWRITER_REPORT_H

#include "Selection.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace rcl {

/// One selected critical section (or other mutex operation) and its outcome.
struct SectionRecord {
    std::string Lock;
    std::string File;
    unsigned Line = 0;
    unsigned Column = 0;
    std::string Function;
    /// NotCompiled: converted, but the rewritten file did not compile, so it was not written.
    enum Outcome { Converted, Refused, Nested, NotCompiled } Result = Converted;
    std::string Reason;                      ///< for Refused and NotCompiled
    bool WaitsForFacts = false;              ///< for Refused: Refusal::WaitsForFacts
    std::vector<std::string> UnknownCallees; ///< for WaitsForFacts: Refusal::UnknownCallees
    std::vector<std::string> Notes;          ///< for Converted: e.g. condition waits in callees
    /// For Converted: the server runs it as its caller, because it does this (CallerState.h).
    std::string AsCaller;
    unsigned Captures = 0;
    unsigned Exits = 0;
};

/// Collects the records of every translation unit and prints them as the per-lock summary
/// (text) or as `--report-json`.
class Report {
  public:
    /// Adds a record unless the same section (file:line:column) was already recorded by
    /// another translation unit.
    void add(SectionRecord Record);
    bool empty() const { return Records.empty(); }
    unsigned count(SectionRecord::Outcome O) const;
    /// Forgets the records of File (as given): its unit is read again (CopyResolution).
    void dropFile(llvm::StringRef File);
    /// The converted sections of File (as given) become NotCompiled, with Why.
    void markNotCompiled(llvm::StringRef File, llvm::StringRef Why);
    /// Refused sections that wait for other files' facts (Refusal::WaitsForFacts).
    unsigned waitingForFacts() const;
    /// The functions without facts that the waiting sections reach, each once, sorted.
    llvm::json::Array unknownCallees() const;

    /// What a declared wrapper name is in the files read: "function" (a function of that name
    /// is declared in one of them), else "macro" (a macro of that name is defined), else
    /// "unseen". Macros need no declaration (they are matched after expansion), so a declared
    /// macro or an unseen name is a mistake the summary warns about.
    void noteWrapper(const std::string &Name, const std::string &Role, const std::string &Seen);
    void printSummary(llvm::raw_ostream &OS) const;
    llvm::Error writeJson(llvm::StringRef Path) const;

    /// Coverage weighted by the profile (issue 23): for each selected lock of a profile, the
    /// share of its acquisitions (the profile's call-site counts) whose sites are converted
    /// sections of the files read (FilesRead), and each other site by share with its status,
    /// reason and what would make it convertible. A lock with more than 10 % of its
    /// acquisitions outside converted sections is flagged: delegation would keep moving its
    /// cache lines. Printed with the summary and written with the JSON report.
    void setCoverage(const std::vector<Selection::WeightedSite> &Sites,
                     const std::vector<std::string> &FilesRead);

  private:
    llvm::json::Array coverage() const;
    std::vector<SectionRecord> Records;
    std::vector<Selection::WeightedSite> CoverageSites;
    std::vector<std::string> CoverageFiles;
    /// Declared wrapper name -> (role: lock or unlock, what it is: Seen of noteWrapper).
    std::map<std::string, std::pair<std::string, std::string>> Wrappers;
};

} // namespace rcl

#endif
