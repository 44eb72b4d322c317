//===- SectionFinder.cpp - pair lock calls with their unlocks ---------------===//
#include "SectionFinder.h"

#include "BranchJoin.h"
#include "LoopRotation.h"
#include "UnlockWindow.h"
#include "ResultCheck.h"
#include "StmtWalk.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>

using namespace clang;

namespace rcl {

void SectionFinder::storeSuccess(CriticalSection &CS, const Stmt *LockStmt, const VarDecl *Var) {
    if (const auto *Decl = dyn_cast<DeclStmt>(LockStmt)) {
        // `int rc = pthread_mutex_lock(&m);` -> `int rc = 0;`
        std::optional<TextRange> Whole = Text.statement(Decl);
        std::optional<unsigned> Init = Text.expansionOffset(Var->getInit()->getBeginLoc());
        if (!Whole || !Init || *Init <= Whole->Begin || *Init >= Whole->End) {
            CS.Refused =
                refuseInMacro(insideMacro(LockStmt->getBeginLoc()), LockStmt->getBeginLoc());
            return;
        }
        // `(void)rc;`: where the dropped check was rc's only use, -Wunused-variable (and
        // -Wunused-but-set-variable for an assignment) would fail a -Werror build.
        CS.CallSitePrefix = Text.code().slice(Whole->Begin, *Init).str() + "0; (void)" +
                            Var->getNameAsString() + ";";
        return;
    }
    CS.CallSitePrefix = Var->getNameAsString() + " = 0; (void)" + Var->getNameAsString() + ";";
}

/// `V = value;` for each variable a dropped check assigned the operation's result to
/// (`(void)V;` too for a local: -Wunused-but-set-variable), and the words for the note.
static std::string setOnSuccess(const std::vector<std::pair<const VarDecl *, int64_t>> &Assigned,
                                std::string &Note) {
    std::string Out;
    for (const auto &[Var, Value] : Assigned) {
        std::string Name = Var->getNameAsString();
        Out += (Out.empty() ? "" : " ") + Name + " = " + std::to_string(Value) + ";" +
               (Var->hasLocalStorage() ? " (void)" + Name + ";" : std::string());
        Note += "; '" + Name + "' is set to " + std::to_string(Value) +
                ", what the test assigned it on success";
    }
    return Out;
}

const CallExpr *
SectionFinder::checkedLock(const Stmt *S,
                           std::vector<std::pair<const VarDecl *, int64_t>> *Assigned) const {
    const CallExpr *Call = Api.checkedOperationStatement(S, Assigned);
    std::optional<LockOp> Op = Call ? Api.classify(Call) : std::nullopt;
    return Op == LockOp::Lock || Op == LockOp::TimedLock ? Call : nullptr;
}

const CallExpr *
SectionFinder::checkedUnlock(const Stmt *S,
                             std::vector<std::pair<const VarDecl *, int64_t>> *Assigned) const {
    const CallExpr *Call = Api.checkedOperationStatement(S, Assigned);
    return Call && Api.classify(Call) == LockOp::Unlock ? Call : nullptr;
}

void SectionFinder::noteDroppedCheck(CriticalSection &CS, const CallExpr *Call,
                                     const VarDecl *Stored) const {
    bool Lock = Api.classify(Call) == LockOp::Lock;
    CS.Notes.push_back(
        {"drops the check of " + Call->getDirectCallee()->getNameAsString() + "'s result (line " +
             std::to_string(lineOf(Call->getBeginLoc())) + "): a delegated " +
             (Lock ? "lock" : "unlock") + " does not fail the way a plain one can (the runtime " +
             (Lock ? "takes" : "releases") +
             " the mutex itself), so only the success path remains" +
             (Stored ? "; '" + Stored->getNameAsString() + "' is set to 0, what a successful " +
                           (Lock ? "lock" : "unlock") + " returns"
                     : std::string()),
         Call->getBeginLoc()});
}

const CallExpr *SectionFinder::storedLock(const Stmt *S, const VarDecl *&Var) const {
    return storedOperation(S, LockOp::Lock, Var);
}

const CallExpr *SectionFinder::storedOperation(const Stmt *S, LockOp Op,
                                               const VarDecl *&Var) const {
    // `rc = pthread_mutex_lock(&m);` or `int rc = pthread_mutex_lock(&m);`, rc a local integer.
    const Expr *Value = nullptr;
    if (const auto *Assign = dyn_cast<BinaryOperator>(S);
        Assign && Assign->getOpcode() == BO_Assign) {
        const auto *Ref = dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParens());
        Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        Value = Assign->getRHS();
    } else if (const auto *Decl = dyn_cast<DeclStmt>(S); Decl && Decl->isSingleDecl()) {
        Var = dyn_cast<VarDecl>(Decl->getSingleDecl());
        Value = Var ? Var->getInit() : nullptr;
    }
    if (!Var || !Value || !Var->hasLocalStorage() || !Var->getType()->isIntegerType() ||
        Var->getType().isVolatileQualified())
        return nullptr;
    const auto *Call = dyn_cast<CallExpr>(Value->IgnoreParenImpCasts());
    if (!Call || Api.classify(Call) != Op || !Call->getType()->isIntegerType()) return nullptr;
    return Call;
}

namespace {

/// `do { ... } while (0)`.
const DoStmt *doWhileZero(const Stmt *S) {
    const auto *Do = dyn_cast_or_null<DoStmt>(S);
    if (!Do) return nullptr;
    const auto *Zero = dyn_cast<IntegerLiteral>(Do->getCond()->IgnoreParenImpCasts());
    return Zero && Zero->getValue() == 0 ? Do : nullptr;
}

} // namespace

const DoStmt *SectionFinder::unlockAndLeaveMacro(const Stmt *Node, const Stmt *P,
                                                 std::string &Jump) const {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(P);
    const DoStmt *Do = Body ? doWhileZero(parent(Body)) : nullptr;
    if (!Do || !Do->getBeginLoc().isMacroID() || Body->body_front() != Node || Body->size() < 2)
        return nullptr;
    // Only `return` and `goto` after the unlock: a `break` or `continue` there would leave the
    // do-while, not the user's loop.
    std::string Out;
    for (auto It = Body->body_begin() + 1; It != Body->body_end(); ++It) {
        if (!isa<ReturnStmt, GotoStmt>(*It)) {
            Jump = "the unlock is written inside a macro expansion (macro code after it other "
                   "than return or goto)";
            return nullptr;
        }
        std::string One;
        llvm::raw_string_ostream OS(One);
        (*It)->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
        Out += (Out.empty() ? "" : " ") + StringRef(One).trim().str();
    }
    Jump = Out;
    return Do;
}

bool SectionFinder::resultUsed(const CallExpr *Call) const {
    if (Call->getType()->isVoidType()) return false;
    const Stmt *Node = Call;
    for (const Stmt *P = parent(Node); P; Node = P, P = parent(P)) {
        if (isa<ParenExpr>(P)) continue;
        if (const auto *Cast = dyn_cast<CStyleCastExpr>(P)) return !Cast->getType()->isVoidType();
        if (const auto *Comma = dyn_cast<BinaryOperator>(P))
            if (Comma->getOpcode() == BO_Comma && Comma->getLHS() == Node) return false;
        return !isa<CompoundStmt>(P);
    }
    return true; // the initializer of a declaration
}

unsigned SectionFinder::lineOf(SourceLocation Loc) const {
    // The presumed line, as diagnostics name it: in rcl-cc's copy, text moved or written twice
    // (LoopRotation.h, BranchJoin.h) carries `#line` directives naming its original lines.
    const SourceManager &SM = Ctx.getSourceManager();
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
    return P.isValid() ? P.getLine() : Text.line(Text.expansionOffset(Loc).value_or(0));
}

std::string SectionFinder::insideMacro(SourceLocation Loc) const {
    std::string Note = macroNote(Loc);
    if (Note.empty()) return "the critical section is written inside a macro expansion";
    return "the critical section is written inside a macro expansion" + Note +
           ", whose definition the tool does not edit (write the section out where the macro "
           "is used, or make the macro call a function that holds it)";
}

std::string SectionFinder::macroNote(SourceLocation Loc) const {
    if (!Loc.isMacroID()) return "";
    const SourceManager &SM = Ctx.getSourceManager();
    // The outermost macro whose expansion holds the call.
    while (Loc.isMacroID() && SM.getImmediateMacroCallerLoc(Loc).isMacroID())
        Loc = SM.getImmediateMacroCallerLoc(Loc);
    StringRef Name = Lexer::getImmediateMacroName(Loc, SM, Ctx.getLangOpts());
    return Name.empty() ? "" : " (in macro '" + Name.str() + "')";
}

const Stmt *SectionFinder::parent(const Stmt *S) const {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    if (Parents.empty()) return nullptr;
    return Parents[0].get<Stmt>();
}

std::optional<TextRange> SectionFinder::operationRange(const Stmt *S, const Stmt *Parent) const {
    if (std::optional<TextRange> R = Text.statement(S)) return R;
    std::optional<TextRange> R = Text.expansionOf(S);
    if (!R || !Parent) return std::nullopt;
    for (const Stmt *Sibling : Parent->children()) {
        if (!Sibling || Sibling == S || isa<NullStmt>(Sibling)) continue;
        std::optional<unsigned> Begin = Text.expansionOffset(Sibling->getBeginLoc());
        std::optional<unsigned> End = Text.expansionOffset(Sibling->getEndLoc());
        if (!Begin || !End || R->contains(*Begin) || R->contains(*End)) return std::nullopt;
    }
    return R;
}

bool SectionFinder::isOperationOn(const Stmt *S, LockOp Op, MutexRef Mutex) const {
    if (Mutex.Guard) {
        // An optional lock's operations are all written under its condition.
        const Expr *Guard = nullptr;
        const CallExpr *Call = Api.guardedOperationStatement(S, Guard);
        return Call && Api.classify(Call) == Op && sameLvalue(Guard, Mutex.Guard, Ctx) &&
               sameMutex(Api.mutexOf(Call, Op), Mutex, Ctx);
    }
    const CallExpr *Call = Api.asOperationStatement(S);
    // A test that assigns the result to a variable releases too: a section's final unlock
    // carries the assignment (build), an exit refuses it ("released inside an expression").
    std::vector<std::pair<const VarDecl *, int64_t>> Assigned;
    if (!Call && Op == LockOp::Unlock) Call = checkedUnlock(S, &Assigned);
    return Call && Api.classify(Call) == Op && sameMutex(Api.mutexOf(Call, Op), Mutex, Ctx);
}

void SectionFinder::collectCalls(const Stmt *S, LockOp Op, MutexRef Mutex,
                                 std::vector<const CallExpr *> &Out) const {
    walk(S, [&](const Stmt *N) {
        if (const auto *Call = dyn_cast<CallExpr>(N))
            if (Api.classify(Call) == Op && sameMutex(Api.mutexOf(Call, Op), Mutex, Ctx))
                Out.push_back(Call);
    });
}

bool SectionFinder::fallsThrough(const Stmt *S, const MutexRef *Released) const {
    if (!S) return true;
    if (isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt, IndirectGotoStmt>(S)) return false;
    if (isNeverReturningCall(S)) return false;
    if (Released && isOperationOn(S, LockOp::Unlock, *Released)) return false;
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
        // After a statement that does not fall through, control comes back at a label or case
        // that a jump reaches (`goto out; ... resume: ...;`, UnlockWindow.h's resume points):
        // the block's end is reached when it is from the last of them.
        bool Reached = true;
        for (const Stmt *Child : Block->body())
            if (Reached || isa<LabelStmt, SwitchCase>(Child))
                Reached = fallsThrough(Child, Released);
        return Reached;
    }
    if (const auto *If = dyn_cast<IfStmt>(S))
        return fallsThrough(If->getThen(), Released) || !If->getElse() ||
               fallsThrough(If->getElse(), Released);
    if (const auto *Label = dyn_cast<LabelStmt>(S))
        return fallsThrough(Label->getSubStmt(), Released);
    if (const auto *Case = dyn_cast<SwitchCase>(S))
        return fallsThrough(Case->getSubStmt(), Released);
    if (const DoStmt *Do = doWhileZero(S)) {
        // A macro's `do { ... } while (0)`: its body, unless a break or continue leaves it.
        bool Leaves = false;
        walk(Do->getBody(), [&](const Stmt *N) { Leaves |= isa<BreakStmt, ContinueStmt>(N); });
        return Leaves || fallsThrough(Do->getBody(), Released);
    }
    return true;
}

void SectionFinder::find(const FunctionDecl *Fn, std::vector<CriticalSection> &Sections,
                         std::vector<OtherSite> &Others) {
    std::set<const CallExpr *> Starts;
    walk(Fn->getBody(), [&](const Stmt *S) {
        const auto *Block = dyn_cast<CompoundStmt>(S);
        if (!Block) return;
        unsigned Index = 0;
        for (const Stmt *Child : Block->body()) {
            // `case K: pthread_mutex_lock(&m);` starts a section too: the label stays in place.
            const Stmt *Labelled = Child;
            while (isa<SwitchCase, LabelStmt>(Labelled))
                Labelled = isa<SwitchCase>(Labelled) ? cast<SwitchCase>(Labelled)->getSubStmt()
                                                     : cast<LabelStmt>(Labelled)->getSubStmt();
            const CallExpr *Call = Api.asOperationStatement(Labelled);
            bool Checked = false;
            const VarDecl *Stored = nullptr;
            const Expr *Guard = nullptr;
            unsigned Skip = 0;
            std::vector<std::pair<const VarDecl *, int64_t>> Assigned;
            // (a timed lock's check stays, and runs on the timed delegation's real result)
            if (!Call && (Call = checkedLock(Labelled, &Assigned))) Checked = true;
            // `if (f->thlock) apr_thread_mutex_lock(f->thlock);`: an optional lock.
            if (!Call && (Call = Api.guardedOperationStatement(Labelled, Guard, &Checked)) &&
                Api.classify(Call) != LockOp::Lock) {
                Call = nullptr;
                Guard = nullptr;
                Checked = false;
            }
            if (!Call &&
                ((Call = storedLock(Labelled, Stored)) ||
                 (Call = storedOperation(Labelled, LockOp::TimedLock, Stored))) &&
                Index + 1 < Block->size()) {
                // `rc = pthread_mutex_lock(&m); if (rc) return rc;`: the check goes too (a timed
                // lock's stays with it).
                ResultSource Src{{}, Stored};
                if (falseOnSuccess(conditionWithoutElse(Block->body_begin()[Index + 1]), Src) &&
                    !Src.Call)
                    Skip = 1;
            }
            if (Call && Api.classify(Call) == LockOp::TimedLock && !Guard && !Starts.count(Call)) {
                Starts.insert(Call);
                Sections.push_back(build(Fn, Block, Index, Call, Labelled, Skip, nullptr));
                CriticalSection &CS = Sections.back();
                CS.Timed = true;
                if (!CS.Refused) refuseTimedProblems(CS, Labelled);
            }
            // A macro's `do { if (G) lock(m); } while (0)` started a section in the enclosing
            // block already: its inner block does not start another.
            if (Call && Api.classify(Call) == LockOp::Lock && !Starts.count(Call)) {
                Starts.insert(Call);
                Sections.push_back(build(Fn, Block, Index, Call, Labelled, Skip, Guard));
                CriticalSection &CS = Sections.back();
                if (Stored && !CS.Refused) storeSuccess(CS, Labelled, Stored);
                if ((Checked || Stored) && !CS.Refused) {
                    noteDroppedCheck(CS, Call, Stored);
                    // `if ((rc = lock(&m)) != 0) return rc;`: rc gets what the lock returned.
                    if (!Assigned.empty())
                        CS.CallSitePrefix += setOnSuccess(Assigned, CS.Notes.back().Text);
                }
            }
            ++Index;
        }
    });
    // Synchronized-block macros: the guarded block is a section.
    walk(Fn->getBody(), [&](const Stmt *S) {
        const auto *F = dyn_cast<ForStmt>(S);
        if (!F) return;
        if (std::optional<CriticalSection> CS = syncBlock(Fn, F)) {
            Starts.insert(CS->LockCall);
            // In source order: outer sections before the ones nested in them.
            auto At = std::find_if(Sections.begin(), Sections.end(), [&](const CriticalSection &O) {
                return O.LockOffset > CS->LockOffset;
            });
            Sections.insert(At, std::move(*CS));
        }
    });
    walk(Fn->getBody(), [&](const Stmt *S) {
        const auto *Call = dyn_cast<CallExpr>(S);
        if (!Call || Starts.count(Call)) return;
        std::optional<LockOp> Op = Api.classify(Call);
        if (!Op || *Op == LockOp::Unlock || isConditionWait(*Op)) return;
        OtherSite Site;
        Site.LockName = lockName(Api.mutexOf(Call, *Op), Ctx);
        Site.Loc = Call->getBeginLoc();
        Site.Offset = Text.expansionOffset(Site.Loc).value_or(0);
        std::string Callee = Call->getDirectCallee()->getName().str();
        if (*Op == LockOp::TryLock || *Op == LockOp::TimedLock)
            Site.Why = refuse(Callee + " section: left as is (it stays mutually exclusive with "
                                       "delegated sections through the mutex)",
                              Site.Loc);
        else {
            const Stmt *Node = Call;
            const Stmt *P = parent(Node);
            while (P && isa<ParenExpr, CStyleCastExpr>(P)) {
                Node = P;
                P = parent(P);
            }
            if (P && (isa<IfStmt, ForStmt, WhileStmt, DoStmt, LabelStmt, SwitchCase>(P)) &&
                !isa<Expr>(P) &&
                std::find(P->child_begin(), P->child_end(), Node) != P->child_end() &&
                !(isa<IfStmt>(P) && cast<IfStmt>(P)->getCond() == Node) &&
                !(isa<WhileStmt>(P) && cast<WhileStmt>(P)->getCond() == Node) &&
                !(isa<DoStmt>(P) && cast<DoStmt>(P)->getCond() == Node) &&
                !(isa<ForStmt>(P) && cast<ForStmt>(P)->getCond() == Node))
                Site.Why =
                    refuse("the lock call is not a statement of a block (it is the body of an "
                           "if, loop or label)",
                           Site.Loc);
            else if (resultUsed(Call))
                Site.Why =
                    refuse("the result of " + Callee +
                               " is used (a delegated lock cannot fail, so the check would change "
                               "meaning)",
                           Site.Loc);
            else
                // `for (i = 0; i ? (unlock(&m), 0) : (lock(&m), 1); i = 1)`: a synchronized
                // block macro; its lock and unlock are operands of expressions.
                Site.Why = refuseInMacro("the lock is taken inside an expression" +
                                             macroNote(Call->getBeginLoc()) +
                                             ", not as a statement of a block",
                                         Site.Loc);
        }
        Others.push_back(std::move(Site));
    });
}

namespace {

/// `(op(...), K)` or `((void)op(...), K)`: the call, and K's value in Value.
const CallExpr *commaCall(const Expr *E, llvm::APInt &Value) {
    const auto *Comma = dyn_cast<BinaryOperator>(E->IgnoreParens());
    if (!Comma || Comma->getOpcode() != BO_Comma) return nullptr;
    const auto *K = dyn_cast<IntegerLiteral>(Comma->getRHS()->IgnoreParenImpCasts());
    if (!K) return nullptr;
    Value = K->getValue();
    const Expr *L = Comma->getLHS()->IgnoreParens();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(L); Cast && Cast->getType()->isVoidType())
        L = Cast->getSubExpr()->IgnoreParens();
    return dyn_cast<CallExpr>(L);
}

/// The variable a loop's init declares or sets to 0 (`unsigned i = 0`, `i = 0`).
const VarDecl *initialisedToZero(const Stmt *Init) {
    const VarDecl *Var = nullptr;
    const Expr *Value = nullptr;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init); DS && DS->isSingleDecl()) {
        Var = dyn_cast<VarDecl>(DS->getSingleDecl());
        Value = Var ? Var->getInit() : nullptr;
    } else if (const auto *Set = dyn_cast_or_null<BinaryOperator>(Init);
               Set && Set->getOpcode() == BO_Assign) {
        const auto *Ref = dyn_cast<DeclRefExpr>(Set->getLHS()->IgnoreParenImpCasts());
        Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        Value = Set->getRHS();
    }
    const auto *Zero = Value ? dyn_cast<IntegerLiteral>(Value->IgnoreParenImpCasts()) : nullptr;
    return Var && Zero && Zero->getValue() == 0 && Var->getType()->isIntegerType() ? Var : nullptr;
}

/// Whether E is Var (through parentheses and implicit casts).
bool refersTo(const Expr *E, const VarDecl *Var) {
    const auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
    return Ref && Ref->getDecl() == Var;
}

/// `v = K` with K a non-zero literal, or `v++` / `++v`: the increment that ends the loop.
bool setsNonZero(const Expr *Inc, const VarDecl *Var) {
    if (!Inc) return false;
    Inc = Inc->IgnoreParens();
    if (const auto *Set = dyn_cast<BinaryOperator>(Inc); Set && Set->getOpcode() == BO_Assign) {
        const auto *K = dyn_cast<IntegerLiteral>(Set->getRHS()->IgnoreParenImpCasts());
        return refersTo(Set->getLHS(), Var) && K && K->getValue() != 0;
    }
    const auto *Step = dyn_cast<UnaryOperator>(Inc);
    return Step && Step->isIncrementOp() && refersTo(Step->getSubExpr(), Var);
}

/// The inner loop of the two-loop form, `for (j = 0; !j; j = 1)` (or `j == 0`): its body.
const Stmt *onceLoopBody(const ForStmt *G) {
    const VarDecl *J = initialisedToZero(G->getInit());
    const Expr *Cond = G->getCond() ? G->getCond()->IgnoreParenImpCasts() : nullptr;
    bool Tests = false;
    if (const auto *Not = dyn_cast_or_null<UnaryOperator>(Cond); Not && Not->getOpcode() == UO_LNot)
        Tests = refersTo(Not->getSubExpr(), J);
    if (const auto *Eq = dyn_cast_or_null<BinaryOperator>(Cond); Eq && Eq->getOpcode() == BO_EQ) {
        const auto *Zero = dyn_cast<IntegerLiteral>(Eq->getRHS()->IgnoreParenImpCasts());
        Tests = refersTo(Eq->getLHS(), J) && Zero && Zero->getValue() == 0;
    }
    return J && Tests && setsNonZero(G->getInc(), J) ? G->getBody() : nullptr;
}

} // namespace

std::optional<CriticalSection> SectionFinder::syncBlock(const FunctionDecl *Fn, const ForStmt *F) {
    // for (v = 0; v ? (unlock(&m), 0) : (lock(&m), 1); v = 1) [for (j = 0; !j; j = 1)] BLOCK:
    // the first test locks and enters, the block runs once, the increment sets v and the next
    // test unlocks and leaves.
    const VarDecl *V = initialisedToZero(F->getInit());
    const auto *Test =
        F->getCond() ? dyn_cast<ConditionalOperator>(F->getCond()->IgnoreParenImpCasts()) : nullptr;
    if (!V || !Test || !refersTo(Test->getCond(), V) || !setsNonZero(F->getInc(), V))
        return std::nullopt;
    llvm::APInt Leave, Enter;
    const CallExpr *Unlock = commaCall(Test->getTrueExpr(), Leave);
    const CallExpr *Lock = commaCall(Test->getFalseExpr(), Enter);
    if (!Unlock || !Lock || Leave != 0 || Enter == 0 || Api.classify(Lock) != LockOp::Lock ||
        Api.classify(Unlock) != LockOp::Unlock)
        return std::nullopt;
    CriticalSection CS;
    CS.Function = Fn;
    CS.LockCall = Lock;
    CS.UnlockCall = Unlock;
    CS.Mutex = Api.mutexOf(Lock, LockOp::Lock);
    CS.LockName = lockName(CS.Mutex, Ctx);
    CS.LockOffset = Text.expansionOffset(F->getBeginLoc()).value_or(0);
    CS.Sync = SyncLoops{};
    CS.Sync->Continues.push_back(F);
    const Stmt *Guarded = F->getBody();
    if (const auto *G = dyn_cast<ForStmt>(Guarded); G && onceLoopBody(G)) {
        // The two-loop form: a break leaves the inner loop, then the outer one unlocks.
        CS.Sync->Break = G;
        CS.Sync->Continues.push_back(G);
        Guarded = onceLoopBody(G);
    }
    std::string Macro = macroNote(F->getBeginLoc());
    auto refused = [&](std::string Why) {
        CS.Refused = refuse(std::move(Why), F->getBeginLoc());
        return CS;
    };
    if (!sameMutex(Api.mutexOf(Unlock, LockOp::Unlock), CS.Mutex, Ctx))
        return refused("the synchronized block" + Macro + " unlocks another mutex than it locks");
    for (const CallExpr *Call : {Lock, Unlock})
        if (std::optional<std::string> Problem = Api.wrapperProblem(Call)) return refused(*Problem);
    const auto *Block = dyn_cast<CompoundStmt>(Guarded);
    std::optional<TextRange> Whole = Text.statement(F);
    std::optional<unsigned> Open = Block ? Text.offset(Block->getLBracLoc()) : std::nullopt;
    std::optional<unsigned> Close = Block ? Text.offset(Block->getRBracLoc()) : std::nullopt;
    if (!Block || !Whole || !Open || !Close || Whole->End != *Close + 1 || *Open <= Whole->Begin)
        return refused("the block of the synchronized-block macro" + Macro +
                       " is not a braced block written after the macro's use");
    if (Block->size() == 0) return refused("the synchronized block" + Macro + " is empty");
    CS.Block = Block;
    CS.FirstIndex = 0;
    CS.LastIndex = Block->size() - 1;
    CS.Whole = *Whole;
    // The block's text without its braces and the blanks before its `}`.
    unsigned End = *Close;
    while (End > *Open + 1 && isspace(static_cast<unsigned char>(Text.code()[End - 1])))
        --End;
    CS.Body = {*Open + 1, End};
    std::vector<const CallExpr *> Inside;
    collectCalls(Block, LockOp::Unlock, CS.Mutex, Inside);
    collectCalls(Block, LockOp::Lock, CS.Mutex, Inside);
    if (!Inside.empty())
        return refused("the lock is taken or released again inside the synchronized block" + Macro);
    checkDirectives(CS);
    return CS;
}

CriticalSection SectionFinder::build(const FunctionDecl *Fn, const CompoundStmt *Block,
                                     unsigned LockIndex, const CallExpr *LockCall,
                                     const Stmt *LockStmtNode, unsigned Skip, const Expr *Guard) {
    CriticalSection CS;
    CS.Function = Fn;
    CS.Block = Block;
    CS.LockIndex = LockIndex;
    CS.FirstIndex = LockIndex + 1 + Skip;
    CS.LockCall = LockCall;
    CS.Mutex = Api.mutexOf(LockCall, Api.classify(LockCall).value_or(LockOp::Lock));
    CS.Mutex.Guard = Guard;
    CS.LockName = lockName(CS.Mutex, Ctx);
    CS.LockOffset = Text.expansionOffset(LockCall->getBeginLoc()).value_or(0);
    SourceLocation Where = LockCall->getBeginLoc();

    std::optional<unsigned> Last;
    for (unsigned K = CS.FirstIndex; K < Block->size(); ++K) {
        const Stmt *S = Block->body_begin()[K];
        // `out: pthread_mutex_unlock(&m);`, the end of the `goto out` error-path idiom: the
        // label (or several) stays at the end of the outlined body, so the section's gotos to
        // it still compile; CaptureAnalysis refuses it when a goto reaches it from outside.
        const Stmt *Unlock = S, *UnlockParent = Block;
        while (isa<LabelStmt, SwitchCase>(Unlock)) {
            UnlockParent = Unlock;
            Unlock = isa<LabelStmt>(Unlock) ? cast<LabelStmt>(Unlock)->getSubStmt()
                                            : cast<SwitchCase>(Unlock)->getSubStmt();
        }
        if (isOperationOn(Unlock, LockOp::Unlock, CS.Mutex)) {
            Last = K;
            CS.FinalUnlock = operationRange(Unlock, UnlockParent);
            // Every label in front of the unlock must be written in the file, before it: a
            // macro that spells the label would be replaced with the unlock.
            for (const Stmt *L = S; CS.FinalUnlock && L != Unlock;
                 L = isa<LabelStmt>(L) ? cast<LabelStmt>(L)->getSubStmt()
                                       : cast<SwitchCase>(L)->getSubStmt()) {
                std::optional<unsigned> At = Text.offset(L->getBeginLoc());
                if (!At || *At >= CS.FinalUnlock->Begin) CS.FinalUnlock.reset();
            }
            if (!CS.FinalUnlock) {
                CS.Refused =
                    refuseInMacro(insideMacro(Unlock->getBeginLoc()), Unlock->getBeginLoc());
                return CS;
            }
            std::vector<std::pair<const VarDecl *, int64_t>> Assigned;
            if (const CallExpr *Checked = checkedUnlock(Unlock, &Assigned)) {
                noteDroppedCheck(CS, Checked);
                // `PA_ENSURE(unlock(&m))`: the variable gets, after the section, what the
                // test assigned it on success.
                if (!Assigned.empty())
                    CS.CallSiteSuffix += (CS.CallSiteSuffix.empty() ? "" : " ") +
                                         setOnSuccess(Assigned, CS.Notes.back().Text);
                if (!noteEffects(CS, Checked, *CS.FinalUnlock)) return CS;
            } else if (!noteEffects(CS, Api.asOperationStatement(Unlock), *CS.FinalUnlock)) {
                return CS;
            }
            break;
        }
        // `ret = pthread_mutex_unlock(&m);` (or `int ret = ...;`), ret a local integer, possibly
        // checked by the next statement: the section's last unlock; the call site then sets
        // ret to 0, what a successful unlock returns.
        if (const VarDecl *Stored = nullptr; S == Unlock && !CS.Mutex.Guard) {
            const CallExpr *Call = storedOperation(S, LockOp::Unlock, Stored);
            if (Call && sameMutex(Api.mutexOf(Call, LockOp::Unlock), CS.Mutex, Ctx)) {
                std::optional<TextRange> Range = Text.statement(S);
                unsigned End = K;
                ResultSource Src({}, Stored);
                if (K + 1 < Block->size() &&
                    falseOnSuccess(conditionWithoutElse(Block->body_begin()[K + 1]), Src) &&
                    !Src.Call)
                    if (std::optional<TextRange> Check = Text.statement(Block->body_begin()[K + 1]);
                        Check && Range) {
                        Range->End = Check->End;
                        End = K + 1;
                    }
                if (!Range) {
                    CS.Refused = refuseInMacro(insideMacro(S->getBeginLoc()), S->getBeginLoc());
                    return CS;
                }
                Last = End;
                CS.FinalUnlock = Range;
                // `(void)ret;`: where the dropped check was its only use (-Wunused-variable).
                CS.CallSiteSuffix =
                    (isa<DeclStmt>(S)
                         ? Text.code()
                               .slice(Range->Begin,
                                      Text.expansionOffset(Stored->getInit()->getBeginLoc())
                                          .value_or(Range->Begin))
                               .str()
                         : Stored->getNameAsString() + " = ") +
                    "0; (void)" + Stored->getNameAsString() + ";";
                noteDroppedCheck(CS, Call, Stored);
                break;
            }
        }
        std::vector<const CallExpr *> Unlocks;
        collectCalls(S, LockOp::Unlock, CS.Mutex, Unlocks);
        if (!Unlocks.empty() && !fallsThrough(S, &CS.Mutex)) {
            Last = K;
            break;
        }
    }
    if (!Last && CS.Mutex.Guard) {
        // Released without the condition it was taken under (or not at all in this block).
        std::vector<const CallExpr *> Unlocks;
        for (unsigned K = CS.FirstIndex; K < Block->size(); ++K)
            collectCalls(Block->body_begin()[K], LockOp::Unlock, CS.Mutex, Unlocks);
        for (const CallExpr *U : Unlocks)
            if (!guardedUnlock(CS, U)) {
                CS.Refused = refuse(
                    "the lock is taken only under a condition (line " +
                        std::to_string(lineOf(Guard->getBeginLoc())) + ") and released at line " +
                        std::to_string(lineOf(U->getBeginLoc())) + " without that condition",
                    U->getBeginLoc());
                return CS;
            }
    }
    if (!Last) {
        // A lock wrapper whose definition cannot be read as a lock (jemalloc's
        // malloc_mutex_lock: a trylock, then a slow path) pairs with no unlock: say why, not
        // that the lock is held past its block (issue 30, item 10).
        if (std::optional<std::string> Problem = Api.wrapperProblem(LockCall)) {
            CS.Refused = refuse(*Problem, Where);
            return CS;
        }
        if (std::optional<unsigned> Loop = workerLoop(CS, Block))
            CS.Refused = workerLoopRefusal(CS, Block, *Loop, Where);
        else {
            // Taken in a branch of an `if` and released after it: rcl-cc's copy writes the
            // statements up to the unlock into each branch (BranchJoin.h).
            std::optional<BranchJoin> Join = ResolvedCopy ? std::nullopt : branchJoinOf(Ctx, Block);
            std::optional<unsigned> Until =
                Join ? tailEnd(Join->Block, Join->Index + 1, CS.Mutex) : std::nullopt;
            bool Joins =
                Until && joinBranches(Ctx, Text, Api, *Join, *Until, CS.Mutex, [](unsigned) {
                             return std::string();
                         }).has_value();
            CS.Refused = refuse(
                "the lock is still held at the end of its block (released in another block or "
                "function" +
                    unpairedUnlock(CS, Block) + ")" +
                    (Joins ? "; it is taken in a branch of an `if` and released after it: rcl-cc "
                             "and `rcl build` write the statements up to the unlock into each "
                             "branch in their copy (`rcl convert` does not)"
                           : "") +
                    "; left as is, safe in mixed mode",
                Where);
            if (Joins) {
                CS.Refused->Resolve = Resolution::JoinBranches;
                CS.Refused->JoinUntil = *Until;
            }
            // Its block is a statement expression written as a statement (Tor's LOCK_LOGS):
            // rcl-cc's copy writes its statements in the enclosing block instead.
            if (discardedStatementExpression(Ctx, Block))
                CS.Refused->Resolve = Resolution::FlattenStatementExpressions;
        }
        return CS;
    }
    CS.LastIndex = *Last;
    CS.EndsByExit = !CS.FinalUnlock && !fallsThrough(Block->body_begin()[*Last], nullptr);
    if (std::optional<Refusal> Early = earlyExit(CS)) {
        CS.Refused = Early;
        return CS;
    }

    CS.Labelled = LockStmtNode != Block->body_begin()[LockIndex];
    std::optional<TextRange> LockStmt =
        operationRange(LockStmtNode, CS.Labelled ? parent(LockStmtNode) : Block);
    std::optional<TextRange> LastStmt =
        CS.FinalUnlock ? CS.FinalUnlock : Text.statement(Block->body_begin()[*Last]);
    if (LockStmt && Skip) {
        // The dropped check is part of the lock statement.
        std::optional<TextRange> Check = Text.statement(Block->body_begin()[CS.FirstIndex - 1]);
        if (Check)
            LockStmt->End = Check->End;
        else
            LockStmt.reset();
    }
    if (!LockStmt || !LastStmt || LastStmt->End <= LockStmt->End) {
        CS.Refused = refuseInMacro(insideMacro(Where), Where);
        return CS;
    }
    CS.Whole = {LockStmt->Begin, LastStmt->End};
    CS.Body = {LockStmt->End, LastStmt->End};
    for (unsigned K = CS.FirstIndex; K <= *Last; ++K) {
        const Stmt *S = Block->body_begin()[K];
        // A statement that a macro spells with its own `;` (`APPEND_STAT(...);`) counts as
        // that macro use, provided nothing else comes from the same expansion.
        std::optional<TextRange> R = K == *Last ? LastStmt : operationRange(S, Block);
        if (R && isa<NullStmt>(S)) continue;
        // A stored unlock and its check are one final unlock.
        if (R && K < *Last && CS.FinalUnlock && CS.FinalUnlock->contains(R->Begin)) continue;
        if (!R || !CS.Whole.contains(*R) || R->Begin < LockStmt->End ||
            (K < *Last && R->End > LastStmt->Begin)) {
            CS.Refused = refuseInMacro(insideMacro(Block->body_begin()[K]->getBeginLoc()),
                                       Block->body_begin()[K]->getBeginLoc());
            return CS;
        }
    }

    std::vector<const CallExpr *> Relocks;
    for (unsigned K = CS.FirstIndex; K <= *Last; ++K)
        collectCalls(Block->body_begin()[K], LockOp::Lock, CS.Mutex, Relocks);
    if (!Relocks.empty()) {
        // With no unlock of the mutex before it, the lock is taken again while held: a
        // recursive mutex locked twice (libuv's test-mutexes.c), not an unlock-relock.
        std::vector<const CallExpr *> Unlocks;
        for (unsigned K = CS.FirstIndex; K <= *Last; ++K)
            collectCalls(Block->body_begin()[K], LockOp::Unlock, CS.Mutex, Unlocks);
        std::optional<unsigned> Relock = Text.expansionOffset(Relocks.front()->getBeginLoc());
        bool Released = !Relock || llvm::any_of(Unlocks, [&](const CallExpr *U) {
            std::optional<unsigned> At = Text.expansionOffset(U->getBeginLoc());
            return !At || *At < *Relock;
        });
        if (std::optional<unsigned> Loop = Released ? workerLoop(CS, Block) : std::nullopt)
            CS.Refused = workerLoopRefusal(CS, Block, *Loop, Where);
        else
            CS.Refused = refuse(Released ? "the lock is released and taken again inside the "
                                           "critical section"
                                         : "the lock is taken again inside the critical section "
                                           "while it is held (a recursive lock)",
                                Relocks.front()->getBeginLoc());
        // rcl-cc's copy lets the caller run the stretches between each unlock and its relock
        // where that keeps the program's meaning (UnlockWindow.h).
        if (Released && CS.Refused->Resolve == Resolution::None && !ResolvedCopy && !CS.Labelled &&
            !CS.Mutex.Guard && !CS.Timed && CS.FirstIndex == LockIndex + 1 &&
            splitUnlockWindows(Ctx, Text, Api, CS.Function, Block, LockIndex, *Last, CS.Mutex,
                               [](unsigned) { return std::string(); })) {
            const std::string Note = "; rcl-cc and `rcl build` run the stretches between the "
                                     "unlock and the lock taken again on the caller's side in "
                                     "their copy, the section leaving before each and resuming "
                                     "after it (`rcl convert` does not)";
            std::string &Reason = CS.Refused->Reason;
            size_t Kept = Reason.rfind("; left as is");
            Reason.insert(Kept == std::string::npos ? Reason.size() : Kept, Note);
            CS.Refused->Resolve = Resolution::SplitWindows;
            CS.Refused->JoinUntil = *Last;
        }
        return CS;
    }
    // A declared wrapper stands for the lock or unlock of its first argument only when that
    // is all it does (wrapper_not_a_mutex.c, unlock_wrapper_with_effects.c).
    std::vector<const CallExpr *> Operations{LockCall};
    for (unsigned K = CS.FirstIndex; K <= *Last; ++K)
        collectCalls(Block->body_begin()[K], LockOp::Unlock, CS.Mutex, Operations);
    for (const CallExpr *Call : Operations)
        if (std::optional<std::string> Problem = Api.wrapperProblem(Call)) {
            CS.Refused = refuse(*Problem, Call->getBeginLoc());
            return CS;
        }
    findExits(CS);
    if (CS.Refused) return CS;
    std::vector<const CallExpr *> Unlocks;
    for (unsigned K = CS.FirstIndex; K <= *Last; ++K)
        collectCalls(Block->body_begin()[K], LockOp::Unlock, CS.Mutex, Unlocks);
    CS.UnlockCall = Unlocks.empty() ? nullptr : Unlocks.front();
    if (!noteWrapperParts(CS, Unlocks)) return CS;
    // A pair defined in another unit: where that unit has no getter the section runs between
    // the lock call and CS.UnlockCall, so every path must release through that same call.
    if (!CS.Mutex.Remote.empty())
        for (const CallExpr *U : Unlocks)
            if (!sameCall(U, CS.UnlockCall, Ctx)) {
                CS.Refused =
                    refuse("the critical section is released through different unlocks ('" +
                               CS.UnlockCall->getDirectCallee()->getNameAsString() + "' at line " +
                               std::to_string(lineOf(CS.UnlockCall->getBeginLoc())) + ", '" +
                               U->getDirectCallee()->getNameAsString() + "' at line " +
                               std::to_string(lineOf(U->getBeginLoc())) +
                               ") of a wrapper pair defined in another file",
                           U->getBeginLoc());
                return CS;
            }
    checkDirectives(CS);
    return CS;
}

void SectionFinder::refuseTimedProblems(CriticalSection &CS, const Stmt *LockStmt) const {
    SourceLocation Where = CS.LockCall->getBeginLoc();
    std::string Callee = CS.LockCall->getDirectCallee()->getNameAsString();
    // The call's own text becomes the delegation's.
    if (Where.isMacroID() || CS.LockCall->getEndLoc().isMacroID()) {
        CS.Refused = refuseInMacro(Callee + " is called inside a macro" + macroNote(Where) +
                                       ": a timed section's lock statement stays where it is, "
                                       "with the call replaced, and a macro's call cannot be",
                                   Where);
        return;
    }
    if (const auto *Decl = dyn_cast<DeclStmt>(LockStmt)) {
        CS.Refused = refuse("the " + Callee + " statement declares '" +
                                cast<NamedDecl>(Decl->getSingleDecl())->getNameAsString() +
                                "': a timed section's lock statement stays inside the block "
                                "that replaces the section, where what follows cannot see it",
                            Where);
        return;
    }
    // What the lock statement sets (its stored or assigned result) is set once the delegation
    // returned, after the section ran.
    std::vector<const VarDecl *> Set;
    walk(LockStmt, [&](const Stmt *S) {
        if (const auto *Assign = dyn_cast<BinaryOperator>(S); Assign && Assign->isAssignmentOp())
            if (const auto *Ref = dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParens()))
                if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl())) Set.push_back(Var);
    });
    for (unsigned K = CS.FirstIndex; K <= CS.LastIndex && !CS.Refused; ++K)
        walk(CS.Block->body_begin()[K], [&](const Stmt *S) {
            if (CS.Refused) return;
            if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
                if (llvm::is_contained(Set, Ref->getDecl()))
                    CS.Refused =
                        refuse("the critical section reads '" + Ref->getDecl()->getNameAsString() +
                                   "', which the " + Callee +
                                   " statement sets: delegated, that is set "
                                   "only after the section ran",
                               Ref->getLocation());
            } else if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
                for (const clang::Decl *D : Decl->decls())
                    if (const auto *Var = dyn_cast<VarDecl>(D); Var && Var->isStaticLocal())
                        CS.Refused = refuse("the critical section declares the static '" +
                                                Var->getNameAsString() +
                                                "': a timed section's "
                                                "body is also kept to run in place when its lock "
                                                "times out, and a second copy would be a second "
                                                "variable",
                                            Var->getLocation());
            }
        });
    if (!CS.Refused)
        CS.Notes.push_back({"entered with " + Callee +
                                ": delegated with its deadline "
                                "(rcl_delegate_timed); when the lock is not had by then, the "
                                "statements run in place, as the original's did",
                            Where});
}

std::optional<unsigned> SectionFinder::workerLoop(const CriticalSection &CS,
                                                  const CompoundStmt *Block) const {
    // A loop whose body unlocks the mutex at its top level and then locks it again.
    auto isWorkerLoop = [&](const Stmt *S) {
        const Stmt *Body = isa<ForStmt>(S)     ? cast<ForStmt>(S)->getBody()
                           : isa<WhileStmt>(S) ? cast<WhileStmt>(S)->getBody()
                           : isa<DoStmt>(S)    ? cast<DoStmt>(S)->getBody()
                                               : nullptr;
        const auto *Loop = dyn_cast_or_null<CompoundStmt>(Body);
        if (!Loop) return false;
        bool Released = false;
        for (const Stmt *T : Loop->body()) {
            if (isOperationOn(T, LockOp::Unlock, CS.Mutex)) Released = true;
            if (const CallExpr *Call = Api.asOperationStatement(T);
                Released && Call && Api.classify(Call) == LockOp::Lock &&
                sameMutex(Api.mutexOf(Call, LockOp::Lock), CS.Mutex, Ctx))
                return true;
        }
        return false;
    };
    // The lock before the loop (lock; loop { ...; unlock; work; lock; } unlock), or the lock
    // at the end of the loop's body.
    for (unsigned K = CS.FirstIndex; K < Block->size(); ++K)
        if (isWorkerLoop(Block->body_begin()[K]))
            return lineOf(Block->body_begin()[K]->getBeginLoc());
    if (const Stmt *Loop = parent(Block); Loop && isWorkerLoop(Loop))
        return lineOf(Loop->getBeginLoc());
    return std::nullopt;
}

std::optional<Refusal> SectionFinder::earlyExit(const CriticalSection &CS) const {
    // `lock; if (a) goto good; ...; unlock; return false; good: ...; unlock; return true;`
    // (PulseAudio's pa_ratelimit_test, fuse's iconv_convpath): the section's last statement
    // is an unlock at its block's level, the statements after it end in a return or jump, and
    // the label right after them is reached from the section with the lock held and releases it
    // later in the block. rcl-cc's copy writes that unlock and its statements `if (1) { ... }`:
    // an exit of the section (its tail run by the caller), which then ends at the later unlock,
    // the label inside it. The statements run as before.
    const CompoundStmt *Block = CS.Block;
    const unsigned Last = CS.LastIndex;
    if (ResolvedCopy || !isOperationOn(Block->body_begin()[Last], LockOp::Unlock, CS.Mutex))
        return std::nullopt;
    std::optional<unsigned> End;
    for (unsigned K = Last + 1; K < Block->size() && !End; ++K) {
        const Stmt *S = Block->body_begin()[K];
        std::vector<const CallExpr *> Operations;
        for (LockOp Op : {LockOp::Lock, LockOp::Unlock, LockOp::TryLock, LockOp::TimedLock})
            collectCalls(S, Op, CS.Mutex, Operations);
        if (isa<LabelStmt, SwitchCase>(S) || !Operations.empty() || !Text.statement(S))
            return std::nullopt;
        if (!fallsThrough(S, nullptr)) End = K;
    }
    if (!End || *End + 1 >= Block->size()) return std::nullopt;
    // (A label that releases first, `fail: unlock; ...`, is an exit of its own, the goto a jump
    // past that unlock: CaptureAnalysis's gotoReleasingLabel.)
    const auto *Label = dyn_cast<LabelStmt>(Block->body_begin()[*End + 1]);
    if (!Label || isOperationOn(Label->getSubStmt(), LockOp::Unlock, CS.Mutex) ||
        !tailEnd(Block, *End + 1, CS.Mutex) || !Text.statement(Block->body_begin()[Last]))
        return std::nullopt;
    const GotoStmt *Jump = nullptr;
    for (unsigned K = CS.FirstIndex; K < Last && !Jump; ++K)
        walk(Block->body_begin()[K], [&](const Stmt *N) {
            if (const auto *G = dyn_cast<GotoStmt>(N);
                G && !Jump && G->getLabel()->getStmt() == Label)
                Jump = G;
        });
    if (!Jump) return std::nullopt;
    Refusal R = refuse("goto '" + Label->getDecl()->getNameAsString() +
                           "' leaves the critical section while holding the lock, for a label "
                           "after the unlock at line " +
                           std::to_string(lineOf(Block->body_begin()[Last]->getBeginLoc())) +
                           " and its return; rcl-cc and `rcl build` make that unlock and what "
                           "follows it an exit of the section in their copy, which then ends at "
                           "the label's unlock (`rcl convert` does not)",
                       Jump->getBeginLoc());
    R.Resolve = Resolution::WrapEarlyExit;
    R.JoinFrom = Last;
    R.JoinUntil = *End;
    return R;
}

std::optional<unsigned> SectionFinder::tailEnd(const CompoundStmt *Block, unsigned From,
                                               const MutexRef &Mutex) const {
    for (unsigned K = From; K < Block->size(); ++K) {
        const Stmt *S = Block->body_begin()[K];
        if (isOperationOn(S, LockOp::Unlock, Mutex)) return K;
        const VarDecl *Stored = nullptr;
        if (const CallExpr *Call = storedOperation(S, LockOp::Unlock, Stored);
            Call && sameMutex(Api.mutexOf(Call, LockOp::Unlock), Mutex, Ctx))
            return K;
        std::vector<const CallExpr *> Unlocks, Takes;
        collectCalls(S, LockOp::Unlock, Mutex, Unlocks);
        if (!Unlocks.empty() && !fallsThrough(S, &Mutex)) return K;
        // (an unlock on a path that leaves is an exit of the section; a lock, trylock or timed
        // lock is another section's start)
        for (LockOp Take : {LockOp::Lock, LockOp::TryLock, LockOp::TimedLock})
            collectCalls(S, Take, Mutex, Takes);
        if (!Takes.empty()) return std::nullopt;
    }
    return std::nullopt;
}

Refusal SectionFinder::workerLoopRefusal(const CriticalSection &CS, const CompoundStmt *Block,
                                         unsigned Line, SourceLocation Where) const {
    // rcl-cc's copy rotates the loop where that keeps the program's meaning (LoopRotation.h).
    bool Rotates = !ResolvedCopy &&
                   rotateWorkerLoop(Ctx, Text, Api, Block, CS.LockIndex, CS.Mutex, [](unsigned) {
                       return std::string();
                   }).has_value();
    Refusal R = refuse(
        "the lock is released and taken again in each iteration of the loop at line " +
            std::to_string(Line) +
            " (a worker loop: lock; loop { ...; unlock; work; lock; } unlock): its sections are "
            "the stretches from each lock to the next unlock, which only rotating the loop makes "
            "blocks of their own (lock at the top of each iteration, unlock before its work)" +
            (Rotates ? "; rcl-cc and `rcl build` rotate it in their copy (`rcl convert` does not)"
                     : "") +
            "; left as is, safe in mixed mode",
        Where);
    if (Rotates) R.Resolve = Resolution::RotateLoop;
    return R;
}

std::string SectionFinder::unpairedUnlock(const CriticalSection &CS,
                                          const CompoundStmt *Block) const {
    // Only declared wrappers: a plain unlock of another lvalue is just another lock.
    const FunctionDecl *LockFn = CS.LockCall->getDirectCallee();
    if (!Api.pairOf(LockFn->getName())) return "";
    std::string Out;
    for (unsigned K = CS.FirstIndex; K < Block->size() && Out.empty(); ++K)
        walk(Block->body_begin()[K], [&](const Stmt *N) {
            const auto *Call = dyn_cast<CallExpr>(N);
            if (!Out.empty() || !Call || Api.classify(Call) != LockOp::Unlock ||
                !Api.isPair(LockFn->getName(), Call->getDirectCallee()->getName()) ||
                Call->getNumArgs() != CS.LockCall->getNumArgs())
                return;
            for (unsigned I : differingArguments(CS.LockCall, Call, Ctx)) {
                if (isLocationConstant(CS.LockCall->getArg(I)) &&
                    isLocationConstant(Call->getArg(I)))
                    continue;
                auto Printed = [&](const Expr *E) {
                    std::string T;
                    llvm::raw_string_ostream OS(T);
                    E->IgnoreParenImpCasts()->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
                    return T;
                };
                Out = "; the unlock '" + Call->getDirectCallee()->getNameAsString() + "' at line " +
                      std::to_string(lineOf(Call->getBeginLoc())) +
                      " does not pair with it: argument " + std::to_string(I + 1) + " differs ('" +
                      Printed(CS.LockCall->getArg(I)) + "' and '" + Printed(Call->getArg(I)) + "')";
                return;
            }
        });
    return Out;
}

const Stmt *SectionFinder::guardedUnlock(const CriticalSection &CS, const CallExpr *Unlock) const {
    // The call, braced or not, possibly checked (`if (G) MHD_mutex_unlock_chk_(m);`, a macro's
    // `do { if (!unlock(m)) panic(); } while (0)`), under `if (G)`, possibly in a macro's
    // `do { ... } while (0)`: the closest enclosing statement that is that guarded unlock.
    const Expr *Guard = nullptr;
    const Stmt *Up = parent(Unlock);
    for (unsigned Depth = 0; Up && Up != CS.Block && Depth < 12; ++Depth, Up = parent(Up))
        if (isa<IfStmt>(Up) && Api.guardedOperationStatement(Up, Guard) == Unlock) break;
    if (!Up || Up == CS.Block || !isa<IfStmt>(Up) || !sameLvalue(Guard, CS.Mutex.Guard, Ctx))
        return nullptr;
    const Stmt *Out = Up;
    const Stmt *Braces = parent(Up);
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Braces); Block && Block->size() == 1)
        if (const auto *Do = dyn_cast_or_null<DoStmt>(parent(Block));
            Do && Api.guardedOperationStatement(Do, Guard) == Unlock)
            Out = Do;
    return Out;
}

bool SectionFinder::noteWrapperParts(CriticalSection &CS,
                                     const std::vector<const CallExpr *> &Unlocks) {
    auto definedBefore = [&](const FunctionDecl *Wrapper, const CallExpr *Call, StringRef Kind) {
        if (writtenBefore(Wrapper, CS.Function)) return true;
        // A wrapper whose only effect is what its test assigned (SetOnSuccess): the copy names
        // its parameters' types and those variables alone, each declared before the section's
        // function (PortAudio's paUtilErr_, declared in its header, set by PaUnixMutex_Lock,
        // written after the functions that call it).
        WrapperSummary S = Api.summary(Wrapper, Kind == "lock" ? LockOp::Lock : LockOp::Unlock);
        const SourceManager &SM = Ctx.getSourceManager();
        SourceLocation FunctionAt = SM.getExpansionLoc(CS.Function->getBeginLoc());
        auto declaredBefore = [&](const Decl *D) {
            SourceLocation At = SM.getExpansionLoc(D->getCanonicalDecl()->getLocation());
            return SM.isBeforeInTranslationUnit(At, FunctionAt);
        };
        if (S.Before.empty() && S.After.empty() && declaredBefore(Wrapper) &&
            llvm::all_of(S.SetOnSuccess,
                         [&](const auto &Set) { return declaredBefore(Set.first); }))
            return true;
        CS.Refused = refuse(Kind.str() + " wrapper '" + Wrapper->getNameAsString() +
                                "' does more than " + Kind.str() +
                                " its first argument, and its definition is not written in this "
                                "file before '" +
                                CS.Function->getNameAsString() + "'",
                            Call->getBeginLoc());
        return false;
    };
    if (CS.Mutex.Remote.empty())
        if (const FunctionDecl *Def = CS.LockCall->getDirectCallee()->getDefinition();
            Def && Api.pairOf(Def->getName())) {
            WrapperSummary S = Api.summary(Def, LockOp::Lock);
            if (S.hasEffects() && !definedBefore(Def, CS.LockCall, "lock")) return false;
            if (!S.Before.empty()) CS.Parts.push_back({Def, WrapperPart::BeforeLock});
            if (S.hasAfter()) CS.Parts.push_back({Def, WrapperPart::AfterLock});
        }
    // An unlock wrapper's statements after its unlock run once the delegation returned: every
    // path must release through that same call.
    for (const CallExpr *U : Unlocks) {
        const FunctionDecl *Def = U->getDirectCallee()->getDefinition();
        if (!Def || !Api.pairOf(Def->getName()) || !CS.Mutex.Remote.empty()) continue;
        WrapperSummary S = Api.summary(Def, LockOp::Unlock);
        if (!S.hasAfter()) continue;
        if (!definedBefore(Def, U, "unlock")) return false;
        for (const CallExpr *Other : Unlocks)
            if (!sameCall(Other, U, Ctx)) {
                CS.Refused = refuse("unlock wrapper '" + Def->getNameAsString() +
                                        "' does things after it unlocks, and the critical "
                                        "section is also released through another unlock "
                                        "(line " +
                                        std::to_string(lineOf(Other->getBeginLoc())) + ")",
                                    Other->getBeginLoc());
                return false;
            }
        CS.UnlockCall = U;
        CS.Parts.push_back({Def, WrapperPart::AfterUnlock});
        break;
    }
    return true;
}

bool SectionFinder::writtenBefore(const FunctionDecl *Wrapper, const FunctionDecl *Fn) const {
    // The copies of a wrapper's statements go before the section's function: the wrapper must
    // be written before it (all it uses is declared there), in this file or in a header the
    // file includes before it (jemalloc's `static inline` wrappers in mutex.h), not through a
    // macro.
    std::optional<unsigned> FunctionAt = Text.expansionOffset(Fn->getBeginLoc());
    if (!FunctionAt) return false;
    if (std::optional<unsigned> End = Text.offset(Wrapper->getEndLoc())) return *End < *FunctionAt;
    const SourceManager &SM = Text.sourceManager();
    SourceLocation Begin = Wrapper->getBeginLoc(), End = Wrapper->getEndLoc();
    return Begin.isFileID() && End.isFileID() && SM.getFileID(End) != Text.file() &&
           SM.getFileID(Begin) == SM.getFileID(End) &&
           SM.isBeforeInTranslationUnit(End, SM.getExpansionLoc(Fn->getBeginLoc()));
}

bool SectionFinder::noteEffects(CriticalSection &CS, const CallExpr *Unlock, TextRange Statement) {
    const FunctionDecl *Wrapper = Unlock ? Api.unlockEffects(Unlock) : nullptr;
    if (!Wrapper) return true;
    if (!writtenBefore(Wrapper, CS.Function)) {
        CS.Refused = refuse("unlock wrapper '" + Wrapper->getNameAsString() +
                                "' does more than unlock its first argument, and its definition "
                                "is not written in this file before '" +
                                CS.Function->getNameAsString() + "'",
                            Unlock->getBeginLoc());
        return false;
    }
    CS.EffectsUnlocks.push_back({Statement, Unlock, Wrapper});
    return true;
}

void SectionFinder::checkDirectives(CriticalSection &CS) const {
    // The section's text moves into the outlined function, written before the enclosing
    // function: a macro defined or undefined in the function before the section would not mean
    // there what it means in the section (unbound's worker.c defines TA_RESPONSE_MAX_TAGS at
    // the top of a function and uses it in a section: the rewritten file did not compile).
    // So the outlined function is compiled with the last such directive of each macro the
    // section uses, directly or through another one's definition (CriticalSection::LocalMacros),
    // unless a conditional in the function may have skipped some of them.
    if (std::optional<unsigned> FnStart = Text.expansionOffset(CS.Function->getBeginLoc());
        FnStart && *FnStart < CS.Whole.Begin) {
        const TextRange Before{Text.lineStart(*FnStart), CS.Whole.Begin};
        std::map<std::string, unsigned> Last; // name -> its last directive before the section
        for (const auto &[At, Name] : Text.macroDirectives(Before))
            Last[Name] = At;
        std::set<std::string> Needed;
        std::vector<std::string> Work;
        for (const auto &[Name, At] : Last)
            if (Text.hasIdentifier(CS.Whole, Name)) Needed.insert(Name), Work.push_back(Name);
        while (!Work.empty()) {
            TextRange Line = Text.directiveLine(Last[Work.back()]);
            Work.pop_back();
            for (const auto &[Name, At] : Last)
                if (!Needed.count(Name) && Text.hasIdentifier(Line, Name))
                    Needed.insert(Name), Work.push_back(Name);
        }
        if (!Needed.empty() && Text.hasConditional(Before)) {
            const std::string &Name = *Needed.begin();
            CS.Refused =
                refuse("uses macro '" + Name + "', defined or undefined inside the " +
                           "function before the critical section (line " +
                           std::to_string(Text.line(Last[Name])) +
                           ") under a preprocessor conditional, which the outlined function, " +
                           "written before the function, would not see",
                       Text.sourceManager().getComposedLoc(Text.file(), CS.Whole.Begin));
            return;
        }
        std::vector<std::pair<unsigned, std::string>> InOrder;
        for (const std::string &Name : Needed)
            InOrder.push_back({Last[Name], Name});
        llvm::sort(InOrder);
        for (const auto &[At, Name] : InOrder) {
            TextRange Line = Text.directiveLine(At);
            CS.LocalMacros.push_back({Name, Text.code().slice(Line.Begin, Line.End).str()});
        }
    }
    // Each exit's tail moves to the call site: a directive in the moved text must move along
    // whole (`#ifdef X` .. `#endif` around the lock and again around the unlock would be cut
    // in two).
    std::vector<TextRange> Moved{CS.Whole};
    for (const Exit &E : CS.Exits)
        Moved.push_back(E.Tail ? *E.Tail : E.Removed);
    for (const TextRange &R : Moved)
        if (auto Directive = Text.immovableDirective(R)) {
            std::string Line = std::to_string(Text.line(Directive->first));
            bool Conditional = Directive->second != "#define" && Directive->second != "#undef" &&
                               Directive->second != "#include";
            CS.Refused =
                refuse(Conditional
                           ? "a preprocessor conditional (" + Directive->second + " at line " +
                                 Line + ") crosses the boundary of the critical section"
                           : "contains a preprocessor directive (" + Directive->second +
                                 " at line " + Line + ") that would move with the critical section",
                       Text.sourceManager().getComposedLoc(Text.file(), Directive->first));
            if (Conditional) CS.Refused->Resolve = Resolution::DropConditionals;
            return;
        }
}

void SectionFinder::findExits(CriticalSection &CS) {
    std::vector<const CallExpr *> Unlocks;
    for (unsigned K = CS.FirstIndex; K <= CS.LastIndex; ++K) {
        const Stmt *S = CS.Block->body_begin()[K];
        if (K == CS.LastIndex && CS.FinalUnlock) break;
        std::optional<unsigned> At = Text.expansionOffset(S->getBeginLoc());
        if (CS.FinalUnlock && At && CS.FinalUnlock->contains(*At)) break; // a stored unlock
        collectCalls(S, LockOp::Unlock, CS.Mutex, Unlocks);
    }
    unsigned NextNumber = 1;
    for (const CallExpr *Unlock : Unlocks) {
        // The statement that performs the unlock: skip `(void)`, parentheses, a macro's braces.
        const Stmt *Node = Unlock;
        const Stmt *P = parent(Node);
        while (P && (isa<ParenExpr>(P) || (isa<CStyleCastExpr>(P) &&
                                           cast<CStyleCastExpr>(P)->getType()->isVoidType()))) {
            Node = P;
            P = parent(P);
        }
        if (const auto *Braces = dyn_cast_or_null<CompoundStmt>(P))
            if (Braces->size() == 1 && Braces->getBeginLoc().isMacroID()) {
                Node = P;
                P = parent(P);
            }
        // `if (pthread_mutex_unlock(&m) != 0) abort();`: the whole statement is the unlock.
        // `if (pthread_mutex_unlock(&m) != 0) abort();` or a lock macro's `do { int e; if ((e =
        // unlock(m)) != 0) log(...); } while (0)`: the whole statement is the unlock.
        // The outermost such statement (the macro's do-while, not the block inside it).
        const Stmt *Checked = nullptr;
        for (const Stmt *Up = parent(Unlock); Up && Up != CS.Block; Up = parent(Up))
            if (checkedUnlock(Up) == Unlock) Checked = Up;
        if (Checked) {
            Node = Checked;
            P = parent(Checked);
            noteDroppedCheck(CS, Unlock);
        }
        // An optional lock's unlock: the whole `if (G) unlock;` is the exit's unlock.
        if (CS.Mutex.Guard) {
            const Stmt *Guarded = guardedUnlock(CS, Unlock);
            if (!Guarded) {
                CS.Refused = refuse("the lock is taken only under a condition (line " +
                                        std::to_string(lineOf(CS.Mutex.Guard->getBeginLoc())) +
                                        ") and released at line " +
                                        std::to_string(lineOf(Unlock->getBeginLoc())) +
                                        " without that condition",
                                    Unlock->getBeginLoc());
                return;
            }
            Node = Guarded;
            P = parent(Guarded);
        }
        // `#define UNLOCK_RETURN(m, v) do { pthread_mutex_unlock(m); return (v); } while (0)`:
        // the macro's use is the exit, and what follows the unlock in it runs in the caller.
        std::string Jump;
        if (const auto *Return = dyn_cast_or_null<ReturnStmt>(P);
            Return && Return->getRetValue() &&
            Return->getRetValue()->IgnoreParenImpCasts() == Node && !Checked) {
            // `return pthread_mutex_unlock(&m);`: the function returns what a successful unlock
            // returns, 0, in the caller.
            Node = Return;
            P = parent(Return);
            Jump = "return 0;";
            CS.Notes.push_back(
                {"returns 0 where it returned " + Unlock->getDirectCallee()->getNameAsString() +
                     "'s result (line " + std::to_string(lineOf(Unlock->getBeginLoc())) +
                     "): what a delegated unlock, which does not fail, returns",
                 Unlock->getBeginLoc()});
        } else if (const DoStmt *Do = unlockAndLeaveMacro(Node, P, Jump)) {
            Node = Do;
            P = parent(Do);
        } else if (!Jump.empty()) {
            CS.Refused = refuseInMacro(Jump, Unlock->getBeginLoc());
            return;
        }
        // `l: pthread_mutex_unlock(&m);`, `default: pthread_mutex_unlock(&m);`: the label
        // stays in the body, before `return N;`.
        const Stmt *Top = Node, *TopParent = P;
        while (TopParent && isa<LabelStmt, SwitchCase>(TopParent)) {
            Top = TopParent;
            TopParent = parent(TopParent);
        }
        if (!TopParent || !isa<CompoundStmt, IfStmt>(TopParent) ||
            (isa<IfStmt>(TopParent) && cast<IfStmt>(TopParent)->getCond() == Top)) {
            CS.Refused = refuse("the lock is released inside an expression", Unlock->getBeginLoc());
            return;
        }
        std::optional<TextRange> NodeRange = operationRange(Node, P);
        if (!NodeRange) {
            CS.Refused = refuseInMacro("the unlock is written inside a macro expansion",
                                       Unlock->getBeginLoc());
            return;
        }
        if (!noteEffects(CS, Unlock, *NodeRange)) return;
        for (const Exit &Other : CS.Exits)
            if (Other.Removed.contains(NodeRange->Begin)) {
                CS.Refused =
                    refuse("the lock is released twice on one path", Unlock->getBeginLoc());
                return;
            }

        Exit E;
        E.Removed = *NodeRange;
        bool Terminated = !Jump.empty();
        if (Terminated) {
            // The macro use is the tail for what it names (hoists, labels, gotos); the call
            // site runs the printed statements. What follows it in its block stays in the
            // section: dead code, or labels reached with the lock held.
            E.Tail = *NodeRange;
            E.Jump = Jump;
        }
        const Stmt *Cur = Top;
        if (const auto *Block = dyn_cast<CompoundStmt>(TopParent);
            Block && Block != CS.Block && !Terminated) {
            auto It = std::find(Block->body_begin(), Block->body_end(), Top);
            std::optional<TextRange> TailRange;
            for (auto Next = It + 1; Next != Block->body_end(); ++Next) {
                // After a tail that leaves, a case or goto label starts code that other paths
                // reach with the lock held (`case 2: unlock; return -2; default: ...`): it
                // stays in the section.
                if (Terminated && isa<SwitchCase, LabelStmt>(*Next)) break;
                std::optional<TextRange> R = Text.statement(*Next);
                if (!R) {
                    CS.Refused =
                        refuseInMacro("code after the unlock is written inside a macro expansion",
                                      (*Next)->getBeginLoc());
                    return;
                }
                if (!TailRange) TailRange = TextRange{NodeRange->End, R->End};
                TailRange->End = R->End;
                if (!fallsThrough(*Next, nullptr)) Terminated = true;
            }
            if (TailRange) {
                E.Tail = TailRange;
                E.Removed.End = TailRange->End;
            }
            Cur = Block;
        }
        while (!Terminated) {
            const Stmt *Up = (Cur == Top) ? TopParent : parent(Cur);
            if (Up && isa<IfStmt, LabelStmt, SwitchCase>(Up)) {
                Cur = Up;
                continue;
            }
            if (Up == CS.Block) {
                if (Cur != CS.Block->body_begin()[CS.LastIndex]) {
                    CS.Refused = refuse("after this unlock, control continues inside the critical "
                                        "section without the lock",
                                        Unlock->getBeginLoc());
                    return;
                }
                break;
            }
            if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Up)) {
                if (Block->body_back() != Cur) {
                    CS.Refused = refuse("after this unlock, control continues inside the critical "
                                        "section without the lock",
                                        Unlock->getBeginLoc());
                    return;
                }
                Cur = Block;
                continue;
            }
            CS.Refused = refuse("the lock is released inside a loop or switch that the critical "
                                "section continues after",
                                Unlock->getBeginLoc());
            return;
        }
        E.Number = (E.Tail || Terminated) ? NextNumber++ : 0;
        CS.Exits.push_back(E);
    }
}

} // namespace rcl
