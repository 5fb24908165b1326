"""Testing support for nervous and its plugins (a pytest plugin: fixtures and conformance suites)."""
