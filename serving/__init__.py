"""Serving: hardware probe, weight-path choice, quantizers, the vLLM launcher and its plugins."""
