"""The rule-based planner: an English question to an :class:`~.plan.ExactPlan`.

Not one pattern per question template: the question is cut into *elements* and the plan is
composed from them.

1. Quoted titles and the time expression ("in the 1780s", "between 1750 and 1760", "the
   eighties") are taken out first.
2. Names: every run of words that names a graph node exactly is a *mention*
   (:meth:`NameIndex.scan`, longest first); words outside the question vocabulary that are
   left over form *runs*, looked up with surnames, misspellings and partial titles when
   they stand where a name is expected ("by …", "of …", "depicting …").
3. Vocabulary: question words, class nouns ("works", "paintings" — type words learnt from
   the graph —, "artists"), relation words (verbs and nouns of
   ``config/exact/relations.json``), operation words (how many, oldest, most, per decade).
4. Composition: the head (what is asked for: "who", "works", or a named node), then each
   relation word links the element before it to the element after it; the relation is the
   one the word names whose domain and range fit the two categories (``works`` by
   ``Valentine Green`` → Thing made by Actor). A link to a noun continues the chain from
   that noun ("works by artists born in London").

A name that links to nothing is reported, with the graph's closest names, so the answer can
say it is not there; several equally good nodes are reported as an ambiguity.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from llama_index_crm.exact.linking import (
    STOP_WORDS,
    Candidate,
    Mention,
    Missing,
    NameIndex,
    TrialLink,
    Unresolved,
    link_name,
)
from llama_index_crm.exact.parse_ops import OperationParts
from llama_index_crm.exact.parse_words import (
    _BARE_CONTRACTIONS,
    _CONTRACTED,
    _CONTRACTIONS,
    _HOW_SIZE,
    _NEGATIVE,
    _ORDINAL_RE,
    _SHOW_ME,
    _TOKEN_RE,
    AUX,
    DESCRIBE_RE,
    DETERMINERS,
    FILLER,
    HOLDING_VERBS,
    HONORIFICS,
    HOW_MEASURES,
    IMPERATIVE,
    MIN_FIXED_WORD,
    MIN_VOCABULARY_TITLE,
    NAME_NOUNS,
    NOUNS_OF,
    OTHERNESS,
    PRONOUNS,
    QUOTE,
    TIME,
    TITLE_RELATION,
    WH,
    WORDS,
    Element,
    Parsed,
    Slot,
    _expand_bare,
    _expand_negative,
    _size_question,
    fits,
    pronoun_fits,
)
from llama_index_crm.exact.person_names import NAME_SUFFIXES, max_edits
from llama_index_crm.exact.plan import Anchor, ValueFilter
from llama_index_crm.exact.relations import Relation, RelationLexicon
from llama_index_crm.exact.vocabulary import QuestionWords
from llama_index_crm.ontology import CATEGORIES
from llama_index_crm.query.conversation import quoted_titles
from llama_index_crm.query.lexicon import pluralise, singularise, word_stem
from llama_index_crm.query.temporal import find_time_range
from llama_index_crm.storage.names import fold_name

__all__ = ["Missing", "Parsed", "RulePlanner", "Unresolved", "link_name"]


class RulePlanner:
    """Compiles questions into :class:`ExactPlan` objects, English rules, no LLM.

    Args:
        names: the graph's name index.
        lexicon: the relations.
        type_nouns: type label (lower case) → category, learnt from the graph.
        trial: checks a candidate anchor gives a non-empty link (to settle ties by data).
        present: whether the graph holds a relation at all.
        holders: IRIs of the actors that acquired most of the graph's works (the museum
            whose collection it is): "works at the museum" means the whole collection.
        words: the question words (default: English, ``config/lexicon/planner/en.json``);
            the class nouns, type words and vocabulary are read from them here, the
            builder's rules use the English tables of :mod:`.parse_words`.
    """

    def __init__(self, names: NameIndex, lexicon: RelationLexicon | None = None,
                 type_nouns: Mapping[str, str] | None = None, trial: TrialLink | None = None,
                 present: Callable[[str], bool] | None = None,
                 holders: Callable[[], frozenset[str]] | None = None,
                 words: QuestionWords | None = None) -> None:
        self.words = w = words or WORDS
        self.names = names
        self.lexicon = lexicon or RelationLexicon.default()
        self.trial = trial
        self.present = present or (lambda _: True)
        self.holders = holders or frozenset
        nouns = dict(w.class_nouns)
        self.type_words: set[str] = set(w.thing_type_words)
        for label, category in (type_nouns or {}).items():
            # an AAT qualifier is no part of the noun: "bronzes (visual works)" → "bronzes"
            key = fold_name(re.sub(r"\([^()]*\)", " ", label)) or fold_name(label)
            # a type labelled "Other" is no reading of "which other works" (OTHERNESS)
            if key and key not in nouns and len(key) >= 3 and not key.isdigit() and \
                    key not in OTHERNESS:
                for form in dict.fromkeys((key, pluralise(key), singularise(key))):
                    nouns.setdefault(form, category)
                self.type_words.add(singularise(key))
                self.type_words.add(key)
        # "exhibitions" for a graph whose exhibitions are typed "Exhibiting": one stem
        self.type_stems: dict[str, str] = {}
        for word in sorted(self.type_words):
            self.type_stems.setdefault(word_stem(word), word)
        for relation in self.lexicon.values():  # the graph's roles: "directors", "curators"
            if relation.via_labels:
                for noun in relation.nouns:
                    nouns.setdefault(noun, relation.range)
        for word in w.thing_type_words:
            nouns.setdefault(word, "Thing")
            nouns.setdefault(pluralise(word), "Thing")
        self.nouns = nouns
        self.relation_words = {fold_name(w) for r in self.lexicon.values() for w in r.words}
        self.vocabulary = (w.wh | w.aux | w.determiners | w.imperative | w.filler | w.otherness
                           | w.collection | w.holding_verbs | w.count_words | w.prepositions
                           | set(w.pronouns) | set(w.superlatives) | set(w.numbers)
                           | set(nouns) | w.group_words | set(w.group_units)
                           | {x for p in self.relation_words for x in p.split()}
                           | w.connectives
                           | w.describe_words | w.ranking_words
                           | {x for e in w.exclusions for x in e.split()})
        self._vocab_list = sorted(self.vocabulary)

    # -- entry point -----------------------------------------------------------------------
    def parse(self, question: str, focus: Sequence[Anchor] = (),
              chosen: Mapping[str, str] | None = None) -> Parsed:
        """Plan ``question``; ``focus``: what the previous turn was about (pronouns);
        ``chosen``: folded phrase → the node it names, where the question itself settles
        a tie ("self-portrait by george bellows")."""
        text = " ".join(unicodedata.normalize("NFKC", question).split())
        described = DESCRIBE_RE.match(text)
        elements, time = self._elements(text, focus)
        if not elements:
            return Parsed(reason="no words")
        for i, el in enumerate(elements):
            node = (chosen or {}).get(fold_name(el.text)) if el.mention is not None else None
            if node is not None and el.mention is not None:
                # a node the name also names, of a kind its best match is not ("Jeff
                # Bezos": two portraits titled so, and the person Jeffrey P. Bezos)
                kept = tuple(c for c in el.mention.candidates if c.node == node) or next(
                    (found for kind in CATEGORIES if (found := tuple(
                        c for c in self.names.lookup(el.text, [kind]) if c.node == node))), ())
                if kept:
                    elements[i] = replace(el, mention=replace(el.mention, candidates=kept))
        return _Builder(self, text, elements, time, bool(described), chosen or {}).build()

    # -- elements --------------------------------------------------------------------------
    def _elements(self, text: str,
                  focus: Sequence[Anchor]) -> tuple[list[Element], tuple[ValueFilter, bool] | None]:
        text = _CONTRACTIONS.sub(lambda m: m.group(1) + _CONTRACTED[m.group(2).lower()], text)
        titles = quoted_titles(text)
        bare = text
        for i, title in enumerate(titles):
            bare = re.sub(r"[\"“”‘’'«»]?" + re.escape(title) + r"[\"“”‘’'«»]?",
                          f" {QUOTE.format(i)} ", bare, count=1)
        bare = _BARE_CONTRACTIONS.sub(_expand_bare, bare)  # not inside quoted titles
        bare = _NEGATIVE.sub(_expand_negative, bare)
        bare = _HOW_SIZE.sub(_size_question, bare)
        bare = _SHOW_ME.sub("", bare)  # "show me the churches": no verb of depicting
        found = find_time_range(bare)
        spans = []  # every time expression: the first filters, the others are read past
        start = 0
        while True:
            more = find_time_range(bare[start:])
            if more is None:
                break
            spans.append((start + more.start, start + more.end))
            start += more.end
        elements: list[Element] = []
        for match in _TOKEN_RE.finditer(bare):
            raw = match.group()
            quote = re.fullmatch(r"⟦q(\d+)⟧", raw)
            if quote:
                elements.append(self._quoted(titles[int(quote.group(1))]))
                continue
            in_time = any(a <= match.start() < b for a, b in spans)
            possessive = bool(re.search(r"['’]s$", raw)) and len(raw) > 2
            core = raw[:-2] if possessive else raw.rstrip(".")
            parts = fold_name(core).split()
            for k, part in enumerate(parts):
                last = k == len(parts) - 1
                # "self-portrait" is two words, each its own text (not the whole twice)
                elements.append(Element("word", [part], core if len(parts) == 1 else part,
                                    possessive=possessive and last,
                                    alt=part + "s" if possessive and last else "",
                                    in_time=in_time))
        if focus:
            elements = self._pronouns(elements, focus)
        elements = self._mentions(elements)
        if focus and self._asks_about_nothing(elements):
            # "what year?", "who was the artist?": about what the last turn was about
            anchor = focus[0]
            candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0,
                                  "previous turn")
            elements += [Element("word", ["of"], "of"),
                         Element("mention", [fold_name(anchor.label)], anchor.label,
                             Mention(0, 0, anchor.label, (candidate,)))]
        time = None
        if found is not None and any(e.in_time for e in elements):
            # the expression was not part of a title: it becomes one time element
            kept: list[Element] = []
            for el in elements:
                if el.in_time:
                    if not kept or kept[-1].kind != "time":
                        kept.append(Element("time", [TIME], TIME))
                else:
                    kept.append(el)
            elements = kept
            time = (ValueFilter("creation-date", found.years, decade_guess=found.guess,
                                months=found.months), found.guess)
        return self._runs(elements), time

    def _asks_about_nothing(self, elements: Sequence[Element]) -> bool:
        """A question that names nothing but asks something (a question word or an
        attribute noun): a follow-up about the previous turn's subject."""
        if any(e.kind != "word" for e in elements):
            return False
        words = [e.word for e in elements]
        asks = any(w in WH for w in words) or any(
            self.lexicon.by_word(w) for w in words if w in self.nouns or w not in self.vocabulary)
        return asks and not all(w in IMPERATIVE | FILLER | DETERMINERS | {"and"} for w in words)

    def _quoted(self, title: str) -> Element:
        candidates = self.names.lookup(title, surname=False)
        mention = Mention(0, 0, title, tuple(candidates)) if candidates else None
        if mention is not None:
            return Element("mention", fold_name(title).split(), title, mention)
        return Element("run", fold_name(title).split(), title)

    def _pronouns(self, elements: list[Element], focus: Sequence[Anchor]) -> list[Element]:
        """Pronouns pointing back replaced by what the previous turn was about."""
        has_name = any(e.kind == "mention" for e in elements)
        out = []
        replaced = False
        for i, el in enumerate(elements):
            word = el.word
            prefers = PRONOUNS.get(word)
            points_back = prefers is not None and not has_name and not replaced and (
                word not in WORDS.demonstratives or i == len(elements) - 1
                or elements[i + 1].word not in self.nouns)
            if points_back:
                chosen = [a for a in focus
                          if pronoun_fits(prefers or "", a.category)] or list(focus)
                kinds = self._pronoun_kinds(elements, i)  # "who made it": a work
                anchor = ([a for a in chosen if a.category in kinds] or chosen)[0]
                candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0,
                                      "previous turn")
                out.append(Element("mention", [word], anchor.label,
                               Mention(0, 0, anchor.label, (candidate,)),
                               possessive=word in WORDS.possessive_pronouns))
                replaced = True
            else:
                out.append(el)
        return out

    def _pronoun_kinds(self, elements: Sequence[Element], index: int) -> set[str]:
        """Categories the relations the question names need where its pronoun stands:
        the domain ("who made it": a Thing), the range after the relation's preposition
        ("which churches are in it": a Place)."""
        before = elements[index - 1].word if index else ""
        kinds: set[str] = set()
        for j, el in enumerate(elements):
            if j != index and el.kind == "word":
                for relation in self.lexicon.by_word(el.word):
                    kinds.add(relation.range if before in relation.prepositions
                              else relation.domain)
        return kinds

    def skip(self, span: Sequence[str]) -> bool:
        """Phrases that are question vocabulary, not names (but a title of four words or
        more may be made of them: "the artist and his family")."""
        if all(w in self.vocabulary or w.isdigit() for w in span) and (
                len(span) < MIN_VOCABULARY_TITLE or
                sum(w not in STOP_WORDS for w in span) < 2):
            return True
        return (span[0] in STOP_WORDS and span[0] not in WORDS.articles) or \
            span[-1] in STOP_WORDS or span[-1] == "s"

    def _mentions(self, elements: list[Element]) -> list[Element]:
        """Words grouped into mentions (exact names) and runs (unknown words)."""
        out: list[Element] = []
        i = 0
        while i < len(elements):
            if elements[i].kind != "word":
                out.append(elements[i])
                i += 1
                continue
            j = i
            while j < len(elements) and elements[j].kind == "word":
                j += 1
            block = elements[i:j]
            words = [e.alt or e.word for e in block]
            for m in self.names.scan(words, skip=self._capitalised_skip(block, i, elements)):
                if m.start > 0 or m.end < len(words):
                    pass
                block[m.start] = Element("mention", words[m.start:m.end],
                                     " ".join(e.text for e in block[m.start:m.end]), m,
                                     possessive=block[m.end - 1].possessive)
                for k in range(m.start + 1, m.end):
                    block[k] = Element("skip", [], "")
            out.extend(e for e in block if e.kind != "skip")
            i = j
        return out

    def _capitalised_skip(self, block: Sequence[Element], offset: int,
                          elements: Sequence[Element]) -> Callable[[Sequence[str]], bool]:
        """:meth:`skip`, except for words of the vocabulary written as a name: "who directed
        Three Painters", "exhibitions of Gallery One" (two words or more, each capitalised,
        not opening the question, in a question not written in title case)."""
        words = [e.alt or e.word for e in block]
        upper = [bool(e.text[:1].isupper()) and offset + k > 0 for k, e in enumerate(block)]
        # a number in a title written as a name ("who organized 12 Photographers")
        capital = [u or e.text.isdigit() for u, e in zip(upper, block, strict=True)]
        # the other words of the question, its first left out: in title case, capitals
        # say nothing ("Who Directed Three Painters")
        others = [(offset + k, e.text) for k, e in enumerate(block) if e.text]

        def as_name(k: int, n: int) -> bool:
            rest = [t for at, t in others if at > 0 and not offset + k <= at < offset + k + n]
            return all(capital[k:k + n]) and any(upper[k:k + n]) and (
                not rest or sum(t[:1].isupper() for t in rest) < 0.8 * len(rest))

        def skip(span: Sequence[str]) -> bool:
            if not self.skip(span):
                return False
            n = len(span)
            return n < 2 or not any(words[k:k + n] == list(span) and as_name(k, n)
                                    for k in range(len(words) - n + 1))
        return skip

    def _runs(self, elements: list[Element]) -> list[Element]:
        """Consecutive unknown words joined into runs; vocabulary typos corrected; name
        suffixes after a name ("… the younger", "… RA") dropped."""
        out: list[Element] = []
        for el in elements:
            if el.kind == "word" and _ORDINAL_RE.fullmatch(el.word):
                continue  # "the 18th, 19th and 20th centuries": read with the time
            if el.kind == "word" and el.word in NAME_NOUNS and out and out[-1].kind == "run":
                last = out[-1]  # "the Hopkins family", "the Smith Foundation"
                out[-1] = Element("run", [*last.words, el.word], f"{last.text} {el.text}",
                              possessive=el.possessive)
                continue
            if el.kind == "word" and el.word in NAME_SUFFIXES and el.word != "the":
                named = [e for e in out[-2:] if e.kind in {"mention", "run"}]
                if named and (out[-1].kind in {"mention", "run"} or out[-1].word == "the"):
                    if out[-1].word == "the":
                        out.pop()
                    continue
            if el.kind == "word" and el.word not in self.vocabulary and not el.word.isdigit():
                fixed = self._vocabulary_fix(el.word)
                if fixed is not None:
                    out.append(Element("word", [fixed], el.text, possessive=el.possessive))
                    continue
                if len(out) > 1 and out[-1].word == "and" and out[-2].kind == "run" and \
                        set(out[-2].words) <= HONORIFICS:  # "mr. and mrs. Austin Smithers"
                    out.pop()
                    first = out[-1]
                    out[-1] = Element("run", [*first.words, "and"], f"{first.text} and",
                                  possessive=False)
                if out and out[-1].kind == "run" and not out[-1].possessive:
                    last = out[-1]
                    out[-1] = Element("run", [*last.words, el.word], f"{last.text} {el.text}",
                                  possessive=el.possessive)
                else:
                    out.append(Element("run", [el.word], el.text, possessive=el.possessive))
            else:
                out.append(el)
        return out

    def _vocabulary_fix(self, word: str) -> str | None:
        """A misspelt question word ("paintigns" → "paintings"), unless it is a name."""
        if self.names.knows(word) or len(word) < MIN_FIXED_WORD:
            return None
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        hit = process.extractOne(word, self._vocab_list, scorer=Levenshtein.distance,
                                 score_cutoff=max_edits(word))
        return str(hit[0]) if hit else None

    # -- vocabulary look-ups ---------------------------------------------------------------
    def type_word(self, single: str) -> str:
        """The graph's type word for a noun's singular: itself when the graph has it, else a
        type word of the same stem ("exhibition" → "exhibiting")."""
        if single in self.type_words:
            return single
        return self.type_stems.get(word_stem(single), single)

    def relations_for(self, word: str) -> list[Relation]:
        """Relations a word names."""
        return self.lexicon.by_word(word)

    def time_verb(self, word: str) -> bool:
        """Whether a word is a verb of a date ("opened", "born")."""
        return any(r.value == "time" and word in r.verbs for r in self.lexicon.by_word(word))

    def noun_category(self, word: str) -> str | None:
        """The category a class noun names."""
        return self.nouns.get(word)


class _Builder(OperationParts):
    """Composes one question's elements into a plan."""

    def __init__(self, planner: RulePlanner, text: str, elements: list[Element],
                 time: tuple[ValueFilter, bool] | None, described: bool,
                 chosen: Mapping[str, str] | None = None) -> None:
        self.p = planner
        self.chosen = chosen or {}
        """Folded phrase → the node a tie of that phrase is read as (one reading each)."""
        self.text = text
        self.els = elements
        self.time = time
        self.periods = sum(1 for e in elements if e.kind == "time")
        self.described = described
        self.value_domains: list[str] = []
        """Kinds of node the asked attributes describe, first asked first."""
        self.roles: dict[tuple[int, int], str] = {}
        """Links (ids of their slots) to or from makers named by what they make: the word
        the made things' types (or their making events' types) hold."""
        self.missing: list[Missing] = []
        self.ambiguous: list[Unresolved] = []
        self.notes: list[str] = []
        self.words = [e.word for e in elements]
        self.verbs = [w for e in elements if e.kind == "word" for w in e.words]

    # -- the plan --------------------------------------------------------------------------
    def build(self) -> Parsed:
        words = self.words
        first = next((i for i, w in enumerate(words[:4]) if w in WH), None)
        wh = words[first] if first is not None else None
        if wh == "how" and first is not None and first + 1 < len(words) and \
                words[first + 1] in {"many", "much"}:
            wh = "how many"
        excluded = self._take_exclusions()
        titled = self._take_title_words()
        if self._yes_no():
            return self._yes_no_plan()
        operation, order, limit, group = self._operation(wh)
        head, rest = self._head(wh, operation)
        if head is None and titled is not None:
            head = Slot("Thing", "works")
        if head is not None and titled is not None:
            head.filters.append(ValueFilter(TITLE_RELATION, contains=titled))
        if head is None and operation in {"list", "count", "superlative", "group"} and \
                wh in {None, "what", "which", "whatever", "how many"} and (
                    operation in {"superlative", "group"} or any(
                        e.kind in {"mention", "run"} for e in rest)):
            head = Slot("Thing", "works")  # "what did Maria Turner make?"
        if head is not None and excluded:
            self._exclude(head, excluded)
        if self._dangling_pronoun():
            return self._done(None, "a pronoun with nothing before it to point to")
        if wh == "why" or (wh == "how" and not self._has(*HOW_MEASURES)):
            return self._done(None, "a how or why question: no fact of the graph answers it")
        if head is None and operation not in {"value", "describe"}:
            return self._done(None, "no subject")
        slots: list[Slot] = [head] if head is not None else []
        if operation == "value":  # a name of several kinds: the kind the attribute needs
            asked = sorted(self._attributes(wh, operation), key=lambda r: not self._verb_in(r))
            self.value_domains = list(dict.fromkeys(r.domain for r in asked
                                                    if r.domain != "Any"))
        anchors = self._chain(head, rest, slots)
        if self.missing or self.ambiguous:
            return self._done(None, "names")
        head = self._other_works(head, slots, operation)
        if head is not None and operation in {"list", "count"} and not head.links and \
                not head.filters and head.anchor is None and not self.notes:
            self._existential(head, slots)
        if operation in {"value", "describe"} and not self._titles_hold():
            return self._done(None, "names")
        attributes = [r for r in self._attributes(wh, operation)
                      if head is None or head.noun not in r.nouns]
        if operation in {"value", "describe"}:
            return self._value_plan(head, anchors, attributes, operation, slots)
        assert head is not None
        head = self._acquisitions(head, slots)
        counted = None
        if order is not None and order[0] == "count":
            counted = self._counted(head)
            if counted is None:
                return self._done(None, "nothing counted")
            slots.append(counted)
        self._time(head, slots, grouped=group is not None)
        if order is not None:
            return self._superlative(head, slots, order, limit, counted)
        if group is not None:
            return self._group(head, slots, group, limit if operation == "group" else None)
        return self._done(self._plan(slots, operation))

    def _other_works(self, head: Slot | None, slots: list[Slot],
                     operation: str) -> Slot | None:
        """"What else did the painter of T make", "more by the sculptor of T": the works
        of the maker of T, T left out (not the maker, whom "else" would leave unasked)."""
        if head is None or operation not in {"list", "count"} or not OTHERNESS & set(self.words):
            return head

        def made_by(slot: Slot) -> list[Anchor]:
            return [other.anchor for relation, other, inverse, _ in slot.links
                    if relation == "created-by" and inverse and other.anchor is not None
                    and other.anchor.category == "Thing"]

        if head.category == "Thing":  # "other works by the maker of T": T left out
            for relation, other, inverse, _ in head.links:
                if relation == "created-by" and not inverse and other.category == "Actor":
                    head.exclude.extend(n for a in made_by(other) for n in a.nodes)
            return head
        if head.category == "Event":  # "other exhibitions by the director of E": E left out
            for _, other, _, _ in head.links:
                if other.category == "Actor" and other.anchor is None:
                    head.exclude.extend(n for _, named, _, _ in other.links
                                        if named.anchor is not None
                                        and named.anchor.category == "Event"
                                        for n in named.anchor.nodes)
            return head
        # the maker named by a noun ("the painter of T"), not asked for ("who else painted T")
        made = made_by(head) if head.category == "Actor" and head.noun not in WH else []
        if not made:
            return head
        works = Slot("Thing", "works")
        works.links.append(("created-by", head, False, ()))
        works.exclude.extend(made[0].nodes)
        slots.insert(0, works)
        return works

    def _existential(self, head: Slot, slots: list[Slot]) -> None:
        """A relation verb with nothing after it: "how many women are depicted" are those
        depicted in something, "works that were donated" those given by someone."""
        for i, word in enumerate(self.words):
            if word in HOLDING_VERBS or word in AUX or word == head.noun:
                continue
            dated = TIME in self.words[i + 1:i + 4]
            for relation in self.p.relations_for(word):
                if word not in relation.verbs or relation.value != "node":
                    continue
                if dated and relation.range == "Place":  # "born in (the) 1900(s)": the
                    continue  # date stands where the place would, none is asked for
                if fits(relation.domain, head.category):
                    other, inverse = relation.range, False
                elif fits(relation.range, head.category):
                    other, inverse = relation.domain, True
                else:
                    continue
                slot = Slot(None if other == "Any" else other, NOUNS_OF.get(other))
                head.links.append((relation.id, slot, inverse, ()))
                slots.append(slot)
                return
