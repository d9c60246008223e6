#pragma once
// A compiled rule bundle (`seam build -o FILE`, `seam run FILE`): the BPF objects built from a
// set of rule files, with their plans, so that a host without clang or kernel headers can run
// them. The objects carry CO-RE relocations that libbpf resolves against the running kernel's
// BTF at load. docs/operations.md describes the format and when a bundle is refused.
//
// The file: the 8 bytes "SEAMBNDL", a little-endian u64 header length, the header (JSON), then
// the objects back to back (the header gives each one's offset from the end of the header, size
// and content hash).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/plan/plan.hpp"

namespace seam::bundle {

inline constexpr char kMagic[8] = {'S', 'E', 'A', 'M', 'B', 'N', 'D', 'L'};

// The contract between a bundle and the seam that runs it: the plan's JSON schema, the record
// header, the map and read-only variable names the loader sets (seam_events, seam_drops,
// seam_unit_tag, seam_wakeup_bytes) and the exec-notice rule id. Raise it whenever one of them
// changes incompatibly; a bundle with another value is refused, never half-run.
// 2: message holes and `with` items carry their resolved value (plan::ValueRef);
// 3: per-rule scopes (Plan::scopes, seam_scope_masks), identity tests, unavailable rules;
// 4: the rule files' outputs and routes are the plan's (Plan::outputs, Plan::routes).
inline constexpr int kEngineAbi = 4;

struct Source {
  std::string path;  // as given to `seam build`
  std::string hash;  // build::ContentHash of its text
};

// One build of all the rule files. Per-thread values live in task-local storage where the kernel
// allows it and in LRU hashes elsewhere; the choice changes the C, so a bundle holds a variant
// for each and the runner takes the one its kernel can load.
struct Variant {
  bool task_storage = false;
  plan::Plan plan;
  std::vector<uint8_t> object;
};

struct Bundle {
  int engine_abi = kEngineAbi;
  std::string engine_version;   // "seam 0.1.0 (git 8394c38)" of the seam that built it
  std::string built_on_kernel;  // the build host's kernel (its BTF gave the types), for people
  std::vector<Source> sources;  // rule files and the modules they use
  std::vector<Variant> variants;
};

std::vector<uint8_t> encode(const Bundle& bundle);

struct Decoded {
  std::optional<Bundle> bundle;
  std::string error;  // when bundle is empty: why, for people (the caller adds the file name)
};

// Refuses data that is not a bundle, is truncated or corrupt, or comes from another engine ABI.
Decoded decode(std::span<const uint8_t> bytes);

// True when the path is a regular file that starts with the bundle magic (so that `seam run FILE` knows what
// it got).
bool is_bundle_file(const std::string& path);

// Reads and decodes; the error names the file.
Decoded read_file(const std::string& path);

// The variant to load where task-local storage is (or is not) usable; null when the bundle
// has none that fits.
const Variant* pick_variant(const Bundle& bundle, bool task_storage_usable);

}  // namespace seam::bundle
