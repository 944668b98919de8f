"""``devdigest init github-actions``: the workflow validates against the published schema for
GitHub workflows (schemastore's, as vendored by check-jsonschema: no network) and does what the
docs say."""

from __future__ import annotations

import json
import shlex
from datetime import date
from importlib.resources import files

import jsonschema
import pytest
from ruamel.yaml import YAML

from devdigest.cli import main
from devdigest.config import Config, Project, Schedule
from devdigest.run.workflow import daily_crons, render_workflow

SCHEMA = "builtin_schemas/vendor/github-workflows.json"


def load(text: str) -> dict:
    return YAML(typ="safe").load(text)


def check(workflow: dict) -> None:
    schema = json.loads(files("check_jsonschema").joinpath(SCHEMA).read_text("utf-8"))
    jsonschema.Draft7Validator(schema).validate(workflow)


def test_the_generated_workflow_is_valid_and_complete(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "devdigest.toml").write_text(
        '[[projects]]\nrepo = "vllm-project/vllm"\ntz = "Asia/Shanghai"\n'
        'notify = ["team"]\n[projects.schedule]\ncutoff = "11:24"\n'
        '[[targets]]\nname = "team"\ntype = "feishu"\nurl_env = "FEISHU_URL"\n'
        'secret_env = "FEISHU_SECRET"\n'
    )
    monkeypatch.setenv("DEVDIGEST_CONFIG", str(tmp_path / "devdigest.toml"))
    assert main(["init", "github-actions", "--install", "devdigest[postgres]==0.1.0"]) == 0
    path = tmp_path / ".github" / "workflows" / "devdigest.yml"
    workflow = load(path.read_text("utf-8"))
    check(workflow)
    on = workflow["on"]
    assert on["schedule"] == [{"cron": "39 3 * * *"}]  # 11:24 UTC+8 = 03:24 UTC, +15 min
    assert "workflow_dispatch" in on
    steps = workflow["jobs"]["report"]["steps"]
    runs = [step.get("run", "") for step in steps]
    assert "python -m pip install 'devdigest[postgres]==0.1.0'" in runs
    assert any(r.startswith("devdigest run") for r in runs)
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert uses.index("actions/cache/restore") < uses.index("actions/cache/save")
    assert "actions/upload-pages-artifact" in uses
    upload = next(s for s in steps if s.get("id") == "upload")
    assert upload["if"] == "always() && steps.run.outcome != 'skipped'"  # also after a failure
    deploy = workflow["jobs"]["deploy"]
    assert deploy["if"] == "always() && needs.report.outputs.site == 'success'"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    env = workflow["jobs"]["report"]["env"]
    assert env["DEVDIGEST_GITHUB_TOKEN"].startswith("${{ secrets.")
    assert env["FEISHU_URL"] == "${{ secrets.FEISHU_URL }}"  # notification secrets, by name
    assert env["FEISHU_SECRET"] == "${{ secrets.FEISHU_SECRET }}"
    assert main(["init", "github-actions"]) == 1  # never overwrites without --force


@pytest.mark.parametrize("install", ["devdigest", "git+https://example.org/x.git#egg=devdigest"])
def test_install_specs_are_quoted_for_yaml_and_the_shell(install):
    workflow = load(render_workflow(Config(), install=install))
    check(workflow)
    command = shlex.split(workflow["jobs"]["report"]["steps"][2]["run"])
    assert command == ["python", "-m", "pip", "install", install]  # one word for the shell


def test_one_cron_per_distinct_cutoff_in_utc():
    config = Config(
        schedule=Schedule(cutoff="00:00"),
        projects=[
            Project(repo="a/b", tz="America/New_York"),
            Project(repo="c/d", tz="UTC", schedule=Schedule(cutoff="06:30")),
            Project(repo="e/f", tz="Etc/GMT-2", schedule=Schedule(cutoff="08:30")),
        ],
    )
    summer, winter = date(2026, 7, 1), date(2026, 1, 15)
    assert daily_crons(config, summer) == ["15 4 * * *", "45 6 * * *"]
    assert daily_crons(config, winter) == ["15 5 * * *", "45 6 * * *"]
