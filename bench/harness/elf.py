"""Function file offsets and first bytes, from `nm` and the program headers (`readelf -lW`)."""
import subprocess


def _symbol_address(path: str, name: str) -> int:
    for args in (["nm", "-D", "--defined-only"], ["nm", "--defined-only"]):
        out = subprocess.run(args + [path], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TtWi" and parts[2].split("@")[0] == name:
                return int(parts[0], 16)
    raise KeyError(f"{name} not found in {path}")


def _load_segments(path: str):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "LOAD":
            yield int(parts[1], 16), int(parts[2], 16), int(parts[5], 16)  # offset, vaddr, memsz


def file_offset(path: str, name: str) -> int:
    """Where function `name` starts in the file: what a uprobe is attached at."""
    addr = _symbol_address(path, name)
    for offset, vaddr, memsz in _load_segments(path):
        if vaddr <= addr < vaddr + memsz:
            return addr - vaddr + offset
    raise KeyError(f"{name} in {path} is in no loadable segment")


def first_bytes(path: str, name: str, n: int = 5) -> bytes:
    with open(path, "rb") as f:
        f.seek(file_offset(path, name))
        return f.read(n)
