"""hallmon's Kafka-fed workers, one subpackage each (agent + runtime + pure state logic).

- `assembler`: trace events -> assembled responses (a changelog-backed faust table).
- `verifier`: responses -> verdicts (calls `hallmon.verification`; NLI batched across answers).
- `fatigue`: verdicts -> per-session fatigue in Redis -> alerts.

Shared runtime: `publishing` (acknowledged sends, dead letters, retries), `dead_letters`,
`telemetry`, and `runner` (starts a role as a faust worker).
"""
