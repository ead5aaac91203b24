import { callHeaders, DEFAULT_TIMEOUT_MS, type UserCallOptions, type UserMe } from '@svc/sdk';
import type { Dispatcher } from 'undici';

/** The contract's /me, under the API's base URL. */
const ME_PATH = '/api/auth/me';

/**
 * /me asked straight through undici's dispatcher, for the standalone server's `GET session`
 * shortcut: the headers the SDK sends, and the answer read by a handler of its own, with no
 * promise, retry or answer object on the way (bench/README.md, round 42). It reports the user
 * when /me answers 200 with one, and anything else (another status, an answer that is not the
 * envelope, a network error, the SDK's per-attempt time running out) as `other`: the caller
 * hands those to the route, which asks again through the SDK and applies its rules.
 */
export class MeAsker {
  private readonly origin: string;
  private readonly path: string;

  constructor(
    private readonly dispatcher: Dispatcher,
    baseUrl: string,
    private readonly apiKey: string,
  ) {
    const url = new URL(`${baseUrl}${ME_PATH}`);
    this.origin = url.origin;
    this.path = `${url.pathname}${url.search}`;
  }

  ask(call: UserCallOptions, onUser: (user: UserMe) => void, other: () => void): void {
    const options: Dispatcher.DispatchOptions = {
      origin: this.origin,
      path: this.path,
      method: 'GET',
      headers: callHeaders(this.apiKey, call),
      headersTimeout: DEFAULT_TIMEOUT_MS,
      bodyTimeout: DEFAULT_TIMEOUT_MS,
    };
    this.dispatcher.dispatch(options, new MeAnswer(onUser, other));
  }
}

/** One /me answer as undici's dispatcher drives it (onConnect, onHeaders, onData, onComplete, onError). */
class MeAnswer implements Dispatcher.DispatchHandler {
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private done = false;

  constructor(
    private readonly onUser: (user: UserMe) => void,
    private readonly other: () => void,
  ) {}

  onConnect(): void {}

  onHeaders(status: number): boolean {
    // 1xx interim answers are not the answer.
    if (status >= 200) this.status = status;
    return true;
  }

  onData(chunk: Buffer): boolean {
    // Only a 200's body is read.
    if (this.status === 200) this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const user = this.status === 200 ? userOf(Buffer.concat(this.chunks).toString('utf8')) : undefined;
    this.finish(user);
  }

  onError(): void {
    this.finish(undefined);
  }

  private finish(user: UserMe | undefined): void {
    if (this.done) return;
    this.done = true;
    if (user) this.onUser(user);
    else this.other();
  }
}

/** `data.user` of a /me envelope, when the text is one and the user an object. */
function userOf(text: string): UserMe | undefined {
  try {
    const user = (JSON.parse(text) as { data?: { user?: unknown } } | null)?.data?.user;
    return typeof user === 'object' && user !== null && !Array.isArray(user) ? (user as UserMe) : undefined;
  } catch {
    return undefined;
  }
}
