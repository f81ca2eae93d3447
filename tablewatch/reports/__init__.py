"""Reports read from the store for people to file: the shift report (``shift.py``, its data;
``shift_csv.py`` and ``shift_pdf.py``, its formats). See ``docs/reports.md``."""
