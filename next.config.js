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
  // `npm test` (bin/run-tests.mjs) checks the types once, after this build, with the route checks it generates
  // (.next/types/validator.ts, tsconfig.check.json): its build leaves out Next's own pass over the same files
  typescript: { ignoreBuildErrors: process.env.READPAST_BUILD_SKIP_TYPES === '1' },
  poweredByHeader: false,
  reactStrictMode: true,
  turbopack: { root },
  outputFileTracingRoot: root,
};

export default nextConfig;
