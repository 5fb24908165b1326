"""Word lists of the entity filter (package data: one lower-case word per line, ``#`` comments)."""
