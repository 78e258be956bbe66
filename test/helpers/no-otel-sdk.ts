/**
 * `node --import <this>`: a process in which no OpenTelemetry package but the API loads (a
 * resolve hook refuses the rest), to show that with tracing off the service never imports one.
 */
import { register } from 'node:module'

register('./no-otel-sdk-hooks.js', import.meta.url)
