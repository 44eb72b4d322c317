//===- RewriteAction.cpp - run find → analyse → emit over translation units -===//
#include "RewriteAction.h"

#include "CaptureAnalysis.h"
#include "CopyResolution.h"
#include "BranchJoin.h"
#include "LoopRotation.h"
#include "UnlockWindow.h"
#include "SectionEmitter.h"
#include "SectionFinder.h"
#include "StmtWalk.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RawCommentList.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"
#include <climits>

using namespace clang;

namespace rcl {

namespace {

/// Rewrites the critical sections of one translation unit's main file.
class RewriteConsumer : public ASTConsumer {
  public:
    RewriteConsumer(RewriteSession &Session, std::unique_ptr<PreprocessorTrace> Trace)
        : Session(Session), Api(Session.Api), Trace(std::move(Trace)) {}

    void HandleTranslationUnit(ASTContext &Ctx) override {
        if (Ctx.getDiagnostics().hasErrorOccurred()) return;
        SourceManager &SM = Ctx.getSourceManager();
        FileID Main = SM.getMainFileID();
        OptionalFileEntryRef Entry = SM.getFileEntryRefForID(Main);
        if (!Entry) return;
        std::string Given = Entry->getName().str();
        std::string Real = SM.getFileManager().getCanonicalName(*Entry).str();
        Session.Api.markConstFunctions(Ctx);
        // The unit's own wrappers, which nobody declared (WrapperModel).
        Api.addPairs(inferWrapperPairs(Ctx, Session.Api));
        if (Session.FactsOnly) {
            CalleeFacts Callees(Ctx, Api, &Session.Project, false, ProjectFacts::unitKey(Real));
            ProjectFacts::UnitFacts Mine = Callees.exported();
            Mine.Pairs = pairs(Ctx, nullptr, nullptr, Real, nullptr);
            Session.Project.add(Mine);
            return;
        }
        if (!Session.Done.insert(Real).second) return;
        Session.MainFiles[Real] = Given;
        if (Trace) Trace->finish();
        SourceText Text(SM, Ctx.getLangOpts(), Main);
        auto Spelling = Session.Spellings.find(Given);
        SectionEmitter Emitter(Ctx, Text, Session.LineDirectives,
                               Spelling == Session.Spellings.end() ? Given : Spelling->second);

        std::vector<std::pair<unsigned, std::string>> Inserts; // offset, text
        std::vector<clang::tooling::Replacement> Sites;
        std::vector<Decl *> Functions;
        const Decl *Previous = nullptr;
        for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
            auto *Fn = dyn_cast<FunctionDecl>(D);
            // `local void f(void)` with `#define local static`: the declaration may begin
            // with a macro; what counts is that the body is written in the main file. A body
            // produced by a macro is left alone: its statements may be macro arguments, where
            // an edit (a context initializer's commas) would change the macro's arguments.
            if (Fn && Fn->doesThisDeclarationHaveABody() &&
                SM.getFileID(SM.getExpansionLoc(Fn->getBody()->getBeginLoc())) == Main) {
                Functions.push_back(Fn);
                PreviousDecl[Fn] = Previous;
            }
            if (!D->isImplicit()) Previous = D;
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
        CalleeFacts Callees(Ctx, Api, &Session.Project, Session.RequireCalleeFacts,
                            ProjectFacts::unitKey(Real));
        Emitter.setAllocatorUnit(Callees.allocatorUnit().has_value());
        // The declared pairs this file defines: what other units' sections through them may do
        // (facts), and the getters they delegate through (edits).
        std::vector<clang::tooling::Replacement> Getters;
        {
            ProjectFacts::UnitFacts Mine = Callees.exported();
            Mine.Pairs = pairs(Ctx, &Text, &Emitter, Real, &Getters);
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
            Inserts.push_back({functionStart(Ctx, Text, Fn), Definitions});
        }
        // rcl-cc's copy: what the preprocessor made of the refused sections' macros and
        // conditionals, written out; the unit is read again on that text (the driver).
        if (Trace && !Needs.empty()) {
            std::vector<TextEdit> Resolution = resolution(Ctx, Text, Emitter);
            if (!Resolution.empty()) {
                CopyOrigin &Origin = Session.CopyOrigins[Given];
                Origin.Original = Text.code().str();
                Origin.Edits.clear();
                Session.Resolved[Real] =
                    applyResolution(Text.code(), std::move(Resolution), &Origin.Edits);
                Session.Done.erase(Real);
                Session.Findings.dropFile(Given);
                return;
            }
        }
        // The file that defines the program's allocator knows it is one; the program's other
        // files know it only from every file's facts (rcl build): without them, theirs may call
        // rcl_delegate, which may start the runtime inside the allocator.
        if (const std::optional<CalleeFacts::AllocatorUnit> &A = Callees.allocatorUnit();
            A && A->Defines && !Inserts.empty() && Session.FactsDir.empty() && !Session.Quiet)
            llvm::raw_string_ostream(Diagnostics)
                << Given << ": rcl: note: " << A->Where
                << ", the program's memory allocator: its sections never start librcl, which "
                   "allocates; the program's other files know that only from every file's facts "
                   "(build it with `rcl build -- <build command>`; docs/runtime.md, \"The "
                   "program's allocator\")\n";
        flushDiagnostics();
        if (Inserts.empty() && Getters.empty()) return;
        clang::tooling::Replacements &Edits = Session.Edits[Real];
        for (const clang::tooling::Replacement &R : Getters)
            addEdit(Edits, R);
        // (A timed wrapper's delegating copy calls librcl: the include goes before the wrapper,
        // also in a unit that converts no section.)
        if (Inserts.empty() && RuntimeBefore.empty()) return;
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
        // The same for a label whose every goto was in a dropped check of a lock's result
        // (PortAudio's `PA_ENSURE(lock(m)); ... error: return result;`): -Wunused-label.
        for (Decl *D : Functions)
            unusedLabels(Text, cast<FunctionDecl>(D), Real, Edits);
        for (auto &[Fn, NoUseLeft] : OnlyRemoved) {
            if (!NoUseLeft || Fn->hasAttr<UnusedAttr>() || Fn->getBeginLoc().isMacroID()) continue;
            if (std::optional<unsigned> Offset = Text.offset(Fn->getBeginLoc()))
                addEdit(Edits,
                        clang::tooling::Replacement(Real, *Offset, 0, "__attribute__((unused)) "));
        }
        // Condition waits renamed in functions that converted sections call, unless they lie
        // in a converted section themselves (its own analysis decided what they become). The
        // include must come before the first function that calls an rcl_cond_* function.
        unsigned IncludeAt = Inserts.empty() ? UINT_MAX : Inserts.front().first;
        for (unsigned At : RuntimeBefore)
            IncludeAt = std::min(IncludeAt, At);
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
        // rcl/threads.h (which includes rcl.h) where a section uses C11's mtx_t or cnd_t.
        for (const CalleeEdit &E : CalleeEdits)
            UsesC11 |= StringRef(E.Edit.Text).starts_with("rcl_cnd_");
        std::string Include = std::string("#include <rcl/") + (UsesC11 ? "threads.h" : "rcl.h") +
                              "> /* added by rcl-rewrite */\n\n";
        if (const std::optional<CalleeFacts::AllocatorUnit> &A = Callees.allocatorUnit();
            A && !Inserts.empty()) // (its sections' start)
            Include += SectionEmitter::allocatorStart(A->Where);
        if (Session.LineDirectives) {
            unsigned Top = Text.lineStart(0); // after a byte order mark
            addEdit(Edits, clang::tooling::Replacement(Real, Top, 0,
                                                       Emitter.lineDirective(Top).substr(1)));
        }
        if (Inserts.empty() || IncludeAt < Inserts.front().first)
            addEdit(Edits, clang::tooling::Replacement(Real, IncludeAt, 0,
                                                       placed(Text, Emitter, IncludeAt, Include)));
        else
            Inserts.front().second = Include + Inserts.front().second;
        for (auto &[Offset, Insert] : Inserts)
            addEdit(Edits, clang::tooling::Replacement(Real, Offset, 0,
                                                       placed(Text, Emitter, Offset, Insert)));
        for (const clang::tooling::Replacement &R : Sites)
            addEdit(Edits, R);
    }

  private:
    /// The edits of rcl-cc's copy for the refused sections that asked for one (Needs): each
    /// macro use holding the section's lock, one of its unlocks or the refusal's place, each
    /// preprocessor conditional inside the function, and the rotation of a worker loop.
    std::vector<TextEdit> resolution(ASTContext &Ctx, const SourceText &Text,
                                     const SectionEmitter &Emitter) {
        std::vector<TextEdit> Out;
        std::set<unsigned> Expanded;
        // The macro use holding Loc, expanded. With Flat, the call there: where the use's whole
        // text is the discarded statement expression whose block holds it, expanded without
        // the statement expression (FlattenStatementExpressions).
        auto expand = [&](SourceLocation Loc, const CallExpr *Flat = nullptr) {
            if (!Loc.isMacroID()) return;
            std::optional<TextEdit> E = Trace->expansion(Loc);
            if (!E || !Expanded.insert(E->Offset).second) return;
            const CompoundStmt *Block = nullptr;
            if (Flat)
                if (DynTypedNodeList Parents = Ctx.getParents(*Flat); Parents.size() == 1)
                    Block = Parents[0].get<CompoundStmt>();
            if (const Expr *Top = discardedStatementExpression(Ctx, Block)) {
                const SourceManager &SM = Ctx.getSourceManager();
                CharSourceRange Use = SM.getExpansionRange(Top->getSourceRange());
                unsigned Begin = SM.getFileOffset(Use.getBegin());
                // (the use ends with its `)`, one character)
                unsigned End = SM.getFileOffset(Use.getEnd()) + (Use.isTokenRange() ? 1 : 0);
                if (Begin == E->Offset && End == E->Offset + E->Length)
                    flattenStatementExpression(*E);
            }
            Out.push_back(*E);
        };
        // By the offset of their `if` (two sections may ask for one; the order is the text's).
        std::map<unsigned, std::vector<TextEdit>> Joins;
        for (const Need &N : Needs) {
            if (N.Kind == Resolution::JoinBranches) { // (SectionFinder::build asked)
                std::optional<BranchJoin> Join = branchJoinOf(Ctx, N.Block);
                std::optional<unsigned> At =
                    Join ? Text.expansionOffset(Join->If->getBeginLoc()) : std::nullopt;
                std::optional<std::vector<TextEdit>> Edits;
                if (At && !Joins.count(*At))
                    Edits = joinBranches(
                        Ctx, Text, Api, *Join, N.JoinUntil, Api.mutexOf(N.Lock, LockOp::Lock),
                        [&](unsigned Offset) { return Emitter.lineDirective(Offset); });
                if (Edits) Joins.emplace(*At, std::move(*Edits));
                continue;
            }
            if (N.Kind == Resolution::SplitWindows) { // (SectionFinder::build asked)
                // All of its edits apply, or none (as a join's, below).
                std::optional<unsigned> At = Text.expansionOffset(N.Lock->getBeginLoc());
                std::optional<std::vector<TextEdit>> Edits;
                if (At && !Joins.count(*At))
                    Edits = splitUnlockWindows(
                        Ctx, Text, Api, N.Function, N.Block, N.LockIndex, N.JoinUntil,
                        Api.mutexOf(N.Lock, LockOp::Lock),
                        [&](unsigned Offset) { return Emitter.lineDirective(Offset); });
                if (Edits) Joins.emplace(*At, std::move(*Edits));
                continue;
            }
            if (N.Kind == Resolution::WrapEarlyExit) { // (SectionFinder::earlyExit asked)
                std::optional<TextRange> From = Text.statement(N.Block->body_begin()[N.JoinFrom]);
                std::optional<TextRange> To = Text.statement(N.Block->body_begin()[N.JoinUntil]);
                if (From && To && !Joins.count(From->Begin))
                    Joins.emplace(From->Begin, std::vector<TextEdit>{{From->Begin, 0, "if (1) { "},
                                                                     {To->End, 0, " }"}});
                continue;
            }
            if (N.Kind == Resolution::RotateLoop) { // (SectionFinder::workerLoopRefusal asked)
                if (std::optional<std::vector<TextEdit>> Edits = rotateWorkerLoop(
                        Ctx, Text, Api, N.Block, N.LockIndex, Api.mutexOf(N.Lock, LockOp::Lock),
                        [&](unsigned At) { return Emitter.lineDirective(At); }))
                    for (TextEdit &E : *Edits)
                        Out.push_back(std::move(E));
                continue;
            }
            if (N.Kind == Resolution::DropConditionals) {
                std::optional<unsigned> Begin = Text.expansionOffset(N.Function->getBeginLoc());
                std::optional<unsigned> End = Text.expansionOffset(N.Function->getEndLoc());
                if (Begin && End)
                    for (TextEdit &E : Trace->conditionalsWithin({*Begin, *End + 1}))
                        Out.push_back(std::move(E));
                continue;
            }
            // The lock's macro use and its unlocks' (ExpandMacros also the refusal's place).
            bool Flatten = N.Kind == Resolution::FlattenStatementExpressions;
            if (!Flatten) expand(N.Where);
            if (!N.Lock) continue;
            expand(N.Lock->getBeginLoc(), Flatten ? N.Lock : nullptr);
            MutexRef Mutex = Api.mutexOf(N.Lock, LockOp::Lock);
            walk(N.Function->getBody(), [&](const Stmt *S) {
                const auto *Call = dyn_cast<CallExpr>(S);
                if (!Call || Api.classify(Call) != LockOp::Unlock) return;
                if (sameMutex(Api.mutexOf(Call, LockOp::Unlock), Mutex, Ctx))
                    expand(Call->getBeginLoc(), Flatten ? Call : nullptr);
            });
        }
        // Conditionals and expansions never overlap (a macro use holds no directive). A join
        // writes its tail twice and removes it once: all of its edits apply, or none (one that
        // touches another edit's text, or another join's, is left out: its section stays
        // refused).
        auto meets = [](const TextEdit &A, const TextEdit &B) {
            return A.Offset == B.Offset || (A.Offset < B.Offset ? B.Offset < A.Offset + A.Length
                                                                : A.Offset < B.Offset + B.Length);
        };
        for (auto &[At, Edits] : Joins) {
            bool Free = llvm::none_of(Edits, [&](const TextEdit &E) {
                return llvm::any_of(Out, [&](const TextEdit &O) { return meets(E, O); });
            });
            if (Free)
                for (TextEdit &E : Edits)
                    Out.push_back(std::move(E));
        }
        return Out;
    }

    void flushDiagnostics() {
        llvm::errs() << Diagnostics;
        Diagnostics.clear();
    }

    /// The declared wrapper pairs defined in this file (both definitions, the lock wrapper not
    /// static): for each, whether other units' sections through it delegate, or why not (the
    /// unit's pair facts). With Getters given, for each such pair reached through a getter (a
    /// first parameter that is not the mutex itself, or a chain to another pair), the getter
    /// and its parameter mask, written on the line of the later definition's closing brace
    /// (line numbers stay): `{ return E; }`, `{ return G ? E : 0; }` under a condition, `{
    /// return inner_getter ? inner_getter(args) : 0; }` for a chain.
    std::map<std::string, ProjectFacts::PairFacts>
    pairs(ASTContext &Ctx, const SourceText *Text, const SectionEmitter *Emitter,
          const std::string &Real, std::vector<clang::tooling::Replacement> *Getters) {
        std::map<std::string, ProjectFacts::PairFacts> Out;
        const SourceManager &SM = Ctx.getSourceManager();
        for (const WrapperPair &W : Api.wrappers()) {
            auto [LockDef, UnlockDef] = LockApi::definitionsInMainFile(Ctx, W);
            if (!LockDef || !UnlockDef || LockDef->getStorageClass() == SC_Static) continue;
            ProjectFacts::PairFacts &Facts = Out[W.Lock + "/" + W.Unlock];
            if (W.Timed) {
                // A timed wrapper: its delegating copy, right after it (timedWrapperCopy).
                std::vector<const CallExpr *> Ops;
                if (std::optional<std::string> Why =
                        Api.timedWrapperProblem(LockDef, UnlockDef, Ops)) {
                    Facts.WhyNot = *Why;
                    continue;
                }
                if (!Getters) continue;
                std::optional<unsigned> End = Text->offset(LockDef->getEndLoc());
                std::optional<std::string> Copy =
                    End ? Emitter->timedCopyDefinition(LockDef, W.Unlock, Ops, *End + 1)
                        : std::nullopt;
                if (Copy) {
                    Getters->emplace_back(Real, *End + 1, 0, *Copy);
                    RuntimeBefore.push_back(functionStart(Ctx, *Text, LockDef));
                } else
                    Facts.WhyNot = "a type of timed lock wrapper '" + W.Lock +
                                   "' cannot be written out, or its definition ends inside a "
                                   "macro";
                continue;
            }
            if (std::optional<std::string> Why = Api.pairProblem(LockDef, UnlockDef)) {
                Facts.WhyNot = *Why;
                continue;
            }
            const CallExpr *Inner = nullptr;
            std::optional<std::string> InnerUnlock = Api.pairChain(LockDef, UnlockDef, &Inner);
            if (InnerUnlock)
                Facts.Via = Inner->getDirectCallee()->getName().str() + "/" + *InnerUnlock;
            // A first parameter that is the mutex: other units delegate on the argument itself.
            if (!InnerUnlock && !reachedThroughGetter(LockDef)) continue;
            std::optional<std::string> Getter;
            if (Getters) {
                const FunctionDecl *Later =
                    SM.isBeforeInTranslationUnit(LockDef->getEndLoc(), UnlockDef->getEndLoc())
                        ? UnlockDef
                        : LockDef;
                std::optional<unsigned> End = Text->offset(Later->getEndLoc());
                if (InnerUnlock)
                    Getter = Emitter->chainGetterDefinition(LockDef, W.Unlock, Inner, *InnerUnlock);
                else {
                    const Expr *Guard = nullptr;
                    std::vector<const Stmt *> Checks;
                    const Expr *Mutex = Api.pairMutex(LockDef, UnlockDef, &Guard, &Checks);
                    if (Mutex)
                        Getter = Emitter->getterDefinition(LockDef, W.Unlock, Mutex, Guard, Checks,
                                                           Later->getEndLoc());
                }
                if (Getter && End)
                    Getters->emplace_back(Real, *End + 1, 0, " " + *Getter);
                else
                    Facts.WhyNot = "the parameter types of lock wrapper '" + W.Lock +
                                   "' cannot be written out, or its definition ends inside a macro";
            }
        }
        return Out;
    }

    /// Marks `__attribute__((unused))` the labels of Fn that had gotos, all of them in text a
    /// converted section removed, unless the conversion added its own mark (UnlockedLabels).
    void unusedLabels(const SourceText &Text, const FunctionDecl *Fn, const std::string &Real,
                      clang::tooling::Replacements &Edits) {
        std::map<const LabelDecl *, bool> OnlyRemoved;
        walk(Fn->getBody(), [&](const Stmt *S) {
            const LabelDecl *Label = nullptr;
            if (const auto *Goto = dyn_cast<GotoStmt>(S)) Label = Goto->getLabel();
            if (const auto *Address = dyn_cast<AddrLabelExpr>(S)) Label = Address->getLabel();
            if (!Label) return;
            std::optional<unsigned> At = Text.expansionOffset(S->getBeginLoc());
            bool Removed =
                At && isa<GotoStmt>(S) &&
                llvm::any_of(RemovedText, [&](const TextRange &R) { return R.contains(*At); });
            auto [It, New] = OnlyRemoved.try_emplace(Label, Removed);
            if (!New) It->second &= Removed;
        });
        for (auto &[Label, NoUseLeft] : OnlyRemoved) {
            const LabelStmt *Stmt = Label->getStmt();
            if (!NoUseLeft || !Stmt || Label->hasAttr<UnusedAttr>()) continue;
            std::optional<unsigned> Colon = Text.offset(Stmt->getSubStmt()->getBeginLoc());
            std::optional<unsigned> At = Text.offset(Stmt->getBeginLoc());
            bool Moved = At && llvm::any_of(ConvertedSections,
                                            [&](const TextRange &R) { return R.contains(*At); });
            if (Colon && At && !Moved && MarkedLabels.insert(*Colon).second)
                addEdit(Edits,
                        clang::tooling::Replacement(Real, *Colon, 0, "__attribute__((unused)) "));
        }
    }

    /// Where text inserted before Fn goes: the start of the line of its first token, or of
    /// its documentation comment; right before that token when declarations precede it on
    /// its line (`int x; void f(void) {`: the inserted text uses them).
    static unsigned functionStart(ASTContext &Ctx, const SourceText &Text, const FunctionDecl *Fn) {
        SourceLocation Start = Fn->getBeginLoc();
        if (const RawComment *Doc = Ctx.getRawCommentForDeclNoCache(Fn)) Start = Doc->getBeginLoc();
        unsigned At = Text.expansionOffset(Start).value_or(0);
        unsigned Line = Text.lineStart(At);
        return Text.code().slice(Line, At).trim().empty() ? Line : At;
    }

    /// Insert, to go at Offset (functionStart): on lines of its own (after a line break when
    /// Offset is not at the start of its line), then, with line directives, back on Offset's
    /// line and column.
    static std::string placed(const SourceText &Text, const SectionEmitter &Emitter,
                              unsigned Offset, const std::string &Insert) {
        unsigned Line = Text.lineStart(Offset);
        std::string Out = (Offset == Line ? "" : "\n") + Insert;
        std::string Resume = Emitter.lineDirective(Offset);
        if (Resume.empty()) return Out;
        Out += Resume.substr(1);
        for (char C : Text.code().slice(Line, Offset))
            Out += C == '\t' ? '\t' : ' ';
        return Out;
    }

    void addEdit(clang::tooling::Replacements &Edits, const clang::tooling::Replacement &R) {
        if (llvm::Error E = Edits.add(R))
            Session.InternalErrors.push_back("conflicting edits in '" + R.getFilePath().str() +
                                             "': " + llvm::toString(std::move(E)));
    }

    /// The relocks of the original that rcl-cc's copy made resume points of CS
    /// (UnlockWindow.h: `rcl_resume_N_k:` where each was written): each is recorded as a
    /// section of its own, with CS's outcome, so that a build counts the original's lock
    /// statements (a converted section's stretches after its relocks run delegated too).
    void recordResumes(const SourceText &Text, const std::string &Given, const CriticalSection &CS,
                       const FunctionDecl *Fn, SectionRecord::Outcome Result, const Refusal *Why) {
        if (!Session.ReadingResolved) return;
        for (unsigned K = CS.FirstIndex; K <= CS.LastIndex && K < CS.Block->size(); ++K)
            walk(CS.Block->body_begin()[K], [&](const Stmt *S) {
                const auto *Label = dyn_cast<LabelStmt>(S);
                if (!Label || !Label->getDecl()->getName().starts_with(ResumeLabel)) return;
                if (std::optional<unsigned> At = Text.offset(Label->getBeginLoc()))
                    record(Text, Given, CS.LockName, *At, Fn, Result, Why, nullptr, true);
            });
    }

    void record(const SourceText &Text, const std::string &Given, const std::string &Lock,
                unsigned Offset, const FunctionDecl *Fn, SectionRecord::Outcome Result,
                const Refusal *Why, const CriticalSection *CS, bool Said = false) {
        SectionRecord R;
        R.Lock = Lock;
        R.File = Given;
        R.Line = Text.line(Offset);
        R.Column = Text.column(Offset);
        // Read on rcl-cc's copy: where the section is written in the file.
        if (auto Origin = Session.CopyOrigins.find(Given);
            Session.ReadingResolved && Origin != Session.CopyOrigins.end())
            std::tie(R.Line, R.Column) =
                Origin->second.lineColumn(Origin->second.originalOffset(Offset));
        R.Function = Fn->getNameAsString();
        R.Result = Result;
        if (Why) {
            R.Reason = Why->Reason;
            R.WaitsForFacts = Why->WaitsForFacts;
            R.UnknownCallees = Why->UnknownCallees;
            const SourceManager &SM = Text.sourceManager();
            PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Why->Loc));
            if (!Session.Quiet && !Said && P.isValid())
                llvm::raw_string_ostream(Diagnostics)
                    << P.getFilename() << ":" << P.getLine() << ":" << P.getColumn()
                    << ": rcl: cannot convert critical section: " << Why->Reason << "\n";
        }
        if (CS) {
            const SourceManager &SM = Text.sourceManager();
            for (const Note &N : CS->Notes) {
                R.Notes.push_back(N.Text);
                PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(N.Loc));
                if (!Session.Quiet && P.isValid())
                    llvm::raw_string_ostream(Diagnostics)
                        << P.getFilename() << ":" << P.getLine() << ":" << P.getColumn()
                        << ": rcl: note: converted critical section " << N.Text << "\n";
            }
            if (CS->CallerState && Result == SectionRecord::Converted) {
                R.AsCaller = CS->CallerState->Text;
                PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(CS->CallerState->Loc));
                if (!Session.Quiet && P.isValid())
                    llvm::raw_string_ostream(Diagnostics)
                        << P.getFilename() << ":" << P.getLine() << ":" << P.getColumn()
                        << ": rcl: note: converted critical section runs on the server as its "
                           "caller (with the caller's thread-local storage): it "
                        << CS->CallerState->Text << "\n";
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
        SectionFinder Finder(Ctx, Api, Text);
        Finder.setResolvedCopy(Session.ReadingResolved);
        Finder.find(Fn, Sections, Others);
        if (SourceLocation Body = Fn->getBody()->getBeginLoc(); Body.isMacroID())
            for (CriticalSection &CS : Sections)
                if (!CS.Refused) {
                    CS.Refused = Refusal{"the function's body is written by macro '" +
                                             Lexer::getImmediateMacroName(
                                                 Body, Ctx.getSourceManager(), Ctx.getLangOpts())
                                                 .str() +
                                             "', whose text the tool does not edit",
                                         CS.LockCall->getBeginLoc()};
                    CS.Refused->Resolve = Resolution::ExpandMacros;
                }
        if (std::optional<std::string> Why = noPlaceBefore(Ctx, Text, Fn))
            for (CriticalSection &CS : Sections)
                if (!CS.Refused) CS.Refused = Refusal{*Why, CS.LockCall->getBeginLoc()};
        if (Sections.empty() && Others.empty()) return "";
        CaptureAnalysis Analysis(Ctx, Api, Text, Callees, Session.NoNestedLocks, Fn);
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
            // A section run as its caller must not wait: librcl's waits need the server's own
            // thread state (runtime/src/caller.c).
            if (!CS.Refused && CS.CallerState && CS.Waits)
                CS.Refused = Refusal{"waits on a condition variable, and " + CS.CallerState->Text +
                                         ", which only a section that does not wait may do on "
                                         "the server",
                                     CS.CallerState->Loc};
            if (!CS.Refused) checkPairFacts(CS);
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
                std::optional<std::string> Helper = Emitter.effectsFunction(
                    U.Wrapper, Api.summary(U.Wrapper, LockOp::Unlock).Before,
                    effectsFunctionName(U.Wrapper),
                    "before it unlocks; converted sections run it before they end", Why);
                if (!Helper)
                    CS.Refused = Refusal{Why, U.Call->getBeginLoc()};
                else
                    Helpers += *Helper;
                NewHelpers.push_back(U.Wrapper);
            }
            // The lock wrapper's statements around its lock, the unlock wrapper's after it.
            std::vector<std::string> NewParts;
            for (const WrapperEffects &P : CS.Parts) {
                std::string Name = wrapperPartName(P.Wrapper, P.Part);
                if (CS.Refused || PartsEmitted.count(Name) || llvm::is_contained(NewParts, Name))
                    continue;
                WrapperSummary S = Api.summary(
                    P.Wrapper, P.Part == WrapperPart::AfterUnlock ? LockOp::Unlock : LockOp::Lock);
                std::string Why;
                std::optional<std::string> Helper = Emitter.effectsFunction(
                    P.Wrapper, P.Part == WrapperPart::BeforeLock ? S.Before : S.After, Name,
                    P.Part == WrapperPart::BeforeLock
                        ? "before it locks; converted sections run it on the calling thread "
                          "before they delegate"
                    : P.Part == WrapperPart::AfterLock
                        ? "after it locks; converted sections run it first, with the lock held"
                        : "after it unlocks; converted sections run it on the calling thread "
                          "once they return",
                    Why,
                    P.Part == WrapperPart::BeforeLock
                        ? std::vector<std::pair<const VarDecl *, int64_t>>{}
                        : S.SetOnSuccess);
                if (!Helper)
                    CS.Refused = Refusal{Why, CS.LockCall->getBeginLoc()};
                else
                    Helpers += *Helper;
                NewParts.push_back(Name);
            }
            // A pair defined in another unit: the weak declaration of its getter, once.
            std::string GetterDecl, GetterName;
            if (!CS.Refused && CS.Timed && !CS.Mutex.Remote.empty()) {
                // A declared timed wrapper: the weak declaration of its delegating copy, once.
                StringRef Unlock = CS.UnlockCall->getDirectCallee()->getName();
                GetterName = timedWrapperCopy(CS.Mutex.Remote, Unlock);
                std::optional<std::string> Decl = Emitter.timedCopyDeclaration(
                    CS.LockCall->getDirectCallee(), Unlock, " __attribute__((weak))");
                if (!Decl)
                    CS.Refused = Refusal{"a type of timed lock wrapper '" + CS.Mutex.Remote +
                                             "' cannot be written out",
                                         CS.LockCall->getBeginLoc()};
                else if (!GettersDeclared.count(GetterName))
                    GetterDecl = *Decl + "\n";
            } else if (!CS.Refused && !CS.Mutex.Remote.empty()) {
                // A static wrapper chaining to the pair: the inner pair's getter.
                StringRef Unlock = remoteUnlockWrapper(CS.Mutex, CS.UnlockCall);
                GetterName = remoteMutexGetter(CS.Mutex.Remote, Unlock);
                std::optional<std::string> Decls = Emitter.getterDeclarations(
                    CS.Mutex.ChainInner ? CS.Mutex.ChainInner : CS.LockCall->getDirectCallee(),
                    Unlock, " __attribute__((weak))");
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
                    UsesC11 |= Out->C11;
                    EffectsEmitted.insert(NewHelpers.begin(), NewHelpers.end());
                    PartsEmitted.insert(NewParts.begin(), NewParts.end());
                }
                if (!Out) {
                    --Ordinal;
                    CS.Refused = Refusal{Why, CS.LockCall->getBeginLoc()};
                }
            }
            if (CS.Refused) {
                if (CS.Refused->Resolve != Resolution::None)
                    Needs.push_back({Fn, CS.Refused->Resolve, CS.LockCall, CS.Refused->Loc,
                                     CS.Block, CS.LockIndex, CS.Refused->JoinUntil,
                                     CS.Refused->JoinFrom});
                record(Text, Given, CS.LockName, CS.LockOffset, Fn, SectionRecord::Refused,
                       &*CS.Refused, nullptr);
                recordResumes(Text, Given, CS, Fn, SectionRecord::Refused, &*CS.Refused);
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
                    if (MarkedLabels.insert(L.Colon).second)
                        Sites.emplace_back(Real, L.Colon, 0, "__attribute__((unused)) ");
                }
            record(Text, Given, CS.LockName, CS.LockOffset, Fn, SectionRecord::Converted, nullptr,
                   &CS);
            recordResumes(Text, Given, CS, Fn, SectionRecord::Converted, nullptr);
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
            else {
                if (Site.Why.Resolve != Resolution::None)
                    Needs.push_back({Fn, Site.Why.Resolve, nullptr, Site.Why.Loc});
                record(Text, Given, Site.LockName, Site.Offset, Fn, SectionRecord::Refused,
                       &Site.Why, nullptr);
            }
        }
        return Definitions;
    }

    /// A section through a declared pair whose definitions this unit does not judge by itself:
    /// what the defining unit's facts say (ProjectFacts::pairDelegates). A pair reached through
    /// a getter converts only where the facts say the getter is written: without it the section
    /// would run under the wrappers, never delegated, while reported converted. A pair whose
    /// first parameter is the mutex is refused where the facts say it does more than lock and
    /// unlock it, and trusted as declared where no facts are known.
    /// A section through a static wrapper chaining to another file's pair (MutexRef::ChainLock)
    /// is judged by that pair's facts.
    void checkPairFacts(CriticalSection &CS) {
        const FunctionDecl *Lock = CS.LockCall->getDirectCallee();
        const FunctionDecl *Unlock = CS.UnlockCall ? CS.UnlockCall->getDirectCallee() : nullptr;
        if (!Lock || !Unlock || !Api.isPair(Lock->getName(), Unlock->getName())) return;
        bool ThroughGetter = !CS.Mutex.Remote.empty();
        bool Chained = !CS.Mutex.ChainLock.empty();
        if (!ThroughGetter && !Chained && Lock->hasBody() && Unlock->hasBody())
            return; // judged here
        std::string LockName = Chained ? CS.Mutex.ChainLock : Lock->getNameAsString();
        std::string UnlockName = Chained ? CS.Mutex.ChainUnlock : Unlock->getNameAsString();
        std::string Missing;
        std::optional<std::string> Delegates =
            Session.Project.pairDelegates(LockName, UnlockName, &Missing);
        std::string Pair = "lock wrapper pair '" + LockName + "'/'" + UnlockName + "'" +
                           (Chained ? " (through '" + Lock->getNameAsString() + "')" : "");
        if (Delegates && !Delegates->empty()) {
            CS.Refused = Refusal{Pair +
                                     ", defined in another file, cannot delegate (its sections "
                                     "would run under the wrappers): " +
                                     *Delegates,
                                 CS.LockCall->getBeginLoc()};
            return;
        }
        if (Delegates || !ThroughGetter || !Session.RequireCalleeFacts) return;
        auto [MissingLock, MissingUnlock] = StringRef(Missing).split('/');
        CS.Refused = Refusal{Pair + " is defined in another file whose facts are not known" +
                                 (Missing != LockName + "/" + UnlockName
                                      ? " (it goes through '" + Missing + "')"
                                      : std::string()) +
                                 ": where its mutex getter is not written the section runs under "
                                 "the wrappers, never delegated (record every file's facts "
                                 "first: `rcl build -- <build command>`, or a --facts-dir scan)",
                             CS.LockCall->getBeginLoc()};
        CS.Refused->WaitsForFacts = true;
        CS.Refused->UnknownCallees = {MissingLock.str(), MissingUnlock.str()};
    }

    /// Why the outlined functions cannot go before Fn (functionStart), if they cannot: the
    /// declaration before Fn ends after that place, for one macro writes both
    /// (`#define COUNTER(v) static long v; static void bump_##v(void)`), and the sections that
    /// use it would be outlined before it is declared.
    std::optional<std::string> noPlaceBefore(ASTContext &Ctx, const SourceText &Text,
                                             const FunctionDecl *Fn) const {
        auto It = PreviousDecl.find(Fn);
        if (It == PreviousDecl.end() || !It->second) return std::nullopt;
        std::optional<unsigned> PreviousEnd = Text.expansionOffset(It->second->getEndLoc());
        if (!PreviousEnd || *PreviousEnd < functionStart(Ctx, Text, Fn)) return std::nullopt;
        SourceLocation Begin = Fn->getBeginLoc();
        std::string Macro =
            Begin.isMacroID()
                ? "macro '" +
                      Lexer::getImmediateMacroName(Begin, Ctx.getSourceManager(), Ctx.getLangOpts())
                          .str() +
                      "'"
                : "one macro";
        return "the function's declaration is written by " + Macro +
               " together with the declaration before it: the outlined section would have to "
               "go between the two";
    }

    /// A declared lock or unlock wrapper's own definition holds the lock across functions by
    /// design: it is part of the lock API, not a critical section.
    bool isDeclaredWrapper(const FunctionDecl *Fn) const {
        if (!Fn->getIdentifier()) return false;
        for (const WrapperPair &W : Api.wrappers())
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
            // A Jump replaces its tail's text (a macro's `unlock; return v;`, `return unlock(m);`).
            RemovedText.push_back(
                {E.Removed.Begin, E.Tail && E.Jump.empty() ? E.Tail->Begin : E.Removed.End});
    }

    RewriteSession &Session;
    /// The lock vocabulary of this unit: the declared wrappers.
    LockApi Api;
    /// With --resolve-copy, on the first reading of a unit: its preprocessing (CopyResolution).
    std::unique_ptr<PreprocessorTrace> Trace;
    /// A refused section that rcl-cc's copy could make convertible (Refusal::Resolve): its
    /// function, what it needs, its lock call (none for a lock inside an expression) and where
    /// it was refused.
    struct Need {
        const FunctionDecl *Function;
        Resolution Kind;
        const CallExpr *Lock;
        SourceLocation Where;
        const CompoundStmt *Block = nullptr; ///< the section's block (RotateLoop, SplitWindows)
        unsigned LockIndex = 0;              ///< its lock statement's index there
        unsigned JoinUntil = 0;              ///< (Refusal::JoinUntil)
        unsigned JoinFrom = 0;               ///< (Refusal::JoinFrom)
    };
    std::vector<Need> Needs;
    bool UsesC11 = false; ///< a converted section of this unit uses C11's mtx_t or cnd_t
    /// Where functions start that this unit's timed wrapper copies follow (they call librcl).
    std::vector<unsigned> RuntimeBefore;
    std::string Diagnostics; ///< printed once the unit is done (not when it is read again)
    std::vector<TextRange> RemovedText;    ///< of this translation unit's converted sections
    std::set<std::string> GettersDeclared; ///< remote pairs whose getter this unit declares
    std::set<const FunctionDecl *> EffectsEmitted; ///< unlock wrappers copied in this TU
    std::set<std::string> PartsEmitted;            ///< wrapper parts copied in this TU
    std::set<unsigned> LabelsAdded;                ///< offsets of UnlockedLabels inserted
    std::set<unsigned> MarkedLabels;               ///< labels marked __attribute__((unused))
    std::vector<TextRange> ConvertedSections;      ///< of this translation unit
    std::vector<CalleeEdit> CalleeEdits;
    std::map<const FunctionDecl *, const Decl *> PreviousDecl; ///< top-level, in source order
};

class RewriteAction : public ASTFrontendAction {
  public:
    explicit RewriteAction(RewriteSession &Session) : Session(Session) {}
    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
        // The preprocessing is recorded on a unit's first reading only: a copy resolved once is
        // not resolved again.
        std::unique_ptr<PreprocessorTrace> Trace;
        if (Session.ResolveCopy && !Session.ReadingResolved && !Session.FactsOnly &&
            CI.hasPreprocessor())
            Trace = std::make_unique<PreprocessorTrace>(CI.getPreprocessor());
        return std::make_unique<RewriteConsumer>(Session, std::move(Trace));
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
