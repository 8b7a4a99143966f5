"""Test kinds, one folder each: ``<kind>/kind.py`` registers it (an entry point of the group
``gftpwb.kinds``), its other modules are core (DSL keys, checks, model, planner, output parser,
report), and ``<kind>/run/`` is its shell side (the runner). The simulated engine lives here too."""
