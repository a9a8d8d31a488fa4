"""Comparing candidate releases (issue 34 item 1): the same audit run over 2–8 candidate
releases that differ in what the releaser controls, or saved projects of one audit type side
by side; per candidate the headline risk with its interval against what the candidate costs
the data's users, which candidates meet the policy, the most useful one that does, and which
pairs cannot be told apart at this size. Qt-free; the GUI's Compare step and
``main.py compare`` call it. Docs: docs/methods/compare.md.

Where it sits (docs/dev/layers.md): above ``engine.audits`` and the registry (it runs audits)
and below the report and the GUI.

Public API (the contract the GUI is built on):

* :data:`CONTROLLABLE` — per audit type, the config keys a releaser controls, with plain labels;
* :class:`Candidate`, :class:`CandidateSet` (``configs()``: every candidate's validated Config,
  all with the base's seed — common random numbers), :func:`load_candidates` (a TOML spec),
  :func:`validate`;
* :func:`candidates_from_projects` — saved projects (no re-run) as a :class:`SavedCandidates`;
  :func:`compare_projects` — their :class:`Comparison` at once;
* :func:`estimate_comparison` — the whole set's :class:`engine.estimates.CostEstimate`;
* :func:`run_comparison` — runs and streams each candidate to ``out_dir/candidate-<i>/``;
* :func:`compare_results` — the pure summary from result dicts;
* :class:`Comparison` / :class:`CandidateRow` / :class:`RiskFigure` / :class:`CostFigure` /
  :class:`PairTest` (``Comparison.to_dict()`` is comparison.json);
* the PDF: ``engine.report.comparison.write_comparison_report(comparison, path, signoff=None)``.
"""

from __future__ import annotations

from engine.compare.candidates import (
    CONTROLLABLE,
    MAX_CANDIDATES,
    MIN_CANDIDATES,
    CandidateSet,
    SavedCandidates,
    candidates_from_projects,
    label_of,
    load_candidates,
    validate,
)
from engine.compare.run import (
    COMPARISON_FILE,
    compare_projects,
    estimate_comparison,
    read_comparison,
    run_comparison,
)
from engine.compare.summary import compare_results
from engine.compare.types import (
    Candidate,
    CandidateRow,
    Comparison,
    CostFigure,
    PairTest,
    RiskFigure,
)

__all__ = ["COMPARISON_FILE", "CONTROLLABLE", "MAX_CANDIDATES", "MIN_CANDIDATES", "Candidate",
           "CandidateRow", "CandidateSet", "Comparison", "CostFigure", "PairTest", "RiskFigure",
           "SavedCandidates", "candidates_from_projects", "compare_projects", "compare_results",
           "estimate_comparison", "label_of", "load_candidates", "read_comparison", "run_comparison",
           "validate"]
