"""Where the app finds its resources, whichever way it was installed."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from docent.core import config

REPO = Path(__file__).resolve().parents[2]
#: What runs need; screenshots are the README's.
RUNTIME = ("models", "samples", "icons", "style")


def test_the_bundle_setting_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCENT_RESOURCES", str(tmp_path))
    assert config.resources_dir() == tmp_path


def test_a_clone_uses_its_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCENT_RESOURCES", raising=False)
    assert config.resources_dir() == REPO / "resources"


def test_an_installed_package_uses_the_data_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DOCENT_RESOURCES", raising=False)
    monkeypatch.setattr(config, "REPO_ROOT", tmp_path / "site-packages-parent")
    assert config.resources_dir() == Path(sys.prefix) / "share" / "docent" / "resources"


def test_pip_install_ships_every_runtime_resource() -> None:
    """pyproject's data-files list every file a run needs, each under its own folder."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped: set[str] = set()
    for target, patterns in data["data-files"].items():
        for pattern in patterns:
            for f in REPO.glob(pattern):
                if f.is_file():
                    rel = f.relative_to(REPO / "resources").parent.as_posix()
                    assert target == f"share/docent/resources/{rel}".rstrip("/."), f
                    shipped.add(f.relative_to(REPO).as_posix())
    needed = {
        f.relative_to(REPO).as_posix()
        for sub in RUNTIME
        for f in (REPO / "resources" / sub).rglob("*")
        if f.is_file()
    }
    assert needed - shipped == set()
