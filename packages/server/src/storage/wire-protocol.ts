/**
 * @internal The few messages of the PostgreSQL frontend/backend protocol (version 3) that the
 * embedded driver speaks to PGlite directly: the extended query protocol with named statements,
 * and the simple query protocol for SQL without parameters (several statements in one string).
 * Everything is text format but `bytea` parameters, which go in binary, as `pg` sends them.
 */

/** A parameter as it goes on the wire: text, raw bytes (binary format) or SQL NULL. */
export type WireParameter = string | Uint8Array | null;

/** @internal Builds one batch of frontend messages into a growing buffer. */
export class MessageWriter {
  #buffer = Buffer.allocUnsafe(4096);
  #length = 0;

  #ensure(extra: number): void {
    if (this.#length + extra <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#length + extra));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }

  #byte(value: number): void {
    this.#ensure(1);
    this.#buffer[this.#length++] = value;
  }

  #int16(value: number): void {
    this.#ensure(2);
    this.#buffer.writeInt16BE(value, this.#length);
    this.#length += 2;
  }

  #int32(value: number): void {
    this.#ensure(4);
    this.#buffer.writeInt32BE(value, this.#length);
    this.#length += 4;
  }

  #cstring(value: string): void {
    const bytes = Buffer.byteLength(value);
    this.#ensure(bytes + 1);
    this.#buffer.write(value, this.#length, bytes, 'utf8');
    this.#length += bytes;
    this.#buffer[this.#length++] = 0;
  }

  #bytes(value: Uint8Array): void {
    this.#ensure(value.length);
    this.#buffer.set(value, this.#length);
    this.#length += value.length;
  }

  /** Starts a message of `type`; {@link MessageWriter.#end} writes its length. */
  #start(type: string): number {
    this.#byte(type.charCodeAt(0));
    const at = this.#length;
    this.#int32(0);
    return at;
  }

  #end(at: number): void {
    this.#buffer.writeInt32BE(this.#length - at, at);
  }

  /** `Parse`: prepares `sql` as the statement `name` (`''`: the unnamed one). */
  parse(name: string, sql: string): this {
    const at = this.#start('P');
    this.#cstring(name);
    this.#cstring(sql);
    this.#int16(0);
    this.#end(at);
    return this;
  }

  /** `Describe` of a statement: its parameters and the columns of its rows. */
  describeStatement(name: string): this {
    const at = this.#start('D');
    this.#byte(0x53);
    this.#cstring(name);
    this.#end(at);
    return this;
  }

  /** `Bind` of the unnamed portal to statement `name`, results in text format. */
  bind(name: string, parameters: readonly WireParameter[]): this {
    const at = this.#start('B');
    this.#cstring('');
    this.#cstring(name);
    const binary = parameters.some((parameter) => parameter instanceof Uint8Array);
    if (binary) {
      this.#int16(parameters.length);
      for (const parameter of parameters) this.#int16(parameter instanceof Uint8Array ? 1 : 0);
    } else {
      this.#int16(0);
    }
    this.#int16(parameters.length);
    for (const parameter of parameters) {
      if (parameter === null) {
        this.#int32(-1);
      } else if (typeof parameter === 'string') {
        const bytes = Buffer.byteLength(parameter);
        this.#int32(bytes);
        this.#ensure(bytes);
        this.#buffer.write(parameter, this.#length, bytes, 'utf8');
        this.#length += bytes;
      } else {
        this.#int32(parameter.length);
        this.#bytes(parameter);
      }
    }
    this.#int16(0);
    this.#end(at);
    return this;
  }

  /** `Execute` of the unnamed portal, every row. */
  execute(): this {
    const at = this.#start('E');
    this.#cstring('');
    this.#int32(0);
    this.#end(at);
    return this;
  }

  /** `Close` of the statement `name`. */
  closeStatement(name: string): this {
    const at = this.#start('C');
    this.#byte(0x53);
    this.#cstring(name);
    this.#end(at);
    return this;
  }

  /** `Sync`: ends the batch; the backend answers `ReadyForQuery`. */
  sync(): this {
    const at = this.#start('S');
    this.#end(at);
    return this;
  }

  /** `Query`: the simple protocol, one or several statements, no parameters. */
  query(sql: string): this {
    const at = this.#start('Q');
    this.#cstring(sql);
    this.#end(at);
    return this;
  }

  /** The batch written so far, as a copy; the writer starts over. */
  take(): Uint8Array {
    const message = new Uint8Array(this.#length);
    message.set(this.#buffer.subarray(0, this.#length));
    this.#length = 0;
    return message;
  }
}

/** @internal A column of a `RowDescription`. */
export interface ColumnDescription {
  /** The column's name as the statement labels it. */
  name: string;
  /** The PostgreSQL type oid of its values. */
  typeOid: number;
}

/**
 * @internal The fields of an `ErrorResponse`, by their one-letter codes
 * (https://www.postgresql.org/docs/current/protocol-error-fields.html).
 */
export type ErrorFields = Record<string, string>;

/** @internal What a visitor of the backend's messages is told. */
export interface BackendVisitor {
  /** `ParseComplete`. */
  parseComplete?(): void;
  /** `RowDescription`. */
  rowDescription(columns: ColumnDescription[]): void;
  /** `NoData`: the statement returns no rows. */
  noData?(): void;
  /**
   * `DataRow`: `offsets[2i]`/`offsets[2i+1]` are the start and end of field `i` in `data`, or
   * `-1` for NULL.
   */
  dataRow(data: Buffer, offsets: Int32Array, count: number): void;
  /** `CommandComplete` with its tag (`SELECT 50`, `INSERT 0 1`). */
  commandComplete(tag: string): void;
  /** `ErrorResponse`. */
  error(fields: ErrorFields): void;
}

function cstringEnd(data: Buffer, start: number): number {
  const end = data.indexOf(0, start);
  return end === -1 ? data.length : end;
}

/**
 * @internal Walks the backend messages of one batch's answer, calling the visitor; messages it
 * does not need (`BindComplete`, notices, parameter status, `ReadyForQuery`) are skipped.
 */
export function readBackendMessages(raw: Uint8Array, visitor: BackendVisitor): void {
  const data = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  let offsets = new Int32Array(32);
  let at = 0;
  while (at + 5 <= data.length) {
    const type = data[at] as number;
    const length = data.readInt32BE(at + 1);
    const start = at + 5;
    const end = at + 1 + length;
    switch (type) {
      case 0x44: {
        // 'D' DataRow
        const count = data.readInt16BE(start);
        if (offsets.length < count * 2) offsets = new Int32Array(count * 2);
        let field = start + 2;
        for (let index = 0; index < count; index++) {
          const size = data.readInt32BE(field);
          field += 4;
          if (size < 0) {
            offsets[2 * index] = -1;
            offsets[2 * index + 1] = -1;
          } else {
            offsets[2 * index] = field;
            offsets[2 * index + 1] = field + size;
            field += size;
          }
        }
        visitor.dataRow(data, offsets, count);
        break;
      }
      case 0x54: {
        // 'T' RowDescription
        const count = data.readInt16BE(start);
        const columns: ColumnDescription[] = [];
        let field = start + 2;
        for (let index = 0; index < count; index++) {
          const nameEnd = cstringEnd(data, field);
          const name = data.toString('utf8', field, nameEnd);
          field = nameEnd + 1;
          const typeOid = data.readUInt32BE(field + 6);
          field += 18;
          columns.push({ name, typeOid });
        }
        visitor.rowDescription(columns);
        break;
      }
      case 0x43: // 'C' CommandComplete
        visitor.commandComplete(data.toString('utf8', start, cstringEnd(data, start)));
        break;
      case 0x31: // '1' ParseComplete
        visitor.parseComplete?.();
        break;
      case 0x6e: // 'n' NoData
        visitor.noData?.();
        break;
      case 0x45: {
        // 'E' ErrorResponse
        const fields: ErrorFields = {};
        let field = start;
        while (field < end && data[field] !== 0) {
          const code = String.fromCharCode(data[field] as number);
          const valueEnd = cstringEnd(data, field + 1);
          fields[code] = data.toString('utf8', field + 1, valueEnd);
          field = valueEnd + 1;
        }
        visitor.error(fields);
        break;
      }
      default:
        break;
    }
    at = end;
  }
}
