"""OCR of PDF pages that have no usable text layer: render with pypdfium2, read with
RapidOCR (PP-OCR models on onnxruntime), put the lines in reading order (ocr_layout.py).

Why RapidOCR: it installs from pip alone (its wheel ships the PP-OCRv6 detection and
recognition models; onnxruntime is already here for the embedder) and, on the corpus
scans, it reads more characters right than tesseract (``benchmarks/ocr_formats.py``).
The models are loaded from the wheel's own folder by path, so nothing is ever fetched.

Runs in the extraction worker process: the engine is built once, on the first page that
needs it, and kept for the next files. onnxruntime gets one thread: the worker is the
"second core", the parent process embeds on the rest.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docent.core.ocr_layout import PageLayout, RawLine, reading_order

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

#: Pages are rendered at this resolution, unless their long side would pass MAX_SIDE_PX.
RENDER_DPI = 300
#: RapidOCR shrinks larger images to 2,000 px anyway; rendering bigger only costs time.
MAX_SIDE_PX = 2000
#: Text lines are found on the page image shrunk to this long side (then read at full size).
DETECT_SIDE_PX = 1280
#: Lines recognised with less confidence than this are dropped (RapidOCR's default).
MIN_SCORE = 0.5
OCR_THREADS = 1

#: A page with fewer visible characters than this has no text layer to speak of.
MIN_PAGE_CHARS = 20
#: Share of a page's characters that, when unreadable, make its text layer garbage.
GARBAGE_SHARE = 0.3
_CID = re.compile(r"\(cid:\d+\)")


class OcrUnavailable(RuntimeError):
    """The OCR engine cannot be loaded (its package or models are missing)."""


@dataclass(frozen=True, slots=True)
class OcrResult:
    layout: PageLayout
    seconds: float


def needs_ocr(raw_text: str, has_images: bool) -> bool:
    """Whether a PDF page's own text layer is too poor to use.

    ``raw_text``: what the PDF's text layer gave, before cleaning. A page with next to no
    text is read when it shows an image (a blank page is not worth a second); a page
    whose text is mostly glyph codes, replacement or private-use characters (fonts
    without a Unicode map) is read whatever it shows.
    """
    visible = [ch for ch in raw_text if not ch.isspace()]
    if len(visible) < MIN_PAGE_CHARS:
        return has_images
    return garbage_share(raw_text) >= GARBAGE_SHARE


def garbage_share(raw_text: str) -> float:
    """The share of a text's visible characters that carry no readable text."""
    cid_chars = sum(len(m) for m in _CID.findall(raw_text))
    rest = _CID.sub("", raw_text)
    visible = [ch for ch in rest if not ch.isspace()]
    bad = sum(1 for ch in visible if ch == "\ufffd" or unicodedata.category(ch) in ("Co", "Cn"))
    total = len(visible) + cid_chars
    return (bad + cid_chars) / total if total else 0.0


def models_dir() -> Path:
    """The PP-OCR models shipped inside the rapidocr wheel."""
    try:
        import rapidocr
    except ImportError as exc:
        raise OcrUnavailable(f"the OCR package is not installed ({exc})") from exc
    return Path(rapidocr.__file__).parent / "models"


class OcrEngine:
    """RapidOCR with the wheel's own models; built on first use, thread-safe."""

    DET_MODEL = "PP-OCRv6_det_small.onnx"
    REC_MODEL = "PP-OCRv6_rec_small.onnx"

    def __init__(self, threads: int = OCR_THREADS) -> None:
        self._threads = threads
        self._engine: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._engine is None:
                folder = models_dir()
                det, rec = folder / self.DET_MODEL, folder / self.REC_MODEL
                for model in (det, rec):
                    if not model.is_file():
                        raise OcrUnavailable(f"the OCR model {model} is missing")
                from rapidocr import RapidOCR

                self._engine = RapidOCR(
                    params={
                        "Global.log_level": "error",  # "nothing found" is a warning
                        "Global.use_cls": False,  # upside-down scans are rare; it costs ~10 %
                        "Global.text_score": MIN_SCORE,
                        "Det.model_path": str(det),
                        "Rec.model_path": str(rec),
                        # Lines are found on the page shrunk to DETECT_SIDE_PX and read at
                        # full size: 25 % less CPU, the same characters on the corpus scans.
                        "Det.limit_type": "max",
                        "Det.limit_side_len": DETECT_SIDE_PX,
                        "EngineConfig.onnxruntime.intra_op_num_threads": self._threads,
                        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                    }
                )
            return self._engine

    def read_image(self, image: np.ndarray) -> list[RawLine]:
        """Lines found in an RGB image (height x width x 3, uint8), in no order."""
        out = self._load()(image)
        if out.boxes is None or out.txts is None:
            return []
        lines = []
        for box, text, score in zip(out.boxes, out.txts, out.scores, strict=True):
            quad = tuple((float(x), float(y)) for x, y in box[:4])
            lines.append(RawLine(str(text), quad, float(score)))  # type: ignore[arg-type]
        return lines

    def read_layout(self, image: np.ndarray) -> PageLayout:
        height, width = image.shape[:2]
        return reading_order(self.read_image(image), float(width), float(height))


def render_scale(width_pt: float, height_pt: float) -> float:
    """Pixels per PDF point for OCR: RENDER_DPI, shrunk to keep within MAX_SIDE_PX."""
    longest = max(width_pt, height_pt, 1.0)
    return min(RENDER_DPI / 72.0, MAX_SIDE_PX / longest)


class PdfRenderer:
    """Pages of one PDF as RGB arrays (pypdfium2, which pdfplumber already brings)."""

    def __init__(self, path: str | Path, password: str | None = None) -> None:
        import pypdfium2 as pdfium

        self._pdf = pdfium.PdfDocument(str(path), password=password or None)

    def __enter__(self) -> PdfRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._pdf.close()

    def render(self, number: int) -> np.ndarray:
        """Page ``number`` (from 1) as height x width x 3 uint8."""
        import numpy as np

        page = self._pdf[number - 1]
        try:
            width, height = page.get_size()
            bitmap = page.render(scale=render_scale(width, height), fill_color=(255, 255, 255, 255))
            image = bitmap.to_pil().convert("RGB")
        finally:
            page.close()
        return np.asarray(image)


_shared: OcrEngine | None = None


def shared_engine() -> OcrEngine:
    """The process's one engine (the models take ~3 s and ~100 MB to load)."""
    global _shared
    if _shared is None:
        _shared = OcrEngine()
    return _shared
