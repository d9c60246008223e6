#include "compiler/plan/record_header.hpp"

namespace seam::plan {

std::string record_header_c_checks() {
  auto check = [](const std::string& expr, uint32_t want, std::string_view what) {
    return "_Static_assert(" + expr + " == " + std::to_string(want) +
           ", \"seam_record_header: " + std::string(what) +
           " differs from compiler/plan/record_header.hpp\");\n";
  };
  std::string out;
  for (const HeaderField& f : record_header::kFields) {
    std::string member = "((struct seam_record_header *)0)->" + std::string(f.name);
    out += check("__builtin_offsetof(struct seam_record_header, " + std::string(f.name) + ")", f.offset,
                 std::string(f.name) + "'s offset");
    out += check("sizeof(" + member + ")", f.size, std::string(f.name) + "'s size");
  }
  out += check("sizeof(struct seam_record_header)", kRecordHeaderSize, "the size");
  return out;
}

}  // namespace seam::plan
