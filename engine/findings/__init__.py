"""An audit's findings read in the frames officers use (issue 34 item 4): the three risks of the
Article 29 Working Party's anonymisation opinion and what a data-protection impact assessment
needs (:mod:`engine.findings.article29`). Imports nothing here, so each module is imported by
its own name."""
