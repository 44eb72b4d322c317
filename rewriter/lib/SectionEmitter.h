//===- SectionEmitter.h - the outlined function and the call site -----------===//
#ifndef RCL_REWRITER_SECTIONEMITTER_H
#define RCL_REWRITER_SECTIONEMITTER_H

#include "CriticalSection.h"
#include "clang/AST/ASTContext.h"

namespace rcl {

/// The text that replaces one converted critical section.
struct EmittedSection {
    std::string Definition; ///< context struct + static function, inserted before the function
    std::string CallSite;   ///< replaces CriticalSection::Whole
    /// It uses C11's mtx_t or cnd_t: the file needs rcl/threads.h rather than rcl/rcl.h.
    bool C11 = false;
};

/// Turns an analysed critical section into text: a context struct, a `static int` function
/// holding the body (unlocks become `return <exit>;`), and a call site that fills the context,
/// calls rcl_delegate and dispatches on the exit number. With `LineDirectives`, every piece
/// of user code keeps its original line numbers through `#line`.
class SectionEmitter {
  public:
    SectionEmitter(clang::ASTContext &Ctx, const SourceText &Text, bool LineDirectives,
                   std::string FileName)
        : Ctx(Ctx), Text(Text), LineDirectives(LineDirectives), FileName(std::move(FileName)) {}

    /// The emitted text, or a refusal reason when some type cannot be written out.
    std::optional<EmittedSection> emit(const CriticalSection &CS, std::string &Why) const;

    /// The unit is part of the program's memory allocator (CalleeFacts::allocatorUnit): its
    /// call sites call rcl_delegate_allocator, which never starts the runtime.
    void setAllocatorUnit(bool Is) { AllocatorUnit = Is; }
    /// What such a unit gets after its include: a constructor that starts the runtime (rcl_start)
    /// before main, outside the allocator, with a comment saying why (Where: what makes the unit
    /// part of the allocator).
    static std::string allocatorStart(llvm::StringRef Where);

    /// A copy of some statements of a wrapper's body (WrapperSummary::Before or After), as a
    /// static function Name with the wrapper's parameters, to insert before the first function
    /// whose converted section needs it (What says when they run, for its comment); nothing
    /// with Why set when a statement is not written out in the file. Sets (the wrapper's
    /// SetOnSuccess, for its part after the operation) come first, as `V = value;`.
    std::optional<std::string>
    effectsFunction(const clang::FunctionDecl *Wrapper,
                    const std::vector<const clang::Stmt *> &Statements, llvm::StringRef Name,
                    llvm::StringRef What, std::string &Why,
                    const std::vector<std::pair<const clang::VarDecl *, int64_t>> &Sets = {}) const;

    /// The declarations of a declared wrapper pair's mutex getter (remoteMutexGetter), with the
    /// lock wrapper's parameters, and of its parameter mask (remoteMutexParameters), both with
    /// hidden visibility, each ending in `;`; nothing when a parameter's type cannot be
    /// written out.
    std::optional<std::string> getterDeclarations(const clang::FunctionDecl *LockWrapper,
                                                  llvm::StringRef UnlockWrapper,
                                                  llvm::StringRef Attributes) const;
    /// The getter's prototype alone (for its definition).
    std::optional<std::string> getterPrototype(const clang::FunctionDecl *LockWrapper,
                                               llvm::StringRef UnlockWrapper) const;
    /// The getter and the mask of an exact pair, on one line, for the file that defines the
    /// pair: `{ return Mutex; }` (Mutex written in the lock wrapper's parameters, those it does
    /// not use cast to void) and the mask of the parameters it uses.
    /// Checks: statements of the wrappers that check their parameters, run first (their text,
    /// each under a `#line` of its own line, so that `__LINE__` in a report is the wrapper's;
    /// At: where the getter is inserted, whose line the text after them gets back).
    std::optional<std::string>
    getterDefinition(const clang::FunctionDecl *LockWrapper, llvm::StringRef UnlockWrapper,
                     const clang::Expr *Mutex, const clang::Expr *Guard = nullptr,
                     const std::vector<const clang::Stmt *> &Checks = {},
                     clang::SourceLocation At = clang::SourceLocation()) const;
    /// The same for a chain pair (LockApi::pairChain): the getter returns what the inner pair's
    /// getter (declared weak) returns for the inner call's arguments, null where it is absent.
    std::optional<std::string> chainGetterDefinition(const clang::FunctionDecl *LockWrapper,
                                                     llvm::StringRef UnlockWrapper,
                                                     const clang::CallExpr *Inner,
                                                     llvm::StringRef InnerUnlock) const;

    /// The declaration of a declared timed lock wrapper's delegating copy (timedWrapperCopy),
    /// with default visibility and Attributes, ending in `;`; nothing when a type of the
    /// wrapper cannot be written out.
    std::optional<std::string> timedCopyDeclaration(const clang::FunctionDecl *TimedWrapper,
                                                    llvm::StringRef UnlockWrapper,
                                                    llvm::StringRef Attributes) const;
    /// Its definition, for the file that defines the wrapper (LockApi::timedWrapperProblem
    /// gave Ops): the wrapper's body as written, each lock call of Ops made the delegation of
    /// the section (rcl_delegate_timed_ran, rcl_delegate_trylock, rcl_delegate_lock_ran), to
    /// insert at At, right after the wrapper (with LineDirectives the body keeps its lines, and
    /// what follows At gets At's line back).
    std::optional<std::string> timedCopyDefinition(const clang::FunctionDecl *TimedWrapper,
                                                   llvm::StringRef UnlockWrapper,
                                                   const std::vector<const clang::CallExpr *> &Ops,
                                                   unsigned At) const;

    /// `#line N "file"` on its own line (empty unless LineDirectives), naming the presumed
    /// place of the text at Offset: its line, and its file as the command names it or as the
    /// file's own #line directives name it (generated code).
    std::string lineDirective(unsigned Offset) const;
    /// The same whether or not `LineDirectives` is set.
    std::string presumedLineDirective(unsigned Offset) const;
    /// The same for the text at Offset of another file (a header the wrapper is defined in),
    /// named as the preprocessor presumes it.
    std::string lineDirective(const SourceText &Other, unsigned Offset) const;

  private:
    /// A call argument for the call site: as written, or printed from the AST when a macro
    /// spells it.
    std::string argumentText(const clang::Expr *Arg) const;
    std::string reindent(llvm::StringRef Code, llvm::StringRef From, llvm::StringRef To) const;
    /// lineDirective(Offset), then spaces up to Offset's column: the text that follows it is
    /// where the original had it (with LineDirectives).
    std::string resumeAt(unsigned Offset) const;

    clang::ASTContext &Ctx;
    const SourceText &Text;
    bool LineDirectives;
    bool AllocatorUnit = false;
    std::string FileName;
};

/// `T Name` as C writes it (`int (*a)[4]`, `struct p s`; with Name empty, the type name for a
/// cast or a compound literal); nothing when the type has no name outside its function.
std::optional<std::string> declaration(clang::QualType T, llvm::StringRef Name,
                                       const clang::ASTContext &Ctx);

/// Strips the common indentation of Code's lines (after the first) and prefixes To.
std::string dedent(llvm::StringRef Code, llvm::StringRef To);

} // namespace rcl

#endif
