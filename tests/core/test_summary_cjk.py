"""Chinese and Japanese documents are summarised like any other (core/words.py): their
sections fit the model's context, the extractive summary quotes their sentences, and the
quality gate keeps a faithful summary of them. A page of Chinese was one "word" (no
spaces): a section the size of the document, no sentence found, every summary rejected
(review)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docent.core import words
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.models import Page
from docent.core.sectioning import split_sections
from docent.core.summary_quality import rejection
from fake_embedder import FakeEmbedder
from ollama_stub import OllamaStub

FACTS = [
    "北京大学是中国的一所著名大学，位于北京市海淀区。",
    "它成立于一八九八年，最初名为京师大学堂。",
    "学校的图书馆藏有大量古籍和珍贵的手稿。",
    "每年秋天，新生们在未名湖畔参加开学典礼。",
    "研究所的学者们长期研究中国古代的天文历法。",
    "校园里的博雅塔原来是一座水塔，建于一九二四年。",
]
TEXT = "".join(FACTS[i % len(FACTS)] for i in range(180))  # ~3,700 characters, no space


def test_a_page_without_spaces_is_cut_into_sections_that_fit() -> None:
    sections = split_sections([Page(1, TEXT)], max_words=400)
    assert len(sections) >= 9  # ~3,700 words: it was one section of one "word"
    for s in sections:
        assert s.words <= 400
        for piece in s.pieces:
            assert piece.words == words.count(piece.text) and piece.text in TEXT  # no spaces
    assert sections[0].pieces[0].text.startswith(FACTS[0])
    assert TEXT.endswith(sections[-1].pieces[-1].text)


def test_the_gate_keeps_a_faithful_chinese_summary_and_rejects_an_unfaithful_one() -> None:
    source = "".join(FACTS)
    faithful = "北京大学成立于一八九八年，位于北京市海淀区，图书馆藏有古籍。"
    assert rejection(faithful, source, "北京大学.txt") == ""
    unfaithful = "这是一个关于天气和海洋的故事，讲述了渔民的生活。"
    assert rejection(unfaithful, source, "北京大学.txt") != ""
    looping = "北京大学位于海淀区。\n北京大学位于海淀区。"
    assert rejection(looping, source, "北京大学.txt").startswith("it repeated a line")


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "北京大学.txt").write_text(TEXT + "\n", encoding="utf-8")
    settings = Settings(
        data_dir=str(tmp_path / "home"),
        extract_in_subprocess=False,
        max_words_per_section=600,
        summary_timeout_per_call=20,
    )
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        assert not eng.index([lib]).failed
        yield eng


def test_the_extractive_summary_quotes_the_documents_sentences(engine: Engine) -> None:
    result = engine.summarize("北京大学.txt", type="bullets", extractive=True)
    assert result.mode == "extractive"
    quoted = [s for s in FACTS if s in result.summary]
    assert len(quoted) >= 3, result.summary


def test_a_models_faithful_chinese_summary_is_kept(engine: Engine) -> None:
    def reply(messages: list[dict[str, Any]], model: str) -> str:
        text = messages[-1]["content"].split("---\n", 1)[1]
        first = next(s for s in FACTS if s in text)
        return f"本节介绍：{first}"

    with OllamaStub(models=["stub-zh:latest"], responder=reply) as stub:
        engine.settings.ollama_host = stub.url
        engine.settings.ollama_model = "stub-zh:latest"
        engine.settings.llm_context_tokens = 4096
        result = engine.summarize("北京大学.txt", type="detailed")
    assert result.mode == "generated" and result.sections_processed >= 6
    assert result.model_sections == result.sections_processed, [
        (s.index, s.source) for s in result.section_summaries
    ]
