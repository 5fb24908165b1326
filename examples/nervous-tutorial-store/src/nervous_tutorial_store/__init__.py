"""The storage plugin built in docs/plugins/tutorial.md."""
