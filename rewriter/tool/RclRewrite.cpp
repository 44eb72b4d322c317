//===- RclRewrite.cpp - rcl-rewrite: outline critical sections for librcl ---===//
//
// Thin driver: options → RewriteSession → ClangTool → output (stdout, --output-dir,
// --in-place, --export-fixes) and the per-lock report. The logic lives in rewriter/lib.
//
//===----------------------------------------------------------------------===//
#include "CallerState.h"
#include "OutputCheck.h"
#include "RewriteAction.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/ReplacementsYaml.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace clang;
using namespace clang::tooling;
using namespace llvm;

static cl::OptionCategory Category("rcl-rewrite options");
static cl::extrahelp CommonHelp(CommonOptionsParser::HelpMessage);
static cl::extrahelp MoreHelp(R"(
Turns the critical sections of pthread mutexes into functions run by librcl's servers
(rcl_delegate). Choose the sections with --all, --lock, --profile or --at. By default the
rewritten main file is printed on stdout. Sections that cannot be converted safely are left
as they are, with "file:line:col: rcl: cannot convert critical section: <reason>".
Condition waits on a section's mutex become rcl_cond_wait/timedwait/clockwait, which let the
server go on serving while the section waits; waits in the functions a converted section
calls are renamed the same way and reported with "rcl: note:".
)");

static cl::opt<bool> All("all", cl::desc("Convert every critical section that can be converted"),
                         cl::cat(Category));
static cl::list<std::string> Locks("lock",
                                   cl::desc("Convert the sections of locks matching this name "
                                            "or pattern (cache_lock, item_locks[*], *->mutex)"),
                                   cl::cat(Category));
static cl::opt<std::string> Profile("profile",
                                    cl::desc("Convert the lock sites selected in "
                                             "this profile.json (rcl-prof)"),
                                    cl::value_desc("profile.json"), cl::cat(Category));
static cl::opt<double> MinCsPercent("min-cs-percent",
                                    cl::desc("With --profile: select locks whose cs_percent is at "
                                             "least this, instead of recommendation=convert"),
                                    cl::cat(Category));
static cl::opt<unsigned> Hottest("hottest",
                                 cl::desc("With --profile: select the N locks with the largest "
                                          "share of thread time in critical sections, "
                                          "recommended or not"),
                                 cl::value_desc("N"), cl::cat(Category));
static cl::list<std::string> ProfileLocks("profile-lock",
                                          cl::desc("With --profile: select the profile's locks "
                                                   "with this name or pattern, or in this group "
                                                   "(lru_locks selects lru_locks+64, "
                                                   "cache_lock#2); repeatable"),
                                          cl::value_desc("NAME"), cl::cat(Category));
static cl::list<std::string> ProfilePrefixMaps("profile-prefix-map",
                                               cl::desc("Read the profile's call sites under OLD "
                                                        "as under NEW (the profiled build was "
                                                        "another copy of the sources)"),
                                               cl::value_desc("OLD=NEW"), cl::cat(Category));
static cl::opt<bool> PrintSelection("print-selection",
                                    cl::desc("With --profile: print the locks the profile "
                                             "selects, and which of the given files hold their "
                                             "call sites, as JSON; convert nothing (no source "
                                             "file is needed)"),
                                    cl::cat(Category));
static cl::list<std::string> At("at",
                                cl::desc("Convert the section whose lock call is at "
                                         "file:line"),
                                cl::value_desc("file:line"), cl::cat(Category));
static cl::list<std::string> LockFns("lock-fn",
                                     cl::desc("Lock wrappers (repeatable, or a comma-separated "
                                              "list, as RCL_CC_LOCK_FN): each pairs with the "
                                              "--unlock-fn at its position"),
                                     cl::CommaSeparated, cl::cat(Category));
static cl::list<std::string> UnlockFns("unlock-fn",
                                       cl::desc("The unlock wrappers of the --lock-fn at the "
                                                "same positions"),
                                       cl::CommaSeparated, cl::cat(Category));
static cl::list<std::string> TimedLockFns(
    "timedlock-fn",
    cl::desc("Timed lock wrappers (repeatable, or a comma-separated list): NAME or NAME:UNLOCK, "
             "UNLOCK the unlock wrapper that releases what NAME takes (default: the first "
             "--unlock-fn). Their sections are delegated with their deadline through a copy of "
             "NAME that the file defining it gets (APR's apr_thread_mutex_timedlock: "
             "--timedlock-fn=apr_thread_mutex_timedlock)"),
    cl::CommaSeparated, cl::cat(Category));
static cl::list<std::string> ConstFns(
    "const-fn",
    cl::desc("Functions to read as declared __attribute__((const)) (repeatable, or a "
             "comma-separated list): a wrapper's guard may call them (`if (threads_loaded()) "
             "return pthread_mutex_lock(m);`), and a converted section evaluates such a guard "
             "once for its lock and unlock. Name only a function whose result never changes and "
             "whose repeated calls do nothing more"),
    cl::CommaSeparated, cl::cat(Category));
static cl::opt<std::string> Config("config",
                                   cl::desc("Read options from this file: one per line, "
                                            "`name=value` or `name` without the dashes"),
                                   cl::cat(Category));
static cl::opt<bool> InPlace("in-place",
                             cl::desc("Rewrite the files themselves (atomically; "
                                      "keeps FILE.orig unless --no-backup)"),
                             cl::cat(Category));
static cl::opt<bool> NoBackup("no-backup", cl::desc("With --in-place: keep no .orig copy"),
                              cl::cat(Category));
static cl::opt<std::string> OutputDir("output-dir",
                                      cl::desc("Write rewritten files into DIR "
                                               "(by base name)"),
                                      cl::value_desc("DIR"), cl::cat(Category));
static cl::opt<std::string> ExportFixes("export-fixes",
                                        cl::desc("Write the edits as YAML for "
                                                 "clang-apply-replacements"),
                                        cl::value_desc("file.yaml"), cl::cat(Category));
static cl::opt<bool> DryRun("dry-run", cl::desc("Only report: write no file, print no code"),
                            cl::cat(Category));
static cl::opt<std::string> ReportJson("report-json",
                                       cl::desc("Write the per-lock report as "
                                                "JSON"),
                                       cl::value_desc("file.json"), cl::cat(Category));
static cl::opt<bool> LineDirectives("line-directives",
                                    cl::desc("Emit #line directives so that the rewritten text "
                                             "compiles with the original's line numbers (rcl-cc)"),
                                    cl::cat(Category));
static cl::opt<bool> NoNestedLocks(
    "no-nested-locks",
    cl::desc("Refuse sections that take another mutex, directly or through a function of the "
             "same file (for runtimes that keep mutexes held across a server pass)"),
    cl::cat(Category));
static cl::opt<std::string> FactsDir(
    "facts-dir",
    cl::desc("Write what each file's exported functions do (thread identity, calls) into DIR and "
             "read the other files' facts back, so that a section calling into another file "
             "that depends on the calling thread is refused. Run it over every source first "
             "(with --dry-run) to make the facts complete"),
    cl::value_desc("DIR"), cl::cat(Category));
static cl::opt<bool> FactsComplete(
    "facts-complete",
    cl::desc("The facts (of --facts-dir, or of the files given) cover every file of the program: "
             "a call through a function pointer is judged by its possible targets, the "
             "program's address-taken functions of its type (without it such a section waits "
             "for facts). `rcl build` says so by writing DIR/complete"),
    cl::cat(Category));
static cl::opt<bool> AssumeUnknownCalleesSafe(
    "assume-unknown-callees-safe",
    cl::desc("Convert a section that calls into another file whose facts are not known (by "
             "default it is refused: the callee might rename, inspect or signal the calling "
             "thread, which would be the server; see --facts-dir)"),
    cl::cat(Category));
static cl::opt<bool> LibrclThreadQueries(
    "librcl-thread-queries",
    cl::desc("The program's links route gettid(), syscall(SYS_gettid) and prctl(PR_GET_NAME) "
             "through librcl, which answers a section run as its caller with its caller's kernel "
             "thread id and name (rcl-cc's links do: -Wl,--wrap=gettid,--wrap=syscall,"
             "--wrap=prctl): a section that asks them converts, run as its caller. Without it "
             "such a section is refused"),
    cl::cat(Category));
static cl::opt<bool> NoCompileCheck(
    "no-compile-check",
    cl::desc("Write rewritten files without first checking that they compile with their own "
             "compile command (rcl-cc compiles them itself)"),
    cl::cat(Category));
static cl::opt<bool> Quiet("quiet", cl::desc("Print no diagnostics and no summary"),
                           cl::cat(Category));
static cl::opt<bool> ResolveCopy(
    "resolve-copy",
    cl::desc("The output is a copy compiled in place of the file and read by nobody (rcl-cc): "
             "a section written inside a macro use, or cut by preprocessor conditionals, is "
             "converted on the text the preprocessor made of it (the macro use expanded, the "
             "conditionals of its function resolved), line numbers kept. Not with --in-place or "
             "--export-fixes"),
    cl::cat(Category));

/// The exit status of a fault of the tool itself, as opposed to 1 for bad input or options
/// (sysexits.h's EX_SOFTWARE).
static constexpr int ExitInternalError = 70;

/// Reads a config file into extra argv entries placed before the user's own arguments.
static bool readConfig(StringRef Path, std::vector<std::string> &Args) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
    if (!Buffer) {
        errs() << "rcl-rewrite: cannot read config '" << Path
               << "': " << Buffer.getError().message() << "\n";
        return false;
    }
    SmallVector<StringRef, 32> Lines;
    (*Buffer)->getBuffer().split(Lines, '\n');
    for (StringRef Line : Lines) {
        Line = Line.split('#').first.trim();
        if (Line.empty()) continue;
        auto [Name, Value] = Line.split('=');
        std::string Arg = "--" + Name.trim().str();
        if (Line.contains('=')) Arg += "=" + Value.trim().str();
        Args.push_back(Arg);
    }
    return true;
}

/// Writes Contents to Path through a temporary file in the same directory and a rename, so
/// a reader sees the old file or the new one, never a half-written one.
static bool writeAtomically(StringRef Path, StringRef Contents) {
    SmallString<256> Temp;
    int FD;
    if (std::error_code EC = sys::fs::createUniqueFile(Path + ".rcl-%%%%%%", FD, Temp)) {
        errs() << "rcl-rewrite: cannot create a file next to '" << Path << "': " << EC.message()
               << "\n";
        return false;
    }
    {
        raw_fd_ostream OS(FD, /*shouldClose=*/true);
        OS << Contents;
        OS.close();
        if (OS.has_error()) {
            OS.clear_error();
            sys::fs::remove(Temp);
            errs() << "rcl-rewrite: cannot write '" << Temp << "'\n";
            return false;
        }
    }
    sys::fs::file_status Status;
    if (!sys::fs::status(Path, Status)) sys::fs::setPermissions(Temp, Status.permissions());
    if (std::error_code EC = sys::fs::rename(Temp, Path)) {
        sys::fs::remove(Temp);
        errs() << "rcl-rewrite: cannot replace '" << Path << "': " << EC.message() << "\n";
        return false;
    }
    return true;
}

/// The compilation database as the rewriter reads it: the first command listed for each file.
/// A file that compile_commands.json lists twice (a static and a shared library, a program and
/// its debug build) is rewritten from its first translation unit only (RewriteSession::Done):
/// a second parse would be wasted, and ClangTool's progress line, which counts commands against
/// files, would read `[72/37]`.
class FirstCommandDatabase : public CompilationDatabase {
  public:
    explicit FirstCommandDatabase(const CompilationDatabase &Base) : Base(Base) {}

    std::vector<CompileCommand> getCompileCommands(StringRef File) const override {
        std::vector<CompileCommand> Commands = Base.getCompileCommands(File);
        if (Commands.size() > 1) Commands.resize(1);
        return Commands;
    }
    std::vector<std::string> getAllFiles() const override { return Base.getAllFiles(); }

  private:
    const CompilationDatabase &Base;
};

/// The sources in the order given, each file once (a file named twice, or by two spellings of
/// its path, is one translation unit to rewrite and one step of the progress count).
/// A source's path is read without `.` components and doubled slashes: Clang's tooling takes
/// `.//common/debug.c` (zstd's makefile spells its sources so) for `/common/debug.c`, and every
/// such file failed (the corpus: 64 of libzstd's 114 units compiled unchanged). The spelling
/// as given is kept, by the absolute path the tool opens, for the `#line` directives
/// (Spellings), so `__FILE__` in converted code is what the compiler gives the original
/// (`common/f.c`, not `/abs/common/f.c`).
static std::vector<std::string> eachFileOnce(const std::vector<std::string> &Sources,
                                             std::map<std::string, std::string> &Spellings) {
    std::vector<std::string> Once;
    std::set<std::string> Seen;
    for (const std::string &Source : Sources) {
        SmallString<256> Path(Source);
        sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
        if (Path.empty()) Path = Source;
        std::string Absolute = getAbsolutePath(Path);
        if (!Seen.insert(Absolute).second) continue;
        Spellings[Absolute] = Source;
        Once.push_back(Path.str().str());
    }
    return Once;
}

int main(int argc, const char **argv) {
    // A --config file's options come first, so the command line can override them.
    std::vector<std::string> Storage;
    for (int I = 1; I < argc; ++I) {
        StringRef Arg(argv[I]);
        if (Arg == "--") break;
        if (Arg.consume_front("--config=") || Arg.consume_front("-config=")) {
            if (!readConfig(Arg, Storage)) return 1;
        } else if ((Arg == "--config" || Arg == "-config") && I + 1 < argc) {
            if (!readConfig(argv[I + 1], Storage)) return 1;
        }
    }
    std::vector<const char *> Argv{argv[0]};
    for (const std::string &S : Storage)
        Argv.push_back(S.c_str());
    for (int I = 1; I < argc; ++I)
        Argv.push_back(argv[I]);
    int Argc = Argv.size();

    Expected<CommonOptionsParser> Parser =
        CommonOptionsParser::create(Argc, Argv.data(), Category, cl::ZeroOrMore);
    if (!Parser) {
        errs() << toString(Parser.takeError());
        return 1;
    }
    // Wrapper names are trimmed (`--lock-fn=" q_lock"` names q_lock) and pair in order.
    auto Names = [](const cl::list<std::string> &List, StringRef Option,
                    std::vector<std::string> &Out) {
        for (const std::string &Name : List) {
            Out.push_back(StringRef(Name).trim().str());
            if (Out.back().empty()) {
                errs() << "rcl-rewrite: --" << Option << " needs a function name\n";
                return false;
            }
        }
        return true;
    };
    std::vector<std::string> LockNames, UnlockNames;
    if (!Names(LockFns, "lock-fn", LockNames) || !Names(UnlockFns, "unlock-fn", UnlockNames))
        return 1;
    if (LockNames.size() != UnlockNames.size()) {
        auto List = [](const std::vector<std::string> &Names) {
            return Names.empty() ? std::string("none") : join(Names, ", ");
        };
        errs() << "rcl-rewrite: " << LockNames.size() << " --lock-fn (" << List(LockNames)
               << ") but " << UnlockNames.size() << " --unlock-fn (" << List(UnlockNames)
               << "): each --lock-fn needs the --unlock-fn at the same position\n";
        return 1;
    }
    std::vector<rcl::WrapperPair> Wrappers;
    for (size_t I = 0; I < LockNames.size(); ++I)
        Wrappers.push_back({LockNames[I], UnlockNames[I]});
    for (const std::string &Spec : TimedLockFns) {
        auto [Name, Unlock] = StringRef(Spec).split(':');
        Name = Name.trim();
        Unlock = Unlock.trim();
        if (Unlock.empty() && !UnlockNames.empty()) Unlock = UnlockNames.front();
        if (Name.empty() || Unlock.empty()) {
            errs() << "rcl-rewrite: --timedlock-fn=" << Spec
                   << ": expected NAME:UNLOCK, or NAME with an --unlock-fn given\n";
            return 1;
        }
        Wrappers.push_back({Name.str(), Unlock.str(), true});
    }

    rcl::SelectionOptions Options;
    Options.All = All;
    Options.LockPatterns.assign(Locks.begin(), Locks.end());
    Options.ProfilePath = Profile;
    if (MinCsPercent.getNumOccurrences()) Options.MinCsPercent = MinCsPercent;
    if (Hottest.getNumOccurrences()) Options.Hottest = Hottest;
    Options.ProfileLocks.assign(ProfileLocks.begin(), ProfileLocks.end());
    Options.ProfilePrefixMaps.assign(ProfilePrefixMaps.begin(), ProfilePrefixMaps.end());
    Options.At.assign(At.begin(), At.end());
    // --facts-dir alone (with --dry-run) only writes the files' facts: nothing is selected.
    bool FactsOnly = !FactsDir.empty() && DryRun;
    if (!Options.All && Options.LockPatterns.empty() && Options.ProfilePath.empty() &&
        Options.At.empty() && !FactsOnly) {
        errs() << "rcl-rewrite: nothing selected: use --all, --lock, --profile or --at\n";
        return 1;
    }
    if (ResolveCopy && (InPlace || !ExportFixes.empty())) {
        errs() << "rcl-rewrite: --resolve-copy writes a copy for the compiler only: not with "
                  "--in-place or --export-fixes\n";
        return 1;
    }
    if (InPlace && !OutputDir.empty()) {
        errs() << "rcl-rewrite: --in-place and --output-dir exclude each other\n";
        return 1;
    }
    Expected<rcl::Selection> Select = rcl::Selection::create(Options);
    if (!Select) {
        errs() << "rcl-rewrite: " << toString(Select.takeError()) << "\n";
        return 1;
    }
    const std::vector<std::string> &Sources = Parser->getSourcePathList();
    if (PrintSelection) {
        if (Options.ProfilePath.empty()) {
            errs() << "rcl-rewrite: --print-selection shows what a profile selects: add "
                      "--profile\n";
            return 1;
        }
        outs() << formatv("{0:2}", Select->describeProfileSelection(Sources)) << "\n";
        return 0;
    }
    if (Sources.empty()) {
        errs() << "rcl-rewrite: no source file given\n";
        return 1;
    }

    rcl::LockApi Api(std::move(Wrappers));
    std::vector<std::string> ConstNames;
    if (!Names(ConstFns, "const-fn", ConstNames)) return 1;
    Api.setConstFunctions(std::move(ConstNames));
    rcl::RewriteSession Session(std::move(Api), std::move(*Select));
    Session.LineDirectives = LineDirectives;
    Session.Quiet = Quiet;
    Session.NoNestedLocks = NoNestedLocks;
    Session.RequireCalleeFacts = !AssumeUnknownCalleesSafe;
    rcl::setLibrclAnswersThreadQueries(LibrclThreadQueries);
    Session.ResolveCopy = ResolveCopy;
    if (!FactsDir.empty()) {
        Session.FactsDir = FactsDir;
        Session.Project.load(FactsDir);
    }
    if (FactsComplete) Session.Project.setComplete(true);

    FirstCommandDatabase Compilations(Parser->getCompilations());
    const std::vector<std::string> Files = eachFileOnce(Sources, Session.Spellings);
    ClangTool Tool(Compilations, Files);
    // The rewriter needs no warnings, and a -Werror in the user's flags must not stop it.
    std::vector<ArgumentsAdjuster> Adjusters{
        getInsertArgumentAdjuster("-w", ArgumentInsertPosition::END)};
#ifdef RCL_CLANG_RESOURCE_DIR
    Adjusters.push_back([](const CommandLineArguments &Args, StringRef) {
        for (const std::string &A : Args)
            if (StringRef(A).starts_with("-resource-dir")) return Args;
        CommandLineArguments Out = Args;
        Out.insert(Out.begin() + (Out.empty() ? 0 : 1), "-resource-dir=" RCL_CLANG_RESOURCE_DIR);
        return Out;
    });
#endif
    for (const ArgumentsAdjuster &A : Adjusters)
        Tool.appendArgumentsAdjuster(A);
    // Several files without a facts directory: their facts first, so that a section calling
    // into another of them is judged whatever the order of the files.
    // One tool per file: the progress line ([i/N]) is the rewriting pass's alone.
    if (Sources.size() > 1 && FactsDir.empty() && Session.RequireCalleeFacts) {
        Session.FactsOnly = true;
        for (const std::string &Source : Files) {
            ClangTool One(Compilations, {Source});
            for (const ArgumentsAdjuster &A : Adjusters)
                One.appendArgumentsAdjuster(A);
            One.setPrintErrorMessage(false);
            DiagnosticConsumer Silent; // the rewriting pass reports what does not compile
            One.setDiagnosticConsumer(&Silent);
            One.run(rcl::newRewriteActionFactory(Session).get());
        }
        Session.FactsOnly = false;
    }
    int Status = Tool.run(rcl::newRewriteActionFactory(Session).get());
    // --resolve-copy: the units whose refused sections asked for it, read again on the text
    // the preprocessor made of their macros and conditionals (CopyResolution).
    Session.ReadingResolved = true;
    for (auto &[Real, Resolved] : Session.Resolved) {
        if (Status != 0) break;
        auto Given = Session.MainFiles.find(Real);
        if (Given == Session.MainFiles.end()) continue;
        ClangTool Again(Compilations, {Given->second});
        const std::string Path = getAbsolutePath(Given->second); // mapVirtualFile keeps a StringRef
        Again.mapVirtualFile(Path, Resolved);
        for (const ArgumentsAdjuster &A : Adjusters)
            Again.appendArgumentsAdjuster(A);
        Status = Again.run(rcl::newRewriteActionFactory(Session).get());
    }
    if (Status != 0) {
        errs() << "rcl-rewrite: a translation unit did not compile; no file was changed\n";
        return Status;
    }
    if (!Options.ProfilePath.empty()) {
        std::vector<std::string> Read;
        for (auto &[Real, Given] : Session.MainFiles)
            Read.push_back(Real);
        Session.Findings.setCoverage(Session.Select.weightedSites(), Read);
    }
    if (!Session.InternalErrors.empty()) {
        for (const std::string &Message : Session.InternalErrors)
            errs() << "rcl-rewrite: internal error: " << Message << "\n";
        errs() << "rcl-rewrite: no file was changed (please report this with the input)\n";
        return ExitInternalError;
    }

    // Apply the edits to each file's current text.
    std::map<std::string, std::string> Rewritten;
    for (auto &[Path, Edits] : Session.Edits) {
        ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
        if (!Buffer) {
            errs() << "rcl-rewrite: cannot read '" << Path << "'\n";
            return 1;
        }
        auto Resolved = Session.Resolved.find(Path);
        Expected<std::string> Text =
            applyAllReplacements(Resolved != Session.Resolved.end() ? StringRef(Resolved->second)
                                                                    : (*Buffer)->getBuffer(),
                                 Edits);
        if (!Text) {
            errs() << "rcl-rewrite: " << toString(Text.takeError()) << "\n";
            return 1;
        }
        Rewritten[Path] = std::move(*Text);
        // Test aid (fault injection): a rewritten file that cannot compile, which the check
        // below must catch (test/rewriter/compile-check.test, cli/convert-compile-check.test).
        if (getenv("RCL_REWRITE_TEST_BREAK_OUTPUT"))
            Rewritten[Path] += "\n#error RCL_REWRITE_TEST_BREAK_OUTPUT is set\n";
    }

    // Never write a file that does not compile: each rewritten main file is checked with its
    // own compile command first; one that fails stays as it was, its sections count as not
    // converted, and the exit status says that the tool was at fault. A dry run writes nothing
    // and skips it (one parse fewer for a report).
    bool Faulty = false;
    if (!NoCompileCheck && !DryRun && !Rewritten.empty()) {
        std::string Include = rcl::rclIncludeDir(argv[0], reinterpret_cast<void *>(&main),
#ifdef RCL_SOURCE_INCLUDE_DIR
                                                 RCL_SOURCE_INCLUDE_DIR
#else
                                                 ""
#endif
        );
        std::vector<ArgumentsAdjuster> CheckAdjusters = Adjusters;
        if (!Include.empty())
            CheckAdjusters.push_back(getInsertArgumentAdjuster(CommandLineArguments{"-I" + Include},
                                                               ArgumentInsertPosition::END));
        for (auto It = Rewritten.begin(); It != Rewritten.end();) {
            auto Given = Session.MainFiles.find(It->first);
            std::optional<std::string> Error =
                Given == Session.MainFiles.end()
                    ? std::nullopt
                    : rcl::firstCompileError(Compilations, It->first, It->second, CheckAdjusters);
            if (!Error) {
                ++It;
                continue;
            }
            errs() << "rcl-rewrite: internal error: the rewritten " << Given->second
                   << " does not compile, so it was left as it was (please report this with "
                      "the input): "
                   << *Error << "\n";
            Session.Findings.markNotCompiled(Given->second, *Error);
            Session.Edits.erase(It->first);
            It = Rewritten.erase(It);
            Faulty = true;
        }
    }

    bool OK = true;
    if (!ExportFixes.empty()) {
        TranslationUnitReplacements TUR;
        TUR.MainSourceFile = Session.MainFiles.empty() ? "" : Session.MainFiles.begin()->first;
        for (auto &[Path, Edits] : Session.Edits)
            for (const Replacement &R : Edits)
                TUR.Replacements.push_back(R);
        std::error_code EC;
        raw_fd_ostream OS(ExportFixes, EC, sys::fs::OF_Text);
        if (EC) {
            errs() << "rcl-rewrite: cannot write '" << ExportFixes << "': " << EC.message() << "\n";
            return 1;
        }
        yaml::Output YAML(OS);
        YAML << TUR;
        OS.close();
        if (OS.has_error()) {
            OS.clear_error();
            errs() << "rcl-rewrite: cannot write '" << ExportFixes << "'\n";
            return 1;
        }
    }
    if (DryRun) {
        // Nothing written.
    } else if (InPlace) {
        for (auto &[Path, Text] : Rewritten) {
            if (!NoBackup) {
                ErrorOr<std::unique_ptr<MemoryBuffer>> Old = MemoryBuffer::getFile(Path);
                if (!Old)
                    errs() << "rcl-rewrite: cannot read '" << Path
                           << "' again for its backup: " << Old.getError().message() << "\n";
                OK &= Old && writeAtomically(Path + ".orig", (*Old)->getBuffer());
            }
            OK &= OK && writeAtomically(Path, Text);
        }
    } else if (!OutputDir.empty()) {
        if (std::error_code EC = sys::fs::create_directories(OutputDir)) {
            errs() << "rcl-rewrite: cannot create '" << OutputDir << "': " << EC.message() << "\n";
            return 1;
        }
        for (auto &[Path, Text] : Rewritten) {
            SmallString<256> Out(OutputDir);
            sys::path::append(Out, sys::path::filename(Path));
            OK &= writeAtomically(Out, Text);
        }
    } else if (ExportFixes.empty()) {
        for (auto &[Real, Given] : Session.MainFiles) {
            auto It = Rewritten.find(Real);
            if (It != Rewritten.end()) {
                outs() << It->second;
                continue;
            }
            ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Real);
            if (Buffer) outs() << (*Buffer)->getBuffer();
        }
    }

    if (!ReportJson.empty())
        if (Error E = Session.Findings.writeJson(ReportJson)) {
            errs() << "rcl-rewrite: " << toString(std::move(E)) << "\n";
            OK = false;
        }
    if (!Quiet) Session.Findings.printSummary(errs());
    if (Faulty) return ExitInternalError;
    return OK ? 0 : 1;
}
