"""Scanning skills: the scan engine and the scan target resolver."""
