"""The parts of section 6, "Comparison with differential-privacy theory", that read the same
theory fields in every audit with an accountant (mechanism, location; issue 33 item 2: split
from engine/report/sections.py): the composed ε table, the exact-versus-measured table and the
measured ε lower bounds. The theory is read as its typed block (engine.results.blocks.DpTheory
or the audit's own typed theory, which has the same attributes; issue 33 item 1)."""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Table

from engine.numbers import distinguishing_digits, is_finite
from engine.report import styles as st
from engine.report.sections_base import (
    TEXT_WIDTH,
    keep,
    para,
    short_attack_label,
    sub,
    table,
    tpr_cells,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_num, fmt_pct, markup
from engine.results.blocks import DpTheory, ExactAttacker
from engine.results.loaded import load_result


def theory_tpr(block: ExactAttacker | dict | None, fpr) -> float | None:
    """TPR at ``fpr`` of a theory trade-off summary (``optimal_attacker``, ``worst_case_dp``)."""
    if isinstance(block, dict):
        block = ExactAttacker.from_dict(block)
    return None if block is None else block.tpr_at(fpr)


def accounting_table(th, *, k_sym: str = "k", over: str = "k observations",
                     count_note: str | None = None, title: str | None = None) -> list[Flowable]:
    """The composed ε: headline value, the accountant's bracket and the other ways of adding
    it up. ``k_sym`` names the number of compositions (k observations, E epochs), ``over`` says
    what is composed in words, ``count_note`` gives that number in the headline row's note.
    ``th``: the audit's typed theory (or its dict, read by :meth:`DpTheory.of`)."""
    th = DpTheory.of(th)
    comp = th.composed
    delta = comp.delta if comp.delta is not None else th.delta
    if count_note is None:
        count_note = f"{k_sym} = {fmt_num(th.observations)}"
    rows = [("Privacy accounting", "ε", "Note")]
    rows.append((f"<b>Composed ε over {over}</b>",
                 f"<b>{fmt_eps(th.epsilon_total)}</b>",
                 f"headline value, at δ = {st.fmt_sci(delta)}, {count_note}"))
    named = [
        ("epsilon_pld_pessimistic", "PLD accountant, pessimistic", "upper end of the bracket"),
        ("epsilon_pld_optimistic", "PLD accountant, optimistic", "lower end of the bracket"),
        ("epsilon_gdp", "Gaussian DP (closed form)",
         f"μ = {fmt_num(comp.gdp_mu)}" if comp.gdp_mu is not None else ""),
        ("epsilon_kov_worst_case", f"Worst case of {k_sym}-fold ε0-DP (KOV)",
         "what any ε0-DP mechanism could reach"),
        ("epsilon_basic", f"Basic composition {k_sym}·ε0", "simple sum; always ≥ the others"),
    ]
    lo, hi = comp.epsilon_pld_optimistic, comp.epsilon_pld_pessimistic
    both = lo is not None and hi is not None
    for attr, label, note in named:
        if getattr(comp, attr) is None:
            continue
        value = fmt_eps(getattr(comp, attr))
        if both and attr == "epsilon_pld_pessimistic":   # a narrow bracket must not print
            value = distinguishing_digits(hi, lo)         # as "9.99 to 9.99"
        elif both and attr == "epsilon_pld_optimistic":
            value = distinguishing_digits(lo, hi)
        rows.append((label, value, note))
    bracket = (f"The accountant brackets the composed ε between "
               f"{distinguishing_digits(lo, hi)} and {distinguishing_digits(hi, lo)}. "
               if both else "")
    return [keep([sub(title or f"The privacy guarantee over {over}"),
                  table(rows, [6.2 * cm, 2.2 * cm, TEXT_WIDTH - 8.4 * cm]),
                  para(bracket + "A larger ε means weaker protection; values above "
                       "about 1 give an attacker a real advantage (see below).",
                       "small")])]


def comparison_by_attack(result, th, *, optimal_label: str, worst_label: str) -> Table:
    """Exact theory and every measured attack, one row each: balanced accuracy, AUC and TPR
    at each FPR target (rows, so any number of attacks fits the page width)."""
    th = DpTheory.of(th)
    opt, worst = th.optimal_attacker, th.worst_case_dp
    entries = load_result(result).attacks
    targets = (opt.targets if opt is not None else []) or sorted(
        {r.fpr for e in entries for r in e.tpr_at_fpr
         if r.key == "fpr_target" and is_finite(r.fpr)})
    rows = [["", "Balanced accuracy", "AUC"] + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
    for block, label in ((opt, optimal_label), (worst, worst_label)):
        if block is not None:
            rows.append([f"<b>{label}</b>", fmt_pct(block.accuracy), fmt3(block.auc)]
                        + [fmt_pct(block.tpr_at(t)) for t in targets])
    for e in entries:
        row = [markup(short_attack_label(e)) + " (measured)",
               f"{fmt_pct(e.accuracy)} {fmt_ci(e.accuracy_ci, fmt_pct)}",
               f"{fmt3(e.auc)} {fmt_ci(e.auc_ci)}"]
        for t in targets:
            m = e.tpr_at(t)
            if m is None:
                row.append(st.DASH)
            elif not m.measurable:
                row.append(f"not measurable with {fmt_count(e.n_negative)} non-members")
            else:
                v, ci, _ = tpr_cells(m)
                row.append(f"{v} {ci}")
        rows.append(row)
    first = 4.2 * cm
    rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
    return table(rows, [first] + [rest] * (len(rows[0]) - 1))


def epsilon_bounds_table(result, th) -> list[Flowable]:
    """Each attack's empirical ε lower bound beside the claimed (composed) ε."""
    th = DpTheory.of(th)
    attacks = load_result(result).attacks
    if not attacks:
        return []
    rows = [("Attack", "Empirical ε lower bound", "Composed ε (claimed)",
             "Most these trials can certify")]
    any_gdp = False
    for a in attacks:
        eb = a.epsilon_bound
        rows.append((markup(short_attack_label(a)), fmt_eps(eb.value if eb else None),
                     fmt_eps(th.epsilon_total), fmt_eps(eb.max_certifiable if eb else None)))
        gdp = a.gdp_bound
        if gdp is not None:
            any_gdp = True
            rows.append((markup(short_attack_label(a)) + " — Gaussian-DP heuristic",
                         fmt_eps(gdp.value), fmt_eps(th.epsilon_total), st.DASH))
    note = ("An empirical ε is a <b>lower bound</b>: it certifies, with 95% confidence, "
            "that the mechanism leaks at least that much (paper 002 Cor. 1). A bound below "
            "the claimed ε is expected and does not mean the claim is too high; a bound "
            "<i>above</i> the claimed ε would show the claim is wrong. A finite number of "
            "trials caps what can be certified (last column).")
    if any_gdp:
        note += (" Rows marked <b>Gaussian-DP heuristic</b> assume the mechanism's "
                 "trade-off curve is Gaussian, true for the Gaussian mechanism audited "
                 "here: one threshold then bounds the whole curve (μ ≥ Φ⁻¹(TPR) − Φ⁻¹(FPR)), "
                 "which certifies far more with the same trials (Nasr et al. 2023). It is "
                 "not valid for other mechanisms, and the app only computes it for "
                 "Gaussian noise.")
    return [keep([
        sub("Measured ε lower bounds against the claimed ε"),
        table(rows, [6.4 * cm, 3.4 * cm, 3.4 * cm, TEXT_WIDTH - 13.2 * cm]),
        para(note, "small")])]
