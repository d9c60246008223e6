// libcurl, loaded when first used. seam links none of libcurl's symbols: these definitions take
// their place and forward to libcurl.so.4, opened by dlopen on the first call. Linked at start,
// libcurl and the 31 libraries it needs (TLS, LDAP, SSH, Kerberos...) cost every process start
// about 3.5 ms of CPU in the dynamic loader (docs/BENCHMARK.md), though only a webhook, an
// Alertmanager output or --pods ever calls it. The callers (runtime/output/webhook_http.cpp,
// runtime/identity/pod_directory.cpp) use the ordinary curl API and handle its failures, which is
// what they get when the library cannot be opened: curl_easy_init() returns NULL, the rest an
// error code or nothing.
// The curl API as declared, without its type-checking macros, which would rename these definitions.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>

#include <cstdarg>
#include <mutex>

namespace {

struct CurlApi {
  bool ok = false;
  CURLcode (*global_init)(long) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;
  char* (*easy_escape)(CURL*, const char*, int) = nullptr;
  void (*free)(void*) = nullptr;
};

template <class Fn>
bool find(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

const CurlApi& api() {
  static CurlApi a;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    a.ok = find(lib, "curl_global_init", a.global_init) && find(lib, "curl_easy_init", a.easy_init) &&
           find(lib, "curl_easy_setopt", a.easy_setopt) && find(lib, "curl_easy_getinfo", a.easy_getinfo) &&
           find(lib, "curl_easy_perform", a.easy_perform) && find(lib, "curl_easy_cleanup", a.easy_cleanup) &&
           find(lib, "curl_easy_strerror", a.easy_strerror) &&
           find(lib, "curl_slist_append", a.slist_append) &&
           find(lib, "curl_slist_free_all", a.slist_free_all) &&
           find(lib, "curl_easy_escape", a.easy_escape) && find(lib, "curl_free", a.free);
  });
  return a;
}

// The type of a curl_easy_setopt argument, from the option's number (curl.h's CURLOPTTYPE_*
// ranges): a long, a curl_off_t, or a pointer (object, function or blob).
enum class SetoptArg { Long, OffT, Pointer };

SetoptArg setopt_arg(CURLoption option) {
  if (option < CURLOPTTYPE_OBJECTPOINT) return SetoptArg::Long;
  if (option >= CURLOPTTYPE_OFF_T && option < CURLOPTTYPE_BLOB) return SetoptArg::OffT;
  return SetoptArg::Pointer;
}

}  // namespace

extern "C" {

CURLcode curl_global_init(long flags) {
  return api().ok ? api().global_init(flags) : CURLE_FAILED_INIT;
}

CURL* curl_easy_init() {
  return api().ok ? api().easy_init() : nullptr;
}

// The variadic argument is read before anything else is called (the analyzer loses a va_list
// across the calls api() makes the first time), then passed on as its type.
CURLcode curl_easy_setopt(CURL* curl, CURLoption option, ...) {
  const SetoptArg kind = setopt_arg(option);
  long as_long = 0;
  curl_off_t as_off = 0;
  void* as_pointer = nullptr;
  va_list args;
  va_start(args, option);
  if (kind == SetoptArg::Long)
    as_long = va_arg(args, long);
  else if (kind == SetoptArg::OffT)
    as_off = va_arg(args, curl_off_t);
  else
    as_pointer = va_arg(args, void*);
  va_end(args);
  if (!api().ok || !curl) return CURLE_FAILED_INIT;
  if (kind == SetoptArg::Long) return api().easy_setopt(curl, option, as_long);
  if (kind == SetoptArg::OffT) return api().easy_setopt(curl, option, as_off);
  return api().easy_setopt(curl, option, as_pointer);
}

// Every getinfo's argument is a pointer to where the value goes.
CURLcode curl_easy_getinfo(CURL* curl, CURLINFO info, ...) {
  va_list args;
  va_start(args, info);
  void* where = va_arg(args, void*);
  va_end(args);
  if (!api().ok || !curl) return CURLE_FAILED_INIT;
  return api().easy_getinfo(curl, info, where);
}

CURLcode curl_easy_perform(CURL* curl) {
  return api().ok && curl ? api().easy_perform(curl) : CURLE_FAILED_INIT;
}

void curl_easy_cleanup(CURL* curl) {
  if (api().ok && curl) api().easy_cleanup(curl);
}

const char* curl_easy_strerror(CURLcode code) {
  return api().ok ? api().easy_strerror(code) : "libcurl.so.4 cannot be loaded";
}

curl_slist* curl_slist_append(curl_slist* list, const char* text) {
  return api().ok ? api().slist_append(list, text) : nullptr;
}

void curl_slist_free_all(curl_slist* list) {
  if (api().ok) api().slist_free_all(list);
}

char* curl_easy_escape(CURL* curl, const char* text, int length) {
  return api().ok ? api().easy_escape(curl, text, length) : nullptr;
}

void curl_free(void* p) {
  if (api().ok) api().free(p);
}

}  // extern "C"
