"""The engine must import and run with Qt absent (ARCHITECTURE §2, §9)."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_runs_with_qt_blocked():
    code = textwrap.dedent("""
        import sys
        class BlockQt:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in ('PySide6', 'PyQt5', 'PyQt6', 'shiboken6', 'pyqtgraph'):
                    raise ImportError('Qt is blocked in this test: ' + name)
                return None
        sys.meta_path.insert(0, BlockQt())
        import engine.audits.mechanism as m
        import engine.report
        cfg = m.MechanismConfig(trials=500, observations=2)
        r = m.run(cfg)
        assert r.to_dict()['attacks'][0]['auc'] > 0.5
        assert not any(k.startswith(('PySide6', 'pyqtgraph')) for k in sys.modules)
        print('ok')
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_no_qt_import_in_engine_sources():
    offenders = [str(p) for p in (ROOT / "engine").rglob("*.py")
                 if any(w in p.read_text(encoding="utf-8") for w in
                        ("import PySide6", "from PySide6", "import pyqtgraph", "from pyqtgraph"))]
    assert offenders == []
