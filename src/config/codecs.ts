/** Value codecs the config field table is built from. */
import * as t from 'io-ts';
import { oneOfStrings } from '../codecs/codecs.js';

/** A codec whose value may be absent (`undefined`): "not set". */
export const optional = <C extends t.Mixed>(codec: C) => t.union([codec, t.undefined], `${codec.name} | not set`);

/** A select field: one of a fixed list of strings; the list doubles as its `choices`. */
export const select = <V extends string>(values: readonly [V, ...V[]]) => {
  return { codec: oneOfStrings(values), choices: values } as const;
};

export interface ConfigTextBrand {
  readonly ConfigText: unique symbol;
}
/** Non-blank text without control characters. */
export const ConfigText = t.brand(
  t.string,
  // eslint-disable-next-line no-control-regex
  (s): s is t.Branded<string, ConfigTextBrand> => s.trim().length > 0 && s.length <= 1024 && !/[\u0000-\u001f\u007f]/.test(s),
  'ConfigText',
);

export interface EnvVarNameBrand {
  readonly EnvVarName: unique symbol;
}
/** The name of an environment variable (never its value). */
export const EnvVarName = t.brand(
  t.string,
  (s): s is t.Branded<string, EnvVarNameBrand> => /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(s),
  'EnvVarName',
);
export type EnvVarName = t.TypeOf<typeof EnvVarName>;

const isHttpUrl = (s: string): boolean => {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
};

export interface HttpUrlBrand {
  readonly HttpUrl: unique symbol;
}
/** An http(s) URL with no credentials, query or fragment (a key never rides in a URL). */
export const HttpUrl = t.brand(t.string, (s): s is t.Branded<string, HttpUrlBrand> => isHttpUrl(s), 'HttpUrl');
export type HttpUrl = t.TypeOf<typeof HttpUrl>;

export interface ConfigPathBrand {
  readonly ConfigPath: unique symbol;
}
/** A file path as written in a config file; where it may point is checked at resolution. */
export const ConfigPath = t.brand(
  t.string,
  (s): s is t.Branded<string, ConfigPathBrand> => s.trim().length > 0 && s.length <= 4096 && !s.includes('\u0000'),
  'ConfigPath',
);
export type ConfigPath = t.TypeOf<typeof ConfigPath>;

export interface ScopeTagBrand {
  readonly ScopeTag: unique symbol;
}
/** A memory tag: 1-128 characters, no control characters, no surrounding blanks. */
export const ScopeTag = t.brand(
  t.string,
  // eslint-disable-next-line no-control-regex
  (s): s is t.Branded<string, ScopeTagBrand> => s.length > 0 && s.length <= 128 && s.trim() === s && !/[\u0000-\u001f\u007f]/.test(s),
  'ScopeTag',
);

const originOf = (s: string): string | undefined => {
  try {
    const url = new URL(s);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
};

export interface OriginBrand {
  readonly Origin: unique symbol;
}
/** An http(s) origin such as `https://memory.example.com:8443` (a base URL is accepted too). */
export const Origin = t.brand(t.string, (s): s is t.Branded<string, OriginBrand> => originOf(s) !== undefined, 'Origin');

/** The origin of an http(s) URL, or undefined when it is not one. */
export const urlOrigin = originOf;

