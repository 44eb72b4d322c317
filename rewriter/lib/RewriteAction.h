//===- RewriteAction.h - run find → analyse → emit over translation units ---===//
#ifndef RCL_REWRITER_REWRITEACTION_H
#define RCL_REWRITER_REWRITEACTION_H

#include "CalleeFacts.h"
#include "CopyResolution.h"
#include "LockApi.h"
#include "Report.h"
#include "Selection.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rcl {

/// Everything that outlives one translation unit: the options, the edits per file and the
/// report. Edits are kept per file so a file seen by several translation units is edited once.
struct RewriteSession {
    LockApi Api;
    Selection Select;
    bool LineDirectives = false;
    bool Quiet = false;
    bool NoNestedLocks = false;
    /// --facts-dir: where each unit's facts are written and other units' are read from
    /// (CalleeFacts.h, ProjectFacts); empty: none.
    std::string FactsDir;
    ProjectFacts Project; ///< loaded from FactsDir, and each unit's facts once it is read
    /// A section that calls (transitively) a function of another file whose facts are not
    /// known is refused (Refusal::WaitsForFacts): what it does may depend on the calling thread
    /// (rcl-rewrite --assume-unknown-callees-safe turns this off).
    bool RequireCalleeFacts = true;
    /// A first pass over several files: only record each unit's facts (Project), so that the
    /// rewriting pass knows every given file's functions whatever the order.
    bool FactsOnly = false;
    std::map<std::string, clang::tooling::Replacements> Edits; ///< by real path
    /// --resolve-copy (rcl-cc): the output is a copy compiled in place of the file and read by
    /// nobody, so a section refused because it is written inside a macro use or cut by
    /// preprocessor conditionals makes its unit read again with those made explicit
    /// (CopyResolution); Resolved holds that text by real path, and the output is built on it.
    bool ResolveCopy = false;
    std::map<std::string, std::string> Resolved;
    std::map<std::string, CopyOrigin> CopyOrigins; ///< by name as given: where the copy came from
    bool ReadingResolved = false; ///< the units are being read again on their resolved text
    std::map<std::string, std::string> MainFiles; ///< real path -> name as given
    /// Each source's path as the user spelled it, by the absolute path the tool opens
    /// (`.//common/a.c`, `common/a.c`): the `#line` directives name the spelling, as the
    /// compiler would for `__FILE__`.
    std::map<std::string, std::string> Spellings;
    std::set<std::string> Done; ///< real paths already rewritten
    Report Findings;
    /// Faults of the tool itself (edits that conflict): the driver then writes nothing and
    /// exits with a failure status, never 0.
    std::vector<std::string> InternalErrors;

    RewriteSession(LockApi Api, Selection Select)
        : Api(std::move(Api)), Select(std::move(Select)) {}
};

/// Creates the frontend action that rewrites each translation unit's main file into Session.
std::unique_ptr<clang::tooling::FrontendActionFactory> newRewriteActionFactory(RewriteSession &);

} // namespace rcl

#endif
