"""The bundle's build helpers (packaging/): which Qt plugins and libraries are left out,
and when a stripped library is kept. `make dist-check` tests the bundle itself."""

from __future__ import annotations

import shutil
import struct
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging"))

import prune  # noqa: E402
import strip_bundle  # noqa: E402

QT = "PySide6/Qt"


def entry(dest: str) -> tuple[str, str, str]:
    return (dest, dest, "BINARY")


def test_plugins_left_out_are_the_unused_ones() -> None:
    assert prune.dropped_plugin(f"{QT}/plugins/platforms/libqvnc.so")
    assert prune.dropped_plugin(f"{QT}/plugins/tls/libqopensslbackend.so")
    assert not prune.dropped_plugin(f"{QT}/plugins/platforms/libqxcb.so")
    assert not prune.dropped_plugin(f"{QT}/plugins/platforms/libqoffscreen.so")
    assert not prune.dropped_plugin(f"{QT}/plugins/imageformats/libqjpeg.so")
    assert not prune.dropped_plugin(f"{QT}/lib/libQt6Core.so.6")


def test_a_library_goes_only_when_nothing_kept_links_to_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    links = {
        # the virtual keyboard brings QtQuick, which links to QtGui (kept: xcb needs it)
        f"{QT}/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so": [
            "libQt6Quick.so.6",
            "libQt6Gui.so.6",
        ],
        f"{QT}/lib/libQt6Quick.so.6": ["libQt6Qml.so.6", "libQt6Gui.so.6"],
        f"{QT}/lib/libQt6Qml.so.6": ["libQt6Core.so.6"],
        f"{QT}/plugins/platforms/libqxcb.so": ["libQt6Gui.so.6"],
        f"{QT}/lib/libQt6Gui.so.6": ["libQt6Core.so.6"],
        f"{QT}/lib/libQt6Core.so.6": [],
        # loaded with dlopen: nothing links to it, so it stays
        "libdbus-1.so.3": [],
    }
    monkeypatch.setattr(prune, "needed", lambda path: links[path])
    kept, gone = prune.prune([entry(d) for d in links])
    assert sorted(d for d, _, _ in gone) == [
        f"{QT}/lib/libQt6Qml.so.6",
        f"{QT}/lib/libQt6Quick.so.6",
        f"{QT}/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so",
    ]
    assert {d for d, _, _ in kept} == {
        f"{QT}/plugins/platforms/libqxcb.so",
        f"{QT}/lib/libQt6Gui.so.6",
        f"{QT}/lib/libQt6Core.so.6",
        "libdbus-1.so.3",
    }


def test_symlinks_to_left_out_libraries_go_too() -> None:
    entries = [
        ("libQt6Quick.so.6", f"{QT}/lib/libQt6Quick.so.6", "SYMLINK"),
        ("libQt6Core.so.6", f"{QT}/lib/libQt6Core.so.6", "SYMLINK"),
        entry(f"{QT}/lib/libQt6Core.so.6"),
    ]
    left = prune.drop_dangling_symlinks(entries, {f"{QT}/lib/libQt6Core.so.6"})
    assert [e[0] for e in left] == ["libQt6Core.so.6", f"{QT}/lib/libQt6Core.so.6"]


def test_a_library_whose_segments_strip_misaligned_is_refused(tmp_path: Path) -> None:
    lib = Path(sys.executable).resolve()  # a real ELF file (the interpreter)
    good = tmp_path / "good"
    shutil.copy(lib, good)
    assert strip_bundle.is_elf(good) and strip_bundle.segments_sound(good)
    # move the first loadable segment's file offset off its page: what strip did to
    # numpy's OpenBLAS ("ELF load command address/offset not page-aligned")
    data = bytearray(good.read_bytes())
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        at = phoff + i * phentsize
        p_type, _flags, p_offset = struct.unpack_from("<IIQ", data, at)
        if p_type == strip_bundle.PT_LOAD:
            struct.pack_into("<Q", data, at + 8, p_offset + 8)
            break
    else:
        pytest.fail("the interpreter has no loadable segment")
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(data))
    assert not strip_bundle.segments_sound(bad)
