'use client';
// A trace id (OpenTelemetry), linked to the tracing backend's page of that trace when READPAST_TRACE_URL gives one
// (`{traceId}` replaced); otherwise the id alone, to paste into the backend's search.
export function traceHref(template: string | null, traceId: string): string | null {
  return template ? template.replaceAll('{traceId}', encodeURIComponent(traceId)) : null;
}

/** `inline`: within a line of text, the id kept whole (it moves to the next line rather than breaking) */
export function TraceLink({ traceId, url, testId, inline }: { traceId: string; url: string | null; testId?: string; inline?: boolean }) {
  const href = traceHref(url, traceId);
  const wrap = inline ? 'whitespace-nowrap' : 'break-all';
  if (!href)
    return (
      <span className={`${wrap} font-mono text-xs`} data-testid={testId} title="OpenTelemetry trace id">
        {traceId}
      </span>
    );
  return (
    <a
      href={href}
      target="_blank"
      rel="noreferrer"
      className={`${wrap} font-mono text-xs text-brand-700 hover:underline`}
      data-testid={testId}
      title="Open the trace"
    >
      {traceId}
    </a>
  );
}
