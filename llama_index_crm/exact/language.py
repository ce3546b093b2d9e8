"""Question languages: which one a question is in, and its words in the planner's terms.

Each language has a lexicon in ``config/lexicon/<code>.json``: its function words (to
recognise it) and ``words``, phrases of the language mapped to the English question
vocabulary the rule planner reads ("combien de" → "how many", "a peint" → "painted").
Names are left as typed: they link in any language the graph labels them in.

A question in a language without a lexicon, or with words its lexicon does not know, is
never read as certain: the planner sees those words as unexplained, and the answer comes
from retrieval.

>>> lex = Lexicons.default()
>>> lex.detect("Qui a fondé l'église d'Asinou ?")
'fr'
>>> lex.detect("Ποιος ίδρυσε την Παναγία της Ασίνου;")
'el'
>>> lex.detect("who founded the church at asinou")
'en'
>>> lex.get("fr").translate("Qui a fondé l'église d'Asinou ?")
'who founded the church of Asinou?'
>>> lex.get("de").translate("Wer hat die Kirche Panagia Podithou gestiftet?")
'who has founded the church Panagia Podithou?'
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from llama_index_crm.ontology import find_config_dir
from llama_index_crm.storage.names import fold_name

__all__ = ["Lexicon", "Lexicons", "common_words"]

LEXICON_DIR = Path("lexicon")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_GREEK = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
INFLECTION = 3
"""Letters at the end of a word that inflection may change (Greek cases, Romance endings)."""
MIN_INFLECTED = 7
"""Letters a word needs for its other forms to be looked for."""
MIN_FOREIGN = 2
"""Function words of another language that make a question that language's."""


_TOKEN = re.compile(r"[^\W_]+(?:-[^\W_]+)*['’]?|[\"“”«»‘?!.,;:—–]|(?<!\S)-(?!\S)", re.UNICODE)
"""A word (an elided article keeps its apostrophe: "l'", "dell'"), or punctuation."""
_WHOLE_TOKEN = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*|[\"“”«»‘?!.,;:—–]|(?<!\S)-(?!\S)",
                          re.UNICODE)
"""A word with its apostrophes ("who's", "o'keeffe"), or punctuation."""
ENGLISH_AUX = frozenset({"has", "have", "had"})
PASSIVE_AUX = frozenset({"was", "were", "is", "are"})
QUESTION_WORDS = frozenset({"who", "what", "which", "when", "where", "how many", "whose",
                            "who is", "who are", "who was", "in which year"})


MIN_PART = 3
"""Letters each word of a compound needs ("Geburts|jahr")."""


def _key(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold().replace("’", "'").strip("'")


def _entry(phrase: str, elision: bool) -> str:
    """A lexicon phrase as :meth:`Lexicon.translate` reads it: where articles elide, a word
    ends at its apostrophe ("c'è" is read as "c" and "è", "jusqu'en" as "jusqu" and "en")."""
    key = _key(phrase)
    return re.sub(r"'(?=\w)", " ", key) if elision else key


@dataclass(frozen=True, slots=True)
class Lexicon:
    """One language's question words.

    Attributes:
        code: ISO 639-1 code.
        name: the language's English name.
        function_words: folded words that mark the language.
        words: phrase (lower case, accents kept) → the English planner words it stands for.
        folded: the same, keyed by folded phrase (a phrase typed without its accents).
        verb_last: participles end the clause ("Wer hat X gestiftet?"): a trailing verb
            after "who has" moves next to it.
        elision: articles are elided before a vowel ("l'église"): a word ends at its
            apostrophe.
        after_noun: articles that mean "of the" right after a noun (German writes its
            nouns with a capital: "die Stifter der Malereien" → "the donors of the
            paintings"), where elsewhere they mean "the".
        compounds: a name and a noun joined by hyphens make one word ("Solea-Tal": the
            Solea valley).
        question_words: folded words (or two-word phrases) that open a question in this
            language only ("welke", "em que"): a language whose other words are not known
            (``words`` empty) is still recognised, and its questions go to retrieval.
        patterns: (regular expression, replacement) rewrites of the translated question,
            for idioms with words between their parts ("more exhibitions than anyone
            else" → "the most exhibitions").
    """

    code: str
    name: str
    function_words: frozenset[str]
    words: Mapping[str, str]
    folded: Mapping[str, str]
    verb_last: bool = False
    elision: bool = False
    after_noun: Mapping[str, str] = field(default_factory=dict)
    compounds: bool = False
    patterns: tuple[tuple[re.Pattern[str], str], ...] = ()
    question_words: frozenset[str] = frozenset()

    @property
    def longest(self) -> int:
        """Words in the longest phrase of :attr:`words`."""
        return max((len(k.split()) for k in self.words), default=1)

    def _lookup(self, tokens: list[str]) -> str | None:
        if not all(t[:1].isalnum() for t in tokens):
            return None
        phrase = " ".join(_key(t) for t in tokens)
        found = self.words.get(phrase)
        if found is None and fold_name(phrase):
            found = self.folded.get(fold_name(phrase))
        if found is None and len(tokens) == 1 and tokens[0].islower():
            found = self._inflected(fold_name(phrase))
        return found

    def _inflected(self, word: str) -> str | None:
        """The English of another form of a word the lexicon holds ("τοιχογραφιών" of
        "τοιχογραφίες", "affrescate" of "affrescata"): the words of the lexicon that share
        all but their last :data:`INFLECTION` letters with it, when they all mean the same.
        Lower-case words only: names keep their capitals."""
        if len(word) < MIN_INFLECTED or " " in word:
            return None
        best, meanings = 0, set()
        for key, value in self.folded.items():
            if " " in key or len(key) < MIN_INFLECTED:
                continue
            shared = len(os.path.commonprefix([key, word]))
            if shared < len(word) - INFLECTION or shared < len(key) - INFLECTION:
                continue
            if shared > best:
                best, meanings = shared, {value}
            elif shared == best:
                meanings.add(value)
        roots = {m.removeprefix("was ").removeprefix("were ").removesuffix("s") for m in meanings}
        return sorted(meanings)[0] if len(roots) == 1 and "" not in roots else None

    def translate(self, question: str, keep: Sequence[tuple[int, int]] = ()) -> str:
        """The question with every known phrase replaced by its English words (longest
        first); names (the token spans ``keep``, see :meth:`tokens`) and unknown words are
        kept as typed."""
        if not self.words:
            return question
        tokens = self.tokens(question, self.elision)
        rewritten = self.rewrite(question)
        if rewritten != question:  # an idiom with words between its parts, then the rest
            names = [tokens[a:b] for a, b in keep]
            question, tokens = rewritten, self.tokens(rewritten, self.elision)
            keep = [(i, i + len(n)) for n in names for i in range(len(tokens) - len(n) + 1)
                    if n and tokens[i:i + len(n)] == n][:len(names)]
        kept = {i for a, b in keep for i in range(a, b)}
        out: list[str] = []
        verbs: list[int] = []
        i = 0
        longest = self.longest
        while i < len(tokens):
            if i in kept:
                out.append(tokens[i])
                i += 1
                continue
            genitive = self.after_noun.get(_key(tokens[i]))
            if genitive is not None and i >= 2 and tokens[i - 1][:1].isupper() and \
                    (i - 1) not in kept and self._lookup(tokens[i - 1:i]) not in (None, "") \
                    and _key(tokens[i - 1]) not in self.function_words:
                out.append(genitive)  # "die Stifter der Malereien": of the paintings
                i += 1
                continue
            for size in range(min(longest, len(tokens) - i), 0, -1):
                if any(k in kept for k in range(i, i + size)):
                    continue
                english = self._lookup(tokens[i:i + size])
                if english is not None:
                    if english:
                        # a capitalised word inside the question is part of a name: its
                        # English too ("l'église de la Sainte-Croix": the Holy Cross)
                        out.append(_capitalised(english, i > 0 and not self.compounds and all(
                            t[:1].isupper() for t in tokens[i:i + size])))
                        if english in VERB_FORMS:
                            verbs.append(len(out) - 1)
                    i += size
                    break
            else:
                out.extend(self._compound(tokens[i]))
                i += 1
        # the auxiliary the participle goes after: "who has … founded" moves next to "has";
        # "which churches were … painted" next to "were", its subject before it ("when was
        # the church built" stays as English has it)
        aux = next((k for k in range(1, len(out)) if out[k] in ENGLISH_AUX | PASSIVE_AUX),
                   None)
        if aux is not None and out[aux] in PASSIVE_AUX and aux < 2:
            aux = None
        if self.verb_last and verbs and aux is not None and len(out) > aux + 1:
            last = [k for k in range(len(out)) if out[k] not in "?!.,;:"][-1]
            if verbs[-1] == last and last > aux + 1:
                # "who has the church X founded", "which churches were in 1494 painted"
                out.insert(aux + 1, out.pop(last))
        out = _centuries(out)
        if out == tokens:
            return question  # nothing of the lexicon's: the question as typed
        text = " ".join(out)
        return re.sub(r"\s+([?!.,;:])", r"\1", text)

    def rewrite(self, text: str) -> str:
        """``text`` with this lexicon's :attr:`patterns` applied (the English ones also
        read other languages' questions once their words are English)."""
        for pattern, replacement in self.patterns:
            text = pattern.sub(replacement, text)
        return text

    def _compound(self, token: str) -> list[str]:
        """A name joined by hyphens to a noun of the lexicon ("Marathasa-Tal",
        "Heilig-Kreuz-Kirche") as the name and the noun's English ("Marathasa", "valley");
        other words as typed."""
        if not self.compounds:
            return [token]
        if "-" not in token:
            return self._joined(token)
        head, _, last = token.rpartition("-")
        english = self._lookup([last]) if last[:1].isupper() else None
        if not english or not head:
            return [token]
        parts = [_capitalised(self._lookup([w]) or w, w[:1].isupper())
                 for w in head.split("-")]  # "Heilig-Kreuz": Holy Cross, a name still
        return [" ".join(parts), english]

    def _joined(self, token: str) -> list[str]:
        """A compound of two words of the lexicon written as one ("Geburtsjahr": birth
        year, "Sterbeort"), as their English; other words as typed."""
        word = fold_name(token)
        if " " in word or len(word) < 2 * MIN_PART:
            return [token]
        for cut in range(MIN_PART, len(word) - MIN_PART + 1):
            head, tail = word[:cut], word[cut:]
            first = next((self.folded[h] for h in (head, head.removesuffix("s"),
                                                   head + "e", head.removesuffix("es"))
                          if h in self.folded and self.folded[h]), None)
            second = self.folded.get(tail)
            if first and second:
                return [first, second]
        return [token]

    @staticmethod
    def tokens(question: str, elision: bool = True) -> list[str]:
        """The words and punctuation :meth:`translate` reads (``elision``: a word ends at
        an apostrophe, as French and Italian articles do)."""
        pattern = _TOKEN if elision else _WHOLE_TOKEN
        question = question.replace("„", "“").replace("‚", "‘")  # German opening quotes
        return pattern.findall(unicodedata.normalize("NFC", question))


VERB_FORMS = frozenset({
    "founded", "built", "painted", "made", "drew", "sculpted", "photographed", "engraved",
    "sponsored", "commissioned", "designed", "acquired", "bought", "depicted", "born", "died",
    "opened", "closed", "shown", "exhibited", "directed", "organised", "organized"})
"""English verbs a lexicon translates to (a German participle ends its clause)."""


_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_NUMBERED = re.compile(r"^(\d{1,2}|[ivxlc]{1,6})(?:e|er|ème|eme|o|ο|º|°|\.|th|st|nd|rd)?\.?$",
                       re.IGNORECASE)
"""A century's number as other languages write it: "XIVe", "XIV", "14ο", "14.", "14º"."""


def _capitalised(text: str, capital: bool) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split()) if capital else text


def _number(text: str) -> int | None:
    match = _NUMBERED.match(text)
    if match is None:
        return None
    digits = match.group(1).lower()
    if digits.isdigit():
        return int(digits)
    values = [_ROMAN[c] for c in digits]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v
                for i, v in enumerate(values))
    return total if 0 < total <= 21 else None


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _centuries(words: list[str]) -> list[str]:
    """A century written with its number before or after the word ("au XIVe siècle",
    "siglo XIV", "im 14. Jahrhundert", "τον 14ο αιώνα"), as English writes it: "14th
    century"."""
    out = list(words)
    for i, word in enumerate(out):
        if word != "century":
            continue
        dotted = i >= 2 and out[i - 1] == "."  # "im 14. Jahrhundert"
        for j in (i - 2 if dotted else i - 1, i + 1):
            if 0 <= j < len(out) and out[j] != "century":
                n = _number(out[j])
                if n is not None and not (out[j].isdigit() and len(out[j]) > 2):
                    out[j] = ""
                    if dotted and j == i - 2:
                        out[i - 1] = ""
                    out[i] = f"{_ordinal(n)} century"
                    break
    out = [w for w in out if w]
    for i, word in enumerate(out):  # "τον 14ο αιώνα": a time in the accusative, no "in"
        if word.endswith(" century") and i >= 2 and out[i - 1] == "the" and \
                out[i - 2] not in TIME_PREPOSITIONS:
            out.insert(i - 1, "in")
            break
    return out


TIME_PREPOSITIONS = frozenset({"in", "of", "during", "from", "since", "until", "by", "to",
                               "before", "after", "between", "and"})


class Lexicons:
    """Every language lexicon of ``config/lexicon/``."""

    def __init__(self, lexicons: Mapping[str, Lexicon]) -> None:
        self.by_code = dict(lexicons)

    @classmethod
    @cache
    def default(cls) -> Lexicons:
        """The lexicons shipped in ``config/lexicon/``."""
        folder = find_config_dir() / LEXICON_DIR
        found: dict[str, Lexicon] = {}
        for path in sorted(folder.glob("*.json")):
            obj = json.loads(path.read_text(encoding="utf-8"))
            elided = bool(obj.get("elision", False))
            words = {_entry(k, elided): v for k, v in obj.get("words", {}).items() if _key(k)}
            folded: dict[str, str] = {}
            for key, value in words.items():
                folded.setdefault(fold_name(key), value)
            found[obj["language"]] = Lexicon(
                obj["language"], obj.get("name", obj["language"]),
                frozenset(fold_name(w) for w in obj.get("function_words", ())), words, folded,
                bool(obj.get("verb_last", False)), elided,
                {_key(k): v for k, v in obj.get("after_noun", {}).items()},
                bool(obj.get("compounds", False)),
                tuple((re.compile(p["match"], re.IGNORECASE), p["english"])
                      for p in obj.get("patterns", ())),
                frozenset(fold_name(w) for w in obj.get("question_words", ())))
        return cls(found)

    def detect(self, question: str) -> str:
        """The question's language: ``el`` for Greek script, else the lexicon whose
        function words it holds most (English unless another has at least
        :data:`MIN_FOREIGN` and more); ``und`` for a script no lexicon covers."""
        text = unicodedata.normalize("NFKC", question)
        if _GREEK.search(text) and len(_GREEK.findall(text)) > len(text) // 4:
            return "el"
        if _CYRILLIC.search(text):
            return "und"
        words = [fold_name(w) for w in _WORD.findall(text)]
        # words typed in lower case (and the first): a title's or a name's words ("The
        # Rocky Mountains", "Taos Canyon, New Mexico") say nothing of the asker's language
        typed = _WORD.findall(text)
        asked = [fold_name(t) for i, t in enumerate(typed) if i == 0 or not t[:1].isupper()]
        english_words = common_words()
        scores = {code: sum(w in lex.function_words if code == "en" else len(w) > 1 and (
                                w in lex.function_words or w in lex.words
                                and w not in english_words) for w in asked)
                  for code, lex in self.by_code.items()}
        if words:  # a question word of one language only opens its questions
            first = _key(_WORD.findall(text)[0])
            own = self.by_code.get("en")
            pair = " ".join(_key(w) for w in _WORD.findall(text)[:2])
            if own is None or words[0] not in own.function_words:
                claimants = [code for code, lex in self.by_code.items()  # "wie viele"
                             if code != "en" and (lex.words.get(first) in QUESTION_WORDS
                                                  or lex.words.get(pair) in QUESTION_WORDS
                                                  or fold_name(first) in lex.question_words
                                                  or fold_name(pair) in lex.question_words)]
                # a word that opens questions in several languages ("quando": Italian and
                # Portuguese; "wie": Dutch "who", German "how"): the one whose words the
                # question holds most
                rivals = [code for code, lex in self.by_code.items()
                          if code != "en" and code not in claimants
                          and (words[0] in lex.function_words or words[0] in lex.folded)]
                if len(claimants) == 1 and not rivals:
                    return claimants[0]
                if claimants:
                    return max(claimants + rivals,
                               key=lambda c: (scores[c], c in claimants))
        english = scores.get("en", 0)
        best = max((c for c in scores if c != "en"), key=lambda c: scores[c], default="en")
        if best != "en" and scores[best] >= MIN_FOREIGN and scores[best] > english:
            return best
        return "en"

    def get(self, code: str) -> Lexicon | None:
        """The lexicon of ``code``."""
        return self.by_code.get(code)


@cache
@cache
def common_words() -> frozenset[str]:
    """Common English words (``config/lexicon/en_common.txt``)."""
    path = find_config_dir() / LEXICON_DIR / "en_common.txt"
    if not path.exists():
        return frozenset()
    return frozenset(line.strip() for line in path.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#"))
