/**
 * Decoding server bodies with the wire codecs of `src/wire`. A body that is empty, not JSON or
 * the wrong shape is a `badResponse` whose detail names the route and the field.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { redact } from '../../config/redact.js';
import { decodeJson } from '../../codecs/decode.js';
import type { ServerFailure } from '../../effects/ports/memoryServer.js';


/** `{"status": "deleted"}` and similar acknowledgements: any JSON object will do. */
export const Acknowledgement = t.UnknownRecord;

const DETAIL_MAX = 400;

/** Decodes a 2xx body; `route` names the call in the error (`POST /memories/recall`). */
export const decodeBody =
  <A, O>(codec: t.Type<A, O, unknown>, route: string) =>
  (text: string): E.Either<ServerFailure, A> => {
    if (text.trim() === '') return E.left({ _tag: 'badResponse', detail: `${route}: empty body, expected a JSON ${codec.name}` });
    return E.mapLeft((error: { message: string }): ServerFailure => {
      const detail = redact(error.message);
      return { _tag: 'badResponse', detail: detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX)}…` : detail };
    })(decodeJson(codec, `${route} response`)(text));
  };
