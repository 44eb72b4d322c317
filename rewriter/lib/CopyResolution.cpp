//===- CopyResolution.cpp - make explicit what the preprocessor did ---------===//
#include "CopyResolution.h"
#include "clang/AST/ParentMapContext.h"

#include "clang/Lex/PPCallbacks.h"
#include <algorithm>
#include <map>

using namespace clang;

namespace rcl {

/// Records the main file's conditional directives (by the offset of their `#`) and the
/// ranges the preprocessor skipped.
class PreprocessorTrace::Callbacks : public PPCallbacks {
  public:
    explicit Callbacks(PreprocessorTrace &Trace) : Trace(Trace) {}

    void If(SourceLocation Loc, SourceRange, ConditionValueKind) override { open(Loc); }
    void Ifdef(SourceLocation Loc, const Token &, const MacroDefinition &) override { open(Loc); }
    void Ifndef(SourceLocation Loc, const Token &, const MacroDefinition &) override { open(Loc); }
    void Elif(SourceLocation Loc, SourceRange, ConditionValueKind, SourceLocation IfLoc) override {
        add(Loc, IfLoc);
    }
    void Elifdef(SourceLocation Loc, const Token &, const MacroDefinition &) override {
        add(Loc, SourceLocation());
    }
    void Elifdef(SourceLocation Loc, SourceRange, SourceLocation IfLoc) override {
        add(Loc, IfLoc);
    }
    void Elifndef(SourceLocation Loc, const Token &, const MacroDefinition &) override {
        add(Loc, SourceLocation());
    }
    void Elifndef(SourceLocation Loc, SourceRange, SourceLocation IfLoc) override {
        add(Loc, IfLoc);
    }
    void Else(SourceLocation Loc, SourceLocation IfLoc) override { add(Loc, IfLoc); }
    void Endif(SourceLocation Loc, SourceLocation IfLoc) override {
        add(Loc, IfLoc);
        if (inMain(Loc) && !Trace.Open.empty()) Trace.Open.pop_back();
    }
    void SourceRangeSkipped(SourceRange Range, SourceLocation) override {
        if (!inMain(Range.getBegin())) return;
        const SourceManager &SM = Trace.PP.getSourceManager();
        Skipped.push_back(
            {hash(SM.getFileOffset(Range.getBegin())), SM.getFileOffset(Range.getEnd())});
    }

    /// Each skipped range, to the group whose directive starts it.
    void assignSkipped() {
        for (const TextRange &R : Skipped) {
            auto It = GroupOf.find(R.Begin);
            if (It != GroupOf.end()) Trace.Groups[It->second].Skipped.push_back(R);
        }
    }

  private:
    bool inMain(SourceLocation Loc) const {
        return Loc.isFileID() && Trace.PP.getSourceManager().getFileID(Loc) == Trace.Main;
    }
    /// The offset of the `#` that starts the directive whose name is at Loc.
    unsigned hash(unsigned Offset) const {
        llvm::StringRef Code = Trace.PP.getSourceManager().getBufferData(Trace.Main);
        unsigned At = std::min<unsigned>(Offset, Code.size());
        while (At > 0 && Code[At] != '#' && Code[At - 1] != '\n')
            --At;
        return At;
    }
    void open(SourceLocation Loc) {
        if (!inMain(Loc)) return;
        unsigned At = hash(Trace.PP.getSourceManager().getFileOffset(Loc));
        Trace.Groups.push_back({{At}, {}});
        Trace.Open.push_back(Trace.Groups.size() - 1);
        GroupOf[At] = Trace.Groups.size() - 1;
    }
    void add(SourceLocation Loc, SourceLocation IfLoc) {
        if (!inMain(Loc) || Trace.Open.empty()) return;
        const SourceManager &SM = Trace.PP.getSourceManager();
        size_t Group = Trace.Open.back();
        if (IfLoc.isValid() && inMain(IfLoc)) {
            auto It = GroupOf.find(hash(SM.getFileOffset(IfLoc)));
            if (It != GroupOf.end()) Group = It->second;
        }
        unsigned At = hash(SM.getFileOffset(Loc));
        Trace.Groups[Group].Directives.push_back(At);
        GroupOf[At] = Group;
    }

    PreprocessorTrace &Trace;
    std::map<unsigned, size_t> GroupOf; ///< directive offset -> group
    std::vector<TextRange> Skipped;
};

PreprocessorTrace::PreprocessorTrace(Preprocessor &PP)
    : PP(PP), Main(PP.getSourceManager().getMainFileID()),
      Collector(std::make_unique<syntax::TokenCollector>(PP)) {
    auto CB = std::make_unique<Callbacks>(*this);
    Recorder = CB.get();
    PP.addPPCallbacks(std::move(CB));
}

PreprocessorTrace::~PreprocessorTrace() = default;

void PreprocessorTrace::finish() {
    if (Collector) {
        Tokens.emplace(std::move(*Collector).consume());
        Collector.reset();
    }
    if (Recorder) Recorder->assignSkipped();
    Recorder = nullptr; // owned by the preprocessor
}

std::optional<TextEdit> PreprocessorTrace::expansion(SourceLocation Loc) const {
    if (!Tokens || !Loc.isMacroID()) return std::nullopt;
    const SourceManager &SM = PP.getSourceManager();
    SourceLocation Use = SM.getExpansionLoc(Loc);
    if (SM.getFileID(Use) != Main) return std::nullopt;
    const syntax::Token *Name = Tokens->spelledTokenContaining(Use);
    if (!Name) return std::nullopt;
    std::optional<syntax::TokenBuffer::Expansion> E = Tokens->expansionStartingAt(Name);
    if (!E || E->Spelled.empty()) return std::nullopt;
    unsigned Begin = SM.getFileOffset(E->Spelled.front().location());
    unsigned End = SM.getFileOffset(E->Spelled.back().endLocation());
    llvm::StringRef Code = SM.getBufferData(Main);
    if (End <= Begin || End > Code.size()) return std::nullopt;
    llvm::StringRef Written = Code.slice(Begin, End);
    // A directive inside a macro's arguments: what it did cannot be written on one line.
    for (size_t At = Written.find('\n'); At != llvm::StringRef::npos;
         At = Written.find('\n', At + 1))
        if (Written.drop_front(At + 1).ltrim(" \t").starts_with("#")) return std::nullopt;
    std::string Text;
    for (const syntax::Token &T : E->Expanded) {
        if (!Text.empty()) Text += ' ';
        // A token at the start of a continued line of the macro's definition is spelled from
        // the backslash before it (the lexer's "dirty" token): its text without the escaped
        // newlines, which would add lines to the copy and shift every line after it.
        llvm::StringRef Spelled = T.text(SM);
        for (size_t At = 0; At < Spelled.size(); ++At) {
            if (Spelled[At] == '\\') {
                size_t Next = At + 1;
                while (Next < Spelled.size() && (Spelled[Next] == ' ' || Spelled[Next] == '\t'))
                    ++Next;
                if (Next < Spelled.size() && Spelled[Next] == '\r') ++Next;
                if (Next < Spelled.size() && Spelled[Next] == '\n') {
                    At = Next;
                    continue;
                }
            }
            Text += Spelled[At];
        }
    }
    Text.append(Written.count('\n'), '\n');
    return TextEdit{Begin, End - Begin, Text};
}

std::vector<TextEdit> PreprocessorTrace::conditionalsWithin(TextRange R) const {
    llvm::StringRef Code = PP.getSourceManager().getBufferData(Main);
    // Each directive's whole line (with its backslash continuations) and each skipped range.
    std::vector<TextRange> Blank;
    for (const Group &G : Groups) {
        bool Inside = !G.Directives.empty() &&
                      llvm::all_of(G.Directives, [&](unsigned At) { return R.contains(At); });
        if (!Inside) continue;
        for (unsigned At : G.Directives) {
            unsigned End = At;
            while (End < Code.size() && Code[End] != '\n')
                End +=
                    (Code[End] == '\\' && End + 1 < Code.size() && Code[End + 1] == '\n') ? 2 : 1;
            Blank.push_back({At, End});
        }
        for (const TextRange &S : G.Skipped)
            Blank.push_back({S.Begin, std::min<unsigned>(S.End, Code.size())});
    }
    std::sort(Blank.begin(), Blank.end(),
              [](const TextRange &A, const TextRange &B) { return A.Begin < B.Begin; });
    std::vector<TextRange> Merged;
    for (const TextRange &B : Blank) {
        if (!Merged.empty() && B.Begin <= Merged.back().End)
            Merged.back().End = std::max(Merged.back().End, B.End);
        else
            Merged.push_back(B);
    }
    std::vector<TextEdit> Out;
    for (const TextRange &M : Merged)
        Out.push_back(
            {M.Begin, M.End - M.Begin, std::string(Code.slice(M.Begin, M.End).count('\n'), '\n')});
    return Out;
}

std::string applyResolution(llvm::StringRef Code, std::vector<TextEdit> Edits,
                            std::vector<TextEdit> *Applied) {
    std::sort(Edits.begin(), Edits.end(),
              [](const TextEdit &A, const TextEdit &B) { return A.Offset < B.Offset; });
    std::string Out;
    unsigned At = 0;
    for (const TextEdit &E : Edits) {
        if (E.Offset < At) continue; // overlaps an earlier one: the earlier stands
        Out += Code.slice(At, E.Offset).str();
        Out += E.Text;
        At = E.Offset + E.Length;
        if (Applied) Applied->push_back(E);
    }
    Out += Code.substr(At).str();
    return Out;
}

unsigned CopyOrigin::originalOffset(unsigned CopyOffset) const {
    long Delta = 0; // copy offset - original offset, after the edits so far
    for (const TextEdit &E : Edits) {
        unsigned CopyBegin = static_cast<unsigned>(E.Offset + Delta);
        if (CopyOffset < CopyBegin) break;
        if (CopyOffset < CopyBegin + E.Text.size()) return E.Offset; // inside the new text
        Delta += static_cast<long>(E.Text.size()) - static_cast<long>(E.Length);
    }
    return static_cast<unsigned>(CopyOffset - Delta);
}

std::pair<unsigned, unsigned> CopyOrigin::lineColumn(unsigned Offset) const {
    Offset = std::min<unsigned>(Offset, Original.size());
    unsigned Line = 1, Start = 0;
    for (unsigned I = 0; I < Offset; ++I)
        if (Original[I] == '\n') {
            ++Line;
            Start = I + 1;
        }
    return {Line, Offset - Start + 1};
}

const Expr *discardedStatementExpression(ASTContext &Ctx, const CompoundStmt *Block) {
    if (!Block) return nullptr;
    for (const Stmt *S : Block->body())
        if (isa<DeclStmt, LabelStmt>(S)) return nullptr;
    auto parentOf = [&](const DynTypedNode &N) -> std::optional<DynTypedNode> {
        DynTypedNodeList Parents = Ctx.getParents(N);
        if (Parents.size() != 1) return std::nullopt;
        return Parents[0];
    };
    std::optional<DynTypedNode> P = parentOf(DynTypedNode::create(*Block));
    const Expr *Top = P ? P->get<StmtExpr>() : nullptr;
    if (!Top) return nullptr;
    for (;;) {
        std::optional<DynTypedNode> Up = parentOf(DynTypedNode::create(*Top));
        if (!Up) return nullptr;
        if (Up->get<CompoundStmt>()) return Top; // a statement of a block
        const auto *Paren = Up->get<ParenExpr>();
        const auto *Cast = Up->get<CStyleCastExpr>();
        if (Cast && !Cast->getType()->isVoidType()) return nullptr;
        if (!Paren && !Cast) return nullptr;
        Top = Paren ? static_cast<const Expr *>(Paren) : Cast;
    }
}

bool flattenStatementExpression(TextEdit &E) {
    llvm::StringRef Text = E.Text;
    size_t Breaks = Text.size() - Text.rtrim('\n').size();
    Text = Text.rtrim('\n');
    // The tokens, one space apart (PreprocessorTrace::expansion).
    if (Text.consume_front("( void ) ")) Text = Text.ltrim();
    if (!Text.consume_front("( {") || !Text.consume_back("} )")) return false;
    E.Text = Text.trim().str() + std::string(Breaks, '\n');
    return true;
}

} // namespace rcl
