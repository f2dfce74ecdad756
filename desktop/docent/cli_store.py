"""`docent copy-store`: move a library between the embedded store and a Qdrant server."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from docent.cli_json import print_json
from docent.core.userfiles import shown

if TYPE_CHECKING:
    from docent.core.engine import Engine
    from docent.core.store_copy import CopyProgress, CopyReport

OpenEngine = Callable[[], "Engine"]
AddCommand = Callable[..., argparse.ArgumentParser]

HELP = "copy the library's passages to a Qdrant server, or back (no re-embedding)"
TARGET_HELP = (
    "a Qdrant server URL such as https://qdrant.example.org:6333 (its API key, CA file, "
    "timeout, shards and replicas come from the qdrant_* settings), or 'embedded': the "
    "store under the data folder"
)


def add_command(add: AddCommand, open_engine: OpenEngine) -> None:
    sp = add("copy-store", lambda args: cmd_copy_store(args, open_engine), HELP)
    sp.add_argument("target", help=TARGET_HELP)
    sp.add_argument(
        "--use", action="store_true", help="then use it: save qdrant_url in the settings"
    )
    sp.add_argument(
        "--prune",
        action="store_true",
        help="delete from the target the documents this library does not know",
    )
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


class _Progress:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def __call__(self, p: CopyProgress) -> None:
        if self.quiet:
            return
        what = "already there" if p.already else "copied"
        so_far = f"{p.points} passage{'' if p.points == 1 else 's'} so far"
        print(
            f"[{p.done}/{p.total}] {what}: {shown(p.file_name)} ({so_far})",
            file=sys.stderr,
            flush=True,
        )


def cmd_copy_store(args: argparse.Namespace, open_engine: OpenEngine) -> int:
    from docent.core.config import redact_url, settings_file
    from docent.core.store_copy import EMBEDDED

    target = args.target.strip()
    try:
        with open_engine() as eng:
            report = eng.copy_store(target, progress=_Progress(args.quiet), prune=args.prune)
            if args.use:
                eng.apply_settings({"qdrant_url": "" if target == EMBEDDED else target})
    except KeyboardInterrupt:
        print(
            "\nStopped; what was copied is kept. Run the same command to go on.",
            file=sys.stderr,
        )
        return 130
    where = "the embedded store" if target == EMBEDDED else redact_url(target)
    if args.json:
        _print_json(report, where, args.use)
        return 0
    pruned = f", {report.pruned} unknown deleted" if report.pruned else ""
    print(
        f"copied {len(report.copied)} documents ({report.points} passages, nothing "
        f"re-embedded), {len(report.already)} already there{pruned}, in "
        f"{report.seconds:.1f} s to {where}"
    )
    if args.use:
        print(f"Docent now uses {where} (saved in {settings_file()}).")
    else:
        value = "" if target == EMBEDDED else target
        print(
            f'To use it: set qdrant_url = "{value}" in {settings_file()}, or run this '
            "again with --use."
        )
    return 0


def _print_json(report: CopyReport, where: str, used: bool) -> None:

    data: dict[str, Any] = {
        "target": where,
        "documents": report.documents,
        "copied": report.copied,
        "already": report.already,
        "points": report.points,
        "pruned": report.pruned,
        "seconds": round(report.seconds, 3),
        "used": used,
    }
    print_json(data)
