"""The matrix engine: render, serve, run and compare every scenario x dialect x subject cell.

One engine for every view of it. ``tooltape matrix`` (and its HTML page),
``tooltape differential`` and :func:`tooltape.plugin.check_subject` call it; the
command line only parses options and prints.

- :mod:`.subjects`: the subjects, read from the dialects' declarations (LangChain
  chat models and SDK or library accumulators) and from users' ``Subject`` objects.
- :mod:`.run`: a cell rendered, parsed and merged by the reference, each subject
  streamed from a fake provider under the cell's time and memory bounds, judged.
- :mod:`.expectations` and :mod:`.reference_pins`: what the subjects and
  langchain-core are expected to make of each cell.
- :mod:`.differential`: one scenario through every accumulator, side by side.
"""
