"""The system's PDF viewer, opened at the page the citation pane shows.

``QDesktopServices.openUrl`` opens a file with the default application, always at its
first page. On Linux and the BSDs the freedesktop.org files say which application that is
(``mimeapps.list``, then ``mimeinfo.cache``); when it is a viewer whose command line takes
a page (Evince, Okular, Zathura, ...), Docent starts it with the page. Anything else
(another viewer, a Flatpak, Windows, macOS) gets ``None`` here and the file opens as
before. Qt-free and without subprocesses: it only reads small text files, in a worker.
"""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

PDF_MIME = "application/pdf"

Args = Callable[[str, int], list[str]]


def _page_index(path: str, page: int) -> list[str]:
    return [f"--page-index={page}", path]  # a page's place, not its printed label


def _page_option(path: str, page: int) -> list[str]:
    return ["--page", str(page), path]


def _zathura(path: str, page: int) -> list[str]:
    return [f"--page={page}", path]


def _page_after(path: str, page: int) -> list[str]:
    return [path, str(page)]


def _hash_page(path: str, page: int) -> list[str]:
    return [f"{path}#{page}"]


def _url_fragment(path: str, page: int) -> list[str]:
    return [f"{Path(path).as_uri()}#page={page}"]  # the PDF viewer of a browser


#: A viewer's program name -> its arguments for a file at a page (counted from 1).
PAGE_ARGUMENTS: dict[str, Args] = {
    **dict.fromkeys(("evince", "atril", "xreader", "papers"), _page_index),
    "okular": _page_option,
    "zathura": _zathura,
    **dict.fromkeys(("mupdf", "mupdf-gl", "mupdf-x11", "xpdf"), _page_after),
    "qpdfview": _hash_page,
    **dict.fromkeys(
        (
            "firefox",
            "firefox-esr",
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
            "microsoft-edge",
            "brave-browser",
        ),
        _url_fragment,
    ),
}

#: Field codes of a desktop entry's Exec line that stand for the file(s) opened.
_FILE_CODES = frozenset({"%f", "%F", "%u", "%U"})


@dataclass(frozen=True, slots=True)
class Launch:
    """A viewer started at a page: ``program`` (a full path) with ``arguments``."""

    program: str
    arguments: list[str]
    #: The application's name, as its desktop entry gives it ("Document Viewer").
    name: str


def supported_platform() -> bool:
    return sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd", "dragonfly"))


def _dirs(env: Mapping[str, str], name: str, default: str) -> list[Path]:
    return [Path(d) for d in (env.get(name) or default).split(os.pathsep) if d]


def _config_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")) / ".config")


def _data_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("XDG_DATA_HOME") or Path(env.get("HOME", "~")) / ".local/share")


def application_dirs(env: Mapping[str, str]) -> list[Path]:
    """Where desktop entries are, most wanted first."""
    data = [_data_home(env), *_dirs(env, "XDG_DATA_DIRS", "/usr/local/share:/usr/share")]
    return [d / "applications" for d in data]


def mimeapps_files(env: Mapping[str, str]) -> Iterator[Path]:
    """The ``mimeapps.list`` files in the order the specification reads them, each
    desktop's own (``gnome-mimeapps.list``) before the common one."""
    desktops = [d.lower() for d in env.get("XDG_CURRENT_DESKTOP", "").split(":") if d]
    dirs = [
        _config_home(env),
        *_dirs(env, "XDG_CONFIG_DIRS", "/etc/xdg"),
        *application_dirs(env),
    ]
    for d in dirs:
        for desktop in desktops:
            yield d / f"{desktop}-mimeapps.list"
        yield d / "mimeapps.list"


def _read_ini(path: Path) -> configparser.ConfigParser | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    try:
        if path.stat().st_size > 1 << 20:  # a desktop's list, not a megabyte
            return None
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return None
    return parser


def _ids(parser: configparser.ConfigParser, section: str, mime: str) -> list[str]:
    if not parser.has_option(section, mime):
        return []
    return [i.strip() for i in parser.get(section, mime).split(";") if i.strip()]


def desktop_entry(desktop_id: str, env: Mapping[str, str]) -> Path | None:
    """The file of a desktop entry id (``org.gnome.Evince.desktop``; ``kde4-okular.desktop``
    may be ``kde4/okular.desktop``)."""
    if "/" in desktop_id or not desktop_id.endswith(".desktop"):
        return None
    candidates = [desktop_id]
    parts = desktop_id.split("-")
    candidates += ["/".join(parts[:i]) + "/" + "-".join(parts[i:]) for i in range(1, len(parts))]
    for d in application_dirs(env):
        for c in candidates:
            if (d / c).is_file():
                return d / c
    return None


def default_entry(mime: str = PDF_MIME, env: Mapping[str, str] | None = None) -> Path | None:
    """The desktop entry of the default application for ``mime``: the first installed one
    a ``[Default Applications]`` line names, else the first ``mimeinfo.cache`` names."""
    env = os.environ if env is None else env
    for path in mimeapps_files(env):
        parser = _read_ini(path) if path.is_file() else None
        if parser is None:
            continue
        for desktop_id in _ids(parser, "Default Applications", mime):
            entry = desktop_entry(desktop_id, env)
            if entry is not None:
                return entry
    for d in application_dirs(env):
        cache = d / "mimeinfo.cache"
        parser = _read_ini(cache) if cache.is_file() else None
        if parser is None:
            continue
        for desktop_id in _ids(parser, "MIME Cache", mime):
            entry = desktop_entry(desktop_id, env)
            if entry is not None:
                return entry
    return None


def launch_at_page(path: str, page: int, env: Mapping[str, str] | None = None) -> Launch | None:
    """How to open the PDF ``path`` at ``page`` (from 1) in the default viewer, or None
    when that viewer is not known to take a page (or none is found)."""
    env = os.environ if env is None else env
    if page < 1 or not supported_platform():
        return None
    entry = default_entry(PDF_MIME, env)
    parser = _read_ini(entry) if entry is not None else None
    if parser is None or not parser.has_section("Desktop Entry"):
        return None
    exec_line = parser.get("Desktop Entry", "Exec", fallback="")
    try:
        words = shlex.split(exec_line)
    except ValueError:
        return None
    while words and (Path(words[0]).name == "env" or "=" in words[0]):
        words = words[1:]  # "env GDK_BACKEND=x11 evince %U"
    if not words:
        return None
    args_for = PAGE_ARGUMENTS.get(Path(words[0]).name)
    program = shutil.which(words[0], path=env.get("PATH"))
    if args_for is None or program is None:
        return None
    arguments: list[str] = []
    placed = False
    for word in words[1:]:
        if word in _FILE_CODES and not placed:
            arguments += args_for(path, page)
            placed = True
        elif not (len(word) == 2 and word.startswith("%")):  # %i %c %k and the rest
            arguments.append(word.replace("%%", "%"))
    if not placed:
        arguments += args_for(path, page)
    name = parser.get("Desktop Entry", "Name", fallback="") or Path(words[0]).name
    return Launch(program, arguments, name)


def child_environment(env: Mapping[str, str], frozen: bool) -> dict[str, str]:
    """The environment a viewer is started with: a PyInstaller build's own library path
    is taken back (its bootloader keeps the user's in ``LD_LIBRARY_PATH_ORIG``), so the
    system's viewer loads the system's libraries."""
    out = dict(env)
    original = out.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        out["LD_LIBRARY_PATH"] = original
    elif frozen:
        out.pop("LD_LIBRARY_PATH", None)
    return out
