//===- MutexPath.cpp - a mutex named in terms a caller can translate -------===//
#include "MutexPath.h"

#include "clang/AST/ASTContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace rcl {

static const char Separator = '\x1f';

std::string MutexPath::key() const {
    std::string Out;
    for (size_t I = 0; I < Steps.size(); ++I) {
        if (I) Out += Separator;
        Out += Steps[I];
    }
    return Out;
}

std::string MutexPath::display() const {
    if (Steps.empty()) return "";
    if (!known()) return Steps.size() > 1 ? Steps[1] : "?";
    // The base's name: the last component of `g:n`, `s:unit:n`, `s:unit:f:n`; a local's name
    // sits before its id.
    std::string Base = Steps[0];
    if (Base.rfind("l:", 0) == 0) {
        Base = Base.substr(2);
        Base = Base.substr(0, Base.rfind(':'));
    } else if (size_t Colon = Base.rfind(':'); Colon != std::string::npos) {
        Base = Base.substr(Colon + 1);
    }
    std::string Out = Base;
    for (size_t I = 1; I < Steps.size(); ++I) {
        const std::string &S = Steps[I];
        if (S == "*" && I + 1 < Steps.size() && Steps[I + 1][0] == '.') {
            Out += "->" + Steps[++I].substr(1);
        } else if (S == "*") {
            Out = "(*" + Out + ")";
        } else if (S == "&") {
            Out = "&" + Out;
        } else {
            Out += S; // `.f`, `[]`
        }
    }
    if (Out.size() > 2 && Out[0] == '(' && Out.back() == ')' &&
        Out.find('(', 1) == std::string::npos)
        Out = Out.substr(1, Out.size() - 2);
    return Out;
}

/// Cancels `&` against a following `*` (`*&x` is x) and `*` against a following `&` (`&*p` is
/// p).
static MutexPath simplified(std::vector<std::string> Steps) {
    std::vector<std::string> Out;
    for (std::string &S : Steps) {
        if (!Out.empty() && Out.size() > 1 &&
            ((S == "*" && Out.back() == "&") || (S == "&" && Out.back() == "*"))) {
            Out.pop_back();
            continue;
        }
        Out.push_back(std::move(S));
    }
    return MutexPath{std::move(Out)};
}

MutexPath MutexPath::pointee() const {
    if (!known()) return *this;
    std::vector<std::string> S = Steps;
    S.push_back("*");
    return simplified(std::move(S));
}

MutexPath MutexPath::substitute(const std::vector<MutexPath> &Args) const {
    if (!known()) return *this;
    const std::string &Base = Steps[0];
    if (Base.rfind("l:", 0) == 0) return unknown(display());
    if (Base.size() < 2 || Base[0] != 'p' || !isdigit(static_cast<unsigned char>(Base[1])))
        return *this;
    size_t N = std::stoul(Base.substr(1));
    if (N >= Args.size() || Args[N].empty()) return unknown(display());
    if (!Args[N].known()) return unknown(Args[N].display());
    std::vector<std::string> S = Args[N].Steps;
    S.insert(S.end(), Steps.begin() + 1, Steps.end());
    return simplified(std::move(S));
}

static std::string printed(const Expr *E, const ASTContext &Ctx) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    return Text;
}

static MutexPath pathOf(const Expr *E, const ASTContext &Ctx, const std::string &Unit,
                        const ChangedVariables *Changed, unsigned Depth);

MutexPath pathOf(const Expr *E, const ASTContext &Ctx, const std::string &Unit,
                 const ChangedVariables *Changed) {
    return pathOf(E, Ctx, Unit, Changed, 0);
}

static MutexPath pathOf(const Expr *E, const ASTContext &Ctx, const std::string &Unit,
                        const ChangedVariables *Changed, unsigned Depth) {
    const Expr *Whole = E;
    if (Depth > 8) return MutexPath::unknown(printed(Whole, Ctx));
    auto pathOf = [&](const Expr *Sub, const ASTContext &, const std::string &) {
        return rcl::pathOf(Sub, Ctx, Unit, Changed, Depth + 1);
    };
    auto with = [&](const MutexPath &Inner, std::initializer_list<const char *> More) {
        if (!Inner.known()) return MutexPath::unknown(printed(Whole, Ctx));
        std::vector<std::string> S = Inner.Steps;
        for (const char *M : More)
            S.push_back(M);
        return simplified(std::move(S));
    };
    for (;;) {
        if (const auto *Paren = dyn_cast<ParenExpr>(E)) {
            E = Paren->getSubExpr();
        } else if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E)) {
            // An array used as a pointer is the address of an element.
            if (Cast->getCastKind() == CK_ArrayToPointerDecay)
                return with(pathOf(Cast->getSubExpr(), Ctx, Unit), {"[]", "&"});
            E = Cast->getSubExpr();
        } else if (const auto *Cast = dyn_cast<CStyleCastExpr>(E)) {
            E = Cast->getSubExpr();
        } else {
            break;
        }
    }
    if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
        if (Op->getOpcode() == UO_AddrOf) return with(pathOf(Op->getSubExpr(), Ctx, Unit), {"&"});
        if (Op->getOpcode() == UO_Deref) return with(pathOf(Op->getSubExpr(), Ctx, Unit), {"*"});
    }
    // `a[i]` and `a + i`: an element of the array a (or of the one pointer a points into).
    auto undecayed = [](const Expr *Base) {
        Base = Base->IgnoreParens();
        if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Base);
            Cast && Cast->getCastKind() == CK_ArrayToPointerDecay)
            return Cast->getSubExpr();
        return Base;
    };
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E))
        return with(pathOf(undecayed(Sub->getBase()), Ctx, Unit), {"[]"});
    if (const auto *Bin = dyn_cast<BinaryOperator>(E);
        Bin && Bin->isAdditiveOp() && Bin->getType()->isPointerType()) {
        const Expr *Pointer =
            Bin->getLHS()->getType()->isPointerType() ? Bin->getLHS() : Bin->getRHS();
        return with(pathOf(undecayed(Pointer), Ctx, Unit), {"[]", "&"});
    }
    if (const auto *Member = dyn_cast<MemberExpr>(E)) {
        MutexPath Base = pathOf(Member->getBase(), Ctx, Unit);
        if (!Base.known()) return MutexPath::unknown(printed(Whole, Ctx));
        std::vector<std::string> S = Base.Steps;
        if (Member->isArrow()) S.push_back("*");
        S.push_back("." + Member->getMemberDecl()->getNameAsString());
        return simplified(std::move(S));
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
        if (const auto *Parm = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
            if (Changed && (*Changed)(Parm)) return MutexPath::unknown(printed(Whole, Ctx));
            return MutexPath{{"p" + std::to_string(Parm->getFunctionScopeIndex())}};
        }
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl())) {
            std::string Name = Var->getNameAsString();
            if (Var->hasGlobalStorage()) return globalPath(Var, Unit);
            if (Changed && Var->getInit() && Var->getType()->isPointerType() &&
                !Var->getType().isVolatileQualified() && !(*Changed)(Var))
                return pathOf(Var->getInit(), Ctx, Unit);
            return MutexPath{
                {"l:" + Name + ":" + std::to_string(reinterpret_cast<uintptr_t>(Var))}};
        }
    }
    return MutexPath::unknown(printed(Whole, Ctx));
}

MutexPath globalPath(const VarDecl *Var, const std::string &Unit) {
    std::string Name = Var->getNameAsString();
    if (Var->isStaticLocal()) {
        const auto *Fn = dyn_cast<FunctionDecl>(Var->getDeclContext());
        return MutexPath{{"s:" + Unit + ":" + (Fn ? Fn->getNameAsString() : "") + ":" + Name}};
    }
    return MutexPath{{Var->isExternallyVisible() ? "g:" + Name : "s:" + Unit + ":" + Name}};
}

std::vector<MutexPath> argumentPaths(const CallExpr *Call, const ASTContext &Ctx,
                                     const std::string &Unit, const ChangedVariables *Changed) {
    // Only pointers can lead to a mutex: the other arguments stay empty (unknown).
    std::vector<MutexPath> Out;
    for (const Expr *Arg : Call->arguments())
        Out.push_back(Arg->getType()->isPointerType() || Arg->getType()->isArrayType()
                          ? pathOf(Arg, Ctx, Unit, Changed)
                          : MutexPath());
    return Out;
}

} // namespace rcl
