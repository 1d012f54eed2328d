'use client';

import * as React from 'react';
import { Tooltip } from './tooltip';

/**
 * The one way a console control is disabled: with its reason. When `reason` is set the child
 * is cloned `disabled`, wrapped in a focusable span whose tooltip and `title` give the reason,
 * and linked to it with `aria-describedby` (a screen reader reads the reason with the control).
 * With no reason the child is returned as is. Reasons are short and name the cause: "Viewer
 * role: read only", "Admin only", "The run already finished", "Restore the job first".
 */
export function DisabledReason({ reason, children }: { reason: string | null | undefined | false; children: React.ReactElement<{ disabled?: boolean; 'aria-describedby'?: string }> }) {
  const id = React.useId();
  if (!reason) return children;
  const control = React.cloneElement(children, { disabled: true, 'aria-describedby': [children.props['aria-describedby'], id].filter(Boolean).join(' ') });
  return (
    <Tooltip content={reason}>
      {control}
      <span id={id} className="sr-only" data-disabled-reason="">
        {reason}
      </span>
    </Tooltip>
  );
}
