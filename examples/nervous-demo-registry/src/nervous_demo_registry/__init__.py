"""An example third-party registry plugin for nervous."""
