declare module 'pg/lib/utils.js' {
  const utils: {
    /**
     * `pg`'s own conversion of a query parameter: `Date` to a timestamp string, arrays to array
     * literals, objects to JSON, `Buffer` and typed arrays to a `Buffer` (sent in binary).
     */
    prepareValue(value: unknown): unknown;
  };
  export default utils;
}
