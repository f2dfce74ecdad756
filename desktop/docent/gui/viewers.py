"""The system's PDF viewer, opened at the page the citation pane shows.

``QDesktopServices.openUrl`` opens a file with the default application, always at its
first page. On Linux and the BSDs the freedesktop.org files say which application that is
(``mimeapps.list``, then ``mimeinfo.cache``); when it is a viewer whose command line takes
a page (Evince, Okular, Zathura, ...), Docent starts it with the page. Anything else
(another viewer, a Flatpak, Windows, macOS) gets ``None`` here and the file opens as
before. Qt-free, run in a worker: it reads small text files, then starts the viewer apart
from Docent and watches its first seconds, since a viewer that exits with an error then
(a library missing, a file it refuses) opened nothing, and the file is opened as any file
is instead.
"""

from __future__ import annotations

import configparser
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

PDF_MIME = "application/pdf"

#: A viewer's arguments for a file at a page: (options, operands).
Args = Callable[[str, int], tuple[list[str], list[str]]]


def _page_index(path: str, page: int) -> tuple[list[str], list[str]]:
    return [f"--page-index={page}"], [path]  # a page's place, not its printed label


def _page_option(path: str, page: int) -> tuple[list[str], list[str]]:
    return ["--page", str(page)], [path]


def _zathura(path: str, page: int) -> tuple[list[str], list[str]]:
    return [f"--page={page}"], [path]


def _page_after(path: str, page: int) -> tuple[list[str], list[str]]:
    return [], [path, str(page)]


def _hash_page(path: str, page: int) -> tuple[list[str], list[str]]:
    return [], [f"{path}#{page}"]


def _url_fragment(path: str, page: int) -> tuple[list[str], list[str]]:
    return [], [f"{Path(path).as_uri()}#page={page}"]  # the PDF viewer of a browser


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
            "microsoft-edge-stable",
            "brave-browser",
            "brave-browser-stable",
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
    #: Variables its Exec line sets (``env GDK_BACKEND=x11 evince %U``).
    environment: dict[str, str] = field(default_factory=dict)


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
    """A desktop entry or list, or None when it is absent or cannot be read."""
    parser = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    try:
        if not path.is_file() or path.stat().st_size > 1 << 20:  # a list, not a megabyte
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


def _hidden(entry: configparser.ConfigParser) -> bool:
    """A desktop entry hidden (a user's way to remove a system one)."""
    try:
        return entry.getboolean("Desktop Entry", "Hidden", fallback=False)
    except ValueError:  # "Hidden=maybe": not the spec's true
        return False


def default_entry(
    mime: str = PDF_MIME, env: Mapping[str, str] | None = None
) -> configparser.ConfigParser | None:
    """The desktop entry, read, of the default application for ``mime``, as the freedesktop.org
    specification ranks them: the first installed one a ``[Default Applications]`` line
    names, else the first ``[Added Associations]`` names, else the first ``mimeinfo.cache``
    names; an association a ``[Removed Associations]`` line names is skipped after that."""
    env = os.environ if env is None else env
    lists = [parser for path in mimeapps_files(env) if (parser := _read_ini(path)) is not None]
    removed: set[str] = set()
    candidates: list[str] = []
    for parser in lists:
        candidates += _ids(parser, "Default Applications", mime)
    for parser in lists:
        # an association a more wanted list removed is not added back by a later one
        candidates += [i for i in _ids(parser, "Added Associations", mime) if i not in removed]
        removed.update(_ids(parser, "Removed Associations", mime))
    for d in application_dirs(env):
        cache = _read_ini(d / "mimeinfo.cache")
        if cache is not None:
            candidates += [i for i in _ids(cache, "MIME Cache", mime) if i not in removed]
    for desktop_id in dict.fromkeys(candidates):
        path = desktop_entry(desktop_id, env)
        entry = _read_ini(path) if path is not None else None
        if entry is not None and not _hidden(entry):
            return entry
    return None


def unescaped(exec_line: str) -> list[str] | None:
    """An Exec line's words: its string escapes (``\\s``, ``\\n``, ``\\t``, ``\\r``,
    ``\\\\``) undone, then its quoting; None when a quote is never closed."""
    escapes = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    text = re.sub(r"\\([sntr\\])", lambda m: escapes[m.group(1)], exec_line)
    try:
        return shlex.split(text)
    except ValueError:
        return None


def launch_at_page(path: str, page: int, env: Mapping[str, str] | None = None) -> Launch | None:
    """How to open the PDF ``path`` at ``page`` (from 1) in the default viewer, or None
    when that viewer is not known to take a page (or none is found)."""
    env = os.environ if env is None else env
    if page < 1 or not supported_platform():
        return None
    path = os.path.abspath(path)  # never taken for an option
    parser = default_entry(PDF_MIME, env)
    if parser is None or not parser.has_section("Desktop Entry"):
        return None
    words = unescaped(parser.get("Desktop Entry", "Exec", fallback=""))
    if not words:
        return None
    settings: dict[str, str] = {}
    if Path(words[0]).name == "env":  # "env GDK_BACKEND=x11 evince %U"
        words = words[1:]
        while words and "=" in words[0] and not words[0].startswith("-"):
            key, _, value = words.pop(0).partition("=")
            settings[key] = value
    if not words:
        return None
    args_for = PAGE_ARGUMENTS.get(Path(words[0]).name)
    program = shutil.which(words[0], path=env.get("PATH"))
    if args_for is None or program is None:
        return None
    options, operands = args_for(path, page)
    arguments: list[str] = []
    placed = False
    for word in words[1:]:
        if word in _FILE_CODES and not placed:
            if "--" in arguments:  # options go before the end of options
                at = arguments.index("--")
                arguments[at:at] = options
                arguments += operands
            else:
                arguments += options + operands
            placed = True
        elif word == "%%":
            arguments.append("%")
        elif not (len(word) == 2 and word.startswith("%")):  # %i %c %k and the rest
            arguments.append(word.replace("%%", "%"))
    if not placed:
        arguments = options + arguments + operands
    return Launch(program, arguments, settings)


#: Variables a bundle's Qt or loader may point into the bundle (PyInstaller's runtime
#: hooks set some of them), which a system viewer must not inherit.
BUNDLE_PATHS = (
    "LD_LIBRARY_PATH",
    "QT_PLUGIN_PATH",
    "QML2_IMPORT_PATH",
    "QML_IMPORT_PATH",
    "QT_QPA_PLATFORM_PLUGIN_PATH",
)


def child_environment(env: Mapping[str, str], bundle: str = "") -> dict[str, str]:
    """The environment a viewer is started with. From a bundle (PyInstaller's, ``bundle``
    its folder) the library path is taken back (the bootloader keeps the user's in
    ``LD_LIBRARY_PATH_ORIG``), and every path into the bundle is left out of the Qt
    variables, so the system's viewer loads the system's libraries and plug-ins."""
    out = dict(env)
    original = out.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        out["LD_LIBRARY_PATH"] = original
    if not bundle:
        return out
    inside = os.path.join(os.path.abspath(bundle), "")
    for key in BUNDLE_PATHS:
        if key not in out:
            continue
        kept = [
            d
            for d in out[key].split(os.pathsep)
            if d and not os.path.join(os.path.abspath(d), "").startswith(inside)
        ]
        if kept:
            out[key] = os.pathsep.join(kept)
        else:
            del out[key]
    return out


#: A viewer that exits with an error within this many seconds of its start opened
#: nothing. One still running then has the file open; one that exits cleanly handed the
#: file to a viewer already open (Evince, Okular and browsers do).
EARLY_EXIT_SECONDS = 3.0


def start(launch: Launch, env: Mapping[str, str], early: float | None = None) -> bool:
    """Starts ``launch`` in a session of its own (it outlives Docent) with ``env`` and
    its Exec line's variables; False when it could not start or exited with an error
    within ``early`` seconds (``EARLY_EXIT_SECONDS``). Blocks for up to that long: call
    it in a worker."""
    early = EARLY_EXIT_SECONDS if early is None else early
    try:
        process = subprocess.Popen(
            [launch.program, *launch.arguments],
            env={**env, **launch.environment},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    try:
        return process.wait(timeout=early) == 0
    except subprocess.TimeoutExpired:  # running: reaped when it ends, if Docent still runs
        threading.Thread(target=process.wait, name="viewer-reaper", daemon=True).start()
        return True
