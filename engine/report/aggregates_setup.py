"""Sections 2, 3 and 4 of the count-tables report (paper 003): what was audited (the release,
the game's parameters, the released tables and what the attacker sees), the threat model (the
attribute game of §2.3 and, when played, the membership game of §6.1) and how the attacks are
measured. Split out of engine/report/aggregates.py (issue 33 item 2); reads the typed result
(engine.results.aggregates)."""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.aggregates_words import (
    ATTACK_WORDS,
    AUXILIARY_WORDS,
    MECHANISM_WORDS,
    PREVIEW_ROWS,
    RELEASE_SHORT,
    aia_attacks,
    details,
    loaded,
    mia_attacks,
    n_values,
    release_words,
    sensitive,
    theory_of,
)
from engine.report.sections import (
    TEXT_WIDTH,
    bullets,
    inputs_table,
    keep,
    key_value_table,
    markup,
    para,
    sub,
    table,
)
from engine.report.styles import fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.results.aggregates import CountRelease
from engine.results.blocks import AttackEntry
from engine.wording import (
    BEST_GUESS_RIGHT,
    BEST_GUESS_SCALE,
    BEST_GUESS_SCORE,
    DATA_ONLY_GUESS,
    OBVIOUS_GUESS,
    RIGHT_ON_REAL_PEOPLE,
    SCALED_SCORE,
    VALUE_CHECKS_RIGHT,
)

# ----------------------------------------------------------------- 2. what was audited


def audited(result) -> list[Flowable]:
    """Section 2: the release in words, the inputs, the game's parameters, the released tables
    and the first released counts."""
    r = loaded(result)
    th = theory_of(r)
    th_game, rel, cfg, dp = th.game, th.release, th.settings, th.dp
    source = str(th_game.auxiliary_source or "")
    if not cfg.data:
        n_prot = th_game.records if th_game.records is not None else cfg.census_records
        n_aux = (th_game.auxiliary_records if th_game.auxiliary_records is not None
                 else cfg.census_auxiliary)
        empty = ("No input file: the records are a synthetic census block generated from the "
                 f"seed ({fmt_count(n_prot)} protected records, {fmt_count(n_aux)} "
                 "auxiliary records).")
    else:
        empty = "No input files were recorded."
    out: list[Flowable] = [para(release_words(r))]
    out += inputs_table(result, empty)
    out.append(Spacer(1, 4))
    out.append(key_value_table([
        ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
         f'{markup(r.config_sha256 or st.DASH)}</font>')]))
    out.append(Spacer(1, 8))
    values = list(th_game.values)
    shown = ", ".join(str(v) for v in values[:12]) + (
        f", … ({len(values) - 12} more)" if len(values) > 12 else "")
    qis = ", ".join(str(q) for q in th_game.quasi_identifiers) or st.DASH
    mech = str(rel.mechanism or cfg.mechanism or "none")
    frac = rel.fraction
    rows = [
        ("Parameter", "Value", "Meaning"),
        ("Protected records (|D|)", fmt_count(th_game.records),
         "people in the data the tables are computed from"),
        ("Quasi-identifiers", markup(qis),
         "what the attacker knows about a target"),
        ("Sensitive attribute", f"{markup(sensitive(r))}: "
         f"{fmt_count(len(values)) if values else st.DASH} values",
         markup(shown) if values else "what the attacker tries to learn"),
        ("Unique records", fmt_count(th_game.unique_records),
         "people no one else shares the quasi-identifiers with: the possible targets"),
        ("Targets attacked", fmt_count(th_game.targets),
         "unique records attacked (a random sample when there are more than "
         f"{fmt_num(cfg.max_targets)}, the setting \"Targets attacked at most\")"),
        ("Auxiliary sample", fmt_count(th_game.auxiliary_records) + " records",
         "the attacker's own data about similar people: "
         + markup(AUXILIARY_WORDS.get(source, source or st.DASH))),
        ("Release", markup(RELEASE_SHORT.get(str(rel.kind), rel.kind or st.DASH)),
         "the family of counts the tables come from (first paragraph)"),
        ("Released counts (m)", f"{fmt_count(rel.queries)} of "
         f"{fmt_count(rel.candidates)}",
         (f"drawn at random: {fmt_num(frac)} cells per person in the data (m/|D|), not a "
          "share of the cells" if is_finite(frac)
          else "every cell of the family")),
        ("Mechanism", markup(MECHANISM_WORDS.get(mech, mech)),
         "added to every released count, then rounded and clamped at zero"
         if mech != "none" else "the counts are released exactly"),
    ]
    if mech != "none":
        per = "per released count" if rel.budget == "per_query" else "for the whole release"
        rows += [
            ("ε", f"{fmt_eps(rel.epsilon)} {per}",
             "privacy loss the noise is calibrated to (smaller = more private)"),
            ("Noise scale", fmt_num(rel.noise_scale), "size of the noise"),
        ]
        if mech == "discrete_gaussian":
            rows.append(("δ (failure probability)", st.fmt_sci(rel.delta),
                         "probability the ε guarantee may fail"))
    rows.append(("Sensitivity (Δ)", fmt_num(rel.sensitivity)
                 + ("" if rel.sensitivity_exact else " (upper bound)"),
                 "the most released counts one person can change (each by one)"))
    if dp:
        rows.append(("ε of the release", fmt_eps(dp.epsilon_release),
                     "for adding or removing one person (section 6)"))
    seed = r.seed if r.seed is not None else (cfg.seed if cfg.seed is not None else st.DASH)
    rows += [
        ("Simulated datasets (N)", fmt_count(cfg.n_shadow),
         f"simulated by the stochastic module ({markup(cfg.model or 'logistic')} "
         "model)"),
        ("Reconstructions (K)", fmt_num(cfg.reconstructions),
         "per target, for the CIP and RAP attacks"),
        ("Solver time limit", f"{fmt_num(cfg.solver_time_limit)} s",
         "per CP-SAT solve; a solve that runs out proves nothing"),
        ("Seed", markup(seed), "drives every random number of the audit"),
    ]
    out.append(table(rows, [4.0 * cm, 4.4 * cm, TEXT_WIDTH - 8.4 * cm]))
    out += _tables_released(rel)
    out += _preview(rel)
    return out


def _tables_released(rel: CountRelease) -> list[Flowable]:
    tables = rel.tables
    if not tables:
        return []
    cells = [(markup(t.table or st.DASH), fmt_count(t.cells)) for t in tables]
    if len(cells) <= 8:
        rows = [("Table", "Cells released")] + cells
        widths = [6.0 * cm, 3.0 * cm]
    else:   # two pairs of columns, so 30 tables take 15 lines
        half = (len(cells) + 1) // 2
        left, right = cells[:half], cells[half:] + [("", "")] * (2 * half - len(cells))
        rows = [("Table", "Cells released", "Table", "Cells released")]
        rows += [(a[0], a[1], b[0], b[1]) for a, b in zip(left, right, strict=True)]
        widths = [5.5 * cm, 3.0 * cm, 5.5 * cm, 3.0 * cm]
    return [keep([sub("The released tables"),
                  para(f"{fmt_count(len(tables))} table"
                       f"{'s' if len(tables) != 1 else ''}, with the number of "
                       "their cells in the release.", "small"),
                  table(rows, widths)])]


def _preview(rel: CountRelease) -> list[Flowable]:
    preview = rel.preview
    if not preview:
        return []
    rows = [("Table", "Cell", "Released count")]
    for p in preview[:PREVIEW_ROWS]:
        rows.append((markup(p.table or st.DASH), markup(p.label or st.DASH), fmt_num(p.count)))
    return [keep([
        sub("What the attacker sees"),
        para(f"The first {fmt_count(min(len(preview), PREVIEW_ROWS))} of the "
             f"{fmt_count(rel.queries)} released counts, as published (after noise, if any).",
             "small"),
        table(rows, [3.0 * cm, TEXT_WIDTH - 5.8 * cm, 2.8 * cm])])]


# ----------------------------------------------------------------- 3. threat model

def threat_model(result) -> list[Flowable]:
    """Section 3: what the attacker knows and how the attribute (and membership) game is
    played."""
    r = loaded(result)
    th = theory_of(r)
    game, rel = th.game, th.release
    sens = markup(sensitive(r))
    k = n_values(r)
    qis = ", ".join(str(q) for q in game.quasi_identifiers) or "—"
    source = str(game.auxiliary_source or "")
    out: list[Flowable] = [para(
        "The attacker plays the attribute-inference game of paper 003 (§2.3, Fig. 2): it "
        f"sees the released tables and must name one person's value of <b>{sens}</b>.")]
    knows = [
        f"the target's quasi-identifiers ({markup(qis)}), and that nobody else in the data "
        "shares them (every target is unique on them);",
        f"the number of people |D| = {fmt_count(game.records)} and every possible "
        "value of every attribute;",
        f"an auxiliary sample of {fmt_count(game.auxiliary_records)} records of "
        "similar people ("
        + markup(AUXILIARY_WORDS.get(source, source or "its own data")) + "), from which "
        "it simulates releases;",
        "exactly which counts were released and how: the noise and its scale, if any.",
    ]
    out += [sub("What the attacker knows")] + bullets(knows)
    play = [
        f"For every target, its value of {sens} is drawn uniformly at random among the "
        f"{fmt_num(k) if k else '|V|'} possible values before the tables are computed. "
        "What the attacker learns then comes from the tables alone, not from what is "
        "typical for people like the target; naming a value blindly is right "
        f"{fmt_pct(game.chance)} of the time (chance, 1/|V|).",
        f"The same {fmt_count(rel.queries)} counts are released in every game, "
        "computed on the data with the target's drawn value (and fresh noise, if any).",
        "The attacker gives each possible value a score; its guess is the value with the "
        "highest score.",
        f"Targets: {fmt_count(game.targets)} of the "
        f"{fmt_count(game.unique_records)} people unique on their "
        "quasi-identifiers.",
    ]
    out += [sub("How the game is played")] + bullets(play)
    if th.membership:
        out += [sub("The membership game"), para(
            "The audit also played the membership game of paper 003 §6.1 (Fig. 9). For "
            "each target a secret coin decides whether the target or another unique person "
            "is left out of the data before the tables are computed, so the tables always "
            "count |D| − 1 people. Knowing the target's whole record, the attacker must say "
            "whether the target was counted. Guessing is right half of the time.")]
    out.append(para("A real attacker may know more (for example other releases about the "
                     "same people) or less. The game fixes what it knows so the risk can "
                     "be measured and compared.", "small"))
    return out


# ----------------------------------------------------------------- 4. method

def describe_attack(attack: AttackEntry) -> str:
    """How the attack decides, in plain words ("" for one this module does not know)."""
    return ATTACK_WORDS.get(str(attack.name or ""), "")


def method_theory(result) -> list[Flowable]:
    """Section 4's account of DeSIA: the deterministic module, then the stochastic one."""
    cfg = theory_of(loaded(result)).settings
    return [
        sub("DeSIA: proof first, then learning"),
        para("<b>Deterministic module</b> (paper 003 Alg. 1). The released counts become the "
             "constraints of an integer programme whose unknowns are how many people have "
             "each possible record (solved with the CP-SAT solver). One more constraint "
             "says that exactly one person has the target's quasi-identifiers (the "
             "uniqueness constraint). The solver finds one consistent value of the "
             "sensitive attribute, then checks whether any other value is consistent too "
             "(verification). If none is, the value is <b>proved</b>: the tables allow "
             "only one possibility, and the target is <i>deterministically vulnerable</i>. "
             "The audit holds the real data, so it starts from the real value (an attacker "
             "would need one solve to find a consistent value) and answers the second "
             "question the quickest sound way: another table with the same counts that "
             "gives the target another value (a <i>witness table</i>, checked count by "
             "count) shows the value is not determined; released counts of zero that "
             "leave one value prove it; otherwise the solver decides. The answer is the "
             "same as with two solves; only the time differs."),
        para("<b>Stochastic module</b> (Alg. 2). Where no proof exists, the attacker "
             f"simulates N = {fmt_count(cfg.n_shadow)} shadow datasets from its "
             "auxiliary sample (|D| − 1 people plus the target with a random value), "
             "computes the released counts on each, and trains a "
             f"{markup(cfg.model or 'logistic')} model (logistic regression with a "
             "cross-validated L2 penalty by default; 2/3 of the shadows to train, 1/3 to "
             "validate) to predict the target's value from the counts. Its predicted "
             "probabilities are the scores."),
        para("The Table 3 ablations of paper 003 remove one element at a time (the "
             "verification, the uniqueness constraint, the stochastic module, or the "
             "solver, replaced by synthetic data); each must lower the success for DeSIA's "
             "design to be justified.", "small"),
    ]


def method_common(result, describe=describe_attack) -> list[Flowable]:
    """Section 4's attack list and measurement method, in the attribute game's terms."""
    r = loaded(result)
    aia, mia = aia_attacks(r), mia_attacks(r)
    out: list[Flowable] = [sub("Attacks")]
    if not aia + mia:
        out.append(para("No attack was run."))
    for a in aia + mia:
        d = details(r, a)
        line = f"<b>{markup(a.label or a.name)}</b>"
        if d.membership_game:
            line += " — membership game"
        words = describe(a)
        if words:
            line += f". {words}"
        if d.paper:
            line += f" <i>Source: paper {markup(d.paper)}.</i>"
        out += bullets([line])
    n_v = n_values(r)
    conf = st.fmt_conf(theory_of(r).settings.confidence)
    out.append(sub("How the attacks are measured"))
    clustered = any("clustered" in str(details(r, a).auc_ci_method or "") for a in aia)
    auc_method = ("a DeLong interval clustered by target, since a target's |V| pairs share "
                  "one release (Obuchowski 1997)" if clustered else "a DeLong interval")
    out.append(para(
        "Every attack gives each target one score per possible value. The (target, value) "
        "pairs are pooled <b>one-vs-rest</b>: a pair is <i>positive</i> when the value is "
        "the target's true one, <i>negative</i> otherwise, so T targets give T positive "
        f"and T·(|V| − 1) negative pairs{f' (|V| = {n_v})' if n_v else ''}. On these pairs "
        f"we draw the ROC curve, its area (AUC, 0.5 is guessing, with {auc_method}) "
        "and the true-positive rate (TPR) at fixed low false-positive rates (FPR): the "
        "share of targets whose true value the attack flags while flagging at most that "
        "share of the wrong values. TPR at low FPR matters most: it shows whether the "
        "attack is confident, and right, about a few people. Its interval allows for the "
        "uncertain FPR of a threshold read off the data (docs/methods/intervals.md)."))
    out.append(para(
        f"<b>{BEST_GUESS_RIGHT}</b> (top-1 accuracy) is the share of targets whose "
        f"highest-scored value is the true one, with an exact Clopper–Pearson {conf} "
        f"interval, read against chance 1/|V|. The verdict reads the "
        f"<b>{BEST_GUESS_SCORE.lower()}</b> (chance-corrected top-1 accuracy) "
        "0.5 + (top-1 − chance) / (2·(1 − chance)): on this scale "
        f"{BEST_GUESS_SCALE}, as on a balanced accuracy's. It makes the policy's accuracy "
        "lines mean the same for a yes/no attribute and for one with many values. "
        f"<b>{VALUE_CHECKS_RIGHT}</b> is a third measure: the balanced accuracy of the "
        "one-vs-rest yes/no decisions on every pair, at a threshold chosen on pairs it is "
        "not scored on. It judges every value, not only the best guess, so it differs "
        f"from the {BEST_GUESS_SCORE.lower()}."))
    out.append(para(
        "These three are measured in the paper's game, where each target's value is "
        "replaced by a random draw before the tables are computed, so that blind guessing "
        "is the line to beat; they are not about the real people. For those, every "
        "attack is also run on the tables as actually published and scored against the "
        f"targets' real values: <b>{RIGHT_ON_REAL_PEOPLE.lower()}</b> (exact "
        f"Clopper–Pearson {conf} interval) beside the <b>{OBVIOUS_GUESS.lower()}</b> (the "
        "most common value among the people in the data, said for everyone) and the "
        f"<b>{DATA_ONLY_GUESS.lower()}</b> (from everyone else's records alone), on the "
        f"same targets. The <b>{SCALED_SCORE.lower()}</b> (right on real people − obvious "
        "guess) / (1 − obvious guess) is 0 for no better than the obvious guess and 1 for "
        "a sure answer. Its interval combines exact intervals for the share of targets "
        "where exactly one of the two guesses is right and for the attack's share among "
        "them; the attack is tested against the obvious guess by a one-sided exact sign "
        "test (McNemar's) on those targets."))
    if mia:
        out.append(para(
            "The membership attacks are measured like any membership game: AUC, balanced "
            "accuracy (threshold chosen on one half of the targets and evaluated on the "
            "other) and TPR at low FPR, each with its interval."))
    return out
