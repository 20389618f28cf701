import { describe, expect, it } from 'vitest';
import { endpointStatus } from './endpoint-status.js';

describe('endpointStatus', () => {
  it('says in words whether the server disabled an endpoint, why, and since when it fails', () => {
    const failingSince = '2026-03-01T09:00:00.000Z';
    expect(endpointStatus({ state: 'active', disabledReason: null, failingSince: null })).toEqual({
      label: 'Active',
      tone: 'ok',
      summary: '',
      detail: '',
      disabled: false,
    });
    expect(endpointStatus({ state: 'active', disabledReason: null, failingSince })).toMatchObject({
      label: 'Failing',
      summary: 'failing since 2026-03-01 09:00:00 UTC',
      detail: expect.stringContaining('failed since 2026-03-01 09:00:00 UTC'),
      disabled: false,
    });
    expect(
      endpointStatus({ state: 'disabled', disabledReason: 'gone', failingSince }),
    ).toMatchObject({
      label: 'Disabled by the server',
      summary: 'answered 410 Gone',
      detail: expect.stringContaining('410 Gone'),
      disabled: true,
    });
    expect(
      endpointStatus({ state: 'disabled', disabledReason: 'failing', failingSince }),
    ).toMatchObject({
      label: 'Disabled by the server',
      detail: expect.stringContaining('failed since 2026-03-01 09:00:00 UTC'),
      disabled: true,
    });
    expect(
      endpointStatus({ state: 'disabled', disabledReason: null, failingSince: null }),
    ).toMatchObject({ label: 'Disabled', disabled: true });
  });
});
