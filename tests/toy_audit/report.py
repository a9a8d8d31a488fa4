"""The toy audit's report sections: its own section 6 (the other sections are the defaults of
:class:`engine.report.sections.AuditSections`)."""

from __future__ import annotations

from engine.report.sections import AuditSections, para


class ToySections(AuditSections):
    def theory(self, result) -> list:
        # ``result`` is the loaded result (engine.results.loaded); an audit type with no typed
        # theory in engine/results keeps its theory block as the mapping it wrote.
        th = result.theory or {}
        return [para(f"Toy theory: a fair coin came up heads {th.get('heads')} times in "
                     f"{th.get('coins')} tosses.")]
