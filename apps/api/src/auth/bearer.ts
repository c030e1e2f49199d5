/** The key of an `Authorization: Bearer <key>` header; null without one. */
export const bearerKey = (header: string | undefined): string | null => /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1] ?? null;
