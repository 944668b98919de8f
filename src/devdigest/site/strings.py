"""The site's own interface strings (navigation, tables, charts) in Chinese and English."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "site_title": "Development reports",
        "site_intro": "Daily development reports for open-source projects.",
        "all_projects": "« All projects",
        "back_project": "« Back to {name} Reports",
        "project_title": "{name} Reports",
        "view_github": "View on GitHub",
        "sample_note": "Generated sample data: the repository and its content are fictional.",
        "prev_day": "‹ Previous day",
        "next_day": "Next day ›",
        "contents": "Contents",
        "latest": "Latest report",
        "no_reports": "No reports yet.",
        "reports": "Reports",
        "date": "Date",
        "themes": "Top themes",
        "feed": "Atom feed",
        "json_index": "JSON index",
        "chart_title": "Last 30 days",
        "spark_title": "Activity, last 30 days",
        "new": "new issues + PRs",
        "merged": "merged PRs",
        "closed": "closed issues + unmerged PRs",
        "language": "Language",
        "new_issues": "New issues",
        "closed_issues": "Closed issues",
        "new_prs": "New PRs",
        "merged_prs": "Merged PRs",
        "closed_unmerged_prs": "Closed unmerged",
        "generated": "Built by devdigest",
    },
    "zh": {
        "site_title": "开发动态报告",
        "site_intro": "开源项目的每日开发动态报告。",
        "all_projects": "« 全部项目",
        "back_project": "« 返回 {name} 报告列表",
        "project_title": "{name} 报告",
        "view_github": "在 GitHub 上查看",
        "sample_note": "生成的示例数据：仓库及其内容均为虚构。",
        "prev_day": "‹ 前一天",
        "next_day": "后一天 ›",
        "contents": "目录",
        "latest": "最新报告",
        "no_reports": "暂无报告。",
        "reports": "报告",
        "date": "日期",
        "themes": "主要话题",
        "feed": "Atom 订阅",
        "json_index": "JSON 索引",
        "chart_title": "最近 30 天",
        "spark_title": "最近 30 天活跃度",
        "new": "新 Issue + PR",
        "merged": "合并 PR",
        "closed": "关闭 Issue + 未合并 PR",
        "language": "语言",
        "new_issues": "新 Issue",
        "closed_issues": "关闭 Issue",
        "new_prs": "新 PR",
        "merged_prs": "合并 PR",
        "closed_unmerged_prs": "关闭未合并",
        "generated": "由 devdigest 生成",
    },
}
LANG_NAMES = {"zh": "中文", "en": "English"}
HTML_LANG = {"zh": "zh-CN", "en": "en"}


def strings(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` (English for a language without one)."""
    return STRINGS.get(lang, STRINGS["en"])
