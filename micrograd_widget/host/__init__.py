"""Hosting: the shared assets model, the exported page, the extension, THE options table, files, the demo."""
