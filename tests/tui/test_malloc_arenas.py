"""The process-wide cap on C heaps, asked for at the CLI's entry (``tui/malloc_arenas.py``)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

# Six threads each allocate with malloc (4 KiB is past Python's small-object allocator): glibc gives a new thread
# a heap of its own at its first allocation while the cap allows (all six are alive then), so the heaps glibc
# reports count the cap.
HEAPS = """
import ctypes, sys, threading
from tui.malloc_arenas import limit_malloc_arenas
asked = sys.argv[2] == "cap" and limit_malloc_arenas()
def allocate():
    kept.append(bytearray(4096))
    together.wait()  # no thread ends (and frees its heap for the next) before all have one
kept = []
together = threading.Barrier(6)
threads = [threading.Thread(target=allocate) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.malloc_info.argtypes = (ctypes.c_int, ctypes.c_void_p)
libc.fclose.argtypes = (ctypes.c_void_p,)
stream = libc.fopen(sys.argv[1].encode(), b"w")
libc.malloc_info(0, stream)
libc.fclose(stream)
print(asked)
"""


def _heaps(tmp_path: Path, env: dict[str, str], cap: bool) -> tuple[str, int]:
    report = tmp_path / "heaps.xml"
    done = subprocess.run(
        [sys.executable, "-c", HEAPS, str(report), "cap" if cap else "no"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip(), report.read_text().count("<heap nr=")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's arena cap is glibc's")
def test_threads_share_one_heap_once_capped(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    assert _heaps(tmp_path, env, cap=False) == ("False", 7)  # the main heap and one per thread
    assert _heaps(tmp_path, env, cap=True) == ("True", 1)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's arena cap is glibc's")
def test_a_cap_the_user_set_is_left_alone(tmp_path: Path) -> None:
    assert _heaps(tmp_path, {**os.environ, "MALLOC_ARENA_MAX": "3"}, cap=True) == ("False", 3)
