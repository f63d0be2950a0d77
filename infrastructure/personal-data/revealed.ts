import type { Request, Response } from 'express';
import { jsonTextRepresentation, sendRepresentation, type Representation } from '../http/representation.ts';

/** Opens the sealed personal fields of JSON text (PersonalDataKeyring.reveal). */
export type Reveal = (json: string) => Promise<string>;

/**
 * A JSON representation with its personal fields opened (or "[erased]"), and the sealed text it was made
 * from: what may be kept (a stored idempotent answer) without keeping personal data. The ETag covers the
 * bytes sent, so it changes when an erasure changes them.
 */
export const revealedJsonRepresentation = async (
  reveal: Reveal,
  value: unknown,
  options: Parameters<typeof jsonTextRepresentation>[1] = {},
): Promise<{ representation: Representation; sealed: string }> => {
  const sealed = JSON.stringify(value);
  return { representation: jsonTextRepresentation(await reveal(sealed), options), sealed };
};

/** sendJson with the personal fields opened (or "[erased]"): what every surface that shows them uses. */
export const sendRevealedJson = async (
  reveal: Reveal,
  request: Request,
  response: Response,
  value: unknown,
  options: Parameters<typeof jsonTextRepresentation>[1] = {},
): Promise<void> => {
  const { representation } = await revealedJsonRepresentation(reveal, value, options);
  sendRepresentation(request, response, representation);
};
