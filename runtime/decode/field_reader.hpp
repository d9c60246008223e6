#pragma once
// Reads one field's bytes into a Value, in place. Records are little-endian (the BPF side runs
// on the same host), so fixed-width loads are memcpy; the caller has bounds-checked the field.
#include <cstdint>

#include "compiler/plan/plan.hpp"
#include "runtime/decode/decoded_record.hpp"

namespace seam::runtime {

// Bytes a field reads at its offset (integers use their type's width when size is unusual).
uint32_t field_read_size(const plan::Field& field);

// Decodes `field` from `record` (at least field.offset + field_read_size(field) bytes) into
// `out`, keeping the capacity of a string or stack `out` already holds.
void read_field(const plan::Field& field, const uint8_t* record, Value& out);

}  // namespace seam::runtime
