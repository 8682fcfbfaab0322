/**
 * The JSON scanner's error codes (json-scan.ts imports them as `E`); their messages, for the
 * same numbers, are in electron/worker/read/json-scan.ts.
 */

export const TOKEN: i32 = 1;
export const AFTER_JSON: i32 = 2;
export const EXPECTED_COMMA: i32 = 3;
export const PROPERTY: i32 = 4;
export const COLON: i32 = 5;
export const CONTROL: i32 = 6;
export const ESCAPE: i32 = 7;
export const UNICODE: i32 = 8;
export const MINUS: i32 = 9;
export const FRACTION: i32 = 10;
export const EXPONENT: i32 = 11;
export const LEADING_ZERO: i32 = 12;
export const END: i32 = 13;
