/**
 * When tracing is on: the standard OpenTelemetry variables decide, so that an operator's usual settings
 * work unchanged. An OTLP endpoint (for every signal or for traces) turns it on; `OTEL_SDK_DISABLED=true`
 * or `OTEL_TRACES_EXPORTER=none` keeps it off.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
