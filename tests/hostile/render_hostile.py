"""Child process of test_content_never_acts.py: draw hostile answers, quotes and names.

Run in its own process, so that if Qt ever reads the FIFO at the image path (which
blocks until a writer comes) the parent's timeout ends the test instead of a hang.
Argument: the folder holding ``pic.png`` (a real image) and ``pipe.png`` (a FIFO); it is
also the working directory, so relative image paths point there too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"
folder = Path(sys.argv[1])
os.chdir(folder)
os.environ["DOCENT_HOME"] = str(folder / "home")

from PySide6.QtWidgets import QApplication  # noqa: E402

from docent.core.api import Answer  # noqa: E402
from docent.core.config import load_settings  # noqa: E402
from docent.core.engine import Engine  # noqa: E402
from docent.gui.chat_pane import ChatPane  # noqa: E402

pic, pipe = folder / "pic.png", folder / "pipe.png"
HOSTILE = (
    f"See ![a]({pic}) and ![b](file://{pic}) and ![c](pic.png) and ![d](pipe.png) "
    f"and ![e][ref] and [a link](file://{pic}) and <img src='{pipe}'> [1].\n\n[ref]: {pipe}\n"
)
QUOTED = "[1] notes.txt, p.1:\n> [click here](https://evil.example/?q=secret) " + HOSTILE

app = QApplication([])
engine = Engine(load_settings(extract_in_subprocess=False)).open()
pane = ChatPane(engine)
pane.resize(900, 700)
pane.show()

pane.conversation.add("what is in the picture?", "", Answer("q", HOSTILE, "generated"))
pane.conversation.add("where is the secret?", "", Answer("q", QUOTED, "extractive"))
pane.redraw()
pane.set_scope([str(folder / "<img src='pipe.png'>.pdf"), str(folder / "<b>bold.pdf")])
pane.grab()  # lays out and paints everything: images would be loaded now
app.processEvents()

doc = pane.view.document()
hrefs = []
block = doc.begin()
while block.isValid():
    it = block.begin()
    while not it.atEnd():
        fmt = it.fragment().charFormat()
        if fmt.isAnchor():
            hrefs.append(fmt.anchorHref())
        if fmt.isImageFormat():
            hrefs.append("image:" + fmt.toImageFormat().name())
        it += 1
    block = block.next()
shown = doc.toPlainText()
print("HREFS", sorted(set(hrefs)))
print("QUOTE_AS_TEXT", "[click here](https://evil.example/?q=secret)" in shown)
print("SCOPE_PLAIN", pane.scope_label.textFormat().name, pane.scope_label.text())
engine.close()
print("DONE")
