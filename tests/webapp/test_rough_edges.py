"""Rough edges a new user met (issue 48): ids and labels, accessible names, links that lead
somewhere, wording, and settings that would end a session in use."""

from __future__ import annotations

import re

from .test_my_memory import _talk


def test_a_fact_and_its_correction_field_have_distinct_ids(client, user, engine):
    _talk(engine, user)
    html = client.get("/memory").data.decode()
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert ids and len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    fact = re.search(r'<li id="fact-(\d+)"', html).group(1)
    # the label names the field, which the #fact-N links do not land on
    assert f'<label for="fact-text-{fact}">' in html and f'<input id="fact-text-{fact}"' in html
