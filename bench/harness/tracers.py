"""The tracers under comparison, each started until ready and stopped on a signal:
the hand-written libbpf baseline (and its empty-probe mode), bpftrace, and seam."""
import json
import os
import signal
import time

from . import elf
from .procs import Proc


class Tracer:
    name = "?"
    stop_signal = signal.SIGTERM

    def start(self, timeout=60.0):
        """Starts the tracer and returns seconds until it said it is ready."""
        self.proc = Proc(self.command(), env=self.env())
        t, _, _ = self.proc.wait_line(self.is_ready, timeout)
        return t - self.proc.started

    def env(self):
        return None

    def stop(self, timeout=10.0):
        return self.proc.stop(self.stop_signal, timeout)


class NoTracer(Tracer):
    name = "none"

    def start(self, timeout=60.0):
        return 0.0

    def stop(self):
        return 0.0


class Baseline(Tracer):
    """bench/baseline: the headline rule by hand, or (empty=True) a probe that does nothing."""

    def __init__(self, art, library, function, empty=False, perf=False, gil=True, lru=False, task=False):
        self.name = (("empty-uprobe" if empty else "baseline") + ("-perf" if perf else "") + ("-lru" if lru else "")
                     + ("-task" if task else ""))
        obj = art.baseline_lru_obj if lru else art.baseline_task_obj if task else art.baseline_obj
        self.args = [art.loader, obj, "--cuda", f"{library}:{elf.file_offset(library, function)}"]
        if empty:
            self.args.append("--empty")
        if perf:
            self.args.append("--perf")
        if gil and not empty and art.libpython:
            self.args += ["--take-gil", f"{art.libpython}:{elf.file_offset(art.libpython, 'take_gil')}",
                          "--drop-gil", f"{art.libpython}:{elf.file_offset(art.libpython, 'drop_gil')}"]

    def command(self):
        return self.args

    def is_ready(self, stream, line):
        return stream == "out" and line.startswith("ready")


class Bpftrace(Tracer):
    """bpftrace on a script; BEGIN prints "ready", which bpftrace runs once every probe is attached."""
    name = "bpftrace"

    def __init__(self, art, script_path, name="bpftrace", extra=()):
        self.art, self.script, self.name = art, script_path, name
        self.extra = list(extra)

    def command(self):
        return [self.art.bpftrace, *self.extra, self.script]

    def is_ready(self, stream, line):
        return stream == "out" and line.strip() == "ready"


def headline_bt(cuda_lib, libpython):
    """The headline rule in bpftrace, written the way its documentation suggests."""
    gil = ""
    if libpython:
        gil = (f"uretprobe:{libpython}:take_gil {{ @gil[tid] = 1; }}\n"
               f"uprobe:{libpython}:drop_gil {{ delete(@gil[tid]); }}\n")
    return (f'BEGIN {{ printf("ready\\n"); }}\n'
            f"uprobe:{cuda_lib}:cudaStreamSynchronize {{ @start[tid] = nsecs; }}\n"
            f"uretprobe:{cuda_lib}:cudaStreamSynchronize /@start[tid]/ {{\n"
            f"  $d = nsecs - @start[tid];\n"
            f"  delete(@start[tid]);\n"
            f"  if ($d > 10000000 && @gil[tid]) {{\n"
            f'    printf("cudaStreamSynchronize blocked %d ns while holding the GIL%s\\n", $d, ustack(10));\n'
            f"  }}\n"
            f"}}\n" + gil +
            "END { clear(@start); clear(@gil); }\n")


def empty_bt(lib, function):
    return f'BEGIN {{ printf("ready\\n"); }}\nuprobe:{lib}:{function} {{ }}\n'


def one_liner_bt(cudart):
    """startstop.ONE_LINER in bpftrace: cudaStreamSynchronize and its per-thread-stream twin
    (cuda.stream_sync's two functions) over 10 ms, with the user stack."""
    fns = ",".join(f"uprobe:{cudart}:{fn}" for fn in ("cudaStreamSynchronize", "cudaStreamSynchronize_ptsz"))
    rets = fns.replace("uprobe:", "uretprobe:")
    return ('BEGIN { printf("ready\\n"); }\n'
            f"{fns} {{ @start[tid] = nsecs; }}\n"
            f"{rets} /@start[tid]/ {{ $d = nsecs - @start[tid]; delete(@start[tid]);"
            ' if ($d > 10000000) { printf("%d%s\\n", $d, ustack); } }\n'
            "END { clear(@start); }\n")


def default_pack_bt(cudart, libpython):
    """What the default pack (rules/) probes, as one bpftrace script: stream sync and cudaMalloc
    spans on the CUDA runtime, the GIL state on libpython."""
    lines = ['BEGIN { printf("ready\\n"); }']
    held = " && @gil[tid]" if libpython else ""
    for fn in ("cudaStreamSynchronize", "cudaStreamSynchronize_ptsz", "cudaMalloc"):
        lines.append(f"uprobe:{cudart}:{fn} {{ @start[tid] = nsecs; }}")
        lines.append(f"uretprobe:{cudart}:{fn} /@start[tid]/ {{ $d = nsecs - @start[tid]; delete(@start[tid]);"
                     f' if ($d > 10000000{held}) {{ printf("%d%s\\n", $d, ustack(10)); }} }}')
    if libpython:
        lines.append(f"uretprobe:{libpython}:take_gil {{ @gil[tid] = 1; }}")
        lines.append(f"uprobe:{libpython}:drop_gil {{ delete(@gil[tid]); }}")
    lines.append("END { clear(@start); clear(@gil); }" if libpython else "END { clear(@start); }")
    return "\n".join(lines) + "\n"


class Seam(Tracer):
    """`seam run PATHS`. Ready is the "N probes attached" notice: on stderr with the stdout sink,
    or the {"notice":"ready"} line of a JSON output file."""

    def __init__(self, art, paths, json_out=None, cache_dir=None, name="seam", extra=()):
        self.art, self.paths, self.json_out, self.cache_dir, self.name = art, paths, json_out, cache_dir, name
        self.extra = list(extra)

    def command(self):
        cmd = [self.art.seam, "run", *self.paths, *self.extra]
        if self.json_out:
            cmd += ["--output", f"json:{self.json_out}"]
        return cmd

    def env(self):
        env = dict(os.environ)
        if self.cache_dir:
            env["SEAM_CACHE_DIR"] = self.cache_dir
        return env

    def is_ready(self, stream, line):
        return stream == "err" and "probes attached" in line

    def start(self, timeout=60.0):
        if not self.json_out:
            return super().start(timeout)
        if os.path.exists(self.json_out):
            os.unlink(self.json_out)
        self.proc = Proc(self.command(), env=self.env())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(self.json_out):
                with open(self.json_out) as f:
                    if '"notice":"ready"' in f.read(65536):
                        return time.monotonic() - self.proc.started
            if self.proc.proc.poll() is not None:
                raise RuntimeError(f"seam exited: {self.proc.text()[-2000:]}")
            time.sleep(0.002)
        raise TimeoutError("seam: no ready notice")

    def notices(self):
        """The notices seam wrote: from the JSON file, or its stderr lines."""
        if self.json_out:
            out = []
            with open(self.json_out) as f:
                for line in f:
                    if '"notice":' in line:  # lines start with {"schema":1,: test the key
                        obj = json.loads(line)
                        if "notice" in obj:
                            out.append(obj)
            return out
        self.proc.drain()
        return [{"notice": "stderr", "message": l} for _, s, l in self.proc.seen if s == "err"]
