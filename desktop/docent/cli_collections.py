"""`docent collections` and `docent collection create|rename|remove`, and the
``--collection NAME`` option the other commands share."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from docent.cli_json import print_json
from docent.core.userfiles import shown

if TYPE_CHECKING:
    from docent.core.engine import Engine
    from docent.core.indexer import IndexReport
    from docent.core.models import Collection

Command = Callable[[argparse.Namespace], int]
OpenEngine = Callable[[], "Engine"]


def add_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--collection", metavar="NAME", default=None, help=f"{what} (see `docent collections`)"
    )


def chosen(eng: Engine, args: argparse.Namespace) -> str | None:
    """The id of the collection ``--collection`` names (None: all); UnknownCollection
    (exit 2) lists the existing ones."""
    name = getattr(args, "collection", None)
    return eng.collection(name).id if name else None


def made(eng: Engine, args: argparse.Namespace) -> str | None:
    """Like ``chosen``, but a new name makes the collection (index, watch DIR)."""
    name = getattr(args, "collection", None)
    if not name:
        return None
    known = {c.id for c in eng.collections()}
    made = eng.ensure_collection(name)
    if made.id not in known:  # a typo made one too, and said nothing (QA-77)
        print(f"Made the collection {shown(made.name)}.", file=sys.stderr)
    return made.id


def _names(ids: list[str], names: dict[str, str]) -> list[str]:
    return sorted(names.get(c, c) for c in ids)


def regrouped_dict(report: IndexReport, names: dict[str, str]) -> dict[str, Any]:
    """``docent index --json``'s documents that changed collection and embedded nothing."""
    return {
        "regrouped": [
            {"path": path, "collections": _names(ids, names)} for path, ids in report.regrouped
        ]
    }


def print_regrouped(report: IndexReport, names: dict[str, str]) -> None:
    for path, ids in report.regrouped:
        now = ", ".join(_names(ids, names))
        print(f"  {shown(path)}: now in {now} (nothing re-embedded)")


def as_dict(c: Collection) -> dict[str, Any]:
    return {
        "name": c.name,
        "default": c.is_default,
        "documents": c.documents,
        "ready": c.ready,
        "chunks": c.chunks,
        "only_here": c.exclusive,
        "watched_folders": list(c.folders),
    }


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _stay(n: int) -> str:
    return f"{n} {'stays' if n == 1 else 'stay'}"


def cmd_collections(args: argparse.Namespace, open_engine: OpenEngine) -> int:
    with open_engine() as eng:
        found = eng.collections()
    if args.json:
        print_json([as_dict(c) for c in found])
        return 0
    for c in found:
        mark = " (default)" if c.is_default else ""
        print(
            f"{c.name + mark:32.32} {plural(c.documents, 'document'):>14} "
            f"{c.ready:>6} ready {c.chunks:>8} chunks {c.exclusive:>6} only here"
        )
        for folder in c.folders:
            print(f"    watches {folder}")
    return 0


def cmd_create(args: argparse.Namespace, open_engine: OpenEngine) -> int:
    with open_engine() as eng:
        made_ = eng.create_collection(args.name)
    if args.json:
        print_json(as_dict(made_))
    else:
        print(f"made the collection '{made_.name}'")
    return 0


def cmd_rename(args: argparse.Namespace, open_engine: OpenEngine) -> int:
    with open_engine() as eng:
        old = eng.collection(args.old)
        new = eng.rename_collection(old.id, args.new)
    if args.json:
        print_json({"from": old.name, **as_dict(new)})
    else:
        print(f"renamed the collection '{old.name}' to '{new.name}'")
    return 0


def cmd_remove(args: argparse.Namespace, open_engine: OpenEngine) -> int:
    with open_engine() as eng:
        target = eng.collection(args.name)
        if not args.yes and not _confirmed(target):
            return 2
        report = eng.remove_collection(target.id)
    kept = target.documents - len(report.removed)
    if args.json:
        print_json(
            {
                "collection": target.name,
                "removed_from_index": report.removed,
                "kept_in_other_collections": kept,
                "cancelled": report.cancelled,
            }
        )
        return 0
    what = "emptied the default collection" if target.is_default else "removed the collection"
    print(
        f"{what} '{target.name}': {plural(len(report.removed), 'document')} left the index, "
        f"{_stay(kept)} in other collections; no file was deleted"
    )
    for folder in target.folders:  # they stopped with it, as the confirmation said (QA, 27)
        print(f"stopped watching {shown(folder)}")
    return 0


def _confirmed(target: Collection) -> bool:
    leave = "leaves" if target.exclusive == 1 else "leave"
    head = (
        f"Empty the default collection '{target.name}' (it stays)?"
        if target.is_default
        else f"Remove the collection '{target.name}'?"
    )
    question = (
        f"{head} {plural(target.exclusive, 'document')} in "
        f"no other collection {leave} the index, {_stay(target.documents - target.exclusive)} "
        "in other collections; no file is deleted."
        + (
            " Its watched folders stop being watched: "
            + ", ".join(shown(f) for f in target.folders)
            + "."
            if target.folders
            else ""
        )
    )
    if not sys.stdin.isatty():
        print(
            f"docent: {question} Nothing was done: confirm with --yes.",
            file=sys.stderr,
        )
        return False
    # The question goes to stderr: on stdout it came before `--json`'s answer, and
    # `docent collection remove Work --json | jq .` got no JSON.
    print(question + " [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        print("Nothing was removed.", file=sys.stderr)
        return False
    return True


def add_commands(
    sub: Any,
    add: Callable[[str, Command, str], argparse.ArgumentParser],
    open_engine: OpenEngine,
) -> None:
    """Register the commands; ``add`` is cli.build_parser's helper."""

    def bound(func: Callable[[argparse.Namespace, OpenEngine], int]) -> Command:
        return lambda args: func(args, open_engine)

    add("collections", bound(cmd_collections), "list the collections with their counts")
    group = sub.add_parser(
        "collection",
        help="make, rename or remove a collection",
        description="make, rename or remove a collection (never a file)",
    )
    actions = group.add_subparsers(dest="action", required=True)

    def action(name: str, func: Command, help_: str) -> argparse.ArgumentParser:
        sp = actions.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        sp.add_argument("--json", action="store_true", help="machine-readable output")
        return sp

    sp = action("create", bound(cmd_create), "make an empty collection")
    sp.add_argument("name")
    sp = action("rename", bound(cmd_rename), "rename a collection (nothing is re-indexed)")
    sp.add_argument("old")
    sp.add_argument("new")
    sp = action(
        "remove",
        bound(cmd_remove),
        "remove a collection: its documents in no other collection leave the index; "
        "files are never deleted",
    )
    sp.add_argument("name")
    sp.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
