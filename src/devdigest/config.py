"""Configuration: flags > environment > devdigest.toml > built-in defaults."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from devdigest.errors import ConfigError
from devdigest.window import resolve_tz

REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Rule(_Strict):
    """Matching rules shared by categories and focus areas."""

    name: str
    name_zh: str | None = None
    labels: list[str] = Field(default_factory=list)
    title_tags: list[str] = Field(default_factory=list)  # without brackets: "ROCm" matches "[ROCm]"
    keywords: list[str] = Field(default_factory=list)
    authors: list[str] = Field(default_factory=list)  # explicit opt-in lists, never inferred

    def display(self, lang: str) -> str:
        return self.name_zh if lang == "zh" and self.name_zh else self.name


class LLMSettings(_Strict):
    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str | None = None
    temperature: float = 0.2
    max_concurrency: int = Field(4, ge=1, le=64)
    token_budget: int = Field(120_000, ge=1000)  # prompt + completion tokens per report
    timeout: float = Field(120.0, gt=0)
    price_prompt_per_m: float | None = None  # USD per million prompt tokens
    price_completion_per_m: float | None = None

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


class Schedule(_Strict):
    """When a project's reports fall due (``devdigest run``); see docs/configuration.md."""

    cutoff: str = "00:00"  # local time (the project's tz) at which each window ends
    window: str = "day"  # a kind of devdigest.run.windows.WINDOW_KINDS: day (calendar) or 24h
    langs: list[str] = Field(default_factory=lambda: ["zh"])
    writer: str = "auto"  # auto | offline | llm

    @field_validator("cutoff")
    @classmethod
    def _hh_mm(cls, value: str) -> str:
        if value == "midnight":
            return "00:00"
        if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", value):
            raise ValueError("cutoff must be HH:MM in the project's tz, e.g. '11:24' or '00:00'")
        return value

    @field_validator("window")
    @classmethod
    def _known_window(cls, value: str) -> str:
        from devdigest.run.windows import WINDOW_KINDS

        if value not in WINDOW_KINDS:
            raise ValueError(f"window must be one of {', '.join(WINDOW_KINDS)}")
        return value

    @field_validator("langs")
    @classmethod
    def _known_langs(cls, value: list[str]) -> list[str]:
        if not value or any(lang not in ("zh", "en") for lang in value):
            raise ValueError("langs must list zh and/or en, e.g. ['zh', 'en']")
        return list(dict.fromkeys(value))

    @field_validator("writer")
    @classmethod
    def _known_writer(cls, value: str) -> str:
        if value not in ("auto", "offline", "llm"):
            raise ValueError("writer must be auto, offline or llm")
        return value


class Project(_Strict):
    repo: str
    name: str | None = None
    tz: str = "UTC"
    focus: list[Rule] = Field(default_factory=list)
    categories: list[Rule] | None = None  # None: the built-in categories
    llm: LLMSettings | None = None
    schedule: Schedule | None = None  # None: the top-level [schedule]

    @field_validator("repo")
    @classmethod
    def _repo_shape(cls, value: str) -> str:
        if not REPO_RE.match(value):
            raise ValueError("must look like OWNER/NAME")
        return value

    @field_validator("tz")
    @classmethod
    def _known_tz(cls, value: str) -> str:
        try:
            resolve_tz(value)
        except ConfigError as exc:  # a ValueError lets pydantic report it with the others
            raise ValueError(str(exc)) from exc
        return value

    @property
    def display_name(self) -> str:
        return self.name or self.repo.split("/", 1)[1]


class Config(_Strict):
    db: str = Field(default_factory=lambda: str(default_db_path()))
    github_api_url: str = "https://api.github.com"
    github_token: SecretStr | None = None
    github_rate_reserve: int = Field(50, ge=0)  # below this many requests left, wait for reset
    github_max_tries: int = Field(6, ge=1, le=20)  # per request, for 5xx, resets and limits
    github_graphql: bool = False  # batch PR reviews in GraphQL queries (REST fallback)
    github_tokens: list[SecretStr] = Field(default_factory=list)  # a pool shared by the workers
    broker_url: str = "redis://127.0.0.1:6379/0"  # Celery broker (redis:// or amqp://)
    result_backend: str | None = None  # Celery results [default: the broker, if Redis]
    out: str = "reports"
    site_out: str = "site"
    # Day pages of the site: {owner} {repo} {date} {year} {month} {lang} {lang_suffix}, where
    # lang_suffix is "" for site_lang and ".LANG" otherwise (2026-03-12.html, 2026-03-12.en.html).
    site_path_pattern: str = "{owner}/{repo}/{date}{lang_suffix}.html"
    site_lang: str = "zh"  # the site's main language: no path suffix, used for home/project pages
    site_url: str | None = None  # the site's public URL: feed (and message) links become absolute
    schedule: Schedule = Field(default_factory=Schedule)  # default for every project
    projects: list[Project] = Field(default_factory=list)
    categories: list[Rule] = Field(default_factory=list)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    source: str | None = None  # the devdigest.toml that was read, if any

    @field_validator("github_tokens", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [token.strip() for token in value.split(",") if token.strip()]
        return value

    def token_pool(self) -> list[str]:
        """The tokens workers share: ``github_tokens``, else the single ``github_token``."""
        tokens = [t.get_secret_value() for t in self.github_tokens]
        if not tokens and self.github_token:
            tokens = [self.github_token.get_secret_value()]
        return tokens

    def project(self, repo: str) -> Project:
        """The configured project for ``repo``, else a built-in preset, else a bare project."""
        for project in self.projects + _presets():
            if project.repo.lower() == repo.lower():
                return project
        if not REPO_RE.match(repo):
            raise ConfigError(
                f"bad repository {repo!r}: write it as OWNER/NAME, e.g. vllm-project/vllm"
            )
        return Project(repo=repo)

    def categories_for(self, project: Project) -> list[Rule]:
        return project.categories if project.categories is not None else self.categories

    def llm_for(self, project: Project) -> LLMSettings:
        """Global LLM settings overlaid by the project's own."""
        if project.llm is None:
            return self.llm
        return self.llm.model_copy(update=project.llm.model_dump(exclude_unset=True))

    def schedule_for(self, project: Project) -> Schedule:
        """The top-level schedule overlaid by the project's own."""
        if project.schedule is None:
            return self.schedule
        return self.schedule.model_copy(update=project.schedule.model_dump(exclude_unset=True))

    def redacted(self) -> dict[str, Any]:
        """The effective configuration with secrets replaced, for ``config show``."""
        return self.model_dump(mode="json")  # SecretStr dumps as "**********"


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir("devdigest")) / "devdigest.sqlite3"


@functools.cache
def _defaults() -> dict[str, Any]:
    """The packaged defaults.toml, read once (callers must not change it)."""
    return tomllib.loads(files("devdigest").joinpath("defaults.toml").read_text("utf-8"))


def _presets() -> list[Project]:
    return [Project(**preset) for preset in _defaults().get("presets", [])]


def find_config_file(explicit: str | None, env: Mapping[str, str]) -> Path | None:
    """``--config``, ``DEVDIGEST_CONFIG``, ``./devdigest.toml``, then the user config dir."""
    chosen = explicit or env.get("DEVDIGEST_CONFIG")
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file {path} not found: fix --config or DEVDIGEST_CONFIG")
        return path
    for path in (
        Path("devdigest.toml"),
        Path(platformdirs.user_config_dir("devdigest")) / "devdigest.toml",
    ):
        if path.is_file():
            return path
    return None


_ENV = {  # setting → environment variables, first found wins
    "db": ("DEVDIGEST_DB",),
    "github_api_url": ("DEVDIGEST_GITHUB_API_URL",),
    "github_token": ("DEVDIGEST_GITHUB_TOKEN", "GITHUB_TOKEN"),
    "github_graphql": ("DEVDIGEST_GITHUB_GRAPHQL",),
    "github_tokens": ("DEVDIGEST_GITHUB_TOKENS",),
    "broker_url": ("DEVDIGEST_BROKER_URL",),
    "result_backend": ("DEVDIGEST_RESULT_BACKEND",),
    "out": ("DEVDIGEST_OUT",),
    "site_url": ("DEVDIGEST_SITE_URL",),
}
_LLM_ENV = {
    "base_url": ("DEVDIGEST_LLM_BASE_URL", "OPENAI_BASE_URL"),
    "api_key": ("DEVDIGEST_LLM_API_KEY", "OPENAI_API_KEY"),
    "model": ("DEVDIGEST_LLM_MODEL", "OPENAI_MODEL"),
}


def _from_env(table: Mapping[str, tuple[str, ...]], env: Mapping[str, str]) -> dict[str, str]:
    found = {}
    for key, names in table.items():
        value = next((env[n] for n in names if env.get(n)), None)
        if value is not None:
            found[key] = value
    return found


def load_config(
    path: str | None = None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """Merge defaults, file, environment and flags; every problem is reported in one error."""
    env = os.environ if env is None else env
    file = find_config_file(path, env)
    data: dict[str, Any] = {"categories": _defaults()["categories"]}
    if file:
        try:
            data |= tomllib.loads(file.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"{file}: not valid TOML ({exc}); fix the file or pass --config"
            ) from exc
        data["source"] = str(file)
    data |= _from_env(_ENV, env)
    llm = dict(data.get("llm") or {}) | _from_env(_LLM_ENV, env)
    data["llm"] = llm
    data |= {k: v for k, v in (flags or {}).items() if v is not None}
    try:
        config = Config(**data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'config'}: {err['msg']}"
            for err in exc.errors()
        )
        where = file or "settings"
        raise ConfigError(f"invalid configuration in {where}: {problems}") from exc
    config.github_api_url = config.github_api_url.rstrip("/")
    return config
