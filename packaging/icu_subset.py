"""Rebuild Qt's ICU data library without the data Qt never reads (used by docent.spec;
Linux only).

PySide6's wheel ships libicudata.so.73, 32 MB: one ICU "common data" package holding
every locale's collation, time zone names, converters, and also the display names of
languages, regions, currencies and units, number spell-out rules, transliterators and
break-iterator dictionaries. Qt 6 calls only ICU's case mapping (its tables are inside
libicuuc), converters (ucnv_*), collation (ucol_*) and time-zone names (ucal_*):
`make dist` checks that list against the ICU functions the bundle's libraries import
(`unknown_calls`) and stops if it ever grows. The trees only other ICU services read are
left out of the package, and the library is rebuilt with the same soname and symbol.
"""

from __future__ import annotations

import re
import struct
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from stub_libs import dynamic_symbols, soname

#: Trees of the package no function Qt calls reads: language, region, currency and unit
#: display names, number spell-out rules (rbnf), transliterators, break iterators.
DROP_TREES = ("brkitr", "curr", "lang", "rbnf", "region", "translit", "unit")
#: Single items likewise: Unicode character names (u_charName).
DROP_ITEMS = ("unames.icu",)
Keep = Callable[[str], bool]

#: The ICU API families Qt calls, whose data stays (prefixes of the function names).
KNOWN_CALLS = ("u_strToLower", "u_strToUpper", "ucal_", "ucnv_", "UCNV_", "ucol_")


def kept(item: str) -> bool:
    """Whether a package item (``icudt73l/lang/de.res``) stays."""
    parts = PurePosixPath(item).parts
    if len(parts) > 2 and parts[1] in DROP_TREES:
        return False
    return parts[-1] not in DROP_ITEMS


def items(blob: bytes) -> list[tuple[str, bytes]]:
    """The (name, data) items of an ICU common data package, in its (sorted) order."""
    header = struct.unpack_from("<H", blob, 0)[0]
    if blob[2:4] != b"\xda\x27":
        raise ValueError("not an ICU data package")
    toc = blob[header:]
    count = struct.unpack_from("<I", toc, 0)[0]
    entries = [struct.unpack_from("<II", toc, 4 + 8 * i) for i in range(count)]
    out = []
    for i, (name_at, data_at) in enumerate(entries):
        end = entries[i + 1][1] if i + 1 < count else len(toc)
        name = toc[name_at : toc.index(b"\0", name_at)].decode("ascii")
        out.append((name, toc[data_at:end]))
    return out


def _pad16(n: int) -> int:
    return (n + 15) & ~15


def package(blob: bytes, keep: Keep) -> bytes:
    """The package ``blob`` with only the items ``keep`` accepts (same header, items 16-aligned
    as ICU expects, names still sorted for its binary search)."""
    header_size = struct.unpack_from("<H", blob, 0)[0]
    chosen = [(n, d) for n, d in items(blob) if keep(n)]
    names = b"".join(n.encode("ascii") + b"\0" for n, _ in chosen)
    names_at = 4 + 8 * len(chosen)
    data_at = _pad16(names_at + len(names))
    toc = bytearray(struct.pack("<I", len(chosen)))
    body = bytearray()
    name_off = names_at
    for name, data in chosen:
        toc += struct.pack("<II", name_off, data_at + len(body))
        name_off += len(name) + 1
        body += data + b"\0" * (_pad16(len(data)) - len(data))
    toc += names + b"\0" * (data_at - names_at - len(names))
    return blob[:header_size] + bytes(toc) + bytes(body)


def data_symbol(lib: Path) -> tuple[str, bytes]:
    """The name and bytes of the data symbol (``icudt73_dat``) the library exports."""
    syms = subprocess.run(
        ["readelf", "--dyn-syms", "-W", str(lib)], capture_output=True, text=True, check=True
    ).stdout
    m = re.search(
        r"\s([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+OBJECT\s+GLOBAL\s+\w+\s+\d+\s+(icudt\d+_dat)", syms
    )
    if not m:
        raise ValueError(f"{lib} exports no icudt*_dat")
    value, size, name = int(m.group(1), 16), int(m.group(2), 0), m.group(3)
    sections = subprocess.run(
        ["readelf", "-S", "-W", str(lib)], capture_output=True, text=True, check=True
    ).stdout
    for line in sections.splitlines():
        s = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if s:
            addr, offset, length = (int(s.group(i), 16) for i in (2, 3, 4))
            if addr <= value < addr + length:
                with lib.open("rb") as f:
                    f.seek(value - addr + offset)
                    return name, f.read(size)
    raise ValueError(f"{lib}: {name} is in no section")


def unknown_calls(undefined: Iterable[str], version: str) -> set[str]:
    """The ICU functions among ``undefined`` (``ucol_open_73`` for version "73") outside
    KNOWN_CALLS: a Qt that calls more of ICU may need a dropped tree."""
    icu = {s for s in undefined if s.endswith(f"_{version}")}
    return {s for s in icu if not s.startswith(KNOWN_CALLS)}


def build(lib: Path, out_dir: Path, keep: Keep = kept) -> tuple[Path, int, int]:
    """A copy of the ICU data library ``lib`` with only the items ``keep`` accepts, compiled
    into ``out_dir``; with its size before and after (bytes of data)."""
    symbol, blob = data_symbol(lib)
    small = package(blob, keep)
    out_dir.mkdir(parents=True, exist_ok=True)
    dat = out_dir / f"{symbol}.dat"
    dat.write_bytes(small)
    asm = out_dir / f"{symbol}.S"
    asm.write_text(
        f"\t.section .rodata\n\t.globl {symbol}\n\t.type {symbol}, @object\n\t.balign 16\n"
        f'{symbol}:\n\t.incbin "{dat}"\n\t.size {symbol}, {len(small)}\n'
        '\t.section .note.GNU-stack,"",@progbits\n'
    )
    out = out_dir / lib.name
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-nostdlib",
            "-s",
            "-o",
            str(out),
            str(asm),
            f"-Wl,-soname,{soname(str(lib))}",
        ],
        check=True,
    )
    return out, len(blob), len(small)


def slim_icu(binaries: list[tuple], out_dir: Path) -> list[tuple]:
    """PyInstaller's binaries with Qt's ICU data library replaced by the smaller build;
    the build stops if a library of the bundle calls ICU beyond KNOWN_CALLS."""
    data = [
        e for e in binaries if re.fullmatch(r"libicudata\.so\.\d+", PurePosixPath(str(e[0])).name)
    ]
    if not data:
        return binaries
    version = PurePosixPath(str(data[0][0])).name.rsplit(".", 1)[1]
    undefined: set[str] = set()
    for dest, src, kind in binaries:
        # ICU's own libraries call each other; what matters is what the rest calls
        if kind != "SYMLINK" and not PurePosixPath(str(dest)).name.startswith("libicu"):
            undefined |= {n for n, ndx, *_ in dynamic_symbols(str(src)) if ndx == "UND"}
    unknown = unknown_calls(undefined, version)
    if unknown:
        raise SystemExit(
            f"icu_subset: the bundle calls ICU functions whose data may be left out: {sorted(unknown)}"
        )
    out = []
    for entry in binaries:
        if entry in data:
            small, before, after = build(Path(entry[1]), out_dir)
            print(f"icu: {entry[0]}: {before / 1e6:.1f} MB of data -> {after / 1e6:.1f} MB")
            entry = (entry[0], str(small), entry[2])
        out.append(entry)
    return out
