"""The toy audit: a fair coin tossed ``coins`` times; the "attack" guesses heads every time.

Config, ``run`` and the bundled example, as each audit module of engine/audits has them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from engine.results.config_fields import as_number, begin_from_dict
from engine.results.result import AuditResult, software_versions
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng


@dataclass(frozen=True)
class ToyConfig:
    name: str = "Toy audit"
    seed: int = 0
    coins: int = 100

    audit_type = "toy"

    def to_dict(self) -> dict:
        return {"audit_type": self.audit_type, **asdict(self)}

    @classmethod
    def from_dict(cls, d: dict, source: str = "config") -> ToyConfig:
        d = begin_from_dict(cls, d, source)
        out = {}
        if "name" in d:
            out["name"] = str(d["name"])
        if "seed" in d:
            out["seed"] = as_number(source, "seed", d["seed"], integer=True, minimum=0)
        if "coins" in d:
            out["coins"] = as_number(source, "coins", d["coins"], integer=True, minimum=1)
        return cls(**out)


def run(config: ToyConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    cancel.check()
    heads = int(rng(config.seed, "toy").integers(0, 2, size=config.coins).sum())
    progress(1.0, "Done")
    share = heads / config.coins
    return AuditResult(
        audit_type="toy", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions("cpu"), runtime_s=0.0, attacks=[],
        theory={"heads": heads, "coins": config.coins},
        verdict={"level": "low", "policy": "toy", "policy_rules": [],
                 "reasons": [f"Guessing heads was right {share:.0%} of the time."]},
        summary=f"{heads} heads in {config.coins} tosses.")


def demo_config() -> ToyConfig:
    return ToyConfig(name="Toy demo", coins=50)
