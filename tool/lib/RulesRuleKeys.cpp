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
};

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
  if (std::optional<std::string> Base = P.scalar(Value, Key)) {
    StringRef Name = StringRef(*Base).trim();
    Name.consume_front("::");
    if (Name.empty())
      Diags.error(Value,
                  "'derived_from' must name a class, e.g. 'torch::nn::Module'");
    else
      R.DerivedFrom = Name.str();
  }
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
  Rules.Rules.push_back(std::move(R));
}

} // namespace rulesfile
} // namespace apistamp
