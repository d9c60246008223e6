// Every diagnostic the checker emits, with the exact text `seam lint` prints for it: the
// message, the underlined range and the hints. Each case is a small rule file (rules/a.seam,
// plus module files where the case needs them) checked against the repository's stdlib.
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::lint_files;

TEST(CheckDiagnostics, UnknownModuleE0101) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cdua
)"}}),
            R"(rules/a.seam:1:5: error[E0101]: unknown module 'cdua'
    1 | use cdua
      |     ^~~~
      = hint: did you mean cuda?

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownLibraryE0102) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(module gpu
library cudart = "libcudart.so*"
span sync = cuadrt:cudaStreamSynchronize
)"}}),
            R"(rules/a.seam:3:13: error[E0102]: unknown library 'cuadrt': not declared in module gpu
    3 | span sync = cuadrt:cudaStreamSynchronize
      |             ^~~~~~
      = hint: did you mean cudart?

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownEventE0103) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule slow
    on cuda.stream_synk where duration > 10ms
    alert "slow"
)"}}),
            R"(rules/a.seam:3:8: error[E0103]: unknown event 'cuda.stream_synk'
    3 |     on cuda.stream_synk where duration > 10ms
      |        ^~~~~~~~~~~~~~~~
      = hint: did you mean cuda.stream_sync?

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownEventUnqualifiedE0103) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule slow
    on stream_synk
    alert "slow"
)"}}),
            R"(rules/a.seam:3:8: error[E0103]: unknown event 'stream_synk'
    3 |     on stream_synk
      |        ^~~~~~~~~~~
      = hint: did you mean cuda.stream_sync?

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownEventNotUsedE0103) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use python
rule slow
    on cudaMalloc
    alert "slow"
)"}}),
            R"(rules/a.seam:3:8: error[E0103]: unknown event 'cudaMalloc'
    3 |     on cudaMalloc
      |        ^~~~~~~~~~
      = hint: cuda.cudaMalloc is in module cuda: add `use cuda`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownFieldE0104) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule big
    on cuda.malloc where sise > 1MiB
    alert "big"
)"}}),
            R"(rules/a.seam:3:26: error[E0104]: unknown field 'sise' of cuda.malloc
    3 |     on cuda.malloc where sise > 1MiB
      |                          ^~~~
      = hint: did you mean size?
      = hint: cuda.malloc has fields: devptr, size, ret, duration, pid, tid, comm, cgroup, uid, cpu, time

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownLabelE0104) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric allocs on cuda.malloc count by comm, node
)"}}),
            R"(rules/a.seam:2:45: error[E0104]: unknown label 'node'
    2 | metric allocs on cuda.malloc count by comm, node
      |                                             ^~~~
      = hint: did you mean pod?
      = hint: `by` takes comm, cgroup, pid, tid, container, container_id, pod, namespace and the fields of cuda.malloc: devptr, size, ret

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownRouteNameE0104) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(output log = stdout
route level >= warning -> log
)"}}),
            R"(rules/a.seam:2:7: error[E0104]: unknown name 'level' in a route condition
    2 | route level >= warning -> log
      |       ^~~~~
      = hint: routes test `severity` (info, warning, error, critical) and `rule` (a rule's name)

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownStateE0105) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda, python
rule r
    on cuda.stream_sync while gil_hold
    alert "x"
)"}}),
            R"(rules/a.seam:3:31: error[E0105]: unknown state 'gil_hold'
    3 |     on cuda.stream_sync while gil_hold
      |                               ^~~~~~~~
      = hint: did you mean python.gil_held?

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownAliasTargetE0106) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(module gpu
alias sync = stream_sink
)"}}),
            R"(rules/a.seam:2:14: error[E0106]: alias target 'stream_sink' is not a known event
    2 | alias sync = stream_sink
      |              ^~~~~~~~~~~

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownOutputE0107) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(output log = stdout
route severity >= warning -> lgo
)"}}),
            R"(rules/a.seam:2:30: error[E0107]: unknown output 'lgo'
    2 | route severity >= warning -> lgo
      |                              ^~~
      = hint: declare it: `output lgo = stdout`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownMetricE0108) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric sync_latency on cuda.stream_sync hist duration
rule r
    when p99(sync_latncy) over 1m > 50ms
    alert "p99 is {value}"
)"}}),
            R"(rules/a.seam:4:14: error[E0108]: unknown metric 'sync_latncy'
    4 |     when p99(sync_latncy) over 1m > 50ms
      |              ^~~~~~~~~~~
      = hint: did you mean sync_latency?

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownFunctionE0109) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric sync_latency on cuda.stream_sync hist duration
rule r
    when p98(sync_latency) over 1m > 50ms
    alert "p98 is {value}"
)"}}),
            R"(rules/a.seam:4:10: error[E0109]: unknown function 'p98'
    4 |     when p98(sync_latency) over 1m > 50ms
      |          ^~~
      = hint: did you mean p90?
      = hint: aggregates are p50, p90, p95, p99, p999, avg, min, max, count, rate, sum

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, AmbiguousNameE0110) {
  EXPECT_EQ(lint_files({{"mods/alpha.seam", R"(module alpha
point tick = interval 1s
)"},
                        {"mods/beta.seam", R"(module beta
point tick = interval 5s
)"},
                        {"rules/a.seam", R"(use alpha, beta
rule r
    on tick
    alert "tick"
)"}}),
            R"(rules/a.seam:3:8: error[E0110]: 'tick' is ambiguous: it could be alpha.tick or beta.tick
    3 |     on tick
      |        ^~~~
      = hint: write the qualified name, e.g. alpha.tick

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, ModuleNotUsedE0111) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(rule r
    on cuda.stream_sync
    alert "x"
)"}}),
            R"(rules/a.seam:2:8: error[E0111]: module 'cuda' is not used in this file
    2 |     on cuda.stream_sync
      |        ^~~~
      = hint: add `use cuda`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, DuplicateNameE0201) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "a"
rule r
    on cuda.free
    alert "b"
)"}}),
            R"(rules/a.seam:5:6: error[E0201]: rule 'r' is declared twice
    5 | rule r
      |      ^
      = hint: first declared at rules/a.seam:2

1 error, 0 warnings
)");
}

// The run's files are one object and a metric one Prometheus family: a metric name is the run's.
TEST(CheckDiagnostics, DuplicateMetricAcrossFilesE0201) {
  EXPECT_EQ(lint_files({{"rules/a.seam", "use cuda\nmetric calls on cuda.malloc count by comm\n"},
                        {"rules/b.seam", "use cuda\nmetric calls on cuda.malloc count by pid\n"}}),
            R"(rules/b.seam:2:8: error[E0201]: metric 'calls' is declared twice
    2 | metric calls on cuda.malloc count by pid
      |        ^~~~~
      = hint: first declared at rules/a.seam:2

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, DuplicateModuleE0202) {
  EXPECT_EQ(lint_files({{"mods/gpu.seam", R"(module gpu
point tick = interval 1s
)"},
                        {"mods/gpu2.seam", R"(module gpu
point tock = interval 1s
)"},
                        {"rules/a.seam", R"(use gpu
)"}}),
            R"(mods/gpu2.seam:1:8: error[E0202]: module 'gpu' is declared twice
    1 | module gpu
      |        ^~~
      = hint: first declared at mods/gpu.seam:1

rules/a.seam:1:5: warning[W0003]: module 'gpu' is used but nothing in this file refers to it
    1 | use gpu
      |     ^~~
      = hint: remove `gpu` from `use`

1 error, 1 warning
)");
}

TEST(CheckDiagnostics, UnitMismatchE0301) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync where duration > 10MiB
    alert "x"
)"}}),
            R"(rules/a.seam:3:42: error[E0301]: cannot compare a duration with a byte count
    3 |     on cuda.stream_sync where duration > 10MiB
      |                                          ^~~~~
      = hint: durations take ns, us, ms, s, m, h

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnitMismatchWithinE0301) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync after cuda.malloc within 4KiB
    alert "x"
)"}}),
            R"(rules/a.seam:3:50: error[E0301]: `within` must be a duration, not a byte count
    3 |     on cuda.stream_sync after cuda.malloc within 4KiB
      |                                                  ^~~~
      = hint: durations take ns, us, ms, s, m, h

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, TypeMismatchStartswithE0302) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where size startswith "4"
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0302]: `startswith` needs strings, but this is a byte count
    3 |     on cuda.malloc where size startswith "4"
      |                          ^~~~

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, TypeMismatchStrIntE0302) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where comm == 5
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0302]: cannot compare 'comm' (str) with '5' (a number)
    3 |     on cuda.malloc where comm == 5
      |                          ^~~~~~~~~

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, TypeMismatchPtrE0302) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where devptr == 5
    alert "x"
)"}}),
            R"(rules/a.seam:3:36: error[E0302]: a pointer can only be compared with 0 or another pointer
    3 |     on cuda.malloc where devptr == 5
      |                                    ^
      = hint: e.g. `devptr != 0`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, TypeMismatchPendingE0302) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync where pending > 1s and pid == 1
    alert "x"
)"}}),
      R"(rules/a.seam:3:31: error[E0302]: 'pending' can only be used on its own, as `where pending > DURATION`
    3 |     on cuda.stream_sync where pending > 1s and pid == 1
      |                               ^~~~~~~
      = hint: it means "still in flight after DURATION"; use `duration` to test finished calls

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, MissingUnitE0303) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync where duration > 10
    alert "x"
)"}}),
            R"(rules/a.seam:3:42: error[E0303]: '10' needs a unit: 'duration' is a duration
    3 |     on cuda.stream_sync where duration > 10
      |                                          ^~
      = hint: write 10ms

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, NotASpanE0304) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(point tick = interval 1s
rule r
    on tick where duration > 1ms
    alert "x"
)"}}),
            R"(rules/a.seam:3:19: error[E0304]: 'duration' needs a span, but tick is a point
    3 |     on tick where duration > 1ms
      |                   ^~~~~~~~
      = hint: tick has fields: pid, tid, comm, cgroup, uid, cpu, time

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownTypeE0305) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(module gpu
library cudart = "libcudart.so*"
span sync = cudart:cudaStreamSynchronize (stream: pointer)
)"}}),
            R"(rules/a.seam:3:51: error[E0305]: unknown type 'pointer'
    3 | span sync = cudart:cudaStreamSynchronize (stream: pointer)
      |                                                   ^~~~~~~
      = hint: types are ptr, bool, str, i8, i16, i32, i64, u8, u16, u32, u64, bytes, duration

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, NotBooleanE0306) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where size
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0306]: `where` needs a condition, but this is a byte count
    3 |     on cuda.malloc where size
      |                          ^~~~
      = hint: compare it with something, e.g. `size > 0`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, NotBooleanWhileE0306) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda, python
rule r
    on cuda.stream_sync while gil_held and duration > 1ms
    alert "x"
)"}}),
            R"(rules/a.seam:3:44: error[E0306]: `while` takes states combined with and, or, not
    3 |     on cuda.stream_sync while gil_held and duration > 1ms
      |                                            ^~~~~~~~~~~~~~
      = hint: move comparisons to `where`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadProbeTargetIntervalE0401) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(point tick = interval 0s
)"}}),
            R"(rules/a.seam:1:14: error[E0401]: an interval must be longer than 0
    1 | point tick = interval 0s
      |              ^~~~~~~~~~~
      = hint: e.g. `interval 1s`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadProbeTargetPerfE0401) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(point sample = perf cpu_clock every 0
)"}}),
            R"(rules/a.seam:1:16: error[E0401]: a perf event needs a rate above 0
    1 | point sample = perf cpu_clock every 0
      |                ^~~~~~~~~~~~~~~~~~~~~~
      = hint: e.g. `perf cpu-clock at 99 hz` or `every 1000`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadSpanKeyE0402) {
  EXPECT_EQ(
      lint_files(
          {{"rules/a.seam",
            R"(span offcpu = tracepoint sched:sched_switch key prev_tid .. tracepoint sched:sched_switch key next_pid
    (prev_pid: i32, next_pid: i32)
)"}}),
      R"(rules/a.seam:1:49: error[E0402]: span key 'prev_tid' is not a field of offcpu
    1 | span offcpu = tracepoint sched:sched_switch key prev_tid .. tracepoint sched:sched_switch key next_pid
      |                                                 ^~~~~~~~
      = hint: did you mean prev_pid?
      = hint: offcpu declares prev_pid, next_pid

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadSpanKeyTypeE0402) {
  EXPECT_EQ(
      lint_files(
          {{"rules/a.seam",
            R"(span run = tracepoint sched:sched_switch key prev_comm .. tracepoint sched:sched_switch key next_pid
    (prev_comm: str, next_pid: i32)
)"}}),
      R"(rules/a.seam:1:46: error[E0402]: span key 'prev_comm' must be an integer field, but it is str
    1 | span run = tracepoint sched:sched_switch key prev_comm .. tracepoint sched:sched_switch key next_pid
      |                                              ^~~~~~~~~
      = hint: keys match an end to its begin: a pid, tid, or id

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadStateTransitionE0403) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(module py
library a = "liba.so"
library b = "libb.so"
state busy per thread
    set on entry of work
    clear on return of work
)"}}),
      R"(rules/a.seam:5:21: error[E0403]: `set on entry of work` does not say which library 'work' is in: module py declares 2 libraries
    5 |     set on entry of work
      |                     ^~~~
      = hint: write `a:work`

rules/a.seam:6:24: error[E0403]: `clear on return of work` does not say which library 'work' is in: module py declares 2 libraries
    6 |     clear on return of work
      |                        ^~~~
      = hint: write `a:work`

2 errors, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownSeverityE0501) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert warn "x"
)"}}),
            R"(rules/a.seam:4:11: error[E0501]: unknown severity 'warn'
    4 |     alert warn "x"
      |           ^~~~
      = hint: did you mean warning?
      = hint: severities are info, warning, error, critical

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadLimitE0502) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    limit 0 per 1m
)"}}),
            R"(rules/a.seam:5:5: error[E0502]: a limit must allow at least 1 alert
    5 |     limit 0 per 1m
      |     ^~~~~~~~~~~~~~
      = hint: e.g. `limit 10 per 1m`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadGroupE0508) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    group within 0s
)"}}),
            R"(rules/a.seam:5:5: error[E0508]: a group's window must be longer than 0
    5 |     group within 0s
      |     ^~~~~~~~~~~~~~~
      = hint: e.g. `group within 10s`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, GroupWithoutUnitE0303) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    group within 10
)"}}),
      R"(rules/a.seam:5:18: error[E0303]: group window '10' needs a time unit (ns, us, ms, s, m, h), e.g. 1m
    5 |     group within 10
      |                  ^~

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadInterpolationNeedsAfterE0503) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync
    alert "after a malloc of {cuda.malloc.size}"
)"}}),
      R"(rules/a.seam:4:31: error[E0503]: {cuda.malloc.size} needs the rule to correlate with cuda.malloc
    4 |     alert "after a malloc of {cuda.malloc.size}"
      |                               ^~~~~~~~~~~~~~~~
      = hint: add `after cuda.malloc within 100ms`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadInterpolationUnknownE0503) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "malloc of {sise}"
)"}}),
            R"(rules/a.seam:4:23: error[E0503]: unknown field '{sise}' in the message
    4 |     alert "malloc of {sise}"
      |                       ^~~~
      = hint: did you mean size?
      = hint: cuda.malloc has fields: devptr, size, ret, duration, pid, tid, comm, cgroup, uid, cpu, time

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadInterpolationValueE0503) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "malloc of {value}"
)"}}),
            R"(rules/a.seam:4:23: error[E0503]: {value} is only set in windowed rules (`when ...`)
    4 |     alert "malloc of {value}"
      |                       ^~~~~
      = hint: cuda.malloc has fields: devptr, size, ret, duration, pid, tid, comm, cgroup, uid, cpu, time

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadWithItemE0504) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    with ustak
    limit 1 per 1m
)"}}),
            R"(rules/a.seam:5:10: error[E0504]: unknown `with` item 'ustak'
    5 |     with ustak
      |          ^~~~~
      = hint: did you mean ustack?
      = hint: `with` takes ustack, kstack, pystack, stack, pid, tid, comm, cgroup, uid, cpu, time and the fields of cuda.malloc: devptr, size, ret

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadOutputFormatE0505) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(output hook = webhook "https://alerts.example/hook" format yaml
)"}}),
            R"(rules/a.seam:1:60: error[E0505]: unknown webhook format 'yaml'
    1 | output hook = webhook "https://alerts.example/hook" format yaml
      |                                                            ^~~~
      = hint: formats are json, alertmanager

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadOutputUrlE0505) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(output hook = webhook "alerts.example/hook"
)"}}),
            R"(rules/a.seam:1:23: error[E0505]: a webhook needs an http:// or https:// URL
    1 | output hook = webhook "alerts.example/hook"
      |                       ^~~~~~~~~~~~~~~~~~~~~
      = hint: e.g. `webhook "https://alerts.example/hook"`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadWindowMissingE0506) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric sync_latency on cuda.stream_sync hist duration
rule r
    when p99(sync_latency) > 50ms
    alert "x"
)"}}),
            R"(rules/a.seam:4:10: error[E0506]: 'p99(sync_latency)' needs a window
    4 |     when p99(sync_latency) > 50ms
      |          ^~~~~~~~~~~~~~~~~
      = hint: add `over 1m` after it

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadWindowUnitE0506) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric sync_latency on cuda.stream_sync hist duration
rule r
    when p99(sync_latency) over 60 > 50ms
    alert "x"
)"}}),
            R"(rules/a.seam:4:33: error[E0506]: the window needs a time unit
    4 |     when p99(sync_latency) over 60 > 50ms
      |                                 ^~
      = hint: write 60m

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadWindowWithOnE0506) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric sync_latency on cuda.stream_sync hist duration
rule r
    on cuda.malloc
    when p99(sync_latency) over 1m > 50ms
    alert "x"
)"}}),
            R"(rules/a.seam:4:8: error[E0506]: a windowed rule (`when`) cannot also have `on`
    4 |     on cuda.malloc
      |        ^~~~~~~~~~~
      = hint: watch a metric in `when`, or drop `when` and test the event in `where`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, MissingClauseAlertE0507) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where size > 1GiB
)"}}),
            R"(rules/a.seam:2:6: error[E0507]: rule 'r' has no `alert`
    2 | rule r
      |      ^
      = hint: add `alert warning "..."`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, MissingClauseOnE0507) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(rule r
    alert "x"
)"}}),
            R"(rules/a.seam:1:6: error[E0507]: rule 'r' needs `on EVENT` or `when AGGREGATE`
    1 | rule r
      |      ^
      = hint: e.g. `on cuda.stream_sync where duration > 10ms`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, StateNeverSetW0001) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
state paused per thread
    clear on cuda.free
rule r
    on cuda.malloc while paused
    alert "x"
)"}}),
            R"(rules/a.seam:5:26: warning[W0001]: state 'paused' is never set, so this is always false
    5 |     on cuda.malloc while paused
      |                          ^~~~~~
      = hint: add a `set on ...` transition to state paused

0 errors, 1 warning
)");
}

TEST(CheckDiagnostics, RuleNeverFiresW0002) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync where duration < 0ns
    alert "x"
)"}}),
            R"(rules/a.seam:3:31: warning[W0002]: rule 'r' can never fire: 'duration' is never below 0
    3 |     on cuda.stream_sync where duration < 0ns
      |                               ^~~~~~~~~~~~~~
      = hint: 'duration' is a duration, which is unsigned

0 errors, 1 warning
)");
}

TEST(CheckDiagnostics, RuleNeverFiresFalseW0002) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync where false
    alert "x"
)"}}),
            R"(rules/a.seam:3:31: warning[W0002]: rule 'r' can never fire: its condition is always false
    3 |     on cuda.stream_sync where false
      |                               ^~~~~

0 errors, 1 warning
)");
}

TEST(CheckDiagnostics, UnusedUseW0003) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda, sched
rule r
    on cuda.malloc
    alert "x"
)"}}),
            R"(rules/a.seam:1:11: warning[W0003]: module 'sched' is used but nothing in this file refers to it
    1 | use cuda, sched
      |           ^~~~~
      = hint: remove `sched` from `use`

0 errors, 1 warning
)");
}

TEST(CheckDiagnostics, MissingLimitOnHotStackW0004) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    with ustack
)"}}),
            R"(rules/a.seam:5:10: warning[W0004]: rule 'r' collects stacks on every cuda.malloc with no limit
    5 |     with ustack
      |          ^~~~~~
      = hint: add `limit 10 per 1m`

0 errors, 1 warning
)");
}

TEST(CheckDiagnostics, SeveralErrorsInSourceOrder) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule a
    on cuda.malloc where sise > 1
    alert bad "{nope}"
rule b
    on cuda.stream_synk
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0104]: unknown field 'sise' of cuda.malloc
    3 |     on cuda.malloc where sise > 1
      |                          ^~~~
      = hint: did you mean size?
      = hint: cuda.malloc has fields: devptr, size, ret, duration, pid, tid, comm, cgroup, uid, cpu, time

rules/a.seam:4:11: error[E0501]: unknown severity 'bad'
    4 |     alert bad "{nope}"
      |           ^~~
      = hint: severities are info, warning, error, critical

rules/a.seam:4:17: error[E0503]: unknown field '{nope}' in the message
    4 |     alert bad "{nope}"
      |                 ^~~~
      = hint: cuda.malloc has fields: devptr, size, ret, duration, pid, tid, comm, cgroup, uid, cpu, time

rules/a.seam:6:8: error[E0103]: unknown event 'cuda.stream_synk'
    6 |     on cuda.stream_synk
      |        ^~~~~~~~~~~~~~~~
      = hint: did you mean cuda.stream_sync?

4 errors, 0 warnings
)");
}

TEST(CheckDiagnostics, UnknownFunctionOutsideWhenE0109) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where p99(size) > 1MiB
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0109]: 'p99' can only be used in a windowed rule's `when`
    3 |     on cuda.malloc where p99(size) > 1MiB
      |                          ^~~
      = hint: e.g. `when p99(sync_latency) over 1m > 50ms`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, BadInterpolationCorrelatedFieldE0503) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.stream_sync where duration > 1ms after cuda.malloc within 1ms
    alert "{cuda.malloc.sise}"
)"}}),
            R"(rules/a.seam:4:13: error[E0503]: unknown field '{cuda.malloc.sise}' in the message
    4 |     alert "{cuda.malloc.sise}"
      |             ^~~~~~~~~~~~~~~~
      = hint: cuda.malloc has fields: devptr, size, ret, duration

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, TypeMismatchHistOfStringE0302) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric sizes on cuda.malloc hist comm
)"}}),
            R"(rules/a.seam:2:34: error[E0302]: `hist` needs a number, but 'comm' is str
    2 | metric sizes on cuda.malloc hist comm
      |                                  ^~~~
      = hint: e.g. `hist duration` or `sum size`

1 error, 0 warnings
)");
}

TEST(CheckDiagnostics, TypeMismatchQuantileOfCountE0302) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
metric n on cuda.malloc count
rule r
    when p99(n) over 1m > 5
    alert "x"
)"}}),
            R"(rules/a.seam:4:10: error[E0302]: 'p99' needs a `sum` or `hist` metric, but 'n' counts events
    4 |     when p99(n) over 1m > 5
      |          ^~~~~~~~~~~~~~
      = hint: use count(n) or rate(n)

1 error, 0 warnings
)");
}

}  // namespace
