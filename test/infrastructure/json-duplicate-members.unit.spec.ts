import { describe, expect, it } from 'vitest';
import { duplicateMemberIn } from '../../infrastructure/http/json-duplicate-members.ts';

describe('a member named twice in a JSON body', () => {
  it('is found where it is, at any depth, with its path as field errors name it', () => {
    expect(duplicateMemberIn('{"items":[],"items":[{"productId":"1001","quantity":1}]}')).toBe('items');
    expect(duplicateMemberIn('{"items":[{"productId":"1","quantity":1,"quantity":999}]}')).toBe(
      'items[0].quantity',
    );
    expect(duplicateMemberIn('{"a":{"b":[1,{"c":1},{"c":2,"c":3}]}}')).toBe('a.b[2].c');
    expect(duplicateMemberIn('[{"x":1},{"x":2,"x":3}]')).toBe('[1].x');
  });

  it('is found through escapes: "\\u0061" names a too', () => {
    expect(duplicateMemberIn('{"a":1,"\\u0061":2}')).toBe('a');
  });

  it('is not seen in the same name in sibling objects, in values, or in strings holding quotes and braces', () => {
    expect(duplicateMemberIn('{"a":{"x":1},"b":{"x":2}}')).toBeNull();
    expect(duplicateMemberIn('{"a":"a","b":["a","a"]}')).toBeNull();
    expect(duplicateMemberIn('{"a":"\\",\\"a\\":{","b":"}"}')).toBeNull();
    expect(duplicateMemberIn('{"a":[{"k":1}],"k":2}')).toBeNull();
    expect(duplicateMemberIn('"just a string"')).toBeNull();
    expect(duplicateMemberIn('{}')).toBeNull();
  });
});
