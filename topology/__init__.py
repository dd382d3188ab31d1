"""hallmon.topology"""
