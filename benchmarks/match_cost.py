"""What matching an answer to its passages costs, by cosine window (``Thresholds.window``).

    .venv/bin/python benchmarks/match_cost.py [--runs 7]

Matching runs in the ask worker after the stream ends (never on the GUI thread), so its
cost is the wait between the last token and the checked answer. A window of 1 embeds
each sentence of every offered passage as well as the whole passage. Prints the median
and max of ``attribute`` for a five-sentence answer against three passages of R-intro
p.11's length, per window, with the 1-minute load average.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))

from docent.core.attribution import Thresholds, attribute  # noqa: E402
from docent.core.embedding import Embedder  # noqa: E402

PASSAGE = (
    "R has an inbuilt help facility similar to the man facility of UNIX. "
    "To get more information on any specific named function, the command is help(solve). "
    "Elementary commands consist of either expressions or assignments. "
    "If an expression is given as a command, it is evaluated, printed, and the value is lost. "
    "Commands are separated either by a semi-colon or by a newline. "
    "Command lines entered at the console are limited to about 4095 bytes (not characters). "
    "Comments can be put almost anywhere, starting with a hashmark. "
    "If a command is not complete at the end of a line, R will give a different prompt."
)
ANSWER = (
    "The length of a single line written on the R console cannot exceed 4095 bytes. "
    "Commands are separated by a semi-colon. The PDP-11 has eight registers. "
    "Penguins live in the south. R gives a different prompt when a command is incomplete."
)


def load1() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    embed = Embedder().embed_dense
    embed(["warm up"])
    passages = {n: PASSAGE.replace("R ", f"R{n} ") for n in (1, 2, 3)}
    for window in (0, 1):
        seconds = []
        for _ in range(args.runs):
            started = time.perf_counter()
            attribute(ANSWER, passages, embed, thresholds=Thresholds(window=window))
            seconds.append(time.perf_counter() - started)
        print(
            f"window {window}: median {statistics.median(seconds) * 1000:.0f} ms, "
            f"max {max(seconds) * 1000:.0f} ms over {args.runs} runs; load {load1()}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
