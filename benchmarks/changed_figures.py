"""How often ``binding.changed`` names the statement giving a sentence's subject another
figure (the note "... gives another figure than passage [n], which says ...").

    .venv/bin/python benchmarks/changed_figures.py --home /tmp/docent-eval-full

On the text cache of a library already indexed (the whole corpus: ``retrieval_eval.py
--library full``), 15 draws per PDF of four pages or more (seeded): a statement of one line,
8-40 words, stating a whole number. Caught: the statement with that number doubled plus 3,
against its own page, is named. Named wrongly: the statement as written, against a page of
the same document two or more pages away (it is supported by neither, and the note would
say that page gives it another figure).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "desktop"))

from docent.core.binding import changed, statements  # noqa: E402
from docent.core.textcache import TextCache  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", default="/tmp/docent-eval-full", help="the library's folder")
    parser.add_argument("--draws", type=int, default=15)
    args = parser.parse_args()
    root = Path(args.home) / "text"
    cache = TextCache(root)
    rng = random.Random(7)
    caught: Counter[bool] = Counter()
    wrongly: Counter[bool] = Counter()
    shown: list[tuple[str, str]] = []
    documents = 0
    for path in sorted(root.rglob("*.json")):
        doc = cache.get(path.stem, stale=True)
        if doc is None or doc.kind != "pdf":
            continue
        pages = [p.text for p in doc.pages if p.text.strip()]
        if len(pages) < 4:
            continue
        documents += 1
        for _ in range(args.draws):
            at = rng.randrange(len(pages))
            candidates = [
                s
                for s in statements(pages[at])
                if not s.lines
                and 8 <= len(s.text.split()) <= 40
                and any(f.kind == "number" for f in s.figures)
            ]
            if not candidates:
                continue
            st = rng.choice(candidates)
            figure = next(f for f in st.figures if f.kind == "number")
            number = st.text[figure.start : figure.end]
            if not re.fullmatch(r"\d+", number):
                continue
            altered = f"{st.text[: figure.start]}{int(number) * 2 + 3}{st.text[figure.end :]}"
            caught[changed(altered, [pages[at]]) is not None] += 1
            far = [i for i in range(len(pages)) if abs(i - at) > 1]
            if far:
                named = changed(st.text, [pages[rng.choice(far)]])
                wrongly[named is not None] += 1
                if named is not None:
                    shown.append((st.text.strip()[:100], named[1][:100]))
    print(f"{documents} PDFs")
    print(f"caught: {caught[True]} of {sum(caught.values())} changed figures")
    print(f"named wrongly: {wrongly[True]} of {sum(wrongly.values())} sentences")
    for sentence, statement in shown:
        print(f"  - {sentence}\n    -> {statement}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
