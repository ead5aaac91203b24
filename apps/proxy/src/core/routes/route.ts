import type { Exchange } from '../exchange';
import type { ProxyContext } from '../session';

/** One route of the proxy: a method and a path under the base path (`:name` is a parameter). */
export interface ProxyRoute {
  method: 'GET' | 'POST';
  path: string;
  handle(ctx: ProxyContext, ex: Exchange): Promise<void>;
}
