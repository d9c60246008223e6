#include "runtime/output/webhook_options.hpp"

#include <charconv>

namespace seam::runtime {
namespace {

bool parse_uint(std::string_view text, uint64_t& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "250ms", "5s", "5m", "1h"; a bare number is milliseconds.
bool parse_duration_ms(std::string_view text, std::chrono::milliseconds& out) {
  struct Unit {
    std::string_view suffix;
    uint64_t ms;
  };
  static constexpr Unit units[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  uint64_t scale = 1;
  for (const Unit& u : units) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      std::string_view number = text.substr(0, text.size() - u.suffix.size());
      if (number.back() < '0' || number.back() > '9') continue;  // "ms" must not read as "m" + "s"
      text = number;
      scale = u.ms;
      break;
    }
  }
  uint64_t n = 0;
  if (!parse_uint(text, n)) return false;
  out = std::chrono::milliseconds(n * scale);
  return true;
}

// "1048576", "512KiB", "64MiB", "1GiB".
bool parse_size(std::string_view text, uint64_t& out) {
  uint64_t scale = 1;
  if (text.ends_with("KiB")) scale = 1ull << 10;
  if (text.ends_with("MiB")) scale = 1ull << 20;
  if (text.ends_with("GiB")) scale = 1ull << 30;
  if (scale != 1) text.remove_suffix(3);
  if (!parse_uint(text, out)) return false;
  out *= scale;
  return true;
}

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Expands $NAME and ${NAME}; an unset variable is an error naming it (never its value).
Result<std::string> expand_env(std::string_view text, const GetEnv& getenv) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '$') {
      out.push_back(text[i++]);
      continue;
    }
    size_t start = i + 1;
    bool braced = start < text.size() && text[start] == '{';
    if (braced) ++start;
    size_t end = start;
    while (end < text.size() && is_name_char(text[end])) ++end;
    if (end == start || (braced && (end >= text.size() || text[end] != '}')))
      return Error{"malformed variable reference in header '" + std::string(text) + "'"};
    std::string name(text.substr(start, end - start));
    const char* value = getenv(name.c_str());
    if (!value)
      return Error{"header '" + std::string(text) + "' needs environment variable $" + name +
                   ", which is not set"};
    out.append(value);
    i = braced ? end + 1 : end;
  }
  return out;
}

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t comma = text.find(',');
    parts.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return parts;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

// Chat webhooks carry their secret in the path (/hooks/T0/B0/SECRET) or the query (?token=):
// only the scheme and host[:port] are ever shown.
std::string redact_url(std::string_view url) {
  size_t scheme = url.find("://");
  size_t host_start = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t host_end = url.find_first_of("/?#", host_start);
  if (host_end == std::string_view::npos) host_end = url.size();
  std::string_view authority = url.substr(host_start, host_end - host_start);
  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  return std::string(url.substr(0, host_start)) + std::string(authority);
}

std::string shown_webhook(const WebhookOptions& o) {
  std::string origin = redact_url(o.url);
  return o.name.empty() ? origin : o.name + " (" + origin + ")";
}

Result<WebhookOptions> parse_webhook_spec(std::string_view spec, const GetEnv& getenv) {
  std::vector<std::string_view> parts = split_commas(spec);
  WebhookOptions o;
  o.url = std::string(parts[0]);
  if (o.url.empty()) return Error{"output 'webhook:' names no URL (expected webhook:URL[,option...])"};
  if (!o.url.starts_with("http://") && !o.url.starts_with("https://"))
    return Error{"webhook URL '" + redact_url(o.url) + "' must start with http:// or https://"};

  for (size_t k = 1; k < parts.size(); ++k) {
    std::string_view part = parts[k];
    size_t eq = part.find('=');
    std::string_view key = part.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
    auto bad = [&](std::string_view expected) {
      return Error{"webhook option '" + std::string(key) + "': expected " + std::string(expected)};
    };
    uint64_t n = 0;
    if (key == "insecure" && eq == std::string_view::npos) {
      o.insecure = true;
    } else if (key == "name") {
      if (value.empty()) return bad("an output name");
      o.name = std::string(value);
    } else if (key == "format") {
      if (value == "json")
        o.format = WebhookFormat::Json;
      else if (value == "alertmanager")
        o.format = WebhookFormat::Alertmanager;
      else
        return bad("json or alertmanager");
    } else if (key == "header" || key == "pods_header") {
      size_t colon = value.find(':');
      if (colon == std::string_view::npos || colon == 0) return bad("Name:VALUE");
      std::string_view shown = value.substr(colon + 1);
      while (!shown.empty() && shown.front() == ' ') shown.remove_prefix(1);
      auto expanded = expand_env(shown, getenv);
      if (!expanded) return Error{"webhook option '" + std::string(key) + "': " + expanded.error()};
      (key == "header" ? o.headers : o.pods_headers)
          .push_back({std::string(value.substr(0, colon)), std::move(*expanded), std::string(shown)});
    } else if (key == "pods") {
      if (!value.starts_with("http://") && !value.starts_with("https://")) return bad("an http(s) URL");
      o.pods_url = std::string(value);
    } else if (key == "batch") {
      if (!parse_uint(value, n) || n == 0) return bad("a number of alerts > 0");
      o.batch_max = n;
    } else if (key == "queue") {
      if (!parse_uint(value, n) || n == 0) return bad("a number of alerts > 0");
      o.queue_max = n;
    } else if (key == "attempts") {
      if (!parse_uint(value, n) || n == 0 || n > 1000) return bad("a number of tries from 1 to 1000");
      o.attempts_before_spool = static_cast<int>(n);
    } else if (key == "spool") {
      if (value.empty()) return bad("a directory");
      o.spool_dir = std::string(value);
    } else if (key == "spool_bytes") {
      if (!parse_size(value, o.spool_max_bytes)) return bad("a size (1048576, 512KiB, 64MiB)");
    } else if (key == "batch_wait" || key == "timeout" || key == "retry" || key == "retry_max" ||
               key == "drain" || key == "resolve") {
      std::chrono::milliseconds d{};
      if (!parse_duration_ms(value, d)) return bad("a duration (250ms, 5s, 5m)");
      if (key == "batch_wait") o.batch_wait = d;
      if (key == "timeout") o.timeout = d;
      if (key == "retry") o.retry_initial = d;
      if (key == "retry_max") o.retry_max = d;
      if (key == "drain") o.drain_timeout = d;
      if (key == "resolve") o.resolve_timeout = std::chrono::duration_cast<std::chrono::seconds>(d);
    } else if (key == "generator") {
      o.generator_url = std::string(value);
    } else if (key == "instance") {
      o.instance = std::string(value);
    } else {
      return Error{
          "unknown webhook option '" + std::string(key) +
          "' (expected format, header, insecure, batch, batch_wait, timeout, queue, retry, "
          "retry_max, attempts, spool, spool_bytes, drain, resolve, generator, instance, pods, pods_header)"};
    }
  }
  if (o.timeout.count() == 0) return Error{"webhook option 'timeout': must be more than 0"};
  if (o.retry_max < o.retry_initial) o.retry_max = o.retry_initial;
  return o;
}

}  // namespace seam::runtime
