#include "compiler/ast/ast.hpp"

namespace seam::ast {

std::string QualName::str() const {
  std::string s;
  for (const Ident& p : parts) {
    if (!s.empty()) s += '.';
    s += p.name;
  }
  return s;
}

const ModuleDecl* File::module() const {
  if (!decls.empty())
    if (const auto* m = std::get_if<ModuleDecl>(&decls.front())) return m;
  return nullptr;
}

const char* to_string(ProbeKind k) {
  switch (k) {
    case ProbeKind::Call:
      return "call";
    case ProbeKind::Uprobe:
      return "uprobe";
    case ProbeKind::Uretprobe:
      return "uretprobe";
    case ProbeKind::Usdt:
      return "usdt";
    case ProbeKind::Tracepoint:
      return "tracepoint";
    case ProbeKind::RawTracepoint:
      return "raw_tracepoint";
    case ProbeKind::Kprobe:
      return "kprobe";
    case ProbeKind::Kretprobe:
      return "kretprobe";
    case ProbeKind::Fentry:
      return "fentry";
    case ProbeKind::Fexit:
      return "fexit";
    case ProbeKind::Perf:
      return "perf";
    case ProbeKind::Interval:
      return "interval";
  }
  return "?";
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Info:
      return "info";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
    case Severity::Critical:
      return "critical";
  }
  return "?";
}

const char* to_string(Unit u) {
  switch (u) {
    case Unit::None:
      return "none";
    case Unit::Duration:
      return "duration";
    case Unit::Bytes:
      return "bytes";
  }
  return "?";
}

std::string to_string(const Type& t) {
  switch (t.kind) {
    case TypeKind::Unknown:
      return "unknown";
    case TypeKind::Bool:
      return "bool";
    case TypeKind::Str:
      return "str";
    case TypeKind::Ptr:
      return "ptr";
    case TypeKind::Stack:
      return "stack";
    case TypeKind::Metric:
      return "metric";
    case TypeKind::State:
      return "state";
    case TypeKind::Int:
      if (t.unit == Unit::Duration) return "duration";
      if (t.unit == Unit::Bytes) return "bytes";
      return std::string(t.is_signed ? "i" : "u") + std::to_string(t.bits);
  }
  return "?";
}

const char* to_string(BinaryOp op) {
  static const char* const kNames[] = {"or", "and", "==", "!=", "<",  "<=", ">", ">=", "startswith", "+",
                                       "-",  "*",   "/",  "%",  "<<", ">>", "&", "^",  "|"};
  return kNames[static_cast<int>(op)];
}

}  // namespace seam::ast
