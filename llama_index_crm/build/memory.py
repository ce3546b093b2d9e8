"""The peak memory of a build: the resident memory of its whole process tree.

A build runs in one process and, during the chunk loop, in worker processes; ``ru_maxrss``
gives each process's own maximum, and adding the maxima of processes that did not peak
together overstates the peak (the CLI said 2,020–2,092 MB for builds whose tree never held
more than 1,486 MB). :class:`TreePeak` samples instead, every :data:`SAMPLE_EVERY_S`, the sum
of the resident memory of this process and of every process below it, and keeps the
largest sum: the figure ``crm-rag build`` prints and the manifest records.

A sample alone misses what happens between two samples: a worker that allocates 300 MB
and frees it 50 ms later, or a sampling thread that a busy machine runs late. Each sample
therefore also reads every process's own high-water mark, kept by the kernel (``VmHWM``),
and ``ru_maxrss`` of the children this process reaped (``RUSAGE_CHILDREN``). A mark that
rose since the previous sample was reached in between; the tree then held at least that
mark plus the other processes, each counted at the lower of its two resident sizes around
it (never a second high-water mark: peaks that did not coincide are not added up).

The tree is read from ``/proc`` (Linux): the resident size and high-water mark of the known
processes at each sample, the list of descendants again every :data:`RESCAN_EVERY_S` (a
scan of ``/proc`` costs milliseconds, a sample microseconds). Without ``/proc`` the figure
is this process's own ``ru_maxrss``, a lower bound.

>>> peak = TreePeak().start()
>>> now = peak.sample()  # bytes; the peak is in MB and counts this sample
>>> now > 0 and peak.peak_mb * MB >= now
True
>>> peak.stop()
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import os
import resource
import sys
import threading
from pathlib import Path
from types import TracebackType

SAMPLE_EVERY_S = 0.1
"""Interval between two samples of the tree's resident memory."""
RESCAN_EVERY_S = 0.5
"""Interval between two scans of ``/proc`` for the processes below this one."""
MB = 1024 * 1024
_PROC = Path("/proc")
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss_and_hwm(pid: int) -> tuple[int, int]:
    """Resident bytes of ``pid`` now and its high-water mark (``VmRSS``, ``VmHWM``);
    (0, 0) once it is gone or has exited (a zombie holds no memory)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            status = fh.read()
    except OSError:
        return 0, 0
    rss = hwm = 0
    for line in status.splitlines():
        if line.startswith(b"VmHWM:"):
            hwm = int(line.split()[1]) * 1024
        elif line.startswith(b"VmRSS:"):
            rss = int(line.split()[1]) * 1024
            break  # VmRSS follows VmHWM
    return rss, hwm


def _reaped_max() -> int:
    """The largest ``ru_maxrss`` of the children this process reaped (and theirs), bytes."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


def descendants(root: int) -> list[int]:
    """Every process below ``root`` (children, their children, …), from ``/proc``."""
    children: dict[int, list[int]] = {}
    try:
        entries = list(os.scandir(_PROC))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
            # the command name may hold spaces and parentheses: fields follow the last ")"
            ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


class TreePeak:
    """The largest resident memory of this process and its descendants, sampled over time.

    Args:
        every: seconds between samples.
        rescan: seconds between two look-ups of the descendants.
        root: the process whose tree is measured (default: this one), e.g. a benchmark's
            child build; its resident memory reads 0 once it has ended.
    """

    def __init__(self, every: float = SAMPLE_EVERY_S, rescan: float = RESCAN_EVERY_S,
                 root: int | None = None) -> None:
        self.every = every
        self.rescan = rescan
        self._pid = os.getpid() if root is None else root
        self._children: list[int] = []
        self._peak = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._proc = (_PROC / str(os.getpid()) / "statm").exists()
        self._rss: dict[int, int] = {}  # resident bytes of each process at the last sample
        self._hwm: dict[int, int] = {}  # high-water mark of each process, last read
        self._gone_hwm = 0  # the largest mark of a process that has since gone
        self._reaped = 0  # RUSAGE_CHILDREN's ru_maxrss at the last sample (root = self)

    def _baseline(self) -> None:
        """The marks as they are now, reached before sampling began: not counted."""
        pids = [self._pid, *self._children]
        with self._lock:
            for pid in pids:
                if pid not in self._hwm:
                    self._rss[pid], self._hwm[pid] = _rss_and_hwm(pid)
            if self._pid == os.getpid():
                self._reaped = max(self._reaped, _reaped_max())

    def sample(self) -> int:
        """Resident bytes of the tree now (also counted in the peak, with the high-water
        marks reached since the previous sample)."""
        if not self._proc:
            now = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            with self._lock:
                self._peak = max(self._peak, now)
            return now
        with self._lock:  # one sample at a time: each compares with the one before
            seen = {pid: _rss_and_hwm(pid) for pid in [self._pid, *self._children]}
            reaped = _reaped_max() if self._pid == os.getpid() else 0
            alive = {pid: mem for pid, mem in seen.items() if mem != (0, 0)}
            now = sum(rss for rss, _ in alive.values())
            # each process at the lower of its two samples, around a mark reached in between
            low = {pid: min(rss, self._rss[pid]) if pid in self._rss else 0
                   for pid, (rss, _) in alive.items()}
            floor = sum(low.values())
            peak = now
            for pid, (_, hwm) in alive.items():
                if hwm > self._hwm.get(pid, 0):
                    peak = max(peak, hwm + floor - low[pid])
            for pid in set(self._hwm) - set(alive):  # gone since the previous sample
                self._gone_hwm = max(self._gone_hwm, self._hwm.pop(pid))
                self._rss.pop(pid, None)
            if reaped > self._reaped and reaped > self._gone_hwm:
                # a child reaped since, whose mark no sample saw (it rose after the last
                # look, or the child lived between two look-ups of the descendants)
                peak = max(peak, reaped + floor)
            self._reaped = max(self._reaped, reaped)
            for pid, (rss, hwm) in alive.items():
                self._rss[pid] = rss
                self._hwm[pid] = max(self._hwm.get(pid, 0), hwm)
            self._peak = max(self._peak, peak)
        return now

    def _run(self) -> None:
        since_scan = 0.0  # start() has just looked them up
        while not self._stop.is_set():
            if self._proc and since_scan >= self.rescan:
                self._children = descendants(self._pid)
                since_scan = 0.0
            self.sample()
            self._stop.wait(self.every)
            since_scan += self.every

    def start(self) -> TreePeak:
        """Start sampling in a daemon thread (again after :meth:`stop`); returns ``self``.

        The descendants are looked up here first, so that a :meth:`sample` taken as soon as
        this returns counts the whole tree, however late the thread gets to run; their
        high-water marks so far were reached before, and are not counted.
        """
        if self._thread is None or not self._thread.is_alive():
            if self._proc:
                self._children = descendants(self._pid)
                self._baseline()
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="tree-peak", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling (the peak so far is kept)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    @property
    def peak_mb(self) -> float:
        """The largest sample so far, in MB (a sample is taken now as well)."""
        self.sample()
        with self._lock:
            return self._peak / MB

    def __enter__(self) -> TreePeak:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


_PROCESS_PEAK: TreePeak | None = None


def process_peak() -> TreePeak:
    """The sampler of this process, started at the first call (the CLI calls it first)."""
    global _PROCESS_PEAK
    if _PROCESS_PEAK is None or _PROCESS_PEAK._pid != os.getpid():
        _PROCESS_PEAK = TreePeak().start()
    return _PROCESS_PEAK


def peak_rss_mb() -> float:
    """Peak resident memory of this process and its descendants since sampling began, MB."""
    return process_peak().peak_mb


def release_freed_memory() -> None:
    """Hand memory that Python freed back to the system (glibc keeps it otherwise).

    Called between build phases so that a phase's garbage does not stay resident under
    the next one (unreachable cycles are collected first); ``malloc_trim`` where it exists,
    and the unused memory of Arrow's pool (mimalloc or jemalloc keep it otherwise) when
    Arrow is loaded.
    """
    gc.collect()
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        _libc().malloc_trim(0)


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library, by its usual name first: ``ctypes.util.find_library`` runs
    ``ldconfig`` in a child process, a fork of this one that the tree's sampler would count
    as a second copy of it (a 450 MB build process read as 900 MB for a moment)."""
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


LEAN_POOL = "jemalloc"
"""Arrow's memory pool of a build's finish (unless ``ARROW_DEFAULT_MEMORY_POOL`` names
one): jemalloc hands freed memory back to the system, where pyarrow's default, mimalloc,
keeps much of it. NMWA × 4 (issue 24), the finish and docstore on the same parts: 625 MB
with mimalloc, 467 MB with jemalloc (system malloc: 502 MB). The chunk loop's workers
keep the default."""


@functools.cache
def use_lean_arrow_pool() -> str:
    """Make :data:`LEAN_POOL` Arrow's memory pool in this process (once; where this pyarrow
    has it and the environment names no pool); returns the pool's backend."""
    import pyarrow as pa

    if not os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        with contextlib.suppress(NotImplementedError, AttributeError):
            pa.set_memory_pool(getattr(pa, f"{LEAN_POOL}_memory_pool")())
    return str(pa.default_memory_pool().backend_name)
