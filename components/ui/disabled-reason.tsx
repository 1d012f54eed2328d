'use client';

import * as React from 'react';
import { Tooltip } from './tooltip';

type Control = React.ReactElement<{ disabled?: boolean; 'aria-describedby'?: string; title?: string }>;

/**
 * The one way a console control is disabled: with its reason. When `reason` is set the child
 * is cloned `disabled`, wrapped in a focusable span whose tooltip and `title` give the reason,
 * and linked to it with `aria-describedby` (a screen reader reads the reason with the control).
 * The child's own `title` (what the control does: "Run now with a payload override") is dropped
 * while it is disabled, or the browser would show it on hover in place of the reason. With no
 * reason the child is returned as is. Reasons are short and name the cause: "Viewer
 * role: read only", "Admin only", "Pick two versions to compare".
 *
 * Gates nest (RoleGate around a DisabledReason): an outer gate that already disabled this one
 * (it passes `disabled` and its `aria-describedby`) wins, so a viewer reads the role reason.
 */
export function DisabledReason({ reason, children, disabled, 'aria-describedby': describedBy }: { reason: string | null | undefined | false; children: Control; disabled?: boolean; 'aria-describedby'?: string }) {
  const id = React.useId();
  if (disabled) return React.cloneElement(children, { disabled: true, 'aria-describedby': describedBy, title: undefined });
  if (!reason) return children;
  const control = React.cloneElement(children, { disabled: true, title: undefined, 'aria-describedby': [children.props['aria-describedby'], id].filter(Boolean).join(' ') });
  return (
    <Tooltip content={reason}>
      {control}
      <span id={id} className="sr-only" data-disabled-reason="">
        {reason}
      </span>
    </Tooltip>
  );
}
