"""The scenario's vocabulary, at the bottom of the core: the typed model (``model``), the keys every
kind shares (``keys``) and YAML nodes with their positions (``yamlpos``, ``fastyaml``).

It sits apart from :mod:`gftpwb.core.dsl`, which loads and checks a scenario file from top to bottom
(schema, diagnostics, variables, includes) and asks the registry, the harness and the monitors, so
that those can use the vocabulary without importing the loader that uses them.
"""
