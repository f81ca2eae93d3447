"""The alert rules file as Grafana alerting provisioning, built with the foundation SDK's
alerting builders (``grafana_foundation_sdk.builders.alerting``).

For sites that alert from Grafana instead of the alerter:

- one alert rule per rule of the file: a ClickHouse query counting the findings stored
  in the last evaluation window that the rule wants (its checks, severities, games and
  pits; a table's pit from the same patterns as the alerter's), one series per table,
  check and severity, reduced (last) and thresholded (> 0);
- one contact point per contact (email, webhook, Slack);
- a notification policy tree: pit -> the shift (an active time interval per shift, in
  the file's zone) -> the level-0 contact of that pit's chain; unassigned -> fallback;
  grouped by alertname, table_id, check, as Alertmanager's.

Grafana OSS has no acknowledgement or escalation: those stay the alerter's.
Written by ``tablewatch dashboards build --alerts ALERTS.yaml`` into
``provisioning/alerting/tablewatch-alerts.yaml``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from grafana_foundation_sdk.builders import alerting, expr
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import alerting as models
from grafana_foundation_sdk.models.dashboard import DataSourceRef

from tablewatch.alerts.am_config import receiver_name
from tablewatch.alerts.model import stable_id
from tablewatch.alerts.rules_file import (
    SEVERITIES,
    SILENT_CHECK,
    UNASSIGNED_PIT,
    AlertRules,
    Rule,
    load_rules,
)
from tablewatch.dashboards.clickhouse_query import PLUGIN_TYPE, ClickHouseQueryBuilder, Format

FOLDER_UID = "tablewatch"
WINDOW_S = 60  # each evaluation counts the findings judged in the last minute
GROUP_BY = ["alertname", "table_id", "check"]


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _pattern_regex(pattern: str) -> str:
    """A shell pattern (``LIR-*``) as an anchored RE2 expression."""
    out = []
    for char in pattern:
        out.append(".*" if char == "*" else "." if char == "?" else re.escape(char))
    return "^" + "".join(out) + "$"


def pit_expression(rules: AlertRules) -> str:
    """ClickHouse SQL giving a table's pit from ``table_id``, as :meth:`pit_of` does."""
    arms = [
        f"match(table_id, {_sql_string(_pattern_regex(p))}), {_sql_string(pit.name)}"
        for pit in rules.pits
        for p in pit.tables
    ]
    if not arms:
        return _sql_string(UNASSIGNED_PIT)
    return f"multiIf({', '.join(arms)}, {_sql_string(UNASSIGNED_PIT)})"


def rule_sql(rules: AlertRules, rule: Rule) -> str:
    severities = SEVERITIES[SEVERITIES.index(rule.min_severity) :]
    where = [
        f"judged_at > now64(3) - INTERVAL {WINDOW_S} SECOND",
        f"severity IN ({', '.join(_sql_string(s) for s in severities)})",
    ]
    checks = sorted(rule.checks - {SILENT_CHECK})
    if checks:
        where.append(f"check IN ({', '.join(_sql_string(c) for c in checks)})")
    if rule.tables:
        regexes = " OR ".join(f"match(table_id, {_sql_string(_pattern_regex(t))})"
                              for t in rule.tables)  # fmt: skip
        where.append(f"({regexes})")
    if rule.games:
        games = ", ".join(_sql_string(g) for g in sorted(rule.games))
        where.append(f"table_id IN (SELECT table_id FROM tables_v WHERE game IN ({games}))")
    having = ""
    if rule.pits:
        having = f" HAVING pit IN ({', '.join(_sql_string(p) for p in sorted(rule.pits))})"
    return (
        f"SELECT table_id, check, severity, {pit_expression(rules)} AS pit, count() AS findings "
        f"FROM findings_v WHERE {' AND '.join(where)} GROUP BY table_id, check, severity" + having
    )


def _rule(rules: AlertRules, rule: Rule, datasource_uid: str) -> alerting.Rule:
    source = DataSourceRef(type_val=PLUGIN_TYPE, uid=datasource_uid)
    sql = ClickHouseQueryBuilder().ref_id("A").datasource(source).raw_sql(rule_sql(rules, rule))
    sql = sql.format(Format.TABLE)
    window = models.RelativeTimeRange(from_val=WINDOW_S, to=0)
    queries: list[cogbuilder.Builder[models.Query]] = [
        alerting.Query("A").datasource_uid(datasource_uid).relative_time_range(window).model(sql),
        alerting.Query("B").datasource_uid("__expr__").model(
            expr.TypeReduce().ref_id("B").expression("A").reducer("last")
        ),
        alerting.Query("C").datasource_uid("__expr__").model(
            expr.TypeThreshold().ref_id("C").expression("B").conditions([
                expr.ExprTypeThresholdConditions().evaluator(
                    expr.ExprTypeThresholdConditionsEvaluator().type("gt").params([0])
                )
            ])
        ),
    ]  # fmt: skip
    return (
        alerting.Rule(f"TableWatch: {rule.name}")
        .uid("tw-" + stable_id("grafana-rule", rule.name, size=8))
        .queries(queries)
        .condition("C")
        .for_val("0s")
        .no_data_state("OK")
        .exec_err_state("Alerting")
        .folder_uid(FOLDER_UID)
        .labels({"alertname": "TableWatchFinding", "source": "tablewatch", "escalation": "0"})
        .annotations({
            "summary": "{{ $labels.check }} at {{ $labels.table_id }} ({{ $labels.pit }}): "
                       "{{ $values.B }} new finding(s)",
            "round_url": f"{rules.auditor_url}/tables/{{{{ $labels.table_id }}}}",
        })
    )  # fmt: skip


def _contact_points(rules: AlertRules) -> list[alerting.ContactPoint]:
    points = []
    for contact in rules.contacts.values():
        name = receiver_name(contact.name)
        if contact.email:
            points.append(alerting.ContactPoint().name(name).type("email")
                          .uid(stable_id(name, "email", size=8))
                          .settings({"addresses": contact.email, "singleEmail": True}))  # fmt: skip
        if contact.webhook:
            points.append(alerting.ContactPoint().name(name).type("webhook")
                          .uid(stable_id(name, "webhook", size=8))
                          .settings({"url": contact.webhook}))  # fmt: skip
        if contact.slack:
            points.append(alerting.ContactPoint().name(name).type("slack")
                          .uid(stable_id(name, "slack", size=8))
                          .settings({"url": contact.slack}))  # fmt: skip
    return points


def _shift_intervals(rules: AlertRules) -> list[alerting.MuteTiming]:
    zone = str(rules.timezone)
    timings = []
    for shift in rules.shifts:
        start, end = shift.start.strftime("%H:%M"), shift.end.strftime("%H:%M")
        ranges = [(start, end)] if shift.start < shift.end else [(start, "24:00"), ("00:00", end)]
        times: list[cogbuilder.Builder[models.TimeRange]] = [
            alerting.TimeRange().from_val(a).to(b) for a, b in ranges if a != b
        ]
        interval = alerting.TimeInterval().times(times).location(zone)
        timings.append(alerting.MuteTiming().name(f"shift-{shift.name}").time_intervals([interval]))
    return timings


def _policy(rules: AlertRules) -> alerting.NotificationPolicy:
    def match(name: str, value: str) -> models.ObjectMatcher:
        return [name, "=", value]

    pit_routes = []
    for pit in rules.pits:
        shift_routes = [
            alerting.NotificationPolicy()
            .receiver(receiver_name(pit.on_call[shift.name][0]))
            .active_time_intervals([f"shift-{shift.name}"])
            for shift in rules.shifts
        ]
        pit_routes.append(
            alerting.NotificationPolicy()
            .receiver(receiver_name(pit.on_call[rules.shifts[0].name][0]))
            .object_matchers([match("pit", pit.name)])
            .routes(shift_routes)  # type: ignore[arg-type]
        )
    pit_routes.append(
        alerting.NotificationPolicy()
        .receiver(receiver_name(rules.fallback[0]))
        .object_matchers([match("pit", UNASSIGNED_PIT)])
    )
    timing = rules.timing
    return (
        alerting.NotificationPolicy()
        .receiver(receiver_name(rules.fallback[0]))
        .group_by(GROUP_BY)
        .group_wait(f"{round(timing.group_wait_s)}s")
        .group_interval(f"{round(timing.group_interval_s)}s")
        .repeat_interval(f"{round(timing.repeat_interval_s)}s")
        .routes(pit_routes)  # type: ignore[arg-type]
    )


def _plain(model: Any) -> Any:
    """A built SDK model as plain JSON values (the SDK's own encoder)."""
    return json.loads(json.dumps(model, cls=JSONEncoder))


RULE_KEYS = ("uid", "title", "condition", "data", "noDataState", "execErrState", "for",
             "annotations", "labels", "isPaused")  # fmt: skip


def _file_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """A rule as Grafana's provisioning files take it (the API's model has more keys)."""
    return {k: rule[k] for k in RULE_KEYS if k in rule}


def provisioning_document(rules: AlertRules, datasource_uid: str) -> dict[str, Any]:
    """Grafana's file provisioning of alerting: rule group, contact points, policies and
    the shifts' time intervals."""
    group = (
        alerting.RuleGroup("tablewatch")
        .folder_uid(FOLDER_UID)
        .interval(30)
        .rules([_rule(rules, r, datasource_uid) for r in rules.rules])
        .build()
    )
    group = _plain(group)
    receivers: dict[str, list[dict[str, Any]]] = {}
    for point in _contact_points(rules):
        built = _plain(point.build())
        receivers.setdefault(built["name"], []).append(
            {"uid": built["uid"], "type": built["type"], "settings": built["settings"]}
        )
    mute = [_plain(m.build()) for m in _shift_intervals(rules)]
    for timing in mute:  # Grafana's files write a time range as Alertmanager does
        for interval in timing["time_intervals"]:
            interval["times"] = [
                {"start_time": t["from"], "end_time": t["to"]} for t in interval["times"]
            ]
    return {
        "apiVersion": 1,
        "groups": [
            {
                "orgId": 1,
                "name": group["title"],
                "folder": "TableWatch",
                "interval": "30s",
                "rules": [_file_rule(r) for r in group["rules"]],
            }
        ],
        "contactPoints": [
            {"orgId": 1, "name": name, "receivers": items} for name, items in receivers.items()
        ],
        "policies": [{"orgId": 1, **_plain(_policy(rules).build())}],
        "muteTimes": [{"orgId": 1, **m} for m in mute],
    }


def write_alerting(out: Path, options: Any) -> list[Path]:
    """The dashboards build's writer: ``options.extra["alerts"]`` names the rules file."""
    path = options.extra.get("alerts")
    if not path:
        return []
    document = provisioning_document(load_rules(path), options.datasource_uid)
    target = out / "provisioning" / "alerting" / "tablewatch-alerts.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), "utf-8")
    return [target]
