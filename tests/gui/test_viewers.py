"""The system's PDF viewer found from the freedesktop.org files, and told the page.

Each test makes its own desktop: a config home, a data home with desktop entries, and a
``bin`` folder with the viewers' programs (scripts), all under ``tmp_path``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import unquote

import pytest

from docent.gui.viewers import (
    Launch,
    child_environment,
    launch_at_page,
    start,
    supported_platform,
)

pytestmark = pytest.mark.skipif(
    not supported_platform(),
    reason="freedesktop.org associations are read on Linux and the BSDs only",
)


class Desktop:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config"
        self.data = root / "data"
        self.system = root / "system"
        self.bin = root / "bin"
        for d in (self.config, self.data / "applications", self.system / "applications"):
            d.mkdir(parents=True)
        self.bin.mkdir()
        self.env = {
            "HOME": str(root),
            "XDG_CONFIG_HOME": str(self.config),
            "XDG_CONFIG_DIRS": str(root / "etc-xdg"),
            "XDG_DATA_HOME": str(self.data),
            "XDG_DATA_DIRS": str(self.system),
            "PATH": str(self.bin),
        }

    def program(self, name: str) -> Path:
        path = self.bin / name
        path.write_text("#!/bin/sh\nexit 0\n")
        path.chmod(0o755)
        return path

    def entry(self, desktop_id: str, exec_line: str, name: str = "", system: bool = True) -> None:
        folder = (self.system if system else self.data) / "applications"
        path = folder / desktop_id
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = ["[Desktop Entry]", "Type=Application", f"Exec={exec_line}"]
        path.write_text("\n".join([*lines, f"Name={name}"] if name else lines) + "\n")

    def default(self, *ids: str, file: str = "mimeapps.list") -> None:
        (self.config / file).write_text(
            "[Default Applications]\napplication/pdf=" + ";".join(ids) + ";\n"
        )


@pytest.fixture
def desk(tmp_path: Path) -> Desktop:
    return Desktop(tmp_path / "desk")


PDF = "/docs/the manual.pdf"


def test_the_default_viewer_is_told_the_page(desk: Desktop) -> None:
    evince = desk.program("evince")
    desk.entry("org.gnome.Evince.desktop", "evince %U", name="Document Viewer")
    # the first id listed is not installed: the next one is the default
    desk.default("gone.desktop", "org.gnome.Evince.desktop")
    assert launch_at_page(PDF, 12, desk.env) == Launch(str(evince), ["--page-index=12", PDF])


def test_each_known_viewer_gets_its_own_page_argument(desk: Desktop) -> None:
    cases = {
        "okular": ["--page", "7", PDF],
        "zathura": ["--page=7", PDF],
        "atril": ["--page-index=7", PDF],
        "mupdf": [PDF, "7"],
        "qpdfview": [f"{PDF}#7"],
    }
    for program, arguments in cases.items():
        desk.program(program)
        desk.entry(f"{program}.desktop", f"{program} %f")
        desk.default(f"{program}.desktop")
        launch = launch_at_page(PDF, 7, desk.env)
        assert launch is not None and launch.arguments == arguments, program


def test_a_browser_gets_the_page_in_the_url(desk: Desktop) -> None:
    desk.program("firefox")
    desk.entry("firefox.desktop", "firefox %u")
    desk.default("firefox.desktop")
    launch = launch_at_page(PDF, 3, desk.env)
    assert launch is not None
    (url,) = launch.arguments
    assert url.startswith("file:///docs/the%20manual.pdf#page=3")
    assert unquote(url.split("#")[0]) == "file://" + PDF


def test_the_exec_lines_own_words_are_kept_and_its_field_codes_dropped(desk: Desktop) -> None:
    desk.program("zathura")
    desk.entry(
        "z.desktop", r'env GDK_BACKEND=x11 zathura --fork %U --title "%c" %i 100%% %% "a\sb"'
    )
    desk.default("z.desktop")
    launch = launch_at_page(PDF, 2, desk.env)
    assert launch is not None
    assert launch.arguments == ["--fork", "--page=2", PDF, "--title", "100%", "%", "a b"]
    assert launch.environment == {"GDK_BACKEND": "x11"}  # set for the viewer, not dropped


def test_the_page_option_comes_before_an_end_of_options(desk: Desktop) -> None:
    desk.program("okular")
    desk.entry("okular.desktop", "okular -- %U")
    desk.default("okular.desktop")
    launch = launch_at_page(PDF, 3, desk.env)
    assert launch is not None and launch.arguments == ["--page", "3", "--", PDF]
    desk.program("mupdf")
    desk.entry("mupdf.desktop", "mupdf -- %f")
    desk.default("mupdf.desktop")
    launch = launch_at_page("relative.pdf", 3, desk.env)  # made absolute: never an option
    assert launch is not None and launch.arguments == ["--", str(Path.cwd() / "relative.pdf"), "3"]


def test_the_desktops_own_list_comes_before_the_common_one(desk: Desktop) -> None:
    desk.program("evince")
    okular = desk.program("okular")
    desk.entry("org.gnome.Evince.desktop", "evince %U")
    desk.entry("org.kde.okular.desktop", "okular %U", system=False)
    desk.default("org.gnome.Evince.desktop")
    desk.default("org.kde.okular.desktop", file="kde-mimeapps.list")
    launch = launch_at_page(PDF, 4, {**desk.env, "XDG_CURRENT_DESKTOP": "KDE"})
    assert launch is not None and launch.program == str(okular)
    gnome = launch_at_page(PDF, 4, {**desk.env, "XDG_CURRENT_DESKTOP": "GNOME"})
    assert gnome is not None and gnome.arguments[0] == "--page-index=4"


def test_added_removed_and_hidden_associations_are_honoured(desk: Desktop) -> None:
    """With no default: an added association before the cache's; one the user removed,
    or whose entry the user hid, is not chosen from the cache."""
    desk.program("evince")
    desk.program("okular")
    desk.program("zathura")
    desk.entry("org.gnome.Evince.desktop", "evince %U")
    desk.entry("okular.desktop", "okular %U")
    desk.entry("zathura.desktop", "zathura %U")
    (desk.system / "applications" / "mimeinfo.cache").write_text(
        "[MIME Cache]\napplication/pdf=org.gnome.Evince.desktop;okular.desktop;zathura.desktop;\n"
    )
    first = launch_at_page(PDF, 2, desk.env)
    assert first is not None and first.arguments == ["--page-index=2", PDF]
    (desk.config / "mimeapps.list").write_text(
        "[Removed Associations]\napplication/pdf=org.gnome.Evince.desktop;\n"
    )
    removed = launch_at_page(PDF, 2, desk.env)
    assert removed is not None and removed.arguments == ["--page", "2", PDF]
    desk.entry("okular.desktop", "okular %U\nHidden=maybe", system=False)  # not the spec's
    assert launch_at_page(PDF, 2, desk.env) == removed
    desk.entry("okular.desktop", "okular %U\nHidden=true", system=False)  # the user's copy
    hidden = launch_at_page(PDF, 2, desk.env)
    assert hidden is not None and hidden.arguments == ["--page=2", PDF]
    (desk.config / "mimeapps.list").write_text(
        "[Added Associations]\napplication/pdf=org.gnome.Evince.desktop;\n"
    )
    added = launch_at_page(PDF, 2, desk.env)
    assert added is not None and added.arguments == ["--page-index=2", PDF]


def test_with_no_default_the_mime_cache_names_the_viewer(desk: Desktop) -> None:
    desk.program("okular")
    desk.entry("kde4/okular.desktop", "okular %U")  # the id kde4-okular.desktop
    (desk.system / "applications" / "mimeinfo.cache").write_text(
        "[MIME Cache]\napplication/pdf=gone.desktop;kde4-okular.desktop;\n"
    )
    launch = launch_at_page(PDF, 9, desk.env)
    assert launch is not None and launch.arguments == ["--page", "9", PDF]


@pytest.mark.parametrize(
    "exec_line",
    [
        "flatpak run --command=evince org.gnome.Evince @@u %U @@",  # a sandbox: not known
        "gimp %U",  # a program that takes no page
        "evince-not-installed %U",
        'evince "%U',  # a quote never closed
        "",
    ],
)
def test_anything_else_opens_the_file_as_before(desk: Desktop, exec_line: str) -> None:
    desk.program("flatpak")
    desk.program("gimp")
    desk.entry("v.desktop", exec_line)
    desk.default("v.desktop")
    assert launch_at_page(PDF, 5, desk.env) is None


def test_no_list_a_broken_list_or_no_page_is_no_launch(desk: Desktop) -> None:
    desk.program("evince")
    desk.entry("org.gnome.Evince.desktop", "evince %U")
    assert launch_at_page(PDF, 5, desk.env) is None  # no default named anywhere
    (desk.config / "mimeapps.list").write_bytes(b"\xff\xfe[Default Applications\n=;;\n")
    assert launch_at_page(PDF, 5, desk.env) is None
    desk.default("org.gnome.Evince.desktop")
    assert launch_at_page(PDF, 0, desk.env) is None
    assert launch_at_page(PDF, 5, desk.env) is not None


def test_a_bundles_paths_are_not_handed_to_the_viewer() -> None:
    bundle = "/opt/docent/_internal"
    frozen = {
        "PATH": "/usr/bin",
        "LD_LIBRARY_PATH": bundle,
        "QT_PLUGIN_PATH": f"{bundle}/PySide6/plugins:/home/me/qt-plugins",
        "QML2_IMPORT_PATH": f"{bundle}/PySide6/qml",
    }
    assert child_environment(frozen, bundle) == {
        "PATH": "/usr/bin",
        "QT_PLUGIN_PATH": "/home/me/qt-plugins",  # the user's own stays
    }
    saved = {**frozen, "LD_LIBRARY_PATH_ORIG": "/home/me/lib"}
    assert child_environment(saved, bundle)["LD_LIBRARY_PATH"] == "/home/me/lib"
    assert child_environment(frozen) == frozen  # run from source: the user's environment
    near = {"QT_PLUGIN_PATH": "/opt/docent/_internal2/plugins"}  # not inside the bundle
    assert child_environment(near, bundle) == near


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_a_viewer_that_fails_as_it_starts_is_not_taken_for_open(tmp_path: Path) -> None:
    """Exiting with an error at once (a library missing, a file refused) opened nothing;
    exiting cleanly is a viewer that handed the file to one already open; a program that
    cannot be started at all is no viewer either."""
    env = {"PATH": "/usr/bin:/bin"}
    fails = _script(tmp_path / "fails", "exit 3")
    hands_over = _script(tmp_path / "hands-over", "exit 0")
    # a long window: it ends as soon as the script exits, however busy the machine is
    assert start(Launch(fails, ["--page-index=2", "a.pdf"]), env, early=60) is False
    assert start(Launch(hands_over, ["a.pdf"]), env, early=60) is True
    assert start(Launch(str(tmp_path / "missing"), ["a.pdf"]), env) is False
    (tmp_path / "not-executable").write_text("#!/bin/sh\nexit 0\n")
    assert start(Launch(str(tmp_path / "not-executable"), ["a.pdf"]), env) is False


def test_a_viewer_still_running_is_open_and_outlives_the_wait(tmp_path: Path) -> None:
    """A viewer that keeps running has the file open: ``start`` returns once the early
    window is past, with the viewer still running, its arguments and its Exec line's
    variables given to it."""
    pid_file = tmp_path / "pid"
    quit_file = tmp_path / "quit"
    viewer = _script(
        tmp_path / "viewer",
        f'printf "%s %s" "$$" "$DOCENT_TEST_VAR $1" > "{pid_file}.part"\n'
        f'mv "{pid_file}.part" "{pid_file}"\n'
        f'while [ ! -e "{quit_file}" ]; do sleep 0.05; done',
    )
    try:
        launch = Launch(viewer, ["b.pdf"], {"DOCENT_TEST_VAR": "set"})
        assert start(launch, {"PATH": "/usr/bin:/bin"}, early=0.5)
        deadline = time.monotonic() + 10
        while not pid_file.exists():  # polling what the viewer writes, at its own pace
            assert time.monotonic() < deadline, "the viewer never wrote its pid"
            time.sleep(0.01)
        pid, seen = pid_file.read_text().split(" ", 1)
        assert seen == "set b.pdf"
        os.kill(int(pid), 0)  # still running after start returned
    finally:
        quit_file.touch()
