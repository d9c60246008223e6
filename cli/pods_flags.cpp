#include "cli/pods_flags.hpp"

#include <fstream>
#include <sstream>

namespace seam::cli {

runtime::Result<std::shared_ptr<runtime::PodDirectory>> pod_directory(
    const PodsFlags& flags, const std::function<const char*(const char*)>& getenv) {
  if (flags.url.empty()) {
    if (!flags.token_file.empty() || flags.insecure)
      return runtime::Error{"--pods-token-file and --pods-insecure need --pods URL"};
    return std::shared_ptr<runtime::PodDirectory>();
  }
  if (!flags.url.starts_with("http://") && !flags.url.starts_with("https://"))
    return runtime::Error{"--pods '" + flags.url + "' must be an http:// or https:// URL"};
  runtime::PodDirectoryOptions options;
  options.url = flags.url;
  options.insecure = flags.insecure;
  std::string token;
  if (!flags.token_file.empty()) {
    std::ifstream in(flags.token_file);
    if (!in) return runtime::Error{"--pods-token-file " + flags.token_file + ": cannot be read"};
    std::stringstream text;
    text << in.rdbuf();
    token = text.str();
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
      token.pop_back();
    if (token.empty()) return runtime::Error{"--pods-token-file " + flags.token_file + " is empty"};
  } else if (const char* env = getenv("SEAM_PODS_TOKEN"); env && *env) {
    token = env;
  }
  if (!token.empty()) options.headers.push_back("Authorization: Bearer " + token);
  return std::make_shared<runtime::PodDirectory>(std::move(options));
}

}  // namespace seam::cli
