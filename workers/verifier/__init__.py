"""The verifier worker: its faust agent (`agent`), the NLI batcher and the verification service."""
