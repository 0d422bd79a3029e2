"""Shared plumbing of every inev layer: the error type and safe file output."""

from inev.common.errors import InevError
from inev.common.files import atomic_output, read_json_document, write_json_document

__all__ = ["InevError", "atomic_output", "read_json_document", "write_json_document"]
