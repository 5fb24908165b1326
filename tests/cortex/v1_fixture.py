"""An original skill-cortex ``cortex.json`` (v1), with unknown keys and two patterns for one region."""

V1 = {
    "version": 1,
    "cortex": {
        "sensory": {"patterns": [
            {"signal": ["query", "todo", "task"], "region": "task-management"},
            {"signal": ["reminder"], "region": "task-management", "note": "kept verbatim"},
            {"signal": ["resize", "image"], "region": "image-processing"},
        ]},
        "motor": {
            "task-management": {"candidates": [
                {"slug": "todoist-cli", "source": "clawhub", "version": "1.2.0", "weight": 0.93,
                 "runs": {"success": 12, "fail": 1, "recent_successes_7d": 3},
                 "last_fail": {"type": "api_error", "detail": "service unavailable, retry failed",
                               "date": "2026-02-20"},
                 "side_effects": ["network:api.todoist.com", "read:env:TODOIST_API_KEY"],
                 "skill_md_chars": 3120, "reflex": True, "x-custom": {"any": [1, 2]}},
                {"slug": "tasks-lite", "source": "github", "version": "0123456789abcdef0123456789abcdef01234567",
                 "weight": 0.41, "runs": {"success": 1, "fail": 2, "recent_successes_7d": 0},
                 "last_fail": None, "side_effects": [], "skill_md_chars": 900, "reflex": False}],
                "last_used": "2026-03-01"},
            "image-processing": {"candidates": [
                {"slug": "magick", "source": "clawhub", "version": "0.3.1", "weight": 0.62,
                 "runs": {"success": 4, "fail": 1, "recent_successes_7d": 0}, "last_fail": None,
                 "side_effects": ["shell:convert"], "skill_md_chars": 2100, "reflex": False}],
                "last_used": "2026-02-11"},
        },
        "prefrontal": {"lessons": [
            {"type": "dependency_warning", "region": "image-processing", "key": "imagemagick",
             "action": "check_bin_before_install", "confidence": 0.6, "created": "2026-02-01"},
            {"type": "env_ready", "region": "task-management", "key": "TODOIST_API_KEY", "confidence": 0.7,
             "created": "2026-02-03"},
            {"type": "skill_quality_warning", "slug": "tasks-lite", "detail": "does not support batch ops",
             "confidence": 0.6, "created": "2026-02-05"},
            {"type": "free_form", "text": "never written by nervous, kept on load"},
        ]},
        "future_section": {"x": 1},
    },
    "blacklist": ["evil-skill", "@someone/fake-tool"],
    "stats": {"searches": 14, "installs": 9, "cache_hits": 6, "reflexes_fired": 2},
    "unknown_top": "kept",
}
