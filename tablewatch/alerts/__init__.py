"""Alerts for floor managers: findings turned into Alertmanager alerts, routed to the
pit's people by shift, acknowledged, escalated, and kept in an audit trail.

See ``docs/alerts.md``. Pure parts: :mod:`.rules_file`, :mod:`.convert`, :mod:`.silent`,
:mod:`.escalation`, :mod:`.am_config`; I/O: :mod:`.alertmanager`, :mod:`.trail`,
:mod:`.service`.
"""
