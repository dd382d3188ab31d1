"""The transport: faust agents, Redis, dead letters, telemetry around the transport-free stages."""
