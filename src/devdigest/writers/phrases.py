"""Sentence templates of the offline writer, per language (fixed headings live in render/i18n)."""

from __future__ import annotations

import re
from collections.abc import Iterable

ZH: dict[str, str] = {
    # summary
    "summary_counts": (
        "本时间窗口内，{project} 新增 Issue {new_issues} 个、关闭 {closed_issues} 个，"
        "新增 PR {new_prs} 个、合并 {merged_prs} 个，"
        "另有 {closed_unmerged_prs} 个 PR 未合并即关闭。"
    ),
    "summary_quiet": "本时间窗口内，{project} 没有新增或关闭任何 Issue 与 PR。",
    "summary_themes": "活动最集中的主题是{themes}。",
    "theme": "{name}（{count} 项）",
    "summary_focus": "{name}方面共有 {issues} 个 Issue、{prs} 个 PR 出现动态{merged}。",
    "summary_focus_merged": "，其中 {merged} 个 PR 已合并",
    "summary_focus_none": "{name}方面本窗口内没有相关动态。",
    "summary_merges": "值得关注的合并包括{items}。",
    "summary_discussion": (
        "讨论最热烈的是 #{number}（{title}），"
        "{participants} 位参与者共发表 {comments} 条评论与评审。"
    ),
    "summary_watch": "另有 {count} 个 Issue 带有{signals}等严重信号，值得跟进。",
    "ref_title": "#{number}（{title}）",
    # focus
    "focus_overview": (
        "本窗口内有动态（新建、关闭、合并或有讨论）且与{name}相关的共有 {issues} 个 Issue 和 "
        "{prs} 个 PR{detail}。"
    ),
    "focus_detail": "（{parts}）",
    "focus_part_merged": "{n} 个 PR 已合并",
    "focus_part_closed": "{n} 个 Issue 已关闭",
    "focus_part_open": "{n} 个 PR 仍在评审中",
    "focus_empty": "本窗口内没有与{name}相关的 Issue 或 PR。",
    "desc": "{kind}：{parts}。",
    "desc_bare": "{kind}。",
    "desc_join": "；",
    "desc_opened_new": "本窗口内新开的{kind}",
    "desc_opened": "此前开启的{kind}",
    "desc_kind_bug": "问题报告",
    "desc_kind_proposal": "功能提议",
    "desc_kind_question": "使用求助",
    "desc_kind_pr": "代码变更",
    "desc_kind_pr_cat": "{names}方面的变更",
    "desc_symptoms": "症状为{names}",
    "desc_breadth": "涉及 {names}",
    "desc_errors": "日志中有 {names}",
    "desc_linked": "关联 {refs}",
    "desc_test_plan": "附测试计划",
    "desc_test_result": "附测试结果",
    "desc_quote": "正文称“{text}”",
    "about_title": "{kind}标题即其内容：{title}。",
    "kind_issue": "该 Issue ",
    "kind_pr": "该 PR ",
    "reason_label": "标签 {value}",
    "reason_title tag": "标题标记 {value}",
    "reason_keyword": "关键词 {value}",
    "reason_author": "作者名单 {value}",
    "reason_path": "改动路径 {value}",
    # hot discussions
    "core_pr": "是否以及如何合并“{title}”{sentence}",
    "core_bug": "“{title}”的原因与修复方法{sentence}",
    "core_proposal": "是否采纳“{title}”这一提议{sentence}",
    "core_question": "如何解决“{title}”中提出的使用问题{sentence}",
    "core_sentence": "：正文称“{text}”",
    "core_facts": "：正文{facts}。",
    "core_no_body": "：正文为空。",
    "role_author": "作者",
    "role_reviewer": "评审者",
    "role_maintainer": "维护者",
    "role_commenter": "评论者",
    "pos_approved_only": "批准了该 PR，未附具体意见。",
    "pos_approved": "批准了该 PR，并表示：“{text}”",
    "pos_changes": "要求修改：“{text}”",
    "pos_changes_only": "要求修改，但未附文字说明。",
    "pos_question": "提问：“{text}”",
    "pos_concern": "提出异议：“{text}”",
    "pos_author": "回应：“{text}”",
    "pos_plain": "指出：“{text}”",
    "pos_nothing": "只参与了评审，未留下文字意见。",
    "pos_plus_one": "表示遇到了同样的问题（+1），未补充细节。",
    "contention_reviews": "评审意见分歧：{blockers} 要求修改，而 {approvers} 已批准。",
    "contention_blocked": "{blockers} 要求修改，目前尚无人批准。",
    "contention_concern": "{who} 对当前方案表示保留：“{text}”",
    "no_hot_discussion": (
        "本窗口内没有形成热烈讨论（至少两人发表文字意见的讨论串）；评论最多的是{threads}。"
    ),
    "busy_thread": "#{number}（{comments} 条评论）",
    "status_merged": "已于 {when} 合并。",
    "status_closed_pr": "已于 {when} 关闭，未合并。",
    "status_closed_issue": "已于 {when} 关闭{reason}。",
    "reason_completed": "（已解决）",
    "reason_not_planned": "（不予处理）",
    "reason_duplicate": "（重复）",
    "status_open_pr": "PR 仍处于开放状态",
    "status_draft_pr": "PR 仍是草稿",
    "status_open_issue": "Issue 仍未关闭",
    "status_wait_author": "{state}，最新发言来自 {last}，等待作者 {author} 回应。",
    "status_wait_others": "{state}，作者 {author} 最后回复，等待{whom}跟进。",
    "whom_reviewers": "评审者",
    "whom_maintainers": "维护者",
    # topics and trends
    "trend_no_history": (
        "数据库中没有此前几天的数据，暂无法判断趋势；同步更早的历史后，这里会显示各话题的升降。"
    ),
    "trend_baseline": (
        "话题表统计本窗口内新建的 Issue 与 PR（一项可属多个话题），"
        "末列为与此前 {days} 天日均新建数量之差。"
    ),
    "trend_rising": "明显上升的话题：{items}。",
    "trend_falling": "有所回落的话题：{items}。",
    "trend_steady": "各话题的数量与此前日均大致持平，没有明显的升降。",
    "trend_counts": "话题表统计本窗口内新建的 Issue 与 PR（一项可属多个话题）。",
    "trend_item": "{name}（今日 {count} 项，此前日均 {avg}{examples}）",
    "trend_examples": "，如 {refs}",
    "trend_top": "数量最多的话题是{name}，共 {count} 项，例如 {examples}。",
    "no_topics": "本窗口内的 Issue 与 PR 都没有归入任何话题分类。",
    # key changes
    "tech_body": "{title}。正文说明：“{sentences}”",
    "tech_title": "{title}。PR 正文没有单独的说明段落。",
    "impact_category": "类别：{names}",
    "impact_figures": "PR 自述数据：{figures}",
    "impact_linked": "关联 {refs}",
    "impact_reviews": "经 {n} 次评审",
    "impact_merged": "已合并",
    "impact_open": "尚未合并",
    "impact_join": "；",
    "impact_end": "。",
    # watch
    "watch_signals": "报告了{signals}等症状",
    "watch_breadth": "涉及 {names}",
    "watch_engagement": "本窗口内有 {participants} 位参与者发表 {comments} 条评论",
    "watch_reactions": "获得 {reactions} 个表态",
    "watch_open": "目前仍未关闭",
    "watch_closed": "已关闭",
    "watch_join": "，",
    "watch_end": "。",
    "signal_join": "、",
    # activity
    "act_people": (
        "本窗口内共有 {contributors} 位贡献者参与（提交、评论或评审），"
        "其中 {authors} 位新开了 Issue 或 PR。"
    ),
    "act_first": "首次贡献者 {n} 位{basis}：{names}。",
    "basis_association": "（依据 GitHub 的首次贡献标记）",
    "basis_association+history": "（依据 GitHub 的首次贡献标记与本地存储的历史）",
    "act_first_more": "{names} 等",
    "act_reviewers": "评审最活跃的是 {names}。",
    "act_reviewer": "{login}（{n} 次）",
    "act_merge_time": "已合并的 {n} 个 PR 从创建到合并的中位时间为 {hours}。",
    "hours": "{h} 小时",
    "days": "{d} 天",
    "act_bots": "统计已排除机器人账号 {names} 的 {events} 条活动。",
    "act_no_bots": "本窗口内没有机器人账号的活动。",
    "list_sep": "、",
    "list_last": "和",
}

EN: dict[str, str] = {
    "summary_counts": (
        "In this window {project} saw {new_issues} new issues and {closed_issues} closed, "
        "{new_prs} new pull requests, {merged_prs} merged and {closed_unmerged_prs} closed "
        "without merging."
    ),
    "summary_quiet": "In this window {project} had no new or closed issues or pull requests.",
    "summary_themes": "The busiest themes were {themes}.",
    "theme": "{name} ({count} items)",
    "summary_focus": (
        "The {name} focus area had {issues} issues and {prs} pull requests with activity{merged}."
    ),
    "summary_focus_merged": ", {merged} of them merged",
    "summary_focus_none": "The {name} focus area had no activity in this window.",
    "summary_merges": "Notable merges include {items}.",
    "summary_discussion": (
        "The liveliest discussion was #{number} ({title}), with {comments} comments and reviews "
        "from {participants} participants."
    ),
    "summary_watch": (
        "{count} issues report severe symptoms such as {signals} and deserve a follow-up."
    ),
    "ref_title": "#{number} ({title})",
    "focus_overview": (
        "{issues} issues and {prs} pull requests with activity in this window (opened, closed, "
        "merged or discussed) relate to {name}{detail}."
    ),
    "focus_detail": " ({parts})",
    "focus_part_merged": "{n} PRs merged",
    "focus_part_closed": "{n} issues closed",
    "focus_part_open": "{n} PRs still in review",
    "focus_empty": "No issue or pull request in this window relates to {name}.",
    "desc": "{kind}: {parts}.",
    "desc_bare": "{kind}.",
    "desc_join": "; ",
    "desc_opened_new": "{kind} opened in this window",
    "desc_opened": "{kind} opened earlier",
    "desc_kind_bug": "Problem report",
    "desc_kind_proposal": "Proposal",
    "desc_kind_question": "Question",
    "desc_kind_pr": "Change",
    "desc_kind_pr_cat": "{names} change",
    "desc_symptoms": "symptoms: {names}",
    "desc_breadth": "names {names}",
    "desc_errors": "the log shows {names}",
    "desc_linked": "linked to {refs}",
    "desc_test_plan": "has a test plan",
    "desc_test_result": "has test results",
    "desc_quote": "the body says “{text}”",
    "about_title": "{kind}is described by its title only: {title}.",
    "kind_issue": "The issue ",
    "kind_pr": "The PR ",
    "reason_label": "label {value}",
    "reason_title tag": "title tag {value}",
    "reason_keyword": "keyword {value}",
    "reason_author": "author list {value}",
    "reason_path": "changed path {value}",
    "core_pr": "Whether and how to merge “{title}”{sentence}",
    "core_bug": "What causes “{title}” and how to fix it{sentence}",
    "core_proposal": "Whether to adopt the proposal “{title}”{sentence}",
    "core_question": "How to solve the usage question “{title}”{sentence}",
    "core_sentence": ": the body says “{text}”",
    "core_facts": ": the body {facts}.",
    "core_no_body": ": the body is empty.",
    "role_author": "author",
    "role_reviewer": "reviewer",
    "role_maintainer": "maintainer",
    "role_commenter": "commenter",
    "pos_approved_only": "Approved the PR without further comment.",
    "pos_approved": "Approved the PR, adding: “{text}”",
    "pos_changes": "Requested changes: “{text}”",
    "pos_changes_only": "Requested changes without a written explanation.",
    "pos_question": "Asked: “{text}”",
    "pos_concern": "Raised a concern: “{text}”",
    "pos_author": "Replied: “{text}”",
    "pos_plain": "Wrote: “{text}”",
    "pos_nothing": "Took part in the review without a written comment.",
    "pos_plus_one": "Added a +1 without further detail.",
    "contention_reviews": (
        "The reviews disagree: {blockers} requested changes while {approvers} approved."
    ),
    "contention_blocked": "{blockers} requested changes and nobody has approved yet.",
    "contention_concern": "{who} has reservations about the current approach: “{text}”",
    "no_hot_discussion": (
        "No thread in this window drew a heated discussion (two or more people writing); the "
        "most-commented were {threads}."
    ),
    "busy_thread": "#{number} ({comments} comments)",
    "status_merged": "Merged on {when}.",
    "status_closed_pr": "Closed without merging on {when}.",
    "status_closed_issue": "Closed on {when}{reason}.",
    "reason_completed": " as completed",
    "reason_not_planned": " as not planned",
    "reason_duplicate": " as a duplicate",
    "status_open_pr": "The PR is still open",
    "status_draft_pr": "The PR is still a draft",
    "status_open_issue": "The issue is still open",
    "status_wait_author": (
        "{state}; the latest comment is from {last}, waiting on the author ({author})."
    ),
    "status_wait_others": "{state}; the author ({author}) replied last, waiting on {whom}.",
    "whom_reviewers": "reviewers",
    "whom_maintainers": "maintainers",
    "trend_no_history": (
        "There is no data for earlier days in the store, so trends cannot be judged yet; once "
        "more history is synced, rising and falling topics will show here."
    ),
    "trend_baseline": (
        "The topic table counts the issues and pull requests opened in this window (an item "
        "can fall into several topics); the last column compares with the daily average of "
        "the previous {days} days."
    ),
    "trend_rising": "Rising: {items}.",
    "trend_falling": "Falling: {items}.",
    "trend_steady": (
        "Every topic is close to its recent daily average; nothing rose or fell markedly."
    ),
    "trend_counts": (
        "The topic table counts the issues and pull requests opened in this window (an item "
        "can fall into several topics)."
    ),
    "trend_item": "{name} ({count} today vs {avg} per day before{examples})",
    "trend_examples": ", e.g. {refs}",
    "trend_top": "The largest topic was {name} with {count} items, for example {examples}.",
    "no_topics": "No issue or pull request in this window falls into a topic category.",
    "tech_body": "{title}. The description reads: “{sentences}”",
    "tech_title": "{title}. The PR body has no separate description.",
    "impact_category": "Category: {names}",
    "impact_figures": "figures stated in the PR: {figures}",
    "impact_linked": "linked to {refs}",
    "impact_reviews": "{n} reviews",
    "impact_merged": "merged",
    "impact_open": "not merged yet",
    "impact_join": "; ",
    "impact_end": ".",
    "watch_signals": "Symptoms: {signals}",
    "watch_breadth": "mentions {names}",
    "watch_engagement": "{comments} comments from {participants} participants in this window",
    "watch_reactions": "{reactions} reactions",
    "watch_open": "still open",
    "watch_closed": "already closed",
    "watch_join": "; ",
    "watch_end": ".",
    "signal_join": ", ",
    "act_people": (
        "{contributors} contributors took part in this window (opening, commenting or reviewing); "
        "{authors} of them opened an issue or pull request."
    ),
    "act_first": "{n} first-time contributors{basis}: {names}.",
    "basis_association": " (by GitHub's first-time contributor mark)",
    "basis_association+history": " (by GitHub's first-time mark and the stored history)",
    "act_first_more": "{names} and others",
    "act_reviewers": "The most active reviewers were {names}.",
    "act_reviewer": "{login} ({n})",
    "act_merge_time": "The median time from opening to merge over {n} merged PRs was {hours}.",
    "hours": "{h} hours",
    "days": "{d} days",
    "act_bots": "Bot accounts were excluded from these figures: {names} ({events} events).",
    "act_no_bots": "No bot account was active in this window.",
    "list_sep": ", ",
    "list_last": " and ",
}

PHRASES = {"zh": ZH, "en": EN}

SIGNALS_ZH = {
    "crash": "崩溃",
    "NaN": "NaN 数值",
    "accuracy drop": "精度下降",
    "hang": "卡死",
    "OOM": "内存不足（OOM）",
    "wrong output": "输出错误",
    "regression": "回退",
    "security": "安全问题",
    "segfault": "段错误",
    "illegal memory access": "非法内存访问",
    "performance": "性能下降",
}


_PLURALS = {
    "bug reports": "bug report",
    "fixes": "fix",
    "issues": "issue",
    "pull requests": "pull request",
    "PRs": "PR",
    "items": "item",
    "comments": "comment",
    "reviews": "review",
    "participants": "participant",
    "contributors": "contributor",
    "reactions": "reaction",
    "events": "event",
    "days": "day",
    "hours": "hour",
}
_ONE = re.compile(
    r"(?<![\d.,+-])\b1 ((?:new |closed |merged |related |more related |first-time |other new "
    r"|other merged |other |open )?)(" + "|".join(map(re.escape, _PLURALS)) + r")\b"
)


def phrase(lang: str, key: str, **values: object) -> str:
    """The template ``key`` filled in; English counts of one take the singular."""
    text = PHRASES[lang][key].format(**values)
    return english_counts(text) if lang == "en" else text


def english_counts(text: str) -> str:
    """``1 comments`` → ``1 comment``."""
    return _ONE.sub(lambda m: f"1 {m.group(1)}{_PLURALS[m.group(2)]}", text)


def join_list(lang: str, parts: Iterable[str]) -> str:
    """``a, b and c`` / ``a、b和c``."""
    items = list(parts)
    if len(items) <= 1:
        return "".join(items)
    table = PHRASES[lang]
    return table["list_sep"].join(items[:-1]) + table["list_last"] + items[-1]


def signal_name(lang: str, signal: str) -> str:
    return SIGNALS_ZH.get(signal, signal) if lang == "zh" else signal
