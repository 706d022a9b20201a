//===- SiteFieldVisitor.h - Visit the fields of SiteFields.def --*- C++ -*-===//
//
// forEachField<T>(Visit) calls Visit(Key, &T::Field) for every field that
// SiteFields.def lists for T, in order: the one walk over a model type's
// fields that the cache's JSON mapping and sameFields share.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SITEFIELDVISITOR_H
#define APISTAMP_LIB_SITEFIELDVISITOR_H

#include "apistamp/Site.h"
#include "llvm/ADT/StringRef.h"
#include <type_traits>

namespace apistamp {

/// Calls \p Visit(llvm::StringLiteral Key, Type T::*Field) for each field
/// that SiteFields.def lists for \p T (MacroUse, BodyLocation, Site,
/// Suppression, Expectation, UnselectedDefinition, DeclFacts or Candidate):
/// for a Site, its facts; for DeclFacts, all but MatchesMatcher.
template <typename T, typename Visitor> void forEachField(Visitor &&Visit) {
#define APISTAMP_VISIT(Type, Name, Key)                                        \
  Visit(llvm::StringLiteral(Key), &T::Name);
  if constexpr (std::is_same_v<T, MacroUse>) {
#define APISTAMP_MACRO_USE_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, BodyLocation>) {
#define APISTAMP_BODY_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, PythonBody>) {
#define APISTAMP_PYTHON_BODY_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, PythonFromImport>) {
#define APISTAMP_PYTHON_IMPORT_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, Site>) {
#define APISTAMP_SITE_FACT APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, Suppression>) {
#define APISTAMP_SUPPRESSION_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, UnselectedDefinition>) {
#define APISTAMP_UNSELECTED_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, DeclFacts>) {
#define APISTAMP_DECL_FACT(Type, Name, Key, Default)                           \
  APISTAMP_VISIT(Type, Name, Key)
#include "apistamp/SiteFields.def"
  } else if constexpr (std::is_same_v<T, Candidate>) {
#define APISTAMP_CANDIDATE_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  } else {
    static_assert(std::is_same_v<T, Expectation>,
                  "not a type of SiteFields.def");
#define APISTAMP_EXPECTATION_FIELD APISTAMP_VISIT
#include "apistamp/SiteFields.def"
  }
#undef APISTAMP_VISIT
}

} // namespace apistamp

#endif // APISTAMP_LIB_SITEFIELDVISITOR_H
