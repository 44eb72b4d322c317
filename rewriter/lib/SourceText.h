//===- SourceText.h - statements as byte ranges of the file being rewritten -===//
#ifndef RCL_REWRITER_SOURCETEXT_H
#define RCL_REWRITER_SOURCETEXT_H

#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/TokenKinds.h"
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace rcl {

/// A half-open byte range [Begin, End) of one file.
struct TextRange {
    unsigned Begin = 0;
    unsigned End = 0;
    bool contains(unsigned Offset) const { return Offset >= Begin && Offset < End; }
    bool contains(TextRange R) const { return R.Begin >= Begin && R.End <= End; }
};

/// One replacement of a byte range inside a piece of text being assembled.
struct TextEdit {
    unsigned Offset;
    unsigned Length;
    std::string Text;
};

/// The line breaks in Text: what an edit that moves Text away leaves in its place, so that the
/// lines after it keep their numbers.
inline unsigned newlines(llvm::StringRef Text) {
    return static_cast<unsigned>(Text.count('\n'));
}

/// Maps statements of one file (the main file of a translation unit) to byte ranges. A
/// statement spelled partly inside a macro body has no range: it cannot be edited.
class SourceText {
  public:
    SourceText(const clang::SourceManager &SM, const clang::LangOptions &LO, clang::FileID File)
        : SM(SM), LO(LO), File(File), Code(SM.getBufferData(File)) {}

    /// The statement's range, including the `;` that ends an expression, return, break,
    /// continue, goto or do statement (and the `;` that follows a macro such as `LOCK(m);`).
    std::optional<TextRange> statement(const clang::Stmt *S) const;
    /// For a statement that begins and ends inside one macro expansion (`STAT_L(e);` with
    /// `#define STAT_L(e) pthread_mutex_lock(&e->stats_mutex);`): the expansion's range in the
    /// file, with the `;` that follows it. The caller must make sure the expansion holds no
    /// other statement.
    std::optional<TextRange> expansionOf(const clang::Stmt *S) const;
    /// The range of an expression or other node as written (macro invocations whole).
    std::optional<TextRange> node(clang::SourceRange R) const;
    /// The file offset of a location: for a macro argument, where it is spelled; nothing when
    /// it lies in a macro body or in another file.
    std::optional<unsigned> offset(clang::SourceLocation Loc) const;
    /// Offset of an expansion location (macro invocations count as their invocation).
    std::optional<unsigned> expansionOffset(clang::SourceLocation Loc) const;

    /// The first preprocessor directive in R that cannot move with R's text: a conditional
    /// (#if, #ifdef, #ifndef, #elif, #else, #endif) that does not pair up inside R, or a
    /// #define, #undef or #include (moving it would change which code it applies to). Its
    /// offset and name.
    std::optional<std::pair<unsigned, std::string>> immovableDirective(TextRange R) const;
    /// The `#define NAME` and `#undef NAME` directives of R: (offset of the `#`, NAME).
    std::vector<std::pair<unsigned, std::string>> macroDirectives(TextRange R) const;
    /// Whether R holds a conditional directive (#if, #ifdef, #ifndef, #elif, #else, #endif).
    bool hasConditional(TextRange R) const;
    /// The directive whose `#` is at At, to the end of its line and of the lines its
    /// backslashes continue it on (the line break not included).
    TextRange directiveLine(unsigned At) const;
    /// The offset of R's first token (comments and blanks skipped); nothing when R has none.
    std::optional<unsigned> firstToken(TextRange R) const;
    /// Whether R's text has the identifier Name as a token (comments and strings excluded).
    bool hasIdentifier(TextRange R, llvm::StringRef Name) const;

    /// The first token spelled Word between two offsets of the file (`register` in front of a
    /// variable's name), with the blanks after it; nothing when there is none.
    std::optional<TextRange> keyword(unsigned From, unsigned To, llvm::StringRef Word) const;

    llvm::StringRef code() const { return Code; }
    llvm::StringRef text(TextRange R) const { return Code.slice(R.Begin, R.End); }
    /// 1-based line of an offset.
    unsigned line(unsigned Offset) const;
    /// 1-based column of an offset.
    unsigned column(unsigned Offset) const;
    /// The whitespace that starts the line containing Offset.
    llvm::StringRef indentation(unsigned Offset) const;
    /// Offset of the first character of the line containing Offset (of the first line: after
    /// a UTF-8 byte order mark).
    unsigned lineStart(unsigned Offset) const;
    clang::FileID file() const { return File; }
    const clang::SourceManager &sourceManager() const { return SM; }
    const clang::LangOptions &langOptions() const { return LO; }

  private:
    /// Extends R over the `;` that follows it, when that `;` is in this file.
    void takeFollowingSemicolon(TextRange &R) const;
    /// R's tokens from the raw lexer (no preprocessing; comments skipped).
    struct RawToken {
        clang::tok::TokenKind Kind;
        unsigned At;            ///< offset in the file
        std::string Identifier; ///< for a raw identifier
        bool LineStart;
    };
    std::vector<RawToken> rawTokens(TextRange R) const;
    /// R's directives: (offset of the `#`, its name, the identifier after it or "").
    std::vector<std::tuple<unsigned, std::string, std::string>> directives(TextRange R) const;

    const clang::SourceManager &SM;
    const clang::LangOptions &LO;
    clang::FileID File;
    llvm::StringRef Code;
};

/// The text of Range with Edits (offsets in the file, each inside Range) applied.
/// Edits at the same offset with the same text count once; other overlaps are an error.
std::optional<std::string> applyEdits(llvm::StringRef Code, TextRange Range,
                                      std::vector<TextEdit> Edits);

} // namespace rcl

#endif
