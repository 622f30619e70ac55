"""The field's exchange formats (design section 18): XLIFF 2.1 and 1.2, gettext PO and TMX out, XLIFF and PO back
in by paragraph ID, TBX glossaries. One module per format and direction; ``import_apply`` is the one place that
decides what an imported target does to a paragraph."""
