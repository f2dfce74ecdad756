"""As a user would: `docent index` a folder of a slide deck and a scanned page (in the
extraction process, as the app does), then `docent grep` names the slide and the page,
`docent list` says what was OCR'd and `docent dump` names the units."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from docent.cli import main
from format_files import make_pptx
from scan_files import page_image, save_scan


def test_index_then_grep_list_and_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    make_pptx(folder / "deck.pptx")
    save_scan(
        folder / "scan.pdf", [page_image(["Minutes of the lighthouse board", "Held in May."])]
    )
    assert main(["index", str(folder)]) == 0
    capsys.readouterr()

    assert main(["grep", "violet harbour beacon"]) == 0
    assert "deck.pptx slide 2: " in capsys.readouterr().out
    assert main(["grep", "lighthouse board"]) == 0
    assert "scan.pdf p.1: " in capsys.readouterr().out

    assert main(["list", "--json"]) == 0
    listed = {d["file_name"]: d for d in json.loads(capsys.readouterr().out)}
    assert listed["scan.pdf"]["ocr_pages"] == 1 and listed["scan.pdf"]["state"] == "ready"
    assert listed["deck.pptx"]["ocr_pages"] == 0
    assert main(["list"]) == 0
    listing = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "(OCR: 1 p)" in listing["scan.pdf"]
    assert "    1 p " in listing["scan.pdf"]
    slides = listed["deck.pptx"]["pages"]
    assert f"{slides:>5} slides " in listing["deck.pptx"], listing["deck.pptx"]  # not "p"

    assert main(["dump", "deck.pptx"]) == 0
    assert "## slide 2\n" in capsys.readouterr().out
    assert main(["dump", "scan.pdf"]) == 0
    assert "## Page 1 (OCR)" in capsys.readouterr().out


def test_dump_of_a_file_that_failed_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said "re-index it", which cannot help a PDF locked by a password (QA, s26)."""
    from pdf_files import encrypted_text_pdf

    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(encrypted_text_pdf([["Secret minutes of the board."]], "hunter2"))
    main(["index", str(locked)])
    capsys.readouterr()
    assert main(["list", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert listed["state"] == "failed" and listed["error"]
    assert main(["dump", "locked.pdf"]) != 0
    err = capsys.readouterr().err
    assert "locked.pdf has no text: " in err and listed["error"] in err
    assert "re-index" not in err


def test_grep_lists_the_first_matches_says_when_it_stops_and_survives_a_closed_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA, session 29: `docent grep the` listed any 100 of 3,000 matches, with no word
    that it stopped (line 1's match missing), and `docent grep the | head -3` ended in a
    BrokenPipeError traceback."""
    notes = tmp_path / "notes.txt"
    lines = ["The mango tree by the gate was planted first."]
    lines += [f"Line {i}: the keeper logged the tide at the {i}th hour." for i in range(3000)]
    notes.write_text("\n".join(lines) + "\n")
    assert main(["index", "-q", str(notes)]) == 0
    capsys.readouterr()
    assert main(["grep", "the"]) == 0
    out, err = capsys.readouterr()
    listed = out.splitlines()
    assert len(listed) == 100 and "The mango tree" in listed[0], listed[:2]
    assert "(100 matches listed, the most at once: there may be more" in err
    assert main(["grep", "mango tree"]) == 0
    assert "there may be more" not in capsys.readouterr().err
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        f"{shlex.quote(sys.executable)} -m docent.cli grep the | head -n 2",
        shell=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.stdout.count("\n") == 2 and "Traceback" not in done.stderr, done.stderr


def test_list_and_grep_tell_two_files_of_one_name_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two notes.md listed, matched and found as "notes.md" twice (QA, sessions 30-31)."""
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    for folder, town in (("oslo", "Oslo"), ("bergen", "Bergen")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.md").write_text(f"# Notes\n\nThe meeting in {town}.\n")
    (tmp_path / "oslo" / "plan.md").write_text("# Plan\n\nA meeting in May.\n")
    assert main(["index", str(tmp_path / "oslo"), str(tmp_path / "bergen")]) == 0
    capsys.readouterr()
    assert main(["list"]) == 0
    names = sorted(line.split()[0] for line in capsys.readouterr().out.splitlines())
    assert names == ["bergen/notes.md", "oslo/notes.md", "plan.md"]
    assert main(["grep", "meeting"]) == 0
    matched = sorted(line.split()[0] for line in capsys.readouterr().out.splitlines())
    assert matched == ["bergen/notes.md", "oslo/notes.md", "plan.md"]
    assert main(["search", "meeting", "-k", "3"]) == 0
    found = [ln.split()[1] for ln in capsys.readouterr().out.splitlines() if ln.startswith("[")]
    assert sorted(found) == ["bergen/notes.md", "oslo/notes.md", "plan.md"]
    # one of them alone is still told from the other (QA, session 31)
    assert main(["grep", "Oslo"]) == 0
    assert capsys.readouterr().out.split()[0] == "oslo/notes.md"
    # and so are a search's hit and an answer's citation of it alone: the window's
    # sources showed "notes.md" (session 34)
    assert main(["search", "Oslo", "-k", "1"]) == 0
    assert capsys.readouterr().out.split()[1] == "oslo/notes.md"
    oslo = str(tmp_path / "oslo" / "notes.md")
    assert main(["ask", "Where was the meeting?", "--file", oslo, "--json"]) == 0
    cited = json.loads(capsys.readouterr().out)["citations"]
    assert [c["name"] for c in cited] == ["oslo/notes.md"]


def test_list_says_which_documents_lost_their_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA-77: a file moved away outside the watched folders was listed "ready" as if it
    were there (and stays searchable)."""
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(f"The note {name} holds a line.\n")
    assert main(["index", "-q", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]) == 0
    (tmp_path / "a.txt").rename(tmp_path / "moved.txt")
    capsys.readouterr()
    assert main(["list"]) == 0
    listed = capsys.readouterr()
    rows = {line.split()[0]: line for line in listed.out.splitlines()}
    assert "its file is gone" in rows["a.txt"] and "gone" not in rows["b.txt"]
    assert "1 document whose file is gone stays searchable" in listed.err
    assert main(["list", "--json"]) == 0
    missing = {d["file_name"]: d["file_missing"] for d in json.loads(capsys.readouterr().out)}
    assert missing == {"a.txt": True, "b.txt": False}


def test_a_csv_is_searched_and_cited_by_its_rows_with_their_column_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA-78: a CSV's passage said "2024-04-01,Torbjorn,42,187" and nothing of the columns;
    the model's answer could not say what 42 was. Through the extraction process too."""
    folder = tmp_path / "runs"
    folder.mkdir()
    rows = ["date,runner,km,minutes"]
    rows += [
        f"2024-04-{d:02d},{who},{d + 5},{d * 7}"
        for d in range(1, 29)
        for who in ("Ingrid", "Torbjorn")
    ]
    (folder / "runs.csv").write_text("\n".join(rows) + "\n")
    assert main(["index", str(folder)]) == 0
    capsys.readouterr()
    assert main(["search", "How far did Torbjorn run on 2024-04-03?", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    first = hits[0]
    assert first["file_name"] == "runs.csv" and first["location"].startswith("rows ")
    assert "date: 2024-04-03 | runner: Torbjorn | km: 8 | minutes: 21" in first["text"]
    assert main(["grep", "2024-04-03"]) == 0
    assert "runs.csv rows 2–26: " in capsys.readouterr().out
