//===- SiteCollector.h - Find the definitions rules select ----*- C++ -*-===//
//
// Walks a parsed TU and turns every definition a rule selects into a Site
// (SiteDecision says how it stands), binds suppression and expectation
// comments to definitions, and, for `explain`, records each rule's verdict.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SITECOLLECTOR_H
#define APISTAMP_LIB_SITECOLLECTOR_H

#include "SourceRecorders.h"
#include "apistamp/Analysis.h"
#include "clang/AST/ASTContext.h"

namespace apistamp {

/// Adds the sites, suppressions, expectations, (with \p Target)
/// explanations and (with \p Unselected) the definitions no rule selects
/// that users could call, of the TU in \p Ctx to \p Result; \p Uses and
/// \p Comments are what the preprocessor recorded.
void collectSites(clang::ASTContext &Ctx, const RuleSet &Rules,
                  const MacroUses &Uses,
                  const std::vector<DirectiveComment> &Comments,
                  const ExplainTarget *Target, bool Unselected,
                  TUResult &Result);

} // namespace apistamp

#endif // APISTAMP_LIB_SITECOLLECTOR_H
