// A form field's problem under it (the id ties it to the field's aria-describedby), and the ring that marks the field.

export function FieldError({ id, children }: { id: string; children?: string | null }) {
  if (!children) return null;
  return (
    <p id={id} className="mt-1 text-xs text-rose-700" data-testid={id}>
      {children}
    </p>
  );
}

export const errCls = (e: unknown) => (e ? 'ring-rose-400 focus:ring-rose-500' : '');
