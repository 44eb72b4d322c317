//===- SourceText.cpp - statements as byte ranges of the file being rewritten ===//
#include "SourceText.h"

#include "clang/AST/Expr.h"
#include "clang/Lex/Lexer.h"
#include <algorithm>
#include <tuple>

using namespace clang;

namespace rcl {

std::optional<TextRange> SourceText::node(SourceRange R) const {
    CharSourceRange Chars = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
    if (Chars.isInvalid()) return std::nullopt;
    auto [BeginFile, Begin] = SM.getDecomposedLoc(Chars.getBegin());
    auto [EndFile, End] = SM.getDecomposedLoc(Chars.getEnd());
    if (BeginFile != File || EndFile != File || End < Begin) return std::nullopt;
    return TextRange{Begin, End};
}

std::optional<TextRange> SourceText::statement(const Stmt *S) const {
    std::optional<TextRange> R = node(S->getSourceRange());
    if (!R) return std::nullopt;
    // A statement that does not end in `;` or `}` (an expression, a return, a do-while, an if
    // whose last branch is an expression, a macro use such as `LOCK(m)`) owns the next `;`; so
    // does a statement whose grammar ends in `;` even when its text ends in `}`, a compound
    // literal (`return (struct p){0};`).
    char Last = R->End > R->Begin ? Code[R->End - 1] : ';';
    bool EndsInSemicolon =
        isa<Expr, ReturnStmt, BreakStmt, ContinueStmt, GotoStmt, IndirectGotoStmt, DoStmt>(S);
    if (Last != ';' && (Last != '}' || EndsInSemicolon) && !isa<NullStmt>(S))
        takeFollowingSemicolon(*R);
    return R;
}

void SourceText::takeFollowingSemicolon(TextRange &R) const {
    // Lex from the end of the range itself: relexing from its last character would start a new
    // token there, which for the closing quote of `return "two"` is another string literal.
    Lexer Raw(SM.getLocForStartOfFile(File), LO, Code.data(), Code.data() + R.End,
              Code.data() + Code.size());
    Token Next;
    Raw.LexFromRawLexer(Next);
    if (Next.is(tok::semi)) R.End = SM.getFileOffset(Next.getLocation()) + 1;
}

std::vector<SourceText::RawToken> SourceText::rawTokens(TextRange R) const {
    // The raw lexer stops at a NUL, not at its end pointer: lex a terminated copy of R, whose
    // locations are then offsets from R.Begin.
    std::string Copy = text(R).str();
    Lexer Raw(SM.getLocForStartOfFile(File), LO, Copy.c_str(), Copy.c_str(),
              Copy.c_str() + Copy.size());
    std::vector<RawToken> Out;
    Token Tok;
    for (Raw.LexFromRawLexer(Tok); Tok.isNot(tok::eof); Raw.LexFromRawLexer(Tok))
        Out.push_back({Tok.getKind(), R.Begin + SM.getFileOffset(Tok.getLocation()),
                       Tok.is(tok::raw_identifier) ? Tok.getRawIdentifier().str() : "",
                       Tok.isAtStartOfLine()});
    return Out;
}

std::vector<std::tuple<unsigned, std::string, std::string>>
SourceText::directives(TextRange R) const {
    std::vector<RawToken> Toks = rawTokens(R);
    std::vector<std::tuple<unsigned, std::string, std::string>> Out;
    for (size_t I = 0; I + 1 < Toks.size(); ++I) {
        if (Toks[I].Kind != tok::hash || !Toks[I].LineStart ||
            Toks[I + 1].Kind != tok::raw_identifier)
            continue;
        bool Argument = I + 2 < Toks.size() && Toks[I + 2].Kind == tok::raw_identifier &&
                        !Toks[I + 2].LineStart;
        Out.emplace_back(Toks[I].At, Toks[I + 1].Identifier,
                         Argument ? Toks[I + 2].Identifier : "");
    }
    return Out;
}

// The conditional directives: those that open a group, and those that go on with it.
static bool opensConditional(StringRef Directive) {
    return Directive == "if" || Directive == "ifdef" || Directive == "ifndef";
}
static bool continuesConditional(StringRef Directive) {
    return Directive == "elif" || Directive == "else" || Directive == "elifdef" ||
           Directive == "elifndef";
}

std::optional<std::pair<unsigned, std::string>> SourceText::immovableDirective(TextRange R) const {
    std::vector<std::pair<unsigned, std::string>> Open; // #if.. not yet closed inside R
    for (const auto &[At, Directive, Argument] : directives(R)) {
        if (opensConditional(Directive)) {
            Open.push_back({At, "#" + Directive});
        } else if (continuesConditional(Directive)) {
            if (Open.empty()) return std::make_pair(At, "#" + Directive);
        } else if (Directive == "endif") {
            if (Open.empty()) return std::make_pair(At, "#" + Directive);
            Open.pop_back();
        } else if (Directive == "define" || Directive == "undef" || Directive == "include") {
            return std::make_pair(At, "#" + Directive);
        }
    }
    if (!Open.empty()) return Open.front();
    return std::nullopt;
}

std::vector<std::pair<unsigned, std::string>> SourceText::macroDirectives(TextRange R) const {
    std::vector<std::pair<unsigned, std::string>> Out;
    for (const auto &[At, Directive, Argument] : directives(R))
        if ((Directive == "define" || Directive == "undef") && !Argument.empty())
            Out.push_back({At, Argument});
    return Out;
}

bool SourceText::hasConditional(TextRange R) const {
    for (const auto &[At, Directive, Argument] : directives(R))
        if (opensConditional(Directive) || continuesConditional(Directive) || Directive == "endif")
            return true;
    return false;
}

TextRange SourceText::directiveLine(unsigned At) const {
    size_t End = At;
    for (;;) {
        End = Code.find('\n', End);
        if (End == StringRef::npos) return {At, static_cast<unsigned>(Code.size())};
        StringRef Line = Code.slice(At, End).rtrim('\r');
        if (!Line.ends_with("\\")) break;
        ++End;
    }
    return {At, static_cast<unsigned>(End)};
}

std::optional<unsigned> SourceText::firstToken(TextRange R) const {
    std::vector<RawToken> Toks = rawTokens(R);
    if (Toks.empty()) return std::nullopt;
    return Toks.front().At;
}

bool SourceText::hasIdentifier(TextRange R, StringRef Name) const {
    for (const RawToken &T : rawTokens(R))
        if (T.Kind == tok::raw_identifier && T.Identifier == Name) return true;
    return false;
}

std::optional<TextRange> SourceText::keyword(unsigned From, unsigned To, StringRef Word) const {
    if (From >= To || To > Code.size()) return std::nullopt;
    Lexer Raw(SM.getLocForStartOfFile(File), LO, Code.data(), Code.data() + From, Code.data() + To);
    Token Tok;
    for (Raw.LexFromRawLexer(Tok); Tok.isNot(tok::eof); Raw.LexFromRawLexer(Tok)) {
        unsigned At = SM.getFileOffset(Tok.getLocation());
        if (At >= To) break;
        if (Tok.is(tok::raw_identifier) && Tok.getRawIdentifier() == Word) {
            unsigned End = At + Tok.getLength();
            while (End < To && (Code[End] == ' ' || Code[End] == '\t'))
                ++End;
            return TextRange{At, End};
        }
    }
    return std::nullopt;
}

std::optional<TextRange> SourceText::expansionOf(const Stmt *S) const {
    SourceLocation Begin = S->getBeginLoc(), End = S->getEndLoc();
    if (!Begin.isMacroID() || !End.isMacroID()) return std::nullopt;
    CharSourceRange BeginExp = SM.getExpansionRange(Begin), EndExp = SM.getExpansionRange(End);
    if (BeginExp.getBegin() != EndExp.getBegin() || BeginExp.getEnd() != EndExp.getEnd())
        return std::nullopt;
    std::optional<TextRange> R = node(BeginExp.getAsRange());
    if (!R) return std::nullopt;
    takeFollowingSemicolon(*R);
    return R;
}

std::optional<unsigned> SourceText::offset(SourceLocation Loc) const {
    if (Loc.isMacroID()) {
        if (!SM.isMacroArgExpansion(Loc)) return std::nullopt;
        Loc = SM.getSpellingLoc(Loc);
        if (Loc.isMacroID()) return std::nullopt;
    }
    auto [F, Offset] = SM.getDecomposedLoc(Loc);
    if (F != File) return std::nullopt;
    return Offset;
}

std::optional<unsigned> SourceText::expansionOffset(SourceLocation Loc) const {
    auto [F, Offset] = SM.getDecomposedLoc(SM.getExpansionLoc(Loc));
    if (F != File) return std::nullopt;
    return Offset;
}

unsigned SourceText::line(unsigned Offset) const {
    return SM.getLineNumber(File, Offset);
}

unsigned SourceText::column(unsigned Offset) const {
    return SM.getColumnNumber(File, Offset);
}

unsigned SourceText::lineStart(unsigned Offset) const {
    size_t NL = Code.rfind('\n', Offset);
    if (Offset != 0 && NL != StringRef::npos) return NL + 1;
    // The first line starts after a UTF-8 byte order mark: text inserted there follows it.
    return Code.starts_with("\xEF\xBB\xBF") ? 3 : 0;
}

StringRef SourceText::indentation(unsigned Offset) const {
    unsigned Start = lineStart(Offset);
    unsigned End = Start;
    while (End < Code.size() && (Code[End] == ' ' || Code[End] == '\t'))
        ++End;
    return Code.slice(Start, End);
}

std::optional<std::string> applyEdits(StringRef Code, TextRange Range,
                                      std::vector<TextEdit> Edits) {
    std::sort(Edits.begin(), Edits.end(), [](const TextEdit &A, const TextEdit &B) {
        return std::tie(A.Offset, A.Length, A.Text) < std::tie(B.Offset, B.Length, B.Text);
    });
    std::string Out;
    unsigned Pos = Range.Begin;
    const TextEdit *Last = nullptr;
    for (const TextEdit &E : Edits) {
        if (Last && E.Offset == Last->Offset && E.Length == Last->Length && E.Text == Last->Text)
            continue;
        if (E.Offset < Pos || E.Offset + E.Length > Range.End) return std::nullopt;
        Out += Code.slice(Pos, E.Offset);
        Out += E.Text;
        Pos = E.Offset + E.Length;
        Last = &E;
    }
    Out += Code.slice(Pos, Range.End);
    return Out;
}

} // namespace rcl
