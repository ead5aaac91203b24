import { ValidateBy, type ValidationOptions } from 'class-validator';
import type { WebAuthnSettings } from '@svc/core';
import { isOrigin } from './checks';

const MAX_ORIGINS = 100;
const MAX_TEXT = 253;

/**
 * The shape of a project's `webauthn` setting: `{ rpId, rpName, origins }`, nothing else. Whether
 * the origins belong to the RP ID is core's rule (webAuthnSettingsProblem), checked on save.
 */
export function webAuthnShapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'webauthn must be an object or null.';
  const { rpId, rpName, origins, ...rest } = value as Partial<WebAuthnSettings> & Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return `webauthn.${extra} is not a known field (rpId, rpName, origins).`;
  if (typeof rpId !== 'string' || rpId.length === 0 || rpId.length > MAX_TEXT) return 'webauthn.rpId must be a domain name.';
  if (typeof rpName !== 'string' || rpName.length === 0 || rpName.length > 200) return 'webauthn.rpName must be a string of 1 to 200 characters.';
  if (!Array.isArray(origins) || origins.length === 0 || origins.length > MAX_ORIGINS) {
    return `webauthn.origins must list 1 to ${MAX_ORIGINS} origins.`;
  }
  return origins.every(isOrigin) ? null : 'each webauthn.origins entry must be an origin such as https://app.example.com.';
}

export function IsWebAuthnSettings(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebAuthnSettings',
      validator: {
        validate: (value) => webAuthnShapeProblem(value) === null,
        defaultMessage: (args) => webAuthnShapeProblem(args?.value) ?? 'webauthn is not valid.',
      },
    },
    options,
  );
}
