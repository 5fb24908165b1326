"""SKILL.md parser: the fixtures of specs/protocols.md §C6 and the rules of §C5."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nervous.kernel.skillmd import find_skill_file, parse_skill_md, validate_skill_md


def doc(front: str, body: str = "# Title\n\nDo things.\n", **kw):  # type: ignore[no-untyped-def]
    return parse_skill_md(f"---\n{front}\n---\n{body}", **kw)


def test_block_mapping_metadata() -> None:
    d = doc(
        "name: gifgrep\ndescription: Search GIFs.\nmetadata:\n  openclaw:\n    emoji: '🎞'\n"
        "    primaryEnv: GIPHY_API_KEY\n    os: [macos, linux]\n    requires:\n      bins: [gifgrep, jq]\n"
        "      env:\n        - GIPHY_API_KEY\n    install:\n      - kind: brew\n        formula: gifgrep\n"
    )
    assert d.ok and d.frontmatter_status == "ok"
    assert (d.name, d.description) == ("gifgrep", "Search GIFs.")
    assert d.required_bins == ("gifgrep", "jq")
    assert d.required_env == ("GIPHY_API_KEY",)
    assert d.primary_env == "GIPHY_API_KEY"
    assert d.os == ("darwin", "linux")
    assert d.install_specs == ({"kind": "brew", "formula": "gifgrep"},)
    assert d.metadata.sources == ("openclaw",)
    assert d.body == "# Title\n\nDo things.\n"


def test_one_line_json_metadata() -> None:
    d = doc('name: jqx\ndescription: Query JSON.\nmetadata: {"openclaw":{"requires":{"bins":["jq"]},"always":true}}')
    assert d.ok and d.required_bins == ("jq",) and d.always is True


def test_multiline_json_metadata_with_trailing_commas() -> None:
    d = doc(
        'name: x\ndescription: X.\nmetadata:\n  {\n    "openclaw": {\n      "requires": { "env": ["A", "B",], },\n'
        '      "primaryEnv": "A",\n    },\n  }'
    )
    assert d.ok and d.required_env == ("A", "B") and d.primary_env == "A"


def test_quoted_json_string_metadata_is_decoded() -> None:
    d = doc("""name: x\ndescription: X.\nmetadata: '{"openclaw": {"requires": {"bins": ["curl",]}},}'""")
    assert d.ok and d.required_bins == ("curl",)
    assert not d.warnings


def test_invalid_json_string_metadata_is_ignored_with_warning() -> None:
    d = doc("""name: x\ndescription: X.\nmetadata: '{"openclaw": {"requires": '""")
    assert d.ok
    assert d.required_bins == () and not d.metadata.present
    assert any("metadata is a string that is not valid JSON" in w for w in d.warnings)


def test_unquoted_colon_in_description_is_repaired() -> None:
    d = doc("name: x\ndescription: Use this: it works\nlicense: MIT")
    assert d.ok and d.description == "Use this: it works"
    assert d.frontmatter_status == "repaired"
    assert d.frontmatter["license"] == "MIT"
    assert any("quoting" in w for w in d.warnings)
    assert validate_skill_md("---\nname: x\ndescription: Use this: it works\n---\nbody\n", directory="x")


def test_repair_escapes_quotes_and_backslashes() -> None:
    d = doc('name: x\ndescription: Say "hi": C:\\path')
    assert d.description == 'Say "hi": C:\\path'


def test_line_parser_fallback_when_yaml_is_hopeless() -> None:
    d = doc("name: x\ndescription: Works anyway\nmetadata:\n  openclaw: [unclosed\ntags: {a: [b}")
    assert d.ok and d.frontmatter_status == "partial"
    assert d.description == "Works anyway"
    assert any("only top-level" in w for w in d.warnings)


def test_unrecoverable_frontmatter_is_fatal() -> None:
    d = parse_skill_md("---\n[[[\n  - ]\n---\nbody\n")
    assert not d.ok and d.frontmatter_status == "unparsable"
    assert any("not valid YAML" in e for e in d.errors)


def test_crlf_file() -> None:
    d = parse_skill_md(b"---\r\nname: crlf\r\ndescription: Windows.\r\n---\r\n# Body\r\nline\r\n")
    assert d.ok and d.name == "crlf" and d.body == "# Body\nline\n"


def test_bom_is_stripped() -> None:
    d = parse_skill_md("\ufeff---\nname: bom\ndescription: Has a BOM.\n---\nbody\n".encode())
    assert d.ok and d.name == "bom"


def test_no_frontmatter() -> None:
    d = parse_skill_md("# Just markdown\n\nNo frontmatter here.\n")
    assert not d.ok and d.frontmatter_status == "missing"
    assert d.body.startswith("# Just markdown")
    assert any("description is missing" in e for e in d.errors)


def test_frontmatter_without_closing_line_is_no_frontmatter() -> None:
    d = parse_skill_md("---\nname: x\ndescription: never closed\n# body\n")
    assert not d.ok and d.frontmatter_status == "missing" and d.frontmatter == {}
    assert any("no closing" in w for w in d.warnings)


def test_dashes_inside_block_scalar_do_not_close() -> None:
    text = "---\nname: x\ndescription: |\n  First part\n  ---\n  second part -- still\nlicense: MIT \n---  \nBody --- here\n"
    d = parse_skill_md(text)
    assert d.ok
    assert d.description == "First part\n---\nsecond part -- still"
    assert d.frontmatter["license"] == "MIT"
    assert d.body == "Body --- here\n"


def test_closing_delimiter_allows_trailing_whitespace_only() -> None:
    d = parse_skill_md("---  \nname: x\ndescription: d\n--- not a close\n---\t\nbody")
    assert d.ok and d.body == "body"


def test_skill_file_names_in_order() -> None:
    assert find_skill_file(["skills.md", "skill.md"]) == "skill.md"
    assert find_skill_file(["skills.md", "README.md"]) == "skills.md"
    assert find_skill_file(["SKILL.MD", "SKILL.md"]) == "SKILL.md"
    assert find_skill_file(["SKILL.MD"]) == "SKILL.MD"
    assert find_skill_file(["README.md"]) is None


def test_name_directory_mismatch_is_a_warning() -> None:
    d = doc("name: pdf-tools\ndescription: PDFs.", directory="pdf")
    assert d.ok
    assert any("differs from the directory name 'pdf'" in w for w in d.warnings)


def test_name_rules_are_warnings() -> None:
    d = doc(f"name: Bad--Name{'x' * 70}\ndescription: d")
    assert d.ok
    assert any("characters (the limit is 64)" in w for w in d.warnings)
    assert any("lower-case" in w for w in d.warnings)
    assert any("name is missing" in w for w in doc("description: d").warnings)


def test_long_description_warns_missing_fails() -> None:
    assert any("1024" in w for w in doc("name: x\ndescription: " + "a" * 1100).warnings)
    assert not doc("name: x\ndescription: ''").ok
    assert not doc("name: x").ok


def test_list_fields_as_comma_strings() -> None:
    d = doc("name: x\ndescription: d\nmetadata:\n  openclaw:\n    os: 'macos, linux'\n"
            "    requires:\n      bins: 'git,  jq ,'\n      anyBins: rg, grep\n      config: a.b")
    assert d.required_bins == ("git", "jq")
    assert d.required_any_bins == ("rg", "grep")
    assert d.required_config == ("a.b",)
    assert d.os == ("darwin", "linux")


def test_clawdbot_and_openclaw_runtime_picks_openclaw_security_sees_both() -> None:
    d = doc("name: x\ndescription: d\nmetadata:\n  clawdbot:\n    always: true\n    requires:\n      env: [SECRET_TOKEN]\n"
            "  openclaw:\n    requires:\n      bins: [jq]\nprimaryEnv: TOP_KEY\nrequires:\n  bins: [curl]")
    assert d.metadata.sources == ("openclaw",)
    assert d.always is False and d.required_env == () and d.required_bins == ("jq",)
    sec = d.security_metadata
    assert sec.always is True
    assert set(sec.sources) == {"openclaw", "clawdbot", "top-level"}
    assert sec.env == ("SECRET_TOKEN",)
    assert set(sec.bins) == {"jq", "curl"}
    assert sec.primary_env == "TOP_KEY"


def test_clawdbot_alone_is_the_runtime_block_and_clawdis_top_level_counts_for_security() -> None:
    d = doc("name: x\ndescription: d\nmetadata:\n  clawdbot:\n    requires: {bins: [a]}\nclawdis:\n  always: yes")
    assert d.metadata.sources == ("clawdbot",) and d.required_bins == ("a",)
    assert d.security_metadata.always is True


def test_oversize_file_refused_without_parsing() -> None:
    text = "---\nname: x\ndescription: d\n---\n" + "x" * 300_000
    d = parse_skill_md(text)
    assert not d.ok and d.frontmatter == {} and "over the limit" in d.errors[0]
    assert parse_skill_md(text, max_bytes=400_000).ok


def test_invalid_utf8_is_unparsable() -> None:
    d = parse_skill_md(b"---\nname: x\ndescription: \xff\xfe\n---\n")
    assert not d.ok and "UTF-8" in d.errors[0]


def test_lenient_booleans() -> None:
    d = doc("name: x\ndescription: d\nuser-invocable: 'no'\ndisable-model-invocation: On\n"
            "metadata:\n  openclaw:\n    always: maybe")
    assert d.user_invocable is False and d.disable_model_invocation is True
    assert d.always is False
    assert any("'maybe' is not a boolean" in w for w in d.warnings)


def test_yaml_core_schema_only_and_no_aliases() -> None:
    d = doc("name: x\ndescription: yes\nversion: 2024-01-02\nlicense: off")
    assert d.description == "yes" and d.version == "2024-01-02" and d.frontmatter["license"] == "off"
    bomb = "name: x\ndescription: d\na: &a [1, 2]\nb: [*a, *a]"
    d = doc(bomb)
    assert d.frontmatter_status == "partial" and "b" in d.frontmatter
    assert d.frontmatter["b"] == "[*a, *a]"


def test_python_tags_are_not_constructed() -> None:
    d = doc("name: x\ndescription: !!python/object/apply:os.system ['echo pwned']")
    assert d.frontmatter_status == "partial"
    assert d.description == "!!python/object/apply:os.system ['echo pwned']"


def test_bad_keys_are_dropped() -> None:
    d = doc("name: x\ndescription: d\n'bad key!': 1\n1: 2")
    assert "bad key!" not in d.frontmatter and "1" in d.frontmatter
    assert any("bad key!" in w for w in d.warnings)


def test_clawhub_top_level_env_vars() -> None:
    d = doc("name: x\ndescription: d\nenvVars:\n  - name: API_KEY\n    required: true\n  - OTHER\n"
            "dependencies:\n  - {name: requests, type: pip}")
    assert d.security_metadata.env == ("API_KEY", "OTHER")
    assert d.security_metadata.dependencies == ({"name": "requests", "type": "pip"},)
    assert d.required_env == ()


def test_version_from_frontmatter_or_metadata() -> None:
    assert doc("name: x\ndescription: d\nversion: 1.2").version == "1.2"
    assert doc("name: x\ndescription: d\nmetadata:\n  version: '2.0.0'").version == "2.0.0"
    assert doc("name: x\ndescription: d").version is None


def test_skill_md_chars_counts_code_points() -> None:
    text = "---\nname: x\ndescription: ünïcode\n---\n🎞\n"
    assert parse_skill_md(text).skill_md_chars == len(text)


def test_validate_accepts_a_clean_skill_and_lists_every_problem() -> None:
    good = "---\nname: pdf\ndescription: Read PDFs.\nlicense: MIT\nallowed-tools: Bash(git:*) Read\n" \
           "metadata:\n  openclaw:\n    requires:\n      bins: [pdftotext]\n---\n# PDF\nUse pdftotext.\n"
    assert validate_skill_md(good, directory="pdf") == []
    bad = "---\nname: PDF\ndescription: d\nversion: 1\ncompatibility: ''\nallowed-tools: [Read]\n---\n"
    problems = validate_skill_md(bad, directory="pdf")
    assert any("unknown top-level key 'version'" in p for p in problems)
    assert any("compatibility" in p for p in problems)
    assert any("allowed-tools" in p for p in problems)
    assert any("differs from the directory" in p for p in problems)
    assert any("body" in p for p in problems)
    assert validate_skill_md("no frontmatter") != []


def test_importing_the_parser_does_not_import_yaml() -> None:
    code = "import sys, nervous.kernel.skillmd; print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("junk", ["", "---", "---\n---", "\n\n", "---\n:\n---", "---\n- a\n- b\n---\n"])
def test_junk_never_raises(junk: str) -> None:
    assert not parse_skill_md(junk).ok


_pieces = st.sampled_from(["---", "\n", "name:", " x", "description: ", ": ", "{", "}", "[", "]", ",", "'", '"',
                           "metadata:", "  openclaw:", "    requires:", "- ", "&a", "*a", "!!", "|", ">", "\r", "#"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_pieces, st.text(max_size=5)), max_size=40))
def test_fuzz_never_raises(parts: list[str]) -> None:
    d = parse_skill_md("".join(parts))
    assert isinstance(d.errors, list) and isinstance(d.warnings, list)
    assert d.ok == (not d.errors)


def test_deep_nesting_is_data_not_a_crash() -> None:
    deep_json = "'" + "[" * 5000 + "]" * 5000 + "'"
    d = doc(f"name: x\ndescription: d\nmetadata: {deep_json}")
    assert d.ok and any("not valid JSON" in w for w in d.warnings)
    d = doc("name: x\ndescription: d\nextra: " + "[" * 5000 + "]" * 5000)
    assert d.ok and d.frontmatter_status == "partial"


def test_control_character_in_frontmatter_is_a_parse_failure_not_a_crash() -> None:
    """PyYAML's reader rejects control characters before parsing: that is unparsable YAML like any other."""
    from nervous.kernel.skillmd import parse_skill_md

    doc = parse_skill_md(b"---\nname: a\ndescription: b\x01c\n---\nhi\n", max_bytes=1000)
    assert doc.frontmatter_status == "partial" and doc.frontmatter["name"] == "a"


def test_an_alias_or_deep_nesting_is_said_to_leave_the_frontmatter_unread() -> None:
    from nervous.kernel.skillmd import parse_skill_md

    base = "---\nname: demo\ndescription: d\n{extra}metadata:\n  openclaw:\n    requires:\n      bins: [curl]\n---\nbody\n"
    alias = parse_skill_md(base.format(extra="_a: &a x\n_b: *a\n"))
    assert alias.frontmatter_status == "partial" and alias.frontmatter_unread == "a YAML alias"
    assert alias.name == "demo" and any("counts as unknown" in w for w in alias.warnings)
    deep = parse_skill_md(base.format(extra="x: " + "[" * 2000 + "]" * 2000 + "\n"))
    assert deep.frontmatter_unread == "nesting too deep"
    broken = parse_skill_md(base.format(extra="x: {a: [b\n"))
    assert broken.frontmatter_status == "partial" and broken.frontmatter_unread is None
    assert parse_skill_md(base.format(extra="")).frontmatter_unread is None


def _read_both(raw: str) -> tuple[object, object]:
    """The frontmatter as read (libyaml first) and as the Python reader alone reads it: value or failure."""
    from nervous.kernel import skillmd

    def outcome(read: Any) -> object:
        try:
            return ("read", repr(read(raw)))
        except skillmd._YamlFailure as failure:
            return ("failed", str(failure), failure.refused)

    def python_only(text: str) -> object:
        data = skillmd._python_yaml(text)
        if data is not None and not isinstance(data, dict):
            raise skillmd._YamlFailure(f"frontmatter is a {type(data).__name__}, not a mapping")
        return data or {}

    return outcome(skillmd._yaml_mapping), outcome(python_only)


_ODD_FRONTMATTERS = [
    "name: x\ndescription: yes\nversion: 2024-01-02\nlicense: off\ncount: 0x1F\nratio: .inf\nmode: 0o17",
    "a: &a [1, 2]\nb: [*a, *a]",  # an alias: the Python reader refuses it
    "a: &a x",  # an anchor alone is read
    "<<: {a: 1}\nb: 2",  # a merge key without an alias
    "x: " + "[" * 40 + "]" * 40,  # deeper than the fast reader takes
    "x: " + "[" * 2000 + "]" * 2000,
    "description: b\x01c",  # a control character
    "a: 1\n---\nb: 2",  # two documents
    "a: !!python/object/apply:os.system ['echo']",
    "a: !!binary aGVsbG8=\nb: !!set {x}\nc: !!omap [{k: v}]",
    "a: b: c",
    "- a\n- b",
    "",
    "a: 'it''s'\nb: \"\\u00e9\\t\"\nc: |\n  one\n  two\nd: >-\n  folded\n  text",
    "key with spaces: v\n? complex\n: value\n1: one\n~: null\ntrue: yes",
    "a:\n\t- tab",
    "a: \ud800",  # a lone surrogate
    "a: [b:c, d]\ne: {f: g:h}",  # a flow scalar holding ":" (YAML 1.2 reads it, 1.1 refuses)
    "a: 0\t",
    "a: !\nb: x",
    "a: |#\n  x",
]


@pytest.mark.parametrize("raw", _ODD_FRONTMATTERS)
def test_libyaml_and_the_python_reader_give_the_same_answer(raw: str) -> None:
    fast, python = _read_both(raw)
    assert fast == python


def test_an_ordinary_frontmatter_is_read_by_libyaml() -> None:
    import yaml

    from nervous.kernel import skillmd

    if not yaml.__with_libyaml__:
        pytest.skip("this PyYAML was built without libyaml")
    assert skillmd._fast_yaml("name: x\ndescription: d\nmetadata: {openclaw: {requires: {bins: [gh]}}}") == {
        "name": "x", "description": "d", "metadata": {"openclaw": {"requires": {"bins": ["gh"]}}}}
    assert skillmd._fast_yaml("a: &a [1]\nb: *a") is skillmd._DECLINED


#: the YAML indicators, breaks and scalars where the two readers were seen to part (tabs, tags, flow scalars
#: holding ``:``, YAML 1.1's line breaks, block scalar headers)
_yaml_pieces = st.sampled_from(["---", "\n", "name:", " x", ": ", "{", "}", "[", "]", ",", "'", '"', "  openclaw:",
                                "- ", "&a", "*a", "!", "!!", "|", ">", "\r", "\t", "#", "?", ":", "%", "@", "`",
                                "\\", "...", "é", "\x85", "\u2028", "\ufeff", "~", "null", ".5", "1e3", "0", "=",
                                ">=", "^", "/", "+"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_pieces, _yaml_pieces, st.text(max_size=5)), max_size=40))
def test_fuzz_libyaml_and_the_python_reader_agree(parts: list[str]) -> None:
    fast, python = _read_both("".join(parts))
    assert fast == python
