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

/// Adds the sites, suppressions, expectations and (with \p Target)
/// explanations of the TU in \p Ctx to \p Result; \p Uses and \p Comments
/// are what the preprocessor recorded.
void collectSites(clang::ASTContext &Ctx, const RuleSet &Rules,
                  const MacroUses &Uses,
                  const std::vector<DirectiveComment> &Comments,
                  const ExplainTarget *Target, TUResult &Result);

} // namespace apistamp

#endif // APISTAMP_LIB_SITECOLLECTOR_H
