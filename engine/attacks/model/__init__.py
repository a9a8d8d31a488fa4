"""Membership and attribute inference attacks on machine-learning models (issue 8; papers 001
and 004 §4, plus LiRA and RMIA).

Every attack reads model *outputs* only (class probabilities, true labels), so models trained in
the app and "bring your own predictions" files are audited the same way, and returns a
:class:`~engine.attacks.model.base.AttackOutcome`: a score per record (higher = member) and the
threshold of its own rule, chosen on shadow/reference data or fixed by the rule, never on the
audited scores.

* :mod:`btta` — Bayesian Take-the-Typical (paper 001 Alg. 1), closed forms, Thm 2 bound;
* :mod:`cbtta` — its categorical version with PTL/PPL/PTC/PPC partitions (paper 001 §CBTTA);
* :mod:`metric` — correctness, confidence, entropy, modified entropy, top-1 (paper 004 §4.4.1);
* :mod:`ml_leaks` — ML-Leaks adversary 1; :mod:`shadow` — Shokri et al.'s per-class attack;
* :mod:`lira`, :mod:`rmia` — reference-model likelihood-ratio attacks;
* :mod:`label_only` — the gap attack and the generalization gap;
* :mod:`attribute` — attribute inference beside a data-only baseline.
"""
