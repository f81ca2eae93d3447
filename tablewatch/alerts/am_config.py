"""Alertmanager's configuration from a rules file: receivers, routes, grouping, inhibition.

- one receiver per contact (``contact-NAME``): its email, webhook and Slack-compatible
  webhook;
- one trail receiver per contact (``trail-contact-NAME``): TableWatch's own webhook
  (``/api/v1/alertmanager/notified`` on the alerter), by which each notification of the
  contact is recorded as ``notified`` in the trail; it sends ``Authorization: Bearer``
  with the token in ``token_file`` (a holder of the role ``alertmanager`` in the
  alerter's access file), read by Alertmanager at each call;
- routes: the patterns of a table or dealer over a shift (``SURVEILLANCE_CHECKS``: hold,
  meter, a dealer's error rate) -> ``escalation`` level -> the fallback chain's contact
  (surveillance); else pit, then shift, then ``escalation`` level -> the level's contact
  of that pit's chain for that shift (tables no pit names: ``pit="unassigned"``, the
  ``fallback`` chain); anything else goes to the first fallback contact (never nobody). The tree is
  there twice under the root: to the contacts' receivers (``continue: true``), then to
  their trail receivers. Alertmanager flushes a group again only once every integration
  of its receiver has answered or given up (10 s at the least, a 5xx retried meanwhile),
  so the alerter's webhook, in a group of its own, never holds a contact's mail;
- ``group_by: [alertname, table_id, check, escalation]``: the findings of one table and
  check within ``group_wait`` make one notification;
- inhibition: a critical alert at a table mutes its alerts of lower severities, but for
  the patterns across rounds (about a player, a dealer or a shift, not the table's round).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

from tablewatch.alerts.rules_file import (
    SURVEILLANCE_CHECKS,
    UNASSIGNED_PIT,
    AlertRules,
    Contact,
    go_duration,
)
from tablewatch.rules.checks.catalog import PATTERN_CHECKS

GROUP_BY = ("alertname", "table_id", "check", "escalation")
NOTIFIED_PATH = "/api/v1/alertmanager/notified"
TRAIL_PREFIX = "trail-"

SUBJECT = (
    "[TableWatch] {{ .CommonLabels.severity | toUpper }} {{ .GroupLabels.check }} at "
    "{{ .GroupLabels.table_id }} ({{ .CommonLabels.pit }}){{ if gt (len .Alerts.Firing) 1 }}"
    " x{{ len .Alerts.Firing }}{{ end }}"
    '{{ if ne .GroupLabels.escalation "0" }} ESCALATION {{ .GroupLabels.escalation }}{{ end }}'
)
TEXT = """{{ range .Alerts.Firing }}{{ .Labels.severity | toUpper }} {{ .Annotations.summary }}
  what:     {{ .Annotations.message }}
{{ if .Annotations.regulation }}  rule:     {{ .Annotations.regulation }}
{{ end }}{{ if .Annotations.money }}  money:    {{ .Annotations.money }}
{{ end }}{{ if .Annotations.round_url }}  round:    {{ .Annotations.round_url }}
{{ end }}  where:    {{ .Labels.table_id }}, {{ .Labels.pit }}, {{ .Labels.game }}
  level:    escalation {{ .Labels.escalation }}, {{ .Labels.shift }} shift
  since:    {{ .StartsAt.UTC.Format "2006-01-02 15:04:05 UTC" }}
  alert:    {{ .Labels.alert_id }}
  ack:      {{ .Annotations.ack }}

{{ end }}"""
SLACK_TITLE = (
    "{{ .CommonLabels.severity | toUpper }} {{ .GroupLabels.check }} at {{ .GroupLabels.table_id }}"
)
SLACK_TEXT = "{{ range .Alerts.Firing }}{{ .Annotations.summary }} <{{ .Annotations.round_url }}|round> ack: {{ .Labels.alert_id }}\n{{ end }}"  # noqa: E501


def receiver_name(contact: str) -> str:
    return "contact-" + re.sub(r"[^A-Za-z0-9_.-]", "_", contact)


def trail_receiver_name(contact: str) -> str:
    """The receiver whose webhook records the notifications of ``contact`` in the trail."""
    return TRAIL_PREFIX + receiver_name(contact)


def _matcher(name: str, value: str) -> str:
    return f'{name}="{value}"'  # names are checked: no quotes or backslashes


def _receiver(contact: Contact, rules: AlertRules) -> dict[str, Any]:
    receiver: dict[str, Any] = {"name": receiver_name(contact.name)}
    if contact.email:
        receiver["email_configs"] = [
            {
                "to": contact.email,
                "from": rules.smtp.sender,
                "smarthost": rules.smtp.smarthost,
                "require_tls": rules.smtp.require_tls,
                "send_resolved": False,
                "headers": {"Subject": SUBJECT},
                "html": "",
                "text": TEXT,
            }
        ]
    if contact.webhook:
        receiver["webhook_configs"] = [{"url": contact.webhook, "send_resolved": False}]
    if contact.slack:
        receiver["slack_configs"] = [
            {
                "api_url": contact.slack,
                "send_resolved": False,
                "title": SLACK_TITLE,
                "text": SLACK_TEXT,
            }
        ]
    return receiver


def _trail_receiver(contact: Contact, alerter_url: str, token_file: str | None) -> dict[str, Any]:
    own: dict[str, Any] = {"url": alerter_url.rstrip("/") + NOTIFIED_PATH, "send_resolved": False}
    if token_file is not None:
        own["http_config"] = {"authorization": {"type": "Bearer", "credentials_file": token_file}}
    return {"name": trail_receiver_name(contact.name), "webhook_configs": [own]}


def _chain_routes(
    chain: tuple[str, ...], levels: int, name: Callable[[str], str]
) -> list[dict[str, Any]]:
    routes = []
    for level in range(levels + 1):
        contact = chain[min(level, len(chain) - 1)]
        routes.append({"receiver": name(contact), "matchers": [_matcher("escalation", str(level))]})
    # a level past the chain (cannot be raised, but never nobody): its last contact
    routes.append({"receiver": name(chain[-1])})
    return routes


def _pit_routes(rules: AlertRules, name: Callable[[str], str]) -> list[dict[str, Any]]:
    """pit -> shift -> escalation level -> ``name`` of the level's contact; first, the
    checks of :data:`SURVEILLANCE_CHECKS` -> escalation level -> the fallback chain's."""
    levels = len(rules.escalation_s)
    checks = "|".join(sorted(SURVEILLANCE_CHECKS))
    pit_routes: list[dict[str, Any]] = [
        {
            "receiver": name(rules.fallback[0]),
            "matchers": [f'check=~"{checks}"'],
            "routes": _chain_routes(rules.fallback, levels, name),
        }
    ]
    for pit in rules.pits:
        shift_routes = [
            {
                "receiver": name(pit.on_call[shift.name][0]),
                "matchers": [_matcher("shift", shift.name)],
                "routes": _chain_routes(pit.on_call[shift.name], levels, name),
            }
            for shift in rules.shifts
        ]
        pit_routes.append(
            {
                "receiver": name(pit.on_call[rules.shifts[0].name][0]),
                "matchers": [_matcher("pit", pit.name)],
                "routes": shift_routes,
            }
        )
    pit_routes.append(
        {
            "receiver": name(rules.fallback[0]),
            "matchers": [_matcher("pit", UNASSIGNED_PIT)],
            "routes": _chain_routes(rules.fallback, levels, name),
        }
    )
    return pit_routes


def alertmanager_config(
    rules: AlertRules, alerter_url: str, token_file: str | None = None
) -> dict[str, Any]:
    """The configuration as a mapping (:func:`render` writes it). ``token_file``: where
    Alertmanager reads the alerter's webhook token (without it the alerter refuses the
    notifications: 401)."""
    timing = rules.timing
    lower = [s for s in ("high", "medium", "low")]
    return {
        "global": {"resolve_timeout": "5m"},
        "route": {
            "receiver": receiver_name(rules.fallback[0]),
            "group_by": list(GROUP_BY),
            "group_wait": go_duration(timing.group_wait_s),
            "group_interval": go_duration(timing.group_interval_s),
            "repeat_interval": go_duration(timing.repeat_interval_s),
            "routes": [
                {  # the contacts' mail, webhooks and Slack; then on to the trail's tree
                    "receiver": receiver_name(rules.fallback[0]),
                    "continue": True,
                    "routes": _pit_routes(rules, receiver_name),
                },
                {  # the trail's record of each notification, in groups of its own
                    "receiver": trail_receiver_name(rules.fallback[0]),
                    "routes": _pit_routes(rules, trail_receiver_name),
                },
            ],
        },
        "inhibit_rules": [
            {
                "source_matchers": [_matcher("severity", "critical")],
                # a pattern is about a player, a dealer or a shift, not the table's round
                # at fault: a critical alert there mutes none
                "target_matchers": [
                    f'severity=~"{"|".join(lower)}"',
                    f'check!~"{"|".join(sorted(PATTERN_CHECKS))}"',
                ],
                "equal": ["table_id"],
            }
        ],
        "receivers": [_receiver(c, rules) for c in rules.contacts.values()]
        + [_trail_receiver(c, alerter_url, token_file) for c in rules.contacts.values()],
    }


def render(rules: AlertRules, alerter_url: str, token_file: str | None = None) -> str:
    header = (
        f"# Generated by `tablewatch alerts config` from {rules.source}: edits are overwritten.\n"
    )
    body = yaml.safe_dump(
        alertmanager_config(rules, alerter_url, token_file),
        sort_keys=False,
        allow_unicode=True,
        width=1000,
    )
    return header + body
