"""How many of an update's re-embedded texts change within what the model reads.

The model (all-MiniLM-L6-v2 through ``tokenizers``) reads the first ``MAX_TOKENS`` word
pieces of a text, and a document's embedded text is already its head
(:func:`~llama_index_crm.embeddings.embedding_text`, ``EMBED_CHARS`` characters). A text
whose change lay past the model's window would keep its vector bit for bit, and could be
keyed on the word pieces the model reads instead of the whole text. This counts, for two
index folders (before and after an update), the documents whose embedded head changed, and
among them those whose first ``MAX_TOKENS`` (and 128) word pieces are the same.

Usage::

    python benchmarks/embed_window.py --before IDX --after IDX_UPDATED [--output out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq

from llama_index_crm.embeddings import EMBED_CHARS, embedding_text, load_embed_model
from llama_index_crm.encoders import MAX_TOKENS, OnnxEmbedding


def _texts(folder: Path) -> dict[str, str]:
    table = pq.read_table(folder / "documents.parquet", columns=["doc_id", "text"])
    return dict(zip(table.column("doc_id").to_pylist(), table.column("text").to_pylist(),
                    strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    chars = json.loads((args.after / "manifest.json").read_text())["embedding"].get(
        "embed_chars", EMBED_CHARS)
    old, new = _texts(args.before), _texts(args.after)
    changed = [d for d in new if d in old and old[d] != new[d]]
    heads = [(embedding_text(old[d], chars), embedding_text(new[d], chars)) for d in changed]
    differ = [(a, b) for a, b in heads if a != b]
    model = load_embed_model()
    assert isinstance(model, OnnxEmbedding)
    tokenizer = model._tokenizer  # noqa: SLF001 - the model's own word pieces
    tokenizer.no_padding()
    tokenizer.no_truncation()
    before = tokenizer.encode_batch([a for a, _ in differ])
    after = tokenizer.encode_batch([b for _, b in differ])
    lengths = sorted(len(e.ids) for e in after)
    result = {
        "documents_changed": len(changed), "embedded_heads_changed": len(differ),
        "embed_chars": chars, "max_tokens": MAX_TOKENS,
        "same_within_max_tokens": sum(a.ids[:MAX_TOKENS] == b.ids[:MAX_TOKENS]
                                      for a, b in zip(before, after, strict=True)),
        "same_within_128": sum(a.ids[:128] == b.ids[:128]
                               for a, b in zip(before, after, strict=True)),
        "head_tokens_median": lengths[len(lengths) // 2] if lengths else 0,
        "head_tokens_max": lengths[-1] if lengths else 0,
        "heads_over_max_tokens": sum(n > MAX_TOKENS for n in lengths),
    }
    print(json.dumps(result, indent=1))
    if args.output:
        args.output.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
