import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** from writing the request to the last byte of the response */
  ms: number;
}

export interface HttpRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** default 120 s */
  timeoutMs?: number;
}

/**
 * One keep-alive connection per client: after the first request the connection is open,
 * so a timed request measures the server, not a TCP handshake.
 */
export class HttpClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(readonly baseUrl: string) {}

  request(path: string, init: HttpRequest = {}): Promise<HttpResponse> {
    const url = new URL(path, this.baseUrl);
    const body = init.body;
    const headers: Record<string, string> = { ...init.headers };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = http.request(
        url,
        { method: init.method ?? 'GET', headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
              ms: performance.now() - started,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.setTimeout(init.timeoutMs ?? 120_000, () =>
        req.destroy(new Error(`timeout: ${url.href}`)),
      );
      req.end(body);
    });
  }

  /** Like request, but a non-2xx status is an error naming the body. */
  async ok(path: string, init: HttpRequest = {}): Promise<HttpResponse> {
    const res = await this.request(path, init);
    if (res.status < 200 || res.status > 299)
      throw new Error(
        `${init.method ?? 'GET'} ${path}: HTTP ${res.status}: ${res.body.slice(0, 300)}`,
      );
    return res;
  }

  close(): void {
    this.agent.destroy();
  }
}
