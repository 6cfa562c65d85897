/**
 * Which mental models the automatic recall injects. A model must belong to the bank's scope
 * (an untagged model is nobody's: in a shared bank it would reach every project) and must say
 * something: refreshed at least once, with text, and, when the server reports what the refresh
 * drew on, drawn from at least one memory or model. A starter model in a new bank answers "no
 * relevant memories" until there are some; injecting that on every prompt is noise.
 */
import { isRecord } from '../../codecs/codecs.js';
import { fitsUserBank, type BankTarget, type Scope } from '../../config/scope.js';
import type { MentalModel } from '../../wire/hindsight.js';
import type { MentalModelText } from './recallBlock.js';

const fitsScope = (target: BankTarget, scope: Scope, tags: readonly string[] | null | undefined): boolean => {
  const own = tags ?? [];
  if (own.length === 0) return false;
  // A model a project made is never the person's own (`fitsUserBank`).
  if (target.role === 'user') return fitsUserBank(own) && (scope.userScopeTags.length === 0 || own.some((tag) => scope.userScopeTags.includes(tag)));
  return own.some((tag) => scope.projectScopeTags.includes(tag));
};

/** False only when the refresh's `based_on` lists its sources and every list is empty. */
const drewOnSomething = (reflectResponse: unknown): boolean => {
  if (!isRecord(reflectResponse)) return true;
  const basedOn = reflectResponse['based_on'];
  if (!isRecord(basedOn)) return true;
  const lists = Object.values(basedOn).filter(Array.isArray);
  return lists.length === 0 || lists.some((list) => list.length > 0);
};

export const modelsToInject = (target: BankTarget, scope: Scope, models: readonly MentalModel[]): MentalModelText[] =>
  models.flatMap((model) => {
    const content = model.content?.trim() ?? '';
    const said = content.length > 0 && model.last_refreshed_at != null && drewOnSomething(model.reflect_response);
    return said && fitsScope(target, scope, model.tags) ? [{ name: model.name, content, refreshedAt: model.last_refreshed_at ?? null }] : [];
  });
