"""Which verdict the officer's policy follows (issue 34 item 2): the attacks', the rules', or
the stricter of the two. The rules' verdict never replaces the attacks' silently: with
``policy_follows = "attacks"`` the verdict is left as the attacks made it and the block says
so; with ``"rules"`` or ``"both"`` the level is the stricter of the attacks' level and the
rules' (failing rules: high — the table may not be released as it is; passing: low) and a
reason in the verdict says which decided (engine.policy.LEVELS orders the levels).
"""

from __future__ import annotations

from engine.policy import LEVELS


def rules_level(block: dict) -> str:
    """The rules' own level: high when a published cell fails a rule, else low."""
    return "low" if block["summary"]["passes"] else "high"


def follow_policy(verdict: dict, block: dict | None) -> dict:
    """``verdict`` as the policy of ``block`` (the rules block, or None when the rules are
    off) makes it; sets the block's ``followed_sentence``. Returns a new dict (the same
    one, unchanged, for ``"attacks"``)."""
    if block is None:
        return verdict
    follows = block["policy_follows"]
    attack = str(verdict.get("level"))
    rules = rules_level(block)
    n_bad = block["summary"]["failed_cells"]
    fail_words = (f"the disclosure rules fail ({n_bad} cell{'s' if n_bad != 1 else ''})"
                  if n_bad else "every cell passes the disclosure rules")
    if follows == "attacks" or attack not in LEVELS:
        block["followed_sentence"] = (
            f"The policy follows the attacks: the verdict ({attack}) is the attacks'; "
            f"{fail_words}, shown beside it, and the rules change nothing.")
        return verdict
    stricter = max(attack, rules, key=LEVELS.index)
    who = "the rules" if follows == "rules" else "the stricter of the rules and the attacks"
    if stricter == attack and rules != attack:
        decided = f"the attacks' level ({attack}) is the stricter, so it stands"
    elif stricter == attack:
        decided = f"both give {attack}"
    else:
        decided = (f"the rules' level ({rules}) is the stricter, so the verdict is {rules} "
                   f"(the attacks alone: {attack})")
    sentence = f"The policy follows {who}: {fail_words}; {decided}."
    if follows == "rules" and stricter == attack and rules != attack:
        sentence += " The attacks' verdict is never lowered by passing rules."
    block["followed_sentence"] = sentence
    out = dict(verdict)
    out["level"] = stricter
    out["reasons"] = [*verdict.get("reasons", []), sentence]
    out["decided_by"] = ("rules" if stricter != attack else
                         "attacks" if rules != attack else "both")
    return out
