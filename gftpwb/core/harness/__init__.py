"""The test harness around the kinds, pure: how a planned scenario becomes the instances
that run (loops, concurrent copies, seeded delays), which of them ``--only`` and ``--where`` select,
in what order and how many at once the executor may start them (``needs``, ``concurrent_tests``),
and the aggregate of a run's copies. Every kind gets these without knowing of them: they work on
run specs and records, never on a kind's own model."""
