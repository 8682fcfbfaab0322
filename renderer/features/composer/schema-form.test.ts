import { describe, expect, it } from 'vitest';
import {
  fieldsFromSchema,
  initialValues,
  parseRawArgs,
  valuesFromArgs,
  valuesToArgs,
} from './schema-form';

const SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What to look for' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    ratio: { type: 'number' },
    verbose: { type: 'boolean', default: false },
    kind: { type: 'string', enum: ['logging', 'progress'] },
    tags: { type: 'array', items: { type: 'string' } },
    filter: { type: 'object', properties: { a: { type: 'string' } } },
    cursor: { anyOf: [{ type: 'string' }, { type: 'null' }], title: 'Cursor' },
    level: { oneOf: [{ const: 1 }, { const: 2 }] },
    mixed: { type: ['string', 'number'] },
  },
  required: ['query', 'kind'],
  additionalProperties: false,
};

describe('fieldsFromSchema', () => {
  it('maps each property to a field kind with required markers and docs', () => {
    const { fields, unsupported } = fieldsFromSchema(SCHEMA);
    expect(unsupported).toBeNull();
    expect(Object.fromEntries(fields.map((f) => [f.name, f.kind]))).toEqual({
      query: 'string',
      limit: 'integer',
      ratio: 'number',
      verbose: 'boolean',
      kind: 'enum',
      tags: 'string-array',
      filter: 'json',
      cursor: 'string',
      level: 'enum',
      mixed: 'json',
    });
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    expect(byName.query.required).toBe(true);
    expect(byName.limit.required).toBe(false);
    expect(byName.query.description).toBe('What to look for');
    expect(byName.cursor.title).toBe('Cursor');
    expect(byName.level.options).toEqual([1, 2]);
    expect(byName.limit.minimum).toBe(1);
  });

  it('accepts an empty schema and a schema without properties', () => {
    expect(fieldsFromSchema({ type: 'object' })).toEqual({ fields: [], unsupported: null });
    expect(fieldsFromSchema({})).toEqual({ fields: [], unsupported: null });
  });

  it('sends what it cannot express to the raw editor', () => {
    expect(fieldsFromSchema(null).unsupported).not.toBeNull();
    expect(fieldsFromSchema({ type: 'array' }).unsupported).not.toBeNull();
    expect(fieldsFromSchema({ oneOf: [{ type: 'object' }] }).unsupported).not.toBeNull();
  });
});

describe('values ↔ arguments', () => {
  const { fields } = fieldsFromSchema(SCHEMA);

  it('fills defaults', () => {
    const values = initialValues(fields);
    expect(values.limit).toBe('20');
    expect(values.verbose).toBe('false');
    expect(values.query).toBe('');
  });

  it('builds typed arguments and leaves empty optional fields out', () => {
    const values = {
      ...initialValues(fields),
      query: 'item',
      kind: '1',
      tags: 'a\nb\n\n',
      filter: '{"a": "x"}',
      level: '0',
    };
    const { args, errors } = valuesToArgs(fields, values);
    expect(errors).toEqual({});
    expect(args).toEqual({
      query: 'item',
      limit: 20,
      verbose: false,
      kind: 'progress',
      tags: ['a', 'b'],
      filter: { a: 'x' },
      level: 1,
    });
  });

  it('flags missing required fields and bad values', () => {
    const { errors } = valuesToArgs(fields, {
      query: '',
      kind: '',
      limit: '2.5',
      ratio: 'abc',
      filter: '{',
    });
    expect(errors.query).toBe('required');
    expect(errors.kind).toBe('required');
    expect(errors.limit).toBe('not an integer');
    expect(errors.ratio).toBe('not a number');
    expect(errors.filter).toMatch(/invalid JSON/);
    expect(valuesToArgs(fields, { query: 'q', kind: '0', limit: '0' }).errors.limit).toBe(
      'at least 1',
    );
  });

  it('round-trips arguments through the form', () => {
    const args = { query: 'q', kind: 'logging', tags: ['x'], limit: 5, verbose: true };
    const back = valuesToArgs(fields, valuesFromArgs(fields, args));
    expect(back.errors).toEqual({});
    expect(back.args).toEqual(args);
  });
});

describe('parseRawArgs', () => {
  it('accepts an object, empty text, and rejects the rest', () => {
    expect(parseRawArgs('{"a":1}')).toEqual({ args: { a: 1 } });
    expect(parseRawArgs('  ')).toEqual({ args: {} });
    expect(parseRawArgs('[1]')).toEqual({ error: 'arguments must be a JSON object' });
    expect('error' in parseRawArgs('{')).toBe(true);
  });
});
