// Enum-typed fields: the record field names its enum, and the plan carries the enum's table
// (value -> name) from the module's `enum` declaration, so outputs print values by name.
#include "compiler/lower/lowerer.hpp"

namespace seam::lower {

void Lowerer::name_enum(plan::Record& record, const std::string& field, const std::string& enum_name) {
  for (plan::Field& f : record.fields)
    if (f.name == field) f.enum_name = enum_name;
  add_enum_table(enum_name);
}

void Lowerer::add_enum_table(const std::string& enum_name) {
  if (program.plan.enums.count(enum_name)) return;
  for (const ast::File* file : input_.modules)
    for (const ast::Decl& d : file->decls)
      if (const auto* en = std::get_if<ast::EnumDecl>(&d); en && en->name.name == enum_name) {
        std::map<int64_t, std::string>& table = program.plan.enums[enum_name];
        for (const ast::EnumValue& v : en->values)
          table.emplace(v.value, v.name);  // the first of equal values
        return;
      }
}

}  // namespace seam::lower
