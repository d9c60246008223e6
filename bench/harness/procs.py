"""Child processes whose output lines are timestamped as they arrive, so the harness can time
"started → ready" and "SIGTERM → exited" without polling delays."""
import os
import queue
import signal
import subprocess
import threading
import time


class Proc:
    def __init__(self, cmd, env=None, stdin=False):
        self.cmd = cmd
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env, bufsize=1)
        self.lines = queue.Queue()  # (time, stream, line)
        self.seen = []
        self.killed = False  # did not exit within stop()'s timeout
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name, stream):
        for line in stream:
            self.lines.put((time.monotonic(), name, line.rstrip("\n")))

    @property
    def pid(self):
        return self.proc.pid

    def wait_line(self, predicate, timeout=30.0):
        """The first line (time, stream, text) for which predicate(stream, text) holds."""
        for entry in self.seen:
            if predicate(entry[1], entry[2]):
                return entry
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.cmd[0]}: no expected line within {timeout} s; got {self.text()[-2000:]}")
            try:
                entry = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    time.sleep(0.05)
                    if self.lines.empty():
                        raise RuntimeError(f"{self.cmd[0]} exited ({self.proc.returncode}): {self.text()[-2000:]}")
                continue
            self.seen.append(entry)
            if predicate(entry[1], entry[2]):
                return entry

    def drain(self):
        while True:
            try:
                self.seen.append(self.lines.get_nowait())
            except queue.Empty:
                return

    def text(self):
        self.drain()
        return "\n".join(f"{s}: {l}" for _, s, l in self.seen)

    def send(self, text):
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def stop(self, sig=signal.SIGTERM, timeout=30.0):
        """Signals the process and waits for it; returns seconds from the signal to its exit."""
        t0 = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.killed = True
            self.proc.kill()
            self.proc.wait()
        elapsed = time.monotonic() - t0
        time.sleep(0.02)  # let the reader threads take the last lines
        self.drain()
        return elapsed

    def wait(self, timeout=600.0):
        self.proc.wait(timeout=timeout)
        time.sleep(0.02)
        self.drain()
        return self.proc.returncode


def cpu_seconds(pid):
    """utime + stime of a process so far, from /proc/PID/stat (clock ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_ms(pid):
    """User + system CPU the process (all its threads) has used so far, in ms (10 ms ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def peak_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def rss_breakdown(pid, top=6):
    """Resident kB by mapping (file name, [heap], anon_inode:bpf-map ...), largest first, plus
    the anonymous and file-backed totals from /proc/PID/status."""
    by_name, name = {}, "?"
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            first = line.split(None, 1)[0]
            if "-" in first and not first.endswith(":"):
                parts = line.split()
                name = parts[5] if len(parts) > 5 else "[anon]"
            elif first == "Rss:":
                by_name[name] = by_name.get(name, 0) + int(line.split()[1])
    out = {"top_kb": sorted(by_name.items(), key=lambda kv: -kv[1])[:top]}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("RssAnon:", "RssFile:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out
