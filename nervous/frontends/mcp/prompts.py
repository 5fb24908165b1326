"""MCP prompts: the goal workflows as slash commands for MCP clients (``/cortex``-style).

The texts are the pi package's prompt files and the goal-workflow skill (shipped in
:mod:`nervous.frontends.integrations`), so every host reads the same words. Plain data here; the two SDK
handlers at the bottom import the SDK only when a server is built.
"""

from __future__ import annotations

import re
from typing import Any

from attrs import frozen

from ...errors import BadInput


@frozen
class PromptSpec:
    """One MCP prompt: its name, what it does, its arguments (name, description, required)."""

    name: str
    title: str
    description: str
    source: str  # file under nervous/frontends/integrations
    arguments: tuple[tuple[str, str, bool], ...] = ()


PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec("cortex", "Goal workflow for a request",
               "Run the goal workflow end to end for a request: frame, analyze, plan, link, execute, verify, "
               "review, complete.", "pi/prompts/cortex.md",
               (("request", "What the user wants done, as said.", True),)),
    PromptSpec("cortex-resume", "Resume the current goal",
               "Resume the current goal where work stopped, from its 'what next' hint.", "pi/prompts/cortex-resume.md",
               (("instructions", "Anything the user adds.", False),)),
    PromptSpec("nervous-drain", "Drain unfinished goals",
               "Work through every unfinished goal of this project within the drain budgets and the risk gate.",
               "pi/prompts/nervous.md", (("instructions", "Anything the user adds.", False),)),
    PromptSpec("goal-workflow", "The goal workflow",
               "The goal workflow (steps 0-8, resume and drain): when to analyze, plan, verify and complete.",
               "openclaw/goal-workflow/SKILL.md"),
)

_FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def _text(source: str) -> str:
    from importlib.resources import files

    return files("nervous.frontends.integrations").joinpath(source).read_text(encoding="utf-8")


def render(name: str, arguments: dict[str, Any] | None = None) -> tuple[PromptSpec, str]:
    """The prompt's text with its arguments filled in (``$ARGUMENTS``); a bad call is ``BadInput``."""
    spec = next((p for p in PROMPTS if p.name == name), None)
    if spec is None:
        raise BadInput(f"unknown prompt {name!r}; available: {', '.join(p.name for p in PROMPTS)}",
                       code="invalid_arg")
    args = dict(arguments or {})
    known = {a[0] for a in spec.arguments}
    unknown = sorted(set(args) - known)
    if unknown:
        raise BadInput(f"prompt {name}: unknown argument(s) {', '.join(unknown)}", code="invalid_arg")
    for arg, _desc, required in spec.arguments:
        if required and not str(args.get(arg) or "").strip():
            raise BadInput(f"prompt {name}: argument {arg!r} is required", code="invalid_arg")
    filled = " ".join(str(args[a[0]]).strip() for a in spec.arguments if args.get(a[0]))
    body = _FRONTMATTER.sub("", _text(spec.source), count=1)
    body = body.replace("$ARGUMENTS", filled).replace("$@", filled)
    return spec, re.sub(r"\n{3,}", "\n\n", body).strip()


def list_prompts_handler() -> Any:
    """The SDK ``on_list_prompts`` handler."""
    import mcp_types as types

    prompts = [types.Prompt(name=p.name, title=p.title, description=p.description,
                            arguments=[types.PromptArgument(name=n, description=d, required=r)
                                       for n, d, r in p.arguments])
               for p in PROMPTS]

    async def list_prompts(ctx: Any, params: Any) -> Any:
        return types.ListPromptsResult(prompts=prompts)

    return list_prompts


def get_prompt_handler() -> Any:
    """The SDK ``on_get_prompt`` handler; a bad name or argument is a protocol error (invalid params)."""
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    async def get_prompt(ctx: Any, params: Any) -> Any:
        try:
            spec, text = render(params.name, dict(params.arguments or {}))
        except BadInput as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=exc.message) from None
        return types.GetPromptResult(description=spec.description, messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])

    return get_prompt


__all__ = ["PROMPTS", "PromptSpec", "render", "list_prompts_handler", "get_prompt_handler"]
