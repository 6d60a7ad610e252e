/**
 * Parsers of option values, each refusing a bad one with a line naming the option.
 */
import { InvalidArgumentError } from 'commander';

export const positiveInt = (flag: string) => (raw: string) => {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(`${flag} takes a whole number above 0, got "${raw}"`);
  return value;
};

export const nonNegativeInt = (flag: string) => (raw: string) => {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) throw new InvalidArgumentError(`${flag} takes a whole number, got "${raw}"`);
  return value;
};

/** `--priority`: a priority class, 1 (first) to 9 (last). */
export const priorityOption = (raw: string) => {
  if (!/^[1-9]$/.test(raw)) throw new InvalidArgumentError(`--priority takes a class from 1 (first) to 9 (last), got "${raw}"`);
  return Number(raw);
};

/** A repeatable option: each value is added to the list. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--url`: an http:// or https:// URL. */
export const httpUrl = (raw: string) => {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new InvalidArgumentError(`takes an http:// or https:// URL, got "${raw}"`);
  return raw;
};
