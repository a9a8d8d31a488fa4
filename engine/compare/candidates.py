"""What is compared (issue 34 item 1): the candidate releases of one audit, read from a spec
file or from saved projects, and the checks that make each one a sentence when wrong.

A candidate is the base config with the keys the releaser controls changed (its
``overrides``). Every candidate runs with the **base's seed** — common random numbers — so the
simulated people, shadow releases and test draws are the same streams for every candidate and
a difference between two candidates is the candidates', not the random streams' (the variance
reduction of common random numbers, e.g. Glasserman, *Monte Carlo Methods in Financial
Engineering*, §4.2). A candidate may therefore not change ``seed``.

The spec file (docs/config_reference.md, "Comparison spec")::

    audit_type = "location"
    name = "Which ε for the hourly counts?"
    base = "location_demo.toml"        # a config file (relative to this file), or a [base] table
    highest_level = "low"              # the highest verdict the policy accepts (low | medium)
    [[candidate]]
    label = "ε = 0.5"
    epsilon = 0.5                      # the keys it changes (or an overrides = {...} table)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine.audits.registry import AUDIT_TYPES, config_from_dict
from engine.compare.types import Candidate
from engine.config_file import read_config_file
from engine.data.errors import InputError, given_value
from engine.data.paths import resolve_path
from engine.policy import LEVELS
from engine.project import load_project
from engine.results.loaded import load_result
from engine.results.result import file_sha256

MIN_CANDIDATES, MAX_CANDIDATES = 2, 8
SPEC_KEYS = ("audit_type", "name", "base", "highest_level", "candidate")
# The highest verdict level a candidate may have to meet the policy ("low": only low-risk
# releases may be approved; the officer may accept "medium").
DEFAULT_HIGHEST_LEVEL = "low"

# Per audit type, the config keys a releaser controls and their plain labels (the GUI's
# Compare step offers these; a spec may change any key the audit has, except the seed).
CONTROLLABLE: dict[str, tuple[tuple[str, str], ...]] = {
    "mechanism": (("mechanism", "Noise type"), ("epsilon", "ε per observation"),
                  ("noise_scale", "Noise scale"), ("delta", "δ"),
                  ("observations", "Observations per person"), ("sensitivity", "Sensitivity"),
                  ("postprocess", "Rounding of the released values")),
    "location": (("mechanism", "Noise type"), ("epsilon", "ε per hour"), ("delta", "δ"),
                 ("clip_per_epoch", "Places kept per person and hour"),
                 ("aggregate_size", "People per released count"),
                 ("city_epochs", "Hours released (sample city)")),
    "aggregates": (("release", "Tables released"), ("release_options", "Which tables"),
                   ("schema", "Columns and quasi-identifiers"),
                   ("fraction", "Share of cells released"), ("mechanism", "Noise"),
                   ("epsilon", "ε"), ("delta", "δ"), ("budget", "ε per cell or per release")),
    "model": (("defences", "Defence settings"), ("weight_decay", "Weight decay"),
              ("epochs", "Training epochs"), ("family", "Model family"),
              ("architecture", "Network size")),
}
FIXED_KEYS = ("audit_type", "seed", "schema_version")


def label_of(audit_type: str, key: str) -> str:
    """The plain label of a controllable key (the key itself when it has none)."""
    return dict(CONTROLLABLE.get(audit_type, ())).get(key, key)


def merged(base: Mapping, overrides: Mapping) -> dict:
    """``base`` with ``overrides``; a table (policy, defences, release options) is merged key by
    key, so a candidate that changes one defence setting keeps the others."""
    out = dict(base)
    for k, v in overrides.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = merged(out[k], v)
        else:
            out[k] = v
    return out


@dataclass(frozen=True)
class CandidateSet:
    """The candidates of one comparison: the audit type, the base config (a full config dict),
    the candidates, the comparison's name and the highest verdict level the policy accepts."""

    audit_type: str
    base: Mapping
    candidates: tuple[Candidate, ...]
    name: str = "Comparison"
    highest_level: str = DEFAULT_HIGHEST_LEVEL
    source: str = "comparison"

    @property
    def seed(self) -> int:
        return int(self.base.get("seed", 7)) if isinstance(self.base, Mapping) else 7

    def config_dict(self, candidate: Candidate) -> dict:
        d = merged(self.base, candidate.overrides)
        d["audit_type"] = self.audit_type
        if "seed" in self.base:
            d["seed"] = self.base["seed"]     # one seed for every candidate (module docstring)
        return d

    def configs(self) -> list:
        """Each candidate's validated Config (base + overrides, the base's seed); an
        InputError names the candidate and the key."""
        out = []
        for c in self.candidates:
            where = f"{self.source}: candidate {given_value(c.label)}"
            out.append(config_from_dict(self.config_dict(c), source=where))
        return out


@dataclass(frozen=True)
class SavedCandidates:
    """Saved projects compared side by side (no re-run): the candidates (source
    ``"project:<path>"``, no overrides) and each project's result dict, in the same order."""

    cset: CandidateSet
    results: tuple[Mapping, ...] = field(default_factory=tuple)


def validate(cset: CandidateSet) -> None:
    """One InputError sentence for the first problem: fewer than 2 or more than 8 candidates,
    an unknown audit type, a key the audit does not have, a changed seed, two candidates with
    one label or the same settings, a policy level that is not one."""
    src = cset.source
    if cset.audit_type not in AUDIT_TYPES:
        raise InputError(f"{src}: the audit to compare must be one of {', '.join(AUDIT_TYPES)} "
                         f"(got {given_value(cset.audit_type)}).", source=src, key="audit_type")
    n = len(cset.candidates)
    if n < MIN_CANDIDATES:
        todo = ("give two or more saved projects of one audit type" if src.startswith("projects")
                else "add a [[candidate]] table for each release you are choosing between")
        raise InputError(f"{src}: a comparison needs at least {MIN_CANDIDATES} candidate "
                         f"releases and this one has {n}; {todo}.", source=src, key="candidate")
    if n > MAX_CANDIDATES:
        raise InputError(f"{src}: a comparison takes at most {MAX_CANDIDATES} candidate "
                         f"releases and this one has {n}; leave out the ones you would not "
                         "publish anyway, or split them into two comparisons.", source=src,
                         key="candidate")
    if cset.highest_level not in LEVELS[:2]:
        raise InputError(f"{src}: the highest verdict the policy accepts "
                         f"must be low or medium (got {given_value(cset.highest_level)}).",
                         source=src, key="highest_level")
    known = set(AUDIT_TYPES[cset.audit_type].config().to_dict())
    labels: dict[str, int] = {}
    for i, c in enumerate(cset.candidates, 1):
        label = str(c.label).strip()
        if not label:
            raise InputError(f"{src}: candidate {i} has no label; give each candidate a short "
                             "label (label = \"ε = 1\").", source=src, key="label")
        if label in labels:
            raise InputError(f"{src}: candidates {labels[label]} and {i} are both called "
                             f"{given_value(label)}; give each candidate its own label.",
                             source=src, key="label")
        labels[label] = i
        for key in c.overrides:
            if key == "seed":
                raise InputError(f"{src}: candidate {given_value(label)} changes the seed; "
                                 "every candidate runs with the base's seed, so that a "
                                 "difference between candidates is theirs and not the random "
                                 "draws'. Remove the seed from the candidate.", source=src,
                                 key="seed")
            if key in FIXED_KEYS or key not in known:
                offered = ", ".join(k for k, _ in CONTROLLABLE[cset.audit_type])
                raise InputError(f"{src}: candidate {given_value(label)} changes "
                                 f"{given_value(key)}, which the {cset.audit_type} audit does "
                                 f"not have; the settings a releaser controls are {offered}.",
                                 source=src, key=str(key))
    if cset.source.startswith("projects"):
        return
    seen: dict[str, str] = {}
    for c, config in zip(cset.candidates, cset.configs(), strict=True):
        d = config.to_dict()
        d.pop("name", None)
        text = json.dumps(d, sort_keys=True, default=str)
        if text in seen:
            raise InputError(f"{src}: candidates {given_value(seen[text])} and "
                             f"{given_value(c.label)} have the same settings, so comparing "
                             "them says nothing; change what differs, or drop one.",
                             source=src, key="candidate")
        seen[text] = c.label


def load_candidates(path) -> CandidateSet:
    """Read and validate a comparison spec (module docstring); InputError sentences."""
    p = Path(path)
    spec = read_config_file(p)
    src = str(p)
    unknown = [k for k in spec if k not in SPEC_KEYS]
    if unknown:
        raise InputError(f"{src}: unknown key {given_value(unknown[0])}; a comparison spec "
                         f"has {', '.join(SPEC_KEYS)} (each candidate's settings go in its "
                         "[[candidate]] table).", source=src, key=str(unknown[0]))
    base = spec.get("base", {})
    if isinstance(base, str):
        base_path = (p.parent / base) if not Path(base).is_absolute() else Path(base)
        base = read_config_file(base_path)
    if not isinstance(base, Mapping):
        raise InputError(f"{src}: 'base' must be a config file's name or a [base] table of "
                         "settings.", source=src, key="base")
    audit_type = spec.get("audit_type", base.get("audit_type"))
    if base.get("audit_type") not in (None, audit_type):
        raise InputError(f"{src}: the spec compares {given_value(audit_type)} audits but its "
                         f"base config is a {given_value(base.get('audit_type'))} audit; "
                         "compare candidates of one audit type.", source=src, key="audit_type")
    rows = spec.get("candidate", [])
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
        raise InputError(f"{src}: each candidate is a [[candidate]] table with a label and "
                         "the settings it changes.", source=src, key="candidate")
    candidates = []
    for i, row in enumerate(rows, 1):
        extra = row.get("overrides", {})
        if not isinstance(extra, Mapping):
            raise InputError(f"{src}: candidate {i}'s 'overrides' must be a table of "
                             "settings.", source=src, key="overrides")
        inline = {k: v for k, v in row.items() if k not in ("label", "overrides")}
        both = sorted(set(inline) & set(extra))
        if both:
            raise InputError(f"{src}: candidate {i} sets {given_value(both[0])} twice (in its "
                             "table and in its overrides); keep one.", source=src, key=both[0])
        candidates.append(Candidate(label=str(row.get("label", "")).strip(),
                                    overrides={**inline, **extra}))
    cset = CandidateSet(audit_type=str(audit_type), base=dict(base),
                        candidates=tuple(candidates),
                        name=str(spec.get("name") or "Comparison")[:200],
                        highest_level=str(spec.get("highest_level", DEFAULT_HIGHEST_LEVEL)),
                        source=src)
    validate(cset)
    return cset


def candidates_from_projects(paths, *, highest_level: str = DEFAULT_HIGHEST_LEVEL
                             ) -> SavedCandidates:
    """Saved projects (``.praudit.json``) side by side, without running anything. Refused
    with a sentence: a project without a result, projects of different audit types, and a
    project whose data file changed since its result (the SHA-256 the result lists for an
    input differs from the file's now, or the file is gone)."""
    paths = [Path(p) for p in paths]
    results, candidates, audit_type = [], [], None
    src = "projects " + ", ".join(p.name for p in paths)
    for p in paths:
        project = load_project(p)
        if project.result is None or project.result_problem is not None:
            why = f" ({project.result_problem})" if project.result_problem else ""
            raise InputError(f"{p}: holds no result to compare{why}"
                             "; open it in the app and run the audit first.", source=str(p))
        if audit_type is None:
            audit_type = project.audit_type
        elif project.audit_type != audit_type:
            raise InputError(f"{p}: is a {project.audit_type} audit and {paths[0].name} a "
                             f"{audit_type} audit; only projects of one audit type can be "
                             "compared.", source=str(p), key="audit_type")
        for entry in load_result(project.result).inputs:
            if not entry.path or not entry.sha256:
                continue
            # Read as the app reads a typed path (working folder, then the app's folder), then
            # beside the project.
            data = resolve_path(entry.path)
            if not data.is_file() and (p.parent / entry.path).is_file():
                data = p.parent / entry.path
            if not data.is_file():
                raise InputError(f"{p}: its data file {data} is not there any more, so whether "
                                 "the result still describes it cannot be checked; put the "
                                 "file back, or open the project and run the audit again.",
                                 source=str(p), key="inputs")
            if file_sha256(data) != entry.sha256:
                raise InputError(f"{p}: its data file {data} has changed since the result was "
                                 "computed (its SHA-256 differs from the one the result "
                                 "lists), so the result no longer describes that file; open "
                                 "the project and run the audit again.", source=str(p),
                                 key="inputs")
        results.append(project.result)
        label = project.name or p.name.removesuffix(".praudit.json")
        candidates.append(Candidate(label=label, overrides={}, source=f"project:{p}"))
    labels = [c.label for c in candidates]
    for i, c in enumerate(candidates):           # two projects of one name: tell them apart
        if labels.count(c.label) > 1:
            candidates[i] = Candidate(f"{c.label} ({i + 1})", {}, c.source)
    base = dict(results[0].get("config") or {}) if results else {}
    cset = CandidateSet(audit_type=str(audit_type), base=base, candidates=tuple(candidates),
                        name="Saved projects side by side", highest_level=highest_level,
                        source=src)
    validate(cset)
    return SavedCandidates(cset=cset, results=tuple(results))
