// Enums declared by a module: fields typed with them, rules comparing such a field with a
// value's name (resolved to the number), and the exact diagnostics for names that are not values.
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::check_files;
using seam::test::lint_files;

constexpr const char* kModule = R"(module copies
library lib = "libcopies.so*"
enum copyKind (copyHostToDevice = 1, copyDeviceToHost = 2, copyDefault = 4, copyAuto = 4)
span copy = lib:copy (bytes: bytes, kind: copyKind) -> (ret: i32)
)";

TEST(CheckEnums, AFieldTypedWithAnEnumIsAnIntegerThatPrintsByName) {
  seam::check::Program p = check_files({{"mods/copies.seam", kModule}});
  ASSERT_EQ(p.diagnostics.error_count(), 0u);
  for (const seam::ast::File& f : p.modules)
    for (const seam::ast::Decl& d : f.decls)
      if (const auto* e = std::get_if<seam::ast::EventDecl>(&d); e && e->name.name == "copy") {
        const seam::ast::Type& t = e->fields[1].type.type;
        EXPECT_EQ(t.kind, seam::ast::TypeKind::Int);
        EXPECT_EQ(t.bits, 32);
        EXPECT_TRUE(t.is_signed);
        EXPECT_EQ(t.enum_name, "copyKind");
        return;
      }
  FAIL() << "no event copy";
}

TEST(CheckEnums, AValueNameComparedWithTheFieldBecomesItsNumber) {
  seam::check::Program p = check_files({{"mods/copies.seam", kModule}, {"rules/a.seam", R"(use copies
rule back on copies.copy where copyDeviceToHost == kind and kind != copyAuto alert "{kind}"
)"}});
  ASSERT_EQ(p.diagnostics.error_count(), 0u);
  const auto& rule = std::get<seam::ast::RuleDecl>(p.rule_files[0].decls[1]);
  const auto& both = std::get<seam::ast::Binary>(rule.where->node);
  const auto& left = std::get<seam::ast::Binary>(both.lhs->node);
  const auto& right = std::get<seam::ast::Binary>(both.rhs->node);
  EXPECT_EQ(std::get<seam::ast::IntLit>(left.lhs->node).value, 2);
  EXPECT_EQ(std::get<seam::ast::IntLit>(right.rhs->node).value, 4);
}

TEST(CheckEnums, UnknownEnumValueE0112) {
  EXPECT_EQ(lint_files({{"mods/copies.seam", kModule}, {"rules/a.seam", R"(use copies
rule back
    on copies.copy where kind == copyDeviceToHots
    alert "back"
)"}}),
            R"(rules/a.seam:3:34: error[E0112]: 'copyDeviceToHots' is not a value of enum copyKind
    3 |     on copies.copy where kind == copyDeviceToHots
      |                                  ^~~~~~~~~~~~~~~~
      = hint: did you mean copyDeviceToHost?
      = hint: copyKind values: copyHostToDevice, copyDeviceToHost, copyDefault, copyAuto

1 error, 0 warnings
)");
}

TEST(CheckEnums, AnEnumValueNameDeclaredTwiceE0201) {
  EXPECT_EQ(lint_files({{"mods/twice.seam", R"(module twice
enum k (a = 1, b = 2, a = 3)
)"}}),
            R"(mods/twice.seam:2:23: error[E0201]: value 'a' of enum k is declared twice
    2 | enum k (a = 1, b = 2, a = 3)
      |                       ^
      = hint: first declared at mods/twice.seam:2

1 error, 0 warnings
)");
}

TEST(CheckEnums, ANameNotComparedWithAnEnumFieldIsStillAnUnknownField) {
  std::string out = lint_files({{"mods/copies.seam", kModule}, {"rules/a.seam", R"(use copies
rule back on copies.copy where ret == copyDeviceToHost alert "back"
)"}});
  EXPECT_NE(out.find("error[E0104]: unknown field 'copyDeviceToHost' of copies.copy"), std::string::npos)
      << out;
}

}  // namespace
