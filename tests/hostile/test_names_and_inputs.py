"""Odd names and odd inputs: stored safely, printed escaped, refused with a reason."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from cli_runner import Docent
from hostile_files import odd_names

from docent.core.config import load_settings
from docent.core.embedding import Embedder
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder

GOOD = "Llamas hum when they are curious and spit when they are annoyed."


def test_odd_file_names_are_indexed_kept_exactly_and_printed_escaped(
    docent: Docent, folder: Path
) -> None:
    names = odd_names(folder)
    (folder / "good.txt").write_text(GOOD + "\n")

    run = docent("index", str(folder))
    assert run.rc == 0 and "indexed 4" in run.out and "failed 0" in run.out, run.text
    listed = docent("list")
    for escaped in ("caf\\xe9-\\xff.txt", "two\\nlines.txt", "red\\x1b[31mtext\\x1b[0m.txt"):
        assert escaped in listed.out
    found = docent("search", "zebu herding in the Andes", "-k", "5")
    for run in (listed, found):
        assert "\x1b" not in run.text, "a terminal escape code reached the terminal"
    assert "caf\\xe9-\\xff.txt" in found.out

    as_json = json.loads(docent("list", "--json", note="list --json").out)
    assert {d["path"] for d in as_json} == {str(p) for p in [*names.values(), folder / "good.txt"]}

    again = docent("index", str(folder), note="index again")
    assert "unchanged 4" in again.out, again.text
    os.unlink(names["not_utf8"])
    gone = docent("index", str(folder), note="index after deleting the non-UTF-8 file")
    assert "removed 1" in gone.out, gone.text
    with Engine(load_settings(extract_in_subprocess=False)) as eng:
        assert eng.store is not None
        assert eng.store.count_chunks() == sum(d.chunks for d in eng.documents())


def test_unsupported_files_are_reported_named_or_found_in_a_folder(
    docent: Docent, folder: Path
) -> None:
    (folder / "minutes.key").write_bytes(b"PK\x03\x04 not really Word")
    (folder / "holiday.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a photo")
    (folder / "good.txt").write_text(GOOD + "\n")
    # minutes.key named on its own (and inside the folder too: said once, with its reason);
    # holiday.jpg found in the folder: named in the closing line of types not read
    run = docent("index", str(folder / "minutes.key"), str(folder), "--json")
    report = json.loads(run.out)
    assert run.rc == 0 and len(report["indexed"]) == 1, run.text
    assert [s["path"] for s in report["skipped"]] == [str(folder / "minutes.key")]
    assert "Docent cannot read '.key' files" in report["skipped"][0]["message"]
    assert report["unsupported"] == [str(folder / "holiday.jpg")]
    again = docent("index", str(folder), note="the folder again, in words")
    assert "unchanged 1" in again.out, again.text
    assert "Not added: holiday.jpg, minutes.key — Docent reads PDFs" in again.out, again.text


def test_random_bytes_after_a_utf16_mark_are_not_text(docent: Docent, folder: Path) -> None:
    rng = random.Random(13)
    (folder / "noise.txt").write_bytes(b"\xff\xfe" + rng.randbytes(20_000))
    (folder / "real.txt").write_bytes("\ufeffLlamas hum in UTF-16.\n".encode("utf-16-le"))
    run = docent("index", str(folder))
    assert "indexed 1" in run.out and "noise.txt looks like a binary file" in run.out, run.text


class ModelTokens(FakeEmbedder):
    """Hashing vectors, but the bundled model's own token counts: chunking sizes by those."""

    def __init__(self) -> None:
        super().__init__()
        self._model = Embedder()

    def count_tokens(self, text: str) -> int:
        return self._model.count_tokens(text)


def test_a_megabyte_without_spaces_is_cut_into_chunks_the_model_sees_whole(
    folder: Path,
) -> None:
    (folder / "line.txt").write_text("x" * 1_000_000 + "\n")
    with Engine(load_settings(extract_in_subprocess=False), embedder=ModelTokens()) as eng:
        report = eng.index([folder])
        assert report.indexed, report.failed
        assert eng.store is not None
        rec = eng.resolve("line.txt")
        chunks = eng.store.iter_chunks(rec.doc_id)
        longest = max(len(payload["text"]) for payload, _ in chunks)
        assert longest <= 2_000, longest
        assert max(eng.embedder.count_tokens(p["text"]) for p, _ in chunks) <= 256


def test_a_text_file_above_the_limit_is_refused_with_its_size(docent: Docent, folder: Path) -> None:
    big = folder / "big.log"
    with big.open("w") as fh:
        for i in range(70_000):
            fh.write(f"line {i}: the pump reported pressure nominal at station {i % 97}\n")
    docent.env["DOCENT_MAX_TEXT_FILE_MB"] = "1"
    run = docent("index", str(big), note="index a 4 MB log, limit 1 MB")
    assert run.rc == 1, run.text
    assert "big.log is 4 MB of text, more than the 1 MB Docent indexes" in run.out


def test_bad_search_arguments_are_usage_errors(docent: Docent) -> None:
    for args, says in (
        (("search", "llamas", "-k", "-5"), "-5 is not between 1 and 100"),
        (("search", "   "), "it is empty"),
        (("ask", ""), "it is empty"),
    ):
        run = docent(*args, note=" ".join(args))
        assert run.rc == 2 and says in run.err, run.text
