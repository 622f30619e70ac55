"""The OASIS XLIFF schemas vendored in ``tests/data/xliff/`` (see its LICENSE.md), loaded with lxml and no network:
the 1.2 schema's import of the W3C ``xml.xsd`` by URL is resolved to the local copy."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lxml import etree

HERE = Path(__file__).resolve().parents[2] / "data" / "xliff"
XML_XSD = HERE / "informativeCopiesOf3rdPartySchemas" / "w3c" / "xml.xsd"


class _Local(etree.Resolver):
    """Any request for ``xml.xsd`` gets the vendored copy; anything else is left to fail (no network)."""

    def resolve(self, system_url: str, public_id: str, context: object) -> object:
        if system_url.endswith("xml.xsd"):
            return self.resolve_filename(str(XML_XSD), context)
        return None


def _schema(name: str) -> etree.XMLSchema:
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    parser.resolvers.add(_Local())
    return etree.XMLSchema(etree.parse(str(HERE / name), parser))


@cache
def xliff2_schema() -> etree.XMLSchema:
    """The XLIFF 2 core schema (``xliff_core_2.0.xsd``: XLIFF 2.1 keeps it, with ``version="2.1"``)."""
    return _schema("xliff_core_2.0.xsd")


@cache
def xliff12_schema() -> etree.XMLSchema:
    """The XLIFF 1.2 strict schema."""
    return _schema("xliff-core-1.2-strict.xsd")


def problems(schema: etree.XMLSchema, data: bytes) -> list[str]:
    """The schema's complaints about the document ``data`` (empty: valid)."""
    document = etree.fromstring(data, etree.XMLParser(no_network=True, resolve_entities=False))
    schema.validate(document)
    return [f"line {e.line}: {e.message}" for e in schema.error_log]
