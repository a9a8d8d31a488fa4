"""Membership attacks on location aggregates (paper 000, and a likelihood-ratio attack beyond it).

Every attack reads the aggregates on a few cells only (engine.games.location) and returns an
:class:`~engine.attacks.location.base.AttackOutcome`: a score per test aggregate (higher =
"the target is in it") and the threshold its own rule chose on the attacker's shadow
aggregates, never on the test aggregates.
"""
