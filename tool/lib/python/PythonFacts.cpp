//===- PythonFacts.cpp - What one Python module's syntax says -------------===//

#include "PythonFacts.h"
#include "PythonSyntax.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <set>

using namespace llvm;

namespace apistamp {
namespace python {

std::string absoluteModule(StringRef Written, StringRef Module,
                           bool IsPackage) {
  size_t Dots = Written.find_first_not_of('.');
  if (Dots == StringRef::npos)
    Dots = Written.size();
  StringRef Rest = Written.drop_front(Dots);
  if (Dots == 0)
    return Rest.str();
  SmallVector<StringRef, 8> Parts;
  Module.split(Parts, '.');
  if (!IsPackage)
    Parts.pop_back(); // The module's package.
  for (size_t Up = 1; Up < Dots; ++Up) {
    if (Parts.empty())
      return "";
    Parts.pop_back();
  }
  if (Parts.empty())
    return "";
  std::string Result = join(Parts, ".");
  if (!Rest.empty())
    Result += "." + Rest.str();
  return Result;
}

std::string conditionText(StringRef Condition) {
  std::string Text;
  bool Blank = false;
  for (char C : Condition.trim()) {
    if (isSpace(C)) {
      Blank = true;
      continue;
    }
    if (Blank)
      Text += ' ';
    Blank = false;
    Text += C;
  }
  return Text;
}

namespace {

/// The named children of \p Node that are not comments.
std::vector<TSNode> statements(TSNode Node) {
  std::vector<TSNode> Result;
  for (uint32_t I = 0, N = ts_node_named_child_count(Node); I < N; ++I) {
    TSNode Child = ts_node_named_child(Node, I);
    if (type(Child) != "comment")
      Result.push_back(Child);
  }
  return Result;
}

/// The definition a decorated_definition decorates, or \p Node itself.
TSNode undecorated(TSNode Node) {
  if (type(Node) == "decorated_definition")
    return field(Node, "definition");
  return Node;
}

bool isDocstring(TSNode Statement) {
  if (type(Statement) != "expression_statement" ||
      ts_node_named_child_count(Statement) != 1)
    return false;
  TSNode Value = ts_node_named_child(Statement, 0);
  if (type(Value) == "concatenated_string")
    return true;
  if (type(Value) != "string")
    return false;
  for (uint32_t I = 0, N = ts_node_named_child_count(Value); I < N; ++I)
    if (type(ts_node_named_child(Value, I)) == "interpolation")
      return false; // An f-string is not a docstring.
  return true;
}

/// Reads one module.
class ModuleReader {
public:
  ModuleReader(const SyntaxTree &Tree, ModuleFacts &Out, StringRef RelativePath,
               const CallNames &Calls)
      : Tree(Tree), Code(Tree.code()), Out(Out), RelativePath(RelativePath),
        Calls(Calls) {
    // The file's line break: its first one.
    size_t Break = Code.find_first_of("\r\n");
    if (Break != StringRef::npos && Code[Break] == '\r')
      Newline = Code.substr(Break).starts_with("\r\n") ? "\r\n" : "\r";
    // A module in a private package or of a private name ("ops._utils"):
    // nothing in it is public.
    SmallVector<StringRef, 8> Parts;
    StringRef(Out.Module).split(Parts, '.');
    PrivateModule = any_of(Parts, [](StringRef Part) {
      return Part.starts_with("_") &&
             !(Part.starts_with("__") && Part.ends_with("__"));
    });
  }

  void read() {
    TSNode Root = Tree.root();
    std::vector<TSNode> Top = statements(Root);
    // Directive comments are rare: the tree is walked for them only when
    // the bytes name one.
    if (any_of(AllDirectives, [&](Directive D) {
          return Code.contains(directiveSpelling(D));
        }))
      readComments(Root);
    for (TSNode S : Top)
      readBindings(S, /*TopLevel=*/true);
    placeImports(Top);
    for (TSNode S : Top)
      readDefinition(S, {});
  }

private:
  StringRef text(TSNode N) const { return Tree.text(N); }
  unsigned begin(TSNode N) const { return ts_node_start_byte(N); }
  unsigned end(TSNode N) const { return ts_node_end_byte(N); }
  unsigned row(TSNode N) const { return ts_node_start_point(N).row + 1; }
  /// 1-based line and byte column of \p N's start (tree-sitter counts
  /// them as it parses; a line break is '\n', as in Python).
  std::pair<unsigned, unsigned> pointOf(TSNode N) const {
    TSPoint P = ts_node_start_point(N);
    return {P.row + 1, P.column + 1};
  }
  unsigned endRow(TSNode N) const { return ts_node_end_point(N).row + 1; }

  /// The start of the line holding \p Offset.
  unsigned lineStart(unsigned Offset) const {
    // find_last_of looks below its From: the byte before Offset is seen.
    size_t Break = Code.find_last_of("\r\n", Offset);
    return Break == StringRef::npos ? 0 : unsigned(Break + 1);
  }
  /// The start of the line after the one holding \p Offset, or the end.
  unsigned nextLineStart(unsigned Offset) const {
    size_t Break = Code.find('\n', Offset);
    if (Break == StringRef::npos) {
      size_t CR = Code.find('\r', Offset);
      return CR == StringRef::npos ? unsigned(Code.size()) : unsigned(CR + 1);
    }
    return unsigned(Break + 1);
  }
  /// Whether only blanks and a comment follow \p Offset on its line.
  bool restOfLineIsEmpty(unsigned Offset) const {
    StringRef Rest = Code.substr(Offset);
    Rest = Rest.substr(0, Rest.find_first_of("\r\n")).ltrim(" \t\f");
    return Rest.empty() || Rest.starts_with("#");
  }
  /// The blanks before \p Offset on its line, if only blanks are there.
  std::optional<std::string> indentOf(unsigned Offset) const {
    StringRef Before = Code.slice(lineStart(Offset), Offset);
    if (Before.find_first_not_of(" \t\f") != StringRef::npos)
      return std::nullopt;
    return Before.str();
  }

  /// The dotted text of \p Node if it is a name or an attribute chain.
  std::optional<std::string> dotted(TSNode Node) const {
    // Down the chain of attributes (iteratively: a chain can be 100,000
    // long), then the names joined once.
    std::vector<StringRef> Parts;
    while (type(Node) == "attribute") {
      Parts.push_back(text(field(Node, "attribute")));
      Node = field(Node, "object");
    }
    if (type(Node) != "identifier" || Parts.size() > MaxDottedParts)
      return std::nullopt;
    Parts.push_back(text(Node));
    std::reverse(Parts.begin(), Parts.end());
    return join(Parts, ".");
  }
  /// Longer dotted names are no module path a base or decorator could
  /// resolve through: left unresolved.
  static constexpr size_t MaxDottedParts = 64;

  /// \p Name ("nn.Module") with its first part resolved through the
  /// module's imports and its own top-level definitions.
  std::string resolve(StringRef Name) const {
    auto [Head, Tail] = Name.split('.');
    std::string Resolved;
    auto Import = Out.Imports.find(Head.str());
    if (Import != Out.Imports.end())
      Resolved = Import->second;
    else if ((TopLevel.count(Head.str()) || !Out.StarImports.empty()) &&
             !Out.Module.empty())
      // Defined here, or maybe brought by `from M import *`: the project
      // follows the module's star imports (Project::allBases).
      Resolved = Out.Module + "." + Head.str();
    else
      Resolved = Head.str();
    if (!Tail.empty())
      Resolved += "." + Tail.str();
    return Resolved;
  }

  void readComments(TSNode Root) {
    walk(Root, [&](TSNode Node) {
      if (type(Node) != "comment")
        return Walk::Descend;
      readDirective(Node);
      return Walk::Skip;
    });
  }

  void readDirective(TSNode Comment) {
    std::optional<DirectiveText> Found =
        directiveIn(text(Comment).drop_front(1)); // '#'
    if (!Found)
      return;
    std::string &Argument = Found->Argument;
    auto [Line, Column] = pointOf(Comment);
    if (Found->Kind == Directive::Ignore) {
      Suppression S;
      S.File = Out.File;
      S.Offset = begin(Comment);
      S.Line = Line;
      S.Column = Column;
      S.Reason = Argument;
      SuppressionAtLine[Line] = Out.Facts.Suppressions.size();
      Out.Facts.Suppressions.push_back(std::move(S));
      return;
    }
    Expectation E;
    E.Kind = expectationOf(Found->Kind);
    E.File = Out.File;
    E.Line = Line;
    E.Column = Column;
    E.Value = Argument;
    ExpectationAtLine[Line] = Out.Facts.Expectations.size();
    Out.Facts.Expectations.push_back(std::move(E));
  }

  /// The directive comment of \p Index on \p Line or the line before.
  static std::optional<size_t>
  commentAtStart(const std::map<unsigned, size_t> &Index, unsigned Line) {
    for (unsigned L : {Line, Line - 1})
      if (auto It = Index.find(L); It != Index.end())
        return It->second;
    return std::nullopt;
  }

  /// Records the names \p S binds (imports, `__all__`, definitions,
  /// assignments); at top level also `from` imports that can take a name.
  void readBindings(TSNode S, bool AtTopLevel) {
    StringRef Type = type(S);
    if (Type == "import_statement") {
      for (uint32_t I = 0, N = ts_node_named_child_count(S); I < N; ++I) {
        TSNode Name = ts_node_named_child(S, I);
        if (type(Name) == "aliased_import") {
          Out.Imports[text(field(Name, "alias")).str()] =
              text(field(Name, "name")).str();
        } else {
          StringRef Dotted = text(Name);
          std::string Head = Dotted.split('.').first.str();
          Out.Imports[Head] = Head;
        }
      }
    } else if (Type == "import_from_statement") {
      readFromImport(S, AtTopLevel);
    } else if (Type == "expression_statement") {
      readAssignment(S, AtTopLevel);
    } else if (Type == "decorated_definition" ||
               Type == "function_definition" || Type == "class_definition") {
      if (AtTopLevel)
        TopLevel.insert(text(field(undecorated(S), "name")).str());
    } else if (Type == "if_statement" || Type == "try_statement" ||
               Type == "with_statement") {
      // Imports under `try:` or `if TYPE_CHECKING:` bind names too.
      TSTreeCursor Cursor = ts_tree_cursor_new(S);
      if (ts_tree_cursor_goto_first_child(&Cursor)) {
        do {
          TSNode Child = ts_tree_cursor_current_node(&Cursor);
          StringRef ChildType = type(Child);
          if (ChildType == "block") {
            for (TSNode Inner : statements(Child))
              readBindings(Inner, false);
          } else if (ChildType == "except_clause" ||
                     ChildType == "else_clause" || ChildType == "elif_clause" ||
                     ChildType == "finally_clause") {
            for (uint32_t I = 0, N = ts_node_named_child_count(Child); I < N;
                 ++I) {
              TSNode Block = ts_node_named_child(Child, I);
              if (type(Block) == "block")
                for (TSNode Inner : statements(Block))
                  readBindings(Inner, false);
            }
          }
        } while (ts_tree_cursor_goto_next_sibling(&Cursor));
      }
      ts_tree_cursor_delete(&Cursor);
    }
  }

  void readFromImport(TSNode S, bool AtTopLevel) {
    TSNode ModuleName = field(S, "module_name");
    std::string Module =
        absoluteModule(text(ModuleName), Out.Module, Out.IsPackage);
    std::optional<TSNode> LastName;
    bool Wildcard = false;
    for (uint32_t I = 0, N = ts_node_named_child_count(S); I < N; ++I) {
      TSNode Child = ts_node_named_child(S, I);
      if (ts_node_eq(Child, ModuleName))
        continue;
      StringRef Type = type(Child);
      if (Type == "wildcard_import") {
        Wildcard = true;
      } else if (Type == "aliased_import") {
        Out.Imports[text(field(Child, "alias")).str()] =
            Module + "." + text(field(Child, "name")).str();
        LastName = Child;
      } else if (Type == "dotted_name") {
        Out.Imports[text(Child).str()] = Module + "." + text(Child).str();
        LastName = Child;
      }
    }
    if (Wildcard && !Module.empty())
      Out.StarImports.push_back(Module);
    if (AtTopLevel && LastName && !Module.empty())
      FromImports.push_back({Module, end(*LastName)});
  }

  void readAssignment(TSNode S, bool AtTopLevel) {
    if (ts_node_named_child_count(S) != 1)
      return;
    TSNode A = ts_node_named_child(S, 0);
    StringRef Type = type(A);
    if (Type != "assignment" && Type != "augmented_assignment")
      return;
    TSNode Left = field(A, "left");
    if (type(Left) != "identifier")
      return;
    if (AtTopLevel)
      TopLevel.insert(text(Left).str());
    if (text(Left) != "__all__" || !AtTopLevel)
      return;
    TSNode Right = field(A, "right");
    if (ts_node_is_null(Right) ||
        (type(Right) != "list" && type(Right) != "tuple"))
      return;
    if (Type == "assignment")
      All.emplace();
    else if (!All)
      return; // `__all__ += ...` with no `__all__ = [...]` before.
    for (uint32_t I = 0, N = ts_node_named_child_count(Right); I < N; ++I) {
      TSNode Item = ts_node_named_child(Right, I);
      if (type(Item) != "string")
        continue;
      for (uint32_t J = 0, M = ts_node_named_child_count(Item); J < M; ++J) {
        TSNode Part = ts_node_named_child(Item, J);
        if (type(Part) == "string_content")
          All->insert(text(Part).str());
      }
    }
  }

  /// Where a new import line goes: after the last import of the leading
  /// run of docstring, imports and `from __future__` imports.
  void placeImports(ArrayRef<TSNode> Top) {
    std::optional<TSNode> After;
    for (size_t I = 0; I < Top.size(); ++I) {
      StringRef Type = type(Top[I]);
      bool Import = Type == "import_statement" ||
                    Type == "import_from_statement" ||
                    Type == "future_import_statement";
      if (Import || (I == 0 && isDocstring(Top[I])))
        After = Top[I];
      else
        break;
    }
    if (!After) {
      ImportOffset = Top.empty() ? unsigned(Code.size()) : begin(Top.front());
      ImportOffset = Top.empty() ? ImportOffset : lineStart(ImportOffset);
      return;
    }
    ImportOffset = nextLineStart(end(*After));
    ImportNeedsNewline = ImportOffset == Code.size() && !Code.ends_with("\n") &&
                         !Code.ends_with("\r");
  }

  /// Whether a top-level name is public: in `__all__` if the module has
  /// one, else without a leading '_'.
  bool publicName(StringRef Name) const {
    if (PrivateModule)
      return false;
    if (All)
      return All->count(Name.str()) > 0;
    return !Name.starts_with("_");
  }
  static bool publicMember(StringRef Name) {
    return !Name.starts_with("_") ||
           (Name.starts_with("__") && Name.ends_with("__"));
  }

  std::vector<std::string> decorators(TSNode Node) const {
    std::vector<std::string> Result;
    if (type(Node) != "decorated_definition")
      return Result;
    for (uint32_t I = 0, N = ts_node_named_child_count(Node); I < N; ++I) {
      TSNode D = ts_node_named_child(Node, I);
      if (type(D) != "decorator" || ts_node_named_child_count(D) == 0)
        continue;
      TSNode E = ts_node_named_child(D, 0);
      if (type(E) == "call")
        E = field(E, "function");
      if (std::optional<std::string> Name = dotted(E)) {
        std::string Resolved = resolve(*Name);
        Result.push_back(*Name);
        if (Resolved != *Name)
          Result.push_back(Resolved);
      } else {
        Result.push_back(text(E).str());
      }
    }
    return Result;
  }

  /// A class or function at \p S, inside classes \p Classes. (A
  /// definition nested in a function is never API: it is not read.)
  void readDefinition(TSNode S, std::vector<std::string> Classes) {
    TSNode Def = undecorated(S);
    StringRef Type = type(Def);
    if (Type == "class_definition")
      readClass(S, Def, std::move(Classes));
    else if (Type == "function_definition")
      readFunction(S, Def, Classes);
  }

  void readClass(TSNode Outer, TSNode Def, std::vector<std::string> Classes) {
    std::string Name = text(field(Def, "name")).str();
    bool Public = (Classes.empty() ? publicName(Name) : publicMember(Name)) &&
                  ClassesPublic(Classes);
    std::vector<std::string> Bases;
    TSNode Superclasses = field(Def, "superclasses");
    if (!ts_node_is_null(Superclasses))
      for (uint32_t I = 0, N = ts_node_named_child_count(Superclasses); I < N;
           ++I)
        if (std::optional<std::string> Base =
                dotted(ts_node_named_child(Superclasses, I)))
          Bases.push_back(resolve(*Base));
    Classes.push_back(Name);
    std::string InModule = join(Classes, ".");
    Out.Classes[InModule] = Bases;
    ClassPublic[InModule] = Public;
    TSNode Body = field(Def, "body");
    ClassShape &Shape = Out.Shapes[InModule];
    std::tie(Shape.Line, Shape.Column) = pointOf(field(Def, "name"));
    bool HasInit = false;
    for (TSNode Member : statements(Body)) {
      TSNode MemberDef = undecorated(Member);
      if (type(MemberDef) == "function_definition" &&
          text(field(MemberDef, "name")) == "__init__") {
        HasInit = true;
        Shape.HasInit = true;
        Shape.InitCallsSuper = callsSuperInit(field(MemberDef, "body"));
      }
    }
    if (!HasInit) {
      // A class without __init__: a constructor rule reports it skipped.
      Candidate C = candidateFor(Outer, Def, Name, DeclKind::Constructor,
                                 ArrayRef<std::string>(Classes).drop_back(),
                                 Public, Bases);
      C.Facts.Classes = Classes;
      C.QualifiedName = qualified(Classes, "");
      C.Shape = BodyShape::NoConstructorBody;
      C.Python.emplace(); // A Python class: decideSite words its skip so.
      C.Python->Module = Out.Module;
      Out.Facts.Candidates.push_back(std::move(C));
    }
    for (TSNode Member : statements(Body)) {
      std::vector<std::string> Inner = Classes;
      readDefinition(Member, std::move(Inner));
    }
  }

  bool ClassesPublic(const std::vector<std::string> &Classes) const {
    if (Classes.empty())
      return true;
    auto It = ClassPublic.find(join(Classes, "."));
    return It == ClassPublic.end() || It->second;
  }

  std::string qualified(ArrayRef<std::string> Classes, StringRef Name) const {
    std::vector<std::string> Parts;
    if (!Out.Module.empty())
      Parts.push_back(Out.Module);
    append_range(Parts, Classes);
    if (!Name.empty())
      Parts.push_back(Name.str());
    return join(Parts, ".");
  }

  Candidate candidateFor(TSNode Outer, TSNode Def, StringRef Name,
                         DeclKind Kind, ArrayRef<std::string> Classes,
                         bool Public, ArrayRef<std::string> Bases) {
    Candidate C;
    C.File = Out.File;
    TSNode NameNode = field(Def, "name");
    C.Offset = begin(NameNode);
    std::tie(C.Line, C.Column) = pointOf(NameNode);
    C.BeginLine = row(Outer);
    C.EndLine = endRow(Outer);
    // A trailing line break belongs to the block in this grammar.
    if (C.EndLine > C.BeginLine && ts_node_end_point(Outer).column == 0)
      --C.EndLine;
    DeclFacts &F = C.Facts;
    F.Lang = Language::Python;
    F.Kind = Kind;
    F.Name = Name.str();
    F.Classes.assign(Classes.begin(), Classes.end());
    F.Bases.assign(Bases.begin(), Bases.end());
    F.ExternalLinkage = true;
    F.Public = F.PublicOrProtected = Public;
    F.RelativePath = RelativePath.str();
    F.DeclaredIn = {RelativePath.str()};
    F.Module = Out.Module;
    F.Decorators = decorators(Outer);
    C.Suppression = commentAtStart(SuppressionAtLine, C.BeginLine);
    if (std::optional<size_t> E =
            commentAtStart(ExpectationAtLine, C.BeginLine)) {
      Expectation &X = Out.Facts.Expectations[*E];
      if (!X.DefinitionLine) {
        X.DefinitionLine = C.Line;
        X.DefinitionColumn = C.Column;
        X.Definition = C.QualifiedName.empty() ? qualified(Classes, Name)
                                               : C.QualifiedName;
      }
    }
    return C;
  }

  void readFunction(TSNode Outer, TSNode Def,
                    const std::vector<std::string> &Classes) {
    std::string Name = text(field(Def, "name")).str();
    bool InClass = !Classes.empty();
    DeclKind Kind = !InClass             ? DeclKind::Function
                    : Name == "__init__" ? DeclKind::Constructor
                                         : DeclKind::Method;
    bool Public = InClass ? publicMember(Name) && ClassesPublic(Classes)
                          : publicName(Name);
    std::vector<std::string> Bases;
    if (InClass)
      Bases = Out.Classes[join(Classes, ".")];
    std::string FactName =
        Kind == DeclKind::Constructor ? Classes.back() : Name;
    std::string Qualified = qualified(Classes, Name);
    Candidate C =
        candidateFor(Outer, Def, FactName, Kind, Classes, Public, Bases);
    C.QualifiedName = Qualified;
    for (Expectation &X : Out.Facts.Expectations)
      if (X.DefinitionLine == C.Line && X.DefinitionColumn == C.Column)
        X.Definition = Qualified;
    C.Shape = BodyShape::Block;
    TSNode Body = field(Def, "body");
    C.Python = bodyFacts(Def, Body);
    readCalls(Body, Classes, C);
    Out.Facts.Candidates.push_back(std::move(C));
  }

  /// Whether \p S is `super().__init__(...)` or `Base.__init__(self, ...)`.
  bool isSuperInit(TSNode S) const {
    if (type(S) != "expression_statement" || ts_node_named_child_count(S) != 1)
      return false;
    TSNode Call = ts_node_named_child(S, 0);
    if (type(Call) != "call")
      return false;
    TSNode Function = field(Call, "function");
    if (type(Function) != "attribute" ||
        text(field(Function, "attribute")) != "__init__")
      return false;
    TSNode Object = field(Function, "object");
    if (type(Object) == "call" && text(field(Object, "function")) == "super")
      return true;
    TSNode Arguments = field(Call, "arguments");
    return ts_node_named_child_count(Arguments) > 0 &&
           text(ts_node_named_child(Arguments, 0)) == "self";
  }

  /// Whether a statement under \p Node, outside nested definitions, is
  /// isSuperInit's.
  bool callsSuperInit(TSNode Node) const {
    if (isSuperInit(Node))
      return true;
    for (uint32_t I = 0, N = ts_node_named_child_count(Node); I < N; ++I) {
      TSNode Child = ts_node_named_child(Node, I);
      StringRef Type = type(Child);
      if (Type != "function_definition" && Type != "class_definition" &&
          Type != "decorated_definition" && Type != "lambda" &&
          callsSuperInit(Child))
        return true;
    }
    return false;
  }

  /// What a body's import needs to know of its module.
  void moduleFacts(PythonBody &B) const {
    B.Newline = Newline;
    B.ImportOffset = ImportOffset;
    B.ImportNeedsNewline = ImportNeedsNewline;
    B.IsPackage = Out.IsPackage;
    B.Module = Out.Module;
    // Of the names bound at top level, those an import of a callee would
    // bind (the rules' imports bind their callees): not every name of the
    // module in every body.
    for (const std::string &Callee : Calls.Callees) {
      std::string Head = StringRef(Callee).split('.').first.str();
      if (TopLevel.count(Head) || Out.Imports.count(Head))
        B.TopLevelNames.push_back(Head);
    }
    B.FromImports = FromImports;
  }

  PythonBody bodyFacts(TSNode Def, TSNode Body) {
    PythonBody B;
    moduleFacts(B);
    // The colon that ends the header: the last ':' child before the body.
    unsigned Colon = begin(Body);
    for (uint32_t I = 0, N = ts_node_child_count(Def); I < N; ++I) {
      TSNode Child = ts_node_child(Def, I);
      if (ts_node_eq(Child, Body))
        break;
      if (!ts_node_is_named(Child) && text(Child) == ":")
        Colon = end(Child);
    }
    std::optional<std::string> DefIndent = indentOf(begin(Def));
    B.DefIndent = DefIndent.value_or("");
    std::vector<TSNode> Statements = statements(Body);
    if (Statements.empty()) {
      B.Unplaceable = "the body has no statement";
      return B;
    }
    TSNode First = Statements.front();
    B.IsInline = Code.slice(Colon, begin(First)).find_first_of("\r\n") ==
                 StringRef::npos;
    if (B.IsInline) {
      B.Inline = begin(First);
      B.IndentUnit = StringRef(B.DefIndent).contains('\t') ? "\t" : "    ";
      B.Indent = B.DefIndent + B.IndentUnit;
      if (isDocstring(First) || isSuperInit(First))
        B.Unplaceable = "a one-line body that starts with a docstring or "
                        "super().__init__(): make it a block";
    } else if (std::optional<std::string> Indent = indentOf(begin(First))) {
      B.Indent = *Indent;
      B.IndentUnit = StringRef(*Indent).starts_with(B.DefIndent) &&
                             Indent->size() > B.DefIndent.size()
                         ? Indent->substr(B.DefIndent.size())
                         : "    ";
    } else {
      B.Unplaceable = "its first statement does not start its line";
    }
    size_t Next = 0;
    unsigned Insert = nextLineStart(Colon);
    auto Advance = [&](TSNode Anchor) {
      ++Next;
      if (!restOfLineIsEmpty(end(Anchor)))
        B.Unplaceable = "another statement follows '" +
                        text(Anchor).take_front(30).str() + "' on its line";
      Insert = nextLineStart(end(Anchor));
    };
    auto FirstAt = [&](size_t I) {
      return I < Statements.size() ? begin(Statements[I]) : end(Body);
    };
    if (isDocstring(First)) {
      B.HasDocstring = true;
      Advance(First);
    }
    B.Statements = unsigned(Statements.size() - Next);
    B.InsertAfterDocstring = Insert;
    B.FirstAfterDocstring = FirstAt(Next);
    // After the body's first top-level super().__init__(...), wherever it
    // is: what is built before it (nn.Sequential's layers) comes first.
    for (size_t I = Next; I < Statements.size(); ++I)
      if (isSuperInit(Statements[I])) {
        Next = I;
        Advance(Statements[I]);
        break;
      }
    B.InsertAfterSuper = Insert;
    B.FirstAfterSuper = FirstAt(Next);
    return B;
  }

  /// The event a call with argument \p Argument logs, as far as the
  /// module's text says; "" if it cannot tell.
  std::string eventOf(TSNode Argument,
                      const std::vector<std::string> &Classes) const {
    StringRef Type = type(Argument);
    if (Type == "identifier") {
      StringRef Name = text(Argument);
      if (Name == "self")
        return Classes.empty() ? "" : Out.Module + "." + Classes.back();
      if (TopLevel.count(Name.str()))
        return Out.Module + "." + Name.str();
      auto Import = Out.Imports.find(Name.str());
      return Import == Out.Imports.end() ? "" : Import->second;
    }
    if (Type == "string") {
      std::string Content;
      for (uint32_t I = 0, N = ts_node_named_child_count(Argument); I < N;
           ++I) {
        TSNode Part = ts_node_named_child(Argument, I);
        if (type(Part) == "interpolation" || type(Part) == "escape_sequence")
          return "";
        if (type(Part) == "string_content")
          Content += text(Part).str();
      }
      return Content;
    }
    return "";
  }

  /// The calls of the rules' callees in \p Body (not in nested
  /// definitions or lambdas), with how each statement sits.
  void readCalls(TSNode Body, const std::vector<std::string> &Classes,
                 Candidate &C) {
    StringRef BodyText = text(Body);
    auto Names = [&](StringRef Callee) {
      StringRef Last = Callee.rsplit('.').second;
      return BodyText.contains(Last.empty() ? Callee : Last);
    };
    if (none_of(Calls.Callees, Names))
      return; // No callee is named in it.
    std::vector<TSNode> Work = {Body};
    std::vector<TSNode> Found;
    while (!Work.empty()) {
      TSNode N = Work.back();
      Work.pop_back();
      StringRef Type = type(N);
      if (Type == "function_definition" || Type == "class_definition" ||
          Type == "lambda")
        continue;
      if (Type == "call") {
        std::optional<std::string> Callee = dotted(field(N, "function"));
        if (Callee && is_contained(Calls.Callees, *Callee))
          Found.push_back(N);
      }
      for (uint32_t I = ts_node_named_child_count(N); I-- > 0;)
        Work.push_back(ts_node_named_child(N, I));
    }
    std::sort(Found.begin(), Found.end(), [](TSNode L, TSNode R) {
      return ts_node_start_byte(L) < ts_node_start_byte(R);
    });
    for (TSNode Call : Found) {
      MacroUse Use;
      Use.Offset = begin(Call);
      // The callee, as the decision compares it with the rule's.
      Use.Macro = dotted(field(Call, "function")).value_or("");
      TSNode Arguments = field(Call, "arguments");
      if (ts_node_named_child_count(Arguments) == 1 &&
          type(Arguments) == "argument_list") {
        TSNode Argument = ts_node_named_child(Arguments, 0);
        if (type(Argument) != "keyword_argument" &&
            type(Argument) != "list_splat" &&
            type(Argument) != "dictionary_splat") {
          Use.HasArgRange = true;
          Use.ArgBegin = begin(Argument);
          Use.ArgEnd = end(Argument);
          Use.Event = eventOf(Argument, Classes);
        }
      }
      // A statement of its own in the body, or alone in an `if` that is.
      // Only lines apistamp writes are removable: an `if` only when its
      // condition is a guard of the rules.
      std::pair<unsigned, unsigned> Removal{0, 0};
      bool Guarded = false, Removable = true;
      TSNode Statement = ts_node_parent(Call);
      if (type(Statement) == "expression_statement" &&
          ts_node_named_child_count(Statement) == 1) {
        TSNode Block = ts_node_parent(Statement);
        TSNode If = ts_node_parent(Block);
        if (type(If) == "if_statement" &&
            ts_node_eq(ts_node_parent(If), Body) &&
            ts_node_is_null(field(If, "alternative")) &&
            statements(Block).size() == 1) {
          Guarded = true;
          Removable = is_contained(Calls.Guards,
                                   conditionText(text(field(If, "condition"))));
          Statement = If;
        }
        if (ts_node_eq(ts_node_parent(Statement), Body)) {
          Use.Offset = begin(Statement);
          std::optional<std::string> Indent = indentOf(begin(Statement));
          StringRef After = Code.substr(end(Statement));
          After = After.substr(0, After.find_first_of("\r\n"));
          if (Removable && Indent && After.trim(" \t\f").empty())
            Removal = {lineStart(begin(Statement)),
                       nextLineStart(end(Statement))};
        }
      }
      Use.StatementBegin = Removal.first;
      Use.StatementEnd = Removal.second;
      Use.Guarded = Guarded;
      C.Calls.push_back(std::move(Use));
    }
  }

  const SyntaxTree &Tree;
  StringRef Code;
  ModuleFacts &Out;
  StringRef RelativePath;
  const CallNames &Calls;
  std::string Newline = "\n";
  std::set<std::string> TopLevel;
  std::optional<std::set<std::string>> All;
  std::vector<PythonFromImport> FromImports;
  unsigned ImportOffset = 0;
  bool ImportNeedsNewline = false;
  std::map<unsigned, size_t> SuppressionAtLine, ExpectationAtLine;
  std::map<std::string, bool> ClassPublic;
  bool PrivateModule = false;
};

} // namespace

Expected<ModuleFacts> readModuleFacts(StringRef File, StringRef Code,
                                      StringRef Module, bool IsPackage,
                                      StringRef RelativePath,
                                      const CallNames &Calls) {
  Expected<SyntaxTree> Tree = SyntaxTree::parse(File, Code);
  if (!Tree)
    return Tree.takeError();
  ModuleFacts Out;
  Out.File = File.str();
  Out.Module = Module.str();
  Out.IsPackage = IsPackage;
  ModuleReader(*Tree, Out, RelativePath, Calls).read();
  return std::move(Out);
}

} // namespace python
} // namespace apistamp
