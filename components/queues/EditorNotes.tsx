// Under an in-place editor of the Queues page: why the typed value cannot be saved yet, and what the server
// answered when saving failed (`<prefix>-invalid`, `<prefix>-error`).
export function EditorNotes({ prefix, invalid, error }: { prefix: string; invalid: string | null; error: string | null }) {
  return (
    <>
      {invalid && (
        <p className="mt-1 text-xs text-rose-700" data-testid={`${prefix}-invalid`}>
          {invalid}
        </p>
      )}
      {error && (
        <p role="alert" className="mt-1 text-xs text-rose-700" data-testid={`${prefix}-error`}>
          {error}
        </p>
      )}
    </>
  );
}
