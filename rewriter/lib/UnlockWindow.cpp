//===- UnlockWindow.cpp - a section's unlocked stretches run by its caller --===//
#include "UnlockWindow.h"

#include "StmtWalk.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <set>

using namespace clang;

namespace rcl {

namespace {

/// An unlock statement and the statement that takes the mutex again, in one block.
struct Window {
    const CompoundStmt *Block;
    unsigned Unlock, Relock; ///< their indices in Block
    TextRange UnlockText, RelockText;
    TextRange Work() const { return {UnlockText.End, RelockText.Begin}; } ///< W, between them
};

std::string withoutSpaces(llvm::StringRef Text) {
    std::string Out;
    for (char C : Text)
        if (!isspace(static_cast<unsigned char>(C))) Out += C;
    return Out;
}

/// Whether a break or continue in S leaves S (not one of a loop or switch nested in it).
bool jumpLeaves(const Stmt *S, bool InLoop, bool InSwitch) {
    if (!S) return false;
    if (isa<BreakStmt>(S)) return !InLoop && !InSwitch;
    if (isa<ContinueStmt>(S)) return !InLoop;
    bool Loop = InLoop || isa<ForStmt, WhileStmt, DoStmt>(S);
    bool Switch = InSwitch || isa<SwitchStmt>(S);
    for (const Stmt *Child : S->children())
        if (jumpLeaves(Child, Loop, Switch)) return true;
    return false;
}

/// The blocks nested in S, not those of a statement expression (a goto may not enter one).
void blocksOf(const Stmt *S, std::vector<const CompoundStmt *> &Out) {
    if (!S || isa<StmtExpr>(S)) return;
    if (const auto *C = dyn_cast<CompoundStmt>(S)) Out.push_back(C);
    for (const Stmt *Child : S->children())
        blocksOf(Child, Out);
}

} // namespace

std::optional<std::vector<TextEdit>>
splitUnlockWindows(ASTContext &Ctx, const SourceText &Text, const LockApi &Api,
                   const FunctionDecl *Fn, const CompoundStmt *Block, unsigned LockIndex,
                   unsigned Last, const MutexRef &Mutex,
                   const std::function<std::string(unsigned)> &LineDirective) {
    if (Last <= LockIndex || Last >= Block->size() || !Fn->getBody()) return std::nullopt;
    const Stmt *LockStmt = Block->body_begin()[LockIndex];
    const CallExpr *Lock = Api.asOperationStatement(LockStmt); // (a labelled one is no call)
    if (!Lock || Api.classify(Lock) != LockOp::Lock) return std::nullopt;
    std::optional<TextRange> LockRange = Text.statement(LockStmt);
    std::optional<TextRange> LastRange = Text.statement(Block->body_begin()[Last]);
    if (!LockRange || !LastRange || LastRange->Begin < LockRange->End) return std::nullopt;
    const std::string LockText = withoutSpaces(Text.text(*LockRange));
    std::vector<const Stmt *> Statements(Block->body_begin() + LockIndex + 1,
                                         Block->body_begin() + Last + 1);

    // The windows: in a block nested in the section, an unlock statement of the mutex, and the
    // next statement there that takes or releases it when that is the same lock statement.
    auto takesOrReleases = [&](const Stmt *S) {
        bool Found = false;
        walk(S, [&](const Stmt *N) {
            const auto *Call = dyn_cast<CallExpr>(N);
            std::optional<LockOp> Op = Call ? Api.classify(Call) : std::nullopt;
            if (Op && !isConditionWait(*Op) && sameMutex(Api.mutexOf(Call, *Op), Mutex, Ctx))
                Found = true;
        });
        return Found;
    };
    std::vector<Window> Windows;
    std::vector<const CompoundStmt *> Blocks;
    for (const Stmt *S : Statements)
        blocksOf(S, Blocks);
    for (const CompoundStmt *C : Blocks)
        for (unsigned I = 0; I < C->size(); ++I) {
            const CallExpr *Unlock = Api.asOperationStatement(C->body_begin()[I]);
            if (!Unlock || Api.classify(Unlock) != LockOp::Unlock ||
                !sameMutex(Api.mutexOf(Unlock, LockOp::Unlock), Mutex, Ctx))
                continue;
            for (unsigned J = I + 1; J < C->size(); ++J) {
                const Stmt *S = C->body_begin()[J];
                if (!takesOrReleases(S)) continue;
                const CallExpr *Relock = Api.asOperationStatement(S);
                std::optional<TextRange> U = Text.statement(C->body_begin()[I]);
                std::optional<TextRange> L = Text.statement(S);
                if (Relock && Api.classify(Relock) == LockOp::Lock && sameCall(Relock, Lock, Ctx) &&
                    U && L && withoutSpaces(Text.text(*L)) == LockText)
                    Windows.push_back({C, I, J, *U, *L});
                break;
            }
        }
    if (Windows.empty()) return std::nullopt;

    // Each window's statements run elsewhere: nothing may jump into them or out of them but a
    // return, and their text moves whole.
    for (const Window &W : Windows) {
        if (Text.immovableDirective(W.Work())) return std::nullopt;
        for (unsigned K = W.Unlock + 1; K < W.Relock; ++K) {
            const Stmt *S = W.Block->body_begin()[K];
            std::optional<TextRange> R = Text.statement(S);
            if (!R || !W.Work().contains(*R) || hasJumpTargetInside(S) ||
                jumpLeaves(S, false, false))
                return std::nullopt;
            bool Jumps = false;
            walk(S, [&](const Stmt *N) {
                Jumps |= isa<GotoStmt, IndirectGotoStmt, AddrLabelExpr>(N);
            });
            if (Jumps) return std::nullopt;
        }
    }

    // The section's declarations: no type, and the variables whose scope holds a resume point
    // declared before the lock instead.
    struct Hoisted {
        const VarDecl *Var;
        std::string Declaration; ///< written before the lock
        TextEdit InPlace;        ///< what stands where it was declared
    };
    std::vector<Hoisted> Hoists;
    bool Fails = false;
    // The statements that hold each resume point (the relock), up to the section's block: a
    // declaration whose block (or `for`) is one of them, before the relock, is in scope there.
    std::vector<std::pair<std::set<const Stmt *>, unsigned>> Resumes;
    for (const Window &W : Windows) {
        std::set<const Stmt *> Holders;
        const Stmt *Up = W.Block;
        for (; Up && Up != Block; Up = parentOf(Ctx, Up))
            Holders.insert(Up);
        if (!Up) return std::nullopt;
        Holders.insert(Block);
        Resumes.push_back({std::move(Holders), W.RelockText.Begin});
    }
    for (const Stmt *S : Statements)
        walk(S, [&](const Stmt *N) {
            const auto *D = dyn_cast<DeclStmt>(N);
            if (Fails || !D) return;
            for (const Decl *Each : D->decls())
                if (!isa<VarDecl>(Each)) Fails = true; // a type, a function declaration
            if (Fails) return;
            const Stmt *Parent = parentOf(Ctx, D);
            std::optional<unsigned> Before = Text.expansionOffset(D->getBeginLoc());
            bool HoldsResume = !Parent || !Before;
            for (const auto &[Holders, Resume] : Resumes)
                HoldsResume = HoldsResume || (Holders.count(Parent) && *Before < Resume);
            if (!HoldsResume) return;
            const auto *InBlock = dyn_cast_or_null<CompoundStmt>(Parent);
            const auto *InFor = dyn_cast_or_null<ForStmt>(Parent);
            if (InFor && InFor->getInit() != D) InFor = nullptr;
            // Where it is written: a statement of its block (its first token may be a macro's
            // use, stdbool's `bool`), or a `for`'s first clause.
            std::optional<TextRange> Whole = InBlock ? Text.statement(D) : std::nullopt;
            std::optional<unsigned> At =
                Whole ? std::optional<unsigned>(Whole->Begin) : Text.offset(D->getBeginLoc());
            if (!At || (!InBlock && !InFor)) {
                Fails = true;
                return;
            }
            const auto *Var = dyn_cast<VarDecl>(D->getSingleDecl());
            if (!D->isSingleDecl() || !Var || !Var->isLocalVarDecl() ||
                Var->getStorageClass() != SC_None || Var->getType()->isVariablyModifiedType() ||
                Var->hasAttr<CleanupAttr>() || // (its cleanup would run at the block's end)
                (Var->getType().isConstQualified() && !Var->getInit())) {
                Fails = true;
                return;
            }
            std::string Name = Var->getNameAsString();
            if (const Expr *Init = Var->getInit()) {
                std::optional<unsigned> InitAt = Text.expansionOffset(Init->getBeginLoc());
                if (isa<InitListExpr>(Init->IgnoreImplicit()) || Var->getType()->isArrayType() ||
                    !InitAt || *InitAt <= *At) {
                    Fails = true;
                    return;
                }
                llvm::StringRef Prefix = Text.code().slice(*At, *InitAt).rtrim();
                if (!Prefix.consume_back("=") || Prefix.contains('\n') ||
                    Prefix.contains("typeof")) {
                    Fails = true;
                    return;
                }
                std::string Declaration = Prefix.rtrim().str() + ";";
                // A const one (libzstd's `POOL_job const job = ...` in its pool's worker) is
                // assigned where it was initialized: declared without its own const, the type
                // printed (its typedef names kept), which nothing anonymous may need.
                if (Var->getType().isConstQualified()) {
                    QualType Type = Var->getType();
                    Type.removeLocalConst();
                    Declaration.clear();
                    llvm::raw_string_ostream OS(Declaration);
                    Type.print(OS, Ctx.getPrintingPolicy(), Name);
                    OS << ";";
                    OS.flush();
                    if (Declaration.find("(unnamed") != std::string::npos ||
                        Declaration.find("(anonymous") != std::string::npos ||
                        Type.isConstQualified()) {
                        Fails = true;
                        return;
                    }
                }
                Hoists.push_back({Var, Declaration, TextEdit{*At, *InitAt - *At, Name + " = "}});
                return;
            }
            if (!Whole) {
                Fails = true;
                return;
            }
            const TextRange Written = *Whole;
            llvm::StringRef Declaration = Text.text(Written);
            if (Declaration.contains('\n') || Declaration.contains("typeof")) {
                Fails = true;
                return;
            }
            Hoists.push_back({Var, Declaration.str(),
                              TextEdit{Written.Begin, Written.End - Written.Begin, ";"}});
        });
    if (Fails) return std::nullopt;

    // Their names, now seen from the lock on, must mean them only: no other declaration of the
    // function has one, and nothing else the section names is called so.
    std::set<std::string> Names;
    std::set<const Decl *> Moved;
    for (const Hoisted &H : Hoists) {
        Names.insert(H.Var->getNameAsString());
        Moved.insert(H.Var);
    }
    for (const ParmVarDecl *P : Fn->parameters())
        if (Names.count(P->getNameAsString())) return std::nullopt;
    auto other = [&](const NamedDecl *D) {
        return !Moved.count(D) && Names.count(D->getNameAsString());
    };
    walk(Fn->getBody(), [&](const Stmt *N) { // (after the section too: they stay in scope)
        if (const auto *D = dyn_cast<DeclStmt>(N))
            for (const Decl *Each : D->decls())
                if (const auto *Named = dyn_cast<NamedDecl>(Each); Named && other(Named))
                    Fails = true;
        if (const auto *Ref = dyn_cast<DeclRefExpr>(N); Ref && other(Ref->getDecl())) Fails = true;
    });
    if (Fails) return std::nullopt;

    // The edits. The names are the lock statement's offset's: unique in the file.
    const std::string N = std::to_string(LockRange->Begin);
    const std::string Stage = "rcl_stage_" + N, Top = "rcl_top_" + N;
    auto resume = [&](size_t K) { return ResumeLabel.str() + N + "_" + std::to_string(K + 1); };
    auto window = [&](size_t K) { return "rcl_window_" + N + "_" + std::to_string(K + 1); };
    std::vector<TextEdit> Out, InWindows;
    for (const Hoisted &H : Hoists) {
        bool Inside = llvm::any_of(
            Windows, [&](const Window &W) { return W.Work().contains(H.InPlace.Offset); });
        (Inside ? InWindows : Out).push_back(H.InPlace);
    }
    // Each made address-taken (`(void)&v;`), and so are the function's variables that a window
    // uses: the section's context then holds their address, not their value, which the first
    // stretch would read before the original ever assigns it (an indeterminate value).
    // They are declared before the block that holds the section, in the section's own block:
    // one declared there is read after the section too (jemalloc's arena_malloc_small returns
    // the `ret` its section sets).
    std::string Open;
    for (const Hoisted &H : Hoists)
        Open += H.Declaration + " (void)&" + H.Var->getNameAsString() + "; ";
    Open += "{ int " + Stage + " = 0;";
    std::set<const VarDecl *> Used;
    for (const Window &W : Windows)
        for (unsigned K = W.Unlock + 1; K < W.Relock; ++K)
            walk(W.Block->body_begin()[K], [&](const Stmt *S) {
                const auto *Ref = dyn_cast<DeclRefExpr>(S);
                const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
                // (one declared in the section is moved or its own; one a macro declares,
                // which has no place of its own in the text, is the macro's)
                std::optional<unsigned> At =
                    Var ? Text.expansionOffset(Var->getLocation()) : std::nullopt;
                if (!Var || !Var->isLocalVarDecl() || Var->isStaticLocal() || Moved.count(Var) ||
                    !At || (*At >= LockRange->Begin && *At < LastRange->End) ||
                    !Used.insert(Var).second)
                    return;
                if (Var->getStorageClass() == SC_Register) Fails = true; // (no address)
                Open += " (void)&" + Var->getNameAsString() + ";";
            });
    if (Fails) return std::nullopt;
    Out.push_back({LockRange->Begin, 0, Open + " " + Top + ":; "});
    std::string Dispatch;
    for (size_t K = 0; K < Windows.size(); ++K)
        Dispatch += std::string(K ? " else" : "") + " if (" + Stage +
                    " == " + std::to_string(K + 1) + ") goto " + resume(K) + ";";
    Out.push_back({LockRange->End, 0, Dispatch});
    std::string Tail = " if (0) {";
    for (size_t K = 0; K < Windows.size(); ++K) {
        const Window &W = Windows[K];
        const TextRange Work = W.Work();
        std::string Text_ = Text.code().slice(Work.Begin, Work.End).str();
        std::vector<TextEdit> Own;
        for (const TextEdit &E : InWindows)
            if (Work.contains(E.Offset)) Own.push_back(E);
        std::sort(Own.begin(), Own.end(),
                  [](const TextEdit &A, const TextEdit &B) { return A.Offset > B.Offset; });
        for (const TextEdit &E : Own) // (from the end: the offsets before stay)
            Text_.replace(E.Offset - Work.Begin, E.Length, E.Text);
        Out.push_back({W.UnlockText.Begin, 0, Stage + " = " + std::to_string(K + 1) + "; "});
        Out.push_back({Work.Begin, Work.End - Work.Begin,
                       " goto " + window(K) + ";" +
                           std::string(newlines(Text.code().slice(Work.Begin, Work.End)), '\n')});
        Out.push_back({W.RelockText.Begin, W.RelockText.End - W.RelockText.Begin,
                       resume(K) + ": " + Stage + " = 0;"});
        Tail += " " + window(K) + ": {" + LineDirective(Work.Begin) + Text_ + "\n}" +
                LineDirective(LastRange->End) + " goto " + Top + ";";
    }
    Out.push_back({LastRange->End, 0, Tail + " } }"});

    // No two edits may meet (each rewrites its own text).
    std::sort(Out.begin(), Out.end(),
              [](const TextEdit &A, const TextEdit &B) { return A.Offset < B.Offset; });
    for (size_t I = 1; I < Out.size(); ++I)
        if (Out[I].Offset == Out[I - 1].Offset ||
            Out[I].Offset < Out[I - 1].Offset + Out[I - 1].Length)
            return std::nullopt;
    return Out;
}

} // namespace rcl
