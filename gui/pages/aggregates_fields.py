"""The count-tables page's fields (paper 003): its three form steps, every field with its
plain-language tooltip, the choices of its drop-downs and the step each config key belongs to.
Split out of :mod:`gui.pages.aggregates_page` (issue 33 item 2: no product file over 600 lines);
the page and its Data step (:mod:`gui.pages.aggregates_data_step`) read them from here.
"""

from __future__ import annotations

from gui.pages.aggregates_rules_fields import rule_fields
from gui.pages.audit_page import FormStep, audit_steps, policy_fields, run_fields
from gui.widgets.form import FieldSpec

FORM_STEPS = (
    FormStep("Data", "Which records are counted?",
             "Choose the protected records (a CSV with one row per person) or a synthetic "
             "census block to try the audit out. The schema says what each column holds and "
             "what the attacker knows; it is inferred from the file and you can correct it.",
             "Next: 2 Release — which tables are published."),
    FormStep("Release", "Which count tables are published, and how?",
             "Choose the tables, how many of their cells are released and whether noise is "
             "added. The preview below lists the tables the audit will attack.",
             "Next: 3 Attacks & run."),
    FormStep("Attacks & run", "Attacks and how precisely to measure them",
             "The attacker knows the target's quasi-identifiers, the number of records, the "
             "domains and a sample of similar people, and tries to learn the target's "
             "sensitive value from the tables (paper 003 §2.3). The defaults suit most audits; "
             "small numbers give a quick first look."),
)
STEPS = audit_steps(FORM_STEPS)
STEP_DATA, STEP_RELEASE, STEP_ATTACKS, STEP_RESULTS, STEP_REPORT = range(len(STEPS))

MECHANISM_CHOICES = (("none", "None (counts published exactly)"),
                     ("laplace", "Laplace noise, rounded to whole counts (paper 003 §5.6)"),
                     ("discrete_laplace", "Discrete Laplace noise"),
                     ("discrete_gaussian", "Discrete Gaussian noise (needs δ)"))
BUDGET_CHOICES = (("per_query", "ε for each count (paper 003 §5.6)"),
                  ("release", "ε for the whole release (noise grows with the tables)"))
MODEL_CHOICES = (("logistic", "Logistic regression (paper 003 default)"),
                 ("mlp", "Neural network, 50 and 20 hidden units"),
                 ("random_forest", "Random forest, 100 trees"),
                 ("svm", "Support-vector machine (RBF kernel)"))
MIA_TEXTS = {
    "desia_mia": "DeSIA-MIA: proves membership where the tables allow, else the stochastic "
                 "module (paper 003 §6.2)",
    "desia_mia_stochastic_only": "DeSIA-MIA stochastic module only",
    "cip_rand_mia": "CIP-rand reconstruction MIA (paper 003 §6.3)",
    "rap_rand_mia": "RAP-rand relaxed reconstruction MIA (paper 003 §6.3)",
    "best_of_mia": "Best of the membership attacks: proofs, then the better of DeSIA-MIA's "
                   "stochastic module and CIP-rand, chosen on the attacker's own stand-ins",
}

# Keys are AggregatesConfig fields ("policy.x" for the verdict policy, "release_options.x" for
# the options of the release kind). Tooltips are for privacy officers, not programmers.
FIELDS: dict[str, FieldSpec] = {
    "data": FieldSpec(
        "Records file", STEP_DATA,
        "The CSV file of the protected records: one row per person, a header naming the "
        "columns. For a published table: the attacker's sample of similar people. Relative "
        "paths are read from the app folder.", text=True),
    "auxiliary": FieldSpec(
        "Attacker's sample (optional)", STEP_DATA,
        "A CSV of other people like those counted, with the same columns: what the attacker "
        "learns from. Leave empty to let the attacker learn from the protected records other "
        "than the targets (a strong attacker).", text=True),
    "census_records": FieldSpec(
        "People in the block", STEP_DATA,
        "How many people the synthetic census block has (paper 003: about 450).",
        integer=True),
    "census_auxiliary": FieldSpec(
        "People in the attacker's sample", STEP_DATA,
        "How many similar people the attacker knows (paper 003: about 4,000).", integer=True),
    "release_options.ways": FieldSpec(
        "Marginal orders", STEP_RELEASE,
        "Which marginals are published: 1, 2 = every count of one column and of every pair "
        "of columns (paper 003 §5.5).", text=True),
    "release_options.buckets": FieldSpec(
        "Group", STEP_RELEASE,
        "Group a whole-number column into buckets of this width (e.g. age in 5-year groups); "
        "leave the width empty to publish every value.", integer=True),
    "release_options.path": FieldSpec(
        "Query file", STEP_RELEASE,
        "Custom queries: a CSV (one query per row, a column per attribute, values separated "
        "by '|' or ranges like 20-29, empty = any) or a TOML file of [[query]] tables. "
        "Published table: a CSV of the same form with a 'count' column.", text=True),
    "fraction": FieldSpec(
        "Cells released per person", STEP_RELEASE,
        "How many cells are published, per person in the data, drawn at random: 0.25 with 450 "
        "people publishes 112 cells, whatever the tables' size (m = this × |D|; paper 003: "
        "0.25). 0 publishes every cell.",),
    "epsilon": FieldSpec(
        "ε", STEP_RELEASE,
        "Privacy-loss budget: per count or for the whole release (see the budget). Smaller "
        "means more noise and more privacy."),
    "delta": FieldSpec(
        "δ (failure probability)", STEP_RELEASE,
        "Needed by the discrete Gaussian only: a small probability that the ε guarantee does "
        "not hold, e.g. 0.00001 (1e-5)."),
    "published_records": FieldSpec(
        "People counted in the table", STEP_RELEASE,
        "How many people the published table counts (the attacker knows it; usually the "
        "table's total).", integer=True),
    "n_shadow": FieldSpec(
        "Simulated datasets", STEP_ATTACKS,
        "How many datasets DeSIA's stochastic module simulates to learn from (paper 003: "
        "20,000). Fewer are faster and a little weaker.", integer=True),
    "reconstructions": FieldSpec(
        "Reconstructions", STEP_ATTACKS,
        "How many datasets CIP and RAP rebuild from the tables before they vote (paper 003: "
        "100).", integer=True),
    "solver_time_limit": FieldSpec(
        "Solver time limit (s)", STEP_ATTACKS,
        "Seconds the solver may spend on one question about one target. A target it cannot "
        "settle in time is counted as not determined."),
    "max_targets": FieldSpec(
        "Targets attacked at most", STEP_ATTACKS,
        "The targets are the people unique on what the attacker knows; if there are more, "
        "this many are drawn at random. More give tighter intervals but take longer.",
        integer=True),
    "sweep_fractions": FieldSpec(
        "Sweep released shares", STEP_ATTACKS,
        "Optional: replay the game with these shares m/|D|, e.g. 0.05, 0.1, 0.25, 0.5, 1 "
        "(paper 003 Fig. 6). Empty = no sweep.", text=True),
    "sweep_epsilons": FieldSpec(
        "Sweep ε (Laplace per count)", STEP_ATTACKS,
        "Optional: replay the game with Laplace noise at these ε per count, e.g. 10, 2, 1, "
        "0.5, 0.1 (paper 003 Fig. 8). Empty = no sweep.", text=True),
    "sweep_targets": FieldSpec(
        "Targets per sweep point", STEP_ATTACKS,
        "How many targets each sweep point attacks.", integer=True),
    **rule_fields(STEP_RELEASE),          # issue 34 item 2: the officers' rules
    **run_fields(STEP_ATTACKS),
    **policy_fields(STEP_ATTACKS),
    "compute.cluster": FieldSpec(
        "Attack each target on", STEP_ATTACKS,
        "Where each target is attacked — the solver's proofs, the learned guesses and the "
        "reconstructions, in both games — and each sweep value is replayed. Empty: on this "
        "computer. \"local\": a private Ray instance on this computer. A Ray address such as "
        "ray://head:10001: that cluster — it receives your records and the tables, so use "
        "only a cluster on a trusted network (docs/methods/scale.md).", text=True),
}
# Fields the form assembles itself (lists, release options, data paths by source).
SPECIAL_KEYS = ("release_options.ways", "release_options.buckets", "release_options.path",
                "sweep_fractions", "sweep_epsilons", "data", "auxiliary")

KEY_STEPS = {"name": STEP_DATA, "audit_type": STEP_DATA, "schema_version": STEP_DATA,
             "schema": STEP_DATA, "sensitive": STEP_DATA, "role": STEP_DATA,
             "quasi_identifiers": STEP_DATA, "columns": STEP_DATA,
             "release": STEP_RELEASE, "release_options": STEP_RELEASE, "kind": STEP_RELEASE,
             "mechanism": STEP_RELEASE, "budget": STEP_RELEASE, "age_bins": STEP_RELEASE,
             "age_col": STEP_RELEASE, "sex_col": STEP_RELEASE, "race_col": STEP_RELEASE,
             "ways": STEP_RELEASE, "buckets": STEP_RELEASE, "path": STEP_RELEASE,
             "count": STEP_RELEASE, "query": STEP_RELEASE, "rules": STEP_RELEASE,
             "attacks": STEP_ATTACKS, "membership": STEP_ATTACKS, "mia_attacks": STEP_ATTACKS,
             "model": STEP_ATTACKS, "sweep_attacks": STEP_ATTACKS,
             "list_exposed_records": STEP_ATTACKS, "fpr_targets": STEP_ATTACKS,
             "policy": STEP_ATTACKS, "compute": STEP_ATTACKS}
# Engine keys of release options that name a field of the form.
OPTION_FIELDS = {"ways": "release_options.ways", "buckets": "release_options.buckets",
                 "path": "release_options.path"}
