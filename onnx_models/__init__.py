"""hallmon.onnx_models"""
