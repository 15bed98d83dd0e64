"""Egonomy engine tests (a package, so that other games may reuse the test module names)."""
