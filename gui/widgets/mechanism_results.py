"""The results of a mechanism audit: the shared results view (verdict, ROC against the DP
region, metrics, warnings, notes) plus what only this audit has — composed privacy over k
observations and the what-if plot — between the metrics and the warnings.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from engine.results.loaded import load_result
from engine.results.mechanism import MechanismTheory
from gui.formatting import bracket_number, is_number, number
from gui.widgets.results_view import ResultsView, rich_label
from gui.widgets.sweep_plot import SweepPlot


def composed_privacy_lines(theory: MechanismTheory | dict) -> list[str]:
    """Plain lines for the composed-privacy box (theory.composed), headline first.
    ``theory``: the typed theory (engine.results.mechanism), or its dict."""
    if isinstance(theory, dict):
        theory = MechanismTheory.from_dict(theory)
    composed = theory.composed
    k = theory.observations
    delta = theory.composed_delta
    delta_text = f"{delta:.0e}" if is_number(delta) else "—"
    scale_name = theory.noise_scale_name or "noise scale"
    lines = [f"<b>Total privacy loss over k = {k} observations: ε = "
             f"{number(theory.epsilon_total)}</b> at δ = {delta_text} "
             f"(ε per observation {number(theory.epsilon_per_observation)}, "
             f"{scale_name} {number(theory.noise_scale)})."]
    pess = composed.epsilon_pld_pessimistic
    opt = composed.epsilon_pld_optimistic
    if is_number(pess):
        bracket = f"between {bracket_number(opt, pess)} and {bracket_number(pess, opt)}" \
            if is_number(opt) else number(pess)
        lines.append(f"Privacy-loss-distribution accountant: ε {bracket} "
                     "(the true value lies in this bracket).")
    if is_number(composed.epsilon_gdp):
        lines.append(f"Gaussian DP (exact for Gaussian noise): μ = {number(composed.gdp_mu)}"
                     f", ε = {number(composed.epsilon_gdp)}.")
    if is_number(composed.epsilon_kov_worst_case):
        lines.append("Worst case for any mechanism with this ε per observation (optimal "
                     f"composition, Kairouz–Oh–Viswanath): ε = "
                     f"{number(composed.epsilon_kov_worst_case)}.")
    if is_number(composed.epsilon_basic):
        lines.append("Simple sum k × ε (loose upper bound): ε = "
                     f"{number(composed.epsilon_basic)}.")
    return lines


class MechanismResultsView(ResultsView):
    """The shared results view with the composed-privacy box and the what-if plot."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.composed_label = rich_label()
        self.sweep_plot = SweepPlot()
        self.add_section("Composed privacy", self.composed_label, update=self._show_composed)
        self.add_section("What if? The best possible attacker as the setting changes",
                         self.sweep_plot,
                         2, update=self.sweep_plot.set_result)

    def _show_composed(self, result) -> None:
        theory = load_result(result).theory if result else None
        self.composed_label.setText("<br>".join(composed_privacy_lines(theory))
                                    if isinstance(theory, MechanismTheory)
                                    and theory != MechanismTheory() else "—")
