"""Strip the symbol tables of the bundle's ELF files, where that is safe (`make dist`).

    python packaging/strip_bundle.py dist/docent

Most of libpython, the Rust extensions (qdrant-edge, tokenizers, cryptography) and several
C extensions ship with their full symbol tables: ~45 MB that nothing reads at run time
(``strip --strip-unneeded`` keeps the dynamic symbols). PyInstaller's own ``strip=True``
cannot be used: files that auditwheel rewrote with patchelf (numpy's OpenBLAS, for one)
come out of ``strip`` with load segments the loader refuses ("ELF load command
address/offset not page-aligned"). So each file is stripped to a copy, the copy's
loadable segments are checked, and it replaces the original only if they are sound.
``make dist-check`` then has the dynamic loader map every library of the bundle.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

PAGE = 4096
PT_LOAD = 1


def is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == b"\x7fELF"


def segments_sound(path: Path) -> bool:
    """Every PT_LOAD segment's file offset and address agree modulo the page and its align."""
    data = path.read_bytes()
    if data[4] != 2 or data[5] != 1:  # only 64-bit little-endian is built here
        return False
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz, _memsz, p_align = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize
        )
        if p_type != PT_LOAD:
            continue
        if p_offset % PAGE != p_vaddr % PAGE:
            return False
        if p_align > 1 and p_offset % p_align != p_vaddr % p_align:
            return False
        if p_offset + p_filesz > len(data):
            return False
    return True


def main() -> int:
    root = Path(sys.argv[1])
    saved = stripped = refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stripped"
        for path in sorted(root.rglob("*")):
            if path.is_symlink() or not path.is_file() or not is_elf(path):
                continue
            before = path.stat().st_size
            run = subprocess.run(
                ["strip", "--strip-unneeded", "-o", str(out), str(path)], capture_output=True
            )
            if run.returncode != 0 or not out.exists():
                continue
            after = out.stat().st_size
            if after >= before:
                out.unlink()
                continue
            if not segments_sound(out):
                refused += 1
                print(
                    f"strip: left as shipped (unsound segments after strip): {path.relative_to(root)}"
                )
                out.unlink()
                continue
            mode = path.stat().st_mode
            shutil.move(out, path)
            os.chmod(path, mode)
            saved += before - after
            stripped += 1
    print(
        f"strip: {stripped} files stripped, {saved / 1e6:.1f} MB saved; {refused} left as shipped"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
