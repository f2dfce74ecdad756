"""The words of a query: content words, the keyword form, and the rare exact terms.

Shared by retrieval (query variants, keyword boost) and evaluation (keyword overlap).
Stopwords are the BM25 model's own English list (``resources/models/bm25/english.txt``),
so the keyword form drops exactly the words BM25 would ignore anyway.

*Exact terms* are the parts of a question that must match literally for a passage to be
about the same thing: quoted phrases, identifiers (``is.na()``, ``max_chunks``,
``PDP-11/40``), acronyms (``SIMH``, ``GPG``), numbers (``4095``). They are picked by
their shape, never by a list of known terms, so they work on any library.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docent.core.config import resources_dir

#: A word, possibly joined by . - / : + _ (``is.na``, ``PDP-11/40``), with an optional ().
_TOKEN = re.compile(r"[^\W_]\w*(?:[.\-/:+]\w+)*(?:\(\))?")
#: Quoted spans: "double", “curly”, `code` and 'single' (not apostrophes inside words, nor
#: inch marks: 27" and 30" quote nothing).
_QUOTED = re.compile(
    r"(?<!\w)\"([^\"]{2,80})\"(?!\w)|“([^”]{2,80})”|`([^`]{1,80})`|(?<!\w)'([^']{2,80})'(?!\w)"
)
_CAMEL = re.compile(r"[a-z][A-Z]")
_SINGLE_WORD = re.compile(r"[^\W_]+(?: [^\W_]+)*")
#: A name's capitals and its number written apart ("NGC 4414") or together ("NGC4414"): a
#: page writes either, and the text index has them as two words or one. Capitals only:
#: "in 2019" or "Windows 10" is no such name (review, session 35).
_APART = re.compile(r"(?<![\w.-])([A-Z]{2,})[ -](\d[\d./]*)(?![\w-])")
_TOGETHER = re.compile(r"([A-Z]{2,})(\d[\d./]*)")
#: Words of questions that say nothing about the subject ("how do I ...").
_QUESTION_FILLER = frozenset(
    [
        "would",
        "could",
        "might",
        "must",
        "shall",
        "may",
        "also",
        "get",
        "instead",
        "way",
        "ways",
        "want",
        "need",
        "please",
        "tell",
        "know",
        "using",
        "use",
        "often",
        "many",
        "much",
        "whether",
        "possible",
        "able",
        "exactly",
        "really",
        "actually",
        "something",
        "anything",
        "thing",
        "things",
        "e.g",
        "i.e",
        "etc",
        "eg",
        "ie",
    ]
)
#: The longest keyword form: BM25 and the embedding both lose focus beyond it.
MAX_KEYWORDS = 16
#: Identifiers BM25's own tokenizer breaks up (it splits at every non-word character):
#: command-line options (``-p``, ``--persist``: a dash after a space, never inside a word),
#: dotted, slashed or assigned names (``is.na``, ``HISTORY=n``, ``PDP-11/40``).
_OPTION = re.compile(r"(?<![^\s(\[,'\"`])--?[A-Za-z][\w-]*")
_COMPOUND = re.compile(r"(?<![\w.\-=/:+])\w+(?:[.\-/:=+]\w+)+")
#: Runs of capitalised command words (``SET CPU``, ``SHOW CPU HISTORY``).
_CAPS_WORD = re.compile(r"\b[A-Z][A-Z0-9]{1,}\b")


@functools.lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """The BM25 model's English stopwords (plus a few question fillers)."""
    path = resources_dir() / "models" / "bm25" / "english.txt"
    try:
        words = {w.strip().lower() for w in path.read_text(encoding="utf-8").split()}
    except OSError:  # a stripped-down install: fall back to question fillers only
        words = set()
    return frozenset(words | _QUESTION_FILLER)


#: Share of a text's words that are English stopwords at or above which it is read as
#: English (smollm2:135m's 19 summaries of session 29: 0.32-0.50; German and French
#: text: 0.00-0.06). Names are told by their capitals in English only: German writes
#: every noun with one ("Das Dokument erläutert die Errichtung der Brücke": review).
ENGLISH_SHARE = 0.2


def is_english(words: Sequence[str], share: float = ENGLISH_SHARE) -> bool:
    """Whether lower-cased ``words`` read as English: ``share`` of them stopwords."""
    stop = stopwords()
    return sum(w in stop for w in words) >= share * max(len(words), 1)


def tokens(text: str) -> list[str]:
    """Word-like tokens in order, original case, identifiers kept whole."""
    return [m.group(0) for m in _TOKEN.finditer(text)]


def _plain(token: str) -> str:
    return token.removesuffix("()").lower()


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry meaning: no stopwords, no single letters (but digits)."""
    stop = stopwords()
    out: list[str] = []
    for tok in tokens(text):
        word = _plain(tok)
        if word in stop or (len(word) < 2 and not word.isdigit()):
            continue
        out.append(word)
    return out


def is_exact_term(token: str) -> bool:
    """True when a token's shape says it is a name, code or number, not an ordinary word."""
    if token.endswith("()") or "_" in token:
        return True
    core = token.removesuffix("()")
    has_digit = any(c.isdigit() for c in core)
    has_alpha = any(c.isalpha() for c in core)
    if has_digit and (has_alpha or len(core) >= 2):
        return True  # TM11, PDP-11, x86, 4095 (not a lone digit)
    if any(c in core for c in ".-/:+") and has_alpha:
        return len(core) > 3  # is.na, debian/rules, dh-make (not "e.g")
    letters = [c for c in core if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return True  # SIMH, GPG, DNS
    return bool(_CAMEL.search(core))  # setMarkdown, YubiKey


def identifier_terms(text: str) -> list[str]:
    """Lower-cased identifiers that BM25's word tokenizer would break apart, as whole
    terms (one per occurrence): options, compound names, and pairs of adjacent
    upper-case command words. Plain words are left to BM25."""
    out = [m.group(0).lower() for m in _OPTION.finditer(text)]
    out += [m.group(0).lower() for m in _COMPOUND.finditer(text) if len(m.group(0)) > 3]
    caps = list(_CAPS_WORD.finditer(text))
    for a, b in zip(caps, caps[1:], strict=False):
        if text[a.end() : b.start()] == " ":
            out.append(f"{a.group(0)} {b.group(0)}".lower())
    return out


def quoted_phrases(text: str) -> list[str]:
    out = []
    for m in _QUOTED.finditer(text):
        phrase = next(g for g in m.groups() if g is not None).strip()
        if phrase:
            out.append(phrase)
    return out


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """What a question says, as the retrieval stages need it."""

    question: str
    #: Content words in order, lower-cased, without duplicates.
    words: tuple[str, ...]
    #: Quoted phrases and identifier-like tokens, as written (deduplicated, case-folded).
    exact: tuple[str, ...]
    #: Capitalised words inside the question (product, place and people names).
    names: tuple[str, ...] = ()

    @property
    def phrases(self) -> tuple[str, ...]:
        """The exact terms that are quoted phrases of words: found only as written, words
        in that order ("blue house" is not "blue door" and "red house"; review)."""
        quoted = {p.lower() for p in quoted_phrases(self.question) if " " in p.strip()}
        return tuple(t for t in self.exact if t.lower() in quoted)

    @property
    def checkable(self) -> tuple[str, ...]:
        """Single-word exact terms and names: a library that lacks one cannot answer.

        Compound terms (``is.na``, ``PDP-11/40``) are left out: the text index splits
        them into words that a passage may hold apart.
        """
        out = [t for t in (*self.exact, *self.names) if _SINGLE_WORD.fullmatch(t)]
        return tuple(dict.fromkeys(out))

    @property
    def spellings(self) -> dict[str, tuple[str, ...]]:
        """Other ways of writing an exact term: "NGC" and "4414" of "NGC 4414" are
        ``NGC4414`` as a table writes it, "NGC4414" is the phrase ``NGC 4414``."""
        out: dict[str, list[str]] = {}
        exact = {t.lower(): t for t in self.exact}
        for m in _APART.finditer(self.question):
            letters, number = m.groups()
            for part in (letters, number):
                if part.lower() in exact:
                    out.setdefault(exact[part.lower()], []).append(letters + number)
        for term in self.exact:
            if whole := _TOGETHER.fullmatch(term):
                out.setdefault(term, []).append(" ".join(whole.groups()))
        return {t: tuple(dict.fromkeys(alts)) for t, alts in out.items()}

    @property
    def plain_words(self) -> tuple[str, ...]:
        """The content words that are no part of an exact term."""
        inside = {w for e in self.exact for w in content_words(e)}
        return tuple(w for w in self.words if w not in inside)

    @property
    def keyword_form(self) -> str:
        """The question with stopwords removed; exact terms kept as written."""
        kept = [*self.exact, *self.plain_words]
        return " ".join(kept[:MAX_KEYWORDS])


def analyse(question: str) -> QueryTerms:
    words = tuple(dict.fromkeys(content_words(question)))
    exact: dict[str, str] = {}
    phrases = quoted_phrases(question)
    for phrase in phrases:
        exact.setdefault(phrase.lower(), phrase)
    # A quoted phrase already covers the identifiers inside it.
    inside = {t.lower() for phrase in phrases for t in tokens(phrase)}
    for tok in tokens(question):
        term = tok.removesuffix("()")
        if is_exact_term(tok) and term.lower() not in inside | stopwords():
            exact.setdefault(term.lower(), term)
    return QueryTerms(
        question=question,
        words=words,
        exact=tuple(exact.values()),
        names=tuple(proper_names(question, exact)),
    )


#: Languages an answer may be asked in ("in plain English", "explain it in German"): how
#: to answer, not what about, so not a name the passages must hold. "Please explain the
#: sink function in plain English" was low because no passage on sink says "English".
_LANGUAGES = (
    "English|French|German|Spanish|Italian|Portuguese|Dutch|Norwegian|Swedish|Danish|"
    "Finnish|Polish|Czech|Greek|Turkish|Russian|Ukrainian|Arabic|Hebrew|Hindi|Chinese|"
    "Mandarin|Japanese|Korean|Indonesian|Vietnamese"
)
_PLAIN = r"(?:plain|simple|simpler|basic|everyday|easy|good)"
#: "in [plain] English" ending a clause ("terms" or "words" may follow).
_IN_LANGUAGE = (
    rf"\bin\s+(?P<plain>{_PLAIN}\s+)?(?:{_LANGUAGES})(?:\s+(?:terms|words))?"
    r"(?=\s*(?:[.?!,;:)—–-]|please\b|for\b|too\b|$))"
)
_ANSWER_LANGUAGE = re.compile(_IN_LANGUAGE, re.IGNORECASE)
#: A question that asks for an answer (not about one in a language): "explain", "tell".
_ASKS_AN_ANSWER = re.compile(
    r"\b(?:explain|describe|summari[sz]e|tell|answer|reply|write|say|put|rephrase)\b",
    re.IGNORECASE,
)


def _answer_language(question: str) -> list[tuple[int, int]]:
    """Where the question says the language its answer is to be in: "in plain English"
    anywhere, "in English" when the question asks for an answer ("Explain X in German").
    "Is the manual available in Korean?" asks about the library: its language stays a
    name, and a library that never mentions Korean makes it low (review)."""
    asks = bool(_ASKS_AN_ANSWER.search(question))
    return [m.span() for m in _ANSWER_LANGUAGE.finditer(question) if m.group("plain") or asks]


def proper_names(question: str, exact: dict[str, str] | None = None) -> list[str]:
    """Capitalised words not opening a sentence (``Parquet`` in "load an Apache Parquet
    file"), and runs of them as one name (``Apache Parquet``). Not the language an answer
    is asked in at the end of a clause ("..., in plain English?")."""
    out: list[str] = []
    run: list[str] = []
    taken = {t.lower() for term in (exact or {}).values() for t in tokens(term)}
    asked_in = _answer_language(question)
    last_end = -1
    for m in _TOKEN.finditer(question):
        tok = m.group(0)
        before = question[: m.start()].rstrip()
        opens = not before or before[-1] in ".?!:;\"'“(\n"
        is_name = not (
            opens
            or len(tok) < 3
            or not tok[0].isupper()
            or tok.lower() in stopwords()
            or tok.lower() in taken
            or any(a <= m.start() < b for a, b in asked_in)
        )
        adjacent = question[last_end : m.start()].strip() == ""
        if not (is_name and adjacent) and len(run) > 1:
            out.append(" ".join(run))
        if not (is_name and adjacent):
            run = []
        if is_name:
            out.append(tok)
            run.append(tok)
        last_end = m.end()
    if len(run) > 1:
        out.append(" ".join(run))
    return list(dict.fromkeys(out))


#: A page phrase: "page 3", "pages 12-14", "p. 7", "pp. 3 to 5", "pages 3 and 5", "slide 4"
#: (``_PAGES_OF`` then says whether it asks about those pages).
_NUMBER = r"\d{1,5}"
_PAGE = re.compile(
    r"(?P<prep>\b(?:on|at|from|in|of|about)\s+)?"
    r"(?P<unit>\bpages?\b|\bpp?\.|\bslides?\b)\s*"
    rf"(?P<numbers>{_NUMBER}(?:\s*(?:-|–|to|through|and|,|&|with)\s*"
    rf"(?:(?:pages?\b|pp?\.)\s*)?{_NUMBER})*)\b",
    re.IGNORECASE,
)
#: Verbs that ask what a page says ("What does page 3 say ...", "... is about").
_SAY_VERBS = (
    r"says?|said|shows?|covers?|contains?|mentions?|describes?|explains?|lists?|"
    r"discuss(?:es)?|talks?|tells?|has|have"
)
_SAYING = rf"(?:{_SAY_VERBS}|is\s+about|about)\b"
#: Another page named after one ("page 2 of R-intro with page 3"): both are asked about.
_ANOTHER_PAGE = r"(?:with|and|or|to)\s+(?:pages?\b|pp?\.)\s*\d"
#: The document a page is of, named right after it: "page 5 of R-intro", "page 12 of the
#: Debian reference say ..." (up to five words, then a saying verb or the end).
_OF_DOCUMENT = re.compile(
    r"\s+of\s+(?P<document>(?:(?:the|my|this|that|your)\s+)?[\w.\-]+"
    r"(?:\s+(?!(?:with|and|or|pages?|pp?\.)\b)[\w.\-]+){0,4}?)"
    rf"(?=\s*(?:$|[?.!,;:]|{_SAYING}|{_ANOTHER_PAGE}))",
    re.IGNORECASE,
)
#: What may follow a page phrase that no preposition opens, for it to ask about the page:
#: a verb of saying or the question's end ("Summarize page 3.", "And page 5?"). "Print
#: pages 1 to 3 with lp", "jump to page 5 in less" and "the Page 2 setting" ask about
#: something else (review, session 31).
_PAGE_ASKED = re.compile(rf"\s*(?:$|[?.!]|{_SAYING}|{_ANOTHER_PAGE})", re.IGNORECASE)
#: An action on pages just before the phrase: "print pages 1 to 3", "go to page 5",
#: "delete page 2 of the report?" ask how to do it, not what the pages say. Looked for
#: in the ``_ACTION_REACH`` characters before the phrase only.
_PAGE_ACTION = re.compile(
    r"\b(?:print|prints|printing|jump|go|goes|get|navigate|turn|skip|scroll|delete|"
    r"remove|number|numbering|start|starts|rotate|copy|insert|add|move|save|export|split|"
    r"merge|extract|crop|select|flip|reorder|hide|fit|zoom|resize|scale)\s+"
    r"(?:to\s+|on\s+|from\s+|in\s+|at\s+)?(?:the\s+|a\s+|only\s+)?$",
    re.IGNORECASE,
)
_ACTION_REACH = 40
#: "How do I ...", "Why does ...": how to do something to a page, unless it asks what
#: the page says ("How does page 3 explain ...").
_HOW_TO = re.compile(r"^\s*(?:how|why)\b", re.IGNORECASE)
_SAYS = re.compile(rf"\b{_SAYING}", re.IGNORECASE)
#: Words that only ask for a page's content, left out of what is searched on it: a verb
#: of saying before "about" or at the end ("What does page 3 say about memory?" was low
#: for "say"), and a request opening the question ("Summarize page 3", "Show me ...").
#: Elsewhere they are the question's own words ("the SHOW command"; review, session 31).
_PAGE_FILLER = re.compile(
    r"\b(?:says?|said|mentions?|describes?|explains?|discuss(?:es)?|talks?|tells?)\b"
    r"(?=\s+about\b|\s*[?.!]*\s*$)"
    r"|^\s*(?:please\s+)?(?:summari[sz]e|show(?:\s+me)?|list|tell\s+me(?:\s+about)?|"
    r"describe|explain|read(?:\s+me)?)\b",
    re.IGNORECASE,
)
#: The most pages one question may name (a wider range is no page question).
MAX_PAGE_SPAN = 20


@dataclass(frozen=True, slots=True)
class PageRequest:
    """The pages a question names, and the question without them."""

    #: The ranges of pages named, first to last each ("pages 3 and 5": (3, 3), (5, 5)).
    spans: tuple[tuple[int, int], ...]
    #: The question without the page phrases, the document named, and the words that only
    #: ask for a page's content ("What does about tape?" of "What does page 3 of the
    #: manual say about tape?").
    rest: str
    #: "page", or "slide" when the question names slides (then only slide decks have one).
    unit: str = "page"
    #: The document the pages are of, as the question names it ("R-intro", "the Debian
    #: reference"); "" when it names none.
    document: str = ""

    @property
    def first(self) -> int:
        return min(a for a, _ in self.spans)

    @property
    def label(self) -> str:
        names = [str(a) if a == b else f"{a}-{b}" for a, b in self.spans]
        one = len(names) == 1 and self.spans[0][0] == self.spans[0][1]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"{self.unit}{'' if one else 's'} {listed}"


def page_request(question: str) -> PageRequest | None:
    """The pages ``question`` asks about ("on page 3", "What does page 3 say", "And page
    5?", "between page 3 and page 4": both); None when it names none, a page 0, or more
    than ``MAX_PAGE_SPAN`` pages, or only acts on pages ("How do I print page 3?")."""
    # quoted text is not the question's own words ("What does 'continued on page 4' mean?")
    masked = _QUOTED.sub(lambda q: " " * len(q.group()), question)
    if _HOW_TO.match(masked) and not _SAYS.search(masked):
        return None
    cuts: list[tuple[int, int]] = []
    spans: set[tuple[int, int]] = set()
    unit, document = "page", ""
    for m in _PAGE.finditer(masked):
        if _PAGE_ACTION.search(masked[max(0, m.start() - _ACTION_REACH) : m.start()]):
            continue
        of = _OF_DOCUMENT.match(masked, m.end())
        end = of.end() if of is not None else m.end()
        if not m.group("prep") and not _PAGE_ASKED.match(masked, end):
            continue
        named = _spans(m.group("numbers"))
        if not named:
            return None
        if of is not None and not document:  # (of a phrase that asks about a page only)
            document = of.group("document")
        spans.update(named)
        cuts.append((m.start(), end))
        if m.group("unit").lower().startswith("slide"):
            unit = "slide"
    if not spans or sum(b - a + 1 for a, b in spans) > MAX_PAGE_SPAN:
        return None
    rest, at = "", 0
    for start, end in cuts:
        rest, at = rest + question[at:start] + " ", end
    rest = " ".join(_PAGE_FILLER.sub(" ", rest + question[at:]).split())
    rest = re.sub(r"\s+([?.!,;:])", r"\1", rest)
    return PageRequest(tuple(sorted(spans)), rest, unit, document)


def _spans(numbers: str) -> tuple[tuple[int, int], ...]:
    """ "3-5" → (3, 5); "3 and 5", "3, 5" → (3, 3), (5, 5); () with a page 0."""
    out: list[tuple[int, int]] = []
    for part in re.split(r"\s*(?:and|,|&|with)\s*", numbers, flags=re.IGNORECASE):
        ends = [int(n) for n in re.findall(_NUMBER, part)]
        if not ends or min(ends) < 1:
            return ()
        out.append((min(ends), max(ends)))
    return tuple(sorted(set(out)))
