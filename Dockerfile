# hallmon in one image: every role (`worker --role assembler|verifier|fatigue`, `serve`), with the
# shipped NLI model inside (installed from the wheel as package data; no hub at run time).
#   docker build -t hallmon:0.1.0 .
#   docker run --rm hallmon:0.1.0 worker --role verifier
# Multi-stage: build tools and the source tree stay in the first stage; the runtime stage holds
# only the virtualenv and runs as an unprivileged user.

FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY hallmon ./hallmon
COPY schemas ./schemas
COPY topology ./topology
COPY workers ./workers
COPY onnx_models ./onnx_models
RUN python -m venv /opt/hallmon \
 && /opt/hallmon/bin/pip install . \
 # Fail the build, not the pod, when the model did not make it into the package.
 && /opt/hallmon/bin/python -c "from hallmon.onnx_models.runtime import resolve_model_dir; print(resolve_model_dir())"

FROM python:3.11-slim-bookworm
RUN groupadd --system --gid 10001 hallmon \
 && useradd --system --uid 10001 --gid hallmon --home-dir /home/hallmon --create-home hallmon
COPY --from=build /opt/hallmon /opt/hallmon
ENV PATH=/opt/hallmon/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    HALLMON_SERVE__HOST=0.0.0.0
WORKDIR /home/hallmon
USER 10001:10001
# 8080: hallmon serve; 9464: a worker's Prometheus /metrics (HALLMON_OTEL__PROMETHEUS_PORT)
EXPOSE 8080 9464
# Probes are per role: compose and the Kubernetes manifests define them.
ENTRYPOINT ["hallmon"]
CMD ["serve"]
