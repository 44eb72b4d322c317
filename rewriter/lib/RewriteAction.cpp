//===- RewriteAction.cpp - run find → analyse → emit over translation units -===//
#include "RewriteAction.h"

#include "CaptureAnalysis.h"
#include "SectionEmitter.h"
#include "SectionFinder.h"
#include "StmtWalk.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RawCommentList.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace rcl {

namespace {

/// Rewrites the critical sections of one translation unit's main file.
class RewriteConsumer : public ASTConsumer {
  public:
    explicit RewriteConsumer(RewriteSession &Session) : Session(Session) {}

    void HandleTranslationUnit(ASTContext &Ctx) override {
        if (Ctx.getDiagnostics().hasErrorOccurred()) return;
        SourceManager &SM = Ctx.getSourceManager();
        FileID Main = SM.getMainFileID();
        OptionalFileEntryRef Entry = SM.getFileEntryRefForID(Main);
        if (!Entry) return;
        std::string Given = Entry->getName().str();
        std::string Real = SM.getFileManager().getCanonicalName(*Entry).str();
        if (Session.FactsOnly) {
            CalleeFacts Callees(Ctx, Session.Api, &Session.Project, false,
                                ProjectFacts::unitKey(Real));
            Session.Project.add(Callees.exported());
            return;
        }
        if (!Session.Done.insert(Real).second) return;
        Session.MainFiles[Real] = Given;
        SourceText Text(SM, Ctx.getLangOpts(), Main);
        auto Spelling = Session.Spellings.find(Given);
        SectionEmitter Emitter(Ctx, Text, Session.LineDirectives,
                               Spelling == Session.Spellings.end() ? Given : Spelling->second);

        std::vector<std::pair<unsigned, std::string>> Inserts; // offset, text
        std::vector<clang::tooling::Replacement> Sites;
        std::vector<Decl *> Functions;
        for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
            auto *Fn = dyn_cast<FunctionDecl>(D);
            // `local void f(void)` with `#define local static`: the declaration may begin
            // with a macro; what counts is that the body is written in the main file. A body
            // produced by a macro is left alone: its statements may be macro arguments, where
            // an edit (a context initializer's commas) would change the macro's arguments.
            if (Fn && Fn->doesThisDeclarationHaveABody() &&
                SM.getFileID(SM.getExpansionLoc(Fn->getBody()->getBeginLoc())) == Main)
                Functions.push_back(Fn);
        }
        for (const WrapperPair &W : Session.Api.wrappers())
            for (auto [Name, Role] : {std::pair{W.Lock, "lock"}, std::pair{W.Unlock, "unlock"}}) {
                IdentifierInfo &Id = Ctx.Idents.get(Name);
                bool Function = false;
                for (NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(&Id))
                    Function |= isa<FunctionDecl>(D);
                Session.Findings.noteWrapper(Name, Role,
                                             Function                  ? "function"
                                             : Id.hasMacroDefinition() ? "macro"
                                                                       : "unseen");
            }
        // Parent lookups only ever concern these bodies: keep the parent map off the headers.
        Ctx.setTraversalScope(Functions);
        CalleeFacts Callees(Ctx, Session.Api, &Session.Project, Session.RequireCalleeFacts,
                            ProjectFacts::unitKey(Real));
        {
            ProjectFacts::UnitFacts Mine = Callees.exported();
            std::string Error;
            if (!Session.FactsDir.empty() &&
                !ProjectFacts::save(Session.FactsDir, Real, Mine, Error))
                Session.InternalErrors.push_back("--facts-dir: " + Error);
            Session.Project.add(Mine); // for the units after this one in the same run
        }
        for (Decl *D : Functions) {
            auto *Fn = cast<FunctionDecl>(D);
            if (isDeclaredWrapper(Fn)) continue;
            std::string Definitions =
                rewriteFunction(Ctx, Text, Emitter, Callees, Fn, Real, Given, Sites);
            if (Definitions.empty()) continue;
            unsigned Offset = functionStart(Ctx, Text, Fn);
            std::string Resume = Emitter.lineDirective(Text.line(Offset));
            Inserts.push_back({Offset, Definitions + (Resume.empty() ? "" : Resume.substr(1))});
        }
        std::vector<clang::tooling::Replacement> Getters = pairGetters(Ctx, Text, Emitter, Real);
        if (Inserts.empty() && Getters.empty()) return;
        clang::tooling::Replacements &Edits = Session.Edits[Real];
        for (const clang::tooling::Replacement &R : Getters)
            addEdit(Edits, R);
        if (Inserts.empty()) return;
        // A static function whose every use the conversion removed (a lock wrapper; a logging
        // function called only in a dropped check of a lock's result) would trip
        // -Wunused-function: it is marked unused. Only uses in function bodies count (one in a
        // table elsewhere just makes the mark unneeded, never wrong).
        std::map<const FunctionDecl *, bool> OnlyRemoved; // function -> no use left
        for (Decl *D : Functions)
            walk(cast<FunctionDecl>(D)->getBody(), [&](const Stmt *S) {
                const auto *Ref = dyn_cast<DeclRefExpr>(S);
                const auto *Fn = Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
                if (!Fn || Fn->getStorageClass() != SC_Static) return;
                std::optional<unsigned> At = Text.expansionOffset(Ref->getBeginLoc());
                bool Removed = At && llvm::any_of(RemovedText, [&](const TextRange &R) {
                                   return R.contains(*At);
                               });
                auto [It, New] = OnlyRemoved.try_emplace(Fn->getFirstDecl(), Removed);
                if (!New) It->second &= Removed;
            });
        for (auto &[Fn, NoUseLeft] : OnlyRemoved) {
            if (!NoUseLeft || Fn->hasAttr<UnusedAttr>() || Fn->getBeginLoc().isMacroID()) continue;
            if (std::optional<unsigned> Offset = Text.offset(Fn->getBeginLoc()))
                addEdit(Edits,
                        clang::tooling::Replacement(Real, *Offset, 0, "__attribute__((unused)) "));
        }
        // Condition waits renamed in functions that converted sections call, unless they lie
        // in a converted section themselves (its own analysis decided what they become). The
        // include must come before the first function that calls an rcl_cond_* function.
        unsigned IncludeAt = Inserts.front().first;
        std::set<unsigned> Renamed;
        for (const CalleeEdit &E : CalleeEdits) {
            bool Moved = false;
            for (const TextRange &Whole : ConvertedSections)
                Moved |= Whole.contains(E.Edit.Offset);
            if (Moved || !Renamed.insert(E.Edit.Offset).second) continue;
            addEdit(Edits,
                    clang::tooling::Replacement(Real, E.Edit.Offset, E.Edit.Length, E.Edit.Text));
            IncludeAt = std::min(IncludeAt, functionStart(Ctx, Text, E.Function));
        }
        const std::string Include = "#include <rcl/rcl.h> /* added by rcl-rewrite */\n\n";
        if (Session.LineDirectives)
            addEdit(Edits,
                    clang::tooling::Replacement(Real, 0, 0, Emitter.lineDirective(1).substr(1)));
        if (IncludeAt < Inserts.front().first) {
            std::string Resume = Emitter.lineDirective(Text.line(IncludeAt));
            addEdit(Edits,
                    clang::tooling::Replacement(
                        Real, IncludeAt, 0, Include + (Resume.empty() ? "" : Resume.substr(1))));
        } else {
            Inserts.front().second = Include + Inserts.front().second;
        }
        for (auto &[Offset, Insert] : Inserts)
            addEdit(Edits, clang::tooling::Replacement(Real, Offset, 0, Insert));
        for (const clang::tooling::Replacement &R : Sites)
            addEdit(Edits, R);
    }

  private:
    /// For each declared wrapper pair defined in this file whose lock and unlock are exactly a
    /// lock and an unlock of one mutex expression (LockApi::pairMutex) of a first argument that
    /// is not itself the mutex pointer: the mutex getter that other units' converted sections
    /// delegate through, written on the line of the later definition's closing brace (line
    /// numbers stay).
    std::vector<clang::tooling::Replacement> pairGetters(ASTContext &Ctx, const SourceText &Text,
                                                         const SectionEmitter &Emitter,
                                                         const std::string &Real) {
        std::vector<clang::tooling::Replacement> Out;
        const SourceManager &SM = Ctx.getSourceManager();
        for (const WrapperPair &W : Session.Api.wrappers()) {
            const FunctionDecl *LockDef = nullptr, *UnlockDef = nullptr;
            for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
                if (auto *Fn = dyn_cast<FunctionDecl>(D);
                    Fn && Fn->getIdentifier() && Fn->doesThisDeclarationHaveABody() &&
                    SM.isWrittenInMainFile(SM.getExpansionLoc(Fn->getBeginLoc()))) {
                    if (Fn->getName() == W.Lock) LockDef = Fn;
                    if (Fn->getName() == W.Unlock) UnlockDef = Fn;
                }
            if (!LockDef || !UnlockDef || LockDef->getStorageClass() == SC_Static) continue;
            if (!reachedThroughGetter(LockDef))
                continue; // callers elsewhere delegate on the argument itself
            const Expr *Mutex = Session.Api.pairMutex(LockDef, UnlockDef);
            const FunctionDecl *Later =
                SM.isBeforeInTranslationUnit(LockDef->getEndLoc(), UnlockDef->getEndLoc())
                    ? UnlockDef
                    : LockDef;
            std::optional<unsigned> End = Text.offset(Later->getEndLoc());
            if (!Mutex || !End) continue;
            if (std::optional<std::string> Getter =
                    Emitter.getterDefinition(LockDef, W.Unlock, Mutex))
                Out.emplace_back(Real, *End + 1, 0, " " + *Getter);
        }
        return Out;
    }

    /// Where text inserted before Fn goes: the start of the line of its first token, or of
    /// its documentation comment.
    static unsigned functionStart(ASTContext &Ctx, const SourceText &Text, const FunctionDecl *Fn) {
        SourceLocation Start = Fn->getBeginLoc();
        if (const RawComment *Doc = Ctx.getRawCommentForDeclNoCache(Fn)) Start = Doc->getBeginLoc();
        return Text.lineStart(Text.expansionOffset(Start).value_or(0));
    }

    void addEdit(clang::tooling::Replacements &Edits, const clang::tooling::Replacement &R) {
        if (llvm::Error E = Edits.add(R))
            Session.InternalErrors.push_back("conflicting edits in '" + R.getFilePath().str() +
                                             "': " + llvm::toString(std::move(E)));
    }

    void record(const SourceText &Text, const std::string &Given, const std::string &Lock,
                unsigned Offset, const FunctionDecl *Fn, SectionRecord::Outcome Result,
                const Refusal *Why, const CriticalSection *CS) {
        SectionRecord R;
        R.Lock = Lock;
        R.File = Given;
        R.Line = Text.line(Offset);
        R.Column = Text.column(Offset);
        R.Function = Fn->getNameAsString();
        R.Result = Result;
        if (Why) {
            R.Reason = Why->Reason;
            R.WaitsForFacts = Why->WaitsForFacts;
            R.UnknownCallees = Why->UnknownCallees;
            const SourceManager &SM = Text.sourceManager();
            PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Why->Loc));
            if (!Session.Quiet && P.isValid())
                llvm::errs() << P.getFilename() << ":" << P.getLine() << ":" << P.getColumn()
                             << ": rcl: cannot convert critical section: " << Why->Reason << "\n";
        }
        if (CS) {
            const SourceManager &SM = Text.sourceManager();
            for (const Note &N : CS->Notes) {
                R.Notes.push_back(N.Text);
                PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(N.Loc));
                if (!Session.Quiet && P.isValid())
                    llvm::errs() << P.getFilename() << ":" << P.getLine() << ":" << P.getColumn()
                                 << ": rcl: note: converted critical section " << N.Text << "\n";
            }
            R.Captures = CS->Captures.size();
            for (const Exit &E : CS->Exits)
                R.Exits += E.Number != 0;
        }
        Session.Findings.add(std::move(R));
    }

    /// Finds, analyses and emits the sections of Fn; returns the definitions to insert before
    /// it and appends the call-site replacements to Sites.
    std::string rewriteFunction(ASTContext &Ctx, const SourceText &Text,
                                const SectionEmitter &Emitter, CalleeFacts &Callees,
                                const FunctionDecl *Fn, const std::string &Real,
                                const std::string &Given,
                                std::vector<clang::tooling::Replacement> &Sites) {
        std::vector<CriticalSection> Sections;
        std::vector<OtherSite> Others;
        SectionFinder Finder(Ctx, Session.Api, Text);
        Finder.find(Fn, Sections, Others);
        if (SourceLocation Body = Fn->getBody()->getBeginLoc(); Body.isMacroID())
            for (CriticalSection &CS : Sections)
                if (!CS.Refused)
                    CS.Refused = Refusal{"the function's body is written by macro '" +
                                             Lexer::getImmediateMacroName(
                                                 Body, Ctx.getSourceManager(), Ctx.getLangOpts())
                                                 .str() +
                                             "', whose text the tool does not edit",
                                         CS.LockCall->getBeginLoc()};
        if (Sections.empty() && Others.empty()) return "";
        CaptureAnalysis Analysis(Ctx, Session.Api, Text, Callees, Session.NoNestedLocks, Fn);
        std::vector<TextRange> Converted;
        std::string Definitions;
        unsigned Ordinal = 0;
        for (CriticalSection &CS : Sections) {
            unsigned LastLine = CS.Refused ? Text.line(CS.LockOffset) : Text.line(CS.Whole.End);
            if (!Session.Select.selects(CS.LockName, Given, Text.line(CS.LockOffset), LastLine))
                continue;
            bool Nested = false;
            for (const TextRange &Outer : Converted)
                Nested |= Outer.contains(CS.LockOffset);
            if (Nested) {
                record(Text, Given, CS.LockName, CS.LockOffset, Fn, SectionRecord::Nested, nullptr,
                       nullptr);
                continue;
            }
            if (!CS.Refused) Analysis.analyse(CS);
            std::optional<EmittedSection> Out;
            // Copies of unlock wrappers' statements, once per translation unit, before the
            // first section that needs them.
            std::string Helpers;
            std::vector<const FunctionDecl *> NewHelpers;
            for (const EffectsUnlock &U : CS.EffectsUnlocks) {
                if (CS.Refused || EffectsEmitted.count(U.Wrapper) ||
                    std::count(NewHelpers.begin(), NewHelpers.end(), U.Wrapper))
                    continue;
                std::string Why;
                std::optional<std::string> Helper = Emitter.effectsFunction(U.Wrapper, Why);
                if (!Helper)
                    CS.Refused = Refusal{Why, U.Call->getBeginLoc()};
                else
                    Helpers += *Helper;
                NewHelpers.push_back(U.Wrapper);
            }
            // A pair defined in another unit: the weak declaration of its getter, once.
            std::string GetterDecl, GetterName;
            if (!CS.Refused && !CS.Mutex.Remote.empty()) {
                StringRef Unlock = CS.UnlockCall->getDirectCallee()->getName();
                GetterName = remoteMutexGetter(CS.Mutex.Remote, Unlock);
                std::optional<std::string> Decls = Emitter.getterDeclarations(
                    CS.LockCall->getDirectCallee(), Unlock, " __attribute__((weak))");
                if (!Decls)
                    CS.Refused = Refusal{"a parameter type of lock wrapper '" + CS.Mutex.Remote +
                                             "' cannot be written out",
                                         CS.LockCall->getBeginLoc()};
                else if (!GettersDeclared.count(GetterName))
                    GetterDecl = *Decls;
            }
            if (!CS.Refused) {
                CS.Ordinal = ++Ordinal;
                std::string Why;
                Out = Emitter.emit(CS, Why);
                if (Out) {
                    if (!GetterDecl.empty()) GettersDeclared.insert(GetterName);
                    Out->Definition = GetterDecl + Helpers + Out->Definition;
                    EffectsEmitted.insert(NewHelpers.begin(), NewHelpers.end());
                }
                if (!Out) {
                    --Ordinal;
                    CS.Refused = Refusal{Why, CS.LockCall->getBeginLoc()};
                }
            }
            if (CS.Refused) {
                record(Text, Given, CS.LockName, CS.LockOffset, Fn, SectionRecord::Refused,
                       &*CS.Refused, nullptr);
                continue;
            }
            Converted.push_back(CS.Whole);
            ConvertedSections.push_back(CS.Whole);
            CalleeEdits.insert(CalleeEdits.end(), CS.CalleeEdits.begin(), CS.CalleeEdits.end());
            noteRemoved(CS);
            Definitions += Out->Definition;
            Sites.emplace_back(Real, CS.Whole.Begin, CS.Whole.End - CS.Whole.Begin, Out->CallSite);
            // `fail: pthread_mutex_unlock(&m); rcl_fail_unlocked:;` for the gotos that left
            // the section (on the same line, so line numbers stay).
            for (const UnlockedLabel &L : CS.UnlockedLabels)
                if (LabelsAdded.insert(L.After).second) {
                    Sites.emplace_back(Real, L.After, 0, " " + L.Name + ":;");
                    Sites.emplace_back(Real, L.Colon, 0, "__attribute__((unused)) ");
                }
            record(Text, Given, CS.LockName, CS.LockOffset, Fn, SectionRecord::Converted, nullptr,
                   &CS);
        }
        for (const OtherSite &Site : Others) {
            unsigned Line = Text.line(Site.Offset);
            if (!Session.Select.selects(Site.LockName, Given, Line, Line)) continue;
            bool Nested = false;
            for (const TextRange &Outer : Converted)
                Nested |= Outer.contains(Site.Offset);
            if (Nested)
                record(Text, Given, Site.LockName, Site.Offset, Fn, SectionRecord::Nested, nullptr,
                       nullptr);
            else
                record(Text, Given, Site.LockName, Site.Offset, Fn, SectionRecord::Refused,
                       &Site.Why, nullptr);
        }
        return Definitions;
    }

    /// A declared lock or unlock wrapper's own definition holds the lock across functions by
    /// design: it is part of the lock API, not a critical section.
    bool isDeclaredWrapper(const FunctionDecl *Fn) const {
        if (!Fn->getIdentifier()) return false;
        for (const WrapperPair &W : Session.Api.wrappers())
            if (Fn->getName() == W.Lock || Fn->getName() == W.Unlock) return true;
        return false;
    }

    /// Remembers the text a converted section removes from the file: its lock statement (with
    /// a dropped check of the result, or a synchronized block's macro use), its final unlock
    /// and the unlocks of its exits (their tails move to the call site, still used).
    void noteRemoved(const CriticalSection &CS) {
        RemovedText.push_back({CS.Whole.Begin, CS.Body.Begin});
        if (CS.FinalUnlock) RemovedText.push_back(*CS.FinalUnlock);
        for (const Exit &E : CS.Exits)
            RemovedText.push_back({E.Removed.Begin, E.Tail ? E.Tail->Begin : E.Removed.End});
    }

    RewriteSession &Session;
    std::vector<TextRange> RemovedText;    ///< of this translation unit's converted sections
    std::set<std::string> GettersDeclared; ///< remote pairs whose getter this unit declares
    std::set<const FunctionDecl *> EffectsEmitted; ///< unlock wrappers copied in this TU
    std::set<unsigned> LabelsAdded;                ///< offsets of UnlockedLabels inserted
    std::vector<TextRange> ConvertedSections;      ///< of this translation unit
    std::vector<CalleeEdit> CalleeEdits;
};

class RewriteAction : public ASTFrontendAction {
  public:
    explicit RewriteAction(RewriteSession &Session) : Session(Session) {}
    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, StringRef) override {
        return std::make_unique<RewriteConsumer>(Session);
    }

  private:
    RewriteSession &Session;
};

class RewriteActionFactory : public clang::tooling::FrontendActionFactory {
  public:
    explicit RewriteActionFactory(RewriteSession &Session) : Session(Session) {}
    std::unique_ptr<FrontendAction> create() override {
        return std::make_unique<RewriteAction>(Session);
    }

  private:
    RewriteSession &Session;
};

} // namespace

std::unique_ptr<clang::tooling::FrontendActionFactory>
newRewriteActionFactory(RewriteSession &Session) {
    return std::make_unique<RewriteActionFactory>(Session);
}

} // namespace rcl
