// How one query-string change builds on those asked for before it that have not rendered yet.

/**
 * `params` is the whole query a caller wants, built from the query string it rendered (`rendered`). Its
 * change is what differs from `rendered`: keys set to another value, added, or dropped. While earlier
 * replacements are still on their way (`chain`: the query strings asked for since `rendered`, whose first is
 * `rendered` itself), the change is applied on top of the last of them, so two quick changes both hold —
 * a tab clicked and a filter applied before the tab's page rendered keep the tab. Once the page renders
 * a query string that is not in the chain (the last one arrived, or another navigation), the chain starts
 * again from it.
 */
export function composeQuery(
  chain: readonly string[],
  rendered: string,
  params: Record<string, string>,
): { search: string; chain: string[] } {
  const wanted = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) wanted.set(k, v);
  const at = chain.indexOf(rendered);
  // nothing pending past what is rendered: the caller's query is the query
  if (at < 0 || at === chain.length - 1) {
    const search = wanted.toString();
    return { search, chain: [rendered, search] };
  }
  const base = new URLSearchParams(rendered);
  const next = new URLSearchParams(chain[chain.length - 1]);
  for (const k of new Set([...base.keys(), ...wanted.keys()])) {
    const was = base.get(k);
    const now = wanted.get(k);
    if (was === now) continue;
    if (now === null) next.delete(k);
    else next.set(k, now);
  }
  const search = next.toString();
  return { search, chain: [...chain.slice(at), search] };
}
