"""Vocabulary and text templates for the sample dataset (vLLM-style conventions)."""

from __future__ import annotations

import re
from random import Random

from devdigest.sample._stories import MOTIVATIONS

MODELS = (
    "Qwen3.5-397B-A17B",
    "Qwen3-Next-80B",
    "DeepSeek-V3",
    "DeepSeek-R1",
    "Llama 4 Maverick",
    "Llama 4 Scout",
    "GLM-5",
    "Gemma 3",
    "Mistral Large 3",
    "Mixtral 8x22B",
    "Kimi-K2",
    "gpt-oss-120b",
)
NV_HW = ("H100", "H200", "B200", "GB200", "A100", "L40S")
AMD_HW = ("MI300X", "MI325X", "MI355X")
OTHER_HW = ("TPU v6e", "CPU (x86)", "Gaudi 3", "Arm CPU")
FEATURES = (
    "speculative decoding",
    "prefix caching",
    "KV transfer",
    "P/D disaggregation",
    "LoRA",
    "structured output",
    "FP8 quantization",
    "INT4 quantization",
    "CUDA graphs",
    "torch.compile",
    "MoE expert parallelism",
    "sequence parallelism",
    "chunked prefill",
    "multi-modal inputs",
    "tool calling",
)
FEATURE_LABEL = {
    "speculative decoding": "speculative-decoding",
    "structured output": "structured-output",
    "multi-modal inputs": "multi-modality",
    "tool calling": "frontend",
    "FP8 quantization": "quantization",
    "INT4 quantization": "quantization",
}
COMPONENTS = (
    "the scheduler",
    "the KV cache manager",
    "the sampler",
    "the block allocator",
    "the fused MoE layer",
    "the attention backend",
    "the OpenAI-compatible server",
    "the model runner",
    "the tokenizer wrapper",
    "the distributed executor",
    "the EAGLE proposer",
    "the NIXL connector",
)
KERNELS = ("paged attention", "fused MoE", "RMSNorm", "rotary embedding", "FP8 GEMM", "MLA decode")
AMD_KEYWORDS = ("ROCm 7.0", "gfx942", "gfx950", "HIP graphs", "AITER", "Quark", "hipBLASLt")
PATHS = (
    "vllm/v1/core/sched/scheduler.py",
    "vllm/v1/worker/gpu_model_runner.py",
    "vllm/model_executor/layers/fused_moe/layer.py",
    "vllm/attention/backends/rocm_flash_attn.py",
    "vllm/v1/attention/backends/mla/common.py",
    "vllm/entrypoints/openai/serving_chat.py",
    "vllm/v1/spec_decode/eagle.py",
    "vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py",
    "vllm/model_executor/layers/quantization/fp8.py",
    "vllm/model_executor/models/qwen3_next.py",
    "csrc/rocm/attention.cu",
    "tests/v1/core/test_scheduler.py",
    "docs/features/spec_decode.md",
    ".buildkite/test-pipeline.yaml",
    "docker/Dockerfile.rocm",
)
SEVERITY = (
    "crashes",
    "hangs",
    "runs out of memory (OOM)",
    "produces wrong output",
    "regression: 30% lower throughput",
    "segfault",
    "illegal memory access",
)
# How a bug body words each symptom ("the server …").
SYMPTOM = {
    "regression: 30% lower throughput": "shows a regression: throughput is 30% lower",
    "segfault": "dies with a segfault",
    "illegal memory access": "hits an illegal memory access",
}
MILD = ("prints a confusing warning", "logs too much", "is slow to start", "reports odd metrics")

ISSUE_TEMPLATES = (
    ("[Bug]: {model} {severity} on {nvhw} with {feature}", ["bug"]),
    ("[Bug]: {model} {mild} when {feature} is enabled", ["bug"]),
    ("[Feature]: Support {feature} for {model}", ["feature request"]),
    ("[RFC]: Rework {component} for {feature}", ["RFC"]),
    ("[Usage]: How to run {model} with {feature} on {nvhw}?", ["usage"]),
    ("[Performance]: {model} throughput lower than expected on {nvhw}", ["performance"]),
    ("[Doc]: Missing documentation for {feature}", ["documentation"]),
    ("[Installation]: Build fails for {otherhw} with torch 2.10", ["installation"]),
)
AMD_ISSUE_TEMPLATES = (
    ("[Bug]: {model} {severity} on {amdhw} (ROCm 7.0)", ["bug", "rocm"]),
    ("[Bug]: AITER MLA kernel {severity} on {amdhw} with {feature}", ["bug", "rocm"]),
    ("[Feature]: Support {feature} on {amdhw}", ["feature request", "rocm"]),
    ("[Usage]: Running {model} on {amdhw} with Quark FP8", ["usage", "rocm"]),
)

BENCH = (
    "throughput +{pct}% on {hw} ({model}, 1k in / 1k out)",
    "TTFT -{pct}% and TPOT -{pct2}% at 64 concurrent requests",
    "{x}x speedup on the decode path for {model}",
    "no measurable change in throughput (+0.{pct2}%)",
)
ENV_BLOCK = (
    "```text\nCollecting environment information...\nPyTorch version: 2.9.0+cu128\n"
    "vLLM Version: 0.11.2\nGPU: 8x {hw}\nOS: Ubuntu 22.04.5 LTS (x86_64)\n```"
)
# The log line a bug report pastes for its symptom (none for symptoms without one).
SYMPTOM_LOG = {
    "crashes": "RuntimeError: CUDA error: device-side assert triggered",
    "runs out of memory (OOM)": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
    "2.50 GiB",
    "segfault": "Segmentation fault (core dumped)",
    "illegal memory access": "RuntimeError: CUDA error: an illegal memory access was encountered",
    "hangs": "TimeoutError: no output from the engine core for 600 s",
}
LOGS = (
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB",
    "HIP error: invalid device function (hipErrorInvalidDeviceFunction)",
    "AssertionError: num_kv_heads must be divisible by tensor_parallel_size",
    "ValueError: The decoder prompt (length 131073) is longer than the maximum model length",
    "Segmentation fault (core dumped)",
    "TimeoutError: NIXL handshake did not complete within 120 s",
)

REVIEW_INLINE = (
    "Can we avoid the extra allocation here?",
    "This branch is never taken when {feature} is disabled.",
    "nit: typo in the comment.",
    "Should this be guarded by `current_platform.is_rocm()`?",
    "Why is this cast needed?",
    "Please add a docstring.",
    "This can overflow for long prompts.",
    "Done.",
    "Good catch, fixed.",
)
REVIEW_BODIES = {
    "APPROVED": ("LGTM", "LGTM, thanks!", "Looks good to me.", ""),
    "CHANGES_REQUESTED": (
        "Please add tests before we merge this.",
        "This breaks the ROCm build; see the inline comments.",
    ),
    "COMMENTED": ("", "A few comments.", "Left some nits."),
    "DISMISSED": ("",),
}
BOT_WELCOME = (
    "👋 Hi! Thank you for contributing to the vLLM project.\n\n"
    "💬 Join our developer Slack to discuss your PR in #pr-reviews.\n\n"
    "Just a reminder: PRs would not trigger full CI run by default. Instead, it would only run "
    "`fastcheck` CI which starts running only a small and essential subset of CI tests.\n\n"
    "🚀"
)
BOT_REBASE = (
    "This pull request has merge conflicts that must be resolved before it can be merged. "
    "Please rebase the PR, @{login}."
)
BOT_STALE = (
    "This issue has been automatically marked as stale because it has not had any activity "
    "within 90 days. It will be automatically closed if no further activity occurs within 30 days."
)
BOT_DOSU = (
    "Hi @{login}! I'm Dosu and I'm helping the vLLM team. This looks similar to an existing "
    "issue about {feature}; the suggested workaround there is to disable {feature}."
)

MAINTAINERS = (
    "kwsong-dev",
    "lmsys-tanaka",
    "ruiqi-ml",
    "hbaker",
    "zhenyu-w",
    "aparikh-ai",
    "jdoe-infer",
    "mkowalski",
    "wenhao-c",
    "samir-q",
    "yliu-kernels",
    "tgarcia",
    "nnakamura",
    "fpereira",
    "chen-rocm",
    "ilyasv",
    "amehta",
    "okafor-e",
)
_SYL = (
    "al",
    "ben",
    "chi",
    "dan",
    "el",
    "fu",
    "gao",
    "han",
    "ivo",
    "jun",
    "kai",
    "lee",
    "min",
    "nor",
    "oli",
    "pei",
    "qin",
    "ray",
    "sun",
    "tom",
    "uma",
    "vik",
    "wei",
    "xu",
    "yan",
    "zoe",
)
_SUFFIX = ("", "-dev", "-ml", "99", "x", "-ai", "_gpu", "123", "-hpc", "-oss")


def make_logins(rng: Random, count: int, prefix: str = "") -> list[str]:
    """Plausible, fictional GitHub logins."""
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < count:
        login = prefix + rng.choice(_SYL) + rng.choice(_SYL) + rng.choice(_SUFFIX)
        if login not in seen:
            seen.add(login)
            out.append(login)
    return out


class _Lazy(dict):
    def __init__(self, rng: Random, extra: dict[str, str]) -> None:
        super().__init__(extra)
        self.rng = rng

    def __missing__(self, key: str) -> str:
        if key == "bench":
            value = bench(self.rng, self["hw"], self["model"])
        else:
            value = self.rng.choice(_POOLS[key])
        self[key] = value
        return value


_POOLS = {
    "model": MODELS,
    "nvhw": NV_HW,
    "amdhw": AMD_HW,
    "otherhw": OTHER_HW,
    "hw": NV_HW + AMD_HW,
    "feature": FEATURES,
    "component": COMPONENTS,
    "kernel": KERNELS,
    "severity": SEVERITY,
    "mild": MILD,
    "login": ("maintainer",),
}


def fill(rng: Random, template: str, **extra: str) -> str:
    """Fill a template with random topic words (only the placeholders it uses are drawn)."""
    return template.format_map(_Lazy(rng, extra))


def topic_title(rng: Random, template: str) -> tuple[str, _Lazy]:
    """A title and its topic words, so the body can speak of the same model, feature, hardware."""
    topic = _Lazy(rng, {})
    title = template.format_map(topic)
    hw = topic.get("amdhw") or topic.get("nvhw")
    if hw:
        topic["hw"] = hw
    return title, topic


def _subject(title: str) -> str:
    """The title without its leading ``[Tag]`` prefixes, e.g. ``Speed up the sampler``."""
    return re.sub(r"^(\[[^\]]*\]\s*:?\s*)+", "", title).rstrip("?")


def bench(rng: Random, hw: str, model: str) -> str:
    return rng.choice(BENCH).format(
        pct=f"{rng.randint(2, 25)}.{rng.randint(0, 9)}",
        pct2=rng.randint(3, 20),
        x=f"{rng.randint(1, 2)}.{rng.randint(1, 9)}",
        hw=hw,
        model=model,
    )


def pr_body(rng: Random, purpose: str, fixes: int | None, amd: bool, topic: _Lazy) -> str:
    hw = topic.get("hw") or rng.choice(AMD_HW if amd else NV_HW)
    topic["hw"] = hw
    model = topic["model"]
    parts = ["## Purpose", template_for(topic, purpose)]
    if amd and rng.random() < 0.5:
        parts.append(f"Tested with {rng.choice(AMD_KEYWORDS)} on {hw}; the CUDA path is unchanged.")
    if fixes:
        parts.append(f"Fixes #{fixes}")
    parts += ["", "## Test Plan", f"pytest tests/v1 -k {model.split()[0].lower()} on {hw}"]
    if rng.random() < 0.45:
        parts += ["", "## Test Result", f"Benchmark: {bench(rng, hw, model)}."]
    if rng.random() < 0.2:
        parts += [
            "",
            "```bash",
            f"vllm serve {model} --tensor-parallel-size 8 --max-num-seqs 256",
            "```",
        ]
    return "\n".join(parts)


def template_for(topic: _Lazy, template: str) -> str:
    """Fill ``template`` from the item's own topic words (drawing only what is missing)."""
    return template.format_map(topic)


def issue_body(rng: Random, title: str, bug: bool, amd: bool, topic: _Lazy) -> str:
    hw = topic.get("hw") or rng.choice(AMD_HW if amd else NV_HW)
    topic["hw"] = hw
    parts = ["### Your current environment", ENV_BLOCK.format(hw=hw), ""]
    if bug:
        symptom = topic.get("severity") or topic.get("mild") or topic["severity"]
        parts.append("### 🐛 Describe the bug")
        parts.append(
            template_for(topic, "When serving {model} with {feature} enabled on {hw}, the server ")
            + f"{SYMPTOM.get(symptom, symptom)}."
        )
        log = SYMPTOM_LOG.get(symptom)
        if log and rng.random() < 0.7:
            parts += ["```text", log.format(hw=hw), "```"]
        parts.append(template_for(topic, "It started after the latest change to {component}."))
    else:
        parts.append("### 🚀 The feature, motivation and pitch")
        parts.append(f"{_subject(title)}.")
        parts.append(template_for(topic, "We would like to use {feature} with {model} on {hw}."))
        parts.append(rng.choice(MOTIVATIONS))
    return "\n".join(parts)
