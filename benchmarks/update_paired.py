"""Paired timing of one update with two versions of the code, alternately.

Each run is a fresh process: a fresh copy of the base index, one ``CrmGraphIndex.update``
with the given delta files and an empty embedding cache, timed in the process. The
"before" code is a source tree given by ``--before`` (e.g. ``git archive COMMIT | tar -x
-C DIR``); the "after" code is this checkout. ``/proc/loadavg`` is recorded at each run's
start and end.

Usage::

    git archive dee719e | tar -x -C /tmp/before
    nice -n 10 python benchmarks/update_paired.py --before /tmp/before \\
        --index /tmp/run/base --add /tmp/run/one-label.add.nt \\
        --remove /tmp/run/one-label.remove.nt --rounds 2 --output /tmp/paired.json

The base index is only read (copied for each run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_RUN = """
import json, sys, time
from pathlib import Path
from llama_index_crm.index import CrmGraphIndex
target, add, remove, cache = (Path(a) for a in sys.argv[1:5])
started = time.perf_counter()
CrmGraphIndex.update(target, add=[add], remove=[remove], cache_dir=cache, load=False)
seconds = time.perf_counter() - started
manifest = json.loads((target / "manifest.json").read_text())
entry = manifest["updates"][-1]
print(json.dumps({"seconds": round(seconds, 3), "embedding_s": manifest["embedding"].get("seconds"),
                  **{k: entry[k] for k in ("entities_rewritten", "documents_changed",
                                           "embedded", "phases")}}))
"""


def _load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def run_once(code: Path, base: Path, add: Path, remove: Path, work: Path) -> dict[str, object]:
    """One update of a fresh copy of ``base`` with the package found in ``code``."""
    target = work / "index"
    cache = work / "cache"
    shutil.rmtree(target, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    shutil.copytree(base, target)
    env = dict(os.environ, PYTHONPATH=str(code))
    start = _load()
    out = subprocess.run([sys.executable, "-c", _RUN, str(target), str(add), str(remove),
                          str(cache)], env=env, check=True, capture_output=True, text=True,
                         cwd=work)  # not this checkout: ``-c`` puts the working folder first
    result = json.loads(out.stdout.strip().splitlines()[-1])
    shutil.rmtree(target, ignore_errors=True)
    return {**result, "load_start": start, "load_end": _load()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="source tree of the old code")
    parser.add_argument("--index", type=Path, required=True, help="the base index (read only)")
    parser.add_argument("--add", type=Path, required=True)
    parser.add_argument("--remove", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory(prefix="crm-update-paired-") as tmp:
        for r in range(1, args.rounds + 1):
            for name, code in (("before", args.before.resolve()), ("after", REPO)):
                result = run_once(code, args.index, args.add, args.remove, Path(tmp))
                runs.append({"round": r, "code": name, **result})
                print(f"round {r} {name:>6}: {result['seconds']:7.2f} s "
                      f"(load {result['load_start']:.2f} -> {result['load_end']:.2f})",
                      flush=True)
    if args.output:
        args.output.write_text(json.dumps({"index": str(args.index), "add": str(args.add),
                                           "remove": str(args.remove), "runs": runs},
                                          indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
