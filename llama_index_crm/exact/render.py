"""Answers people read: a sentence per result, the plan as a readable path, the evidence.

Every sentence is built from an :class:`~.execute.ExactResult` only: counts are the sizes of
complete sets, lists are paged with their total, values carry the event they came through,
and an empty result says whether the graph has no such facts at all or none that match.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from llama_index_crm.exact.execute import GENDER_WORDS, ExactResult, Executor, Item, Value
from llama_index_crm.exact.plan import Anchor, ExactPlan, Link, ValueFilter, Variable
from llama_index_crm.exact.relations import RelationLexicon
from llama_index_crm.exact.roles import ROLE_RELATION
from llama_index_crm.ontology import derivation_words
from llama_index_crm.query.lexicon import pluralise, singularise

__all__ = ["MAX_LISTED", "describe_plan", "evidence_lines", "render"]

MAX_LISTED = 25
"""Members named in a list before "… and N more" (every member is in the result)."""
MAX_EVIDENCE = 5
"""Members whose witness triples are shown under an answer."""
PHRASES: dict[str, tuple[str, str]] = {
    "created-by": ("made by {}", "who made {}"),
    "depicts": ("depicting {}", "depicted in {}"),
    "located-in": ("located in {}", "holding {}"),
    "member-of": ("members of {}", "with {} as a member"),
    "nationality": ("of nationality {}", "the nationality of {}"),
    "birth-place": ("born in {}", "birthplace of {}"),
    "death-place": ("who died in {}", "where {} died"),
    "residence": ("who lived in {}", "where {} lived"),
    "acquired-by": ("acquired by {}", "who acquired {}"),
    "acquired-from": ("acquired from {}", "who gave or sold {}"),
    "carried-out-by": ("carried out by {}", "who carried out {}"),
    "took-place-at": ("held at {}", "where {} took place"),
    "place-within": ("within {}", "containing {}"),
    "part-of": ("part of {}", "of which {} is part"),
    "has-type": ("of type {}", "the type of {}"),
    "made-of": ("made of {}", "the material of {}"),
    "technique": ("made with the technique {}", "the technique of {}"),
    "creation-place": ("made in {}", "where {} was made"),
    "made-in-period": ("made in {}", "the period {} was made in"),
    "event-period": ("within {}", "the period of {}"),
}
"""How a link reads: (the variable is the domain, the variable is the range)."""
RELATION_WORDS = {"created-by": "made by ", "acquired-by": "acquired by "}
"""How a second value reads inside a ranking's parentheses."""
DATE_VERBS = {"creation-date": "made", "birth-date": "born", "death-date": "died",
              "acquisition-date": "acquired", "event-date": "dated", "opening-date": "opened",
              "closing-date": "closed"}
NOUNS = {"Thing": "works", "Actor": "actors", "Place": "places", "Event": "events",
         "Concept": "concepts"}


def _quote(item: Item | Anchor | str, category: str | None = None) -> str:
    """A name as written in an answer: titles of things in quotes."""
    if isinstance(item, Item | Anchor):
        label, category = item.label, item.category
    else:
        label = item
    return f"“{label}”" if category == "Thing" else label


def _join(names: Sequence[str]) -> str:
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")


def _years(years: tuple[int, int] | None) -> str:
    if years is None:
        return "an unknown date"
    low, high = years
    if low == high:
        return str(low)
    if high - low == 9 and low % 10 == 0:
        return f"the {low}s"
    if high - low == 99 and low % 100 == 0:
        return f"the {low}s"
    if low < -9000:
        return f"before {high + 1}"
    if high > 9000:
        return f"after {low - 1}"
    return f"{low}–{high}"


def noun_phrase(var: Variable, n: int) -> str:
    """How variable 0's members are named ("works", "a painting", "churches")."""
    noun = var.noun if var.noun and var.noun not in {"who", "whom", "where"} else None
    noun = noun or NOUNS.get(var.category or "", "entities")
    single, plural = singularise(noun), pluralise(singularise(noun))
    gender = next((t for t in var.types if t in GENDER_WORDS and t != noun), None)
    if gender is not None:  # "women artists", "a female photographer"
        return f"{singularise(gender) if n == 1 else gender} {single if n == 1 else plural}"
    return single if n == 1 else plural


def _target(link: Link, plan: ExactPlan) -> str:
    if isinstance(link.target, Anchor):
        return _quote(link.target)
    var = plan.variables[link.target]
    inner = constraint_phrase(var, plan)
    return f"{noun_phrase(var, 2)} {inner}".strip()


def link_phrases(relation: str) -> tuple[str, str]:
    """How a link reads: (the variable is the domain, the variable is the range)."""
    found = PHRASES.get(relation)
    if found is not None:
        return found
    if relation.startswith(ROLE_RELATION):  # a role of the graph: "had-in-role:director"
        role = relation.partition(":")[2].replace("-", " ")
        return (f"with {{}} as {role}", f"in {{}} as {role}") if role else \
            ("with {} taking part", "taking part in {}")
    return ("linked to {} (" + relation + ")",) * 2


def role_sentence(relation: str, anchor: str, names: Sequence[str]) -> str:
    """Who held a role in a named event: "Director of Chaim Soutine: Monroe Wheeler."."""
    role = relation.partition(":")[2].replace("-", " ")
    head = (pluralise(role) if len(names) > 1 else role) if role else "Taking part"
    return f"{_capital(head)} {'of' if role else 'in'} {anchor}: {_join(list(names))}."


def constraint_phrase(var: Variable, plan: ExactPlan) -> str:
    """The conditions of a variable in words ("made by Valentine Green in the 1780s")."""
    parts = []
    for link in var.links:
        forward, backward = link_phrases(link.relation)
        parts.append((backward if link.inverse else forward).format(_target(link, plan)))
    for condition in var.filters:
        parts.append(_filter_phrase(condition))
    types = [t for t in var.types if t not in GENDER_WORDS]  # said before the noun
    if types and var.noun and singularise(var.noun) not in types:
        parts.append("of type " + " or ".join(types))

    return " ".join(parts)


def _filter_phrase(condition: ValueFilter) -> str:
    verb = DATE_VERBS.get(condition.relation, condition.relation.replace("-", " "))
    if condition.years is not None and condition.months is not None:
        months = "–".join(dict.fromkeys(MONTH_NAMES[m - 1] for m in condition.months))
        return f"{verb} in {months} {_years(condition.years)}"
    if condition.years is not None:
        years = _years(condition.years)
        preposition = "" if years.startswith(("before", "after")) else (
            "in " if not years[0].isdigit() or "–" not in years else "between ")
        if preposition == "between ":
            low, high = condition.years
            return f"{verb} between {low} and {high}"
        return f"{verb} {preposition}{years}".replace("  ", " ")
    return f"whose {condition.relation.replace('-', ' ')} mentions “{condition.contains}”"


def _listed(items: Sequence[Item], limit: int = MAX_LISTED,
            widened: Mapping[int, str] | None = None) -> str:
    widened = widened or {}
    names = [_quote(it) + (f" ({widened[it.node]})" if it.node in widened else "")
             for it in items[:limit]]
    more = len(items) - len(names)
    text = "; ".join(names)
    return f"{text}; … and {more} more" if more > 0 else text


def _value_text(values: Sequence[Value]) -> str:
    texts = []
    for v in values:
        text = v.text
        if v.years and re.search(r"time[- ]?span", text, re.IGNORECASE):
            text = _years(v.years)  # a time-span named after its event ("X Birth timespan")
        elif v.years and not any(ch.isdigit() for ch in text):
            text = f"{text} ({_years(v.years)})"
        texts.append(text)
    return "; ".join(dict.fromkeys(texts))


def _value_sentence(item: Item, relation: str, values: Sequence[Value],
                    lexicon: RelationLexicon) -> str:
    name = _quote(item)
    label = lexicon[relation].label
    if not values:
        return f"The graph records no {label} for {name}."
    text = _value_text(values)
    events = [v.event for v in values if v.event]
    if relation in DATE_VERBS and not any(ch.isdigit() for ch in text):
        return f"{name}: {label} {text} (no year recorded)."
    if relation in DATE_VERBS:
        verb = DATE_VERBS[relation]
        prefix = "was " if relation not in {"death-date", "opening-date", "closing-date"} \
            else ""
        if len(values) > 1 and events:  # several events: each date with its event
            text = "; ".join(f"{_value_text([v])} ({v.event})" if v.event else
                             _value_text([v]) for v in values)
        on = "on" if re.fullmatch(r"-?\d{4}-\d\d-\d\d", text) else "in"  # a day, a year
        return f"{name} {prefix}{verb} {on} {text}."
    if relation == "credit-line":
        return f"The credit line of {name} reads: {text}."
    if relation == "has-type":  # "Planographic prints" names a kind: one of them is
        ones = [f"a {one}" for v in values if (one := singularise(v.text.lower()))
                != v.text.lower()]
        return f"{name} is classified as: {text}" + (f" ({'; '.join(ones)})." if ones else ".")
    if relation in {"located-in", "took-place-at"}:
        return f"{name} is located in {text}." if relation == "located-in" else \
            f"{name} took place at {text}."
    if relation in {"birth-place", "death-place"}:
        verb = "was born" if relation == "birth-place" else "died"
        return f"{name} {verb} in {text}."
    return f"{name} — {label}: {text}."


def render(result: ExactResult, executor: Executor, limit: int = MAX_LISTED) -> str:
    """The sentence that answers the question of ``result.plan``."""
    plan = result.plan
    var = plan.variables[0]
    lexicon = executor.lexicon
    extra = [*result.notes]
    if result.left_out:
        extra.append(f"{result.left_out} left out as asked")
    notes = f" ({'; '.join(extra)})" if extra else ""
    if plan.operation == "value":
        lines = []
        for item in result.items[:limit]:
            found = {r: [v for v in item.values if v.relation == r] for r in plan.attributes}
            shown = [r for r in plan.attributes if found[r]] or list(plan.attributes[:1])
            for relation in shown:  # a family (medium: statement, materials): what is there
                lines.append(_value_sentence(item, relation, found[relation], lexicon))
        if var.anchor is None and result.items:
            what = constraint_phrase(var, plan)
            lines.insert(0, f"{_capital(noun_phrase(var, len(result.items)))} {what}: "
                            f"{_listed(result.items, limit)}.")
        if not result.items:
            return _empty(result, executor) + notes
        return " ".join(lines) + notes
    if plan.operation == "describe":
        return describe(result, executor) + notes
    what = constraint_phrase(var, plan)
    n = result.total
    if plan.operation == "count":
        if not n:
            return _empty(result, executor) + notes
        among = f", among them {_join([_quote(i) for i in result.items[:5]])}" if n > 1 \
            else f": {_listed(result.items, 1)}"
        return f"{f'{n} {noun_phrase(var, n)} {what}'.strip()}{among}.{notes}".replace("  ", " ")
    if plan.operation == "superlative":
        return _superlative(result, executor) + notes
    if plan.operation == "group":
        if not result.groups:
            return _empty(result, executor) + notes
        parts = [f"{g.key}: {len(g.items)}" for g in result.groups[:limit]]
        more = f"; … and {len(result.groups) - limit} more groups" \
            if len(result.groups) > limit else ""
        unit = (plan.group_by or "").split(":")[-1]
        unit = lexicon[unit].label if unit in lexicon else unit
        head = f"{n} {noun_phrase(var, n)} {what}".strip()
        return f"{_capital(head)}, per {unit}: {'; '.join(parts)}{more}.{notes}"
    if not result.items:
        return _empty(result, executor) + notes
    makers = [link for link in var.links if link.relation == "created-by" and link.inverse
              and _specific(plan, link.target)]  # "who made X", not "british painters"
    if var.category == "Actor" and makers and len(result.items) <= limit:
        return _makers(result, makers[0], executor) + notes
    if var.noun in {"who", "whom"} and var.links and all(
            isinstance(link.target, Anchor) and link.inverse for link in var.links):
        link = var.links[0]
        assert isinstance(link.target, Anchor)
        if link.relation.startswith(ROLE_RELATION):
            return role_sentence(link.relation, _quote(link.target),
                                 [_quote(i) for i in result.items]) + notes
        verb = lexicon[link.relation].label
        verb = f"was {verb}" if verb.endswith(" by") else verb  # "was made by", "depicts"
        return f"{_quote(link.target)} {verb} {_join([_quote(i) for i in result.items])}." \
            + notes
    head = f"{n} {noun_phrase(var, n)} {what}".replace("  ", " ").strip()
    wide = widened(result, executor)
    kinds = {wide.get(item.node, ("", ""))[0] for item in result.items[:limit]}
    if len(kinds) == 1 and "" not in kinds:  # all of them: "… made by American, by membership"
        head += f", {kinds.pop()}"
        says = {node: f"via {via}" for node, (_, via) in wide.items()}
    else:
        says = {node: f"{words}, via {via}" for node, (words, via) in wide.items()}
    return f"{_capital(head)}: {_listed(result.items, limit, says)}.{notes}"


def widened(result: ExactResult, executor: Executor) -> dict[int, tuple[str, str]]:
    """Members reached through the closure of a relation to a named node (the works of a
    group's members, the churches of a district's villages), with the words for the
    closure and the node it started from: ``{member: ("by membership", "Bart Walter")}``.

    The closure widens on purpose ("works by British artists"); the sentence keeps it
    apart from the direct matches, as documents do (:mod:`llama_index_crm.ontology.direct`).
    """
    out: dict[int, tuple[str, str]] = {}
    for link in result.plan.variables[0].links:
        relation = executor.lexicon[link.relation]
        closure = relation.closure
        if link.inverse or closure is None or closure.property is None \
                or not isinstance(link.target, Anchor):
            continue
        forward = set(executor.engine.property_ids(closure.property).tolist())
        inverse = executor.ontology.inverse(closure.property)
        backward = set(executor.engine.property_ids(inverse).tolist()) if inverse else set()
        for item in result.items:
            steps = [(s, o) if p in forward else (o, s)
                     for s, p, o in item.evidence if p in forward or p in backward]
            if not steps:
                continue
            reached = {to for _, to in steps}
            start = next((frm for frm, _ in steps if frm not in reached), steps[0][0])
            out.setdefault(item.node, (derivation_words(closure.property),
                                       executor.label(start)))
    return out


def _specific(plan: ExactPlan, target: Anchor | int) -> bool:
    """Whether a link's target is a named node or a set narrowed by links or filters (not
    every work of a type)."""
    if isinstance(target, Anchor):
        return True
    var = plan.variables[target]
    return bool(var.links or var.filters or var.anchor is not None)


def _makers(result: ExactResult, link: Link, executor: Executor) -> str:
    """"Who made X?": each maker with what they made, through which event, when."""
    carried = set(executor.engine.property_ids("P14_carried_out_by").tolist())
    made = set(executor.engine.property_ids("P92i_was_brought_into_existence_by").tolist())
    made_back = set(executor.engine.property_ids("P92_brought_into_existence").tolist())
    by_thing: dict[int, list[str]] = {}
    for item in result.items:
        events = {s for s, p, o in item.evidence if p in carried and o == item.node}
        things = {s for s, p, o in item.evidence if p in made and o in events}
        things |= {o for s, p, o in item.evidence if p in made_back and s in events}
        details = [event_details(executor, e) for e in sorted(events)]
        text = item.label + (f" ({'; '.join(d for d in details if d)})" if any(details) else "")
        for thing in sorted(things) or [-1]:
            by_thing.setdefault(thing, []).append(text)
    parts = []
    for thing, names in by_thing.items():
        title = _quote(executor.label(thing), "Thing") if thing >= 0 else (
            _quote(link.target) if isinstance(link.target, Anchor) else "it")
        parts.append(f"{title} was made by {_join(names)}")
    return "; ".join(parts) + "."


def event_details(executor: Executor, event: int) -> str:
    """What an event was (its types and technique) and when ("etching, 1781")."""
    lexicon = executor.lexicon
    ids = np.asarray([event], dtype=np.int64)
    kinds = [executor.label(int(n)) for n in
             executor.walker.walk(lexicon["has-type"], ids).node] if "has-type" in lexicon else []
    technique = executor.engine.property_ids("P32_used_general_technique")
    _, found = executor.engine.objects_of(ids, technique)
    kinds += [executor.label(int(n)) for n in found]
    dates = executor.values_of([event], lexicon["event-date"]).get(event, [])
    words = [k for k in dict.fromkeys(kinds) if "(unlabelled)" not in k]
    return ", ".join([*words, *(_value_text([d]) for d in dates)])


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _empty(result: ExactResult, executor: Executor) -> str:
    plan = result.plan
    var = plan.variables[0]
    what = f"{noun_phrase(var, 2)} {constraint_phrase(var, plan)}".strip()
    if result.missing_relations:
        labels = [executor.lexicon[r].label for r in result.missing_relations]
        return (f"This graph records no {_join(labels)} at all, so it cannot say which "
                f"{what}: nothing found.")
    if result.left_out:  # "other works by the artist of T": T was all there was
        return (f"{'0: t' if plan.operation == 'count' else 'T'}here are no {what} other than "
                f"the {result.left_out} the question leaves out.")
    if plan.operation == "count":
        return f"0: there are no {what} in this graph."
    return f"There are no {what} in this graph."


def _superlative(result: ExactResult, executor: Executor) -> str:
    plan = result.plan
    var = plan.variables[0]
    if not result.items and result.total:
        ranked_by = (plan.order_by or "count").split(":")[0]
        what = executor.lexicon[ranked_by].label if ranked_by in executor.lexicon else \
            "linked member"
        return (f"None of the {result.total} {noun_phrase(var, result.total)} has a {what} "
                f"recorded in this graph, so none can be ranked.")
    if not result.items:
        return _empty(result, executor)
    noun = noun_phrase(var, len(result.items))
    what = constraint_phrase(var, plan)
    if plan.order_by == "count":
        counted = next((v for v in plan.variables[1:]), None)
        thing = noun_phrase(counted, 2) if counted is not None else "members"
        role = next((link.role for link in (counted.links if counted else ())
                     if link.role and link.target == 0), None)
        thing = pluralise(role) if role else thing  # "the most prolific sculptor": sculptures
        word = "most" if plan.descending else "fewest"
        top = "; ".join(f"{_quote(i)} ({i.count})" for i in result.items)
        return f"{_capital(noun)} with the {word} {thing}: {top}."
    relation, _, measure = (plan.order_by or "creation-date").partition(":")
    word = {("dimension", True): "largest", ("dimension", False): "smallest",
            ("birth-date", True): "youngest", ("birth-date", False): "oldest",
            ("acquisition-date", True): "most recently acquired",
            ("acquisition-date", False): "first acquired"}.get(
        (relation, plan.descending), "latest" if plan.descending else "oldest")
    if measure:
        word = f"{'greatest' if plan.descending else 'least'} {measure}"
    if result.ranked == 0 and len(result.items) == 1:  # one member, nothing to rank by
        scope = f" {what}" if what else ""
        return (f"The only {noun}{scope} is {_quote(result.items[0])}; its "
                f"{executor.lexicon[relation].label} is not recorded in this graph.")
    parts = []
    for item in result.items:
        values = [v for v in item.values if v.relation == relation and (
            not measure or v.text.lower().startswith(measure))] or [
            v for v in item.values if v.relation == "dimensions-statement"]
        dated = [v for v in values if v.years]
        if relation != "dimension" and dated:  # the date it was ranked by
            pick = max if plan.descending else min
            values = [pick(dated, key=lambda v: v.years[0] if v.years else 0)]
        others = [v for v in item.values if v.relation != relation]
        extra = f"; {RELATION_WORDS.get(others[0].relation, '')}{_value_text(others)}" \
            if others else ""
        parts.append(f"{_quote(item)} ({_value_text(values)}{extra})")
    scope = f" {what}" if what else ""
    verb = "is" if len(result.items) == 1 else "are"
    ranked = result.ranked if result.ranked is not None else result.total
    if result.unordered:  # overlapping dates: the ranking is not certain, and said
        verb = "may be" if len(result.items) == 1 else "may be any of"
    text = f"The {word} {noun}{scope} {verb} {_join(parts)}, of {ranked} with a " \
           f"{executor.lexicon[relation].label}."
    if result.unordered:
        overlapped = [f"{_quote(it)} ({_value_text(_of(it, relation))})"
                      for it in result.unordered[:5]]
        more = len(result.unordered) - len(overlapped)
        text += (f" {'Its date overlaps' if len(result.items) == 1 else 'Their dates overlap'} "
                 f"those of {len(result.unordered)} other "
                 f"{noun_phrase(var, len(result.unordered))}, {_join(overlapped)}"
                 f"{f' and {more} more' if more > 0 else ''}: the graph cannot tell which "
                 f"came {'last' if plan.descending else 'first'}.")
    return text


def _of(item: Item, relation: str) -> list[Value]:
    return [v for v in item.values if v.relation == relation]


def describe(result: ExactResult, executor: Executor) -> str:
    """The main facts of a named node, in sentences."""
    if not result.items:
        return _empty(result, executor)
    item = result.items[0]
    lexicon = executor.lexicon
    facts = {
        "Thing": ("has-type", "created-by", "creation-date", "medium-statement", "made-of",
                  "located-in", "acquisition-date", "credit-line"),
        "Actor": ("nationality", "birth-date", "birth-place", "death-date", "death-place"),
        "Place": ("place-within",),
        "Event": ("event-date", "took-place-at", "carried-out-by"),
    }.get(item.category or "", ())
    found = {r: executor.values_of([item.node], lexicon[r]).get(item.node, [])
             for r in facts if r in lexicon}
    name = _quote(item)
    _, types = executor.engine.objects_of(_ids(executor, item),
                                          executor.engine.property_ids("P2_has_type"))
    kinds = [t for t in dict.fromkeys(executor.label(int(n)) for n in types)
             if "(unlabelled)" not in t]
    parts: list[str] = []
    if item.category == "Thing":
        kind = _value_text(found.get("has-type", [])[:3])
        makers = _value_text(found.get("created-by", []))
        date = _value_text(found.get("creation-date", []))
        sentence = name + (f" ({kind})" if kind else "")
        if makers:
            sentence += f" was made by {makers}"
            sentence += f" in {date}" if date else ""
        elif date:
            sentence += f" was made in {date}"
        parts.append(sentence + ".")
        medium = _value_text(found.get("medium-statement", [])) or \
            _value_text(found.get("made-of", []))
        if medium:
            parts.append(f"Medium: {medium}.")
        for relation, text in (("located-in", "Location"), ("acquisition-date", "Acquired"),
                               ("credit-line", "Credit line")):
            value = _value_text(found.get(relation, []))
            if value:
                parts.append(f"{text}: {value}.")
    elif item.category == "Actor":
        nationality = _value_text(found.get("nationality", []))
        sentence = name + (f" ({'; '.join([nationality, *kinds] if nationality else kinds)})"
                           if nationality or kinds else "")
        life = []
        for relation, verb in (("birth-date", "born"), ("death-date", "died")):
            when = _value_text(found.get(relation, []))
            place = _value_text(found.get(relation.replace("date", "place"), []))
            if when or place:
                life.append(f"{verb}{' in ' + when if when else ''}"
                            f"{' in ' + place if place else ''}")
        parts.append(sentence + (" was " + " and ".join(life) if life else "") + ".")
        made = executor.walker.walk(lexicon["created-by"], _ids(executor, item), reverse=True)
        works = sorted({executor.label(int(n)) for n in made.node})
        if works:
            parts.append(f"{len(works)} works in the graph were made by {item.label}, among "
                         f"them {_join([f'“{w}”' for w in works[:5]])}.")
    else:
        parts.append(f"{name} ({'; '.join(kinds or [item.category or 'node'])}).")
        for relation, values in found.items():
            if values:
                parts.append(f"{lexicon[relation].label.capitalize()}: {_value_text(values)}.")
    return " ".join(parts)


def _ids(executor: Executor, item: Item) -> np.ndarray:
    return np.asarray([item.node], dtype=np.int64)


def evidence_lines(result: ExactResult, executor: Executor,
                   limit: int = MAX_EVIDENCE) -> list[str]:
    """Witness paths of the first members, one line each ("A → was produced by → B")."""
    lines = []
    for item in result.items[:limit]:
        triples = _from(item.node, item.evidence)
        for value in item.values:
            triples += _from(item.node, value.evidence)
        if not triples:
            continue
        lines.append(path_text(triples, executor))
    return list(dict.fromkeys(lines))


def _from(node: int, triples: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """A witness read from ``node`` (walks from an anchor record it the other way)."""
    chain = list(triples)
    if chain and node not in chain[0][::2] and node in chain[-1][::2]:
        chain.reverse()
    return chain


def path_text(triples: Sequence[tuple[int, int, int]], executor: Executor) -> str:
    """Triples as one readable chain where they connect, separated by " ; " otherwise."""
    parts: list[str] = []
    last = None
    store = executor.store
    for s, p, o in triples:
        predicate = executor.ontology.label(store.term(p))
        if last is not None and s == last:
            parts.append(f"→ {predicate} → {executor.label(o)}")
        elif last is not None and o == last:
            parts.append(f"← {predicate} ← {executor.label(s)}")
        else:
            if parts:
                parts.append(";")
            parts.append(f"{executor.label(s)} → {predicate} → {executor.label(o)}")
        last = o if (last is None or s == last or last not in (s, o)) else s
    return " ".join(parts)


def describe_plan(plan: ExactPlan, lexicon: RelationLexicon) -> str:
    """The plan as a readable FR path: what is asked, through which relations."""
    var = plan.variables[0]
    subject = _quote(var.anchor) if var.anchor else noun_phrase(var, 2)
    lines = [f"{plan.operation}: {subject} {constraint_phrase(var, plan)}".strip()]
    for v in plan.variables:
        for link in v.links:
            relation = lexicon[link.relation]
            path = " | ".join(" / ".join(_step_text(s) for s in p) for p in relation.paths)
            origin = f"FR {relation.fr}" if relation.fr else "CRM path"
            lines.append(f"  {relation.label}{' (inverse)' if link.inverse else ''}: "
                         f"{origin}: {path}")
        for condition in v.filters:
            relation = lexicon[condition.relation]
            path = " | ".join(" / ".join(_step_text(s) for s in p) for p in relation.paths)
            lines.append(f"  filter {_filter_phrase(condition)}: {path}")
    for name in plan.attributes:
        relation = lexicon[name]
        path = " | ".join(" / ".join(_step_text(s) for s in p) for p in relation.paths)
        lines.append(f"  answer: {relation.label}: {path}")
    return "\n".join(lines)


def _step_text(step: object) -> str:
    from llama_index_crm.ontology import Step

    assert isinstance(step, Step)
    if step.kind == "property":
        text = str(step.property)
    else:
        inner = [_step_text(c) for c in step.children] or list(step.all_of)
        text = "(" + (" | " if step.kind == "any_of" else " / ").join(inner) + ")"
    if step.repeat:
        text += "*" if step.optional else "+"
    elif step.optional:
        text += "?"
    return text
