"""JSON on standard output, for every command's ``--json``: valid whatever the names in it
and whatever the console's encoding."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any, *, indent: int | None = 2, flush: bool = False) -> None:
    """``data`` as JSON on one line (``indent`` None) or indented. Characters are written as
    they are when the console can write them all; else as JSON escapes, which are exact: a
    file name that is not UTF-8 (its bytes as lone surrogates) came out as raw bytes, and a
    Windows console (cp1252) stopped mid-document on "日本語" (review)."""
    text = json.dumps(data, indent=indent, ensure_ascii=False, default=str)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=indent, ensure_ascii=True, default=str)
    sys.stdout.write(text + "\n")
    if flush:
        sys.stdout.flush()
