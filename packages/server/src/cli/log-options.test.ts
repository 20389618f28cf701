import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LOG_FORMATS, LOG_LEVELS } from '../plugins/logging.js';
import { logOptions, parseChoice } from './log-options.js';
import { UsageError } from './usage.js';

const stderr = { write: () => true };
const terminal = { isTTY: true, write: () => true };

describe('logOptions', () => {
  it('logs at info, as JSON, unless standard error is a terminal: there pretty', () => {
    expect(logOptions({}, {}, stderr)).toEqual({ level: 'info', format: 'json', stream: stderr });
    expect(logOptions({}, {}, terminal)).toMatchObject({ level: 'info', format: 'pretty' });
  });

  it('takes --log-level and --log-format, or LOG_LEVEL and LOG_FORMAT; the flag wins', () => {
    expect(logOptions({ 'log-level': 'warn', 'log-format': 'json' }, {}, terminal)).toMatchObject({
      level: 'warn',
      format: 'json',
    });
    expect(logOptions({}, { LOG_LEVEL: 'DEBUG', LOG_FORMAT: ' pretty ' }, stderr)).toMatchObject({
      level: 'debug',
      format: 'pretty',
    });
    expect(logOptions({ 'log-level': 'error' }, { LOG_LEVEL: 'trace' }, stderr)).toMatchObject({
      level: 'error',
    });
    // An empty variable is unset, as a compose file writes it.
    expect(logOptions({}, { LOG_LEVEL: '', LOG_FORMAT: '' }, terminal)).toMatchObject({
      level: 'info',
      format: 'pretty',
    });
  });

  it('refuses any other value with a usage error naming the flag and its variable', () => {
    expect(() => logOptions({ 'log-level': 'loud' }, {}, stderr)).toThrow(
      new UsageError(
        '--log-level (LOG_LEVEL) is one of fatal, error, warn, info, debug, trace, silent.',
      ),
    );
    expect(() => logOptions({}, { LOG_FORMAT: 'xml' }, stderr)).toThrow(
      new UsageError('--log-format (LOG_FORMAT) is one of json, pretty.'),
    );
    expect(() => logOptions({ 'log-format': '' }, {}, stderr)).toThrow(UsageError);
  });
});

describe('parseChoice', () => {
  const names = { flag: 'log-level', variable: 'LOG_LEVEL' };

  it('takes a choice whatever its case and surrounding spaces', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LOG_LEVELS),
        fc.array(fc.boolean(), { maxLength: 8 }),
        fc.constantFrom('', ' ', '\t', '  '),
        fc.constantFrom('', ' ', '\n'),
        (level, upper, before, after) => {
          const typed = [...level]
            .map((letter, index) => (upper[index] ? letter.toUpperCase() : letter))
            .join('');
          expect(parseChoice(`${before}${typed}${after}`, LOG_LEVELS, names)).toBe(level);
        },
      ),
    );
  });

  it('refuses every other text with a usage error naming the flag', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const wanted = text.trim().toLowerCase();
        fc.pre(!(LOG_FORMATS as readonly string[]).includes(wanted));
        expect(() => parseChoice(text, LOG_FORMATS, names)).toThrow(
          /^--log-level \(LOG_LEVEL\) is one of json, pretty\.$/,
        );
      }),
    );
  });
});
