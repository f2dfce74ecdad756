"""How the window speaks of Ollama's health (checked in workers: it may wait on the network)."""

from __future__ import annotations

from docent.core.api import Health

#: Seconds a health check may wait for Ollama to connect, and again to reply.
HEALTH_TIMEOUT = 2.0


def describe(health: Health, model: str) -> str:
    """The status bar's words for it."""
    if health.ok:
        return f"Ollama: {model}"
    if health.models:  # running, but without the model
        return f"Ollama: {model} not pulled — extractive answers"
    return "Ollama: not running — extractive answers"
