"""The imperative shell: transports, process control, the executor and the local lab."""
