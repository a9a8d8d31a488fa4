"""The location page's load preview says the traces' gaps per column (issue 21): a file with
gaps in two columns — one of them an 'NA' in the epoch column, which was refused before —
loads, and the preview names each column with its count and says the rows were left out."""

from __future__ import annotations

from gui.pages.location_preview import load_preview


def test_the_preview_lists_each_column_with_gaps(tmp_path):
    p = tmp_path / "traces.csv"
    p.write_text("user_id,site,epoch\na,s1,0\na,,1\nb,s2,1\nb,s1,\nc,s2,NA\nc,s1,2\n",
                 encoding="utf-8")
    preview = load_preview({"traces": str(p)})
    assert preview.n_people == 3
    text = preview.sentence()
    assert "'site' 1, 'epoch' 2" in text, text
    assert "3 rows with an empty cell or a missing-value mark such as 'NA'" in text, text
    assert "left out" in text
