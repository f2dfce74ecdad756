"""Which numbers a text states, and whether a sentence states one its source does not.

Small models get numbers wrong in sentences that otherwise echo their source word for word
("died on December 31st, 2019" against "died in December 2015"), so a sentence stating a
number its source does not state is not supported by it: an answer's sentence by the
passages it cites (attribution.py), a summary's by its document (summary_support.py).

A source states its numbers in figures ("4,095", read also as German "4.095") or in words
("nineteen metres", "four hundred", "nineteen ninety-eight"); a sentence's centuries,
decades and round numbers said to be near are read as such (``unstated_numbers``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

#: A time of day written with a colon ("10:30", one figure: not 10 and 30), or a number.
_NUMBER = re.compile(r"(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\d:])|\d+(?:[.,]\d+)*")
#: Full-width digits ("１０時") read as the digits they are.
_FULL_WIDTH = str.maketrans("０１２３４５６７８９", "0123456789")
_NOT_A_PAGE = r"(?![.,]\d|[ \t]*(?:[kmgt]i?b|bytes?|k|m)\b)"
#: "page 4", "p. 12", "pp. 3-5", "pages 3 and 4", "pp. 3, 7-9 or 12": where, not what
#: (the prompt labels each passage by page; citations.pages_not_given reads the pages).
#: Not a decimal ("p. 0.05") nor a size ("pages 2 MB"). A list only after "pages" or
#: "pp.": "page 3, 45 patients improved" names one page and states 45 (review, s29).
PAGE_REFERENCE = re.compile(
    r"(?<![\w.])(?:(?P<plural>pages|pp\.)|page|p\.)[ \t]*(?P<first>\d{1,5})"
    r"(?:[ \t]*[-–][ \t]*(?P<last>\d{1,5}))?\b"
    + _NOT_A_PAGE
    + r"(?P<more>(?(plural)(?:[ \t]*(?:,|and|or|&)[ \t]*\d{1,5}(?:[ \t]*[-–][ \t]*\d{1,5})?\b"
    + _NOT_A_PAGE
    + r")*|))",
    re.IGNORECASE,
)


def unstated_numbers(sentence: str, have: set[str]) -> bool:
    """Whether the sentence (``attribution.plain``: no citation markers) states a number
    none of whose readings is in ``have``, a source's ``stated_numbers``. Page references
    aside ("page 4" says where, not what).
    A century ("the 19th century", "nineteenth-century") is stated by a year in it, and a
    decade ("the 1950s") by a year in it: a summary says "a 19th-century tower" of one
    built in 1871 (QA, session 28). A number said to be near ("about four thousand") is
    stated by one within ``APPROXIMATE`` of it, but not by a year ("nearly 2,000" by 2019;
    "1,987 schools" is a count). A number in words counts from thirteen on
    ("seventeen people"); below, "one" and "a second" are seldom numbers."""
    text = PAGE_REFERENCE.sub(" ", sentence.translate(_FULL_WIDTH))
    years = [int(x) for x in have if len(x) == 4 and x.isdigit()]

    def century_unstated(n: int) -> bool:
        return str(n) not in have and not any((n - 1) * 100 <= y <= n * 100 for y in years)

    for m in _CENTURY_LISTED.finditer(text):
        if century_unstated(int(m.group("n"))):
            return True
    text = _CENTURY_LISTED.sub(" ", text)
    for m in _CENTURY.finditer(text):
        tens = _TENS.get((m.group("tens") or "").lower(), 0)
        n = int(m.group("n")) if m.group("n") else tens + _ORDINALS[m.group("word").lower()]
        if century_unstated(n):
            return True
    text = _CENTURY.sub(" ", text)
    for m in _DECADE.finditer(text):
        first = int(m.group("decade"))
        if str(first) not in have and not any(first <= y <= first + 9 for y in years):
            return True
    text = _DECADE.sub(" ", text)
    # (a year is no count: "nearly 2,000 employees" is not borne out by "2019")
    values = [float(x) for x in have if _PLAIN_NUMBER.fullmatch(x) and not _YEAR.fullmatch(x)]
    values += [float(x.replace(",", "")) for x in have if _GROUPED.fullmatch(x)]  # "1,987"
    rounded: list[tuple[int, int]] = []
    for m in _APPROXIMATE.finditer(text):
        said = m.group("number")
        readings = [float(r) for r in _readings(said)] if said[0].isdigit() else []
        readings += [float(n) for n in spelled_numbers(said)]
        readings = [v for v in readings if v >= 10 and v % 10 == 0]  # "about 4096" is exact
        if not readings:
            continue  # checked as it is, below
        near = _NEAR[m.group("how").lower().split()[0]]
        if not any(near(h, v) for v in readings for h in values):
            return True
        rounded.append(m.span())
    for a, b in reversed(rounded):
        text = f"{text[:a]} {text[b:]}"
    if any(d.startswith("date:") for d in have):
        # a day the source states in dates too must be one of them ("5 April" of "6
        # April"); one it states is no three numbers ("2026-04-13" of "13 April 2026"),
        # only its year
        if dates_in(text) - have:
            return True
        text = _ISO_DATE.sub(r" \1 ", text)  # (its year still checked)
    if any(not (readings & have) for readings in numbers_in(text)):
        return True
    return any(int(n) >= 13 and n not in have for n in spelled_numbers(text))


def stated_numbers(text: str) -> set[str]:
    """Every reading of every number a source text states, in figures or in words ("nineteen
    metres", "four hundred members", "thirty-one years"): what a sentence's numbers are
    looked for in. Only the source's words are read as numbers: a sentence's "one of the"
    must not need a 1. Its dates too, as ``dates_in`` reads them."""
    text = text.translate(_FULL_WIDTH)
    have: set[str] = set().union(*numbers_in(text))
    # a time states its hour and minutes too: "opens at 10:00" says "10 am" (review, s35)
    have |= {p.lstrip("0") or "0" for t in have if ":" in t for p in t.split(":")}
    # a count, not a year: as written (whole numbers only: not "0,198" of "0,1987")
    grouped = {m.group() for m in _NUMBER.finditer(text) if _GROUPED.fullmatch(m.group())}
    return have | grouped | spelled_numbers(text) | dates_in(text)


_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        ],
        1,
    )
    for m in names.split()
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
#: Months and their abbreviations, lower-cased.
MONTH_NAMES = frozenset(_MONTHS)
#: The days of the week, lower-cased.
WEEKDAY_NAMES = frozenset(
    f"{day}day" for day in ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
)
#: "6 April", "6th of April", "April 6", "April 6th" (not "April 2026": a year); "2026-04-06".
_DATE = re.compile(
    rf"\b(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<m1>{_MONTH})\b\.?"
    rf"|\b(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.,]?\d)"
    r"|\b\d{4}-(?P<m3>\d{2})-(?P<d3>\d{2})\b",
    re.IGNORECASE,
)


_ISO_DATE = re.compile(r"\b(\d{4})-\d{2}-\d{2}\b")


_ORD = r"(?:st|nd|rd|th)?"
_TO = r"\s*(?:-|–|to|and|until|till|through)\s*"
#: "6-10 April", "6th–10th of April", "between 6 and 10 April", "April 6-10": every day.
_DATE_RANGE = re.compile(
    rf"\b(?P<a>\d{{1,2}}){_ORD}{_TO}(?P<b>\d{{1,2}}){_ORD}(?:\s+of)?\s+(?P<m1>{_MONTH})\b"
    rf"|\b(?P<m2>{_MONTH})\.?\s+(?P<a2>\d{{1,2}}){_ORD}{_TO}(?P<b2>\d{{1,2}}){_ORD}\b",
    re.IGNORECASE,
)


def _month(name: str) -> int:
    """The month a name says, or 0: "may" and "march" in lower case are verbs ("version
    5 may fail"), "DEC" or "MAR" in capitals a code or a machine (review, session 31)."""
    if name in ("may", "march", "mar") or (name.isupper() and len(name) <= 4):
        return 0
    return _MONTHS[name.lower()]


def dates_in(text: str) -> set[str]:
    """The days of the year a text states, as "date:4-6" for the 6th of April: a sentence
    saying "5 April" of a passage saying "6 April" states no number the passage lacks by
    figures alone (its "five weeks" is a 5; QA, session 31)."""
    return {v for f in _dates(text) for v in f.values}


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure a text states where it states it: a day of the year (``values`` as
    ``dates_in`` writes them, every day of a range), a year, or any other number (its
    readings, as ``numbers_in`` has them)."""

    kind: Literal["date", "year", "number"]
    values: frozenset[str]
    start: int
    end: int


def _dates(text: str) -> list[Figure]:
    out: list[Figure] = []
    for m in _DATE_RANGE.finditer(text):
        month = _month(m.group("m1") or m.group("m2"))
        first, last = int(m.group("a") or m.group("a2")), int(m.group("b") or m.group("b2"))
        if month and 1 <= first < last <= 31:
            days = frozenset(f"date:{month}-{day}" for day in range(first, last + 1))
            out.append(Figure("date", days, *m.span()))
    for m in _DATE.finditer(text):
        if m.group("m3"):
            month, day = int(m.group("m3")), int(m.group("d3"))
        else:
            month = _month(m.group("m1") or m.group("m2"))
            day = int(m.group("d1") or m.group("d2"))
        if 1 <= month <= 12 and 1 <= day <= 31:
            out.append(Figure("date", frozenset({f"date:{month}-{day}"}), *m.span()))
    return out


_GLUED = re.compile(r"[^\W\d_]")


def figures(text: str) -> list[Figure]:
    """The dates, years and other numbers a text states in figures, in order; a number
    inside a date is the date's, and page references ("p. 4") and numbers joined to
    letters ("RH70", "22b", "GNU2") are none."""
    text = text.translate(_FULL_WIDTH)  # one character for one: the offsets stand
    dates = _dates(text)
    taken = [(f.start, f.end) for f in dates]
    taken += [m.span() for m in PAGE_REFERENCE.finditer(text)]
    out = list(dates)
    for m in _NUMBER.finditer(text):
        if any(a <= m.start() < b for a, b in taken) or _GLUED.match(text, m.end()):
            continue
        if m.start() and text[m.start() - 1].isalpha():
            continue  # part of a name or code: "RH70", "i386", "0xFF", "22b"
        kind: Literal["year", "number"] = "year" if _YEAR.fullmatch(m.group()) else "number"
        out.append(Figure(kind, _readings(m.group()), *m.span()))
    return sorted(out, key=lambda f: f.start)


_UNIT_WORDS = """zero one two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen"""
_UNITS = {w: i for i, w in enumerate(_UNIT_WORDS.split())}
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = {w: 10 * i for i, w in enumerate(_TENS_WORDS.split(), 2)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
#: ("second" is left out: "a fifteen second delay" is 15, and "Second, ..." no number)
_ORDINAL_WORDS = """first - third fourth fifth sixth seventh eighth ninth tenth eleventh
    twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"""
_ORDINALS = {w: i for i, w in enumerate(_ORDINAL_WORDS.split(), 1) if w != "-"}
_ORDINALS |= {w[:-1] + "ieth": v for w, v in _TENS.items()}  # "twentieth"
_ORDINALS |= {w + "th": v for w, v in _SCALES.items()}  # "hundredth"
#: A word, or a mark that ends a number ("fifty. Second, ..."; "ten, twenty and thirty");
#: a hyphen joins ("thirty-one").
_NUMBER_WORD = re.compile(r"[a-z]+|[^\sa-z-]")
#: "the 19th century", "nineteenth-century", "the twenty-first century", "the 5th c."
_CENTURY = re.compile(
    r"\b(?:(?P<n>\d{1,2})(?:st|nd|rd|th)|(?:(?P<tens>(?i:"
    + "|".join(_TENS)
    + r"))[\s-]+)?(?P<word>(?i:"
    + "|".join(_ORDINALS)
    + r")))[\s-]+(?i:century|centuries|c\.)"
)
#: An ordinal of a list that ends in a century: "the 18th" of "the 18th and 19th
#: centuries" (the last one is a ``_CENTURY``), "17th" of "the 17th, 18th or 19th
#: centuries", "18th-" of "18th- and 19th-century bridges". At most five before the last
#: (a bounded look ahead: a list a looping model wrote does not cost its square).
_CENTURY_LISTED = re.compile(
    r"\b(?P<n>\d{1,2})(?:st|nd|rd|th)-?"
    r"(?=(?:\s*(?:,|and|or|to|through|[-–])\s*(?:the\s+)?\d{1,2}(?:st|nd|rd|th)){1,5}"
    r"[\s-]+(?:century|centuries)\b)",
    re.IGNORECASE,
)
#: A count written with thousands separators ("1,987"): not a year, though its value is
#: one (a year is written "1987").
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+")
#: A round number said to be near ("about four thousand bytes", "roughly 4000") is
#: stated by one within this share of it ("4095"): a paraphrase rounds. "About 4096" is
#: no rounding: it must be in the source as it is.
APPROXIMATE = 0.1
_NUMBER_WORDS = "|".join([*_UNITS, *_TENS, *_SCALES, "and", "a"])
_APPROXIMATE = re.compile(
    r"\b(?P<how>(?i:about|around|roughly|nearly|almost|approximately|some|over|under|"
    r"close to|more than|less than|fewer than|circa))\s+"
    rf"(?P<number>\d+(?:[.,]\d+)*|(?i:(?:{_NUMBER_WORDS})(?:[\s-]+(?:{_NUMBER_WORDS}))*))\b"
)


def _within(h: float, v: float) -> bool:
    return abs(h - v) <= APPROXIMATE * v


#: How a source's number ``h`` bears out a round ``v`` said to be near it: "about" within
#: ``APPROXIMATE``; "over 100" by 100 to twice that, "under 50" by half of it to 50 (a
#: bound, not a rounding: "over 100 people" of 91 is wrong).
_NEAR = {
    "over": lambda h, v: v <= h <= 2 * v,
    "more": lambda h, v: v <= h <= 2 * v,
    "under": lambda h, v: v / 2 <= h <= v,
    "less": lambda h, v: v / 2 <= h <= v,
    "fewer": lambda h, v: v / 2 <= h <= v,
} | dict.fromkeys(
    ["about", "around", "roughly", "nearly", "almost", "approximately", "some", "close", "circa"],
    _within,
)
_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
#: "the 1950s", "1870s"
_DECADE = re.compile(r"\b(?P<decade>\d{3}0)'?s\b")


def spelled_numbers(text: str) -> set[str]:
    """The numbers an English text writes in words, as figures: "thirty-one" is 31, "four
    hundred" 400, "two thousand five hundred" 2500, "a hundred and five" 105, "nineteen
    ninety-eight" 1998, "twenty-first" 21."""
    out: set[str] = set()
    total = current = 0
    started = False
    words = _NUMBER_WORD.findall(text.lower())
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        if not word.isalpha():  # a mark ends a number
            if started:
                out.add(str(total + current))
            total = current = 0
            started = False
            continue
        if word in _UNITS or word in _TENS:
            value = _UNITS.get(word, 0) + _TENS.get(word, 0)
            if total == 0 and 10 <= current <= 99 and value >= 10:  # "nineteen ninety"
                current = current * 100 + value
            else:
                current += value
            started = True
            continue
        if word in _ORDINALS and (started or word not in _SCALES.keys() | {"second"}):
            value = _ORDINALS[word]  # "twenty-first" ends the number
            current = current * value if value >= 100 else current + value
            out.add(str(total + current))
            total = current = 0
            started = False
            continue
        if word in _SCALES and (started or before == "a"):
            if word == "hundred":
                current = max(current, 1) * 100
            else:
                total, current = total + max(current, 1) * _SCALES[word], 0
            started = True
            continue
        if word == "and" and started and before in _SCALES:  # "a hundred and five"
            continue
        if started:
            out.add(str(total + current))
        total = current = 0
        started = False
    if started:
        out.add(str(total + current))
    return out


def numbers_in(text: str) -> set[frozenset[str]]:
    """The numbers a text states, each as the values it may be read as: "4,095" is 4095
    (or, written in German, 4.095), "1,5" is 1.5, "1.200" 1200 or 1.2, "1.234,5" 1234.5;
    a version "1.2.3" is itself."""
    return {_readings(m.group()) for m in _NUMBER.finditer(text.translate(_FULL_WIDTH))}


def _readings(number: str) -> frozenset[str]:
    if ":" in number:  # "10:30", "09:30", "10:30:00": a time, as "10.30" may be one
        hour, minute, *seconds = number.split(":")
        time = f"{int(hour)}:{minute}"
        return frozenset({time, *(f"{time}:{s}" for s in seconds)})
    seps = re.findall(r"[.,]", number)
    groups = re.split(r"[.,]", number)
    if not seps:
        return frozenset({number.lstrip("0") or "0"})
    out: set[str] = set()
    if seps == ["."] and len(groups[1]) == 2 and int(groups[0]) < 24 and int(groups[1]) < 60:
        out.add(f"{int(groups[0])}:{groups[1]}")  # "10.30": half past ten, or 10.3
    if len(set(seps)) == 2:  # "1,234.5" or "1.234,5": the last one is the decimal mark
        out.add(_decimal("".join(groups[:-1]), groups[-1]))
    else:
        if all(len(g) == 3 for g in groups[1:]):  # "4,095", "1.234.567": thousands
            out.add("".join(groups).lstrip("0") or "0")
        if len(seps) == 1:  # "1,5", "2.5" (and "1,200" read as German)
            out.add(_decimal(groups[0], groups[1]))
    return frozenset(out or {number})


def _decimal(whole: str, fraction: str) -> str:
    fraction = fraction.rstrip("0")
    whole = whole.lstrip("0") or "0"
    return f"{whole}.{fraction}" if fraction else whole
