import type { Request, Response } from 'express';
import type { KeyStanding } from '../../domain/shared/personal-data.ts';
import {
  jsonTextRepresentation,
  sendRepresentation,
  strongEtag,
  type Representation,
} from '../http/representation.ts';

/** Opens the sealed personal fields of JSON text (PersonalDataKeyring.reveal). */
export type Reveal = (json: string) => Promise<string>;

/**
 * A JSON representation with its personal fields opened (or "[erased]"), and the sealed text it was made
 * from: what may be kept (a stored idempotent answer) without keeping personal data. The ETag covers the
 * bytes sent, so it changes when an erasure changes them (for one made from a version instead, see
 * ownedJsonRepresentation).
 */
export const revealedJsonRepresentation = async (
  reveal: Reveal,
  value: unknown,
  options: Parameters<typeof jsonTextRepresentation>[1] = {},
): Promise<{ representation: Representation; sealed: string }> => {
  const sealed = JSON.stringify(value);
  return { representation: jsonTextRepresentation(await reveal(sealed), options), sealed };
};

/** Opens one owner's sealed fields and says where their key stood (PersonalDataKeyring.revealOwned). */
export type RevealOwned = (ownerId: string, json: string) => Promise<{ json: string; standing: KeyStanding }>;

/**
 * The strong ETag of what one owner owns, from its sealed form and where the owner's key stands: known
 * before anything is opened (a command's If-Match is compared with it), and it changes whenever the bytes
 * sent do, an erasure (which changes the standing, not the sealed form) included.
 */
export const ownedEtag = (sealed: string, standing: KeyStanding): string =>
  strongEtag(Buffer.from(sealed), `key:${standing}`);

/**
 * The representation of what one owner owns (an order), its ETag from its sealed form (ownedEtag) and the
 * standing of the owner's key its bytes were opened under, so the two agree even when an erasure comes
 * while it is made. With the sealed text.
 */
export const ownedJsonRepresentation = async (
  revealOwned: RevealOwned,
  ownerId: string,
  value: unknown,
  options: Omit<Parameters<typeof jsonTextRepresentation>[1], 'etag'> = {},
): Promise<{ representation: Representation; sealed: string }> => {
  const sealed = JSON.stringify(value);
  const { json, standing } = await revealOwned(ownerId, sealed);
  const etag = ownedEtag(sealed, standing);
  return { representation: jsonTextRepresentation(json, { ...options, etag }), sealed };
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
