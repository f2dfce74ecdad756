"""Extracted text cached by content hash, so re-chunking, dumping and summarising never
re-parse the source file. One JSON file per sha256, written atomically."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from docent.core.models import ExtractedDocument, Page

_READ_BLOCK = 1 << 20


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_READ_BLOCK):
            h.update(block)
    return h.hexdigest()


class TextCache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _file(self, sha256: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.json"

    def has(self, sha256: str) -> bool:
        return self._file(sha256).exists()

    def get(self, sha256: str) -> ExtractedDocument | None:
        try:
            data = json.loads(self._file(sha256).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        pages = [Page(i + 1, t) for i, t in enumerate(data["pages"])]
        return ExtractedDocument(data["path"], data["kind"], pages, data.get("page_unit", "page"))

    def put(self, sha256: str, doc: ExtractedDocument) -> None:
        target = self._file(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Pages are stored densely; extraction numbers them 1..n, so index + 1 is the number.
        texts = [""] * (max((p.number for p in doc.pages), default=0))
        for p in doc.pages:
            texts[p.number - 1] = p.text
        payload = {"path": doc.path, "kind": doc.kind, "page_unit": doc.page_unit, "pages": texts}
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, target)

    def discard(self, sha256: str) -> None:
        self._file(sha256).unlink(missing_ok=True)
