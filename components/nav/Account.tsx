'use client';
// Who is signed in, with their role, and the sign-out control when signed in with the provider (a form posting
// to /auth/logout, which ends the session here and at the provider). In the navigation's footer (wide
// screens) and at the top of the menu (phones), whose top bar shows the person's initial.
import { useRole } from '../role';
import { cx } from '../ui/cx';

/** a name worth showing: not the loopback operator of a dashboard without credentials, not "not known yet" */
function shown(user: string): boolean {
  return !!user && user !== 'loopback' && user !== 'unknown';
}

/**
 * `stacked` (the navigation's narrow foot): the name on its own line, the role and a sign-out link under it;
 * `row` (the phone's menu, full width): the sign-out button beside the name.
 */
export function Account({ className, layout = 'stacked' }: { className?: string; layout?: 'stacked' | 'row' }) {
  const me = useRole();
  if (!shown(me.user)) return null;
  const signOut = me.signOut && (
    <form method="post" action="/auth/logout">
      <button
        type="submit"
        data-testid="sign-out"
        className={
          layout === 'row'
            ? 'rounded-md px-2 py-1 text-xs font-medium text-slate-300 ring-1 ring-white/15 hover:bg-white/10 hover:text-white'
            : 'font-medium text-slate-300 underline-offset-2 hover:text-white hover:underline'
        }
      >
        Sign out
      </button>
    </form>
  );
  return (
    <div data-testid="account" className={cx('flex min-w-0 items-center gap-2', className)}>
      <Initial user={me.user} />
      <div className="min-w-0 flex-1">
        <p data-testid="account-user" className="truncate text-xs font-medium text-slate-200" title={me.user}>
          {me.user}
        </p>
        <div className="flex items-center gap-1.5 text-[11px] text-slate-500">
          <span data-testid="account-role">{me.role}</span>
          {layout === 'stacked' && signOut && (
            <>
              <span aria-hidden>·</span>
              {signOut}
            </>
          )}
        </div>
      </div>
      {layout === 'row' && signOut}
    </div>
  );
}

/** The signed-in person's initial in a circle (the phone's top bar: the name and sign-out are in the menu). */
export function Initial({ user }: { user?: string }) {
  const me = useRole();
  const name = user ?? me.user;
  if (!shown(name)) return null;
  return (
    <span
      data-testid="account-initial"
      title={`Signed in as ${name}`}
      className="flex size-7 shrink-0 items-center justify-center rounded-full bg-white/10 text-xs font-semibold text-slate-200 uppercase"
    >
      <span aria-hidden>{name.trim().charAt(0)}</span>
      <span className="sr-only">Signed in as {name}</span>
    </span>
  );
}
