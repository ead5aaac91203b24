import type * as Nodemailer from 'nodemailer';

let library: typeof Nodemailer | undefined;

/**
 * nodemailer, required when a mailer first needs a transport rather than when the package is
 * imported: the server imports this package at start, and loading nodemailer then cost about a
 * tenth of its start-up module loading (bench/README.md, "Start-up").
 */
export const createTransport: typeof Nodemailer.createTransport = ((...args: Parameters<typeof Nodemailer.createTransport>) => {
  library ??= require('nodemailer') as typeof Nodemailer;
  return library.createTransport(...args);
}) as typeof Nodemailer.createTransport;
