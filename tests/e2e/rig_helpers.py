"""The rig's library for the e2e tests that ask the real (tiny) model."""

from __future__ import annotations

import shutil
from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine

RIG_MODEL = "smollm2:135m"


def rig_library(root: Path, files: list[Path], host: str, **settings: object) -> Engine:
    """An engine over copies of ``files`` in ``root``, indexed, that asks the rig at
    ``host`` (timeouts for a tiny model on a shared 2-core machine, a few tokens a second);
    ``settings`` change the rest. The caller closes it."""
    docs = root / "docs"
    docs.mkdir()
    for f in files:
        shutil.copy(f, docs / f.name)
    values: dict[str, object] = {
        "data_dir": str(root / "data"),
        "extract_in_subprocess": False,
        "ollama_host": host,
        "ollama_model": RIG_MODEL,
        "llm_first_token_timeout": 600,
        "llm_total_timeout": 900,
        **settings,
    }
    eng = Engine(Settings.model_validate(values)).open()
    report = eng.index([docs])
    assert not report.failed, report.failed
    return eng
