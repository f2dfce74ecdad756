"""The collection selector above the library: All collections or one, and New / Rename /
Remove. The engine does the work (in workers); this bar shows ``Engine.collections()``."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from docent.core.api import ALL_COLLECTIONS, Collection, EngineAPI, Status
from docent.core.errors import CollectionError
from docent.gui.messages import bridge
from docent.gui.plain import ask
from docent.gui.workers import call_in_worker

ALL_TEXT = ALL_COLLECTIONS


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def status_text(st: Status, shown: Collection | None) -> str:
    """The status bar's count: the whole library, or the collection shown out of it (the
    states in brackets are the whole library's, the queue being one, and say so: "(2
    failed)" beside an empty collection read as its own: QA, session 27)."""
    extra = []
    if st.failed:
        extra.append(f"{st.failed:,} failed")
    if st.queued or st.indexing:
        extra.append(f"{st.queued + st.indexing:,} waiting")
    if st.cancelled:
        extra.append(f"{st.cancelled:,} cancelled")
    whose = "" if shown is None else "library: "
    tail = f" ({whose}{', '.join(extra)})" if extra else ""
    if shown is None:
        return f"{_plural(st.ready, 'document')} · {_plural(st.chunks, 'chunk')}{tail}"
    return (
        f"{shown.name}: {shown.ready:,} of {_plural(st.ready, 'document')}"
        f" · {_plural(shown.chunks, 'chunk')}{tail}"
    )


def _refused(what: str) -> Callable[[Exception], None]:
    """How a collection's make or rename that failed is said: a name refused (taken,
    unusable) as a warning that fades, anything else as an error that stays."""

    def say(exc: Exception) -> None:
        if isinstance(exc, CollectionError):
            bridge().warning(f"{what}: {exc}")
        else:
            bridge().error(f"{what}: {exc}")

    return say


def removal_question(c: Collection) -> str:
    """What removing ``c`` does, said before it is done."""
    stay = c.documents - c.exclusive
    if c.is_default:
        head = f"Empty the default collection '{c.name}'? It stays, for documents added "
        head += "with no collection."
    else:
        head = f"Remove the collection '{c.name}'?"
    return (
        f"{head}\n\n{_plural(c.exclusive, 'document')} in no other collection will leave "
        f"the library; {_plural(stay, 'document')} {'stays' if stay == 1 else 'stay'} in "
        "other collections."
        + (" Its watched folders stop being watched." if c.folders else "")
        + "\n\nNo file is deleted."
    )


class CollectionBar(QWidget):
    #: the collection shown changed (Collection, or None for all of them)
    collection_changed = Signal(object)
    #: the collections were read again (list[Collection])
    collections_changed = Signal(object)

    def __init__(self, engine: EngineAPI, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self._collections: list[Collection] = []
        self._wanted: str | None = None  # id to select once the list is read
        self._reads = 0  # reads of the collections started so far
        self._wanted_at = 0  # ... when ``_wanted`` was asked for
        self._reading = False
        self._again = False
        self.combo = QComboBox()
        self.combo.setObjectName("collectionSelector")
        self.combo.setToolTip("The collection the library shows and the chat asks")
        self.combo.setAccessibleName("Collection")
        self.combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.combo.addItem(ALL_TEXT, None)
        self.menu_button = QToolButton()
        self.menu_button.setText("Collections ▾")
        self.menu_button.setObjectName("collectionsMenu")
        self.menu_button.setAccessibleName("Collections menu")
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.menu_button)
        self.new_action = menu.addAction("New collection…", self.ask_new)
        self.rename_action = menu.addAction("Rename…", self.ask_rename)
        self.remove_action = menu.addAction("Remove…", self.ask_remove)
        self.menu_button.setMenu(menu)
        label = QLabel("Collection")
        label.setBuddy(self.combo)  # names the combo box for a screen reader
        label.setObjectName("muted")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(label)
        layout.addWidget(self.combo, 1)
        layout.addWidget(self.menu_button)
        self.combo.currentIndexChanged.connect(self._on_index_changed)
        self._update_actions()

    # State ----------------------------------------------------------------------

    @property
    def current(self) -> Collection | None:
        cid = self.combo.currentData()
        return next((c for c in self._collections if c.id == cid), None)

    @property
    def current_id(self) -> str | None:
        data = self.combo.currentData()
        return data if isinstance(data, str) else None

    @property
    def collections(self) -> list[Collection]:
        return list(self._collections)

    def select(self, collection_id: str | None) -> None:
        """Show this collection (None: all); remembered until the list has it, or a list
        read since says it is gone (removed while the window was closed)."""
        self._wanted, self._wanted_at = collection_id, self._reads
        at = self.combo.findData(collection_id) if collection_id else 0
        if at >= 0:
            self.combo.setCurrentIndex(at)

    def refresh(self) -> None:
        """Read the collections again (coalesced: one read in flight, one more after)."""
        if self._reading:
            self._again = True
            return
        self._reading, self._again = True, False
        self._reads += 1
        n = self._reads
        call_in_worker(
            self.engine.collections,
            name="collections",
            on_result=lambda found: self.show_collections(found, fresh=n > self._wanted_at),
            owner=self,  # a lambda, not a bound slot: nothing else drops it once deleted
            on_finished=self._on_read,
            error_text="Could not read the collections",
        )

    def _on_read(self) -> None:
        self._reading = False
        if self._again:
            self.refresh()

    def show_collections(self, found: list[Collection], *, fresh: bool = True) -> None:
        """``fresh``: the list was read after the collection wanted was asked for, so one
        it lacks is gone (a read begun before may lack one just made)."""
        before = self.current_id
        wanted = self._wanted if self._wanted is not None else before
        self._collections = list(found)
        self.combo.blockSignals(True)
        listed = [self.combo.itemData(i) for i in range(1, self.combo.count())]
        if listed != [c.id for c in found]:
            self.combo.clear()
            self.combo.addItem(ALL_TEXT, None)
            for c in found:
                self.combo.addItem("", c.id)
        # the same collections: their counts written in place (cleared, the list closed
        # under the mouse each time a document was indexed; the counts follow each one)
        for i, c in enumerate(found, 1):
            self.combo.setItemText(i, f"{c.name}  ({c.documents})")
            self.combo.setItemData(i, self._tooltip(c), Qt.ItemDataRole.ToolTipRole)
        at = self.combo.findData(wanted) if wanted else 0
        self.combo.setCurrentIndex(max(at, 0))
        self.combo.blockSignals(False)
        if at >= 0 or fresh:
            self._wanted = None
        self._update_actions()
        self.collections_changed.emit(self.collections)
        if self.current_id != before:
            self.collection_changed.emit(self.current)

    @staticmethod
    def _tooltip(c: Collection) -> str:
        parts = [f"{_plural(c.documents, 'document')}, {_plural(c.chunks, 'chunk')}"]
        parts += [f"watches {f}" for f in c.folders]
        return "\n".join(parts)

    def _on_index_changed(self, _: int) -> None:
        self._wanted = None  # a choice made since wins over one remembered
        self._update_actions()
        self.collection_changed.emit(self.current)

    def _update_actions(self) -> None:
        one = self.current
        self.rename_action.setEnabled(one is not None)
        self.remove_action.setEnabled(one is not None)
        self.remove_action.setText("Empty…" if one is not None and one.is_default else "Remove…")

    # Actions (the dialogs ask, these do) -----------------------------------------

    def ask_new(self) -> None:
        name, ok = QInputDialog.getText(self, "New collection", "Name of the new collection:")
        if ok and name.strip():
            self.make(name)

    def ask_rename(self) -> None:
        one = self.current
        if one is None:
            return
        name, ok = QInputDialog.getText(self, "Rename collection", "New name:", text=one.name)
        if ok and name.strip() and name.strip() != one.name:
            self.rename(one, name)

    def ask_remove(self) -> None:
        """Asked with the collection's counts read now: those of the last read said "0
        documents" of one whose files were still being added (QA-79)."""
        one = self.current
        if one is None:
            return
        engine = self.engine
        call_in_worker(
            lambda: next((c for c in engine.collections() if c.id == one.id), None),
            name="read-collection",
            on_result=self._ask_remove,
            error_text=f"Could not read '{one.name}'",
            owner=self,
        )

    def _ask_remove(self, one: Collection | None) -> None:
        if one is None:  # removed meanwhile
            self.refresh()
            return
        title = "Empty collection" if one.is_default else "Remove collection"
        if ask(self, title, removal_question(one), "Empty" if one.is_default else "Remove"):
            self.remove(one)

    def make(self, name: str) -> None:
        engine = self.engine
        call_in_worker(
            lambda: engine.create_collection(name),
            name="create-collection",
            on_result=self._on_created,
            on_error=_refused("Could not make the collection"),
        )

    def _on_created(self, made: Collection) -> None:
        bridge().info(f"Made the collection '{made.name}'; drop files here to add them.")
        self.select(made.id)
        self.refresh()

    def rename(self, one: Collection, name: str) -> None:
        """Said when done; a name refused (taken, unusable) is a warning that fades, not
        an error that stays: it stayed over the rename that followed (QA-79)."""
        engine = self.engine
        call_in_worker(
            lambda: engine.rename_collection(one.id, name),
            name="rename-collection",
            on_result=lambda done: bridge().info(f"Renamed '{one.name}' to '{done.name}'."),
            on_error=_refused(f"Could not rename '{one.name}'"),
            on_finished=self.refresh,
        )

    def remove(self, one: Collection) -> None:
        engine = self.engine
        if not one.is_default:
            self.select(None)
        call_in_worker(
            lambda: engine.submit_collection_removal(one.id),
            name="remove-collection",
            on_finished=self.refresh,
            error_text=f"Could not remove '{one.name}'",
        )
