"""Leave out of the bundle the Qt plugins Docent has no use for, and the libraries only
they need (used by docent.spec; Linux only, where the bundle is built and checked).

PySide6's hooks collect every plugin of the modules we import, and with them their
libraries: the virtual keyboard plugin alone brings QtQuick and QtQml (~17 MB), the GTK
theme brings cairo, pango and friends (it cannot load anyway without the system's GTK).
A library is dropped only when every path to it in the ELF dependency graph (DT_NEEDED)
starts at a dropped plugin; libraries nothing links to are kept, since they may be
loaded at run time with dlopen.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import PurePosixPath

#: Plugins under PySide6/Qt/plugins/ that are not needed. Kept: platforms xcb, wayland,
#: offscreen and minimal; the XDG portal theme; the SVG icon engine; the common image formats.
DROP_PLUGINS = {
    "platforms/libqeglfs.so",
    "platforms/libqlinuxfb.so",
    "platforms/libqvnc.so",
    "platforms/libqvkkhrdisplay.so",
    "platforms/libqminimalegl.so",
    "platformthemes/libqgtk3.so",
    "platforminputcontexts/libqtvirtualkeyboardplugin.so",
    "imageformats/libqpdf.so",
    "imageformats/libqtiff.so",
    "imageformats/libqwebp.so",
    "imageformats/libqtga.so",
    "imageformats/libqwbmp.so",
    "imageformats/libqicns.so",
}
#: Whole plugin folders: embedded-device integrations, evdev input, network information
#: and TLS backends (Docent never speaks HTTP through Qt).
DROP_PLUGIN_DIRS = {"egldeviceintegrations", "generic", "networkinformation", "tls"}

Entry = tuple  # PyInstaller's TOC entry: (dest_name, src_path, typecode)


def _plugin(dest: str) -> str | None:
    parts = PurePosixPath(dest).parts
    if "plugins" not in parts:
        return None
    return "/".join(parts[parts.index("plugins") + 1 :])


def dropped_plugin(dest: str) -> bool:
    sub = _plugin(dest)
    return sub is not None and (sub in DROP_PLUGINS or sub.split("/")[0] in DROP_PLUGIN_DIRS)


def needed(path: str) -> list[str]:
    """The DT_NEEDED names of an ELF file (empty if it is not one)."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return [
        line.split("[", 1)[1].split("]", 1)[0] for line in out.splitlines() if "(NEEDED)" in line
    ]


def closure(roots: Iterable[str], deps: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(deps.get(name, []))
    return seen


def graph(binaries: list[Entry]) -> dict[str, list[str]]:
    """The bundle's DT_NEEDED edges, from each binary's destination to those it links to."""
    deps = {str(dest): needed(src) for dest, src, _ in binaries}
    by_base: dict[str, list[str]] = {}
    for dest in deps:
        by_base.setdefault(PurePosixPath(dest).name, []).append(dest)
    # edges by destination name, so two copies of a library stay two nodes
    return {d: [t for n in names for t in by_base.get(n, [])] for d, names in deps.items()}


def prune(binaries: list[Entry]) -> tuple[list[Entry], list[Entry]]:
    """``binaries`` without the dropped plugins and their private libraries; and the removed."""
    edges = graph(binaries)
    dropped = {d for d in edges if dropped_plugin(d)}
    linked_to = {t for targets in edges.values() for t in targets}
    # roots: extension modules, kept plugins, the executable's own libraries, and
    # anything nothing links to (loaded with dlopen)
    kept_roots = [d for d in edges if d not in dropped and d not in linked_to]
    reachable_kept = closure(kept_roots, {d: edges[d] for d in edges if d not in dropped})
    only_dropped = closure(dropped, edges) - reachable_kept
    keep = [b for b in binaries if str(b[0]) not in only_dropped]
    gone = [b for b in binaries if str(b[0]) in only_dropped]
    return keep, gone


def drop_dangling_symlinks(entries: list[Entry], present: set[str]) -> list[Entry]:
    """PyInstaller lists top-level symlinks to the Qt libraries (typecode SYMLINK, source =
    the target's bundle path): drop those whose target was left out."""
    return [e for e in entries if e[2] != "SYMLINK" or str(e[1]) in present]
