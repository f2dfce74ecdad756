"""Which page a citation of a passage over two pages opens (issue 16's "the right page").

    DOCENT_HOME=/work/lib-full .venv/bin/python benchmarks/citation_pages.py \\
        ../shared/corpus/dev-questions.jsonl benchmarks/retrieval_questions.jsonl \\
        benchmarks/dev_extra_questions.jsonl

On a library already indexed (the whole corpus: ``retrieval_eval.py --library full``),
for each answerable question with a gold page: the three best passages (what an
extractive or unsupported answer quotes) that run over two pages and hold one gold page.
It counts how often the chip opens the gold page: the passage's first page (before
session 15) and the page of its sentence nearest the question, where a long passage's
quote starts (``focus.quoted_page``, now); and, for the
questions that give the sentence that answers them (``evidence``), the page a sentence
copied from it would open (``focus.focus_page``). No model is asked.
"""

from __future__ import annotations

import json
import sys

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.focus import focus_page, quoted_page


def main(paths: list[str]) -> int:
    engine = Engine(load_settings()).open()
    quoted = {"passages": 0, "first page": 0, "quote's page": 0}
    copied = {"passages": 0, "first page": 0, "copied sentence's page": 0}
    try:
        for path in paths:
            with open(path, encoding="utf-8") as lines:
                questions = [json.loads(line) for line in lines]
            for q in questions:
                if not q.get("pages") or q.get("answerable") is False:
                    continue
                result = engine.search(q["question"])
                for hit in result.hits[:3]:
                    if hit.file_name != q["file"] or hit.page_start == hit.page_end:
                        continue
                    gold = set(q["pages"]) & set(range(hit.page_start, hit.page_end + 1))
                    if len(gold) != 1:
                        continue
                    page = quoted_page(hit, result.query)
                    quoted["passages"] += 1
                    quoted["first page"] += hit.page_start in gold
                    quoted["quote's page"] += page in gold
                    where = f"pp.{hit.page_start}-{hit.page_end}"
                    print(f"{q['id']}: gold p.{min(gold)}, passage {where}, quote opens p.{page}")
                    if q.get("evidence"):
                        copied["passages"] += 1
                        copied["first page"] += hit.page_start in gold
                        copied["copied sentence's page"] += focus_page(hit, [q["evidence"]]) in gold
    finally:
        engine.close()
    print("quoted passages over two pages holding one gold page:", quoted)
    print("... a sentence copied from the question's evidence citing them:", copied)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
