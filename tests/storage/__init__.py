"""Tests of the storage layer: durable files, backends, conformance suite, CLI."""
