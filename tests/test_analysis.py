"""Query analysis: rule and LLM analyzers, follow-up contextualisation, time ranges."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import CompletionResponse, LLMMetadata
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_completion_callback

from llama_index_crm.query.analysis import (
    QueryAnalyzer,
    RuleBasedAnalyzer,
    parse_time_range,
    pluralise,
    singularise,
    vocabulary_from_labels,
)
from llama_index_crm.query.conversation import (
    contextualise,
    is_follow_up,
    name_spans,
    quoted_titles,
)
from llama_index_crm.query.llm_analysis import LLMAnalyzer
from llama_index_crm.query.plan import TOP_K, QueryPlan

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "ycba_dev.jsonl"

DEMO_LABELS = [("church", "Thing"), ("painting", "Thing"), ("village", "Place"),
               ("donor", "Actor"), ("chapel", "Thing"), ("monastery", "Thing")]


def _dev() -> list[dict[str, Any]]:
    with DEV.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


requires_dev = pytest.mark.skipif(not DEV.is_file(), reason=f"{DEV} not present")


# -- dev set ---------------------------------------------------------------------------------

@requires_dev
def test_dev_set_types_all_right() -> None:
    analyzer = RuleBasedAnalyzer()
    rows = _dev()
    by_id = {row["id"]: row for row in rows}
    misses = []
    for row in rows:
        previous = by_id.get(row.get("turn_of") or "")
        history = [(previous["question"], "")] if previous else None
        plan = analyzer.analyze(row["question"], history)
        if plan.type != row["type"]:
            misses.append((row["id"], row["question"], plan.type, row["type"]))
    assert not misses, misses


@requires_dev
@pytest.mark.parametrize(("first", "follow"), [
    ("ycba-055", "ycba-056"), ("ycba-057", "ycba-058"), ("ycba-059", "ycba-060")])
def test_dev_follow_ups_carry_the_previous_title(first: str, follow: str) -> None:
    rows = {row["id"]: row for row in _dev()}
    previous, question = rows[first]["question"], rows[follow]["question"]
    (title,) = quoted_titles(previous)
    query = contextualise(question, [(previous, "")])
    assert query.startswith(question) and title in query
    plan = RuleBasedAnalyzer().analyze(question, [(previous, "")])
    assert plan.query == query and title in plan.anchors and plan.type == "specific"


@requires_dev
def test_dev_targets_of_typical_questions() -> None:
    analyzer = RuleBasedAnalyzer()
    rows = {row["id"]: row["question"] for row in _dev()}
    assert analyzer.analyze(rows["ycba-001"]).target_categories == ("Thing",)
    assert analyzer.analyze(rows["ycba-001"]).context_categories == ("Place",)
    assert analyzer.analyze(rows["ycba-004"]).context_categories == ("Actor",)
    assert analyzer.analyze(rows["ycba-022"]).target_categories == ("Actor",)
    assert analyzer.analyze(rows["ycba-050"]).target_categories == ("Thing", "Event")
    assert analyzer.analyze(rows["ycba-038"]).target_categories == ("Thing",)
    assert analyzer.analyze(rows["ycba-043"]).target_categories == ("Actor",)
    assert analyzer.analyze(rows["ycba-016"]).time_range == (1930, 1939)


# -- rules on general English ----------------------------------------------------------------

@pytest.mark.parametrize(("question", "expected"), [
    ("How many paintings depict London?", "aggregation"),
    ("Count the photographs by Bruce Davidson.", "aggregation"),
    ("What's the total number of works by Thomas Cole?", "aggregation"),
    ("Which objects depict Venice?", "enumeration"),
    ("Give me a list of works by Thomas Cole.", "enumeration"),
    ("Are there any works by Joseph Wright of Derby?", "enumeration"),
    ("Name all the donors.", "enumeration"),
    ("Who was born in Boston?", "enumeration"),
    ("What did Whistler paint in the 1860s?", "enumeration"),
    ("Show me the works of Count Rumford.", "enumeration"),
    ("Who painted Count Rumford?", "specific"),
    ("What materials were used for \"The Oxbow\"?", "specific"),
    ("What is the accession number of \"Flatford Mill\"?", "specific"),
    ("Name the artist of \"Flatford Mill\".", "specific"),
    ("Who made \"How Many Days\"?", "specific"),
    ("Who wrote 'The count of Monte Cristo'?", "specific"),
    ("Where was Thomas Cole born?", "specific"),
])
def test_question_types(question: str, expected: str) -> None:
    plan = RuleBasedAnalyzer().analyze(question)
    assert plan.type == expected
    assert plan.k == TOP_K[expected]


@pytest.mark.parametrize(("question", "targets", "contexts"), [
    ("Which artists were born in Philadelphia?", ("Actor",), ("Place",)),
    ("Where was Benjamin West born?", ("Place",), ("Actor",)),
    ("When was Tony Sarg born?", ("Actor",), ("Actor",)),
    ("When was the exhibition \"Turner and the Sea\" held?", ("Event",), ("Event",)),
    ("What is the medium of \"The Blue Boy\"?", ("Thing",), ("Thing",)),
    ("What types of objects are in the collection?", ("Concept",), ("Thing",)),
])
def test_target_and_context_categories(question: str, targets: tuple[str, ...],
                                       contexts: tuple[str, ...]) -> None:
    plan = RuleBasedAnalyzer().analyze(question)
    assert plan.target_categories == targets
    assert plan.context_categories == contexts


def test_demo_vocabulary_churches_in_the_12th_century() -> None:
    analyzer = RuleBasedAnalyzer.from_labels(DEMO_LABELS)
    plan = analyzer.analyze("which churches were painted in the 12th century?")
    assert plan.type == "enumeration" and plan.k == TOP_K["enumeration"]
    assert plan.target_categories == ("Thing",)
    # as collections write it: the 12th century runs from 1100 to 1199
    assert plan.time_range == (1100, 1199)
    assert analyzer.analyze("Which churches are in villages?").context_categories == ("Place",)


def test_vocabulary_learning() -> None:
    vocabulary = vocabulary_from_labels(
        [*DEMO_LABELS, ("Photographs", "thing"), ("church", "Place"), ("church", "Thing"),
         ("x", "Thing"), ("1990s", "Thing"), ("lab", "Nonsense")])
    assert vocabulary["churches"] == "Thing" and vocabulary["villages"] == "Place"
    assert vocabulary["photograph"] == "Thing" and vocabulary["donors"] == "Actor"
    assert "x" not in vocabulary and "1990s" not in vocabulary and "lab" not in vocabulary
    assert pluralise("gallery") == "galleries" and singularise("boxes") == "box"
    assert RuleBasedAnalyzer(vocabulary).vocabulary["monasteries"] == "Thing"
    without = RuleBasedAnalyzer().analyze("Which monasteries have frescoes?")
    assert without.type == "enumeration" and without.target_categories == ()


@pytest.mark.parametrize(("text", "expected"), [
    ("in the 1930s", (1930, 1939)),
    ("from the 1790s", (1790, 1799)),
    ("the 1960's", (1960, 1969)),
    ("in the 1800s", (1800, 1899)),
    ("in 1765", (1765, 1765)),
    ("between 1760 and 1770", (1760, 1770)),
    ("from 1760 to 1770", (1760, 1770)),
    ("between the 1760s and the 1780s", (1760, 1789)),
    ("1760-1770", (1760, 1770)),
    ("18th century", (1700, 1799)),
    ("the eighteenth century", (1700, 1799)),
    ("12th-century frescoes", (1100, 1199)),
    ("the early 16th century", (1500, 1532)),
    ("mid-19th century", (1833, 1865)),
    ("late 18th century", (1766, 1799)),
    ("the second half of the 19th century", (1850, 1899)),
    ("5th century BC", (-500, -401)),
    ("circa 1765", (1760, 1770)),
    ("before 1800", (-9999, 1799)),
    ("after 1900", (1901, 9999)),
    ("accession number 1985.12", None),
    ("no date here", None),
])
def test_time_ranges(text: str, expected: tuple[int, int] | None) -> None:
    assert parse_time_range(text) == expected


def test_dates_inside_quoted_titles_are_not_ranges() -> None:
    plan = RuleBasedAnalyzer().analyze('Which artist produced "Shelburne, Vermont, 1960\'s"?')
    assert plan.time_range is None and plan.anchors == ("Shelburne, Vermont, 1960's",)


def test_anchors() -> None:
    assert quoted_titles('Who made “Return to Tilbury” and \'The Urns\'?') == [
        "Return to Tilbury", "The Urns"]
    assert quoted_titles("What is Whistler's best work?") == []
    assert name_spans("How many works by John Taylor of Bath are in the collection?") == [
        "John Taylor of Bath"]
    assert name_spans("How many works did R. B. Kitaj make?") == ["R. B. Kitaj"]
    plan = RuleBasedAnalyzer().analyze('When did the Yale Center for British Art acquire "X"?')
    assert plan.anchors == ("X", "Yale Center for British Art")


# -- conversation ----------------------------------------------------------------------------

def test_follow_up_detection_and_references() -> None:
    about = ('Tell me about "Nancy and Jim Dine".', "")
    assert contextualise("Who made it?", [about]) == "Who made it? Nancy and Jim Dine"
    assert contextualise("Who made it?") == "Who made it?"
    who = ('Who made "Return to Tilbury"?', "James McNeill Whistler")
    assert contextualise("When was he born?", [who]) == "When was he born? James McNeill Whistler"
    # the referent is found behind an earlier follow-up
    chain = [about, ("Who made it?", "R. B. Kitaj")]
    assert contextualise("When was it made?", chain).endswith("Nancy and Jim Dine")
    # a name-less previous question: the top entity label
    assert contextualise("Who painted it?", [("Tell me more", "Asinou church")]).endswith(
        "Asinou church")
    assert contextualise("How many works by Turner are there?", [about]) == (
        "How many works by Turner are there?")
    assert contextualise("What about the date?", [about]).endswith("Nancy and Jim Dine")
    assert contextualise("List the artworks that show Brittany.", [about]).endswith(".")
    assert not is_follow_up("What works are there that depict churches in villages?")
    assert contextualise("Who made it?", [("Tell me", "x" * 500)]) == "Who made it?"


def test_name_spans_keep_connector_particles_between_capitalised_words() -> None:
    assert name_spans("Who painted the frescoes of Panagia tou Araka?") == ["Panagia tou Araka"]
    question = "Which works show Ayios Nikolaos tis Stegis and Santa Maria della Salute?"
    assert name_spans(question) == ["Ayios Nikolaos tis Stegis", "Santa Maria della Salute"]
    assert name_spans("Tell me about Notre-Dame des Victoires.") == ["Notre-Dame des Victoires"]
    # a connector neither starts nor ends a span
    assert name_spans("What is tou Araka?") == ["Araka"]
    assert name_spans("Who made Panagia tou?") == ["Panagia"]
    plan = RuleBasedAnalyzer().analyze("Which church is Panagia tou Araka in Lagoudera?")
    assert plan.anchors == ("Panagia tou Araka", "Lagoudera")


# -- odd input -------------------------------------------------------------------------------

@pytest.mark.parametrize("question", [
    "", "   ", "?!…", "Ποιος ζωγράφισε τις τοιχογραφίες της Ασίνου;",
    "Quelles œuvres de Turner représentent Paris ?", "Qui a peint « La Joconde » ?",
    "什么作品描绘了巴黎？", '"', "How many \"", "x" * 10_000, "Which works by Turner " * 600,
    '"' + "a " * 5_000, "' " * 5_000,
])
def test_odd_input_never_raises(question: str) -> None:
    for analyzer in (RuleBasedAnalyzer(), LLMAnalyzer(FakeLLM(fail=True))):
        plan = analyzer.analyze(question, [("Tell me about 'X'", "X")])
        assert isinstance(plan, QueryPlan) and plan.question == question


@pytest.mark.parametrize("question", [
    "Ποιος ζωγράφισε τις τοιχογραφίες της Ασίνου;",
    "Quelles œuvres de Turner représentent Paris ?", "", "?!"])
def test_foreign_or_empty_questions_get_a_plain_specific_plan(question: str) -> None:
    plan = RuleBasedAnalyzer().analyze(question)
    assert plan.type == "specific" and plan.k == TOP_K["specific"]
    assert plan.target_categories == () and plan.context_categories == ()


def test_malformed_history_is_ignored() -> None:
    plan = RuleBasedAnalyzer().analyze("Who made it?", [("only one",), None, ("q", None)])  # type: ignore[list-item]
    assert plan.query == "Who made it?"


# -- cache -----------------------------------------------------------------------------------

def test_cache_and_plan_for() -> None:
    analyzer = RuleBasedAnalyzer(cache_size=2)
    history = [('Tell me about "Battersea Reach".', "")]
    plan = analyzer.analyze("When was it made?", history)
    assert analyzer.analyze("When was it made?", history) is plan
    assert analyzer.plan_for("When was it made? Battersea Reach") is plan
    fresh = analyzer.plan_for("How many works by Turner are there?")
    assert fresh.type == "aggregation"
    analyzer.analyze("a"), analyzer.analyze("b")
    assert analyzer.analyze("When was it made?", history) is not plan  # evicted
    analyzer.clear_cache()
    assert RuleBasedAnalyzer(cache_size=0).plan_for("Who made it?").target_categories == ("Actor",)


def test_custom_top_k() -> None:
    plan = RuleBasedAnalyzer(top_k={"enumeration": 40}).analyze("List all works by Turner.")
    assert plan.k == 40


# -- LLM analyzer ----------------------------------------------------------------------------

class FakeLLM(CustomLLM):
    """Answers every completion with ``reply`` (or raises), recording the prompts."""

    reply: str = ""
    fail: bool = False
    prompts: list[str] = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_function_calling_model=False, model_name="fake")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        if self.fail:
            raise RuntimeError("LLM unreachable")
        return CompletionResponse(text=self.reply)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False,
                        **kwargs: Any) -> Any:
        raise NotImplementedError


def _json(**fields: Any) -> str:
    base: dict[str, Any] = {"type": "enumeration", "target_categories": ["Thing"],
                            "context_categories": ["Actor"], "start_year": 1930,
                            "end_year": 1939, "anchors": ["Kauffer", "Nobody"]}
    base.update(fields)
    return json.dumps(base)


def test_llm_analyzer_uses_valid_output() -> None:
    llm = FakeLLM(reply="Here you are:\n" + _json(), prompts=[])
    analyzer = LLMAnalyzer(llm)
    plan = analyzer.analyze("Which works did Kauffer make in the 1930s?",
                            [("Who is Kauffer?", "Edward McKnight Kauffer")])
    assert plan.analyzer == "llm" and plan.type == "enumeration" and plan.k == TOP_K["enumeration"]
    assert plan.target_categories == ("Thing",) and plan.context_categories == ("Actor",)
    assert plan.time_range == (1930, 1939) and plan.anchors == ("Kauffer",)
    prompt = llm.prompts[0]
    for word in ("Thing", "Actor", "Place", "Event", "Concept", "Time", "specific",
                 "enumeration", "aggregation", "Who is Kauffer?"):
        assert word in prompt


def test_llm_time_category_is_folded() -> None:
    reply = _json(type="specific", target_categories=["Time"], context_categories=["Thing"],
                  start_year=None, end_year=None, anchors=["Visitors' Boat"])
    plan = LLMAnalyzer(FakeLLM(reply=reply, prompts=[])).analyze('When was "Visitors\' Boat" made?')
    assert plan.analyzer == "llm" and plan.time_range is None
    assert plan.target_categories == ("Thing", "Event")


@pytest.mark.parametrize("reply", [
    "I think this is a list question.",
    _json(type="listing"),
    _json(target_categories=["Artwork"]),
    "{not json",
])
def test_llm_analyzer_falls_back_on_bad_output(reply: str,
                                               caplog: pytest.LogCaptureFixture) -> None:
    analyzer = LLMAnalyzer(FakeLLM(reply=reply, prompts=[]))
    with caplog.at_level(logging.WARNING, logger="llama_index_crm.query.analysis"):
        plan = analyzer.analyze("How many works did R. B. Kitaj make in the 1970s?")
    assert plan.analyzer == "rules" and plan.type == "aggregation"
    assert plan.time_range == (1970, 1979)
    assert "falling back" in caplog.text


def test_llm_analyzer_falls_back_when_the_llm_raises(caplog: pytest.LogCaptureFixture) -> None:
    fallback = RuleBasedAnalyzer.from_labels(DEMO_LABELS)
    analyzer = LLMAnalyzer(FakeLLM(fail=True, prompts=[]), fallback=fallback)
    with caplog.at_level(logging.WARNING, logger="llama_index_crm.query.analysis"):
        plan = analyzer.analyze("Which churches were painted in the 12th century?")
    assert plan.analyzer == "rules" and plan.target_categories == ("Thing",)
    assert "RuntimeError" in caplog.text
    assert analyzer.plan_for(plan.query) is plan


def test_analyzers_share_the_interface() -> None:
    assert issubclass(RuleBasedAnalyzer, QueryAnalyzer) and issubclass(LLMAnalyzer, QueryAnalyzer)
    with pytest.raises(TypeError):
        QueryAnalyzer()  # type: ignore[abstract]


def test_for_index_reads_type_labels() -> None:
    class WithLabels:
        def type_labels(self) -> list[tuple[str, str]]:
            return DEMO_LABELS

    plan = RuleBasedAnalyzer.for_index(WithLabels()).analyze("Which villages have churches?")
    assert plan.type == "enumeration" and plan.target_categories == ("Place",)
    assert RuleBasedAnalyzer.for_index(object()).analyze("Who made it?").target_categories == (
        "Actor",)
