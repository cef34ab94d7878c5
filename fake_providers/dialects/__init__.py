"""The bundled dialects, one package per provider API (see ``fake_providers/_dialect.py``)."""
