//===- PythonSyntax.cpp - A Python file parsed by tree-sitter -------------===//

#include "PythonSyntax.h"
#include "../SiteDecision.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

extern "C" const TSLanguage *tree_sitter_python(void);

using namespace llvm;

namespace apistamp {
namespace python {

void SyntaxTree::TreeDeleter::operator()(TSTree *T) const { ts_tree_delete(T); }

TSNode SyntaxTree::root() const { return ts_tree_root_node(Tree.get()); }

StringRef SyntaxTree::text(TSNode Node) const {
  uint32_t Begin = ts_node_start_byte(Node), End = ts_node_end_byte(Node);
  return Code.slice(Begin, End);
}

TSNode field(TSNode Node, StringRef Field) {
  return ts_node_child_by_field_name(Node, Field.data(), Field.size());
}

bool isIdentifier(StringRef Name) {
  return !Name.empty() && !isDigit(Name.front()) && all_of(Name, [](char C) {
    return isAlnum(C) || C == '_' || (unsigned char)C >= 0x80;
  });
}

bool isDottedName(StringRef Name) {
  SmallVector<StringRef, 4> Parts;
  Name.split(Parts, '.');
  return all_of(Parts, isIdentifier);
}

std::string codingCookie(StringRef Code) {
  // PEP 263: a comment matching this on line 1 or 2 (line 2 only if line 1
  // is a comment or blank).
  static const Regex Cookie("^[ \t\f]*#.*coding[:=][ \t]*([-_.a-zA-Z0-9]+)");
  for (int LineNo = 0; LineNo < 2 && !Code.empty(); ++LineNo) {
    size_t End = Code.find_first_of("\r\n");
    StringRef Line = Code.substr(0, End);
    SmallVector<StringRef, 2> Groups;
    if (Cookie.match(Line, &Groups))
      return Groups[1].lower();
    if (!Line.trim(" \t\f").empty() && !Line.ltrim(" \t\f").starts_with("#"))
      break;
    if (End == StringRef::npos)
      break;
    Code = Code.drop_front(End + 1);
  }
  return "";
}

/// Whether the encoding \p Name, as a cookie names it, leaves ASCII bytes
/// as they are (so the grammar reads its code, and edits in ASCII are
/// safe), and whether it is UTF-8.
static void describeEncoding(StringRef Name, bool &AsciiCompatible,
                             bool &Utf8) {
  std::string N = Name.lower();
  std::replace(N.begin(), N.end(), '_', '-');
  Utf8 = N == "utf-8" || N == "utf8" || N == "utf-8-sig" ||
         StringRef(N).starts_with("utf-8-");
  AsciiCompatible =
      Utf8 || N == "ascii" || N == "us-ascii" || N == "latin-1" ||
      N == "latin1" || N == "l1" || StringRef(N).starts_with("iso-8859-") ||
      StringRef(N).starts_with("iso8859-") || StringRef(N).starts_with("cp") ||
      StringRef(N).starts_with("windows-") || N == "koi8-r" || N == "koi8-u" ||
      N == "euc-jp" || N == "shift-jis" || N == "gbk" || N == "gb2312" ||
      N == "big5";
}

static Error errorAt(StringRef File, StringRef Code, unsigned Offset,
                     const Twine &Message) {
  auto [Line, Column] = lineAndColumn(Code, Offset);
  return createStringError(
      inconvertibleErrorCode(),
      formatv("{0}:{1}:{2}: error: ", File, Line, Column).str() +
          Message.str());
}

void walk(TSNode Root, function_ref<Walk(TSNode)> Visit) {
  TSTreeCursor Cursor = ts_tree_cursor_new(Root);
  auto Delete = make_scope_exit([&] { ts_tree_cursor_delete(&Cursor); });
  while (true) {
    Walk Next = Visit(ts_tree_cursor_current_node(&Cursor));
    if (Next == Walk::Stop)
      return;
    if (Next == Walk::Descend && ts_tree_cursor_goto_first_child(&Cursor))
      continue;
    // The next sibling of the node or of its nearest ancestor that has one.
    while (!ts_tree_cursor_goto_next_sibling(&Cursor))
      if (!ts_tree_cursor_goto_parent(&Cursor))
        return;
  }
}

/// The first ERROR or MISSING node under \p Root in source order, if any.
static std::optional<TSNode> firstError(TSNode Root) {
  std::optional<TSNode> Found;
  walk(Root, [&](TSNode Node) {
    if (ts_node_is_missing(Node) || type(Node) == "ERROR") {
      Found = Node;
      return Walk::Stop;
    }
    // Only subtrees that hold an error.
    return ts_node_has_error(Node) ? Walk::Descend : Walk::Skip;
  });
  return Found;
}

Expected<SyntaxTree> SyntaxTree::parse(StringRef File, StringRef Code) {
  if (Code.size() > UINT32_MAX / 2)
    return errorAt(File, Code, 0, "file too large to parse (over 2 GiB)");
  std::string Cookie = codingCookie(Code);
  bool AsciiCompatible = true, Utf8 = true;
  if (!Cookie.empty())
    describeEncoding(Cookie, AsciiCompatible, Utf8);
  if (!AsciiCompatible)
    return errorAt(File, Code, 0,
                   "encoding '" + Cookie +
                       "' (from its coding cookie) is not supported: apistamp "
                       "reads Python sources in UTF-8 or an ASCII-compatible "
                       "encoding");
  if (Utf8) {
    const UTF8 *Begin = reinterpret_cast<const UTF8 *>(Code.data());
    const UTF8 *Bad = Begin;
    if (!isLegalUTF8String(&Bad, Begin + Code.size()))
      return errorAt(File, Code, unsigned(Bad - Begin),
                     Cookie.empty()
                         ? "not UTF-8, and no coding cookie names another "
                           "encoding (PEP 263)"
                         : "not UTF-8, which its coding cookie names");
  }
  // One parser per thread, reused: a parser's stacks are allocated once.
  thread_local std::unique_ptr<TSParser, void (*)(TSParser *)> Parser(
      ts_parser_new(), ts_parser_delete);
  ts_parser_reset(Parser.get());
  if (!ts_parser_language(Parser.get()) &&
      !ts_parser_set_language(Parser.get(), tree_sitter_python()))
    return errorAt(File, Code, 0,
                   "the Python grammar's ABI is not the tree-sitter "
                   "library's (rebuild apistamp)");
  SyntaxTree Result;
  Result.Code = Code;
  Result.Tree.reset(ts_parser_parse_string(Parser.get(), nullptr, Code.data(),
                                           uint32_t(Code.size())));
  if (!Result.Tree)
    return errorAt(File, Code, 0, "the Python parser gave up");
  if (std::optional<TSNode> Error = firstError(Result.root())) {
    unsigned Offset = ts_node_start_byte(*Error);
    if (ts_node_is_missing(*Error))
      return errorAt(File, Code, Offset,
                     "invalid Python syntax: expected '" +
                         StringRef(ts_node_type(*Error)) + "' here");
    StringRef Text = Result.text(*Error);
    Text = Text.substr(0, Text.find_first_of("\r\n")).take_front(40);
    return errorAt(File, Code, Offset,
                   "invalid Python syntax" +
                       (Text.trim().empty()
                            ? std::string()
                            : " at '" + Text.trim().str() + "'") +
                       "; nothing is changed in a file that does not parse");
  }
  return std::move(Result);
}

} // namespace python
} // namespace apistamp
