// Next.js configuration for the readpast dashboard (ESM).
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('./', import.meta.url));

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native drivers, the logger and OpenTelemetry (its one API instance, the SDK loaded only when asked for) stay plain
  // Node requires: never bundled into the server build.
  serverExternalPackages: [
    'better-sqlite3',
    'mssql',
    'tedious',
    'pino',
    'thread-stream',
    'sonic-boom',
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace-node',
    '@opentelemetry/resources',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/exporter-trace-otlp-proto',
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  turbopack: { root },
  outputFileTracingRoot: root,
};

export default nextConfig;
