"""The verdict policy: how attack results become "high", "medium" or "low" risk.

The policy is data, not code: a privacy officer can edit every threshold (GUI "Verdict policy"
box, or the ``[policy]`` table of a config file), and the report prints the rules in force.

Default rules (documented in docs/user_guide.md, "How the verdict is decided"):

* **high** if the strongest attacker (the exact optimal attacker of DP theory, or any attack we
  ran, whichever is stronger) identifies at least 10 % of the people present while wrongly
  accusing only 1 % of the people absent (TPR ≥ 0.10 at FPR = 0.01), or is right at least 75 %
  of the time (balanced accuracy ≥ 0.75);
* **medium** if TPR ≥ 0.02 at FPR = 0.01, or balanced accuracy ≥ 0.60;
* **low** otherwise.

Why TPR at low FPR: an attack that is right "on average" says little; what harms people is an
attacker who is confident about a few of them (Carlini et al. 2022; paper 003 reports TPR at low
FPR for the same reason).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from engine.data.errors import InputError

LEVELS = ("low", "medium", "high")


@dataclass(frozen=True)
class VerdictPolicy:
    name: str = "default"
    fpr: float = 0.01                 # the false-alarm rate at which TPR is judged
    high_tpr: float = 0.10            # TPR at `fpr` at or above this -> high
    medium_tpr: float = 0.02          # TPR at `fpr` at or above this -> medium
    high_accuracy: float = 0.75       # balanced accuracy at or above this -> high
    medium_accuracy: float = 0.60     # balanced accuracy at or above this -> medium

    def validate(self, source: str = "policy") -> None:
        for key in ("fpr", "high_tpr", "medium_tpr"):
            v = getattr(self, key)
            if not 0.0 < v < 1.0:
                raise InputError(f"{source}: 'policy.{key}' must be between 0 and 1 (got {v}).",
                                 key=f"policy.{key}")
        for key in ("high_accuracy", "medium_accuracy"):
            v = getattr(self, key)
            if not 0.5 <= v <= 1.0:
                raise InputError(f"{source}: 'policy.{key}' must be between 0.5 and 1 (got {v}).",
                                 key=f"policy.{key}")
        if self.medium_tpr > self.high_tpr:
            raise InputError(f"{source}: 'policy.medium_tpr' ({self.medium_tpr}) must not exceed "
                             f"'policy.high_tpr' ({self.high_tpr}).", key="policy.medium_tpr")
        if self.medium_accuracy > self.high_accuracy:
            raise InputError(f"{source}: 'policy.medium_accuracy' ({self.medium_accuracy}) must not "
                             f"exceed 'policy.high_accuracy' ({self.high_accuracy}).",
                             key="policy.medium_accuracy")

    def rules(self) -> list[str]:
        """The rules in plain words, printed in the GUI and the report."""
        return [
            f"High risk if an attacker identifies at least {self.high_tpr:.0%} of the people present "
            f"while wrongly accusing at most {self.fpr:.0%} of the people absent, or is right at "
            f"least {self.high_accuracy:.0%} of the time.",
            f"Medium risk if that identification rate is at least {self.medium_tpr:.0%}, or the "
            f"attacker is right at least {self.medium_accuracy:.0%} of the time.",
            "Low risk otherwise.",
        ]

    def strongest(self, attacks: list[dict], tpr: float = 0.0,
                  accuracy: float = 0.5) -> tuple[float, float]:
        """The strongest attacker's TPR at this policy's FPR and balanced accuracy: the best of
        ``tpr``/``accuracy`` (e.g. the exact optimum of theory) and every measured attack
        (ARCHITECTURE §4 entries; a TPR counts only where it is measurable)."""
        for a in attacks:
            for row in a.get("tpr_at_fpr") or []:
                if abs(row["fpr_target"] - self.fpr) < 1e-12 and row.get("measurable", True):
                    tpr = max(tpr, row["tpr"])
            accuracy = max(accuracy, a["accuracy"])
        return float(tpr), float(accuracy)

    def level(self, tpr_at_fpr: float, accuracy: float,
              accuracy_name: str = "Balanced accuracy") -> tuple[str, list[str]]:
        """Verdict level and the reasons that decided it, for the strongest attacker's numbers.
        ``accuracy_name`` names the accuracy in the reasons (an audit whose accuracy is put on
        the balanced scale another way says how)."""
        reasons: list[str] = []
        if tpr_at_fpr >= self.high_tpr:
            reasons.append(f"TPR at {self.fpr:.1%} FPR is {tpr_at_fpr:.1%} (high if ≥ {self.high_tpr:.0%}).")
        if accuracy >= self.high_accuracy:
            reasons.append(f"{accuracy_name} is {accuracy:.1%} (high if ≥ {self.high_accuracy:.0%}).")
        if reasons:
            return "high", reasons
        if tpr_at_fpr >= self.medium_tpr:
            reasons.append(f"TPR at {self.fpr:.1%} FPR is {tpr_at_fpr:.1%} (medium if ≥ {self.medium_tpr:.0%}).")
        if accuracy >= self.medium_accuracy:
            reasons.append(f"{accuracy_name} is {accuracy:.1%} (medium if ≥ {self.medium_accuracy:.0%}).")
        if reasons:
            return "medium", reasons
        return "low", [f"TPR at {self.fpr:.1%} FPR is {tpr_at_fpr:.1%} and "
                       f"{accuracy_name[0].lower() + accuracy_name[1:]} is {accuracy:.1%}, both "
                       "below the medium thresholds."]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict, source: str = "policy") -> VerdictPolicy:
        known = set(cls.__dataclass_fields__)
        unknown = set(d) - known
        if unknown:
            raise InputError(f"{source}: unknown key 'policy.{sorted(unknown)[0]}'; allowed keys: "
                             f"{', '.join(sorted(known))}.", key=f"policy.{sorted(unknown)[0]}")
        values = {}
        for k, v in d.items():
            if k == "name":
                values[k] = str(v)
                continue
            try:
                values[k] = float(v)
            except (TypeError, ValueError):
                raise InputError(f"{source}: 'policy.{k}' must be a number (got {v!r}).",
                                 key=f"policy.{k}") from None
        p = cls(**values)
        p.validate(source)
        return p
