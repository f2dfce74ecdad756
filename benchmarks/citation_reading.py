"""How often a citation Docent writes itself says what its passage says, by a blind reading.

    .venv/bin/python benchmarks/citation_reading.py [--data benchmarks/data/citation_reading.jsonl]

``benchmarks/data/citation_reading.jsonl`` holds sentences that ``smollm2:135m`` wrote in
``answer_eval.py`` runs on the dev questions (seeds 7, 11, 13, 17, 19: the first reading;
23, 29, 31: the second, read after the rule below was chosen on the first), each with the
offered passage that supports it best (or the one the model cited) at a support score of
0.4 or more, and a label given blind by a reader shown only the question, the sentence and
the passage: ``supported`` (the passage says it), ``in part`` (some of it is made up) or
``wrong`` (the passage does not say it, contradicts it, or the sentence claims nothing).

For each sentence it recomputes, with the real scorer and the bundled embedder, the support
score and whether the sentence copies ``copied_words`` words in a row from the passage, and
prints the labels by score band and what each rule would cite. No model is needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))

DATA = REPO / "benchmarks" / "data" / "citation_reading.jsonl"
LABELS = ("supported", "in part", "wrong")


@dataclass(frozen=True, slots=True)
class Read:
    reading: int
    label: str
    score: float
    copies: bool
    model_cited: bool


def load(path: Path) -> list[Read]:
    from docent.core.attribution import THRESHOLDS, Scorer
    from docent.core.embedding import Embedder

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    embed = Embedder().embed_dense
    out = []
    for r in rows:
        scorer = Scorer([r["sentence"]], {1: r["passage"]}, embed, THRESHOLDS)
        out.append(
            Read(
                r["reading"],
                r["label"],
                scorer.score(0, r["sentence"], [1]),
                scorer.copies(r["sentence"], 1),
                r["model_cited"],
            )
        )
    return out


def counts(reads: list[Read]) -> str:
    c = Counter(r.label for r in reads)
    wrong = c["wrong"] / len(reads) if reads else 0.0
    return " | ".join(str(c[label]) for label in LABELS) + f" | {wrong:.0%}"


def main() -> int:
    from docent.core.attribution import THRESHOLDS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    reads = load(args.data)
    t = THRESHOLDS
    print(f"{len(reads)} sentences read blind; thresholds: {t}\n")
    print("| support score | supported | in part | wrong | wrong share |")
    print("|---|---|---|---|---|")
    bands = [(0.4, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 1.01)]
    for lo, hi in bands:
        band = [r for r in reads if lo <= r.score < hi]
        print(f"| {lo:.1f}-{min(hi, 1.0):.1f} | {counts(band)} |")
    rules: list[tuple[str, Callable[[Read], bool]]] = [
        (f"score >= {t.support} (the rule before session 13)", lambda r: r.score >= t.support),
        ("score >= 0.6", lambda r: r.score >= 0.6),
        (f"score >= {t.paraphrase}", lambda r: r.score >= t.paraphrase),
        (
            f"score >= {t.support} and {t.copied_words} words copied in a row, or score >= "
            f"{t.paraphrase} (the rule)",
            lambda r: r.score >= t.support and (r.copies or r.score >= t.paraphrase),
        ),
    ]
    for reading, name in ((1, "first reading"), (2, "second reading"), (0, "both")):
        part = [r for r in reads if reading in (0, r.reading)]
        print(f"\n{name} ({len(part)} sentences): what each rule cites")
        print("\n| rule | supported | in part | wrong | wrong share |")
        print("|---|---|---|---|---|")
        for rule_name, keep in rules:
            print(f"| {rule_name} | {counts([r for r in part if keep(r)])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
