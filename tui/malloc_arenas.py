"""At most two C heaps (glibc "arenas") for the process, whatever the number of threads.

glibc gives every thread that allocates while another holds the main heap a heap of its own, up to eight per core,
and memory freed in one is only ever reused by the threads on it. A run's commits and chapter reads go through
asyncio's thread pool (up to ``cores + 4`` threads), so each thread kept a heap of freed buffers: ``run --jobs 32``
peaked ~6 MB higher than with two heaps, for no measurable gain in speed (``tests/bench/bench_jobs.py``).

Set once at the process's entry, before any thread starts; a ``MALLOC_ARENA_MAX`` the user set wins, and outside
glibc (macOS, musl) nothing is done.
"""

from __future__ import annotations

import os
import sys

ARENAS = 2  # the main heap and one shared by every worker thread
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
