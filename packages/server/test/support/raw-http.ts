import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response read off a raw socket. */
export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/**
 * A raw TCP connection to a server, for what `inject()` and `fetch` cannot show: pipelined
 * requests, several requests on one keep-alive connection, and when the server closes it.
 */
export interface RawConnection {
  socket: Socket;
  /** Writes bytes as they are. */
  write(text: string): void;
  /** Waits for the next complete response (with a `Content-Length` body). */
  next(): Promise<RawResponse>;
  /** Resolves once the server closed the connection. */
  closed: Promise<void>;
}

export async function openRawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  let buffered = Buffer.alloc(0);
  let wake: () => void = () => {};
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake();
  });
  socket.on('close', () => wake());
  const take = (): RawResponse | undefined => {
    const end = buffered.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (buffered.length < end + 4 + length) return undefined;
    const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    buffered = buffered.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  };
  return {
    socket,
    closed,
    write: (text) => socket.write(text),
    async next() {
      for (;;) {
        const response = take();
        if (response) return response;
        if (socket.destroyed) throw new Error('The connection closed before a response.');
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
