"""hallmon.schemas"""
