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
          tags: ['Me'],
          summary: 'Who the caller is: account or user, role, capabilities, token',
          security: [{ bearerAuth: [] }, { cookieAuth: [] }],
          response: { 200: meSchema, ...problemResponses() },
        },
      },
      async (request) => {
        const principal = request.principal ?? (undefined as never);
        const role = principal.role;
        const granted = capabilities.filter((capability) => hasCapability(role, capability));
        if (principal.user) {
          // A browser session: the signed-in person, no token.
          const { user } = principal;
          return {
            type: 'user' as const,
            id: user.id,
            name: user.name,
            email: user.email,
            role,
            capabilities: granted,
            token: null,
          };
        }
        const { account, tokenId } = principal;
        if (!account || !tokenId) throw new Error('A token principal without its account.');
        const token = await options.accounts.getToken(tokenId);
        return {
          type: 'service_account' as const,
          id: account.id,
          name: account.name,
          role,
          capabilities: granted,
          token: { id: tokenId, label: token?.label ?? null, expiresAt: token?.expiresAt ?? null },
        };
      },
    );
  };
}
