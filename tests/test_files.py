"""Atomic output: a failure while writing leaves neither the target nor a temporary file."""

from __future__ import annotations

import pytest

from inev.common.errors import InevError
from inev.common.files import atomic_output, read_json_document, write_json_document


def test_failure_inside_the_block_leaves_nothing(tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(RuntimeError), atomic_output(target) as handle:
        handle.write("half")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_failure_keeps_an_existing_file_intact(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_output(target) as handle:
        handle.write("new")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_non_finite_numbers_are_refused_before_writing(tmp_path):
    with pytest.raises(ValueError):
        write_json_document(tmp_path / "x.json", {"format": "f", "v": float("nan")})
    assert list(tmp_path.iterdir()) == []


def test_read_checks_the_format(tmp_path):
    path = tmp_path / "a.json"
    write_json_document(path, {"format": "inev-plan/1", "x": 1})
    assert read_json_document(path, "inev-plan/1")["x"] == 1
    with pytest.raises(InevError, match="expected 'inev-network/1'"):
        read_json_document(path, "inev-network/1")
    path.write_text("[1, 2]")
    with pytest.raises(InevError, match="JSON object"):
        read_json_document(path, "inev-plan/1")
