//===- MutexPath.h - a mutex named in terms a caller can translate ---------===//
#ifndef RCL_REWRITER_MUTEXPATH_H
#define RCL_REWRITER_MUTEXPATH_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <functional>
#include <string>
#include <vector>

namespace rcl {

/// An expression reduced to what names an object across functions and files: a base, then
/// steps. Bases: `p<N>` (parameter N of the function the path is written in), `g:<name>` (a
/// file-scope variable with external linkage), `s:<unit>:<name>` (one with internal linkage,
/// or a function's static `s:<unit>:<function>:<name>`), `l:<name>:<id>` (a local variable:
/// meaningful inside its function only) and `?` (not reducible; its one step is the text, for
/// display and for pairing a lock with its unlock inside one function). Steps: `*` (through a
/// pointer), `.f` (member f), `[]` (some element: indices are not kept), `&` (address of).
/// `&pool->lock` in `run(struct pool *pool)` is `p0 * .lock &`; a call `run(&p)` turns it into
/// `l:p:7 & * .lock &`, which simplifies to `l:p:7 .lock &`.
///
/// Used for the mutexes that functions take, release and wait on (CalleeFacts, ProjectFacts):
/// a section's lock and a callee's unlock name the same mutex when their paths, translated
/// into the section's function, are equal. Paths that differ may still alias (two pointers to
/// one mutex); the checks treat an unreducible path as possibly any mutex.
struct MutexPath {
    std::vector<std::string> Steps;

    static MutexPath unknown(std::string Text) { return MutexPath{{"?", std::move(Text)}}; }
    bool known() const { return !Steps.empty() && Steps[0] != "?"; }
    bool empty() const { return Steps.empty(); }
    /// Whether the base is a local variable of the function it is written in.
    bool local() const { return !Steps.empty() && Steps[0].rfind("l:", 0) == 0; }
    /// One string, for comparisons and maps (steps joined by a separator no name contains).
    std::string key() const;
    /// As C, for messages: `pool->lock`, `&sched_mutex`; an unknown path's text.
    std::string display() const;
    bool operator==(const MutexPath &O) const { return Steps == O.Steps; }

    /// The path of the object a pointer value points to (`*` appended, simplified).
    MutexPath pointee() const;
    /// This path with parameter N replaced by Args[N] (the call's arguments, in the caller's
    /// terms) and the callee's locals made unknown: what the path names in the caller.
    MutexPath substitute(const std::vector<MutexPath> &Args) const;
};

/// Whether a variable of a function is assigned after its declaration (or its address taken)
/// anywhere in that function. With it, pathOf names a parameter that its function changes as
/// unknown (its value is no longer the caller's argument), and replaces a pointer variable
/// that is never changed by its initializer (`store_page *p = &e->pages[i];`).
using ChangedVariables = std::function<bool(const clang::VarDecl *)>;

/// The path of an expression (a pointer's value, or an object). Unit: what makes names of
/// internal linkage unique in the program (the unit's facts key, ProjectFacts::unitKey).
MutexPath pathOf(const clang::Expr *E, const clang::ASTContext &Ctx, const std::string &Unit,
                 const ChangedVariables *Changed = nullptr);

/// The path of a variable of global storage (`g:name`, `s:unit:name`, `s:unit:function:name`).
MutexPath globalPath(const clang::VarDecl *Var, const std::string &Unit);

/// The paths of a call's arguments (empty for those that are not pointers).
std::vector<MutexPath> argumentPaths(const clang::CallExpr *Call, const clang::ASTContext &Ctx,
                                     const std::string &Unit,
                                     const ChangedVariables *Changed = nullptr);

} // namespace rcl

#endif
