#include "compiler/bundle/bundle.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "compiler/build/content_hash.hpp"

namespace seam::bundle {

namespace {

constexpr size_t kPrefix = sizeof kMagic + 8;

std::string hash_bytes(std::span<const uint8_t> bytes) {
  return build::ContentHash()
      .add(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()))
      .hex();
}

std::string incompatible(const nlohmann::json& header) {
  std::string by = header.value("engine_version", std::string("an unknown seam"));
  return "built by " + by + " for engine ABI " +
         (header.contains("engine_abi") ? header.at("engine_abi").dump() : std::string("none")) +
         "; this seam runs engine ABI " + std::to_string(kEngineAbi) +
         " bundles only: rebuild it with this seam's `seam build`";
}

}  // namespace

std::vector<uint8_t> encode(const Bundle& bundle) {
  nlohmann::json header;
  header["engine_abi"] = bundle.engine_abi;
  header["engine_version"] = bundle.engine_version;
  header["built_on_kernel"] = bundle.built_on_kernel;
  header["sources"] = nlohmann::json::array();
  for (const Source& s : bundle.sources) header["sources"].push_back({{"path", s.path}, {"hash", s.hash}});
  header["variants"] = nlohmann::json::array();
  uint64_t offset = 0;
  for (const Variant& v : bundle.variants) {
    header["variants"].push_back(
        {{"task_storage", v.task_storage},
         {"plan", v.plan},
         {"object", {{"offset", offset}, {"size", v.object.size()}, {"hash", hash_bytes(v.object)}}}});
    offset += v.object.size();
  }
  std::string text = header.dump();
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  uint64_t len = text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  for (const Variant& v : bundle.variants) out.insert(out.end(), v.object.begin(), v.object.end());
  return out;
}

Decoded decode(std::span<const uint8_t> bytes) {
  Decoded out;
  if (bytes.size() < kPrefix || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    out.error = "not a seam bundle (no SEAMBNDL header)";
    return out;
  }
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i) len |= static_cast<uint64_t>(bytes[sizeof kMagic + i]) << (8 * i);
  if (len > bytes.size() - kPrefix) {
    out.error = "truncated bundle (its header says " + std::to_string(len) + " bytes, the file has " +
                std::to_string(bytes.size() - kPrefix) + ")";
    return out;
  }
  std::span<const uint8_t> objects = bytes.subspan(kPrefix + len);
  try {
    nlohmann::json header = nlohmann::json::parse(bytes.begin() + kPrefix, bytes.begin() + kPrefix + len);
    // The ABI first: a bundle of another engine is refused before anything else of it is read.
    if (!header.contains("engine_abi") || !header["engine_abi"].is_number_integer() ||
        header["engine_abi"].get<int>() != kEngineAbi) {
      out.error = "incompatible bundle: " + incompatible(header);
      return out;
    }
    Bundle b;
    b.engine_version = header.value("engine_version", std::string());
    b.built_on_kernel = header.value("built_on_kernel", std::string());
    for (const nlohmann::json& s : header.at("sources"))
      b.sources.push_back({s.at("path").get<std::string>(), s.at("hash").get<std::string>()});
    for (const nlohmann::json& v : header.at("variants")) {
      Variant variant;
      variant.task_storage = v.at("task_storage").get<bool>();
      v.at("plan").get_to(variant.plan);
      uint64_t offset = v.at("object").at("offset").get<uint64_t>();
      uint64_t size = v.at("object").at("size").get<uint64_t>();
      if (offset > objects.size() || size > objects.size() - offset) {
        out.error = "truncated bundle (an object lies past the end of the file)";
        return out;
      }
      std::span<const uint8_t> object = objects.subspan(offset, size);
      if (hash_bytes(object) != v.at("object").at("hash").get<std::string>()) {
        out.error = "corrupt bundle (an object's content hash does not match its header)";
        return out;
      }
      variant.object.assign(object.begin(), object.end());
      b.variants.push_back(std::move(variant));
    }
    if (b.variants.empty()) {
      out.error = "empty bundle (no compiled variant)";
      return out;
    }
    out.bundle = std::move(b);
  } catch (const nlohmann::json::exception& e) {
    out.error = std::string("corrupt bundle header: ") + e.what();
  }
  return out;
}

bool is_bundle_file(const std::string& path) {
  // Regular files only: opening a FIFO or a device to peek at it could block or consume input.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  char head[sizeof kMagic] = {};
  return in.read(head, sizeof head) && std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

Decoded read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {std::nullopt, path + ": cannot read the bundle: " + std::strerror(errno)};
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Decoded d = decode(bytes);
  if (!d.bundle) d.error = path + ": " + d.error;
  return d;
}

const Variant* pick_variant(const Bundle& bundle, bool task_storage_usable) {
  const Variant* fallback = nullptr;
  for (const Variant& v : bundle.variants) {
    if (v.task_storage == task_storage_usable) return &v;
    if (!v.task_storage) fallback = &v;  // LRU hashes load on every kernel that has the rest
  }
  return fallback;
}

}  // namespace seam::bundle
