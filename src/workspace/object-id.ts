/** Whether `value` is a full git object id (SHA-1 or SHA-256, lower-case hex), the only base or tree devflow passes on. */
export function isObjectId(value: string): boolean {
  return /^[0-9a-f]{40,64}$/.test(value);
}
