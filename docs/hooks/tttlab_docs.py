"""MkDocs hooks: the pages that are built from the code rather than written by hand.

- The lessons (``notebooks/*.py``, jupytext percent format) become the Tutorials pages;
  mkdocs-jupyter executes them during the build, so a lesson that fails fails the build.
- ``changelog.md`` is ``CHANGELOG.md``, and ``openapi.json`` the web app's schema.
- Markers in a page stand for what the code declares: ``<!-- openapi -->`` every route
  of the web API; ``<!-- cli -->`` every command (mkdocs-click) and its examples;
  ``<!-- api: MODULE -->`` a mkdocstrings entry for each name the module exports;
  ``<!-- hyperparameters: LEARNER -->`` and ``<!-- defaults: LEARNERS -->`` tables from
  :mod:`tttlab.hyperparameters`.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9]*.py"))


@event_priority(100)  # before mkdocs-jupyter's, which turns them into notebook pages
def on_files(files: Files, config: Any) -> Files:
    for lesson in LESSONS:  # pages notebooks/NN_name/, read from the lesson itself
        files.append(
            File(
                f"notebooks/{lesson.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    files.append(File.generated(config, "changelog.md", abs_src_path=str(ROOT / "CHANGELOG.md")))
    files.append(File.generated(config, "openapi.json", content=json.dumps(_schema(), indent=1)))
    return files


@functools.cache  # one app per build: the HTTP page and openapi.json both read it
def _schema() -> dict[str, Any]:
    from tttlab.web.app import create_app

    return create_app().openapi()


def _type(schema: dict[str, Any], components: dict[str, Any]) -> str:
    """A schema's type in a few words (``integer``, ``array of string``, a model's name)."""
    if "$ref" in schema:
        return f"`{schema['$ref'].rsplit('/', 1)[-1]}`"
    if "anyOf" in schema:
        return " or ".join(_type(s, components) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}), components)}"
    return str(kind)


def _limits(schema: dict[str, Any]) -> str:
    keys = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "pattern")
    found = [f"{key} {schema[key]}" for key in keys if key in schema]
    for option in schema.get("anyOf", []):
        found += [f"{key} {option[key]}" for key in keys if key in option]
    if "enum" in schema:
        found.append("one of " + ", ".join(f"`{v}`" for v in schema["enum"]))
    return "; ".join(found)


def _model(name: str, schema: dict[str, Any], components: dict[str, Any]) -> list[str]:
    lines = [f"#### `{name}`", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    properties = schema.get("properties", {})
    if not properties:
        return [*lines, f"Type: {_type(schema, components)}.", ""]
    required = set(schema.get("required", []))
    lines += ["| field | type | required | default | limits |", "| --- | --- | --- | --- | --- |"]
    for field, spec in properties.items():
        default = json.dumps(spec["default"]) if "default" in spec else ""
        lines.append(
            f"| `{field}` | {_type(spec, components)} | {'yes' if field in required else ''} "
            f"| {default} | {_limits(spec)} |"
        )
    return [*lines, ""]


def http_reference(schema: dict[str, Any]) -> str:
    """The HTTP API as Markdown: each route's summary, parameters, body and responses."""
    components = schema.get("components", {}).get("schemas", {})
    lines = [
        f"The web server's API, version {schema['info']['version']}, built from the OpenAPI "
        "schema the server itself serves at `/openapi.json` (a copy: "
        "[openapi.json](../openapi.json)).",
        "",
    ]
    for path, methods in schema["paths"].items():
        for method, route in methods.items():
            lines += [f"### `{method.upper()} {path}`", ""]
            if route.get("summary"):
                lines += [f"**{route['summary']}.**", ""]
            if route.get("description"):
                lines += [route["description"], ""]
            for parameter in route.get("parameters", []):
                lines.append(
                    f"- {parameter['in']} parameter `{parameter['name']}`: "
                    f"{_type(parameter.get('schema', {}), components)}"
                    + (" (required)" if parameter.get("required") else "")
                )
            body = route.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                lines.append(f"- body: {_type(body['schema'], components)}")
            for status, response in route.get("responses", {}).items():
                lines.append(f"- `{status}`: {response.get('description', '')}")
            lines.append("")
    lines += ["## Models", ""]
    for name, model in components.items():
        lines += _model(name, model, components)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return generated(markdown)


def hyperparameter_table(learner: str) -> str:
    """Every option of ``learner`` with its default, range and help, from its declaration
    in :mod:`tttlab.hyperparameters` (what ``ttt train --help`` shows too)."""
    from tttlab.hyperparameters import for_learner
    from tttlab.training.runs import default_episodes

    lines = [
        "| option | default | range | meaning |",
        "| --- | --- | --- | --- |",
        f"| `--episodes` | {default_episodes(learner, 9):,} on 3×3; "
        f"{default_episodes(learner, 16):,} up to 16 cells; "
        f"{default_episodes(learner, 25):,} beyond | | episodes (self-play games) in all |",
    ]
    for h in for_learner(learner):
        option = f"`{h.option}` / `--no-{h.option[2:]}`" if h.kind == "switch" else f"`{h.option}`"
        lines.append(f"| {option} | {h.default_text(learner)} | {h.range_text()} | {h.help} |")
    return "\n".join(lines)


def _schedule_text(learner: str, name: str) -> str:
    from tttlab.hyperparameters import BY_NAME

    start = BY_NAME[name].default_text(learner)
    kind = BY_NAME[f"{name}_schedule"].default(learner)
    if kind == "constant":
        return start
    return f"{kind} {start} → {BY_NAME[f'{name}_end'].default_text(learner)}"


def defaults_table(learners: list[str]) -> str:
    """The table learners' defaults side by side, from their declaration."""
    from tttlab.hyperparameters import for_learner

    lines = ["| learner | ε | α | other |", "| --- | --- | --- | --- |"]
    for learner in learners:
        other = [
            f"{h.name.replace('_', ' ')} {h.default_text(learner)}"
            for h in for_learner(learner)
            if not h.name.startswith(("epsilon", "alpha"))
        ]
        lines.append(
            f"| `{learner}` | {_schedule_text(learner, 'epsilon')} | "
            f"{_schedule_text(learner, 'alpha')} | {', '.join(other)} |"
        )
    return "\n".join(lines)


_GENERATED = re.compile(r"<!-- (hyperparameters|defaults): ([a-z -]+?) -->")


def generated(markdown: str) -> str:
    """The markers of a page replaced by what they stand for."""

    def table(match: re.Match[str]) -> str:
        kind, names = match.group(1), match.group(2).split()
        return (
            hyperparameter_table(names[0]) if kind == "hyperparameters" else defaults_table(names)
        )

    markdown = _GENERATED.sub(table, markdown)
    markdown = _API.sub(lambda match: api_reference(match.group(1)), markdown)
    if "<!-- cli -->" in markdown:
        markdown = markdown.replace("<!-- cli -->", cli_reference())
    if "<!-- openapi -->" in markdown:
        markdown = markdown.replace("<!-- openapi -->", http_reference(_schema()))
    return markdown


_API = re.compile(r"<!-- api: ([a-z0-9_.]+) -->")


def api_reference(module: str) -> str:
    """A mkdocstrings entry for every name a module exports (its ``__all__``), so a new
    public name cannot be left out of the reference. ``tttlab``'s names are documented
    where the package loads them from (its ``_LAZY`` table)."""
    import importlib

    import tttlab

    homes = tttlab._LAZY if module == "tttlab" else {}
    names = [name for name in importlib.import_module(module).__all__ if not name.startswith("_")]
    return "\n".join(
        f"::: {homes.get(name, module)}.{name}\n    options:\n      heading_level: 4\n"
        for name in names
    )


def cli_reference() -> str:
    """One section per ``ttt`` command: mkdocs-click's rendering of the command itself (its
    help, usage and every option), then its examples (``tttlab.cli.EXAMPLES``, which its
    ``--help`` shows too)."""
    import importlib

    from tttlab.cli import EXAMPLES, every_command

    sections = []
    for name, command in every_command().items():
        module = importlib.import_module(command.callback.__module__)
        attribute = next(key for key, value in vars(module).items() if value is command)
        examples = "\n".join(EXAMPLES[name])
        sections.append(
            f"::: mkdocs-click\n    :module: {module.__name__}\n    :command: {attribute}\n"
            f"    :prog_name: ttt {name}\n    :depth: 1\n    :style: table\n\n"
            f"**Examples**\n\n```console\n{examples}\n```\n"
        )
    return "\n".join(sections)


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """Click's no-rewrap marker (``\\b``, a backspace) means nothing on a web page, and
    click 8.3's "no default" sentinel (which mkdocs-click 0.9 prints) is no default."""
    html = html.replace("<code>Sentinel.UNSET</code>", "")
    return html.replace("\x08", "")
