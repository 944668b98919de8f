"""What the sample items say: each title template with the purpose its body states, and the
comment pools. Placeholders are filled from the item's own topic words, so a title, its body and
its comments speak of the same model, feature, component and hardware."""

from __future__ import annotations

# (title, labels, purpose)
PR_TEMPLATES = (
    (
        "[Bugfix] Fix {component} when using {feature} with {model}",
        ["bug"],
        "With {feature} enabled, {component} reused a buffer from the previous step, so {model} "
        "sometimes returned truncated outputs. The buffer is now reset before each step.",
    ),
    (
        "[Bugfix] Handle empty prompts in {component}",
        ["bug"],
        "An empty prompt made {component} index past the end of the token list and the request "
        "failed with a 500. Empty prompts are now rejected with a clear 400 error.",
    ),
    (
        "[Model] Add support for {model}",
        ["new-model"],
        "Adds the {model} architecture: weight loading, the attention layout and the chat "
        "template. Greedy outputs match the reference implementation on the first 200 prompts.",
    ),
    (
        "[Model] Fix {model} weight loading with FP8 checkpoints",
        [],
        "FP8 checkpoints of {model} store one scale per channel, but the loader expected one per "
        "tensor and failed with a shape mismatch. The loader now reads both layouts.",
    ),
    (
        "[Perf] Speed up {component} for {feature}",
        ["performance"],
        "In {component}, the same metadata was recomputed for every request when {feature} was "
        "on; it is now cached per batch, which takes a host-side loop off the hot path.",
    ),
    (
        "[Kernel] Add {kernel} kernel tuned for {nvhw}",
        ["performance"],
        "Adds a {kernel} kernel with tile sizes tuned for {nvhw}. The previous kernel stays the "
        "fallback on other GPUs.",
    ),
    (
        "[CI] Split slow {feature} tests into a separate job",
        ["ci/build"],
        "The {feature} tests take about 25 minutes and often push the main job over its time "
        "limit. They now run in their own job.",
    ),
    (
        "[CI/Build] Bump torch to 2.10 and refresh requirements",
        ["ci/build"],
        "Moves the build to torch 2.10 and updates the pinned requirements to match; apart from "
        "one deprecated import, no code had to change.",
    ),
    (
        "[Doc] Document {feature} configuration options",
        ["documentation"],
        "Users keep asking how to configure {feature}. This adds a page listing every option, "
        "its default and an example command.",
    ),
    (
        "[V1] Support {feature} in the V1 engine",
        ["v1"],
        "Ports {feature} to the V1 engine: the scheduler now accounts for it when it plans a "
        "batch, and the V1 tests run with it enabled.",
    ),
    (
        "[Core] Refactor {component} to reduce host overhead",
        [],
        "Splits {component} so that its bookkeeping runs once per batch instead of once per "
        "request. Behaviour is unchanged and the existing tests pass as they are.",
    ),
    (
        "[Frontend] Add tool calling parser for {model}",
        ["frontend"],
        "{model} writes tool calls in its own tag format, which the generic parser could not "
        "read. This adds a dedicated parser, selected with --tool-call-parser.",
    ),
    (
        "[Misc] Clean up unused imports in {component}",
        [],
        "Removes imports from {component} that nothing uses since the V0 code was deleted. No "
        "functional change.",
    ),
    (
        "[Spec Decode] Improve acceptance rate of EAGLE for {model}",
        ["speculative-decoding"],
        "The EAGLE draft head for {model} was fed hidden states from the wrong layer. Using the "
        "last layer raises the acceptance rate.",
    ),
    (
        "[Quantization] Add INT4 weight-only support for {model}",
        ["quantization"],
        "Adds INT4 weight-only quantization for {model} on the Marlin kernels; the weights take "
        "about a quarter of their BF16 memory.",
    ),
    (
        "[KV Connector] Fix NIXL handshake timeout in P/D disaggregation",
        ["kv-connector"],
        "With many prefill workers the NIXL handshake can take longer than the fixed 120 s "
        "timeout, and decode workers gave up. The timeout is now configurable and retried.",
    ),
    (
        "[TPU] Enable {feature} on TPU v6e",
        ["tpu"],
        "This turns on {feature} for TPU v6e: the missing XLA path is added and the TPU tests "
        "run with it.",
    ),
    (
        "[CPU] Fix {feature} on Arm CPUs",
        ["cpu"],
        "On Arm CPUs, {feature} failed because a vectorised helper assumed AVX-512. The helper "
        "now has a NEON path.",
    ),
)
AMD_PR_TEMPLATES = (
    (
        "[ROCm] Enable {feature} on {amdhw}",
        ["rocm"],
        "This enables {feature} on {amdhw}. It was blocked by a missing HIP kernel, which is now "
        "built for gfx942 and gfx950.",
    ),
    (
        "[Hardware][AMD] Add {kernel} kernel for {amdhw}",
        ["rocm"],
        "Adds a {kernel} kernel for {amdhw} written in HIP, replacing the generic Triton path on "
        "ROCm.",
    ),
    (
        "[AITER] Use AITER {kernel} for {model} on {amdhw}",
        ["rocm", "performance"],
        "Routes the {kernel} of {model} through AITER on {amdhw} when VLLM_ROCM_USE_AITER=1; "
        "other models keep the current path.",
    ),
    (
        "[ROCm][Perf] Tune fused MoE configs for {model} on {amdhw}",
        ["rocm", "performance"],
        "Adds fused MoE configs for {model} on {amdhw}, tuned with benchmark_moe for batch sizes "
        "from 1 to 512.",
    ),
    (
        "[ROCm][Bugfix] Fix HIP graph capture with {feature}",
        ["rocm", "bug"],
        "HIP graph capture failed with {feature} on, because a host sync ran inside the captured "
        "region. The sync now happens before capture.",
    ),
    (
        "[ROCm][Quantization] Support Quark FP8 checkpoints on gfx950",
        ["rocm", "quantization"],
        "Loads FP8 checkpoints produced by AMD Quark on gfx950 (MI355X), with their per-tensor "
        "scales.",
    ),
)
MOTIVATIONS = (
    "This would make large deployments cheaper to run.",
    "Several users asked for it in the forum last month.",
    "Without it we have to run a patched fork in production.",
    "Other serving engines already support this combination.",
    "It would let us drop a workaround in our deployment scripts.",
)

COMMENT_GENERIC = (
    "Thanks for the report. Can you share the full command line for {model} and collect_env?",
    "I can reproduce this on {hw} with {model}.",
    "Same issue here with {model} on {hw}; it started after upgrading to the latest nightly.",
    "This looks related to the recent change in {component}.",
    "Could you try {model} again with `--enforce-eager` to rule out CUDA graphs?",
    "On {hw} it works for me with `--max-model-len 32768`, so it may be a memory issue.",
    "Any update on this? We are hitting it in production with {model} as well.",
    "I think this is expected: {feature} is not supported together with LoRA yet.",
    "@{login} could you take a look? You touched {component} recently.",
    "Does it still happen with {feature} turned off?",
    "Which version do you run {model} on? I recall a change to {component} in the last release.",
    "On {hw} it only happens above batch size 64 for me.",
)
COMMENT_REVIEW = (
    "LGTM",
    "LGTM, thanks for the fix!",
    "Can you share benchmark numbers on {hw}?",
    "I'm not sure we should add another environment variable for {feature}.",
    "Could you add a unit test that covers {feature}?",
    "Please run the pre-commit hooks; the formatting check fails on {component}.",
    "Is this also needed for the ROCm backend of {component}?",
    "nit: this helper could live next to the other utilities in {component}.",
    "Does this also work for {model}? Its attention layout is different.",
    "The change to {component} looks right to me; one question about the test below.",
)
COMMENT_AUTHOR = (
    "Thanks for the review! I addressed the comments on {component}.",
    "Benchmarks on {hw}: {bench}.",
    "Good point, I moved the check into {component}.",
    "Rebased on main; the failing test is an unrelated flaky {feature} test.",
    "I ran the full test suite locally on {hw} and it passes.",
    "Added a test with {feature} enabled for {model}.",
)
COMMENT_REPORTER = (
    "I tried again on the latest nightly with {model} and it still happens.",
    "Turning off {feature} avoids it for now, but we need it in production.",
    "I am on {hw} with 8 GPUs; the collect_env output is in the description.",
    "It also happens with a smaller model, so it does not look specific to {model}.",
    "Thanks, I will try that and report back.",
)
# A reply on an issue that disputes the diagnosis (COMMENT_DISAGREE is about a PR's approach).
ISSUE_DISAGREE = (
    "I don't think this is {component}: it also happens with {feature} turned off.",
    "I can't reproduce this on {hw} with {model}; are you sure the nightly is current?",
    "I disagree that this is a regression; {model} never supported {feature} on {hw}.",
    "This is not a memory issue: it fails with the same error at a tiny batch size.",
)
COMMENT_DISAGREE = (
    "I'm not sure we should change the default here; it affects every user of {feature}.",
    "I disagree: the extra copy costs more than it saves on {hw}.",
    "This will conflict with the upcoming refactor of {component}, can we wait for it to land?",
    "Can you share benchmark numbers? I don't see why this would be faster on {hw}.",
    "I measured the opposite on {hw}: {bench}.",
    "We discussed this in the last sync and agreed to keep the current API of {component}.",
    "I'd rather keep the old behaviour of {component} behind a flag until the next release.",
    "I'd rather not add a flag for {feature}; why not make this the default instead?",
    "I don't think caching this in {component} is safe: {feature} can change the batch.",
    "Before merging, can we check {model} on {hw}? The last change to {component} broke it.",
)
