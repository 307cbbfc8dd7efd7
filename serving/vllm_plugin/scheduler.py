"""vLLM's scheduler, drafting what a request's grammar leaves no choice about.

With speculation on, every step vLLM takes the draft tokens of its proposer (prompt lookup) for
the next forward pass, which checks them all at once. A tool call under `tool_choice` has a
grammar, and much of a call is fixed by it: the call's markup, the rest of a tool's name once
its first letters tell it from the others, the argument keys of a tool with one argument. Where
the grammar forces a continuation, this scheduler drafts it (the forced text as the tokenizer
writes it) instead of the proposer's guess; elsewhere the proposer's draft stands.

A draft only proposes: the forward pass keeps each draft token the model would have chosen
itself under the grammar's mask and replaces the first it would not, so what the model writes
is unchanged; a draft in another tokenization than the model's is rejected, at the cost of the
positions it took.

The launcher selects this class with `--scheduler-cls` together with the proposer.
"""

from __future__ import annotations

from vllm.v1.core.sched.scheduler import Scheduler
from vllm.v1.outputs import DraftTokenIds

CLASS_PATH = f"{__name__}.ForcedTokenScheduler"


class ForcedTokenScheduler(Scheduler):
    def update_draft_token_ids(self, draft_token_ids: DraftTokenIds) -> None:
        drafts = [
            self._forced_tokens(request_id) or drafted
            for request_id, drafted in zip(
                draft_token_ids.req_ids, draft_token_ids.draft_token_ids, strict=True
            )
        ]
        super().update_draft_token_ids(DraftTokenIds(draft_token_ids.req_ids, drafts))

    def _forced_tokens(self, request_id: str) -> list[int]:
        """The tokens of the text the request's grammar forces next; none where it has no
        grammar, is still reasoning (unconstrained) or has a choice."""
        request = self.requests.get(request_id)
        if request is None or not request.use_structured_output:
            return []
        structured = request.structured_output_request
        if structured is None or not structured.reasoning_ended:
            return []
        matcher = getattr(structured.grammar, "matcher", None)  # xgrammar's; other backends
        if matcher is None or matcher.is_terminated():
            return []
        forced = matcher.find_jump_forward_string()
        if not forced:
            return []
        tokenizer = self.structured_output_manager.tokenizer
        tokens: list[int] = tokenizer.encode(forced, add_special_tokens=False)
        return tokens[: self.num_spec_tokens]
