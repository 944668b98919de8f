"""Configuration: flags > environment > devdigest.toml > built-in defaults."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import platformdirs
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from devdigest.errors import ConfigError
from devdigest.window import resolve_tz

# GitHub's rules: an owner is letters, digits and single inner hyphens (underscores for managed
# users), at most 39 characters; a name is letters, digits, ``.``, ``-`` and ``_``, at most 100,
# and never ``.`` or ``..`` (so a name can never climb out of a folder).
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9_-]{0,37}[A-Za-z0-9_])?"
_NAME = r"(?!\.\.?$)[A-Za-z0-9._-]{1,100}"
REPO_RE = re.compile(rf"^{_OWNER}/{_NAME}$")


def validate_repo(repo: str) -> str:
    """``repo`` if it is a valid GitHub ``OWNER/NAME``, else a ConfigError saying so."""
    if not REPO_RE.fullmatch(repo):
        raise ConfigError(
            f"bad repository {repo!r}: write it as OWNER/NAME with GitHub's characters "
            "(letters, digits, '-', '_', '.'), e.g. vllm-project/vllm"
        )
    return repo


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


ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
TargetType = Literal[
    "slack", "discord", "feishu", "dingtalk", "wecom", "telegram", "email", "webhook", "apprise"
]


class NotifyTarget(_Strict):
    """A named message destination. Secrets are never written here: only the names of the
    environment variables that hold them (``*_env``)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    type: TargetType
    kinds: list[Literal["daily", "weekly", "monthly"]] = Field(default_factory=lambda: ["daily"])
    langs: list[str] | None = None  # report languages it receives (None: every language)
    url_env: str | None = None  # webhook URL (slack, discord, feishu, dingtalk, wecom, webhook)
    secret_env: str | None = None  # signing secret (feishu, dingtalk, webhook)
    token_env: str | None = None  # telegram bot token
    chat_id: str | None = None  # telegram
    api_url: str = "https://api.telegram.org"  # telegram Bot API server
    smtp_host: str | None = None  # email
    smtp_port: int = 587
    smtp_user: str | None = None
    password_env: str | None = None
    starttls: bool = True
    smtp_cafile: str | None = None  # CA bundle to verify the server (default: the system's)
    sender: str | None = None
    recipients: list[str] = Field(default_factory=list)

    @field_validator("url_env", "secret_env", "token_env", "password_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_NAME_RE.match(value):
            raise ValueError("must be the NAME of an environment variable, never the secret")
        return value

    @model_validator(mode="after")
    def _complete(self) -> NotifyTarget:
        missing = [key for key in _TARGET_NEEDS[self.type] if not getattr(self, key)]
        if self.type == "email" and self.smtp_user and not self.password_env:
            missing.append("password_env (with smtp_user)")
        if missing:
            raise ValueError(f"a {self.type} target needs {', '.join(missing)}")
        return self


_TARGET_NEEDS: dict[str, tuple[str, ...]] = {
    "slack": ("url_env",),
    "discord": ("url_env",),
    "feishu": ("url_env",),
    "dingtalk": ("url_env",),
    "wecom": ("url_env",),
    "webhook": ("url_env", "secret_env"),
    "apprise": ("url_env",),
    "telegram": ("token_env", "chat_id"),
    "email": ("smtp_host", "sender", "recipients"),
}


class Schedule(_Strict):
    """When a project's reports fall due (``devdigest run``); see docs/configuration.md."""

    cutoff: str = "00:00"  # local time (the project's tz) at which each window ends
    window: str = "day"  # a kind of devdigest.run.windows.WINDOW_KINDS: day (calendar) or 24h
    langs: list[str] = Field(default_factory=lambda: ["zh"])
    writer: str = "auto"  # auto | offline | llm
    periods: list[str] = Field(default_factory=list)  # week and/or month reports `run` writes

    @field_validator("periods")
    @classmethod
    def _known_periods(cls, value: list[str]) -> list[str]:
        if any(kind not in ("week", "month") for kind in value):
            raise ValueError("periods must list week and/or month, e.g. ['week', 'month']")
        return value

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
    notify: list[str] = Field(default_factory=list)  # names of [[targets]] to message
    schedule: Schedule | None = None  # None: the top-level [schedule]

    @field_validator("repo")
    @classmethod
    def _repo_shape(cls, value: str) -> str:
        if not REPO_RE.fullmatch(value):
            raise ValueError("must look like OWNER/NAME with GitHub's characters")
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
    github_max_pages: int = Field(5000, ge=1)  # per listing and run; past it the sync stops
    github_max_response_mb: int = Field(64, ge=1)  # a larger answer is refused
    github_request_deadline: float = Field(300.0, gt=0)  # seconds, whole request included
    github_tokens: list[SecretStr] = Field(default_factory=list)  # a pool shared by the workers
    broker_url: str = "redis://127.0.0.1:6379/0"  # Celery broker (redis:// or amqp://)
    result_backend: str | None = None  # optional Celery result backend (devdigest needs none)
    out: str = "reports"
    site_out: str = "site"
    # Day pages of the site: {owner} {repo} {date} {year} {month} {lang} {lang_suffix}, where
    # lang_suffix is "" for site_lang and ".LANG" otherwise (2026-03-12.html, 2026-03-12.en.html).
    site_path_pattern: str = "{owner}/{repo}/{date}{lang_suffix}.html"
    site_lang: str = "zh"  # the site's main language: no path suffix, used for home/project pages
    site_url: str | None = None  # the site's public URL: feed and message links become absolute
    targets: list[NotifyTarget] = Field(default_factory=list)  # notification destinations
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
        validate_repo(repo)
        for project in self.projects + _presets():
            if project.repo.lower() == repo.lower():
                return project
        return Project(repo=repo)

    def target(self, name: str) -> NotifyTarget:
        for target in self.targets:
            if target.name == name:
                return target
        known = ", ".join(t.name for t in self.targets) or "none configured"
        raise ConfigError(f"no notification target {name!r} ({known}): add a [[targets]] table")

    def targets_for(self, project: Project) -> list[NotifyTarget]:
        return [self.target(name) for name in project.notify]

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

    @field_validator("github_api_url")
    @classmethod
    def _api_scheme(cls, value: str) -> str:
        if urlsplit(value).scheme.lower() not in ("http", "https"):
            raise ValueError(
                f"{value!r} has no http:// or https:// scheme: write it in full, e.g. "
                "https://api.github.com or https://HOST/api/v3"
            )
        return value

    def redacted(self) -> dict[str, Any]:
        """The effective configuration with secrets replaced, for ``config show``, and the
        built-in presets that apply to repositories not in ``projects``."""
        shown = self.model_dump(mode="json")  # SecretStr dumps as "**********"
        shown["github_api_url"] = redact_url(shown["github_api_url"])
        if shown["llm"].get("base_url"):
            shown["llm"]["base_url"] = redact_url(shown["llm"]["base_url"])
        mine = {project.repo.lower() for project in self.projects}
        presets = [p for p in _presets() if p.repo.lower() not in mine]
        return shown | {"presets": [p.model_dump(mode="json") for p in presets]}


def redact_url(url: str) -> str:
    """``url`` with any user name and password replaced by ``***``."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"***@{host}"))


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
    _check_targets(config, file or "settings")
    return config


def _check_targets(config: Config, where: object) -> None:
    """Target names are unique and every project's ``notify`` names an existing target."""
    names = [t.name for t in config.targets]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"invalid configuration in {where}: duplicate target names {dupes}")
    for project in config.projects:
        unknown = sorted(set(project.notify) - set(names))
        if unknown:
            raise ConfigError(
                f"invalid configuration in {where}: project {project.repo} notifies unknown "
                f"targets {unknown}; define them as [[targets]] with these names"
            )
