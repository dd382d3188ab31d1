"""hallmon.workers"""
