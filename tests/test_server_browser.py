"""The chat page in a real browser: Playwright driving Debian's Chromium (``make chromium``;
browsers cannot be downloaded here) against ``create_app`` under uvicorn. Skips, saying
why, where Playwright or Chromium is missing."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)")

from serving import HOSTILE, IMG_LABEL, NOTE, SCRIPT_LABEL  # noqa: E402

CHROMIUM_ENV = "CRM_TEST_CHROMIUM"
"""An explicit Chromium executable; default: ``chromium`` on the PATH (Debian's package)."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-default-apps"]
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = os.environ.get(CHROMIUM_ENV) or shutil.which("chromium")
    if executable is None:
        pytest.skip("Chromium is not installed (make chromium: Debian's chromium package)")
    with playwright_api.sync_playwright() as p:
        try:
            launched = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        except playwright_api.Error as exc:
            pytest.skip(f"Chromium at {executable} does not start: {str(exc)[:200]}")
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, served: str) -> Iterator[Any]:
    # without the page's Content-Security-Policy: the page's own discipline (text, never
    # markup) is what is tested, and Playwright may evaluate its checks
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(served + "/")
    page.wait_for_selector("body[data-ready='true']")
    yield page
    context.close()
    assert not errors, errors  # no script error in the page


def ask(page: Any, question: str) -> Any:
    """Type ``question``, send it, and return the new turn once answered."""
    before = page.locator("#log .turn").count()
    page.fill("#question", question)
    page.press("#question", "Enter")
    turn = page.locator("#log .turn").nth(before)
    turn.locator(".badge").wait_for()
    return turn


def test_a_conversation_in_the_browser(page: Any) -> None:
    assert page.locator("#dataset option").all_text_contents() == ["troodos", "hostile"]
    assert "Who founded the church at Asinou?" in page.locator(
        "#examples button").all_text_contents()
    turn = ask(page, "Who founded the church at Asinou?")
    assert turn.locator(".badge").text_content() == "answered"
    assert "Nikephoros Ischyrios" in turn.locator(".answer-text").text_content()
    # sources with their FR paths
    paths = turn.locator(".source-path").all_text_contents()
    assert any(p.startswith("Asinou → ") and p.endswith("Nikephoros Ischyrios") for p in paths)
    # evidence triples, folded until opened
    evidence = turn.locator("details.evidence")
    assert not evidence.locator(".triples li").first.is_visible()
    evidence.locator("summary").click()
    assert any("carried out by → Nikephoros Ischyrios" in t
               for t in evidence.locator(".triples li").all_text_contents())
    # the subgraph drawing: one circle per node, the sources marked
    assert turn.locator("svg.subgraph circle.source").count() >= 3
    # open a source: its document, triples and linked entities
    turn.locator("button.source", has_text="Nikephoros Ischyrios").click()
    page.wait_for_selector("#entity:not([hidden])")
    assert page.locator("#entity-label").text_content() == "Nikephoros Ischyrios"
    assert "Nikephoros Ischyrios" in page.locator("#entity-document").text_content()
    assert page.locator("#entity-neighbours li").count() >= 1
    # a follow-up in the same conversation
    follow = ask(page, "When was it built?")
    assert "1105" in follow.locator(".answer-text").text_content()
    # /explain shows the last answer's plan and SPARQL
    assert not follow.locator(".plan").is_visible()
    page.fill("#question", "/explain")
    page.press("#question", "Enter")
    follow.locator(".plan-sparql").wait_for()
    assert "SELECT" in follow.locator(".plan-sparql").text_content()


def test_an_empty_question_shows_the_servers_message(page: Any) -> None:
    page.fill("#question", "   ")
    page.press("#question", "Enter")
    page.wait_for_selector("#error:not([hidden])")
    assert "empty" in page.locator("#error").text_content()
    assert page.locator("#log .turn").count() == 0


def test_hostile_labels_show_as_text_and_never_run(page: Any, served: str,
                                                   hostile_image: tuple[str, list[str]]) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.select_option("#dataset", "hostile")
    turn = ask(page, "Who made Evil Painting?")
    assert IMG_LABEL in turn.locator("button.source").all_text_contents()  # as typed
    # the maker's entity, then the work among its linked entities
    turn.locator("button.source", has_text="Mallory Painter").click()
    page.wait_for_selector("#entity:not([hidden])")
    assert page.locator("#entity-label").text_content() == IMG_LABEL
    page.locator(f"#entity-neighbours button[title='{HOSTILE}work']").click()
    page.wait_for_function("document.querySelector('#entity-label').textContent"
                           ".endsWith('Evil Painting')")
    assert page.locator("#entity-label").text_content() == SCRIPT_LABEL
    assert NOTE in page.locator("#entity-document").text_content()
    assert any(IMG_LABEL in t for t in page.locator("#entity-triples li").all_text_contents()
               ) or IMG_LABEL in page.locator("#entity-neighbours").text_content()
    # the graph's image is loaded from the URL the graph gives
    image = page.locator("#entity-images img")
    assert image.get_attribute("src") == hostile_image[0]
    page.wait_for_function("document.querySelector('#entity-images img').naturalWidth > 0")
    # nothing the labels hold became markup or ran
    turn.locator("details.evidence summary").click()
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("document.querySelectorAll('script').length") == 1  # app.js only
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("#log b, #log a, #entity b, #entity a").count() == 0
    # only this server and the graph's image were contacted
    assert {r for r in requests if not r.startswith(served + "/")} == {hostile_image[0]}
    assert HOSTILE + "work" in page.locator("#entity-meta").text_content()


@pytest.fixture(scope="module")
def served_with_llm(demo_index: Any) -> Iterator[str]:
    """The demo index served with ``MockLLM`` (prompt plumbing only): the page streams."""
    from llama_index.core.llms import MockLLM
    from serving import live_server

    from llama_index_crm.server import create_app

    with live_server(create_app(demo_index, llm=MockLLM(max_tokens=8))) as url:
        yield url


def test_with_an_llm_the_page_streams_the_answer(browser: Any, served_with_llm: str) -> None:
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    streamed: list[str] = []
    page.on("request", lambda r: streamed.append(r.url))
    page.goto(served_with_llm + "/")
    page.wait_for_selector("body[data-ready='true']")
    turn = ask(page, "How many churches are in Nicosia District?")
    assert served_with_llm + "/api/chat/stream" in streamed
    assert turn.locator(".badge").text_content() == "answered"  # the graph's status
    assert turn.locator(".answer-text").text_content().startswith("text")  # MockLLM's words
    assert "count: " in turn.locator(".count").text_content()
    context.close()
