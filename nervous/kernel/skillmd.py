"""The SKILL.md parser (specs/protocols.md §C5): lenient for other people's skills, strict on request.

Bad content never raises: problems are data (``errors`` are fatal for the skill, ``warnings`` are
not), because a scanner must still see what it can of a broken file and assume the worst about
the rest. :func:`validate_skill_md` is the strict check for skills we write ourselves.

YAML is parsed with PyYAML's safe loader (imported on first use), restricted further: YAML 1.2
core scalars only (``yes``/``no`` and dates stay strings), no aliases, no tags beyond the core.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from attrs import define, field, frozen

#: File names accepted for a skill's instructions, in order of preference (§C4.4).
SKILL_FILE_NAMES: tuple[str, ...] = ("SKILL.md", "skill.md", "skills.md", "SKILL.MD")
#: Default size limit for a SKILL.md file (specs/security.md §8).
DEFAULT_MAX_SKILL_MD_BYTES = 256 * 1024

#: Top-level keys of the Agent Skills specification (§C1).
SPEC_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})
#: Top-level keys OpenClaw adds (§C2).
OPENCLAW_KEYS = frozenset(
    {"user-invocable", "disable-model-invocation", "command-dispatch", "command-tool", "command-arg-mode",
     "homepage"}
)
#: Top-level keys slash-command hosts read (the hint shown after ``/name``; skill-evolver ships one).
HOST_KEYS = frozenset({"argument-hint"})
#: Metadata blocks, in OpenClaw's runtime precedence (§C5.5).
RUNTIME_BLOCKS: tuple[str, ...] = ("openclaw", "clawdbot", "clawdis")

_KEY_RE = re.compile(r"^[\w-]+\Z")
_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_OPEN_RE = re.compile(r"^---[ \t]*$")
_TOP_LINE_RE = re.compile(r"^([^\s#:'\"\-?][^:]*?|-[^\s:][^:]*?):(?:[ \t]+(.*?))?[ \t]*$")
_TRAILING_COMMA_RE = re.compile(r",(\s*[\]}])")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})

FrontmatterStatus = Literal["ok", "repaired", "partial", "missing", "unparsable"]


@frozen
class OpenClawMetadata:
    """Normalised ``metadata.openclaw`` (or a union of all blocks, for security classification)."""

    always: bool = False
    emoji: str | None = None
    homepage: str | None = None
    skill_key: str | None = None
    primary_env: str | None = None
    os: tuple[str, ...] = ()
    bins: tuple[str, ...] = ()
    any_bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    config: tuple[str, ...] = ()
    install: tuple[Mapping[str, Any], ...] = ()
    dependencies: tuple[Mapping[str, Any], ...] = ()
    #: which blocks contributed: ``openclaw``, ``clawdbot``, ``clawdis``, ``top-level``
    sources: tuple[str, ...] = ()

    @property
    def present(self) -> bool:
        return bool(self.sources)


@define(frozen=True)
class SkillDoc:
    """A parsed SKILL.md. ``errors`` non-empty means the skill must be skipped (or refused)."""

    frontmatter: dict[str, Any]
    body: str
    name: str | None = None
    description: str | None = None
    #: runtime metadata: the first present of openclaw, clawdbot, clawdis
    metadata: OpenClawMetadata = OpenClawMetadata()
    #: union of every block and the top-level fallbacks: what security classification uses
    security_metadata: OpenClawMetadata = OpenClawMetadata()
    frontmatter_status: FrontmatterStatus = "ok"
    #: why part of the frontmatter was not read although a standard YAML parser (the host agent's)
    #: reads it: an alias, or nesting too deep. What it declares is then unknown: assume the worst.
    frontmatter_unread: str | None = None
    skill_md_chars: int = 0
    errors: list[str] = field(factory=list)
    warnings: list[str] = field(factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    # Convenience accessors over the runtime metadata (use ``security_metadata`` to assume worst).
    @property
    def required_bins(self) -> tuple[str, ...]:
        return self.metadata.bins

    @property
    def required_any_bins(self) -> tuple[str, ...]:
        return self.metadata.any_bins

    @property
    def required_env(self) -> tuple[str, ...]:
        return self.metadata.env

    @property
    def required_config(self) -> tuple[str, ...]:
        return self.metadata.config

    @property
    def primary_env(self) -> str | None:
        return self.metadata.primary_env

    @property
    def always(self) -> bool:
        return self.metadata.always

    @property
    def os(self) -> tuple[str, ...]:
        return self.metadata.os

    @property
    def install_specs(self) -> tuple[Mapping[str, Any], ...]:
        return self.metadata.install

    @property
    def user_invocable(self) -> bool:
        return _bool(self.frontmatter.get("user-invocable"), True, "user-invocable", [])

    @property
    def disable_model_invocation(self) -> bool:
        return _bool(self.frontmatter.get("disable-model-invocation"), False, "disable-model-invocation", [])

    @property
    def allowed_tools(self) -> tuple[str, ...]:
        value = self.frontmatter.get("allowed-tools")
        if isinstance(value, str):
            return tuple(value.split())
        if isinstance(value, list):
            return tuple(str(v) for v in value if isinstance(v, (str, int, float)))
        return ()

    @property
    def license(self) -> str | None:
        value = self.frontmatter.get("license")
        return value if isinstance(value, str) else None

    @property
    def version(self) -> str | None:
        """``version`` from the frontmatter or from ``metadata.version`` (strings or numbers)."""
        for value in (self.frontmatter.get("version"), _raw_metadata(self.frontmatter).get("version")):
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
                return str(value).strip()
        return None


def find_skill_file(names: Iterable[str]) -> str | None:
    """The skill file among ``names`` (file names in one folder), by the preference of §C5.1."""
    present = set(names)
    for candidate in SKILL_FILE_NAMES:
        if candidate in present:
            return candidate
    return None


def parse_skill_md(
    text: str | bytes, *, directory: str | None = None, max_bytes: int = DEFAULT_MAX_SKILL_MD_BYTES
) -> SkillDoc:
    """Parse a SKILL.md leniently; never raises for bad content.

    ``directory`` is the skill folder's name (for the name/directory warning); ``max_bytes`` the
    size limit (fail closed: an oversize file is an error and is not parsed at all).
    """
    errors: list[str] = []
    warnings: list[str] = []
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        return SkillDoc({}, "", frontmatter_status="unparsable",
                        errors=[f"SKILL.md is {size} bytes, over the limit of {max_bytes} bytes"])
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            return SkillDoc({}, "", frontmatter_status="unparsable",
                            errors=[f"SKILL.md is not valid UTF-8 (byte {exc.start})"])
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    chars = len(text)

    raw_front, body, status = _split(text, warnings)
    frontmatter: dict[str, Any] = {}
    unread: str | None = None
    if raw_front is not None:
        parsed, status, unread = _load_frontmatter(raw_front, warnings)
        if parsed is None:
            errors.append("frontmatter is not valid YAML and no 'key: value' lines could be recovered")
        else:
            frontmatter = _clean_keys(parsed, warnings)

    name = _scalar(frontmatter.get("name"), "name", warnings)
    description = _scalar(frontmatter.get("description"), "description", warnings)
    if status == "missing":
        errors.append("no frontmatter: the first line must be '---' and a closing '---' line must follow")
    if not description or not description.strip():
        errors.append("description is missing or empty")
        description = None
    else:
        description = description.strip()
        if len(description) > 1024:
            warnings.append(f"description is {len(description)} characters (the limit is 1024)")
    if name is None:
        if status != "missing":
            warnings.append("name is missing")
    else:
        name = name.strip()
        if len(name) > 64:
            warnings.append(f"name is {len(name)} characters (the limit is 64)")
        if not _NAME_RE.match(name):
            warnings.append(f"name {name!r} should use lower-case letters, digits and single hyphens only")
        if directory is not None and name != directory:
            warnings.append(f"name {name!r} differs from the directory name {directory!r}")

    blocks = _metadata_blocks(frontmatter, warnings)
    runtime = next(((k, blocks[k]) for k in RUNTIME_BLOCKS if k in blocks), None)
    metadata = _normalise([runtime] if runtime else [], warnings)
    union_items = list(blocks.items())
    fallback = _top_level_fallbacks(frontmatter)
    if fallback:
        union_items.append(("top-level", fallback))
    security = _normalise(union_items, [])
    # Lenient booleans at the top level: surface a bad value once, as a warning.
    for key, default in (("user-invocable", True), ("disable-model-invocation", False)):
        if key in frontmatter:
            _bool(frontmatter[key], default, key, warnings)
    return SkillDoc(
        frontmatter=frontmatter, body=body, name=name, description=description, metadata=metadata,
        security_metadata=security, frontmatter_status=status, frontmatter_unread=unread, skill_md_chars=chars,
        errors=errors, warnings=list(dict.fromkeys(warnings)),
    )


def validate_skill_md(text: str | bytes, *, directory: str | None = None,
                      max_bytes: int = DEFAULT_MAX_SKILL_MD_BYTES) -> list[str]:
    """Strict validation for skills nervous writes: every problem, as a list of messages (empty = valid).

    Stricter than the spec's reference validator where it matters to us (the YAML must parse as
    written, the name must match the folder) and compatible with OpenClaw's nested metadata.
    """
    doc = parse_skill_md(text, directory=directory, max_bytes=max_bytes)
    problems = list(doc.errors) + list(doc.warnings)
    if doc.frontmatter_status in ("repaired", "partial"):
        problems.append("frontmatter must be valid YAML as written (quote values that contain ': ')")
    if doc.frontmatter_status == "missing":
        return problems
    if doc.name is None:
        problems.append("name is required")
    for key in sorted(set(doc.frontmatter) - SPEC_KEYS - OPENCLAW_KEYS - HOST_KEYS):
        problems.append(f"unknown top-level key {key!r} (put extra data under 'metadata')")
    compat = doc.frontmatter.get("compatibility")
    if compat is not None and (not isinstance(compat, str) or not 1 <= len(compat) <= 500):
        problems.append("compatibility must be a string of 1-500 characters")
    lic = doc.frontmatter.get("license")
    if lic is not None and not isinstance(lic, str):
        problems.append("license must be a string")
    tools = doc.frontmatter.get("allowed-tools")
    if tools is not None and not isinstance(tools, str):
        problems.append("allowed-tools must be a space-separated string")
    meta = doc.frontmatter.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        problems.append("metadata must be a mapping")
    if not doc.body.strip():
        problems.append("the body (instructions after the frontmatter) is empty")
    elif doc.body.count("\n") >= 500:
        problems.append("the body is 500 lines or more; move detail to references/")
    return list(dict.fromkeys(problems))


# --------------------------------------------------------------------------------------------
# Splitting and YAML
# --------------------------------------------------------------------------------------------


def _split(text: str, warnings: list[str]) -> tuple[str | None, str, FrontmatterStatus]:
    lines = text.split("\n")
    if not lines or not _OPEN_RE.match(lines[0]):
        return None, text, "missing"
    for i in range(1, len(lines)):
        if _OPEN_RE.match(lines[i]):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:]), "ok"
    warnings.append("frontmatter has no closing '---' line; the file is treated as having none")
    return None, text, "missing"


def _load_frontmatter(raw: str, warnings: list[str]) -> tuple[dict[Any, Any] | None, FrontmatterStatus, str | None]:
    """The frontmatter's mapping, how it was read, and the construct that kept part of it unread."""
    try:
        return _yaml_mapping(raw), "ok", None
    except _YamlFailure as first:
        repaired = _quote_colon_values(raw)
        if repaired != raw:
            try:
                result = _yaml_mapping(repaired)
                warnings.append("frontmatter needed quoting of values containing ': ' to parse")
                return result, "repaired", None
            except _YamlFailure:
                pass
        pairs = _line_pairs(raw)
        if not pairs:
            return None, "unparsable", first.refused
        if first.refused:
            warnings.append(f"frontmatter uses {first.refused}, which nervous does not read; only top-level "
                            "'key: value' lines were read, and what it declares counts as unknown")
        else:
            warnings.append(f"frontmatter is not valid YAML ({first}); only top-level 'key: value' lines were read")
        return pairs, "partial", first.refused


class _YamlFailure(Exception):
    def __init__(self, message: str, refused: str | None = None) -> None:
        super().__init__(message)
        #: a construct standard YAML allows that this reader refuses (an alias, nesting too deep)
        self.refused = refused


def _yaml_mapping(raw: str) -> dict[Any, Any]:
    data = _fast_yaml(raw)
    if data is _DECLINED:
        data = _python_yaml(raw)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _YamlFailure(f"frontmatter is a {type(data).__name__}, not a mapping")
    return data


#: what :func:`_fast_yaml` returns for text it leaves to the Python reader
_DECLINED: Any = object()
#: the deepest nesting the fast reader takes (deeper text is read by the Python reader, whose limit decides)
_FAST_DEPTH = 32


def _fast_yaml(raw: str) -> Any:
    """The frontmatter read by libyaml (a fifth of the Python reader's time), or :data:`_DECLINED`.

    Only an answer the Python reader would give too is returned. Declined, so that the Python reader gives its
    own answer or its own message: any libyaml error (its messages, and its reading of a few malformed lines,
    differ), a character the Python reader refuses, what the two read apart (``READ_APART``), and a tree
    :func:`_plain_tree` does not take. Both readers build the same values from the same nodes (one resolver
    and one constructor set)."""
    loader_cls = _c_loader()
    if loader_cls is None or loader_cls.NON_PRINTABLE.search(raw) or loader_cls.READ_APART.search(raw):
        return _DECLINED
    try:
        loader = loader_cls(raw)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            if not _plain_tree(node):
                return _DECLINED
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except Exception:  # noqa: BLE001 - the Python reader reads it again and words the error
        return _DECLINED


#: a plain scalar in a flow collection both readers read alike (``[gh, jq]``, ``{python: 3.11}``)
_FLOW_PLAIN = re.compile(r"[\w .+/@=<>^~-]*")


def _plain_tree(node: Any) -> bool:
    """Whether the fast reader's tree is one the Python reader builds alike: no node reached twice (an alias),
    none deeper than :data:`_FAST_DEPTH`, and inside a flow collection no plain scalar but words, numbers,
    versions and paths (``[a:b]``: libyaml reads YAML 1.2's plain scalar, the Python reader refuses it)."""
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    seen: set[int] = set()
    stack = [(node, 0, False)]
    while stack:
        one, depth, in_flow = stack.pop()
        if id(one) in seen or depth > _FAST_DEPTH:
            return False
        seen.add(id(one))
        if isinstance(one, ScalarNode):
            if in_flow and not one.style and not _FLOW_PLAIN.fullmatch(one.value):  # plain: None, or "" from libyaml
                return False
            continue
        flow = in_flow or bool(one.flow_style)
        if isinstance(one, MappingNode):
            stack.extend((part, depth + 1, flow) for pair in one.value for part in pair)
        elif isinstance(one, SequenceNode):
            stack.extend((item, depth + 1, flow) for item in one.value)
    return True


def _python_yaml(raw: str) -> Any:
    loader_cls = _loader()
    import yaml

    try:
        loader = loader_cls(raw)  # the reader rejects control characters here, before parsing
    except yaml.YAMLError as exc:
        raise _YamlFailure(str(exc).split("\n")[0]) from None
    try:
        return loader.get_single_data()
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as exc:
        if isinstance(exc, RecursionError):
            raise _YamlFailure("nesting too deep", "nesting too deep") from None
        msg = str(exc).split("\n")[0]
        raise _YamlFailure(msg, "a YAML alias" if "aliases are not allowed" in str(exc) else None) from None
    finally:
        loader.dispose()


_LOADER: Any = None


def _loader() -> Any:
    """A SafeLoader with YAML 1.2 core scalars and no aliases (built once, on first use)."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml
    from yaml.composer import ComposerError
    from yaml.events import AliasEvent

    class CoreSafeLoader(yaml.SafeLoader):  # type: ignore[misc]
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(AliasEvent):
                event = self.peek_event()
                raise ComposerError(None, None, "YAML aliases are not allowed", event.start_mark)
            return super().compose_node(parent, index)

    resolvers: dict[Any, list[Any]] = {}
    drop = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
            "tag:yaml.org,2002:timestamp"}
    for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items():
        kept = [(tag, rx) for tag, rx in entries if tag not in drop]
        if kept:
            resolvers[first] = kept
    CoreSafeLoader.yaml_implicit_resolvers = resolvers
    core = [
        ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
        ("tag:yaml.org,2002:float",
         r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
         "-+.0123456789"),
    ]
    for tag, rx, first_chars in core:
        CoreSafeLoader.add_implicit_resolver(tag, re.compile(rx), list(first_chars))

    def construct_int(loader: Any, node: Any) -> int:
        value = loader.construct_scalar(node)
        if value.startswith("0o"):
            return int(value[2:], 8)
        return int(value, 0) if value.startswith("0x") else int(value)

    def construct_float(loader: Any, node: Any) -> float:
        value = loader.construct_scalar(node).lower()
        if value.endswith(".inf"):
            return float("-inf") if value.startswith("-") else float("inf")
        return float("nan") if value == ".nan" else float(value)

    CoreSafeLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
    CoreSafeLoader.add_constructor("tag:yaml.org,2002:float", construct_float)
    _LOADER = CoreSafeLoader
    return _LOADER


_C_LOADER: Any = False  # not looked for yet; None when PyYAML was built without libyaml


def _c_loader() -> Any:
    """The Python reader's resolver and constructors on libyaml's parser, or None without libyaml."""
    global _C_LOADER
    if _C_LOADER is not False:
        return _C_LOADER
    python = _loader()
    import yaml

    if not getattr(yaml, "__with_libyaml__", False):
        _C_LOADER = None
        return None
    from yaml.constructor import SafeConstructor
    from yaml.cyaml import CParser
    from yaml.reader import Reader
    from yaml.resolver import Resolver

    class CoreCLoader(CParser, SafeConstructor, Resolver):  # type: ignore[misc]
        #: the characters the Python reader refuses (libyaml words its refusal differently)
        NON_PRINTABLE = Reader.NON_PRINTABLE
        #: what the two readers take apart (found by comparing them on generated text): tabs, carriage
        #: returns, byte-order marks and YAML 1.1's other line breaks (NEL, LS, PS); a tag (``!`` where a
        #: token starts); a comment straight after a block scalar's indicator (``|#``)
        READ_APART = re.compile("[\t\r\ufeff\x85\u2028\u2029]|(?:^|[\\s\\[\\]{},:?-])!|[|>][-+0-9]*#")
        yaml_implicit_resolvers = python.yaml_implicit_resolvers
        yaml_constructors = python.yaml_constructors

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _C_LOADER = CoreCLoader
    return _C_LOADER


def _quote_colon_values(raw: str) -> str:
    """§C5.3 retry: double-quote plain top-level values that contain ': '."""
    out = []
    for line in raw.split("\n"):
        m = _TOP_LINE_RE.match(line)
        value = m.group(2) if m else None
        if m and value and ": " in value and value[0] not in "\"'[{|>":
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{m.group(1)}: "{escaped}"'
        out.append(line)
    return "\n".join(out)


def _line_pairs(raw: str) -> dict[str, Any]:
    """Last resort: top-level ``key: value`` lines only, values as trimmed strings."""
    pairs: dict[str, Any] = {}
    for line in raw.split("\n"):
        m = _TOP_LINE_RE.match(line)
        if m:
            value = (m.group(2) or "").strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            pairs[m.group(1).strip()] = value
    return pairs


def _clean_keys(data: dict[Any, Any], warnings: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(key, bool) or not isinstance(key, (str, int, float)):
            warnings.append(f"frontmatter key {key!r} is not a string and was dropped")
            continue
        skey = str(key)
        if not _KEY_RE.match(skey):
            warnings.append(f"frontmatter key {skey!r} has characters outside [A-Za-z0-9_-] and was dropped")
            continue
        out[skey] = value
    return out


def _scalar(value: Any, key: str, warnings: list[str]) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    warnings.append(f"{key} must be a string, not a {type(value).__name__}")
    return None


# --------------------------------------------------------------------------------------------
# OpenClaw metadata
# --------------------------------------------------------------------------------------------


def _raw_metadata(frontmatter: Mapping[str, Any]) -> dict[str, Any]:
    meta = frontmatter.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(_TRAILING_COMMA_RE.sub(r"\1", meta))
        except (ValueError, RecursionError):
            return {}
    return meta if isinstance(meta, dict) else {}


def _metadata_blocks(frontmatter: Mapping[str, Any], warnings: list[str]) -> dict[str, dict[str, Any]]:
    """Every OpenClaw-style block present: metadata.{openclaw,clawdbot,clawdis} and top-level clawdis."""
    meta = frontmatter.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(_TRAILING_COMMA_RE.sub(r"\1", meta))
        except (ValueError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nesting too deep"
            warnings.append(f"metadata is a string that is not valid JSON ({reason}); it was ignored")
            meta = None
        if meta is not None and not isinstance(meta, dict):
            warnings.append("metadata JSON is not an object; it was ignored")
            meta = None
    elif meta is not None and not isinstance(meta, dict):
        warnings.append(f"metadata must be a mapping, not a {type(meta).__name__}; it was ignored")
        meta = None
    blocks: dict[str, dict[str, Any]] = {}
    for key in RUNTIME_BLOCKS:
        value = meta.get(key) if meta else None
        if isinstance(value, dict):
            blocks[key] = value
        elif value is not None:
            warnings.append(f"metadata.{key} must be a mapping; it was ignored")
    top = frontmatter.get("clawdis")
    if isinstance(top, dict):
        blocks["clawdis" if "clawdis" not in blocks else "top-level-clawdis"] = top
    return blocks


def _top_level_fallbacks(frontmatter: Mapping[str, Any]) -> dict[str, Any]:
    """ClawHub's top-level fallbacks (§C3), shaped like an OpenClaw block."""
    out: dict[str, Any] = {}
    for key in ("requires", "primaryEnv", "homepage", "install", "always", "os"):
        if key in frontmatter:
            out[key] = frontmatter[key]
    env: list[Any] = []
    for key in ("env", "envVars"):
        value = frontmatter.get(key)
        if isinstance(value, (list, str)):
            env.extend(_env_names(value))
    if env:
        out["envVars"] = env
    if isinstance(frontmatter.get("dependencies"), list):
        out["dependencies"] = frontmatter["dependencies"]
    return out


def _env_names(value: Any) -> list[str]:
    """Env var names from ``["A", "B"]``, ``"A, B"`` or ``[{name: A, required: true}]``."""
    if isinstance(value, str):
        return _list(value, "env", [])
    names: list[str] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"].strip():
            names.append(item["name"].strip())
        elif isinstance(item, str):
            names.extend(_list(item, "env", []))
    return names


def _normalise(blocks: list[tuple[str, dict[str, Any]]], warnings: list[str]) -> OpenClawMetadata:
    """Merge blocks into one :class:`OpenClawMetadata` (union of lists, ``always`` if any says so)."""
    if not blocks:
        return OpenClawMetadata()
    acc: dict[str, list[Any]] = {k: [] for k in ("os", "bins", "any_bins", "env", "config", "install", "deps")}
    always = False
    singles: dict[str, str | None] = {"emoji": None, "homepage": None, "skillKey": None, "primaryEnv": None}
    for source, block in blocks:
        where = f"metadata.{source}" if source != "top-level" else "frontmatter"
        always = _bool(block.get("always"), False, f"{where}.always", warnings) or always
        for key in singles:
            value = block.get(key)
            if singles[key] is None and isinstance(value, str) and value.strip():
                singles[key] = value.strip()
        acc["os"] += ["darwin" if o.lower() == "macos" else o for o in _list(block.get("os"), f"{where}.os", warnings)]
        req = block.get("requires")
        if isinstance(req, dict):
            acc["bins"] += _list(req.get("bins"), f"{where}.requires.bins", warnings)
            acc["any_bins"] += _list(req.get("anyBins"), f"{where}.requires.anyBins", warnings)
            acc["env"] += _list(req.get("env"), f"{where}.requires.env", warnings)
            acc["config"] += _list(req.get("config"), f"{where}.requires.config", warnings)
        elif req is not None:
            warnings.append(f"{where}.requires must be a mapping; it was ignored")
        for key in ("envVars", "env"):
            if key in block:
                acc["env"] += _env_names(block[key])
        install = block.get("install")
        if isinstance(install, list):
            acc["install"] += [dict(i) for i in install if isinstance(i, dict)]
        elif isinstance(install, dict):
            acc["install"].append(dict(install))
        deps = block.get("dependencies")
        if isinstance(deps, list):
            acc["deps"] += [dict(d) if isinstance(d, dict) else {"name": str(d)} for d in deps
                            if isinstance(d, (dict, str))]
    uniq = {k: tuple(dict.fromkeys(v)) if k not in ("install", "deps") else tuple(v) for k, v in acc.items()}
    return OpenClawMetadata(
        always=always, emoji=singles["emoji"], homepage=singles["homepage"], skill_key=singles["skillKey"],
        primary_env=singles["primaryEnv"], os=uniq["os"], bins=uniq["bins"], any_bins=uniq["any_bins"],
        env=uniq["env"], config=uniq["config"], install=uniq["install"], dependencies=uniq["deps"],
        sources=tuple(s for s, _ in blocks),
    )


def _list(value: Any, where: str, warnings: list[str]) -> list[str]:
    """§C5.6: arrays, or comma-separated strings split and trimmed."""
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value
                if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip()]
    warnings.append(f"{where} must be a list or a comma-separated string; it was ignored")
    return []


def _bool(value: Any, default: bool, where: str, warnings: list[str]) -> bool:
    """§C5.6: lenient booleans; anything unrecognised is the default, with a warning."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    warnings.append(f"{where}: {value!r} is not a boolean; using {str(default).lower()}")
    return default
