//===- RulesRuleKeys.cpp - The keys of one rule ---------------------------===//
//
// The key table of a rule and the parser of each key's value: selectors,
// `matcher:` (which replaces them) and the event template.
//
//===----------------------------------------------------------------------===//

#include "Matcher.h"
#include "RulesKeys.h"
#include "Suggestions.h"
#include "apistamp/Glob.h"
#include "python/PythonSyntax.h"

using namespace llvm;

namespace apistamp {
namespace rulesfile {

/// Every key of a rule, in the order they are listed and parsed.
const RuleParser::Key RuleParser::Keys[] = {
    {"id", false, nullptr},
    {"where", true, &RuleParser::where},
    {"files", false, &RuleParser::strings<&Rule::Files, &PathGlob::create>},
    {"exclude_files", false,
     &RuleParser::strings<&Rule::ExcludeFiles, &PathGlob::create>},
    {"declared_in", true,
     &RuleParser::strings<&Rule::DeclaredIn, &PathGlob::create>},
    {"namespace", true,
     &RuleParser::strings<&Rule::Namespaces, &NamespacePattern::create>},
    {"name", true, &RuleParser::strings<&Rule::Names, &NameRegex::create>},
    {"exclude_names", true,
     &RuleParser::strings<&Rule::ExcludeNames, &NameRegex::create>},
    {"class", true, &RuleParser::regex<&Rule::Class>},
    {"derived_from", true, &RuleParser::derivedFrom},
    {"linkage", true, &RuleParser::linkage},
    {"access", true, &RuleParser::access},
    {"event", false, &RuleParser::event},
    {"matcher", false, &RuleParser::matcher},
    {"language", false, &RuleParser::language},
    {"modules", true,
     &RuleParser::strings<&Rule::Modules, &ModulePattern::create>},
    {"skip_decorators", true, &RuleParser::skipDecorators},
    {"call", false, &RuleParser::call},
    {"guard", false, &RuleParser::guard},
    {"import", false, &RuleParser::import},
    {"relative_import", false, &RuleParser::relativeImport},
    {"placement", false, &RuleParser::placement},
    {"allow_skipped", false, &RuleParser::allowSkipped},
    {"skip_stubs", false, &RuleParser::skipStubs},
    {"internal", false, &RuleParser::internal},
};

/// The keys that only a rule of one language may have, and why.
static const struct {
  StringRef Key;
  Language Only;
} LanguageKeys[] = {
    {"namespace", Language::Cxx},    {"declared_in", Language::Cxx},
    {"linkage", Language::Cxx},      {"matcher", Language::Cxx},
    {"modules", Language::Python},   {"skip_decorators", Language::Python},
    {"call", Language::Python},      {"guard", Language::Python},
    {"import", Language::Python},    {"relative_import", Language::Python},
    {"placement", Language::Python}, {"internal", Language::Cxx},
};

void RuleParser::language(StringRef Key, const YAML::Node &Value,
                          const YAML::Node &, Rule &R) {
  if (std::optional<std::string> L = P.oneOf(Value, Key, {"c++", "python"}))
    R.Lang = *L == "python" ? Language::Python : Language::Cxx;
}

void RuleParser::checkLanguageKeys(const YAML::Node &Map, const Rule &R) {
  for (const auto &[Key, Only] : LanguageKeys) {
    YAML::Node Value = Map[Key.str()];
    if (!Value || Only == R.Lang)
      continue;
    if (Only == Language::Python)
      Diags.error(Value, "'" + Key +
                             "' is a Python key, and this rule is a C++ rule; "
                             "add 'language: python' to select Python "
                             "definitions");
    else
      Diags.error(Value, "'" + Key +
                             "' is a C++ key, and this rule is a Python rule "
                             "('language: python')" +
                             (Key == "namespace"
                                  ? "; select Python modules with 'modules'"
                                  : ""));
  }
  if (YAML::Node Event = Map["event"]) {
    StringRef Text = R.Event.text();
    for (StringRef Placeholder : {"{module}", "{namespace}", "{signature}"}) {
      bool PythonOnly = Placeholder == "{module}";
      if (Text.contains(Placeholder) &&
          PythonOnly != (R.Lang == Language::Python))
        Diags.error(Event,
                    "'" + Placeholder + "' is a " +
                        (PythonOnly ? "Python" : "C++") +
                        " placeholder, and this rule is a " +
                        languageName(R.Lang) + " rule",
                    Diags.valueOffset(Event, Text.find(Placeholder)));
    }
  }
  if (R.Lang == Language::Python && R.Call.Argument == "{name}" &&
      R.Where != DeclKind::Function)
    Diags.error(Map["call"],
                "'{name}' names a module-level function, and this rule can "
                "select methods or constructors (where they are, the name is "
                "not bound); add 'where: function', or call with 'self'",
                Diags.valueOffset(Map["call"]));
  if (R.Lang == Language::Python && R.Call.Argument == "self" &&
      (!R.Where || *R.Where == DeclKind::Function))
    Diags.error(Map["call"],
                "'self' is bound in methods and constructors, and this rule "
                "can select module-level functions; add 'where: "
                "constructor' or 'where: method', or call with '{name}'",
                Diags.valueOffset(Map["call"]));
  if (R.Lang == Language::Python && !R.Call.ImportName.empty() &&
      R.Call.ImportName != StringRef(R.Call.Callee).split('.').first)
    Diags.error(Map["import"],
                "'import' must bind the name the call starts "
                "with ('" +
                    StringRef(R.Call.Callee).split('.').first + "'), not '" +
                    R.Call.ImportName + "'",
                Diags.valueOffset(Map["import"]));
  if (R.Lang == Language::Python && R.Access == Rule::AccessFilter::Protected)
    Diags.error(Map["access"],
                "'access: protected' is a C++ access; a Python rule takes "
                "'public' (in '__all__', or no leading '_') or 'any'",
                Diags.valueOffset(Map["access"]));
}

void RuleParser::skipDecorators(StringRef Key, const YAML::Node &Value,
                                const YAML::Node &, Rule &R) {
  auto Create = [](StringRef Name) -> Expected<std::string> {
    StringRef Trimmed = Name.trim();
    Trimmed.consume_front("@");
    if (!python::isDottedName(Trimmed))
      return createStringError(inconvertibleErrorCode(),
                               "bad decorator '" + printable(Name) +
                                   "': expected a dotted name, e.g. 'overload' "
                                   "or 'torch.jit.unused'");
    return Trimmed.str();
  };
  P.eachString(Value, Key, Create, R.SkipDecorators);
}

void RuleParser::call(StringRef Key, const YAML::Node &Value,
                      const YAML::Node &, Rule &R) {
  std::optional<std::string> Text = P.scalar(Value, Key);
  if (!Text)
    return;
  StringRef Call = StringRef(*Text).trim();
  size_t Open = Call.find('(');
  StringRef Callee = Call.substr(0, Open).rtrim();
  StringRef Argument;
  if (Open != StringRef::npos && Call.ends_with(")"))
    Argument = Call.slice(Open + 1, Call.size() - 1).trim();
  if (!python::isDottedName(Callee) ||
      (Argument != "self" && Argument != "{name}" && Argument != "{event}")) {
    Diags.error(Value,
                "bad 'call': expected 'FUNCTION(self)', 'FUNCTION({name})' "
                "(the function itself) or 'FUNCTION({event})' (the event as "
                "a string), e.g. '_log_api_usage_once(self)'",
                Diags.valueOffset(Value));
    return;
  }
  R.Call.Callee = Callee.str();
  R.Call.Argument = Argument.str();
}

void RuleParser::guard(StringRef Key, const YAML::Node &Value,
                       const YAML::Node &, Rule &R) {
  std::optional<std::string> Text = P.scalar(Value, Key);
  if (!Text)
    return;
  StringRef Guard = StringRef(*Text).trim();
  if (!Guard.consume_front("if ") || !Guard.consume_back(":") ||
      Guard.trim().empty() || Guard.contains('\n') || Guard.contains('#')) {
    Diags.error(Value,
                "bad 'guard': expected one line 'if CONDITION:', e.g. 'if "
                "not torch.jit.is_scripting() and not "
                "torch.jit.is_tracing():'",
                Diags.valueOffset(Value));
    return;
  }
  // The condition must be one Python expression: `if COND:` and a block
  // parse with nothing left over.
  std::string Probe = "if " + Guard.trim().str() + ":\n    pass\n";
  Expected<python::SyntaxTree> Tree = python::SyntaxTree::parse("guard", Probe);
  if (!Tree || ts_node_named_child_count(Tree->root()) != 1) {
    if (!Tree)
      consumeError(Tree.takeError());
    Diags.error(Value,
                "bad 'guard': 'if " + Guard.trim() +
                    ":' is not one Python 'if' with a condition",
                Diags.valueOffset(Value));
    return;
  }
  R.Call.Guard = Guard.trim().str();
}

void RuleParser::import(StringRef Key, const YAML::Node &Value,
                        const YAML::Node &, Rule &R) {
  std::optional<std::string> Text = P.scalar(Value, Key);
  if (!Text)
    return;
  SmallVector<StringRef, 4> Words;
  StringRef(*Text).split(Words, ' ', -1, /*KeepEmpty=*/false);
  if (Words.size() != 4 || Words[0] != "from" || Words[2] != "import" ||
      !python::isDottedName(Words[1]) || !python::isDottedName(Words[3]) ||
      Words[3].contains('.')) {
    Diags.error(Value,
                "bad 'import': expected 'from MODULE import NAME' with an "
                "absolute module, e.g. 'from torchvision.utils import "
                "_log_api_usage_once' ('relative_import: true' writes it "
                "relative)",
                Diags.valueOffset(Value));
    return;
  }
  R.Call.ImportModule = Words[1].str();
  R.Call.ImportName = Words[3].str();
}

void RuleParser::relativeImport(StringRef Key, const YAML::Node &Value,
                                const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"true", "false"}))
    R.Call.RelativeImport = *V == "true";
}

void RuleParser::allowSkipped(StringRef Key, const YAML::Node &Value,
                              const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"true", "false"}))
    R.AllowSkipped = *V == "true";
}

void RuleParser::skipStubs(StringRef Key, const YAML::Node &Value,
                           const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"true", "false"}))
    R.SkipStubs = *V == "true";
}

void RuleParser::internal(StringRef Key, const YAML::Node &Value,
                          const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"true", "false"}))
    R.Internal = *V == "true";
}

void RuleParser::placement(StringRef Key, const YAML::Node &Value,
                           const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V =
          P.oneOf(Value, Key, {"after_super_init", "first_statement"}))
    R.Call.AfterSuperInit = *V == "after_super_init";
}

std::vector<StringRef> RuleParser::keyNames() {
  std::vector<StringRef> Names;
  for (const Key &K : Keys)
    Names.push_back(K.Name);
  return Names;
}

void RuleParser::where(StringRef Key, const YAML::Node &Value,
                       const YAML::Node &, Rule &R) {
  if (std::optional<std::string> Kind =
          P.oneOf(Value, Key, {"function", "method", "constructor"}))
    R.Where = *Kind == "function" ? DeclKind::Function
              : *Kind == "method" ? DeclKind::Method
                                  : DeclKind::Constructor;
}

void RuleParser::derivedFrom(StringRef Key, const YAML::Node &Value,
                             const YAML::Node &, Rule &R) {
  auto Create = [](StringRef Base) -> Expected<std::string> {
    StringRef Name = Base.trim();
    Name.consume_front("::");
    if (Name.empty())
      return createStringError(inconvertibleErrorCode(),
                               "'derived_from' must name a class, e.g. "
                               "'torch::nn::Module' (Python: "
                               "'torch.nn.Module')");
    return Name.str();
  };
  P.eachString(Value, Key, Create, R.DerivedFrom);
}

void RuleParser::linkage(StringRef Key, const YAML::Node &Value,
                         const YAML::Node &, Rule &R) {
  // Internal linkage is never API: say so rather than suggest the opposite.
  if (Value.IsScalar() && Value.Scalar() == "internal") {
    Diags.error(Value,
                "'linkage: internal' is not supported: 'static' functions and "
                "those in an anonymous namespace cannot be called from "
                "outside their file, so they are not API; use 'external' (the "
                "default) or 'any'",
                Diags.valueOffset(Value));
    return;
  }
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"external", "any"}))
    R.ExternalLinkageOnly = *V == "external";
}

void RuleParser::access(StringRef Key, const YAML::Node &Value,
                        const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V =
          P.oneOf(Value, Key, {"public", "protected", "any"}))
    R.Access = *V == "public"      ? Rule::AccessFilter::Public
               : *V == "protected" ? Rule::AccessFilter::Protected
                                   : Rule::AccessFilter::Any;
}

void RuleParser::event(StringRef Key, const YAML::Node &Value,
                       const YAML::Node &, Rule &R) {
  if (std::optional<std::string> Text = P.scalar(Value, Key)) {
    size_t Column = 0;
    if (Expected<EventTemplate> T = EventTemplate::parse(*Text, Column))
      R.Event = std::move(*T);
    else
      Diags.error(Value, toString(T.takeError()),
                  Diags.valueOffset(Value, Column));
  }
}

void RuleParser::checkNoSelectionKeys(const YAML::Node &Map) {
  for (const RuleParser::Key &K : Keys)
    if (K.Selects)
      if (YAML::Node Replaced = Map[K.Name.str()])
        Diags.error(Replaced, "'" + K.Name +
                                  "' cannot be combined with 'matcher', which "
                                  "does all the selecting; say it in the "
                                  "matcher (only 'files', 'exclude_files' and "
                                  "'event' apply too)");
}

void RuleParser::matcherError(const YAML::Node &M,
                              const MatcherErrorPosition &At,
                              const Twine &Message) {
  YAML::Mark Mark = M.Mark();
  bool Block = Diags.isBlockScalar(Mark);
  if (!Block || At.Line == 1) {
    unsigned Offset =
        Block ? 0 : Diags.valueOffset(M, At.Line == 1 ? At.Column - 1 : 0);
    Diags.error(M, Message, Offset);
    return;
  }
  // A literal block: the expression's line N is the file's line N after the
  // indicator's, and its columns start after the block's indentation.
  StringRef First = Diags.line(Mark.line + 1);
  size_t Indent = First.size() - First.ltrim().size();
  Diags.errorAt(Mark.line + At.Line, Indent + At.Column, Message);
}

void RuleParser::matcher(StringRef Key, const YAML::Node &M,
                         const YAML::Node &Map, Rule &R) {
  std::optional<std::string> Code = P.scalar(M, Key, /*Multiline=*/true);
  if (!Code)
    return;
  checkNoSelectionKeys(Map);
  MatcherErrorPosition At;
  Expected<std::shared_ptr<const CompiledMatcher>> Compiled =
      parseFunctionMatcher(*Code, At);
  if (Compiled)
    R.Matcher = std::move(*Compiled);
  else
    matcherError(M, At, toString(Compiled.takeError()));
}

void RuleParser::id(const YAML::Node &N, Rule &R, StringSet<> &Ids) {
  YAML::Node IdNode = N["id"];
  if (!IdNode) {
    Diags.error(N, "rule has no 'id'");
  } else if (std::optional<std::string> Id = P.scalar(IdNode, "id")) {
    R.Id = *Id;
    if (R.Id.empty())
      Diags.error(IdNode, "'id' must not be empty");
    else if (!Ids.insert(R.Id).second)
      Diags.error(IdNode, "duplicate rule id '" + printable(R.Id) + "'");
  }
}

void RuleParser::parse(const YAML::Node &N, RuleSet &Rules, StringSet<> &Ids) {
  if (!N.IsMap()) {
    Diags.error(N, "each rule must be a mapping with at least an 'id'");
    return;
  }
  Rule R;
  R.Line = N.Mark().line + 1;
  id(N, R, Ids);
  P.checkKeys(N, keyNames(), "rule '" + printable(R.Id) + "'");
  for (const Key &K : Keys)
    if (K.Parse)
      if (YAML::Node Value = N[K.Name.str()])
        (this->*K.Parse)(K.Name, Value, N, R);
  checkLanguageKeys(N, R);
  if (R.Lang == Language::Python && !N["event"]) {
    // What the callee logs: "<module>.<name>" of a function, of the class
    // for `self`.
    size_t Column = 0;
    R.Event = cantFail(EventTemplate::parse(
        R.Where && *R.Where == DeclKind::Method ? "{module}.{class}"
                                                : "{module}.{name}",
        Column));
  }
  Rules.Rules.push_back(std::move(R));
}

} // namespace rulesfile
} // namespace apistamp
