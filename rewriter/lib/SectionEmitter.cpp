//===- SectionEmitter.cpp - the outlined function and the call site ---------===//
#include "SectionEmitter.h"
#include "StmtWalk.h"

#include <map>

#include "clang/AST/Expr.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace rcl {

std::string dedent(StringRef Code, StringRef To) {
    SmallVector<StringRef, 16> Lines;
    Code.trim().split(Lines, '\n');
    size_t Common = StringRef::npos;
    for (size_t I = 1; I < Lines.size(); ++I) {
        StringRef L = Lines[I];
        if (L.trim().empty()) continue;
        Common = std::min(Common, L.size() - L.ltrim(" \t").size());
    }
    std::string Out;
    for (size_t I = 0; I < Lines.size(); ++I) {
        StringRef L = Lines[I].rtrim();
        if (I > 0) {
            Out += '\n';
            if (L.empty()) continue;
            L = L.drop_front(std::min(Common, L.size()));
        }
        Out += To;
        Out += L;
    }
    return Out;
}

/// The name a getter gives the lock wrapper's parameter I.
static std::string getterParameter(const FunctionDecl *LockWrapper, unsigned I) {
    const ParmVarDecl *P = LockWrapper->getParamDecl(I);
    return P->getName().empty() ? "rcl_p" + std::to_string(I) : P->getName().str();
}

/// `#line Line "Name"` on its own line, Name escaped as a string literal.
static std::string lineDirectiveText(unsigned Line, llvm::StringRef Name) {
    std::string Escaped;
    for (char C : Name) {
        if (C == '\\' || C == '"') Escaped += '\\';
        Escaped += C;
    }
    return "\n#line " + std::to_string(Line) + " \"" + Escaped + "\"\n";
}

std::string SectionEmitter::allocatorStart(llvm::StringRef Where) {
    return "/* added by rcl-rewrite: this file is part of the program's memory allocator (" +
           Where.str() +
           "). librcl allocates while it starts, so its sections never start it "
           "(rcl_delegate_allocator); this starts it before main, outside the allocator. */\n"
           "__attribute__((constructor(101))) static void rcl__start_for_allocator(void) "
           "{ rcl_start(); }\n\n";
}

std::string SectionEmitter::lineDirective(const SourceText &Other, unsigned Offset) const {
    if (!LineDirectives) return "";
    const clang::SourceManager &SM = Other.sourceManager();
    clang::PresumedLoc P = SM.getPresumedLoc(SM.getComposedLoc(Other.file(), Offset));
    return P.isInvalid() ? "" : lineDirectiveText(P.getLine(), P.getFilename());
}

std::string SectionEmitter::resumeAt(unsigned Offset) const {
    return lineDirective(Offset) + std::string(Text.column(Offset) - 1, ' ');
}

std::string SectionEmitter::lineDirective(unsigned Offset) const {
    return LineDirectives ? presumedLineDirective(Offset) : "";
}

std::string SectionEmitter::presumedLineDirective(unsigned Offset) const {
    // The presumed place: where the file's own #line directives (generated code: bison, flex,
    // re2c) put the text at Offset, and where nothing does, the file as the command names it.
    const clang::SourceManager &SM = Text.sourceManager();
    clang::PresumedLoc P = SM.getPresumedLoc(SM.getComposedLoc(Text.file(), Offset));
    std::string Name = FileName;
    unsigned Line = Text.line(Offset);
    if (P.isValid()) {
        Line = P.getLine();
        clang::OptionalFileEntryRef Own = SM.getFileEntryRefForID(Text.file());
        if (!Own || P.getFilename() != Own->getName()) Name = P.getFilename();
    }
    return lineDirectiveText(Line, Name);
}

std::optional<std::string> SectionEmitter::getterDeclarations(const FunctionDecl *LockWrapper,
                                                              StringRef UnlockWrapper,
                                                              StringRef Attributes) const {
    std::optional<std::string> Proto = getterPrototype(LockWrapper, UnlockWrapper);
    if (!Proto) return std::nullopt;
    // Default visibility, whatever -fvisibility the build uses: the pair's unit may be part of
    // a shared library (APR's apr_thread_mutex_lock in libapr-1.so) whose callers, in the
    // program or another library, find its getter at run time; a hidden one would be null there
    // and their converted sections would never delegate.
    std::string Visible = "__attribute__((visibility(\"default\")))";
    return "extern " + Visible + " " + *Proto + Attributes.str() + ";\nextern " + Visible +
           " const unsigned " + remoteMutexParameters(LockWrapper->getName(), UnlockWrapper) +
           Attributes.str() + ";\n";
}

std::optional<std::string> SectionEmitter::timedCopyDeclaration(const FunctionDecl *TimedWrapper,
                                                                StringRef UnlockWrapper,
                                                                StringRef Attributes) const {
    std::string Params;
    for (const ParmVarDecl *P : TimedWrapper->parameters()) {
        std::optional<std::string> D = declaration(P->getType(), P->getName(), Ctx);
        if (!D) return std::nullopt;
        Params += *D + ", ";
    }
    std::optional<std::string> Proto = declaration(
        TimedWrapper->getReturnType(),
        timedWrapperCopy(TimedWrapper->getName(), UnlockWrapper) + "(" + Params +
            "rcl_cs_fn rcl_fn, void *rcl_ctx, size_t rcl_size, int *rcl_result, int *rcl_ran)",
        Ctx);
    if (!Proto) return std::nullopt;
    // (default visibility: the wrapper may be in a shared library, as getterDeclarations)
    return "extern __attribute__((visibility(\"default\"))) " + *Proto + Attributes.str() + ";";
}

std::optional<std::string>
SectionEmitter::timedCopyDefinition(const FunctionDecl *TimedWrapper, StringRef UnlockWrapper,
                                    const std::vector<const CallExpr *> &Ops, unsigned At) const {
    std::optional<std::string> Decl = timedCopyDeclaration(TimedWrapper, UnlockWrapper, "");
    std::optional<TextRange> Body = Text.node(TimedWrapper->getBody()->getSourceRange());
    if (!Decl || !Body) return std::nullopt;
    std::vector<TextEdit> Edits;
    for (const CallExpr *Call : Ops) {
        std::optional<TextRange> R = Text.node(Call->getSourceRange());
        if (!R || !Body->contains(*R)) return std::nullopt;
        StringRef Name = Call->getDirectCallee()->getName();
        std::vector<std::string> Args;
        for (const Expr *Arg : Call->arguments())
            Args.push_back(argumentText(Arg));
        const std::string Section = "rcl_fn, rcl_ctx, rcl_size";
        std::string To;
        if (Name == "pthread_mutex_timedlock" && Args.size() == 2)
            To = "rcl_delegate_timed_ran(" + Args[0] + ", " + Section + ", CLOCK_REALTIME, " +
                 Args[1] + ", rcl_result, rcl_ran)";
        else if (Name == "pthread_mutex_clocklock" && Args.size() == 3)
            To = "rcl_delegate_timed_ran(" + Args[0] + ", " + Section + ", " + Args[1] + ", " +
                 Args[2] + ", rcl_result, rcl_ran)";
        else if (Name == "pthread_mutex_trylock" && Args.size() == 1)
            To = "rcl_delegate_trylock(" + Args[0] + ", " + Section + ", rcl_result, rcl_ran)";
        else if (Name == "pthread_mutex_lock" && Args.size() == 1)
            To = "rcl_delegate_lock_ran(" + Args[0] + ", " + Section + ", rcl_result, rcl_ran)";
        else
            return std::nullopt;
        Edits.push_back({R->Begin, R->End - R->Begin, To});
    }
    std::optional<std::string> Copy = applyEdits(Text.code(), *Body, std::move(Edits));
    if (!Copy) return std::nullopt;
    std::string Comment = "/* added by rcl-rewrite: " + TimedWrapper->getNameAsString() +
                          " delegating other files' timed sections (rcl_delegate_timed) */ ";
    if (!LineDirectives) return "\n\n" + Comment + *Decl + "\n" + *Copy + "\n";
    Decl->pop_back(); // (its `;`)
    return " " + Comment + *Decl + resumeAt(Body->Begin) + *Copy + resumeAt(At);
}

std::optional<std::string> SectionEmitter::getterPrototype(const FunctionDecl *LockWrapper,
                                                           StringRef UnlockWrapper) const {
    std::string Params;
    for (unsigned I = 0; I < LockWrapper->getNumParams(); ++I) {
        std::optional<std::string> D = declaration(LockWrapper->getParamDecl(I)->getType(),
                                                   getterParameter(LockWrapper, I), Ctx);
        if (!D) return std::nullopt;
        Params += (I ? ", " : "") + *D;
    }
    return "pthread_mutex_t *" + remoteMutexGetter(LockWrapper->getName(), UnlockWrapper) + "(" +
           (Params.empty() ? "void" : Params) + ")";
}

/// Around a copy of Statements of Wrapper written elsewhere (a getter's checks, a wrapper part):
/// when they name the function (`__func__`, `__FUNCTION__`, `__PRETTY_FUNCTION__`, directly or
/// through a macro, PulseAudio's pa_assert), Push defines each one they use as the value it had
/// in the wrapper (what the compiler computed there: clang's C `__PRETTY_FUNCTION__` is the
/// signature), so that a message says what the original said, and !Push restores them. Empty
/// otherwise, and in C++ (WrapperModel refuses it there).
std::string functionNameMacros(const FunctionDecl *Wrapper,
                               const std::vector<const Stmt *> &Statements, bool Push) {
    std::map<std::string, std::string> Names;
    for (const Stmt *S : Statements)
        walk(S, [&](const Stmt *N) {
            const auto *P = dyn_cast<PredefinedExpr>(N);
            if (!P || !P->getFunctionName()) return;
            std::string Value;
            for (char C : P->getFunctionName()->getString()) {
                if (C == '\\' || C == '"') Value += '\\';
                Value += C;
            }
            Names[PredefinedExpr::getIdentKindName(P->getIdentKind()).str()] = Value;
        });
    if (Names.empty() || Wrapper->getASTContext().getLangOpts().CPlusPlus) return "";
    std::string Out;
    for (const auto &[Macro, Value] : Names)
        Out += Push ? "#pragma push_macro(\"" + Macro + "\")\n#undef " + Macro + "\n#define " +
                          Macro + " \"" + Value + "\"\n"
                    : "#pragma pop_macro(\"" + Macro + "\")\n";
    return Out;
}

namespace {
/// `{ (void)p; return Body; } const unsigned MASK = N;` with the parameters Body does not use
/// cast to void, and bit I of N set when it uses parameter I.
std::string getterBody(const FunctionDecl *LockWrapper, llvm::StringRef UnlockWrapper,
                       const std::string &Body, const std::vector<unsigned> &Used,
                       const std::string &Checks = "") {
    unsigned Mask = 0;
    std::string Unused;
    for (unsigned I = 0; I < LockWrapper->getNumParams(); ++I)
        if (std::find(Used.begin(), Used.end(), I) != Used.end())
            Mask |= 1u << std::min(I, 31u);
        else
            Unused += "(void)" + getterParameter(LockWrapper, I) + "; ";
    return " { " + Unused + Checks + "return " + Body + "; } const unsigned " +
           remoteMutexParameters(LockWrapper->getName(), UnlockWrapper) + " = " +
           std::to_string(Mask) + "u; /* added by rcl-rewrite: the mutex of " +
           LockWrapper->getName().str() + "/" + UnlockWrapper.str() +
           " for other files' delegated sections (null: run under the wrappers), and the "
           "parameters it depends on */";
}

std::string printed(const Expr *E, const ASTContext &Ctx) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    return Out;
}
} // namespace

std::optional<std::string> SectionEmitter::getterDefinition(const FunctionDecl *LockWrapper,
                                                            StringRef UnlockWrapper,
                                                            const Expr *Mutex, const Expr *Guard,
                                                            const std::vector<const Stmt *> &Checks,
                                                            SourceLocation At) const {
    std::optional<std::string> Decls = getterDeclarations(LockWrapper, UnlockWrapper, "");
    std::optional<std::string> Proto = getterPrototype(LockWrapper, UnlockWrapper);
    if (!Decls || !Proto) return std::nullopt;
    // The wrappers' checks of their parameters, as written (a macro use whole), each on the
    // line it is written on, then back to the getter's line.
    std::string CheckText;
    std::vector<std::string> Seen;
    for (const Stmt *S : Checks) {
        std::optional<TextRange> R = Text.node(S->getSourceRange());
        if (!R) return std::nullopt;
        std::string One = Text.text(*R).str();
        if (llvm::is_contained(Seen, One)) continue; // the unlock's, the same as the lock's
        Seen.push_back(One);
        // (its own wrapper's name where it says it: each check is the lock's or the unlock's)
        std::string Push = functionNameMacros(LockWrapper, {S}, true);
        if (!Push.empty()) CheckText += "\n" + Push.substr(0, Push.size() - 1);
        CheckText += presumedLineDirective(R->Begin) + One + ";";
        if (!Push.empty()) CheckText += "\n" + functionNameMacros(LockWrapper, {S}, false);
    }
    if (!CheckText.empty()) {
        std::optional<unsigned> Here = Text.offset(At);
        if (!Here) return std::nullopt;
        CheckText += presumedLineDirective(*Here);
    }
    std::replace(Decls->begin(), Decls->end(), '\n', ' ');
    std::vector<unsigned> Used = parametersUsed(Mutex);
    std::string Body = printed(Mutex, Ctx);
    if (isC11Mutex(Mutex->getType())) Body = "(pthread_mutex_t *)(" + Body + ")";
    if (Guard) {
        // Locked only under a condition: null where it does not hold (the section then runs
        // under the wrappers, which do nothing).
        for (unsigned I : parametersUsed(Guard))
            if (std::find(Used.begin(), Used.end(), I) == Used.end()) Used.push_back(I);
        Body = "(" + printed(Guard, Ctx) + ") ? (" + Body + ") : (pthread_mutex_t *)0";
    }
    return *Decls + *Proto + getterBody(LockWrapper, UnlockWrapper, Body, Used, CheckText);
}

std::optional<std::string> SectionEmitter::chainGetterDefinition(const FunctionDecl *LockWrapper,
                                                                 StringRef UnlockWrapper,
                                                                 const CallExpr *Inner,
                                                                 StringRef InnerUnlock) const {
    const FunctionDecl *InnerLock = Inner->getDirectCallee();
    std::optional<std::string> Decls = getterDeclarations(LockWrapper, UnlockWrapper, "");
    std::optional<std::string> InnerDecls =
        getterDeclarations(InnerLock, InnerUnlock, " __attribute__((weak))");
    std::optional<std::string> Proto = getterPrototype(LockWrapper, UnlockWrapper);
    if (!Decls || !InnerDecls || !Proto) return std::nullopt;
    std::replace(Decls->begin(), Decls->end(), '\n', ' ');
    std::replace(InnerDecls->begin(), InnerDecls->end(), '\n', ' ');
    std::vector<unsigned> Used;
    std::vector<std::string> Args;
    for (const Expr *Arg : Inner->arguments()) {
        for (unsigned I : parametersUsed(Arg))
            if (std::find(Used.begin(), Used.end(), I) == Used.end()) Used.push_back(I);
        Args.push_back(printed(Arg, Ctx));
    }
    std::string InnerGetter = remoteMutexGetter(InnerLock->getName(), InnerUnlock);
    return *Decls + *InnerDecls + *Proto +
           getterBody(LockWrapper, UnlockWrapper,
                      InnerGetter + " ? " + InnerGetter + "(" + joinArguments(Args) +
                          ") : (pthread_mutex_t *)0",
                      Used);
}

std::string SectionEmitter::argumentText(const Expr *Arg) const {
    if (std::optional<TextRange> R = Text.node(Arg->getSourceRange())) return Text.text(*R).str();
    // Inside a macro's expansion (`#define possess(a) possess_(a, __FILE__, __LINE__)`): printed,
    // but `__FILE__` as itself, so that it names the file as the compiler was given it.
    SourceLocation Loc = Arg->IgnoreParenImpCasts()->getBeginLoc();
    const SourceManager &SM = Ctx.getSourceManager();
    if (Loc.isMacroID() && isa<StringLiteral>(Arg->IgnoreParenImpCasts()) &&
        Lexer::getImmediateMacroName(Loc, SM, Ctx.getLangOpts()) == "__FILE__")
        return "__FILE__";
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    Arg->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    return Out;
}

/// The type Var has in the converted code: a hoisted const variable loses its const.
static QualType variableType(const CriticalSection &CS, const VarDecl *Var) {
    QualType T = Var->getType();
    for (const Hoist &H : CS.Hoists)
        if (H.Var == Var && H.WithoutConst) T.removeLocalConst();
    return T;
}

std::optional<std::string> declaration(QualType T, StringRef Name, const ASTContext &Ctx) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    PrintingPolicy Policy = Ctx.getPrintingPolicy();
    Policy.SuppressTagKeyword = false;
    T.print(OS, Policy, Name);
    if (Out.find("(unnamed") != std::string::npos || Out.find("(anonymous") != std::string::npos)
        return std::nullopt;
    // A va_list parameter's type is the pointer it decays to, which prints as `struct
    // __va_list_tag *` (x86-64): written so, it would name a new structure of the user's, not
    // the compiler's (MIT Kerberos's `com_err_va(..., va_list ap)`: its section did not
    // compile). The compiler's own element type is spelled through __builtin_va_list.
    static const std::string Tag = "struct __va_list_tag";
    for (size_t At = Out.find(Tag); At != std::string::npos; At = Out.find(Tag, At)) {
        size_t End = At + Tag.size();
        if (End < Out.size() &&
            (isalnum(static_cast<unsigned char>(Out[End])) || Out[End] == '_')) {
            At = End;
            continue;
        }
        std::string Builtin = "__typeof__((*(__builtin_va_list *)0)[0])";
        Out.replace(At, Tag.size(), Builtin);
        At += Builtin.size();
    }
    return Out;
}

/// Re-indents the body: lines that start with the section's indentation get the outlined
/// function's instead. A line continuing a backslash-ended line is left alone (it may be
/// inside a string literal or a macro definition).
std::string SectionEmitter::reindent(StringRef Code, StringRef From, StringRef To) const {
    if (LineDirectives) return Code.str();
    std::string Out;
    bool Continued = false;
    while (!Code.empty()) {
        auto [Line, Rest] = Code.split('\n');
        bool HasNewline = Code.size() > Line.size();
        if (Line.trim().empty())
            Line = "";
        else if (!Continued && Line.starts_with(From))
            Out += (To + Line.drop_front(From.size())).str();
        else
            Out += Line.str();
        if (HasNewline) Out += '\n';
        Continued = Line.ends_with("\\");
        Code = Rest;
    }
    return Out;
}

std::optional<std::string> SectionEmitter::effectsFunction(
    const FunctionDecl *Wrapper, const std::vector<const Stmt *> &Statements, StringRef Name,
    StringRef What, std::string &Why,
    const std::vector<std::pair<const VarDecl *, int64_t>> &Sets) const {
    // The wrapper's text: in this file, or in a header it includes before the sections that
    // use it (jemalloc's `static inline` malloc_mutex_lock in mutex.h), where every name it uses
    // is declared too (SectionFinder checks that it comes first).
    const SourceManager &SM = Text.sourceManager();
    FileID Own = SM.getFileID(SM.getExpansionLoc(Wrapper->getBeginLoc()));
    std::optional<SourceText> Header;
    if (Own != Text.file()) Header.emplace(SM, Text.langOptions(), Own);
    const SourceText &From = Header ? *Header : Text;
    FunctionTypeLoc Proto = Wrapper->getFunctionTypeLoc();
    std::optional<TextRange> Params =
        Proto ? From.node(SourceRange(Proto.getLParenLoc(), Proto.getRParenLoc())) : std::nullopt;
    std::vector<TextRange> Parts;
    for (const Stmt *S : Statements)
        if (std::optional<TextRange> R = From.statement(S)) Parts.push_back(*R);
    if (!Params || Parts.size() != Statements.size()) {
        Why = "wrapper '" + Wrapper->getNameAsString() +
              "' does more than its operation, and its definition is written through a macro";
        return std::nullopt;
    }
    std::string Out =
        "/* rcl: what wrapper '" + Wrapper->getNameAsString() + "' does " + What.str() + ". */\n";
    Out += "static void " + Name.str() + From.text(*Params).str() + "\n{\n";
    for (const ParmVarDecl *Param : Wrapper->parameters())
        if (Param->getIdentifier()) Out += "    (void)" + Param->getNameAsString() + ";\n";
    // What the wrapper's test of its operation assigned on success (a file-scope variable,
    // which the wrapper's parameters cannot hide: the wrapper names it too).
    for (const auto &[Var, Value] : Sets)
        Out += "    " + Var->getNameAsString() + " = " + std::to_string(Value) +
               "; /* what its test of the result assigned on success */\n";
    Out += functionNameMacros(Wrapper, Statements, true);
    for (const TextRange &R : Parts) {
        std::string Line = Header ? lineDirective(*Header, R.Begin) : lineDirective(R.Begin);
        if (!Line.empty()) Out += Line.substr(1);
        Out += "    " + From.text(R).str() + "\n";
    }
    Out += functionNameMacros(Wrapper, Statements, false) + "}\n\n";
    return Out;
}

std::optional<EmittedSection> SectionEmitter::emit(const CriticalSection &CS,
                                                   std::string &Why) const {
    std::string FnName = CS.Function->getNameAsString();
    std::string Name = "rcl_cs_" + FnName + "_" + std::to_string(CS.Ordinal);
    std::string StructName = "struct " + Name + "_ctx";
    StringRef Indent = Text.indentation(CS.LockOffset);
    const std::string Unit = "    ";

    std::vector<TextEdit> Edits = CS.BodyEdits;
    if (LineDirectives)
        // Keep every line of the body on its original line number: an edit that removes
        // line breaks (an unlock and its tail) puts them back as empty lines.
        for (TextEdit &E : Edits)
            E.Text.append(Text.code().substr(E.Offset, E.Length).count('\n'), '\n');
    std::optional<std::string> Body = applyEdits(Text.code(), CS.Body, std::move(Edits));
    if (!Body) {
        Why = "overlapping edits in the critical section (a macro uses a captured variable twice?)";
        return std::nullopt;
    }

    EmittedSection Out;
    std::string &D = Out.Definition;
    D += "/* rcl: critical section of '" + CS.LockName + "' in " + FnName + "() at line " +
         std::to_string(Text.line(CS.LockOffset)) + ", outlined to run on the lock's server" +
         (CS.CallerState ? " as its caller, with its thread-local state (RCL_AS_CALLER)"
                         : std::string(" (rcl_delegate)")) +
         ". */\n";
    // The lock wrapper's statements after its lock run first in the outlined function, on the
    // lock call's arguments, which travel in the context (evaluated once, at the call site).
    const WrapperEffects *AfterLock = nullptr, *BeforeLock = nullptr, *AfterUnlock = nullptr;
    for (const WrapperEffects &P : CS.Parts)
        (P.Part == WrapperPart::AfterLock    ? AfterLock
         : P.Part == WrapperPart::BeforeLock ? BeforeLock
                                             : AfterUnlock) = &P;
    std::vector<std::string> LockArgs;
    for (const Expr *Arg : CS.LockCall->arguments())
        LockArgs.push_back(argumentText(Arg));
    bool HasContext = !CS.Captures.empty() || AfterLock || !CS.VaStart.empty();
    if (HasContext) {
        D += StructName + " {\n";
        // The call site's list of the enclosing function's variable arguments (VaStart).
        if (!CS.VaStart.empty()) D += Unit + "__builtin_va_list *rcl_va;\n";
        if (AfterLock)
            for (unsigned I = 0; I < AfterLock->Wrapper->getNumParams(); ++I) {
                std::optional<std::string> Member =
                    declaration(AfterLock->Wrapper->getParamDecl(I)->getType(),
                                "rcl_lock_arg" + std::to_string(I), Ctx);
                if (!Member) {
                    Why = "a parameter type of lock wrapper '" +
                          AfterLock->Wrapper->getNameAsString() + "' cannot be written out";
                    return std::nullopt;
                }
                D += Unit + *Member + ";\n";
            }
        for (const Capture &C : CS.Captures) {
            QualType T = variableType(CS, C.Var);
            if (C.Kind == CaptureKind::ByPointer) T = Ctx.getPointerType(T);
            std::optional<std::string> Member = declaration(T, C.Field, Ctx);
            if (!Member) {
                Why = "the type of '" + C.Var->getNameAsString() +
                      "' cannot be named outside the function";
                return std::nullopt;
            }
            D += Unit + *Member + ";\n";
        }
        D += "};\n\n";
    }
    for (const auto &[From, To] : CS.MacroRenames)
        D += "#pragma push_macro(\"" + From + "\")\n#undef " + From + "\n#define " + From + " " +
             To + "\n";
    // The function's own macros the section uses, as the function defined them before it.
    for (const auto &[Name, Directive] : CS.LocalMacros)
        D += "#pragma push_macro(\"" + Name + "\")\n#undef " + Name + "\n" + Directive + "\n";
    // RCL_SECTION_INLINE (rcl.h): where the runtime runs the call in the caller (rcl.h's
    // inline fast path: local mode, an adaptive lock on its local path) the compiler puts the
    // section back where it came from, as the original code had it.
    // With LineDirectives, the code rcl adds is on lines of the section where the original
    // had code too: the call on the lock's line, the outlined function's entry (which reads
    // the context) on the line of the body's first statement, its return on the unlock's. A
    // debugger's breakpoint on a line of the body stops in the outlined function, and gcov
    // counts each line as often as the original's.
    const std::string NL = LineDirectives ? " " : "\n";
    const std::string In = LineDirectives ? "" : Unit;
    if (LineDirectives)
        D += lineDirective(Text.firstToken(CS.Body).value_or(CS.LockOffset)).substr(1);
    D += "static RCL_SECTION_INLINE int " + Name + "(void *rcl_arg)" + NL + "{" + NL;
    // The cast: C++-compatible C (GCC's -Wc++-compat) converts no void * implicitly.
    if (HasContext)
        D += In + StructName + " *rcl_ctx = (" + StructName + " *)rcl_arg;" + NL;
    else
        D += In + "(void)rcl_arg;" + NL;
    for (const Capture &C : CS.Captures)
        if (C.Kind == CaptureKind::ByValue)
            D += In + *declaration(C.Var->getType(), C.Var->getName(), Ctx) + " = rcl_ctx->" +
                 C.Field + ";" + NL;
    if (AfterLock) {
        std::vector<std::string> Fields;
        for (unsigned I = 0; I < AfterLock->Wrapper->getNumParams(); ++I)
            Fields.push_back("rcl_ctx->rcl_lock_arg" + std::to_string(I));
        D += In + wrapperPartName(AfterLock->Wrapper, WrapperPart::AfterLock) + "(" +
             joinArguments(Fields) + ");" + NL;
    }
    D += lineDirective(CS.Body.Begin);
    std::string BodyText = reindent(*Body, Indent, Unit);
    // The body starts with the rest of the lock's line: usually just its newline.
    if (!LineDirectives && StringRef(BodyText).starts_with("\n")) BodyText.erase(0, 1);
    D += BodyText;
    if (LineDirectives) {
        D += lineDirective(CS.Body.End) + (CS.FinalUnlock ? "}\n" : "return 0; }\n");
    } else {
        if (!CS.FinalUnlock) D += "\n" + Unit + "return 0;";
        D += "\n}\n";
    }
    for (const auto &[From, To] : CS.MacroRenames)
        D += "#pragma pop_macro(\"" + From + "\")\n";
    for (const auto &[Name, Directive] : CS.LocalMacros)
        D += "#pragma pop_macro(\"" + Name + "\")\n";
    D += "\n";

    // The call site (with LineDirectives on the lock's line, but for the exits' tails).
    std::string &C = Out.CallSite;
    std::string In1 = LineDirectives ? "" : Indent.str() + Unit;
    std::string Next = LineDirectives ? " " : "\n" + Indent.str();
    if (!CS.CallSitePrefix.empty()) C += CS.CallSitePrefix + Next;
    for (const Hoist &H : CS.Hoists) {
        if (H.MovesWhole) {
            if (H.EmitsText)
                C += "/* rcl: declared in the critical section, used after it */ " +
                     Text.text(H.Decl).str() + Next;
            continue;
        }
        std::optional<std::string> Decl =
            declaration(variableType(CS, H.Var), H.Var->getName(), Ctx);
        if (!Decl) {
            Why = "the type of '" + H.Var->getNameAsString() + "' cannot be named";
            return std::nullopt;
        }
        C += "/* rcl: declared in the critical section, used after it */ " + *Decl + ";" + Next;
    }
    // The lock call's arguments as written (through a wrapper: `&(&L)->mutex`,
    // `&item_locks[(hv) & ...]`, `rcl_mutex_of_item_lock(hv)`).
    std::vector<std::string> Args;
    std::vector<const Expr *> ArgExprs;
    if (CS.Mutex.Through || !CS.Mutex.Remote.empty())
        ArgExprs.assign(CS.Mutex.Call->arg_begin(), CS.Mutex.Call->arg_end());
    else
        ArgExprs.push_back(CS.Mutex.Operand);
    for (const Expr *Arg : ArgExprs)
        Args.push_back(argumentText(Arg));
    // A remote pair: its getter, which the defining unit has when the pair is exact.
    std::string Getter, UnlockName;
    if (!CS.Mutex.Remote.empty() && !CS.Timed) { // (a timed wrapper: its copy, below)
        UnlockName = remoteUnlockWrapper(CS.Mutex, CS.UnlockCall).str();
        Getter = remoteMutexGetter(CS.Mutex.Remote, UnlockName);
    }
    std::string LockExpr = Getter.empty() ? mutexExpression(CS.Mutex, Args, Ctx) : "rcl_mutex";
    // A C11 mutex is the pthread mutex it is made of (rcl/threads.h).
    if (const Expr *M = CS.Mutex.Through ? CS.Mutex.Through : CS.Mutex.Operand;
        Getter.empty() && M && isC11Mutex(M->getType())) {
        LockExpr = "(pthread_mutex_t *)(" + LockExpr + ")";
        Out.C11 = true;
    }
    for (const TextEdit &E : CS.BodyEdits)
        Out.C11 |= StringRef(E.Text).starts_with("rcl_cnd_");
    for (const auto &[From, To] : CS.MacroRenames)
        Out.C11 |= StringRef(To).starts_with("rcl_cnd_");
    // Generated statements end the line only without LineDirectives.
    const std::string End = LineDirectives ? " " : "\n";
    C += "{" + End;
    if (BeforeLock)
        C += In1 + wrapperPartName(BeforeLock->Wrapper, WrapperPart::BeforeLock) + "(" +
             joinArguments(LockArgs) + ");" + End;
    std::string CtxArg = "(void *)0";
    if (!CS.VaStart.empty()) {
        if (CS.Timed) {
            Why = "a timed section that starts the enclosing function's variable arguments";
            return std::nullopt;
        }
        C += In1 + "__builtin_va_list rcl_va;" + End + In1 + "int rcl_va_result;" + End;
    }
    if (HasContext) {
        C += In1 + StructName + " rcl_ctx = {";
        bool First = true;
        if (AfterLock)
            for (unsigned I = 0; I < LockArgs.size(); ++I) {
                C += First ? " " : ", ";
                First = false;
                C += ".rcl_lock_arg" + std::to_string(I) + " = " + LockArgs[I];
            }
        if (!CS.VaStart.empty()) {
            C += " .rcl_va = &rcl_va";
            First = false;
        }
        for (const Capture &Cap : CS.Captures) {
            C += First ? " " : ", ";
            First = false;
            C += "." + Cap.Field + " = " + (Cap.Kind == CaptureKind::ByPointer ? "&" : "") +
                 Cap.Var->getNameAsString();
        }
        C += " };" + End;
        CtxArg = "&rcl_ctx";
    }
    // A context travels by copy (rcl_delegate_ctx): the section only reads its by-value fields
    // and follows its by-pointer ones, never takes a field's address (CaptureAnalysis), so the
    // runtime may run it on a copy inside the request line.
    // In the program's allocator, rcl_delegate_allocator (the same, by pointer for size 0).
    // A section that uses its thread's state in the C library (CS.CallerState): the server
    // runs it as its caller, rcl_delegate_flags with RCL_AS_CALLER.
    std::string CtxArgs = HasContext ? "&rcl_ctx, sizeof rcl_ctx" : CtxArg + ", 0";
    std::string Call =
        CS.CallerState ? "rcl_delegate_flags(" + LockExpr + ", " + Name + ", " + CtxArgs +
                             ", RCL_AS_CALLER" + (AllocatorUnit ? " | RCL_ALLOCATOR" : "") + ")"
        : AllocatorUnit ? "rcl_delegate_allocator(" + LockExpr + ", " + Name + ", " + CtxArgs + ")"
        : HasContext ? "rcl_delegate_ctx(" + LockExpr + ", " + Name + ", &rcl_ctx, sizeof rcl_ctx)"
                     : "rcl_delegate(" + LockExpr + ", " + Name + ", " + CtxArg + ")";
    if (!Getter.empty()) {
        // The pair is defined in another unit: its getter (weak) exists when rcl-rewrite
        // checked the definitions there; without it the section runs between the section's
        // own lock and unlock calls, as the original did. Where the two calls differ in
        // constants (`__LINE__`), it delegates only if none of those positions chooses the
        // mutex (the pair's parameter mask).
        std::vector<std::string> UnlockArgs;
        for (const Expr *Arg : CS.UnlockCall->arguments())
            UnlockArgs.push_back(argumentText(Arg));
        std::string Unlock = UnlockName + "(" + joinArguments(UnlockArgs) + ")";
        unsigned Differ = 0;
        for (unsigned I : differingArguments(CS.LockCall, CS.UnlockCall, Ctx))
            Differ |= 1u << std::min(I, 31u);
        // The getter may be absent (weak) or return null (a chain whose inner getter is
        // absent, a condition that does not hold): then it runs under the wrappers.
        std::string Test = "(rcl_mutex = " + Getter + " ? " + Getter + "(" + joinArguments(Args) +
                           ") : (pthread_mutex_t *)0)";
        if (Differ)
            Test = "(" + Test + " && !(" + remoteMutexParameters(CS.Mutex.Remote, UnlockName) +
                   " & " + std::to_string(Differ) + "u))";
        C += In1 + "int rcl_local_result;" + End;
        C += In1 + "pthread_mutex_t *rcl_mutex;" + End;
        // Otherwise under the section's own wrappers (a static one chaining to the pair, too).
        std::string LockWrapper = CS.LockCall->getDirectCallee()->getName().str();
        Call = "(" + Test + " ? " + Call + " : (" + LockWrapper + "(" + joinArguments(Args) +
               "), rcl_local_result = " + Name + "(" + CtxArg + "), " + Unlock +
               ", rcl_local_result))";
    }
    // An optional lock (a condition in the section, `if (f->thlock) lock(f->thlock);`, or in
    // its wrapper, `if (pcm->lock_enabled) ...`): delegated when the condition holds, run in
    // place, without any lock, when not, as the original did.
    std::vector<std::string> Conditions;
    if (CS.Mutex.Guard) Conditions.push_back(argumentText(CS.Mutex.Guard));
    if (CS.Mutex.WrapperGuard) Conditions.push_back(wrapperGuardExpression(CS.Mutex, Args, Ctx));
    if (!Conditions.empty()) {
        std::string Test;
        for (const std::string &T : Conditions)
            Test += (Test.empty() ? "(" : " && (") + T + ")";
        Call = "(" + Test + " ? " + Call + " : " + Name + "(" + CtxArg + "))";
    }
    // A timed section: the lock statement stays, its call made the timed delegation; the
    // dispatch below runs when the section ran (on rcl_timed_result, its exit number), the
    // body's own text when the lock was not had.
    std::string TimedLockPart, TimedRan = "rcl_timed_err == 0", TimedCopy, TimedBody;
    if (CS.Timed) {
        // The body's own text, run in place when the lock is not had: its declarations that
        // moved before the call site (Hoists) assigned where they were.
        std::vector<TextEdit> InPlace;
        for (const Hoist &H : CS.Hoists)
            InPlace.insert(InPlace.end(), H.InPlace.begin(), H.InPlace.end());
        if (LineDirectives)
            for (TextEdit &E : InPlace)
                E.Text.append(Text.code().substr(E.Offset, E.Length).count('\n'), '\n');
        std::optional<std::string> Own = applyEdits(Text.code(), CS.Body, std::move(InPlace));
        if (!Own) {
            Why = "overlapping edits in the critical section's own text";
            return std::nullopt;
        }
        TimedBody = *Own;
        if (CS.CallerState || AllocatorUnit) {
            Why = CS.CallerState ? "a timed section that uses its caller's thread state cannot "
                                   "run as its caller (rcl_delegate_timed has no such form)"
                                 : "a timed section in the program's own allocator";
            return std::nullopt;
        }
        const CallExpr *L = CS.LockCall;
        StringRef Callee = L->getDirectCallee()->getName();
        std::optional<TextRange> CallText = Text.node(L->getSourceRange());
        if (!CallText || CallText->Begin < CS.Whole.Begin || CallText->End > CS.Body.Begin) {
            Why = "the timed lock's call cannot be found in its statement's text";
            return std::nullopt;
        }
        // What the lock call becomes.
        std::string Delegation;
        if (!CS.Mutex.Remote.empty()) {
            // A declared timed wrapper (APR's apr_thread_mutex_timedlock): its delegating copy,
            // which the unit defining it writes (weak: absent, the statements run as written).
            std::vector<std::string> WrapperArgs;
            for (const Expr *Arg : L->arguments())
                WrapperArgs.push_back(argumentText(Arg));
            TimedCopy = timedWrapperCopy(Callee, CS.UnlockCall->getDirectCallee()->getName());
            Delegation = TimedCopy + "(" + joinArguments(WrapperArgs) + ", " + Name + ", " +
                         CtxArgs + ", &rcl_timed_result, &rcl_timed_ran)";
            TimedRan = "rcl_timed_ran";
        } else {
            std::string Clock = "CLOCK_REALTIME", Deadline;
            if (Callee == "pthread_mutex_clocklock" && L->getNumArgs() == 3) {
                Clock = argumentText(L->getArg(1));
                Deadline = argumentText(L->getArg(2));
            } else if (L->getNumArgs() == 2) {
                Deadline = argumentText(L->getArg(1));
            }
            if (Deadline.empty()) {
                Why = "the timed lock's call cannot be found in its statement's text";
                return std::nullopt;
            }
            Delegation = "rcl_delegate_timed(" + LockExpr + ", " + Name + ", " + CtxArgs + ", " +
                         Clock + ", " + Deadline + ", &rcl_timed_result)";
            if (Callee == "mtx_timedlock") {
                Delegation = "rcl_thrd_result(" + Delegation + ")"; // (rcl/threads.h)
                Out.C11 = true;
            }
            Delegation = "(rcl_timed_err = " + Delegation + ")";
        }
        TimedLockPart = Text.text({CS.Whole.Begin, CallText->Begin}).str() + Delegation +
                        Text.text({CallText->End, CS.Body.Begin}).str();
    }
    if (CS.Timed) Call = "rcl_timed_result"; // (the section's exit number, once it ran)
    // The list the call site started ends once the section returned, before any exit's tail.
    if (!CS.VaStart.empty())
        Call = "(rcl_va_result = " + Call + ", __builtin_va_end(rcl_va), rcl_va_result)";
    std::vector<const Exit *> Dispatch;
    for (const Exit &E : CS.Exits)
        if (E.Number != 0) Dispatch.push_back(&E);
    auto tailText = [&](const Exit &E, StringRef To) {
        if (!E.Jump.empty()) return To.str() + E.Jump + End;
        if (!E.Tail) return std::string();
        if (LineDirectives) // the tail on its own lines, then back on the lock's line
            return resumeAt(E.Tail->Begin) + Text.text(*E.Tail).str() +
                   lineDirective(CS.LockOffset);
        return dedent(Text.text(*E.Tail), To) + "\n";
    };
    // The unlock wrapper's statements after its unlock run once the delegation returned, before
    // whatever the section's exit continues with.
    std::string After;
    if (AfterUnlock) {
        std::vector<std::string> UnlockArgs;
        for (const Expr *Arg : CS.UnlockCall->arguments())
            UnlockArgs.push_back(argumentText(Arg));
        After = In1 + wrapperPartName(AfterUnlock->Wrapper, WrapperPart::AfterUnlock) + "(" +
                joinArguments(UnlockArgs) + ");" + End;
    }
    // (started after the declarations: programs built with -Wdeclaration-after-statement)
    if (!CS.VaStart.empty()) C += In1 + "__builtin_va_start(rcl_va, " + CS.VaStart + ");" + End;
    size_t DispatchAt = C.size();
    std::string Discard =
        CS.Timed || !CS.VaStart.empty() ? "(void)" : ""; // (the exit number is there unused)
    if (Dispatch.empty()) {
        C += In1 + Discard + Call + ";" + End + After;
    } else if (!After.empty()) {
        C += In1 + "int rcl_exit = " + Call + ";" + End + After;
        for (size_t I = 0; I < Dispatch.size(); ++I) {
            if (I + 1 == Dispatch.size() && CS.EndsByExit)
                C += I == 0 ? In1 + "{" + End : " else {" + End;
            else
                C += (I == 0 ? In1 + "if" : std::string(" else if")) +
                     " (rcl_exit == " + std::to_string(Dispatch[I]->Number) + ") {" + End;
            C += tailText(*Dispatch[I], In1 + Unit);
            C += In1 + "}";
        }
        C += End;
    } else if (Dispatch.size() == 1 && CS.EndsByExit) {
        C += In1 + Discard + Call + ";" + End;
        C += tailText(*Dispatch[0], In1);
    } else if (Dispatch.size() == 1) {
        C += In1 + "if (" + Call + " == " + std::to_string(Dispatch[0]->Number) + ") {" + End;
        C += tailText(*Dispatch[0], In1 + Unit);
        C += In1 + "}" + End;
    } else {
        // An if chain, not a switch: a tail's `break` must still leave the user's loop.
        C += In1 + "int rcl_exit = " + Call + ";" + End;
        for (size_t I = 0; I < Dispatch.size(); ++I) {
            if (I + 1 == Dispatch.size() && CS.EndsByExit)
                C += " else {" + End;
            else
                C += (I == 0 ? In1 + "if" : std::string(" else if")) +
                     " (rcl_exit == " + std::to_string(Dispatch[I]->Number) + ") {" + End;
            C += tailText(*Dispatch[I], In1 + Unit);
            C += In1 + "}";
        }
        C += End;
    }
    if (CS.Timed) {
        std::string Ran = C.substr(DispatchAt);
        C.resize(DispatchAt);
        C += In1 + "int rcl_timed_result = 0, " +
             (TimedCopy.empty() ? "rcl_timed_err;" : "rcl_timed_ran = 0;") + End;
        if (!TimedCopy.empty()) C += In1 + "if (" + TimedCopy + ") {" + End;
        // (On one line, braced: what follows it must not read as the body of its `if`,
        // -Wmisleading-indentation.)
        if (LineDirectives)
            C += "{ " + TimedLockPart + " }" + End;
        else
            C += In1 + reindent(TimedLockPart, Indent, Indent.str() + Unit) + End;
        // Nothing to run after a section that ran: only the branch that did not.
        bool Nothing = Dispatch.empty() && After.empty() && CS.CallSiteSuffix.empty();
        if (Nothing) {
            C += In1 + "if (" + (TimedCopy.empty() ? "rcl_timed_err != 0" : "!rcl_timed_ran") +
                 ") {";
        } else {
            C += In1 + "if (" + TimedRan + ") {" + End + reindent(Ran, In1, In1 + Unit);
            if (!CS.CallSiteSuffix.empty()) C += In1 + Unit + CS.CallSiteSuffix + End;
            C += In1 + "} else {";
        }
        if (LineDirectives)
            C += resumeAt(CS.Body.Begin) + TimedBody + End;
        else
            C += " /* rcl: the lock was not had: the statements as written */" +
                 reindent(TimedBody, Indent, Indent.str() + Unit + Unit) + "\n";
        C += In1 + "}" + End;
        if (!TimedCopy.empty()) { // the wrapper's copy is absent: all of it as written
            C += In1 + "} else {";
            if (LineDirectives)
                C += resumeAt(CS.Whole.Begin) + Text.text({CS.Whole.Begin, CS.Body.Begin}).str() +
                     TimedBody + End;
            else
                C += " /* rcl: without the wrapper's copy: as written */\n" + In1 + Unit +
                     reindent(Text.text({CS.Whole.Begin, CS.Body.Begin}).str() + TimedBody, Indent,
                              Indent.str() + Unit + Unit) +
                     "\n";
            C += In1 + "}" + End;
        }
    }
    C += (LineDirectives ? "" : Indent.str()) + "}";
    if (!CS.CallSiteSuffix.empty() && !CS.Timed) C += " " + CS.CallSiteSuffix;
    if (LineDirectives) C += resumeAt(CS.Whole.End);
    return Out;
}

} // namespace rcl
