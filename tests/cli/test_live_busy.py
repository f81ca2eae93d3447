"""`tablewatch live` asks the worker and the API again while they answer 503 (their query
threads taken by the floor page's feed and a browser), rather than stopping the run."""

from __future__ import annotations

import urllib.error
from email.message import Message

import pytest

from tablewatch.commands.live import _while_busy


def refusal(code: int) -> urllib.error.HTTPError:
    return urllib.error.HTTPError("http://127.0.0.1:1/", code, "busy", Message(), None)


def test_a_busy_answer_is_asked_again_until_it_comes() -> None:
    answers: list[int | urllib.error.HTTPError] = [refusal(503), refusal(503), 200]

    def call() -> int:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert _while_busy(call, seconds=10) == 200
    assert answers == []


def test_another_failure_is_raised_at_once_and_a_long_busy_spell_in_the_end() -> None:
    calls = 0

    def failing() -> int:
        nonlocal calls
        calls += 1
        raise refusal(500)

    with pytest.raises(urllib.error.HTTPError) as raised:
        _while_busy(failing, seconds=10)
    assert raised.value.code == 500 and calls == 1

    def busy() -> int:
        raise refusal(503)

    with pytest.raises(urllib.error.HTTPError) as raised:
        _while_busy(busy, seconds=0.6)
    assert raised.value.code == 503
