/**
 * API token scopes (docs/security.md "Tokens"): a token acts with the role its
 * scope names, and only while its owner still holds at least that role.
 */
import type { Role } from './actor.ts';

export type TokenScope = 'read' | 'operate' | 'admin';
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'operate', 'admin'];

/** The role a scope acts with. */
export const ROLE_OF_SCOPE: Record<TokenScope, Role> = { read: 'viewer', operate: 'operator', admin: 'admin' };
/** The scope matching a role (for documentation and defaults). */
export const SCOPE_OF_ROLE: Record<Role, TokenScope> = { viewer: 'read', operator: 'operate', admin: 'admin' };

export function isTokenScope(v: unknown): v is TokenScope {
  return v === 'read' || v === 'operate' || v === 'admin';
}
