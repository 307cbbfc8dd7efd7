"""A plain PyTorch forward pass of Spark2_5, written from the architecture description alone.

It is slow and uncached on purpose: it exists to check engines (vLLM, quantized builds) against
an independent statement of the maths. One layer:

    x = rmsnorm_in(h)                      w * x / sqrt(mean(x^2) + eps), weight used as is
    q, k, v = split(x @ Wqkv^T)            fused rows: q heads, then k heads, then v heads
    q, k = rope(q, k)                      NeoX halves within the first `rot` dims of each head;
                                           sliding: theta 1e4, all dims; full: 5e6, a quarter
    a = softmax(q k^T / sqrt(head_dim) + mask) v
                                           GQA; sliding layers see keys with i - j < window
    a = a * sigmoid(x @ Wg^T)[head]        one gate per query head, from the normed input
    h = h + out_proj(a)
    h = h + down(gelu_erf(gate(y)) * up(y)),  y = rmsnorm_post(h)

then a final RMSNorm and the tied embedding as the output head.

`linear_input`, when given, sees the input of every linear layer first (q_k_v, out_proj, gate,
up, down), and of the head unless `head_input` is given for it: a test can make it round
activations the way an engine's kernels do, to learn what that rounding alone costs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch

from serving.checkpoint import SparkConfig


def _rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def _rope(x: torch.Tensor, positions: torch.Tensor, theta: float, rot: int) -> torch.Tensor:
    """Rotate the first `rot` dims of each head of x [T, H, D] (NeoX: two halves)."""
    inv_freq = 1.0 / theta ** (torch.arange(0, rot, 2, dtype=torch.float64) / rot)
    angles = torch.outer(positions.to(torch.float64), inv_freq)
    cos = torch.cat([angles.cos(), angles.cos()], -1).to(x.dtype)[:, None, :]
    sin = torch.cat([angles.sin(), angles.sin()], -1).to(x.dtype)[:, None, :]
    rotated, passed = x[..., :rot], x[..., rot:]
    first, second = rotated[..., : rot // 2], rotated[..., rot // 2 :]
    turned = torch.cat([-second, first], -1)
    return torch.cat([rotated * cos + turned * sin, passed], -1)


def spark_logits(
    config: SparkConfig,
    weights: Mapping[str, torch.Tensor],
    token_ids: list[int],
    linear_input: Callable[[torch.Tensor], torch.Tensor] = lambda x: x,
    head_input: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> torch.Tensor:
    """Logits [T, vocab] in float32 for one sequence starting at position 0."""
    w = {name: tensor.to(torch.float32) for name, tensor in weights.items()}
    f = linear_input
    heads, kv_heads, head_dim = (
        config.num_attention_heads,
        config.num_key_value_heads,
        config.head_dim,
    )
    length = len(token_ids)
    positions = torch.arange(length)
    distance = positions[:, None] - positions[None, :]
    h = w["model.embedding.weight"][torch.tensor(token_ids)]
    for i, layer_type in enumerate(config.layer_types):
        p = f"model.layers.{i}."
        x = _rms_norm(h, w[p + "input_layernorm.weight"], config.rms_norm_eps)
        qkv = f(x) @ w[p + "self_attn.q_k_v_proj.weight"].T
        q, k, v = qkv.split([heads * head_dim, kv_heads * head_dim, kv_heads * head_dim], -1)
        rope = config.rope_parameters[layer_type]
        rot = int(head_dim * rope.partial_rotary_factor)
        q = _rope(q.view(length, heads, head_dim), positions, rope.rope_theta, rot)
        k = _rope(k.view(length, kv_heads, head_dim), positions, rope.rope_theta, rot)
        v = v.view(length, kv_heads, head_dim)
        group = heads // kv_heads
        k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
        scores = torch.einsum("thd,shd->hts", q, k) / head_dim**0.5
        visible = distance >= 0
        if layer_type == "sliding_attention":
            visible &= distance < config.sliding_window
        scores = scores.masked_fill(~visible, float("-inf"))
        attn = torch.einsum("hts,shd->thd", scores.softmax(-1), v)
        gate = torch.sigmoid(x @ w[p + "self_attn.g_proj.weight"].T)
        attn = (attn * gate[:, :, None]).reshape(length, heads * head_dim)
        h = h + f(attn) @ w[p + "self_attn.out_proj.weight"].T
        y = _rms_norm(h, w[p + "post_attention_layernorm.weight"], config.rms_norm_eps)
        activated = torch.nn.functional.gelu(f(y) @ w[p + "mlp.gate_proj.weight"].T)
        h = (
            h
            + f(activated * (f(y) @ w[p + "mlp.up_proj.weight"].T))
            @ w[p + "mlp.down_proj.weight"].T
        )
    h = _rms_norm(h, w["model.norm.weight"], config.rms_norm_eps)
    head = w["model.embedding.weight" if config.tie_word_embeddings else "lm_head.weight"]
    return (head_input or f)(h) @ head.T
