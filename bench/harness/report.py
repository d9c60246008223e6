"""The table bench/run prints, and the targets it checks (issue 6)."""
import os


def verdict(ok):
    return "met" if ok else "MISSED"


def targets(r):
    """(target, measured, met) rows, for the sections this run measured (`--skip` leaves some out)."""
    rows = []
    if "cost" in r:
        c = r["cost"]["summary"]
        rows += [
            ("seam added ns <= 1.10x baseline", f"{c['seam_over_baseline']:.2f}x", c["seam_over_baseline"] <= 1.10),
            ("seam added ns <= bpftrace", f"{c['seam_over_bpftrace']:.2f}x", c["seam_over_bpftrace"] <= 1.0),
        ]
    if "start_stop" in r:
        s = r["start_stop"]
        # Judged on the alternated runs where the harness made them (startstop.pair_against_bpftrace).
        alternated = s.get("pair_vs_bpftrace")
        pair_seam = (alternated["seam"] if alternated else s["pair_cold"])["ready_ms"]
        pair_bt = (alternated["bpftrace"] if alternated else s["bpftrace"])["ready_ms"]
        rows += [
            ("cold start < 1 s", f"{s['seam_cold']['ready_ms']:.0f} ms", s["seam_cold"]["ready_ms"] < 1000),
            ("cold start <= bpftrace (gil+malloc)",
             f"{pair_seam:.0f} vs {pair_bt:.0f} ms" + (" (alternated)" if alternated else ""),
             pair_seam <= pair_bt),
            ("bundle cold start <= 100 ms", f"{s['bundle_cold']['ready_ms']:.0f} ms ({s['bundle_cold'].get('ready_cpu_ms', float('nan')):.0f} ms CPU)",
             s["bundle_cold"]["ready_ms"] <= 100),
            ("warm start < 150 ms", f"{s['seam_warm']['ready_ms']:.0f} ms", s["seam_warm"]["ready_ms"] < 150),
            ("detach < 1 s", f"{s['seam_warm'].get('detach_ms', -1):.0f} ms (exit {s['seam_warm']['stop_ms']:.0f} ms)",
             s["seam_warm"].get("detach_ms", 1e9) < 1000),
        ]
        if "deploy" in s:
            d = s["deploy"]
            rows += [
                ("seam --version <= 20 ms", f"{d['version_ms']:.1f} ms ({d.get('version_cpu_ms', float('nan')):.1f} ms CPU; "
                 f"/bin/true {d['true_ms']:.1f} ms)",
                 d["version_ms"] <= 20),
                ("bundle-only image <= 100 MB", f"{d['image_mb']:.1f} MB", d["image_mb"] <= 100),
            ]
    if "pipeline" in r:
        p = r["pipeline"]["median_run"]
        rows += [
            # One caller thread cannot make 1M probe hits/s here (a hit costs over 1 us of its CPU),
            # so the target is judged on the consumer's capacity: 1 s / seam's CPU per record.
            (">= 1M records/s into JSON (capacity)", f"{1e3 / max(p['cpu_ns_per_record'], 1e-9):.2f}M/s per core "
             f"({p['cpu_ns_per_record']:.0f} ns CPU/record); delivered {p['delivered_per_s'] / 1e6:.2f}M/s at the "
             f"caller's {p['call_rate'] / 1e6:.2f}M calls/s", 1e3 / max(p["cpu_ns_per_record"], 1e-9) >= 1.0),
            ("zero silent drops", f"{p['silent_drops']} silent, {p['reported_drops']} reported", p["silent_drops"] == 0),
        ]
    if "footprint" in r:
        f = r["footprint"]
        rows += [
            ("peak RSS < 40 MB", f"{f['peak_rss_mb']:.1f} MB", f["peak_rss_mb"] < 40),
            ("lint < 100 ms", f"{f['lint_ms']:.0f} ms", f["lint_ms"] < 100),
        ]
    if "unwind" in r:
        u = r["unwind"]
        rows.append(("8 KiB ustack copy in the kernel <= 2 us", f"{u['copy_8k_ns'] / 1000:.2f} us", u["copy_8k_ns"] <= 2000))
        if "user_space" in u:
            w = u["user_space"]
            rows.append(("unwind + name <= 50 us per alert (warm)", f"{w['warm_us']:.1f} us, {w['frames']} frames",
                         w["warm_us"] <= 50))
    if "host_tax" in r:
        # Issue 11's targets: getppid() (no rule names it) and write() (syscall_slow names it) for a
        # process outside every rule's scope and for a workload process, under the default pack.
        by, wl = r["host_tax"]["seam_pack"]["bystander"], r["host_tax"]["seam_pack"]["workload"]
        rows += [
            ("bystander syscall <= +40 ns", f"{by['added_syscall_ns']:+.0f} ns getppid, {by['added_write_ns']:+.0f} ns write",
             max(by["added_syscall_ns"], by["added_write_ns"]) <= 40),
            ("bystander first-touch fault <= +5%", f"{by['fault_pct']:+.1f}%", by["fault_pct"] <= 5),
            ("workload syscall <= +250 ns", f"{wl['added_syscall_ns']:+.0f} ns getppid, {wl['added_write_ns']:+.0f} ns write",
             max(wl["added_syscall_ns"], wl["added_write_ns"]) <= 250),
        ]
    rl = r.get("realistic", {})
    if "real-shaped pack without GIL rules" in rl:
        u = rl["real-shaped untraced"]["calls_per_s"]
        full, nogil = (u / rl[f"real-shaped {m}"]["calls_per_s"] for m in ("default pack", "pack without GIL rules"))
        rows.append(("ctypes loop, real-shaped, <= 2.0x", f"{full:.2f}x default pack, {nogil:.2f}x without the GIL rules",
                     full <= 2.0))
    if "python_gil" in r:
        g = r["python_gil"]
        rows.append(("sleep(0) loop under gil.seam <= 1.05x", f"{g['slowdown']:.3f}x", g["slowdown"] <= 1.05))
    if "walk_32_ns" in r.get("python_frames", {}):
        p = r["python_frames"]
        rows.append(("32-frame Python stack in the kernel <= 3 us", f"{p['walk_32_ns'] / 1000:.2f} us",
                     p["walk_32_ns"] <= 3000))
        if "user_space" in p:
            w = p["user_space"]
            rows.append(("Python frames named <= 50 us per alert (warm)", f"{w['warm_us']:.1f} us, {w['frames']} frames",
                         w["warm_us"] <= 50))
    return rows


def table(r):
    L = []
    m = r["machine"]
    L.append(f"seam benchmark  {r['date']}  mode={r['mode']}  kernel {m['kernel']}  {m['cpu']}  "
             f"{m['cores']} cores  load {m['loadavg_start']} -> {m['loadavg_end']}")
    if r.get("skipped"):
        L.append(f"   sections skipped: {' '.join(r['skipped'])}")
    if "cost" in r:
        c = r["cost"]
        L.append("")
        L.append(f"1. Cost per call: {c['function']} in {c['library']}, {c['calls']} calls, median of {c['reps']} runs")
        L.append("   (CPU time of the calling thread, user+system; wall time also counts waiting for a CPU)")
        L.append(f"   {'tracer':<16}{'cpu ns/call':>12}{'added ns':>10}{'wall ns/call':>14}{'in-kernel ns/call':>19}")
        for name, row in c["rows"].items():
            ik = c["in_kernel"].get(name, {}).get("ns_per_call")
            L.append(f"   {name:<16}{row['cpu_ns']:>12.1f}{row['added_ns']:>10.1f}{row['wall_ns']:>14.1f}"
                     f"{'' if ik is None else f'{ik:.1f}':>19}")
        s = c["summary"]
        used = c["rows"]["none"].get("rounds_used")
        if used is not None and len(used) < c["reps"]:
            L.append(f"   rounds used: {used} of {c['reps']} (the others had someone else's probes on the library)")
        if c["rows"]["none"].get("disturbed"):
            L.append("   WARNING: every round had someone else's probes on the library: these figures are not clean")
        L.append(f"   seam/baseline added ns: {s['seam_over_baseline']:.2f}x   seam/bpftrace: {s['seam_over_bpftrace']:.2f}x   "
                 f"seam/baseline in-kernel: {s['seam_over_baseline_in_kernel']:.2f}x   "
                 f"seam/baseline-lru: {s['seam_over_baseline_lru']:.2f}x   "
                 f"seam/baseline-task: {s.get('seam_over_baseline_task', float('nan')):.2f}x")
        L.append(f"   in-kernel: seam/bpftrace {s.get('seam_over_bpftrace_in_kernel', float('nan')):.2f}x")
        L.append("   (C caller without Python: the GIL lookup never runs, the 10 ms threshold fails first, for all three)")
        L.append("")
    if "first_instruction" in r:
        fi = r["first_instruction"]
        L.append(f"   First instruction, empty uprobe ({fi['calls']} calls; sync_lea {fi['calls_lea']}):")
        L.append(f"   {'function':<12}{'first bytes':<18}{'untraced':>10}{'uprobe':>10}{'added ns':>10}")
        for fn, row in fi["rows"].items():
            L.append(f"   {fn:<12}{row['bytes']:<18}{row['none']:>10.1f}{row['empty']:>10.1f}{row['added_ns']:>10.1f}")
        L.append(f"   real libcudart.so.13 cudaStreamSynchronize starts: {fi['real_cudart_bytes']}")
    if "start_stop" in r:
        st = r["start_stop"]
        L.append("")
        L.append(f"2. Start and stop (median of {st['reps']}): default pack = rules/ ({st['seam_warm'].get('probes')} probes); "
                 f"gil+malloc = rules/gil.seam + rules/malloc.seam ({st['pair_warm'].get('probes')} probes); "
                 f"bpftrace = the same functions as gil+malloc ({st['bpftrace'].get('probes')} probes)")
        L.append(f"   {'':<16}{'ready ms':>10}{'of it load+attach':>19}{'CPU ms to ready':>17}{'detach ms':>11}"
                 f"{'exit after signal ms':>22}")
        for name in ("seam_cold", "seam_warm", "bundle_cold", "pair_cold", "pair_warm", "bpftrace"):
            row = st[name]
            det, att, cpu = row.get("detach_ms"), row.get("session_attach_ms"), row.get("ready_cpu_ms")
            L.append(f"   {name:<16}{row['ready_ms']:>10.1f}{'' if att is None else f'{att:.0f}':>19}"
                     f"{'' if cpu is None else f'{cpu:.0f}':>17}{'' if det is None else f'{det:.0f}':>11}{row['stop_ms']:>22.1f}")
        if st["bpftrace"].get("killed"):
            L.append(f"   bpftrace did not exit within 10 s of SIGTERM in {st['bpftrace']['killed']} of {st['reps']} runs (killed)")
        L.append("   (seam's load+attach is its own figure from the ready notice; the rest of ready is compile and build/cache;")
        L.append("    CPU ms to ready: user+system of all seam's threads, 10 ms ticks, which the load average does not inflate)")
        for kind, what in (("warm", "warm start of the default pack"), ("cold", "cold start of the default pack"),
                           ("pair_cold", "cold start of gil+malloc")):
            wa = st.get(f"{kind}_against")
            if not wa:
                continue
            L.append(f"   {what}, alternating with {wa['against_seam']} "
                     f"({len(wa['this']['samples_ready_ms'])} runs each):")
            for k in ("this", "against"):
                att = wa[k].get("session_attach_ms")
                L.append(f"     {k:<8} ready {wa[k]['ready_ms']:6.1f} ms median"
                         + ("" if att is None else f" (load+attach {att:.0f})")
                         + f", CPU {wa[k]['ready_cpu_ms']:.0f} ms median "
                         f"{wa[k]['mean_cpu_ms']:.1f} mean; samples {sorted(round(x) for x in wa[k]['samples_ready_ms'])}")
        pb = st.get("pair_vs_bpftrace")
        if pb:
            L.append(f"   cold start of gil+malloc, alternating with bpftrace on the same functions "
                     f"({len(pb['seam']['samples_ready_ms'])} runs each):")
            for k in ("seam", "bpftrace"):
                L.append(f"     {k:<8} ready {pb[k]['ready_ms']:6.1f} ms median; "
                         f"samples {sorted(round(x) for x in pb[k]['samples_ready_ms'])}")
        ol = st.get("one_liner")
        if ol:
            L.append(f"   one-liner `seam run -e '{ol['rule']}' -c '{ol['command']}'`: ready cold "
                     f"{ol['seam_cold']['ready_ms']:.1f} ms, warm (the same line again) {ol['seam_warm']['ready_ms']:.1f} ms; "
                     f"bpftrace -c on the same functions {ol['bpftrace']['ready_ms']:.1f} ms")
        L.append(f"   default pack libraries: {st['libraries']}")
        L.append(f"   gil+malloc libraries: {st['pair_libraries']}")
        d = st.get("deploy")
        if d:
            L.append(f"   seam --version: {d['version_ms']:.1f} ms wall, {d.get('version_cpu_ms', float('nan')):.1f} ms CPU, "
                     f"median of {len(d['version_samples_ms'])} (/bin/true {d['true_ms']:.1f} ms wall)")
            L.append(f"   bundle-only image root filesystem {d['image_mb']:.1f} MB "
                     f"(stripped seam {d['stripped_seam_bytes'] / 1e6:.1f} MB, default pack bundle, its libraries)")
    if "pipeline" in r:
        p = r["pipeline"]["median_run"]
        L.append("")
        L.append(f"3. Event pipeline (every call a record, JSON file): {p['alerts']} records of {p['calls']} calls; "
                 f"calls at {p['call_rate'] / 1e3:.0f}k/s ({p['caller_cpu_ns_per_call']:.0f} ns caller CPU/call); delivered {p['delivered_per_s'] / 1e3:.0f}k records/s; "
                 f"seam CPU {p['cpu_ns_per_record']:.0f} ns/record; drops: {p['reported_drops']} reported"
                 + (f" ({p['ring_drops']} by the ring, {p['output_drops']} by the file's queue)" if "ring_drops" in p else "") + ", "
                 f"{p['silent_drops']} silent" + (f" ({p['foreign_records']} records of other processes' calls not counted)"
                                                  if p.get("foreign_records") else ""))
    if "realistic" in r:
        rl = r["realistic"]
        L.append("")
        L.append(f"4. demo/inference_loop.py --sync-us 0 --gil both --malloc-every 10, {rl['fixture untraced']['calls']} calls "
                 f"(launch x4, sync, malloc/10), median of {rl['reps']}")
        L.append(f"   {'library':<14}{'pack':<24}{'untraced calls/s':>18}{'traced':>10}{'slowdown':>10}{'CPU-s slowdown':>16}")
        for lib in ("fixture", "real-shaped"):
            u = rl[f"{lib} untraced"]
            for mode in ("default pack", "pack without GIL rules"):
                t = rl.get(f"{lib} {mode}")
                if not t:  # results.json from before the row without the GIL rules
                    continue
                L.append(f"   {lib:<14}{mode:<24}{u['calls_per_s'] / 1e3:>17.1f}k{t['calls_per_s'] / 1e3:>9.1f}k"
                         f"{u['calls_per_s'] / t['calls_per_s']:>9.2f}x{u['calls_per_cpu_s'] / t['calls_per_cpu_s']:>15.2f}x")
        fi = r.get("first_instruction", {}).get("shapes", {})
        if fi:
            L.append("   first bytes of cudaLaunchKernel: fixture " + fi.get("fixture cudaLaunchKernel", "?")
                     + ", real-shaped " + fi.get("real-shaped fixture cudaLaunchKernel", "?")
                     + ", libcudart.so.13 " + fi.get("libcudart.so.13 cudaLaunchKernel", "?"))
    if "footprint" in r:
        f = r["footprint"]
        L.append("")
        L.append(f"5. Peak RSS of seam run (default pack): {f['peak_rss_mb']:.1f} MB; seam lint rules/ stdlib/: {f['lint_ms']:.1f} ms "
                 f"(seam --help, the process start alone: {f.get('help_ms', float('nan')):.1f} ms)")
        b = f.get("rss_breakdown")
        if b:
            L.append(f"   resident, warm default pack: anon {b.get('RssAnon', 0) / 1024:.1f} MB, file {b.get('RssFile', 0) / 1024:.1f} MB; "
                     "largest: " + ", ".join(f"{os.path.basename(n)} {kb / 1024:.1f}" for n, kb in b["top_kb"]))
    if "loader_hook" in r:
        h = r["loader_hook"]
        L.append("")
        L.append(f"10. Dynamic loader hook, host cost ({h['pairs']} dlopen+dlclose pairs, {h['execs']} execs of /bin/true, "
                 f"median of {h['reps']}; load {h['loadavg_start']:.1f} -> {h['loadavg_end']:.1f})")
        L.append(f"   {'':<8}{'dlopen+dlclose cpu ns':>22}{'exec wall us':>14}")
        for name in ("none", "seam"):
            L.append(f"   {name:<8}{h[name]['dlopen_ns']:>22.1f}{h[name]['exec_us']:>14.1f}")
        L.append(f"   added: {h['added_dlopen_ns']:.1f} ns a pair, {h['added_exec_us']:.1f} us an exec"
                 + ("   (WARNING: the hook was unavailable)" if h.get("hook_unavailable") else ""))
    L.append("")
    L.append("Targets:")
    for name, measured, ok in targets(r):
        L.append(f"   {verdict(ok):<7} {name:<34} {measured}")
    return "\n".join(L)
