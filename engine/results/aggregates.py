"""The count-tables audit's typed result parts (issue 33 item 1), read from result.json by
:func:`load_theory` (called by :func:`engine.results.loaded.load_result`).

The theory block of paper 003's audit (engine/audits/aggregates.py, engine/games/aggregates.py;
contract: docs/dev/aggregates_result_contract.md): the attribute game (§2.3), the release and
its sensitivity, the DP bounds of the noise, what the deterministic module proved (Alg. 1), the
membership game (§6), the sweeps of Fig. 6 and 8 and a published table's findings. Besides the
theory block, :class:`AggregatesTheory` holds what only this audit's readers use from the rest
of the result: each attack's ``details`` (top-1 accuracy against chance, the AUC without the
proved targets, the real people of issue 32 item 1, a best-of attack's choice), the exposed
records and the settings the report quotes.

Old results: a key an earlier version did not write reads as ``None`` / ``()`` / an empty
mapping (a block the result lacks as ``None``), never as an error; keys a block does not type
stay in its ``extra``. Values are kept as read (not coerced), so the screen and the report
print exactly what they printed when they read the dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from engine.results.aggregates_rules import RulesBlock, load_rules
from engine.results.blocks import EMPTY, AttackEntry, BlockError, table_or_empty


def _seq(v) -> tuple:
    """``v`` as a tuple when it is a list, else ``()``."""
    return tuple(v) if isinstance(v, (list, tuple)) else ()


def _pair(v) -> tuple | None:
    """An interval ``[lo, hi]`` as a tuple, or None when it is not a pair."""
    return (v[0], v[1]) if isinstance(v, (list, tuple)) and len(v) == 2 else None


def _plain(cls, d: Mapping, skip: tuple = ()) -> dict:
    """The keyword arguments of ``cls`` read from ``d`` for every field not in ``skip`` and
    not ``extra``: each key as written, or the field's default when the key is absent."""
    out: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in skip or f.name == "extra" or f.name not in d:
            continue
        out[f.name] = d[f.name]
    out["extra"] = MappingProxyType({k: v for k, v in d.items()
                                     if k not in {f.name for f in fields(cls)}})
    return out


# ----------------------------------------------------------------------------- the game

@dataclass(frozen=True)
class CountGame:
    """``theory.game``: the attribute game of paper 003 §2.3 (Fig. 2) as played."""

    sensitive: str | None = None
    values: tuple = ()
    chance: float | None = None
    quasi_identifiers: tuple = ()
    records: int | None = None
    auxiliary_records: int | None = None
    auxiliary_source: str | None = None
    unique_records: int | None = None
    targets: int | None = None
    written: tuple = ()
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> CountGame:
        d = table_or_empty(d)
        return cls(values=_seq(d.get("values")),
                   quasi_identifiers=_seq(d.get("quasi_identifiers")), written=tuple(d),
                   **_plain(cls, d, ("values", "quasi_identifiers", "written")))

    @property
    def present(self) -> bool:
        """Whether the result holds the block (an empty or missing one does not)."""
        return bool(self.written)


# ----------------------------------------------------------------------------- the release

@dataclass(frozen=True)
class ReleasedTable:
    """One entry of ``theory.release.tables``: a table and how many of its cells were
    released."""

    table: str | None = None
    cells: int | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> ReleasedTable:
        return cls(**_plain(cls, d))


@dataclass(frozen=True)
class PreviewCell:
    """One entry of ``theory.release.preview``: a released cell and its count as published."""

    table: str | None = None
    label: str | None = None
    count: float | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> PreviewCell:
        return cls(**_plain(cls, d))


@dataclass(frozen=True)
class CountRelease:
    """``theory.release``: what was released (the family of tables, m of the candidate cells,
    m/|D|), the mechanism and its budget, and the sensitivity Δ of the release."""

    kind: str | None = None
    fraction: float | None = None
    queries: int | None = None
    candidates: int | None = None
    tables: tuple[ReleasedTable, ...] = ()
    sensitivity: float | None = None
    sensitivity_exact: bool = True
    mechanism: str | None = None
    epsilon: float | None = None
    delta: float | None = None
    budget: str | None = None
    noise_scale: float | None = None
    preview: tuple[PreviewCell, ...] = ()
    written: tuple = ()
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> CountRelease:
        d = table_or_empty(d)
        return cls(tables=tuple(ReleasedTable.from_dict(t) for t in _seq(d.get("tables"))
                                if isinstance(t, Mapping)),
                   preview=tuple(PreviewCell.from_dict(p) for p in _seq(d.get("preview"))
                                 if isinstance(p, Mapping)),
                   written=tuple(d), **_plain(cls, d, ("tables", "preview", "written")))

    @property
    def present(self) -> bool:
        """Whether the result holds the block (an empty or missing one does not)."""
        return bool(self.written)


# ----------------------------------------------------------------------------- DP bounds

@dataclass(frozen=True)
class DpBounds:
    """``theory.dp`` (present only when noise was added): ε of the release for adding or
    removing one person, ε' = 2ε for changing one value, δ', the top-1 bound
    e^ε'/(e^ε' + |V| − 1), the membership accuracy bound and the paper 002 Thm 1 region."""

    epsilon_release: float | None = None
    epsilon_change: float | None = None
    delta: float | None = None
    aia_top1_bound: float | None = None
    mia_accuracy_bound: float | None = None
    note: str | None = None
    dp_region: Mapping | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> DpBounds:
        kw = _plain(cls, d, ("dp_region",))
        region = d.get("dp_region")
        return cls(dp_region=region if isinstance(region, Mapping) else None, **kw)

    @property
    def region_epsilon(self):
        """The ε' the DP region of the membership chart is drawn for (ε' of the release when
        the region does not say)."""
        region = self.dp_region or EMPTY
        return region["epsilon"] if "epsilon" in region else self.epsilon_change


# ----------------------------------------------------------------------------- deterministic

@dataclass(frozen=True)
class Deterministic:
    """``theory.deterministic``: what the tables prove on their own (paper 003 Alg. 1): the
    targets checked, proved, proved right, the solves cut by the time limit, how each target
    was settled (``settled_by``: None for results made before it was kept) and the solver's
    time per target."""

    targets: int | None = None
    determined: int | None = None
    correct: int | None = None
    time_limited: int | None = None
    settled_by: Mapping | None = None
    median_s: float | None = None
    p95_s: float | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> Deterministic:
        settled = d.get("settled_by")
        return cls(settled_by=settled if isinstance(settled, Mapping) else None,
                   **_plain(cls, d, ("settled_by",)))


# ----------------------------------------------------------------------------- membership

def _attack_entries(items, what: str) -> tuple[AttackEntry, ...]:
    out = []
    for i, a in enumerate(_seq(items)):
        try:
            out.append(AttackEntry.from_dict(a, f"{what} {i + 1}"))
        except BlockError:
            continue          # a damaged entry is left out; result_problem names it
    return tuple(out)


@dataclass(frozen=True)
class MembershipGame:
    """``theory.membership``: the membership game of paper 003 §6.1 (Fig. 9): its targets,
    the memberships the tables prove (and how many of those are right) and its attacks."""

    targets: int | None = None
    proved: int | None = None
    proved_correct: int | None = None
    attacks: tuple[AttackEntry, ...] = ()
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> MembershipGame:
        return cls(attacks=_attack_entries(d.get("attacks"), "membership attack"),
                   **_plain(cls, d, ("attacks",)))


# ----------------------------------------------------------------------------- sweeps

@dataclass(frozen=True)
class SweepPoint:
    """One attack's measurement at one swept setting: its AUC and interval."""

    auc: float | None = None
    auc_ci: tuple | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> SweepPoint | None:
        if not isinstance(d, Mapping):
            return None
        return cls(auc_ci=_pair(d.get("auc_ci")), **_plain(cls, d, ("auc_ci",)))


@dataclass(frozen=True)
class Sweep:
    """``theory.sweeps[key]`` ("fraction": paper 003 Fig. 6; "noise": Fig. 8): the swept
    values, the counts released and the share of targets proved at each, the noise scale
    (noise sweep), and each attack's points (name → one :class:`SweepPoint` or None per
    swept value) with the labels the run gave them."""

    values: tuple = ()
    queries: tuple = ()
    determined_share: tuple = ()
    noise_scale: tuple = ()
    attacks: Mapping = field(default_factory=dict)
    labels: Mapping = field(default_factory=dict)
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> Sweep:
        attacks = {str(n): tuple(SweepPoint.from_dict(r) for r in rows)
                   for n, rows in table_or_empty(d.get("attacks")).items()
                   if isinstance(rows, (list, tuple))}
        return cls(values=_seq(d.get("values")), queries=_seq(d.get("queries")),
                   determined_share=_seq(d.get("determined_share")),
                   noise_scale=_seq(d.get("noise_scale")),
                   attacks=MappingProxyType(attacks),
                   labels=MappingProxyType(dict(table_or_empty(d.get("labels")))),
                   **_plain(cls, d, ("values", "queries", "determined_share", "noise_scale",
                                     "attacks", "labels")))


# ----------------------------------------------------------------------------- published table

@dataclass(frozen=True)
class PublishedTable:
    """``theory.published``: an already-published table checked for what it pins down."""

    path: str | None = None
    rows: int | None = None
    records: int | None = None
    consistent: bool | None = None
    candidates: int | None = None
    determined: int | None = None
    note: str | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> PublishedTable:
        return cls(**_plain(cls, d))


# ----------------------------------------------------------------------------- attack details

@dataclass(frozen=True)
class ObviousGuess:
    """The obvious guess of the real-people block: one value said for everyone."""

    value: Any = None
    accuracy: float | None = None
    written: tuple = ()
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> ObviousGuess:
        d = table_or_empty(d)
        return cls(written=tuple(d), **_plain(cls, d, ("written",)))

    @property
    def has_value(self) -> bool:
        """Whether the block names the value (an older or damaged one may not)."""
        return "value" in self.written


@dataclass(frozen=True)
class RealPeople:
    """``details.real_people`` (issue 32 item 1): the attack on the tables as published,
    scored on the targets' real values, beside the obvious and the data-only guesses, and the
    scaled score with its interval. ``source`` is the block as read, for
    engine.attacks.real_people's sentence and test, which read it whole."""

    n: int | None = None
    correct: int | None = None
    accuracy: float | None = None
    accuracy_ci: tuple | None = None
    obvious_guess: ObviousGuess = field(default_factory=ObviousGuess)
    data_only_accuracy: float | None = None
    has_data_only: bool = False
    scaled_score: float | None = None
    scaled_score_ci: tuple | None = None
    source: Mapping = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, d) -> RealPeople | None:
        if not isinstance(d, Mapping) or not d:
            return None
        do = d.get("data_only")
        return cls(n=d.get("n"), correct=d.get("correct"), accuracy=d.get("accuracy"),
                   accuracy_ci=_pair(d.get("accuracy_ci")),
                   obvious_guess=ObviousGuess.from_dict(d.get("obvious_guess")),
                   data_only_accuracy=table_or_empty(do).get("accuracy"),
                   has_data_only=isinstance(do, Mapping) and bool(do),
                   scaled_score=d.get("scaled_score"),
                   scaled_score_ci=_pair(d.get("scaled_score_ci")), source=d)


@dataclass(frozen=True)
class WithoutProved:
    """``details.excluding_determined``: the attack's AUC on the targets the tables do not
    prove (paper 003 Fig. 5), with its interval and how many targets that leaves."""

    auc: float | None = None
    auc_ci: tuple | None = None
    targets: int | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> WithoutProved | None:
        if not isinstance(d, Mapping):
            return None
        return cls(auc_ci=_pair(d.get("auc_ci")), **_plain(cls, d, ("auc_ci",)))


@dataclass(frozen=True)
class ShadowChoice:
    """``details.shadow_choice`` of a best-of attack (engine.attacks.aggregates.best_of):
    the candidate chosen on the attacker's own rehearsal, the AUC each candidate scored
    there and on how many stand-ins."""

    chosen: str | None = None
    shadow_auc: Mapping = field(default_factory=dict)
    judged_targets: int | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> ShadowChoice | None:
        if not isinstance(d, Mapping):
            return None
        return cls(shadow_auc=MappingProxyType(dict(table_or_empty(d.get("shadow_auc")))),
                   **_plain(cls, d, ("shadow_auc",)))


@dataclass(frozen=True)
class CountDetails:
    """What this audit adds to an attack entry: which game it played (``"mia"`` for the
    membership game), the paper it comes from, the top-1 accuracy with its interval against
    chance 1/|V|, the AUC without the proved targets, the real people, a best-of attack's
    choice, and how its AUC interval was computed (``auc_ci_method``, written beside the
    details)."""

    game: str | None = None
    paper: str | None = None
    top1_accuracy: float | None = None
    top1_accuracy_ci: tuple | None = None
    chance: float | None = None
    excluding_determined: WithoutProved | None = None
    real_people: RealPeople | None = None
    shadow_choice: ShadowChoice | None = None
    auc_ci_method: str | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_entry(cls, attack: AttackEntry) -> CountDetails:
        d = table_or_empty(attack.details)
        nested = ("top1_accuracy_ci", "excluding_determined", "real_people", "shadow_choice",
                  "auc_ci_method")
        return cls(top1_accuracy_ci=_pair(d.get("top1_accuracy_ci")),
                   excluding_determined=WithoutProved.from_dict(d.get("excluding_determined")),
                   real_people=RealPeople.from_dict(d.get("real_people")),
                   shadow_choice=ShadowChoice.from_dict(d.get("shadow_choice")),
                   auc_ci_method=attack.extra.get("auc_ci_method"),
                   **_plain(cls, d, nested))

    @property
    def membership_game(self) -> bool:
        """Whether the entry is an attack of the membership game."""
        return self.game == "mia"


# ----------------------------------------------------------------------------- exposed records

@dataclass(frozen=True)
class ExposedRecord:
    """One entry of ``exposed_records``: a target the tables prove, its quasi-identifiers
    (``record``: a table, or "(redacted)"), the value proved and whether it is right, the
    tables that count it and the cells that pin it down (listed only with the records)."""

    record: Any = None
    value: Any = None
    value_correct: bool | None = None
    tables: tuple = ()
    pinning_cells: tuple = ()
    pinning_count: int | None = None
    written: tuple = ()
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> ExposedRecord:
        return cls(tables=_seq(d.get("tables")), pinning_cells=_seq(d.get("pinning_cells")),
                   written=tuple(d), **_plain(cls, d, ("tables", "pinning_cells", "written")))

    @property
    def has_value(self) -> bool:
        """Whether the result holds the value (a key written, possibly as None)."""
        return "value" in self.written

    @property
    def cell_count(self) -> int:
        """How many cells pin the record down (the count kept when they are not listed)."""
        return len(self.pinning_cells) if self.pinning_count is None else self.pinning_count


# ----------------------------------------------------------------------------- settings

@dataclass(frozen=True)
class CountSettings:
    """The configuration keys the count-tables results quote (engine.audits.aggregates
    .AggregatesConfig), as the result recorded them: a key missing from an old result reads
    as None."""

    data: str | None = None
    sensitive: str | None = None
    census_records: int | None = None
    census_auxiliary: int | None = None
    release: str | None = None
    fraction: float | None = None
    mechanism: str | None = None
    epsilon: float | None = None
    budget: str | None = None
    model: str | None = None
    n_shadow: int | None = None
    reconstructions: int | None = None
    solver_time_limit: float | None = None
    max_targets: int | None = None
    confidence: float | None = None
    seed: int | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_config(cls, config) -> CountSettings:
        return cls(**_plain(cls, table_or_empty(config)))


# ----------------------------------------------------------------------------- the theory

@dataclass(frozen=True)
class AggregatesTheory:
    """The count-tables audit's part of a result (module docstring). A block the result does
    not hold (no noise: ``dp``; no membership game; no published table) is None."""

    game: CountGame = field(default_factory=CountGame)
    release: CountRelease = field(default_factory=CountRelease)
    dp: DpBounds | None = None
    deterministic: Deterministic | None = None
    membership: MembershipGame | None = None
    sweeps: Mapping = field(default_factory=dict)          # "fraction" / "noise" -> Sweep
    published: PublishedTable | None = None
    optimal_attacker: Mapping | None = None
    settings: CountSettings = field(default_factory=CountSettings)
    exposed: tuple[ExposedRecord, ...] = ()
    attack_details: Mapping = field(default_factory=dict)  # attack name -> CountDetails
    # the disclosure rules beside the attacks (issue 34 item 2); None in older results
    rules: RulesBlock | None = None
    extra: Mapping = field(default_factory=dict)

    def details_of(self, attack: AttackEntry) -> CountDetails:
        """The typed details of ``attack`` (an entry of ``attacks`` or of the membership
        game); empty details for one the loader did not see."""
        found = self.attack_details.get(attack.name)
        return found if found is not None else CountDetails.from_entry(attack)

    def sweep(self, key: str) -> Sweep | None:
        """The sweep ``key`` ("fraction" or "noise"), or None when the result has none."""
        return self.sweeps[key] if key in self.sweeps else None

    @property
    def sensitive(self) -> str | None:
        """The sensitive attribute's name, as the game or else the configuration records it."""
        return self.game.sensitive or self.settings.sensitive


_THEORY_KEYS = ("game", "release", "dp", "deterministic", "membership", "sweeps", "published",
                "optimal_attacker", "rules")


def _block(theory: Mapping, key: str, block):
    d = theory.get(key)
    return block.from_dict(d) if isinstance(d, Mapping) and d else None


def load_theory(theory: Mapping, result: Mapping) -> AggregatesTheory:
    """The theory block of a count-tables result, with the attacks' details, the exposed
    records and the settings (result: the whole dict)."""
    theory = table_or_empty(theory)
    result = table_or_empty(result)
    sweeps = {str(k): Sweep.from_dict(v) for k, v in table_or_empty(theory.get("sweeps")).items()
              if isinstance(v, Mapping)}
    membership = _block(theory, "membership", MembershipGame)
    details: dict[str, CountDetails] = {}
    entries = _attack_entries(result.get("attacks"), "attack")
    for a in (*(membership.attacks if membership else ()), *entries):
        details[a.name] = CountDetails.from_entry(a)
    optimal = theory.get("optimal_attacker")
    return AggregatesTheory(
        game=CountGame.from_dict(theory.get("game")),
        release=CountRelease.from_dict(theory.get("release")),
        dp=_block(theory, "dp", DpBounds),
        deterministic=_block(theory, "deterministic", Deterministic),
        membership=membership,
        sweeps=MappingProxyType(sweeps),
        published=_block(theory, "published", PublishedTable),
        optimal_attacker=optimal if isinstance(optimal, Mapping) and optimal else None,
        settings=CountSettings.from_config(result.get("config")),
        exposed=tuple(ExposedRecord.from_dict(r) for r in _seq(result.get("exposed_records"))
                      if isinstance(r, Mapping)),
        attack_details=MappingProxyType(details),
        rules=load_rules(theory),
        extra=MappingProxyType({k: v for k, v in theory.items() if k not in _THEORY_KEYS}))


__all__ = ["AggregatesTheory", "CountDetails", "CountGame", "CountRelease", "CountSettings",
           "Deterministic", "DpBounds", "ExposedRecord", "MembershipGame", "ObviousGuess",
           "PreviewCell", "PublishedTable", "RealPeople", "ReleasedTable", "ShadowChoice",
           "Sweep", "SweepPoint", "WithoutProved", "load_theory"]
