"""What a game is lives in its own package: the generic code names no game and no game's bet.

Every file of :data:`SUFFIXES` under :data:`ROOTS` (all of ``tablewatch/``: modules,
migrations, templates, scripts, YAML), except those under :data:`EXEMPT` (the games'
own packages and simulators) and the migrations before :data:`FIRST_GAME_BLIND_MIGRATION`
(history: a store of an older schema is migrated through them as they were; 0018
replaced the rollup 0011 wrote with bet names), is read as text (identifiers, strings
and comments alike) and must not name, spelled with underscores or spaces in any
case (``let_it_ride``, "Let It Ride", ``LET_IT_RIDE``):
- a registered game: its name, its title, its chapter ("641a");
- a bet only one registered game has (``aces_up``, "Five Card Bonus",
  ``bet1``/"bet 1"); a bet that is an everyday word (``ante``, ``play``)
  only when quoted ("ante", `play`), since prose says "play" of any game.
A bet two games share ("progressive") is a general word, and so is a hyphenated
hand size ("four-card poker hands": a ranking, not the game).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tablewatch.rules import games

PACKAGE = Path(games.__file__).resolve().parents[2]  # tablewatch/
# The trees scanned; the games' own packages are left out.
ROOTS: list[Path] = [PACKAGE]
SUFFIXES = (".py", ".sql", ".html", ".js", ".css", ".yaml", ".yml", ".j2", ".txt", ".md")
EXEMPT: list[Path] = [PACKAGE / "rules" / "games", PACKAGE / "sim" / "games"]
MIGRATIONS = PACKAGE / "store" / "migrations"
FIRST_GAME_BLIND_MIGRATION = "0018"

_SEP = r"[\s_]+"  # between the words of a name: "let_it_ride", "Let It Ride"
_START = r"(?<![A-Za-z0-9])"
_END = r"(?![A-Za-z0-9])"


def _spelled(words: list[str]) -> str:
    """A name of several words in any spelling, as a whole word (``_`` separates words too)."""
    return _START + _SEP.join(re.escape(word) for word in words) + _END


def _name_pattern(name: str) -> str:
    words = [word for word in re.split(r"[\s_]+", name) if word]
    if len(words) == 1 and not re.search(r"\d", name):
        # An everyday word ("ante", "play"): only as a quoted name.
        return r"[\"'`]" + re.escape(name) + r"[\"'`]"
    if len(words) == 1:
        # "bet1": also "bet 1", "bet_1".
        head, digits = re.fullmatch(r"(.*?)(\d+)", name).groups()  # type: ignore[union-attr]
        return _START + re.escape(head) + r"[\s_]?" + digits + _END
    return _spelled(words)


def forbidden() -> dict[str, re.Pattern[str]]:
    """What the generic code may not say, by what it is (label -> pattern)."""
    terms: dict[str, re.Pattern[str]] = {}
    for rules in games.all_rules():
        terms[f"game {rules.name}"] = re.compile(_spelled(rules.name.split("_")), re.I)
        terms[f"title {rules.title}"] = re.compile(_spelled(rules.title.split()), re.I)
        chapter = rules.chapter.removeprefix("ch. ")
        terms[f"chapter {rules.chapter}"] = re.compile(_START + re.escape(chapter) + _END, re.I)
    owners = Counter(bet for rules in games.all_rules() for bet in {w.bet for w in rules.wagers})
    for bet, count in owners.items():
        if count == 1:
            terms[f"bet {bet}"] = re.compile(_name_pattern(bet), re.I)
    return terms


def _history(path: Path) -> bool:
    """A migration older than the first that names no game (see the module's docstring)."""
    return path.parent == MIGRATIONS and path.name[:4] < FIRST_GAME_BLIND_MIGRATION


def scanned() -> list[Path]:
    files = sorted({path for root in ROOTS for path in root.rglob("*") if path.suffix in SUFFIXES})
    return [
        path
        for path in files
        if not any(path.is_relative_to(e) for e in EXEMPT) and not _history(path)
    ]


def mentions(text: str, terms: dict[str, re.Pattern[str]]) -> list[str]:
    """Each line of ``text`` naming a term: ``line N: label: the line``."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for label, pattern in terms.items():
            if pattern.search(line):
                found.append(f"line {number}: {label}: {line.strip()}")
    return found


def _assert_the_patterns_find_each_spelling() -> None:
    terms = {
        "game": re.compile(_spelled(["let", "it", "ride"]), re.I),
        "bet": re.compile(_name_pattern("five_card_bonus"), re.I),
        "word": re.compile(_name_pattern("ante"), re.I),
        "numbered": re.compile(_name_pattern("bet1"), re.I),
    }
    text = "\n".join(
        [
            "from x import let_it_ride",  # 1
            "# Let It Ride's bets",  # 2
            "FIVE_CARD_BONUS = 1",  # 3
            'bet == "ante"',  # 4
            "the ante is doubled",  # 5: prose
            "bets 1 and bet 2",  # 6: "bet 2" is not bet1
            "a pulled bet1",  # 7
            "five_card_bonus_edge.edge",  # 8
            "let_it_rider, bet10",  # 9: other words
            "four-card poker hands, let-it-ride",  # 10: hyphenated: a hand size
        ]
    )
    assert mentions(text, terms) == [
        "line 1: game: from x import let_it_ride",
        "line 2: game: # Let It Ride's bets",
        "line 3: bet: FIVE_CARD_BONUS = 1",
        'line 4: word: bet == "ante"',
        "line 7: numbered: a pulled bet1",
        "line 8: bet: five_card_bonus_edge.edge",
    ]


def _assert_the_registry_gives_the_terms() -> None:
    labels = set(forbidden())
    assert {"game four_card_poker", "title Let It Ride", "chapter ch. 641a"} <= labels
    assert {"bet aces_up", "bet bet1", "bet five_card_hand_bonus"} <= labels
    assert "bet progressive" not in labels  # two games have one


def test_no_generic_module_names_a_game_or_one_games_bet() -> None:
    _assert_the_patterns_find_each_spelling()  # the scan is not blind
    _assert_the_registry_gives_the_terms()
    terms = forbidden()
    files = scanned()
    assert any(path.name == "judge.py" for path in files)  # the scan reads the generic code
    names = {path.relative_to(PACKAGE).as_posix() for path in files}
    assert {
        "api/filters.py",
        "api/templates/findings.html",
        "store/migrations/0018_hold_by_game.sql",
        "rounds/reconstruct.py",
        "alerts/rules_file.py",
    } <= names  # every surface, its SQL and templates too
    assert "store/migrations/0011_partitions_and_rollups.sql" not in names
    found = [
        f"{path.relative_to(PACKAGE.parent)}: {mention}"
        for path in files
        for mention in mentions(path.read_text(encoding="utf-8"), terms)
    ]
    assert found == [], "\n".join(found)
