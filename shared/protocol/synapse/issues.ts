/**
 * zod issues → field violations (`payload.task.type`: "is required (a string)"), small whatever
 * the input: at most MAX_VIOLATIONS, each clipped, and an input value is shown only when asked,
 * clipped (never for configuration, which holds secrets).
 */

import { clip } from '../../validation/text.ts';
import type * as z from '../../validation/zod.ts';
import { formatPath, MAX_DESCRIPTION_LENGTH, MAX_VIOLATIONS, MESSAGE_ID_PATTERN } from './bounds.ts';
import type { FieldViolation } from './errors.ts';
import { NO_CONTROL } from './scalars.ts';

export interface DescribeOptions {
  /** Whether a description may show (a clipped rendering of) the value given. */
  showValues: boolean;
}

/** The first MAX_VIOLATIONS distinct violations, and how many distinct ones there were. */
export function violationsOf(
  issues: readonly z.core.$ZodIssue[],
  options: DescribeOptions = { showValues: true },
): { violations: FieldViolation[]; total: number } {
  const seen = new Set<string>();
  const violations: FieldViolation[] = [];
  const add = (violation: FieldViolation) => {
    // one value failing two checks the same way (an endpoint that is neither a URL nor http) counts once
    const key = `${violation.field}\n${violation.description}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (violations.length < MAX_VIOLATIONS) violations.push(violation);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      // only strict objects (configuration) report these: name each key
      for (const key of issue.keys)
        add({ field: formatPath([...issue.path, key]), description: 'is not a known field' });
      continue;
    }
    add({
      field: formatPath(issue.path),
      description: clip(describeIssue(issue, options), MAX_DESCRIPTION_LENGTH),
    });
  }
  return { violations, total: seen.size };
}

/** A short rendering of a value for an error (never the value itself when it is long). */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(clip(v, 40));
    case 'number':
    case 'boolean':
      return String(v);
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  object: 'an object',
  array: 'an array',
  int: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
};

const PATTERN_ADVICE: ReadonlyArray<[RegExp, string]> = [
  [MESSAGE_ID_PATTERN, 'may contain only letters, digits, "_", "-" and ":"'],
  [NO_CONTROL, 'must not contain control characters'],
];

const isDefaultMessage = (message: string): boolean => /^(Invalid|Too (small|big)|Expected)/.test(message);

export function describeIssue(
  issue: z.core.$ZodIssue,
  options: DescribeOptions = { showValues: true },
): string {
  // parsed with reportInput: an issue without an input is about a field that is absent
  const absent = 'input' in issue && issue.input === undefined;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      if (issue.input === undefined) return `is required (${expected})`;
      return options.showValues
        ? `must be ${expected}, got ${describeValue(issue.input)}`
        : `must be ${expected}`;
    }
    case 'too_small':
      if (issue.origin === 'array') return `must contain at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1
          ? 'must not be empty'
          : `must be at least ${issue.minimum} characters`;
      }
      return `must be >= ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `must contain at most ${issue.maximum} item(s)`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return `must be <= ${issue.maximum}`;
    case 'invalid_value':
      if (!isDefaultMessage(issue.message))
        return absent ? `is required; it ${issue.message}` : issue.message;
      return `${absent ? 'is required, one of' : 'must be one of'} ${issue.values
        .slice(0, 20)
        .map((v) => JSON.stringify(v))
        .join(', ')}${issue.values.length > 20 ? ', …' : ''}`;
    case 'invalid_format': {
      if (issue.format === 'datetime') return 'must be an RFC 3339 date-time such as 2026-01-01T00:00:00Z';
      if (issue.format === 'url') return 'must be an absolute http(s) URL';
      if (issue.format === 'regex' && 'pattern' in issue) {
        const advice = PATTERN_ADVICE.find(([p]) => String(p) === String(issue.pattern))?.[1];
        if (advice) return advice;
        if (issue.path.at(-1) === 'endpoint') return 'must be an absolute http(s) URL';
      }
      return isDefaultMessage(issue.message)
        ? `is not in the expected format (${issue.format})`
        : issue.message;
    }
    case 'custom':
      return absent ? `is required (${issue.message.replace(/^must be /, '')})` : issue.message;
    default:
      return issue.message;
  }
}
