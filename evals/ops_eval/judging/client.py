"""One configured judge: how it is reached, what identifies it, and every call it makes -- the
cache first, then the budget, then the model, then the reply's schema.

A judge with a base URL uses only that endpoint and its key: LiteLLM gets both explicitly, so
nothing falls back to OPENAI_API_KEY or OPENAI_BASE_URL. A hosted judge (no base URL) is reached
as LiteLLM reaches its provider, with the provider's own variables. Temperature 0, no retries
(a retry would spend twice for one verdict). Where the server supports it the reply is
constrained by its JSON schema: `json_schema` is OpenAI's structured output (Ollama, vLLM,
llama.cpp's own server, so the embedded judge), `llama_cpp` is llama-cpp-python's `json_object`
with a `schema` (its server), `none` leaves it to the prompt -- the reply is validated either way.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from ..base.exits import describe
from ..core.judge_port import JudgeUse
from .budget import Budget, BudgetBlocked, call_bound
from .cache import VerdictCache, cache_key
from .prompts import CONVERSATIONS, GRADING, PAIRING, Prompt
from .verdicts import JudgeError, JudgeUnreachable, Preference, Verdict, parse_reply

SchemaMode = Literal["json_schema", "llama_cpp", "none"]
SERVED_ROUTES = ("openai/", "ollama/", "ollama_chat/", "hosted_vllm/", "lm_studio/")
"""LiteLLM routes to a server at a base URL; any other name there is served OpenAI-style."""


@dataclass(frozen=True)
class JudgeConfig:
    """A judge: its LiteLLM model string, where it is served, its key, and its pin -- what
    identifies its weights for the cache and for calibration (the model string, with a digest
    when one is known)."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    pin: str = ""
    schema_mode: SchemaMode = "none"
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 120.0

    @property
    def litellm_model(self) -> str:
        """The model as LiteLLM routes it: at a base URL, a name without a route of its own
        (`qwen3:4b`, vLLM's `Qwen/Qwen2.5-7B-Instruct`) is an OpenAI-compatible server's model."""
        if self.base_url and not self.model.startswith(SERVED_ROUTES):
            return f"openai/{self.model}"
        return self.model

    @property
    def identity(self) -> str:
        return self.pin or self.litellm_model


@dataclass(frozen=True)
class Asked:
    """One answered judge question: what was kept, whether it came from the cache, its cost."""

    kept: Verdict | Preference
    cached: bool
    tokens: int


@dataclass
class Judge:
    """A judge with its cache and budget. Thread-safe: trials score concurrently."""

    config: JudgeConfig
    cache: VerdictCache | None = None
    budget: Budget | None = None
    calls: int = 0
    hits: int = 0
    errors: int = 0
    tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def pin(self) -> str:
        return self.config.identity

    def grade(
        self, *, rubric: str, question: str, response: str, reference: str | None = None
    ) -> Asked:
        """One answer against a rubric (and the reference, when there is one)."""
        data: dict[str, Any] = {"question": question, "answer": response, "rubric": rubric}
        if reference:
            data["reference"] = reference
        return self.ask(GRADING, data)

    def grade_conversation(self, turns: list[dict[str, str]]) -> Asked:
        """A conversation's answers against their references."""
        return self.ask(CONVERSATIONS, {"turns": turns})

    def compare(
        self,
        *,
        questions: list[str],
        first: list[str],
        second: list[str],
        reference: list[str] | None = None,
    ) -> Asked:
        """Two answers to the same questions, in the order given."""
        data: dict[str, Any] = {"questions": questions, "first": first, "second": second}
        if reference:
            data["reference"] = reference
        return self.ask(PAIRING, data)

    def ask(self, prompt: Prompt, data: dict[str, Any]) -> Asked:
        """The kept reply to `prompt` over `data`: from the cache, else from the model within
        the budget. JudgeError (BudgetBlocked included) when there is no valid reply."""
        messages = prompt.messages(data)
        key = cache_key(self.pin, prompt.version, messages)
        if self.cache is not None:
            hit = self._cached(key, prompt)
            if hit is not None:
                with self._lock:
                    self.hits += 1
                return Asked(hit, cached=True, tokens=0)
        try:
            reply, used = self._call(prompt, messages)
        except JudgeError:
            with self._lock:
                self.errors += 1
            raise
        kept_reply = reply.kept()
        if self.cache is not None:
            self.cache.put(key, self.pin, prompt.version, kept_reply.model_dump(), used)
        return Asked(kept_reply, cached=False, tokens=used)

    def _cached(self, key: str, prompt: Prompt) -> Verdict | Preference | None:
        """A stored verdict that still validates as what this prompt keeps; else a miss."""
        assert self.cache is not None
        stored = self.cache.get(key, self.pin, prompt.version)
        if stored is None:
            return None
        try:
            return prompt.reply.KEPT.model_validate(stored)
        except ValidationError:
            return None

    def _call(self, prompt: Prompt, messages: list[dict[str, str]]) -> tuple[Any, int]:
        bound = call_bound(messages, self.config.max_tokens)
        if self.budget is not None:
            self.budget.reserve(bound)  # BudgetBlocked: nothing was sent
        with self._lock:
            self.calls += 1
        used: int | None = None
        try:
            text, used = self._completion(prompt, messages)
        except BaseException:  # charged as if the whole bound went: the server may have worked
            if self.budget is not None:
                self.budget.settle(bound, None)
            with self._lock:
                self.tokens += bound
            raise
        # A server that reports no usage, or none at all, is charged the whole bound.
        charged = used if used is not None and used > 0 else bound
        if self.budget is not None:
            self.budget.settle(bound, charged)
        with self._lock:
            self.tokens += charged
        return parse_reply(text, prompt.reply), charged

    def _completion(self, prompt: Prompt, messages: list[dict[str, str]]) -> tuple[str, int | None]:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        extra: dict[str, Any] = {}
        if self.config.schema_mode == "json_schema":
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": prompt.reply.__name__, "schema": prompt.schema},
            }
        elif self.config.schema_mode == "llama_cpp":
            extra["response_format"] = {"type": "json_object", "schema": prompt.schema}
        try:
            response: Any = litellm.completion(
                model=self.config.litellm_model,
                api_base=self.config.base_url,
                api_key=self.config.api_key,
                messages=messages,
                temperature=self.config.temperature,
                max_tokens=self.config.max_tokens,
                timeout=self.config.timeout_s,
                num_retries=0,
                **extra,
            )
            text = response.choices[0].message.content
            usage = getattr(response, "usage", None)
            used = getattr(usage, "total_tokens", None)
        except Exception as exc:  # unreachable, refused, malformed response: no verdict
            raise JudgeUnreachable(f"the judge call failed: {describe(exc)}") from None
        if not isinstance(text, str) or not text.strip():
            raise JudgeError("the judge replied with no text")
        return text, used if isinstance(used, int) else None

    def use(self) -> JudgeUse:
        """What this judge did so far."""
        budget = self.budget
        return JudgeUse(
            pin=self.pin,
            prompt_versions={p.kind: p.version for p in (GRADING, CONVERSATIONS, PAIRING)},
            calls=self.calls,
            cache_hits=self.hits,
            errors=self.errors,
            tokens=self.tokens,
            budget_tokens=budget.limit if budget else None,
            budget_source=budget.source if budget else "",
            budget_problem=budget.problem if budget else None,
            budget_blocked=budget.blocked if budget else 0,
        )


__all__ = ["Asked", "BudgetBlocked", "Judge", "JudgeConfig", "JudgeError", "JudgeUse"]
