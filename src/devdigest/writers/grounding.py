"""Grounding guard for LLM output: pure checks that a sentence says only what the data says.

Two kinds of findings:

* fixes, applied automatically (``clean_text``): a model preamble, ``@login`` pings, Markdown
  headings and HTML tags are removed;
* violations (``check_text``): an unknown ``#N``, a login who did not write in the thread, a
  number the data does not contain, a count claim that disagrees with the real count, a status
  claim ("deprecated") the item's own title and labels do not support, a state claim (merged,
  closed, open, approved, reverted) the item's stored state does not support, echoed
  instructions.

The LLM writer repairs a violating field once (re-ask with the violations listed) or drops it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# --- automatic fixes ---------------------------------------------------------------------------

_PREAMBLE = re.compile(
    r"^\s*(?:"
    r"(?:好的|好呀|当然可以|当然|没问题|明白了?)[，,。！!：:\s]*"
    r"|(?:以下是|下面是|根据(?:您|你)?提供的)[^：:。\n]{0,40}[：:。]"
    r"|(?:sure|certainly|of course|okay|ok|absolutely)\b(?:[,!.:]|(?=\s+here))\s*"
    r"|here(?:'s| is| are) (?:the|a|an|my|your|some)\b[^:.\n]{0,60}[:.]"
    r"|as an ai(?: language model)?\b[^,.\n]{0,40}[,.]"
    r")\s*",
    re.IGNORECASE,
)
_AS_AN_AI = re.compile(r"\b(as an ai(?: language model)?|作为(?:一个)?(?:AI|人工智能))", re.I)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_HTML = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--.*?-->", re.DOTALL)
_MENTION = re.compile(r"(?<![A-Za-z0-9_`/.])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?)")


@dataclass
class Cleaned:
    text: str
    fixes: list[str] = field(default_factory=list)


def strip_preamble(text: str) -> Cleaned:
    """Remove a leading "好的，以下是…" / "Sure, here is…" sentence (repeatedly)."""
    removed = ""
    while (match := _PREAMBLE.match(text)) and match.group(0).strip():
        removed += match.group(0)
        text = text[match.end() :]
    return Cleaned(text.strip(), [f"preamble {removed.strip()[:40]!r}"] if removed else [])


def strip_mentions(text: str) -> Cleaned:
    """``@login`` → ``login``: a report must never ping people."""
    found = _MENTION.findall(text)
    return Cleaned(_MENTION.sub(r"\1", text), [f"mention @{login}" for login in found])


def strip_markup(text: str) -> Cleaned:
    """Remove Markdown headings and HTML tags inside a field."""
    fixes = [f"heading {m.group(0).strip()!r}" for m in _HEADING.finditer(text)]
    text = _HEADING.sub("", text)
    fixes += [f"html {m.group(0)[:20]!r}" for m in _HTML.finditer(text)]
    return Cleaned(_HTML.sub("", text), fixes)


def clean_text(text: str) -> Cleaned:
    """All automatic fixes; ``fixes`` lists what was removed."""
    fixes: list[str] = []
    for step in (strip_markup, strip_preamble, strip_mentions):
        result = step(text)
        text, fixes = result.text, fixes + result.fixes
    return Cleaned(re.sub(r"[ \t]{2,}", " ", text).strip(), fixes)


# --- violations --------------------------------------------------------------------------------

_REF = re.compile(r"(?<![A-Za-z0-9_&])#(\d+)\b")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b|\b\d{1,2}:\d{2}\b")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.#/-])(\d+(?:[.,]\d+)*)(?=[x×%]|[^A-Za-z0-9_]|$)")
_STATUS_WORDS = re.compile(
    r"deprecat|archiv|abandon|unmaintained|no longer maintained|end[- ]of[- ]life|discontinu"
    r"|废弃|弃用|停止维护|不再维护|已归档|停更",
    re.IGNORECASE,
)
_INJECTION = re.compile(
    r"ignore (?:all |the )?previous instructions|忽略(?:之前|以上|前面)的?(?:所有)?指令"
    r"|system prompt|系统提示",
    re.IGNORECASE,
)
ALWAYS_ALLOWED_NUMBERS = frozenset({"0", "1"})


@dataclass(frozen=True)
class Violation:
    kind: str  # ref, login, number, count, status, injection, ai
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass(frozen=True)
class ItemState:
    """What the data says about an item, for state claims."""

    is_pr: bool
    state: str  # open or closed
    merged: bool
    approved: bool  # an APPROVED review is in the data
    reverted: bool  # a merged revert PR in the data names it

    def describe(self) -> str:
        kind = "PR" if self.is_pr else "issue"
        state = "merged" if self.merged else self.state
        return f"{'an' if state == 'open' else 'a'} {state} {kind}" + (
            ", approved" if self.approved else ""
        )


@dataclass
class GuardContext:
    """What a statement may cite: known items, logins who wrote, numbers the data contains."""

    known_refs: frozenset[int]
    all_logins: frozenset[str] = frozenset()  # every login in the analysis (lowercase)
    thread_logins: frozenset[str] | None = None  # who wrote in this thread; None: any known login
    numbers: frozenset[str] | None = None  # numbers the data contains; None: not checked
    counts: Mapping[str, int] | None = None  # the window's counts, for count claims
    status_source: str = ""  # title and labels: the only support for "deprecated" claims
    states: Mapping[int, ItemState] | None = None  # item states; None: state claims not checked
    subject: int | None = None  # the thread's item: what "the PR" / "该 PR" refers to


def refs_in(text: str) -> list[int]:
    return [int(n) for n in _REF.findall(text)]


def numbers_in(text: str) -> set[str]:
    """Standalone numbers (not part of identifiers such as ``FP8`` or ``Qwen3.5``), normalized."""
    text = _REF.sub(" ", text)
    return {_norm_number(n) for n in _NUMBER.findall(text)}


def _norm_number(raw: str) -> str:
    value = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", raw) else raw
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value.lstrip("0") or "0"


def check_refs(text: str, refs: Iterable[int], known: frozenset[int]) -> list[Violation]:
    """Every ``#N`` in the text and every listed ref must be an item of the window or linked."""
    cited = dict.fromkeys([*refs_in(text), *refs])
    return [
        Violation("ref", f"#{n} is not an item of this window") for n in cited if n not in known
    ]


def mentioned_logins(text: str, logins: Iterable[str]) -> set[str]:
    """Known logins named in the text (whole words, case-insensitive)."""
    found = set()
    lowered = text.lower()
    for login in logins:
        if len(login) < 3 or login not in lowered:
            continue
        if re.search(rf"(?<![A-Za-z0-9_-]){re.escape(login)}(?![A-Za-z0-9_-])", lowered):
            found.add(login)
    return found


def check_logins(text: str, ctx: GuardContext) -> list[Violation]:
    """A named participant must have written in the thread (or in the window, for summaries)."""
    allowed = ctx.thread_logins if ctx.thread_logins is not None else ctx.all_logins
    named = mentioned_logins(text, ctx.all_logins)
    named |= {m.lower() for m in _MENTION.findall(text)}
    return [
        Violation("login", f"{login} did not write in this thread")
        for login in sorted(named)
        if login not in allowed
    ]


def check_numbers(text: str, allowed: frozenset[str] | None) -> list[Violation]:
    """Every standalone number must occur in the data given to the model."""
    if allowed is None:
        return []
    found = numbers_in(_DATE.sub(" ", text))
    return [
        Violation("number", f"{n} does not appear in the data")
        for n in sorted(found - allowed - ALWAYS_ALLOWED_NUMBERS)
    ]


def check_status_claims(text: str, ctx: GuardContext) -> list[Violation]:
    """Claims that something is deprecated/archived need support from the title or labels."""
    problems = []
    for match in _STATUS_WORDS.finditer(text):
        word = match.group(0)
        if word.lower() not in ctx.status_source.lower():
            problems.append(Violation("status", f"{word!r} is not supported by the data"))
    if _INJECTION.search(text):
        problems.append(Violation("injection", "repeats instructions from the data"))
    if _AS_AN_AI.search(text):
        problems.append(Violation("ai", "talks about itself instead of the data"))
    return problems


def check_text(text: str, ctx: GuardContext, refs: Iterable[int] = ()) -> list[Violation]:
    """Every check on one field; an empty list means the field is grounded."""
    return [
        *check_refs(text, refs, ctx.known_refs),
        *check_logins(text, ctx),
        *check_numbers(text, ctx.numbers),
        *(check_count_claims(text, ctx.counts) if ctx.counts else []),
        *check_status_claims(text, ctx),
        *check_state_claims(text, ctx),
    ]


# --- count claims ------------------------------------------------------------------------------

_CLAUSE = re.compile(r"[;；。!?！？|\n]|[,，、]|\.(?!\d)|\band\b|以及|和")
_PR_NOUN = re.compile(r"\bPRs?\b|pull requests?|拉取请求|合并请求", re.I)
_ISSUE_NOUN = re.compile(r"\bissues?\b|问题", re.I)
_VERBS = {
    "unmerged": re.compile(r"without (?:being )?merg\w*|not merged|unmerged|未合并|未被合并", re.I),
    "merged": re.compile(r"merg\w*|合并|合入", re.I),
    "closed": re.compile(r"clos\w*|resolved|关闭|解决", re.I),
    "new": re.compile(
        r"\bnew\b|open\w*|creat\w*|filed|submitted|reported|新增|新建|新|提交|创建", re.I
    ),
}
_CLAIM_KEY = {
    ("pr", "unmerged"): "closed_unmerged_prs",
    ("pr", "merged"): "merged_prs",
    ("pr", "new"): "new_prs",
    ("issue", "closed"): "closed_issues",
    ("issue", "new"): "new_issues",
}
_NEAR = 24  # characters between a number and the words that say what it counts


def _nearest(clause: str, pos: int, patterns: Mapping[str, re.Pattern[str]]) -> str | None:
    best: tuple[int, int, str] | None = None
    for rank, (name, pattern) in enumerate(patterns.items()):
        for m in pattern.finditer(clause):
            distance = min(abs(m.start() - pos), abs(m.end() - pos))
            if distance <= _NEAR and (best is None or (distance, rank) < best[:2]):
                best = (distance, rank, name)
    return best[2] if best else None


def count_claims(text: str) -> list[tuple[str, int]]:
    """``("merged_prs", 45)`` for "merged 45 PRs" or "合并了 45 个 PR"; subsets are skipped."""
    claims = []
    text = _REF.sub(" ", _DATE.sub(" ", text))
    for clause in _CLAUSE.split(text):
        for m in re.finditer(r"(?<![A-Za-z0-9_.])(\d+)(?![A-Za-z0-9_.%x×])", clause):
            after = clause[m.end() : m.end() + 8].lower()
            if after.lstrip().startswith(("of ", "个中", "中的")):
                continue
            noun = _nearest(clause, m.start(), {"pr": _PR_NOUN, "issue": _ISSUE_NOUN})
            verb = _nearest(clause, m.start(), _VERBS)
            if noun == "pr" and verb == "closed":
                verb = "unmerged" if _VERBS["unmerged"].search(clause) else None
            key = _CLAIM_KEY.get((noun, verb)) if noun and verb else None
            if key:
                claims.append((key, int(m.group(1))))
    return claims


def check_count_claims(text: str, counts: Mapping[str, int]) -> list[Violation]:
    """A sentence that states a window count must state the real one."""
    return [
        Violation("count", f"says {value} for {key}, the data says {counts[key]}")
        for key, value in count_claims(text)
        if key in counts and counts[key] != value
    ]


# --- state claims --------------------------------------------------------------------------------

_STATE_WORDS = {
    "unmerged": r"\bunmerged\b|\bnot (?:yet )?(?:been )?merged\b|without (?:being )?merg\w*"
    r"|[尚仍]?未(?:被)?合[并入]",
    "merged": r"\bmerged\b|已(?:经)?(?:被)?合[并入]|被合[并入]|合[并入]了",
    "closed": r"\bclosed\b|已(?:经)?(?:被)?关闭|被关闭|关闭了",
    "open": r"\b(?:still|remains?|remained|stays?|is|are|was|left)\s+open\b"
    r"|仍(?:然)?(?:处于)?(?:开放|打开|开启)|[尚仍]未关闭|保持开放",
    "approved": r"\bapproved\b|已(?:经)?(?:被|获)?批准|获(?:得)?批准|获批|批准了",
    "reverted": r"\breverted\b|已(?:经)?(?:被)?回[滚退]|被回[滚退]|回[滚退]了|被撤[销回]",
}
_STATE = re.compile("|".join(f"(?P<{k}>{v})" for k, v in _STATE_WORDS.items()), re.IGNORECASE)
_HEDGE_EN = re.compile(  # a hedge among the three words before the state word
    r"\b(?:not|never|be|once|if|when|until|before|unless|whether|awaiting|pending|waiting"
    r"|ready|needs?|yet|to|\w+n't)\s+(?:[\w'#]+\s+){0,2}$",
    re.IGNORECASE,
)
_HEDGE_ZH = re.compile(r"[将待未要会可能应若需]\s*$")
_SENTENCE = re.compile(r"[。！？!?;；\n]|\.(?:\s|$)")
_QUOTED = re.compile(r"「[^」]*」|“[^”]*”|\"[^\"]*\"|《[^》]*》|`[^`]*`|[(（][^()（）]{15,}[)）]")
_OBJECT_GAP = re.compile(r"\s*(?:the\s+)?(?:PR|pull request|issue)?\s*", re.IGNORECASE)
_ITEM_NOUN = re.compile(
    r"\bPRs?\b|pull request|\bissues?\b|该 ?(?:PR|Issue)|此 ?(?:PR|Issue)", re.I
)
_NEEDS_REF = frozenset({"reverted"})  # "the author reverted a change" is not about the item
_NEEDS_NOUN = frozenset({"open"})  # "the question remains open" is not about the item either


def _claim_true(kind: str, state: ItemState) -> bool:
    return {
        "unmerged": state.is_pr and not state.merged,
        "merged": state.merged,
        "closed": state.state == "closed",
        "open": state.state == "open",
        "approved": state.approved,
        "reverted": state.reverted,
    }[kind]


def _hedged(sentence: str, start: int) -> bool:
    """ "should be merged", "once merged", "待合并": not a claim that it happened."""
    before = sentence[:start]
    return bool(_HEDGE_ZH.search(before) or _HEDGE_EN.search(before))


def _claim_subject(sentence: str, match: re.Match[str], kind: str, ctx: GuardContext) -> int | None:
    """The item a state word speaks of: the ``#N`` it governs ("merged #N"), else the nearest
    ``#N`` before it, else one just after it, else the thread's own item."""
    refs = list(_REF.finditer(sentence))
    after = [r for r in refs if r.start() >= match.end()]
    if after and _OBJECT_GAP.fullmatch(sentence[match.end() : after[0].start()]):
        return int(after[0].group(1))
    before = [r for r in refs if r.end() <= match.start()]
    if before:
        return int(before[-1].group(1))
    if after and after[0].start() - match.end() <= _NEAR:
        return int(after[0].group(1))
    if kind in _NEEDS_REF or (kind in _NEEDS_NOUN and not _ITEM_NOUN.search(sentence)):
        return None
    return ctx.subject


def check_state_claims(text: str, ctx: GuardContext) -> list[Violation]:
    """ "#N was merged / closed / approved / reverted / is still open" must match the data."""
    if ctx.states is None:
        return []
    found = []
    masked = _QUOTED.sub(lambda m: " " * len(m.group(0)), text)
    for sentence in _SENTENCE.split(masked):
        for match in _STATE.finditer(sentence):
            kind = match.lastgroup or ""
            if kind != "unmerged" and _hedged(sentence, match.start()):
                continue
            number = _claim_subject(sentence, match, kind, ctx)
            if number is None:
                continue
            state = ctx.states.get(number)
            if state is None:
                found.append(Violation("state", f"#{number} is called {kind}, not in the data"))
            elif not _claim_true(kind, state):
                detail = f"#{number} is called {kind}, but it is {state.describe()}"
                found.append(Violation("state", detail))
    return found
