import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import {
  boundedJson,
  boundedText,
  isStorableFieldName,
  unstorableFieldName,
} from './input-limits.js';
import { boundedOpenEnum, openEnum } from './open-enum.js';

/**
 * The sequence and campaign statuses FollowUp documents today; the schemas also accept any
 * other string.
 *
 * @example
 * ```ts
 * const editable = sequence.status === SEQUENCE_STATUS_VALUES[0]; // 'DRAFT'
 * ```
 */
export const SEQUENCE_STATUS_VALUES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;

/**
 * Schema of one step of a sequence: what to do, and how long after the previous step.
 *
 * @example
 * ```ts
 * sequenceStepSchema.parse({ action: 'EMAIL', delayHours: 24 });
 * ```
 */
export const sequenceStepSchema = z.looseObject({
  /** What the step does: `EMAIL`, `SMS`, `CALL` or `TASK` (an open enumeration). */
  action: openEnum(['EMAIL', 'SMS', 'CALL', 'TASK']),
  /** Hours to wait after the previous step (or the enrolment), a non-negative integer. */
  delayHours: z.number().int().nonnegative(),
  /** The template or instructions of the step, when it has one. */
  template: z.string().optional(),
});

/**
 * One step of a sequence.
 *
 * @example
 * ```ts
 * const step: SequenceStep = { action: 'EMAIL', delayHours: 0, template: 'welcome' };
 * ```
 */
export type SequenceStep = z.infer<typeof sequenceStepSchema>;

/**
 * Schema of one step in a request body: the fields of {@link sequenceStepSchema}, bounded
 * (`action` 1 to 64 characters, `delayHours` at most ten years, `template` at most 10,000
 * characters), and at most {@link INPUT_LIMITS.stepFields} fields in all. Extra fields are kept
 * as they are, each any JSON value within the bounds of {@link boundedJson} (nested at most
 * {@link INPUT_LIMITS.jsonDepth} deep).
 *
 * @example
 * ```ts
 * sequenceStepInputSchema.parse({ action: 'EMAIL', delayHours: 24, channel: { tag: 'welcome' } });
 * ```
 */
export const sequenceStepInputSchema = z
  .object({
    /** What the step does: `EMAIL`, `SMS`, `CALL` or `TASK` (an open enumeration). */
    action: boundedOpenEnum(['EMAIL', 'SMS', 'CALL', 'TASK']),
    /** Hours to wait after the previous step (or the enrolment), 0 to 87,600. */
    delayHours: z.number().int().nonnegative().max(INPUT_LIMITS.stepDelayHours),
    /** The template or instructions of the step, at most 10,000 characters. */
    template: boundedText({ max: INPUT_LIMITS.stepTemplate }).optional(),
  })
  .catchall(boundedJson())
  .superRefine((step, context) => {
    const keys = Object.keys(step);
    if (keys.length > INPUT_LIMITS.stepFields) {
      context.addIssue({
        code: 'custom',
        message: `must have at most ${INPUT_LIMITS.stepFields} fields`,
      });
    }
    for (const key of keys) {
      if (!isStorableFieldName(key)) {
        context.addIssue({ code: 'custom', path: [key], message: unstorableFieldName });
      }
    }
  });

/**
 * One step as a create or update takes it.
 *
 * @example
 * ```ts
 * const step: SequenceStepInput = { action: 'SMS', delayHours: 48 };
 * ```
 */
export type SequenceStepInput = z.input<typeof sequenceStepInputSchema>;

const stepsInputSchema = z.array(sequenceStepInputSchema).max(INPUT_LIMITS.sequenceSteps);

/**
 * Schema of a sequence (unknown fields are kept).
 *
 * @example
 * ```ts
 * const sequence = sequenceSchema.parse(json);
 * ```
 */
export const sequenceSchema = z.looseObject({
  /** The sequence's id. */
  id: z.string().min(1),
  /** Its name. */
  name: z.string(),
  /** `DRAFT`, `ACTIVE`, `PAUSED`, `ARCHIVED` (an open enumeration). */
  status: openEnum(SEQUENCE_STATUS_VALUES),
  /** The steps, in order. */
  steps: z.array(sequenceStepSchema),
  /** When it was created (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** When it last changed (ISO 8601 UTC). */
  updatedAt: timestampSchema,
});

/**
 * A sequence: `id, name, status, steps, createdAt, updatedAt`.
 *
 * @example
 * ```ts
 * const sequence: Sequence = await client.sequences.get('seq_01J…');
 * ```
 */
export type Sequence = z.infer<typeof sequenceSchema>;

/**
 * Schema of the body of `POST /api/sequences`.
 *
 * @example
 * ```ts
 * createSequenceInputSchema.parse({ name: 'Onboarding', steps: [{ action: 'EMAIL', delayHours: 0 }] });
 * ```
 */
export const createSequenceInputSchema = z.strictObject({
  /** Its name, 1 to 200 characters. */
  name: boundedText({ min: 1, max: INPUT_LIMITS.name }),
  /** Defaults to `DRAFT` on the server. */
  status: boundedOpenEnum(SEQUENCE_STATUS_VALUES).optional(),
  /** The steps, in order, at most 100; defaults to none. */
  steps: stepsInputSchema.optional(),
});

/**
 * What `client.sequences.create()` takes.
 *
 * @example
 * ```ts
 * const input: CreateSequenceInput = { name: 'Onboarding' };
 * ```
 */
export type CreateSequenceInput = z.input<typeof createSequenceInputSchema>;

/**
 * Schema of the body of `PATCH /api/sequences/:id`.
 *
 * @example
 * ```ts
 * updateSequenceInputSchema.parse({ status: 'ACTIVE' });
 * ```
 */
export const updateSequenceInputSchema = z.strictObject({
  /** New name. */
  name: boundedText({ min: 1, max: INPUT_LIMITS.name }).optional(),
  /** New status. */
  status: boundedOpenEnum(SEQUENCE_STATUS_VALUES).optional(),
  /** New steps, replacing the old ones. */
  steps: stepsInputSchema.optional(),
});

/**
 * What `client.sequences.update()` takes.
 *
 * @example
 * ```ts
 * const patch: UpdateSequenceInput = { status: 'PAUSED' };
 * ```
 */
export type UpdateSequenceInput = z.input<typeof updateSequenceInputSchema>;

/**
 * Schema of a page of `GET /api/sequences`: `{ "sequences": [...] }`.
 *
 * @example
 * ```ts
 * const { sequences } = sequenceListSchema.parse(json);
 * ```
 */
export const sequenceListSchema = z.looseObject({
  /** The sequences of the page. */
  sequences: z.array(sequenceSchema),
});

/**
 * A page of sequences as the service sends it.
 *
 * @example
 * ```ts
 * const body: SequenceList = { sequences: [] };
 * ```
 */
export type SequenceList = z.infer<typeof sequenceListSchema>;
