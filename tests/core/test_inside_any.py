"""``inside_any``: a path under any of many folders, by one look-up per folder level (the
queue settles a removal of thousands of paths with it: review 82). It answers as
``inside`` asked of each folder in turn."""

from __future__ import annotations

import os
import random

from docent.core.userfiles import folder_set, inside, inside_any


def test_inside_any_is_inside_asked_of_each_folder() -> None:
    rng = random.Random(82)
    parts = ["lib", "lib2", "a", "a b", "notes", "notes.md", "x"]

    def path() -> str:
        return os.sep + os.sep.join(rng.choice(parts) for _ in range(rng.randint(1, 4)))

    for _ in range(300):
        folders = [path() for _ in range(rng.randint(1, 5))]
        folders += [f + os.sep for f in folders[:1]]  # written with its separator too
        gone = folder_set(folders)
        for _ in range(20):
            p = path()
            assert inside_any(p, gone) == any(inside(p, f) for f in folders), (p, folders)


def test_edges() -> None:
    gone = folder_set([f"{os.sep}lib{os.sep}notes"])
    assert inside_any(f"{os.sep}lib{os.sep}notes", gone)
    assert inside_any(f"{os.sep}lib{os.sep}notes{os.sep}a.md", gone)
    assert not inside_any(f"{os.sep}lib{os.sep}notes.md", gone)  # a sibling, not inside
    assert not inside_any(f"{os.sep}lib", gone)
    assert inside_any(f"{os.sep}anything", folder_set([os.sep]))  # the root holds all
