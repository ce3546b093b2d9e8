"""Conversation: turn a follow-up ("Who made it?") into a self-contained retrieval text.

Pure functions over plain strings, shared by every :class:`~.analysis.QueryAnalyzer`:
:func:`quoted_titles` and :func:`name_spans` find what a question names, :func:`is_follow_up`
decides whether it leans on the previous turn, and :func:`contextualise` appends the
previous turn's subject.

>>> history = [('Tell me about "Nancy and Jim Dine".', "R. B. Kitaj, 1970")]
>>> contextualise("Who made it?", history)
'Who made it? Nancy and Jim Dine'
>>> contextualise("Who painted Asinou?", history)
'Who painted Asinou?'
>>> name_spans("How many works did R. B. Kitaj make in Cyprus?")
['R. B. Kitaj', 'Cyprus']
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

__all__ = [
    "MAX_LOOKBACK",
    "MAX_QUESTION_CHARS",
    "SHORT_QUESTION_WORDS",
    "clip",
    "contextualise",
    "is_follow_up",
    "name_spans",
    "quoted_titles",
    "resolve_reference",
    "strip_quoted",
]

Turn = tuple[str, str]
"""One earlier turn: (question, answer or top entity label)."""

SHORT_QUESTION_WORDS = 5
"""A question of at most this many words and no name of its own is taken as a follow-up."""

MAX_LOOKBACK = 3
"""How many earlier turns are searched for the subject a follow-up refers to."""

MAX_QUESTION_CHARS = 2000
"""Only this many leading characters of a question are examined (longer text is not a
question; the cap keeps every pattern linear in practice)."""

MAX_LABEL_CHARS = 100
"""An answer longer than this is not appended whole; its first title or name is."""

_QUOTE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r'"([^"\n]+)"'),
    re.compile(r"“([^”\n]+)”"),
    re.compile(r"‘([^’\n]+)’(?!\w)"),
    re.compile(r"«([^»\n]+)»"),
    # single quotes: opening after start/space/bracket, closing before end/space/punctuation,
    # so that apostrophes ("Whistler's", "Visitors' Boat") are not taken for quotes
    re.compile(r"(?:(?<=^)|(?<=[\s(\[]))'([^'\s][^'\n]*)'(?=$|[\s.,;:!?)\]])"),
)

def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a set (for long word lists)."""
    return frozenset(text.split())


_PERSONAL = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself"})
_PRONOUNS = _PERSONAL | frozenset({
    "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
    "this", "these", "those"})
_THAT_DEMONSTRATIVE_AFTER = frozenset({
    "about", "of", "in", "on", "for", "with", "by", "from", "is", "was", "did", "does", "made",
    "make", "painted", "paint", "created", "create", "produced", "acquired", "bought", "owns",
    "own", "who", "when", "where", "what", "how", "and"})
"""``that`` after one of these words points back ("Who made that?"); elsewhere it is a
relative pronoun ("works that show Paris")."""

_PARTICLES = frozenset({"de", "da", "di", "del", "della", "van", "von", "der", "den", "du",
                        "la", "le", "y", "ter", "zu"})
"""Lower-case name particles that may start a name ("van Gogh", "de Kooning")."""
_CONNECTORS = _PARTICLES | {"of", "the", "for", "des", "tou", "tis", "ton"}
"""Lower-case words kept inside a name between two capitalised words ("John Taylor of Bath",
"Panagia tou Araka", "Notre-Dame des Victoires")."""

_STARTERS = word_set("""
a about after all an and any are as at be before between by can could count did do does each
enumerate every find for from give has have how i i'd i'm i've if in is it its list many may me
my name no not of on or please show so some tell that the their then there these they this those
to was we were what when where whether which who whom whose why will with would you your
work works artwork artworks painting paintings object objects picture pictures number
describe explain identify
""")
"""Words that are capitalised at the start of a sentence without being names."""

_NOT_NAMES = word_set("""
i i'd i'm i've january february march april june july august september october november
december monday tuesday wednesday thursday friday saturday sunday
""")
_ABBREVIATIONS = frozenset({"st.", "mr.", "mrs.", "ms.", "dr.", "jr.", "sr.", "rev.", "co."})
_LEAD = "\"“”‘’'«»([{"
_TRAIL = "\"“”‘’'«»)]},;:!?"
_INITIAL_RE = re.compile(r"[A-Z]\.?")
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)


def clip(text: str) -> str:
    """``text`` cut to :data:`MAX_QUESTION_CHARS`, at a word boundary.

    >>> clip("short question")
    'short question'
    """
    if len(text) <= MAX_QUESTION_CHARS:
        return text
    head = text[:MAX_QUESTION_CHARS]
    cut = head.rsplit(None, 1)[0] if not text[MAX_QUESTION_CHARS].isspace() else head
    return cut if cut else head


def quoted_titles(text: str) -> list[str]:
    """Titles quoted in ``text`` ("…", “…”, ‘…’, '…', «…»), verbatim, in order.

    Args:
        text: a question.

    Returns:
        The quoted strings without their quotes, de-duplicated.

    >>> quoted_titles('''Who made "Visitors' Boat" and 'The Urns'?''')
    ["Visitors' Boat", 'The Urns']
    """
    text = clip(text)
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _QUOTE_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            found.append((start, match.group(1).strip()))
    return _unique(title for _, title in sorted(found))


def strip_quoted(text: str, placeholder: str = " ") -> str:
    """``text`` with every quoted title replaced by ``placeholder``.

    >>> strip_quoted('When was "How Many Days" made?', "TITLE")
    'When was TITLE made?'
    """
    for pattern in _QUOTE_PATTERNS:
        text = pattern.sub(placeholder, text)
    return text


def name_spans(text: str, ignore: Collection[str] = ()) -> list[str]:
    """Capitalised name spans outside quotes ("Edward McKnight Kauffer", "John Taylor of Bath").

    A span is a run of capitalised words or initials, possibly joined by lower-case
    connectors (``of``, ``the``, ``de``, ``van``, ``tou``...). Words that are capitalised only
    because they start a sentence ("What", "List", "Paintings") are skipped, as are month names.

    Args:
        text: a question.
        ignore: more lower-case words that are not names when they start a sentence
            (the analyzer passes its nouns: "Paintings of Paris").

    Returns:
        The spans in order, de-duplicated.
    """
    spans: list[str] = []
    current: list[str] = []
    pending: list[str] = []  # connectors waiting for a capitalised word

    def close() -> None:
        if current and not (len(current) == 1 and (current[0].lower() in _NOT_NAMES
                                                   or _INITIAL_RE.fullmatch(current[0]))):
            spans.append(" ".join(current))
        current.clear()
        pending.clear()

    sentence_start = True
    for raw in strip_quoted(clip(text), " | ").split():
        word = raw.lstrip(_LEAD).rstrip(_TRAIL)
        breaks = word != raw.lstrip(_LEAD) or raw == "|"
        possessive = word.endswith(("'s", "’s"))
        if possessive:
            word = word[:-2]
        initial = bool(_INITIAL_RE.fullmatch(word)) or word.lower() in _ABBREVIATIONS
        ends_sentence = word.endswith(".") and not initial
        word = word.rstrip(".") if ends_sentence else word
        lower = word.lower()
        starter = sentence_start and (lower in _STARTERS or lower in ignore)
        if word[:1].isupper() and not starter:
            current.extend(pending)
            pending.clear()
            current.append(word)
        elif (lower in _CONNECTORS and current) or (lower in _PARTICLES and not current):
            pending.append(word)
        else:
            close()
        if breaks or possessive or ends_sentence:
            close()
        sentence_start = ends_sentence or (sentence_start and not word)
    close()
    return _unique(spans)


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD_RE.findall(text)]


def _has_pronoun(words: Sequence[str]) -> bool:
    for i, word in enumerate(words):
        if word in _PRONOUNS:
            return True
        after = words[i - 1] if i > 0 else ""
        if word == "that" and (i == len(words) - 1 or after in _THAT_DEMONSTRATIVE_AFTER):
            return True
    return False


_POINTING = frozenset({"it", "he", "him", "she", "they", "them"})
"""Pronouns that stand for something named before (not possessives: "its own tower")."""


def dangling_pronoun(question: str) -> str | None:
    """The pronoun ``question`` points back with, when it names nothing itself ("Who made
    it?" → ``it``); None for a question that names what it asks about.

    >>> dangling_pronoun("Who made it?"), dangling_pronoun("Who made 'Return to Tilbury'?")
    ('it', None)
    """
    if quoted_titles(question) or name_spans(question):
        return None
    words = _words(clip(question))
    for i, word in enumerate(words):
        if word in _POINTING:
            return word
        if word == "that" and i and i == len(words) - 1 and \
                words[i - 1] in _THAT_DEMONSTRATIVE_AFTER:
            return word
    return None


_TOPIC = re.compile(r"^\s*(?P<topic>[^?]{3,})\s*(?:\s[-–—]\s|[:;]\s)\s*(?P<rest>.+)$")
_SUBJECT_PRONOUNS = frozenset({"he", "she", "it", "they", "him", "her", "them"})
_POSSESSIVE_PRONOUNS = frozenset({"his", "its", "their"})


def inline_topic(question: str) -> tuple[str, str, str] | None:
    """A question that names its topic first and points back to it after a dash or a colon
    ("the sculptor of two cougars - where was he born?", "grand prix photo: what year was
    it taken?"), as (the question with the topic in place of the pronoun, the pronoun, the
    topic); None otherwise.

    >>> inline_topic("the sculptor of two cougars - where was he born?")[0]
    'where was the sculptor of two cougars born?'
    >>> inline_topic("Who made it?") is None
    True
    """
    match = _TOPIC.match(question)
    if match is None:
        return None
    topic, rest = match.group("topic").strip(), match.group("rest").strip()
    for m in re.finditer(r"[^\W\d_]+", rest):
        word = m.group().lower()
        if word in _SUBJECT_PRONOUNS or word in _POSSESSIVE_PRONOUNS:
            said = topic + ("'s" if word in _POSSESSIVE_PRONOUNS else "")
            return rest[:m.start()] + said + rest[m.end():], m.group(), topic
    return None


def is_follow_up(question: str) -> bool:
    """Whether ``question`` needs the conversation to be understood.

    A question that names something itself (a quoted title or a capitalised name) stands
    alone; one without a name is a follow-up when it uses an anaphoric pronoun (it, its, he,
    she, they, this, that...) or is very short ("And the date?").

    >>> is_follow_up("Who was its artist?"), is_follow_up("Who made 'Return to Tilbury'?")
    (True, False)
    """
    if quoted_titles(question) or name_spans(question):
        return False
    words = _words(clip(question))
    if not words:
        return False
    return _has_pronoun(words) or len(words) <= SHORT_QUESTION_WORDS


def _anchor_of(question: str) -> tuple[str, bool] | None:
    titles = quoted_titles(question)
    if titles:
        return titles[0], True
    spans = name_spans(question)
    return (" ".join(spans), False) if spans else None


def _is_who_question(question: str) -> bool:
    words = _words(question)[:4]
    return any(w in {"who", "whom", "whose"} for w in words)


def _label_anchor(answer: str) -> tuple[str, bool] | None:
    answer = " ".join(answer.split())
    if not answer:
        return None
    if len(answer) <= MAX_LABEL_CHARS:
        return answer, False
    return _anchor_of(answer)


def resolve_reference(question: str, history: Sequence[Turn] | None) -> tuple[str, bool] | None:
    """The earlier subject a follow-up refers to, and whether it was a quoted title.

    He/she/his/her after a "who" question refer to its answer; other references go to the
    nearest earlier question that named something (up to :data:`MAX_LOOKBACK` turns back),
    else to the last answer or top entity label.

    Args:
        question: the current question.
        history: earlier ``(question, answer-or-top-entity-label)`` turns, oldest first.

    Returns:
        ``(text, quoted)`` or ``None`` when the question stands alone or nothing fits.
    """
    turns = [(str(q or ""), str(a or "")) for q, a in (history or [])]
    if not turns or not is_follow_up(question):
        return None
    last_question, last_answer = turns[-1]
    if _PERSONAL.intersection(_words(question)) and _is_who_question(last_question):
        label = _label_anchor(last_answer)
        if label:
            return label
    for earlier, _ in reversed(turns[-MAX_LOOKBACK:]):
        anchor = _anchor_of(earlier)
        if anchor:
            return anchor
    return _label_anchor(last_answer)


def contextualise(question: str, history: Sequence[Turn] | None = None) -> str:
    """The retrieval text for ``question``: itself, plus the earlier subject for a follow-up.

    Args:
        question: the current question.
        history: earlier ``(question, answer-or-top-entity-label)`` turns, oldest first.

    Returns:
        ``question`` unchanged when it stands alone, else ``"<question> <subject>"``.

    >>> contextualise("When was it made?", [("I'd like to know more about 'Battersea Reach'.", "")])
    'When was it made? Battersea Reach'
    """
    question = question if isinstance(question, str) else str(question or "")
    reference = resolve_reference(question, history)
    if reference is None:
        return question
    return f"{question.rstrip()} {reference[0]}"


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return list(seen)
