"""vLLM's CPU model runner, computing only the logits a request's grammar allows.

The vocabulary table is the largest matrix a decode step reads: at the 1.7B shape its 131,072
int8 rows are 256 MiB of the step's 1 GB, about 14 ms of a token on two cores. Under a tool
call's grammar (`tool_choice` "required" or a named tool, after any thinking) most positions
allow a handful of tokens: the call's markup, a tool's name, an argument's key, digits. vLLM
computes every logit and then sets the ones the grammar forbids to minus infinity; this runner
waits for the grammar's bitmask, which the engine computes while the forward pass runs, and
multiplies only the rows of the tokens some position of the step allows. The others are minus
infinity straight away, so the logits the sampler sees are the very ones vLLM's would be.

That holds where the head's kernel computes each logit from its own row alone, whichever other
rows come with it: our int8 table kernel does (one dot product per row, the same instructions in
the same order). Elsewhere (torch's GEMMs, bf16 heads, a scaled or capped head) every logit is
computed as before. A step whose batch has a request without a grammar, or whose positions
together allow more than an eighth of the vocabulary (free text, thinking), is computed whole
too.

The worker builds this runner in place of vLLM's (`serving.vllm_plugin.worker`); the server's
`--additional-config '{"all_logits": true}'` turns the restriction off.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch.profiler import record_function
from vllm.v1.worker.cpu_model_runner import CPUModelRunner

from serving.launcher import ALL_LOGITS_KEY, DEFERRED_LOGITS_SCOPE
from serving.quantization.vllm_method import Int8TableMethod

if TYPE_CHECKING:
    from vllm.v1.core.sched.output import GrammarOutput, SchedulerOutput

# Up to one such share of the vocabulary, gathering the allowed rows costs less than reading all.
_RESTRICTED_SHARE = 8

_log = logging.getLogger("vllm.phone_agent.grammar_head")  # vLLM's handlers print it


def allowed_tokens(bitmask: np.ndarray, vocabulary: int) -> np.ndarray:
    """The token ids any row of an xgrammar bitmask allows (bit b of word w is token 32w + b),
    below `vocabulary`, ascending."""
    union = np.bitwise_or.reduce(np.ascontiguousarray(bitmask, dtype=np.int32), axis=0)
    bits = np.unpackbits(union.astype("<i4").view(np.uint8), bitorder="little")
    return np.flatnonzero(bits[:vocabulary])


def restricted_rows(
    grammar_output: GrammarOutput | None,
    batch_request_ids: Sequence[str],
    logit_rows: int,
    vocabulary: int,
) -> np.ndarray | None:
    """The tokens whose logits a step needs, or None where it needs them all: a request of the
    batch has no grammar, the bitmask does not cover every row, or the rows together allow more
    than a `_RESTRICTED_SHARE`th of the vocabulary."""
    if grammar_output is None:
        return None
    constrained = set(grammar_output.structured_output_request_ids)
    bitmask = grammar_output.grammar_bitmask
    if bitmask.shape[0] != logit_rows or not constrained.issuperset(batch_request_ids):
        return None
    tokens = allowed_tokens(bitmask, vocabulary)
    if len(tokens) * _RESTRICTED_SHARE > vocabulary:
        return None
    return tokens


def exact_row_subsets(model: torch.nn.Module) -> str | None:
    """None where the model's head computes each logit from its own row alone and nothing is
    applied after it; otherwise why the restriction stays off."""
    head = getattr(model, "lm_head", None)
    processor = getattr(model, "logits_processor", None)
    method = getattr(head, "quant_method", None)
    if head is None or processor is None:
        return "the model has no lm_head and logits_processor"
    if not isinstance(method, Int8TableMethod) or method.variant is None:
        return "the head is not on our int8 table kernel"
    if processor.logits_as_input or processor.soft_cap is not None or processor.scale != 1.0:
        return "the head's logits are scaled or capped"
    if getattr(head, "tp_size", 1) > 1:
        return "the head is split across ranks"
    return None


class GrammarHeadCPUModelRunner(CPUModelRunner):
    """CPUModelRunner whose steps with grammars compute the allowed tokens' logits only."""

    _restricts = False
    _deferred = False
    _restricted_once = False  # logged, so that a server's log shows the head at work

    def load_model(self, load_dummy_weights: bool = False) -> None:
        super().load_model(load_dummy_weights=load_dummy_weights)
        additional = self.vllm_config.additional_config
        if isinstance(additional, dict) and additional.get(ALL_LOGITS_KEY):
            _log.info("grammar head: off (%s)", ALL_LOGITS_KEY)
            return
        reason = exact_row_subsets(self.model)
        if reason is not None:
            _log.info("grammar head: off (%s)", reason)
            return
        self._restricts = True
        _log.info("grammar head: logits only for the tokens a step's grammar allows")

    def execute_model(
        self, scheduler_output: SchedulerOutput, intermediate_tensors: Any = None
    ) -> Any:
        self._deferred = False  # a step that never reached sampling leaves nothing owed
        if not (self._restricts and scheduler_output.has_structured_output_requests):
            return super().execute_model(scheduler_output, intermediate_tensors)
        # The step's head waits for sample_tokens, which brings the grammar's bitmask.
        self.model.compute_logits = self._defer_logits
        try:
            return super().execute_model(scheduler_output, intermediate_tensors)
        finally:
            del self.model.compute_logits

    def _defer_logits(self, hidden_states: torch.Tensor) -> torch.Tensor:
        self._deferred = True
        return hidden_states.new_empty((hidden_states.shape[0], 0))

    # vLLM decorates the method with the inference_mode class itself, which mypy reads as an
    # object, not a method: overriding it and calling it both need the ignore.
    def sample_tokens(self, grammar_output: GrammarOutput | None) -> Any:  # type: ignore[override]
        state = self.execute_model_state
        if self._deferred and state is not None:
            self._deferred = False
            with torch.inference_mode(), record_function(DEFERRED_LOGITS_SCOPE):
                logits = self._step_logits(state.sample_hidden_states, grammar_output)
            self.execute_model_state = state._replace(logits=logits)
        return super().sample_tokens(grammar_output)  # type: ignore[type-var]

    def _step_logits(
        self, hidden_states: torch.Tensor, grammar_output: GrammarOutput | None
    ) -> torch.Tensor:
        model: Any = self.model  # vLLM types it as a module; the head is Spark's
        vocabulary = model.logits_processor.org_vocab_size
        tokens = restricted_rows(
            grammar_output, self.input_batch.req_ids, hidden_states.shape[0], vocabulary
        )
        if tokens is None:
            full: torch.Tensor = model.compute_logits(hidden_states)
            return full
        if not self._restricted_once:
            self._restricted_once = True
            _log.info(
                "grammar head: first restricted step: %d of %d tokens", len(tokens), vocabulary
            )
        head = model.lm_head
        token_ids = torch.from_numpy(tokens)
        allowed: torch.Tensor = head.quant_method.apply_rows(head, hidden_states, token_ids)
        logits = allowed.new_full((hidden_states.shape[0], vocabulary), float("-inf"))
        logits.index_copy_(1, token_ids, allowed)
        return logits
