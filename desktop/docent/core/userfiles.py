"""What is safe to do with a user's file and with its name.

Files: only regular files are read, and opening never blocks. A FIFO named ``x.txt``
blocks ``open()`` until a writer comes; ``/dev/zero`` never ends. ``open_regular`` opens
with ``O_NONBLOCK`` (no effect on a regular file's reads) and checks the *opened* file,
so a file swapped for a FIFO between the folder walk and the read is still refused.

Names: on POSIX a file name is bytes. Python gives undecodable bytes to us as lone
surrogates (``bad\\udcff.txt``), which SQLite, Qdrant and a UTF-8 terminal all refuse.
``shown`` is the one way a name is printed or put in a message: escaped, one line, no
terminal control codes. ``stored_text``/``from_stored_text`` carry an exact name through
text-only stores (SQLite keeps such a path as a BLOB instead, see catalog.py).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePath
from typing import IO, Any

#: Everything that can change what a terminal shows, or split a line: C0, DEL, C1,
#: line and paragraph separators, bidi overrides, and lone surrogates (undecodable bytes).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

#: Payload keys that hold a file's path or name in the store.
_NAME_KEYS = ("path", "file_name")
#: Set beside an escaped path: the path's bytes in hex, which give the exact name back.
PATH_BYTES_KEY = "path_bytes"


class NotRegularFile(OSError):
    """The path is a FIFO, device, socket or folder: Docent reads only regular files."""

    def __init__(self, path: str | Path, kind: str) -> None:
        super().__init__(f"{shown(Path(path).name)} is {kind}, not a regular file")
        self.kind = kind


def kind_of(mode: int) -> str:
    """A person's word for a file type, from ``st_mode``."""
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def open_regular(path: str | Path) -> IO[bytes]:
    """Open ``path`` for reading if it is a regular file (symlinks followed); never blocks.

    Raises ``NotRegularFile`` for anything else, ``OSError`` when it cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, kind_of(mode))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def inside(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or lies under it (as written: no links resolved)."""
    return path == folder or path.startswith(folder.rstrip("/\\") + os.sep)


def folder_set(paths: Iterable[str]) -> frozenset[str]:
    """``paths`` as ``inside_any`` looks them up."""
    return frozenset(p.rstrip("/\\") or os.sep for p in paths)


def inside_any(path: str, folders: frozenset[str]) -> bool:
    """``path`` is ``inside`` one of ``folders`` (made by ``folder_set``): ``path`` and
    each folder above it looked up once, not each folder compared in turn."""
    if path in folders or os.sep in folders:
        return True
    end = path.rfind(os.sep)
    while end > 0:
        if path[:end] in folders:
            return True
        end = path.rfind(os.sep, 0, end)
    return False


def shown(name: str | Path) -> str:
    r"""``name`` as it may be printed: undecodable bytes as ``\xff``, controls as ``\x1b``,
    ``\n`` and ``\t`` escaped. Names without such characters are returned unchanged."""
    text = str(name)
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape, text)


def distinct_paths(
    paths: Iterable[str], parts: Mapping[str, tuple[str, ...]] | None = None
) -> dict[str, str]:
    """Each path's name as a reader is shown it among ``paths``: its file name, or, where
    another has the same name, as much of its folders as tells them apart
    ("archive/meeting.md" and "notes/meeting.md"). Linear in the paths' parts: a library
    holds thousands of "index.md" (a website's sources). ``parts``: each path's
    ``PurePath.parts``, when the caller keeps them (splitting is most of the cost)."""
    unique = list(dict.fromkeys(paths))
    split = {p: parts[p] if parts is not None else PurePath(p).parts for p in unique}
    depth = dict.fromkeys(unique, 1)
    level = 1
    alike = _grouped(unique, split, level)  # alike in their last ``level`` parts
    while alike:
        longer: list[str] = []
        for group in alike:
            if len(group) > 1:  # told apart by one more part, those that have one
                longer += [p for p in group if len(split[p]) > level]
        level += 1
        for p in longer:
            depth[p] = level
        alike = _grouped(longer, split, level)
    out: dict[str, str] = {}
    for p in unique:
        shown = split[p][-depth[p] :]
        if depth[p] == len(split[p]) and PurePath(p).anchor:
            shown = shown[1:]  # "/" or "C:\\" is no folder to name
        out[p] = "/".join(shown) if depth[p] > 1 else split[p][-1]
    return out


def _grouped(paths: list[str], parts: dict[str, tuple[str, ...]], level: int) -> list[list[str]]:
    """The paths alike in their last ``level`` parts, in groups of two or more."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for p in paths:
        groups.setdefault(parts[p][-level:], []).append(p)
    return [g for g in groups.values() if len(g) > 1]


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def is_text_safe(text: str) -> bool:
    """True when ``text`` encodes as UTF-8 (no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def stored_text(path: str) -> tuple[str, str]:
    """``(text, hex_bytes)``: ``path`` itself and "" when it is valid text, else its escaped
    form and the hex of its bytes (which ``from_stored_text`` turns back into ``path``)."""
    if is_text_safe(path):
        return path, ""
    return shown(path), os.fsencode(path).hex()


def from_stored_text(text: str, hex_bytes: str = "") -> str:
    return os.fsdecode(bytes.fromhex(hex_bytes)) if hex_bytes else text


def encode_names(payload: dict[str, Any]) -> dict[str, Any]:
    """A store payload whose ``path``/``file_name`` are valid text (exact bytes kept)."""
    path = payload.get("path")
    if not isinstance(path, str):
        return payload
    text, hex_bytes = stored_text(path)
    out = dict(payload, path=text)
    out[PATH_BYTES_KEY] = hex_bytes  # "" also clears an old value on a payload merge
    name = payload.get("file_name")
    if isinstance(name, str):
        out["file_name"] = shown(name) if hex_bytes else name
    return out


def decode_names(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with the exact ``path`` and ``file_name`` back (see ``encode_names``)."""
    hex_bytes = payload.pop(PATH_BYTES_KEY, "")
    if hex_bytes and isinstance(hex_bytes, str):
        path = from_stored_text("", hex_bytes)
        payload["path"] = path
        if "file_name" in payload:
            payload["file_name"] = Path(path).name
    return payload
