#pragma once
// Every kind of notice seam writes (Notice::kind, the "notice" key of the JSON output), in one
// table: its id and what it means. docs/outputs.md lists them all ("### Notices"), and a unit test
// (tests/unit/output_notice_kind_test.cpp) fails when one is missing there. A new notice is a
// row here, a row there, and `notice_id(NoticeKind::...)` where it is written.
#include <span>
#include <string_view>

namespace seam::runtime {

enum class NoticeKind {
  Ready,
  Stopped,
  Attached,
  ProbeUnavailable,
  ProbeFailed,
  SlowProbe,
  LibraryMissing,
  LibraryUnreadable,
  LoadFailed,
  ExecNoticesUnavailable,
  LoaderHookUnavailable,
  Drops,
  OutputDrops,
  Suppressed,
  LimitOverflow,
  DecodeError,
  ScopeEntered,
  ScopeCgroupGone,
  ScopeUnavailable,
  ScopeFollowUnavailable,
  IdentityUnavailable,
  Interpreter,
  InterpreterUnsupported,
  MetricsUnavailable,
  Listening,
  Privileges,
  WatchUnavailable,
  TargetExited,
  PodsUnavailable,
  PodsAvailable,
  Reloaded,
  ReloadFailed,
  ReloadIncomplete,
  WebhookInsecure,
  WebhookSpool,
  WebhookUp,
  WebhookDown,
};

struct NoticeKindInfo {
  NoticeKind kind;
  const char* id;   // "probe-unavailable"
  const char* doc;  // one sentence for docs/outputs.md
};

// Header-only: every stage that writes notices (run, python, output) uses it without a link.
inline constexpr NoticeKindInfo kNoticeKinds[] = {
    {NoticeKind::Ready, "ready",
     "the rules' object is attached: how many probes for how many rules, in how long"},
    {NoticeKind::Stopped, "stopped", "the run ends: probes detached, records read and dropped"},
    {NoticeKind::Attached, "attached", "probes attached in a library file (and the processes that map it)"},
    {NoticeKind::ProbeUnavailable, "probe-unavailable",
     "a probe this kernel cannot attach; the rules on it do not run"},
    {NoticeKind::ProbeFailed, "probe-failed", "attaching a probe failed; the rules on it do not run there"},
    {NoticeKind::SlowProbe, "slow-probe", "a uprobe the kernel single-steps (about 20 us a hit)"},
    {NoticeKind::LibraryMissing, "library-missing", "a library a probe names by path does not exist"},
    {NoticeKind::LibraryUnreadable, "library-unreadable",
     "a library file whose symbols or USDT notes cannot be read"},
    {NoticeKind::LoadFailed, "load-failed", "the ring buffer or a unit's programs could not be loaded"},
    {NoticeKind::ExecNoticesUnavailable, "exec-notices-unavailable",
     "exec cannot be followed: new processes are found by rescans only"},
    {NoticeKind::LoaderHookUnavailable, "loader-hook-unavailable",
     "the dynamic loader's hook is not running (or not on one loader file): short-lived processes' libraries "
     "may be missed"},
    {NoticeKind::Drops, "drops",
     "records dropped (a full ring buffer, per rule) or alerts a webhook dropped, with their count"},
    {NoticeKind::OutputDrops, "output-drops",
     "alerts and notices one output lost (its queue was full behind a slow disk or reader, or a write "
     "failed), "
     "with their count; the other outputs have them"},
    {NoticeKind::Suppressed, "suppressed", "alerts a rule's `limit` held back that no later alert carried"},
    {NoticeKind::LimitOverflow, "limit-overflow", "more processes than `limit ... per process` keeps apart"},
    {NoticeKind::DecodeError, "decode-error",
     "a record that does not match its rule's layout (further ones are counted)"},
    {NoticeKind::ScopeEntered, "scope-entered", "a process entered a scoped file's scope"},
    {NoticeKind::ScopeCgroupGone, "scope-cgroup-gone", "the cgroup a scope names no longer exists"},
    {NoticeKind::ScopeUnavailable, "scope-unavailable",
     "the scope map cannot be kept: every rule runs host-wide"},
    {NoticeKind::ScopeFollowUnavailable, "scope-follow-unavailable",
     "children of processes in scope are found by rescans only"},
    {NoticeKind::IdentityUnavailable, "identity-unavailable",
     "the cgroups a file's container and pod tests match could not be brought up to date"},
    {NoticeKind::Interpreter, "interpreter", "a state read from memory reads this process's interpreter"},
    {NoticeKind::InterpreterUnsupported, "interpreter-unsupported",
     "a process whose interpreter cannot be read: the state is false in it"},
    {NoticeKind::MetricsUnavailable, "metrics-unavailable",
     "/metrics could not listen, or a metric map cannot be read"},
    {NoticeKind::Listening, "listening", "where /metrics is served"},
    {NoticeKind::Privileges, "privileges", "capabilities could not be dropped after loading"},
    {NoticeKind::WatchUnavailable, "watch-unavailable",
     "rule files are not watched for changes (SIGHUP still reloads)"},
    {NoticeKind::TargetExited, "target-exited",
     "the command of `-c`, or the process of `--pid`, exited; the run stops"},
    {NoticeKind::PodsUnavailable, "pods-unavailable",
     "the pod list (`--pods`) cannot be read: alerts keep the pod UID only"},
    {NoticeKind::PodsAvailable, "pods-available", "the pod list is read again"},
    {NoticeKind::Reloaded, "reloaded", "a reload finished: files compiled, failed, unchanged, removed"},
    {NoticeKind::ReloadFailed, "reload-failed",
     "a reload failed (check, build or load; its first error names the file and line); the running object "
     "keeps running"},
    {NoticeKind::ReloadIncomplete, "reload-incomplete",
     "a rules folder could not be listed whole; its running files keep running"},
    {NoticeKind::WebhookInsecure, "webhook-insecure", "a webhook's TLS certificate verification is off"},
    {NoticeKind::WebhookSpool, "webhook-spool", "alerts spooled by an earlier run are replayed"},
    {NoticeKind::WebhookUp, "webhook-up", "a webhook answers again after failures"},
    {NoticeKind::WebhookDown, "webhook-down",
     "a webhook delivery failed; it is retried with backoff (and spooled)"},
};

inline std::span<const NoticeKindInfo> notice_kinds() {
  return kNoticeKinds;
}

constexpr const char* notice_id(NoticeKind kind) {
  for (const NoticeKindInfo& k : kNoticeKinds)
    if (k.kind == kind) return k.id;
  return "notice";
}

}  // namespace seam::runtime
