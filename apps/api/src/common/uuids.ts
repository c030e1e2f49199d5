// isUuid and nameBasedUuid live in @app/domain (identity/uuids.ts); this door stays only until the runs
// files, being reshaped beside this change, import them from there.
export { isUuid, nameBasedUuid } from '@app/domain';
