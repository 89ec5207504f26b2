// The few pages of sign-on, served before the dashboard itself (by the proxy and the /auth/* routes): the
// refusal of a person in none of the groups, a failed sign-in, signed out, the provider unreachable. Plain
// HTML with its own small stylesheet (the dashboard's colours, light or dark as the OS), no script.
import type { OidcConfig } from './config-oidc';
import type { Session } from './session';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
:root{color-scheme:light dark;--bg:#f8fafc;--card:#fff;--fg:#0f172a;--muted:#475569;--line:#e2e8f0;--brand:#2f7bf6}
@media (prefers-color-scheme:dark){:root{--bg:#020617;--card:#0f172a;--fg:#e2e8f0;--muted:#94a3b8;--line:#1e293b}}
*{box-sizing:border-box}body{margin:0;min-height:100dvh;display:flex;align-items:center;justify-content:center;padding:16px;
background:var(--bg);color:var(--fg);font:15px/1.5 ui-sans-serif,system-ui,-apple-system,"Segoe UI",sans-serif}
main{width:100%;max-width:560px;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:28px 24px}
.brand{display:flex;align-items:center;gap:8px;margin-bottom:20px;font-weight:600}
.logo{display:inline-flex;width:28px;height:28px;align-items:center;justify-content:center;border-radius:6px;background:var(--brand);
color:#fff;font:700 13px ui-monospace,monospace}
h1{font-size:20px;line-height:1.3;margin:0 0 12px;overflow-wrap:anywhere}p{margin:0 0 12px;color:var(--muted);overflow-wrap:anywhere}
code{font:13px ui-monospace,monospace;background:rgba(100,116,139,.15);border-radius:4px;padding:1px 5px}
ul{margin:0 0 12px;padding-left:20px;color:var(--muted)}li{overflow-wrap:anywhere}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin-top:20px}
.button{display:inline-block;border:0;border-radius:6px;padding:8px 14px;background:var(--brand);color:#fff;font-family:inherit;
font-size:14px;font-weight:600;
text-decoration:none;cursor:pointer}
`;

export type Control = { action: string; label: string } | { href: string; label: string } | null;

function controlHtml(c: Exclude<Control, null>): string {
  if ('action' in c) {
    const button = `<button class="button" type="submit" data-testid="signon-action">${escape(c.label)}</button>`;
    return `<form method="post" action="${escape(c.action)}">${button}</form>`;
  }
  return `<a class="button" href="${escape(c.href)}" data-testid="signon-action">${escape(c.label)}</a>`;
}

function page(title: string, heading: string, bodyHtml: string, control: Control, status: number, cookies: string[] = []): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · readpast</title>
<style>${STYLE}</style></head><body><main>
<div class="brand"><span class="logo">rp</span><span>readpast</span></div>
<h1 data-testid="signon-heading">${escape(heading)}</h1>${bodyHtml}
${control ? `<div class="actions">${controlHtml(control)}</div>` : ''}
</main></body></html>`;
  const headers = new Headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  for (const c of cookies) headers.append('set-cookie', c);
  return new Response(html, { status, headers });
}

/** A page with one message and at most one control. */
export function messagePage(title: string, heading: string, text: string, control: Control, status: number): Response {
  return page(title, heading, text ? `<p>${escape(text)}</p>` : '', control, status);
}

/** The callback could not complete the sign-in: why, and a way to start again. */
export function signInFailedPage(reason: string, cookies: string[]): Response {
  return page(
    'Sign-in failed',
    'Sign-in failed',
    `<p data-testid="signon-reason">${escape(reason)}.</p><p>Nothing was signed in. Start again from the dashboard.</p>`,
    { href: '/auth/login', label: 'Sign in again' },
    400,
    cookies,
  );
}

/** A person the provider signed in, whose roles claim holds none of the configured values: who, why, and sign-out. */
export function refusalPage(session: Session, cfg: Pick<OidcConfig, 'rolesClaim'>): Response {
  const claim = `<code>${escape(cfg.rolesClaim)}</code>`;
  const values = session.values ?? [];
  const items = values.map((v) => `<li><code>${escape(v)}</code></li>`).join('');
  const held = values.length
    ? `<p>Your sign-in's ${claim} claim holds:</p><ul data-testid="signon-values">${items}</ul>`
    : `<p>Your sign-in carries no ${claim} claim: the provider must be set up to send it ` +
      '(see the README, "Sign-on with OpenID Connect").</p>';
  return page(
    'Not allowed',
    `${session.name} may not use this dashboard`,
    `<p data-testid="signon-reason">You are signed in, but none of your ${claim} is one this dashboard admits as an operator
(<code>READPAST_OIDC_OPERATORS</code>) or a viewer (<code>READPAST_OIDC_VIEWERS</code>).</p>${held}
<p>Ask whoever runs this dashboard to add you to one of its groups, then sign in again.</p>`,
    { action: '/auth/logout', label: 'Sign out' },
    403,
  );
}

/** The provider cannot be reached (discovery, keys): nobody can sign in until it can. */
export function unavailablePage(reason: string): Response {
  const r = messagePage('Sign-on unavailable', 'Sign-on is unavailable', `${reason}. Try again in a moment.`, null, 503);
  r.headers.set('retry-after', '10');
  return r;
}
