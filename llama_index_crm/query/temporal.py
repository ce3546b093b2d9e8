"""Time expressions in questions: the inclusive years a question restricts its answer to.

Pure functions over plain strings, used by every :class:`~.analysis.QueryAnalyzer`.

>>> parse_time_range("between 1760 and 1770"), parse_time_range("the 12th century")
((1760, 1770), (1100, 1199))
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["CIRCA_YEARS", "MAX_YEAR", "MIN_YEAR", "TimeMatch", "find_time_range",
           "parse_time_range", "years_of"]

CIRCA_YEARS = 5
"""Half-width of the range for "circa 1765" / "around 1765"."""

MIN_YEAR, MAX_YEAR = -9999, 9999
"""Open ends of "before 1800" / "after 1900"."""

_ORDINALS = {w: i + 1 for i, w in enumerate((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth", "twenty-first"))}
_YEAR = r"(1\d{3}|20\d{2})"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)|(" + "|".join(sorted(_ORDINALS, key=len, reverse=True)) + ")"
_SPAN_RE = re.compile(
    r"\b(?:between|from)\s+(?:the\s+)?" + _YEAR + r"(s?)\s+(?:and|to|until|till|through|-|–)\s+"
    r"(?:the\s+)?" + _YEAR + r"(s?)\b|\b" + _YEAR + r"\s*[-–]\s*" + _YEAR + r"\b")
_CENTURY_RE = re.compile(
    r"(?:\b(early|mid|middle|late|first half of|second half of)[\s-]+(?:the\s+)?)?(?:\b"
    + _ORD + r")[\s-]+century(?:\s+(bc|bce|b\.c\.))?")
_DECADE_RE = re.compile(r"\b(1\d{2}0|20\d0)['’]?s\b")
_DECADE_WORDS = {w: 10 * (i + 2) for i, w in enumerate(
    ("twenties", "thirties", "forties", "fifties", "sixties", "seventies", "eighties",
     "nineties"))}
_DECADE_WORD_RE = re.compile(
    r"\b(?:the\s+)?(?:(" + "|".join(_DECADE_WORDS) + r")|['’](\d)0s|(?<![\d'’])(\d)0['’]?s)\b")
_CENTURY_WORDS = {"eleven": 1100, "twelve": 1200, "thirteen": 1300, "fourteen": 1400,
                  "fifteen": 1500, "sixteen": 1600, "seventeen": 1700, "eighteen": 1800,
                  "nineteen": 1900, "twenty": 2000}
_WORDED_DECADE_RE = re.compile(
    r"\b(" + "|".join(_CENTURY_WORDS) + r")[\s-]+(" + "|".join(_DECADE_WORDS) + r")\b")
DEFAULT_CENTURY = 1900
"""Century of a decade named without one ("the eighties"); see :attr:`TimeMatch.guess`."""
_SINGLE_RE = re.compile(
    r"(?:\b(before|until|till|after|since|circa|around|about|c\.|ca\.)\s+)?(?<![\d.,/-])"
    + _YEAR + r"(?!\w|['’]s|[.,/-]\d)")


_MONTHS = {name: i + 1 for i, name in enumerate((
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december"))}
_MONTH_RE = re.compile(r"\b(" + "|".join(_MONTHS) + r"|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|"
                       r"nov|dec)\.?)(?:\s+of)?,?\s+" + _YEAR + r"(?!\w|['’]s)")


class TimeMatch(NamedTuple):
    """A time expression found in a text.

    Attributes:
        years: inclusive years.
        start / end: where the expression is in the text.
        guess: a decade named without its century ("the eighties", "the '80s"): ``years``
            are in :data:`DEFAULT_CENTURY`, and another century may be meant.
        months: inclusive months (1–12) of the one year of ``years`` ("March 1938").
    """

    years: tuple[int, int]
    start: int
    end: int
    guess: bool = False
    months: tuple[int, int] | None = None


def _month(word: str) -> int:
    word = word.rstrip(".")
    return next(n for name, n in _MONTHS.items() if name.startswith(word[:3]))


def find_time_range(text: str) -> TimeMatch | None:
    """The first time expression of ``text`` and where it is (see :func:`parse_time_range`).

    >>> find_time_range("works of the eighties")
    TimeMatch(years=(1980, 1989), start=9, end=21, guess=True, months=None)
    >>> find_time_range("made in the '90s").years, find_time_range("in 1765").start
    ((1990, 1999), 3)
    >>> find_time_range("from the seventeen-nineties")
    TimeMatch(years=(1790, 1799), start=9, end=27, guess=False, months=None)
    >>> find_time_range("opened in March 1938").months, find_time_range("in oct. 1933").years
    ((3, 3), (1933, 1933))
    """
    lowered = text.lower()
    span = _SPAN_RE.search(lowered)
    if span:
        if span.group(1):
            start, start_s, end, end_s = span.group(1, 2, 3, 4)
            low = int(start)
            high = int(end) + (_decade_width(int(end)) if end_s else 0)
        else:
            low, high = int(span.group(5)), int(span.group(6))
        return TimeMatch((low, high), span.start(), span.end()) if low <= high else None
    found: list[TimeMatch] = []
    for match in _CENTURY_RE.finditer(lowered):
        number = int(match.group(2)) if match.group(2) else _ORDINALS[match.group(3)]
        if 0 < number <= 21:
            found.append(TimeMatch(_century(number, match.group(1), bool(match.group(4))),
                                   match.start(), match.end()))
    for match in _DECADE_RE.finditer(lowered):
        start = int(match.group(1))
        found.append(TimeMatch((start, start + _decade_width(start)), match.start(),
                               match.end()))
    for match in _MONTH_RE.finditer(lowered):  # "in March 1938": that month
        year, month = int(match.group(2)), _month(match.group(1))
        found.append(TimeMatch((year, year), match.start(), match.end(),
                               months=(month, month)))
    for match in _SINGLE_RE.finditer(lowered):
        found.append(TimeMatch(_single_year(int(match.group(2)), match.group(1)),
                               match.start(), match.end()))
    worded = [(m.start(), m.end()) for m in _WORDED_DECADE_RE.finditer(lowered)]
    for match in _WORDED_DECADE_RE.finditer(lowered):
        start = _CENTURY_WORDS[match.group(1)] + _DECADE_WORDS[match.group(2)]
        found.append(TimeMatch((start, start + 9), match.start(), match.end()))
    for match in _DECADE_WORD_RE.finditer(lowered):
        if any(a <= match.start() < b for a, b in worded):
            continue
        word, digit = match.group(1), match.group(2) or match.group(3)
        decade = _DECADE_WORDS[word] if word else int(digit) * 10
        found.append(TimeMatch((DEFAULT_CENTURY + decade, DEFAULT_CENTURY + decade + 9),
                               match.start(), match.end(), guess=True))
    return min(found, key=lambda m: m.start) if found else None


def parse_time_range(text: str) -> tuple[int, int] | None:
    """Inclusive years named in ``text``: decades, centuries, single years and spans.

    A decade is its ten years ("the 1790s" -> 1790-1799) and "the 1800s" is 1800-1899. A
    century is written as collections write it, the 12th century being 1100-1199 (BC
    centuries keep the strict 500-401 BC); early/mid/late take a third of it,
    first/second half a half. "circa 1765" widens by :data:`CIRCA_YEARS`;
    "before"/"after"/"since"/"until" open the range. The first expression found wins.

    >>> parse_time_range("works from the 1790s"), parse_time_range("in the 1800s")
    ((1790, 1799), (1800, 1899))
    >>> parse_time_range("late eighteenth-century"), parse_time_range("5th century BC")
    ((1766, 1799), (-500, -401))
    >>> parse_time_range("before 1800"), parse_time_range("in 1765"), parse_time_range("no")
    ((-9999, 1799), (1765, 1765), None)
    """
    found = find_time_range(text)
    return found.years if found else None


def _decade_width(start: int) -> int:
    return 99 if start % 100 == 0 else 9


def _century(number: int, part: str | None, bc: bool) -> tuple[int, int]:
    if bc:  # 500 to 401 BC
        start, end = (number - 1) * 100 + 1, number * 100
    else:  # as collections write them: the 18th century is 1700–1799
        start, end = (number - 1) * 100, number * 100 - 1
    if part in {"early"}:
        end = start + 32
    elif part in {"mid", "middle"}:
        start, end = start + 33, start + 65
    elif part == "late":
        start = start + 66
    elif part == "first half of":
        end = start + 49
    elif part == "second half of":
        start = start + 50
    return (-end, -start) if bc else (start, end)


def _single_year(year: int, word: str | None) -> tuple[int, int]:
    if word in {"before"}:
        return MIN_YEAR, year - 1
    if word in {"until", "till"}:
        return MIN_YEAR, year
    if word == "after":
        return year + 1, MAX_YEAR
    if word == "since":
        return year, MAX_YEAR
    if word in {"circa", "around", "about", "c.", "ca."}:
        return year - CIRCA_YEARS, year + CIRCA_YEARS
    return year, year


_DOC_YEAR_RE = re.compile(r"(?<![\d.])(\d{3,4})(?:-\d\d(?:-\d\d)?)?(?![\d])")
_DATED_LINES = re.compile(r"^(?:Date|Beginning of existence|Created in \(event\)):.*$",
                          re.MULTILINE)


def years_of(text: str) -> set[int]:
    """Years in a document's own dates: when it came into existence or took place.

    >>> sorted(years_of("Created in (event): Production of X (1936)\\nNote: 1812"))
    [1936]
    """
    years: set[int] = set()
    for line in _DATED_LINES.findall(text):
        years.update(int(y) for y in _DOC_YEAR_RE.findall(line) if 100 <= int(y) <= 2100)
    return years
