'use client';

import * as React from 'react';
import { Link } from '@/components/ui/link';
import { Button, type ButtonProps } from './ui/button';
import { RoleGate, type Role } from './role';

/**
 * A link styled as a button that only works for `min` role and up; below it renders a
 * disabled button with the read-only tooltip. For server pages, where RoleGate cannot
 * look inside server-rendered children.
 */
export function GatedLinkButton({ href, min = 'operator', variant, size, children }: { href: string; min?: Role; variant?: ButtonProps['variant']; size?: ButtonProps['size']; children: React.ReactNode }) {
  return (
    <RoleGate min={min}>
      <Button asChild variant={variant} size={size}>
        <Link href={href}>{children}</Link>
      </Button>
    </RoleGate>
  );
}
