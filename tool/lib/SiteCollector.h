//===- SiteCollector.h - Find the definitions rules select ----*- C++ -*-===//
//
// Walks a parsed TU and records the facts of every definition some rules
// could select (TUFacts: what the cache stores), binds suppression and
// expectation comments to definitions, and lets the rules decide on those
// facts (sitesFromFacts), as on a cached parse's; for `explain`, it also
// records each rule's verdict.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SITECOLLECTOR_H
#define APISTAMP_LIB_SITECOLLECTOR_H

#include "SourceRecorders.h"
#include "apistamp/Analysis.h"
#include "clang/AST/ASTContext.h"

namespace apistamp {

/// Adds the facts (Result.Facts) of the TU in \p Ctx to \p Result, and
/// what \p Rules make of them: the sites, suppressions, expectations and
/// (with \p Unselected) the definitions no rule selects that users could
/// call; with \p Target, the explanations. \p Uses and \p Comments are
/// what the preprocessor recorded.
void collectSites(clang::ASTContext &Ctx, const RuleSet &Rules,
                  const MacroUses &Uses,
                  const std::vector<DirectiveComment> &Comments,
                  const ExplainTarget *Target, bool Unselected,
                  TUResult &Result);

} // namespace apistamp

#endif // APISTAMP_LIB_SITECOLLECTOR_H
