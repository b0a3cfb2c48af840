"""Browser tests: a real Chromium drives the widget (fake model, JupyterLab, Notebook 7, static export)."""
