//===- OutputCheck.cpp - a rewritten file compiles before it is written -----===//
#include "OutputCheck.h"

#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::tooling;

namespace rcl {

std::optional<std::string> firstCompileError(const CompilationDatabase &Compilations,
                                             const std::string &Path, const std::string &Text,
                                             const std::vector<ArgumentsAdjuster> &Adjusters) {
    ClangTool Tool(Compilations, {Path});
    Tool.mapVirtualFile(Path, Text);
    for (const ArgumentsAdjuster &A : Adjusters)
        Tool.appendArgumentsAdjuster(A);
    std::string Diagnostics;
    llvm::raw_string_ostream OS(Diagnostics);
    // The printer owns its options (a reference-counted pointer).
    auto *Options = new DiagnosticOptions();
    Options->ShowColors = false;
    TextDiagnosticPrinter Printer(OS, Options);
    Tool.setDiagnosticConsumer(&Printer);
    Tool.setPrintErrorMessage(false);
    int Status = Tool.run(newFrontendActionFactory<SyntaxOnlyAction>().get());
    OS.flush();
    if (Status == 0) return std::nullopt;
    // The first error line; the whole text when there is none (a driver failure).
    llvm::StringRef Rest = Diagnostics;
    while (!Rest.empty()) {
        auto [Line, Next] = Rest.split('\n');
        if (Line.contains(": error: ") || Line.contains(": fatal error: ")) return Line.str();
        Rest = Next;
    }
    return llvm::StringRef(Diagnostics).trim().str();
}

std::string rclIncludeDir(const char *Argv0, void *MainAddr, const std::string &Fallback) {
    auto Has = [](const llvm::Twine &Dir) {
        llvm::SmallString<256> Header;
        llvm::sys::path::append(Header, Dir, "rcl", "rcl.h");
        return llvm::sys::fs::exists(Header);
    };
    std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, MainAddr);
    llvm::SmallString<256> Installed(llvm::sys::path::parent_path(Exe));
    llvm::sys::path::append(Installed, "..", "include");
    llvm::sys::path::remove_dots(Installed, /*remove_dot_dot=*/true);
    if (Has(Installed)) return Installed.str().str();
    if (!Fallback.empty() && Has(Fallback)) return Fallback;
    return "";
}

} // namespace rcl
