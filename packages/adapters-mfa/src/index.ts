export { OtpauthTotp } from './otpauth-totp';
export { SimpleWebAuthnVerifier, type SimpleWebAuthnOptions } from './simple-webauthn-verifier';
