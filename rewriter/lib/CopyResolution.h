//===- CopyResolution.h - make explicit what the preprocessor did -----------===//
//
// rcl-cc compiles a rewritten copy of each file that nobody reads (`--resolve-copy`). There,
// a section written inside a macro (a stats macro `do { lock; ...; unlock; } while (0)`, a
// logging macro that takes its lock, `WITH_LOCK(m, stmt)`) or cut by preprocessor conditionals
// (`#if HAS_THREADS` / lock / `#endif`) need not stay as written: the copy may say what the
// preprocessor made of it for this very compile. This file records, while a unit is
// preprocessed, the main file's conditional directives and the text they skipped, and each
// macro use's expansion (clang's syntax::TokenBuffer), and gives the edits that replace a
// macro use by its expansion and blank the conditionals of a range. Every edit keeps the
// file's line count, so `#line` and `__LINE__` still name the original lines; the compiler sees
// the same tokens as before.
//
//===----------------------------------------------------------------------===//
#ifndef RCL_REWRITER_COPYRESOLUTION_H
#define RCL_REWRITER_COPYRESOLUTION_H

#include "SourceText.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Syntax/Tokens.h"
#include <memory>
#include <optional>
#include <vector>

namespace rcl {

/// What a refused section would need from the copy to be converted (Refusal::Resolution).
enum class Resolution {
    None,
    ExpandMacros,     ///< the section, or its lock or unlock, is written inside a macro use
    DropConditionals, ///< a preprocessor conditional crosses the section's boundary
    RotateLoop,       ///< a worker loop's sections cross its back edge (LoopRotation.h)
    JoinBranches,     ///< taken in a branch of an `if`, released after it (BranchJoin.h)
    SplitWindows,     ///< released and taken again inside the section (UnlockWindow.h)
    /// an unlock at the section block's level that ends in a return, before a label a goto of
    /// the section reaches holding the lock (SectionFinder::earlyExit): written `if (1) { unlock;
    /// ...; return X; }`, an exit of the section that goes on to the label's release
    WrapEarlyExit,
    /// the lock is the statement of a statement expression written as a statement, `(void)({
    /// ...; lock(m); })` (Tor's LOCK_LOGS, STMT_BEGIN/STMT_END under GCC and Clang): its macro
    /// uses, and its unlocks', expanded without the statement expression
    /// (flattenStatementExpression)
    FlattenStatementExpressions,
};

/// The statement `(void)({ S... })` or `({ S... });` standing in a block, whose statement
/// expression's block is Block: that expression (its value discarded), or null. Only where Block
/// declares nothing and has no label, so that its statements may stand in the enclosing block
/// instead, meaning the same (`{ S... }` there would too).
const clang::Expr *discardedStatementExpression(clang::ASTContext &Ctx,
                                                const clang::CompoundStmt *Block);

/// E, the expansion of a macro use whose whole text is a discarded statement expression
/// (discardedStatementExpression), with the statement expression's brackets and its cast to
/// void taken away: `( void ) ( { A ; B ; } )` becomes `A ; B ;` (line breaks kept). False
/// when the text is not written so.
bool flattenStatementExpression(TextEdit &E);

/// The main file's preprocessing, recorded for the copy.
class PreprocessorTrace {
  public:
    /// Starts recording; must be created before the preprocessor reads the main file.
    explicit PreprocessorTrace(clang::Preprocessor &PP);
    ~PreprocessorTrace();

    /// Ends the recording (after the unit is parsed).
    void finish();

    /// The edit replacing the outermost macro use that holds Loc (written in the main file)
    /// by its expansion: the expanded tokens on the use's first line, then as many line
    /// breaks as the use spanned. Nothing when Loc is not inside a macro use of the main file,
    /// or the use holds a directive.
    std::optional<TextEdit> expansion(clang::SourceLocation Loc) const;

    /// The edits blanking every conditional directive (#if, #ifdef, #ifndef, #elif, #else,
    /// #endif) of the main file inside R and the text each skipped, line breaks kept, for the
    /// conditional groups that lie wholly inside R.
    std::vector<TextEdit> conditionalsWithin(TextRange R) const;

  private:
    class Callbacks;
    clang::Preprocessor &PP;
    Callbacks *Recorder = nullptr; ///< owned by the preprocessor
    clang::FileID Main;
    std::unique_ptr<clang::syntax::TokenCollector> Collector;
    std::optional<clang::syntax::TokenBuffer> Tokens;
    /// One #if .. #endif group of the main file: its directives' offsets, the ranges it
    /// skipped.
    struct Group {
        std::vector<unsigned> Directives;
        std::vector<TextRange> Skipped;
    };
    std::vector<Group> Groups;
    std::vector<size_t> Open; ///< the groups whose #endif is still to come
};

/// Text with edits applied, over the whole of it (the edits do not overlap); with Applied, the
/// edits applied, in order.
std::string applyResolution(llvm::StringRef Code, std::vector<TextEdit> Edits,
                            std::vector<TextEdit> *Applied = nullptr);

/// Where the text of a resolved copy came from: the original file and the edits made to it. A
/// section of the copy is reported where it is written in the original: its line (kept by the
/// copy) and, inside a macro use's expansion (written on the use's line, its tokens joined),
/// the column of the macro's name; after an expansion on the same line, its column shifted back.
struct CopyOrigin {
    std::string Original;
    std::vector<TextEdit> Edits; ///< applied, in order
    /// The original's offset for an offset of the copy.
    unsigned originalOffset(unsigned CopyOffset) const;
    /// 1-based line and column of an offset of the original.
    std::pair<unsigned, unsigned> lineColumn(unsigned Offset) const;
};

} // namespace rcl

#endif
