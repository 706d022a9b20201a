//===- PythonEdits.cpp - The edits of a Python site -----------------------===//

#include "PythonEdits.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace apistamp {
namespace python {

/// The site's own name: the function's, or the class's for a constructor.
static std::string ownName(const Site &S) {
  SmallVector<StringRef, 8> Parts;
  StringRef(S.QualifiedName).split(Parts, '.');
  if (S.Kind == DeclKind::Constructor && Parts.size() >= 2 &&
      Parts.back() == "__init__")
    return Parts[Parts.size() - 2].str();
  return Parts.back().str();
}

std::string callArgument(const Site &S, const Rule &R) {
  std::string Template = R.Call.Argument;
  if (Template.empty())
    Template = S.Kind == DeclKind::Function ? "{name}" : "self";
  if (Template == "{name}")
    return ownName(S);
  if (Template == "{event}")
    return "\"" + S.Event + "\"";
  return Template;
}

static bool afterSuperInit(const Site &S, const Rule &R) {
  return R.Call.AfterSuperInit.value_or(S.Kind == DeclKind::Constructor);
}

/// The call's lines at \p Indent, each ending in the file's line break.
static std::string callLines(const Site &S, const Rule &R) {
  const PythonBody &B = *S.Python;
  std::string Call = R.Call.Callee + "(" + callArgument(S, R) + ")";
  if (R.Call.Guard.empty())
    return B.Indent + Call + B.Newline;
  return B.Indent + "if " + R.Call.Guard + ":" + B.Newline + B.Indent +
         B.IndentUnit + Call + B.Newline;
}

std::string importStatement(const Site &S, const Rule &R) {
  const PythonBody &B = *S.Python;
  std::string Module = R.Call.ImportModule;
  if (R.Call.RelativeImport) {
    SmallVector<StringRef, 8> Package, Target;
    StringRef(B.Module).split(Package, '.');
    if (!B.IsPackage)
      Package.pop_back();
    StringRef(R.Call.ImportModule).split(Target, '.');
    if (!Package.empty() && Package.front() == Target.front()) {
      size_t Common = 0;
      while (Common < Package.size() && Common < Target.size() &&
             Package[Common] == Target[Common])
        ++Common;
      Module = std::string(Package.size() - Common + 1, '.') +
               join(Target.begin() + Common, Target.end(), ".");
    }
  }
  return "from " + Module + " import " + R.Call.ImportName;
}

std::optional<TextEdit> importEdit(const Site &S, const Rule &R) {
  const PythonBody &B = *S.Python;
  if (R.Call.ImportName.empty() ||
      is_contained(B.TopLevelNames, R.Call.ImportName))
    return std::nullopt;
  for (const PythonFromImport &From : B.FromImports)
    if (From.Module == R.Call.ImportModule)
      return TextEdit{S.File, From.LastNameEnd, 0, ", " + R.Call.ImportName};
  return TextEdit{S.File, B.ImportOffset, 0,
                  (B.ImportNeedsNewline ? B.Newline : "") +
                      importStatement(S, R) + B.Newline};
}

std::vector<TextEdit> insertion(const Site &S, StringRef Code, const Rule &R) {
  const PythonBody &B = *S.Python;
  std::vector<TextEdit> Edits;
  if (B.IsInline) {
    // `def f(): return x`: a block of the call and the statement.
    unsigned Begin = B.Inline;
    while (Begin > 0 && (Code[Begin - 1] == ' ' || Code[Begin - 1] == '\t'))
      --Begin;
    Edits.push_back(TextEdit{S.File, Begin, B.Inline - Begin,
                             B.Newline + callLines(S, R) + B.Indent});
  } else {
    unsigned Offset =
        afterSuperInit(S, R) ? B.InsertAfterSuper : B.InsertAfterDocstring;
    std::string Lines = callLines(S, R);
    // At the end of a file without a final line break, one comes first.
    if (Offset == Code.size() && !Code.empty() && Code.back() != '\n' &&
        Code.back() != '\r')
      Lines = B.Newline + Lines;
    Edits.push_back(TextEdit{S.File, Offset, 0, std::move(Lines)});
  }
  if (std::optional<TextEdit> Import = importEdit(S, R))
    Edits.push_back(std::move(*Import));
  return Edits;
}

bool isFirstStatement(const Site &S, const MacroUse &Call) {
  const PythonBody &B = *S.Python;
  return Call.Offset == B.FirstAfterDocstring ||
         Call.Offset == B.FirstAfterSuper;
}

std::optional<TextEdit> callRemoval(const Site &S, size_t Index,
                                    std::string *WhyNot) {
  const PythonBody &B = *S.Python;
  unsigned Begin = S.Calls[Index].StatementBegin;
  unsigned End = S.Calls[Index].StatementEnd;
  if (Begin == End) {
    if (WhyNot)
      *WhyNot = S.Calls[Index].Guarded
                    ? "the 'if' around it is no guard of the rules, or is "
                      "not alone on its lines"
                    : "the call is not a statement of its own lines";
    return std::nullopt;
  }
  // The body's only statement: `pass` keeps it a block.
  std::string Instead =
      B.Statements == 1 && !B.HasDocstring ? B.Indent + "pass" + B.Newline : "";
  return TextEdit{S.File, Begin, End - Begin, Instead};
}

std::vector<TextEdit> mergeInsertions(std::vector<TextEdit> Edits) {
  llvm::sort(Edits);
  Edits.erase(std::unique(Edits.begin(), Edits.end()), Edits.end());
  std::vector<TextEdit> Merged;
  for (TextEdit &E : Edits) {
    if (!Merged.empty() && E.Kind == TextEdit::Replace && E.Length == 0 &&
        Merged.back().Kind == TextEdit::Replace && Merged.back().Length == 0 &&
        Merged.back().Offset == E.Offset) {
      Merged.back().Text += E.Text;
      continue;
    }
    Merged.push_back(std::move(E));
  }
  return Merged;
}

} // namespace python
} // namespace apistamp
