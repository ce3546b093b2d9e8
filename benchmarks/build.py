"""Benchmark of the structural build (no embeddings): from RDF files and from a SPARQL endpoint.

Every run is ``crm-rag build`` in a fresh process (its own session), so that its wall time,
its peak memory and the memory of its worker processes are its own:

* ``seconds`` is the build time ``crm-rag build`` reports (reading the source, listing the
  entities, every chunk, the triple merge, chaining and the docstore, up to the renamed
  folder); ``wall`` adds the interpreter start and imports. Rates are per build second.
* ``peak RSS`` is the largest sum of the resident memory of the run's processes (the CLI and
  its workers), sampled every 0.1 s; ``max proc`` is the largest single process
  (``ru_maxrss`` of ``wait4``, workers included). The ``oxigraph serve`` of an endpoint run
  is measured apart (its ``VmHWM``).

``full2`` is ``files2`` built whole, embeddings included (cold, or warm with ``--cache``);
``--baseline`` runs another checkout's CLI before each files variant, in the same session.

Variants: ``files1`` and ``files2`` read the files in process with 1 or 2 worker processes;
``walk2`` is ``files2`` with ``--fr-paths walk`` (FR paths walked, not queried);
``endpoint2`` loads the same files into an Oxigraph database (``oxigraph load``, timed but
not counted in the build), serves it on a free port of 127.0.0.1 and builds from it with 2
workers; ``virtuoso2`` does the same with Virtuoso (``virtuoso-t`` on a fresh database,
the files bulk-loaded into one named graph with ``isql-vt``, the build given ``--graph``;
skipped when Virtuoso is not installed: ``make virtuoso``). The documents of the builds of
one dataset are then compared text by text by ``doc_id``.

Usage::

    python benchmarks/build.py                      # every dataset and variant
    python benchmarks/build.py --quick              # the demo graph and YCBA
    python benchmarks/build.py --datasets ycba,nmwa --variants files2,endpoint2,virtuoso2

The figures are printed as a table and written to ``benchmarks/results/build.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from llama_index_crm.sources.local_server import LocalServer
from llama_index_crm.sources.oxigraph_server import OxigraphServer, oxigraph_binary
from llama_index_crm.sources.virtuoso_server import NOT_INSTALLED as VIRTUOSO_NOT_INSTALLED
from llama_index_crm.sources.virtuoso_server import VirtuosoServer, virtuoso_binaries

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
RESULTS = ROOT / "benchmarks" / "results" / "build.json"

DEFAULT_TIMEOUT_S = 600.0
"""Time limit of one build or load, unless its dataset sets another."""
SAMPLE_EVERY_S = 0.1
"""Interval of the memory samples of a running build."""
KILL_GRACE_S = 10.0
"""Seconds between SIGTERM and SIGKILL when a run is stopped."""
IDLE_BELOW_CORES = 0.25
"""Other processes' CPU use under which the machine counts as idle before a run."""
IDLE_PROBE_S = 2.0
"""Interval over which that CPU use is measured."""
LOG_TAIL_LINES = 25
"""Lines of a failed run's output kept in the results."""
MB = 1024 * 1024

TARGET_FILE_RATE = 2000.0
"""Entities per second from files, for YCBA and NMWA."""
TARGET_NPG_SECONDS = 300.0
"""NPG end to end (wall time of ``crm-rag build``)."""
TARGET_NPG_RSS_MB = 4096.0
"""NPG peak resident memory."""
TARGET_ENDPOINT_RATIO = 2.0
"""Build time through the endpoint over the in-process build time (same workers)."""
MIN_RATIO_SECONDS = 1.0
"""Builds shorter than this give no ratio worth judging (the CLI reports 0.1 s steps)."""

VARIANTS: dict[str, tuple[str, int, str]] = {
    "files1": ("files", 1, "sparql"),
    "files2": ("files", 2, "sparql"),
    "walk2": ("files", 2, "walk"),
    "endpoint2": ("endpoint", 2, "sparql"),
    "virtuoso2": ("virtuoso", 2, "auto"),
    "full2": ("files", 2, "sparql"),
}
"""Variant name → (source kind, worker processes, ``--fr-paths``). ``walk2`` is ``files2``
with the FR paths walked instead of queried: the issue's "measure both and keep the faster".
``virtuoso2`` leaves the choice to the server's profile (the walk on Virtuoso)."""
EMBEDDED = frozenset({"full2"})
"""Variants built whole, embeddings included (no ``--no-embed``): the issue-13 memory and
wall targets. Their embedding cache is ``--cache`` (warm) or a fresh empty folder (cold)."""
TARGET_FULL_RSS_MB = {"ycba": 1024.0, "nmwa": 1024.0, "npg": 2560.0}
"""Peak memory of the process tree of a full build (issue 13)."""
TARGET_FULL_SECONDS = {"ycba": 60.0, "nmwa": 180.0, "npg": 1200.0}
"""Wall time of a full build (issue 13)."""
BASE_SUFFIX = "@base"
"""Marks the runs of the ``--baseline`` CLI (the code before a change), same session."""
VIRTUOSO_GRAPH = "https://llama-index-crm.example/benchmark"
"""The named graph the files are loaded into on Virtuoso, and the build's ``--graph``."""
VIRTUOSO_BUFFERS = 170_000
"""``NumberOfBuffers`` of the benchmark's Virtuoso: its documentation's value for 2 GB."""


@dataclass(frozen=True)
class Dataset:
    """One graph to build: its files and the time limit of one run."""

    name: str
    description: str
    files: tuple[Path, ...]
    timeout_s: float = DEFAULT_TIMEOUT_S
    shared: bool = True

    def available(self) -> bool:
        """Whether every file is present."""
        return bool(self.files) and all(p.is_file() for p in self.files)


def datasets() -> dict[str, Dataset]:
    """The benchmark datasets, by name."""
    npg = tuple(sorted((SHARED / "npg").glob("*.n3.zip")))
    return {
        "demo": Dataset("demo", "Troodos demo graph", (ROOT / "examples/data/troodos.ttl",),
                        shared=False),
        "ycba": Dataset("ycba", "Yale Center for British Art (86 k triples)",
                        (SHARED / "ycba" / "ycba_data.n3.zip",)),
        "nmwa": Dataset("nmwa", "National Museum of Wildlife Art (115 k triples)",
                        (SHARED / "nmwa" / "consolidated_data.n3.zip",)),
        "npg": Dataset("npg", "National Portrait Gallery, 14 files (1.3 M triples)", npg,
                       timeout_s=1200.0),
    }


# -- measuring one process tree ----------------------------------------------------------

@dataclass
class RunResult:
    """What one subprocess did: exit, time, memory and output."""

    returncode: int | None
    wall_seconds: float
    peak_tree_rss_mb: float
    max_process_rss_mb: float
    timed_out: bool
    stdout: str
    stderr: str
    cpu_seconds: float = 0.0
    background_cores: float = 0.0


def _busy_seconds() -> float:
    """CPU seconds spent busy by the whole machine since boot (``/proc/stat``)."""
    try:
        with open("/proc/stat") as fh:
            values = [int(v) for v in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = (values + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _process_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by process ``pid`` (0 when it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime stime


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def background_cores(seconds: float = IDLE_PROBE_S) -> float:
    """Cores kept busy by other processes over the next ``seconds``."""
    busy, own = _busy_seconds(), _own_cpu_seconds()
    time.sleep(seconds)
    return max(0.0, (_busy_seconds() - busy - (_own_cpu_seconds() - own)) / seconds)


def wait_until_idle(max_wait_s: float) -> float:
    """Wait (at most ``max_wait_s``) until other processes use under
    :data:`IDLE_BELOW_CORES` cores; return the last use measured."""
    deadline = time.monotonic() + max_wait_s
    load = background_cores()
    while load >= IDLE_BELOW_CORES and time.monotonic() < deadline:
        load = background_cores()
    return round(load, 2)


def _session_rss(session: int) -> int:
    """Resident bytes of every process in ``session`` (a run and its workers)."""
    total = 0
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
            fields = stat[stat.rindex(b")") + 2 :].split()
            if int(fields[3]) != session:  # state ppid pgrp session ...
                continue
            with open(f"/proc/{entry.name}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue  # the process ended while being read
    return total


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the session of ``proc``, then SIGKILL it if it lingers."""
    for sig, grace in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 0.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if _session_rss(proc.pid) == 0:
                return
            time.sleep(0.1)


def measure(cmd: Sequence[str], timeout_s: float, log_dir: Path, name: str,
            helper_pid: int | None = None, env: dict[str, str] | None = None) -> RunResult:
    """Run ``cmd`` in a new session; time it, sample its memory, stop it at ``timeout_s``.

    ``background_cores`` is the CPU other processes used meanwhile (not the run, this
    benchmark, nor ``helper_pid``, the server an endpoint run talks to), per wall second.
    """
    out_path, err_path = log_dir / f"{name}.out", log_dir / f"{name}.err"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        busy, own = _busy_seconds(), _own_cpu_seconds()
        helper = _process_cpu_seconds(helper_pid) if helper_pid else 0.0
        started = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, start_new_session=True,
                                cwd=ROOT, env=env)
        peak = 0
        timed_out = False
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                peak = max(peak, _session_rss(proc.pid))
                if time.perf_counter() - started > timeout_s:
                    timed_out = True
                    _stop(proc)
                    pid, status, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(SAMPLE_EVERY_S)
        except BaseException:  # interrupted: the run must not outlive the benchmark
            _stop(proc)
            raise
        wall = time.perf_counter() - started
        cpu = usage.ru_utime + usage.ru_stime
        others = (_busy_seconds() - busy) - cpu - (_own_cpu_seconds() - own)
        if helper_pid:
            others -= _process_cpu_seconds(helper_pid) - helper
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    # Workers that outlived their parent would still be in the session: stop them too.
    if _session_rss(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    return RunResult(
        returncode=None if timed_out else proc.returncode,
        wall_seconds=round(wall, 2),
        peak_tree_rss_mb=round(peak / MB, 1),
        max_process_rss_mb=round(usage.ru_maxrss / 1024, 1),
        timed_out=timed_out,
        stdout=out_path.read_text(errors="replace"),
        stderr=err_path.read_text(errors="replace"),
        cpu_seconds=round(cpu, 1),
        background_cores=round(max(0.0, others) / max(wall, 1e-9), 2),
    )


# -- one build ---------------------------------------------------------------------------

@dataclass
class BuildFigures:
    """The figures of one dataset × variant."""

    dataset: str
    variant: str
    workers: int
    status: str = "ok"
    entities: int = 0
    documents: int = 0
    triples: int = 0
    satellites_absorbed: int = 0
    uncategorised: int = 0
    documents_chained: int = 0
    seconds: float = 0.0
    wall_seconds: float = 0.0
    entities_per_s: float = 0.0
    triples_per_s: float = 0.0
    peak_rss_mb: float = 0.0
    max_process_rss_mb: float = 0.0
    cpu_seconds: float = 0.0
    background_cores_before: float = 0.0
    background_cores_during: float = 0.0
    cli_peak_memory_mb: float | None = None
    code: str = ""
    endpoint: dict[str, float] = field(default_factory=dict)
    error: dict[str, Any] | None = None


def _cli_value(stdout: str, key: str) -> float | None:
    """A figure of the summary ``crm-rag build`` prints (``  seconds  12.3``)."""
    match = re.search(rf"^\s+{re.escape(key)}\s+([\d,.]+)\s*$", stdout, re.M)
    return float(match.group(1).replace(",", "")) if match else None


def _stage(stderr: str) -> str:
    """Where a failed build stopped, read from its progress bar and log."""
    bars = re.findall(r"(\d+)/(\d+) \[", stderr)
    if not bars:
        return "reading the source / listing entities (no chunk finished)"
    done, total = map(int, bars[-1])
    if done < total:
        return f"chunks: {done:,} of {total:,} entities done"
    return "finishing: triple merge, chaining or docstore persist (every chunk done)"


def _tail(text: str) -> list[str]:
    lines = [part for line in text.splitlines() for part in line.split("\r") if part.strip()]
    return lines[-LOG_TAIL_LINES:]


MODELS_FROM: Path | None = None
"""``--models``: model files linked into each fresh embedding cache."""


def run_build(dataset: Dataset, variant: str, out: Path, log_dir: Path, idle_wait_s: float,
              server: LocalServer | None = None, baseline: Path | None = None,
              cache: Path | None = None) -> BuildFigures:
    """``crm-rag build`` of ``dataset`` into ``out`` in a fresh process, measured.

    Waits first (at most ``idle_wait_s``) for other processes to leave the CPU alone.
    ``baseline`` is another checkout's ``crm-rag`` (its own virtual environment), run
    instead of this one's: the figures of the variant are then ``variant@base``. A full
    build (:data:`EMBEDDED`) reads and fills the embedding cache ``cache``, or a fresh one.
    """
    endpoint = server.url if server else None
    name = variant.removesuffix(BASE_SUFFIX)
    kind, workers, fr_paths = VARIANTS[name]
    cmd = ([str(baseline)] if baseline else
           [sys.executable, "-m", "llama_index_crm.cli"]) + ["-v", "build"]
    cmd += ["--endpoint", endpoint] if endpoint else [str(p) for p in dataset.files]
    if isinstance(server, VirtuosoServer):
        cmd += ["--graph", server.graph]
    cmd += ["--out", str(out), "--workers", str(workers), "--fr-paths", fr_paths]
    env = dict(os.environ)
    if name in EMBEDDED:
        if cache is None:
            cache = Path(tempfile.mkdtemp(prefix="crm-cache-"))
            if MODELS_FROM is not None:  # model files made already: only the vectors are cold
                (cache / "models").symlink_to(MODELS_FROM.resolve())
        env["LLAMA_INDEX_CRM_CACHE"] = str(cache)
    else:
        cmd.append("--no-embed")
    print(f"  {dataset.name:<5} {variant:<9} …", end="", flush=True)
    before = wait_until_idle(idle_wait_s) if idle_wait_s > 0 else background_cores()
    code = "baseline " + str(baseline) if baseline else code_fingerprint()
    run = measure(cmd, dataset.timeout_s, log_dir, f"{dataset.name}-{variant}",
                  helper_pid=server.process.pid if server else None, env=env)
    fig = BuildFigures(dataset.name, variant, workers, wall_seconds=run.wall_seconds, code=code,
                       peak_rss_mb=run.peak_tree_rss_mb,
                       max_process_rss_mb=run.max_process_rss_mb,
                       cpu_seconds=run.cpu_seconds, background_cores_before=before,
                       background_cores_during=run.background_cores)
    manifest = out / "manifest.json"
    if run.timed_out or run.returncode != 0 or not manifest.is_file():
        fig.status = "timeout" if run.timed_out else "error"
        fig.error = {
            "returncode": run.returncode,
            "timeout_s": dataset.timeout_s if run.timed_out else None,
            "stage": _stage(run.stderr),
            "tail": _tail(run.stderr + run.stdout),
        }
        print(f" {fig.status.upper()} after {run.wall_seconds:.0f} s "
              f"({fig.error['stage']}; peak {run.peak_tree_rss_mb:,.0f} MB)")
        return fig
    stats = json.loads(manifest.read_text())["stats"]
    fig.entities = int(stats["entities"])
    fig.documents = int(stats["documents"])
    fig.triples = int(stats["triples_archived"])
    fig.satellites_absorbed = int(stats["satellites_absorbed"])
    fig.uncategorised = int(stats["uncategorised"])
    fig.documents_chained = int(stats["documents_chained"])
    seconds = _cli_value(run.stdout, "seconds")
    fig.seconds = seconds if seconds else run.wall_seconds
    fig.cli_peak_memory_mb = _cli_value(run.stdout, "peak memory (MB)")
    fig.entities_per_s = round(fig.entities / max(fig.seconds, 1e-9), 1)
    fig.triples_per_s = round(fig.triples / max(fig.seconds, 1e-9), 1)
    print(f" {fig.seconds:,.1f} s, {fig.entities_per_s:,.0f} entities/s, "
          f"peak {fig.peak_rss_mb:,.0f} MB, cpu {fig.cpu_seconds:,.1f} s, "
          f"other load {fig.background_cores_during:.2f} cores")
    return fig


# -- comparing documents -----------------------------------------------------------------

def read_texts(folder: Path) -> dict[str, str]:
    """``doc_id → text`` of a built folder's ``documents.parquet``."""
    table = pq.read_table(folder / "documents.parquet", columns=["doc_id", "text"])
    return dict(zip(table.column("doc_id").to_pylist(), table.column("text").to_pylist(),
                    strict=True))


def compare_documents(a: Path, b: Path) -> dict[str, Any]:
    """Whether two builds hold the same documents, byte for byte, by ``doc_id``."""
    left, right = read_texts(a), read_texts(b)
    common = left.keys() & right.keys()
    differing = sorted(k for k in common if left[k] != right[k])
    only_a, only_b = sorted(left.keys() - right.keys()), sorted(right.keys() - left.keys())
    report: dict[str, Any] = {
        "identical": not (differing or only_a or only_b),
        "documents": [len(left), len(right)],
        "differing": len(differing),
        "only_first": len(only_a),
        "only_second": len(only_b),
        "examples": {"differing": differing[:5], "only_first": only_a[:5],
                     "only_second": only_b[:5]},
    }
    if differing:
        first = differing[0]
        report["first_difference"] = _first_difference(left[first], right[first])
    return report


def _first_difference(x: str, y: str) -> dict[str, str]:
    """The lines around the first place two texts part."""
    xs, ys = x.splitlines(), y.splitlines()
    for i, (u, v) in enumerate(zip(xs, ys, strict=False)):
        if u != v:
            return {"line": str(i + 1), "first": u, "second": v}
    i = min(len(xs), len(ys))
    return {"line": str(i + 1), "first": "\n".join(xs[i:i + 2]) or "<end>",
            "second": "\n".join(ys[i:i + 2]) or "<end>"}


# -- machine, targets, table -------------------------------------------------------------

def _command_output(cmd: Sequence[str]) -> str:
    try:
        done = subprocess.run(list(cmd), capture_output=True, text=True, timeout=30, cwd=ROOT)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def code_fingerprint() -> str:
    """A short hash of the package source and configuration a run is about to use."""
    digest = hashlib.sha256()
    for folder in ("llama_index_crm", "config"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".json", ".toml", ".txt", ".md"):
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def machine_info() -> dict[str, Any]:
    """Cores, memory, CPU, Python and versions of the machine the benchmark ran on."""
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    mem = re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.M)
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    import pyoxigraph

    from llama_index_crm import __version__

    binary = oxigraph_binary()
    virtuoso = virtuoso_binaries()
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "ram_gb": round(int(mem.group(1)) / 1024 / 1024, 1) if mem else None,
        "cpu": model.group(1).strip() if model else platform.processor(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "llama_index_crm": __version__,
        "git_commit": _command_output(["git", "rev-parse", "--short", "HEAD"]),
        "git_dirty": bool(_command_output(["git", "status", "--porcelain",
                                           "llama_index_crm", "config"])),
        "pyoxigraph": pyoxigraph.__version__,
        "oxigraph_cli": _command_output([binary, "--version"]) if binary else None,
        "virtuoso": _virtuoso_version(virtuoso[0]) if virtuoso else None,
    }


def _virtuoso_version(binary: str) -> str:
    """``Version 7.2.5.3229-pthreads ...`` from ``virtuoso-t -?`` (printed on stderr)."""
    try:
        done = subprocess.run([binary, "-?"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    found = re.search(r"^Version .*$", done.stdout + done.stderr, re.M)
    return found.group(0) if found else ""


def _fig(results: list[BuildFigures], dataset: str, variant: str) -> BuildFigures | None:
    for fig in results:
        if fig.dataset == dataset and fig.variant == variant and fig.status == "ok":
            return fig
    return None


def evaluate_targets(results: list[BuildFigures]) -> list[dict[str, Any]]:
    """Each target of the issue next to the figure measured in this run."""
    targets: list[dict[str, Any]] = []
    for name in ("ycba", "nmwa"):
        for variant in ("files1", "files2"):
            fig = _fig(results, name, variant)
            if fig is None:
                continue
            targets.append({
                "target": f"{name} from files at >= {TARGET_FILE_RATE:,.0f} entities/s",
                "variant": variant, "measured": f"{fig.entities_per_s:,.0f} entities/s",
                "met": fig.entities_per_s >= TARGET_FILE_RATE,
            })
    for variant in ("files1", "files2", "endpoint2"):
        ran = [f for f in results if f.dataset == "npg" and f.variant == variant]
        if not ran:
            continue
        fig = ran[0]
        if fig.status != "ok":
            targets.append({
                "target": f"npg end to end < {TARGET_NPG_SECONDS:.0f} s, "
                          f"peak RSS < {TARGET_NPG_RSS_MB / 1024:.0f} GB",
                "variant": variant, "measured": f"{fig.status} after {fig.wall_seconds:,.0f} s",
                "met": False,
            })
            continue
        targets.append({
            "target": f"npg end to end < {TARGET_NPG_SECONDS:.0f} s",
            "variant": variant, "measured": f"{fig.wall_seconds:,.1f} s wall",
            "met": fig.wall_seconds < TARGET_NPG_SECONDS,
        })
        targets.append({
            "target": f"npg peak RSS < {TARGET_NPG_RSS_MB / 1024:.0f} GB",
            "variant": variant, "measured": f"{fig.peak_rss_mb:,.0f} MB",
            "met": fig.peak_rss_mb < TARGET_NPG_RSS_MB,
        })
    for name in dict.fromkeys(f.dataset for f in results):
        files, endpoint = _fig(results, name, "files2"), _fig(results, name, "endpoint2")
        if files is None or endpoint is None:
            continue
        ratio = endpoint.seconds / max(files.seconds, 1e-9)
        judged = files.seconds >= MIN_RATIO_SECONDS
        targets.append({
            "target": f"{name} endpoint <= {TARGET_ENDPOINT_RATIO:.0f}x in-process",
            "variant": "endpoint2 / files2",
            "measured": f"{ratio:.2f}x ({endpoint.seconds:,.1f} s / {files.seconds:,.1f} s)"
                        + ("" if judged else "; too short to judge"),
            "ratio": round(ratio, 3),
            "met": ratio <= TARGET_ENDPOINT_RATIO if judged else None,
        })
    for name in dict.fromkeys(f.dataset for f in results):
        files, virtuoso = _fig(results, name, "files2"), _fig(results, name, "virtuoso2")
        oxigraph = _fig(results, name, "endpoint2")
        if files is None or virtuoso is None:
            continue
        ratios = f"{virtuoso.seconds / max(files.seconds, 1e-9):.2f}x files2"
        if oxigraph is not None:
            ratios += f", {virtuoso.seconds / max(oxigraph.seconds, 1e-9):.2f}x endpoint2"
        targets.append({
            "target": f"{name} from Virtuoso (reported, no target)",
            "variant": "virtuoso2 / files2, virtuoso2 / endpoint2",
            "measured": f"{ratios} ({virtuoso.seconds:,.1f} s)",
            "ratio": round(virtuoso.seconds / max(files.seconds, 1e-9), 3),
            "met": None,
        })
    for name in dict.fromkeys(f.dataset for f in results):
        queried, walked = _fig(results, name, "files2"), _fig(results, name, "walk2")
        if queried is None or walked is None:
            continue
        targets.append({
            "target": f"{name} FR paths: keep the faster (SPARQL property paths, the default)",
            "variant": "walk2 / files2",
            "measured": f"walk {walked.seconds:,.1f} s, SPARQL {queried.seconds:,.1f} s "
                        f"({walked.seconds / max(queried.seconds, 1e-9):.2f}x)",
            "ratio": round(walked.seconds / max(queried.seconds, 1e-9), 3),
            "met": queried.seconds <= walked.seconds
            if queried.seconds >= MIN_RATIO_SECONDS else None,
        })
    for fig in results:
        name = fig.variant.removesuffix(BASE_SUFFIX)
        if name not in EMBEDDED or fig.status != "ok" or fig.dataset not in TARGET_FULL_RSS_MB:
            continue
        targets.append({
            "target": f"{fig.dataset} full build peak of the process tree "
                      f"<= {TARGET_FULL_RSS_MB[fig.dataset]:,.0f} MB",
            "variant": fig.variant, "measured": f"{fig.peak_rss_mb:,.0f} MB",
            "met": fig.peak_rss_mb <= TARGET_FULL_RSS_MB[fig.dataset],
        })
        targets.append({
            "target": f"{fig.dataset} full build < {TARGET_FULL_SECONDS[fig.dataset]:,.0f} s",
            "variant": fig.variant, "measured": f"{fig.wall_seconds:,.1f} s wall",
            "met": fig.wall_seconds < TARGET_FULL_SECONDS[fig.dataset],
        })
    for fig in results:
        base = _fig(results, fig.dataset, fig.variant + BASE_SUFFIX)
        if base is None or fig.status != "ok":
            continue
        targets.append({
            "target": f"{fig.dataset} {fig.variant} against the baseline (reported)",
            "variant": f"{fig.variant} / {base.variant}",
            "measured": f"peak {fig.peak_rss_mb:,.0f} / {base.peak_rss_mb:,.0f} MB "
                        f"({fig.peak_rss_mb / max(base.peak_rss_mb, 1e-9):.2f}x), wall "
                        f"{fig.wall_seconds:,.1f} / {base.wall_seconds:,.1f} s "
                        f"({fig.wall_seconds / max(base.wall_seconds, 1e-9):.2f}x), cpu "
                        f"{fig.cpu_seconds:,.1f} / {base.cpu_seconds:,.1f} s",
            "ratio": round(fig.peak_rss_mb / max(base.peak_rss_mb, 1e-9), 3),
            "met": None,
        })
    return targets


def format_table(results: list[BuildFigures]) -> str:
    """The figures as a Markdown table."""
    head = ("| dataset | variant | entities | documents | triples | build s | wall s | cpu s "
            "| entities/s | triples/s | peak RSS MB | max proc MB | other load | load s "
            "| server MB |")
    lines = [head, "|" + "|".join(["---"] * (head.count("|") - 1)) + "|"]
    for f in results:
        if f.status != "ok":
            lines.append(f"| {f.dataset} | {f.variant} | **{f.status}** after "
                         f"{f.wall_seconds:,.0f} s | | | | {f.wall_seconds:,.1f} "
                         f"| {f.cpu_seconds:,.1f} | | | {f.peak_rss_mb:,.0f} "
                         f"| {f.max_process_rss_mb:,.0f} | {f.background_cores_during:.2f} | | |")
            continue
        load = f"{f.endpoint['load_seconds']:,.1f}" if f.endpoint else ""
        server = f"{f.endpoint['server_peak_rss_mb']:,.0f}" if f.endpoint else ""
        lines.append(
            f"| {f.dataset} | {f.variant} | {f.entities:,} | {f.documents:,} | {f.triples:,} "
            f"| {f.seconds:,.1f} | {f.wall_seconds:,.1f} | {f.cpu_seconds:,.1f} "
            f"| {f.entities_per_s:,.0f} | {f.triples_per_s:,.0f} | {f.peak_rss_mb:,.0f} "
            f"| {f.max_process_rss_mb:,.0f} | {f.background_cores_during:.2f} | {load} "
            f"| {server} |"
        )
    return "\n".join(lines)


# -- main --------------------------------------------------------------------------------

def _names(text: str, known: Sequence[str], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(known)})")
    return names


def benchmark_dataset(dataset: Dataset, variants: list[str], work: Path, binary: str | None,
                      idle_wait_s: float, baseline: Path | None = None,
                      cache: Path | None = None) -> tuple[list[BuildFigures], dict[str, Any]]:
    """Every variant of one dataset (each after its ``baseline`` run, when one is given),
    then the comparison of their documents."""
    figures: list[BuildFigures] = []
    outs: dict[str, Path] = {}
    log_dir = work / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    for variant in variants:
        out = work / dataset.name / variant
        kind = VARIANTS[variant][0]
        if kind == "files":
            if baseline is not None:
                base = variant + BASE_SUFFIX
                fig = run_build(dataset, base, work / dataset.name / base, log_dir,
                                idle_wait_s, baseline=baseline, cache=cache)
                figures.append(fig)
                if fig.status == "ok":
                    outs[base] = work / dataset.name / base
            fig = run_build(dataset, variant, out, log_dir, idle_wait_s, cache=cache)
        else:
            missing = _missing_server(kind, binary)
            if missing:
                print(f"  {dataset.name:<5} {variant:<9} skipped: {missing}")
                continue
            server_dir = work / dataset.name / kind
            server_dir.mkdir(parents=True, exist_ok=True)
            try:
                with _server(kind, dataset, server_dir, binary) as server:
                    print(f"  {dataset.name:<5} {kind:<9} unpack {server.unpack_seconds:.1f} s,"
                          f" load {server.load_seconds:.1f} s")
                    server_cpu = _process_cpu_seconds(server.process.pid)
                    fig = run_build(dataset, variant, out, log_dir, idle_wait_s, server)
                    fig.endpoint = {
                        "unpack_seconds": server.unpack_seconds,
                        "load_seconds": server.load_seconds,
                        "server_peak_rss_mb": server.peak_rss_mb(),
                        "server_cpu_seconds": round(
                            _process_cpu_seconds(server.process.pid) - server_cpu, 1),
                    }
            except (subprocess.SubprocessError, RuntimeError, OSError) as exc:
                detail = getattr(exc, "stderr", b"") or b""
                if isinstance(detail, str):
                    detail = detail.encode()
                fig = BuildFigures(dataset.name, variant, VARIANTS[variant][1], status="error",
                                   error={"stage": f"{kind} load / serve", "tail":
                                          [str(exc), *_tail(detail.decode(errors="replace"))]})
                print(f"  {dataset.name:<5} {variant:<9} ERROR in {kind} load/serve: {exc}")
            shutil.rmtree(server_dir, ignore_errors=True)
        figures.append(fig)
        if fig.status == "ok":
            outs[variant] = out
    comparisons: dict[str, Any] = {}
    built = list(outs)
    for i, first in enumerate(built):
        for second in built[i + 1:]:
            key = f"{first} vs {second}"
            comparisons[key] = compare_documents(outs[first], outs[second])
            same = comparisons[key]
            verdict = ("identical" if same["identical"] else
                       f"DIFFERENT: {same['differing']} texts differ, "
                       f"{same['only_first']} / {same['only_second']} only in one")
            print(f"  {dataset.name:<5} documents {key}: {verdict} "
                  f"({same['documents'][0]:,} / {same['documents'][1]:,} docs)")
    return figures, comparisons


def _missing_server(kind: str, oxigraph: str | None) -> str | None:
    """Why the server of ``kind`` cannot run here, or ``None``."""
    if kind == "endpoint" and oxigraph is None:
        return "no oxigraph CLI"
    if kind == "virtuoso" and virtuoso_binaries() is None:
        return VIRTUOSO_NOT_INSTALLED
    return None


def _server(kind: str, dataset: Dataset, workdir: Path, oxigraph: str | None) -> LocalServer:
    """The (not yet started) server of ``kind`` for ``dataset``."""
    if kind == "virtuoso":
        return VirtuosoServer(dataset.files, workdir, VIRTUOSO_GRAPH, buffers=VIRTUOSO_BUFFERS,
                              load_timeout_s=dataset.timeout_s)
    return OxigraphServer(dataset.files, workdir, binary=oxigraph,
                          load_timeout_s=dataset.timeout_s)


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM as an exception, so that runs and servers are stopped on the way out."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the table and write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    all_sets = datasets()
    parser.add_argument("--datasets", default=",".join(all_sets),
                        help=f"comma-separated, of {', '.join(all_sets)}")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--quick", action="store_true", help="only the demo graph and YCBA")
    parser.add_argument("--output", type=Path, default=RESULTS, help="the JSON results file")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="where builds and logs go (a temporary folder by default)")
    parser.add_argument("--keep", action="store_true", help="keep the built folders and logs")
    parser.add_argument("--idle-wait", type=float, default=120.0, metavar="S",
                        help="before each run, wait at most S seconds for other processes to "
                             f"use under {IDLE_BELOW_CORES} cores (0: do not wait)")
    parser.add_argument("--baseline", type=Path, default=None, metavar="CRM_RAG",
                        help="another checkout's crm-rag (e.g. /work/main/.venv/bin/crm-rag): "
                             "each files variant runs with it first, as VARIANT@base")
    parser.add_argument("--cache", type=Path, default=None, metavar="DIR",
                        help="embedding cache of the full builds (warm); default: a fresh, "
                             "empty one per run (cold)")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR",
                        help="a models folder made by an earlier run ($LLAMA_INDEX_CRM_CACHE/"
                             "models), linked into each fresh cache: cold vectors, model "
                             "files already made")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    global MODELS_FROM
    MODELS_FROM = args.models

    names = ["demo", "ycba"] if args.quick else _names(args.datasets, list(all_sets), "dataset")
    variants = _names(args.variants, list(VARIANTS), "variant")
    binary = oxigraph_binary()
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="crm-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    machine = machine_info()
    print(f"Machine: {machine['cores']} cores, {machine['ram_gb']} GB RAM, {machine['cpu']}, "
          f"Python {machine['python']}; work folder {work}")

    figures: list[BuildFigures] = []
    comparisons: dict[str, dict[str, Any]] = {}
    skipped: dict[str, str] = {}
    started = time.perf_counter()
    try:
        for name in names:
            dataset = all_sets[name]
            if not dataset.available():
                where = SHARED if dataset.shared else dataset.files[0]
                skipped[name] = f"files not found under {where}"
                print(f"  {name:<5} skipped: {skipped[name]}")
                continue
            figs, comps = benchmark_dataset(dataset, variants, work, binary, args.idle_wait,
                                            args.baseline, args.cache)
            figures.extend(figs)
            comparisons[name] = comps
            if not args.keep:
                shutil.rmtree(work / name, ignore_errors=True)
    finally:
        if not args.keep and args.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)

    targets = evaluate_targets(figures)
    codes = sorted({f.code for f in figures if not f.code.startswith("baseline ")})
    print()
    print(format_table(figures))
    if len(codes) > 1:
        print(f"\nWARNING: the package code changed during the benchmark ({', '.join(codes)}); "
              "the figures of different runs are not comparable.")
    print()
    for t in targets:
        mark = {True: "met   ", False: "MISSED", None: "n/a   "}[t["met"]]
        print(f"  {mark} {t['target']} [{t['variant']}]: {t['measured']}")
    results = {
        "command": " ".join(["python", "benchmarks/build.py", *(argv or sys.argv[1:])]),
        "machine": machine,
        "total_seconds": round(time.perf_counter() - started, 1),
        "code_fingerprints": codes,
        "baseline": str(args.baseline) if args.baseline else None,
        "notes": {
            "seconds": "build time reported by crm-rag build (source read to folder renamed); "
                       "rates are per build second; wall_seconds adds interpreter start",
            "peak_rss_mb": "largest sum of the resident memory of the build's processes "
                           f"(CLI + workers), sampled every {SAMPLE_EVERY_S} s",
            "max_process_rss_mb": "largest single process (ru_maxrss via wait4)",
            "code": "hash of llama_index_crm/ and config/ when the run started",
            "cpu_seconds": "user + system CPU of the build's processes (workers included)",
            "background_cores": "CPU used by other processes on the machine (not the build, "
                                "this benchmark or the oxigraph server), in cores; 'before' "
                                f"over {IDLE_PROBE_S} s just before the run",
            "endpoint": "load time of oxigraph load (endpoint2) or of the isql-vt bulk load "
                        "(virtuoso2) is not in seconds; server memory and CPU apart",
        },
        "skipped": skipped,
        "results": {
            name: {f.variant: asdict(f) for f in figures if f.dataset == name}
            for name in dict.fromkeys(f.dataset for f in figures)
        },
        "documents_identical": comparisons,
        "targets": targets,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(f"\nWrote {args.output}")
    return 0 if all(f.status == "ok" for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
