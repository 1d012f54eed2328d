'use client';

import * as React from 'react';
import { DisabledReason } from './ui/disabled-reason';

export type Role = 'admin' | 'operator' | 'viewer';
const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The signed-in user as the browser sees it (no secrets). */
export type SessionUser = { id: string; name: string; email?: string; role: Role; kind?: string };

const UserContext = React.createContext<SessionUser | null>(null);

/** Makes the signed-in user available to client components (set by the console layout). */
export function UserProvider({ user, children }: { user: SessionUser; children: React.ReactNode }) {
  return <UserContext.Provider value={user}>{children}</UserContext.Provider>;
}

export function useUser(): SessionUser | null {
  return React.useContext(UserContext);
}

/** True when the signed-in user has at least `min` (admin > operator > viewer). */
export function useCan(min: Role): boolean {
  const user = useUser();
  return !!user && RANK[user.role] >= RANK[min];
}

export const VIEWER_TOOLTIP = 'Viewer role: read only';

/**
 * Wraps a mutating control. When the user's role is below `min` the child is cloned
 * with `disabled` and its reason "Viewer role: read only" (or "Admin only") through DisabledReason.
 * The server refuses anyway; this keeps the UI from offering what would fail.
 * Use it inside client components (server-rendered children cannot be inspected; see GatedLinkButton).
 */
export function RoleGate({ min = 'operator', children }: { min?: Role; children: React.ReactElement<{ disabled?: boolean; asChild?: boolean; children?: React.ReactNode }> }) {
  const allowed = useCan(min);
  if (allowed) return children;
  const reason = min === 'admin' ? 'Admin only' : VIEWER_TOOLTIP;
  // A <Button asChild><Link/></Button> cannot be disabled as a link: render a disabled
  // <button> with the link's content instead, so nothing navigates.
  const inner = children.props.asChild && React.isValidElement(children.props.children) ? (children.props.children as React.ReactElement<{ children?: React.ReactNode }>).props.children : undefined;
  const control = inner !== undefined ? React.cloneElement(children, { asChild: false, children: inner }) : children;
  return <DisabledReason reason={reason}>{control}</DisabledReason>;
}
