import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { Shell } from '@/components/nav/Shell';
import { THEME_SCRIPT } from '@/components/nav/theme';
import { RoleProvider } from '@/components/role';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'readpast', template: '%s · readpast' },
  description: 'Live dashboard of the readpast task engine: running tasks, execution log, failures, workers.',
};

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  themeColor: '#0f172a',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // data-theme is set by THEME_SCRIPT before the first paint (the stored choice, else the OS's), so it
    // differs from the server's markup by design
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script, no user input */}
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-dvh">
        <Providers>
          <RoleProvider>
            <Shell>{children}</Shell>
          </RoleProvider>
        </Providers>
      </body>
    </html>
  );
}
