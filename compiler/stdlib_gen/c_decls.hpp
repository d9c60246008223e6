#pragma once
// What `seam stdlib gen` reads out of a C header: functions with their parameter and result types,
// and the enums those types name. Types are already canonical (typedefs followed), with sizes, so
// that the mapping to seam fields (seam_fields.hpp) needs no libclang.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace seam::stdlib_gen {

enum class CTypeKind { Void, Bool, Integer, Enum, Pointer, Float, Record, Other };

// One scalar inside a struct or union passed by value, flattened (nested records and arrays
// expanded), with its byte offset: enough to place it in argument registers.
struct CLeaf {
  std::string name;  // "x", "inner.y", "a[1]"
  int offset = 0;    // bytes from the start of the record
  int size = 0;      // bytes
  bool is_float = false;
};

struct CType {
  CTypeKind kind = CTypeKind::Other;
  std::string spelling;       // as written in the declaration: "cudaStream_t", "size_t"
  int size = 0;               // bytes; 0 when unknown (void, incomplete)
  bool is_signed = false;     // Integer and Enum (the enum's underlying type)
  std::string enum_name;      // Enum: the enum's tag, or its typedef's name when it has none
  std::vector<CLeaf> leaves;  // Record
};

struct CParam {
  std::string name;  // empty when the declaration leaves it out
  CType type;
  std::string doc;  // the function comment's \param text for it, if any
};

struct CFunction {
  std::string name;
  std::string doc;  // the comment's brief text (first paragraph), whitespace collapsed
  std::vector<CParam> params;
  CType result;
  bool is_static = false;  // static (inline) in the header: no symbol in the library
  bool is_variadic = false;
  std::string location;  // file:line:col where the declaration is (macro expansions included)
};

struct CEnum {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> values;  // in declaration order
};

struct CHeader {
  std::vector<CFunction> functions;    // in declaration order, each name once
  std::map<std::string, CEnum> enums;  // every enum a parameter or result uses, by name
};

}  // namespace seam::stdlib_gen
