// What this implementation decides where the specification is silent, as the kit's --choice values.
export const LIBRARY_CHOICES: Record<string, string> = {
  paging: 'link',
  'limit-out-of-range': 'refuse',
  'unknown-fields': 'ignore',
  'non-integer-id': '400',
  'ban-status': '429',
  'retry-after': 'seconds',
  'default-status': 'available',
};
