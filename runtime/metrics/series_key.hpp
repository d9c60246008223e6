#pragma once
// A metric map's key, {u32 other; u32 pad; labels at their offsets}, as label names and values.
#include <map>
#include <string>

#include "compiler/plan/plan.hpp"
#include "runtime/metrics/series.hpp"

namespace seam::runtime::metrics {

// True for the overflow series (other == 1): the kernel folds updates there when the map is full.
bool is_other_key(const std::string& key);

// Label values in the metric's label order: comm (a char array) up to its first NUL, numbers in
// decimal (by name where the label's enum in `enums` names the value); every value "other" for
// the overflow series. Bytes past the key's end read as zero.
Labels decode_labels(const plan::Metric& metric, const std::string& key,
                     const std::map<std::string, std::map<int64_t, std::string>>& enums = {});

}  // namespace seam::runtime::metrics
