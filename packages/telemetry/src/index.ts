// Logging, Prometheus metrics, OpenTelemetry tracing and health endpoints for every service.
