'use client';
// The editor's step card: key, name, handler and the per-step overrides at a glance, with a target handle on the
// left and a source handle on the right (edges run left to right, like the auto-layout).
import { memo } from 'react';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { CircleAlert, Lock, RotateCcw, Timer } from 'lucide-react';
import { cardHeight, cardTitle } from './canvas';
import { CompactKey, useCompactCard } from './CompactKey';
import type { StepNode } from './model';

const HANDLE_CLS = "!h-4 !w-4 !border-2 !border-white before:absolute before:-inset-2 before:rounded-full before:content-['']";

/** Custom node for `type: 'step'`. Handles carry `dag-handle-target-<key>` / `dag-handle-source-<key>` test ids. */
export const StepNodeView = memo(function StepNodeView({ data, selected, isConnectable }: NodeProps<StepNode>) {
  const hasErrors = !!data.errors && Object.keys(data.errors).length > 0;
  // zoomed out, the key alone, large (canvas.ts compactCard); the details keep the card's size, hidden
  const compact = useCompactCard(cardHeight(data.name), data.key || '(no key)');
  const detail = compact ? 'invisible' : '';
  return (
    <div
      className={[
        'relative w-[200px] rounded-lg border bg-white px-3 py-2 text-left shadow-sm transition-shadow',
        hasErrors ? 'border-red-500' : 'border-slate-300',
        selected ? 'ring-2 ring-indigo-500 ring-offset-1' : 'hover:shadow-md',
      ].join(' ')}
      title={hasErrors ? Object.values(data.errors!).join('\n') : cardTitle(data.key, data.name, data.handler)}
    >
      {/* Big handles: they are the drag targets of drag-to-connect, so make them easy to hit. The ::before ring
          widens the hit area to 32px (React Flow finds the handle under the pointer with elementFromPoint, which
          returns the handle for a hit on its pseudo-element) without a bigger dot covering the card. */}
      <Handle
        type="target"
        position={Position.Left}
        isConnectable={isConnectable}
        data-testid={`dag-handle-target-${data.key}`}
        className={`${HANDLE_CLS} !bg-slate-500`}
        aria-label={`Input of ${data.key}`}
      />
      <div className={`flex items-center gap-1.5 ${detail}`}>
        <span className="truncate font-mono text-[14px] font-semibold text-slate-900">{data.key || '(no key)'}</span>
        {hasErrors ? <CircleAlert className="size-3.5 shrink-0 text-red-600" aria-label="Has errors" /> : null}
      </div>
      {data.name ? <div className={`truncate text-xs text-slate-600 ${detail}`}>{data.name}</div> : null}
      <div className={`mt-1 flex items-center gap-1.5 ${detail}`}>
        <span className="truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[12px] text-slate-700">{data.handler || '—'}</span>
        {data.timeoutText ? (
          <span className="inline-flex items-center gap-0.5 text-[12px] text-slate-500" title={`Timeout ${data.timeoutText}s`}>
            <Timer className="size-3" />
            {data.timeoutText}s
          </span>
        ) : null}
        {data.retriesText ? (
          <span className="inline-flex items-center gap-0.5 text-[12px] text-slate-500" title={`Max retries ${data.retriesText}`}>
            <RotateCcw className="size-3" />
            {data.retriesText}
          </span>
        ) : null}
        {data.resourceKey ? (
          <span className="inline-flex min-w-0 items-center gap-0.5 text-[12px] text-slate-500" title={`Resource ${data.resourceKey}: one running task at a time`}>
            <Lock className="size-3 shrink-0" />
            <span className="truncate">{data.resourceKey}</span>
          </span>
        ) : null}
      </div>
      {compact ? <CompactKey text={data.key || '(no key)'} compact={compact} className={hasErrors ? 'text-red-700' : 'text-slate-900'} /> : null}
      <Handle
        type="source"
        position={Position.Right}
        isConnectable={isConnectable}
        data-testid={`dag-handle-source-${data.key}`}
        className={`${HANDLE_CLS} !bg-indigo-500`}
        aria-label={`Output of ${data.key}`}
      />
    </div>
  );
});
