"""The assembler worker: its faust agent (`agent`) beside its pure state machine (`state`)."""
