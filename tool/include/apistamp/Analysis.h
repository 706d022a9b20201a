//===- Analysis.h - Find selected definitions in a TU -----------*- C++ -*-===//
//
// The analysis stage parses one translation unit and returns, as plain data
// (Site.h), the facts about every definition a rule selects: where its body
// is and which calls it holds. Their status and edits are decided later
// (decideSite). It never prints. The only files it writes are stored
// preambles (PreambleStore, when the run builds them); analyseProject also
// stores TU results in the cache. Sources are written by fix alone.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_ANALYSIS_H
#define APISTAMP_ANALYSIS_H

#include "apistamp/Site.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <string>
#include <vector>

namespace apistamp {

class PreambleStore;

/// How one translation unit is analysed.
struct AnalysisOptions {
  const RuleSet *Rules = nullptr; ///< Planned: its Root is canonical.
  /// For `explain`: also explain the definitions it names (every body is
  /// parsed then).
  const ExplainTarget *Target = nullptr;
  /// Do not parse the bodies of functions no rule can select (in system
  /// headers, outside the root, in files no rule's `files` matches); the
  /// results are the same.
  bool SkipBodies = true;
  /// Also record the definitions no rule selects that users could call
  /// (TUResult::Unselected), with each rule's reason: for the public
  /// surface (`catalog --unselected`, `check --fail-on-unselected`).
  bool Unselected = false;
  /// Parse the main file on top of the TU's stored preamble (its include
  /// prefix, parsed once); null: parse the whole TU.
  PreambleStore *Preambles = nullptr;
  /// Build and store the preamble when none is stored.
  bool BuildPreamble = true;
};

/// Parses the TU of \p Command (through \p FS, the real file system if
/// null) and analyses it; a TU that does not parse has ParseFailed set and
/// its diagnostics in Diagnostics, and nothing else.
TUResult
analyseTU(const clang::tooling::CompileCommand &Command,
          const AnalysisOptions &Options,
          llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = nullptr);

/// The arguments the front end parses \p Command with: without the options
/// that name outputs (-o, dependency files, diagnostics files...) or load
/// code, in syntax-only mode. Commands that differ only in what they would
/// write (a test source compiled once per test binary, with its own -o)
/// give the same arguments: one parse.
std::vector<std::string>
frontendArguments(const clang::tooling::CompileCommand &Command);

/// Preprocesses the TU of \p Command (no parse) and returns the canonical
/// paths of every file it reads, the source included, sorted. A TU that
/// does not preprocess returns the files read until the error, and sets
/// \p Failed if given.
std::vector<std::string>
filesReachedBy(const clang::tooling::CompileCommand &Command,
               llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = nullptr,
               bool *Failed = nullptr);

} // namespace apistamp

#endif // APISTAMP_ANALYSIS_H
