//===- LockApi.cpp - which calls lock, unlock or wait on a mutex ------------===//
#include "LockApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace rcl {

std::optional<LockOp> LockApi::classify(const CallExpr *Call) const {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier() || Call->getNumArgs() == 0) return std::nullopt;
    StringRef Name = Callee->getName();
    if (Name == "pthread_mutex_lock") return LockOp::Lock;
    if (Name == "pthread_mutex_unlock") return LockOp::Unlock;
    if (Name == "pthread_mutex_trylock") return LockOp::TryLock;
    if (Name == "pthread_mutex_timedlock" || Name == "pthread_mutex_clocklock")
        return LockOp::TimedLock;
    unsigned Args = Call->getNumArgs();
    if ((Name == "pthread_cond_wait" || Name == "rcl_cond_wait") && Args == 2)
        return LockOp::CondWait;
    if ((Name == "pthread_cond_timedwait" || Name == "rcl_cond_timedwait") && Args == 3)
        return LockOp::CondTimedWait;
    if ((Name == "pthread_cond_clockwait" || Name == "rcl_cond_clockwait") && Args == 4)
        return LockOp::CondClockWait;
    for (const WrapperPair &W : Wrappers) {
        if (Name == W.Lock) return LockOp::Lock;
        if (Name == W.Unlock) return LockOp::Unlock;
    }
    return std::nullopt;
}

namespace {

bool isMutexPointer(QualType T) {
    if (!T->isPointerType()) return false;
    QualType Pointee = T->getPointeeType();
    while (const auto *Typedef = Pointee->getAs<TypedefType>()) {
        if (Typedef->getDecl()->getName() == "pthread_mutex_t") return true;
        Pointee = Typedef->getDecl()->getUnderlyingType();
    }
    return false;
}

} // namespace

std::optional<std::string> LockApi::wrapperProblem(const CallExpr *Call) const {
    std::optional<LockOp> Op = classify(Call);
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Op || (*Op != LockOp::Lock && *Op != LockOp::Unlock)) return std::nullopt;
    StringRef Name = Callee->getName();
    if (Name == "pthread_mutex_lock" || Name == "pthread_mutex_unlock") return std::nullopt;
    std::string Kind = *Op == LockOp::Lock ? "lock" : "unlock";
    std::string What = Kind + " wrapper '" + Name.str() + "'";
    if (Callee->getNumParams() == 0 || !isMutexPointer(Callee->getParamDecl(0)->getType()))
        return What + " does not take the pthread_mutex_t * it " + Kind +
               "s as its first parameter";
    const FunctionDecl *Def = nullptr;
    if (!Callee->hasBody(Def)) return std::nullopt; // declared by the user as exactly that
    // The definition must be `{ pthread_mutex_<op>(first parameter); }` (or `return` it).
    const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
    const Stmt *Only = Body && Body->size() == 1 ? Body->body_front() : nullptr;
    if (const auto *Return = dyn_cast_or_null<ReturnStmt>(Only)) Only = Return->getRetValue();
    const CallExpr *Inner = Only ? asOperationStatement(Only) : nullptr;
    if (!Inner && Only)
        if (const auto *E = dyn_cast<Expr>(Only))
            Inner = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
    const FunctionDecl *InnerCallee = Inner ? Inner->getDirectCallee() : nullptr;
    std::string Expected = *Op == LockOp::Lock ? "pthread_mutex_lock" : "pthread_mutex_unlock";
    bool Plain = InnerCallee && InnerCallee->getIdentifier() &&
                 InnerCallee->getName() == Expected && Inner->getNumArgs() == 1;
    if (Plain) {
        const auto *Ref = dyn_cast<DeclRefExpr>(Inner->getArg(0)->IgnoreParenImpCasts());
        Plain = Ref && Ref->getDecl() == Def->getParamDecl(0);
    }
    if (!Plain)
        return What + " does more than " + Kind +
               " its first argument (its definition would have to run inside the delegated "
               "section; write the extra statements next to the call)";
    return std::nullopt;
}

const Expr *LockApi::mutexOperand(const CallExpr *Call, LockOp Op) const {
    unsigned Index = isConditionWait(Op) ? 1 : 0;
    return Call->getArg(Index)->IgnoreParenImpCasts();
}

const CallExpr *LockApi::asOperationStatement(const Stmt *S) const {
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
        // `#define LOCK(l) { pthread_mutex_lock(&(l)); }`
        if (Block->size() != 1 || !Block->getBeginLoc().isMacroID()) return nullptr;
        S = Block->body_front();
    }
    const auto *E = dyn_cast<Expr>(S);
    if (!E) return nullptr;
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E))
        if (Cast->getType()->isVoidType()) E = Cast->getSubExpr()->IgnoreParens();
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || !classify(Call)) return nullptr;
    return Call;
}

std::string lockName(const Expr *MutexOperand, const ASTContext &Ctx) {
    const Expr *E = MutexOperand->IgnoreParenImpCasts();
    if (const auto *Addr = dyn_cast<UnaryOperator>(E))
        if (Addr->getOpcode() == UO_AddrOf) E = Addr->getSubExpr()->IgnoreParens();
    std::string Name;
    llvm::raw_string_ostream OS(Name);
    E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    return Name;
}

bool sameLvalue(const Expr *A, const Expr *B, const ASTContext &Ctx) {
    A = A->IgnoreParenImpCasts();
    B = B->IgnoreParenImpCasts();
    if (A->getStmtClass() != B->getStmtClass()) return false;
    if (const auto *DA = dyn_cast<DeclRefExpr>(A))
        return DA->getDecl()->getCanonicalDecl() ==
               cast<DeclRefExpr>(B)->getDecl()->getCanonicalDecl();
    if (const auto *MA = dyn_cast<MemberExpr>(A)) {
        const auto *MB = cast<MemberExpr>(B);
        return MA->getMemberDecl() == MB->getMemberDecl() && MA->isArrow() == MB->isArrow() &&
               sameLvalue(MA->getBase(), MB->getBase(), Ctx);
    }
    if (const auto *UA = dyn_cast<UnaryOperator>(A)) {
        if (UA->getOpcode() != cast<UnaryOperator>(B)->getOpcode()) return false;
    } else if (const auto *BA = dyn_cast<BinaryOperator>(A)) {
        if (BA->getOpcode() != cast<BinaryOperator>(B)->getOpcode()) return false;
    } else if (const auto *IA = dyn_cast<IntegerLiteral>(A)) {
        return IA->getValue() == cast<IntegerLiteral>(B)->getValue();
    } else if (!isa<ArraySubscriptExpr, CallExpr, CStyleCastExpr, ConditionalOperator>(A)) {
        // Anything else: fall back to Clang's structural profile.
        llvm::FoldingSetNodeID IA, IB;
        A->Profile(IA, Ctx, /*Canonical=*/true);
        B->Profile(IB, Ctx, /*Canonical=*/true);
        return IA == IB;
    }
    auto CA = A->children(), CB = B->children();
    auto IA = CA.begin(), IB = CB.begin();
    for (; IA != CA.end() && IB != CB.end(); ++IA, ++IB) {
        const auto *EA = dyn_cast_or_null<Expr>(*IA), *EB = dyn_cast_or_null<Expr>(*IB);
        if (!EA || !EB || !sameLvalue(EA, EB, Ctx)) return false;
    }
    return IA == CA.end() && IB == CB.end();
}

} // namespace rcl
