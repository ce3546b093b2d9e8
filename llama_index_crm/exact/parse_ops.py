"""The plan builder's operation part: what is done with the asked set (count, list, value,
superlative, group, describe), exclusions, time filters, and the finished plan
(:class:`OperationParts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from llama_index_crm.exact.linking import (
    Candidate,
    Missing,
    link_name,
)
from llama_index_crm.exact.parse_links import LinkParts
from llama_index_crm.exact.parse_words import (
    _TYPE_SYNONYMS,
    ACQUISITION_NOUNS,
    ACQUISITION_VERBS,
    ATTRIBUTE_RELATIONS,
    AUX,
    COLLECTION_TAIL,
    COPULA,
    DATING_WORDS,
    DETERMINERS,
    DIMENSION_WORDS,
    EXCLUSIONS,
    FILLER,
    GENDER_NOUNS,
    GENERIC_THINGS,
    GENERIC_TIME_NOUNS,
    GROUP_UNITS,
    GROUP_WORDS,
    GROUPABLE,
    HOLDING_VERBS,
    IMPERATIVE,
    NUMBERS,
    ORDINAL_RANKS,
    PREPOSITIONS,
    SUPERLATIVE_PHRASES,
    SUPERLATIVES,
    TIME,
    WH,
    WORDS,
    Element,
    Parsed,
    Slot,
    attribute_group,
    fits,
)
from llama_index_crm.exact.plan import Anchor, ExactPlan, Link, Variable
from llama_index_crm.exact.relations import Relation
from llama_index_crm.query.lexicon import pluralise, singularise
from llama_index_crm.storage.names import fold_name

__all__ = ["OperationParts"]


class OperationParts(LinkParts):
    """The builder's part that reads the operation: counts, lists, values, superlatives,
    groups, exclusions and yes/no questions, and turns the slots into the plan."""

    def _done(self, plan: ExactPlan | None, reason: str = "") -> Parsed:
        named = plan is not None and plan.operation in {"value", "describe"} and \
            bool(plan.variables) and plan.variables[0].anchor is not None
        if plan is not None and not named and not self.missing and not self.ambiguous:
            unused = self._unused_names(plan)
            if unused:  # never answer for the whole graph what was asked of a name
                return Parsed(None, [], [], f"names not used by any plan: {', '.join(unused)}")
        return Parsed(plan, self.missing, self.ambiguous, reason if plan is None else "")

    def _unused_names(self, plan: ExactPlan) -> list[str]:
        """Names of the question (exact mentions) that the plan neither links, filters by,
        keeps out nor notes."""
        said = [fold_name(a.text) for a in plan.anchors] + [
            fold_name(f.contains) for v in plan.variables for f in v.filters if f.contains]
        said += [fold_name(n) for n in (*self.notes, *plan.notes)]
        kept_out = bool(plan.variables) and bool(plan.variables[0].exclude)
        unused = []
        for el in self.els:
            if el.kind != "mention" or el.mention is None:
                continue
            text = fold_name(el.text)
            if kept_out or not text or any(text in s or s in text for s in said if s):
                continue
            holders = self.p.holders()
            if any(c.node in holders for c in el.mention.candidates[:1]):
                # "how many portraits of X has the National Portrait Gallery": the graph's
                # own collection, which the plan counts in
                self.notes.append(f"{el.text} holds the whole collection")
                continue
            unused.append(el.text)
        return unused

    def _operation(self, wh: str | None) -> tuple[str, tuple[str, bool] | None, int | None,
                                                   str | None]:
        words = self.words
        order = None
        for phrase, value in SUPERLATIVE_PHRASES.items():
            if self._has(phrase):
                order = value
                break
        for w in words:
            if order is None and w in SUPERLATIVES and not (
                    w in {"first", "last", "least"} and not self._superlative_noun(w)):
                order = SUPERLATIVES[w]
        if order is None and words and words[-1] in WORDS.time_ends:
            order = ("time", words[-1] in {"last", "latest"})  # "which artist was born first"
        limit = None
        for i, w in enumerate(words):
            if w in NUMBERS and not (i + 1 < len(words) and words[i + 1] in {"of", "in"}):
                limit = NUMBERS[w]
            elif w.isdigit() and int(w) < 100:
                limit = int(w)
            elif w in ORDINAL_RANKS and i + 1 < len(words) and words[i + 1] in {
                    "most", "largest", "oldest", "latest", "biggest", "earliest", "newest"}:
                limit = ORDINAL_RANKS[w]  # "the second most prolific": the first two
        group = None
        for i, w in enumerate(words[:-1]):
            unit = words[i + 1]
            if w in GROUP_WORDS and (unit in GROUP_UNITS or (
                    unit in self.p.nouns and unit not in GENERIC_THINGS and w != "by")
                    or (w == "by" and unit in {"decade", "century", "year", "type", "artist",
                                               "nationality", "maker"})):
                group = unit
        if order is not None and order[0] == "count":
            ranked = self._ranked_group()
            if ranked is not None:  # "which decade has the most works", "most common type"
                return "group", None, limit or 1, ranked
        counting = wh == "how many" or self._has("how many", "how much", "count of",
                                                 "total of") or self._number_of() or (
            bool(words) and words[0] == "count")
        if counting and group is None and (order is None or wh == "how many"):
            return "count", None, None, None
        if order is not None:
            return "superlative", order, limit, None
        if group is not None:
            return "group", None, None, group
        if self.described or self._names_only(wh):
            return "describe", None, None, None
        if wh in {"when", "where", "whose"} or self._asks_value():
            return "value", None, None, None
        return "list", None, limit, None

    def _names_only(self, wh: str | None) -> bool:
        """"Who was X?", "What is X?", "X?": a name and nothing else to go on."""
        content = [e for e in self.els if e.kind != "word" or e.word not in
                   (WH | AUX | DETERMINERS | IMPERATIVE | FILLER | {"?"})]
        return len(content) == 1 and content[0].kind == "mention" and wh in {
            None, "who", "what"}

    def _asked_nouns(self) -> list[str]:
        """Attribute noun phrases standing where the asked thing stands (see
        :meth:`_asks_value`), first first."""
        words = self.words
        found: list[str] = []
        for i in range(len(words)):
            for n in (3, 2, 1):
                phrase = " ".join(words[i:i + n])
                if not self.p.relations_for(phrase):
                    continue
                before = [w for w in words[:i] if w not in DETERMINERS]
                after = words[i + n] if i + n < len(words) else ""
                owner = i and self.els[i - 1].possessive
                named = i and self.els[i - 1].kind in {"mention", "run"}  # "X birth year"
                if not before or before[-1] in WH or before[-1] in AUX or owner or named or \
                        after in {"of", "for"} or before[-1] in IMPERATIVE:
                    found.append(phrase)
        return found

    def _asks_value(self) -> bool:
        """Whether an attribute noun is what is asked: right after the question word
        ("what year", "what nationality", "which technique"), before "of" ("the date of
        X"), after a possessive ("X's birth year") or first ("birth year of X")."""
        words = self.words
        for i in range(len(words)):
            for n in (3, 2, 1):
                phrase = " ".join(words[i:i + n])
                if not any(r.value in {"time", "text", "dimension"} or
                           r.id in ATTRIBUTE_RELATIONS
                           for r in self.p.relations_for(phrase) if phrase in r.nouns):
                    continue
                before = [w for w in words[:i] if w not in DETERMINERS]
                after = words[i + n] if i + n < len(words) else ""
                owner = i and self.els[i - 1].possessive
                named = i and self.els[i - 1].kind in {"mention", "run"}
                if named and self._label_holds(self.els[i - 1], words[i:i + n]):
                    continue  # "the Lusignan period": the name's own word, not one asked
                last = i + n == len(words)
                if not before or before[-1] in WH or before[-1] in AUX or owner or named \
                        or last or after in {"of", "for"} or before[-1] in IMPERATIVE:
                    return True
        # "what is X made of / with": a statement or material named by a verb phrase
        lead = [w for w in words[:3] if w not in WORDS.clause_openers]
        return bool(lead) and lead[0] == "what" and any(
            r.value == "text" or r.id in ATTRIBUTE_RELATIONS
            for i in range(len(words) - 1)
            for r in self.p.relations_for(f"{words[i]} {words[i + 1]}"))

    def _ranked_group(self) -> str | None:
        """The group a count superlative ranks, when it ranks groups rather than members:
        a time unit asked for ("which decade has the most works"), or the attribute
        after "most common" ("most common type", "most common credit line")."""
        words = self.words
        for i, w in enumerate(words):
            if w in GROUP_UNITS and (i == 0 or words[i - 1] in WH | {"the"}):
                return w
        if words and words[0] == "where":  # "where were most works made": by the place
            places = [r for r in self.p.lexicon.values() if r.range == "Place" and
                      r.value == "node" and self._verb_in(r)]
            if places:
                return places[0].nouns[0] if places[0].nouns else None
        for i, w in enumerate(words[:-1]):  # "which credit line appears most often"
            if w in {"which", "what"}:
                for n in (3, 2, 1):
                    noun = " ".join(words[i + 1:i + 1 + n])
                    if any(noun in r.nouns and r.value in {"text", "node"} and
                           r.id in GROUPABLE for r in self.p.relations_for(noun)):
                        return noun
        for phrase in ("most common", "commonest", "most frequent", "most popular"):
            if self._has(phrase):
                start = " ".join(words).index(phrase) + len(phrase)
                rest = " ".join(words)[start:].split()
                for n in (3, 2, 1):
                    noun = " ".join(rest[:n])
                    if any(noun in r.nouns for r in self.p.relations_for(noun)):
                        return noun
        return None

    def _superlative_noun(self, word: str) -> bool:
        i = self.words.index(word)
        nxt = self.words[i + 1] if i + 1 < len(self.words) else ""
        return nxt in self.p.nouns or nxt in WORDS.work_nouns

    def _head(self, wh: str | None, operation: str) -> tuple[Slot | None, list[Element]]:
        """What is asked for, and the elements to link to it: those after it, and names
        before it ("harry lyman - how many works?", "smibert paintings") with a default
        relation ("Whistler etchings": made by; "British artists": members of)."""
        els = self.els
        gender: list[str] = []
        for i, el in enumerate(els):
            if el.kind != "word":
                continue
            w = el.word
            if w in {"who", "whom", "whoever"} and i < 4:
                rest = [e.word for e in els[i + 2:] if e.kind == "word"]
                actors = [k for k, x in enumerate(rest) if self.p.nouns.get(x) == "Actor"
                          and x not in WORDS.person_wh]
                if i + 1 < len(els) and els[i + 1].word in COPULA and actors and all(
                        x in COLLECTION_TAIL for x in rest[actors[-1] + 1:]) and \
                        len(rest) == len(els) - i - 2:
                    continue  # "who is the most prolific photographer": the photographer
                return Slot("Actor", "who"), self._before(els[:i]) + els[i + 1:]
            compound = i + 1 < len(els) and els[i + 1].word in GENERIC_TIME_NOUNS and bool(
                self.p.relations_for(w))  # "acquisition date", "birth year"
            if w in self.p.nouns and self._modifier(i):
                continue  # "american painters": the painters, members of American
            nxt = els[i + 1].word if i + 1 < len(els) and els[i + 1].kind == "word" else ""
            if w in GENDER_NOUNS and self.p.nouns.get(nxt) == "Actor" and nxt not in {
                    "who", "whom"}:
                gender.append(w)  # "women artists": artists, women
                continue
            if w in self.p.nouns and not compound and (
                    w in ACQUISITION_NOUNS or not self._is_attribute_noun(i)) \
                    and w not in {"where"}:
                category = self.p.nouns[w]
                slot = Slot(category, w, types=list(gender))
                single = _TYPE_SYNONYMS.get(singularise(w), singularise(w))
                if category == "Thing" and w not in GENERIC_THINGS:
                    typed = self.p.type_word(single)
                    slot.types.append(typed if typed in self.p.type_words else w)
                elif category in {"Place", "Event", "Concept"} and w not in {
                        "place", "places", "location", "locations", "event", "events",
                        "concept", "concepts", "subject", "subjects"}:
                    slot.types.append(self.p.type_word(single))
                return slot, self._before(els[:i]) + els[i + 1:]
        return None, list(els)

    def _yes_no(self) -> bool:
        """"Is X a painting?", "Was X made by Whistler?": a copula, then a name."""
        els = [e for e in self.els if not (e.kind == "word" and e.word in DETERMINERS)]
        return len(els) > 2 and els[0].kind == "word" and els[0].word in COPULA | {
            "did", "does", "do", "has", "have"} and els[1].kind == "mention"

    def _yes_no_plan(self) -> Parsed:
        """A yes/no question answered with the facts it asks about: the named node's
        types for a type noun, its makers for a maker, else a description."""
        els = [e for e in self.els if not (e.kind == "word" and e.word in DETERMINERS)]
        subject_el = els[1]
        anchor = self._anchor(subject_el, None)
        if anchor is None:
            return self._done(None, "names")
        subject = Slot(anchor.category, anchor=anchor)
        words = [e.word for e in els[2:] if e.kind == "word"]
        attribute = None
        if any(w in self.p.type_words or singularise(w) in self.p.type_words
               or w in WORDS.kind_nouns for w in words):
            attribute = "has-type"
        elif any(r.id == "created-by" for w in words for r in self.p.relations_for(w)) or (
                "by" in words and anchor.category == "Thing"):
            attribute = "created-by"
        if attribute is None:
            return self._done(self._plan([subject], "describe"))
        return self._done(self._plan([subject], "value", attributes=(attribute,)))

    def _dangling_pronoun(self) -> bool:
        """"Which churches did he found?" with no earlier turn: nobody to point to."""
        named = any(e.kind in {"mention", "run"} for e in self.els)
        return not named and any(e.kind == "word" and e.word in {"he", "she", "him", "it",
                                                                  "they", "them"}
                                 for e in self.els)

    def _take_exclusions(self) -> list[Element]:
        """Remove "aside from X", "other than X", "except X"… from the elements; the
        names they exclude are returned."""
        found: list[Element] = []
        kept: list[Element] = []
        i = 0
        els = self.els
        while i < len(els):
            n = next((len(x.split()) for x in EXCLUSIONS
                      if " ".join(e.word for e in els[i:i + len(x.split())]) == x), 0)
            if n and i + n < len(els) and els[i + n].kind in {"mention", "run"}:
                found.append(els[i + n])
                i += n + 1
                continue
            kept.append(els[i])
            i += 1
        self.els = kept
        self.words = [e.word for e in kept]
        return found

    def _exclude(self, head: Slot, names: list[Element]) -> None:
        """Exclusions as the head's nodes: those the words name, or whose names contain
        them ("aside from Asinou": the church "Panagia Phorbiottissa (Asinou)")."""
        wanted = [head.category] if head.category else None
        for el in names:
            found = [c for c in self.p.names.lookup(el.text, wanted) if c.how != "partial"]
            found += [c for c in self.p.names.containing(el.text, limit=20)
                      if wanted is None or c.category in wanted]
            head.exclude.extend(dict.fromkeys(c.node for c in found))

    # -- attributes and values -------------------------------------------------------------
    def _attributes(self, wh: str | None, operation: str) -> list[Relation]:
        """Relations whose values the question asks for, most specific first."""
        found: list[Relation] = []
        words = self.words
        phrases = [" ".join(words[i:i + n]) for n in (3, 2) for i in range(len(words))]
        for phrase in [*phrases, *words]:
            for relation in self.p.relations_for(phrase):
                if relation.value in {"time", "text", "node", "dimension"} and \
                        relation not in found and self._asks_for(relation, phrase, wh):
                    found.append(relation)
        if wh == "when" or any(w in GENERIC_TIME_NOUNS for w in words):
            found += [r for r in self.p.lexicon.values()
                      if r.value == "time" and r not in found and self._verb_in(r)]
            found += [self.p.lexicon[i] for i in ("creation-date", "event-date", "birth-date",
                                                  "death-date") if self.p.lexicon[i] not in found]
        if wh == "where":
            found += [r for r in self.p.lexicon.values() if r.range == "Place" and
                      r.value == "node" and self._verb_in(r) and r not in found]
            found += [self.p.lexicon[i] for i in ("located-in", "took-place-at", "birth-place",
                                                  "residence", "place-within")
                      if self.p.lexicon[i] not in found]
        if wh == "whose":
            found += [self.p.lexicon[i] for i in ("credit-line", "acquired-from")
                      if self.p.lexicon[i] not in found]
        if wh in WORDS.person_wh and not found:
            found += [r for r in self.p.lexicon.values()
                      if r.range == "Actor" and self._verb_in(r) and r not in found]
        kind = {"when": lambda r: r.value == "time",
                "where": lambda r: r.range == "Place",
                "whose": lambda r: r.id in {"credit-line", "acquired-from", "acquired-by",
                                            "created-by"}}.get(wh or "")
        return [r for r in found if kind(r)] if kind else found

    def _asks_for(self, relation: Relation, phrase: str, wh: str | None) -> bool:
        """Whether a relation word names what is asked, rather than a link."""
        if relation.value in {"time", "text", "dimension"}:
            return phrase in relation.nouns or wh in {"when", "whose"} or (
                relation.value == "text" and phrase in relation.verbs and wh == "what")
        if wh == "what" and " " in phrase and phrase in relation.verbs and \
                relation.id in ATTRIBUTE_RELATIONS:  # "what is X made of"
            return True
        return phrase in relation.nouns and relation.id in {
            "nationality", "has-type", "made-of", "technique", "located-in", "birth-place",
            "death-place", "creation-place", "residence", "took-place-at", "member-of",
            "acquired-by", "acquired-from", "created-by", "carried-out-by"}

    def _label_holds(self, element: Element, words: list[str]) -> bool:
        """Whether a node ``element`` names (a mention's best node, or a node named by a
        run's words) also holds ``words`` in its name: "the Lusignan period" names
        "Lusignan (Frankish) period in Cyprus", its "period" is no attribute asked."""
        if element.mention is not None and element.mention.candidates:
            found = list(element.mention.candidates[:1])
        elif element.kind == "run":
            found = self.p.names.lookup(element.word, surname=False, fuzzy=False)
        else:
            return False
        return any(set(words) <= set(fold_name(c.name).split()) for c in found)

    def _verb_in(self, relation: Relation) -> bool:
        return any(w in relation.verbs for w in self.verbs)

    def _value_plan(self, head: Slot | None, anchors: list[Slot],
                    attributes: list[Relation], operation: str,
                    slots: list[Slot]) -> Parsed:
        """Value questions: the attribute of a named node, or of the head."""
        subjects = [head] if head is not None and (head.links or head.anchor) else []
        subjects += [s for s in anchors if s.anchor is not None and s not in subjects]
        if not subjects:
            return self._done(None, "nothing named")

        def ordered(subject: Slot) -> list[Slot]:
            return [subject, *[s for s in slots if s is not subject]]

        if operation == "describe" or (not attributes and self.described):
            return self._done(self._plan(ordered(subjects[0]), "describe"))
        best: tuple[float, Relation, Slot] | None = None
        asked_nouns = self._asked_nouns()
        for rank, relation in enumerate(attributes):
            specific = [n for n in relation.nouns if n in asked_nouns[:1] and not (
                relation.value == "time" and n in GENERIC_TIME_NOUNS)]
            asked = 4.0 * bool(specific) + 2.0 * self._verb_in(relation) + 1.0 * any(
                n in self.words or n in self.text.lower() for n in relation.nouns)
            for order, subject in enumerate(subjects):
                category = subject.anchor.category if subject.anchor else subject.category
                if not fits(relation.domain, category):
                    continue
                score = asked - 0.01 * rank - 0.001 * order
                if best is None or score > best[0]:
                    best = (score, relation, subject)
        if best is None and self._relink(subjects, attributes):
            # "when was Asinou built": the place's name also names a church, in brackets
            return self._value_plan(head, anchors, attributes, operation, slots)
        if best is None:
            if head is not None and head.links:
                return self._done(self._plan(ordered(head), "list"))
            return self._done(self._plan(ordered(subjects[0]), "describe"))
        _, relation, subject = best
        wanted = next((r for r in attributes if any(
            n in asked_nouns[:1] and not (r.value == "time" and n in GENERIC_TIME_NOUNS)
            for n in r.nouns)), None)
        if wanted is not None and wanted is not relation and subject.anchor is not None and \
                not any(fits(wanted.domain, s.anchor.category if s.anchor else s.category)
                        for s in subjects):
            if self._relink(subjects, [wanted]):  # "mary cassatt": Mary Stevenson Cassatt
                return self._value_plan(head, anchors, attributes, operation, slots)
            # "Paul Mellon's birth year": a birth needs a person, the name is a work's
            self.missing.append(Missing(subject.anchor.text, (wanted.domain,), tuple(
                self.p.names.closest(subject.anchor.text, [wanted.domain])), (Candidate(
                    subject.anchor.node, subject.anchor.label, subject.anchor.category, 1.0,
                    "exact"),)))
            return self._done(None, "names")
        group = attribute_group([relation, *[r for r in attributes if r is not relation]])
        hints: tuple[str, ...] = ()
        for r in group:
            hints += self._hints(r, self.verbs)
        extreme: dict[str, object] = {}
        ends = [w for w in self.words if w in WORDS.time_ends]
        if relation.value == "time" and ends:  # "when was Asinou first painted": the earliest
            extreme = {"order_by": relation.id, "descending": ends[0] in {"last", "latest"},
                       "limit": 1}
        wanted_ids = tuple(r.id for r in group) + self._asked_too(subject, group, slots)
        plan = self._plan(ordered(subject), "value", attributes=wanted_ids, hints=hints, **extreme)
        return self._done(plan)

    def _asked_too(self, subject: Slot, group: Sequence[Relation],
                   slots: list[Slot]) -> tuple[str, ...]:
        """Relations a question asks of the subject beside its value ("who painted X, and
        when"): a bare "who" linked to it is a value asked too, not a condition (the slot
        is dropped from ``slots``)."""
        category = subject.anchor.category if subject.anchor else subject.category
        more: list[str] = []
        for slot in list(slots):
            if slot is subject or slot.anchor is not None or slot.filters or \
                    slot.noun not in WH or len(slot.links) != 1 or slot.links[0][1] is not subject:
                continue
            relation = self.p.lexicon[slot.links[0][0]]
            if fits(relation.domain, category) and relation.value == "node" and \
                    relation not in group and relation.id not in more:
                slots.remove(slot)
                more.append(relation.id)
        return tuple(more)

    def _relink(self, subjects: Sequence[Slot], attributes: Sequence[Relation]) -> bool:
        """Link the first named subject again, to a node of the kind an asked attribute
        needs (a looser name: "Asinou" in "Panagia Phorbiottissa (Asinou)"), of which the
        graph records that attribute; whether one was found."""
        for subject in subjects:
            anchor = subject.anchor
            if anchor is None:
                continue
            for relation in attributes:
                if relation.domain in {"Any", anchor.category}:
                    continue
                found = link_name(self.p.names, anchor.text, [relation.domain],
                                  trial=self.p.trial, relation=relation.id)
                if isinstance(found, Anchor):
                    subject.anchor, subject.category = found, found.category
                    return True
        return False

    def _time(self, head: Slot, slots: list[Slot], grouped: bool = False) -> None:
        """The time expression, as a filter on the relation of the verb before it (not
        when the question lists periods to break a count down by)."""
        if self.time is None or (grouped and self.periods > 1):
            return
        condition, _ = self.time
        idx = self.words.index(TIME) if TIME in self.words else len(self.words)
        before = [w for w in self.words[:idx]]
        relation = "creation-date"
        # no verb names the date: the noun right before the time expression owns it ("the
        # curators of exhibitions in 1955": the exhibitions' year, not the curators' birth)
        owner = self._noun_before(before, slots)
        target = owner or head
        dating = False  # "works by X that date from the 1770s": the work's date, not X's act
        for word in reversed(before):
            if word in AUX:  # "who was the artist …": "was" alone names no date
                continue
            found = [r for r in self.p.relations_for(word) if r.value == "time"]
            if found:
                fitting = [r for r in found for s in slots if fits(r.domain, s.category)]
                if fitting:
                    relation = fitting[0].id
                    target = next(s for s in slots if fits(fitting[0].domain, s.category))
                    dating = word in DATING_WORDS or word in self.p.lexicon[relation].nouns
                break
        domain = self.p.lexicon[relation].domain
        if not fits(domain, target.category):
            if target is not owner:
                # no word names whose date it is: an event's before a work's before an
                # actor's birth ("the most exhibited artist 1929–1959": the exhibitions')
                target = next((s for kind in ("Event", domain) for s in slots
                               if s.category == kind), head)
            if not fits(domain, target.category):
                relation = {"Actor": "birth-date", "Event": "event-date"}.get(
                    target.category or "", "creation-date")
        through = None
        made = [link for link in target.links if link[0] == "created-by" and not link[2]]
        free = [link for link in made if link[1].anchor is None and not link[1].links
                and not link[1].filters and not link[1].types and link[1] is not head]
        if relation == "creation-date" and made and len(free) == len(made):
            # "churches painted in the 14th century": no maker is asked, so none is needed
            # (a painting campaign the graph names no painter of still dates the church);
            # the verb singles out the event whose date counts
            target.links = [link for link in target.links if link not in free]
            hints = tuple(dict.fromkeys(h for link in free for h in link[3]))
            target.filters.append(replace(condition, relation=relation, hints=hints))
            return
        if relation == "creation-date" and made and not dating:
            through = "created-by"  # the maker's own production carries the date
        target.filters.append(replace(condition, relation=relation, through=through))

    @staticmethod
    def _noun_before(before: Sequence[str], slots: Sequence[Slot]) -> Slot | None:
        """The variable whose noun stands right before the time expression (prepositions
        aside), if any."""
        words = [w for w in before if w not in PREPOSITIONS]
        if not words:
            return None
        last = words[-1]
        return next((s for s in slots if s.anchor is None and s.noun and last in
                     (s.noun, pluralise(s.noun), singularise(s.noun))), None)

    def _superlative(self, head: Slot, slots: list[Slot], order: tuple[str, bool],
                     limit: int | None, counted: Slot | None) -> Parsed:
        kind, descending = order
        if kind == "count":
            plan = self._plan(slots, "superlative", order_by="count", descending=descending,
                              limit=limit or 1)
            return self._done(plan)
        extra: tuple[str, ...] = ()
        ranked = self._ranked_noun(head)
        if ranked is not None and ranked is not head:
            # "who made the newest work": the newest work, with its makers
            slots = [ranked, *[s for s in slots if s is not ranked and s is not head]]
            if head.category == "Actor":
                extra = ("created-by",)
            head = ranked
        if kind == "size":
            relation = "dimension"
            measure = next((DIMENSION_WORDS[w] for w in self.words if w in DIMENSION_WORDS),
                           None)
            if measure:
                relation = f"dimension:{measure}"
        else:
            relation = self._time_relation(head)
        name = relation.split(":")[0]
        plan = self._plan(slots, "superlative", order_by=relation, descending=descending,
                          limit=limit or 1, attributes=(name, *extra))
        return self._done(plan)

    def _time_relation(self, slot: Slot) -> str:
        """The date a slot is ranked or grouped by: of its acquisition when the question
        speaks of acquiring, of the verb's event, else its own kind of date."""
        if slot.category == "Thing" and self._has(*sorted(ACQUISITION_VERBS), "acquisition",
                                                  "acquisitions", "enter", "entered"):
            return "acquisition-date"
        for w in self.verbs:
            for r in self.p.relations_for(w):
                if r.value == "time" and fits(r.domain, slot.category) and w in r.verbs:
                    return r.id
        return {"Actor": "birth-date", "Event": "event-date"}.get(slot.category or "",
                                                                  "creation-date")

    def _ranked_noun(self, head: Slot) -> Slot | None:
        """The noun a superlative word stands before ("the newest work")."""
        for i, w in enumerate(self.words):
            if w in SUPERLATIVES or w in {"recent"}:
                for nxt in self.words[i + 1:i + 3]:
                    if nxt == head.noun or nxt in ACQUISITION_NOUNS:
                        return head
                    if nxt in self.p.nouns:
                        return self._noun_slot(nxt)
        return None

    def _acquisitions(self, head: Slot, slots: list[Slot]) -> Slot:
        """"The most recent acquisition": the works, ranked by their acquisition."""
        if head.noun in ACQUISITION_NOUNS:
            thing = Slot("Thing", "works", links=head.links, filters=head.filters,
                          exclude=head.exclude)
            slots[:] = [thing if s is head else s for s in slots]
            return thing
        return head

    def _counted(self, head: Slot) -> Slot | None:
        """For "who made the most works": the works, linked to the head."""
        ranking = set(SUPERLATIVES) | {w for p in SUPERLATIVE_PHRASES for w in p.split()}
        at = next((i for i, w in enumerate(self.words) if w in ranking), -1)
        after = self.words[at + 1:]
        noun = next((w for w in after if w in self.p.nouns and w != head.noun), None)
        if noun is None:
            noun = "works"
        slot = self._noun_slot(noun) if noun in self.p.nouns else Slot("Thing", "works")
        for k, (relation_id, other, inverse, hints) in enumerate(head.links):
            if other.anchor is None and other.noun == slot.noun:
                # "who made the most works in the 1840s": the works the question linked
                del head.links[k]
                other.links.append((relation_id, head, not inverse, hints))
                return other
        verbs = [w for w in self.verbs if self.p.relations_for(w) and w not in HOLDING_VERBS
                 and w not in ranking]
        found = self._relation_between(slot, head, verbs) if verbs else None
        found = found or self._relation_between(slot, head, ["by"])
        if found is None:
            return None
        relation, inverse = found
        slot.links.append((relation.id, head, inverse, ()))
        return slot

    def _group(self, head: Slot, slots: list[Slot], unit: str,
               limit: int | None = None) -> Parsed:
        """Counts per value of a unit or attribute; ``limit``: only the largest groups."""
        if unit in GROUP_UNITS:
            key = f"{self._time_relation(head)}:{GROUP_UNITS[unit]}"
        elif any(unit in r.nouns for r in self.p.relations_for(unit)):
            found = [r for r in self.p.relations_for(unit)
                     if unit in r.nouns and fits(r.domain, head.category)]
            if not found:
                return self._done(None, "group key")
            key = found[0].id
        else:
            other = self._noun_slot(unit) if unit in self.p.nouns else None
            relation = self._relation(["by", unit], head.category,
                                      other.category if other else None) if other else None
            if relation is None or relation[1]:
                return self._done(None, "group key")
            key = relation[0].id
        return self._done(self._plan(slots, "group", group_by=key, limit=limit))

    # -- slots to plan ---------------------------------------------------------------------
    def _plan(self, slots: list[Slot], operation: str, **kwargs: object) -> ExactPlan:
        """Variables from slots (anchors fold into the links that name them)."""
        variables: list[Slot] = []

        def index(slot: Slot) -> int:
            if slot not in variables:
                variables.append(slot)
            return variables.index(slot)

        index(slots[0])
        for slot in slots:
            if slot.anchor is None or slot is slots[0]:
                index(slot)
        for slot in list(variables):
            self._agent(slot, variables)
        built: dict[int, Variable] = {}
        k = 0
        while k < len(variables):
            slot = variables[k]
            links = []
            for relation, other, inverse, hints in slot.links:
                target: Anchor | int
                if other.anchor is not None and not other.links and not other.filters:
                    target = other.anchor
                else:
                    target = index(other)
                links.append(Link(relation, target, inverse, hints,
                                  self.roles.get((id(slot), id(other)))))
            built[k] = Variable(slot.category if slot.anchor is None else slot.anchor.category,
                                slot.noun, tuple(slot.types), tuple(links),
                                tuple(slot.filters), slot.anchor, tuple(slot.exclude))
            k += 1
        attributes = kwargs.pop("attributes", ())
        plan = ExactPlan(self.text, tuple(built[i] for i in range(len(variables))),
                         operation,  # type: ignore[arg-type]
                         attributes=tuple(attributes),  # type: ignore[arg-type]
                         notes=tuple(self.notes), **kwargs)  # type: ignore[arg-type]
        return plan

