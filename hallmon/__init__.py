"""hallmon: watches streaming AI agents for hallucinations and session fatigue."""

__version__ = "0.1.0"
