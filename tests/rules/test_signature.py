"""Signing an event and checking its signature (rules/signature.py), and the tables' keys
read from the environment (table_keys.py)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import pickle

import pytest

from tablewatch.rules.canonical import canonical_json
from tablewatch.rules.config import ConfigError, parse_config
from tablewatch.rules.signature import (
    SIG_LENGTH,
    event_fields,
    signature,
    signed,
    signing_input,
    verifies,
    well_formed,
)
from tablewatch.table_keys import load_keys

KEY = b"controller key of LIR-07, 32 by."
RAW = (
    b'{"v":1,"event_id":"e-7","table_id":"LIR-07","seq":7,"ts":"2026-11-29T20:15:01.200Z",'
    b'"type":"wager","round_id":"R-1","seat":2,"bet":"bet1","amount":2500}'
)


def test_the_signature_is_hmac_sha256_of_the_canonical_form_in_base64url() -> None:
    fields = {**json.loads(RAW), "kid": "k1"}
    mac = hmac.new(KEY, canonical_json(fields), hashlib.sha256).digest()
    expected = base64.urlsafe_b64encode(mac).decode().rstrip("=")
    assert signature(fields, KEY) == expected
    assert len(expected) == SIG_LENGTH and well_formed(expected)
    # sig is left out of what is signed; kid is kept
    assert signing_input({**fields, "sig": "x"}) == canonical_json(fields)
    assert signature({**fields, "kid": "k2"}, KEY) != expected


def test_signed_adds_kid_and_sig_at_the_end_of_the_text_as_it_is() -> None:
    pretty = RAW.replace(b",", b", ")
    out = signed(pretty + b"\n", "k1", KEY)
    assert out.startswith(pretty[:-1] + b',"kid":"k1","sig":"')
    fields = event_fields(out)
    assert verifies(fields, fields["sig"], KEY)
    assert signed(RAW, "k1", KEY) != out  # other text, same canonical form...
    assert event_fields(signed(RAW, "k1", KEY))["sig"] == fields["sig"]  # ... same signature


def test_signing_again_replaces_kid_and_sig() -> None:
    once = signed(RAW, "k1", KEY)
    twice = signed(once, "k2", b"another key")
    fields = event_fields(twice)
    assert list(fields)[-2:] == ["kid", "sig"] and fields["kid"] == "k2"
    assert verifies(fields, fields["sig"], b"another key")
    assert not verifies(fields, fields["sig"], KEY)


def test_a_field_sent_as_null_is_signed_as_sent() -> None:
    raw = RAW.replace(b'"amount":2500', b'"amount":2500,"validated_by":null')
    fields = event_fields(signed(raw, "k1", KEY))
    assert verifies(fields, fields["sig"], KEY)
    del fields["validated_by"]
    assert not verifies(fields, fields["sig"], KEY)


@pytest.mark.parametrize(
    "sig", ["", "A" * 42, "A" * 44, "A" * 42 + "=", "A" * 42 + "+", "A" * 42 + "/", "é" * 43]
)
def test_well_formed_is_43_characters_of_base64url(sig: str) -> None:
    assert not well_formed(sig)
    assert not verifies(json.loads(RAW), sig, KEY)


def test_keys_are_read_from_the_environment_variables_the_configuration_names() -> None:
    configs = parse_config(
        {
            "tables": {
                "LIR-07": {
                    "game": "let_it_ride",
                    "paytables": {"main": "A"},
                    "signing": "required",
                    "keys": {"k-new": "KEY_NEW", "k-old": "KEY_OLD"},
                },
                "LIR-08": {"game": "let_it_ride", "paytables": {"main": "A"}},
            }
        }
    )
    secret, old = "s3cr3t-\u00e9-value", "s3cr3t-old"
    tables = load_keys(configs, {"KEY_NEW": secret, "KEY_OLD": old})
    assert list(tables) == ["LIR-07"]
    table = tables["LIR-07"]
    assert table.required and list(table.keys) == ["k-new", "k-old"]
    assert table.first.kid == "k-new" and table.first.secret == secret.encode()
    assert secret not in repr(tables) and old not in repr(tables)
    with pytest.raises(TypeError):
        pickle.dumps(table.first)

    with pytest.raises(ConfigError) as unset:
        load_keys(configs, {"KEY_NEW": secret})
    assert str(unset.value) == (
        "table LIR-07: keys.k-old: environment variable KEY_OLD is not set (it holds the key)"
    )
    with pytest.raises(ConfigError) as empty:
        load_keys(configs, {"KEY_NEW": "", "KEY_OLD": old})
    assert str(empty.value) == (
        "table LIR-07: keys.k-new: environment variable KEY_NEW is empty (it holds the key)"
    )
