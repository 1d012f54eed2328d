/** Accounts and the API token that e2e/global-setup.ts creates for every e2e run. */
export const E2E_ADMIN = { email: 'e2e-admin@tickflow.test', password: 'e2e-password-123' };
export const E2E_OPERATOR = { email: 'e2e-operator@tickflow.test', password: 'e2e-operator-123' };
export const E2E_VIEWER = { email: 'e2e-viewer@tickflow.test', password: 'e2e-viewer-1234' };
/** A viewer whose display zone e2e/time-zone.spec.ts changes: no other spec signs in as it, so specs may run side by side. */
export const E2E_ZONE_VIEWER = { email: 'e2e-zone-viewer@tickflow.test', password: 'e2e-zone-viewer-1234' };
export const E2E_API_TOKEN = 'tf_e2e_admin_token_0123456789abcdef';
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3210);
export const E2E_BASE_URL = process.env.E2E_BASE_URL ?? `http://127.0.0.1:${E2E_PORT}`;
