"""Frozen-app entry point: the same as the `docent` console script."""

import multiprocessing
import sys

from docent.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # the extraction worker is a spawned process
    sys.exit(main())
