import { jsonGuard } from '@followup/sdk';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';

type ZodSerializerCompiler = typeof zodSerializerCompiler;

/**
 * @internal The serializer of every response schema: the answer is still checked against the
 * route's zod schema (the SDK's, in most routes), but by a guard compiled once from the schema
 * (the SDK's `jsonGuard`, the one its client uses); a valid answer is written with
 * `JSON.stringify` as it is, without zod building a copy of it first. Anything the guard does not
 * vouch for, and any schema it cannot compile, goes through fastify-type-provider-zod's
 * serializer as before, which writes the same bytes or raises the same
 * `ResponseSerializationError`. The route's answers must put their keys in the schema's order
 * (zod's copy does): the contract tests hold every route family to byte equality.
 */
export const responseSerializerCompiler: ZodSerializerCompiler = (routeSchema) => {
  const viaZod = zodSerializerCompiler(routeSchema);
  const schema = resolve(routeSchema.schema);
  const guard = schema ? jsonGuard(schema) : undefined;
  if (!guard) return viaZod;
  return (data: unknown) => (guard(data) ? JSON.stringify(data) : viaZod(data));
};

function resolve(schema: unknown): z.ZodType | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  if ('_zod' in schema) return schema as z.ZodType;
  // fastify-type-provider-zod also accepts `{ properties: schema }`.
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null && '_zod' in properties
    ? (properties as z.ZodType)
    : undefined;
}
