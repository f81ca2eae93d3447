"""ROUND_NOT_VOIDED: a round that had to be voided was settled instead.

The round must be void, every wager returned, when (the game's ``Sections``):
- a player's hand or one of the game's areas (a dealer's hand, community
  cards) was dealt the wrong number of cards (``misdeal``);
- a card the game keeps hidden until its reveal (a dealer card, a community
  card) was exposed before it (``early_exposure``);
- more than one card was found face up in the deck (``face_up_in_deck``);
- the automated dealing shoe jammed, stopped or failed to deal (``shoe_fault``).
The counts, areas and sections are the game's descriptor's. A wrong stub
count is its own check (STUB_COUNT_MISMATCH).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Final

from tablewatch.rules.checks.context import RoundContext, VoidCause
from tablewatch.rules.findings import Finding
from tablewatch.rules.game_rules import Exposure
from tablewatch.rules.round_view import SEAT_TARGETS

CODE: Final = "ROUND_NOT_VOIDED"
NO_CARDS: Final[list[Any]] = []  # a target dealt nothing (read only)
_face_up: Final = attrgetter("face_up")


def void_causes(ctx: RoundContext) -> list[VoidCause]:
    """Every reason this round had to be voided."""
    causes: list[VoidCause] = []
    _misdeals(ctx, causes)
    _early_exposures(ctx, causes)
    if ctx.rnd.exposures:
        _face_up_in_deck(ctx, causes)
    if ctx.rnd.faults:
        _shoe_faults(ctx, causes)
    return causes


def check(ctx: RoundContext) -> list[Finding]:
    if ctx.rnd.void is not None or not ctx.void_causes:
        return []
    settles = [s.event_id for s in ctx.rnd.settles]
    return [
        ctx.finding(
            CODE,
            cause.section,
            f"{cause.reason}: the round had to be voided and every wager returned, "
            f"but it was {'settled' if settles else 'not voided'}",
            event_ids=[*cause.event_ids, *settles[:1]],
        )
        for cause in ctx.void_causes
    ]


def _misdeals(ctx: RoundContext, out: list[VoidCause]) -> None:
    view = ctx.view
    rules = ctx.rules
    need = rules.hand_cards
    seats = view.seats()
    if view.dealt_seats() != seats:  # usually the same seats
        seats = sorted(set(seats) | set(view.dealt_seats()))
    for seat in seats:
        _short_dealt(ctx, out, SEAT_TARGETS[seat], need, seat)
    if not seats:
        return
    areas = rules.areas
    if rules.wager_areas:  # areas dealt only when a wager on them is placed
        bets = {bet for _, bet in view.wagers}
        areas = (*areas, *(area for bet, area in rules.wager_areas if bet in bets))
    for target, count, name in areas:
        _short_dealt(ctx, out, target, count, name)


def _short_dealt(
    ctx: RoundContext, out: list[VoidCause], target: str, need: int, who: int | str
) -> None:
    """A misdeal if ``target`` (a seat, or an area named ``who``) was not dealt ``need`` cards."""
    got = len(ctx.view.cards.get(target, NO_CARDS))
    if got == need:
        return
    events = ctx.view.card_events.get(target, NO_CARDS)
    name = f"seat {who}" if isinstance(who, int) else who
    out.append(
        VoidCause(
            f"{name} was dealt {got} card(s), not {need}",
            ctx.sections.misdeal,
            tuple(e.event_id for e in events[-need - 1 :]),
        )
    )


def _early_exposures(ctx: RoundContext, out: list[VoidCause]) -> None:
    for rule in ctx.rules.exposures:
        _early_exposure(ctx, out, rule)


def _early_exposure(ctx: RoundContext, out: list[VoidCause], rule: Exposure) -> None:
    """A card of one hidden area (``rule``) exposed or dealt face up before its reveal."""
    section = ctx.sections.early_exposure
    target, name, allowed_face_up = rule.target, rule.name, rule.face_up
    reveal = ctx.view.reveals.get(rule.revealed_by)
    for exposure in ctx.rnd.exposures:
        if exposure.to != target:
            continue
        if reveal is not None and exposure.ts >= reveal.ts:
            continue
        if rule.turned and _already_turned(ctx, rule, exposure.card, exposure.ts):
            continue
        out.append(
            VoidCause(
                f"{name} ({exposure.card}) was exposed before its reveal",
                section,
                (exposure.event_id,),
            )
        )
    dealt = ctx.view.card_events.get(target, NO_CARDS)
    if sum(map(_face_up, dealt)) <= allowed_face_up:
        return  # the usual round: no card shown that should not be
    face_up = [e for e in dealt if e.face_up]
    if len(face_up) > allowed_face_up:
        shown = face_up[allowed_face_up:]
        for event in shown[:1]:
            out.append(
                VoidCause(
                    f"{name} ({event.card}) was dealt face up",
                    section,
                    tuple(e.event_id for e in shown),
                )
            )


def _already_turned(ctx: RoundContext, rule: Exposure, card: str, ts: str) -> bool:
    """A card seen after an earlier reveal turned it (a shared card turned on its own, the
    descriptor's ``Exposure.turned``) is no exposure."""
    dealt = ctx.view.card_events.get(rule.target, NO_CARDS)
    for key, position in rule.turned:
        turned = ctx.view.reveals.get(key)
        if (
            turned is not None
            and ts >= turned.ts
            and len(dealt) > position
            and dealt[position].card == card
        ):
            return True
    return False


def _face_up_in_deck(ctx: RoundContext, out: list[VoidCause]) -> None:
    found = [e for e in ctx.rnd.exposures if e.to == "deck"]
    if len(found) > 1:
        out.append(
            VoidCause(
                f"{len(found)} cards were found face up in the deck",
                ctx.sections.face_up_in_deck,
                tuple(e.event_id for e in found),
            )
        )


def _shoe_faults(ctx: RoundContext, out: list[VoidCause]) -> None:
    for fault in ctx.rnd.faults:
        if fault.device == "automated_shoe":
            out.append(
                VoidCause(
                    f"the automated dealing shoe reported `{fault.fault}` during the round",
                    ctx.sections.shoe_fault,
                    (fault.event_id,),
                )
            )
