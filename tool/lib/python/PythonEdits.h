//===- PythonEdits.h - The edits of a Python site ---------------*- C++ -*-===//
//
// What decideSite writes into a Python file, as byte splices (TextEdits):
// the call (inside the rule's guard) at the rule's place in the body, the
// import that provides it, a corrected argument, a stale call's removal.
// Pure: from a site's facts (PythonBody) and its rule.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PYTHON_PYTHONEDITS_H
#define APISTAMP_LIB_PYTHON_PYTHONEDITS_H

#include "apistamp/Site.h"
#include <optional>
#include <string>
#include <vector>

namespace apistamp {
namespace python {

/// The argument \p R's call takes in \p S: "self", the function's name, or
/// the event as a string literal.
std::string callArgument(const Site &S, const Rule &R);

/// The insertion of \p R's call into \p S's body, and of its import.
std::vector<TextEdit> insertion(const Site &S, llvm::StringRef Code,
                                const Rule &R);

/// The import of \p R's callee into \p S's module, if it needs one.
std::optional<TextEdit> importEdit(const Site &S, const Rule &R);

/// The import statement \p R's callee needs in \p S's module, as written
/// ("from ..utils import _log_api_usage_once").
std::string importStatement(const Site &S, const Rule &R);

/// Whether \p Call (one of \p S's Calls) is its body's first statement,
/// after the docstring (and a leading super().__init__(...)).
bool isFirstStatement(const Site &S, const MacroUse &Call);

/// The removal of \p S's call number \p Index, with its guard: whole lines;
/// `pass` in their place if the body would be left empty. None, and why in
/// \p WhyNot, if the call is not a statement of its own lines.
std::optional<TextEdit> callRemoval(const Site &S, size_t Index,
                                    std::string *WhyNot);

/// \p Edits of one Python file with the insertions at one offset made
/// one (each once, in order): two rules' imports go on the same line, one
/// after the other.
std::vector<TextEdit> mergeInsertions(std::vector<TextEdit> Edits);

} // namespace python
} // namespace apistamp

#endif // APISTAMP_LIB_PYTHON_PYTHONEDITS_H
