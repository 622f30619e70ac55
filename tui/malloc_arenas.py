"""One C heap (glibc "arena") for the whole process, whatever the number of threads.

glibc gives each new thread that allocates a heap of its own, up to eight per core, and memory freed in a heap is
only ever reused by the threads on it. A run's commits and chapter reads go through
asyncio's thread pool (up to ``cores + 4`` threads), so each thread kept a heap of freed buffers: ``run --jobs 32``
peaked ~6 MB higher than with two heaps and ~8 MB higher than with one (``tests/bench/bench_jobs.py``).

Set once at the process's entry, before any thread starts; a ``MALLOC_ARENA_MAX`` the user set wins, and outside
glibc (macOS, musl) nothing is done.
"""

from __future__ import annotations

import os
import sys

ARENAS = 1  # one heap for every thread: Python allocates under its GIL, so they seldom contend for it
_M_ARENA_MAX = -8  # mallopt's parameter number in glibc's malloc.h


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Ask glibc for at most ``arenas`` heaps; True when it was asked and agreed."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    import ctypes  # ~1.5 ms, only here

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError):  # not glibc: no mallopt, or no such parameter
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_ARENA_MAX, arenas))
