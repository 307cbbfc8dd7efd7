"""Spark2_5 as a trainable, batched PyTorch module.

The maths is `serving.reference_forward`'s (a test holds the two together on the same weights);
this one takes a batch of right-padded sequences, runs attention through
`scaled_dot_product_attention` (a causal mask on full layers, a band of `sliding_window` keys,
the current one included, on sliding layers) and keeps the residual stream in float32 while
the matrix products may run under bf16 autocast. Parameter names are the checkpoint's tensor
names, so `state_dict()` is a checkpoint and a checkpoint loads with `load_state_dict`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from serving.checkpoint import SparkConfig, tensor_shapes


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.float()
        return self.weight.float() * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class RotaryTable:
    """cos/sin of one layer type's RoPE: NeoX halves within the first `rot` dims of a head."""

    def __init__(self, theta: float, rot: int) -> None:
        self.theta, self.rot = theta, rot

    def angles(self, length: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        exponents = torch.arange(0, self.rot, 2, dtype=torch.float64, device=device) / self.rot
        inv_freq = 1.0 / self.theta**exponents
        positions = torch.arange(length, dtype=torch.float64, device=device)
        angles = torch.outer(positions, inv_freq)
        angles = torch.cat([angles, angles], -1)
        # [T, 1, rot]: broadcast over the heads of [B, T, H, D]
        return angles.cos().float()[:, None, :], angles.sin().float()[:, None, :]

    def apply(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        rotated, passed = x[..., : self.rot].float(), x[..., self.rot :]
        first, second = rotated[..., : self.rot // 2], rotated[..., self.rot // 2 :]
        turned = torch.cat([-second, first], -1)
        return torch.cat([(rotated * cos + turned * sin).to(x.dtype), passed], -1)


class Attention(nn.Module):
    def __init__(self, config: SparkConfig) -> None:
        super().__init__()
        self.heads, self.kv_heads = config.num_attention_heads, config.num_key_value_heads
        self.head_dim = config.head_dim
        hidden = config.hidden_size
        fused = (self.heads + 2 * self.kv_heads) * self.head_dim
        self.q_k_v_proj = nn.Linear(hidden, fused, bias=False)
        self.g_proj = nn.Linear(hidden, self.heads, bias=False)
        self.out_proj = nn.Linear(self.heads * self.head_dim, hidden, bias=False)

    def project(
        self, x: torch.Tensor, rope: RotaryTable, cos: torch.Tensor, sin: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """q, k, v as [B, heads, T, head_dim], RoPE applied, key/value heads repeated."""
        batch, length, _ = x.shape
        kv_size = self.kv_heads * self.head_dim
        q, k, v = self.q_k_v_proj(x).split([self.heads * self.head_dim, kv_size, kv_size], -1)
        q = rope.apply(q.view(batch, length, self.heads, self.head_dim), cos, sin)
        k = rope.apply(k.view(batch, length, self.kv_heads, self.head_dim), cos, sin)
        v = v.view(batch, length, self.kv_heads, self.head_dim)
        group = self.heads // self.kv_heads
        # Explicit repeats rather than enable_gqa: the fused kernels that take a mask want them.
        k, v = k.repeat_interleave(group, 2), v.repeat_interleave(group, 2)
        return q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)

    def output(self, x: torch.Tensor, attended: torch.Tensor) -> torch.Tensor:
        """The head-wise sigmoid gate (from the normed input), then out_proj."""
        batch, length, _ = x.shape
        gate = torch.sigmoid(self.g_proj(x).float()).to(attended.dtype)
        attended = attended.transpose(1, 2) * gate[..., None]
        return self.out_proj(attended.reshape(batch, length, self.heads * self.head_dim))


def attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, visible: torch.Tensor | None
) -> torch.Tensor:
    """Fused attention; `visible` [Tq, Tk] (True: may attend), None for a plain causal mask."""
    if visible is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=visible)


class MLP(nn.Module):
    def __init__(self, config: SparkConfig) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.gelu(self.gate_proj(y), approximate="none") * self.up_proj(y))


class DecoderLayer(nn.Module):
    def __init__(self, config: SparkConfig, layer_type: str) -> None:
        super().__init__()
        self.layer_type = layer_type
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = MLP(config)


class Body(nn.Module):
    def __init__(self, config: SparkConfig) -> None:
        super().__init__()
        self.embedding = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config, kind) for kind in config.layer_types)
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)


class SparkForTraining(nn.Module):
    """Spark2_5ForCausalLM's forward pass over a batch, for training (no KV cache)."""

    def __init__(self, config: SparkConfig) -> None:
        super().__init__()
        if not config.tie_word_embeddings:
            raise ValueError("only the tied output head of Spark2_5 is implemented")
        self.config = config
        self.model = Body(config)
        self.ropes = {
            kind: RotaryTable(
                params.rope_theta, int(config.head_dim * params.partial_rotary_factor)
            )
            for kind, params in config.rope_parameters.items()
        }

    def initialize(self, generator: torch.Generator) -> None:
        """Small normal weights (std `initializer_range`), norms at one: with a tied head,
        larger embeddings make the first losses far above ln(vocab)."""
        std = self.config.initializer_range
        with torch.no_grad():
            for name, parameter in self.named_parameters():
                if name.endswith("norm.weight"):
                    parameter.fill_(1.0)
                else:
                    parameter.copy_(torch.randn(parameter.shape, generator=generator) * std)

    def hidden_states(
        self, input_ids: torch.Tensor, prefix_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Final-norm hidden states [B, T, hidden] (float32) of right-padded sequences.

        `prefix_ids` [P] are tokens every sequence of the batch starts with (a shared system
        prompt): they are computed once, and `input_ids` continue after them at position P.
        """
        batch, length = input_ids.shape
        prefix = 0 if prefix_ids is None else prefix_ids.shape[0]
        device = input_ids.device
        tables = {kind: rope.angles(prefix + length, device) for kind, rope in self.ropes.items()}
        positions = torch.arange(prefix + length, device=device)
        distance = positions[:, None] - positions[None, :]
        window = distance < self.config.sliding_window
        # [P + T, P + T]: who may see whom, per layer type; None where SDPA's causal flag does
        visible: dict[str, torch.Tensor | None] = {
            "sliding_attention": (distance >= 0) & window,
            "full_attention": distance >= 0 if prefix else None,
        }
        h = self.model.embedding(input_ids).float()
        shared = None if prefix_ids is None else self.model.embedding(prefix_ids)[None].float()
        for layer in self.model.layers:
            assert isinstance(layer, DecoderLayer)
            attention, rope = layer.self_attn, self.ropes[layer.layer_type]
            cos, sin = tables[layer.layer_type]
            mask = visible[layer.layer_type]
            x = layer.input_layernorm(h)
            q, k, v = attention.project(x, rope, cos[prefix:], sin[prefix:])
            if shared is not None and mask is not None:
                shared_x = layer.input_layernorm(shared)
                sq, sk, sv = attention.project(shared_x, rope, cos[:prefix], sin[:prefix])
                shared_out = attend(sq, sk, sv, mask[:prefix, :prefix])
                shared = shared + attention.output(shared_x, shared_out)
                shared = shared + layer.mlp(layer.post_attention_layernorm(shared))
                # no query of `input_ids` sees a sliding layer's prefix keys beyond its window
                first = (
                    max(0, prefix - self.config.sliding_window + 1)
                    if layer.layer_type == "sliding_attention"
                    else 0
                )
                k = torch.cat([sk[:, :, first:].expand(batch, -1, -1, -1), k], 2)
                v = torch.cat([sv[:, :, first:].expand(batch, -1, -1, -1), v], 2)
                mask = mask[prefix:, first:]
            h = h + attention.output(x, attend(q, k, v, mask))
            h = h + layer.mlp(layer.post_attention_layernorm(h))
        return self.model.norm(h)

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return hidden.to(self.model.embedding.weight.dtype) @ self.model.embedding.weight.T

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.logits(self.hidden_states(input_ids))

    def target_loss(
        self,
        input_ids: torch.Tensor,
        targets: torch.Tensor,
        prefix_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Mean cross-entropy of the tokens marked in `targets` [B, T] (bool), each predicted
        from the positions before it (the first token of `input_ids` is never a target); the
        head runs only where a prediction is scored."""
        return self.target_losses(input_ids, [targets], prefix_ids)[0]

    def target_losses(
        self,
        input_ids: torch.Tensor,
        target_sets: Sequence[torch.Tensor],
        prefix_ids: torch.Tensor | None = None,
    ) -> list[torch.Tensor]:
        """`target_loss` for each set of marked tokens, from one forward pass."""
        hidden = self.hidden_states(input_ids, prefix_ids)[:, :-1]
        following = input_ids[:, 1:]
        losses = []
        for targets in target_sets:
            scored = targets[:, 1:]
            predicted = self.logits(hidden[scored])
            losses.append(F.cross_entropy(predicted.float(), following[scored]))
        return losses

    def checkpoint_tensors(self, dtype: torch.dtype = torch.bfloat16) -> dict[str, torch.Tensor]:
        """The weights under the checkpoint's names, in its file order."""
        state = self.state_dict()
        return {
            name: state[name].detach().to("cpu", dtype).contiguous()
            for name, _ in tensor_shapes(self.config)
        }


def parameter_count(config: SparkConfig) -> int:
    return sum(math.prod(shape) for _, shape in tensor_shapes(config))


def load_checkpoint(model_dir: Path) -> SparkForTraining:
    """A checkpoint directory (one safetensors file or several) as a float32 module."""
    from safetensors.torch import load_file

    module = SparkForTraining(SparkConfig.load(model_dir))
    weights: dict[str, torch.Tensor] = {}
    for path in sorted(model_dir.glob("*.safetensors")):
        weights.update(load_file(str(path)))
    module.load_state_dict({name: tensor.float() for name, tensor in weights.items()})
    return module
