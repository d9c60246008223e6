#include "compiler/codegen/subject.hpp"

namespace seam::codegen {

bool names_a_thread(const plan::Value& key) {
  if (key.kind != plan::ValueKind::TpField) return false;
  const std::string& n = key.name;
  return n == "pid" || (n.size() > 4 && n.compare(n.size() - 4, 4, "_pid") == 0);
}

Subject subject_of(const plan::Action& a) {
  if (!names_a_thread(a.key)) return Subject::Current;
  if (a.kind == plan::ActionKind::SpanBegin) return Subject::Keyed;
  if (a.kind == plan::ActionKind::SpanEnd) return Subject::Begun;
  return Subject::Current;
}

}  // namespace seam::codegen
