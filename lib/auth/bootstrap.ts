import type { Db } from '../db.ts';
import { randomToken } from './crypto.ts';
import { hashPassword } from './password.ts';
import { normalizeEmail } from './users.ts';
import { CreateUserInput } from '../api/schemas.ts';

export const DEFAULT_ADMIN_EMAIL = 'admin@tickflow.local';

/** The file the first start writes a generated admin login to, in the data directory (TICKFLOW_DATA_DIR, default `.tickflow`). */
export const INITIAL_ADMIN_FILE = 'initial-admin-password.txt';

/**
 * Text of INITIAL_ADMIN_FILE: the login on labelled `email:` / `password:` lines, and what to do
 * with it, so that someone who finds the file needs no docs to read it.
 */
export function initialAdminFileText(login: { email: string; password: string }): string {
  return [
    '# Tickflow: the admin account created on the first start.',
    `email: ${login.email}`,
    `password: ${login.password}`,
    '',
    '# Sign in to the console with these, change the password under Settings → Users,',
    '# then delete this file: until then whoever reads it can sign in as admin.',
    '',
  ].join('\n');
}

/**
 * The first admin's login from TICKFLOW_ADMIN_EMAIL (default admin@tickflow.local) and
 * TICKFLOW_ADMIN_PASSWORD (none: ensureAdminUser generates one), checked by the rules of a user
 * created in the console. Touches nothing: scripts/start.ts calls it before it starts or migrates
 * a database, so that a bad value stops the start before any side effect.
 * @throws Error naming TICKFLOW_ADMIN_EMAIL or TICKFLOW_ADMIN_PASSWORD when the email is not an
 *   email address or the password breaks the console's password rule (8 characters to 72 bytes)
 */
export function adminSettings(env: Record<string, string | undefined>): { email: string; password?: string } {
  const email = normalizeEmail(env.TICKFLOW_ADMIN_EMAIL ?? DEFAULT_ADMIN_EMAIL);
  const password = env.TICKFLOW_ADMIN_PASSWORD;
  // the rules of a user created in the console (lib/api/schemas.ts CreateUserInput): an admin
  // nobody can sign in as, or with a one-letter password, is worse than a start that stops
  const emailCheck = CreateUserInput.shape.email.safeParse(email);
  if (!emailCheck.success) throw new Error(`TICKFLOW_ADMIN_EMAIL: ${emailCheck.error.issues[0]!.message} ("${email}")`);
  if (password) {
    const passwordCheck = CreateUserInput.shape.password.safeParse(password);
    if (!passwordCheck.success) throw new Error(`TICKFLOW_ADMIN_PASSWORD: ${passwordCheck.error.issues[0]!.message}`);
  }
  return password ? { email, password } : { email };
}

/**
 * Makes sure an admin exists (called by scripts/start.ts at start).
 * - An enabled admin exists: returns null, changes nothing.
 * - Else creates one: email = opts.email ?? TICKFLOW_ADMIN_EMAIL ?? admin@tickflow.local,
 *   password = opts.password ?? TICKFLOW_ADMIN_PASSWORD ?? random (returned once as
 *   `password` so the start script can print it; omitted when it came from env/opts).
 *   If a (non-admin or disabled) user with that email exists it is promoted/enabled
 *   and its password reset.
 * @throws Error naming TICKFLOW_ADMIN_EMAIL or TICKFLOW_ADMIN_PASSWORD when the email is not an
 *   email address or the password breaks the console's password rule (8 characters to 72 bytes)
 */
export async function ensureAdminUser(
  db: Db,
  opts: { email?: string; password?: string } = {},
): Promise<{ email: string; password?: string } | null> {
  const admin = await db.user.findFirst({ where: { role: 'admin', disabled: false } });
  if (admin) return null;
  const { email, password: given } = adminSettings({
    TICKFLOW_ADMIN_EMAIL: opts.email ?? process.env.TICKFLOW_ADMIN_EMAIL,
    TICKFLOW_ADMIN_PASSWORD: opts.password ?? process.env.TICKFLOW_ADMIN_PASSWORD,
  });
  const password = given || randomToken(12);
  const passwordHash = await hashPassword(password);
  await db.user.upsert({
    where: { email },
    create: { email, name: 'Administrator', passwordHash, role: 'admin' },
    update: { passwordHash, role: 'admin', disabled: false },
  });
  return given ? { email } : { email, password };
}
