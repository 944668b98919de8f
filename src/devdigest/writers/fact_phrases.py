"""Sentence templates for readings written from facts (key changes, watch list), per language.

Several templates share one purpose ("lead_purpose_1", "lead_purpose_2"): a section takes them
in turn, so entries with the same kind of facts do not all read alike.
"""

from __future__ import annotations

METRICS = {
    "zh": {
        "throughput": "吞吐量",
        "TTFT": "首 token 延迟",
        "TPOT": "每个输出 token 的时延",
        "ITL": "token 间延迟",
        "latency": "延迟",
        "speedup": "速度",
        "memory": "显存占用",
        "accuracy": "准确率",
        "acceptance rate": "接受率",
        "step time": "单步耗时",
        "bandwidth": "带宽",
        "TFLOPS": "算力（TFLOPS）",
    },
    "en": {"speedup": "speed", "step time": "step time"},
}

SYMPTOMS = {
    "zh": {
        "crash": "崩溃",
        "hang": "卡死",
        "oom": "显存不足（OOM）",
        "wrong_output": "输出错误",
        "accuracy_drop": "精度下降",
        "perf_regression": "性能回退",
        "security": "安全问题",
        "build_failure": "构建失败",
    },
    "en": {
        "crash": "crashes",
        "hang": "hangs",
        "oom": "out-of-memory errors",
        "wrong_output": "wrong output",
        "accuracy_drop": "an accuracy drop",
        "perf_regression": "a performance regression",
        "security": "a security problem",
        "build_failure": "a build failure",
    },
}

ZH: dict[str, str] = {
    "up": "提升",
    "down": "降低",
    "fig_pct": "{metric}{dir}{value}",
    "fig_pct_plain": "{metric}变化{value}",
    "fig_mult": "{metric}{dir}到原来的{value}",
    "fig_speedup": "提速{value}",
    "fig_base": "{metric}从{baseline}变为{value}{unit}",
    "fig_context": "{figure}（{context}）",
    "about": "约 ",
    "brief": "#{number}（{title}）",
    "brief_figure": "#{number}（{title}；{figure}）",
    # key changes: what changed
    "lead_purpose_1": "改动位于{component}。PR 的说明：“{sentence}”",
    "lead_purpose_2": "这是{component}方面的改动，作者写道：“{sentence}”",
    "lead_plain_1": "PR 的说明：“{sentence}”",
    "lead_plain_2": "据作者描述：“{sentence}”",
    "lead_named": "正文没有可摘录的说明，提到了{names}。",
    "lead_title_only": "PR 正文为空，只有标题。",
    # key changes: what it affects
    "impact_fig_who_1": "PR 涉及{who}，自测结果：{figures}。",
    "impact_fig_who_2": "涉及的模型与硬件：{who}；PR 实测{figures}。",
    "impact_fig_1": "PR 给出的测量结果：{figures}。",
    "impact_fig_2": "按 PR 自测，{figures}。",
    "impact_who_1": "PR 涉及{who}。",
    "impact_who_2": "PR 中提到的模型与硬件：{who}。",
    "impact_fixes": "修复{refs}{symptoms}。",
    "impact_fixes_symptoms": "（其中报告了{symptoms}）",
    "impact_kernels": "涉及{kernels}。",
    "impact_reviews": "经{reviewers}位评审者、{reviews}次评审后{state}。",
    "impact_state_merged": "合并",
    "impact_state_open": "获批，尚未合并",
    "who_on": "{models}（{hardware}）",
    "who_join": "、",
    # watch list
    "watch_absurd": (
        "{model}只有{params}B 参数，显存需求却达到{amount}GB（原文：“{text}”），"
        "与模型规模极不相称。"
    ),
    "watch_error_1": "报错{error}，症状为{symptoms}。",
    "watch_error_2": "日志中出现{error}（{symptoms}）。",
    "watch_error_only": "报错{error}。",
    "watch_symptoms_1": "报告{symptoms}。",
    "watch_symptoms_2": "症状：{symptoms}。",
    "watch_where": "提到的模型与硬件：{who}。",
    "watch_regression_version": "据报告自{version}起出现回退。",
    "watch_last_good": "据报告在{version}上正常，属于回退。",
    "watch_regression_item": "据报告由{ref}引入。",
    "watch_repro": "附有复现步骤或命令。",
    "watch_talk": "本窗口内{participants}位参与者发表{comments}条评论。",
    "watch_reactions": "获得{reactions}个表态。",
    "watch_no_reply_1": "目前所有评论均已同步，其中没有维护者的回复。",
    "watch_no_reply_2": "已同步的全部评论中尚无维护者回应。",
    "watch_no_reply_3": "维护者尚未回复（评论已全部同步）。",
    "watch_no_comments": "目前还没有任何评论。",
}

EN: dict[str, str] = {
    "up": "up",
    "down": "down",
    "fig_pct": "{metric} {dir} {value}",
    "fig_pct_plain": "{metric} {value}",
    "fig_mult": "{metric} {dir} to {value}",
    "fig_speedup": "a {value} speedup",
    "fig_base": "{metric} from {baseline} to {value}{unit}",
    "fig_context": "{figure} ({context})",
    "about": "~",
    "brief": "#{number} ({title})",
    "brief_figure": "#{number} ({title}; {figure})",
    "lead_purpose_1": "A change to {component}. In the PR's words: “{sentence}”",
    "lead_purpose_2": "In {component}, the author writes: “{sentence}”",
    "lead_plain_1": "In the PR's words: “{sentence}”",
    "lead_plain_2": "The author describes it as: “{sentence}”",
    "lead_named": "The description has no prose to quote; it names {names}.",
    "lead_title_only": "The PR has no description beyond its title.",
    "impact_fig_who_1": "It concerns {who}; the PR measures {figures}.",
    "impact_fig_who_2": "Named in the PR: {who}. Its own benchmark: {figures}.",
    "impact_fig_1": "The PR measures {figures}.",
    "impact_fig_2": "By the PR's own benchmark, {figures}.",
    "impact_who_1": "It concerns {who}.",
    "impact_who_2": "Models and hardware named in the PR: {who}.",
    "impact_fixes": "Fixes {refs}{symptoms}.",
    "impact_fixes_symptoms": " (which reported {symptoms})",
    "impact_kernels": "Touches {kernels}.",
    "impact_reviews": "{state} after {reviews} reviews from {reviewers} reviewers.",
    "impact_state_merged": "Merged",
    "impact_state_open": "Approved, not merged yet,",
    "who_on": "{models} on {hardware}",
    "who_join": ", ",
    "watch_absurd": (
        "A {params}B model ({model}) asks for {amount} GB of memory (“{text}”), far more than a "
        "model of that size needs."
    ),
    "watch_error_1": "Fails with {error}: {symptoms}.",
    "watch_error_2": "The log shows {error} ({symptoms}).",
    "watch_error_only": "Fails with {error}.",
    "watch_symptoms_1": "Reports {symptoms}.",
    "watch_symptoms_2": "Symptoms: {symptoms}.",
    "watch_where": "Mentions {who}.",
    "watch_regression_version": "Reported as a regression since {version}.",
    "watch_last_good": "Reported to work in {version}: a regression.",
    "watch_regression_item": "Reported as introduced by {ref}.",
    "watch_repro": "Comes with reproduction steps or a command.",
    "watch_talk": "{comments} comments from {participants} participants in this window.",
    "watch_reactions": "{reactions} reactions.",
    "watch_no_reply_1": "All its comments are synced and none is from a maintainer.",
    "watch_no_reply_2": "No maintainer has answered yet (every comment is synced).",
    "watch_no_reply_3": "None of its synced comments comes from a maintainer.",
    "watch_no_comments": "Nobody has commented yet.",
}

FACT_PHRASES = {"zh": ZH, "en": EN}


def metric_name(lang: str, metric: str) -> str:
    return METRICS.get(lang, {}).get(metric, metric)


def symptom_name(lang: str, kind: str) -> str:
    return SYMPTOMS[lang].get(kind, kind.replace("_", " "))
