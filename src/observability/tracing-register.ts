/**
 * The `--import` entry of every start (`npm start`, the image, the smoke test): loaded before the app's
 * own modules, because an ES-module app's `pg` and `node:http` can only be instrumented through a loader
 * hook registered before they are imported. With no OTLP endpoint in the environment it does nothing at
 * all: no hook, no SDK, no per-request cost.
 */
import { register } from 'node:module';
import { tracingRequested } from './tracing-settings.js';

if (tracingRequested(process.env)) {
  // import-in-the-middle wraps only the modules an instrumentation asks for (pg, pg-pool, http, https),
  // told through this channel, instead of every module the app imports.
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const { startTracing } = await import('./tracing-sdk.js');
  startTracing();
  await waitForAllMessagesAcknowledged();
}
