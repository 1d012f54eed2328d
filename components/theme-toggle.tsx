'use client';

import * as React from 'react';
import { Monitor, Moon, Sun } from 'lucide-react';
import { RadioGroup } from 'radix-ui';
import { cn } from './ui/cn';

import { THEME_COOKIE, type Theme } from './theme';

const OPTIONS: { value: Theme; label: string; icon: React.ReactNode }[] = [
  { value: 'light', label: 'Light', icon: <Sun /> },
  { value: 'dark', label: 'Dark', icon: <Moon /> },
  { value: 'system', label: 'System', icon: <Monitor /> },
];

/**
 * Light / Dark / System switch in the top bar. The choice is remembered per browser in the
 * `tickflow_theme` cookie (a year; the server reads it to render `<html data-theme>`) and in
 * localStorage; switching sets `data-theme` at once, app/theme-dark.css does the rest.
 */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = React.useState<Theme>(initial);
  const choose = (t: Theme) => {
    setTheme(t);
    document.documentElement.dataset.theme = t;
    document.cookie = `${THEME_COOKIE}=${t}; path=/; max-age=31536000; samesite=lax`;
    try {
      localStorage.setItem(THEME_COOKIE, t);
    } catch {
      // storage may be disabled; the cookie is what the server reads
    }
  };
  return (
    // Radix's radio group: one Tab stop (the checked theme), the arrow keys move and choose (WAI-ARIA radio group)
    <RadioGroup.Root value={theme} onValueChange={(t) => choose(t as Theme)} aria-label="Theme" className="inline-flex items-center rounded-md border border-zinc-200 bg-white p-0.5">
      {OPTIONS.map((o) => (
        <RadioGroup.Item
          key={o.value}
          value={o.value}
          aria-label={`${o.label} theme`}
          title={`${o.label} theme`}
          className={cn('inline-flex h-6 w-6 items-center justify-center rounded text-zinc-500 [&_svg]:size-3.5', theme === o.value ? 'bg-zinc-100 text-zinc-900' : 'hover:text-zinc-800')}
        >
          {o.icon}
        </RadioGroup.Item>
      ))}
    </RadioGroup.Root>
  );
}
