"""Every hook nervous defines, grouped by purpose.

Two kinds of hooks:

* **Provider hooks** (``nervous_<things>()``) return a list of :class:`~nervous.plugin.Provider`
  records. The kernel merges the lists of all plugins; two providers with one name is an error
  naming both plugins; configuration picks providers by name and an unknown name is an error
  listing the available ones.
* **Contribution hooks** are called on every plugin; the kernel combines the results by the rule
  stated in each docstring. Only hooks marked *first result wins* stop at the first non-``None``.

Plugins implement hooks with :data:`nervous.plugin.hookimpl`. The kernel calls hooks only through
:class:`nervous.kernel.manager.PluginManager`'s typed methods, never through ``pm.hook`` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from ..kernel.manager import PluginManager
    from ..kernel.records import (
        Event,
        IntentVerdict,
        RiskAssessment,
        ScanContext,
        SideEffects,
        SkillBundle,
    )
    from .provider import Provider

hookspec = pluggy.HookspecMarker("nervous")

# ============================================================================================
# Registries and installation
# ============================================================================================


@hookspec
def nervous_registries() -> list[Provider]:
    """Offer skill registries (skill sources).

    :returns: providers whose ``factory(ctx)`` returns an object implementing
        :class:`nervous.plugin.Registry` (search, resolve metadata and versions, fetch a
        version's files). ``[registries] use`` selects them, in order.
    Combined: all lists are merged; duplicate names are an error.
    """


@hookspec
def nervous_install_targets() -> list[Provider]:
    """Offer install targets: where and how installed skills are laid out.

    :returns: providers whose ``factory(ctx)`` returns an
        :class:`nervous.plugin.InstallTarget`. ``[install] target`` selects one.
    Combined: all lists are merged; duplicate names are an error.
    """


# ============================================================================================
# Side effects, risk and review
# ============================================================================================


@hookspec
def nervous_classify(bundle: SkillBundle, context: ScanContext) -> SideEffects | None:
    """Say what a skill can do, statically, without executing anything.

    :param bundle: the skill's files, in memory.
    :param context: why it is being classified (install, evolver draft, scan).
    :returns: the side effects found, or ``None`` to contribute nothing.
    Combined: every plugin contributes; tags, flags and findings are united
    (:meth:`SideEffects.merge`); ``complete`` is true only if every contribution is complete.
    """


@hookspec
def nervous_score_risk(
    bundle: SkillBundle, side_effects: SideEffects, context: ScanContext
) -> RiskAssessment | None:
    """Score the blast radius of a skill from its combined side effects.

    :returns: an assessment, or ``None`` to contribute nothing.
    Combined: every plugin contributes; the highest level wins and all reasons and findings are
    kept (:meth:`RiskAssessment.merge`). With no contribution at all the risk is ``high``
    (assume the worst).
    """


@hookspec
def nervous_review_policies() -> list[Provider]:
    """Offer review policies that decide allow / review / refuse.

    :returns: providers whose ``factory(ctx)`` returns a :class:`nervous.plugin.ReviewPolicy`.
        ``[review] policy`` selects one.
    Combined: all lists are merged; duplicate names are an error.
    """


@hookspec(firstresult=True)
def nervous_judge_intent(
    bundle: SkillBundle, side_effects: SideEffects, context: ScanContext, manager: PluginManager
) -> IntentVerdict | None:
    """Judge whether a skill's capabilities fit its stated purpose (e.g. a host agent's LLM).

    The framework calls no LLM itself and works fully without an implementation. A verdict can
    raise the review decision (allow → review → refuse), never lower it; ``unknown`` (asked, could
    not tell) counts as a concern. ``manager`` gives configured judges their settings.

    :returns: a verdict, or ``None`` to abstain. First result wins.
    """


@hookspec
def nervous_report_formats() -> list[Provider]:
    """Offer scan report writers (``nervous scan --format NAME``).

    :returns: providers whose ``factory(ctx)`` returns a callable
        ``(report: dict) -> str`` that renders a ``nervous.skill-scan.v1`` report.
    Combined: all lists are merged; duplicate names are an error.
    """


# ============================================================================================
# Storage
# ============================================================================================


@hookspec
def nervous_storage_backends() -> list[Provider]:
    """Offer storage backends for the agent-level durable state.

    :returns: providers whose ``factory(ctx)`` returns a :class:`nervous.plugin.Store`.
        ``[storage] backend`` selects exactly one.
    Combined: all lists are merged; duplicate names are an error.
    """


# ============================================================================================
# Skill cortex (perception and ranking)
# ============================================================================================


@hookspec
def nervous_matchers() -> list[Provider]:
    """Offer perception matchers that route a task description to a learned region or a miss.

    :returns: providers whose ``factory(ctx)`` returns a :class:`nervous.plugin.Matcher`.
        ``[cortex] matcher`` selects one.
    Combined: all lists are merged; duplicate names are an error.
    """


@hookspec
def nervous_ranking_policies() -> list[Provider]:
    """Offer candidate ranking policies.

    :returns: providers whose ``factory(ctx)`` returns a
        :class:`nervous.plugin.RankingPolicy`. ``[cortex] ranking_policy`` selects one.
    Combined: all lists are merged; duplicate names are an error.
    """


# ============================================================================================
# Goals
# ============================================================================================


@hookspec
def nervous_drain_policies() -> list[Provider]:
    """Offer drain policies (budgets for replans, retries and no-progress runs).

    :returns: providers whose ``factory(ctx)`` returns a :class:`nervous.plugin.DrainPolicy`.
    Combined: all lists are merged; duplicate names are an error.
    """


@hookspec
def nervous_hard_stop_terms() -> dict[str, list[str]] | None:
    """Add hard-stop categories or terms for goal drain (word-boundary matched).

    :returns: a mapping ``category -> [terms]``, or ``None``.
    Combined: every plugin contributes; terms are united per category. Built-in terms can never
    be removed.
    """


# ============================================================================================
# Lifecycle
# ============================================================================================


@hookspec
def nervous_event(event: Event, manager: PluginManager) -> None:
    """Observe a lifecycle event (search, install, uninstall, outcome, goal and evolver changes).

    For audit logs and telemetry. ``manager`` gives access to the configuration and the storage
    backend (the built-in ``audit`` plugin appends every event to the store's ``audit`` log).
    Called on every plugin; return values are ignored. An exception raised here becomes a warning
    naming the plugin and does not stop the operation.
    """
