"""The training view: watch(), its log, its pictures."""
