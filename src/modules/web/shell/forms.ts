import { Type } from 'typebox';

let zones: string[] | undefined;

/** Every IANA time zone the runtime knows, UTC included, for the time zone pickers. */
export function timeZoneChoices(): string[] {
  zones ??= [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])].sort();
  return zones;
}

/** An HTML checkbox is sent as "on" when ticked and not at all otherwise. */
export const isTicked = (value: string | undefined) => value !== undefined && value !== '';

/** The fields of a new account, on the setup and the sign-up page (the service checks the values). */
export const NewAccountForm = Type.Object({
  name: Type.String({ maxLength: 200 }),
  email: Type.String({ maxLength: 500 }),
  password: Type.String({ maxLength: 1000 }),
  passwordConfirm: Type.String({ maxLength: 1000 }),
  timezone: Type.String({ maxLength: 100 }),
});
