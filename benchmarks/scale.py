"""A cost curve (issue 24): build graphs of a base dataset × 1, 4, 16 … and watch what grows.

A graph of factor ``n`` is the base graph replicated ``n`` times. Replica 1 is the base as
published; replica ``k > 1`` has every IRI of the base's own namespaces renamed by a path
segment after the namespace (``http://data.wildlifeart.org/object/168`` →
``http://data.wildlifeart.org/r2/object/168``), blank nodes renamed, and its text literals
perturbed: some words of four letters or more get one vowel changed, the same word the same
way throughout a replica (so a label and the appellation that repeats it stay equal), which
keeps names realistic and the replicas' names mostly distinct. Ontology and vocabulary IRIs
(CIDOC-CRM, rdf, rdfs, skos, AAT/ULAN/Getty, DBpedia, …) are left as they are, so replicas
share them as real collections do. Each replica is written once, as gzipped N-Triples, into a
work folder outside the repository (``--work``, default a temporary folder), and reused by
every factor that includes it.

Each factor is built by ``crm-rag build`` in its own process group; recorded per run:
``triples`` (lines written), ``documents`` and ``entities`` (from the CLI's summary),
``seconds`` (the build time the CLI reports) and ``wall_s``, ``peak_mb`` (the resident memory
of the build's process tree, sampled every 0.1 s by
:class:`~llama_index_crm.build.memory.TreePeak` rooted at the child), ``cli_peak_mb`` (the
CLI's own figure), ``index_mb`` (``du`` of the output folder) and the load average before
and after. A build with embeddings is then opened in a fresh process: ``load_s``
(``CrmGraphIndex.load``), ``first_answer_s`` (load + ``CrmQueryPipeline`` + the first
question) and ``query_p50_ms`` / ``query_p95_ms`` over the other questions of the base's
fixed list, each through ``CrmQueryPipeline(index).run(q, [])`` (no LLM). A structural build
(``--no-embed``) cannot be loaded (``CrmGraphIndex.load`` refuses it), so these are null.

The growth exponents are the least-squares slopes of log(seconds) and log(peak_mb) over
log(factor): 1 is linear, 0 flat. A PNG plot is written next to the JSON.

Usage::

    python benchmarks/scale.py --base nmwa --factors 1 8 --no-embed \\
        --json benchmarks/results/scale_nmwa.json
    python benchmarks/scale.py --base nmwa --factors 1 4 --embed-backend fast --json OUT.json
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _machine import machine_info  # noqa: E402  (beside this script)

from llama_index_crm.build.memory import TreePeak

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
BUILD_TIMEOUT_S = 3600.0
QUERY_TIMEOUT_S = 1800.0
KILL_GRACE_S = 10.0
MARK = "@@RESULT@@"
TARGET_MEMORY_RATIO = 1.5
"""Issue 24: structural-build peak memory at the largest factor over factor 1, at most."""
TARGET_TIME_PER_FACTOR = 9.0 / 8.0
"""Issue 24: build time ratio ×8/×1 at most 9, i.e. 9/8 of the factor."""

NMWA_QUESTIONS = (
    'When was "Giant Sable Antelope" made?',
    'When was "Summer Bulls (Bison)" made?',
    'Who made "Evolution"?',
    'When was "Buffalos Drinking at the Yellowstone" made?',
    "How many works by Stanley Stearns are in the collection?",
    "How many works by Napachie are in the collection?",
    'Who made "The Meeting, 1878"?',
    "Which works by Pablita Velarde are in the collection?",
    'Tell me about "Contemplating Mortality".',
    "Which works by Charles Cary Rumsey are in the collection?",
    'Who made "Shrew Sketches"?',
    "How many works by Joseph Hautman are in the collection?",
    'Who made "Untitled gorilla sketch"?',
    'When was "Brushwood" made?',
    'Tell me about "Young Bull proof I".',
    "How many works by Jeff Rudolph are in the collection?",
    'When was "Federal Duck Stamp Design, 1960" made?',
    "Which works by Sandy Scott are in the collection?",
    "How many works by Cornelis Botke are in the collection?",
    'Tell me about "Colorado Badger (Taxidea taxus phippsi)".',
)
NPG_QUESTIONS = (
    'Who made "De Kooning Breaks Through"?',
    "Which works by Louis Nelke are in the collection?",
    'Tell me about "Envelope addressed to Mr. L.C. Handy from Bogota and Magdalena '
    'Railway Co.".',
    "Which works by Andrey Grechko are in the collection?",
    'When was "The Knight of the Rueful Countenance" made?',
    'Tell me about "Arthur Rubinstein and Dimitri Mitropoulos".',
    "Which works by Jeffrey Katzenberg are in the collection?",
    'When was "Lane Kirkland" made?',
    'Who made "Winfield Scott and John Ellis Wool"?',
    "How many works by Harvey Breverman are in the collection?",
    "How many works by Timothy White are in the collection?",
    "How many works by James Arthur Baldwin are in the collection?",
    'When was "The Examining Committee" made?',
    'When was "Popular Song Composers" made?',
    "How many works by William Cooper Mead are in the collection?",
    'When was "Robert Fuller and John Binns" made?',
    "Which works by Bradley are in the collection?",
    'Tell me about "Reception of the Japanese Embassadors by the President at the White '
    'House".',
    'Tell me about "Home of Henry W. M. and Sarah M. Meade at 138 West 25th St., New York '
    'City".',
    'Tell me about "Helen Keller and Anne Sullivan".',
)
"""Twenty questions per base (from ``benchmarks/results/query_<base>_questions.jsonl``,
unlabelled anchors left out); they name entities of replica 1, the base as published."""


@dataclass(frozen=True)
class Base:
    """A base graph: its files, its own namespaces (renamed per replica), its questions."""

    name: str
    files: tuple[Path, ...]
    namespaces: tuple[str, ...]
    questions: tuple[str, ...]


def bases() -> dict[str, Base]:
    """The bases, by name."""
    return {
        "nmwa": Base("nmwa", (SHARED / "nmwa" / "consolidated_data.n3.zip",),
                     ("http://data.wildlifeart.org", "http://35.166.66.171"), NMWA_QUESTIONS),
        "npg": Base("npg", tuple(sorted((SHARED / "npg").glob("*.n3.zip"))),
                    ("http://data.npg.si.edu", "http://npg.si.edu", "https://npg.si.edu"),
                    NPG_QUESTIONS),
    }


# -- replication -------------------------------------------------------------------------------
_TERM = re.compile(r'<([^>]*)>|(_:[A-Za-z0-9_\-.]+)|"((?:[^"\\]|\\.)*)"')
"""An IRI, a blank node or a literal's lexical form, in an N-Triples line."""
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{4,}(?![A-Za-z])")
"""A word of four ASCII letters or more, not the tail of an escape (``\\uABCD``)."""
_VOWELS = "aeiou"


def rename_iri(iri: str, replica: int, namespaces: Sequence[str]) -> str:
    """``iri`` in replica ``replica``: a segment ``r<k>`` after its own namespace, if any.

    >>> rename_iri("http://ex.org/object/1", 2, ["http://ex.org"])
    'http://ex.org/r2/object/1'
    >>> rename_iri("http://ex.org", 3, ["http://ex.org"])
    'http://ex.org/r3'
    >>> rename_iri("http://vocab.getty.edu/aat/300404670", 2, ["http://ex.org"])
    'http://vocab.getty.edu/aat/300404670'
    >>> rename_iri("http://ex.org/object/1", 1, ["http://ex.org"])
    'http://ex.org/object/1'
    """
    if replica == 1:
        return iri
    for ns in namespaces:
        if iri == ns:
            return f"{ns}/r{replica}"
        if iri.startswith(ns) and iri[len(ns)] in "/#":
            return f"{ns}/r{replica}{iri[len(ns):]}"
    return iri


def _digest(replica: int, word: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{replica}\x00{word}".encode(),
                                          digest_size=8).digest(), "big")


def perturb_word(word: str, replica: int) -> str:
    """``word`` with one interior vowel changed, chosen by (replica, word); or unchanged
    (about half the words are left alone, so text stays readable)."""
    h = _digest(replica, word)
    if h % 2:
        return word
    spots = [i for i in range(1, len(word)) if word[i].lower() in _VOWELS]
    if not spots:
        return word
    i = spots[(h >> 8) % len(spots)]
    choices = [v for v in _VOWELS if v != word[i].lower()]
    new = choices[(h >> 16) % len(choices)]
    return word[:i] + (new.upper() if word[i].isupper() else new) + word[i + 1:]


def perturb_text(text: str, replica: int) -> str:
    """A literal's lexical form in replica ``replica`` (replica 1, URLs: unchanged).

    >>> perturb_text("Federal Duck Stamp Design, 1957", 1)
    'Federal Duck Stamp Design, 1957'
    >>> perturb_text("Federal Duck Stamp Design, 1957", 2) != perturb_text(
    ...     "Federal Duck Stamp Design, 1957", 3)
    True
    """
    if replica == 1 or text.startswith(("http://", "https://")):
        return text
    new = _WORD.sub(lambda m: perturb_word(m.group(0), replica), text)
    if new == text:  # nothing changed: change the longest word for certain
        words = sorted(_WORD.finditer(text), key=lambda m: -len(m.group(0)))
        for m in words:
            for salt in range(1, 8):
                changed = perturb_word(m.group(0), replica * 1000 + salt)
                if changed != m.group(0):
                    return text[:m.start()] + changed + text[m.end():]
    return new


def replicate_line(line: str, replica: int, namespaces: Sequence[str]) -> str:
    """One N-Triples line in replica ``replica``: own IRIs renamed, blank nodes renamed, the
    lexical form of plain and language-tagged literals perturbed (typed literals kept)."""
    if replica == 1:
        return line

    def term(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return f"<{rename_iri(m.group(1), replica, namespaces)}>"
        if m.group(2) is not None:
            return f"_:r{replica}x{m.group(2)[2:]}"
        text = m.group(3)
        if line.startswith("^^", m.end()) and not line.startswith(
                "^^<http://www.w3.org/2001/XMLSchema#string>", m.end()):
            return m.group(0)
        return f'"{perturb_text(text, replica)}"'

    return _TERM.sub(term, line)


def base_lines(files: Iterable[Path]) -> Iterator[str]:
    """The lines of the base's files (``.zip`` members, ``.gz``, plain), as text."""
    for path in files:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as zf:
                for member in zf.namelist():
                    if member.endswith("/"):
                        continue
                    with zf.open(member) as raw:
                        yield from io.TextIOWrapper(raw, encoding="utf-8", errors="replace")
        elif path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
                yield from fh
        else:
            with open(path, encoding="utf-8", errors="replace") as fh:
                yield from fh


def write_replica(files: Sequence[Path], replica: int, namespaces: Sequence[str],
                  out: Path) -> int:
    """Write replica ``replica`` of ``files`` to ``out`` (gzipped N-Triples, written to a
    temporary name then renamed); returns the number of triples (non-blank, non-comment
    lines)."""
    count = 0
    tmp = out.with_name(out.name + ".part")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=1) as fh:
        for line in base_lines(files):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            fh.write(replicate_line(stripped, replica, namespaces) + "\n")
            count += 1
    tmp.replace(out)
    return count


def replica_files(base: Base, factor: int, work: Path) -> tuple[list[Path], int]:
    """The files of ``base`` × ``factor`` (made when missing) and their triple count."""
    work.mkdir(parents=True, exist_ok=True)
    paths, total = [], 0
    for k in range(1, factor + 1):
        path = work / f"{base.name}_r{k:02d}.nt.gz"
        count_file = path.with_suffix(".count")
        if not (path.exists() and count_file.exists()):
            t0 = time.perf_counter()
            n = write_replica(base.files, k, base.namespaces, path)
            count_file.write_text(str(n))
            print(f"  replica {k}: {n:,} triples in {time.perf_counter() - t0:.1f} s",
                  file=sys.stderr, flush=True)
        paths.append(path)
        total += int(count_file.read_text())
    return paths, total


# -- running -----------------------------------------------------------------------------------
def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("HF_HUB_OFFLINE", "1")
    return env


def _run_measured(cmd: list[str], timeout: float) -> tuple[int | None, float, float, str, str]:
    """Run ``cmd`` in its own process group; (returncode, wall s, tree peak MB, out, err)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=_env(), cwd=ROOT,
                                start_new_session=True)
        peak = TreePeak(root=proc.pid).start()
        try:
            code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            code = None
        peak.stop()
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return (code, wall, peak.peak_mb, out.read().decode(errors="replace"),
                err.read().decode(errors="replace"))


def _summary_value(stdout: str, key: str) -> float | None:
    m = re.search(rf"^\s+{re.escape(key)}\s+([\d,.]+)\s*$", stdout, re.M)
    return float(m.group(1).replace(",", "")) if m else None


def du_mb(path: Path) -> float:
    """Bytes on disk under ``path`` (``du``), in MB."""
    total = 0
    for p in path.rglob("*"):
        if p.is_file():
            total += p.stat().st_blocks * 512
    return round(total / 1024 / 1024, 1)


_QUERY_CHILD = r"""
import json, statistics, sys, time
t0 = time.perf_counter()
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.query.engine import CrmQueryPipeline
imports = time.perf_counter() - t0
folder, questions = sys.argv[1], json.loads(sys.argv[2])
t0 = time.perf_counter()
index = CrmGraphIndex.load(folder)
load_s = time.perf_counter() - t0
pipe = CrmQueryPipeline(index)
pipe.run(questions[0], [])
first = time.perf_counter() - t0
times = []
for q in questions[1:]:
    t = time.perf_counter()
    pipe.run(q, [])
    times.append((time.perf_counter() - t) * 1000)
times.sort()
p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
print("@@RESULT@@" + json.dumps({"imports_s": imports, "load_s": load_s,
      "first_answer_s": first, "query_p50_ms": statistics.median(times),
      "query_p95_ms": p95}))
"""


_PREPARE = ("import sys; from llama_index_crm.embeddings import prepare_model_files; "
            "prepare_model_files(None, backend=sys.argv[1] or None)")


def measure_queries(folder: Path, questions: Sequence[str]) -> dict[str, Any]:
    """Load time, time to first answer and query latency, in a fresh process."""
    code, _, peak, out, err = _run_measured(
        [sys.executable, "-c", _QUERY_CHILD, str(folder), json.dumps(list(questions))],
        QUERY_TIMEOUT_S)
    for line in out.splitlines():
        if line.startswith(MARK):
            result = {k: round(v, 3) for k, v in json.loads(line[len(MARK):]).items()}
            return {**result, "query_peak_mb": round(peak)}
    return {"query_error": f"exit {code}: {err.strip().splitlines()[-5:]}"}


def run_factor(base: Base, factor: int, work: Path, no_embed: bool,
               embed_backend: str | None) -> dict[str, Any]:
    """Make, build and measure ``base`` × ``factor``."""
    files, triples = replica_files(base, factor, work / "data")
    out = work / "index" / f"{base.name}_x{factor}"
    load_before = [round(x, 2) for x in os.getloadavg()]
    cmd = [sys.executable, "-m", "llama_index_crm.cli", "build", *map(str, files),
           "--out", str(out), "-q"]
    if no_embed:
        cmd.append("--no-embed")
    elif embed_backend:
        cmd += ["--embed-backend", embed_backend]
    code, wall, peak, stdout, stderr = _run_measured(cmd, BUILD_TIMEOUT_S)
    row: dict[str, Any] = {
        "factor": factor, "triples": triples, "returncode": code,
        "documents": _summary_value(stdout, "documents"),
        "entities": _summary_value(stdout, "entities"),
        "seconds": _summary_value(stdout, "seconds"), "wall_s": round(wall, 1),
        "peak_mb": round(peak), "cli_peak_mb": _summary_value(stdout, "peak memory (MB)"),
        "index_mb": du_mb(out) if out.exists() else None,
        "loadavg_before": load_before, "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "command": " ".join(cmd[:4] + [f"<{len(files)} replica files>"] + cmd[4 + len(files):]),
    }
    for key in ("documents", "entities"):
        if row[key] is not None:
            row[key] = int(row[key])
    if code != 0:
        row["error"] = (stderr.strip().splitlines() or ["?"])[-10:]
        return row
    if no_embed:
        row.update(load_s=None, first_answer_s=None, query_p50_ms=None, query_p95_ms=None,
                   query_note="structural build: CrmGraphIndex.load refuses it")
    else:
        row.update(measure_queries(out, base.questions))
    return row


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Least-squares slope of log(y) over log(x) (None with fewer than two points).

    >>> round(slope([1, 4, 16], [2, 8, 32]), 3)
    1.0
    """
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x and y]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


def exponents(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """Growth exponents (log-log slopes over factor) of the measured figures."""
    result: dict[str, float | None] = {}
    for key in ("seconds", "peak_mb", "index_mb", "load_s", "query_p50_ms"):
        good = [r for r in rows if r.get(key)]
        s = slope([r["factor"] for r in good], [r[key] for r in good])
        result[key] = None if s is None else round(s, 3)
    return result


def plot(rows: Sequence[dict[str, Any]], path: Path, title: str) -> None:
    """A log-log plot of build time, peak memory and index size (and latency) over factor."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    keys = [("seconds", "build s"), ("peak_mb", "peak MB"), ("index_mb", "index MB"),
            ("query_p50_ms", "query p50 ms")]
    keys = [k for k in keys if any(r.get(k[0]) for r in rows)]
    fig, axes = plt.subplots(1, len(keys), figsize=(4 * len(keys), 3.6))
    for ax, (key, label) in zip(list(getattr(axes, "flat", [axes])), keys, strict=False):
        good = [r for r in rows if r.get(key)]
        xs, ys = [r["factor"] for r in good], [r[key] for r in good]
        ax.loglog(xs, ys, "o-", label="measured")
        if xs:
            ax.loglog(xs, [ys[0] * x / xs[0] for x in xs], ":", color="grey", label="linear")
        s = slope(xs, ys)
        ax.set_title(f"{label} (slope {s:.2f})" if s is not None else label)
        ax.set_xlabel("factor")
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", choices=sorted(bases()), required=True)
    parser.add_argument("--factors", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--no-embed", action="store_true", help="structural builds only")
    parser.add_argument("--embed-backend", default=None,
                        help="encoder backend of the builds (crm-rag build --embed-backend)")
    parser.add_argument("--json", required=True, help="results file (the plot beside it)")
    parser.add_argument("--work", default=None,
                        help="folder of the replicas and indexes (default: a temporary one, "
                             "removed at the end)")
    args = parser.parse_args(argv)
    base = bases()[args.base]
    missing = [p for p in base.files if not p.is_file()]
    if missing or not base.files:
        print(f"missing base files: {missing or 'none found'}", file=sys.stderr)
        return 2
    if any(f < 1 for f in args.factors):
        parser.error("factors are positive integers")
    own = None if args.work else tempfile.TemporaryDirectory(prefix=f"scale_{base.name}_")
    work = Path(args.work or (own.name if own else "")).resolve()
    if work == ROOT or ROOT in work.parents:
        parser.error("--work must be outside the repository")
    rows = []
    if not args.no_embed:  # model files made on first use are not the first factor's cost
        subprocess.run([sys.executable, "-c", _PREPARE, args.embed_backend or ""], env=_env(),
                       cwd=ROOT, check=True)
    try:
        for factor in sorted(set(args.factors)):
            print(f"{base.name} × {factor} …", file=sys.stderr, flush=True)
            row = run_factor(base, factor, work, args.no_embed, args.embed_backend)
            print(f"  {json.dumps(row)}", file=sys.stderr, flush=True)
            rows.append(row)
    finally:
        if own is not None:
            own.cleanup()
    good = [r for r in rows if r.get("returncode") == 0]
    result: dict[str, Any] = {
        "base": base.name, "factors": sorted(set(args.factors)), "no_embed": args.no_embed,
        "embed_backend": args.embed_backend, "machine": machine_info(),
        "command": " ".join(["python", "benchmarks/scale.py", *(argv or sys.argv[1:])]),
        "runs": rows, "exponents": exponents(good),
    }
    if len(good) >= 2:
        lo, hi = good[0], good[-1]
        ratio = hi["factor"] / lo["factor"]
        result["ratios"] = {
            "factor": ratio,
            "peak_mb": round(hi["peak_mb"] / lo["peak_mb"], 2),
            "seconds": round(hi["seconds"] / lo["seconds"], 2) if lo["seconds"] else None,
        }
        if args.no_embed:
            r = result["ratios"]
            result["targets"] = {
                "peak_ratio_max": TARGET_MEMORY_RATIO,
                "peak_ok": r["peak_mb"] <= TARGET_MEMORY_RATIO,
                "seconds_ratio_max": round(TARGET_TIME_PER_FACTOR * ratio, 2),
                "seconds_ok": r["seconds"] is not None
                and r["seconds"] <= TARGET_TIME_PER_FACTOR * ratio,
            }
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    if good:
        plot(good, out.with_suffix(".png"), f"{base.name} × factor"
             f"{' (structural)' if args.no_embed else ''}")
    cols = ["factor", "triples", "documents", "seconds", "peak_mb", "index_mb", "load_s",
            "first_answer_s", "query_p50_ms", "query_p95_ms"]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join("—" if r.get(c) is None else f"{r[c]:,}" if isinstance(r[c], int)
                         else str(r[c]) for c in cols))
    print("exponents (log-log slope over factor):", json.dumps(result["exponents"]))
    if "ratios" in result:
        print("ratios (largest / smallest factor):", json.dumps(result["ratios"]),
              json.dumps(result.get("targets", {})))
    return 0 if len(good) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
