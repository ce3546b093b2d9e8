"""The prompts in ``config/prompts``: loading, user overrides, and the prompt an LLM gets
from ``ask``, the chat engine and the query engine (read back through ``MockLLM``, which
echoes what it is sent: prompt plumbing only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from llama_index.core.llms import MockLLM

from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.ontology import find_config_dir
from llama_index_crm.query.prompts import DEFAULT_PROMPTS, PROMPTS_DIR, PromptError, PromptSet
from llama_index_crm.storage.manifest import config_hash

ENUMERATION = "The question asks for a list. List every entity in the context"
AGGREGATION = "The question asks for a number. Give the number first"
SPECIFIC = "Answer from the documents and name the documents you used"


def test_default_prompts_are_read_from_config() -> None:
    prompts = PromptSet.default()
    assert prompts.source[0].endswith(f"{PROMPTS_DIR}/{DEFAULT_PROMPTS}")
    assert ENUMERATION in prompts[("system", "enumeration")]
    assert AGGREGATION in prompts[("system", "aggregation")]
    assert SPECIFIC in prompts[("system", "specific")]
    context = prompts.render_context(exact="9 churches", documents="[1] Asinou",
                                     relationships="A → B → C", statistics="")
    assert context.startswith("Exact answer (computed over the whole graph")
    assert context.index("9 churches") < context.index("Documents:") \
        < context.index("Relationships") and "statistics" not in context


def test_editing_prompts_needs_no_rebuild(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    before = config_hash()
    copy = tmp_path / "config"
    shutil.copytree(find_config_dir(), copy)
    (copy / PROMPTS_DIR / DEFAULT_PROMPTS).write_text('[system]\nspecific = "Be brief."\n')
    monkeypatch.setenv("LLAMA_INDEX_CRM_CONFIG", str(copy))
    assert config_hash() == before


@pytest.mark.parametrize(("text", "message"), [
    ('[system]\nlisting = "x"\n', "unknown prompt system.listing"),
    ('[system]\nspecific = "Answer {question}"\n', "system.specific uses"),
    ('[context]\ntemplate = "{documents}{statistics}"\n', "must keep ['exact']"),
    ('[question]\ntemplate = "{context}"\n', "must keep ['question']"),
    ('[context]\ndocuments = "Docs {text"\n', "not a valid template"),
    ("[system\n", "cannot read the prompt file"),
])
def test_a_wrong_prompt_file_is_refused_with_the_reason(tmp_path: Path, text: str,
                                                       message: str) -> None:
    file = tmp_path / "mine.toml"
    file.write_text(text)
    with pytest.raises(PromptError, match=message.replace("[", r"\[").replace("]", r"\]")):
        PromptSet.load(file)


def test_the_rendered_prompt_follows_the_question_type(demo_index: CrmGraphIndex) -> None:
    enumeration = demo_index.ask("Which churches are in Nicosia District?",
                                 llm=MockLLM()).answer
    assert enumeration.startswith("system: ") and ENUMERATION in enumeration
    assert "Documents:\n[1] " in enumeration and "Relationships (subject → relation → object)" \
        in enumeration
    assert "Dataset statistics:\nEntities per category: " in enumeration
    assert "Most connected Thing entities (PageRank): " in enumeration
    assert enumeration.rstrip().endswith("Question: Which churches are in Nicosia District?\n"
                                         "Answer:\nassistant:")
    counting = demo_index.ask("How many churches are in Nicosia District?", llm=MockLLM())
    assert AGGREGATION in counting.answer and "Dataset statistics:" in counting.answer
    assert counting.count == 11  # the count is still the structured one
    specific = demo_index.ask("Who founded the church at Asinou?", llm=MockLLM()).answer
    assert SPECIFIC in specific and "Dataset statistics" not in specific
    assert "Nikephoros Ischyrios" in specific
    # the path that brought the founder in is among the relationships
    assert "P108i was produced by → Construction of the Panagia Phorbiottissa, Asinou → " \
           "P14 carried out by → Nikephoros Ischyrios" in specific
    pivot = demo_index.ask("Aside from Asinou, which churches are in Nicosia District?",
                           llm=MockLLM()).answer
    assert "The user asked for entities other than “Asinou”" in pivot


def test_the_exact_answer_goes_first_in_the_context(demo_index: CrmGraphIndex) -> None:
    pipeline = demo_index.as_query_pipeline(llm=MockLLM())
    plan = pipeline.plan("How many churches are in Nicosia District?")
    nodes = pipeline.retrieve(plan)
    system, user = pipeline.llm_messages(plan, nodes, plan.question,
                                         exact="10 churches (evidence: …)")
    assert AGGREGATION in str(system.content)
    content = str(user.content)
    assert content.startswith("Exact answer (computed over the whole graph, with its "
                              "evidence):\n10 churches (evidence: …)\n\nDocuments:")
    without = str(pipeline.llm_messages(plan, nodes, plan.question)[1].content)
    assert without.startswith("Documents:")


def test_a_users_prompt_file_reaches_every_entry_point(demo_index: CrmGraphIndex,
                                                      tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('[system]\nenumeration = "LIST THEM ALL, ONE PER LINE."\n'
                    '[question]\ntemplate = "{context}{history}Q: {question}"\n')
    question = "Which churches are in Nicosia District?"
    asked = demo_index.ask(question, llm=MockLLM(), prompts=mine).answer
    assert "system: LIST THEM ALL, ONE PER LINE." in asked and ENUMERATION not in asked
    assert asked.rstrip().endswith(f"Q: {question}\nassistant:")
    engine = demo_index.as_query_engine(llm=MockLLM(), prompts=mine)
    assert "LIST THEM ALL, ONE PER LINE." in str(engine.query(question))
    chat = demo_index.as_chat_engine(llm=MockLLM(), prompts=mine)
    chat.chat('Tell me about "Panagia tou Araka".')
    reply = str(chat.chat("Other than this one, which churches are in Nicosia District?"))
    assert "LIST THEM ALL, ONE PER LINE." in reply
    # the conversation so far is in the prompt, and the pivot's exclusion
    assert "- Tell me about \"Panagia tou Araka\". → Panagia tou Araka" in reply
    assert "other than “Panagia tou Araka”" in reply
