"""What `make dist` swaps for smaller pieces: OpenCV's video and AVIF libraries for stubs
(packaging/stub_libs.py), tried on libraries gcc builds here; and Qt's ICU data for the
part Qt reads (packaging/icu_subset.py), tried on the venv's own PySide6 with the real
ICU. `make dist-check` then OCRs a scan and opens the window inside the bundle."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging"))

import icu_subset  # noqa: E402
import stub_libs  # noqa: E402

pytestmark = pytest.mark.skipif(
    not (shutil.which("gcc") and shutil.which("readelf")), reason="needs gcc and readelf"
)


def gcc(out: Path, source: str, *args: str) -> Path:
    src = out.with_name(out.name + ".c")
    src.write_text(source)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(out), str(src), *args], check=True)
    return out


@pytest.fixture
def video_bundle(tmp_path: Path) -> dict[str, Path]:
    """A consumer linked to a versioned 'video' library, which links to a library of its own:
    the shape of cv2 -> libavcodec -> libvpx."""
    libs = tmp_path / "libs"
    pkg = tmp_path / "pkg"
    libs.mkdir()
    pkg.mkdir()
    dep = gcc(
        libs / "libcodec.so.1", "int codec_run(void) { return 7; }\n", "-Wl,-soname,libcodec.so.1"
    )
    (libs / "vid.map").write_text("VID_1 { global: vid_open; vid_table; vid_unused; local: *; };\n")
    video = gcc(
        libs / "libvid-1a2b.so.1",
        "extern int codec_run(void);\n"
        "int vid_open(void) { return codec_run(); }\n"
        "int vid_table[40] = {5};\n"
        "int vid_unused(void) { return 3; }\n",
        "-Wl,-soname,libvid-1a2b.so.1",
        f"-Wl,--version-script={libs / 'vid.map'}",
        "-Wl,-rpath,$ORIGIN",
        f"-L{libs}",
        "-l:libcodec.so.1",
    )
    user = gcc(
        pkg / "user.so",
        "extern int vid_open(void);\nextern int vid_table[];\n"
        "int user_table(void) { return vid_table[0]; }\n"
        "int user_open(void) { return vid_open(); }\n",
        f"-L{libs}",
        "-l:libvid-1a2b.so.1",
        "-Wl,-rpath,$ORIGIN/../libs",
    )
    return {"user": user, "video": video, "codec": dep}


def load_and_call(user: Path, function: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import ctypes, os, sys\n"
        "lib = ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW)\n"
        "print('loaded', getattr(lib, sys.argv[2])(), flush=True)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(user), function], capture_output=True, text=True
    )


def test_a_stubbed_library_loads_without_its_own_libraries_and_names_itself_when_called(
    video_bundle: dict[str, Path], tmp_path: Path
) -> None:
    entries = [
        ("pkg/user.so", str(video_bundle["user"]), "BINARY"),
        ("libs/libvid-1a2b.so.1", str(video_bundle["video"]), "BINARY"),
        ("libs/libcodec.so.1", str(video_bundle["codec"]), "BINARY"),
    ]
    assert load_and_call(video_bundle["user"], "user_open").stdout == "loaded 7\n"

    kept, stubs, gone = stub_libs.stub_out(
        entries, tmp_path / "stubs", which=lambda dest: "libvid-" in dest
    )

    assert [d for d, _, _ in gone] == ["libs/libcodec.so.1"]
    assert [d for d, _, _ in stubs] == ["libs/libvid-1a2b.so.1"]
    assert [d for d, _, _ in kept] == ["pkg/user.so", "libs/libvid-1a2b.so.1"]
    stub = Path(stubs[0][1])
    exported = {
        (name, version)
        for name, ndx, _size, _kind, version in stub_libs.dynamic_symbols(str(stub))
        if ndx != "UND"
    }
    # what the consumer takes, with its version; not what it never calls
    assert {("vid_open", "VID_1"), ("vid_table", "VID_1")} <= exported
    assert not any(name == "vid_unused" for name, _ in exported)
    assert stub_libs.soname(str(stub)) == "libvid-1a2b.so.1"

    # the bundle as shipped: the stub in place, its own library gone
    shutil.copy(stub, video_bundle["video"])
    video_bundle["codec"].unlink()
    loaded = load_and_call(video_bundle["user"], "user_table")
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout == "loaded 0\n"
    called = load_and_call(video_bundle["user"], "user_open")
    assert called.returncode == -signal.SIGABRT
    assert "vid_open() of libvid-1a2b.so.1 was called, but the bundle leaves that library out" in (
        called.stderr
    )


def test_without_the_stub_the_consumer_does_not_load(video_bundle: dict[str, Path]) -> None:
    """Why the libraries are stubbed rather than left out."""
    video_bundle["video"].unlink()
    result = load_and_call(video_bundle["user"], "user_table")
    assert result.returncode != 0
    assert "libvid-1a2b.so.1" in result.stderr


def qt_icu_data() -> Path:
    import PySide6

    lib = Path(PySide6.__file__).parent / "Qt" / "lib"
    found = sorted(lib.glob("libicudata.so.*"))
    if not found:
        pytest.skip("this PySide6 has no ICU of its own")
    return max(found, key=lambda p: len(p.name))


def probe(icu_dir: Path | None) -> str:
    env = dict(os.environ)
    if icu_dir is not None:
        env["LD_LIBRARY_PATH"] = str(icu_dir)  # searched before Qt's RUNPATH ($ORIGIN)
    result = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("icu_probe.py"))],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return result.stdout


def subset_dir(tmp_path: Path, name: str, keep: icu_subset.Keep) -> Path:
    lib = qt_icu_data()
    built, before, after = icu_subset.build(lib, tmp_path / name, keep)
    assert after < before
    folder = tmp_path / f"{name}-lib"
    folder.mkdir()
    shutil.copy(built, folder / stub_libs.soname(str(lib)))
    return folder


def test_qt_reads_the_same_from_the_icu_subset_as_from_the_whole(tmp_path: Path) -> None:
    whole = probe(None)
    assert "Mitteleuropäische Normalzeit" in whole  # the time-zone names are ICU's

    assert probe(subset_dir(tmp_path, "bundle", icu_subset.kept)) == whole

    # the probe sees the data: without the collation and zone trees, it reads otherwise
    def fewer(item: str) -> bool:
        return icu_subset.kept(item) and not any(f"/{t}/" in item for t in ("coll", "zone"))

    assert probe(subset_dir(tmp_path, "fewer", fewer)) != whole


def test_the_subset_leaves_out_only_the_dropped_trees() -> None:
    _symbol, blob = icu_subset.data_symbol(qt_icu_data())
    names = [name for name, _ in icu_subset.items(blob)]
    small = [name for name, _ in icu_subset.items(icu_subset.package(blob, icu_subset.kept))]
    assert small == [n for n in names if icu_subset.kept(n)]
    assert any("/coll/" in n for n in small) and any("/zone/" in n for n in small)
    assert not any("/lang/" in n or "/brkitr/" in n for n in small)
    assert all(n in names for n in small)
    # kept items come back byte for byte (padded to 16 bytes, as ICU aligns them)
    whole = dict(icu_subset.items(blob))
    for name, data in icu_subset.items(icu_subset.package(blob, icu_subset.kept)):
        assert data[: len(whole[name])] == whole[name], name


#: The Qt libraries the bundle ships (`make dist` checks every library it really ships).
BUNDLED_QT = ("Core", "Gui", "Widgets", "Pdf", "Svg", "DBus", "Network", "OpenGL", "XcbQpa")


def test_qt_calls_no_icu_function_outside_the_known_ones() -> None:
    lib_dir = qt_icu_data().parent
    undefined: set[str] = set()
    for name in BUNDLED_QT:
        lib = lib_dir / f"libQt6{name}.so.6"
        undefined |= {n for n, ndx, *_ in stub_libs.dynamic_symbols(str(lib)) if ndx == "UND"}
    version = qt_icu_data().name.rsplit(".", 1)[1]
    assert f"ucol_open_{version}" in undefined  # Qt does call ICU
    assert icu_subset.unknown_calls(undefined, version) == set()
    assert icu_subset.unknown_calls({"ubrk_open_73", "ucol_open_73", "malloc"}, "73") == {
        "ubrk_open_73"
    }
