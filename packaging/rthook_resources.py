"""PyInstaller runtime hook: point Docent at the resources bundled next to the app."""

import os
import sys

os.environ.setdefault("DOCENT_RESOURCES", os.path.join(getattr(sys, "_MEIPASS", ""), "resources"))
