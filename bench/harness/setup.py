"""Builds what the benchmark runs: seam and the fixture library (CMake, build-bench), the
hand-written baseline (BPF object + libbpf loader), the tight-loop caller and the entry-shape
library. Installs bpftrace from Debian's registry when it is missing."""
import os
import shutil
import sys
import subprocess
from dataclasses import dataclass

from . import elf


@dataclass
class Artifacts:
    repo: str
    build: str  # the CMake build directory (seam, fixtures/)
    out: str  # where the bench's own binaries go
    seam: str
    fixture: str  # fixtures/libcudart.so.12
    real_shaped: str  # the same source built so every function starts with push %rbp, like libcudart.so.13
    baseline_obj: str
    baseline_lru_obj: str  # the same with LRU hashes, as seam generates without task storage
    baseline_task_obj: str  # the same with task-local storage, as seam generates where the kernel has it
    loader: str
    caller: str
    host_tax: str  # bench/workload/host_tax.c
    loader_cost: str  # bench/workload/loader_cost.c
    entry_lib: str  # sync_push / sync_nop5 / sync_lea
    bpftrace: str
    python: str
    libpython: str  # the libpython the Python workload maps ("" if it is linked statically)
    unwind_bench: str = ""  # build/unwind_bench: user-space unwinding of a recorded stack
    pyframes_bench: str = ""  # build/pyframes_bench: user-space naming of recorded Python frames


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def ensure_bpftrace() -> str:
    found = shutil.which("bpftrace")
    if found:
        return found
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    sh(["apt-get", "install", "-y", "-qq", "bpftrace"], env=env, stdout=subprocess.DEVNULL)
    return shutil.which("bpftrace") or "bpftrace"


def python_and_libpython():
    """The interpreter the workload runs under, and the libpython it links (pyenv builds link a
    shared one; Debian's /usr/bin/python3 is static and has no take_gil symbol)."""
    import sys
    exe = os.path.realpath(sys.executable)
    out = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "libpython" in line and "=>" in line:
            return exe, os.path.realpath(line.split("=>")[1].split()[0])
    return exe, ""


def build(repo: str, build_dir: str, seam_build: str = "") -> Artifacts:
    """seam_build: use seam and fixtures/ from that existing build instead of building them."""
    out = os.path.join(build_dir, "bench")
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, "build.log"), "w")
    if not seam_build:
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            sh(["cmake", "-S", repo, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], stdout=log)
        try:
            sh(["cmake", "--build", build_dir, "-j2", "--target", "seam", "fake_cudart", "unwind_bench", "pyframes_bench"], stdout=log,
               stderr=log)
        except subprocess.CalledProcessError:
            # The working tree is shared with work in progress: keep measuring the last good build.
            if not os.path.exists(os.path.join(build_dir, "seam")):
                raise
            print(f"bench: warning: building seam failed (see {log.name}); using the existing "
                  f"{build_dir}/seam", file=sys.stderr)
        seam_build = build_dir
    src = os.path.join(repo, "bench")
    obj, lru_obj = os.path.join(out, "headline.bpf.o"), os.path.join(out, "headline_lru.bpf.o")
    task_obj = os.path.join(out, "headline_task.bpf.o")
    for path, defs in ((obj, []), (lru_obj, ["-DMAP_KIND=BPF_MAP_TYPE_LRU_HASH"]), (task_obj, ["-DTASK_STORAGE"])):
        sh(["clang", "-O2", "-g", "-target", "bpf", "-I/usr/include/x86_64-linux-gnu", *defs, "-c",
            os.path.join(src, "baseline", "headline.bpf.c"), "-o", path])
    loader = os.path.join(out, "loader")
    sh(["cc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(src, "baseline", "loader.c"), "-o", loader, "-lbpf"])
    host_tax = os.path.join(out, "host_tax")
    sh(["cc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(src, "workload", "host_tax.c"), "-o", host_tax, "-ldl"])
    loader_cost = os.path.join(out, "loader_cost")
    sh(["cc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(src, "workload", "loader_cost.c"), "-o", loader_cost, "-ldl"])
    caller = os.path.join(out, "caller")
    sh(["cc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(src, "workload", "caller.c"), "-o", caller, "-ldl"])
    # The nop5 entry needs gcc's -mnop-mcount, which refuses position-independent code; the
    # function has no data references, so the object still links into a shared library.
    nop5_obj = os.path.join(out, "entry_nop5.o")
    sh(["gcc", "-O2", "-fno-pie", "-fno-pic", "-pg", "-mfentry", "-mnop-mcount", "-c",
        os.path.join(src, "workload", "entry_nop5.c"), "-o", nop5_obj])
    entry_lib = os.path.join(out, "libentry_shapes.so")
    sh(["cc", "-O2", "-shared", "-fPIC", os.path.join(src, "workload", "entry_shapes.c"), nop5_obj, "-o", entry_lib])
    # tests/ builds the fixture with -O1: cudaLaunchKernel then starts with `mov $0,%eax`, which
    # the kernel single-steps (~20 us a hit); the real libcudart.so.13 starts every function with
    # push %rbp. -O0 keeps the frame setup in every function.
    real_shaped_dir = os.path.join(out, "real_shaped")
    os.makedirs(real_shaped_dir, exist_ok=True)
    real_shaped = os.path.join(real_shaped_dir, "libcudart.so.12")
    sh(["gcc", "-O0", "-fno-omit-frame-pointer", "-shared", "-fPIC", "-Wl,-soname,libcudart.so.12",
        os.path.join(repo, "tests", "fixtures", "fake_cudart.c"), "-o", real_shaped])
    python, libpython = python_and_libpython()
    return Artifacts(repo=repo, build=build_dir, out=out, seam=os.path.join(seam_build, "seam"),
                     fixture=os.path.join(seam_build, "fixtures", "libcudart.so.12"), real_shaped=real_shaped, baseline_obj=obj, baseline_lru_obj=lru_obj,
                     baseline_task_obj=task_obj,
                     loader=loader, caller=caller, host_tax=host_tax, loader_cost=loader_cost, entry_lib=entry_lib, bpftrace=ensure_bpftrace(),
                     python=python, libpython=libpython, unwind_bench=os.path.join(seam_build, "unwind_bench"),
                     pyframes_bench=os.path.join(seam_build, "pyframes_bench"))


def check_entry_shapes(a: Artifacts) -> dict:
    """First bytes of each probed function, to show the entry shapes are what they claim."""
    shapes = {}
    for fn in ("sync_push", "sync_nop5", "sync_lea"):
        shapes[fn] = elf.first_bytes(a.entry_lib, fn).hex(" ")
    real = "/usr/local/cuda/lib/libcudart.so.13"
    for fn in ("cudaStreamSynchronize", "cudaLaunchKernel", "cudaMalloc"):
        shapes[f"fixture {fn}"] = elf.first_bytes(a.fixture, fn).hex(" ")
        shapes[f"real-shaped fixture {fn}"] = elf.first_bytes(a.real_shaped, fn).hex(" ")
        if os.path.exists(real):
            shapes[f"libcudart.so.13 {fn}"] = elf.first_bytes(real, fn).hex(" ")
    return shapes
