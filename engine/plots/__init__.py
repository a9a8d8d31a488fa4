"""What the charts show, decided once for the screen and the report (issue 19 item 4)."""
