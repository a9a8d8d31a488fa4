"""A toy fifth audit type, in test-only files, that proves the checklist of
docs/dev/adding_an_audit_type.md: an audit type is its own files (``audit.py`` — config, run
and demo; ``estimate.py`` — cost model and constants; ``report.py`` — report sections;
``page.py`` — the GUI page) plus one registry entry (``entry.py``'s :data:`TOY`, which a
real audit type would write into ``engine.audits.registry.AUDIT_TYPES``) and one line of the
GUI's page table. Used by tests/engine/test_registry_toy.py and tests/gui/test_registry_toy_page.py.
"""
