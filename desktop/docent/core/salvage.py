"""The vectors of passages a crash cut short, kept on disk until their document is indexed.

A kill -9 (or a power cut) while a long file embeds leaves its document ``indexing``, with
the passages written so far. ``Indexer.recover`` drops them at the next open, so that a
half-written document is never searched; before it does, it keeps their vectors here, one
file per document (``<data>/salvage/<doc_id>.json``), and the next index of that document
takes the vectors of every passage whose text is the same instead of embedding it again.
QA-75 killed `docent index` at 160 of gnuplot's 1,159 chunks, and the next run embedded
all 1,159.

On disk, not in memory: the next open may be any command (`docent list`), and the one
that indexes the file another. The file goes once its document is ready or removed. Best
effort: a file that cannot be written or read costs only the embedding it would have
saved.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docent.core.store_base import SENTENCES, ChunkPoint, ChunkVectors

log = logging.getLogger(__name__)


class Kept:
    """The vectors kept for one document: its dense vectors as one array, made lists
    only for the passages that use them (a 10,000-passage document's as lists of
    floats would take ~100 MB)."""

    def __init__(self, hashes: Sequence[str], sentences: Sequence[str], dense: Any) -> None:
        self._rows = {h: i for i, h in enumerate(hashes)}
        self._sentences = list(sentences)
        self._dense = dense

    def __len__(self) -> int:
        return len(self._rows)

    def every(self) -> dict[str, ChunkVectors]:
        return self.vectors(self._rows)

    def vectors(self, hashes: Iterable[str]) -> dict[str, ChunkVectors]:
        """Those of ``hashes`` kept, as the store lends a passage's."""
        return {
            h: ChunkVectors(self._dense[i].tolist(), self._sentences[i])
            for h in hashes
            if (i := self._rows.get(h)) is not None
        }


NOTHING = Kept([], [], None)


class Salvage:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _file(self, doc_id: str) -> Path:
        return self.folder / f"{doc_id}.json"

    def keep(self, doc_id: str, points: Sequence[ChunkPoint]) -> None:
        """Keep the vectors of ``points`` (a document's passages, or its staged new
        version's) with any kept for it before of the same size (another model's go)."""
        if not points:
            return  # nothing new (a staged version reconcile already dropped)
        dim = len(points[0].dense)
        kept = {h: v for h, v in self.take(doc_id).every().items() if len(v.dense) == dim}
        for p in points:
            h = str(p.payload.get("content_hash", ""))
            sentences = str(p.payload.get(SENTENCES) or "")
            if h and sentences and len(p.dense) == dim:  # one without sentence vectors
                kept[h] = ChunkVectors(p.dense, sentences)  # is embedded again
        if not kept:
            return
        hashes = list(kept)
        dense = np.asarray([kept[h].dense for h in hashes], dtype=np.float32)
        data = {
            "hashes": hashes,
            "sentences": [kept[h].sentences for h in hashes],
            "dim": int(dense.shape[1]),
            "dense": base64.b64encode(dense.tobytes()).decode("ascii"),
        }
        target = self._file(doc_id)
        part = target.with_suffix(".part")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            part.write_text(json.dumps(data), encoding="utf-8")
            os.replace(part, target)
        except OSError as exc:
            log.warning("could not keep the vectors of %s's passages: %s", doc_id, exc)

    def take(self, doc_id: str) -> Kept:
        """The vectors kept for ``doc_id`` (none, mostly: one stat)."""
        path = self._file(doc_id)
        if not path.exists():
            return NOTHING
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            rows = np.frombuffer(base64.b64decode(data["dense"]), dtype=np.float32)
            dense = rows.reshape(-1, int(data["dim"]))
            hashes, sentences = list(data["hashes"]), list(data["sentences"])
            if not len(hashes) == len(sentences) == len(dense):
                raise ValueError("as many vectors as passages")
            return Kept(hashes, sentences, dense)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the kept vectors of %s cannot be read (%s): embedded again", doc_id, exc)
            return NOTHING

    def drop(self, doc_id: str) -> None:
        """Forget what was kept for ``doc_id`` (it is ready, or removed)."""
        target = self._file(doc_id)
        try:
            target.unlink(missing_ok=True)
            target.with_suffix(".part").unlink(missing_ok=True)  # a crash inside ``keep``
        except OSError as exc:
            log.warning("could not delete the kept vectors of %s: %s", doc_id, exc)

    def kept(self) -> list[str]:
        """The documents something is kept for (a half-written file's too)."""
        try:
            return sorted({p.stem for p in self.folder.iterdir() if p.suffix in (".json", ".part")})
        except OSError:  # no folder yet
            return []
