"""The one cattrs converter for nervous records (JSON-ready dicts in and out).

It rejects unknown keys, since the data it reads is ours. Skill references serialise as their
string spelling.
"""

from __future__ import annotations

from typing import Any, TypeVar

import cattrs
from cattrs.preconf.json import make_converter

from ..errors import BadInput
from .records import SkillRef

T = TypeVar("T")

converter = make_converter(forbid_extra_keys=True, omit_if_default=False)
converter.register_unstructure_hook(SkillRef, str)
converter.register_structure_hook(SkillRef, lambda v, _t: SkillRef.parse(v) if isinstance(v, str) else
                                  converter.structure_attrs_fromdict(v, SkillRef))
converter.register_unstructure_hook(bytes, lambda b: b.decode("utf-8", "replace"))


def to_json(obj: Any) -> Any:
    """A record (or list/dict of records) as JSON-compatible data."""
    return converter.unstructure(obj)


def from_json(data: Any, cls: type[T], where: str = "data") -> T:
    """Build a record from JSON data; a mismatch is a :class:`BadInput` naming the path."""
    try:
        return converter.structure(data, cls)
    except Exception as exc:
        if isinstance(exc, (cattrs.ClassValidationError, cattrs.IterableValidationError)):
            msg = "; ".join(cattrs.transform_error(exc, path=where))
        else:
            msg = f"{where}: {exc}"
        raise BadInput(msg) from None
