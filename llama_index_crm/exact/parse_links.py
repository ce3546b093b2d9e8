"""The plan builder's linking part: the names of a question as anchors, and each relation
word as a link between the slot before it and the slot after it (:class:`LinkParts`)."""

from __future__ import annotations

from collections.abc import Sequence

from llama_index_crm.exact.execute import GENDER_WORDS
from llama_index_crm.exact.linking import (
    EDIT_PENALTY,
    SCORES,
    STOP_WORDS,
    Candidate,
    Mention,
    Missing,
    Unresolved,
    link_name,
    mentions_forms,
)
from llama_index_crm.exact.parse_words import (
    ACQUISITION_VERBS,
    AGENT_WORKS,
    ATTRIBUTE_RELATIONS,
    AUX,
    COLLECTION,
    COPULA,
    DETERMINERS,
    GENERIC_THINGS,
    HONORIFICS,
    MEMBER_OF,
    PREPOSITIONS,
    TITLE_JOINERS,
    TITLE_RELATION,
    TITLE_VERBS,
    WH,
    WORDS,
    BuilderState,
    Element,
    Slot,
    cued_only,
    fits,
)
from llama_index_crm.exact.plan import Anchor, ValueFilter
from llama_index_crm.exact.relations import Relation
from llama_index_crm.exact.roles import ROLE_RELATION
from llama_index_crm.query.lexicon import pluralise, singularise
from llama_index_crm.storage.names import fold_name

__all__ = ["LinkParts"]

CARRIED_OUT = "carried-out-by"
"""The relation of an event to whoever carried it out (P14): a role the graph records
names the actors more narrowly."""


class LinkParts(BuilderState):
    """The builder's part that links names and relation words: anchors, chains of relations
    between slots, what a word of another kind stands for instead."""

    # -- helpers ---------------------------------------------------------------------------
    def _number_of(self) -> bool:
        """"the number of works", not "the accession number of X" (an attribute)."""
        words = self.words
        return any(w == "number" and words[i + 1:i + 2] == ["of"] and not (
            i and any(r.value == "text" for r in self.p.relations_for(f"{words[i - 1]} number")))
            for i, w in enumerate(words))

    def _has(self, *phrases: str) -> bool:
        joined = f" {' '.join(self.words)} "
        return any(f" {p} " in joined for p in phrases)

    def _anchor(self, el: Element, expected: Sequence[str] | None,
                relation: str | None = None, inverse: bool = False,
                other: str | None = None, prefer: Sequence[str] = ()) -> Anchor | None:
        """The node an element names, checked against the categories expected there."""
        candidates = el.mention.candidates if el.mention is not None else None
        prefer = list(prefer) or [c for c in (expected or ()) if c != "Any"] or \
            self.value_domains
        found = link_name(self.p.names, el.text, expected, candidates,
                          exact=el.kind == "mention", trial=self.p.trial, relation=relation,
                          inverse=inverse, other=other, prefer=prefer)
        if isinstance(found, Missing):
            self.missing.append(found)
            return None
        if isinstance(found, Unresolved):
            node = self.chosen.get(fold_name(found.text))
            kept = [c for c in found.candidates if c.node == node]
            if kept:  # the tie read as one of its nodes (a reading of each is tried)
                return Anchor(found.text, kept[0].node, self.p.names.display(kept[0].node),
                              kept[0].category, kept[0].how)
            self.ambiguous.append(found)
            return None
        return found

    def _relation(self, cue_words: Sequence[str], left: str | None, right: str | None,
                  default: bool = True,
                  anchor: Anchor | None = None) -> tuple[Relation, bool] | None:
        """The relation cue words name between categories ``left`` and ``right``:
        (relation, inverse) where inverse means right —relation→ left. Between several
        that fit, with ``anchor`` on the right, the first through which the graph links
        something ("bronze sculptures": made of bronze, not typed or depicting it)."""
        candidates = self._cued(cue_words, left)
        if default:
            candidates += [r for r in self._defaults(left, right) if r not in candidates]
        fitting: list[tuple[Relation, bool]] = []
        for relation in candidates:
            if relation.value == "time" or relation.range in {"Text", "Dimension"}:
                continue
            if fits(relation.domain, left) and fits(relation.range, right):
                fitting.append((relation, False))
            elif fits(relation.domain, right) and fits(relation.range, left):
                fitting.append((relation, True))
        if len(fitting) > 1 and anchor is not None and self.p.trial is not None:
            candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0, anchor.how)
            useful = [f for f in fitting if self.p.trial(f[0].id, left, f[1], candidate)]
            fitting = useful or fitting
        return fitting[0] if fitting else None

    def _defaults(self, left: str | None, right: str | None) -> list[Relation]:
        """Relations between two categories when no word names one ("Whistler etchings")."""
        pairs = {("Thing", "Actor"): ["created-by"], ("Thing", "Place"): ["depicts", "located-in"],
                 ("Actor", "Actor"): ["member-of"],
                 ("Event", "Actor"): ["carried-out-by", "had-in-role"],
                 ("Event", "Place"): ["took-place-at"], ("Place", "Place"): ["place-within"],
                 ("Thing", "Concept"): ["made-of", "has-type", "depicts"],
                 ("Thing", "Thing"): ["part-of"],
                 ("Actor", "Place"): ["birth-place", "residence"]}
        ids = pairs.get((left or "", right or ""), []) + pairs.get((right or "", left or ""), [])
        return [self.p.lexicon[i] for i in ids if i in self.p.lexicon]

    def _modifier(self, i: int) -> bool:
        """Whether the noun at ``i`` modifies an actor noun right after it and names a node
        ("american painters"); it then becomes a name, linked to that noun."""
        els = self.els
        nxt = els[i + 1] if i + 1 < len(els) else None
        if nxt is None or nxt.kind != "word" or self.p.nouns.get(nxt.word) != "Actor" or \
                self.p.nouns.get(els[i].word) == "Actor" or els[i].possessive:
            return False
        candidates = self.p.names.exact(els[i].text, ["Actor", "Place", "Concept"])
        if not candidates:
            return False
        self.els[i] = Element("mention", [els[i].word], els[i].text,
                          Mention(0, 1, els[i].text, tuple(candidates)))
        return True

    def _before(self, els: list[Element]) -> list[Element]:
        """Names before the head, each with the relation words between it and the head
        ("did monet paint anything": painted), else the default cue of an adjective or an
        owner ("Whistler etchings", "Kauffer's posters")."""
        out: list[Element] = []
        for k, el in enumerate(els):
            if el.kind not in {"mention", "run"}:
                continue
            between = [e.word for e in els[k + 1:] if e.kind == "word" and any(
                e.word in r.verbs for r in self.p.relations_for(e.word))]
            if between and not el.possessive:
                out += [Element("word", [w], w) for w in between] + [el]
                continue
            marker = "⟨poss⟩" if el.possessive else "⟨adj⟩"
            out += [Element("word", [marker], ""), el]
        return out

    def _is_attribute_noun(self, i: int) -> bool:
        """A noun that names an attribute of something named after it ("date of X",
        "artist of X", "nationality of the artist")."""
        w = self.words[i]
        nxt = self.words[i + 1] if i + 1 < len(self.words) else ""
        if w in {"who", "whom", "where"}:
            return False
        relations = self.p.relations_for(w)
        if not relations:
            return False
        del nxt
        return any(r.value in {"time", "text"} or r.id in ATTRIBUTE_RELATIONS
                   for r in relations if w in r.nouns)

    def _chain(self, head: Slot | None, rest: list[Element], slots: list[Slot]) -> list[Slot]:
        """Links from cue words between the head (or the noun last linked) and what follows."""
        current = head
        anchors: list[Slot] = []
        cue: list[str] = []
        i = 0
        while i < len(rest):
            el = rest[i]
            if el.kind == "word":
                w = el.word
                if w in GENDER_WORDS and i and rest[i - 1].word in COPULA and \
                        head is not None and current is head and head.category == "Actor":
                    head.types.append(w)  # "which artists are female"
                elif w == "⟨adj⟩" or w == "⟨poss⟩":
                    cue = [w]
                elif w in self.p.nouns and w not in COLLECTION:
                    nxt = rest[i + 1].word if i + 1 < len(rest) else ""
                    if nxt == "of" and self.p.relations_for(w) and not (
                            current is not None and cue and w in self.p.nouns and
                            self.p.nouns[w] != current.category):  # "the artist of X"
                        cue.append(w)
                        if current is head and head is not None and head.anchor is None and \
                                head.noun in (None, "who", "whom") and \
                                self.p.nouns[w] == head.category:
                            head.noun = w  # "who was the painter of X": a painter
                    elif current is not None and cue:
                        slot = self._noun_slot(w)
                        if self._link(current, slot, cue):
                            slots.append(slot)
                            current = slot
                        cue = []
                elif w in AUX:
                    pass
                elif w in DETERMINERS:
                    pass  # "the" of a CRM label ("occurred in the presence of") cues nothing
                elif w in self.p.relation_words or w in PREPOSITIONS or \
                        any(w in r.split() for r in self.p.relation_words):
                    cue.append(w)
                elif w in COLLECTION:
                    cue = []
                i += 1
                continue
            if el.kind == "time":
                cue = []
                i += 1
                continue
            if el.kind == "run":
                widened = self._widen(rest, i, current, cue)
                if widened is not None:
                    el, cue = widened
            # a name: the object of the cue before it, or the agent of a verb after it
            after = [e.word for e in rest[i + 1:i + 3] if e.kind == "word"
                     and e.word not in PREPOSITIONS and self.p.relations_for(e.word)]
            phrase = " ".join(e.word for e in rest[i + 1:i + 3] if e.kind == "word")
            if " " in phrase and self.p.relations_for(phrase):
                after = [phrase]  # "did X take part in": the phrase, not "take" alone
            # "which exhibitions was X in": a stranded preposition is the cue, no copula
            tail = [e.word for e in rest[i + 1:]]
            stranded = tail if tail and all(w in PREPOSITIONS for w in tail) else []
            words = cue or after[:1] or stranded
            apposition = cue == ["⟨adj⟩"] and current is head and head is not None and \
                head.noun in GENERIC_THINGS and not head.links and head.anchor is None and \
                el.mention is not None and el.mention.candidates[0].category == "Thing" and \
                not any(c.category == "Actor" for c in el.mention.candidates
                        if c.score == el.mention.score)  # "andy warhol works": his
            # "which exhibitions was X shown (in)": a relation verb after the name, no copula
            copula = bool(not cue and i and rest[i - 1].word in COPULA) and not stranded \
                and not (after and head is not None and head.category != "Actor")
            bare_head = head is not None and current is head and not head.links and \
                head.anchor is None
            if copula and bare_head and head is not None and head.category == "Actor" and \
                    fold_name(el.text) in GENDER_WORDS:  # "which artists are female"
                head.types.append(fold_name(el.text))
                i += 1
                continue
            # "who is John Smibert": about him (but "who is in X" has a cue)
            who_is = copula and head is not None and head.noun in WORDS.person_wh and \
                i == len(rest) - 1
            if (apposition or copula) and bare_head and head is not None and \
                    (head.noun not in WORDS.person_wh or who_is):
                anchor = self._anchor(el, ["Actor"] if who_is else
                                      [head.category] if head.category else None)
                if anchor is not None and head.category == anchor.category == "Actor" and \
                        not who_is and head.noun and singularise(head.noun) != head.noun \
                        and MEMBER_OF in self.p.lexicon:  # "which artists are british"
                    probe = Slot(anchor.category, anchor=anchor)
                    head.links.append((MEMBER_OF, probe, False, ()))
                    anchors.append(probe)
                elif anchor is not None:  # "what type of artwork is X": the head is X
                    head.anchor = anchor
                    anchors.append(Slot(anchor.category, anchor=anchor))
                i += 1
                continue
            target = self._target(el, current, words)
            if target is not None:
                anchors.append(target)
            cue = []
            i += 1
        return anchors

    def _widen(self, rest: list[Element], i: int, current: Slot | None,
               cue: list[str]) -> tuple[Element, list[str]] | None:
        """A run that names nothing, taken with the question words before it when
        together they name a node ("return to tillbury" → "Return to Tilbury")."""
        run = rest[i]
        if self.p.names.lookup(run.text, surname=True, fuzzy=False, partial=False):
            return None
        expected = [c for c, _, _ in self._expected(current, cue)] if current else None
        for n in (3, 2, 1):
            if i - n < 0 or any(e.kind != "word" or e.word.startswith("⟨") or e.word in WH
                                or e.word in AUX for e in rest[i - n:i]):
                continue
            words = [e.word for e in rest[i - n:i]] + run.words
            if words[0] in STOP_WORDS and words[0] not in WORDS.articles:
                continue
            found = [c for c in self.p.names.lookup(" ".join(words), expected or None,
                                                    surname=False, partial=False)
                     if c.score >= SCORES["misspelling"] - EDIT_PENALTY]
            if found:
                text = " ".join(e.text for e in rest[i - n:i + 1])
                widened = Element("mention", words, text, Mention(0, 0, text, tuple(found)))
                used = {e.word for e in rest[i - n:i]}
                return widened, [w for w in cue if w not in used]
        return None

    def _is_attribute_noun_el(self, rest: list[Element], i: int) -> bool:
        w = rest[i].word
        return any(r.value in {"time", "text"} for r in self.p.relations_for(w)) and \
            w not in self.p.nouns

    def _titles_hold(self) -> bool:
        """Names joined only by "with", "a", "of"… ("girl with a pearl earring") read as one
        title: it must name a work, else it is reported missing (not its pieces)."""
        els = self.els
        i = 0
        while i < len(els):
            if els[i].kind not in {"mention", "run"}:
                i += 1
                continue
            j = i + 1
            while j < len(els) and (els[j].kind in {"mention", "run"} or (
                    els[j].kind == "word" and els[j].word in TITLE_JOINERS)):
                j += 1
            while j > i + 1 and els[j - 1].kind == "word":
                j -= 1
            pieces = els[i:j]
            joined = any(e.kind == "word" for e in pieces)
            if (joined and sum(e.kind in {"mention", "run"} for e in pieces) > 1) or (
                    len(pieces) == 1 and pieces[0].kind == "run" and any(
                        e.kind == "mention" and e.mention and
                        e.mention.candidates[0].category == "Concept" for e in pieces)):
                text = " ".join(e.text for e in pieces)
                found = self.p.names.lookup(text, ["Thing"], surname=False)
                named = [e for e in pieces if e.kind in {"mention", "run"}]
                if not found and any(e.kind == "run" or (e.mention is not None and e.mention
                                     .candidates[0].category == "Concept") for e in named):
                    self.missing.append(Missing(text, ("Thing",), tuple(
                        self.p.names.closest(text, ["Thing"])), tuple(
                        self.p.names.containing(text))))
                    return False
            i = j
        return True

    def _take_title_words(self) -> str | None:
        """"with grizzly in the title", "titled Dawn", "called …": words a name must
        contain (taken out of the elements; returned folded)."""
        els = self.els
        for i, el in enumerate(els):
            if el.kind != "word":
                continue
            if el.word in TITLE_VERBS and i + 1 < len(els) and els[i + 1].kind != "word":
                found = els[i + 1].text
                self._drop(i, i + 2)
                return fold_name(found)
            if el.word in WORDS.title_nouns and i >= 3 and \
                    els[i - 2].word == "in" and els[i - 1].word in {"the", "their", "its", "a"}:
                start = i - 3
                while start > 0 and els[start - 1].kind != "word":
                    start -= 1
                words = [e.text for e in els[start:i - 2]]
                if words and all(e.kind != "word" or e.word not in WH for e in els[start:i - 2]):
                    self._drop(start, i + 1)
                    return fold_name(" ".join(words))
        return None

    def _drop(self, start: int, end: int) -> None:
        self.els = self.els[:start] + self.els[end:]
        self.words = [e.word for e in self.els]

    def _noun_slot(self, word: str) -> Slot:
        category = self.p.nouns[word]
        slot = Slot(category, word)
        if category == "Thing" and word not in GENERIC_THINGS:
            single = self.p.type_word(singularise(word))
            slot.types.append(single if single in self.p.type_words else word)
        return slot

    def _agent(self, slot: Slot, variables: Sequence[Slot]) -> None:
        """"Photographers": the actors who made photographs, when the graph has that type
        (not "the painter of X" or "which painter carried out X", who is whoever made or
        carried out X, whatever else the graph says they made)."""
        kind = AGENT_WORKS.get(singularise(slot.noun or ""))
        if kind is None or kind not in self.p.type_words or "created-by" not in self.p.lexicon \
                or slot.category != "Actor" or slot.anchor is not None or any(
                    link[0] == "created-by" and link[2] for link in slot.links):
            return
        if any(link[1].anchor is not None for link in slot.links) or any(
                other.anchor is not None and link[1] is slot
                for other in variables for link in other.links):
            return
        for other in variables:  # "the most prolific sculptor": the works counted are his
            if any(link[0] == "created-by" and link[1] is slot and not link[2]
                   for link in other.links):
                self.roles[id(other), id(slot)] = kind
                return
        works = Slot("Thing", pluralise(kind))
        slot.links.append(("created-by", works, True, ()))
        self.roles[id(slot), id(works)] = kind

    def _link(self, left: Slot, right: Slot, cue: Sequence[str],
              hints: tuple[str, ...] = ()) -> bool:
        found = self._relation_between(left, right, cue)
        if found is None:
            return False
        relation, inverse = found
        relation = self._role_named(relation, left if inverse else right)
        relation = self._role_verb(relation, cue, left, right, inverse)
        # prepositions, and verbs the date read ("exhibitions opened at MoMA in 1939")
        plain = all(w in PREPOSITIONS or w.startswith("⟨") or self.p.time_verb(w) for w in cue)
        if (relation.id == "acquired-by" or plain) and right.anchor is not None and \
                right.anchor.node in self.p.holders() and not any(
                    w in ACQUISITION_VERBS for w in cue):
            # "works at the YCBA", "does the museum have": the graph's own collection
            self.notes.append(f"{right.anchor.label} holds the whole collection")
            return True
        # the members' own noun is their type, no event's ("Kitaj's prints": works typed
        # or described as prints, not only those whose production is typed printing)
        own = frozenset({singularise(left.noun)} if left.noun and left.category == "Thing"
                        else ())
        left.links.append((relation.id, right, inverse, hints or self._hints(relation, cue, own)))
        if left.noun and singularise(left.noun) in relation.nouns and not inverse:
            left.types.clear()  # "portraits of X": works depicting X, whatever their type
        return True

    def _role_named(self, relation: Relation, actor: Slot) -> Relation:
        """"the artists featured in E": not everyone taking part, those in the role the
        noun names, when the graph records such a role."""
        noun = singularise(actor.noun or "")
        if relation.id not in {ROLE_RELATION, CARRIED_OUT} or not noun or \
                actor.anchor is not None:
            return relation
        # "who was the director" of an event that records a director: that role, not
        # whoever carried the event out (the museum)
        named = next((r for r in self.p.relations_for(noun) if r.via_labels and noun in r.nouns
                      and (r.fr == relation.fr or relation.id == CARRIED_OUT)), None)
        if named is None and noun in AGENT_WORKS and relation.id == ROLE_RELATION:
            # "the photographers in E": an exhibition records its makers as its artists
            named = next((r for r in self.p.relations_for("artist") if r.via_labels
                          and "artist" in r.nouns and r.fr == relation.fr), None)
        return named or relation

    def _role_verb(self, relation: Relation, cue: Sequence[str], left: Slot, right: Slot,
                   inverse: bool) -> Relation:
        """"Who organized E" where the graph records an "Organizer" role: that role, not
        whoever carried E out (the museum); kept when the node named (E, or the gallery of
        "how many exhibitions did G organize") has no such role."""
        if relation.id != CARRIED_OUT:
            return relation
        verbs = [w for w in cue if w not in PREPOSITIONS and not w.startswith("⟨")]
        roles = [r for w in verbs for r in self.p.relations_for(w) if r.via_labels
                 and w in r.verbs and r.fr]
        if not roles:
            return relation
        role = roles[0]
        anchor = right.anchor
        trial = self.p.trial
        if anchor is None or trial is None:
            return role
        candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0, anchor.how)
        return role if trial(role.id, left.category, inverse, candidate) else relation

    def _makes(self, works: Slot, actor: Slot) -> bool:
        """Whether the named actor made works ("X's portraits": by X when X made any)."""
        anchor, trial = actor.anchor, self.p.trial
        if anchor is None or trial is None or anchor.category != "Actor" or \
                works.category != "Thing":
            return False
        candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0, anchor.how)
        return trial("created-by", works.category, False, candidate)

    def _relation_between(self, left: Slot, right: Slot,
                          cue: Sequence[str]) -> tuple[Relation, bool] | None:
        words = [w for w in cue if w not in {"⟨adj⟩", "⟨poss⟩"} and w not in DETERMINERS]
        verbs = [w for w in words if w not in PREPOSITIONS]
        found = None
        noun = singularise(left.noun or "")
        if not verbs and noun:  # "portraits of X": the noun names the relation (depicts)
            named = [(r, inverse) for r in self.p.relations_for(noun) if noun in r.nouns
                     and r.value == "node" and (not words or any(
                         w in r.prepositions for w in words))
                     for inverse in (False, True)
                     if fits(r.domain, left.category if not inverse else right.category) and
                     fits(r.range, right.category if not inverse else left.category)]
            if named and not words and self._makes(left, right):
                named = []  # "Gilbert Stuart's portraits", "Hine's pictures": his works
            if named:  # "portraits of X"; inverse: "the artists in exhibition E" (its roles)
                return named[0]
        other = singularise(right.noun or "")
        if not verbs and other and right.anchor is None:  # "the exhibition with most artists"
            named = [(r, False) for r in self.p.relations_for(other) if other in r.nouns
                     and r.value == "node" and r.via_labels and fits(r.domain, left.category)
                     and fits(r.range, right.category)]
            if named:
                return named[0]
        if verbs:  # the verb decides ("acquired by" is not "made by")
            found = self.p_relation(verbs + [" ".join(words)], left.category, right.category,
                                    default=False, anchor=right.anchor)
        if found is None:
            found = self.p_relation(words, left.category, right.category,
                                    default=not verbs or not self._verb_relations(verbs),
                                    anchor=right.anchor)
        return found

    def _verb_relations(self, verbs: Sequence[str]) -> bool:
        return any(self.p.relations_for(v) for v in verbs)

    def p_relation(self, words: Sequence[str], left: str | None, right: str | None,
                   default: bool, anchor: Anchor | None = None) -> tuple[Relation, bool] | None:
        words = list(words)
        if "of" in words and left == "Thing" and right == "Actor" and not any(
                w in {"portrait", "portraits", "picture", "pictures", "image", "images",
                      "view", "views", "depiction", "depictions"} for w in self.verbs):
            words = [w for w in words if w != "of"] + ["by"]
        if words == ["with"] and left == "Actor" and right == "Thing":
            words, default = [], True  # "the artist with the most works": who made them
        if words and set(words) <= {"in", "on"} and left == "Actor" and right == "Thing":
            words = ["depicted"]  # "who is in it": people are in a picture
        return self._relation(words, left, right, default, anchor)

    def _hints(self, relation: Relation, cue: Sequence[str],
               own: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """Event-type words the cue's verbs give the relation ("painted": a painting
        campaign); ``own``: the linked slots' nouns, which type them, not an event."""
        found: list[str] = []
        for word in [*cue, *self.verbs]:
            if singularise(word) in own:
                continue
            for stem, hints in relation.event_hints.items():
                if word.startswith(stem):
                    found += [h for h in hints if h not in found]
        return tuple(found)

    def _target(self, el: Element, current: Slot | None, cue: Sequence[str]) -> Slot | None:
        """Link the head (or current noun) to the node an element names."""
        if current is None:
            anchor = self._anchor(el, None)
            return Slot(anchor.category, anchor=anchor) if anchor else None
        probe = Slot(None)
        options = self._expected(current, cue)
        if not options and not cue:
            options = self._expected(current, ["⟨adj⟩"])
        if not options:
            anchor = self._anchor(el, None)
            if anchor is None:
                return None
            slot = Slot(anchor.category, anchor=anchor)
            if not self._link(current, slot, cue):
                return slot  # named, but no relation to the subject: the answer uses it
            return slot
        expected = list(dict.fromkeys(c for c, _, _ in options))
        relation, inverse = options[0][1], options[0][2]
        kinds = {c.category for c in el.mention.candidates} if el.mention is not None else set()
        if kinds and options[0][0] not in kinds:  # the option of the kind the name is of
            relation, inverse = next(((r, inv) for c, r, inv in options if c in kinds),
                                     (relation, inverse))
        if self._unrecorded_instead(el, current, options, cue):
            return None
        anchor = self._anchor(el, expected if "Any" not in expected else None, relation.id,
                              inverse, current.category,
                              prefer=[c for c in expected if c != "Any"])
        if anchor is None:
            other = self._other_kind(el, current)
            if other is not None:
                return other
            if not self._title_instead(el, current, options, cue):
                self._statement_instead(el, current, options, cue)
            return None
        relation, inverse = self._recorded(anchor, current, options, relation, inverse)
        probe = Slot(anchor.category, anchor=anchor)
        if not self._link(current, probe, cue):
            current.links.append((relation.id, probe, inverse, self._hints(relation, cue)))
        return probe

    def _recorded(self, anchor: Anchor, current: Slot,
                  options: Sequence[tuple[str, Relation, bool]], relation: Relation,
                  inverse: bool) -> tuple[Relation, bool]:
        """The first of the cue's readings that links the named node to anything, when the
        preferred one links it to nothing: "the oldest church of Marathasa", where no church
        depicts the valley but several stand in it (candidate readings of one word, kept by
        what the graph records)."""
        if self.p.trial is None or not anchor.node:
            return relation, inverse
        candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0, anchor.how)
        if self.p.trial(relation.id, current.category, inverse, candidate):
            return relation, inverse
        for kind, other, other_inverse in options:
            if other is relation or kind not in {anchor.category, "Any"}:
                continue
            if self.p.trial(other.id, current.category, other_inverse, candidate):
                return other, other_inverse
        return relation, inverse

    def _other_kind(self, el: Element, current: Slot) -> Slot | None:
        """A name of another kind than the cue expects, linked by the relation the graph
        has between the two kinds: "exhibitions held at the Reuben Gallery", where the
        gallery is the organiser (an actor), not a place. Only an exact name of one kind,
        and only a relation through which the graph links it to something; the coverage
        of the question is checked on the plan as usual."""
        missing = self.missing[-1] if self.missing else None
        if missing is None or missing.text != el.text or not missing.elsewhere or \
                current.category not in {"Event", "Thing", "Actor"}:
            return None
        kinds = {c.category for c in missing.elsewhere}
        if current.category == "Actor" and kinds != {"Event"}:
            return None
        if len(kinds) != 1 or any(c.how not in {"exact", "stripped", "stop-words"}
                                  for c in missing.elsewhere):
            return None
        kind = kinds.pop()
        anchor = link_name(self.p.names, el.text, [kind])
        if not isinstance(anchor, Anchor):
            return None
        for relation in self._defaults(current.category, kind):
            if current.category == "Actor":  # "the director" of an event: its director role
                relation = self._role_named(relation, current)
            inverse = not fits(relation.domain, current.category)
            candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0, anchor.how)
            if self.p.trial is None or self.p.trial(relation.id, current.category, inverse,
                                                    candidate):
                self.missing.pop()
                probe = Slot(anchor.category, anchor=anchor)
                current.links.append((relation.id, probe, inverse, ()))
                kind_asked = missing.expected[0].lower() if missing.expected else "node"
                self.notes.append(f"{anchor.label} is no {kind_asked} of this graph; read "
                                  f"as linked to it by “{relation.label}”")
                return probe
        return None

    def _unrecorded_instead(self, el: Element, current: Slot,
                            options: Sequence[tuple[str, Relation, bool]],
                            cue: Sequence[str]) -> bool:
        """A relation the graph never records, with a text that stands in for it: "paintings
        of lions" in a graph without subjects are those with lions in their titles. It is
        taken when the cue names it first, or when the words name only nodes of the kind
        of the subject ("sculptures of bison", where "Bison" is a title)."""
        names_like = el.mention is not None and all(
            c.category == current.category for c in el.mention.candidates)
        # "works by Ansel Adams", where only a photograph is named so: "by" names the maker
        # first, not the credit line
        first_cued = bool(options) and cued_only(options[0][1], cue)
        relation = next((r for n, (_, r, inverse) in enumerate(options)
                         if (n == 0 or (names_like and not first_cued)) and not inverse
                         and r.fallback
                         and cued_only(r, cue)
                         and r.fallback in self.p.lexicon and not self.p.present(r.id)
                         and (r.fallback == TITLE_RELATION or self.p.present(r.fallback))
                         and fits(r.domain, current.category)), None)
        if relation is None or relation.fallback is None:
            return False
        fallback = relation.fallback
        words = [w for w in fold_name(el.text).split() if w not in DETERMINERS]
        if not words:
            return False
        self._read_instead(current, fallback, words,
                           f"this graph records no “{relation.label}”")
        return True

    def _read_instead(self, current: Slot, fallback: str, words: Sequence[str],
                      why: str) -> None:
        """Keep the members whose ``fallback`` text (a title, a credit line) holds
        ``words`` (a title: in any word form), and say why."""
        current.filters.append(ValueFilter(fallback, contains=" ".join(words),
                                           forms=fallback == TITLE_RELATION))
        self.notes.append(f"{why}; read in the {self.p.lexicon[fallback].label}")

    def _title_instead(self, el: Element, current: Slot,
                       options: Sequence[tuple[str, Relation, bool]],
                       cue: Sequence[str]) -> bool:
        """Words no node is named, found only inside names of nodes of the subject's kind,
        after a cue that may mean what they show: "churches of the holy cross" are those
        with "holy cross" in their names."""
        missing = self.missing[-1] if self.missing else None
        fallback = next((r.fallback for _, r, inverse in options
                         if r.fallback == TITLE_RELATION and not inverse and cued_only(r, cue)),
                        None)
        if fallback is None or missing is None or missing.text != el.text or \
                not missing.elsewhere or current.category is None or \
                any(c.how != "partial" or c.category != current.category
                    for c in missing.elsewhere):
            return False
        words = [w for w in fold_name(el.text).split() if w not in DETERMINERS]
        if not words or not all(mentions_forms(fold_name(c.name), " ".join(words))
                                for c in missing.elsewhere):
            return False  # "stubbs horse": only "horse" is in the titles
        self.missing.pop()
        self._read_instead(current, fallback, words, f"“{el.text}” is no name of this graph")
        return True

    def _statement_instead(self, el: Element, current: Slot,
                           options: Sequence[tuple[str, Relation, bool]],
                           cue: Sequence[str]) -> None:
        """A name no node bears, after a verb of a relation that reads a statement when
        nodes are missing: "works given by Dr. Roland Lamb" are those whose credit line
        names him (but "works by Gainsborough" stays not found)."""
        fallback = next((r.fallback for _, r, inverse in options if r.fallback and not inverse
                         and fits(r.domain, current.category)
                         and any(w in r.verbs for w in cue)), None)
        if fallback is None or not self.missing or self.missing[-1].text != el.text or \
                el.kind != "run":
            return
        self.missing.pop()
        words = fold_name(el.text).split()
        while len(words) > 1 and (words[0] in HONORIFICS or words[0] in {"the", "and"}):
            words.pop(0)  # "Dr. Roland Lamb": credit lines may name him without the title
        self._read_instead(current, fallback, words, f"“{el.text}” is no name of this graph")

    def _expected(self, current: Slot, cue: Sequence[str]) -> list[tuple[str, Relation, bool]]:
        """(category, relation, inverse) of what may follow ``current`` after ``cue``."""
        words = [w for w in cue if w not in {"⟨adj⟩", "⟨poss⟩"}]
        options = []
        for relation in self._cued(words, current.category):
            if relation.value == "time" or relation.range in {"Text", "Dimension"}:
                continue
            if fits(relation.domain, current.category):
                options.append((relation.range, relation, False))
            elif fits(relation.range, current.category):
                options.append((relation.domain, relation, True))
        return options

    def _cued(self, words: Sequence[str], category: str | None) -> list[Relation]:
        """Relations cue words name for a ``category`` node, in order of preference: those
        of the verbs that accept the preposition, then those of the preposition alone,
        then the defaults between categories."""
        preps = [w for w in words if w in PREPOSITIONS]
        verbs = [w for w in words if w not in PREPOSITIONS]

        def fitting(found: Sequence[Relation]) -> list[Relation]:
            return [r for r in found if fits(r.domain, category) or fits(r.range, category)]

        relations: list[Relation] = []
        for word in [*verbs, " ".join(words)]:
            relations += [r for r in self.p.relations_for(word) if r not in relations]
        relations = fitting(relations)
        if preps and relations:
            accepting = [r for r in relations if set(preps) & set(r.prepositions)]
            relations = accepting or ([] if verbs else relations)
        if not relations:
            if "of" in preps and category == "Thing":
                relations.append(self.p.lexicon["created-by"])
            for prep in preps:
                relations += fitting([r for r in self.p.lexicon.values()
                                      if prep in r.prepositions and r not in relations])
        if not words:
            relations += [r for other in ("Actor", "Place", "Concept", "Thing")
                          for r in self._defaults(category, other) if r not in relations]
        return relations
