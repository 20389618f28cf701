import { meSchema } from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { capabilities, hasCapability } from '../capabilities.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import type { AccountStore } from '../tokens/account-store.js';

/**
 * @internal `GET /api/me` (any authenticated caller): who the caller is, its role, the
 * capabilities the role gives, and the token of the call (id, label, expiry; never its secret).
 */
export function meRoutes(options: {
  accounts: AccountStore;
  requireCapability: RequireCapability;
}): FastifyPluginAsync {
  return async (app) => {
    app.withTypeProvider<ZodTypeProvider>().get(
      '/api/me',
      {
        onRequest: options.requireCapability(),
        schema: {
          summary: 'Who the caller is: account or user, role, capabilities, token',
          security: [{ bearerAuth: [] }],
          response: { 200: meSchema, ...problemResponses(401, 429) },
        },
      },
      async (request) => {
        const { account, tokenId } = request.principal ?? (undefined as never);
        const token = await options.accounts.getToken(tokenId);
        return {
          type: 'service_account' as const,
          id: account.id,
          name: account.name,
          role: account.role,
          capabilities: capabilities.filter((capability) =>
            hasCapability(account.role, capability),
          ),
          token: { id: tokenId, label: token?.label ?? null, expiresAt: token?.expiresAt ?? null },
        };
      },
    );
  };
}
