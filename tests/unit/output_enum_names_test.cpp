// Enum-typed fields through the plan's tables: the namer plan_enum_namer builds, and the JSON
// object of an alert (the name as a string; a value the enum does not name stays a number).
#include <gtest/gtest.h>

#include "runtime/output/json_sink.hpp"
#include "runtime/output/plan_enums.hpp"
#include "runtime/output/value_text.hpp"

namespace seam::runtime {
namespace {

plan::Plan plan_with_enums() {
  plan::Plan p;
  p.enums["cudaMemcpyKind"] = {{0, "cudaMemcpyHostToHost"}, {1, "cudaMemcpyHostToDevice"}};
  p.enums["cudaError"] = {{0, "cudaSuccess"}, {-1, "cudaErrorNegative"}};
  return p;
}

TEST(OutputEnumNames, ThePlansTablesNameValues) {
  EnumNamer namer = plan_enum_namer(plan_with_enums());
  ASSERT_TRUE(namer);
  EXPECT_EQ(namer("cudaMemcpyKind", 1), std::optional<std::string_view>("cudaMemcpyHostToDevice"));
  EXPECT_EQ(namer("cudaError", -1), std::optional<std::string_view>("cudaErrorNegative"));
  EXPECT_EQ(namer("cudaMemcpyKind", 7), std::nullopt);
  EXPECT_EQ(namer("nccl", 0), std::nullopt);
  EXPECT_FALSE(plan_enum_namer(plan::Plan{}));
}

TEST(OutputEnumNames, JsonWritesTheNameAsAStringAndAnUnnamedValueAsANumber) {
  EnumNamer namer = plan_enum_namer(plan_with_enums());
  Alert a;
  a.rule = "copies";
  for (auto [name, v] : {std::pair<const char*, int64_t>{"kind", 1}, {"other", 7}}) {
    AlertField f;
    f.name = name;
    f.value.type = plan::FieldType::I32;
    f.value.v = v;
    f.enum_name = "cudaMemcpyKind";
    append_value_text(f.text, f.value, f.enum_name, namer);
    a.fields.push_back(f);
  }
  std::string json;
  append_alert_json(json, a);
  EXPECT_NE(json.find("\"fields\":{\"kind\":\"cudaMemcpyHostToDevice\",\"other\":7}"), std::string::npos)
      << json;
}

}  // namespace
}  // namespace seam::runtime
