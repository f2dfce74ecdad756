"""Answers: question -> retrieval -> numbered passages -> streamed answer -> checked citations.

Every answer has one of three modes:

- ``generated``: the model answered from passages listed as ``[n] file p.N: text``.
  Citation numbers are the prompt's numbers (never renumbered, see ``citations``);
  numbers never offered are removed and reported; each sentence is checked against the
  passages (``attribution``): the model's citations are verified, sentences it left
  uncited are matched to the passage that supports them (a "matched" citation), and the
  rest are listed in ``unsupported_sentences``. An answer left with no citation at all
  (a small model's invention) is an ``unsupported_answer``: it says so plainly first, and
  quotes the best passages offered after the model's words, as "retrieved" citations.
  Before settling for one, the model is asked again with another seed (at most
  ``llm_answer_retries`` times, within the request cap; ``AskStage.RETRYING`` tells the
  window to drop what it streamed), sampled hotter (``RETRY_SAMPLING``): a small model
  that invents in one run sometimes copies from the passages in the next. A later try
  replaces the first only when a passage clearly says one of its sentences
  (``clearly_supported``); otherwise the first answer stands, labelled as it was.
- ``extractive``: no model answered (not running, model not pulled, nothing within the
  first-token timeout, a server error, or a stream that broke before saying anything
  useful): the best passages are quoted with their citations, labelled as not generated,
  with the reason and how to start Ollama. Or the model answered with nothing usable
  (an empty answer, or output cut before a useful sentence; ``cut`` says why): labelled
  so, without the advice to start Ollama.
- ``abstained``: retrieval says the library cannot answer (``SearchResult.sufficient`` is
  False or its confidence is "low", or nothing matched): no model is asked; the answer
  says what was searched and lists the closest passages as citations. Also when the
  model, citing nothing, says briefly that the passages do not hold the answer.

Stream-break policy: when the stream fails after tokens arrived (error line, cut
connection, total timeout), what arrived is kept if it holds at least one judgeable
sentence — ``partial=True``, a closing ``(Answer incomplete: ...)`` line, citations and
support checked as usual, confidence lowered — otherwise the answer falls back to
extractive. Cancel raises ``AnswerCancelled`` carrying the partial answer (or None).

Loops and runaways: the stream is guarded (``guards``); an answer that repeats itself or
rambles is cut on the server, keeps the text before the repeat and says in one closing
line why it was cut (``cut``). One that reaches its budget (``prompting.answer_budget``)
ends at its last full sentence, and says so too.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from docent.core import llm_rerank
from docent.core.answer_notes import INCOMPLETE
from docent.core.attribution import (
    Attribution,
    EmbedFn,
    attribute,
)
from docent.core.citations import (
    Citation,
    CitationSource,
    citations_for,
    cite_echoed_headers,
    drop_invalid,
    drop_unoffered_headers,
    pages_not_given,
    strip_markers,
    unsourced_code,
)
from docent.core.config import Settings
from docent.core.conversation import (
    Answer,
    AnswerCancelled,
    AskStage,
    Conversation,
    Mode,
    StageCallback,
    fallback_query,
    is_follow_up,
    may_stand_alone,
    parse_rewrite,
    rewrite_messages,
)
from docent.core.errors import Cancelled, LLMError, LLMTimeout, LLMUnavailable, ModelNotFound
from docent.core.evaluation import (
    answer_confidence,
    gives_no_number,
    says_not_found,
    terms,
)
from docent.core.focus import focused
from docent.core.guards import OutputCut, OutputGuard, guard_for, last_sentence_end
from docent.core.llm import OllamaClient
from docent.core.lookup import named_files
from docent.core.models import Hit
from docent.core.prompting import (
    DEFAULT_LAYOUT,
    ContextPlan,
    Layout,
    Prompt,
    abstain_text,
    build_prompt,
    context_plan,
    extractive_text,
    unsupported_text,
    with_lead,
)
from docent.core.queryterms import analyse, content_words, page_request
from docent.core.retrieval import SearchResult

# Answer and AnswerCancelled are plain data of the conversation (conversation.py); they
# are named here too because this is where answers come from.
__all__ = ["Answer", "AnswerCancelled", "Answerer", "Mode", "should_abstain"]


class SearchFn(Protocol):
    """``search(query, rewrites)``: the scope is bound by the caller (Engine.ask);
    ``within``: the paths of documents to search instead (a question about a page of the
    documents the last answer cited)."""

    def __call__(
        self, query: str, rewrites: Sequence[str], /, *, within: Sequence[str] = ()
    ) -> SearchResult: ...


TokenFn = Callable[[str], None]
CountFn = Callable[[str], int]

#: A partial answer is kept when it has at least this many content words.
MIN_PARTIAL_TERMS = 4
#: A citation marker the stream broke off in, at the end of the text: "[", "[1", "[1,".
_UNFINISHED_MARKER = re.compile(r"\s*\[[\d,;\s–-]*$")
#: Passages listed by an abstained answer, and quoted by an extractive one.
ABSTAIN_PASSAGES = 3
EXTRACTIVE_PASSAGES = 3
#: Sampling changed when the model is asked again, on top of another seed: hotter, so
#: the try differs from the near-greedy one before it (docs/measurements/answers.md,
#: session 8: with the last try kept whatever it was, 90 % cited at 0.6 against 84 % with
#: only the seed changed; not measured again seed-only since the bar below).
RETRY_SAMPLING: dict[str, Any] = {"temperature": 0.6}
#: A later try replaces the first answer only with a sentence supported at least this
#: well (matching cites at 0.5): the tries cited at 0.5-0.73 were inventions dressed in
#: the passage's words, those at 0.89-1.0 copied the passage
#: (docs/measurements/answers.md, session 8).
RETRY_MIN_SUPPORT = 0.8
#: Seeds a Retry by the user moves by, per attempt: past the seeds of the tries one
#: question makes on its own (seed + 1 ... + ``llm_answer_retries``, at most 5).
ATTEMPT_SEED_STRIDE = 100


def retry_options(options: dict[str, Any], attempt: int) -> dict[str, Any]:
    """The sampling of the user's ``attempt``-th ask of a question: the prompt's for the
    first; for a Retry another seed, sampled hotter (``RETRY_SAMPLING``), because with
    the same seed and near-greedy sampling the model writes the same answer again."""
    if attempt <= 1:
        return options
    seed = int(options.get("seed") or 0) + ATTEMPT_SEED_STRIDE * (attempt - 1)
    return {**options, "seed": seed, **RETRY_SAMPLING}


class _Requests:
    """The per-question cap on model requests (``llm_max_requests_per_question``)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.used = 0
        #: Set when the model is out of reach: no further request this question.
        self.down: LLMError | None = None

    def left(self) -> int:
        return 0 if self.down else self.cap - self.used

    def take(self) -> bool:
        if self.left() <= 0:
            return False
        self.used += 1
        return True


class Answerer:
    """Answers one question of a conversation. Cheap to create; one per question is fine."""

    def __init__(
        self,
        llm: OllamaClient,
        settings: Settings,
        search: SearchFn,
        *,
        count_tokens: CountFn | None = None,
        embed: EmbedFn | None = None,
        layout: Layout = DEFAULT_LAYOUT,
        searched: str = "all documents",
    ) -> None:
        self.llm = llm
        self.settings = settings
        self.search = search
        self.count_tokens = count_tokens
        #: Dense embeddings for matching sentences to passages (None: term overlap only).
        self.embed = embed
        self.layout = layout
        #: What a question not scoped to files searches, as an abstention names it
        #: ("all documents", "collection Work").
        self.searched = searched

    def answer(
        self,
        question: str,
        conversation: Conversation | None = None,
        *,
        model: str | None = None,
        on_token: TokenFn | None = None,
        cancel: threading.Event | None = None,
        on_stage: StageCallback | None = None,
        attempt: int = 1,
        anyway: bool = False,
    ) -> Answer:
        """``on_stage`` hears when the answer is in and being checked (CHECKING).
        ``attempt``: which time the user asks this question (a Retry: 2, 3, ...); from
        the second on the model is sampled anew (``retry_options``), so a Retry of an
        answer that counted or invented is not the same stream again. ``anyway``: the
        person overrides retrieval's verdict (a question it judges the passages found do
        not answer still goes to the model with them, and the answer says so); with
        nothing found at all it still abstains."""
        conv = conversation if conversation is not None else Conversation()
        started = time.monotonic()
        name = model or self.settings.ollama_model
        requests = _Requests(self.settings.llm_max_requests_per_question)
        _check(cancel, None)
        # "What is on page 3?" after an answer: that page of the documents it cited
        within = pages_asked_of(question, conv)
        follows = not within and conv.last is not None and is_follow_up(question)
        query, rewrites = (
            self._standalone(question, conv, name, requests, cancel, on_stage)
            if follows
            else (question, [])
        )
        _check(cancel, None)
        result = (
            self.search(query, rewrites, within=within) if within else self.search(query, rewrites)
        )
        _check(cancel, None)
        if follows and query != question and should_abstain(result) and may_stand_alone(question):
            # a follow-up only by being short: searched as asked too, and taken so when
            # that finds its answer ("What colour will the boathouse be?" after a question
            # nothing answered was refused for the other's words; QA, session 30)
            own = self.search(question, [])
            _check(cancel, None)
            if not should_abstain(own):
                query, rewrites, result, follows = question, [], own, False
        run = _Run(
            question,
            query,
            rewrites,
            name,
            result,
            requests,
            conv,
            cancel,
            on_token,
            on_stage,
            attempt,
            follows=follows,
            within=within,
        )
        # what retrieval found, when the person asked anyway over its verdict
        overrides = anyway and bool(result.hits) and should_abstain(result)
        overridden = _retrieval_verdict(result) if overrides else ""
        try:
            answer = (None if overridden else self._abstain(run)) or self._generate(run)
            _mark_anyway(answer, overridden)
            _list_closest(answer, run.query)
            answer.reranked, answer.rerank_failed = run.reranked, run.rerank_failed
        except AnswerCancelled as exc:
            if exc.answer is not None:
                _mark_anyway(exc.answer, overridden)  # stopped: what came, asked anyway
                exc.answer.reranked, exc.answer.rerank_failed = run.reranked, run.rerank_failed
                exc.answer.seconds = time.monotonic() - started
                exc.answer.requests = requests.used
                conv.add(question, query, exc.answer, stopped=True)
            raise
        answer.seconds = time.monotonic() - started
        answer.requests = requests.used
        conv.add(question, query, answer)
        return answer

    # Steps ----------------------------------------------------------------------

    def _standalone(
        self,
        question: str,
        conv: Conversation,
        model: str,
        requests: _Requests,
        cancel: threading.Event | None,
        on_stage: StageCallback | None = None,
    ) -> tuple[str, list[str]]:
        """The query to search and the rewrites for retrieval of a follow-up (the window
        hears ``REWRITING`` when the model is asked to rewrite it)."""
        fallback = fallback_query(conv, question)
        if requests.left() < 2:  # the answer itself needs the last request
            return fallback, []
        if on_stage is not None:
            on_stage(AskStage.REWRITING)
        requests.take()
        try:
            reply = self.llm.chat(
                rewrite_messages(conv, question),
                model=model,
                cancel=cancel,
                # the answer's context size: Ollama loads a model again for another one
                # (review 84: the rewrite and then the answer each reloaded it)
                options={
                    "temperature": 0,
                    "num_predict": 64,
                    "num_ctx": self.settings.llm_context_tokens,
                },
            )
        except Cancelled as exc:
            raise AnswerCancelled(str(exc)) from exc
        except (LLMUnavailable, ModelNotFound) as exc:
            requests.down = exc  # the answer request would fail the same way
            return fallback, []
        except LLMError:
            # a timeout too, as the rerank's: often a model still loading, ready by the
            # time the answer is asked for (review, session 35)
            return fallback, []
        standalone = parse_rewrite(reply, conv, question)
        if not standalone:
            return fallback, []
        return standalone, [fallback] if fallback != standalone else []

    def _abstain(self, run: _Run) -> Answer | None:
        """Retrieval's verdict: abstain before asking any model."""
        result = run.result
        if not should_abstain(result):
            return None
        evaluation = result.evaluation
        reason = _retrieval_verdict(result)
        advice = evaluation.recommendation if evaluation else ""
        return self._abstained(run, result.hits[:ABSTAIN_PASSAGES], reason, advice)

    def _abstained(
        self, run: _Run, shown: list[Hit], reason: str, advice: str, model: str = ""
    ) -> Answer:
        scope = self.searched
        if run.within or run.conv.scope:
            scope = ", ".join(Path(p).name for p in run.within or run.conv.scope or ())
        return Answer(
            question=run.question,
            text=abstain_text([run.query, *run.rewrites], scope, advice, len(shown)),
            mode="abstained",
            citations=listed(shown, run.query),
            offered=shown,
            confidence="low",
            reason=reason,
            model=model,
            query=run.query,
            rewrites=run.rewrites,
        )

    def _rerank(self, run: _Run, plan: ContextPlan) -> bool:
        """The LLM rerank (``llm_rerank``, off by default): the model puts the passages
        that answer first; True when it named some (the prompt is built again). Only
        with a request left for the answer, and at a Retry with the Retry's sampling (the
        same request again would get the same reply). A reply it cannot use, or a request
        that fails or times out, leaves the search's order and the answer is asked for as
        usual (``run.rerank_failed`` says why); a model out of reach or not installed is
        not asked again: the answer then quotes the passages and says why."""
        if not self.settings.llm_rerank or run.requests.left() < 2:
            return False
        hits = run.result.hits
        head = llm_rerank.listed(run.query, hits, plan.context_tokens, self._count)
        if len(head) < 2:
            return False  # nothing to order
        if run.on_stage is not None:
            run.on_stage(AskStage.RERANKING)
        run.requests.take()
        run.reranked = []
        try:
            done = llm_rerank.rerank(
                self.llm,
                run.query,
                head,
                hits[len(head) :],
                context_tokens=plan.context_tokens,
                model=run.model,
                cancel=run.cancel,
                sampling=retry_options(llm_rerank.OPTIONS, run.attempt),
            )
        except Cancelled as exc:
            raise AnswerCancelled(str(exc)) from exc
        except (LLMUnavailable, ModelNotFound) as exc:
            run.requests.down = exc  # the answer request would fail the same way
            run.reranked = None
            return False
        except LLMTimeout:
            run.rerank_failed = "it did not reply in time"
        except LLMError as exc:  # a server error, a stream that broke, a cut (OutputCut)
            run.rerank_failed = str(exc) or exc.__class__.__name__
        else:
            run.reranked, run.rerank_failed = done.picks, done.unusable
            run.result = replace(run.result, hits=done.hits)
        _check(run.cancel, None)  # stopped as the reply came: no "waiting" after Stop
        if run.on_stage is not None:
            run.on_stage(AskStage.WAITING)
        return bool(run.reranked)

    def _prompt(self, run: _Run, plan: ContextPlan) -> Prompt:
        return build_prompt(
            run.question,
            run.query,
            run.result.hits,
            run.conv,
            plan,
            self.settings.domain_preamble,
            self.layout,
            follows=run.follows,
        )

    def _generate(self, run: _Run) -> Answer:
        plan = context_plan(self.settings, self._count, run.question)
        prompt = self._prompt(run, plan)
        if not prompt.offered and run.result.hits:
            # The question fills the context: the model would answer from its own
            # knowledge, and the answer would look like any other.
            reason = (
                f"With it, the model's context ({plan.context_tokens} tokens, "
                "llm_context_tokens) holds none of the passages found, so no model was "
                "asked: the best passages are quoted instead."
            )
            return self._extractive(run, run.result.hits, reason, too_long=True)
        if self._rerank(run, plan):
            prompt = self._prompt(run, plan)
        options = retry_options(prompt.options, run.attempt)
        first = self._ask_model(run, prompt, plan, options)
        seed, tries = int(options.get("seed") or 0), 1
        while self._retry_wanted(run, first, tries):
            # No sentence of the answer is supported: a small model invents in one run
            # and copies from the passages in the next, so it is asked again with another
            # seed. A later answer replaces the first only when a passage clearly says one
            # of its sentences: each try is another chance to pass the matching bar by
            # chance, and the tries that did were mostly inventions
            # (docs/measurements/answers.md, session 8).
            if run.on_stage is not None:
                run.on_stage(AskStage.RETRYING)
            tries, seed = tries + 1, seed + 1
            options = {**prompt.options, "seed": seed, **RETRY_SAMPLING}
            try:
                again = self._ask_model(run, prompt, plan, options)
            except AnswerCancelled as exc:
                # Stopped while asked again: the answer kept is the first, not the text
                # that was streaming; its notes say so (answer_notes), or the words change
                # under the reader's eyes.
                first.attempts = tries
                raise AnswerCancelled(str(exc), first) from exc
            if clearly_supported(again):
                again.attempt = again.attempts = tries
                return again
        first.attempts = tries  # the notes say it was asked again, and why this stands
        return first

    def _retry_wanted(self, run: _Run, first: Answer, tries: int) -> bool:
        """Ask again: the first answer is an unsupported invention, retries are left (the
        setting's and the question's request cap), and nobody stopped it. Not when the
        model's output was cut before anything usable (it counted "1) 2) 3)") and its
        passages are quoted instead: asking those again was measured and gained nothing
        (docs/measurements/answers.md, session 11)."""
        stopped = run.cancel is not None and run.cancel.is_set()
        return (
            first.unsupported_answer
            and not first.partial
            and tries <= self.settings.llm_answer_retries
            and run.requests.left() > 0
            and not stopped
        )

    def _ask_model(
        self, run: _Run, prompt: Prompt, plan: ContextPlan, options: dict[str, Any]
    ) -> Answer:
        """One request for the answer, streamed, guarded and checked."""
        if not run.requests.take():
            down = run.requests.down
            reason = str(down) if down else "The request cap for this question was reached."
            return self._extractive(run, prompt.offered or run.result.hits, reason, failure=down)
        guard = guard_for(options)
        tokens: list[str] = []
        try:
            for token in self.llm.stream_chat(
                prompt.messages,
                model=run.model,
                cancel=run.cancel,
                options=options,
                guard=guard,
            ):
                tokens.append(token)
                if run.on_token is not None:
                    run.on_token(token)
        except OutputCut as exc:
            return self._cut(run, prompt, guard, exc.cut.kept, exc.cut.reason)
        except Cancelled as exc:
            partial = self._finish(run, prompt, guard, tokens, partial=str(exc)) if tokens else None
            raise AnswerCancelled(str(exc), partial) from exc
        except LLMError as exc:
            return self._broken(run, prompt, guard, tokens, exc)
        text = "".join(tokens)
        if not text.strip():
            reason = "The model returned an empty answer."
            return self._extractive(run, prompt.offered, reason, unused=reason)
        if not re.search(r"\w", strip_markers(text)):  # "[1]": a chip, and nothing said
            reason = "The model's answer held only citation markers."
            return self._extractive(run, prompt.offered, reason, unused=reason)
        if run.on_stage is not None:  # the citations and sentences are checked next
            run.on_stage(AskStage.CHECKING)
        if guard.done_reason == "length":
            kept = text[: last_sentence_end(text)] or text
            reason = (
                f"The answer was cut at its budget of {plan.answer_tokens} tokens; the "
                "setting llm_answer_tokens allows longer answers."
            )
            return self._cut(run, prompt, guard, kept, reason)
        return self._finish(run, prompt, guard, tokens)

    def _cut(self, run: _Run, prompt: Prompt, guard: OutputGuard, kept: str, why: str) -> Answer:
        """The stream was cut (loop, rambling, budget): keep what came before, say why."""
        if len(terms(kept)) < MIN_PARTIAL_TERMS:
            reason = f"{why} Nothing useful came before it."
            return self._extractive(run, prompt.offered, reason, unused=why)
        return self._finish(run, prompt, guard, [kept], cut=why, tail=f"({why})")

    def _broken(
        self, run: _Run, prompt: Prompt, guard: OutputGuard, tokens: list[str], exc: LLMError
    ) -> Answer:
        """The stream failed: keep a useful partial answer, else quote passages."""
        if isinstance(exc, LLMUnavailable | ModelNotFound):
            run.requests.down = exc  # a try after this one would fail the same way
        if isinstance(exc, LLMUnavailable | ModelNotFound) or not tokens:
            return self._extractive(run, prompt.offered, str(exc), failure=exc)
        if len(terms("".join(tokens))) < MIN_PARTIAL_TERMS:
            reason = f"{exc} (the answer broke off before saying anything useful)"
            return self._extractive(run, prompt.offered, reason, failure=exc)
        tail = f"{INCOMPLETE}{exc})"
        return self._finish(run, prompt, guard, tokens, partial=str(exc), tail=tail)

    def _finish(
        self,
        run: _Run,
        prompt: Prompt,
        guard: OutputGuard,
        tokens: list[str],
        *,
        partial: str = "",
        cut: str = "",
        tail: str = "",
    ) -> Answer:
        """The streamed text checked; ``tail``: Docent's line on why it is cut or partial."""
        text = with_lead(prompt.lead, "".join(tokens)).strip()
        if partial:  # a marker the stream broke off in ("full [", "full [1,")
            text = _UNFINISHED_MARKER.sub("", text)
        text = cite_echoed_headers(text, prompt.offered)
        text, unoffered = drop_unoffered_headers(text, prompt.offered)
        text, invalid = drop_invalid(text, len(prompt.offered))
        named = pages_not_given(text, prompt.offered)
        checked = self._attribute(run, prompt, text)
        model, matched = checked.model_cited, checked.matched
        if not (partial or cut or model or matched) and says_not_found(text):
            # no sentence of it is in a passage either: the model abstained
            reason = "The model found no answer in the passages it was given."
            return self._abstained(run, prompt.offered[:ABSTAIN_PASSAGES], reason, "", run.model)
        # why it is cut or partial; what the checks found is the answer's notes
        # (answer_notes.notes: the window's footer, `docent ask`, the export, --json)
        reasons = [r for r in (partial, cut) if r]
        no_number = gives_no_number(run.query, checked.text)
        confidence = answer_confidence(
            run.result.confidence,
            checked.faith,
            cited=bool(model or matched),
            invalid=bool(invalid or unoffered or named),
            partial=bool(partial or cut),
            matched_only=bool(matched and not model),
            no_number=no_number,
        )
        text = checked.text
        # a passage a sentence should have cited is listed too, for the note naming it
        # (QA-78: "passage [2] does" of a passage the sources never showed)
        misattributed = [(s.sentence, s.cited, s.better) for s in checked.misattributed if s.better]
        better = [n for _, _, n in misattributed]
        citations = focused(
            citations_for(model, prompt.offered, matched=[*matched, *better]),
            prompt.offered,
            checked.faith.sentences,
            run.query,
        )
        text = f"{text}\n\n{tail}" if tail else text
        unsupported = not citations and bool(prompt.offered and checked.faith.unsupported)
        if unsupported:
            # No sentence the model wrote is supported: it stays uncited and flagged, and
            # is plainly labelled so, with the best passages quoted (source "retrieved",
            # as an extractive answer's) for the reader to check it against. A fragment
            # with no sentence to judge (a Stop after three words) is left as it came.
            citations = listed(prompt.offered[:EXTRACTIVE_PASSAGES], run.query)
            text = unsupported_text(text, run.query, citations)
        return Answer(
            question=run.question,
            text=text,
            mode="generated",
            citations=citations,
            offered=prompt.offered,
            invalid_citations=invalid,
            unoffered_pages=unoffered,
            pages_not_given=named,
            unsupported_sentences=checked.faith.unsupported,
            uncited_sentences=checked.faith.uncited,
            unsaid_parts=checked.faith.unsaid,
            conflicts=checked.faith.conflicts,
            answer_match=checked.whole,
            sentence_support=checked.faith.pairs,
            confidence=confidence,
            reason=" ".join(reasons),
            model=run.model,
            query=run.query,
            rewrites=run.rewrites,
            partial=bool(partial),
            cut=cut,
            misattributed=misattributed,
            tokens=guard.tokens,
            budget=int(prompt.options.get("num_predict") or 0),
            unsupported_answer=unsupported,
            no_number=no_number,
            unsourced_code=unsourced_code(text, [h.text for h in prompt.offered]),
        )

    def _attribute(self, run: _Run, prompt: Prompt, text: str) -> Attribution:
        layout = {n: hit.text for n, hit in enumerate(prompt.offered, 1)}
        return attribute(text, prompt.shown, self.embed, layout=layout)

    def _extractive(
        self,
        run: _Run,
        hits: list[Hit],
        reason: str,
        *,
        unused: str = "",
        too_long: bool = False,
        failure: LLMError | None = None,
    ) -> Answer:
        """The best passages quoted; ``unused``: the model answered, and why its output
        could not be used (it was empty, or cut before anything useful). The one field
        both the text and the window's banner read (``Answer.cut``). ``too_long``: no
        model was asked, the question leaving no room for a passage. ``failure``: the
        error that stopped the model (its kind picks the advice)."""
        shown = hits[:EXTRACTIVE_PASSAGES]
        quotes = listed(shown, run.query)
        text = extractive_text(
            run.query,
            quotes,
            reason,
            run.model,
            answered=bool(unused),
            too_long=too_long,
            failure=failure,
        )
        return Answer(
            question=run.question,
            text=text,
            mode="extractive",
            cut=unused,
            too_long=too_long,
            citations=quotes,
            offered=shown,
            confidence=run.result.confidence,
            reason=reason,
            query=run.query,
            rewrites=run.rewrites,
        )

    # Helpers --------------------------------------------------------------------

    def _count(self, text: str) -> int:
        return self.count_tokens(text) if self.count_tokens else len(text) // 3 + 1


@dataclass(slots=True)
class _Run:
    """What one question carries between the steps."""

    question: str
    query: str
    rewrites: list[str]
    model: str
    result: SearchResult
    requests: _Requests
    conv: Conversation
    cancel: threading.Event | None
    on_token: TokenFn | None
    on_stage: StageCallback | None = None
    #: Which time the user asks this question (a Retry: 2, 3, ...).
    attempt: int = 1
    #: What the LLM rerank made of the passages (``Answer.reranked``, ``rerank_failed``).
    reranked: list[int] | None = None
    rerank_failed: str = ""
    #: A follow-up, searched as one: the prompt carries the turns before it.
    follows: bool = False
    #: The documents searched instead of the scope (``pages_asked_of``), by path.
    within: list[str] = field(default_factory=list)


def listed(shown: list[Hit], query: str, source: CitationSource = "retrieved") -> list[Citation]:
    """Passages Docent lists itself (quoted, or the closest to an abstained question),
    each opening on the page of its quote."""
    return focused(citations_for(range(1, len(shown) + 1), shown, source), shown, (), query)


def clearly_supported(answer: Answer) -> bool:
    """A generated, whole answer with a sentence an offered passage clearly says (support
    at least ``RETRY_MIN_SUPPORT``): what a later try must hold to replace the first."""
    if answer.mode != "generated" or answer.unsupported_answer or answer.partial:
        return False
    flagged = set(answer.unsupported_sentences)
    scores = [score for s, score in answer.sentence_support if s not in flagged]
    return max(scores, default=0.0) >= RETRY_MIN_SUPPORT


def _list_closest(answer: Answer, query: str) -> None:
    """A written answer whose citations do not include the passage closest to the question
    ([1]) lists it too, as "closest", when the model cited nothing itself or the answer is
    little trusted (asked anyway over retrieval's verdict included: after ``_mark_anyway``).
    QA-77: a sentence copied from a manual's page [3] was matched and shown alone, and the
    recipe's "Bake for 35 minutes", [1], never was. Also an answer left with no citation
    and no sentence to check ("The PRESIDENT.": too short to judge, so not flagged as
    unsupported either), which came with no source at all (QA-79)."""
    cites = answer.citations
    if answer.mode != "generated" or answer.unsupported_answer or not answer.offered:
        return
    if any(c.n == 1 for c in cites):
        return
    if any(c.source == "model" for c in cites) and answer.confidence != "low":
        return
    answer.citations = sorted(
        [*cites, *listed(answer.offered[:1], query, "closest")], key=lambda c: c.n
    )


def _mark_anyway(answer: Answer, verdict: str) -> None:
    """An answer given although retrieval judged the passages low (``verdict``): it says
    so first, at low confidence."""
    if not verdict or answer.mode == "abstained":
        return
    answer.overrode = verdict  # the notes say "Asked anyway: ..."
    answer.confidence = "low"


def _retrieval_verdict(result: SearchResult) -> str:
    """Why retrieval judges that the passages found do not answer the question."""
    if not result.hits:
        return "Nothing in the searched documents matched the question."
    evaluation = result.evaluation
    issues = "; ".join(evaluation.issues) if evaluation else ""
    reason = f"Retrieval confidence is {result.confidence or 'low'}"
    # in brackets: an issue has a colon of its own ("not in the passages found: fan")
    return reason + (f" ({issues})." if issues else ".")


def pages_asked_of(question: str, conv: Conversation) -> list[str]:
    """The documents a question about whole pages ("And on page 3?", "What is on page
    3?": nothing asked but the page) means: those the last answer that found its passages
    cited, by path (an abstained answer lists passages that do not answer, and a "no page
    90" none at all: review, session 31); of those, the ones it names ("page 2 of the
    CTSS manual"). None for any other question, or with no such answer before it, or
    when it names another document ("page 2 of the forensics text" was asked of the
    manual the last answer cited: review 84).
    """
    page = page_request(question)
    if page is None or analyse(page.rest).words:
        return []
    for turn in reversed(conv.answered):
        answer = turn.answer
        if answer is not None and answer.mode != "abstained" and answer.citations:
            cited = answer.citations
            if page.document and not _points_back(page.document):
                named = set(named_files(page.document, [c.file_name for c in cited]))
                cited = [c for c in cited if c.file_name in named]
            return list(dict.fromkeys(c.path for c in cited))
    return []


#: What a page question calls the document the last answer cited ("page 2 of this
#: document", "of it", "of the PDF", "of the same file"): no name of another.
_SAME_DOCUMENT = frozenset(
    {"document", "documents", "doc", "pdf", "file", "text", "paper", "same", "this", "it"}
)


def _points_back(document: str) -> bool:
    """``document`` (a page question's "of …") names no document but the one before:
    "this document", "it", "the PDF" (review 85: they asked page 2 of every PDF)."""
    return all(w in _SAME_DOCUMENT for w in content_words(document))


def should_abstain(result: SearchResult) -> bool:
    """The retrieval's verdict (its fields only): nothing found, not sufficient, or low."""
    return not result.hits or not result.sufficient or result.confidence == "low"


def _check(cancel: threading.Event | None, answer: Answer | None) -> None:
    if cancel is not None and cancel.is_set():
        raise AnswerCancelled("Stopped: the answer was cancelled.", answer)
