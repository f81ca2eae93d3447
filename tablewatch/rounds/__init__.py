"""A round reconstructed for an auditor: its events in words, its hands, its money, its
findings and where its video is.

- :mod:`.report`: what a reconstruction holds (:class:`~.report.RoundReport`, its JSON);
- :mod:`.reconstruct`: pure, events and configuration in, report out, through the same
  rules code that judged the round (``tablewatch/rules``);
- :mod:`.words`: hands, cards, events and money in words;
- :mod:`.from_files`: the rounds of JSON Lines files, audited as ``tablewatch audit`` does;
- :mod:`.from_store`: a stored round (``raw_events_v``, ``findings_v``, ``tables_v``)
  read over any row source (``run(sql) -> Answer``: a read-only reader, the worker's
  ``/query``).
"""
