"""Is a language model there? Called from workers only (each call may wait on the network)."""

from __future__ import annotations

from typing import Any

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.llm import Health

HEALTH_TIMEOUT = 2.0


def check_health(settings: Settings) -> Health:
    """Ollama as these (maybe unsaved) settings describe it; never raises."""
    return Engine.probe_llm(settings, HEALTH_TIMEOUT)


def engine_health(engine: Engine) -> Health:
    eng: Any = engine
    if hasattr(eng, "llm_health"):
        health: Health = eng.llm_health()
        return health
    return check_health(engine.settings)


def engine_models(engine: Engine, health: Health | None = None) -> list[str]:
    """Installed models, for the model picker ([] when Ollama is down)."""
    eng: Any = engine
    if hasattr(eng, "list_models"):
        try:
            return [str(m) for m in eng.list_models()]
        except Exception:  # noqa: BLE001 - down is an answer here, not an error
            return []
    return list(health.models) if health else []


def describe(health: Health, model: str) -> str:
    """The status bar's words for it."""
    if health.ok:
        return f"Ollama: {model}"
    if health.models:  # running, but without the model
        return f"Ollama: {model} not pulled — extractive answers"
    return "Ollama: not running — extractive answers"
