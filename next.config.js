// Next.js configuration for the readpast dashboard (ESM).
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('./', import.meta.url));

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native drivers and the logger stay plain Node requires: never bundled into the server build.
  serverExternalPackages: ['better-sqlite3', 'mssql', 'tedious', 'pino', 'thread-stream', 'sonic-boom'],
  poweredByHeader: false,
  reactStrictMode: true,
  turbopack: { root },
  outputFileTracingRoot: root,
};

export default nextConfig;
