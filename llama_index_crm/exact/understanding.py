"""What a plan understood of its question: every word's role, and the words left over.

A plan is executed as certain only when it *covers* its question: every content word is
consumed by the plan (a name it links, a relation it walks, a class or type it counts, an
operation, a time) or is a grammatical word of the question's language. A content word the
plan does not use ("born" in "where was the artist who made T born", read as the place of
making) means the plan answers another question, and its answer must not be stated as the
graph's: the question goes to retrieval instead (``retrieval_only``).

>>> from llama_index_crm.exact.plan import Anchor, ExactPlan, Link, Variable
>>> asinou = Anchor("asinou", "urn:asinou", "Asinou", "Thing")
>>> plan = ExactPlan("who built asinou", (Variable("Actor", "who"),
...     Variable(anchor=asinou, links=(Link("created-by", 0),))), "list")
>>> u = understand("who built asinou", plan, planner_words())
>>> u.complete, [(w.word, w.role) for w in u.words]
(True, [('who', 'question'), ('built', 'relation:created-by'), ('asinou', 'name')])
>>> understand("where was the artist who built asinou born", plan, planner_words()).unexplained
['where', 'born']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from llama_index_crm.exact import parse_words as rules
from llama_index_crm.exact.plan import Anchor, ExactPlan
from llama_index_crm.exact.relations import Relation, RelationLexicon
from llama_index_crm.ontology import Step
from llama_index_crm.query.conversation import quoted_titles
from llama_index_crm.query.lexicon import singularise, slips
from llama_index_crm.query.temporal import find_time_range
from llama_index_crm.storage.names import fold_name

__all__ = ["PlannerWords", "Understanding", "Word", "planner_words", "understand"]

_WORD = re.compile(r"[^\W_][\w'’\-]*", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s?$")
CREATION_STEPS = frozenset({"P92i_was_brought_into_existence_by", "P108i_was_produced_by",
                            "P94i_was_created_by"})
"""Steps from a thing to the event that made it: the events whose own relations answer for
the thing's ("who painted <the painting campaign>"); a birth or an acquisition is not one."""
NEGATIONS = frozenset({"not", "never", "nor", "neither"})
OWNER_PRONOUNS = frozenset({"its", "his", "her", "their"})
REFLEXIVES = frozenset({"himself", "herself", "themselves", "itself"})
SELF_OBJECT = frozenset({"of", "depicting", "portraying", "showing", "shows", "depicts",
                         "portrays", "painted", "drew", "photographed"})
"""Words after which a reflexive pronoun is what a work shows ("of himself")."""
GENERIC_WORKS = frozenset({"works", "work", "pieces", "piece", "objects", "object", "items",
                           "artworks", "artwork", "things"})
"""Head nouns that say no class of work."""
REQUEST_VERBS = frozenset({"me", "list", "show", "give", "name", "tell"})
"""Words before "the" that open a request for what the noun after it names."""
"""Pronouns of an owner: a content word unless the plan links to a named node or the
conversation's last one."""
"""Words that turn a question round: a plan without an exclusion does not answer them."""
SAMENESS = frozenset({"other", "others", "else", "another", "remaining", "same"})
"""Words that set some members apart from others the question names."""
_PRONOUN_CONTRACTION = re.compile(r"\b(i|you|we|they|he|she)['’](d|m|ve|ll|re)\b", re.I)
_CONTRACTED = {"d": "would", "m": "am", "ve": "have", "ll": "will", "re": "are"}
QUESTION_RANGES = {"where": frozenset({"Place"}), "when": frozenset({"Time"})}
"""Question words that ask for a kind of value: the plan must give one."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a question and what it was taken for.

    ``role`` is ``name``, ``relation:<id>``, ``class``, ``type``, ``operation``, ``time``,
    ``question`` (a question word), ``grammar`` (a function word of the language),
    ``slip`` (one key away from a noun of the plan: "paintigns"), or ``unexplained``.
    """

    word: str
    role: str

    @property
    def explained(self) -> bool:
        """Whether the plan accounts for the word."""
        return self.role != "unexplained"


@dataclass(slots=True)
class Understanding:
    """Which word of a question went where.

    Attributes:
        words: each word of the question with its role, in order.
        language: the question's language as far as its lexicon knows (``en``).
    """

    words: list[Word] = field(default_factory=list)
    language: str = "en"

    @property
    def unexplained(self) -> list[str]:
        """Content words no part of the plan consumes."""
        return [w.word for w in self.words if not w.explained]

    @property
    def complete(self) -> bool:
        """Whether the plan accounts for every content word."""
        return not self.unexplained

    def explain(self) -> str:
        """The words and their roles, one line (``--explain``)."""
        return " ".join(f"{w.word}[{w.role}]" for w in self.words)


@dataclass(frozen=True, slots=True)
class PlannerWords:
    """The English question vocabulary, grouped by what each group may stand for."""

    grammar: frozenset[str]
    question: frozenset[str]
    count: frozenset[str]
    ranking: frozenset[str]
    grouping: frozenset[str]
    describe: frozenset[str]
    gender: frozenset[str]
    class_nouns: Mapping[str, str]
    generic_things: frozenset[str]


@cache
def planner_words() -> PlannerWords:
    """The rule planner's word tables, as roles for coverage."""
    grammar = (rules.AUX | rules.COPULA | rules.DETERMINERS | rules.IMPERATIVE | rules.FILLER
               | rules.OTHERNESS
               | rules.COLLECTION | rules.HOLDING_VERBS | rules.PREPOSITIONS
               | rules.TITLE_VERBS | rules.HONORIFICS | rules.TITLE_JOINERS
               | frozenset(rules.PRONOUNS) | frozenset(rules.NUMBERS)
               | {w for x in rules.EXCLUSIONS for w in x.split()} - NEGATIONS
               | {"and", "or", "no", "than", "as", "if", "whether", "did", "s", "also",
                  "both", "either", "just", "only", "ever", "so", "then", "here",
                  "else", "yet", "thanks", "thank", "hi", "hello", "hey", "kindly",
                  "wondering", "curious", "interested", "look", "looking", "see", "check",
                  "happen", "happens", "happened", "exactly", "precisely", "roughly",
                  "around", "about", "actual", "actually", "specific", "particular",
                  "do", "does", "got", "get", "let", "lets", "search", "find", "tell"}
               | rules.COLLECTION_TAIL - {"?"})
    return PlannerWords(
        grammar=frozenset(grammar),
        question=frozenset(rules.WH),
        count=frozenset(rules.COUNT_WORDS | {"how", "much", "tally", "sum", "amount"}),
        ranking=frozenset(set(rules.SUPERLATIVES) | rules.RANKING_WORDS
                          | set(rules.DIMENSION_WORDS) | set(rules.ORDINAL_RANKS)
                          | {w for p in rules.SUPERLATIVE_PHRASES for w in p.split()}),
        grouping=frozenset(rules.GROUP_WORDS | set(rules.GROUP_UNITS)),
        describe=frozenset(rules.DESCRIBE_WORDS),
        gender=frozenset(rules.GENDER_NOUNS),
        class_nouns=dict(rules.CLASS_NOUNS),
        generic_things=frozenset(rules.GENERIC_THINGS),
    )


def _relation_words(relation: Relation) -> set[str]:
    words: set[str] = set()
    for phrase in (*relation.verbs, *relation.nouns, *relation.crm_words,
                   *relation.event_hints, relation.label, relation.id.replace("-", " ")):
        words.update(fold_name(phrase).split())
    return words


def _required(path: Sequence[Step]) -> tuple[Step, ...]:
    return tuple(step for step in path if not step.optional)


def event_views(lexicon: RelationLexicon) -> dict[str, set[str]]:
    """Relations of an event (domain ``Event``) that are another relation seen from the event
    on its way: ``carried-out-by`` (P14) ends ``created-by`` (P92i / P14). A question that
    names the event itself ("who painted the wall paintings of T", where the graph's
    production bears that name) is answered by the event's relation, with the longer
    relation's words: each id maps to the ids it ends."""
    views: dict[str, set[str]] = {}
    for short in lexicon.values():
        if short.domain != "Event" or not short.paths:
            continue
        ends = [_required(p) for p in short.paths]
        for long in lexicon.values():
            if long.domain != "Thing" or long.range != short.range or not any(
                    path and path[0].property in CREATION_STEPS for path in long.paths):
                continue
            if any(len(_required(p)) > len(end) and _required(p)[-len(end):] == end
                   for p in long.paths for end in ends if end):
                views.setdefault(short.id, set()).add(long.id)
    return views


def _plan_relations(plan: ExactPlan) -> set[str]:
    found: set[str] = set(plan.attributes)
    for var in plan.variables:
        found.update(link.relation for link in var.links)
        for condition in var.filters:
            found.add(condition.relation)
            if condition.through:
                found.add(condition.through)
    for key in (plan.order_by, plan.group_by):
        if key:
            found.add(key.split(":")[0])
    return found


def _plan_words(plan: ExactPlan) -> tuple[set[str], set[str]]:
    """(words of the plan's names, words of its nouns, types, hints and roles)."""
    names: set[str] = set()
    for anchor in plan.anchors:
        names.update(_forms(anchor.text))
        names.update(_forms(anchor.label))
    nouns: set[str] = set()
    for var in plan.variables:
        if var.anchor is not None:
            names.update(_forms(var.anchor.text))
        for text in (var.noun or "", *var.types):
            nouns.update(_forms(text))
        generic = var.category == "Thing" and (var.noun or "") in GENERIC_WORKS
        for link in var.links:
            # a hint narrows the event on the way ("painted"); the works' own class named
            # only as a hint ("how many works by X are paintings") is not checked by it
            for text in ((*link.hints, link.role or "") if not generic else (link.role or "",)):
                nouns.update(_forms(text))
    for text in plan.hints:
        nouns.update(_forms(text))
    for var in plan.variables:  # words a text must contain are the question's, as names
        for condition in var.filters:
            if condition.contains:
                names.update(_forms(condition.contains))
    return names, nouns


def _stand_ins(plan: ExactPlan) -> bool:
    """Whether a text filter stands in for a relation the graph does not record (the words
    of titles for "depicting"): the answer says so, and it consumes that relation's word."""
    return any(c.forms for v in plan.variables for c in v.filters)


def _forms(text: str) -> set[str]:
    words = fold_name(text).split()
    return {f for w in words for f in (w, singularise(w), _POSSESSIVE.sub("", w))}


def _tokens(question: str) -> list[tuple[str, str]]:
    """The question's words, folded, each tagged ``quote`` (part of a quoted title),
    ``time`` (part of a time expression) or ``""``."""
    text = " ".join(unicodedata.normalize("NFKC", question).split())
    text = _PRONOUN_CONTRACTION.sub(lambda m: f"{m.group(1)} {_CONTRACTED[m.group(2).lower()]}",
                                    text)  # "I'd like to know": no word "id"
    spans: list[tuple[int, int, str]] = []
    for title in quoted_titles(text):
        at = text.find(title)
        if at >= 0:
            spans.append((at, at + len(title), "quote"))
    start = 0
    while True:
        found = find_time_range(text[start:])
        if found is None:
            break
        spans.append((start + found.start, start + found.end, "time"))
        start += max(found.end, 1)
    out: list[tuple[str, str]] = []
    for match in _WORD.finditer(text):
        tag = next((t for a, b, t in spans if a <= match.start() < b), "")
        raw = _POSSESSIVE.sub("", match.group()) or match.group()
        out.extend((part, tag) for part in fold_name(raw).split())
    return out


def understand(question: str, plan: ExactPlan | None, words: PlannerWords,
               lexicon: RelationLexicon | None = None,
               extra_names: Iterable[str] = (),
               collection: Iterable[str] = ()) -> Understanding:
    """Each word of ``question`` with the part of ``plan`` that consumes it.

    Args:
        question: as asked (the words a pronoun stands for are ``extra_names``).
        plan: the plan; None: only grammar and question words are explained.
        words: the question vocabulary of the language.
        lexicon: the relations (default: ``config/exact/relations.json``).
        extra_names: more text the plan's names were read from (a settled title).
        collection: words naming the institution whose collection the graph is ("ycba",
            "center"): like "museum", they say where, not what.
    """
    held = frozenset(collection)
    lexicon = lexicon or RelationLexicon.default()
    relations = _plan_relations(plan) if plan is not None else set()
    if plan is not None and _stand_ins(plan):
        relations |= {r.id for r in lexicon.values()}
    by_relation = {r: _relation_words(lexicon[r]) for r in relations if r in lexicon}
    if plan is not None and any(a.category == "Event" for a in plan.anchors):
        views = event_views(lexicon)  # "who painted <the painting campaign>"
        for r in relations:
            for long in views.get(r, ()):  # its verbs and nouns, not its grammar ("was")
                by_relation[r] |= {w for phrase in (*lexicon[long].verbs, *lexicon[long].nouns)
                                   for w in fold_name(phrase).split()} - rules.AUX
    for r in relations:  # a role ("had-in-role:artist") is named by its relation's words too
        base = r.partition(":")[0]
        if r in lexicon and lexicon[r].via_labels and base in lexicon:
            by_relation[r] |= _relation_words(lexicon[base])
    ranges = {lexicon[r].range for r in relations if r in lexicon} | {
        lexicon[r].domain for r in relations if r in lexicon} | {
        "Time" for r in relations if r in lexicon and lexicon[r].value == "time"}
    if plan is not None:
        ranges |= {v.category or "" for v in plan.variables}
    names, nouns = _plan_words(plan) if plan is not None else (set(), set())
    for text in extra_names:
        names.update(_forms(text))
    categories = {v.category for v in plan.variables} if plan is not None else set()
    operation = plan.operation if plan is not None else ""
    ranked = plan is not None and (operation in {"superlative", "group"} or bool(plan.order_by))
    anchors_focus = plan is not None and any(a.how == "previous turn" for a in plan.anchors)
    dated = plan is not None and (ranked or any(
        f.years is not None for v in plan.variables for f in v.filters))
    excluded = _excluded_words(question) if plan is not None and any(
        v.exclude for v in plan.variables) else set()
    if any(r in relations for r in ("dimension", "dimensions-statement")):
        by_relation.setdefault("dimension", set()).update(rules._SIZE_NOUNS)
    asked = _asked_noun(question, words, frozenset(
        n for r in lexicon.values() if r.via_labels for n in r.nouns))
    head = plan.variables[0] if plan is not None else None
    head_words = (_forms(head.noun or "") | {f for t in head.types for f in _forms(t)}
                  ) if head is not None else set()
    attributes = [lexicon[r] for r in (plan.attributes if plan is not None else ())
                  if r in lexicon]
    attribute_words = {w for r in attributes for w in _relation_words(r)}
    value_ranges = {"Time" if r.value == "time" else r.range for r in attributes}
    # what the answer gives: the values asked, the nodes listed, the key ranked or grouped
    # by ("the maker of T died where?": makers that died somewhere are no place)
    answers = value_ranges | ({head.category or ""} if head is not None else set()) | {
        "Time" if lexicon[k].value == "time" else lexicon[k].range
        for k in ((plan.order_by or "").split(":")[0], (plan.group_by or "").split(":")[0])
        if k in lexicon} if plan is not None else ranges
    if plan is not None and (plan.order_by or plan.group_by or dated):
        answers |= {"Time"}
    out: list[Word] = []
    told = _told_first(question, words, nouns | names)
    for index, (word, tag) in enumerate(_tokens(question)):
        if asked is not None and index == asked[0] and head is not None and not (
                # "what nationality was …", "in which year was … acquired": the value asked
                asked[1] in attribute_words or "Time" in value_ranges and words.class_nouns.get(
                    asked[1], words.class_nouns.get(singularise(asked[1]))) == "Time"):
            # "which country …": the plan must ask for the country, not for another node
            noun = asked[1]
            category = words.class_nouns.get(noun) or words.class_nouns.get(singularise(noun))
            if noun not in head_words and singularise(noun) not in head_words and not (
                    category is not None and category == head.category and not head.noun):
                out.append(Word(word, "unexplained"))
                continue
        if word in excluded:
            role = "name"
        elif word in REFLEXIVES and out and out[-1].word in SELF_OBJECT:
            # "portraits did Warhol make of himself": the maker is the sitter, which no plan
            # says ("did he paint it himself" stays a filler word)
            role = "unexplained"
        elif word in OWNER_PRONOUNS and tag != "quote" and word not in names and \
                plan is not None and not anchors_focus and not _owned(plan):
            # "besides Collage, which shows did its director also direct": "its" needs a
            # node the plan links to, the members' own attribute ("works with grizzly in
            # their title"), or the conversation's last node
            role = "unexplained"
        elif word in NEGATIONS or word in SAMENESS and not (
                word == "else" and index and out and out[-1].role == "question"):
            # "which churches are not in X", "which other works by the same artist": only
            # an exclusion says it ("who else painted T" asks who painted T)
            role = "grammar" if plan is not None and any(v.exclude for v in plan.variables) \
                else "unexplained"
        elif tag == "quote":
            role = "name" if word in names else "unexplained"
        elif tag == "time":
            role = "time" if dated else "name" if word in names else "unexplained"
        elif word in held and word not in names:  # a name the plan links is a name
            role = "grammar"
        else:
            role = _role(word, words, by_relation, names, nouns, categories, operation,
                         ranked, anchors_focus, ranges, plan.limit if plan is not None else None,
                         answers)
        if role == "unexplained" and word in told and index < told[word]:
            role = "grammar"  # "I liked Charging Wolf a lot - what else …": said, not asked
        out.append(Word(word, role))
    return Understanding(out)


_CLAUSE_BREAK = re.compile(r"[.!;:](?:\s+|$)|\s[-–—]+\s")


def _told_first(question: str, words: PlannerWords, planned: set[str]) -> dict[str, int]:
    """Everyday words of what a question tells before it asks ("My grandmother loved Andy
    Warhol. How many Warhols …", "I liked Charging Wolf a lot - what else …"): each with
    the number of the question's words before the asking clause. Only words of the common
    English list that no table of the planner reads, in clauses without a question word or
    a time, and only when the asking clause follows."""
    from llama_index_crm.exact.language import common_words

    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(question.rstrip(" ?!."))]
    if not breaks:
        return {}
    told = _tokens(question[:breaks[-1]])
    if not told or any(tag == "time" or word in words.question for word, tag in told):
        return {}
    vocabulary = words.grammar | words.count | words.ranking | words.grouping | \
        words.describe | words.gender | frozenset(words.class_nouns) | planned
    common = common_words()
    return {word: len(told) for word, _ in told
            if word in common and word not in vocabulary and singularise(word) not in vocabulary}


def _excluded_words(question: str) -> set[str]:
    """Words of what a question leaves out ("aside from Asinou, …"): up to a comma or a
    question word."""
    text = fold_name(question.replace(",", " , "))
    found: set[str] = set()
    for phrase in rules.EXCLUSIONS:
        at = f" {text} ".find(f" {phrase} ")
        if at < 0:
            continue
        for word in f" {text} "[at + len(phrase) + 1:].split():
            if word == "," or word in rules.WH:
                break
            found.add(word)
    return found


def _asked_noun(question: str, words: PlannerWords,
                roles: frozenset[str] = frozenset()) -> tuple[int, str] | None:
    """(index of "which"/"what", the class noun right after it), if the question has one;
    also the noun a request names first ("give me the directors of …", ``roles``: the
    graph's role nouns)."""
    tokens = [w for w, _ in _tokens(question)]
    for i, word in enumerate(tokens[:-1]):
        following = tokens[i + 1]
        if word in {"which", "what"} and (following in words.class_nouns or singularise(
                following) in words.class_nouns) and following not in words.generic_things:
            return i, following
        if word == "the" and i and tokens[i - 1] in REQUEST_VERBS and following in roles:
            return i, following
    return None


def _role(word: str, words: PlannerWords, by_relation: Mapping[str, set[str]],
          names: set[str], nouns: set[str], categories: set[str | None], operation: str,
          ranked: bool, focus: bool, ranges: set[str], limit: int | None = None,
          answers: set[str] | None = None) -> str:
    single = singularise(word)
    if word in names or single in names:  # "Bauhaus: 1919–1928": its years are its name
        return "name"
    if word.isdigit():
        if len(word) == 4:
            return "time"
        # "the top 3": the plan keeps that many; "directors of more than 10 shows": a
        # threshold no plan carries
        return "operation" if ranked and limit == int(word) else "unexplained"
    for relation, relation_words in by_relation.items():
        if word in relation_words or single in relation_words:
            return f"relation:{relation}"
    if word.endswith("s") and word[:-1] in words.question:  # "whats", "wheres" typed bare
        word = word[:-1]
    if word in words.question:
        asked = QUESTION_RANGES.get(word)
        return "question" if asked is None or asked & (ranges if answers is None
                                                       else answers) else "unexplained"
    if single in rules.GENERIC_TIME_NOUNS and "Time" in ranges:
        return "question"  # "in which year was T acquired": the plan gives its date
    if word in nouns or single in nouns:
        return "type"
    category = words.class_nouns.get(word) or words.class_nouns.get(single)
    if category is not None and category in categories and single == word:
        return "class"  # "the church Panagia Podithou"; a plural is a set no variable holds
    if category is not None and category in categories and word not in words.generic_things:
        return "unexplained"
    if word in words.generic_things and ("Thing" in categories or operation == "describe"):
        return "class"
    if word in words.count and operation in {"count", "group", "superlative"}:
        return "operation"
    if word in words.ranking and ranked:
        return "operation"
    if word in words.grouping and (operation == "group" or ranked):
        return "operation"
    if word in words.describe and operation == "describe":
        return "operation"
    if focus and word in rules.PRONOUNS:
        return "name"
    if word in words.gender and nouns:
        return "type"
    if word in words.grammar or word in words.describe:
        return "grammar"
    if _slip_of(word, nouns) or _slip_of(single, nouns):  # "paintigns": the plan's painting
        return "slip"  # explained, but an empty result of it proves nothing
    return "unexplained"


SLIP_LETTERS = 5
"""Letters a noun needs for a one-key slip of it to be read as it."""


def _slip_of(word: str, nouns: set[str]) -> bool:
    """Whether ``word`` is one slip of a key (an edit or a swap) from one of ``nouns``."""
    return len(word) >= SLIP_LETTERS and bool(slips(word, nouns, SLIP_LETTERS))


def covered(question: str, plan: ExactPlan, lexicon: RelationLexicon,
            anchors: Sequence[Anchor] = (), collection: Iterable[str] = (),
            names: Iterable[str] = ()) -> Understanding:
    """:func:`understand` with the English vocabulary (the rule planner's); ``names``: more
    names the answer used (a maker that settled which work a title meant)."""
    return understand(question, plan, planner_words(), lexicon,
                      extra_names=[*(a.text for a in anchors), *names], collection=collection)


def institution_words(labels: Iterable[str]) -> frozenset[str]:
    """The words of an institution's names and their initials ("Yale Center for British
    Art" → yale, center, british, art, ycba).

    >>> sorted(institution_words(["Yale Center for British Art"]))
    ['art', 'british', 'center', 'centre', 'for', 'yale', 'ycba', 'ycfba']
    >>> "moma" in institution_words(["The Museum of Modern Art"])
    True
    """
    found: set[str] = set()
    for label in labels:
        words = fold_name(label).split()
        found.update(words)
        if "center" in found or "centre" in found:
            found.update({"center", "centre"})
        if len(words) >= 2:
            found.add("".join(w[0] for w in words))
            found.add("".join(w[0] for w in words if w not in rules.TITLE_JOINERS))
            if words[0] in {"the", "a", "an"}:  # "The Museum of Modern Art": moma
                found.add("".join(w[0] for w in words[1:]))
    return frozenset(found)


def _owned(plan: ExactPlan) -> bool:
    """Whether an owner pronoun has something in ``plan`` to stand for: a named node it
    links to, or the members' own values it reads (a filter, an attribute, a ranking)."""
    return bool(plan.attributes or plan.order_by) or any(
        isinstance(link.target, Anchor) for v in plan.variables for link in v.links) or any(
        v.filters for v in plan.variables)
