#include "runtime/identity/identity.hpp"

#include <vector>

namespace seam::runtime {
namespace {

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// "8f1c2e0a-..." or, in systemd slice names, "8f1c2e0a_...": 32 hex digits and 4 separators.
bool is_pod_uid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t k = 0; k < s.size(); ++k) {
    bool separator = k == 8 || k == 13 || k == 18 || k == 23;
    char c = s[k];
    if (separator ? (c != '-' && c != '_') : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  }
  return true;
}

std::string dashed(std::string_view uid) {
  std::string out(uid);
  for (char& c : out)
    if (c == '_') c = '-';
  return out;
}

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    if (!seg.empty()) out.push_back(seg);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// "<prefix><64hex>.scope" → the id.
std::string_view scoped_id(std::string_view seg, std::string_view prefix) {
  if (!seg.starts_with(prefix) || !seg.ends_with(".scope")) return {};
  std::string_view id = seg.substr(prefix.size(), seg.size() - prefix.size() - 6);
  return is_hex64(id) ? id : std::string_view();
}

struct ScopeRuntime {
  std::string_view prefix;
  std::string_view runtime;
};
constexpr ScopeRuntime kScopes[] = {
    {"cri-containerd-", "containerd"}, {"crio-", "cri-o"}, {"docker-", "docker"}, {"libpod-", "podman"}};

void parse_segment(Identity& id, std::string_view seg, std::string_view parent, bool under_kubepods) {
  for (const ScopeRuntime& s : kScopes) {
    if (std::string_view cid = scoped_id(seg, s.prefix); !cid.empty()) {
      id.container_id = cid;
      id.container_runtime = s.runtime;
      return;
    }
  }
  if (is_hex64(seg)) {  // cgroupfs driver: the bare id under its pod, or under /docker
    id.container_id = seg;
    id.container_runtime = parent == "docker" ? "docker" : under_kubepods ? "containerd" : "";
    return;
  }
  // systemd driver: kubepods-burstable.slice, kubepods-burstable-pod<uid>.slice, kubepods-pod<uid>.slice
  if (seg.starts_with("kubepods-") && seg.ends_with(".slice")) {
    std::string_view rest = seg.substr(9, seg.size() - 9 - 6);
    for (std::string_view qos : {"burstable", "besteffort"}) {
      if (rest == qos || rest.starts_with(std::string(qos) + "-")) {
        id.qos_class = qos;
        rest.remove_prefix(rest == qos ? rest.size() : qos.size() + 1);
      }
    }
    if (rest.starts_with("pod") && is_pod_uid(rest.substr(3))) id.pod_uid = dashed(rest.substr(3));
    return;
  }
  if (!under_kubepods) return;
  // cgroupfs driver: /kubepods/burstable/pod<uid>/<id>
  if (seg == "burstable" || seg == "besteffort") id.qos_class = seg;
  if (seg.starts_with("pod") && is_pod_uid(seg.substr(3))) id.pod_uid = dashed(seg.substr(3));
}

}  // namespace

Identity parse_cgroup_path(std::string_view path) {
  Identity id;
  id.cgroup_path = path;
  std::string_view parent;
  bool under_kubepods = false;
  for (std::string_view seg : segments(path)) {
    if (seg == "kubepods" || seg == "kubepods.slice") under_kubepods = true;
    parse_segment(id, seg, parent, under_kubepods);
    parent = seg;
  }
  // Guaranteed pods have no QoS level of their own in the path.
  if (!id.pod_uid.empty() && id.qos_class.empty()) id.qos_class = "guaranteed";
  return id;
}

std::string cgroup_path_from_proc(std::string_view text) {
  std::string first_v1, labelled_v1;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    // hierarchy-id:controllers:path; the path may itself contain ':'.
    size_t a = line.find(':');
    size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view path = line.substr(b + 1);
    if (line.substr(0, a) == "0" && b == a + 1) return std::string(path);
    if (first_v1.empty()) first_v1 = path;
    if (labelled_v1.empty()) {
      Identity id = parse_cgroup_path(path);
      if (!id.container_id.empty() || !id.pod_uid.empty()) labelled_v1 = path;
    }
  }
  return labelled_v1.empty() ? first_v1 : labelled_v1;
}

}  // namespace seam::runtime
