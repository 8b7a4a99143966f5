"""``kind: iperf3``: a network baseline with iperf3 between two hosts (keys, model, planner, output
parsers, report; the runner in run/)."""
