#pragma once
// Names of the maps a reload matches by name (span, state, `after` and metric maps): derived
// from what each map serves, never from its position in the set, so that an edit to one rule
// file leaves every other file's maps with the names they had (runtime/run/session_reload.cpp
// keeps a map by name and contents). A name is KIND_READABLE_HASH, at most 15 characters (the
// kernel keeps 15 of a map's name): "s_read_3fa9c01" is a span of a `read` event.
#include <map>
#include <string>

namespace seam::lower {

inline constexpr size_t kMapNameMax = 15;  // BPF_OBJ_NAME_LEN less its NUL

// Map kinds, the first character of a name.
inline constexpr char kSpanMap = 's', kStateMap = 't', kAfterMap = 'a', kMetricMap = 'm', kReaderMap = 'p';

// The name `identity` gets before any disambiguation: `kind`, up to 5 characters of `readable`
// (lower case letters, digits and '_'), and 28 bits of a hash of the kind and the identity.
std::string map_name_candidate(char kind, const std::string& readable, const std::string& identity);

// One set's names. Two identities whose candidates are equal are never given one name: the
// later one asked for (in lowering's order, which is the set's) is hashed again with a salt
// until its name is free, so a collision is a disambiguation, the same for the same set.
class MapNamer {
 public:
  // The same identity gets the same name each time it asks.
  std::string name(char kind, const std::string& readable, const std::string& identity);

 private:
  std::map<std::string, std::string> taken_;  // name -> kind and identity
};

}  // namespace seam::lower
