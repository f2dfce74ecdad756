"""The settings in force and the Ollama client made from them: one owner, one lock.

``Engine.apply_settings`` is the one door for a user's change: it comes here to be
validated (``config.plan_change``), sorted into what applies live and what waits for a
restart, saved once, and put in force. The Ollama client follows the settings under the
same lock; a client it replaces may still be streaming an answer on a worker, so it is
closed with the engine, not at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from docent.core import files as filemod
from docent.core.config import (
    RESTART_KEYS,
    Settings,
    SettingsChange,
    plan_change,
    saved_value,
    update_settings_file,
)
from docent.core.errors import SettingsError
from docent.core.userfiles import inside

if TYPE_CHECKING:
    from docent.core.llm import Health, OllamaClient

LLMFactory = Callable[[Settings], "OllamaClient"]


def _saved_folders(before: list[str], after: list[str]) -> list[str]:
    """The settings file's watched folders with the change from ``before`` to ``after``
    (the folders in force) made to them: folders a DOCENT_WATCHED_FOLDERS override put in
    force are not saved with the change (they were, and stayed watched once it was gone:
    review)."""
    gone = set(before) - set(after)
    own = saved_value("watched_folders")
    kept = [str(f) for f in own if str(f) not in gone] if isinstance(own, list) else []
    return kept + [f for f in after if f not in before and f not in kept]


#: Settings that make a new Ollama client when they change.
LLM_KEYS = (
    "ollama_host",
    "ollama_model",
    "llm_connect_timeout",
    "llm_first_token_timeout",
    "llm_total_timeout",
)


def ollama_client(settings: Settings) -> OllamaClient:
    from docent.core.llm import OllamaClient

    return OllamaClient.from_settings(settings)


def _llm_key(s: Settings) -> tuple[object, ...]:
    return (
        s.effective_ollama_host(),
        s.ollama_model,
        s.llm_connect_timeout,
        s.llm_first_token_timeout,
        s.llm_total_timeout,
    )


class LiveSettings:
    def __init__(self, settings: Settings, make_llm: LLMFactory | None = None) -> None:
        self._settings = settings
        #: What is saved: ``_settings`` but for changes that wait for a restart.
        self._wanted = settings
        self._make_llm = make_llm or ollama_client
        self._lock = threading.RLock()
        self._llm: OllamaClient | None = None
        self._llm_key: tuple[object, ...] = ()
        self._retired: list[OllamaClient] = []

    @property
    def settings(self) -> Settings:
        """A snapshot: replaced when they change, never changed in place by the engine."""
        return self._settings

    @property
    def wanted(self) -> Settings:
        """The settings as saved: those in force, and those waiting for a restart."""
        return self._wanted

    def replace(self, new: Settings) -> None:
        """Put ``new`` in force without saving it (tests, tools)."""
        with self._lock:
            self._settings = self._wanted = new

    @property
    def llm(self) -> OllamaClient:
        """The Ollama client for the settings in force (made anew when they changed)."""
        with self._lock:
            key = _llm_key(self._settings)
            if self._llm is None or key != self._llm_key:
                if self._llm is not None:
                    self._retired.append(self._llm)
                self._llm, self._llm_key = self._make_llm(self._settings), key
            return self._llm

    def probe(self, settings: Settings, timeout: float) -> Health:
        """Ollama as ``settings`` describe it, with a client of its own; never raises."""
        client = self._make_llm(settings)
        try:
            return client.health(timeout)
        finally:
            client.close()

    # Changing them ----------------------------------------------------------

    def apply(self, changes: Mapping[str, object]) -> SettingsChange:
        """Validate, save once what changed, put the live part in force and swap the
        client if its settings changed. SettingsError (naming the key) changes nothing.

        Changes are weighed against what is saved, not what runs: a restart-only change
        (OCR off) undone before the restart was "no change" against the running value,
        never saved, and the next start ran with the value undone (QA-79). ``restart``:
        the changed keys whose saved value is not the running one."""
        with self._lock:
            values = dict(changes)
            folders = values.get("watched_folders")
            if isinstance(folders, list):
                values["watched_folders"] = self._checked_folders(folders)
            plan = plan_change(self._wanted, values)
            if plan.changed:
                saved = {k: getattr(plan.wanted, k) for k in plan.changed}
                if "watched_folders" in saved:
                    before = self._settings.watched_folders
                    saved["watched_folders"] = _saved_folders(before, saved["watched_folders"])
                self._persist(saved)
                self._wanted = plan.wanted
                live = {k: getattr(plan.wanted, k) for k in plan.changed if k not in RESTART_KEYS}
                self._settings = self._settings.model_copy(update=live)
                key = _llm_key(self._settings)
                if self._llm is not None and key != self._llm_key:
                    self._retired.append(self._llm)
                    self._llm, self._llm_key = self._make_llm(self._settings), key
            waiting = [
                k for k in plan.restart if getattr(plan.wanted, k) != getattr(self._settings, k)
            ]
            return SettingsChange(plan.wanted, self._settings, plan.changed, waiting)

    def change_folders(self, change: Callable[[list[str]], list[str]]) -> list[str]:
        """The watched folders changed by ``change`` (given the current ones, it returns
        the new list or raises), saved and put in force under the lock: a watch and an
        unwatch at once on two workers each see the other's change. Returns the new list."""
        with self._lock:
            before = list(self._settings.watched_folders)
            after = change(before)
            if after != before:
                self._persist({"watched_folders": _saved_folders(before, after)})
                self._settings = self._settings.model_copy(update={"watched_folders": after})
                self._wanted = self._wanted.model_copy(update={"watched_folders": after})
            return after

    def _persist(self, values: Mapping[str, object]) -> None:
        """Write ``values`` to the settings file, only them: DOCENT_* overrides stay out."""
        try:
            update_settings_file(values)
        except OSError as exc:
            raise SettingsError(f"The settings could not be saved: {exc}") from exc

    def _checked_folders(self, folders: list[object]) -> list[str]:
        """The watched folders normalised; a new one must exist, lie outside the data
        folder and not inside another watched folder (SettingsError otherwise), and
        replaces the watched folders inside it, as ``Engine.watch`` does (both watched,
        each file would have two observers and two sweeps)."""
        from docent.core.watching import WatchError, plan_watch

        current = self._settings.watched_folders
        out = list(dict.fromkeys(str(filemod.normalise(str(raw))) for raw in folders))
        for folder in out:
            if folder in current:
                continue
            try:
                plan_watch([f for f in out if f != folder], folder, self._settings.data_path)
            except WatchError as exc:
                raise SettingsError(
                    f"setting 'watched_folders': {exc}", {"watched_folders": str(exc)}
                ) from exc
        return [f for f in out if not any(f != o and inside(f, o) for o in out)]

    def close(self) -> None:
        with self._lock:
            for client in [*self._retired, *([self._llm] if self._llm else [])]:
                client.close()
            self._llm, self._retired = None, []
