// Tests of an integrator's code against the real FollowUp server (real routes, validation,
// capabilities and errors), started in this process on an in-memory database: no mock to keep
// in step with the service, and each test file gets a fresh, empty server.
import { FollowUp, PermissionDeniedError } from '@followup/sdk';
import { startTestServer } from '@followup/server/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { promoteLeads } from './promote-leads.js';

let server;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

it('promotes the leads that have an e-mail address, and only those', async () => {
  const ada = await server.client.contacts.create({
    firstName: 'Ada',
    lastName: 'Lovelace',
    lifecycle: 'LEAD',
    email: 'ada@example.org',
  });
  const grace = await server.client.contacts.create({
    firstName: 'Grace',
    lastName: 'Hopper',
    lifecycle: 'LEAD',
  });
  const alan = await server.client.contacts.create({
    firstName: 'Alan',
    lastName: 'Turing',
    lifecycle: 'PATIENT',
    email: 'alan@example.org',
  });

  expect(await promoteLeads(server.client)).toEqual([ada.id]);
  expect((await server.client.contacts.get(ada.id)).lifecycle).toBe('PROSPECT');
  expect((await server.client.contacts.get(grace.id)).lifecycle).toBe('LEAD');
  expect((await server.client.contacts.get(alan.id)).lifecycle).toBe('PATIENT');
});

it('sends subscribers a contact.updated webhook with the lifecycle it had before', async () => {
  const endpoint = await server.addEndpoint({ events: ['contact.updated'] });
  const barbara = await server.client.contacts.create({
    firstName: 'Barbara',
    lastName: 'Liskov',
    lifecycle: 'LEAD',
    email: 'barbara@example.org',
  });

  await promoteLeads(server.client);

  const { event } = await endpoint.nextDelivery();
  expect(event.event).toBe('contact.updated');
  expect(event.data).toMatchObject({ id: barbara.id, lifecycle: 'PROSPECT' });
  expect(event.previousAttributes).toEqual({ lifecycle: 'LEAD' });
});

it('fails the way production would with a READONLY token', async () => {
  await server.client.contacts.create({
    firstName: 'Edsger',
    lastName: 'Dijkstra',
    lifecycle: 'LEAD',
    email: 'ewd@example.org',
  });
  const readonly = new FollowUp({
    token: await server.issueToken('READONLY'),
    baseUrl: server.baseUrl,
    maxRetries: 0,
  });
  await expect(promoteLeads(readonly)).rejects.toSatisfy((error) =>
    PermissionDeniedError.isInstance(error),
  );
});
