// Text that leaves the worker as a failure message or a log line (Temporal's history, a run's and a tool
// call's error_message, the logs) with what looks like a secret taken out: URLs lose their query string,
// fragment and user info, credentials keep their name but not their value, token formats and long random
// strings are replaced, and so is any secret the process knows by value. Pure and linear in the text's
// length (every repetition is bounded or cannot overlap another), so workflow code may call it and a
// hostile body cannot make it slow.

export const REDACTED = '[redacted]';
/** How much of a tool's error body a failure message keeps. */
export const TOOL_ERROR_DETAIL_CHARS = 512;
/** Known secrets shorter than this are not searched for: too short to tell from ordinary text (a default password such as `stepwise`). */
export const MIN_KNOWN_SECRET_CHARS = 12;

const URL_PATTERN = /\b([a-z][a-z0-9+.-]{1,15}:\/\/)([^\s/?#@"<>`]*@)?([^\s/?#"<>`]*)([^\s?#"<>`]*)(\?[^\s#"<>`]*)?(#[^\s"<>`]*)?/gi;

/** Authorization schemes followed by their credential (not by a plain lowercase word: "the token expired"). */
const SCHEME_PATTERN = /\b([Bb]earer|BEARER|Basic|Digest|Token)(\s+)(?![a-z]+\b)[A-Za-z0-9._~+/=-]{6,}/g;

/** `name=value`, `name: value`, `"name": "value"`: a name of up to 64 characters, starting a word, and its sign. */
const PAIR_NAME = /(?<![\w-])([A-Za-z][\w-]{0,63})(["']?\s{0,8}[:=]\s{0,8})/g;
/** The value after a pair's sign: quoted, or up to a space or a delimiter. */
const PAIR_VALUE = /"[^"\n]*"|'[^'\n]*'|[^\s"'&,;}<>]+/y;
const SECRET_NAME =
  /api[_-]?key|apikey|access[_-]?key|secret|passw(or)?d|pwd|token|authorization|cookie|session[_-]?id|private[_-]?key|signature|credential/i;

/**
 * Formats credentials come in: provider keys, ours (sk_, whsec_), GitHub, Slack, AWS, Google, JWTs, PEM
 * keys. Each starts where its own alphabet does not go on to the left, so a run of one repeated prefix
 * (`xoxb-xoxb-...`) is one match, not one search per prefix.
 */
const TOKEN_PATTERNS = [
  /(?<![\w-])(?:sk|pk|rk)[-_][A-Za-z0-9_-]{16,}/g,
  /(?<![\w+/=-])(?:whsec|nsec)_[A-Za-z0-9+/=_-]{8,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /(?<![\w-])xox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /(?<![\w-])AIza[0-9A-Za-z_-]{30,}/g,
  /(?<![\w-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[^-]*(-----END [A-Z ]{0,40}PRIVATE KEY-----)?/g,
];

/** 32 or more characters of a key alphabet, letters and digits mixed: a key, a digest, a session id. */
const RANDOM_RUN = /[A-Za-z0-9_+=]{32,}/g;

/** A query string without its URL (`GET /v1/items?api_key=...`, an error quoting `?token=...`). */
const BARE_QUERY_PATTERN = /\?[\w.%[\]-]{1,64}=[^\s"'<>`#]*/g;

/** The URLs in `text` without their query string, fragment or user info, and any other query string too. */
export function withoutQueryStrings(text: string): string {
  return text
    .replace(
      URL_PATTERN,
      (
        _match,
        scheme: string,
        userInfo: string | undefined,
        host: string,
        path: string,
        query: string | undefined,
        fragment: string | undefined,
      ) => `${scheme}${userInfo ? `${REDACTED}@` : ''}${host}${path}${query ? `?${REDACTED}` : ''}${fragment ? `#${REDACTED}` : ''}`,
    )
    .replace(BARE_QUERY_PATTERN, `?${REDACTED}`);
}

/** `text` with what looks like a secret replaced by [redacted], and every `known` secret by value. */
export function scrubSecrets(text: string, known: readonly string[] = []): string {
  let scrubbed = withoutQueryStrings(text).replace(
    SCHEME_PATTERN,
    (_match, scheme: string, space: string) => `${scheme}${space}${REDACTED}`,
  );
  scrubbed = withoutSecretValues(scrubbed);
  for (const pattern of TOKEN_PATTERNS) scrubbed = scrubbed.replace(pattern, REDACTED);
  scrubbed = scrubbed.replace(RANDOM_RUN, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? REDACTED : run));
  return withoutKnown(scrubbed, known);
}

/**
 * The values of pairs named like a secret replaced. The value is read only after a secret's name, and
 * the search goes on right after it (or after a sign), so no character is read twice.
 */
function withoutSecretValues(text: string): string {
  const names = new RegExp(PAIR_NAME.source, 'g');
  const values = new RegExp(PAIR_VALUE.source, 'y');
  let result = '';
  let copied = 0;
  for (let match = names.exec(text); match; match = names.exec(text)) {
    const [head, name] = match;
    if (!SECRET_NAME.test(name)) continue;
    values.lastIndex = match.index + head.length;
    const value = values.exec(text)?.[0];
    if (!value || value.startsWith(REDACTED)) continue;
    const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
    result += `${text.slice(copied, values.lastIndex - value.length)}${quote}${REDACTED}${quote}`;
    copied = values.lastIndex;
    names.lastIndex = values.lastIndex;
  }
  return result + text.slice(copied);
}

/** Every occurrence of each known secret replaced, longest first, until none is left (a replacement may join two halves). */
function withoutKnown(text: string, known: readonly string[]): string {
  const secrets = known
    .filter((secret) => secret.length >= MIN_KNOWN_SECRET_CHARS && !REDACTED.includes(secret))
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (let pass = 0; pass < 4 && secrets.some((secret) => result.includes(secret)); pass++) {
    for (const secret of secrets) result = result.split(secret).join(REDACTED);
  }
  return secrets.some((secret) => result.includes(secret)) ? REDACTED : result;
}

/** At most `max` characters (an ellipsis says it was cut), never half a surrogate pair. */
export function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/**
 * A tool's error body as a failure message quotes it: on one line, scrubbed, then cut at
 * TOOL_ERROR_DETAIL_CHARS. It is cut to a few times that first, so a huge body costs no more to scrub.
 */
export function toolErrorDetail(body: string, known: readonly string[] = []): string {
  return shortened(scrubSecrets(wholeWords(body, TOOL_ERROR_DETAIL_CHARS * 4).replace(/\s*\n\s*/g, ' '), known), TOOL_ERROR_DETAIL_CHARS);
}

/** The first `max` characters without the word the cut went through: half a secret would not be recognised. */
function wholeWords(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  while (end > 0 && !/\s/.test(text[end - 1])) end--;
  return text.slice(0, end);
}
