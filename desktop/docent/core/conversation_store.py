"""The window's conversations, kept across restarts.

Closing Docent lost every conversation, and so did a crash (QA-80). The conversations
the window holds (one a collection) are written after each answer, and read back when
the window opens: JSON in ``conversations/open.json`` of the data folder, written to a
temporary file and renamed over the old one, so a crash mid-write leaves the last whole
copy. Every field of each turn and answer is kept (the passages offered too: the notes,
the chips and the sources pane draw from them), so a turn comes back as it was shown.

A file that cannot be read (written by a newer Docent, cut short by a full disk) is set
aside as ``open.json.unreadable`` and the window starts with none: it is never lost, nor
does it stop Docent from starting.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from docent.core.citations import Citation
from docent.core.conversation import Answer, Conversation, Turn
from docent.core.datafolder import CONVERSATIONS_DIR
from docent.core.evaluation import Conflict
from docent.core.models import Hit

log = logging.getLogger(__name__)

OPEN_FILE = "open.json"
#: Bumped when a field changes meaning; a file of another version is set aside.
VERSION = 1


def path_in(data_path: Path) -> Path:
    return data_path / CONVERSATIONS_DIR / OPEN_FILE


def dumps(conversations: Sequence[Conversation]) -> str:
    """The conversations with turns, as the file keeps them (no I/O: the window makes
    this on its thread, a worker writes it)."""
    kept = [_conversation_out(c) for c in conversations if c.turns]
    return json.dumps({"version": VERSION, "conversations": kept}, ensure_ascii=False)


class ConversationFile:
    """The one writer of a data folder's ``open.json``: writes come from workers, and
    one made from an older snapshot that ends last must not win (``generation``)."""

    def __init__(self, data_path: Path) -> None:
        self.data_path = data_path
        self._lock = threading.Lock()
        self._written = 0

    def save(self, text: str, generation: int) -> bool:
        """Write ``dumps``' text made at ``generation`` (counted up by the caller); False
        when a later one was written already."""
        with self._lock:
            if generation <= self._written:
                return False
            write(self.data_path, text)
            self._written = generation
            return True

    def load(self) -> list[Conversation]:
        return read(self.data_path)


def write(data_path: Path, text: str) -> None:
    """Write ``dumps``' text: a temporary file, renamed over the last copy."""
    path = path_in(data_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read(data_path: Path) -> list[Conversation]:
    """The conversations kept; none when there is no file, or one that cannot be read
    (set aside, logged)."""
    path = path_in(data_path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            raise ValueError(f"version {data.get('version')!r}, not {VERSION}")
        return [_conversation_in(c) for c in data["conversations"]]
    except FileNotFoundError:
        return []
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # (UnicodeDecodeError)
        aside = path.with_name(f"{OPEN_FILE}.unreadable")
        log.warning(
            "the conversations in %s cannot be read (%s): set aside as %s", path, exc, aside
        )
        os.replace(path, aside)
        return []


# Out ----------------------------------------------------------------------------


def _conversation_out(conv: Conversation) -> dict[str, Any]:
    return {
        "collection": conv.collection,
        "scope": conv.scope,
        "turns": [_turn_out(t) for t in conv.turns],
    }


def _turn_out(turn: Turn) -> dict[str, Any]:
    out = {
        f.name: getattr(turn, f.name) for f in fields(turn) if f.name not in ("answer", "others")
    }
    out["answer"] = _answer_out(turn.answer) if turn.answer is not None else None
    out["others"] = [_turn_out(t) for t in turn.others]
    return out


def _answer_out(answer: Answer) -> dict[str, Any]:
    out = asdict(answer)
    for hit in out["offered"]:
        hit["debug"] = {}  # the search's workings, not what was shown
    return out


# In -----------------------------------------------------------------------------


def _conversation_in(data: dict[str, Any]) -> Conversation:
    return Conversation(
        turns=[_turn_in(t) for t in data["turns"]],
        scope=data.get("scope"),
        collection=data.get("collection"),
    )


def _turn_in(data: dict[str, Any]) -> Turn:
    known = {f.name for f in fields(Turn)} - {"answer", "others"}
    turn = Turn(**{k: v for k, v in data.items() if k in known})
    turn.answer = _answer_in(data["answer"]) if data.get("answer") is not None else None
    turn.others = [_turn_in(t) for t in data.get("others", [])]
    return turn


def _answer_in(data: dict[str, Any]) -> Answer:
    known = {f.name for f in fields(Answer)}
    d = {k: v for k, v in data.items() if k in known}
    d["citations"] = [_citation_in(c) for c in d.get("citations", [])]
    d["offered"] = [_hit_in(h) for h in d.get("offered", [])]
    d["conflicts"] = [(s, Conflict(**c)) for s, c in d.get("conflicts", [])]
    d["misattributed"] = [(s, tuple(c), n) for s, c, n in d.get("misattributed", [])]
    d["sentence_support"] = [(s, float(x)) for s, x in d.get("sentence_support", [])]
    return Answer(**d)


def _breaks(raw: Any) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in raw or ())


def _citation_in(data: dict[str, Any]) -> Citation:
    known = {f.name for f in fields(Citation)}
    d = {k: v for k, v in data.items() if k in known}
    d["page_breaks"] = _breaks(d.get("page_breaks"))
    return Citation(**d)


def _hit_in(data: dict[str, Any]) -> Hit:
    known = {f.name for f in fields(Hit)}
    d = {k: v for k, v in data.items() if k in known}
    d["page_breaks"] = _breaks(d.get("page_breaks"))
    return Hit(**d)
