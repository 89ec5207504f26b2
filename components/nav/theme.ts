// The colour theme: `light`, `dark`, or `system` (follow the OS, the default). The choice is kept in
// localStorage and applied to <html data-theme> before the first paint by THEME_SCRIPT (app/layout.tsx).

export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_KEY = 'readpast.theme';

/** Runs inline in <head>, before anything paints: no flash of the other theme. */
export const THEME_SCRIPT = [
  '(function(){try{',
  `var c=localStorage.getItem('${THEME_KEY}');`,
  "var d=c==='dark'||(c!=='light'&&matchMedia('(prefers-color-scheme: dark)').matches);",
  "document.documentElement.dataset.theme=d?'dark':'light'",
  '}catch(e){}})()',
].join('');

export function storedChoice(): ThemeChoice {
  try {
    const c = localStorage.getItem(THEME_KEY);
    return c === 'light' || c === 'dark' ? c : 'system';
  } catch {
    return 'system';
  }
}

export function systemTheme(): 'light' | 'dark' {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Store the choice (system: forget it) and apply it now. */
export function applyChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, choice);
  } catch {
    // private mode: applied for this page only
  }
  document.documentElement.dataset.theme = choice === 'system' ? systemTheme() : choice;
}
