"""The cortex document (original ``cortex.json`` v1 plus extension keys), read losslessly.

Absent extension keys are *read* with the defaults of spec §3.7 but never materialised; a key is
written only when a mutation sets it. Invalid values are coerced as they are read (§3.8) and each
coercion adds a warning naming its JSON path. Unknown keys are never touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import UnsupportedVersion
from ...kernel.clock import utc_date

if TYPE_CHECKING:
    from datetime import date

COLLECTION = "skill-cortex"
KEY = "cortex"
V1_TOP_KEYS = ("version", "cortex", "blacklist", "stats")
EXT_TOP_KEYS = ("ext_version", "blacklist_info", "counters", "cached_installs", "quarantine",
                "matcher_state", "revision")
V1_CANDIDATE_KEYS = ("slug", "source", "version", "weight", "runs", "last_fail", "side_effects",
                     "skill_md_chars", "reflex")
V1_RUNS_KEYS = ("success", "fail", "recent_successes_7d")
V1_LESSON_KEYS = {
    "dependency_warning": ("type", "region", "key", "action", "confidence", "created"),
    "skill_quality_warning": ("type", "slug", "detail", "confidence", "created"),
    "env_ready": ("type", "region", "key", "confidence", "created"),
}
STATS_KEYS = ("searches", "installs", "cache_hits", "reflexes_fired")
BUILTIN_SOURCES = ("clawhub", "github", "local")

Warn = Callable[[str], None]


# ------------------------------------------------------------------------------- dates and time


def parse_date(value: Any) -> date | None:
    if not isinstance(value, str):
        return None
    from datetime import date

    try:
        return date.fromisoformat(value[:10]) if len(value) >= 10 else None
    except ValueError:
        return None


def today_of(now: float) -> date:
    from datetime import date

    return date.fromisoformat(utc_date(now))


def days_between(earlier: date, later: date) -> int:
    """Whole days from ``earlier`` to ``later``, clamped to ≥ 0."""
    return max(0, (later - earlier).days)


def date_epoch(day: date) -> float:
    from datetime import UTC, datetime

    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def _days_before(day: date, days: int) -> date:
    from datetime import timedelta

    return day - timedelta(days=days)


def parse_time(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    from datetime import UTC, datetime

    try:
        text = value[:-1] + "+00:00" if value.endswith("Z") else value
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


# ------------------------------------------------------------------------------- coercion


def as_unit(value: Any, default: float, path: str, warn: Warn) -> float:
    """A number clamped to [0, 1]; non-numbers become ``default``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        warn(f"{path}: {value!r} is not a number; read as {default}")
        return default
    if value < 0 or value > 1:
        clamped = min(1.0, max(0.0, float(value)))
        warn(f"{path}: {value!r} is outside [0, 1]; clamped to {clamped}")
        return clamped
    return float(value)


def as_count(value: Any, path: str, warn: Warn) -> int:
    """A non-negative integer; negatives become 0, fractions are truncated."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        warn(f"{path}: {value!r} is not a count; read as 0")
        return 0
    if value < 0:
        warn(f"{path}: {value!r} is negative; read as 0")
        return 0
    if value != int(value):
        warn(f"{path}: {value!r} is not an integer; truncated to {int(value)}")
    return int(value)


def check_version(doc: dict[str, Any]) -> None:
    """Refuse any document whose version is not 1 (an empty document is a new memory)."""
    if not doc:
        return
    version = doc.get("version")
    if version != 1 or isinstance(version, bool):
        raise UnsupportedVersion(
            f"cortex document has version {version!r}; this release reads version 1 only "
            "(the document was left untouched)")


# ------------------------------------------------------------------------------- shape

#: containers whose type the engine relies on; a value of another type would be silently replaced
_SHAPE = (
    (("cortex",), dict), (("blacklist",), list), (("stats",), dict),
    (("cortex", "sensory"), dict), (("cortex", "motor"), dict), (("cortex", "prefrontal"), dict),
    (("cortex", "sensory", "patterns"), list), (("cortex", "prefrontal", "lessons"), list),
    (("blacklist_info",), dict), (("counters",), dict), (("matcher_state",), dict), (("quarantine",), list),
)


def shape_problem(doc: dict[str, Any]) -> str | None:
    """Why ``doc`` is not a cortex document the engine can update without losing data, or ``None``.

    Only containers are checked (absent ones are fine): a wrong value inside a container is coerced
    with a warning (§3.8), but a wrong container would drop everything under it at the next write,
    so the storage layer quarantines such a document exactly like one that does not parse.
    """
    for path, kind in _SHAPE:
        node: Any = doc
        for part in path:
            if not isinstance(node, dict) or part not in node:
                node = None
                break
            node = node[part]
        if node is not None and not isinstance(node, kind):
            return (f"{'.'.join(path)} is a JSON {_json_type(node)}, expected "
                    f"{'an object' if kind is dict else 'an array'}")
    return None


def _json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
            float: "number"}.get(type(value), type(value).__name__)


# ------------------------------------------------------------------------------- sections


def _dict_at(parent: Any, key: str) -> dict[str, Any]:
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, dict) else {}


def _list_at(parent: Any, key: str) -> list[Any]:
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, list) else []


def patterns(doc: dict[str, Any]) -> list[Any]:
    return _list_at(_dict_at(_dict_at(doc, "cortex"), "sensory"), "patterns")


def motor(doc: dict[str, Any]) -> dict[str, Any]:
    return _dict_at(_dict_at(doc, "cortex"), "motor")


def lessons(doc: dict[str, Any]) -> list[Any]:
    return _list_at(_dict_at(_dict_at(doc, "cortex"), "prefrontal"), "lessons")


def blacklist(doc: dict[str, Any]) -> list[str]:
    return [b for b in _list_at(doc, "blacklist") if isinstance(b, str)]


def stats(doc: dict[str, Any]) -> dict[str, Any]:
    return _dict_at(doc, "stats")


def ensure_v1(doc: dict[str, Any]) -> None:
    """Materialise the v1 skeleton (a mutation is about to write)."""
    doc.setdefault("version", 1)
    cortex = doc.get("cortex")
    if not isinstance(cortex, dict):
        cortex = doc["cortex"] = {}
    for section, key, empty in (("sensory", "patterns", list), ("motor", None, dict),
                                ("prefrontal", "lessons", list)):
        value = cortex.get(section)
        if not isinstance(value, dict):
            value = cortex[section] = {}
        if key is not None and not isinstance(value.get(key), list):
            value[key] = empty()
    if not isinstance(doc.get("blacklist"), list):
        doc["blacklist"] = []
    if not isinstance(doc.get("stats"), dict):
        doc["stats"] = {}


def ext(doc: dict[str, Any], key: str, factory: Callable[[], Any] = dict) -> Any:
    """An extension container, materialised (with ``ext_version``) because it is about to change."""
    doc.setdefault("ext_version", 1)
    value = doc.get(key)
    if not isinstance(value, type(factory())):
        value = doc[key] = factory()
    return value


def region_candidates(region: Any) -> list[Any]:
    return _list_at(region, "candidates")


def region_last_used(region: Any, today: date) -> date:
    parsed = parse_date(region.get("last_used")) if isinstance(region, dict) else None
    return parsed or _days_before(today, 180)


def is_valid_candidate(raw: Any) -> bool:
    return isinstance(raw, dict) and isinstance(raw.get("slug"), str) and bool(raw.get("slug"))


# ------------------------------------------------------------------------------- candidates


class Candidate:
    """A candidate record: coerced reads with v1 defaults, writes that touch only what changes."""

    def __init__(self, raw: dict[str, Any], region: dict[str, Any], today: date, path: str,
                 warn: Warn) -> None:
        self.raw = raw
        self.region = region
        self.today = today
        self.path = path
        self.warn = warn

    # --- identity
    @property
    def slug(self) -> str:
        return str(self.raw["slug"])

    @property
    def source(self) -> str:
        value = self.raw.get("source")
        return value if isinstance(value, str) and value else "clawhub"

    @property
    def identity(self) -> str:
        return f"{self.source}:{self.slug}"

    @property
    def version(self) -> str | None:
        value = self.raw.get("version")
        return value if isinstance(value, str) else None

    # --- numbers
    @property
    def weight(self) -> float:
        return as_unit(self.raw.get("weight", 0.5), 0.5, f"{self.path}.weight", self.warn)

    @weight.setter
    def weight(self, value: float) -> None:
        self.raw["weight"] = min(1.0, max(0.0, value))

    def _runs(self) -> dict[str, Any]:
        runs = self.raw.get("runs")
        return runs if isinstance(runs, dict) else {}

    def _runs_for_write(self) -> dict[str, Any]:
        runs = self.raw.get("runs")
        if not isinstance(runs, dict):
            runs = self.raw["runs"] = {}
        return runs

    @property
    def successes(self) -> int:
        return as_count(self._runs().get("success", 0), f"{self.path}.runs.success", self.warn)

    @property
    def failures(self) -> int:
        return as_count(self._runs().get("fail", 0), f"{self.path}.runs.fail", self.warn)

    @property
    def consecutive(self) -> int:
        runs = self._runs()
        if "consecutive_successes" in runs:
            return as_count(runs["consecutive_successes"], f"{self.path}.runs.consecutive_successes", self.warn)
        return self.successes if self.raw.get("last_fail") is None else 0

    @property
    def last_used(self) -> date:
        if "last_used" in self.raw:
            parsed = parse_date(self.raw["last_used"])
            if parsed is None:
                self.warn(f"{self.path}.last_used: {self.raw['last_used']!r} is not a date; "
                          "read as 180 days ago")
                return _days_before(self.today, 180)
            return parsed
        return region_last_used(self.region, self.today)

    def recent_successes(self, after: float, keep: int) -> tuple[int, list[float]]:
        """How many success times are later than ``after``, and the latest ``keep`` of them, oldest first.

        v1 files store only a count (``recent_successes_7d``): its times are virtual, all at the end
        of ``last_used``, and at most ``keep`` of them are made, so a huge count costs no memory.
        """
        keep = max(0, keep)
        runs = self._runs()
        if "recent_success_times" in runs and isinstance(runs["recent_success_times"], list):
            parsed = (parse_time(t) for t in runs["recent_success_times"])
            times = sorted(t for t in parsed if t is not None and t > after)
            return len(times), times[len(times) - min(keep, len(times)):]
        count = as_count(runs.get("recent_successes_7d", 0), f"{self.path}.runs.recent_successes_7d", self.warn)
        end_of_day = date_epoch(self.last_used) + 86_399
        if end_of_day <= after:
            return 0, []
        return count, [end_of_day] * min(count, keep)

    def recent_times(self, keep: int = 64) -> list[float]:
        """The latest ``keep`` success times, oldest first (v1 files: virtual times at the end of ``last_used``)."""
        return self.recent_successes(-math.inf, keep)[1]

    @property
    def tags(self) -> tuple[str, ...]:
        value = self.raw.get("side_effects")
        return tuple(t for t in value if isinstance(t, str)) if isinstance(value, list) else ()

    @property
    def reflex(self) -> bool:
        return self.raw.get("reflex") is True

    @property
    def fingerprint(self) -> str | None:
        value = self.raw.get("fingerprint")
        return value if isinstance(value, str) else None

    @property
    def side_effects_for(self) -> str | None:
        value = self.raw.get("side_effects_for")
        return value if isinstance(value, str) else None

    @property
    def scan_decision(self) -> str | None:
        value = self.raw.get("scan_decision")
        return value if isinstance(value, str) else None

    @property
    def skill_md_chars(self) -> int | None:
        value = self.raw.get("skill_md_chars")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def policy_state(self, policy: str) -> dict[str, Any]:
        states = self.raw.get("policy_state")
        state = states.get(policy) if isinstance(states, dict) else None
        return dict(state) if isinstance(state, dict) else {}

    # --- writes
    def set(self, key: str, value: Any) -> None:
        if self.raw.get(key, _MISSING) != value:
            self.raw[key] = value

    def set_runs(self, **values: Any) -> None:
        runs = self._runs_for_write()
        for key, value in values.items():
            runs[key] = value

    def set_policy_state(self, policy: str, state: dict[str, Any] | None) -> None:
        current = self.policy_state(policy)
        wanted = dict(state or {})
        if current == wanted and ("policy_state" in self.raw or not wanted):
            return
        states = self.raw.get("policy_state")
        if not isinstance(states, dict):
            states = self.raw["policy_state"] = {}
        if wanted:
            states[policy] = wanted
        else:
            states.pop(policy, None)


_MISSING = object()


def new_candidate(slug: str, source: str, initial_weight: float) -> dict[str, Any]:
    return {"slug": slug, "source": source, "version": "", "weight": initial_weight,
            "runs": {"success": 0, "fail": 0, "recent_successes_7d": 0}, "last_fail": None,
            "side_effects": [], "skill_md_chars": 0, "reflex": False}


def today_string(now: float) -> str:
    return utc_date(now)
