"""How the window speaks of Ollama and the chosen model, in one place, so the status bar
and the chat's banner never disagree (both read the same health check of the same model:
the settings' ``ollama_model``, which the chat's model box changes).

Health is checked in workers: it may wait on the network.
"""

from __future__ import annotations

from docent.core.api import Answer, Health
from docent.core.errors import ANSWERS_EXTRACTIVE

#: Seconds a health check may wait for Ollama to connect, and again to reply.
HEALTH_TIMEOUT = 2.0


def describe(health: Health, model: str) -> str:
    """The status bar's words for it."""
    if health.ok:
        return f"Ollama: {model}"
    if health.models:  # running, but without the model
        return f"Ollama: {model} not installed — quoting passages"
    return "Ollama: not running — quoting passages"


def banner(health: Health | None, model: str, last: Answer | None) -> tuple[str, bool]:
    """The chat's banner for this health and the last answer: (text, offer Retry).
    ("", False): no banner. The text names what the status bar names."""
    extractive = last is not None and last.mode == "extractive"
    if health is None:  # not checked yet: say nothing the status bar does not say
        return "", False
    if not health.ok:
        if health.models:
            what = f"{model} is not installed in Ollama: run `ollama pull {model}` or pick another model."
        else:
            # Its message may already say what answers are meanwhile ("(answers are
            # extractive until then)"): said once, in the banner's words.
            what = health.message.replace(ANSWERS_EXTRACTIVE, "")
            what = what or "Ollama is not running."
        return f"{what} Meanwhile, answers quote the best passages.", extractive
    if extractive and last is not None and last.too_long:  # the answer says why; Retry won't do
        return "", False
    if extractive and last is not None and last.cut:  # it answered, with nothing usable
        return (
            f"Ollama is running with {model}, but its last answer could not be used, so "
            "passages are quoted. Retry to ask it again, or choose a larger model.",
            True,
        )
    if extractive:
        return (
            f"Ollama is running with {model}. The last answer only quotes passages; "
            "Retry to have the model write one.",
            True,
        )
    return "", False
