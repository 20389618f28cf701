/**
 * @internal Where to go after sign-in: `value` when it is a path of this site, `/` otherwise, so
 * that a crafted `?next=` can never send anyone to another site (`//evil.example`, `/\\evil`,
 * `https://…`) or back to a sign-in page.
 */
export function safeNext(value: string): string {
  if (value.length > 2048) return '/';
  if (!/^\/(?![/\\])[^\s\\]*$/.test(value)) return '/';
  if (value === '/signin' || value.startsWith('/signin/') || value.startsWith('/signin?')) {
    return '/';
  }
  return value;
}
