"""Placeholder: this module lands with the second fake-providers issue."""
