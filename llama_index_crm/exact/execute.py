"""Plans executed over the whole graph: complete sets, counts, rankings and their evidence.

:class:`Executor` resolves each variable of an :class:`~.plan.ExactPlan` to the complete set
of nodes that satisfy its links and filters (walking relations from anchors or from other
variables' sets with :class:`~.relations.RelationWalker`), then applies the operation. Every
member keeps the triples that justify it (one witness per constraint), so an answer can cite
them. Nothing is read from retrieved documents: a count is the size of a set computed over
the triple store.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from llama_index_crm.exact.filters import TITLE_RELATION, ValueFilters
from llama_index_crm.exact.holders import coming_into_being, holder_names
from llama_index_crm.exact.paths import ASSIGNED, PathEngine, Walk
from llama_index_crm.exact.plan import Anchor, ExactPlan, Link, ValueFilter, Variable
from llama_index_crm.exact.ranking import INCH_CM, NOT_RECORDED, Ranking, statement_size
from llama_index_crm.exact.relations import (
    Relation,
    RelationLexicon,
    RelationWalker,
    type_label_names,
)
from llama_index_crm.exact.results import (
    UNTYPED_EVENTS,
    ExactResult,
    Group,
    Item,
    Members,
    TripleIds,
    Value,
    extreme,
    unique_items,
)
from llama_index_crm.exact.values import GraphValues, within, years_text
from llama_index_crm.exact.wholes import broader, wholes
from llama_index_crm.ontology import CATEGORIES, Ontology
from llama_index_crm.query.conversation import word_set
from llama_index_crm.query.lexicon import pluralise, singularise
from llama_index_crm.rdf import RDF_VALUE
from llama_index_crm.storage.names import fold_name
from llama_index_crm.storage.triples import TripleStore

__all__ = ["TITLE_RELATION", "ExactResult", "Executor", "Group", "Item", "Value", "unique_items",
           "within"]

NON_WORK_CLASSES = ("E33_Linguistic_Object", "E36_Visual_Item", "E41_Appellation",
                    "E73_Information_Object", "E30_Right", "E54_Dimension")
"""Things that describe other things (statements, images, names, records): not what a
question about "works" counts, unless they are also physical things."""
PHYSICAL_CLASS = "E18_Physical_Thing"
PERSON_CLASS = "E21_Person"
GROUP_CLASS = "E74_Group"
MAKER_NOUNS = word_set("""
artist artists maker makers creator creators painter painters photographer photographers
sculptor sculptors engraver engravers printmaker printmakers architect architects author
authors designer designers illustrator illustrators draughtsman draftsman etcher etchers
printer printers builder builders founder founders""")
"""Actor nouns that mean "someone who made something"."""
PERSON_NOUNS = word_set("""
person persons people man men woman women individual individuals sitter sitters""")
GROUP_NOUNS = word_set("""
group groups nationality nationalities organisation organisations organization
organizations institution institutions""")
GENDER_WORDS = {
    **dict.fromkeys(word_set("woman women female females lady ladies"),
                    frozenset({"female", "woman", "women", "feminine"})),
    **dict.fromkeys(word_set("man men male males gentleman gentlemen"),
                    frozenset({"male", "man", "men", "masculine"}))}
"""Actor nouns that name a gender, and the words of the types that record it."""
MATERIAL_RELATION = "made-of"
HOLDER_SHARE = 0.5
"""An actor that acquired this share of the works with an acquisition holds the collection."""
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
UNTYPED_STATEMENTS: dict[str, Callable[[str], bool]] = {
    "dimensions-statement": lambda text: statement_size(text) is not None}
"""Statement relations whose statements a graph may leave untyped, and how their text is
recognised (a size: "frame: 32 5/8 × 27 1/2 in. (82.9 × 69.9 cm)")."""




class _RunState(threading.local):
    """Per thread: the notes and left-out count of the run in progress."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.left_out = 0
        self.records: dict[int, int] = {}


class Executor(Ranking, ValueFilters):
    """Runs plans over one graph.

    Args:
        store: the triple store.
        ontology: the CRM vocabulary.
        lexicon: the relations.
    """

    def __init__(self, store: TripleStore, ontology: Ontology | None = None,
                 lexicon: RelationLexicon | None = None) -> None:
        self.store = store
        self.ontology = ontology or Ontology.default()
        self.lexicon = lexicon or RelationLexicon.default()
        self.engine = PathEngine(store, self.ontology)
        self.walker = RelationWalker(self.engine)
        self.values = GraphValues(store, self.ontology)
        self._present: dict[str, bool] = {}
        self._run_state = _RunState()
        """What one run collects (notes, members left out): each thread its own, so that
        runs in several threads never mix their notes."""
        self._type_lock = threading.Lock()
        self._holders: frozenset[str] | None = None
        self._materials: dict[int, str] | None = None
        self._maker_sets: dict[str, np.ndarray] = {}
        self._role_sets: dict[str, np.ndarray | None] = {}
        self._type_words: dict[int, frozenset[str]] = {}
        self._type_labels: dict[int, tuple[str, ...]] = {}
        self._folded: dict[int, str] = {}
        self._has_type = self.lexicon.get("has-type")
        self.actor_types: frozenset[str] = frozenset()
        """Folded labels of the types (P2) the graph gives actors (set by the answerer)."""
        self._typing: dict[tuple[str, bool], bool] = {}
        self.known_types: frozenset[str] = frozenset()
        """Folded type and class labels other nodes of the graph carry (set by the answerer):
        members without a type are no "churches" when the graph types its churches."""

    @property
    def _records(self) -> dict[int, int]:
        """Members standing for a name recorded as several nodes, with how many."""
        return self._run_state.records

    @property
    def _notes(self) -> list[str]:
        return self._run_state.notes

    @_notes.setter
    def _notes(self, notes: list[str]) -> None:
        self._run_state.notes = notes

    @property
    def _left_out(self) -> int:
        return self._run_state.left_out

    @_left_out.setter
    def _left_out(self, count: int) -> None:
        self._run_state.left_out = count

    # -- public ----------------------------------------------------------------------------
    def run(self, plan: ExactPlan) -> ExactResult:
        """Execute ``plan``; a decade named without its century is tried in others."""
        result = self._run(plan)
        if result.total == 0:
            guess = self._decade_guess(plan)
            if guess is not None:
                return guess
            result.missing_relations = [r for r in self._relations(plan)
                                        if not self.relation_present(r)]
        return result

    def members(self, plan: ExactPlan, index: int) -> list[int]:
        """Term ids of the members of one variable of a plan."""
        self._left_out = 0
        return sorted(self._resolve(plan, index, {}))

    def relation_present(self, relation_id: str) -> bool:
        """Whether the graph holds any instance of a relation (cached)."""
        found = self._present.get(relation_id)
        if found is None:
            relation = self.lexicon[relation_id]
            path = self.walker.compiled(relation)
            if path.empty:
                found = False
            else:
                starts = self.members_of_category(relation.domain)
                found = bool(len(self.walker.walk(relation, starts)))
            self._present[relation_id] = found
        return found

    def collection_holders(self) -> frozenset[str]:
        """Actors that acquired at least half of the graph's works: the institution whose
        collection the graph is (cached)."""
        if self._holders is None:
            works = self.members_of_category("Thing")
            works = works[self._works(works)]
            walk = self.walker.walk(self.lexicon["acquired-by"], works)
            found: set[str] = set()
            if len(works) and len(walk):
                actors, counts = np.unique(
                    np.unique(np.stack([walk.start, walk.node], axis=1), axis=0)[:, 1],
                    return_counts=True)
                found = {self.uri(int(a)) for a, c in zip(actors, counts, strict=True)
                         if c >= HOLDER_SHARE * len(np.unique(walk.start))}
            self._holders = frozenset(found or self._event_holders())
        return self._holders

    def _event_holders(self) -> set[str]:
        """Actors, by name, that carried out at least half of the graph's events (a museum's
        exhibition history: the museum, recorded anew in each exhibition's record)."""
        relation = self.lexicon.get("carried-out-by")
        events = np.setdiff1d(self.members_of_category("Event"),
                              coming_into_being(self.store, self.engine))
        if relation is None or not len(events):
            return set()
        walk = self.walker.walk(relation, events)
        labels = [fold_name(self.label(int(n))) for n in walk.node.tolist()]
        named = holder_names(walk.start, labels, HOLDER_SHARE)
        return {self.uri(int(node)) for node in np.unique(walk.node).tolist()
                if fold_name(self.label(int(node))) in named}

    def members_of_category(self, category: str | None) -> np.ndarray:
        """Term ids of every node of a category (every non-literal node for None/Any)."""
        codes = self.values.categories
        if category in CATEGORIES:
            return np.flatnonzero(codes == CATEGORIES.index(str(category)))
        return np.flatnonzero(codes >= 0)

    def uri(self, node: int) -> str:
        """The IRI of a term id."""
        return self.store.term(node)

    def node_id(self, uri: str) -> int | None:
        """The term id of an IRI."""
        return self.store.id_of(uri)

    def label(self, node: int) -> str:
        """The name to show for a node."""
        return self.values.label(node)

    # -- execution -------------------------------------------------------------------------
    def _run(self, plan: ExactPlan) -> ExactResult:
        self._left_out = 0
        self._notes = []
        self._run_state.records = {}
        members = self._resolve(plan, 0, {})
        items = [self._item(node, evidence) for node, evidence in members.items()]
        self._attributions(items)
        items.sort(key=lambda it: (fold_name(it.label), it.uri))
        result = ExactResult(plan, items, len(items),
                             notes=list(dict.fromkeys([*plan.notes, *self._notes])),
                             left_out=self._left_out)
        if plan.operation in {"value", "describe"} and plan.attributes:
            for name in plan.attributes:
                self._attach(items, self.lexicon[name], plan.hints)
            if plan.operation == "value" and plan.order_by and plan.limit:
                for item in items:  # "first painted": the earliest of its dates
                    item.values = extreme(item.values, plan.order_by, plan.descending)
        elif plan.operation == "superlative":
            self._rank(plan, result)
        elif plan.operation == "group" and plan.group_by:
            self._grouped(plan, result)
        result.notes = list(dict.fromkeys([*plan.notes, *self._notes]))  # ranking's too
        return result

    def _grouped(self, plan: ExactPlan, result: ExactResult) -> None:
        """``result``'s members in groups by ``plan.group_by`` (the ``limit`` largest)."""
        assert plan.group_by is not None
        result.groups = self._group(result.items, plan.group_by, plan.variables[0].types)
        if plan.limit:
            known = [g for g in result.groups if g.key != NOT_RECORDED]
            known.sort(key=lambda g: -len(g.items))
            cut = len(known[min(plan.limit, len(known)) - 1].items) if known else 0
            result.groups = [g for g in known if len(g.items) >= cut]

    def _attributions(self, items: list[Item]) -> None:
        """Notes for members reached through an attribute assignment (E13) rather than a
        recorded fact: "attributed", with the assignment's label."""
        assigned = self.engine.property_ids(ASSIGNED)
        if not len(assigned):
            return
        for item in items:
            how = next((s for s, p, _ in item.evidence if p in assigned), None)
            if how is not None:
                self._notes.append(f"“{item.label}”: by attribution, not a recorded fact "
                                   f"({self.label(how)})")

    def _relations(self, plan: ExactPlan) -> list[str]:
        found = [link.relation for var in plan.variables for link in var.links]
        found += [f.relation for var in plan.variables for f in var.filters]
        for name in (*plan.attributes, (plan.order_by or "").split(":")[0],
                     (plan.group_by or "").split(":")[0]):
            if name and name in self.lexicon:
                found.append(name)
        return list(dict.fromkeys(found))

    def _item(self, node: int, evidence: list[TripleIds]) -> Item:
        return Item(node, self.uri(node), self.label(node), self.values.category(node),
                    evidence)

    def _resolve(self, plan: ExactPlan, index: int, skip: dict[int, Link | None]) -> Members:
        """The members of variable ``index`` with their evidence (links in ``skip`` are
        left out: a superlative counts through them)."""
        var = plan.variables[index]
        sets: list[Members] = []
        if var.anchor is not None:
            sets.append({n: [] for n in self._anchor_ids(var.anchor)})
        for link in var.links:
            if skip.get(index) is link:
                continue
            dated = [f for f in var.filters if f.through == link.relation and f.years]
            sets.append(self._link(plan, link, skip, dated))
        if not sets:  # one shared empty evidence list: evidence lists are never mutated
            sets.append(dict.fromkeys(self._base(var).tolist(), []))
        members = sets[0]
        for other in sets[1:]:
            members = {n: members[n] + ev for n, ev in other.items() if n in members}
        members = self._filter(var, members)
        return members

    def _base(self, var: Variable) -> np.ndarray:
        nodes = self.members_of_category(var.category)
        noun = (var.noun or "").lower()
        if var.category == "Actor" and noun in MAKER_NOUNS:
            nodes = np.intersect1d(nodes, self._makers(noun))
        elif var.category == "Actor" and not var.links and \
                (holders := self._role_holders(noun)) is not None:
            nodes = np.intersect1d(nodes, holders)
        return nodes

    def _role_holders(self, noun: str) -> np.ndarray | None:
        """The actors a role's noun stands for ("directors": those the graph records as
        director of some event), or None when no role of the graph is named so."""
        if not noun:
            return None
        if noun not in self._role_sets:
            walks = [self.walker.walk(r, self.members_of_category(r.domain)).node
                     for r in self.lexicon.values() if r.via_labels and noun in r.nouns]
            self._role_sets[noun] = np.unique(np.concatenate(walks)) if walks else None
        return self._role_sets[noun]

    def _makers(self, noun: str) -> np.ndarray:
        """The actors a maker's noun stands for: makers of things, and those the graph
        records in a role of that name ("Artist" in an exhibition's roles)."""
        found = self._maker_sets.get(noun)
        if found is None:
            # a maker's noun no role of the graph is named by ("photographers"): those an
            # exhibition records as its artists are makers too
            own = any(r.via_labels and noun in r.nouns for r in self.lexicon.values())
            walks = [self.walker.walk(r, self.members_of_category(r.domain)).node
                     for r in self.lexicon.values() if r.id == "created-by" or (
                         r.via_labels and (noun in r.nouns or not own and "artist" in r.nouns))]
            found = np.unique(np.concatenate(walks)) if walks else np.zeros(0, np.int64)
            self._maker_sets[noun] = found
        return found

    def _materials_named(self, anchor: Anchor) -> list[int]:
        """Materials of the graph whose names contain the anchor's as a word ("bronze":
        "Bronze and Wood", "Bronze, Granite base"): a material statement names several."""
        if self._materials is None:
            relation = self.lexicon[MATERIAL_RELATION]
            walk = self.walker.walk(relation, self.members_of_category("Thing"))
            nodes = np.unique(walk.node)
            self._materials = {int(n): f" {fold_name(self.label(int(n)))} " for n in nodes}
        word = f" {fold_name(anchor.text)} "
        found = sorted(n for n, label in self._materials.items() if word in label)
        if len(found) > 1:
            self._notes.append(f"“{anchor.text}” read as the {len(found)} materials whose "
                               f"names contain it")
        return found

    def _anchor_ids(self, anchor: Anchor) -> list[int]:
        return [n for n in (self.node_id(u) for u in anchor.nodes) if n is not None]

    def _link(self, plan: ExactPlan, link: Link, skip: dict[int, Link | None],
              dated: Sequence[ValueFilter] = ()) -> Members:
        relation = self.lexicon[link.relation]
        if isinstance(link.target, Anchor):
            targets: Members = {n: [] for n in self._anchor_ids(link.target)}
            if relation.id == MATERIAL_RELATION and link.target.category == "Concept":
                targets.update({n: [] for n in self._materials_named(link.target)})
        else:
            targets = self._resolve(plan, link.target, skip)
        if not targets:
            return {}
        ids = np.fromiter(targets, dtype=np.int64, count=len(targets))
        if link.inverse:  # target —relation→ variable
            walk = self.walker.walk(relation, ids)
        else:  # variable —relation→ target
            walk = self.walker.walk(relation, ids, reverse=True,
                                    closure=isinstance(link.target, Anchor))
        rows = self._hinted(walk, link.hints)
        if link.role:
            rows = self._in_role(walk, rows, link.role)
        for condition in dated:
            before = {int(walk.node[r]) for r in rows}
            rows = self._dated(walk, rows, condition)
            self._dated_otherwise(before - {int(walk.node[r]) for r in rows}, condition)
        found: Members = {}
        witnesses = walk.witnesses(rows)
        for row, witness in zip(rows, witnesses, strict=True):
            node = int(walk.node[row])
            if node not in found:
                found[node] = witness + targets[int(ids[walk.start[row]])]
        return found

    def _hinted(self, walk: Walk, hints: Sequence[str]) -> list[int]:
        """Rows of a walk, only those through an event typed with a hint word when any is."""
        rows = list(range(len(walk)))
        if not hints or not rows:
            return rows
        wanted = {fold_name(h) for h in hints}
        kept = []
        inner = self._inner(walk, rows)
        self._load_type_text(set().union(*inner))
        for row, nodes in zip(rows, inner, strict=True):
            if any(self._hint_text(n) & wanted for n in nodes):
                kept.append(row)
        if not kept and any(self._type_text(n) for nodes in inner for n in nodes):
            # the events on the way are typed, none as the verb says: "who painted Asinou"
            # is not answered by who built it
            return []
        return kept or rows

    def _in_role(self, walk: Walk, rows: list[int], role: str) -> list[int]:
        """Rows whose made thing (at either end) or an event on the way is typed with
        ``role`` ("painting": a painting, or a wall-painting campaign); no others."""
        wanted = {fold_name(role), pluralise(fold_name(role))}  # "Color photographs"
        inner = self._inner(walk, rows)
        ends = [(walk.origin(r), int(walk.node[r])) for r in rows]
        self._load_type_text({n for pair in ends for n in pair}.union(*inner))
        return [row for row, between, pair in zip(rows, inner, ends, strict=True)
                if any(wanted & self._type_words[n] for n in (*pair, *between))]

    @staticmethod
    def _inner(walk: Walk, rows: list[int]) -> list[set[int]]:
        """Per row, the nodes its path went through (its start and end left out)."""
        return [{n for t in witness for n in (t[0], t[2])} - {walk.origin(row),
                                                              int(walk.node[row])}
                for row, witness in zip(rows, walk.witnesses(rows), strict=True)]

    def _type_text(self, node: int) -> frozenset[str]:
        """Folded labels of a node's types, and their words."""
        found = self._type_words.get(node)
        if found is None:
            self._load_type_text([node])
            found = self._type_words[node]
        return found

    def _hint_text(self, node: int) -> frozenset[str]:
        """:meth:`_type_text` and the node's own label: an event is singled out by its type
        ("wall-painting campaign") or its name ("Wall paintings of …")."""
        folded = fold_name(self.store.label_of(node) or "")
        return self._type_text(node) | {folded, *folded.split()}

    def _load_type_text(self, nodes: Iterable[int]) -> None:
        """:meth:`_type_text` of many nodes with one walk."""
        with self._type_lock:  # a node in _type_words has its _type_labels too
            self._load_type_text_locked(nodes)

    def _load_type_text_locked(self, nodes: Iterable[int]) -> None:
        todo = np.asarray([n for n in nodes if n not in self._type_words], dtype=np.int64)
        if not len(todo):
            return
        labels: dict[int, list[str]] = {int(n): [] for n in todo}
        broader_labels: dict[int, list[str]] = {int(n): [] for n in todo}
        if self._has_type is not None:
            walk = self.walker.walk(self._has_type, todo)
            for start, type_node in zip(walk.start.tolist(), walk.node.tolist(), strict=True):
                labels[int(todo[start])].append(self.store.label_of(type_node) or "")
            # a chapel is a church when its type's broader term (P127) is "church"
            up = broader(self.engine, walk.node) if len(walk) else None
            for row, term in zip(up.start.tolist() if up else [], up.node.tolist() if up else [],
                                 strict=True):
                node = int(todo[walk.start[row]])
                broader_labels[node].append(self.store.label_of(term) or "")
        for node, texts in labels.items():
            words: set[str] = set()
            for text in texts:
                folded = fold_name(text)
                words.add(folded)
                words.update(folded.split())
            self._type_labels[node] = tuple(fold_name(t) for t in (*texts, *broader_labels[node])
                                            if t)
            self._type_words[node] = frozenset(words)

    def _filter(self, var: Variable, members: Members) -> Members:
        if not members:
            return members
        nodes = np.fromiter(members, dtype=np.int64, count=len(members))
        keep = np.ones(len(nodes), dtype=bool)
        if var.category is not None and var.anchor is None:
            codes = self.values.categories[nodes]
            keep &= codes == CATEGORIES.index(var.category) if var.category in CATEGORIES \
                else codes >= 0
        if var.category == "Thing" and var.anchor is None:
            keep &= self._works(nodes)
        noun = (var.noun or "").lower()
        if var.category == "Actor" and var.anchor is None and noun in MAKER_NOUNS:
            keep &= np.isin(nodes, self._makers(noun))  # "artists born in the 1920s"
        elif var.category == "Actor" and var.anchor is None and not var.links and \
                (holders := self._role_holders(noun)) is not None:  # "how many directors"
            keep &= np.isin(nodes, holders)
        gendered = [w for w in (noun, *var.types) if w in GENDER_WORDS]
        genders = [GENDER_WORDS[w] for w in gendered]
        if genders and var.category == "Actor":
            keep &= self._gendered(nodes, genders[0], gendered[0])
        for nouns, cls in ((PERSON_NOUNS, PERSON_CLASS), (GROUP_NOUNS, GROUP_CLASS)):
            if noun not in nouns or (genders and noun in GENDER_WORDS):
                continue
            classes = self.engine.class_ids(cls)
            if len(classes):
                keep &= self.engine.has_class(nodes, classes)
            else:  # NPG types every actor E39 only: "people" cannot be told apart
                self._notes.append(f"the graph does not say which actors are {noun}")
        excluded = set(self.engine.ids(list(var.exclude)).tolist())
        self._left_out += sum(1 for n, k in zip(nodes.tolist(), keep.tolist(), strict=True)
                              if k and n in excluded)
        members = {n: members[n] for n, k in zip(nodes.tolist(), keep.tolist(), strict=True)
                   if k and n not in excluded}
        types = [t for t in var.types if t not in GENDER_WORDS]  # genders: checked above
        if var.category == "Actor" and var.anchor is None and not types:
            # "who painted T": the painter typed so, not the donor the campaign also names
            for word in dict.fromkeys([noun, *self._agents(var)]):
                members = self._typed_otherwise(members, word) if word else members
        if types:
            self._load_type_text(n for n in members if n not in self._type_labels)
            if any(self._type_labels.get(n) for n in members) or any(
                    self.graph_types(fold_name(word)) for word in types):
                typed = {n: ev for n, ev in members.items() if self._typed(n, types)}
                if var.category == "Thing":  # untyped works whose medium says it
                    typed.update(self._stated_type(members, typed, types))
                others = {n: ev for n, ev in members.items() if n not in typed}
                members = {**self._wholes(others, types, typed), **typed}
                if var.category == "Thing" and any(isinstance(link.target, Anchor) and
                                                   link.relation == "created-by"
                                                   for link in var.links):
                    self._typed_instead([n for n in others if n not in members], types,
                                        bool(members))
            elif members and var.category == "Event":
                # events of every kind (births, acquisitions) with no type: an
                # "exhibition" is only one whose name says so
                words = {singularise(fold_name(t)) for t in types}
                members = {n: ev for n, ev in members.items() if words & {
                    singularise(w) for w in fold_name(self.label(n)).split()}}
                self._notes.append(f"{UNTYPED_EVENTS}: only those named "
                                   f"“{'/'.join(types)}” are kept")
            elif members and var.category == "Thing" and self.known_types and any(
                    isinstance(link.target, Anchor) and link.relation == "created-by"
                    for link in var.links):
                # "Ada Finch's sculptures" in a graph that types works, none of hers: no
                # type says what they are (unless a medium statement does); works asked
                # by what they show stay unchecked ("paintings of Christ": the wall
                # paintings' scenes carry no type)
                members = self._stated_type(members, {}, types)
                if not members:
                    self._notes.append(f"none of them has a type recorded, and no medium "
                                       f"statement says “{'/'.join(types)}”")
            elif members:  # "which country…" where places carry no type: not checked
                self._notes.append(f"no {var.noun or 'member'} has a type recorded, so "
                                   f"“{'/'.join(types)}” is not checked")
        for condition in var.filters:
            if condition.through is None or not any(
                    link.relation == condition.through for link in var.links):
                members = self._value_filter(members, condition)
        return members

    def _stated_type(self, members: Members, typed: Members,
                     types: Sequence[str]) -> Members:
        """Works with no type at all whose medium statement names the type asked ("Screen
        print on Japanese paper" for "prints"), said in a note."""
        relation = self.lexicon.get("medium-statement")
        bare = [n for n in members if n not in typed and not self._type_labels.get(n)]
        if relation is None or not bare:
            return {}
        wanted = {f for t in types for w in fold_name(t).split()
                  for f in (w, singularise(w), pluralise(w))}
        found: Members = {}
        for node, values in self.values_of(bare, relation).items():
            words = {w for v in values for w in fold_name(v.text).split()}
            if any(w.endswith(f) for w in words for f in wanted if len(f) > 3):
                found[node] = members[node]  # "print" in "screenprint" too
        if found:
            self._notes.append(f"{len(found)} with no type recorded, read as "
                               f"{'/'.join(types)} from their medium statement")
        return found

    def graph_types(self, word: str, actors: bool = False) -> bool:
        """Whether the graph types some nodes (``actors``: some actors) with a type the
        folded ``word`` names (:func:`type_label_names`); once per word."""
        found = self._typing.get((word, actors))
        if found is None:
            labels = self.actor_types if actors else self.known_types
            found = self._typing[(word, actors)] = any(
                type_label_names(label, word) for label in labels)
        return found

    def _agents(self, var: Variable) -> list[str]:
        """Nouns of the makers a link's verb names by what they make ("painted": painter,
        the relation's event-hint key whose event words the link's hints share)."""
        return [stem for link in var.links if link.hints and link.relation in self.lexicon
                for stem, hints in self.lexicon[link.relation].event_hints.items()
                if stem.endswith(("er", "or")) and set(hints) & set(link.hints)]

    def _typed_otherwise(self, members: Members, noun: str) -> Members:
        """Without the actors the graph types, but not with the question's noun: "the
        painter of T", where T's campaign names its donor (typed "donor") and its painter;
        actors with no type at all are kept (most graphs type none)."""
        word = singularise(noun)
        if not self.graph_types(word, actors=True):
            return members
        self._load_type_text(n for n in members if n not in self._type_labels)
        if not any(self._typed(n, [word]) for n in members):
            return members  # none of them is typed so: the noun is the question's word only
        return {n: ev for n, ev in members.items()
                if not self._type_labels.get(n) or self._typed(n, [word])}

    def _wholes(self, members: Members, types: Sequence[str],
                skip: Members | None = None) -> Members:
        """The wholes of the type asked for that the members are parts of (none fitting the
        type themselves): "churches depicting X" when parts of churches depict X."""
        skip = skip or {}
        if not members:
            return {}
        walk = wholes(self.engine, np.fromiter(members, dtype=np.int64, count=len(members)))
        found: Members = {}
        first: dict[int, int] = {}  # each whole once, by the first row reaching it
        for i, node in enumerate(walk.node.tolist()):
            if node not in skip:
                first.setdefault(node, i)
        self._load_type_text(n for n in first if n not in self._type_labels)
        rows = [i for node, i in first.items() if self._typed(node, types)]
        for i, witness in zip(rows, walk.witnesses(rows), strict=True):
            node = int(walk.node[i])
            found.setdefault(node, [*members[walk.origin(i)], *witness])
        if found:
            self._notes.append(f"{len(found)} read through their parts: what the question "
                               f"asks is recorded of a part of each of them")
        return found

    def _gendered(self, nodes: np.ndarray, words: frozenset[str], noun: str) -> np.ndarray:
        """Boolean per actor: typed with a gender word ("Female"); all True, and said, when
        none of them has a gender recorded."""
        self._load_type_text(nodes.tolist())
        found = np.fromiter((bool(self._type_words[int(n)] & words) for n in nodes),
                            dtype=bool, count=len(nodes))
        if found.any():
            return found
        everyone = set().union(*GENDER_WORDS.values())
        if not any(self._type_words[int(n)] & everyone for n in nodes):
            self._notes.append(f"the graph records no gender, so “{noun}” is not checked")
            return np.ones(len(nodes), dtype=bool)
        return found

    def _works(self, nodes: np.ndarray) -> np.ndarray:
        """Boolean per Thing: not only a statement, image, name or record of another."""
        engine = self.engine
        meta = np.zeros(len(nodes), dtype=bool)
        for cls in NON_WORK_CLASSES:
            meta |= engine.has_class(nodes, engine.class_ids(cls))
        physical = engine.has_class(nodes, engine.class_ids(PHYSICAL_CLASS))
        return ~meta | physical

    def _typed_instead(self, dropped: Sequence[int], types: Sequence[str],
                       kept: bool) -> None:
        """Say what the works of a named maker that the type left out are typed
        ("Karl Struss's photographs": 160, and 55 "glass transparencies" besides)."""
        kinds = Counter(labels[0] for n in dropped if (labels := self._type_labels.get(n)))
        if kinds:
            top = ", ".join(f"{kind} ({n})" for kind, n in kinds.most_common(3))
            n = sum(kinds.values())
            self._notes.append(f"{'besides these, ' if kept else ''}{n} "
                               f"{'work is' if n == 1 else 'works are'} typed otherwise (not "
                               f"{'/'.join(types)}): {top}")

    def _typed(self, node: int, types: Sequence[str]) -> bool:
        """Whether one of a node's type labels has a type word as its head noun: the
        word itself, its last word ("intaglio print") or its first word before a
        preposition ("church with a steep-pitched timber roof")."""
        labels = self._type_labels.get(node)
        if labels is None:
            self._load_type_text([node])
            labels = self._type_labels[node]
        for word in types:
            folded = fold_name(word)
            if any(type_label_names(label, folded) for label in labels):
                return True
        return False

    # -- values ----------------------------------------------------------------------------
    def values_of(self, nodes: Sequence[int], relation: Relation,
                  hints: Sequence[str] = ()) -> dict[int, list[Value]]:
        """The values ``relation`` gives each node, with evidence."""
        ids = np.asarray(nodes, dtype=np.int64)
        walk = self.walker.walk(relation, ids)
        rows = self._hinted(walk, hints)
        out: dict[int, list[Value]] = {int(n): [] for n in ids}
        for row, witness in zip(rows, walk.witnesses(rows), strict=True):
            member = int(ids[walk.start[row]])
            value = self._value(relation, int(walk.node[row]), witness)
            value.relation = relation.id
            out[member].append(value)
        recognise = UNTYPED_STATEMENTS.get(relation.id)
        if recognise is not None and any(not found for found in out.values()):
            self._untyped(relation, [n for n, found in out.items() if not found], recognise,
                          out)
        for member, found in out.items():
            unique = {(v.text, v.years): v for v in found}
            out[member] = sorted(unique.values(), key=lambda v: (v.years or (0, 0), v.text))
        return out

    def _untyped(self, relation: Relation, nodes: list[int], recognise: Callable[[str], bool],
                 out: dict[int, list[Value]]) -> None:
        """Statements the graph gives no type whose text is of ``relation``'s kind ("frame:
        32 × 27 in." for the dimensions), for members with no typed one."""
        ids = np.asarray(nodes, dtype=np.int64)
        walk = self.engine.walk(ids, self.walker.compiled(relation))
        owners, _ = self.engine.objects_of(walk.node, self.engine.property_ids("P2_has_type"))
        untyped = np.ones(len(walk), dtype=bool)
        untyped[owners] = False
        found = False
        for row in np.flatnonzero(untyped).tolist():
            text = self.values.text(int(walk.node[row])) or ""
            if text and recognise(text):
                value = Value(text, self.uri(int(walk.node[row])), None, None,
                              walk.witness(row))
                value.relation = relation.id
                out[int(ids[walk.start[row]])].append(value)
                found = True
        if found:
            self._notes.append(f"the {relation.label} read from statements the graph gives "
                               f"no type, by their text")

    def _value(self, relation: Relation, node: int, witness: list[TripleIds]) -> Value:
        event = None
        if len(witness) > 1:  # the node the path went through first (a production)
            first = witness[0]
            event = self.label(first[2] if first[0] != witness[-1][2] else first[0])
        uri = None if self.store.is_literal[node] else self.uri(node)
        if relation.value == "time":
            span = self.values.span_years(node)
            label = self.store.label_of(node) or ""
            if self.store.is_literal[node]:  # a date literal: as written, without a midnight
                label = re.sub(r"T\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?$", "",
                               self.values.label(node))
            text = label if label and not label.endswith("(unlabelled)") else years_text(span)
            if span is not None and (not any(ch.isdigit() for ch in text) or str(
                    span[0]) not in text and re.match(r"(?:ca\.?|c\.|circa|about)\s", text)):
                text = f"{text} ({years_text(span)})"  # "ca. 1768 (1763–1773)"
            return Value(text, uri, span, None, witness, event)
        if relation.value == "text":
            return Value(self.values.text(node) or self.label(node), uri, None, None, witness,
                         event)
        if relation.value == "dimension":
            return self._dimension(node, uri, witness)
        return Value(self.label(node), uri, None, None, witness, event)

    def _dimension(self, node: int, uri: str | None, witness: list[TripleIds]) -> Value:
        out_p, out_o = self.store.out_ids(node)
        number = None
        unit = ""
        kind = ""
        for p, o in zip(self.store.take(out_p), out_o.tolist(), strict=True):
            name = self.ontology.canonical(p) or p
            if name == "P90_has_value" or p == RDF_VALUE:
                match = _NUMBER.search(self.values.label(o))
                number = float(match.group()) if match else None
            elif name == "P91_has_unit":
                unit = self.label(o)
            elif name == "P2_has_type":
                kind = self.label(o)
        if number is not None and "inch" in unit.lower():
            number, unit = number * INCH_CM, "cm"
        unit = unit.replace("(unlabelled)", "").strip()
        text = " ".join(x for x in (kind.replace("(unlabelled)", "").strip(),
                                    f"{number:g}" if number is not None else "", unit) if x)
        return Value(text or self.label(node), uri, None, number, witness)

    def _attach(self, items: list[Item], relation: Relation, hints: Sequence[str]) -> None:
        found = self.values_of([it.node for it in items], relation, hints)
        for item in items:
            item.values = item.values + found.get(item.node, [])
