let zones: string[] | undefined;

/** Every IANA time zone the runtime knows, UTC included, for the time zone pickers. */
export function timeZoneChoices(): string[] {
  zones ??= [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])].sort();
  return zones;
}

/** An HTML checkbox is sent as "on" when ticked and not at all otherwise. */
export const isTicked = (value: string | undefined) => value !== undefined && value !== '';
