"""Bus subscribers that write results somewhere: the journal file, tag logs, the console."""
