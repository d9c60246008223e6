#pragma once
// Every diagnostic seam can print has a stable code, documented in docs/diagnostics.md.
// Codes are never renumbered or reused; retire a code by leaving its row in place.
//   E00xx input and syntax   E01xx names   E02xx duplicates   E03xx types and units
//   E04xx probes              E05xx rules, alerts, outputs     W0xxx warnings
#include <string_view>

namespace seam::diag {

#define SEAM_DIAGNOSTIC_CODES(X)                                   \
  X(SyntaxError, "E0001", "syntax-error")                          \
  X(FileTooLarge, "E0002", "file-too-large")                       \
  X(NestingTooDeep, "E0003", "nesting-too-deep")                   \
  X(UnreadableFile, "E0004", "unreadable-file")                    \
  X(InvalidLiteral, "E0005", "invalid-literal")                    \
  X(ModuleMisplaced, "E0006", "module-misplaced")                  \
  X(BadCharacter, "E0007", "bad-character")                        \
  X(TooManyRules, "E0008", "too-many-rules")                       \
  X(UnknownModule, "E0101", "unknown-module")                      \
  X(UnknownLibrary, "E0102", "unknown-library")                    \
  X(UnknownEvent, "E0103", "unknown-event")                        \
  X(UnknownField, "E0104", "unknown-field")                        \
  X(UnknownState, "E0105", "unknown-state")                        \
  X(UnknownAliasTarget, "E0106", "unknown-alias-target")           \
  X(UnknownOutput, "E0107", "unknown-output")                      \
  X(UnknownMetric, "E0108", "unknown-metric")                      \
  X(UnknownFunction, "E0109", "unknown-function")                  \
  X(AmbiguousName, "E0110", "ambiguous-name")                      \
  X(ModuleNotUsed, "E0111", "module-not-used")                     \
  X(UnknownEnumValue, "E0112", "unknown-enum-value")               \
  X(UnknownList, "E0113", "unknown-list")                          \
  X(UnknownOverrideTarget, "E0114", "unknown-override-target")     \
  X(DuplicateName, "E0201", "duplicate-name")                      \
  X(DuplicateModule, "E0202", "duplicate-module")                  \
  X(DuplicateClause, "E0203", "duplicate-clause")                  \
  X(ConflictingOverride, "E0204", "conflicting-override")          \
  X(UnitMismatch, "E0301", "unit-mismatch")                        \
  X(TypeMismatch, "E0302", "type-mismatch")                        \
  X(MissingUnit, "E0303", "missing-unit")                          \
  X(NotASpan, "E0304", "not-a-span")                               \
  X(UnknownType, "E0305", "unknown-type")                          \
  X(NotBoolean, "E0306", "not-boolean")                            \
  X(BadIndex, "E0307", "bad-index")                                \
  X(BadOperand, "E0308", "bad-operand")                            \
  X(BadIdentityTest, "E0309", "bad-identity-test")                 \
  X(BadProbeTarget, "E0401", "bad-probe-target")                   \
  X(BadSpanKey, "E0402", "bad-span-key")                           \
  X(BadStateTransition, "E0403", "bad-state-transition")           \
  X(BadStateReader, "E0404", "bad-state-reader")                   \
  X(UnknownSeverity, "E0501", "unknown-severity")                  \
  X(BadLimit, "E0502", "bad-limit")                                \
  X(BadInterpolation, "E0503", "bad-interpolation")                \
  X(BadWithItem, "E0504", "bad-with-item")                         \
  X(BadOutput, "E0505", "bad-output")                              \
  X(BadWindow, "E0506", "bad-window")                              \
  X(MissingClause, "E0507", "missing-clause")                      \
  X(BadGroup, "E0508", "bad-group")                                \
  X(BadOverride, "E0509", "bad-override")                          \
  X(BadScope, "E0511", "bad-scope")                                \
  X(UnknownCgroup, "E0512", "unknown-cgroup")                      \
  X(StateNeverSet, "W0001", "state-never-set")                     \
  X(RuleNeverFires, "W0002", "rule-never-fires")                   \
  X(UnusedUse, "W0003", "unused-use")                              \
  X(MissingLimitOnHotStack, "W0004", "missing-limit-on-hot-stack") \
  X(LimitNotPerProcess, "W0005", "limit-not-per-process")          \
  X(LibraryNeverMatches, "W0006", "library-never-matches")

enum class Code {
#define SEAM_X(name, code, slug) name,
  SEAM_DIAGNOSTIC_CODES(SEAM_X)
#undef SEAM_X
};

// "E0103"
std::string_view code_id(Code c);
// "unknown-event"
std::string_view code_slug(Code c);

}  // namespace seam::diag
