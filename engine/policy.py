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

from engine.data.errors import InputError, given_value

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

    def level(self, tpr_at_fpr: float | None, accuracy: float,
              accuracy_words: str = "The attacker is right {:.1%} of the time",
              members: tuple[str, str] = ("the people present", "the people absent")
              ) -> tuple[str, list[str]]:
        """Verdict level and the reasons that decided it, in plain words, for the strongest
        attacker's figures (:func:`engine.headline.headline` gives them). ``tpr_at_fpr`` is
        None when no attack's share at this false-alarm rate could be measured: the level then
        rests on the accuracy alone, and a reason says so. ``accuracy_words`` is the accuracy's
        sentence with a ``{}`` for the figure (an audit whose accuracy is put on the balanced
        scale another way says how). ``members``: what the game's "present" and "absent"
        cases are, in the words the audit's own summary uses (the location game's are releases
        with and without one target, not people: issue 32 item 6, one story)."""
        reasons: list[str] = []
        spots = (None if tpr_at_fpr is None else
                 f"The attacker spots {tpr_at_fpr:.1%} of {members[0]} while wrongly "
                 f"accusing {self.fpr:.1%} of {members[1]}")
        right = accuracy_words.format(accuracy)
        tpr = 0.0 if tpr_at_fpr is None else tpr_at_fpr
        if tpr >= self.high_tpr:
            reasons.append(f"{spots} (high if at least {self.high_tpr:.0%}).")
        if accuracy >= self.high_accuracy:
            reasons.append(f"{right} (high if at least {self.high_accuracy:.0%}).")
        level = "high" if reasons else None
        if level is None:
            if tpr >= self.medium_tpr:
                reasons.append(f"{spots} (medium if at least {self.medium_tpr:.0%}).")
            if accuracy >= self.medium_accuracy:
                reasons.append(f"{right} (medium if at least {self.medium_accuracy:.0%}).")
            level = "medium" if reasons else None
        if level is None:
            level = "low"
            reasons.append(
                (f"{spots}, and " + right[0].lower() + right[1:] if spots is not None
                 else right) + ": below the medium thresholds.")
        if tpr_at_fpr is None:
            who = "people" if members[0] == "the people present" else f"of {members[0]}"
            reasons.append(f"How many {who} the attacker spots while wrongly accusing "
                           f"{self.fpr:.0%} of the others could not be measured (too few test "
                           "cases without the person), so this verdict rests on how often the "
                           "attacker is right.")
        return level, reasons

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
                raise InputError(f"{source}: every threshold of the verdict must be a number "
                                 f"(got {given_value(v)}).", key=f"policy.{k}",
                                 setting=f"policy.{k}") from None
        p = cls(**values)
        p.validate(source)
        return p
