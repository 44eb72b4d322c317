//===- OutputCheck.h - a rewritten file compiles before it is written -------===//
#ifndef RCL_REWRITER_OUTPUTCHECK_H
#define RCL_REWRITER_OUTPUTCHECK_H

#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include <optional>
#include <string>
#include <vector>

namespace rcl {

/// Checks a rewritten file with its own compile command (syntax and semantics, no code), the
/// file's new text standing in for the one on disk, so that rcl-rewrite never writes a file
/// that does not compile (docs/rewriter.md, "Output"). Adjusters: those of the rewriting run
/// (-w, the resource directory) plus -I for librcl's header, which the rewritten file includes.
/// Returns the compiler's first error ("file:line:col: error: ..."), or nothing when it
/// compiles.
std::optional<std::string>
firstCompileError(const clang::tooling::CompilationDatabase &Compilations, const std::string &Path,
                  const std::string &Text,
                  const std::vector<clang::tooling::ArgumentsAdjuster> &Adjusters);

/// The directory holding librcl's `rcl/rcl.h` for that check: beside an installed rcl-rewrite
/// (`<prefix>/bin/../include`), else the source tree's (Fallback, configured at build time);
/// empty when neither has it.
std::string rclIncludeDir(const char *Argv0, void *MainAddr, const std::string &Fallback);

} // namespace rcl

#endif
