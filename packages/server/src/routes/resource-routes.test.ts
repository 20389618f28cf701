import {
  campaignListSchema,
  campaignSchema,
  contactListSchema,
  contactSchema,
  createCampaignInputSchema,
  createContactInputSchema,
  createDealInputSchema,
  createSequenceInputSchema,
  createUserInputSchema,
  dealListSchema,
  dealSchema,
  sequenceListSchema,
  sequenceSchema,
  updateCampaignInputSchema,
  updateContactInputSchema,
  updateDealInputSchema,
  updateSequenceInputSchema,
  updateUserInputSchema,
  userListSchema,
  userSchema,
} from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { type ZodType, z } from 'zod';
import { useTestServer } from '../../test/support/server.js';
import { dropSafeIntegerBounds } from '../plugins/openapi-document.js';

const server = useTestServer();

const families: {
  path: string;
  item: ZodType;
  list: ZodType;
  create: ZodType;
  update: ZodType;
}[] = [
  {
    path: '/api/contacts',
    item: contactSchema,
    list: contactListSchema,
    create: createContactInputSchema,
    update: updateContactInputSchema,
  },
  {
    path: '/api/deals',
    item: dealSchema,
    list: dealListSchema,
    create: createDealInputSchema,
    update: updateDealInputSchema,
  },
  {
    path: '/api/sequences',
    item: sequenceSchema,
    list: sequenceListSchema,
    create: createSequenceInputSchema,
    update: updateSequenceInputSchema,
  },
  {
    path: '/api/campaigns',
    item: campaignSchema,
    list: campaignListSchema,
    create: createCampaignInputSchema,
    update: updateCampaignInputSchema,
  },
  {
    path: '/api/users',
    item: userSchema,
    list: userListSchema,
    create: createUserInputSchema,
    update: updateUserInputSchema,
  },
];

// What the SDK's schema says, as JSON Schema, in the form the document publishes (the JSON
// Schema dialect aside, and without the ±2^53−1 bounds zod puts on every integer).
function sdkJsonSchema(schema: ZodType, io: 'input' | 'output') {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io });
  dropSafeIntegerBounds(rest);
  return rest;
}

describe('resource routes in /openapi.json', () => {
  it.each(families)('$path is documented with exactly the SDK schemas', async (family) => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const collection = document.paths[family.path];
    const item = document.paths[`${family.path}/{id}`];
    const json = (operation: { content: Record<string, { schema: Record<string, unknown> }> }) => {
      const { $schema: _dialect, ...rest } = operation.content['application/json']?.schema ?? {};
      return rest;
    };
    expect(json(collection.get.responses['200'])).toEqual(sdkJsonSchema(family.list, 'output'));
    expect(json(collection.post.requestBody)).toEqual(sdkJsonSchema(family.create, 'input'));
    expect(json(collection.post.responses['201'])).toEqual(sdkJsonSchema(family.item, 'output'));
    expect(json(item.get.responses['200'])).toEqual(sdkJsonSchema(family.item, 'output'));
    expect(json(item.patch.requestBody)).toEqual(sdkJsonSchema(family.update, 'input'));
    expect(json(item.patch.responses['200'])).toEqual(sdkJsonSchema(family.item, 'output'));
    // 400 is bad_request: any request can be malformed (a bad %-escape, an oversized header);
    // a DELETE may carry a body, which is read (413, 415) before the handler runs.
    expect(Object.keys(item.delete.responses).sort()).toEqual([
      '204',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '429',
    ]);
    // A bearer token, or the web application's session cookie (with its CSRF token when the
    // method changes something).
    for (const operation of [collection.get, item.get]) {
      expect(operation.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    }
    for (const operation of [collection.post, item.patch, item.delete]) {
      expect(operation.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [], csrfToken: [] }]);
    }
  });
});
