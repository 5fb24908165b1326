"""Registrations of the built-in plugins that have heavy implementations (loaded on first use)."""
