"""The live view of a scenario run for interactive front ends: ``state`` takes the events in (the
write side), ``read`` computes what each view shows (the read models), ``cells`` words it as table
cells, ``history`` keeps the rate history and the log, ``models`` holds the rows and per-run state."""
