import type { MethodName } from '../../shared/ipc/contract';
import type { Handlers } from './dispatcher';

/**
 * One folder's share of the dispatcher's handlers: every contract method under `Prefix` and nothing
 * else (`HandlerTable<'talkie'>` is each `talkie.*` method; a union such as `'nfc' | 'hardware'`
 * takes several prefixes). Each protocol or service folder exports a function that returns its table.
 */
export type HandlerTable<Prefix extends string> = Pick<Handlers, Extract<MethodName, `${Prefix}.${string}`>>;

/** The methods two or more of `Tables` answer. */
type ClaimedTwice<Tables extends readonly object[], Seen extends PropertyKey = never> = Tables extends readonly [
  infer First extends object,
  ...infer Rest extends readonly object[],
]
  ? (keyof First & Seen) | ClaimedTwice<Rest, Seen | keyof First>
  : never;

/** Every handler of `Tables` in one object type. */
type Joined<Tables extends readonly object[]> = Tables extends readonly [infer First, ...infer Rest extends readonly object[]] ? First & Joined<Rest> : unknown;

/**
 * The dispatcher's one table from the folders' tables. The types prove each contract method has
 * exactly one handler: a method two tables claim does not compile here (the argument asks for
 * `claimedTwice: <method>`), and the result is assignable to `Handlers` only when none is missing.
 */
export function joinHandlerTables<const Tables extends readonly Partial<Handlers>[]>(
  ...tables: Tables & ([ClaimedTwice<Tables>] extends [never] ? unknown : { claimedTwice: ClaimedTwice<Tables> })
): Joined<Tables> {
  return Object.assign({}, ...tables) as Joined<Tables>;
}
