"""tooltape.plugin: the pytest plugin (entry point ``pytest11: tooltape``).

Kept thin: importing it costs almost nothing, so installing tooltape adds no
import time to test runs that do not use it.
"""

__all__: list[str] = []
