"""The run pipeline: settings and config validation, cost estimates, result rows and summaries,
flags, the driver with its plan and backends, and the result files (``results/``)."""
