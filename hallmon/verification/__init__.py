"""The verification pipeline: claims -> evidence -> deterministic checks -> NLI -> verdicts -> risk.

Plain functions and classes over `hallmon.schemas` types. Nothing here imports faust, Kafka or
Redis: the same code serves the stream (`hallmon.workers.verifier`), `hallmon check`,
`hallmon eval` and `hallmon calibrate`. `Verifier` (in `verifier`) is the entry point.
"""
